//! The zones of a running `zonemode=strided` job (the settings and fio's
//! rules are in `job/zones.rs`): the bytes done in the current zone, and
//! when the next I/O moves to the next zone or starts its file over.

use crate::job::zones::Strided;

/// The zones of a running job: the bytes done in the current zone.
#[derive(Debug, Clone)]
pub struct Zones {
    cfg: Strided,
    /// fio's td->zone_bytes.
    bytes: u64,
    /// A pass just started: the last I/O the picker remembers is not one
    /// of this pass's.
    fresh: bool,
    /// Per file: drawn from since its last start-over (a file not drawn
    /// from has nothing to restart: its map is empty, its LFSR at its
    /// seed with fio's first double step still due).
    used: Vec<bool>,
}

/// What the next I/O's zone setup asks of the picker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Setup {
    /// Nothing.
    Keep,
    /// Start the file over in its zone: positions to the zone start and
    /// the random map empty (fio's fio_file_reset).
    Restart,
}

impl Zones {
    pub fn new(cfg: Strided) -> Self {
        Zones {
            cfg,
            bytes: 0,
            fresh: true,
            used: Vec::new(),
        }
    }

    /// The length random offsets are drawn over, from the zone start.
    pub fn range(&self) -> u64 {
        self.cfg.range
    }

    /// A new pass or loop: the count restarts (fio's reset_io_counters).
    pub fn reset(&mut self) {
        self.bytes = 0;
        self.fresh = true;
        self.used.fill(false);
    }

    /// Count an I/O of `len` bytes outside the picker's usual path (fio
    /// counts every I/O it fills).
    pub fn count(&mut self, len: u64) {
        self.bytes = self.bytes.wrapping_add(len);
    }

    /// Before an I/O of direction `d` on file `f` whose region starts at
    /// `start`, whose zone starts at `base` and whose size is `file_size`:
    /// `prev` is the length of the I/O before (counted once, on the first
    /// try of an I/O). Moves the zone and the position `pos` as fio does.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub fn setup(
        &mut self,
        prev: Option<u64>,
        f: usize,
        d: usize,
        start: u64,
        base: &mut u64,
        pos: &mut [u64; 3],
        file_size: u64,
    ) -> Setup {
        if let Some(len) = prev {
            if !std::mem::take(&mut self.fresh) {
                self.bytes = self.bytes.wrapping_add(len);
            }
        }
        let c = self.cfg;
        if self.bytes >= c.size {
            self.bytes = 0;
            *base = base.wrapping_add(c.range).wrapping_add(c.skip);
            if *base >= file_size {
                *base = start;
            }
            pos[d] = *base;
        }
        if pos[d] >= base.wrapping_add(c.range) {
            pos[d] = *base;
        }
        if f >= self.used.len() {
            self.used.resize(f + 1, false);
        }
        let used = std::mem::replace(&mut self.used[f], true);
        if self.bytes.is_multiple_of(c.range) {
            *pos = [*base; 3];
            if used {
                return Setup::Restart;
            }
        }
        Setup::Keep
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The zone starts and positions of a sequential job of 4 KiB I/Os.
    fn walk(cfg: Strided, file_size: u64, ios: usize) -> Vec<u64> {
        let mut z = Zones::new(cfg);
        let (mut base, mut pos) = (0u64, [0u64; 3]);
        let mut prev = Some(0);
        (0..ios)
            .map(|_| {
                z.setup(prev, 0, 0, 0, &mut base, &mut pos, file_size);
                let off = pos[0];
                pos[0] += 4096;
                prev = Some(4096);
                off / 4096
            })
            .collect()
    }

    #[test]
    fn strides_as_fio() {
        let cfg = |size, range, skip| Strided { size, range, skip };
        // fio 3.33 on a 64 KiB file, rw=read bs=4k (latency log offsets).
        assert_eq!(
            walk(cfg(8192, 16384, 0), 65536, 10),
            [0, 1, 4, 5, 8, 9, 12, 13, 0, 1]
        );
        assert_eq!(
            walk(cfg(8192, 16384, 8192), 65536, 8),
            [0, 1, 6, 7, 12, 13, 0, 1]
        );
        // zonesize over zonerange: the zone is read again from its start.
        assert_eq!(
            walk(cfg(12288, 8192, 0), 65536, 9),
            [0, 1, 0, 2, 3, 2, 4, 5, 4]
        );
        // A zone start past the file's end goes back to the first zone.
        assert_eq!(walk(cfg(8192, 16384, 16384), 65536, 6), [0, 1, 8, 9, 0, 1]);
    }
}
