//! sysbench 1.0.20's latency histogram (spec sysbench §4).
//!
//! 1024 logarithmic buckets over 0.001 ms .. 100000 ms. A value v (ms) goes
//! to `floor((ln v - ln 0.001) · mult + 0.5)` clamped to 0..=1023, with
//! `mult = 1023 / (ln 100000 - ln 0.001)`; neighbouring bucket values differ
//! by a factor of about 1.018.

/// Number of buckets (sysbench's histogram size).
pub const SYSBENCH_NR_BUCKETS: usize = 1024;

const RANGE_MIN_MS: f64 = 0.001;
const RANGE_MAX_MS: f64 = 100_000.0;

/// A mergeable histogram in sysbench's scheme, values in milliseconds.
#[derive(Clone, Debug)]
pub struct SysbenchHistogram {
    buckets: Box<[u64]>,
    count: u64,
    /// `ln(range_min)`, sysbench's `range_deduct`.
    deduct: f64,
    /// sysbench's `range_mult`.
    mult: f64,
}

impl Default for SysbenchHistogram {
    fn default() -> Self {
        Self::new()
    }
}

impl SysbenchHistogram {
    /// Number of buckets.
    pub const NR_BUCKETS: usize = SYSBENCH_NR_BUCKETS;

    /// An empty histogram.
    pub fn new() -> Self {
        Self::with_range(SYSBENCH_NR_BUCKETS, RANGE_MIN_MS, RANGE_MAX_MS)
    }

    /// An empty histogram of `size` buckets over `range_min..range_max`
    /// (sysbench.histogram.new in scripts). `size` >= 1, `range_min` > 0.
    pub fn with_range(size: usize, range_min: f64, range_max: f64) -> Self {
        let size = size.max(1);
        let deduct = range_min.ln();
        // Same expression order as sb_histogram_init.
        let mult = (size - 1) as f64 / (range_max.ln() - deduct);
        Self {
            buckets: vec![0; size].into_boxed_slice(),
            count: 0,
            deduct,
            mult,
        }
    }

    /// The bucket a value (ms) falls into. Values at or below 0 (and NaN)
    /// land in bucket 0, as sysbench's signed index clamp does.
    #[inline]
    pub fn bucket_index(&self, v_ms: f64) -> usize {
        // `as i64` saturates (-inf -> i64::MIN) and maps NaN to 0, matching
        // the x86_64 conversion followed by sysbench's clamp.
        let i = ((v_ms.ln() - self.deduct) * self.mult + 0.5).floor() as i64;
        i.clamp(0, self.buckets.len() as i64 - 1) as usize
    }

    /// Record one latency in milliseconds. O(1), no allocation.
    #[inline]
    pub fn record_ms(&mut self, v_ms: f64) {
        let i = self.bucket_index(v_ms);
        self.buckets[i] += 1;
        self.count += 1;
    }

    /// Add everything recorded in `other`.
    pub fn merge(&mut self, other: &Self) {
        for (d, s) in self.buckets.iter_mut().zip(other.buckets.iter()) {
            *d += *s;
        }
        self.count += other.count;
    }

    /// Forget everything recorded (a checkpoint or intermediate report reset).
    pub fn clear(&mut self) {
        self.buckets.fill(0);
        self.count = 0;
    }

    /// Number of values recorded.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The raw bucket counts.
    pub fn buckets(&self) -> &[u64] {
        &self.buckets
    }

    /// The value (ms) sysbench prints for bucket `idx`:
    /// `exp(idx / mult + ln 0.001)`. `idx` may be 1024 (see
    /// [`Self::percentile`]).
    pub fn bucket_value_ms(&self, idx: usize) -> f64 {
        (idx as f64 / self.mult + self.deduct).exp()
    }

    /// sysbench's percentile: `target = floor(N · p / 100 + 0.5)`; the value
    /// of the first bucket whose running count reaches the target. With no
    /// samples (target 0) that is bucket 0, i.e. 0.001 ms. `p` is clamped to
    /// [0, 100].
    pub fn percentile(&self, p: f64) -> f64 {
        let p = if p.is_nan() { 0.0 } else { p.clamp(0.0, 100.0) };
        let target = (self.count as f64 * p / 100.0 + 0.5).floor() as u64;
        let mut running = 0u64;
        let mut n = 0;
        while n < self.buckets.len() {
            running += self.buckets[n];
            if running >= target {
                break;
            }
            n += 1;
        }
        self.bucket_value_ms(n)
    }

