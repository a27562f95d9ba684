//! `--bandwidth-log`: fio's aggregate bandwidth logs `agg-read_bw.log`,
//! `agg-write_bw.log` and `agg-trim_bw.log`, in the current directory.
//!
//! fio 3.33 takes these samples in its status (ETA) code on the helper
//! thread, so only when that code runs: normal output on (or `--output`
//! given), `--eta` not `never`, and stdout a terminal or `--eta=always`;
//! otherwise the three files are written empty. The helper wakes every
//! 250 ms and at each running job's bw/iops window ends; a wake more than
//! the smallest bwavgtime (ms) after the previous sample takes one: the
//! bytes of all jobs since then, in KiB/s, for every direction (0 where
//! nothing moved), as `ms since the start, KiB/s, dir, 0, 0`. Until some
//! byte has moved the interval is counted from the start of the run. A
//! JSON report (final or `--status-interval`) asks the same code for the
//! ETA, which takes a sample then too, whatever the conditions. The files
//! are written after the report, empty when no sample was taken.

use crate::job::Job;
use crate::run::eta::Progress;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// fio's DISK_UTIL_MSEC: the helper's fixed tick.
const TICK_MS: u64 = 250;
const NAMES: [&str; 3] = ["agg-read_bw.log", "agg-write_bw.log", "agg-trim_bw.log"];

/// The aggregate logs of one run.
pub struct AggLog {
    /// Whether samples are taken at all (fio's ETA conditions).
    sampling: bool,
    state: Mutex<State>,
}

/// fio's statics in its status code: the previous sample and the rows.
#[derive(Default)]
struct State {
    /// Start of the run (fio's genesis), set by [`AggLog::run`].
    t0: Option<Instant>,
    /// The smallest bwavgtime of the jobs, ms.
    every: u64,
    prev_bytes: [u64; 3],
    prev_at: Option<Instant>,
    /// (ms since the start, KiB/s per direction).
    rows: Vec<(u64, [u64; 3])>,
}

impl State {
    /// fio's calc_thread_status: a row when more than `every` ms passed
    /// since the previous one.
    fn sample(&mut self, bytes: [u64; 3], now: Instant) {
        let Some(t0) = self.t0 else {
            return;
        };
        if self.prev_bytes.iter().sum::<u64>() == 0 {
            // fio's fill_start_time: from the start until bytes move.
            self.prev_at = Some(t0);
        }
        let prev_at = self.prev_at.unwrap_or(t0);
        let span = now.saturating_duration_since(prev_at).as_millis() as u64;
        if span <= self.every {
            return;
        }
        let mut rate = [0u64; 3];
        for d in 0..3 {
            // Counters restart after ramp_time: no negative rates.
            let diff = bytes[d].saturating_sub(self.prev_bytes[d]);
            rate[d] = diff * 1000 / span / 1024;
        }
        let t = now.saturating_duration_since(t0).as_millis() as u64;
        self.rows.push((t, rate));
        self.prev_bytes = bytes;
        self.prev_at = Some(now);
    }
}

impl AggLog {
    /// `sampling`: fio's conditions for its status code to run (see the
    /// module notes).
    pub fn new(sampling: bool) -> Self {
        AggLog {
            sampling,
            state: Mutex::new(State::default()),
        }
    }

    /// fio's condition for taking samples: normal output (or an output
    /// file), `--eta` not never, and a terminal or `--eta=always`.
    pub fn sampling_wanted(normal: bool, output_file: bool, eta: &str, tty: bool) -> bool {
        (normal || output_file) && eta != "never" && (tty || eta == "always")
    }

