//! fio's status line (§6.4): `Jobs: N (f=F): [r(1)][50.0%][r=…][r=… IOPS][eta 00m:15s]`,
//! redrawn every second with `\r`. Job threads publish counters at their
//! sampling points (a few times per second, never per I/O); this thread
//! reads them and draws.

use crate::job::Job;
use crate::stats::ThreadStats;
use rbench_common::units::fio::{num2str, N2sUnit};
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicU8, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// `--eta-interval`, in ms (fio's `eta_interval_msec`, default 1000).
static INTERVAL_MS: AtomicU32 = AtomicU32::new(1000);

/// fio's helper thread wakes every 250 ms (DISK_UTIL_MSEC) and redraws
/// the line once more than 95% of the interval passed since the last one.
const HELPER_TICK_MS: u64 = 250;

/// Set the status line's refresh interval (`--eta-interval`).
pub fn set_interval_ms(ms: u32) {
    INTERVAL_MS.store(ms, Ordering::Relaxed);
}

/// Whether a line is due `since_ms` after the last one (fio's
/// `eta_time_within_slack`, on its unsigned int arithmetic).
fn due(since_ms: u64, interval_ms: u32) -> bool {
    since_ms > u64::from(interval_ms.wrapping_mul(95) / 100)
}

/// What one job thread publishes.
#[derive(Debug, Default)]
pub struct Progress {
    /// fio's run-state letter (`P` not started, `R`/`r` …, `_` done).
    pub state: AtomicU8,
    pub bytes: [AtomicU64; 3],
    pub ios: [AtomicU64; 3],
    /// Milliseconds since the run started when the job began its I/O.
    pub started_ms: AtomicU64,
    /// Setup failed: the job never runs (nobody should wait for it).
    pub setup_failed: AtomicBool,
    /// Bytes a size-bound job will move in all (0: unknown or time-bound).
    pub expected_bytes: AtomicU64,
    /// `--status-interval`: the job's statistics so far, refreshed at its
    /// sampling points when `want_snapshots` is set.
    pub want_snapshots: AtomicBool,
    pub snapshot: Mutex<Option<ThreadStats>>,
    /// steadystate: the window of the job's group (set when its segment
    /// starts; submitter threads share their job's).
    pub ss_group: std::sync::OnceLock<std::sync::Arc<super::pacing::steadystate::Group>>,
    /// flow=: the job's place in its flow, joined when its segment is set
    /// up and taken by the job loop when it starts (h2).
    pub flow: Mutex<Option<super::pacing::flow::Flow>>,
}

impl Progress {
    pub fn new() -> Self {
        let p = Progress::default();
        p.state.store(b'P', Ordering::Relaxed);
        p
    }

    /// Called by the job loop at its sampling points; never blocks it.
    #[cold]
    pub fn offer_snapshot(&self, st: &ThreadStats) {
        if let Ok(mut g) = self.snapshot.try_lock() {
            *g = Some(st.clone());
        }
    }

    /// Called by the job loop at its sampling points.
    pub fn publish(&self, bytes: [u64; 3], ios: [u64; 3]) {
        for d in 0..3 {
            self.bytes[d].store(bytes[d], Ordering::Relaxed);
            self.ios[d].store(ios[d], Ordering::Relaxed);
        }
    }
}

/// The letter fio shows for a running job.
pub fn running_letter(job: &Job) -> u8 {
    let p = job.pattern;
    let l = if p.read && p.write {
        b'M'
    } else if p.trim {
        b'D'
    } else if p.write {
        b'W'
    } else {
        b'R'
    };
    if p.random {
        l.to_ascii_lowercase()
    } else {
        l
    }
}

pub fn eta_text(secs: u64) -> String {
    let (d, h, m, s) = (secs / 86400, secs / 3600 % 24, secs / 60 % 60, secs % 60);
    if d > 0 {
        format!("{d}d:{h:02}h:{m:02}m:{s:02}s")
    } else if h > 0 {
        format!("{h:02}h:{m:02}m:{s:02}s")
    } else {
        format!("{m:02}m:{s:02}s")
    }
}

/// Runs of equal letters, `r(1),P(1)`.
fn run_states(states: &[u8]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < states.len() {
        let mut j = i;
        while j < states.len() && states[j] == states[i] {
            j += 1;
        }
        out.push(format!("{}({})", states[i] as char, j - i));
        i = j;
    }
    out.join(",")
}

