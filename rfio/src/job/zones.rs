//! `zonemode=strided` (`zonesize`, `zonerange`, `zoneskip`): I/O confined to
//! one zone at a time, as fio 3.33 does it (io_u.c setup_strided_zone_mode,
//! init.c fixup_options, measured beside fio):
//! - The job counts the bytes of its I/Os (one count for all files and
//!   directions); once `zonesize` bytes are done, the next I/O moves its
//!   file's zone start (fio's file_offset) on by `zonerange + zoneskip`,
//!   back to the job's offset once that start reaches the file's size, and
//!   that direction's sequential position goes to the zone start.
//! - A sequential position at or past the zone's end goes back to its start
//!   (zonesize larger than zonerange reads the zone again).
//! - Each time the count is a multiple of `zonerange` (0 included), the file
//!   starts over in its zone: positions to the zone start, random map empty.
//! - Random offsets are drawn over `zonerange` from the zone start.
//! - `zonerange` 0 means `zonesize`; zonesize with zonemode=none, or
//!   strided without zonesize, are errors; `zoneskip=Nz` is N zone sizes.
//!   Values wrap as fio's 64-bit ones do (`zonerange=10%` is fio's
//!   percentage marker, a huge range).
//!
//! `zonemode=zbd` (zone write pointers emulated on regular files) runs in
//! run/offsets/zbd.rs; its settings are job/zbd.rs, its sizes read here
//! ([`zbd`]).

use crate::options::value::zone_count;
use crate::options::JobOptions;
use rbench_common::units::fio::SizeOrPercent;

/// The strided zone settings of a job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Strided {
    /// Bytes of I/O per zone (`zonesize`).
    pub size: u64,
    /// Length of a zone (`zonerange`, `zonesize` when 0).
    pub range: u64,
    /// Gap between zones (`zoneskip`), wrapping like fio's u64.
    pub skip: u64,
}

/// A zone option's value as fio reads it: digits with a size suffix, a
/// sign in front ignored (measured: fio 3.33 strides `zoneskip=-4k` as
/// `4k`), `N%` as fio's percentage marker (`-1 - N`); `Nz` zones where
/// `zones` allows it.
fn parse_value(name: &str, s: &str, kb_base: u64, zones: bool) -> Result<Value, String> {
    let t = s.trim();
    if let Some(n) = t.strip_suffix('z') {
        if !zones {
            return Err(format!("{name}: 'z' suffix isn't applicable"));
        }
        return match n.parse::<u64>() {
            Ok(v) if !n.is_empty() && !n.starts_with('+') => Ok(Value::Zones(v as u32 as u64)),
            _ => Err(format!("{name}: unexpected zone value '{t}'")),
        };
    }
    let body = t.strip_prefix(['-', '+']).unwrap_or(t);
    let v = match body.strip_suffix('%') {
        Some(p) => {
            let p = rbench_common::units::fio::parse_size(p, kb_base)
                .map_err(|e| format!("{name}: {e}"))?;
            u64::MAX - p
        }
        None => rbench_common::units::fio::parse_size(body, kb_base)
            .map_err(|e| format!("{name}: {e}"))?,
    };
    Ok(Value::Bytes(v))
}

enum Value {
    Bytes(u64),
    Zones(u64),
}

/// fio's `failed parsing` line after the reason.
fn failed(why: String, name: &str, raw: &str) -> String {
    format!("{why}\nfio: failed parsing {name}={raw}\n")
}

/// A size, io_size, offset or offset_increment given in zones: N times
/// `zonesize` (fio's zbd_recalc_options_with_zone_granularity, also run
/// outside zonemode=zbd), None (unset) without a zone size. Outer None:
/// not given in zones.
pub fn in_zones(o: &JobOptions, name: &'static str) -> Option<Option<SizeOrPercent>> {
    let raw = o.text(name)?;
    let n = zone_count(name, &raw).ok()?;
    let zone_size = o
        .text("zonesize")
        .and_then(|z| match parse_value("zonesize", &z, o.kb_base(), false) {
            Ok(Value::Bytes(v)) => Some(v),
            _ => None,
        })
        .unwrap_or(0);
    Some((zone_size > 0 && n > 0).then(|| SizeOrPercent::Bytes(n.wrapping_mul(zone_size))))
}

