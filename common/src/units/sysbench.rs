//! The sysbench unit dialect.
//!
//! Sizes are digits with an optional binary suffix `K`, `M`, `G` or `T` (any
//! case, ×1024 each). sysbench 1.0.20 reads `1KB` and `1kfoo` as 1024 (it
//! ignores what follows the suffix) and silently reads anything else it does
//! not understand (`1X`, `1.5K`, ` 5K`, `0x10`) as 0; we accept the suffix
//! followed by nothing, `B`, `i` or `iB`, and reject the rest with a message.
//!
//! Printing follows sysbench's size printer: divide by 1024 while the value
//! is at least 1024, print with C's `%.5g`, and append `Ki`/`Mi`/`Gi`/`Ti`.

use super::UnitError;

/// The multiplier a size suffix stands for (`None` when not a suffix).
fn suffix_multiplier(c: u8) -> Option<u64> {
    match c.to_ascii_uppercase() {
        b'K' => Some(1 << 10),
        b'M' => Some(1 << 20),
        b'G' => Some(1 << 30),
        b'T' => Some(1 << 40),
        _ => None,
    }
}

/// Parse a sysbench size such as `16K`, `2G`, `100g`, `1KiB` or `4096`.
pub fn parse_size(s: &str) -> Result<u64, UnitError> {
    let bad = |why: &str| {
        UnitError::new(format!(
            "invalid size '{s}': {why} (expected digits with an optional K, M, G or T suffix)"
        ))
    };
    let b = s.as_bytes();
    let ndigits = b.iter().take_while(|c| c.is_ascii_digit()).count();
    if ndigits == 0 {
        return Err(bad("it does not start with a digit"));
    }
    let n: u64 = s[..ndigits]
        .parse()
        .map_err(|_| bad("the number is too large"))?;
    let rest = &s[ndigits..];
    let (mult, tail) = match rest.as_bytes().first() {
        None => (1, ""),
        Some(&c) => match suffix_multiplier(c) {
            Some(m) => (m, &rest[1..]),
            None if rest == "B" || rest == "b" => (1, ""),
            None => return Err(bad(&format!("unknown suffix '{rest}'"))),
        },
    };
    if !matches!(tail, "" | "B" | "b" | "i" | "iB" | "ib") {
        return Err(bad(&format!("unexpected '{tail}' after the suffix")));
    }
    n.checked_mul(mult)
        .ok_or_else(|| bad("the size is too large"))
}

/// C's `%.<prec>g` for a finite, non-negative or negative `x`.
pub fn format_g(x: f64, prec: usize) -> String {
    if !x.is_finite() {
        // glibc prints the sign of NaN and of zero (found by fuzz/units_sysbench).
        return if x.is_nan() {
            if x.is_sign_negative() { "-nan" } else { "nan" }.into()
        } else if x > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        };
    }
    let p = prec.max(1);
    if x == 0.0 {
        return if x.is_sign_negative() { "-0" } else { "0" }.into();
    }
    // The exponent after rounding to `p` significant digits decides the style.
    let e_form = format!("{:.*e}", p - 1, x);
    let (mantissa, exp) = e_form.split_once('e').unwrap_or((&e_form, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if exp < -4 || exp >= p as i32 {
        let m = strip_zeros(mantissa);
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{m}e{sign}{:02}", exp.abs())
    } else {
        let decimals = (p as i32 - 1 - exp).max(0) as usize;
        strip_zeros(&format!("{x:.decimals$}")).to_string()
    }
}

fn strip_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

/// sysbench's size printer: `512Ki`, `2Gi`, `78.125Gi`, `4.8828Ti`, `100`.
/// Callers append `B` where sysbench does.
pub fn format_size(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["", "Ki", "Mi", "Gi", "Ti"];
    let mut v = bytes as f64;
    let mut i = 0;
    while v >= 1024.0 && i < UNITS.len() - 1 {
        v /= 1024.0;
        i += 1;
    }
    format!("{}{}", format_g(v, 5), UNITS[i])
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn parses_suffixes_like_sysbench() {
        assert_eq!(parse_size("4096").unwrap(), 4096);
        assert_eq!(parse_size("1K").unwrap(), 1024);
        assert_eq!(parse_size("1k").unwrap(), 1024);
        assert_eq!(parse_size("1KB").unwrap(), 1024);
        assert_eq!(parse_size("1KiB").unwrap(), 1024);
        assert_eq!(parse_size("64M").unwrap(), 64 << 20);
        assert_eq!(parse_size("2G").unwrap(), 2 << 30);
        assert_eq!(parse_size("100g").unwrap(), 100 << 30);
        assert_eq!(parse_size("3T").unwrap(), 3 << 40);
        assert_eq!(parse_size("0").unwrap(), 0);
    }

    #[test]
    fn rejects_what_sysbench_reads_as_zero() {
        for s in ["1X", "1.5K", " 5K", "0x10", "", "K", "-1K", "1Kfoo", "1KK"] {
            let e = parse_size(s).unwrap_err();
            assert!(e.0.contains(&format!("'{s}'")), "{s}: {e}");
        }
        assert!(parse_size("99999999999999999999").is_err());
        assert!(parse_size("20000000T").is_err());
    }

    #[test]
    fn formats_like_percent_g() {
        assert_eq!(format_g(512.0, 5), "512");
        assert_eq!(format_g(78.125, 5), "78.125");
        assert_eq!(format_g(4.8828125, 5), "4.8828");
        assert_eq!(format_g(0.0001, 5), "0.0001");
        assert_eq!(format_g(0.00001, 5), "1e-05");
        assert_eq!(format_g(123456.0, 5), "1.2346e+05");
        assert_eq!(format_g(99999.5, 5), "1e+05");
        assert_eq!(format_g(1.5, 1), "2");
        // Inputs fuzz/units_sysbench found differing from glibc's printf.
        assert_eq!(format_g(-0.0, 0), "-0");
        assert_eq!(format_g(-f64::NAN, 5), "-nan");
        assert_eq!(format_g(-f64::MAX, 15), "-1.79769313486232e+308");
    }

    #[test]
    fn formats_sizes_like_sysbench() {
        assert_eq!(format_size(512 << 10), "512Ki");
        assert_eq!(format_size(2 << 30), "2Gi");
        assert_eq!(format_size(80_000 << 20), "78.125Gi");
        assert_eq!(format_size(5_000 << 30), "4.8828Ti");
        assert_eq!(format_size(100), "100");
        assert_eq!(format_size(16384), "16Ki");
        assert_eq!(format_size(0), "0");
    }

    proptest! {
        #[test]
        fn round_trips(n in 0u64..1_000_000, k in 0usize..5, lower: bool) {
            let suffix = ["", "K", "M", "G", "T"][k];
            let suffix = if lower { suffix.to_lowercase() } else { suffix.to_string() };
            let v = parse_size(&format!("{n}{suffix}")).unwrap();
            prop_assert_eq!(v, n << (10 * k));
        }

        #[test]
        fn printed_sizes_parse_back(n in 1u64..1024, k in 0u32..5) {
            let bytes = n << (10 * k);
            prop_assert_eq!(parse_size(&format_size(bytes)).unwrap(), bytes);
        }

        #[test]
        fn never_panics(s in "\\PC*") {
            let _ = parse_size(&s);
        }

        #[test]
        fn format_never_panics(x in any::<f64>(), p in 0usize..20, b: u64) {
            let _ = format_g(x, p);
            let _ = format_size(b);
        }
    }
}