/// Sleep in small steps until helper tick `ticks` after `start`, so the
/// end of the run is not delayed; false once `done` is raised.
fn wait_tick(start: Instant, ticks: u32, done: &AtomicBool) -> bool {
    let wake = start + Duration::from_millis(HELPER_TICK_MS * u64::from(ticks));
    while Instant::now() < wake {
        if done.load(Ordering::Relaxed) {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    true
}

/// The bytes and I/Os moved so far by all jobs, per direction.
fn totals(progress: &[Progress]) -> ([u64; 3], [u64; 3]) {
    let mut bytes = [0u64; 3];
    let mut ios = [0u64; 3];
    for p in progress {
        for d in 0..3 {
            bytes[d] += p.bytes[d].load(Ordering::Relaxed);
            ios[d] += p.ios[d].load(Ordering::Relaxed);
        }
    }
    (bytes, ios)
}

/// Seconds job `j` still has to go, `elapsed` seconds into the run.
fn job_eta(j: &Job, p: &Progress, elapsed: u64) -> u64 {
    let began = p.started_ms.load(Ordering::Relaxed) / 1000;
    let by_time = if j.runtime_us > 0 {
        let total = (j.ramp_us + j.runtime_us) / 1_000_000;
        Some((began + total).saturating_sub(elapsed))
    } else {
        None
    };
    // Size-bound: what is left at the rate so far.
    let expected = p.expected_bytes.load(Ordering::Relaxed);
    let done: u64 = p.bytes.iter().map(|b| b.load(Ordering::Relaxed)).sum();
    let ran = elapsed.saturating_sub(began).max(1);
    let by_size = (expected > 0 && done > 0).then(|| expected.saturating_sub(done) * ran / done);
    match (by_time, by_size) {
        (Some(t), Some(s)) if !j.time_based => t.min(s),
        (Some(t), _) => t,
        (None, Some(s)) => s,
        (None, None) => 0,
    }
}

/// Remaining time: the longest job still to go.
fn eta_secs(jobs: &[Job], progress: &[Progress], elapsed: u64) -> u64 {
    jobs.iter()
        .zip(progress)
        .filter(|(_, p)| p.state.load(Ordering::Relaxed) != b'_')
        .map(|(j, p)| job_eta(j, p, elapsed))
        .max()
        .unwrap_or(0)
}

/// The line's `[r=…,w=…][r=…,w=… IOPS]` part for what moved since the last
/// line (`last` bytes and I/Os, `span` seconds ago); empty when nothing did.
fn rates_text(
    bytes: &[u64; 3],
    ios: &[u64; 3],
    last: &([u64; 3], [u64; 3]),
    span: f64,
    kb: u64,
) -> String {
    let mut rates = Vec::new();
    let mut iops = Vec::new();
    for (d, c) in ["r", "w", "t"].iter().enumerate() {
        let db = bytes[d].saturating_sub(last.0[d]);
        let di = ios[d].saturating_sub(last.1[d]);
        if db > 0 || di > 0 {
            let kib = (db as f64 / span / 1024.0) as u64;
            rates.push(format!(
                "{c}={}",
                num2str(kib, 4, 1024, kb == 1024, N2sUnit::BytePerSec)
            ));
            iops.push(format!(
                "{c}={}",
                num2str((di as f64 / span) as u64, 4, 1, false, N2sUnit::None)
            ));
        }
    }
    if rates.is_empty() {
        return String::new();
    }
    format!("[{}][{} IOPS]", rates.join(","), iops.join(","))
}

/// The line's opening `Jobs: N (f=N)` and the rate limits of the jobs
/// running, from their `states`.
fn jobs_text(jobs: &[Job], states: &[u8]) -> String {
    let running = states.iter().filter(|&&s| s != b'P' && s != b'_').count();
    let mut line = format!("Jobs: {running} (f={running})");
    line.push_str(&super::pacing::throttle::eta_limits(
        jobs.iter()
            .zip(states)
            .filter(|(_, &s)| s != b'P' && s != b'_')
            .map(|(j, _)| j),
    ));
    line
}

// --- h1: the status a server sends its client ---

/// What fio's server answers an ETA request with (its `jobs_eta`), in
/// fio's units: rates in KiB/s over about the last second, limits in
/// bytes/s, `eta_sec` fio's INT_MAX (unknown) for the first 3 seconds.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Status {
    pub nr_running: u32,
    pub nr_pending: u32,
    pub files_open: u32,
    pub nr_threads: u32,
    pub rate_kib: [u64; 3],
    pub iops: [u32; 3],
    pub m_rate: [u64; 3],
    pub t_rate: [u64; 3],
    pub m_iops: [u32; 3],
    pub t_iops: [u32; 3],
    pub elapsed_sec: u64,
    pub eta_sec: u64,
    /// The condensed run states, `R(1),P(1)`.
    pub run_str: String,
}

/// The status thread keeps [`Status`] for a client instead of drawing.
static FOR_CLIENT: AtomicBool = AtomicBool::new(false);
static LATEST: Mutex<Option<Status>> = Mutex::new(None);

/// From now on runs keep their status for a client (`--server`).
pub fn keep_for_client() {
    FOR_CLIENT.store(true, Ordering::SeqCst);
}

/// The running jobs' latest status, none before the first tick or once
/// the run ended.
pub fn latest() -> Option<Status> {
    LATEST.lock().ok().and_then(|g| g.clone())
}

/// The change points kept for the rates (fixed, no allocation per tick).
const POINTS: usize = 32;
/// How often the status thread looks at the counters.
const LOOK_MS: u64 = 50;

/// Where the counters last changed: (bytes, ios, when).
type Point = ([u64; 3], [u64; 3], Instant);

/// The status of every job, the rates over `(then, last)`, two points at
/// which the jobs published their counters (zero when none moved lately).
fn status(
    jobs: &[Job],
    progress: &[Progress],
    start: Instant,
    then: &Point,
    last: &Point,
) -> Status {
    let states: Vec<u8> = progress
        .iter()
        .map(|p| p.state.load(Ordering::Relaxed))
        .collect();
    let mut st = Status {
        nr_threads: jobs.len() as u32,
        run_str: run_states(&states),
        ..Status::default()
    };
    for ((j, p), &s) in jobs.iter().zip(progress).zip(&states) {
        if s == b'P' {
            st.nr_pending += u32::from(!p.setup_failed.load(Ordering::Relaxed));
            continue;
        }
        if s == b'_' {
            continue;
        }
        st.nr_running += 1;
        st.files_open += j.filenames.len().max(1) as u32;
        for (d, on) in [j.pattern.read, j.pattern.write, j.pattern.trim]
            .into_iter()
            .enumerate()
        {
            if !on {
                continue;
            }
            st.m_rate[d] += j.throttle.rate_min[d];
            st.t_rate[d] += j.throttle.rate[d];
            st.m_iops[d] += j.throttle.rate_iops_min[d] as u32;
            st.t_iops[d] += j.throttle.rate_iops[d] as u32;
        }
    }
    let ms = last.2.duration_since(then.2).as_millis() as u64;
    let stale = last.2.elapsed() > Duration::from_millis(1500);
    for d in 0..3 {
        if stale {
            break;
        }
        let (db, di) = (
            last.0[d].saturating_sub(then.0[d]),
            last.1[d].saturating_sub(then.1[d]),
        );
        st.rate_kib[d] = (db * 1000).checked_div(ms).unwrap_or(0) / 1024;
        st.iops[d] = (di * 1000).checked_div(ms).unwrap_or(0) as u32;
    }
    // fio's elapsed times round up (its thread_eta too).
    st.elapsed_sec = (start.elapsed().as_millis() as u64).div_ceil(1000);
    st.eta_sec = fio_eta(jobs, progress, &states, st.elapsed_sec);
    st
}

/// fio's `calc_thread_status` eta: each job's (fio's INT_MAX for all in
/// the first 3 seconds), the longest of them plus, for each stonewalled
/// job not started, its whole time (so the first lines of a stonewalled
/// run add INT_MAX twice, as fio's do).
fn fio_eta(jobs: &[Job], progress: &[Progress], states: &[u8], elapsed: u64) -> u64 {
    let (mut eta, mut stone) = (0u64, 0u64);
    for ((j, p), &s) in jobs.iter().zip(progress).zip(states) {
        let this = if elapsed < 3 {
            i32::MAX as u64
        } else if s == b'_' {
            0
        } else if s == b'P' && j.runtime_us > 0 {
            (j.ramp_us + j.runtime_us) / 1_000_000
        } else {
            job_eta(j, p, elapsed)
        };
        if s == b'P' && j.order.stonewall {
            stone += this;
        } else {
            eta = eta.max(this);
        }
    }
    eta + stone
}

/// Keep the status until `done` is raised. The jobs publish their counters
/// at their sampling points (every bwavgtime); the rates run from the
/// change point about a second before the last one to it, so a window
/// holds whole sampling periods.
fn keep_status(jobs: &[Job], progress: &[Progress], done: &AtomicBool) {
    let start = Instant::now();
    if let Ok(mut g) = LATEST.lock() {
        *g = None;
    }
    let (b, i) = totals(progress);
    let mut points: [Point; POINTS] = [(b, i, start); POINTS];
    let mut n = 1usize;
    while !done.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(LOOK_MS));
        let (bytes, ios) = totals(progress);
        let last = points[(n - 1) % POINTS];
        if (bytes, ios) != (last.0, last.1) {
            points[n % POINTS] = (bytes, ios, Instant::now());
            n += 1;
        }
        let last = points[(n - 1) % POINTS];
        let then = (1..n.min(POINTS))
            .map(|k| points[(n - 1 - k) % POINTS])
            .find(|p| last.2.duration_since(p.2) >= Duration::from_millis(950))
            .unwrap_or(points[n.saturating_sub(POINTS) % POINTS]);
        let st = status(jobs, progress, start, &then, &last);
        if let Ok(mut g) = LATEST.lock() {
            *g = Some(st);
        }
    }
    // The run ended: no job left running (fio's `Jobs: 0 (f=0)`).
    let last = points[(n - 1) % POINTS];
    let st = status(jobs, progress, start, &last, &last);
    if let Ok(mut g) = LATEST.lock() {
        *g = Some(st);
    }
}

