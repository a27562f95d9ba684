//! `steadystate` (alias `ss`), `ss_dur`, `ss_ramp` (§3): end a job once its
//! IOPS or bandwidth has settled. Once a second the job's rate over the last
//! second goes into a window of `ss_dur` seconds; when the window's maximum
//! deviation from its mean (`iops`, `bw`) or its least-squares slope
//! (`iops_slope`, `bw_slope`) falls below the limit, the job ends as if its
//! runtime were over. Cold path: one call per second.

use rbench_common::units::fio::parse_size;
use serde::Serialize;

/// What is judged and against which limit (`iops_slope:0.01%`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Criterion {
    pub iops: bool,
    pub slope: bool,
    /// The limit is a percentage of the window's mean.
    pub pct: bool,
    pub limit: f64,
}

impl Criterion {
    /// Parse `word` and its `:postfix` with fio's messages (§3).
    pub fn parse(word: &str, postfix: Option<&str>, kb_base: u64) -> Result<Criterion, String> {
        let (iops, slope) = match word {
            "iops" => (true, false),
            "iops_slope" => (true, true),
            "bw" => (false, false),
            _ => (false, true),
        };
        let Some(nr) = postfix else {
            return Err(
                "fio: steadystate threshold must be specified in addition to criterion".into(),
            );
        };
        let mut c = Criterion {
            iops,
            slope,
            pct: false,
            limit: 0.0,
        };
        if let Some(i) = nr.find('%') {
            c.pct = true;
            c.limit = nr[..i]
                .trim_end()
                .parse()
                .map_err(|_| "fio: could not parse steadystate threshold percentage")?;
        } else if iops {
            c.limit = nr
                .trim()
                .parse()
                .map_err(|_| "fio: steadystate IOPS threshold postfix parsing failed")?;
        } else {
            // fio's str_to_decimal: a size, or failing that its leading
            // integer (`0.5` is 0, `1x` is 1).
            let lead: String = nr.trim().chars().take_while(char::is_ascii_digit).collect();
            c.limit = match parse_size(nr, kb_base) {
                Ok(v) => v as f64,
                Err(_) => lead
                    .parse::<u64>()
                    .map_err(|_| "fio: steadystate BW threshold postfix parsing failed")?
                    as f64,
            };
        }
        Ok(c)
    }
}

/// A job's steady-state settings; only when `ss_dur` is at least a second
/// (fio keeps whole seconds; below one the feature is off).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SteadyState {
    pub criterion: Criterion,
    pub dur_s: u64,
    pub ramp_us: u64,
}

impl SteadyState {
    pub fn new(criterion: Criterion, dur_us: u64, ramp_us: u64) -> Option<SteadyState> {
        let dur_s = dur_us / 1_000_000;
        (dur_s > 0).then_some(SteadyState {
            criterion,
            dur_s,
            ramp_us,
        })
    }
}

/// The `steadystate` block of a job's report (JSON and normal output).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SsReport {
    pub criterion: Criterion,
    pub duration: u64,
    pub attained: bool,
    /// The last value of the criterion (slope or deviation, maybe in %).
    pub value: f64,
    pub max_deviation: f64,
    pub slope: f64,
    pub bw_mean: u64,
    pub iops_mean: u64,
    /// The window, oldest first.
    pub iops: Vec<u64>,
    pub bw: Vec<u64>,
}

impl Serialize for Criterion {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.text())
    }
}

impl Criterion {
    /// fio's `ss` text: `iops_slope:0.010000%`.
    pub fn text(&self) -> String {
        format!(
            "{}{}:{:.6}{}",
            if self.iops { "iops" } else { "bw" },
            if self.slope { "_slope" } else { "" },
            self.limit as f32,
            if self.pct { "%" } else { "" }
        )
    }
}

/// C's `%.Nf`: NaN and infinities as glibc prints them (`-nan`, `inf`),
/// which a criterion over an idle window (0/0) becomes.
pub fn c_float(v: f64, prec: usize) -> String {
    let sign = if v.is_sign_negative() { "-" } else { "" };
    if v.is_nan() {
        format!("{sign}nan")
    } else if v.is_infinite() {
        format!("{sign}inf")
    } else {
        format!("{v:.prec$}")
    }
}