/// The job's zone settings: None without zones (zonemode=none), or the
/// message fio prints for a bad value or combination.
pub fn from_options(o: &JobOptions) -> Result<Option<Strided>, String> {
    let kb_base = o.kb_base();
    let raw = |name: &'static str| o.text(name).unwrap_or_else(|| "0".to_string());
    let bytes = |name: &'static str| -> Result<u64, String> {
        let r = raw(name);
        match parse_value(name, &r, kb_base, false) {
            Ok(Value::Bytes(v)) => Ok(v),
            Ok(Value::Zones(_)) => Ok(0),
            Err(e) => Err(failed(e, name, &r)),
        }
    };
    let size = bytes("zonesize")?;
    let range = bytes("zonerange")?;
    let skip_raw = raw("zoneskip");
    let skip = match parse_value("zoneskip", &skip_raw, kb_base, true) {
        Ok(Value::Bytes(v)) => v,
        // fio turns N zones into bytes once the zone size is known.
        Ok(Value::Zones(n)) => n.wrapping_mul(size),
        Err(e) => return Err(failed(e, "zoneskip", &skip_raw)),
    };
    match o.choice("zonemode").0.as_str() {
        "strided" if size == 0 => {
            Err("fio: --zonesize must be specified when using --zonemode=strided.\n".into())
        }
        "strided" => Ok(Some(Strided {
            size,
            range: if range == 0 { size } else { range },
            skip,
        })),
        // Zone write pointers: job/zbd.rs, run/offsets/zbd.rs.
        "zbd" => Ok(None),
        _ if size != 0 => Err("fio: --zonemode=none and --zonesize are not compatible.\n".into()),
        _ => Ok(None),
    }
}

/// `zonemode=zbd`'s settings (None for the other modes): zonesize and
/// zoneskip read as for strided zones, `zonecapacity` and the limits
/// (create_serialize=0 is refused with the job checks, plan::validate).
pub fn zbd(o: &JobOptions) -> Result<Option<super::zbd::Settings>, String> {
    if o.choice("zonemode").0 != "zbd" {
        return Ok(None);
    }
    let bytes = |name: &'static str, zones: bool| -> Result<Value, String> {
        let r = o.text(name).unwrap_or_else(|| "0".to_string());
        parse_value(name, &r, o.kb_base(), zones).map_err(|e| failed(e, name, &r))
    };
    let size = match bytes("zonesize", false)? {
        Value::Bytes(v) => v,
        Value::Zones(_) => 0,
    };
    let skip = match bytes("zoneskip", true)? {
        Value::Bytes(v) => v,
        Value::Zones(n) => n.wrapping_mul(size),
    };
    Ok(Some(super::zbd::Settings::from_options(o, size, skip)))
}

/// `zonecapacity` in bytes (0 when unset or unreadable).
pub fn zone_capacity(o: &JobOptions) -> u64 {
    let r = o.text("zonecapacity").unwrap_or_else(|| "0".to_string());
    match parse_value("zonecapacity", &r, o.kb_base(), false) {
        Ok(Value::Bytes(v)) => v,
        _ => 0,
    }
}

/// fio's str_to_decimal on a split entry (shared with the option parser).
use rbench_common::units::fio::fio_str_to_decimal as fio_decimal;

/// C's atoi: leading blanks, a sign, digits; 0 without digits.
fn atoi(s: &str) -> i64 {
    let t = s.trim_start();
    let (neg, body) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let n = body.len() - body.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let v = body[..n].parse::<i64>().unwrap_or(0);
    if neg {
        -v
    } else {
        v
    }
}

