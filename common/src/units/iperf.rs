//! The iperf3 unit dialect.
//!
//! Parsing follows iperf3's `sscanf("%lf%c")`: a decimal number, then an
//! optional suffix whose first letter (`k m g t`, either case) scales it;
//! anything after the suffix letter is ignored. Sizes (`-n -l -w -k`) scale
//! by 1024, rates (`-b --fq-rate`) by 1000.
//!
//! Formatting follows iperf3's `unit_snprintf`: a value is scaled to a unit
//! (adaptively, or fixed by a `-f` letter) and printed in four places:
//! `%4.2f` below 9.995, `%4.1f` below 99.95, else `%4.0f`. The unit label is
//! singular (`GByte`, `Mbit`); iperf3's line templates add the `s`.

use super::UnitError;

const BYTE_LABELS: [&str; 5] = ["Byte", "KByte", "MByte", "GByte", "TByte"];
const BIT_LABELS: [&str; 5] = ["bit", "Kbit", "Mbit", "Gbit", "Tbit"];

/// Split `s` into its leading decimal number and the rest, as `%lf` would.
fn leading_number(s: &str) -> Option<(f64, &str)> {
    let t = s.trim_start();
    let b = t.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        i += 1;
    }
    let digits_start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let mut ndigits = i - digits_start;
    if i < b.len() && b[i] == b'.' {
        i += 1;
        let frac = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        ndigits += i - frac;
    }
    if ndigits == 0 {
        return None;
    }
    // An exponent only counts when digits follow it (`1e` is 1 then suffix `e`).
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        let exp_digits = j;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        if j > exp_digits {
            i = j;
        }
    }
    let v: f64 = t[..i].parse().ok()?;
    Some((v, &t[i..]))
}

fn parse_scaled(s: &str, base: f64) -> Result<f64, UnitError> {
    let (v, rest) =
        leading_number(s).ok_or_else(|| UnitError::new(format!("invalid number '{s}'")))?;
    let scale = match rest.chars().next() {
        Some('k' | 'K') => base,
        Some('m' | 'M') => base * base,
        Some('g' | 'G') => base * base * base,
        Some('t' | 'T') => base * base * base * base,
        _ => 1.0,
    };
    Ok(v * scale)
}

/// A byte count or size (`-n`, `-l`, `-w`, `-k`): 1024-based suffixes.
/// `parse_size("100M")` is 104857600.
pub fn parse_size(s: &str) -> Result<f64, UnitError> {
    parse_scaled(s, 1024.0)
}

/// A rate in bits per second (`-b`, `--fq-rate`): 1000-based suffixes.
/// `parse_rate("100M")` is 100000000.
pub fn parse_rate(s: &str) -> Result<f64, UnitError> {
    parse_scaled(s, 1000.0)
}

/// Whether `c` is a valid `-f` letter (`kmgtKMGT`).
pub fn is_format_letter(c: char) -> bool {
    "kmgtKMGT".contains(c)
}

/// iperf3's `unit_snprintf`: `value` in bytes, `format` one of
/// `a b k m g t` (bits: value × 8, 1000-based) or `A B K M G T` (bytes,
/// 1024-based); `a`/`A` pick the unit adaptively. Returns e.g. `1.73 GByte`
/// or `14.9 Gbit` (the caller adds the plural `s`).
pub fn unit_string(value: f64, format: char) -> String {
    let bytes = format.is_ascii_uppercase();
    let mut num = if bytes { value } else { value * 8.0 };
    let conv = match format.to_ascii_uppercase() {
        'B' => 0,
        'K' => 1,
        'M' => 2,
        'G' => 3,
        'T' => 4,
        _ => {
            let step = if bytes { 1024.0 } else { 1000.0 };
            let mut t = num;
            let mut c = 0;
            while t >= step && c < 4 {
                t /= step;
                c += 1;
            }
            c
        }
    };
    let step: f64 = if bytes { 1024.0 } else { 1000.0 };
    num /= step.powi(conv as i32);
    let label = if bytes {
        BYTE_LABELS[conv]
    } else {
        BIT_LABELS[conv]
    };
    if num < 9.995 {
        format!("{num:4.2} {label}")
    } else if num < 99.95 {
        format!("{num:4.1} {label}")
    } else {
        format!("{num:4.0} {label}")
    }
}

