//! fio's log-linear latency histogram (spec fio §4.1).
//!
//! Values are nanoseconds. Values below 128 get one bucket each; above, every
//! power of two is split into 64 equal sub-buckets, so a bucket's
//! representative value is within 1/128 (< 0.8 %) of any value in it. There
//! are 29 groups of 64, i.e. 1856 buckets; everything at or above 2^34 ns
//! (~17 s) lands in the last bucket, exactly as in fio.

use super::extended::reaches_percentile;

/// Sub-bucket bits per power of two (fio's `FIO_IO_U_PLAT_BITS`).
const PLAT_BITS: u32 = 6;
/// Sub-buckets per power of two (fio's `FIO_IO_U_PLAT_VAL`).
const PLAT_VAL: usize = 1 << PLAT_BITS;
/// Groups (fio's `FIO_IO_U_PLAT_GROUP_NR`).
const PLAT_GROUP_NR: usize = 29;

/// Number of buckets (fio's `FIO_IO_U_PLAT_NR`, 1856).
pub const NR_BUCKETS: usize = PLAT_GROUP_NR * PLAT_VAL;

/// fio's default `percentile_list` (`1:5:10:20:30:40:50:60:70:80:90:95:99:99.5:99.9:99.95:99.99`).
pub const FIO_DEFAULT_PERCENTILES: [f64; 17] = [
    1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95,
    99.99,
];

/// The bucket a value (ns) falls into, exactly as fio's `plat_val_to_idx`.
#[inline]
pub fn bucket_index(v: u64) -> usize {
    // msb = index of the highest set bit, 0 for v = 0.
    let msb = 63u32.saturating_sub(v.leading_zeros());
    if msb <= PLAT_BITS {
        // Values below 128 are their own bucket.
        return v as usize;
    }
    let error_bits = msb - PLAT_BITS;
    let base = (error_bits as usize + 1) << PLAT_BITS;
    let offset = (PLAT_VAL - 1) & (v >> error_bits) as usize;
    (base + offset).min(NR_BUCKETS - 1)
}

/// The value (ns) fio reports for a bucket (`plat_idx_to_val`): the index
/// itself below 128, else the middle of the bucket's range, truncated.
///
/// # Panics
/// If `idx >= NR_BUCKETS`.
pub fn bucket_value(idx: usize) -> u64 {
    assert!(idx < NR_BUCKETS, "bucket index {idx} out of range");
    if idx < PLAT_VAL << 1 {
        return idx as u64;
    }
    let error_bits = (idx >> PLAT_BITS) as u32 - 1;
    let base = 1u64 << (error_bits + PLAT_BITS);
    let k = (idx % PLAT_VAL) as f64;
    // fio: base + ((k + 0.5) * (1 << error_bits)), computed in double and
    // truncated on conversion back to an integer.
    (base as f64 + (k + 0.5) * f64::from(1u32 << error_bits)) as u64
}

/// A mergeable latency histogram in fio's scheme with exact count, min, max,
/// sum and sum of squares beside it (so the stddev is exact, where fio keeps
/// a running mean/variance with a division per sample).
///
/// Recording is O(1) and never allocates (the bucket array is allocated once
/// in [`LatencyHistogram::new`]). Merge per-thread histograms with
/// [`LatencyHistogram::merge`].
#[derive(Clone, Debug)]
pub struct LatencyHistogram {
    buckets: Box<[u64; NR_BUCKETS]>,
    count: u64,
    min: u64,
    max: u64,
    sum: u128,
    /// Sum of squares, wrapping: exact whenever `max² · count²` fits in a
    /// u128 (hours-long latencies over 10^9 samples do); beyond that
    /// [`LatencyHistogram::stddev`] falls back to the buckets.
    sum_sq: u128,
}

impl Default for LatencyHistogram {
    fn default() -> Self {
        Self::new()
    }
}

impl LatencyHistogram {
    /// An empty histogram.
    pub fn new() -> Self {
        Self {
            buckets: Box::new([0; NR_BUCKETS]),
            count: 0,
            min: u64::MAX,
            max: 0,
            sum: 0,
            sum_sq: 0,
        }
    }

