//! The fio unit dialect (spec fio.md §2 and §5).
//!
//! Sizes: `k m g t p` are powers of `kb_base` (1024 by default) while
//! `KiB MiB …` are powers of 1000 — fio's inversion, kept on purpose (§2.1.3,
//! §12). `kb_base=1000` swaps them. Times are stored in microseconds; a bare
//! number takes the option's default unit (§2.2).
//!
//! Where fio silently ignores garbage in a size (`bs=4q` is 4 bytes,
//! `filesize=65536)` is 65536, `1.5k` is 1), [`parse_size_as_fio`] reads it as
//! fio does and says how, so that the caller can warn; [`parse_size`] alone
//! refuses it.

use super::UnitError;

/// Split a value into its leading integer (decimal or `0x` hex) and the rest.
fn split_number(s: &str) -> Result<(u64, &str), UnitError> {
    let t = s.trim();
    let (digits_start, radix) = if t.starts_with("0x") || t.starts_with("0X") {
        (2, 16)
    } else {
        (0, 10)
    };
    let body = &t[digits_start..];
    let end = body
        .char_indices()
        .find(|(_, c)| !c.is_digit(radix))
        .map_or(body.len(), |(i, _)| i);
    if end == 0 {
        return Err(UnitError::new(format!("'{s}' is not a number")));
    }
    let n = u64::from_str_radix(&body[..end], radix)
        .map_err(|_| UnitError::new(format!("'{s}' is out of range")))?;
    let rest = &body[end..];
    if rest.starts_with('.') {
        return Err(UnitError::new(format!(
            "'{s}': fractional values are not supported (fio would read only the integer part)"
        )));
    }
    Ok((n, rest))
}

/// Multiplier of a size suffix (case-insensitive). `None` for anything fio
/// would silently read as ×1 (garbage), except the empty suffix and `b`.
pub fn size_multiplier(suffix: &str, kb_base: u64) -> Option<u64> {
    let s = suffix.to_ascii_lowercase();
    let other = if kb_base == 1000 { 1024 } else { 1000 };
    let (letter, rest) = match s.char_indices().next() {
        None => return Some(1),
        Some((_, c)) => (c, &s[c.len_utf8()..]),
    };
    let pow = match letter {
        'b' if rest.is_empty() => return Some(1),
        'k' => 1,
        'm' => 2,
        'g' => 3,
        't' => 4,
        'p' => 5,
        _ => return None,
    };
    // `KiB` (exactly with the b) uses the other base; `k`, `kb`, `ki` use kb_base.
    let base = match rest {
        "" | "b" | "i" => kb_base,
        "ib" => other,
        _ => return None,
    };
    base.checked_pow(pow)
}

/// A size (`4k`, `1M`, `0x1000`, `64KiB`), honouring `kb_base`.
pub fn parse_size(s: &str, kb_base: u64) -> Result<u64, UnitError> {
    let (n, rest) = split_number(s)?;
    let mult = size_multiplier(rest, kb_base)
        .ok_or_else(|| UnitError::new(format!("'{s}': unknown size suffix '{rest}'")))?;
    n.checked_mul(mult)
        .ok_or_else(|| UnitError::new(format!("'{s}' is out of range")))
}

