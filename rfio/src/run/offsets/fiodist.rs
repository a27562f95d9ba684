//! fio 3.33's non-uniform generators (lib/zipf.c, lib/gauss.c): zipf,
//! pareto and normal (gauss), for `random_distribution` offsets and for
//! `file_service_type=zipf|pareto|normal|gauss`, with fio's seeds, so the
//! same blocks and files come in fio's order.
//!
//! How fio draws (all from a 32-bit Tausworthe generator of its own):
//! - zipf: zeta(n) summed over the first min(n, 10M) ranks at set-up; a
//!   draw `u = r / (2^32 - 1)` maps to rank 1, 2 or Gray's approximation
//!   `1 + n (eta u - eta + 1)^alpha`; rank - 1 is the value.
//! - pareto: `(n - 1) u^(ln h / ln(1 - h))`.
//! - normal: the mean of 12 draws `r % (n + 1)` (rounded up), moved by a
//!   deviation draw of `ceil(n dev / 100)` (at most n / 2) centred on 0,
//!   halved while it would pass the end.
//! - The value is then scrambled (times the 64-bit golden ratio) unless
//!   hashing is off (file service), and shifted: `(v + off) % n`, where
//!   `off` is the generator's first draw (zipf, pareto), 0 (normal), or
//!   the center's share of n where `:center` was given.
//! - Offsets: one generator per file over `ceil(min(size, io_size) / bs)`
//!   ranges (bs: the smaller of the read and write minimum blocks), seeded
//!   with fio's jhash of the file's name times the job's thread number
//!   (32 bits), or with seed slot 6 where randrepeat is off.
//! - Files: one generator over `nrfiles << 10` ranges, seeded from seed
//!   slot 5, no hashing; the file is the value `>> 10`.

use crate::job::Job;
use crate::run::files::filesize::Taus;

/// fio's cap on the ranks its zipf set-up sums.
const ZIPF_MAX_GEN: u64 = 10_000_000;
/// fio's `GOLDEN_RATIO_64`, its value scrambler.
const GOLDEN_RATIO_64: u64 = 0x61C8_8646_80B5_83EB;
/// fio's `GOLDEN_RATIO_32`, jhash's start value.
const GOLDEN_RATIO_32: u32 = 0x61C8_8647;
/// Draws a normal value averages.
const GAUSS_ITERS: u64 = 12;
/// Ranges per file of the file-service generators (fio's FIO_FSERVICE_SHIFT).
const FSERVICE_SHIFT: u32 = 10;

#[derive(Debug, Clone)]
enum Kind {
    Zipf { theta: f64, zeta2: f64, zetan: f64 },
    Pareto { pow: f64 },
    Gauss { stddev: u32 },
}

/// One of fio's non-uniform generators.
#[derive(Debug, Clone)]
pub struct FioDist {
    kind: Kind,
    rng: Taus,
    nranges: u64,
    off: u64,
    hash: bool,
    /// Offsets: each direction's block alignment (fio's ba: blockalign,
    /// else the direction's smallest block).
    ba: [u64; 3],
}

/// A distribution's word and value as fio reads them: `value[:center]`,
/// with fio's default value where none is given.
fn parse(word: &str, post: Option<&str>) -> Option<(char, f64, Option<f64>)> {
    let (kind, default) = match word {
        "zipf" => ('z', 1.1),
        "pareto" => ('p', 0.2),
        "normal" | "gauss" => ('g', 0.0),
        _ => return None,
    };
    let (val, center) = match post {
        Some(p) => crate::job::distribution::split_distr(p)?,
        None => (default, None),
    };
    Some((kind, val, center))
}

impl FioDist {
    fn new(kind: char, val: f64, center: Option<f64>, nranges: u64, seed: u32, hash: bool) -> Self {
        let mut rng = Taus::new(u64::from(seed), false);
        let nranges = nranges.max(1);
        let kind = match kind {
            'z' => {
                let zetan = (0..nranges.min(ZIPF_MAX_GEN))
                    .map(|i| (1.0 / (i + 1) as f64).powf(val))
                    .fold(0.0, |a, x| a + x);
                Kind::Zipf {
                    theta: val,
                    zeta2: 1.0f64.powf(val) + 0.5f64.powf(val),
                    zetan,
                }
            }
            'p' => Kind::Pareto {
                pow: val.ln() / (1.0 - val).ln(),
            },
            _ => {
                let mut stddev = 0u32;
                if val != 0.0 {
                    stddev = ((nranges as f64 * val) / 100.0).ceil() as u32;
                    stddev = stddev.min((nranges / 2) as u32);
                }
                Kind::Gauss { stddev }
            }
        };
        let off = match (&kind, center) {
            (Kind::Gauss { .. }, None) => 0,
            (Kind::Gauss { .. }, Some(c)) => (nranges as f64 * (c - 0.5)) as i64 as u32 as u64,
            (_, None) => rng.next(),
            (_, Some(c)) => {
                // zipf and pareto draw their offset first either way.
                rng.next();
                (nranges as f64 * c) as u64
            }
        };
        FioDist {
            kind,
            rng,
            nranges,
            off,
            hash,
            ba: [1; 3],
        }
    }

