//! What `--plot` records while a job runs (plot/ draws it): one point per window (rates and
//! completion-latency percentiles of that window) and the job's final clat
//! histogram. Filled from the bw/iops sampler's cold path, never per I/O:
//! a window's percentiles come from the difference of the job's cumulative
//! clat histogram between two ticks.

use crate::job::Job;
use crate::stats::ThreadStats;
use rbench_common::histogram::{bucket_value, LatencyHistogram, NR_BUCKETS};
use std::sync::Mutex;

/// The percentiles drawn over time.
pub const PERCENTILES: [f64; 4] = [50.0, 90.0, 99.0, 99.9];

/// The window of the trace: log_avg_msec when set, else 100 ms.
pub fn every_ms(job: &Job) -> u64 {
    if job.logs.log_avg_ms > 0 {
        job.logs.log_avg_ms
    } else {
        100
    }
}

/// One window of one job.
#[derive(Debug, Clone)]
pub struct Point {
    /// End of the window, ms since the job started measuring.
    pub t_ms: u64,
    /// Per direction (read, write, trim): bytes/s.
    pub bw: [f64; 3],
    pub iops: [f64; 3],
    /// Completions in the window per direction.
    pub ios: [u64; 3],
    /// clat percentiles ([`PERCENTILES`]) in ns, per direction.
    pub clat: [[u64; 4]; 3],
}

/// A job's trace.
#[derive(Debug, Clone)]
pub struct Trace {
    pub job: usize,
    pub name: String,
    pub every_ms: u64,
    /// Directions the job does (read, write, trim).
    pub dirs: [bool; 3],
    pub points: Vec<Point>,
    /// Final clat histogram per direction: (bucket value ns, count).
    pub clat_bins: [Vec<(u64, u64)>; 3],
    last_t: u64,
    last_bytes: [u64; 3],
    last_ios: [u64; 3],
    /// Cumulative clat bucket counts at the last tick, per direction.
    last_hist: Vec<u64>,
    scratch: LatencyHistogram,
}

impl Trace {
    pub fn new(job: &Job) -> Trace {
        let dirs = [job.pattern.read, job.pattern.write, job.pattern.trim];
        Trace::with(job.number, job.name.clone(), every_ms(job), dirs)
    }

    fn with(job: usize, name: String, every_ms: u64, dirs: [bool; 3]) -> Trace {
        Trace {
            job,
            name,
            every_ms,
            dirs,
            points: Vec::with_capacity(256),
            clat_bins: Default::default(),
            last_t: 0,
            last_bytes: [0; 3],
            last_ios: [0; 3],
            last_hist: vec![0; 3 * NR_BUCKETS],
            scratch: LatencyHistogram::new(),
        }
    }

    /// Close the window ending at `t_ms`. Cold: once per window.
    pub fn tick(&mut self, t_ms: u64, st: &ThreadStats) {
        let span = t_ms.saturating_sub(self.last_t);
        if span == 0 {
            return;
        }
        let mut p = Point {
            t_ms,
            bw: [0.0; 3],
            iops: [0.0; 3],
            ios: [0; 3],
            clat: [[0; 4]; 3],
        };
        for d in 0..3 {
            let ds = &st.dir[d];
            let bytes = ds.io_bytes.saturating_sub(self.last_bytes[d]);
            let ios = ds.ios.saturating_sub(self.last_ios[d]);
            p.bw[d] = bytes as f64 * 1000.0 / span as f64;
            p.iops[d] = ios as f64 * 1000.0 / span as f64;
            p.ios[d] = ios;
            self.last_bytes[d] = ds.io_bytes;
            self.last_ios[d] = ds.ios;
            self.scratch.clear();
            let last = &mut self.last_hist[d * NR_BUCKETS..(d + 1) * NR_BUCKETS];
            for (i, (now, before)) in ds.clat.buckets().iter().zip(last.iter_mut()).enumerate() {
                let n = now.saturating_sub(*before);
                if n > 0 {
                    self.scratch.record_n(bucket_value(i), n);
                }
                *before = *now;
            }
            if !self.scratch.is_empty() {
                let v = self.scratch.percentiles(&PERCENTILES);
                p.clat[d].copy_from_slice(&v);
            }
        }
        self.points.push(p);
        self.last_t = t_ms;
    }

    /// The job ended at `t_ms`: a last window if it is at least half a
    /// window long, and the final clat histogram.
    pub fn finish(&mut self, t_ms: u64, st: &ThreadStats) {
        if t_ms.saturating_sub(self.last_t) * 2 >= self.every_ms {
            self.tick(t_ms, st);
        }
        for d in 0..3 {
            self.clat_bins[d] = st.dir[d].clat.bins().collect();
        }
    }
}

/// Traces of the jobs that ended, handed over by their threads.
static TRACES: Mutex<Vec<Trace>> = Mutex::new(Vec::new());

/// A job thread's trace, once the job ended.
pub fn collect(t: Trace) {
    TRACES.lock().unwrap_or_else(|e| e.into_inner()).push(t);
}

/// Every trace collected so far, in job order.
pub fn take() -> Vec<Trace> {
    let mut v = std::mem::take(&mut *TRACES.lock().unwrap_or_else(|e| e.into_inner()));
    v.sort_by_key(|t| t.job);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_holds_its_own_rates_and_percentiles() {
        let mut t = Trace::with(1, "j".into(), 100, [true, false, false]);
        let mut st = ThreadStats::default();
        for _ in 0..100 {
            st.dir[0].clat.record(1000);
        }
        st.dir[0].io_bytes = 100 * 4096;
        st.dir[0].ios = 100;
        t.tick(100, &st);
        // The next window: 10 slow I/Os only.
        for _ in 0..10 {
            st.dir[0].clat.record(1_000_000);
        }
        st.dir[0].io_bytes += 10 * 4096;
        st.dir[0].ios += 10;
        t.tick(200, &st);
        // Too short a last window (< half) is left out.
        t.finish(240, &st);
        assert_eq!(t.points.len(), 2);
        let (a, b) = (&t.points[0], &t.points[1]);
        assert_eq!((a.ios[0], b.ios[0]), (100, 10));
        assert_eq!(a.iops[0], 1000.0);
        assert_eq!(b.bw[0], 10.0 * 4096.0 * 10.0);
        let near = |v: u64, want: u64| v.abs_diff(want) * 64 <= want;
        assert!(a.clat[0].iter().all(|&v| near(v, 1000)), "{:?}", a.clat[0]);
        assert!(
            b.clat[0].iter().all(|&v| near(v, 1_000_000)),
            "{:?}",
            b.clat[0]
        );
        assert_eq!(t.clat_bins[0].iter().map(|b| b.1).sum::<u64>(), 110);
    }
}
