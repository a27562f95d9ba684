//! Draws zoned (and, for tests of the parsing, zipf/pareto/normal) offsets
//! of a `random_distribution` (the setting is job/distribution.rs); fio's
//! own zipf, pareto and normal generators are in fiodist.rs.

use crate::job::distribution::Distribution;
use crate::run::offsets::picker::Rng;

/// Draws block numbers in `0..blocks` following a distribution.
#[derive(Debug, Clone)]
pub struct Sampler {
    dist: Distribution,
    blocks: u64,
    /// Zipf: the normalisation constant over all ranks (capped like fio's).
    zeta: f64,
}

fn scramble(v: u64) -> u64 {
    let mut z = v.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn unit(rng: &mut Rng) -> f64 {
    (rng.next() >> 11) as f64 / (1u64 << 53) as f64
}

impl Sampler {
    pub fn new(dist: Distribution, blocks: u64) -> Sampler {
        let zeta = match dist {
            // Computed once over at most 10M ranks, as fio caps it.
            Distribution::Zipf(t) => (1..=blocks.min(10_000_000))
                .map(|i| 1.0 / (i as f64).powf(t))
                .sum(),
            _ => 0.0,
        };
        Sampler { dist, blocks, zeta }
    }

    /// The next block. Cold relative to the I/O it feeds (a few float ops).
    pub fn next(&self, rng: &mut Rng) -> u64 {
        let n = self.blocks.max(1);
        match &self.dist {
            Distribution::Uniform => rng.below(n),
            Distribution::Zipf(t) => {
                // Inverse CDF by Gray et al.'s approximation (fio's method).
                let ranks = n.min(10_000_000) as f64;
                let zeta2 = 1.0 + 0.5f64.powf(*t);
                let alpha = 1.0 / (1.0 - t);
                let eta = (1.0 - (2.0 / ranks).powf(1.0 - t)) / (1.0 - zeta2 / self.zeta);
                let u = unit(rng);
                let uz = u * self.zeta;
                let rank = if uz < 1.0 {
                    0
                } else if uz < zeta2 {
                    1
                } else {
                    (ranks * (eta * u - eta + 1.0).powf(alpha)) as u64
                };
                scramble(rank) % n
            }
            Distribution::Pareto(h) => {
                let pow = h.ln() / (1.0 - h).ln();
                let rank = ((n - 1) as f64 * unit(rng).powf(pow)) as u64;
                scramble(rank) % n
            }
            Distribution::Normal(dev) => {
                // Box-Muller around the middle, deviation in percent of the range.
                let (u1, u2) = (unit(rng).max(f64::MIN_POSITIVE), unit(rng));
                let g = (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos();
                let v = n as f64 / 2.0 + g * dev / 100.0 * n as f64;
                (v.max(0.0) as u64).min(n - 1)
            }
            Distribution::Zoned(zones) => {
                let r = rng.below(100) as u32;
                let (mut acc, mut start) = (0u32, 0u64);
                for &(p, range) in zones {
                    let len = (n * u64::from(range) / 100).max(1);
                    acc += p;
                    if r < acc {
                        return (start + rng.below(len)).min(n - 1);
                    }
                    start += len;
                }
                rng.below(n)
            }
            Distribution::ZonedAbs(zones) => {
                let r = rng.below(100) as u32;
                let (mut acc, mut start) = (0u32, 0u64);
                for &(p, len) in zones {
                    acc += p;
                    if r < acc {
                        // Past the file: fio ends it (u64::MAX: no block).
                        if start.saturating_add(len) > n {
                            return u64::MAX;
                        }
                        return start + rng.below(len.max(1)).min(len.saturating_sub(1));
                    }
                    start = start.saturating_add(len);
                }
                rng.below(n)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stays_in_range_and_skews() {
        let mut rng = Rng::new(7);
        for d in [
            Distribution::Zipf(1.2),
            Distribution::Pareto(0.2),
            Distribution::Normal(5.0),
            Distribution::Zoned(vec![(90, 10), (10, 90)]),
            Distribution::ZonedAbs(vec![(90, 400_000), (10, 3_600_000)]).in_blocks(4000),
        ] {
            let s = Sampler::new(d.clone(), 1000);
            let mut hits = vec![0u32; 1000];
            for _ in 0..20_000 {
                let b = s.next(&mut rng);
                assert!(b < 1000, "{d:?}");
                hits[b as usize] += 1;
            }
            hits.sort_unstable();
            // The hottest 10% of blocks get far more than 10% of the I/O.
            let top: u32 = hits[900..].iter().sum();
            assert!(top > 4_000, "{d:?}: {top}");
        }
    }
}