/// The once-a-second judge of one job.
#[derive(Debug)]
pub struct Monitor {
    ss: SteadyState,
    /// When the next sample is due, ns since the job started.
    pub next_ns: u64,
    ramp_over: bool,
    prev_ns: u64,
    prev_ios: u64,
    prev_bytes: u64,
    iops: Vec<u64>,
    bw: Vec<u64>,
    head: usize,
    tail: usize,
    full: bool,
    sum_y: u64,
    sum_xy: u64,
    oldest_y: u64,
    sum_x: u64,
    sum_x_sq: u64,
    slope: f64,
    deviation: f64,
    value: f64,
    attained: bool,
}

impl Monitor {
    /// `phase_ns`: how long after the run's start this job started. fio
    /// samples on its helper thread's one-second ticks, counted from the
    /// run's start, so the first sample covers less than a second.
    pub fn new(ss: SteadyState, phase_ns: u64) -> Monitor {
        let n = ss.dur_s;
        Monitor {
            ss,
            next_ns: 1_000_000_000 - phase_ns % 1_000_000_000,
            ramp_over: ss.ramp_us == 0,
            prev_ns: 0,
            prev_ios: 0,
            prev_bytes: 0,
            iops: vec![0; n as usize],
            bw: vec![0; n as usize],
            head: 0,
            tail: 0,
            full: false,
            sum_y: 0,
            sum_xy: 0,
            oldest_y: 0,
            sum_x: n * (n - 1) / 2,
            sum_x_sq: (n - 1) * n * (2 * n - 1) / 6,
            slope: 0.0,
            deviation: 0.0,
            value: 0.0,
            attained: false,
        }
    }

    /// One sample from the job's totals so far; true once steady.
    #[cold]
    pub fn tick(&mut self, now_ns: u64, ios: u64, bytes: u64) -> bool {
        let mut at = self.next_ns;
        self.next_ns += 1_000_000_000;
        // Ticks passed while the job slept (a long thinktime): fio's helper
        // thread samples them; the job's I/O came before the sleep, so the
        // first missed tick gets it all and the later ones none.
        while self.next_ns <= now_ns {
            if self.sample(at, ios, bytes) {
                return true;
            }
            at = self.next_ns;
            self.next_ns += 1_000_000_000;
        }
        self.sample(now_ns, ios, bytes)
    }

    fn sample(&mut self, now_ns: u64, ios: u64, bytes: u64) -> bool {
        if !self.ramp_over && now_ns >= (self.ss.ramp_us + 1_000_000) * 1000 {
            // Recording begins a second after ss_ramp, as in fio.
            self.ramp_over = true;
        }
        // Totals restart at the end of ramp_time: count from there.
        let (pi, pb) = if ios < self.prev_ios || bytes < self.prev_bytes {
            (0, 0)
        } else {
            (self.prev_ios, self.prev_bytes)
        };
        let ms = ((now_ns - self.prev_ns) / 1_000_000).max(1);
        self.prev_ns = now_ns;
        self.prev_ios = ios;
        self.prev_bytes = bytes;
        if !self.ramp_over || self.attained {
            return false;
        }
        let iops = 1000 * (ios - pi) / ms;
        let bw = 1000 * (bytes - pb) / ms;
        self.attained = if self.ss.criterion.slope {
            self.slope_check(iops, bw)
        } else {
            self.deviation_check(iops, bw)
        };
        self.attained
    }

    fn pick(&self, i: usize) -> u64 {
        if self.ss.criterion.iops {
            self.iops[i]
        } else {
            self.bw[i]
        }
    }

    fn advance(&mut self) {
        let n = self.iops.len();
        self.tail = (self.tail + 1) % n;
        if self.tail <= self.head {
            self.head = (self.head + 1) % n;
        }
    }

    /// fio's window bookkeeping: fill until `dur` samples, then roll.
    fn store(&mut self, iops: u64, bw: u64) -> bool {
        self.iops[self.tail] = iops;
        self.bw[self.tail] = bw;
        self.full || self.tail + 1 == self.head + self.iops.len()
    }