/// `random_distribution=zoned:P/R:...` (`absolute` false: percent of I/Os,
/// percent of the range) or `zoned_abs:P/S:...` (S bytes), parsed and
/// checked as fio 3.33's zone_split_ddir: entries up to the first empty
/// one, at most 256; a missing or 0 range shares what the others leave; a
/// missing size is 0; the shares are fio's 8-bit values. Errors are fio's
/// lines.
pub fn parse_split(list: &str, absolute: bool, kb_base: u64) -> Result<Vec<(u32, u64)>, String> {
    const MISSING: u64 = 255;
    const MAX: usize = 256;
    let failed = || "fio: split conversion failed".to_string();
    let mut zones: Vec<(u64, u64)> = Vec::new();
    for entry in list.split(':') {
        if entry.is_empty() {
            break;
        }
        let (access, second) = match entry.split_once('/') {
            Some((a, b)) => (a, Some(b)),
            None => (entry, None),
        };
        let second = match second {
            Some(b) if absolute => fio_decimal(b, kb_base).ok_or_else(failed)?,
            Some(b) => match atoi(b) {
                0 => MISSING,
                v if !(0..=100).contains(&v) => 100,
                v => v as u64,
            },
            None if absolute => 0,
            None => MISSING,
        };
        let access = fio_decimal(access, kb_base).ok_or_else(failed)?;
        // fio keeps both shares in 8 bits (a size stays whole).
        let second = if absolute { second } else { second & 0xff };
        zones.push((access & 0xff, second));
        if zones.len() == MAX {
            break;
        }
    }
    if zones.is_empty() {
        return Ok(Vec::new());
    }
    let sum = |missing: fn(&(u64, u64)) -> bool, value: fn(&(u64, u64)) -> u64| {
        let n = zones.iter().filter(|z| missing(z)).count() as u64;
        let total: u64 = zones.iter().filter(|z| !missing(z)).map(value).sum();
        (total, n)
    };
    let (perc, perc_missing) = sum(|z| z.0 == MISSING, |z| z.0);
    let (sperc, sperc_missing) = if absolute {
        (0, 0)
    } else {
        sum(|z| z.1 == MISSING, |z| z.1)
    };
    if perc > 100 || sperc > 100 {
        return Err("fio: zone_split percentages add to more than 100%".into());
    }
    if perc < 100 {
        return Err(format!(
            "fio: access percentage don't add up to 100 for zoned random distribution (got={perc})"
        ));
    }
    let share = |total: u64, missing: u64| {
        let total = if missing == 1 && zones.len() == 1 {
            100
        } else {
            total
        };
        100u64.saturating_sub(total) / missing.max(1)
    };
    let (a_share, s_share) = (share(perc, perc_missing), share(sperc, sperc_missing));
    Ok(zones
        .iter()
        .map(|&(a, b)| {
            let a = if a == MISSING { a_share } else { a };
            let b = if !absolute && b == MISSING {
                s_share
            } else {
                b
            };
            (a as u32, b)
        })
        .collect())
}

