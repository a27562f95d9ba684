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

/// A mergeable latency histogram in fio's scheme with exact count, min, max
/// and sum beside it, and fio's running mean/variance for the stddev.
///
/// Recording is O(1) and never allocates (the bucket array is allocated once
/// in [`LatencyHistogram::new`]). Merge per-thread histograms with
/// [`LatencyHistogram::merge`].
#[derive(Clone, Debug)]
pub struct LatencyHistogram {
    buckets: Box<[u64]>,
    count: u64,
    min: u64,
    max: u64,
    sum: u128,
    /// Welford running mean and sum of squared deviations, updated the way
    /// fio's `add_stat_sample` does so [`LatencyHistogram::stddev`] is fio's.
    w_mean: f64,
    w_s: f64,
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
            buckets: vec![0; NR_BUCKETS].into_boxed_slice(),
            count: 0,
            min: u64::MAX,
            max: 0,
            sum: 0,
            w_mean: 0.0,
            w_s: 0.0,
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
        // fio's add_stat_sample: skip the update when the value equals the mean.
        let val = v as f64;
        let delta = val - self.w_mean;
        if delta != 0.0 {
            self.w_mean += delta / (self.count as f64 + 1.0);
            self.w_s += delta * (val - self.w_mean);
        }
        self.count += 1;
    }

    /// Add everything recorded in `other` (fio's `sum_stat` for the running
    /// mean/variance, which is exact in exact arithmetic).
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
        let (n1, n2) = (self.count as f64, other.count as f64);
        let delta = other.w_mean - self.w_mean;
        let mean = (other.w_mean * n2 + self.w_mean * n1) / (n1 + n2);
        let s = other.w_s + self.w_s + delta * delta * (n1 * n2) / (n1 + n2);
        self.w_mean = mean;
        self.w_s = s;
        self.count += other.count;
    }

    /// Forget everything recorded (keeps the bucket allocation).
    pub fn clear(&mut self) {
        self.buckets.fill(0);
        self.count = 0;
        self.min = u64::MAX;
        self.max = 0;
        self.sum = 0;
        self.w_mean = 0.0;
        self.w_s = 0.0;
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
        if self.count > 1 {
            (self.w_s / (self.count as f64 - 1.0)).sqrt()
        } else {
            0.0
        }
    }

    /// Percentiles by fio's method (`calc_clat_percentiles`, spec fio §4.1):
    /// walk the buckets in order accumulating counts; the p-th percentile is
    /// the value ([`bucket_value`]) of the first bucket at which the running
    /// count reaches `p / 100 · count` (compared in x87 extended precision,
    /// as fio does on x86_64). Results are bucket values, so they may differ
    /// from the exact sample by up to 1/128 and may exceed [`Self::max`].
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
        &self.buckets
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
