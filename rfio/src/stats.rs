//! Per-thread measurements, filled by the job loop and merged at the end.
//! Nothing here formats; `report/` renders the [`crate::result`] built from it.

use crate::engine::IoKind;
use rbench_common::histogram::LatencyHistogram;

/// fio's running sample statistics for bw/iops lines (`add_stat_sample`):
/// group reporting adds these field by field (§4), so they are kept raw.
#[derive(Debug, Clone, Copy, Default)]
pub struct Samples {
    pub n: u64,
    pub min: u64,
    pub max: u64,
    pub mean: f64,
    pub s: f64,
}

impl Samples {
    pub fn push(&mut self, v: u64) {
        if self.n == 0 {
            self.min = v;
            self.max = v;
        } else {
            self.min = self.min.min(v);
            self.max = self.max.max(v);
        }
        let x = v as f64;
        let delta = x - self.mean;
        if delta != 0.0 {
            self.mean += delta / (self.n as f64 + 1.0);
            self.s += delta * (x - self.mean);
        }
        self.n += 1;
    }

    pub fn stddev(&self) -> f64 {
        if self.n > 1 {
            (self.s / (self.n as f64 - 1.0)).sqrt()
        } else {
            0.0
        }
    }

    /// Group reporting: fio adds min, max, mean and S of the members.
    pub fn add_fieldwise(&mut self, o: &Samples) {
        self.n += o.n;
        self.min += o.min;
        self.max += o.max;
        self.mean += o.mean;
        self.s += o.s;
    }
}

/// One direction's measurements.
#[derive(Debug, Clone, Default)]
pub struct DirStats {
    pub io_bytes: u64,
    pub ios: u64,
    pub short_ios: u64,
    pub slat: LatencyHistogram,
    pub clat: LatencyHistogram,
    pub lat: LatencyHistogram,
    pub bw: Samples,
    pub iops: Samples,
    pub runtime_ms: u64,
    /// cmdprio: per I/O priority (ioprio value), the clat (lat with
    /// lat_percentiles) of the I/Os that had it; empty without cmdprio.
    pub prios: Vec<(u16, LatencyHistogram)>,
}

/// Add `from`'s per-priority latencies into `to`, priority by priority
/// (fio's sum_clat_prio_stats: a new priority goes at the end).
pub fn merge_prios(to: &mut Vec<(u16, LatencyHistogram)>, from: &[(u16, LatencyHistogram)]) {
    for (p, h) in from {
        match to.iter_mut().find(|(q, _)| q == p) {
            Some((_, t)) => t.merge(h),
            None => to.push((*p, h.clone())),
        }
    }
}

/// fio's depth-map buckets: 1, 2, 4, 8, 16, 32, >=64.
pub fn depth_bucket(d: usize) -> usize {
    match d {
        0..=1 => 0,
        2..=3 => 1,
        4..=7 => 2,
        8..=15 => 3,
        16..=31 => 4,
        32..=63 => 5,
        _ => 6,
    }
}

/// fio's submit/complete buckets: 0, 1-4, 5-8, 9-16, 17-32, 33-64, >64.
pub fn batch_bucket(n: usize) -> usize {
    match n {
        0 => 0,
        1..=4 => 1,
        5..=8 => 2,
        9..=16 => 3,
        17..=32 => 4,
        33..=64 => 5,
        _ => 6,
    }
}

/// Everything one job thread measured.
#[derive(Debug, Clone, Default)]
pub struct ThreadStats {
    pub dir: [DirStats; 3],
    pub sync_lat: LatencyHistogram,
    pub sync_ios: u64,
    pub depth_map: [u64; 7],
    pub submit_map: [u64; 7],
    pub complete_map: [u64; 7],
    pub submit_calls: u64,
    pub complete_calls: u64,
    /// Issued counts: read, write, trim, sync.
    pub issued: [u64; 4],
    pub usr_ms: f64,
    pub sys_ms: f64,
    pub ctx: u64,
    pub majf: u64,
    pub minf: u64,
    pub runtime_ms: u64,
    pub error: i32,
    /// Errors continued past (continue_on_error) and the first of them.
    pub total_err: u64,
    pub first_error: i32,
    /// fio's error context: (file:line-like origin, function, strerror).
    pub error_text: Option<(String, String)>,
    /// Non-fatal errors to print (error_dump).
    pub dumped: Vec<IoError>,
    /// The steadystate block (ss_dur set).
    pub steadystate: Option<Box<SsReport>>,
    /// latency_target: the queue depth the probe ended at (0: no probe).
    pub latency_qd: usize,
    /// zonemode=zbd: zones reset (fio's nr_zone_resets).
    pub zone_resets: u64,
}

impl ThreadStats {
    /// Reset everything measured (end of ramp_time).
    pub fn reset(&mut self) {
        let error = self.error;
        // The priorities cmdprio keeps apart stay, emptied.
        let prios: Vec<Vec<u16>> = self
            .dir
            .iter()
            .map(|d| d.prios.iter().map(|p| p.0).collect())
            .collect();
        *self = ThreadStats::default();
        self.error = error;
        for (d, keys) in self.dir.iter_mut().zip(prios) {
            d.prios = keys
                .into_iter()
                .map(|p| (p, LatencyHistogram::default()))
                .collect();
        }
    }