/// fio 3.33's str_to_decimal() over a size: strtoll() (hex when the text
/// holds `0x` anywhere), then the suffix that starts after the digits (and
/// signs) matched by prefix, `kib`.. first, then `k m g t p` (anything
/// else is x1), or `%` (fio's marker `-1 - N`). None where strtoll() finds
/// no digits.
pub fn fio_str_to_decimal(s: &str, kb_base: u64) -> Option<u64> {
    let t = s.trim_start();
    let hex = t.contains("0x") || t.contains("0X");
    let (neg, body) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let digits = if hex {
        let b = body
            .strip_prefix("0x")
            .or_else(|| body.strip_prefix("0X"))
            .unwrap_or(body);
        let n = b.len() - b.trim_start_matches(|c: char| c.is_ascii_hexdigit()).len();
        (n > 0).then(|| i64::from_str_radix(&b[..n], 16).unwrap_or(i64::MAX))
    } else {
        let n = body.len() - body.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        (n > 0).then(|| body[..n].parse::<i64>().unwrap_or(i64::MAX))
    };
    let v = digits?;
    let v = if neg { v.wrapping_neg() } else { v } as u64;
    // fio's get_mult_bytes: the suffix starts after the digits (and signs).
    let rest = t.trim_start_matches(|c: char| c.is_ascii_digit() || c == '-' || c == '+');
    let lower = rest.to_ascii_lowercase();
    if lower.starts_with('%') {
        return Some(u64::MAX - v);
    }
    if !lower.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return Some(v);
    }
    let other = if kb_base == 1000 { 1024u64 } else { 1000 };
    let mult = ["kib", "mib", "gib", "tib", "pib"]
        .iter()
        .position(|p| lower.starts_with(p))
        .map(|i| other.pow(i as u32 + 1))
        .or_else(|| {
            "kmgtp"
                .find(lower.chars().next()?)
                .map(|i| kb_base.pow(i as u32 + 1))
        })
        .unwrap_or(1);
    Some(v.wrapping_mul(mult))
}

/// A size as fio reads it: `Ok((v, None))` for a clean value; where fio
/// reads garbage without a word (`4q`, `65536)`, `1.5k`, `1m)`), fio's value
/// and a note on how it was read (`read as 4`), for the caller's warning.
/// Signs, percentages and text with no leading number stay errors.
pub fn parse_size_as_fio(s: &str, kb_base: u64) -> Result<(u64, Option<String>), UnitError> {
    let strict = match parse_size(s, kb_base) {
        Ok(v) => return Ok((v, None)),
        Err(e) => e,
    };
    let t = s.trim_start();
    if t.starts_with(['-', '+']) || t.contains('%') {
        return Err(strict);
    }
    match fio_str_to_decimal(t, kb_base) {
        Some(v) => Ok((v, Some(format!("read as {v}")))),
        None => Err(strict),
    }
}

/// A size or a percentage (`50%`), as `size`, `offset` and
/// `offset_increment` accept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SizeOrPercent {
    Bytes(u64),
    Percent(u64),
}

pub fn parse_size_or_percent(s: &str, kb_base: u64) -> Result<SizeOrPercent, UnitError> {
    let t = s.trim();
    if let Some(p) = t.strip_suffix('%') {
        let (n, rest) = split_number(p)?;
        if !rest.is_empty() || n == 0 || n > 100 {
            return Err(UnitError::new(format!(
                "'{s}': a percentage must be 1% to 100%"
            )));
        }
        return Ok(SizeOrPercent::Percent(n));
    }
    parse_size(t, kb_base).map(SizeOrPercent::Bytes)
}

/// A range's two bounds as fio splits `lo-hi` or `lo:hi`: at the first
/// `-`, else the first `:`; a single value is both.
pub fn split_size_range(s: &str) -> (&str, &str) {
    let t = s.trim();
    match t.find('-').or_else(|| t.find(':')) {
        Some(i) => (&t[..i], &t[i + 1..]),
        None => (t, t),
    }
}

/// A range `lo-hi` or `lo:hi` (a single value means lo = hi); reversed bounds
/// are swapped as fio does.
pub fn parse_size_range(s: &str, kb_base: u64) -> Result<(u64, u64), UnitError> {
    let (a, b) = split_size_range(s);
    let lo = parse_size(a, kb_base)?;
    let hi = parse_size(b, kb_base)?;
    Ok(if lo <= hi { (lo, hi) } else { (hi, lo) })
}

/// The unit a bare time number is read in (per option, §2.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeUnit {
    Seconds,
    Micros,
    Millis,
}

