//! I/O buffers and what goes into them. One aligned allocation made before
//! the job loop, carved into one slice per unit; the contents follow fio's
//! buffer options (`zero_buffers`, `refill_buffers`, `scramble_buffers`,
//! `buffer_compress_percentage`/`_chunk`, `dedupe_percentage`/`_mode`,
//! `buffer_pattern`) so compressing and deduplicating storage sees data
//! shaped like fio's: fio's byte generator for a given seed (the seeds
//! themselves come from our own stream) and fio's shape (random/zero split
//! per chunk, whole-buffer repeats, 512-byte scramble: io_u.c
//! fill_io_buffer, small_content_scramble).

pub use crate::job::content::Content;
use crate::job::Job;

/// I/O buffers: one aligned allocation, carved per unit.
pub struct Buffers {
    /// The first unit's buffer (iomem_align past the allocation's start).
    pub ptr: *mut u8,
    _region: super::memory::Region,
}

impl Buffers {
    /// `units` buffers of `unit_len` bytes, filled once as fio fills them
    /// at allocation (zeros with `zero_buffers`, else random or pattern).
    pub fn new(units: usize, unit_len: usize, fill: &mut Filler) -> Option<Self> {
        Self::backed(
            units,
            unit_len,
            fill,
            (&super::memory::Backing::Malloc, 0),
            0,
        )
        .ok()
    }

    /// As [`Buffers::new`], in memory of `backing` (fio's mem=), the first
    /// buffer `align` bytes past a page boundary (iomem_align).
    pub fn backed(
        units: usize,
        unit_len: usize,
        fill: &mut Filler,
        (backing, huge_page): (&super::memory::Backing, usize),
        align: usize,
    ) -> Result<Self, super::memory::AllocError> {
        let size = units
            .checked_mul(unit_len)
            .and_then(|s| s.checked_add(align))
            .ok_or(super::memory::AllocError {
                errno: libc::ENOMEM,
                func: "iomem allocation",
                note: String::new(),
            })?;
        let region = super::memory::alloc(backing, size, huge_page)?;
        // SAFETY: the region holds `size` >= align + units * unit_len bytes.
        let ptr = unsafe { region.base.add(align) };
        let bytes = unsafe { std::slice::from_raw_parts_mut(ptr, units * unit_len) };
        if !fill.content.zero {
            for unit in bytes.chunks_mut(unit_len.max(1)) {
                fill.fill(unit);
            }
        }
        Ok(Buffers {
            ptr,
            _region: region,
        })
    }
}

/// number) as it starts: every job has its own, as fio seeds buf_state
/// per thread.
fn job_stream(number: u64) -> SeedState {
    SeedState(mix(number ^ 0x00b0_ffe5))
}

/// A splitmix64 stream: fio's `frand_state` in spirit (copyable, so a
/// buffer can be generated again from a saved state).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeedState(u64);

impl SeedState {
    #[inline]
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix(self.0)
    }
}

#[inline]
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// fio's random bytes from `seed` (lib/rand.c __fill_random_buf, with the
/// default 4 seed buckets): four interleaved streams, seed * 1, 2, 3, 5,
/// each word the previous one times the 64-bit golden ratio, the tail from
/// the first stream. The same seed gives the same bytes as fio, so a block
/// fio wrote can be regenerated from its header's seed (verify_dump).
#[inline]
pub fn fill_random(buf: &mut [u8], seed: u64) {
    const GOLDEN: u64 = 0x61C8_8646_80B5_83EB;
    let mut s = [
        seed,
        seed.wrapping_mul(2),
        seed.wrapping_mul(3),
        seed.wrapping_mul(5),
    ];
    let whole = buf.len() / 32 * 32;
    let (head, tail) = buf.split_at_mut(whole);
    for group in head.chunks_exact_mut(32) {
        for (w, st) in group.chunks_exact_mut(8).zip(s.iter_mut()) {
            w.copy_from_slice(&st.to_le_bytes());
            *st = st.wrapping_mul(GOLDEN);
        }
    }
    let mut last = s[0];
    let mut words = tail.chunks_exact_mut(8);
    for w in &mut words {
        w.copy_from_slice(&last.to_le_bytes());
        last = last.wrapping_mul(GOLDEN);
    }
    let rest = words.into_remainder();
    let n = rest.len();
    rest.copy_from_slice(&last.to_le_bytes()[..n]);
}

/// Copy `pattern` over `buf`, repeated (zeros without a pattern).
fn fill_pattern(buf: &mut [u8], pattern: Option<&[u8]>) {
    match pattern {
        Some(p) => {
            for c in buf.chunks_mut(p.len()) {
                c.copy_from_slice(&p[..c.len()]);
            }
        }
        None => buf.fill(0),
    }
}

