//! fio 3.33's `random_generator=lfsr`: a maximal-length Galois LFSR (the
//! XNOR form, whose forbidden state is all ones) per file, walking every
//! block number below the file's block count exactly once, in fio's order.
//!
//! How fio sets it up (lib/lfsr.c, filesetup.c):
//! - The register has the fewest bits `n` (3 to 63) with `2^n` above the
//!   block count; its feedback taps come from the standard table of
//!   maximal-length taps (one set per width).
//! - A step shifts right, sets the top bit, and where the bit shifted out
//!   was 0 flips the tap bits.
//! - The start state is the job's seed slot 6 (fio's `FIO_RAND_BLOCK_OFF`,
//!   whatever randrepeat says) masked to `n` bits; all ones is refused.
//! - A draw steps until the state is a block number (below the count);
//!   after `count` draws the file has no offset left.
//! - fio's "spin" is 0, but its bookkeeping makes the very first draw after
//!   set-up take two steps (not after a reset: a file opened again for a
//!   new loop or pass starts over from the seed with single steps).

/// Feedback taps (bit positions, 1-based) of a maximal-length LFSR per
/// register width; widths below 3 have none.
const TAPS: [&[u8]; 64] = [
    &[],
    &[],
    &[],
    &[3, 2],
    &[4, 3],
    &[5, 3],
    &[6, 5],
    &[7, 6],
    &[8, 6, 5, 4],
    &[9, 5],
    &[10, 7],
    &[11, 9],
    &[12, 6, 4, 1],
    &[13, 4, 3, 1],
    &[14, 5, 3, 1],
    &[15, 14],
    &[16, 15, 13, 4],
    &[17, 14],
    &[18, 11],
    &[19, 6, 2, 1],
    &[20, 17],
    &[21, 19],
    &[22, 21],
    &[23, 18],
    &[24, 23, 22, 17],
    &[25, 22],
    &[26, 6, 2, 1],
    &[27, 5, 2, 1],
    &[28, 25],
    &[29, 27],
    &[30, 6, 4, 1],
    &[31, 28],
    &[32, 31, 29, 1],
    &[33, 20],
    &[34, 27, 2, 1],
    &[35, 33],
    &[36, 25],
    &[37, 5, 4, 3, 2, 1],
    &[38, 6, 5, 1],
    &[39, 35],
    &[40, 38, 21, 19],
    &[41, 38],
    &[42, 41, 20, 19],
    &[43, 42, 38, 37],
    &[44, 43, 18, 17],
    &[45, 44, 42, 41],
    &[46, 45, 26, 25],
    &[47, 42],
    &[48, 47, 21, 20],
    &[49, 40],
    &[50, 49, 24, 23],
    &[51, 50, 36, 35],
    &[52, 49],
    &[53, 52, 38, 37],
    &[54, 53, 18, 17],
    &[55, 31],
    &[56, 55, 35, 34],
    &[57, 50],
    &[58, 39],
    &[59, 58, 38, 37],
    &[60, 59],
    &[61, 60, 46, 45],
    &[62, 61, 6, 5],
    &[63, 62],
];

/// One file's LFSR over `count` block numbers.
#[derive(Debug, Clone)]
pub struct Lfsr {
    state: u64,
    /// Bits flipped where a 0 is shifted out.
    flip: u64,
    /// The register's top bit.
    top: u64,
    /// The largest block number (count - 1).
    last: u64,
    /// Draws made since the last reset.
    drawn: u64,
    /// The first draw after set-up takes an extra step.
    extra: bool,
    /// The seed masked to the register (all ones: fio refuses it).
    start: u64,
}

impl Lfsr {
    /// Over `count` block numbers (`count` >= 1) from `seed`; None where
    /// fio fails ("failed initializing LFSR": a seed whose low bits are all
    /// ones, or a count no 63-bit register holds).
    pub fn new(count: u64, seed: u64) -> Option<Self> {
        let width = (3..64).find(|&n| (1u64 << n) > count)?;
        let flip = TAPS[width].iter().fold(0u64, |m, &t| m | 1 << (t - 1));
        let top = 1u64 << (width - 1);
        let mask = (top << 1) - 1;
        let start = seed & mask;
        if start == mask {
            return None;
        }
        Some(Lfsr {
            state: start,
            flip,
            top,
            last: count.saturating_sub(1),
            drawn: 0,
            extra: true,
            start,
        })
    }

    /// Back to the seed (a file opened again), with single steps.
    pub fn reset(&mut self) {
        self.state = self.start;
        self.drawn = 0;
        self.extra = false;
    }

    #[inline]
    fn step(&mut self) {
        let v = self.state;
        let flip = if v & 1 == 0 { self.flip } else { 0 };
        self.state = ((v >> 1) | self.top) ^ flip;
    }

    /// The next block number; None once every one was drawn.
    #[inline]
    pub fn next(&mut self) -> Option<u64> {
        if self.drawn > self.last {
            return None;
        }
        self.drawn += 1;
        loop {
            if std::mem::take(&mut self.extra) {
                self.step();
            }
            self.step();
            if self.state <= self.last {
                return Some(self.state);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_block_once_then_none() {
        for count in [1u64, 2, 7, 8, 9, 100, 4096, 100_000] {
            for seed in [0u64, 1, 0x1234_5678_9abc] {
                let Some(mut l) = Lfsr::new(count, seed) else {
                    continue;
                };
                for pass in 0..2 {
                    let mut seen = vec![false; count as usize];
                    for _ in 0..count {
                        let b = l.next().expect("a block") as usize;
                        assert!(!seen[b], "count={count} seed={seed} b={b} twice");
                        seen[b] = true;
                    }
                    assert_eq!(l.next(), None, "count={count} pass={pass}");
                    l.reset();
                }
            }
        }
    }

    #[test]
    fn all_ones_seed_is_refused_and_taps_are_maximal() {
        // 4 blocks take a 3-bit register: seed 7 is its forbidden state.
        assert!(Lfsr::new(4, 7).is_none());
        assert!(Lfsr::new(4, 15).is_none());
        assert!(Lfsr::new(4, 6).is_some());
        // Each width's taps give a period of 2^n - 1 (widths up to 20).
        for (width, _) in TAPS.iter().enumerate().take(21).skip(3) {
            let count = (1u64 << width) - 1;
            let mut l = Lfsr::new(count - 1, 0).expect("lfsr");
            assert_eq!(l.top, 1 << (width - 1));
            let first = l.state;
            let mut period = 0u64;
            loop {
                l.step();
                period += 1;
                if l.state == first {
                    break;
                }
            }
            assert_eq!(period, count, "width {width}");
        }
    }
}