    fn slope_check(&mut self, iops: u64, bw: u64) -> bool {
        let n = self.iops.len();
        let new_val = if self.ss.criterion.iops { iops } else { bw };
        if !self.store(iops, bw) {
            self.advance();
            return false;
        }
        if !self.full {
            self.sum_y = (0..n).map(|i| self.pick(i)).sum();
            self.sum_xy = (0..n)
                .map(|i| i as u64 * self.pick((self.head + i) % n))
                .sum();
            self.full = true;
        } else {
            self.sum_y = self.sum_y - self.oldest_y + new_val;
            self.sum_xy = (self.sum_xy + n as u64 * new_val).wrapping_sub(self.sum_y);
        }
        self.oldest_y = self.pick(self.head);
        let (sx, n_f) = (self.sum_x as f64, n as f64);
        self.slope = (self.sum_xy as f64 - sx * self.sum_y as f64 / n_f)
            / (self.sum_x_sq as f64 - sx * sx / n_f);
        self.value = if self.ss.criterion.pct {
            100.0 * self.slope / (self.sum_y / n as u64) as f64
        } else {
            self.slope
        };
        // An idle window's NaN counts as steady, as in fio 3.33 (built with
        // -ffast-math, its comparison says so).
        if self.value.is_nan() || self.value.abs() < self.ss.criterion.limit {
            return true;
        }
        self.advance();
        false
    }

    fn deviation_check(&mut self, iops: u64, bw: u64) -> bool {
        let n = self.iops.len();
        if !self.store(iops, bw) {
            self.advance();
            return false;
        }
        if !self.full {
            self.sum_y = (0..n).map(|i| self.pick(i)).sum();
            self.full = true;
        } else {
            self.sum_y = self.sum_y - self.oldest_y + self.pick(self.tail);
        }
        self.oldest_y = self.pick(self.head);
        let mean = self.sum_y as f64 / n as f64;
        self.deviation = (0..n)
            .map(|i| (self.pick(i) as f64 - mean).abs())
            .fold(0.0, f64::max);
        self.value = if self.ss.criterion.pct {
            100.0 * self.deviation / mean
        } else {
            self.deviation
        };
        // NaN (an idle window) counts as steady, as above.
        if self.value.is_nan() || self.value < self.ss.criterion.limit {
            return true;
        }
        self.advance();
        false
    }

    /// The report block: the window oldest first, as fio lists it.
    pub fn report(&self) -> SsReport {
        let n = self.iops.len();
        let start = if self.attained || !self.full {
            self.head
        } else if self.head == 0 {
            n - 1
        } else {
            self.head - 1
        };
        let order: Vec<usize> = (0..n).map(|l| (start + l) % n).collect();
        SsReport {
            criterion: self.ss.criterion,
            duration: self.ss.dur_s,
            attained: self.attained,
            value: self.value,
            max_deviation: self.deviation,
            slope: self.slope,
            bw_mean: self.bw.iter().sum::<u64>() / n as u64,
            iops_mean: self.iops.iter().sum::<u64>() / n as u64,
            iops: order.iter().map(|&i| self.iops[i]).collect(),
            bw: order.iter().map(|&i| self.bw[i]).collect(),
        }
    }
}

