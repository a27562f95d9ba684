//! rfio's measurements as fio's `thread_stat` and `group_run_stats`, the
//! numbers a fio client renders its report from.

use super::protocol::{DiskUtil, GroupRunStats, IoStat, ThreadStat};
use crate::job::Job;
use crate::result::{GroupReport, UnitReport};
use crate::stats::{Samples, ThreadStats};
use rbench_common::histogram::LatencyHistogram;

/// fio's unit_base inside a thread_stat: its num2str unit (bytes or bits
/// per second), where rfio keeps the option's 8 or 1.
pub fn n2s_unit(unit_base: u32) -> u32 {
    if unit_base == 1 {
        5
    } else {
        4
    }
}

fn io_stat(h: &LatencyHistogram) -> IoStat {
    let n = h.count();
    if n == 0 {
        return IoStat::default();
    }
    let sd = h.stddev();
    IoStat {
        max: h.max(),
        min: h.min(),
        samples: n,
        mean: h.mean(),
        s: sd * sd * (n.saturating_sub(1)) as f64,
    }
}

fn sample_stat(s: &Samples) -> IoStat {
    IoStat {
        max: s.max,
        min: s.min,
        samples: s.n,
        mean: s.mean,
        s: s.s,
    }
}

/// fio's io_u_lat_{n,u,m} counts from the completion latencies: ns and µs
/// buckets with upper bounds 2..1000, ms up to 2000 and >= 2000.
fn lat_counts(h: &LatencyHistogram) -> ([u64; 10], [u64; 10], [u64; 12]) {
    const EDGES: [u64; 10] = [2, 4, 10, 20, 50, 100, 250, 500, 750, 1000];
    let slot = |v: u64| EDGES.iter().position(|&e| v < e).unwrap_or(9);
    let (mut ns, mut us, mut ms) = ([0u64; 10], [0u64; 10], [0u64; 12]);
    for (v, c) in h.bins() {
        if v < 1000 {
            ns[slot(v)] += c;
        } else if v < 1_000_000 {
            us[slot(v / 1000)] += c;
        } else {
            let m = v / 1_000_000;
            let i = match m {
                2000.. => 11,
                1000.. => 10,
                _ => slot(m),
            };
            ms[i] += c;
        }
    }
    (ns, us, ms)
}

/// One reporting unit: `first` is the index of its first job.
pub fn thread_stat(
    job: &Job,
    first: usize,
    st: &ThreadStats,
    unit: &UnitReport,
    group: Option<&GroupReport>,
) -> ThreadStat {
    let mut t = ThreadStat {
        name: unit.jobname.clone(),
        verror: unit
            .error_context
            .as_deref()
            .map(|c| c.trim_start_matches('(').trim_end_matches(')').to_string())
            .unwrap_or_default(),
        error: unit.error as u32,
        thread_number: first as u32 + 1,
        groupid: unit.groupid,
        pid: unit.pid,
        description: unit.description.clone().unwrap_or_default(),
        members: unit.members as u32,
        unified_rw_rep: u32::from(unit.unified),
        sync_stat: io_stat(&st.sync_lat),
        usr_time: st.usr_ms.round() as u64,
        sys_time: st.sys_ms.round() as u64,
        ctx: st.ctx,
        minf: st.minf,
        majf: st.majf,
        clat_percentiles: u32::from(unit.clat_percentiles),
        lat_percentiles: u32::from(unit.lat_percentiles),
        slat_percentiles: u32::from(unit.slat_percentiles),
        percentile_precision: unit.pct_precision as u64,
        io_u_map: st.depth_map,
        io_u_submit: st.submit_map,
        io_u_complete: st.complete_map,
        total_io_u: st.issued,
        short_io_u: unit.short,
        total_submit: st.submit_calls,
        total_complete: st.complete_calls,
        total_run_time: st.runtime_ms,
        continue_on_error: u16::from(unit.errors.is_some()),
        first_error: st.first_error as u32,
        total_err_count: st.total_err,
        nr_zone_resets: st.zone_resets,
        kb_base: unit.kb_base as u32,
        unit_base: n2s_unit(unit.unit_base),
        latency_depth: unit.iodepth as u32,
        latency_target: unit.latency_target.0,
        latency_window: unit.latency_target.1,
        latency_percentile: unit.latency_target.2,
        sig_figs: unit.sig_figs as u32,
        ..ThreadStat::default()
    };
    for (i, p) in job
        .reporting
        .percentiles
        .iter()
        .take(t.percentile_list.len())
        .enumerate()
    {
        t.percentile_list[i] = *p;
    }
    for d in 0..3 {
        let ds = &st.dir[d];
        t.slat[d] = io_stat(&ds.slat);
        t.clat[d] = io_stat(&ds.clat);
        t.lat[d] = io_stat(&ds.lat);
        t.bw[d] = sample_stat(&ds.bw);
        t.iops[d] = sample_stat(&ds.iops);
        t.io_bytes[d] = ds.io_bytes;
        t.runtime[d] = if ds.io_bytes == 0 { 0 } else { ds.runtime_ms };
        for (k, h) in [&ds.slat, &ds.clat, &ds.lat].into_iter().enumerate() {
            t.plat_mut(k, d).copy_from_slice(h.buckets());
        }
    }
    t.sync_plat = st.sync_lat.buckets().to_vec();
    let mut clat_all = st.dir[0].clat.clone();
    clat_all.merge(&st.dir[1].clat);
    clat_all.merge(&st.dir[2].clat);
    (t.io_u_lat_n, t.io_u_lat_u, t.io_u_lat_m) = lat_counts(&clat_all);
    if let Some(g) = group {
        t.rs = group_stats(g);
    }
    t
}

