//! The mbw unit dialect (spec `mbw.md` §1, §2).
//!
//! mbw 1.2.2 reads every number with C's `strtoul`: leading white space, an
//! optional sign, then the longest run of decimal digits; whatever follows is
//! ignored (`8M` → 8, `0x10` → 0, `abc` → 0, `-1` wraps to `ULONG_MAX`). The
//! array size is in MiB of one array (1 MiB = 131072 eight-byte elements),
//! and every copy is accounted as that many MiB.
//!
//! rmbw keeps the leading-digit reading where it is what the user meant
//! (`8`, `8M`, `8MiB` all mean 8 MiB) and rejects what mbw misreads silently
//! (`1G` would be 1 MiB, `-1` a wrapped huge value): see [`parse_size_mib`].
//! Numbers print like C's `%.Nf`, including `inf`, `-inf` and `-nan`.

use super::UnitError;

/// Bytes in one MiB.
pub const MIB: u64 = 1 << 20;
/// Bytes in one of mbw's array elements (a C `long` on LP64).
pub const ELEMENT_BYTES: u64 = 8;

/// What C's `strtoul(s, &end, 10)` makes of a string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Strtoul<'a> {
    /// The value as strtoul returns it (negative input wrapped, overflow saturated).
    pub value: u64,
    /// True when digits were found (strtoul's `end` moved).
    pub has_digits: bool,
    /// True when a `-` sign preceded the digits.
    pub negative: bool,
    /// True when the digits did not fit (strtoul's ERANGE).
    pub overflow: bool,
    /// What follows the digits (the whole string when there were none).
    pub rest: &'a str,
}

/// Read a string as C's `strtoul(s, &end, 10)` does (64-bit `unsigned long`).
pub fn strtoul(s: &str) -> Strtoul<'_> {
    let b = s.as_bytes();
    let mut i = 0;
    // isspace() in the C locale.
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r') {
        i += 1;
    }
    let mut negative = false;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        negative = b[i] == b'-';
        i += 1;
    }
    let start = i;
    let mut value: u64 = 0;
    let mut overflow = false;
    while i < b.len() && b[i].is_ascii_digit() {
        let d = u64::from(b[i] - b'0');
        match value.checked_mul(10).and_then(|v| v.checked_add(d)) {
            Some(v) => value = v,
            None => overflow = true,
        }
        i += 1;
    }
    if i == start {
        return Strtoul {
            value: 0,
            has_digits: false,
            negative: false,
            overflow: false,
            rest: s,
        };
    }
    if overflow {
        value = u64::MAX;
    } else if negative {
        value = value.wrapping_neg();
    }
    Strtoul {
        value,
        has_digits: true,
        negative,
        overflow,
        rest: &s[i..],
    }
}

/// Parse the array size argument (MiB of one array).
///
/// mbw reads the leading digits (`8M` → 8). We accept digits followed by
/// nothing or by a suffix that says MiB (`M`, `MB`, `MiB`, any case), since
/// that is what mbw reads them as. Anything else is an error rather than a
/// silent misreading: no digits or zero (mbw: "array size wrong"), a sign,
/// another unit (`1G` would be read as 1 MiB), or a value whose byte count
/// does not fit in 64 bits.
pub fn parse_size_mib(s: &str) -> Result<u64, UnitError> {
    let p = strtoul(s);
    if !p.has_digits || (p.value == 0 && !p.negative) {
        return Err(UnitError::new(format!(
            "array size '{s}' is not a positive whole number of MiB"
        )));
    }
    if p.negative || s.trim_start().starts_with('+') {
        return Err(UnitError::new(format!(
            "array size '{s}' has a sign; give a positive whole number of MiB"
        )));
    }
    let rest = p.rest;
    if !(rest.is_empty() || ["m", "mb", "mib"].contains(&rest.to_ascii_lowercase().as_str())) {
        return Err(UnitError::new(format!(
            "array size '{s}': the size is a whole number of MiB; '{rest}' is not understood"
        )));
    }
    if p.overflow {
        return Err(UnitError::new(format!("array size '{s}' is too large")));
    }
    mib_to_bytes(p.value)?;
    Ok(p.value)
}

/// Bytes in `mib` MiB, or an error when that does not fit in 64 bits.
pub fn mib_to_bytes(mib: u64) -> Result<u64, UnitError> {
    mib.checked_mul(MIB)
        .ok_or_else(|| UnitError::new(format!("array size {mib} MiB is too large")))
}

/// Elements of one array of `mib` MiB (mbw: 131072 longs per MiB).
pub fn elements(mib: u64) -> Result<u64, UnitError> {
    Ok(mib_to_bytes(mib)? / ELEMENT_BYTES)
}

