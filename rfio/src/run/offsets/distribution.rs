//! Non-uniform random offsets (`random_distribution`, §3): zipf, pareto,
//! normal and zoned. zipf, pareto and normal offsets come from fio's own
//! generators (run/offsets/fiodist.rs); the samplers here serve the zoned ones
//! (and keep rfio's zipf/pareto/normal shapes for tests of the parsing).

use crate::run::offsets::picker::Rng;

#[derive(Debug, Clone, PartialEq)]
pub enum Distribution {
    Uniform,
    Zipf(f64),
    Pareto(f64),
    Normal(f64),
    /// (percent of ios, percent of the range) per zone.
    Zoned(Vec<(u32, u32)>),
    /// `zoned_abs`: (percent of ios, bytes) per zone from the start; in
    /// blocks once [`Distribution::in_blocks`] made a sampler's copy.
    ZonedAbs(Vec<(u32, u64)>),
}

impl Distribution {
    /// From `random_distribution`'s word and postfix; fio's messages.
    pub fn parse(word: &str, postfix: Option<&str>) -> Result<Distribution, String> {
        let value = |default: f64| -> Result<f64, String> {
            let Some(p) = postfix else {
                return Ok(default);
            };
            let (v, center) =
                split_distr(p).ok_or_else(|| "fio: random postfix parsing failed".to_string())?;
            match center {
                Some(c) if !(0.0..=1.0).contains(&c) => {
                    Err("fio: distribution center out of range (0 <= center <= 1.0)".into())
                }
                _ => Ok(v),
            }
        };
        match word {
            "random" => Ok(Distribution::Uniform),
            "zipf" => {
                let t = value(1.1)?;
                if t == 1.0 {
                    return Err("fio: zipf theta must different than 1.0".into());
                }
                Ok(Distribution::Zipf(t))
            }
            "pareto" => {
                let h = value(0.2)?;
                if !(h > 0.0 && h < 1.0) {
                    return Err("fio: pareto input out of range (0 < input < 1.0)".into());
                }
                Ok(Distribution::Pareto(h))
            }
            "normal" => {
                let d = value(0.0)?;
                if !(0.0..100.0).contains(&d) {
                    return Err("fio: normal deviation out of range (0 <= input < 100.0)".into());
                }
                Ok(Distribution::Normal(d))
            }
            // fio's zone_split_ddir (run/offsets/zones.rs), its messages whole.
            "zoned" | "zoned_abs" => {
                let Some(spec) = postfix else {
                    return Err(format!("fio: mismatch in zoned input <{word}>"));
                };
                let zones = crate::run::offsets::zones::parse_split(
                    spec.trim(),
                    word == "zoned_abs",
                    1024,
                )?;
                Ok(if word == "zoned" {
                    Distribution::Zoned(zones.into_iter().map(|(p, r)| (p, r as u32)).collect())
                } else {
                    Distribution::ZonedAbs(zones)
                })
            }
            _ => Err(format!(
                "random_distribution={word} is not supported by rfio"
            )),
        }
    }

    pub fn is_uniform(&self) -> bool {
        *self == Distribution::Uniform
    }

    /// This distribution over blocks of `grain` bytes: `zoned_abs` zones
    /// become block counts, each from its start's block to its end's (fio
    /// divides the running sizes by the block alignment).
    pub fn in_blocks(&self, grain: u64) -> Distribution {
        match self {
            Distribution::ZonedAbs(zones) => {
                let grain = grain.max(1);
                let mut start = 0u64;
                Distribution::ZonedAbs(
                    zones
                        .iter()
                        .map(|&(p, size)| {
                            let end = start.saturating_add(size);
                            let blocks = end / grain - start / grain;
                            start = end;
                            (p, blocks)
                        })
                        .collect(),
                )
            }
            d => d.clone(),
        }
    }

    /// `zoned_abs` whose zones drawn from reach past `blocks` (fio's
    /// "sizes exceed file size": it ends the file when it draws one).
    pub fn exceeds(&self, blocks: u64) -> bool {
        let Distribution::ZonedAbs(zones) = self else {
            return false;
        };
        let mut end = 0u64;
        zones.iter().any(|&(p, len)| {
            end = end.saturating_add(len);
            p > 0 && end > blocks
        })
    }
}

/// A float as fio's str_to_float reads it (sscanf's `%lf`: the longest
/// number at the start, after blanks).
fn float_prefix(s: &str) -> Option<f64> {
    let s = s.trim_start();
    (1..=s.len())
        .rev()
        .filter(|&n| s.is_char_boundary(n))
        .find_map(|n| s[..n].parse::<f64>().ok())
}

/// A distribution's postfix as fio's split_parse_distr reads it:
/// `value[:center]`. None where either part is not a number.
pub fn split_distr(post: &str) -> Option<(f64, Option<f64>)> {
    match post.split_once(':') {
        Some((v, c)) => Some((float_prefix(v)?, Some(float_prefix(c)?))),
        None => Some((float_prefix(post)?, None)),
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
    fn parses_and_rejects() {
        assert_eq!(
            Distribution::parse("zipf", Some("1.2")),
            Ok(Distribution::Zipf(1.2))
        );
        assert!(Distribution::parse("zipf", Some("1.0")).is_err());
        assert!(Distribution::parse("pareto", Some("2")).is_err());
        // fio's defaults, a center after the value, sscanf's prefixes.
        assert_eq!(
            Distribution::parse("zipf", None),
            Ok(Distribution::Zipf(1.1))
        );
        assert_eq!(
            Distribution::parse("normal", Some("5:0.5")),
            Ok(Distribution::Normal(5.0))
        );
        assert_eq!(
            Distribution::parse("pareto", Some("0.3x")),
            Ok(Distribution::Pareto(0.3))
        );
        assert_eq!(
            Distribution::parse("zipf", Some("1.2:2")),
            Err("fio: distribution center out of range (0 <= center <= 1.0)".into())
        );
        assert!(Distribution::parse("zipf", Some("1.2:")).is_err());
        assert!(Distribution::parse("normal", Some("100")).is_err());
        assert_eq!(
            Distribution::parse("zoned", Some("60/10:30/20:10/70")),
            Ok(Distribution::Zoned(vec![(60, 10), (30, 20), (10, 70)]))
        );
        assert!(Distribution::parse("zoned", Some("60/10:30/20")).is_err());
        assert_eq!(
            Distribution::parse("zoned_abs", Some("60/16k:40/48k")),
            Ok(Distribution::ZonedAbs(vec![(60, 16384), (40, 49152)]))
        );
        assert_eq!(
            Distribution::parse("zoned_abs", None),
            Err("fio: mismatch in zoned input <zoned_abs>".into())
        );
    }

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
