//! The one piece of x87 80-bit `long double` arithmetic fio's percentile walk
//! depends on (spec fio §4.1).
//!
//! fio 3.33 compares the running bucket count against
//! `(long double) p / 100.0 * nr`. On x86_64 `long double` is the x87
//! extended format (64-bit significand, round to nearest even), and doing the
//! same comparison in `f64` gives a different answer for common inputs
//! (about 3 % of random (p, nr) pairs): for p = 30 and nr = 100 the extended
//! product is 30.0000000000000000017, so 30 samples do *not* reach the 30th
//! percentile, while in `f64` the product rounds to exactly 30.0. We
//! therefore reproduce the two extended roundings exactly with integer
//! arithmetic (checked against gcc's `long double` in the tests).

/// Round `n · 2^exp` to a 64-bit significand (round to nearest, ties to
/// even). `sticky` says the true value lies strictly above `n · 2^exp` (by
/// less than one unit of `n`). Returns the rounded significand and exponent.
fn round64(n: u128, sticky: bool, exp: i32) -> (u128, i32) {
    let bits = 128 - n.leading_zeros() as i32;
    if bits <= 64 {
        // Callers only pass a sticky remainder together with > 64 bits.
        debug_assert!(!sticky);
        return (n, exp);
    }
    let drop = (bits - 64) as u32;
    let mut kept = n >> drop;
    let rem = n & ((1u128 << drop) - 1);
    let half = 1u128 << (drop - 1);
    let round_up = rem > half || (rem == half && (sticky || kept & 1 == 1));
    let mut e = exp + drop as i32;
    if round_up {
        kept += 1;
        if kept == 1u128 << 64 {
            kept >>= 1;
            e += 1;
        }
    }
    (kept, e)
}

/// Whether `sum >= (long double) p / 100.0 * nr` holds in x87 extended
/// precision, for `p` in `[0, 100]` (callers clamp).
pub(crate) fn reaches_percentile(sum: u64, p: f64, nr: u64) -> bool {
    if p <= 0.0 || p.is_nan() || nr == 0 {
        // The threshold is 0 (or NaN compared false in C; callers never pass it).
        return !p.is_nan();
    }
    // p = m · 2^e exactly.
    let bits = p.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1u64 << 52) - 1);
    let (m, e) = if biased == 0 {
        (frac, -1074)
    } else {
        (frac | (1u64 << 52), biased - 1075)
    };
    // p / 100: shift left so the quotient has well over 64 bits, keep the
    // remainder as the sticky bit.
    const SHIFT: u32 = 71;
    let num = (m as u128) << SHIFT;
    let q = num / 100;
    let r = num % 100;
    let (q, qe) = round64(q, r != 0, e - SHIFT as i32);
    // (p / 100) · nr: both factors fit in 64 bits (q may be exactly 2^64 only
    // in theory; 2^64 · (2^64 - 1) still fits in u128).
    let prod = q * nr as u128;
    let (t, te) = round64(prod, false, qe);
    // Compare the integer `sum` with t · 2^te.
    if te >= 0 {
        let tbits = 128 - t.leading_zeros() as i32;
        if tbits + te > 64 {
            return false;
        }
        (sum as u128) >= (t << te)
    } else {
        let sh = (-te) as u32;
        if sh >= 128 {
            // 0 < threshold < 1.
            return sum >= 1;
        }
        let ceil = (t >> sh) + u128::from(t & ((1u128 << sh) - 1) != 0);
        (sum as u128) >= ceil
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extended_precision_differs_from_f64_where_fio_does() {
        // The f64 product is exactly 30.0; the x87 one is just above it.
        assert_eq!(30f64 / 100.0 * 100.0, 30.0);
        assert!(!reaches_percentile(30, 30.0, 100));
        assert!(reaches_percentile(31, 30.0, 100));
        // The double nearest 99.9 is above 99.9 in any precision.
        assert!(!reaches_percentile(999, 99.9, 1000));
        assert!(reaches_percentile(1000, 99.9, 1000));
    }

    #[test]
    fn exact_thresholds() {
        assert!(reaches_percentile(50, 50.0, 100));
        assert!(!reaches_percentile(49, 50.0, 100));
        assert!(reaches_percentile(100, 100.0, 100));
        assert!(!reaches_percentile(99, 100.0, 100));
        assert!(reaches_percentile(0, 0.0, 100));
        assert!(reaches_percentile(0, 50.0, 0));
        // 1% of 1: threshold 0.01 needs one sample.
        assert!(!reaches_percentile(0, 1.0, 1));
        assert!(reaches_percentile(1, 1.0, 1));
        assert!(reaches_percentile(u64::MAX, 100.0, u64::MAX));
        assert!(!reaches_percentile(u64::MAX - 1, 100.0, u64::MAX));
    }
}

#[cfg(test)]
mod x87_cases {
    use super::reaches_percentile;

    fn check(table: &str) -> usize {
        let mut n = 0;
        for line in table
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
        {
            let f: Vec<&str> = line.split_whitespace().collect();
            let p = f64::from_bits(u64::from_str_radix(f[0], 16).unwrap());
            let nr: u64 = f[1].parse().unwrap();
            let min_sum: u64 = f[2].parse().unwrap();
            assert!(reaches_percentile(min_sum, p, nr), "{line}");
            if min_sum > 0 {
                assert!(!reaches_percentile(min_sum - 1, p, nr), "{line}");
            }
            n += 1;
        }
        n
    }

    /// Thresholds computed by C `long double` on x86_64 (gcc), mostly cases
    /// where plain `f64` gives a different answer.
    #[test]
    fn matches_c_long_double() {
        assert!(check(include_str!("testdata/x87_thresholds.txt")) >= 500);
    }
}