    /// Record one value (ns). Hot path: no allocation, no branch on the
    /// bucket layout beyond fio's index computation.
    #[inline]
    pub fn record(&mut self, v: u64) {
        let idx = bucket_index(v);
        self.buckets[idx] += 1;
        self.min = self.min.min(v);
        self.max = self.max.max(v);
        self.sum += u128::from(v);
        // No division per sample (fio's Welford update costs one): the
        // variance comes from the exact sums at the end.
        self.sum_sq = self.sum_sq.wrapping_add(u128::from(v) * u128::from(v));
        self.count += 1;
    }

    /// Record `n` occurrences of the same value (as `n` calls of
    /// [`Self::record`] would, up to floating-point rounding of the stddev).
    pub fn record_n(&mut self, v: u64, n: u64) {
        if n == 0 {
            return;
        }
        let idx = bucket_index(v);
        self.buckets[idx] += n;
        self.min = self.min.min(v);
        self.max = self.max.max(v);
        self.sum += u128::from(v) * u128::from(n);
        self.sum_sq = self
            .sum_sq
            .wrapping_add((u128::from(v) * u128::from(v)).wrapping_mul(u128::from(n)));
        self.count += n;
    }

    /// Add everything recorded in `other` (sums add exactly).
    pub fn merge(&mut self, other: &Self) {
        if other.count == 0 {
            return;
        }
        if self.count == 0 {
            self.clone_from(other);
            return;
        }
        for (d, s) in self.buckets.iter_mut().zip(other.buckets.iter()) {
            *d += *s;
        }
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
        self.sum += other.sum;
        self.sum_sq = self.sum_sq.wrapping_add(other.sum_sq);
        self.count += other.count;
    }

    /// Forget everything recorded (keeps the bucket allocation).
    pub fn clear(&mut self) {
        self.buckets.fill(0);
        self.count = 0;
        self.min = u64::MAX;
        self.max = 0;
        self.sum = 0;
        self.sum_sq = 0;
    }

    /// Number of values recorded (exact).
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Whether nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Smallest value recorded (exact); 0 when empty, as fio prints it.
    pub fn min(&self) -> u64 {
        if self.count == 0 {
            0
        } else {
            self.min
        }
    }

    /// Largest value recorded (exact); 0 when empty.
    pub fn max(&self) -> u64 {
        self.max
    }

    /// Sum of all values recorded (exact).
    pub fn sum(&self) -> u128 {
        self.sum
    }