    pub fn sampling(&self) -> bool {
        self.sampling
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The start of the run (fio's genesis), before any job starts.
    pub fn start(&self, jobs: &[Job], t0: Instant) {
        let mut st = self.state();
        st.t0 = Some(t0);
        st.every = jobs
            .iter()
            .map(|j| j.reporting.bwavgtime_ms)
            .min()
            .unwrap_or(500);
    }

    /// fio's JSON report asks its status code for the ETA of each job
    /// block (forced, whatever the output): a sample when enough time
    /// passed, from the jobs' final byte counts.
    pub fn report_sample(&self, jobs: &[Job], bytes: impl Iterator<Item = [u64; 3]>) {
        let unified = jobs.iter().any(|j| j.reporting.unified != 0);
        let mut sum = [0u64; 3];
        for b in bytes {
            for d in 0..3 {
                sum[if unified { 0 } else { d }] += b[d];
            }
        }
        self.state().sample(sum, Instant::now());
    }

    /// The sampling thread: runs until `done` is raised; `t0` is the
    /// start given to [`AggLog::start`].
    pub fn run(&self, jobs: &[Job], progress: &[Progress], done: &AtomicBool, t0: Instant) {
        let unified = jobs.iter().any(|j| j.reporting.unified != 0);
        loop {
            let now_ms = t0.elapsed().as_millis() as u64;
            let wake = next_wake(now_ms, jobs, progress);
            let wake_at = t0 + Duration::from_millis(wake);
            loop {
                if done.load(Ordering::Relaxed) {
                    return;
                }
                let now = Instant::now();
                if now >= wake_at {
                    break;
                }
                std::thread::sleep((wake_at - now).min(Duration::from_millis(20)));
            }
            let mut bytes = [0u64; 3];
            for p in progress {
                for (d, b) in p.bytes.iter().enumerate() {
                    let d = if unified { 0 } else { d };
                    bytes[d] += b.load(Ordering::Relaxed);
                }
            }
            self.state().sample(bytes, Instant::now());
        }
    }

    /// The three files' text.
    fn texts(&self) -> [String; 3] {
        let st = self.state();
        std::array::from_fn(|d| {
            let mut s = String::new();
            for (t, rate) in &st.rows {
                let _ = writeln!(s, "{t}, {}, {d}, 0, 0", rate[d]);
            }
            s
        })
    }

    /// Write the three files (after the report, as fio); fio's `fopen log:`
    /// line for each that cannot be written.
    pub fn write(&self) -> Option<String> {
        let mut errors = String::new();
        for (name, text) in NAMES.iter().zip(self.texts()) {
            if let Err(e) = std::fs::write(name, text) {
                let errno = e.raw_os_error().unwrap_or(libc::EIO);
                let _ = writeln!(
                    errors,
                    "fopen log: {}",
                    rbench_common::output::strerror(errno)
                );
            }
        }
        (!errors.is_empty()).then_some(errors)
    }
}

/// When the helper wakes next (ms since the start): the next 250 ms tick
/// or the next bw/iops window end of a running job.
fn next_wake(now_ms: u64, jobs: &[Job], progress: &[Progress]) -> u64 {
    let after = |base: u64, every: u64| base + ((now_ms.saturating_sub(base)) / every + 1) * every;
    let mut wake = after(0, TICK_MS);
    for (j, p) in jobs.iter().zip(progress) {
        let state = p.state.load(Ordering::Relaxed);
        if state == b'P' || state == b'_' {
            continue;
        }
        let started = p.started_ms.load(Ordering::Relaxed);
        for every in [j.reporting.bwavgtime_ms, j.reporting.iopsavgtime_ms] {
            if every > 0 {
                wake = wake.min(after(started, every));
            }
        }
    }
    wake
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sampling_follows_fio_eta_conditions() {
        assert!(AggLog::sampling_wanted(true, false, "always", false));
        assert!(AggLog::sampling_wanted(true, false, "auto", true));
        assert!(!AggLog::sampling_wanted(true, false, "auto", false));
        assert!(!AggLog::sampling_wanted(true, false, "never", true));
        // JSON only on stdout: fio's status code returns early.
        assert!(!AggLog::sampling_wanted(false, false, "always", true));
        assert!(AggLog::sampling_wanted(false, true, "always", false));
    }

    #[test]
    fn samples_become_three_files_of_five_columns() {
        let a = AggLog::new(true);
        let t0 = Instant::now();
        a.start(&[], t0);
        let ms = |m| t0 + Duration::from_millis(m);
        {
            let mut st = a.state();
            // Nothing moved yet: the interval counts from the start.
            st.sample([0; 3], ms(300));
            assert!(st.rows.is_empty());
            st.sample([0; 3], ms(501));
            st.sample([0; 3], ms(502));
            assert_eq!(st.rows.len(), 2);
            st.rows.clear();
            st.sample([1 << 20, 1 << 19, 0], ms(1000));
            // Not more than 500 ms since the previous sample: none.
            st.sample([2 << 20, 1 << 20, 0], ms(1500));
            st.sample([2 << 20, 1 << 20, 0], ms(2000));
        }
        let t = a.texts();
        assert_eq!(t[0], "1000, 1024, 0, 0, 0\n2000, 1024, 0, 0, 0\n");
        assert_eq!(t[1], "1000, 512, 1, 0, 0\n2000, 512, 1, 0, 0\n");
        assert_eq!(t[2], "1000, 0, 2, 0, 0\n2000, 0, 2, 0, 0\n");
    }

    #[test]
    fn fio_rows_layout() {
        let a = AggLog::new(true);
        a.state().rows = vec![(606, [1696, 851, 0]), (1249, [2046, 1020, 0])];
        let t = a.texts();
        assert_eq!(t[0], "606, 1696, 0, 0, 0\n1249, 2046, 0, 0, 0\n");
        assert_eq!(t[1], "606, 851, 1, 0, 0\n1249, 1020, 1, 0, 0\n");
        assert_eq!(t[2], "606, 0, 2, 0, 0\n1249, 0, 2, 0, 0\n");
    }

    #[test]
    fn wakes_on_ticks_and_job_windows() {
        assert_eq!(next_wake(0, &[], &[]), 250);
        assert_eq!(next_wake(250, &[], &[]), 500);
        assert_eq!(next_wake(749, &[], &[]), 750);
    }
}