/// A time; the result is in microseconds.
pub fn parse_time_us(s: &str, default_unit: TimeUnit) -> Result<u64, UnitError> {
    let (n, rest) = split_number(s)?;
    let mult: u64 = match rest.to_ascii_lowercase().as_str() {
        "" => match default_unit {
            TimeUnit::Seconds => 1_000_000,
            TimeUnit::Millis => 1_000,
            TimeUnit::Micros => 1,
        },
        "us" | "usec" => 1,
        "ms" | "msec" => 1_000,
        "s" => 1_000_000,
        "m" => 60_000_000,
        "h" => 3_600_000_000,
        "d" => 86_400_000_000,
        _ => {
            return Err(UnitError::new(format!(
                "'{s}': unknown time suffix '{rest}' (use us, ms, s, m, h or d)"
            )))
        }
    };
    n.checked_mul(mult)
        .ok_or_else(|| UnitError::new(format!("'{s}' is out of range")))
}

/// A time as fio reads it (µs): `Ok((v, None))` for a clean value; where
/// fio reads garbage without a word, fio's value and a note (`read as 10
/// us`): its strtoll() number, then get_mult_time() on what follows the
/// digits: no letter there is the option's default unit (`10)` is 10 s for
/// runtime), `us`/`ms` by prefix, exactly `s m h d`, any other word x1 µs
/// (`10x`, `2sec`). Signs and text with no leading number stay errors.
pub fn parse_time_as_fio(
    s: &str,
    default_unit: TimeUnit,
) -> Result<(u64, Option<String>), UnitError> {
    let strict = match parse_time_us(s, default_unit) {
        Ok(v) => return Ok((v, None)),
        Err(e) => e,
    };
    let t = s.trim_start();
    if t.starts_with(['-', '+']) {
        return Err(strict);
    }
    let hex = t.contains("0x") || t.contains("0X");
    let body = if hex {
        t.strip_prefix("0x")
            .or_else(|| t.strip_prefix("0X"))
            .unwrap_or(t)
    } else {
        t
    };
    let radix = if hex { 16 } else { 10 };
    let n = body.len() - body.trim_start_matches(|c: char| c.is_digit(radix)).len();
    if n == 0 {
        return Err(strict);
    }
    let v = u64::from_str_radix(&body[..n], radix).map_err(|_| strict.clone())?;
    let rest = t.trim_start_matches(|c: char| c.is_ascii_digit() || c == '-' || c == '+');
    let word = rest.to_ascii_lowercase();
    let mult: u64 = if !word.starts_with(|c: char| c.is_ascii_alphabetic()) {
        match default_unit {
            TimeUnit::Seconds => 1_000_000,
            TimeUnit::Millis => 1_000,
            TimeUnit::Micros => 1,
        }
    } else if word.starts_with("us") {
        1
    } else if word.starts_with("ms") {
        1_000
    } else {
        match word.as_str() {
            "s" => 1_000_000,
            "m" => 60_000_000,
            "h" => 3_600_000_000,
            "d" => 86_400_000_000,
            _ => 1,
        }
    };
    let us = v.checked_mul(mult).ok_or(strict)?;
    Ok((us, Some(format!("read as {us} us"))))
}

/// A percentile list `1:5:99.9` (≤ 20 values in (0,100]), sorted; also
/// returns the precision fio prints them with (the most decimals written).
pub fn parse_percentile_list(s: &str) -> Result<(Vec<f64>, usize), UnitError> {
    let mut out = Vec::new();
    let mut prec = 0;
    for part in s.split(':') {
        let p = part.trim();
        let v: f64 = p
            .parse()
            .map_err(|_| UnitError::new(format!("'{p}' is not a percentile")))?;
        if !(v > 0.0 && v <= 100.0) {
            return Err(UnitError::new(format!(
                "percentile {p} is outside (0, 100]"
            )));
        }
        if let Some(dot) = p.find('.') {
            prec = prec.max(p.len() - dot - 1);
        }
        out.push(v);
    }
    if out.len() > 20 {
        return Err(UnitError::new("at most 20 percentiles can be listed"));
    }
    out.sort_by(f64::total_cmp);
    Ok((out, prec))
}