    /// Mean of the values recorded, from the exact sum; 0.0 when empty.
    pub fn mean(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum as f64 / self.count as f64
        }
    }

    /// The standard deviation fio reports (`calc_lat` in fio's stat.c): the
    /// **sample** standard deviation `sqrt(S / (n - 1))`, 0.0 for n <= 1.
    pub fn stddev(&self) -> f64 {
        if self.count <= 1 {
            return 0.0;
        }
        let n = u128::from(self.count);
        let max = u128::from(self.max);
        let exact = max
            .checked_mul(max)
            .and_then(|m| m.checked_mul(n))
            .and_then(|m| m.checked_mul(n))
            .is_some();
        let s_times_n = if exact {
            // n·S = n·Σv² − (Σv)², exact in integers (both terms fit).
            (n * self.sum_sq - self.sum * self.sum) as f64
        } else {
            // Absurd values: S from the buckets around the exact mean.
            let mean = self.mean();
            let s: f64 = self
                .buckets
                .iter()
                .enumerate()
                .filter(|(_, &c)| c > 0)
                .map(|(i, &c)| {
                    let d = bucket_value(i) as f64 - mean;
                    c as f64 * d * d
                })
                .sum();
            s * self.count as f64
        };
        let n = self.count as f64;
        (s_times_n / (n * (n - 1.0))).sqrt()
    }

    /// Percentiles by fio's method (`calc_clat_percentiles`, spec fio §4.1):
    /// walk the buckets in order accumulating counts; the p-th percentile is
    /// the value ([`bucket_value`]) of the first bucket at which the running
    /// count reaches `p / 100 · count` (compared in x87 extended precision,
    /// as fio does on x86_64). Results are bucket values, so they may differ
    /// from the exact sample by up to 1/128 and may exceed [`Self::max`].
    ///
    /// Because of that extended-precision comparison the rank fio picks is
    /// sometimes one above the exact nearest rank `ceil(p/100 · n)`: with
    /// n = 100 samples fio's 30th percentile is the 31st smallest sample
    /// (`30.0L/100*100` is 30.0000000000000000017). We reproduce that. (With
    /// n = 1000 the 99.9th is the largest sample in any precision, since the
    /// double nearest 99.9 is slightly above it.)
    ///
    /// Results are in the order of `ps` (fio sorts its list first; the
    /// result per percentile is the same). Each p is clamped to [0, 100];
    /// NaN counts as 0. With no samples every result is 0.
    pub fn percentiles(&self, ps: &[f64]) -> Vec<u64> {
        let mut order: Vec<(usize, f64)> = ps
            .iter()
            .map(|&p| if p.is_nan() { 0.0 } else { p.clamp(0.0, 100.0) })
            .enumerate()
            .collect();
        order.sort_by(|a, b| a.1.total_cmp(&b.1));
        let mut out = vec![0u64; ps.len()];
        let mut j = 0;
        let mut running = 0u64;
        for (i, &c) in self.buckets.iter().enumerate() {
            running += c;
            while j < order.len() && reaches_percentile(running, order[j].1, self.count) {
                out[order[j].0] = bucket_value(i);
                j += 1;
            }
            if j == order.len() {
                break;
            }
        }
        out
    }

    /// The raw bucket counts, index `i` holding values that map to
    /// [`bucket_index`] `i` (rfio's json+ `bins` are the non-zero ones keyed
    /// by [`bucket_value`]).
    pub fn buckets(&self) -> &[u64] {
        &self.buckets[..]
    }

    /// Non-zero buckets as `(bucket value, count)`, ascending: fio's json+
    /// `bins`.
    pub fn bins(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.buckets
            .iter()
            .enumerate()
            .filter(|(_, &c)| c != 0)
            .map(|(i, &c)| (bucket_value(i), c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::histogram::extended::reaches_percentile;
    use proptest::prelude::*;

    #[test]
    fn small_values_have_their_own_bucket() {
        for v in 0..128u64 {
            assert_eq!(bucket_index(v), v as usize);
            assert_eq!(bucket_value(v as usize), v);
        }
    }

    #[test]
    fn known_buckets() {
        // First log group: 128..256 in steps of 2.
        assert_eq!(bucket_index(128), 128);
        assert_eq!(bucket_index(129), 128);
        assert_eq!(bucket_index(130), 129);
        assert_eq!(bucket_index(255), 191);
        assert_eq!(bucket_index(256), 192);
        assert_eq!(bucket_value(128), 129);
        assert_eq!(bucket_value(191), 255);
        assert_eq!(bucket_value(192), 258);
        // 1 ms = 1_000_000 ns: msb 19, error bits 13.
        assert_eq!(bucket_index(1_000_000), 14 * 64 + ((1_000_000 >> 13) & 63));
        // The last bucket holds everything from 2^34 ns up.
        assert_eq!(bucket_index((1 << 34) - 1), NR_BUCKETS - 1);
        assert_eq!(bucket_index(1 << 34), NR_BUCKETS - 1);
        assert_eq!(bucket_index(u64::MAX), NR_BUCKETS - 1);
        assert_eq!(
            bucket_value(NR_BUCKETS - 1),
            (1u64 << 33) + (63.5 * (1u64 << 27) as f64) as u64
        );
        assert_eq!(NR_BUCKETS, 1856);
    }

    #[test]
    fn every_bucket_value_maps_back_to_its_bucket() {
        let mut prev = None;
        for i in 0..NR_BUCKETS {
            let v = bucket_value(i);
            assert_eq!(bucket_index(v), i, "bucket {i} value {v}");
            if let Some(p) = prev {
                assert!(v > p);
            }
            prev = Some(v);
        }
    }

    #[test]
    #[should_panic(expected = "out of range")]
    fn bucket_value_rejects_bad_index() {
        bucket_value(NR_BUCKETS);
    }

    #[test]
    fn empty_histogram() {
        let h = LatencyHistogram::default();
        assert!(h.is_empty());
        assert_eq!((h.count(), h.min(), h.max(), h.sum()), (0, 0, 0, 0));
        assert_eq!((h.mean(), h.stddev()), (0.0, 0.0));
        assert_eq!(h.percentiles(&[50.0, 99.0]), vec![0, 0]);
        assert_eq!(h.bins().count(), 0);
        assert_eq!(h.buckets().len(), NR_BUCKETS);
    }

    #[test]
    fn stddev_is_the_sample_stddev() {
        let mut h = LatencyHistogram::new();
        for v in [2, 4, 4, 4, 5, 5, 7, 9] {
            h.record(v);
        }
        // Population stddev of this set is 2; the sample one sqrt(32/7).
        assert!((h.stddev() - (32.0f64 / 7.0).sqrt()).abs() < 1e-12);
        assert_eq!(h.mean(), 5.0);
        let mut one = LatencyHistogram::new();
        one.record(10);
        assert_eq!(one.stddev(), 0.0);
    }

    #[test]
    fn percentiles_follow_fio_rank_quirks() {
        let mut h = LatencyHistogram::new();
        for v in 1..=100 {
            h.record(v);
        }
        // fio's 30th of 1..=100 is 31 (x87 threshold just above 30).
        assert_eq!(
            h.percentiles(&[30.0, 50.0, 1.0, 100.0]),
            vec![31, 50, 1, 100]
        );
        h.clear();
        assert_eq!((h.count(), h.max(), h.sum()), (0, 0, 0));
        assert!(h.buckets().iter().all(|&c| c == 0));
        for v in 1..=1000u64 {
            h.record(v);
        }
        // 99.9 of 1000: the 1000th sample (value 1000 is in bucket 996..1003,
        // reported as its midpoint 1000).
        let p = h.percentiles(&[99.9]);
        assert_eq!(p, vec![bucket_value(bucket_index(1000))]);
    }

    #[test]
    fn record_n_equals_repeated_record() {
        let mut a = LatencyHistogram::new();
        let mut b = LatencyHistogram::new();
        for (v, n) in [(5u64, 3u64), (1_000_000, 7), (77, 1), (5, 2)] {
            a.record_n(v, n);
            for _ in 0..n {
                b.record(v);
            }
        }
        a.record_n(123, 0);
        assert_eq!(a.buckets(), b.buckets());
        assert_eq!(
            (a.count(), a.min(), a.max(), a.sum()),
            (b.count(), b.min(), b.max(), b.sum())
        );
        assert!((a.stddev() - b.stddev()).abs() <= 1e-9 * b.stddev());
    }

    /// fio 3.33's own json+ output (shared/reference/fio/runs/*.jsonplus.json):
    /// rebuilding the histogram from its `bins` must give back its
    /// `percentile` values exactly, and every bin key must be a bucket value.
    #[test]
    fn reproduces_fio_jsonplus_percentiles() {
        let v: serde_json::Value =
            serde_json::from_str(include_str!("testdata/fio_jsonplus_latency.json")).unwrap();
        let cases = v.as_array().unwrap();
        assert!(cases.len() >= 15);
        let mut default_lists = 0;
        for c in cases {
            let src = c["source"].as_str().unwrap();
            let mut h = LatencyHistogram::new();
            let mut want_bins = Vec::new();
            for b in c["bins"].as_array().unwrap() {
                let (k, n) = (b[0].as_u64().unwrap(), b[1].as_u64().unwrap());
                assert_eq!(bucket_value(bucket_index(k)), k, "{src}: bin {k}");
                h.record_n(k, n);
                want_bins.push((k, n));
            }
            assert_eq!(h.count(), c["N"].as_u64().unwrap(), "{src}");
            assert_eq!(h.bins().collect::<Vec<_>>(), want_bins, "{src}");
            // fio's exact min/max lie in the first/last non-empty buckets.
            let (min, max) = (c["min"].as_u64().unwrap(), c["max"].as_u64().unwrap());
            assert_eq!(bucket_value(bucket_index(min)), want_bins[0].0, "{src}");
            assert_eq!(
                bucket_value(bucket_index(max)),
                want_bins.last().unwrap().0,
                "{src}"
            );
            let pct = c["percentile"].as_array().unwrap();
            let ps: Vec<f64> = pct
                .iter()
                .map(|p| p[0].as_str().unwrap().parse().unwrap())
                .collect();
            let want: Vec<u64> = pct.iter().map(|p| p[1].as_u64().unwrap()).collect();
            assert_eq!(h.percentiles(&ps), want, "{src}");
            default_lists += usize::from(ps == FIO_DEFAULT_PERCENTILES);
        }
        assert!(default_lists >= 10, "{default_lists}");
    }

    /// Exact nearest rank (1-based) of p for n samples, from the exact value
    /// of the double p: ceil(p · n / 100), at least 1.
    fn exact_rank(p: f64, n: u64) -> u64 {
        if p == 0.0 {
            return 1;
        }
        // p = m · 2^e with e <= 0 for the p we generate (p >= 2^-40).
        let bits = p.to_bits();
        let m = u128::from((bits & ((1 << 52) - 1)) | (1 << 52));
        let e = ((bits >> 52) & 0x7ff) as i32 - 1075;
        assert!(e <= 0 && e > -100);
        let num = m * u128::from(n);
        let den = 100u128 << (-e);
        num.div_ceil(den).max(1) as u64
    }

    fn within_bucket_error(got: u64, exact: u64) -> bool {
        if exact < 128 {
            return got == exact;
        }
        // The bucket value is within 1/128 of anything in the bucket.
        (got as f64 - exact as f64).abs() <= exact as f64 / 128.0
    }

    fn user_percentile() -> impl Strategy<Value = f64> {
        prop_oneof![
            (1u32..=100).prop_map(f64::from),
            (1u32..=1000).prop_map(|x| format!("{}.{}", x / 10, x % 10).parse().unwrap()),
            (1u32..=10000).prop_map(|x| format!("{}.{:02}", x / 100, x % 100).parse().unwrap()),
            0.001f64..=100.0,
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn percentiles_are_within_bucket_error_of_the_exact_ones(
            samples in prop::collection::vec(
                prop_oneof![0u64..200, 0u64..100_000, 0u64..(1 << 34)], 1..400),
            ps in prop::collection::vec(user_percentile(), 1..20),
        ) {
            let mut h = LatencyHistogram::new();
            for &v in &samples {
                h.record(v);
            }
            let mut sorted = samples.clone();
            sorted.sort_unstable();
            let n = sorted.len() as u64;
            let got = h.percentiles(&ps);
            for (&p, &g) in ps.iter().zip(&got) {
                // fio's rank: the exact nearest rank, or one above it where
                // the x87 threshold lands just past an integer.
                let rank = (1..=n).find(|&r| reaches_percentile(r, p, n)).unwrap();
                let exact = exact_rank(p, n);
                prop_assert!(rank == exact || rank == exact + 1, "p={p} n={n} rank={rank} exact={exact}");
                let truth = sorted[rank as usize - 1];
                prop_assert!(within_bucket_error(g, truth), "p={p} got={g} truth={truth}");
                prop_assert!(g.abs_diff(truth) as f64 <= truth as f64 * 0.016 || truth < 128);
            }
        }

        #[test]
        fn merge_equals_recording_everything(
            a in prop::collection::vec(any::<u64>(), 0..200),
            b in prop::collection::vec(0u64..10_000_000, 0..200),
        ) {
            let (mut ha, mut hb, mut all) =
                (LatencyHistogram::new(), LatencyHistogram::new(), LatencyHistogram::new());
            for &v in &a { ha.record(v); all.record(v); }
            for &v in &b { hb.record(v); all.record(v); }
            ha.merge(&hb);
            prop_assert_eq!(ha.buckets(), all.buckets());
            prop_assert_eq!(
                (ha.count(), ha.min(), ha.max(), ha.sum()),
                (all.count(), all.min(), all.max(), all.sum())
            );
            prop_assert_eq!(ha.mean(), all.mean());
            let (s1, s2) = (ha.stddev(), all.stddev());
            prop_assert!((s1 - s2).abs() <= 1e-6 * s2.max(1.0), "{} vs {}", s1, s2);
            let ps = [1.0, 50.0, 99.9, 100.0];
            prop_assert_eq!(ha.percentiles(&ps), all.percentiles(&ps));
        }

        #[test]
        fn min_max_sum_mean_stddev_are_exact(
            samples in prop::collection::vec(0u64..(1 << 40), 1..500),
        ) {
            let mut h = LatencyHistogram::new();
            for &v in &samples { h.record(v); }
            let n = samples.len() as f64;
            let sum: u128 = samples.iter().map(|&v| u128::from(v)).sum();
            prop_assert_eq!(h.min(), *samples.iter().min().unwrap());
            prop_assert_eq!(h.max(), *samples.iter().max().unwrap());
            prop_assert_eq!(h.sum(), sum);
            prop_assert_eq!(h.mean(), sum as f64 / n);
            let mean = sum as f64 / n;
            let ss: f64 = samples.iter().map(|&v| (v as f64 - mean).powi(2)).sum();
            let want = if samples.len() > 1 { (ss / (n - 1.0)).sqrt() } else { 0.0 };
            prop_assert!((h.stddev() - want).abs() <= 1e-9 * want.max(1.0), "{} vs {}", h.stddev(), want);
        }
    }
}