    /// All directions folded into the first (unified_rw_reporting=mixed).
    pub fn folded(&self) -> ThreadStats {
        let mut t = self.clone();
        let (first, rest) = t.dir.split_at_mut(1);
        let m = &mut first[0];
        for o in rest.iter() {
            m.io_bytes += o.io_bytes;
            m.ios += o.ios;
            m.short_ios += o.short_ios;
            m.slat.merge(&o.slat);
            m.clat.merge(&o.clat);
            m.lat.merge(&o.lat);
            m.bw.add_fieldwise(&o.bw);
            m.iops.add_fieldwise(&o.iops);
            m.runtime_ms = m.runtime_ms.max(o.runtime_ms);
            merge_prios(&mut m.prios, &o.prios);
        }
        for o in rest.iter_mut() {
            *o = DirStats::default();
        }
        t.issued = [self.issued[..3].iter().sum(), 0, 0, self.issued[3]];
        t
    }

    /// Merge another member of a reporting unit (group_reporting).
    pub fn merge(&mut self, o: &ThreadStats) {
        for d in 0..3 {
            let (a, b) = (&mut self.dir[d], &o.dir[d]);
            a.io_bytes += b.io_bytes;
            a.ios += b.ios;
            a.short_ios += b.short_ios;
            a.slat.merge(&b.slat);
            a.clat.merge(&b.clat);
            a.lat.merge(&b.lat);
            a.bw.add_fieldwise(&b.bw);
            a.iops.add_fieldwise(&b.iops);
            a.runtime_ms = a.runtime_ms.max(b.runtime_ms);
            merge_prios(&mut a.prios, &b.prios);
        }
        self.sync_lat.merge(&o.sync_lat);
        self.sync_ios += o.sync_ios;
        for i in 0..7 {
            self.depth_map[i] += o.depth_map[i];
            self.submit_map[i] += o.submit_map[i];
            self.complete_map[i] += o.complete_map[i];
        }
        self.submit_calls += o.submit_calls;
        self.complete_calls += o.complete_calls;
        for i in 0..4 {
            self.issued[i] += o.issued[i];
        }
        self.usr_ms += o.usr_ms;
        self.sys_ms += o.sys_ms;
        self.ctx += o.ctx;
        self.majf += o.majf;
        self.minf += o.minf;
        self.total_err += o.total_err;
        self.zone_resets += o.zone_resets;
        if self.first_error == 0 {
            self.first_error = o.first_error;
        }
        self.runtime_ms += o.runtime_ms;
        merge_steadystate(&mut self.steadystate, &o.steadystate);
        if self.error == 0 {
            self.error = o.error;
            self.error_text.clone_from(&o.error_text);
        }
    }
}

/// The `steadystate` block of a job's report (JSON and normal output).
#[derive(Debug, Clone, serde::Serialize, PartialEq)]
pub struct SsReport {
    pub criterion: crate::job::steadystate::Criterion,
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
/// group_reporting: every member's block is its group's; fio's report
/// takes the group's last job's, so does this.
pub fn merge_steadystate(into: &mut Option<Box<SsReport>>, other: &Option<Box<SsReport>>) {
    if other.is_some() {
        into.clone_from(other);
    }
}

/// How a job ended when it ended with an error.
#[derive(Debug, Clone)]
pub struct IoError {
    pub errno: i32,
    pub kind: IoKind,
    pub offset: u64,
    pub len: usize,
    pub file: usize,
    /// Not an I/O's own error (rate_min, placement): where it came from.
    pub site: Option<Box<Site>>,
}

impl IoError {
    /// An error that is not one I/O's (setup, rate_min, a commit, an
    /// engine that cannot start), reported from fio's `at`/`func`, with
    /// `note` printed before it.
    pub fn at_site(errno: i32, at: &'static str, func: &'static str, note: String) -> IoError {
        IoError {
            errno,
            kind: IoKind::Read,
            offset: 0,
            len: 0,
            file: 0,
            site: Some(Box::new(Site { at, func, note })),
        }
    }
}

/// Where a job-ending error came from when it was not an I/O: fio's
/// `td_verror` site (`file:backend.c:1131, func=check_min_rate`) and the
/// line fio prints on stderr first, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Site {
    pub at: &'static str,
    pub func: &'static str,
    pub note: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_match_fio_sample_stddev() {
        let mut s = Samples::default();
        for v in [2, 4, 4, 4, 5, 5, 7, 9] {
            s.push(v);
        }
        assert_eq!((s.min, s.max, s.n), (2, 9, 8));
        assert!((s.mean - 5.0).abs() < 1e-9);
        assert!((s.stddev() - (32.0f64 / 7.0).sqrt()).abs() < 1e-9);
    }

    #[test]
    fn buckets() {
        assert_eq!(depth_bucket(1), 0);
        assert_eq!(depth_bucket(16), 4);
        assert_eq!(depth_bucket(64), 6);
        assert_eq!(batch_bucket(1), 1);
        assert_eq!(batch_bucket(16), 3);
        assert_eq!(batch_bucket(65), 6);
    }
}