    /// sysbench's `--histogram` block: the header line, then one line per
    /// non-empty bucket (`%12.3f |%-40.*s %lu`, stars scaled to the largest
    /// count). Empty string when nothing was recorded (sysbench prints
    /// nothing then).
    pub fn render(&self) -> String {
        let maxcnt = self.buckets.iter().copied().max().unwrap_or(0);
        if maxcnt == 0 {
            return String::new();
        }
        let mut s = String::from("       value  ------------- distribution ------------- count\n");
        for (i, &c) in self.buckets.iter().enumerate() {
            if c == 0 {
                continue;
            }
            let width = (c as f64 * 40.0 / maxcnt as f64 + 0.5).floor() as usize;
            s.push_str(&format!(
                "{:12.3} |{:<40} {}\n",
                self.bucket_value_ms(i),
                "*".repeat(width),
                c
            ));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The `--histogram` block of a real `sysbench cpu --histogram run`
    /// (shared/reference/sysbench/cpu_report_histogram.out), whose report
    /// gave `95th percentile: 0.35`.
    const REFERENCE: &str = include_str!("testdata/sysbench_cpu_histogram.txt");

    fn from_reference() -> SysbenchHistogram {
        let mut h = SysbenchHistogram::new();
        for line in REFERENCE.lines().skip(1) {
            let (value, rest) = line.split_once('|').unwrap();
            let value: f64 = value.trim().parse().unwrap();
            let count: u64 = rest.split_whitespace().last().unwrap().parse().unwrap();
            for _ in 0..count {
                h.record_ms(value);
            }
        }
        h
    }

    #[test]
    fn renders_sysbench_histogram_byte_for_byte() {
        let h = from_reference();
        assert_eq!(h.count(), 17574);
        assert_eq!(h.render(), REFERENCE);
        assert_eq!(format!("{:.2}", h.percentile(95.0)), "0.35");
    }

    #[test]
    fn range_and_clamping() {
        let h = SysbenchHistogram::new();
        assert!((h.bucket_value_ms(0) - 0.001).abs() < 1e-15);
        assert!((h.bucket_value_ms(1023) - 100_000.0).abs() < 1e-6);
        assert!((h.bucket_value_ms(1) / h.bucket_value_ms(0) - 1.01817).abs() < 1e-5);
        // Sub-microsecond events (sysbench memory) and nonsense land in 0.
        for v in [0.0, -1.0, 1e-9, 0.0004, f64::NAN, f64::NEG_INFINITY] {
            assert_eq!(h.bucket_index(v), 0, "{v}");
        }
        for v in [1e6, 1e300, f64::INFINITY] {
            assert_eq!(h.bucket_index(v), 1023, "{v}");
        }
        assert_eq!(h.bucket_index(0.001), 0);
        assert_eq!(h.bucket_index(100_000.0), 1023);
    }

    #[test]
    fn empty_percentile_is_the_first_bucket() {
        let mut h = SysbenchHistogram::default();
        assert!((h.percentile(95.0) - 0.001).abs() < 1e-15);
        assert_eq!(format!("{:.2}", h.percentile(95.0)), "0.00");
        assert_eq!(h.render(), "");
        h.record_ms(0.0001);
        assert_eq!(format!("{:.2}", h.percentile(95.0)), "0.00");
        h.record_ms(5e6);
        assert_eq!(format!("{:.2}", h.percentile(100.0)), "100000.00");
        h.clear();
        assert_eq!(h.count(), 0);
        assert!(h.buckets().iter().all(|&c| c == 0));
    }

    /// Naive bucket: the bucket whose value is nearest in log space.
    fn naive_index(v: f64) -> usize {
        let h = SysbenchHistogram::new();
        (0..SYSBENCH_NR_BUCKETS)
            .min_by(|&a, &b| {
                let da = (v.ln() - h.bucket_value_ms(a).ln()).abs();
                let db = (v.ln() - h.bucket_value_ms(b).ln()).abs();
                da.total_cmp(&db)
            })
            .unwrap()
    }

    proptest! {
        #[test]
        fn index_is_the_nearest_bucket_in_log_space(e in -3.0f64..5.0) {
            let v = 10f64.powf(e);
            let h = SysbenchHistogram::new();
            let (got, want) = (h.bucket_index(v), naive_index(v));
            if got != want {
                // Only a value on a boundary between two buckets may differ.
                let mid = (h.bucket_value_ms(got).ln() + h.bucket_value_ms(want).ln()) / 2.0;
                prop_assert!(got.abs_diff(want) == 1 && (v.ln() - mid).abs() < 1e-9);
            }
        }

        #[test]
        fn percentile_matches_sorting(
            samples in prop::collection::vec(
                prop_oneof![0.0001f64..0.01, 0.1f64..2.0, 0.001f64..200_000.0], 0..300),
            p in prop_oneof![Just(95.0), Just(100.0), Just(50.0), 0.0f64..=100.0],
        ) {
            let mut h = SysbenchHistogram::new();
            for &v in &samples { h.record_ms(v); }
            let mut idx: Vec<usize> = samples.iter().map(|&v| h.bucket_index(v)).collect();
            idx.sort_unstable();
            let target = (samples.len() as f64 * p / 100.0 + 0.5).floor() as usize;
            let want = if target == 0 { 0 } else { idx[target - 1] };
            prop_assert_eq!(h.percentile(p), h.bucket_value_ms(want));
        }

        #[test]
        fn merge_equals_recording_everything(
            a in prop::collection::vec(0.0001f64..1e6, 0..100),
            b in prop::collection::vec(0.0001f64..1e6, 0..100),
        ) {
            let (mut ha, mut hb, mut all) =
                (SysbenchHistogram::new(), SysbenchHistogram::new(), SysbenchHistogram::new());
            for &v in &a { ha.record_ms(v); all.record_ms(v); }
            for &v in &b { hb.record_ms(v); all.record_ms(v); }
            ha.merge(&hb);
            prop_assert_eq!(ha.buckets(), all.buckets());
            prop_assert_eq!(ha.count(), all.count());
            prop_assert_eq!(ha.render(), all.render());
        }
    }
}
