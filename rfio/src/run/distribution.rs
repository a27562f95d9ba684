//! Non-uniform random offsets (`random_distribution`, §3): zipf, pareto,
//! normal and zoned. Like fio, zipf/pareto/normal ranks are scrambled by a
//! hash so the hot blocks are spread over the file; generators differ from
//! fio's, so the shape is the same but not the exact sequence.

use super::offsets::Rng;

#[derive(Debug, Clone, PartialEq)]
pub enum Distribution {
    Uniform,
    Zipf(f64),
    Pareto(f64),
    Normal(f64),
    /// (percent of ios, percent of the range) per zone.
    Zoned(Vec<(u32, u32)>),
}

impl Distribution {
    /// From `random_distribution`'s word and postfix.
    pub fn parse(word: &str, postfix: Option<&str>) -> Result<Distribution, String> {
        let num = |what: &str| -> Result<f64, String> {
            postfix
                .and_then(|p| p.split(',').next())
                .ok_or_else(|| format!("{word} needs a {what} (e.g. {word}:1.2)"))?
                .parse::<f64>()
                .map_err(|_| format!("bad {what} for {word}"))
        };
        match word {
            "random" => Ok(Distribution::Uniform),
            "zipf" => {
                let t = num("theta")?;
                if t <= 0.0 || t == 1.0 {
                    return Err("zipf theta must be positive and different from 1.0".into());
                }
                Ok(Distribution::Zipf(t))
            }
            "pareto" => {
                let h = num("h")?;
                if !(h > 0.0 && h < 1.0) {
                    return Err("pareto h must be between 0 and 1".into());
                }
                Ok(Distribution::Pareto(h))
            }
            "normal" => {
                let d = num("deviation")?;
                if !(0.0..=100.0).contains(&d) {
                    return Err("normal deviation must be 0..100 (percent)".into());
                }
                Ok(Distribution::Normal(d))
            }
            "zoned" => {
                let spec = postfix.unwrap_or("");
                let mut zones = Vec::new();
                for z in spec.split(':').filter(|z| !z.is_empty()) {
                    let (p, r) = z.split_once('/').ok_or("zoned entries are P/R")?;
                    let p: u32 = p.parse().map_err(|_| "bad zone percentage")?;
                    let r: u32 = r.parse().map_err(|_| "bad zone range")?;
                    zones.push((p, r));
                }
                let (sp, sr): (u32, u32) = zones.iter().fold((0, 0), |a, z| (a.0 + z.0, a.1 + z.1));
                if zones.is_empty() || sp != 100 || sr > 100 {
                    return Err("zone percentages must add up to 100".into());
                }
                Ok(Distribution::Zoned(zones))
            }
            _ => Err(format!(
                "random_distribution={word} is not supported by rfio"
            )),
        }
    }

    pub fn is_uniform(&self) -> bool {
        *self == Distribution::Uniform
    }
}

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
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_rejects() {
        assert_eq!(
            Distribution::parse("zipf", Some("1.2")),
            Ok(Distribution::Zipf(1.2))
        );
        assert!(Distribution::parse("zipf", Some("1.0")).is_err());
        assert!(Distribution::parse("pareto", Some("2")).is_err());
        assert_eq!(
            Distribution::parse("zoned", Some("60/10:30/20:10/70")),
            Ok(Distribution::Zoned(vec![(60, 10), (30, 20), (10, 70)]))
        );
        assert!(Distribution::parse("zoned", Some("60/10:30/20")).is_err());
    }

    #[test]
    fn stays_in_range_and_skews() {
        let mut rng = Rng::new(7);
        for d in [
            Distribution::Zipf(1.2),
            Distribution::Pareto(0.2),
            Distribution::Normal(5.0),
            Distribution::Zoned(vec![(90, 10), (10, 90)]),
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