    /// The next offset of direction `d`: the next value times its block.
    #[inline]
    pub fn offset(&mut self, d: usize) -> u64 {
        self.next().saturating_mul(self.ba[d])
    }

    /// A uniform draw in [0, 1] as fio's zipf and pareto make it.
    #[inline]
    fn unit(&mut self) -> f64 {
        self.rng.next() as f64 / f64::from(u32::MAX)
    }

    /// The next value in `0..nranges`.
    pub fn next(&mut self) -> u64 {
        let n = self.nranges;
        let v = match self.kind {
            Kind::Zipf {
                theta,
                zeta2,
                zetan,
            } => {
                let alpha = 1.0 / (1.0 - theta);
                let eta = (1.0 - (2.0 / n as f64).powf(1.0 - theta)) / (1.0 - zeta2 / zetan);
                let u = self.unit();
                let z = u * zetan;
                let rank = if z < 1.0 {
                    1
                } else if z < 1.0 + 0.5f64.powf(theta) {
                    2
                } else {
                    1 + (n as f64 * (eta * u - eta + 1.0).powf(alpha)) as u64
                };
                rank.wrapping_sub(1)
            }
            Kind::Pareto { pow } => {
                let u = self.unit();
                ((n - 1) as f64 * u.powf(pow)) as u64
            }
            Kind::Gauss { stddev } => {
                let sum: u64 = (0..GAUSS_ITERS)
                    .map(|_| self.rng.next() % (n + 1))
                    .sum::<u64>();
                let mut sum = sum.div_ceil(GAUSS_ITERS);
                if stddev != 0 {
                    let r = self.rng.next();
                    let vr = (f64::from(stddev) * (r as f64 / (f64::from(u32::MAX) + 1.0))) as i32;
                    let mut dev = vr.wrapping_sub((stddev / 2) as i32);
                    // (fio would spin forever at dev 0; rfio stops there.)
                    while dev != 0 && (dev as i64 as u64).wrapping_add(sum) >= n {
                        dev /= 2;
                    }
                    sum = sum.wrapping_add(dev as i64 as u64);
                }
                sum
            }
        };
        let v = if self.hash {
            v.wrapping_mul(GOLDEN_RATIO_64)
        } else {
            v
        };
        v.wrapping_add(self.off) % n
    }
}

/// fio's jhash of a byte string (its own variant: inside the 12-byte
/// rounds it adds single bytes, not words).
pub fn jhash(key: &[u8], initval: u32) -> u32 {
    let len = key.len() as u32;
    let mut a = GOLDEN_RATIO_32.wrapping_add(len).wrapping_add(initval);
    let (mut b, mut c) = (a, a);
    let mut k = key;
    while k.len() > 12 {
        a = a.wrapping_add(u32::from(k[0]));
        b = b.wrapping_add(u32::from(k[4]));
        c = c.wrapping_add(u32::from(k[8]));
        // The mix step.
        a = a.wrapping_sub(c);
        a ^= c.rotate_left(4);
        c = c.wrapping_add(b);
        b = b.wrapping_sub(a);
        b ^= a.rotate_left(6);
        a = a.wrapping_add(c);
        c = c.wrapping_sub(b);
        c ^= b.rotate_left(8);
        b = b.wrapping_add(a);
        a = a.wrapping_sub(c);
        a ^= c.rotate_left(16);
        c = c.wrapping_add(b);
        b = b.wrapping_sub(a);
        b ^= a.rotate_left(19);
        a = a.wrapping_add(c);
        c = c.wrapping_sub(b);
        c ^= b.rotate_left(4);
        b = b.wrapping_add(a);
        k = &k[12..];
    }
    if k.is_empty() {
        return c;
    }
    // The tail: bytes 0-3 into a, 4-7 into b, 8-11 into c, little end first.
    for (i, &byte) in k.iter().enumerate() {
        let v = u32::from(byte) << (8 * (i % 4));
        match i / 4 {
            0 => a = a.wrapping_add(v),
            1 => b = b.wrapping_add(v),
            _ => c = c.wrapping_add(v),
        }
    }
    // The final step.
    c ^= b;
    c = c.wrapping_sub(b.rotate_left(14));
    a ^= c;
    a = a.wrapping_sub(c.rotate_left(11));
    b ^= a;
    b = b.wrapping_sub(a.rotate_left(25));
    c ^= b;
    c = c.wrapping_sub(b.rotate_left(16));
    a ^= c;
    a = a.wrapping_sub(c.rotate_left(4));
    b ^= a;
    b = b.wrapping_sub(a.rotate_left(14));
    c ^= b;
    c = c.wrapping_sub(b.rotate_left(24));
    c
}