/// A transfer column: `bytes` adaptively in 1024-based units, e.g. `1.73 GBytes`.
pub fn format_transfer(bytes: f64) -> String {
    let mut s = unit_string(bytes, 'A');
    s.push('s');
    s
}

/// A bitrate column: `bytes_per_sec` in the `-f` unit (`a` adaptive bits by
/// default), e.g. `14.9 Gbits/sec` or `2625 MBytes/sec`.
pub fn format_rate(bytes_per_sec: f64, format: char) -> String {
    let mut s = unit_string(bytes_per_sec, format);
    s.push_str("s/sec");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn sizes_are_1024_based() {
        assert_eq!(parse_size("100M").unwrap(), 104857600.0);
        assert_eq!(parse_size("128k").unwrap(), 131072.0);
        assert_eq!(parse_size("1G").unwrap(), 1073741824.0);
        assert_eq!(parse_size("1.5K").unwrap(), 1536.0);
        assert_eq!(parse_size("4096").unwrap(), 4096.0);
        assert_eq!(parse_size("2Mbytes").unwrap(), 2097152.0);
        assert!(parse_size("abc").is_err());
        assert!(parse_size("").is_err());
    }

    #[test]
    fn rates_are_1000_based() {
        assert_eq!(parse_rate("100M").unwrap(), 100_000_000.0);
        assert_eq!(parse_rate("1g").unwrap(), 1_000_000_000.0);
        assert_eq!(parse_rate("10k").unwrap(), 10_000.0);
        assert_eq!(parse_rate("0").unwrap(), 0.0);
        assert_eq!(parse_rate("1e3").unwrap(), 1000.0);
    }

    #[test]
    fn formats_like_unit_snprintf() {
        // Values from reference/iperf3/tcp_default.txt and friends.
        assert_eq!(format_transfer(1.73 * 1073741824.0), "1.73 GBytes");
        assert_eq!(format_transfer(600.0 * 1048576.0), " 600 MBytes");
        assert_eq!(format_transfer(1023.0 * 1024.0), "1023 KBytes");
        assert_eq!(format_transfer(0.0), "0.00 Bytes");
        assert_eq!(format_rate(14.9e9 / 8.0, 'a'), "14.9 Gbits/sec");
        assert_eq!(format_rate(999_990.0 / 8.0, 'a'), "1000 Kbits/sec");
        assert_eq!(format_rate(0.0, 'a'), "0.00 bits/sec");
        assert_eq!(format_rate(2625.0 * 1048576.0, 'M'), "2625 MBytes/sec");
        assert_eq!(format_rate(1e9 / 8.0, 'm'), "1000 Mbits/sec");
        assert_eq!(unit_string(99.96, 'A'), " 100 Byte");
        assert_eq!(unit_string(9.996, 'A'), "10.0 Byte");
    }

    proptest! {
        #[test]
        fn never_panics(s in ".{0,40}") {
            let _ = parse_size(&s);
            let _ = parse_rate(&s);
        }

        #[test]
        fn size_round_trip(n in 0u32..100000, suf in prop::sample::select(vec!["", "k", "K", "m", "M", "g", "G"])) {
            let mult = match suf { "k" | "K" => 1024.0, "m" | "M" => 1048576.0, "g" | "G" => 1073741824.0, _ => 1.0 };
            prop_assert_eq!(parse_size(&format!("{n}{suf}")).unwrap(), n as f64 * mult);
            let rmult = match suf { "k" | "K" => 1e3, "m" | "M" => 1e6, "g" | "G" => 1e9, _ => 1.0 };
            prop_assert_eq!(parse_rate(&format!("{n}{suf}")).unwrap(), n as f64 * rmult);
        }

        #[test]
        fn formatted_fits_four_places(v in 0.0f64..1e15, f in prop::sample::select(vec!['a', 'A', 'k', 'M', 'g', 'T'])) {
            let s = unit_string(v, f);
            let (num, _) = s.trim_start().split_once(' ').unwrap();
            prop_assert!(s.len() >= 8);
            // The number re-parses and is close to the input in its unit.
            prop_assert!(num.trim().parse::<f64>().is_ok());
            if f == 'a' || f == 'A' {
                prop_assert!(num.len() <= 5, "{}", s);
            }
        }
    }
}