/// fio's line for a `zoned_abs` zone reaching past a file's region (fio
/// prints it, and ends the file, once it draws such a zone), or None.
pub fn abs_exceeds(job: &crate::job::Job, regions: &[(i32, u64, u64)]) -> Option<&'static str> {
    let grain = job.rand.blockalign.unwrap_or(job.grain()).max(1);
    let dist = job.rand.random_distribution.in_blocks(grain);
    regions
        .iter()
        .any(|&(_, _, len)| {
            let span = job.zones.map_or(len, |z| z.range);
            job.pattern.random && dist.exceeds(span / grain)
        })
        .then_some("fio: zoned_abs sizes exceed file size\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zones(args: &[&str]) -> Result<Option<Strided>, String> {
        let argv: Vec<String> = ["rfio", "--name=t", "--ioengine=null", "--size=64k"]
            .iter()
            .chain(args)
            .map(|s| s.to_string())
            .collect();
        let plan = crate::cli::parse(&argv).map_err(|_| "parse".to_string())?;
        from_options(&plan.jobs[0].opts)
    }

    #[test]
    fn options_and_fio_errors() {
        assert_eq!(zones(&[]), Ok(None));
        assert_eq!(zones(&["--zonemode=none", "--zonerange=16k"]), Ok(None));
        assert_eq!(
            zones(&["--zonemode=strided", "--zonesize=8k"]),
            Ok(Some(Strided {
                size: 8192,
                range: 8192,
                skip: 0
            }))
        );
        assert_eq!(
            zones(&[
                "--zonemode=strided",
                "--zonesize=8k",
                "--zonerange=16k",
                "--zoneskip=2z"
            ]),
            Ok(Some(Strided {
                size: 8192,
                range: 16384,
                skip: 16384
            }))
        );
        let neg = zones(&["--zonemode=strided", "--zonesize=8k", "--zoneskip=-4k"]);
        assert_eq!(neg.map(|z| z.map(|z| z.skip)), Ok(Some(4096)));
        assert_eq!(
            zones(&["--zonesize=8k"]),
            Err("fio: --zonemode=none and --zonesize are not compatible.\n".into())
        );
        assert_eq!(
            zones(&["--zonemode=strided", "--zonerange=8k"]),
            Err("fio: --zonesize must be specified when using --zonemode=strided.\n".into())
        );
        assert_eq!(
            zones(&["--zonemode=strided", "--zonesize=1z"]),
            Err("zonesize: 'z' suffix isn't applicable\nfio: failed parsing zonesize=1z\n".into())
        );
        assert_eq!(
            zones(&["--zonemode=strided", "--zonesize=8k", "--zoneskip=z"]),
            Err("zoneskip: unexpected zone value 'z'\nfio: failed parsing zoneskip=z\n".into())
        );
        assert_eq!(zones(&["--zonemode=zbd", "--zonesize=8k"]), Ok(None));
    }

    #[test]
    fn zone_counts_and_split_entries_as_fio() {
        assert_eq!(zone_count("size", "4z"), Ok(4));
        assert_eq!(
            zone_count("size", "4kz"),
            Err("size: unexpected zone value '4kz'".into())
        );
        assert_eq!(fio_decimal("16k", 1024), Some(16384));
        assert_eq!(fio_decimal("0x10", 1024), Some(16));
        assert_eq!(fio_decimal("4KiB", 1024), Some(4000));
        assert_eq!(fio_decimal("7x", 1024), Some(7));
        assert_eq!(fio_decimal("10%", 1024), Some(u64::MAX - 10));
        assert_eq!(fio_decimal("x", 1024), None);
        assert_eq!(
            parse_split("60/16k:40/48k", true, 1024),
            Ok(vec![(60, 16384), (40, 49152)])
        );
        // Missing ranges share what the others leave; 0 is missing.
        assert_eq!(
            parse_split("60:40/0", false, 1024),
            Ok(vec![(60, 50), (40, 50)])
        );
        assert_eq!(parse_split("100/20", false, 1024), Ok(vec![(100, 20)]));
        // Entries stop at the first empty one; shares are 8-bit.
        assert_eq!(
            parse_split("100/64k::5/1k", true, 1024),
            Ok(vec![(100, 65536)])
        );
        assert_eq!(parse_split("356/16k", true, 1024), Ok(vec![(100, 16384)]));
        assert_eq!(
            parse_split("60k/16k", true, 1024),
            Err(
                "fio: access percentage don't add up to 100 for zoned random distribution (got=0)"
                    .into()
            )
        );
        assert_eq!(
            parse_split("60/50:40/60", false, 1024),
            Err("fio: zone_split percentages add to more than 100%".into())
        );
        assert_eq!(
            parse_split("60/x", true, 1024),
            Err("fio: split conversion failed".into())
        );
        assert_eq!(parse_split("", true, 1024), Ok(vec![]));
    }
}