/// MiB in `bytes` bytes, as the value mbw prints in its `MiB:` column.
pub fn bytes_to_mib(bytes: u64) -> f64 {
    bytes as f64 / MIB as f64
}

/// Format like C's `printf("%.*f", prec, x)` with glibc: `inf`, `-inf`,
/// `nan`/`-nan` (the sign bit shows, as glibc prints it), `-0.000`.
pub fn format_c_fixed(x: f64, prec: usize) -> String {
    if x.is_nan() {
        if x.is_sign_negative() {
            "-nan".to_string()
        } else {
            "nan".to_string()
        }
    } else if x.is_infinite() {
        if x < 0.0 {
            "-inf".to_string()
        } else {
            "inf".to_string()
        }
    } else {
        // Rust's fixed-precision formatting rounds the exact binary value,
        // as glibc does, and keeps the sign of negative zero.
        format!("{x:.prec$}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn strtoul_reads_leading_digits_like_c() {
        assert_eq!(strtoul("8M").value, 8);
        assert_eq!(strtoul("8M").rest, "M");
        assert_eq!(strtoul("0x10").value, 0);
        assert!(strtoul("0x10").has_digits);
        assert!(!strtoul("abc").has_digits);
        assert_eq!(strtoul("  42").value, 42);
        assert_eq!(strtoul("-1").value, u64::MAX);
        assert!(strtoul("-1").negative);
        assert!(strtoul("99999999999999999999999").overflow);
        assert_eq!(strtoul("99999999999999999999999").value, u64::MAX);
        assert!(!strtoul("").has_digits);
        assert!(!strtoul("-").has_digits);
    }

    #[test]
    fn size_accepts_what_mbw_means() {
        assert_eq!(parse_size_mib("64"), Ok(64));
        assert_eq!(parse_size_mib("8M"), Ok(8));
        assert_eq!(parse_size_mib("8MiB"), Ok(8));
        assert_eq!(parse_size_mib("8mb"), Ok(8));
    }

    #[test]
    fn size_rejects_misreadings() {
        for bad in [
            "",
            "0",
            "abc",
            "0x10",
            "-1",
            "+5",
            "1G",
            "8K",
            "1.5",
            "99999999999999999999",
        ] {
            assert!(parse_size_mib(bad).is_err(), "{bad}");
        }
        // The byte count must fit.
        assert!(parse_size_mib(&(u64::MAX / MIB + 1).to_string()).is_err());
        assert!(parse_size_mib(&(u64::MAX / MIB).to_string()).is_ok());
    }

    #[test]
    fn accounting_is_mib_of_one_array() {
        assert_eq!(elements(64).unwrap(), 8_388_608);
        // mbw: "Allocating 2*8388608 elements = 134217728 bytes" for 64 MiB.
        assert_eq!(2 * mib_to_bytes(64).unwrap(), 134_217_728);
        assert_eq!(bytes_to_mib(67_108_864), 64.0);
    }

    #[test]
    fn formats_like_printf() {
        assert_eq!(format_c_fixed(0.000_57, 5), "0.00057");
        assert_eq!(format_c_fixed(13_913.043_478, 3), "13913.043");
        assert_eq!(format_c_fixed(f64::INFINITY, 3), "inf");
        assert_eq!(format_c_fixed(f64::NEG_INFINITY, 3), "-inf");
        assert_eq!(format_c_fixed(-0.0, 5), "-0.00000");
        assert_eq!(format_c_fixed(-f64::NAN, 5), "-nan");
        assert_eq!(format_c_fixed(f64::NAN.copysign(1.0), 5), "nan");
    }

    proptest! {
        #[test]
        fn size_round_trips(n in 1u64..=(u64::MAX / MIB)) {
            prop_assert_eq!(parse_size_mib(&n.to_string()), Ok(n));
            prop_assert_eq!(parse_size_mib(&format!("{n}M")), Ok(n));
            prop_assert_eq!(mib_to_bytes(n).unwrap() / MIB, n);
        }

        #[test]
        fn strtoul_matches_a_naive_reading(n in any::<u64>(), tail in "[a-zA-Z.]{0,4}") {
            let s = format!("{n}{tail}");
            let p = strtoul(&s);
            prop_assert_eq!(p.value, n);
            prop_assert_eq!(p.rest, tail.as_str());
        }

        #[test]
        fn never_panics(s in "\\PC{0,24}") {
            let _ = strtoul(&s);
            let _ = parse_size_mib(&s);
        }

        #[test]
        fn fixed_format_reads_back(x in -1.0e12f64..1.0e12) {
            let s = format_c_fixed(x, 5);
            let y: f64 = s.parse().unwrap();
            prop_assert!((x - y).abs() <= 0.5e-5 + x.abs() * 1e-15);
        }
    }
}