/// group_reporting: fio keeps one window for the group, of the members'
/// summed rates. Each rfio job keeps and judges its own window; the group's
/// block sums them sample by sample and computes the criterion of the sums,
/// and the group has attained only when every member has.
pub fn merge(into: &mut Option<Box<SsReport>>, other: &Option<Box<SsReport>>) {
    let Some(o) = other else {
        return;
    };
    match into {
        None => *into = Some(o.clone()),
        Some(m) => {
            for (a, b) in m.iops.iter_mut().zip(&o.iops) {
                *a += b;
            }
            for (a, b) in m.bw.iter_mut().zip(&o.bw) {
                *a += b;
            }
            m.iops_mean += o.iops_mean;
            m.bw_mean += o.bw_mean;
            m.attained &= o.attained;
            // The criterion of the summed window, as fio computes it.
            let c = m.criterion;
            let ys: Vec<f64> = if c.iops { &m.iops } else { &m.bw }
                .iter()
                .map(|&v| v as f64)
                .collect();
            let n = ys.len() as f64;
            let mean = ys.iter().sum::<f64>() / n;
            let scale = |v: f64| if c.pct { 100.0 * v / mean } else { v };
            if c.slope {
                let sx = (0..ys.len()).map(|i| i as f64).sum::<f64>();
                let sxx = (0..ys.len()).map(|i| (i * i) as f64).sum::<f64>();
                let sxy = ys
                    .iter()
                    .enumerate()
                    .map(|(i, y)| i as f64 * y)
                    .sum::<f64>();
                let den = sxx - sx * sx / n;
                m.slope = if den == 0.0 {
                    0.0
                } else {
                    (sxy - sx * mean) / den
                };
                m.value = scale(m.slope);
            } else {
                m.max_deviation = ys.iter().map(|y| (y - mean).abs()).fold(0.0, f64::max);
                m.value = scale(m.max_deviation);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ss(word: &str, post: &str, dur: u64) -> SteadyState {
        SteadyState::new(
            Criterion::parse(word, Some(post), 1024).unwrap(),
            dur * 1_000_000,
            0,
        )
        .unwrap()
    }

    #[test]
    fn parses_like_fio() {
        let c = Criterion::parse("iops_slope", Some("0.01%"), 1024).unwrap();
        assert!(c.iops && c.slope && c.pct);
        assert_eq!(c.text(), "iops_slope:0.010000%");
        assert_eq!(
            Criterion::parse("bw", Some("1m"), 1024).unwrap().limit,
            1048576.0
        );
        assert!(Criterion::parse("iops", None, 1024).is_err());
        assert_eq!(c_float(f64::from(0.01f32), 6), "0.010000");
        assert_eq!(c_float(-f64::NAN, 3), "-nan");
        assert!(Criterion::parse("iops", Some("abc"), 1024).is_err());
        assert_eq!(
            Criterion::parse("bw", Some("0.5"), 1024).unwrap().limit,
            0.0
        );
        assert!(Criterion::parse("bw", Some("x"), 1024).is_err());
        assert!(
            SteadyState::new(Criterion::parse("bw", Some("1"), 1024).unwrap(), 999_999, 0)
                .is_none()
        );
    }

    #[test]
    fn deviation_attains_on_a_flat_window() {
        let mut m = Monitor::new(ss("iops", "10%", 3), 0);
        let mut ios = 0;
        let mut done = None;
        for s in 1..=10u64 {
            // 1000 ios a second, a little jitter.
            ios += 1000 + s % 2;
            if m.tick(s * 1_000_000_000, ios, ios * 4096) {
                done = Some(s);
                break;
            }
        }
        assert_eq!(done, Some(3));
        let r = m.report();
        assert!(r.attained && r.iops.len() == 3 && r.iops_mean >= 1000);
        assert!(r.max_deviation > 0.0 && r.max_deviation < 1.0);
    }

    #[test]
    fn group_blocks_sum_their_windows() {
        let mut a = Monitor::new(ss("iops", "10%", 2), 0);
        let mut b = Monitor::new(ss("iops", "10%", 2), 0);
        for s in 1..=2u64 {
            a.tick(s * 1_000_000_000, s * 1000, 0);
            b.tick(s * 1_000_000_000, s * 1010, 0);
        }
        let mut g = Some(Box::new(a.report()));
        merge(&mut g, &Some(Box::new(b.report())));
        let g = g.unwrap();
        assert_eq!(g.iops, vec![2010, 2010]);
        assert_eq!(g.iops_mean, 2010);
        assert!(g.attained && g.max_deviation == 0.0);
    }

    #[test]
    fn missed_ticks_are_empty_samples() {
        let mut m = Monitor::new(ss("iops", "10%", 3), 0);
        // 100 ios, then a 3.5 s sleep: samples 100, 0, 0 (not steady).
        assert!(!m.tick(3_500_000_000, 100, 0));
        let r = m.report();
        assert_eq!(r.iops, vec![100, 0, 0]);
        assert!(!r.attained);
    }

    #[test]
    fn slope_sees_a_ramp() {
        let mut m = Monitor::new(ss("iops_slope", "1%", 4), 0);
        let mut ios = 0;
        for s in 1..=10u64 {
            // Rising by 10% every second: never steady.
            ios += 1000 * (10 + s) / 10;
            assert!(!m.tick(s * 1_000_000_000, ios, 0));
        }
        let r = m.report();
        assert!(!r.attained && r.slope > 90.0);
        // Oldest first.
        assert!(r.iops.windows(2).all(|w| w[0] < w[1]), "{:?}", r.iops);
    }
}
