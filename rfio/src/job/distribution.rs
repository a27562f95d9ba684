//! `random_distribution` (§3) as a setting: zipf, pareto, normal and zoned,
//! parsed and checked as fio 3.33 does. The offsets are drawn in
//! run/offsets/ (fio's own generators in fiodist.rs, the zoned samplers in
//! distribution.rs).

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
                let zones = super::zones::parse_split(spec.trim(), word == "zoned_abs", 1024)?;
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
}