/// Draw until `done` is raised; `newline_every` adds fio's `--eta-newline`.
/// Under `--server` ([`keep_for_client`]) the status is kept instead.
pub fn draw(
    jobs: &[Job],
    progress: &[Progress],
    done: &AtomicBool,
    newline_every: Option<Duration>,
) {
    if FOR_CLIENT.load(Ordering::SeqCst) {
        return keep_status(jobs, progress, done);
    }
    let start = Instant::now();
    let interval = INTERVAL_MS.load(Ordering::Relaxed);
    let mut ticks = 0u32;
    let mut last_shown = start;
    let mut last_len = 0usize;
    let mut last = ([0u64; 3], [0u64; 3], Instant::now());
    let mut last_newline = Instant::now();
    let mut first = true;
    let kb = jobs.first().map_or(1024, |j| j.kb_base);
    let mut out = std::io::stdout();
    loop {
        // Wake on fio's helper ticks and draw when the interval has passed.
        ticks += 1;
        if !wait_tick(start, ticks, done) {
            return;
        }
        if !due(last_shown.elapsed().as_millis() as u64, interval) {
            continue;
        }
        last_shown = Instant::now();
        let states: Vec<u8> = progress
            .iter()
            .map(|p| p.state.load(Ordering::Relaxed))
            .collect();
        let mut line = jobs_text(jobs, &states);
        let (bytes, ios) = totals(progress);
        let now = Instant::now();
        let span = now.duration_since(last.2).as_secs_f64().max(1e-3);
        if !first {
            let elapsed = start.elapsed().as_secs();
            let eta = eta_secs(jobs, progress, elapsed);
            let pct = elapsed as f64 * 100.0 / (elapsed + eta).max(1) as f64;
            line.push_str(&format!(": [{}][{pct:.1}%]", run_states(&states)));
            line.push_str(&rates_text(&bytes, &ios, &(last.0, last.1), span, kb));
            line.push_str(&format!("[eta {}]", eta_text(eta)));
        }
        first = false;
        last = (bytes, ios, now);
        let pad = last_len.saturating_sub(line.len());
        let mut text = format!("{line}{}\r", " ".repeat(pad));
        if newline_every.is_some_and(|n| last_newline.elapsed() >= n) {
            text.push('\n');
            last_newline = Instant::now();
        }
        last_len = line.len();
        let _ = out.write_all(text.as_bytes());
        let _ = out.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_servers_eta_adds_stonewalled_jobs_to_come_as_fio() {
        let run = crate::job::test_job(&["--time_based", "--runtime=4"]);
        let mut next = crate::job::test_job(&["--time_based", "--runtime=2"]);
        next.order.stonewall = true;
        let jobs = [run, next];
        let progress = [Progress::new(), Progress::new()];
        let states = *b"RP";
        // The first 3 seconds: fio's INT_MAX for each, added.
        assert_eq!(fio_eta(&jobs, &progress, &states, 2), 2 * i32::MAX as u64);
        // Then the running job's 1 s left plus the next one's 2 s.
        assert_eq!(fio_eta(&jobs, &progress, &states, 3), 3);
        assert_eq!(fio_eta(&jobs, &progress, b"_R", 5), 0);
    }

    #[test]
    fn lines_come_on_helper_ticks() {
        // 1000 ms: every fourth tick; 300 ms: every second (285 < 500).
        assert!(!due(750, 1000) && due(1000, 1000));
        assert!(!due(250, 300) && due(500, 300));
        assert!(!due(500, 600) && due(750, 600));
    }
}
