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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Two-pass reference: (n, min, max, mean, M2).
    fn naive(xs: &[f64]) -> (u64, f64, f64, f64, f64) {
        let n = xs.len() as f64;
        let mean = xs.iter().sum::<f64>() / n;
        let m2 = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>();
        let min = xs.iter().copied().fold(f64::INFINITY, f64::min);
        let max = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        (xs.len() as u64, min, max, mean, m2)
    }

    fn close(a: f64, b: f64, scale: f64) -> bool {
        (a - b).abs() <= 1e-9 * scale.abs().max(1e-300) + 1e-12
    }

    #[test]
    fn empty_and_single() {
        let s = RunningStats::default();
        assert_eq!(s.count(), 0);
        assert_eq!((s.min(), s.max(), s.mean()), (0.0, 0.0, 0.0));
        assert_eq!((s.variance_sample(), s.variance_population()), (0.0, 0.0));
        let mut s = RunningStats::new();
        s.push(-3.5);
        assert_eq!((s.min(), s.max(), s.mean()), (-3.5, -3.5, -3.5));
        assert_eq!((s.stddev_sample(), s.stddev_population()), (0.0, 0.0));
    }

    #[test]
    fn textbook_values() {
        let s: RunningStats = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]
            .into_iter()
            .collect();
        assert_eq!(s.count(), 8);
        assert_eq!(s.mean(), 5.0);
        assert_eq!(s.stddev_population(), 2.0);
        assert!((s.variance_sample() - 32.0 / 7.0).abs() < 1e-12);
        assert_eq!((s.min(), s.max()), (2.0, 9.0));
    }

    #[test]
    fn merging_with_empty_is_identity() {
        let a: RunningStats = [1.0, 2.0, 3.0].into_iter().collect();
        let mut b = a;
        b.merge(&RunningStats::new());
        assert_eq!(a, b);
        let mut e = RunningStats::new();
        e.merge(&a);
        assert_eq!(a, e);
    }

    proptest! {
        #[test]
        fn matches_two_pass_reference(
            xs in prop::collection::vec(-1e9f64..1e9, 1..300),
            offset in prop_oneof![Just(0.0), -1e6f64..1e6],
        ) {
            let xs: Vec<f64> = xs.iter().map(|x| x + offset).collect();
            let s: RunningStats = xs.iter().copied().collect();
            let (n, min, max, mean, m2) = naive(&xs);
            prop_assert_eq!(s.count(), n);
            prop_assert_eq!((s.min(), s.max()), (min, max));
            let spread = max.abs().max(min.abs());
            prop_assert!(close(s.mean(), mean, spread), "{} vs {}", s.mean(), mean);
            let vp = m2 / n as f64;
            prop_assert!(close(s.variance_population(), vp, vp.max(spread)), "{} vs {}", s.variance_population(), vp);
            if n > 1 {
                let vs = m2 / (n - 1) as f64;
                prop_assert!(close(s.variance_sample(), vs, vs.max(spread)));
                prop_assert!(close(s.stddev_sample(), vs.sqrt(), vs.sqrt().max(1.0)));
            }
            prop_assert!(close(s.stddev_population(), vp.sqrt(), vp.sqrt().max(1.0)));
        }

        #[test]
        fn merge_equals_pushing_everything(
            a in prop::collection::vec(-1e6f64..1e6, 0..200),
            b in prop::collection::vec(0f64..1e3, 0..200),
        ) {
            let mut sa: RunningStats = a.iter().copied().collect();
            let sb: RunningStats = b.iter().copied().collect();
            sa.merge(&sb);
            let all: RunningStats = a.iter().chain(&b).copied().collect();
            prop_assert_eq!(sa.count(), all.count());
            prop_assert_eq!((sa.min(), sa.max()), (all.min(), all.max()));
            let scale = all.max().abs().max(all.min().abs());
            prop_assert!(close(sa.mean(), all.mean(), scale));
            let v = all.variance_population();
            prop_assert!(close(sa.variance_population(), v, v.max(scale)), "{} vs {}", sa.variance_population(), v);
        }
    }
}