/// fio's `__fill_random_buf_percentage`: per `segment`, (100 - pct)% random
/// from `seed`, the rest zero (or the pattern).
pub fn fill_percentage(
    buf: &mut [u8],
    seed: u64,
    pct: u32,
    segment: usize,
    pattern: Option<&[u8]>,
) {
    if pct >= 100 {
        fill_pattern(buf, pattern);
        return;
    }
    let segment = segment.clamp(1, buf.len().max(1));
    let mut at = 0;
    let len = buf.len();
    while at < len {
        let left = len - at;
        let random = (segment * (100 - pct as usize) / 100).min(left);
        fill_random(&mut buf[at..at + random], seed);
        at += random;
        if at == len {
            break;
        }
        let left = len - at;
        let mut fixed = segment - random;
        if fixed > left || left - fixed <= 8 {
            fixed = left;
        }
        fill_pattern(&mut buf[at..at + fixed], pattern);
        at += fixed;
    }
}

/// Random contents from `seed` as a verified write carries them
/// (compression applies, over the whole block: fio's __fill_buffer).
pub fn fill_seeded(c: &Content, buf: &mut [u8], seed: u64) {
    let len = buf.len();
    fill_percentage(buf, seed, c.compress_pct, len, c.pattern.as_deref());
}

/// Which seed stream a buffer is drawn from (fio's get_buf_state).
#[derive(Clone, Copy)]
enum Source {
    Main,
    Copy(SeedState),
}

/// Fills write buffers for one job; all state is allocated before the loop.
pub struct Filler {
    pub content: Content,
    main: SeedState,
    /// The stream as it was before the last unique buffer.
    prev: SeedState,
    dedupe: SeedState,
    working_set: Vec<SeedState>,
}

impl Filler {
    /// The filler of `job` (its stream from the job's number).
    pub fn new(job: &Job, io_size: u64) -> Filler {
        Self::with_seed(job.content.clone(), job.number as u64, io_size)
    }

    /// A filler of `content` alone (seed 0, no working set).
    pub fn from_content(content: Content) -> Filler {
        Self::with_seed(content, 0, 0)
    }

    fn with_seed(content: Content, seed: u64, io_size: u64) -> Filler {
        let main = job_stream(seed);
        let working_set = match content.working_set_pct {
            Some(pct) if content.dedupe_pct > 0 => {
                let pages = (io_size * u64::from(pct) / 100 / content.min_write as u64).max(1);
                working_set(&content, seed, pages.min(1 << 20))
            }
            _ => Vec::new(),
        };
        Filler {
            content,
            main,
            prev: main,
            dedupe: SeedState(mix(seed ^ 0xdede)),
            working_set,
        }
    }

    /// New contents for a write buffer (`refill_buffers` and friends), or
    /// fio's light scramble of a reused one. Hot path when either is on.
    #[inline]
    pub fn on_write(&mut self, buf: &mut [u8], offset: u64, stamp: u64) {
        if self.content.refill {
            self.fill(buf);
        } else if self.content.scramble {
            scramble(buf, offset, stamp);
        }
    }

    /// fio's fill_io_buffer.
    pub fn fill(&mut self, buf: &mut [u8]) {
        if self.content.compress_pct > 0 || self.content.dedupe_pct > 0 {
            let mut src = self.source();
            let c = &self.content;
            let before = self.main;
            let mut at = 0;
            let mut min_write = c.min_write;
            while at < buf.len() {
                let left = buf.len() - at;
                min_write = min_write.min(left);
                let this = if c.compress_chunk == 0 {
                    min_write
                } else {
                    min_write.min(c.compress_chunk)
                };
                let seed = match &mut src {
                    Source::Main => self.main.next(),
                    Source::Copy(s) => s.next(),
                };
                let pat = c.pattern.as_deref();
                fill_percentage(&mut buf[at..at + this], seed, c.compress_pct, this, pat);
                at += this;
                if c.dedupe_pct >= 100 {
                    // fio restores the stream after every chunk: every
                    // chunk of every buffer is the same one (io_u.c
                    // save_buf_state).
                    self.main = self.prev;
                }
            }
            if c.dedupe_pct < 100 && matches!(src, Source::Main) {
                // A repeat later regenerates this buffer from its start.
                self.prev = before;
            }
        } else if let Some(p) = &self.content.pattern {
            fill_pattern(buf, Some(p));
        } else if self.content.zero {
            buf.fill(0);
        } else {
            fill_random(buf, self.main.next());
        }
    }

    /// A seed for a verified write.
    pub fn next_seed(&mut self) -> u64 {
        self.main.next()
    }