/// The unit appended by [`num2str`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum N2sUnit {
    None,
    PerSec,
    Byte,
    Bit,
    BytePerSec,
    BitPerSec,
}

impl N2sUnit {
    fn text(self) -> &'static str {
        match self {
            N2sUnit::None => "",
            N2sUnit::PerSec => "/s",
            N2sUnit::Byte => "B",
            N2sUnit::Bit => "bit",
            N2sUnit::BytePerSec => "B/s",
            N2sUnit::BitPerSec => "bit/s",
        }
    }
}

const SI: [&str; 7] = ["", "k", "M", "G", "T", "P", "E"];
const IEC: [&str; 7] = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];

fn digits(n: u64) -> usize {
    n.checked_ilog10().map_or(1, |d| d as usize + 1)
}

/// fio's `num2str` (§5): shorten `num` to at most `maxlen` digits by dividing
/// by 1000 (or 1024 when `pow2`), keeping decimals when room is left. `base`
/// says what `num` already is (1 = units, 1024 = KiB, …).
pub fn num2str(num: u64, maxlen: usize, base: u64, pow2: bool, unit: N2sUnit) -> String {
    let thousand: u64 = if pow2 { 1024 } else { 1000 };
    let prefixes = if pow2 { &IEC } else { &SI };
    let mut post = 0usize;
    let mut b = base;
    while b > 1 {
        b /= thousand;
        post += 1;
    }
    let mut num = match unit {
        N2sUnit::Bit | N2sUnit::BitPerSec => num.saturating_mul(8),
        _ => num,
    };
    let mut modulo: Option<u64> = None;
    while post < SI.len() && digits(num) > maxlen {
        let m = num % thousand;
        num /= thousand;
        modulo = Some(m);
        post += 1;
    }
    if post >= SI.len() {
        post = 0;
    }
    let tail = |n: u64, post: usize| format!("{n}{}{}", prefixes[post], unit.text());
    let Some(m) = modulo else {
        return tail(num, post);
    };
    let room = maxlen as isize - digits(num) as isize;
    if room <= 1 {
        let n = if m >= thousand / 2 { num + 1 } else { num };
        return tail(n, post);
    }
    let decimals = (room - 1) as usize;
    let frac = format!("{:.*}", decimals, m as f64 / thousand as f64);
    if let Some(d) = frac.strip_prefix("1.") {
        // The fraction rounded up to a whole unit.
        return format!("{}.{d}{}{}", num + 1, prefixes[post], unit.text());
    }
    format!("{num}.{}{}{}", &frac[2..], prefixes[post], unit.text())
}