/// `random_distribution=zipf|pareto|normal` for file `i` of `files`, its
/// region `len` bytes long: fio's generator of that file's blocks. None
/// for the other distributions.
pub fn for_file(job: &Job, i: usize, len: u64, files: u64) -> Option<FioDist> {
    let (word, post) = job.opts.choice("random_distribution");
    let (kind, val, center) = parse(&word, post.as_deref())?;
    let range = job.min_bs(0).min(job.min_bs(1)).max(1);
    // fio's size: min(file size, io_size); without files the region was
    // rounded down from fio's unrounded size / nrfiles.
    let size = crate::run::offsets::fiomap::real_size(job, files, len, len, range);
    let nranges = size.div_ceil(range);
    let name = job
        .filenames
        .get(i)
        .map(|p| p.to_string_lossy().into_owned());
    let seed = if repeatable(job) {
        jhash(name.unwrap_or_default().as_bytes(), 0).wrapping_mul(job.number as u32)
    } else {
        crate::run::offsets::fiomap::offset_seed(job) as u32
    };
    let mut g = FioDist::new(kind, val, center, nranges, seed, true);
    g.ba = std::array::from_fn(|d| job.rand.blockalign.unwrap_or(job.min_bs(d)).max(1));
    Some(g)
}

/// `random_distribution=zipf|pareto|normal`: offsets from fio's generators.
pub fn is_fio(job: &Job) -> bool {
    matches!(
        job.opts.choice("random_distribution").0.as_str(),
        "zipf" | "pareto" | "normal"
    )
}

/// fio's randrepeat as the job runs: randseed turns it off.
fn repeatable(job: &Job) -> bool {
    job.rand.randrepeat && job.rand.randseed.is_none()
}

/// `file_service_type=zipf|pareto|normal|gauss[:value[:center]]` over
/// `files` files: fio's generator of the next file. None for the other
/// types or a single file.
pub fn for_files(job: &Job, files: usize) -> Option<FileDist> {
    let (kind, val, center) = parse(
        &job.files.file_service,
        job.files.file_service_value.as_deref(),
    )?;
    let seed =
        crate::run::files::filesize::slot_seed(job, 5).unwrap_or_else(rbench_common::clock::now_ns);
    let n = (files as u64) << FSERVICE_SHIFT;
    Some(FileDist(FioDist::new(
        kind,
        val,
        center,
        n,
        seed as u32,
        false,
    )))
}

/// fio's non-uniform file service generator.
#[derive(Debug, Clone)]
pub struct FileDist(FioDist);

impl FileDist {
    /// The next file.
    #[inline]
    pub fn next(&mut self) -> usize {
        (self.0.next() >> FSERVICE_SHIFT) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jhash_tail_and_rounds() {
        // The empty key is the start value untouched.
        assert_eq!(jhash(b"", 0), GOLDEN_RATIO_32);
        // Every length from the tail-only ones to several rounds differs.
        let key = b"x.0.0x.0.1x.0.2x.0.3";
        let all: std::collections::HashSet<u32> =
            (1..=key.len()).map(|n| jhash(&key[..n], 0)).collect();
        assert_eq!(all.len(), key.len());
        // Inside a round only bytes 0, 4 and 8 count (fio's variant).
        let (mut a, mut b) = (*b"abcdefghijklmn", *b"abcdefghijklmn");
        b[1] = b'Z';
        assert_eq!(jhash(&a, 0), jhash(&b, 0));
        a[0] = b'Z';
        assert_ne!(jhash(&a, 0), jhash(&b, 0));
    }

    #[test]
    fn values_stay_in_range_and_skew() {
        for (kind, val) in [('z', 1.2), ('p', 0.3), ('g', 10.0), ('g', 0.0)] {
            let mut d = FioDist::new(kind, val, None, 1000, 7, kind != 'g');
            let mut hits = vec![0u32; 1000];
            for _ in 0..20_000 {
                let v = d.next();
                assert!(v < 1000, "{kind}");
                hits[v as usize] += 1;
            }
            hits.sort_unstable();
            let top: u32 = hits[900..].iter().sum();
            assert!(top > 4_000, "{kind} {val}: {top}");
        }
        // Files: the value's top bits.
        let mut f = FileDist(FioDist::new('z', 1.1, None, 3 << FSERVICE_SHIFT, 5, false));
        assert!((0..1000).all(|_| f.next() < 3));
    }
}
