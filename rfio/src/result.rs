//! The one result type every report renders: reporting units (jobs, or
//! groups with group_reporting), group lines and run metadata. Built once
//! from the measurements; nothing here prints.

use crate::job::Job;
use crate::run::JobRun;
use crate::stats::{Samples, ThreadStats};
use rbench_common::histogram::LatencyHistogram;
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct LatReport {
    pub min: u64,
    pub max: u64,
    pub mean: f64,
    pub stddev: f64,
    pub n: u64,
    /// (percentile, ns) when that kind's percentiles are on and N > 0.
    pub percentiles: Option<Vec<(f64, u64)>>,
    /// json+ bins: (bucket value, count).
    pub bins: Vec<(u64, u64)>,
}

impl LatReport {
    fn from(h: &LatencyHistogram, pct: Option<&[f64]>, bins: bool) -> Self {
        let n = h.count();
        LatReport {
            min: h.min(),
            max: h.max(),
            mean: h.mean(),
            stddev: h.stddev(),
            n,
            percentiles: pct
                .filter(|_| n > 0)
                .map(|p| p.iter().copied().zip(h.percentiles(p)).collect()),
            bins: if bins { h.bins().collect() } else { Vec::new() },
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct SampleReport {
    pub min: u64,
    pub max: u64,
    pub mean: f64,
    pub stddev: f64,
    pub samples: u64,
}

impl From<&Samples> for SampleReport {
    fn from(s: &Samples) -> Self {
        SampleReport {
            min: s.min,
            max: s.max,
            mean: s.mean,
            stddev: s.stddev(),
            samples: s.n,
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct DirReport {
    pub io_bytes: u64,
    pub bw_bytes: u64,
    pub iops: f64,
    pub runtime_ms: u64,
    pub total_ios: u64,
    pub short_ios: u64,
    pub slat: LatReport,
    pub clat: LatReport,
    pub lat: LatReport,
    pub bw: SampleReport,
    /// Share of the group's bandwidth, percent.
    pub bw_agg: f64,
    pub iops_samples: SampleReport,
    /// cmdprio: (ioprio, its clat or lat) of each priority with I/Os, when
    /// at least two have some (fio shows none otherwise).
    pub prios: Vec<(u16, LatReport)>,
}

#[derive(Debug, Clone, Serialize)]
pub struct UnitReport {
    pub jobname: String,
    pub groupid: u32,
    pub members: usize,
    pub error: i32,
    pub error_context: Option<String>,
    pub pid: u32,
    pub finished_ctime: String,
    pub description: Option<String>,
    pub job_options: Vec<(String, String)>,
    pub dirs: [DirReport; 3],
    pub sync_ios: u64,
    /// zonemode=zbd: zones reset (the write line's `N zone resets`).
    pub zone_resets: u64,
    pub sync_lat: LatReport,
    pub job_runtime_ms: u64,
    pub usr_cpu: f64,
    pub sys_cpu: f64,
    pub ctx: u64,
    pub majf: u64,
    pub minf: u64,
    pub iodepth_level: [f64; 7],
    pub iodepth_submit: [f64; 7],
    pub iodepth_complete: [f64; 7],
    pub latency_ns: [f64; 10],
    pub latency_us: [f64; 10],
    pub latency_ms: [f64; 12],
    pub issued: [u64; 4],
    /// (total, first errno) when continue_on_error is set.
    pub errors: Option<(u64, i32)>,
    pub short: [u64; 3],
    pub iodepth: usize,
    /// latency_target (ns), latency_window (µs), latency_percentile.
    pub latency_target: (u64, u64, f64),
    /// unified_rw_reporting: 0 none, 1 mixed (dirs[0] holds all), 2 both.
    pub unified: u8,
    /// The folded direction of unified_rw_reporting=both.
    pub mixed: Option<DirReport>,
    pub pct_precision: usize,
    pub clat_percentiles: bool,
    pub lat_percentiles: bool,
    pub slat_percentiles: bool,
    pub kb_base: u64,
    pub unit_base: u32,
    pub sig_figs: usize,
    pub elapsed_s: u64,
    pub eta: u64,
    /// The unit moved no data and did no I/O: no normal-output block.
    pub idle: bool,
    /// The steadystate block (ss_dur set).
    pub steadystate: Option<crate::stats::SsReport>,
}

#[derive(Debug, Clone, Serialize)]
pub struct GroupDir {
    pub io_bytes: u64,
    pub agg_bw: u64,
    pub min_bw: u64,
    pub max_bw: u64,
    pub min_run: u64,
    pub max_run: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct GroupReport {
    pub groupid: u32,
    pub unified: u8,
    /// The `MIXED` line of unified_rw_reporting=both.
    pub mixed: Option<GroupDir>,
    pub kb_base: u64,
    pub unit_base: u32,
    pub sig_figs: usize,
    pub dirs: [GroupDir; 3],
}

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub timestamp: u64,
    pub timestamp_ms: u64,
    pub time: String,
    pub global_options: Vec<(String, String)>,
    pub units: Vec<UnitReport>,
    pub groups: Vec<GroupReport>,
}

/// `ctime()` text without the newline, in local time.
pub fn ctime(t: std::time::SystemTime) -> String {
    let secs = t
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs()) as libc::time_t;
    let mut buf = [0 as libc::c_char; 64];
    // SAFETY: ctime_r writes at most 26 bytes into our 64-byte buffer.
    let p = unsafe { libc::ctime_r(&secs, buf.as_mut_ptr()) };
    if p.is_null() {
        return String::new();
    }
    // SAFETY: ctime_r NUL-terminated the buffer.
    unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) }
        .to_string_lossy()
        .trim_end()
        .to_string()
}

/// fio's `stat_calc_dist`: percent of `total`, a non-zero share below 0.1
/// shows as 0.1.
fn dist<const N: usize>(map: &[u64; N], total: u64) -> [f64; N] {
    let mut out = [0.0; N];
    if total == 0 {
        return out;
    }
    for i in 0..N {
        let v = map[i] as f64 * 100.0 / total as f64;
        out[i] = if map[i] > 0 && v < 0.1 { 0.1 } else { v };
    }
    out
}

/// The latency distribution from clat (§6.1): ns and µs buckets with upper
/// bounds 2..1000, ms up to 2000 and >= 2000; a non-zero share below 0.01
/// shows as 0.01.
fn lat_dist(h: &LatencyHistogram, total: u64) -> ([f64; 10], [f64; 10], [f64; 12]) {
    const EDGES: [u64; 10] = [2, 4, 10, 20, 50, 100, 250, 500, 750, 1000];
    let mut ns = [0u64; 10];
    let mut us = [0u64; 10];
    let mut ms = [0u64; 12];
    let slot = |v: u64| EDGES.iter().position(|&e| v < e).unwrap_or(9);
    for (v, c) in h.bins() {
        if v < 1000 {
            ns[slot(v)] += c;
        } else if v < 1_000_000 {
            us[slot(v / 1000)] += c;
        } else {
            let m = v / 1_000_000;
            let i = if m >= 2000 {
                11
            } else if m >= 1000 {
                10
            } else {
                slot(m)
            };
            ms[i] += c;
        }
    }
    let pct = |c: u64| {
        if total == 0 || c == 0 {
            0.0
        } else {
            (c as f64 * 100.0 / total as f64).max(0.01)
        }
    };
    (ns.map(pct), us.map(pct), ms.map(pct))
}

fn dir_report(job: &Job, s: &crate::stats::DirStats, json_plus: bool) -> DirReport {
    let p = &job.reporting.percentiles[..];
    // fio adds a direction's runtime only when it moved bytes.
    let rt = if s.io_bytes == 0 { 0 } else { s.runtime_ms };
    DirReport {
        io_bytes: s.io_bytes,
        bw_bytes: (s.io_bytes * 1000).checked_div(rt).unwrap_or(0),
        iops: if rt > 0 {
            s.ios as f64 * 1000.0 / rt as f64
        } else {
            0.0
        },
        runtime_ms: rt,
        total_ios: s.ios,
        short_ios: s.short_ios,
        slat: LatReport::from(
            &s.slat,
            job.reporting.slat_percentiles.then_some(p),
            json_plus,
        ),
        clat: LatReport::from(
            &s.clat,
            job.reporting.clat_percentiles.then_some(p),
            json_plus,
        ),
        lat: LatReport::from(
            &s.lat,
            job.reporting.lat_percentiles.then_some(p),
            json_plus,
        ),
        bw: SampleReport::from(&s.bw),
        bw_agg: 0.0,
        iops_samples: SampleReport::from(&s.iops),
        prios: prio_reports(job, s, json_plus),
    }
}

/// The per-priority latencies fio reports (see [`DirReport::prios`]).
fn prio_reports(job: &Job, s: &crate::stats::DirStats, json_plus: bool) -> Vec<(u16, LatReport)> {
    let with_ios = s.prios.iter().filter(|p| p.1.count() > 0).count();
    if with_ios < 2 {
        return Vec::new();
    }
    let pct = (job.reporting.clat_percentiles || job.reporting.lat_percentiles)
        .then_some(&job.reporting.percentiles[..]);
    s.prios
        .iter()
        .filter(|p| p.1.count() > 0)
        .map(|(p, h)| (*p, LatReport::from(h, pct, json_plus)))
        .collect()
}

fn unit_report(
    job: &Job,
    st: &ThreadStats,
    members: usize,
    run: &JobRun,
    json_plus: bool,
    elapsed_s: u64,
) -> UnitReport {
    let p = &job.reporting.percentiles[..];
    // JSON total_ios is fio's issued count (total_io_u): errored I/Os too.
    let dirs = std::array::from_fn(|d| {
        let mut r = dir_report(job, &st.dir[d], json_plus);
        r.total_ios = st.issued[d].max(r.total_ios);
        r
    });
    let rw_ios: u64 = st.dir.iter().map(|d| d.ios).sum();
    let issued_rw: u64 = st.issued[..3].iter().sum();
    let mut clat_all = st.dir[0].clat.clone();
    clat_all.merge(&st.dir[1].clat);
    clat_all.merge(&st.dir[2].clat);
    // fio divides by its issued count (total_io_u): failed I/Os weigh in,
    // so a job with errors shows under 100% (issued = done + failed then).
    let lat_total = if st.error != 0 || st.total_err > 0 {
        issued_rw.max(rw_ios)
    } else {
        rw_ios
    };
    let (latency_ns, latency_us, latency_ms) = lat_dist(&clat_all, lat_total);
    let rt = st.runtime_ms.max(1) as f64;
    let idle = rw_ios == 0 && st.sync_ios == 0 && st.dir.iter().all(|d| d.io_bytes == 0);
    UnitReport {
        jobname: job.name.clone(),
        groupid: job.groupid,
        members,
        // A job that continued past errors reports the first of them (its
        // exit status stays 0, as in fio).
        error: if st.error == 0 && job.errors.shown && st.total_err > 0 {
            st.first_error
        } else {
            st.error
        },
        error_context: run.error_context.clone(),
        pid: run.pid,
        finished_ctime: ctime(run.finished),
        description: job.description.clone(),
        job_options: job
            .opts
            .typed
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
        dirs,
        sync_ios: st.sync_ios,
        zone_resets: st.zone_resets,
        sync_lat: LatReport::from(
            &st.sync_lat,
            (job.reporting.clat_percentiles || job.reporting.lat_percentiles).then_some(p),
            json_plus,
        ),
        job_runtime_ms: st.runtime_ms,
        usr_cpu: if st.runtime_ms > 0 {
            st.usr_ms * 100.0 / rt
        } else {
            0.0
        },
        sys_cpu: if st.runtime_ms > 0 {
            st.sys_ms * 100.0 / rt
        } else {
            0.0
        },
        ctx: st.ctx,
        majf: st.majf,
        minf: st.minf,
        iodepth_level: dist(&st.depth_map, issued_rw),
        iodepth_submit: dist(&st.submit_map, st.submit_calls),
        iodepth_complete: dist(&st.complete_map, st.complete_calls),
        latency_ns,
        latency_us,
        latency_ms,
        issued: st.issued,
        errors: job.errors.shown.then_some((st.total_err, st.first_error)),
        short: [
            st.dir[0].short_ios,
            st.dir[1].short_ios,
            st.dir[2].short_ios,
        ],
        // fio's latency_depth is set when a job starts: 0 (and the
        // latency_* JSON keys left out) for a job whose setup failed.
        iodepth: if run.setup_failed {
            0
        } else if st.latency_qd > 0 {
            st.latency_qd
        } else {
            job.queue.iodepth
        },
        latency_target: (
            job.targets.latency_target_us.saturating_mul(1000),
            job.targets.latency_window_us,
            job.targets.latency_percentile,
        ),
        unified: job.reporting.unified,
        mixed: (job.reporting.unified == 2)
            .then(|| dir_report(job, &st.folded().dir[0], json_plus)),
        pct_precision: job.reporting.pct_precision,
        clat_percentiles: job.reporting.clat_percentiles,
        lat_percentiles: job.reporting.lat_percentiles,
        slat_percentiles: job.reporting.slat_percentiles,
        kb_base: job.kb_base,
        unit_base: job.reporting.unit_base,
        sig_figs: job.reporting.sig_figs,
        elapsed_s,
        eta: if elapsed_s < 3 { 2_147_483_647 } else { 0 },
        idle,
        steadystate: st.steadystate.as_deref().cloned(),
    }
}

/// One direction's group line from its reporting units (§4).
fn group_dir<'a>(dirs: impl Iterator<Item = &'a DirReport> + Clone) -> GroupDir {
    let io: u64 = dirs.clone().map(|d| d.io_bytes).sum();
    let ran = dirs.filter(|d| d.runtime_ms > 0);
    let max_run = ran.clone().map(|d| d.runtime_ms).max().unwrap_or(0);
    GroupDir {
        io_bytes: io,
        agg_bw: (io * 1000).checked_div(max_run).unwrap_or(0),
        min_bw: ran.clone().map(|d| d.bw_bytes).min().unwrap_or(0),
        max_bw: ran.clone().map(|d| d.bw_bytes).max().unwrap_or(0),
        min_run: ran.map(|d| d.runtime_ms).min().unwrap_or(0),
        max_run,
    }
}

/// The jobs of each reporting unit, in order: fio starts a new unit at a
/// job unless that job has group_reporting and the previous job is in its
/// group (§4).
pub fn unit_members(jobs: &[Job]) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < jobs.len() {
        let mut end = i + 1;
        while end < jobs.len()
            && jobs[end].groupid == jobs[i].groupid
            && jobs[end].order.group_reporting
        {
            end += 1;
        }
        out.push(i..end);
        i = end;
    }
    out
}

/// One unit's measurements: its members merged, folded for
/// unified_rw_reporting=mixed.
pub fn unit_stats(jobs: &[Job], runs: &[JobRun], members: std::ops::Range<usize>) -> ThreadStats {
    let first = members.start;
    let mut st = runs[first].stats.clone();
    for k in members.skip(1) {
        st.merge(&runs[k].stats);
    }
    if jobs[first].reporting.unified == 1 {
        st = st.folded();
    }
    st
}

/// Build the report: merge group_reporting members, compute group lines.
pub fn build(
    jobs: &[Job],
    runs: &[JobRun],
    global_options: &[(&'static str, String)],
    json_plus: bool,
    started: std::time::SystemTime,
) -> Report {
    let now = std::time::SystemTime::now();
    let elapsed_s = now
        .duration_since(started)
        .map_or(0, |d| d.as_millis().div_ceil(1000) as u64);
    let mut units = Vec::new();
    // Jobs whose setup failed still get a unit (error set, no I/O), as in
    // fio's JSON and terse output; normal output leaves them out.
    for members in unit_members(jobs) {
        let first = members.start;
        // stats=0: fio collects nothing of the job and reports no unit
        // for it (its own JSON then shows an empty entry, or breaks).
        if !jobs[first].opts.flag("stats") {
            continue;
        }
        let st = unit_stats(jobs, runs, members.clone());
        units.push(unit_report(
            &jobs[first],
            &st,
            members.len(),
            &runs[first],
            json_plus,
            elapsed_s,
        ));
    }
    let mut groups: Vec<GroupReport> = Vec::new();
    let mut gids: Vec<u32> = jobs.iter().map(|j| j.groupid).collect();
    gids.dedup();
    for g in gids {
        let members: Vec<&UnitReport> = units.iter().filter(|u| u.groupid == g).collect();
        let first = jobs.iter().find(|j| j.groupid == g);
        let dirs = std::array::from_fn(|d| group_dir(members.iter().map(|u| &u.dirs[d])));
        let mixed_dirs: Vec<&DirReport> = members.iter().filter_map(|u| u.mixed.as_ref()).collect();
        let unified = first.map_or(0, |j| j.reporting.unified);
        groups.push(GroupReport {
            groupid: g,
            kb_base: first.map_or(1024, |j| j.kb_base),
            unit_base: first.map_or(8, |j| j.reporting.unit_base),
            sig_figs: first.map_or(4, |j| j.reporting.sig_figs),
            dirs,
            unified,
            mixed: (unified == 2).then(|| group_dir(mixed_dirs.iter().copied())),
        });
    }
    // bw_agg: the unit's mean bw against its group's aggregate (§6.1 per=).
    for u in &mut units {
        if let Some(g) = groups.iter().find(|g| g.groupid == u.groupid) {
            for d in 0..3 {
                let agg_kib = g.dirs[d].agg_bw as f64 / 1024.0;
                let mean = u.dirs[d].bw.mean;
                u.dirs[d].bw_agg = if u.dirs[d].bw.samples == 0 {
                    0.0
                } else if agg_kib <= 1.0 {
                    100.0
                } else {
                    (mean / agg_kib * 100.0).min(100.0)
                };
            }
        }
    }
    let ts = now
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    Report {
        timestamp: ts.as_secs(),
        timestamp_ms: ts.as_millis() as u64,
        time: ctime(now),
        global_options: global_options
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
        units,
        groups,
    }
}