/// The "primary (alternate)" pair fio prints for sizes and rates, e.g.
/// `31.5MiB/s (33.0MB/s)`: primary in kb_base, alternate in the other base.
pub fn dual(num: u64, sig_figs: usize, kb_base: u64, unit: N2sUnit) -> (String, String) {
    let pow2 = kb_base == 1024;
    (
        num2str(num, sig_figs, 1, pow2, unit),
        num2str(num, sig_figs, 1, !pow2, unit),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn sizes_follow_fio_bases() {
        assert_eq!(parse_size("4k", 1024), Ok(4096));
        assert_eq!(parse_size("4K", 1024), Ok(4096));
        assert_eq!(parse_size("4kb", 1024), Ok(4096));
        assert_eq!(parse_size("4ki", 1024), Ok(4096));
        assert_eq!(parse_size("4ki", 1000), Ok(4000));
        assert_eq!(parse_size("4KiB", 1024), Ok(4000));
        assert_eq!(parse_size("4KiB", 1000), Ok(4096));
        assert_eq!(parse_size("4GiB", 1024), Ok(4_000_000_000));
        assert_eq!(parse_size("1M", 1024), Ok(1 << 20));
        assert_eq!(parse_size("0x1000", 1024), Ok(4096));
        assert_eq!(parse_size("4096B", 1024), Ok(4096));
        assert_eq!(parse_size("2p", 1024), Ok(2 << 50));
    }

    #[test]
    fn garbage_fio_accepts_is_rejected() {
        for bad in ["4q", "12Q", "4x", "1Mx", "1.5k", "abc", "", "k", "-4k"] {
            assert!(parse_size(bad, 1024).is_err(), "{bad}");
        }
        for bad in ["10x", "2sec", "1min", "abc", "1.5"] {
            assert!(parse_time_us(bad, TimeUnit::Seconds).is_err(), "{bad}");
        }
    }

    #[test]
    fn garbage_fio_accepts_is_read_as_fio_reads_it() {
        for (text, want) in [
            ("4q", 4),
            ("65536)", 65536),
            ("1m)", 1 << 20),
            ("1.5k", 1),
            ("512/25", 512),
            ("1k/75", 1024),
            ("4KiBx", 4000),
            ("2gq", 2 << 30),
        ] {
            let (v, note) = parse_size_as_fio(text, 1024).expect(text);
            assert_eq!(v, want, "{text}");
            assert_eq!(note, Some(format!("read as {want}")), "{text}");
        }
        assert_eq!(parse_size_as_fio("4k", 1024), Ok((4096, None)));
        for bad in ["abc", "", "k", "-4k", "+4q", "5%x"] {
            assert!(parse_size_as_fio(bad, 1024).is_err(), "{bad}");
        }
    }

    #[test]
    fn garbage_times_are_read_as_fio_reads_them() {
        for (text, want) in [
            ("10x", 16), // "0x" inside: strtoll in base 16
            ("2sec", 2),
            ("1min", 1),
            ("10)", 10_000_000),
            ("10ms)", 10_000),
            ("5usx", 5),
            ("1.5", 1_000_000),
        ] {
            let (v, note) = parse_time_as_fio(text, TimeUnit::Seconds).expect(text);
            assert_eq!(v, want, "{text}");
            assert_eq!(note, Some(format!("read as {want} us")), "{text}");
        }
        assert_eq!(
            parse_time_as_fio("2m", TimeUnit::Seconds),
            Ok((120_000_000, None))
        );
        for bad in ["abc", "", "s", "-1", "+5x"] {
            assert!(parse_time_as_fio(bad, TimeUnit::Seconds).is_err(), "{bad}");
        }
    }

    #[test]
    fn ranges_and_percent() {
        assert_eq!(parse_size_range("4k-64k", 1024), Ok((4096, 65536)));
        assert_eq!(parse_size_range("64k:4k", 1024), Ok((4096, 65536)));
        assert_eq!(parse_size_range("8k", 1024), Ok((8192, 8192)));
        assert_eq!(
            parse_size_or_percent("50%", 1024),
            Ok(SizeOrPercent::Percent(50))
        );
        assert!(parse_size_or_percent("150%", 1024).is_err());
    }

    #[test]
    fn times_with_default_units() {
        assert_eq!(parse_time_us("2", TimeUnit::Seconds), Ok(2_000_000));
        assert_eq!(parse_time_us("2", TimeUnit::Micros), Ok(2));
        assert_eq!(parse_time_us("250ms", TimeUnit::Seconds), Ok(250_000));
        assert_eq!(parse_time_us("250msec", TimeUnit::Seconds), Ok(250_000));
        assert_eq!(parse_time_us("10us", TimeUnit::Seconds), Ok(10));
        assert_eq!(parse_time_us("1m", TimeUnit::Seconds), Ok(60_000_000));
        assert_eq!(parse_time_us("1h", TimeUnit::Seconds), Ok(3_600_000_000));
        assert_eq!(parse_time_us("1D", TimeUnit::Seconds), Ok(86_400_000_000));
        assert_eq!(parse_time_us("3s", TimeUnit::Micros), Ok(3_000_000));
    }

    #[test]
    fn percentile_lists() {
        let (v, p) = parse_percentile_list("99.9:50:90").unwrap();
        assert_eq!(v, vec![50.0, 90.0, 99.9]);
        assert_eq!(p, 1);
        assert!(parse_percentile_list("0:50").is_err());
        assert!(parse_percentile_list("101").is_err());
    }

    #[test]
    fn num2str_spec_examples() {
        let b = N2sUnit::Byte;
        assert_eq!(num2str(4096, 4, 1, true, b), "4096B");
        assert_eq!(num2str(65536, 4, 1, true, b), "64.0KiB");
        assert_eq!(num2str(65536, 4, 1, false, b), "65.5kB");
        assert_eq!(num2str(131072, 4, 1, true, b), "128KiB");
        assert_eq!(num2str(1048576, 4, 1, true, b), "1024KiB");
        assert_eq!(num2str(1048576, 4, 1, false, b), "1049kB");
        assert_eq!(num2str(10000, 4, 1, true, b), "9.77KiB");
        assert_eq!(num2str(16837, 4, 1, false, N2sUnit::None), "16.8k");
        assert_eq!(num2str(6409351, 4, 1, false, N2sUnit::None), "6409k");
        assert_eq!(num2str(4235000000, 4, 1, true, b), "4039MiB");
        assert_eq!(num2str(4235000000, 4, 1, false, b), "4235MB");
        assert_eq!(num2str(4471442, 6, 1, false, N2sUnit::None), "4471.4k");
        // A KiB/s value with base 1024, as the status line prints it.
        assert_eq!(
            num2str(51917, 4, 1024, true, N2sUnit::BytePerSec),
            "50.7MiB/s"
        );
        assert_eq!(
            dual(33_030_144, 4, 1024, N2sUnit::BytePerSec),
            ("31.5MiB/s".to_string(), "33.0MB/s".to_string())
        );
    }

    proptest! {
        #[test]
        fn size_round_trips(n in 0u64..1_000_000, p in 0usize..4) {
            let suffix = ["", "k", "m", "g"][p];
            let v = parse_size(&format!("{n}{suffix}"), 1024).unwrap();
            prop_assert_eq!(v, n * 1024u64.pow(p as u32));
            let v = parse_size(&format!("{n}{}", suffix.to_uppercase()), 1000).unwrap();
            prop_assert_eq!(v, n * 1000u64.pow(p as u32));
        }

        #[test]
        fn time_round_trips(n in 0u64..1_000_000) {
            prop_assert_eq!(parse_time_us(&format!("{n}ms"), TimeUnit::Seconds).unwrap(), n * 1000);
            prop_assert_eq!(parse_time_us(&n.to_string(), TimeUnit::Seconds).unwrap(), n * 1_000_000);
        }

        #[test]
        fn parsers_never_panic(s in ".{0,24}") {
            let _ = parse_size(&s, 1024);
            let _ = parse_size_or_percent(&s, 1000);
            let _ = parse_size_range(&s, 1024);
            let _ = parse_time_us(&s, TimeUnit::Micros);
            let _ = parse_percentile_list(&s);
        }

        #[test]
        fn num2str_fits_and_never_panics(n in any::<u64>(), maxlen in 1usize..10, pow2 in any::<bool>()) {
            let s = num2str(n, maxlen, 1, pow2, N2sUnit::None);
            let digits: usize = s.chars().filter(|c| c.is_ascii_digit()).count();
            prop_assert!(digits <= maxlen + 1, "{}", s);
        }
    }
}