pub fn group_stats(g: &GroupReport) -> GroupRunStats {
    GroupRunStats {
        max_run: g.dirs.each_ref().map(|d| d.max_run),
        min_run: g.dirs.each_ref().map(|d| d.min_run),
        max_bw: g.dirs.each_ref().map(|d| d.max_bw),
        min_bw: g.dirs.each_ref().map(|d| d.min_bw),
        iobytes: g.dirs.each_ref().map(|d| d.io_bytes),
        agg: g.dirs.each_ref().map(|d| d.agg_bw),
        kb_base: g.kb_base as u32,
        unit_base: n2s_unit(g.unit_base),
        sig_figs: g.sig_figs as u32,
        groupid: g.groupid,
        unified_rw_rep: u32::from(g.unified),
    }
}

/// One device's statistics; rfio keeps the utilisation as a percentage,
/// which travels as io_ticks over a fixed msec.
pub fn disk_util(d: &crate::run::files::diskstats::DiskReport) -> DiskUtil {
    const MSEC: u64 = 1_000_000;
    DiskUtil {
        name: d.name.clone(),
        ios: [d.read_ios, d.write_ios],
        merges: [d.read_merges, d.write_merges],
        ticks: [d.read_ticks, d.write_ticks],
        io_ticks: (d.util * MSEC as f64 / 100.0).round() as u64,
        time_in_queue: d.in_queue,
        msec: MSEC,
        ..DiskUtil::default()
    }
}

// --- h1: ETA with rates ---
/// The run's status as fio's `jobs_eta`; `fmt` carries the number format
/// (is_pow2, unit_base, sig_figs).
pub fn jobs_eta(
    st: &crate::run::eta::Status,
    fmt: super::protocol::JobsEta,
) -> super::protocol::JobsEta {
    super::protocol::JobsEta {
        nr_running: st.nr_running,
        nr_pending: st.nr_pending,
        files_open: st.files_open,
        nr_threads: st.nr_threads,
        m_rate: st.m_rate,
        t_rate: st.t_rate,
        rate: st.rate_kib,
        m_iops: st.m_iops,
        t_iops: st.t_iops,
        iops: st.iops,
        elapsed_sec: st.elapsed_sec,
        eta_sec: st.eta_sec,
        run_str: st.run_str.clone(),
        ..fmt
    }
}
