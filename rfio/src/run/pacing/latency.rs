//! `latency_target`, `latency_window`, `latency_percentile`,
//! `latency_run`: fio's queue depth probing. The job starts at depth 1;
//! after each window in which enough I/Os (the percentile) stayed under
//! the target it doubles its depth (or bisects towards the depth that
//! failed), and a window that failed bisects down. Once the depth stops
//! changing the job quiesces, resets its statistics and runs one more
//! window at that depth, then ends (with `latency_run`, it keeps
//! adjusting until its runtime or size ends it). An I/O over the target
//! at depth 1 (percentile 100) is fatal, as one over `max_latency` is.

use crate::job::Job;

/// What the job loop must do after a step of the probe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Nothing more (the depth may have changed).
    Go,
    /// Wait for what is in flight before going on (a ramp down).
    Quiesce,
    /// Quiesce, then reset the statistics: the final window starts.
    FinalRun,
    /// The job is done.
    Done,
    /// Over the target at depth 1: fio's `max latency exceeded`.
    Fatal,
}

/// One job's probe.
#[derive(Debug, Clone)]
pub struct Probe {
    pub target_ns: u64,
    window_ns: u64,
    percentile: f64,
    run: bool,
    /// The job's queue depth, the most the probe goes to.
    max: usize,
    /// The depth now, and the bounds it bisects between.
    pub qd: usize,
    high: usize,
    low: usize,
    stable: u32,
    /// The window's start (job-clock ns), the I/Os done before it, and
    /// those over the target in it.
    since_ns: u64,
    since_ios: u64,
    failed: u64,
    final_run: bool,
}

impl Probe {
    /// The job's probe, None without latency_target.
    pub fn new(job: &Job, depth: usize) -> Option<Probe> {
        (job.targets.latency_target_us > 0).then(|| Probe {
            target_ns: job.targets.latency_target_us.saturating_mul(1000),
            window_ns: job.targets.latency_window_us.saturating_mul(1000),
            percentile: job.targets.latency_percentile,
            run: job.targets.latency_run,
            max: depth.max(1),
            qd: 1,
            high: depth.max(1),
            low: 1,
            stable: 0,
            since_ns: 0,
            since_ios: 0,
            failed: 0,
            final_run: false,
        })
    }

    /// Start over at depth 1 (fio's lat_target_init; its stats reset at
    /// ramp_time's end does this too, except in the final window).
    pub fn restart(&mut self, now: u64, ios: u64) {
        if self.final_run {
            return;
        }
        self.qd = 1;
        self.high = self.max;
        self.low = 1;
        self.new_window(now, ios);
    }

    /// A new window from `now`, `ios` I/Os done so far.
    pub fn new_window(&mut self, now: u64, ios: u64) {
        self.since_ns = now;
        self.since_ios = ios;
        self.failed = 0;
    }

    /// An I/O completed over the target.
    pub fn over(&mut self, now: u64, ios: u64) -> Step {
        if self.percentile == 100.0 {
            return self.failed(now, ios);
        }
        self.failed += 1;
        Step::Go
    }

    /// A window failed: bisect down (fatal at depth 1).
    fn failed(&mut self, now: u64, ios: u64) -> Step {
        if self.qd == 1 {
            return Step::Fatal;
        }
        self.high = self.qd;
        if self.qd == self.low {
            self.low -= 1;
        }
        self.qd = (self.qd + self.low) / 2;
        self.stable = 0;
        self.new_window(now, ios);
        Step::Quiesce
    }

    /// Between loop turns: is the window over, and did it hold?
    #[inline]
    pub fn check(&mut self, now: u64, ios: u64) -> Step {
        if now.saturating_sub(self.since_ns) < self.window_ns {
            return Step::Go;
        }
        let done = ios.saturating_sub(self.since_ios);
        let ok = (done.saturating_sub(self.failed)) as f64 / done as f64 * 100.0;
        // 0/0 is NaN, under any percentile: a window without I/O fails.
        if ok >= self.percentile {
            self.succeeded(now, ios)
        } else {
            self.failed(now, ios)
        }
    }

    /// A window held: try a deeper queue, or settle on this one.
    fn succeeded(&mut self, now: u64, ios: u64) -> Step {
        let qd = self.qd;
        self.low = self.qd;
        if self.qd + 1 == self.high {
            // Stable just under the depth that failed: creep the bound
            // up after three in a row (fio's heuristic).
            self.stable += 1;
            if self.stable >= 3 {
                self.high += 1;
                self.stable = 0;
            }
        }
        self.qd = if self.high != self.max {
            (self.qd + self.high) / 2
        } else {
            self.qd * 2
        };
        self.qd = self.qd.min(self.max);
        let mut step = Step::Go;
        if !self.run && self.qd == qd {
            if self.final_run {
                step = Step::Done;
            } else {
                self.final_run = true;
                step = Step::FinalRun;
            }
        }
        self.new_window(now, ios);
        step
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn probe(depth: usize) -> Probe {
        let mut job = crate::job::test_job(&["--ioengine=null"]);
        job.targets.latency_target_us = 100;
        job.targets.latency_window_us = 1000;
        job.targets.latency_percentile = 100.0;
        Probe::new(&job, depth).unwrap()
    }

    #[test]
    fn doubles_while_windows_hold_then_settles() {
        let mut p = probe(8);
        let mut now = 0;
        let mut ios = 0;
        let mut depths = vec![p.qd];
        let mut last = Step::Go;
        for _ in 0..10 {
            now += 1_000_000;
            ios += 10;
            last = p.check(now, ios);
            depths.push(p.qd);
            if last == Step::Done {
                break;
            }
        }
        assert_eq!(depths, vec![1, 2, 4, 8, 8, 8]);
        assert_eq!(last, Step::Done);
    }

    #[test]
    fn over_target_bisects_down_and_is_fatal_at_depth_one() {
        let mut p = probe(16);
        p.check(1_000_000, 10);
        p.check(2_000_000, 20);
        assert_eq!(p.qd, 4);
        // Bisecting between the depth that held (2) and the one that failed.
        assert_eq!(p.over(2_100_000, 21), Step::Quiesce);
        assert_eq!(p.qd, 3);
        assert_eq!(p.over(2_200_000, 22), Step::Quiesce);
        assert_eq!(p.qd, 2);
        assert_eq!(p.over(2_300_000, 23), Step::Quiesce);
        assert_eq!(p.qd, 1);
        assert_eq!(p.over(2_400_000, 24), Step::Fatal);
    }

    #[test]
    fn a_window_under_the_percentile_fails() {
        let mut p = probe(8);
        p.percentile = 90.0;
        p.check(1_000_000, 10);
        assert_eq!(p.qd, 2);
        for i in 0..5 {
            assert_eq!(p.over(1_100_000, 11 + i), Step::Go);
        }
        assert_eq!(p.check(2_000_000, 20), Step::Quiesce);
        assert_eq!(p.qd, 1);
    }
}