    fn source(&mut self) -> Source {
        let pct = self.content.dedupe_pct;
        if pct == 0 {
            return Source::Main;
        }
        if pct >= 100 {
            self.prev = self.main;
            return Source::Main;
        }
        if (self.dedupe.next() % 100) < u64::from(pct) {
            if self.working_set.is_empty() {
                return Source::Copy(self.prev);
            }
            let i = self.dedupe.next() % self.working_set.len() as u64;
            return Source::Copy(self.working_set[i as usize]);
        }
        Source::Main
    }
}

/// The working set of job number `number` (dedupe.c): the first `pages`
/// unique buffers of its own stream; with dedupe_global, runs of
/// pages / jobs of them from each job's stream in turn, starting with its
/// own and going on with the next job's (each run from that stream's
/// start), so every job repeats the first buffers every job writes.
fn working_set(c: &Content, number: u64, pages: u64) -> Vec<SeedState> {
    let step = c.min_write / chunk(c, c.min_write);
    let jobs = c.run_jobs as u64;
    let global = c.dedupe_global && jobs > 0;
    let per_job = (pages / jobs.max(1)).max(1);
    let mut index = number.saturating_sub(1);
    let mut s = job_stream(number);
    let mut out = Vec::with_capacity(pages as usize);
    for i in 0..pages {
        if i > 0 {
            for _ in 0..step.max(1) {
                s.next();
            }
            if global && i % per_job == 0 {
                index += 1;
                s = job_stream(index % jobs + 1);
            }
        }
        out.push(s);
    }
    out
}

fn chunk(c: &Content, min_write: usize) -> usize {
    if c.compress_chunk == 0 {
        min_write
    } else {
        min_write.min(c.compress_chunk)
    }
    .max(1)
}

/// fio's small_content_scramble: in every 512-byte block, the block's
/// offset at one of its 8 cache lines and a time stamp at the end of the
/// first, so reused buffers do not dedupe trivially.
#[inline]
fn scramble(buf: &mut [u8], offset: u64, stamp: u64) {
    let line = (((stamp ^ offset) & 7) as usize) << 6;
    let (sec, nsec) = (stamp / 1_000_000_000, stamp % 1_000_000_000);
    let blocks = buf.len() / 512;
    let p = buf.as_mut_ptr();
    for b in 0..blocks {
        // SAFETY: block `b` spans bytes b*512..(b+1)*512 of `buf`; every
        // write below stays inside it (line + 8 <= 512, 64 <= 512).
        unsafe {
            let at = p.add(b * 512);
            at.add(line)
                .cast::<u64>()
                .write_unaligned((offset + (b as u64) * 512).to_le());
            at.add(48).cast::<u64>().write_unaligned(sec.to_le());
            at.add(56).cast::<u64>().write_unaligned(nsec.to_le());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentage_split_matches_fio() {
        let mut b = vec![0xffu8; 4096];
        fill_percentage(&mut b, 7, 75, 512, None);
        // 128 random bytes then 384 zeros, per 512-byte segment.
        for seg in b.chunks(512) {
            assert!(seg[..128].iter().any(|&x| x != 0));
            assert!(seg[128..].iter().all(|&x| x == 0));
        }
        fill_percentage(&mut b, 7, 100, 512, Some(b"ab"));
        assert_eq!(&b[..4], b"abab");
    }

    #[test]
    fn random_bytes_are_fios() {
        // fio 3.33 with seed 3: words 3, 6, 9, 15, then each times the
        // golden ratio; then the first stream alone (one word, 5 bytes).
        let mut b = [0u8; 45];
        fill_random(&mut b, 3);
        let g = 0x61C8_8646_80B5_83EBu64;
        let word = |i: usize| u64::from_le_bytes(b[i * 8..i * 8 + 8].try_into().unwrap());
        assert_eq!([word(0), word(1), word(2), word(3)], [3, 6, 9, 15]);
        assert_eq!(word(4), 3u64.wrapping_mul(g));
        assert_eq!(
            &b[40..],
            &3u64.wrapping_mul(g).wrapping_mul(g).to_le_bytes()[..5]
        );
    }

    #[test]
    fn scramble_stamps_every_block() {
        let mut b = vec![0u8; 1024];
        scramble(&mut b, 4096, 3_000_000_005);
        assert_eq!(&b[48..56], &3u64.to_le_bytes());
        assert_eq!(&b[512 + 56..512 + 64], &5u64.to_le_bytes());
        let line = (((3_000_000_005u64 ^ 4096) & 7) << 6) as usize;
        assert_eq!(&b[line..line + 8], &4096u64.to_le_bytes());
    }
}
