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
        let deduct = RANGE_MIN_MS.ln();
        // Same expression order as sb_histogram_init.
        let mult = (SYSBENCH_NR_BUCKETS - 1) as f64 / (RANGE_MAX_MS.ln() - deduct);
        Self {
            buckets: vec![0; SYSBENCH_NR_BUCKETS].into_boxed_slice(),
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
        i.clamp(0, SYSBENCH_NR_BUCKETS as i64 - 1) as usize
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
