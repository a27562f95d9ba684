//! Running statistics (Welford) for per-interval samples and thread fairness.

/// Count, min, max, mean and variance of a stream of values, updated in O(1)
/// per value with Welford's algorithm and mergeable across threads with Chan
/// et al.'s parallel formula.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunningStats {
    n: u64,
    mean: f64,
    /// Sum of squared deviations from the mean.
    m2: f64,
    min: f64,
    max: f64,
}

impl Default for RunningStats {
    fn default() -> Self {
        Self::new()
    }
}

impl RunningStats {
    /// No values yet.
    pub const fn new() -> Self {
        Self {
            n: 0,
            mean: 0.0,
            m2: 0.0,
            min: f64::INFINITY,
            max: f64::NEG_INFINITY,
        }
    }

    /// Add one value.
    #[inline]
    pub fn push(&mut self, x: f64) {
        self.n += 1;
        let delta = x - self.mean;
        self.mean += delta / self.n as f64;
        self.m2 += delta * (x - self.mean);
        self.min = self.min.min(x);
        self.max = self.max.max(x);
    }

    /// Add every value `other` has seen (Chan, Golub and LeVeque's pairwise
    /// update).
    pub fn merge(&mut self, other: &Self) {
        if other.n == 0 {
            return;
        }
        if self.n == 0 {
            *self = *other;
            return;
        }
        let n = self.n + other.n;
        let (na, nb, nf) = (self.n as f64, other.n as f64, n as f64);
        let delta = other.mean - self.mean;
        self.mean += delta * nb / nf;
        self.m2 += other.m2 + delta * delta * na * nb / nf;
        self.n = n;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }

    /// Number of values.
    pub fn count(&self) -> u64 {
        self.n
    }

    /// Smallest value; 0.0 when empty.
    pub fn min(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.min
        }
    }

    /// Largest value; 0.0 when empty.
    pub fn max(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.max
        }
    }

    /// Arithmetic mean; 0.0 when empty.
    pub fn mean(&self) -> f64 {
        self.mean
    }

    /// Sample variance `M2 / (n - 1)`; 0.0 for fewer than two values.
    pub fn variance_sample(&self) -> f64 {
        if self.n < 2 {
            0.0
        } else {
            (self.m2 / (self.n - 1) as f64).max(0.0)
        }
    }

    /// Population variance `M2 / n`; 0.0 when empty.
    pub fn variance_population(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            (self.m2 / self.n as f64).max(0.0)
        }
    }

    /// Sample standard deviation (fio's `bw_dev`, `iops_stddev`).
    pub fn stddev_sample(&self) -> f64 {
        self.variance_sample().sqrt()
    }

    /// Population standard deviation (sysbench's thread fairness stddev).
    pub fn stddev_population(&self) -> f64 {
        self.variance_population().sqrt()
    }
}

impl Extend<f64> for RunningStats {
    fn extend<I: IntoIterator<Item = f64>>(&mut self, iter: I) {
        for x in iter {
            self.push(x);
        }
    }
}

impl FromIterator<f64> for RunningStats {
    fn from_iter<I: IntoIterator<Item = f64>>(iter: I) -> Self {
        let mut s = Self::new();
        s.extend(iter);
        s
    }
}
