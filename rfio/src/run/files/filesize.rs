//! `filesize=lo-hi`: the size fio 3.33 gives each file of a job.
//!
//! fio draws every size from the job's own "file size" generator, one of
//! the per-job generators it seeds at parse time: the generator is fio's
//! combined Tausworthe (32-bit taus88, or the 64-bit taus258 with
//! `random_generator=tausworthe64`), seeded with seed slot 7 of the job.
//! The slots come from `randseed` (default 0x89) multiplied four times by
//! 0x9e370001, then once more per slot, times fio's thread number of the
//! job (clones count down, see `fio_thread_number`), plus the
//! slot index. `randrepeat=0` without `randseed` seeds from the operating
//! system in fio, so those sizes cannot be reproduced (we use the clock).
//! A size is `lo + (hi - lo) * r / (max + 1)`, rounded down to the
//! smallest block size; a file that already exists with a size inside the
//! range keeps it and takes no draw.

use crate::job::Job;

/// Seed slot of the file-size generator (fio's `FIO_RAND_FILE_SIZE_OFF`).
const FILE_SIZE_SLOT: u64 = 7;
/// The multiplier fio steps its seeds with.
const SEED_STEP: u64 = 0x9e37_0001;

/// fio's Tausworthe generators, 32- or 64-bit.
#[derive(Debug, Clone)]
pub enum Taus {
    Taus88([u32; 3]),
    Taus258([u64; 5]),
}

impl Taus {
    /// Seeded as fio seeds it: an LCG from a fixed start value, each
    /// component kept above its minimum, then six steps discarded.
    pub fn new(seed: u64, wide: bool) -> Self {
        // fio writes the start as (2^31) + (2^17) + (2^7) in C, where ^ is
        // exclusive or: 29 + 19 + 5.
        const START: u64 = 53;
        let mut t = if wide {
            let lcg = |x: u64| x.wrapping_mul(6_906_969_069) ^ seed;
            let mut s = [0u64; 5];
            let mins = [1, 7, 15, 33, 49];
            let mut prev = START;
            for (v, m) in s.iter_mut().zip(mins) {
                let x = lcg(prev);
                *v = if x < m { x + m } else { x };
                prev = *v;
            }
            Taus::Taus258(s)
        } else {
            let seed = seed as u32;
            let lcg = |x: u32| x.wrapping_mul(69069) ^ seed;
            let mut s = [0u32; 3];
            let mins = [1, 7, 15];
            let mut prev = START as u32;
            for (v, m) in s.iter_mut().zip(mins) {
                let x = lcg(prev);
                *v = if x < m { x + m } else { x };
                prev = *v;
            }
            Taus::Taus88(s)
        };
        for _ in 0..6 {
            t.next();
        }
        t
    }

    /// The largest value `next` returns.
    pub fn max(&self) -> u64 {
        match self {
            Taus::Taus88(_) => u64::from(u32::MAX),
            Taus::Taus258(_) => u64::MAX,
        }
    }

    pub fn next(&mut self) -> u64 {
        match self {
            Taus::Taus88(s) => {
                let step =
                    |s: u32, a: u32, b: u32, c: u32, d: u32| ((s & c) << d) ^ (((s << a) ^ s) >> b);
                s[0] = step(s[0], 13, 19, 0xffff_fffe, 12);
                s[1] = step(s[1], 2, 25, 0xffff_fff8, 4);
                s[2] = step(s[2], 3, 11, 0xffff_fff0, 17);
                u64::from(s[0] ^ s[1] ^ s[2])
            }
            Taus::Taus258(s) => {
                // (left shift, right shift, mask, final shift) per component.
                const P: [(u32, u32, u64, u32); 5] = [
                    (1, 53, 0xffff_ffff_ffff_fffe, 10),
                    (24, 50, 0xffff_ffff_ffff_fe00, 5),
                    (3, 23, 0xffff_ffff_ffff_f000, 29),
                    (5, 24, 0xffff_ffff_fffe_0000, 23),
                    (3, 33, 0xffff_ffff_ff80_0000, 8),
                ];
                let mut out = 0;
                for (v, (a, b, c, d)) in s.iter_mut().zip(P) {
                    let x = ((*v << a) ^ *v) >> b;
                    *v = ((*v & c) << d) ^ x;
                    out ^= *v;
                }
                out
            }
        }
    }
}

/// The seed of the job's file-size generator, or `None` when fio would
/// take it from the operating system (`randrepeat=0` without `randseed`).
pub fn seed(job: &Job) -> Option<u64> {
    slot_seed(job, FILE_SIZE_SLOT)
}

/// The seed fio gives the job's generator in seed slot `slot` (fio's
/// `FIO_RAND_*_OFF`), or `None` when fio takes it from the system.
pub fn slot_seed(job: &Job, slot: u64) -> Option<u64> {
    // allrandrepeat: fio's fixed seed for every generator, whatever
    // randrepeat and randseed say.
    if job.opts.flag("allrandrepeat") {
        const FIO_RANDSEED: u64 = 0xb189_9bed;
        return Some(
            FIO_RANDSEED
                .wrapping_mul(fio_thread_number(job))
                .wrapping_add(slot),
        );
    }
    let base = match job.rand.randseed {
        Some(s) => s,
        None if job.rand.randrepeat => 0x89,
        None => return None,
    };
    let mut s = base;
    for _ in 0..4 + slot {
        s = s.wrapping_mul(SEED_STEP);
    }
    Some(s.wrapping_mul(fio_thread_number(job)).wrapping_add(slot))
}

/// fio's number of the job's thread. fio creates the clones of a
/// definition right after it, numbered on, but hands them their clone
/// index (the `1` in `job.1.0`) counting down: with numjobs=3 clone 1 is
/// thread P+2 and clone 2 is thread P+1. rfio's jobs are in that order
/// (job::expand), so the job's number is fio's thread number.
fn fio_thread_number(job: &Job) -> u64 {
    job.number as u64
}

/// Each file's size for `filesize=lo-hi`. `existing` holds the current
/// size of each file that exists; `min_bs` is the job's smallest block.
pub fn sizes(job: &Job, lo: u64, hi: u64, existing: &[Option<u64>], min_bs: u64) -> Vec<u64> {
    let wide = job.opts.choice("random_generator").0 == "tausworthe64";
    let seed = seed(job).unwrap_or_else(rbench_common::clock::now_ns);
    let mut rng = Taus::new(seed, wide);
    let min_bs = min_bs.max(1);
    existing
        .iter()
        .map(|e| match e {
            Some(size) if (lo..=hi).contains(size) => *size,
            _ if lo == hi => (lo / min_bs * min_bs).max(lo.min(min_bs)),
            _ => {
                let r = rng.next() as f64 / (rng.max() as f64 + 1.0);
                let s = lo + ((hi - lo) as f64 * r) as u64;
                (s - s % min_bs).max(lo.min(min_bs))
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// taus88 from the published seeding: the first outputs never repeat
    /// and every component stays above its minimum.
    #[test]
    fn taus88_components_stay_valid() {
        let mut t = Taus::new(7, false);
        let mut seen = std::collections::HashSet::new();
        for _ in 0..1000 {
            assert!(seen.insert(t.next()));
            if let Taus::Taus88(s) = &t {
                assert!(s[0] > 1 && s[1] > 7 && s[2] > 15);
            }
        }
    }

    #[test]
    fn taus258_differs_from_taus88() {
        let (mut a, mut b) = (Taus::new(7, false), Taus::new(7, true));
        assert_ne!(a.next(), b.next());
        assert_eq!(b.max(), u64::MAX);
    }
}
