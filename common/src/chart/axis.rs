//! One axis of a chart: its range, its ticks ("nice" steps of 1, 2 or 5
//! times a power of ten, or decades on a log axis) and which ticks get a
//! label so that no two labels touch.

/// A step of 1, 2 or 5 times a power of ten giving about `n` intervals.
pub(super) fn nice_step(range: f64, n: f64) -> f64 {
    let raw = (range / n).max(f64::MIN_POSITIVE);
    let mag = 10f64.powf(raw.log10().floor());
    let f = raw / mag;
    let nice = if f <= 1.0 {
        1.0
    } else if f <= 2.0 {
        2.0
    } else if f <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * mag
}

/// A tick label with as many decimals as the step needs.
fn tick_label(v: f64, step: f64) -> String {
    let decimals = (-step.log10().floor()).clamp(0.0, 6.0) as usize;
    format!("{v:.decimals$}")
}

/// Linear ticks from 0 (or the minimum, when negative) to past `max`.
pub(super) fn linear_ticks(min: f64, max: f64) -> (f64, f64, Vec<f64>) {
    let lo = min.min(0.0);
    let hi = if max > lo { max } else { lo + 1.0 };
    let step = nice_step(hi - lo, 5.0);
    let lo = (lo / step).floor() * step;
    let hi = (hi / step).ceil() * step;
    let n = ((hi - lo) / step).round() as usize;
    let ticks = (0..=n).map(|i| lo + step * i as f64).collect();
    (lo, hi, ticks)
}

/// An axis: its range (powers of ten on a log axis) and labelled ticks.
pub(super) struct Axis {
    lo: f64,
    hi: f64,
    log: bool,
    pub ticks: Vec<(f64, String)>,
}

impl Axis {
    /// An axis over the values `v` (none: a unit range).
    pub fn new(v: impl Iterator<Item = f64>, log: bool) -> Axis {
        let (min, max) = v.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
            (a.min(x), b.max(x))
        });
        if log {
            let (a, b) = if min.is_finite() {
                let a = min.log10().floor();
                (a, max.log10().ceil().max(a + 1.0))
            } else {
                (0.0, 1.0)
            };
            let ticks = (a as i32..=b as i32)
                .map(|e| {
                    let v = 10f64.powi(e);
                    (v, tick_label(v, v))
                })
                .collect();
            return Axis {
                lo: a,
                hi: b,
                log,
                ticks,
            };
        }
        let (lo, hi, t) = if min.is_finite() {
            linear_ticks(min, max)
        } else {
            linear_ticks(0.0, 1.0)
        };
        let step = t.get(1).map_or(1.0, |s| s - t[0]);
        Axis {
            lo,
            hi,
            log,
            ticks: t.iter().map(|&v| (v, tick_label(v, step))).collect(),
        }
    }

    /// Where `v` sits on the axis, 0 to 1.
    pub fn frac(&self, v: f64) -> f64 {
        let v = if self.log { v.log10() } else { v };
        (v - self.lo) / (self.hi - self.lo)
    }

    /// The lowest value on the axis (where a bar starts).
    pub fn start(&self) -> f64 {
        if self.log {
            10f64.powf(self.lo)
        } else {
            self.lo.max(0.0)
        }
    }

    /// Whether tick `i` gets a label on an axis `length` px long, where a
    /// label takes `room(label)` px along it: every k-th tick, k the smallest
    /// that keeps labels apart.
    pub fn labelled(&self, length: f64, room: impl Fn(&str) -> f64) -> impl Fn(usize) -> bool {
        let n = self.ticks.len();
        let spacing = if n > 1 {
            length / (n - 1) as f64
        } else {
            length
        };
        let need = self.ticks.iter().map(|t| room(&t.1)).fold(0.0, f64::max) + 6.0;
        let k = ((need / spacing).ceil() as usize).max(1);
        move |i| i % k == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_are_one_two_or_five_times_a_power_of_ten() {
        assert_eq!(nice_step(100.0, 5.0), 20.0);
        assert_eq!(nice_step(7.0, 5.0), 2.0);
        assert_eq!(nice_step(0.3, 5.0), 0.1);
        let (lo, hi, t) = linear_ticks(0.0, 93.0);
        assert_eq!((lo, hi, t.len()), (0.0, 100.0, 6));
    }

    #[test]
    fn crowded_labels_are_thinned() {
        let a = Axis::new([1e-3, 1e6].into_iter(), true);
        assert_eq!(a.ticks.len(), 10);
        // 10 labels of up to 7 characters on 200 px: not all of them.
        let shown = a.labelled(200.0, |s| super::super::text_width(s, 12.0));
        let n = (0..10).filter(|&i| shown(i)).count();
        assert!((2..10).contains(&n), "{n}");
        let roomy = a.labelled(2000.0, |s| super::super::text_width(s, 12.0));
        assert!((0..10).all(roomy));
    }
}
