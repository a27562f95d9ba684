//! The client's side of `tsconv`: a server's TS and GS payloads as rfio's
//! report types, so the normal, JSON and terse views render them as they
//! render a local run; and fio's sum of every client's TS (`All clients`).

use super::protocol::{GroupRunStats, IoStat, ThreadStat, DDIRS, PLAT_NR};
use crate::result::{DirReport, GroupDir, GroupReport, LatReport, SampleReport, UnitReport};
use rbench_common::histogram::{bucket_value, LatencyHistogram};

fn stddev(s: &IoStat) -> f64 {
    if s.samples > 1 {
        (s.s / (s.samples as f64 - 1.0)).sqrt()
    } else {
        0.0
    }
}

/// The histogram of fio's bucket counts (only its buckets are read).
fn histogram(plat: &[u64]) -> LatencyHistogram {
    let mut h = LatencyHistogram::new();
    for (i, &c) in plat.iter().enumerate().filter(|(_, &c)| c > 0) {
        h.record_n(bucket_value(i), c);
    }
    h
}

fn lat_report(s: &IoStat, plat: &[u64], pct: Option<&[f64]>, plus: bool) -> LatReport {
    let need_hist = plus || (pct.is_some() && s.samples > 0);
    let h = need_hist.then(|| histogram(plat));
    LatReport {
        min: if s.samples == 0 { 0 } else { s.min },
        max: s.max,
        mean: s.mean,
        stddev: stddev(s),
        n: s.samples,
        percentiles: match (&h, pct) {
            (Some(h), Some(p)) if s.samples > 0 => {
                Some(p.iter().copied().zip(h.percentiles(p)).collect())
            }
            _ => None,
        },
        bins: match (&h, plus) {
            (Some(h), true) => h.bins().collect(),
            _ => Vec::new(),
        },
    }
}

fn sample_report(s: &IoStat) -> SampleReport {
    SampleReport {
        min: if s.samples == 0 { 0 } else { s.min },
        max: s.max,
        mean: s.mean,
        stddev: stddev(s),
        samples: s.samples,
    }
}

/// fio's `stat_calc_dist`: percent of `total`, a non-zero share under 0.1
/// shows as 0.1.
fn dist<const N: usize>(map: &[u64; N], total: u64) -> [f64; N] {
    std::array::from_fn(|i| {
        if total == 0 {
            return 0.0;
        }
        let v = map[i] as f64 * 100.0 / total as f64;
        if map[i] > 0 && v < 0.1 {
            0.1
        } else {
            v
        }
    })
}

/// fio's `stat_calc_lat`: a non-zero share under 0.01 shows as 0.01.
fn lat_share<const N: usize>(map: &[u64; N], total: u64) -> [f64; N] {
    std::array::from_fn(|i| {
        if total == 0 || map[i] == 0 {
            return 0.0;
        }
        (map[i] as f64 * 100.0 / total as f64).max(0.01)
    })
}

fn dir_report(t: &ThreadStat, d: usize, pct: &[f64], plus: bool) -> DirReport {
    let rt = t.runtime[d];
    let plat = |k: usize| {
        let at = (k * DDIRS + d) * PLAT_NR;
        &t.plat[at..at + PLAT_NR]
    };
    let on = |flag: u32| (flag != 0).then_some(pct);
    // fio's convert_agg_kbytes_percent: the mean (cut to an int) over the
    // group's rate in KiB/s, 100% at most and for a group under 1 KiB/s.
    let agg = t.rs.agg[d];
    let p_of_agg = if agg > 1024 {
        (f64::from(t.bw[d].mean as i32) * 100.0 / (agg as f64 / 1024.0)).min(100.0)
    } else {
        100.0
    };
    DirReport {
        io_bytes: t.io_bytes[d],
        bw_bytes: (t.io_bytes[d] * 1000).checked_div(rt).unwrap_or(0),
        iops: if rt > 0 {
            t.total_io_u[d] as f64 * 1000.0 / rt as f64
        } else {
            0.0
        },
        runtime_ms: rt,
        total_ios: t.total_io_u[d],
        short_ios: t.short_io_u[d],
        slat: lat_report(&t.slat[d], plat(0), on(t.slat_percentiles), plus),
        clat: lat_report(&t.clat[d], plat(1), on(t.clat_percentiles), plus),
        lat: lat_report(&t.lat[d], plat(2), on(t.lat_percentiles), plus),
        bw: sample_report(&t.bw[d]),
        bw_agg: if t.bw[d].samples == 0 { 0.0 } else { p_of_agg },
        iops_samples: sample_report(&t.iops[d]),
        // The per-priority stats travel in fio's clat_prio frames, which
        // this view does not read.
        prios: Vec::new(),
    }
}

/// rfio's unit_base (8 bytes, 1 bits, 0 plain numbers) from fio's num2str
/// unit in a TS.
fn unit_base(n2s: u32) -> u32 {
    match n2s {
        5 => 1,
        0 => 0,
        _ => 8,
    }
}

/// One TS as a reporting unit; `options` are its job options (JOB_OPT).
pub fn unit(t: &ThreadStat, options: Vec<(String, String)>, plus: bool, when: &str) -> UnitReport {
    let n = t
        .percentile_list
        .iter()
        .position(|&p| p == 0.0)
        .unwrap_or(t.percentile_list.len());
    let pct = &t.percentile_list[..n];
    let issued: u64 = t.total_io_u[..3].iter().sum();
    let cpu = |v: u64| {
        if t.total_run_time == 0 {
            0.0
        } else {
            v as f64 * 100.0 / t.total_run_time as f64
        }
    };
    let dirs: [DirReport; 3] = std::array::from_fn(|d| dir_report(t, d, pct, plus));
    let idle = issued == 0 && t.sync_stat.samples == 0 && dirs.iter().all(|d| d.io_bytes == 0);
    UnitReport {
        jobname: t.name.clone(),
        groupid: t.groupid,
        members: t.members as usize,
        error: t.error as i32,
        error_context: (!t.verror.is_empty()).then(|| t.verror.clone()),
        pid: t.pid,
        finished_ctime: when.to_string(),
        description: (!t.description.is_empty()).then(|| t.description.clone()),
        job_options: options,
        dirs,
        sync_ios: t.sync_stat.samples,
        zone_resets: t.nr_zone_resets,
        sync_lat: lat_report(
            &t.sync_stat,
            &t.sync_plat,
            (t.clat_percentiles != 0 || t.lat_percentiles != 0).then_some(pct),
            plus,
        ),
        job_runtime_ms: t.total_run_time,
        usr_cpu: cpu(t.usr_time),
        sys_cpu: cpu(t.sys_time),
        ctx: t.ctx,
        majf: t.majf,
        minf: t.minf,
        iodepth_level: dist(&t.io_u_map, issued),
        iodepth_submit: dist(&t.io_u_submit, t.total_submit),
        iodepth_complete: dist(&t.io_u_complete, t.total_complete),
        latency_ns: lat_share(&t.io_u_lat_n, issued),
        latency_us: lat_share(&t.io_u_lat_u, issued),
        latency_ms: lat_share(&t.io_u_lat_m, issued),
        issued: t.total_io_u,
        errors: (t.continue_on_error != 0).then_some((t.total_err_count, t.first_error as i32)),
        short: t.short_io_u,
        iodepth: t.latency_depth as usize,
        latency_target: (t.latency_target, t.latency_window, t.latency_percentile),
        unified: t.unified_rw_rep.min(2) as u8,
        mixed: None,
        pct_precision: t.percentile_precision as usize,
        clat_percentiles: t.clat_percentiles != 0,
        lat_percentiles: t.lat_percentiles != 0,
        slat_percentiles: t.slat_percentiles != 0,
        // fio's sum of every client starts from zero: its is_power_of_2(0)
        // reads as 1024.
        kb_base: if t.kb_base == 0 {
            1024
        } else {
            u64::from(t.kb_base)
        },
        unit_base: unit_base(t.unit_base),
        sig_figs: if t.sig_figs == 0 {
            4
        } else {
            t.sig_figs as usize
        },
        elapsed_s: 0,
        eta: 0,
        idle,
        steadystate: None,
    }
}

/// One GS as a group's lines.
pub fn group(g: &GroupRunStats) -> GroupReport {
    let dir = |d: usize| GroupDir {
        io_bytes: g.iobytes[d],
        agg_bw: g.agg[d],
        min_bw: g.min_bw[d],
        max_bw: g.max_bw[d],
        min_run: g.min_run[d],
        max_run: g.max_run[d],
    };
    GroupReport {
        groupid: g.groupid,
        unified: g.unified_rw_rep.min(2) as u8,
        mixed: None,
        kb_base: if g.kb_base == 0 {
            1024
        } else {
            u64::from(g.kb_base)
        },
        unit_base: unit_base(g.unit_base),
        sig_figs: if g.sig_figs == 0 {
            4
        } else {
            g.sig_figs as usize
        },
        dirs: std::array::from_fn(dir),
    }
}

/// fio's `__sum_stat` (pure: min, max, mean and S added up, for bw and
/// iops samples) or the parallel mean/variance merge.
fn sum_stat(dst: &mut IoStat, src: &IoStat, pure: bool) {
    if src.samples == 0 {
        return;
    }
    if dst.samples == 0 {
        *dst = *src;
        return;
    }
    if pure {
        dst.min += src.min;
        dst.max += src.max;
        dst.samples += src.samples;
        dst.mean += src.mean;
        dst.s += src.s;
        return;
    }
    let (n1, n2) = (dst.samples as f64, src.samples as f64);
    let delta = src.mean - dst.mean;
    let mean = (src.mean * n2 + dst.mean * n1) / (n1 + n2);
    dst.s = src.s + dst.s + delta * delta * n1 * n2 / (n1 + n2);
    dst.mean = mean;
    dst.min = dst.min.min(src.min);
    dst.max = dst.max.max(src.max);
    dst.samples += src.samples;
}

fn add<const N: usize>(dst: &mut [u64; N], src: &[u64; N]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d += s;
    }
}

/// fio's `sum_thread_stats` (directions kept apart) into `dst`, which
/// starts as `ThreadStat::default()`.
pub fn sum_into(dst: &mut ThreadStat, src: &ThreadStat) {
    for d in 0..DDIRS {
        sum_stat(&mut dst.clat[d], &src.clat[d], false);
        sum_stat(&mut dst.slat[d], &src.slat[d], false);
        sum_stat(&mut dst.lat[d], &src.lat[d], false);
        sum_stat(&mut dst.bw[d], &src.bw[d], true);
        sum_stat(&mut dst.iops[d], &src.iops[d], true);
        dst.io_bytes[d] += src.io_bytes[d];
        dst.runtime[d] = dst.runtime[d].max(src.runtime[d]);
        dst.short_io_u[d] += src.short_io_u[d];
        dst.drop_io_u[d] += src.drop_io_u[d];
    }
    sum_stat(&mut dst.sync_stat, &src.sync_stat, false);
    dst.usr_time += src.usr_time;
    dst.sys_time += src.sys_time;
    dst.ctx += src.ctx;
    dst.majf += src.majf;
    dst.minf += src.minf;
    add(&mut dst.io_u_map, &src.io_u_map);
    add(&mut dst.io_u_submit, &src.io_u_submit);
    add(&mut dst.io_u_complete, &src.io_u_complete);
    add(&mut dst.io_u_lat_n, &src.io_u_lat_n);
    add(&mut dst.io_u_lat_u, &src.io_u_lat_u);
    add(&mut dst.io_u_lat_m, &src.io_u_lat_m);
    add(&mut dst.total_io_u, &src.total_io_u);
    for (a, b) in dst.plat.iter_mut().zip(&src.plat) {
        *a += b;
    }
    for (a, b) in dst.sync_plat.iter_mut().zip(&src.sync_plat) {
        *a += b;
    }
    dst.total_run_time += src.total_run_time;
    dst.total_submit += src.total_submit;
    dst.total_complete += src.total_complete;
    dst.nr_zone_resets += src.nr_zone_resets;
}

/// fio's `sum_group_stats` into `dst` (starting all zero).
pub fn sum_group(dst: &mut GroupRunStats, src: &GroupRunStats) {
    for d in 0..DDIRS {
        dst.max_run[d] = dst.max_run[d].max(src.max_run[d]);
        if dst.min_run[d] != 0 && dst.min_run[d] > src.min_run[d] {
            dst.min_run[d] = src.min_run[d];
        }
        dst.max_bw[d] = dst.max_bw[d].max(src.max_bw[d]);
        if dst.min_bw[d] != 0 && dst.min_bw[d] > src.min_bw[d] {
            dst.min_bw[d] = src.min_bw[d];
        }
        dst.iobytes[d] += src.iobytes[d];
        dst.agg[d] += src.agg[d];
    }
    if dst.kb_base == 0 {
        dst.kb_base = src.kb_base;
    }
    if dst.unit_base == 0 {
        dst.unit_base = src.unit_base;
    }
    if dst.sig_figs == 0 {
        dst.sig_figs = src.sig_figs;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(mean_kib: f64, agg: u64, clat: &[(u64, u64)]) -> ThreadStat {
        let mut t = ThreadStat {
            name: "j".into(),
            members: 1,
            kb_base: 1024,
            unit_base: 4,
            sig_figs: 4,
            latency_depth: 1,
            clat_percentiles: 1,
            ..ThreadStat::default()
        };
        t.percentile_list[..3].copy_from_slice(&[50.0, 90.0, 99.0]);
        t.bw[0] = IoStat {
            max: 2000,
            min: 1000,
            samples: 2,
            mean: mean_kib,
            s: 0.0,
        };
        t.rs.agg[0] = agg;
        let n: u64 = clat.iter().map(|c| c.1).sum();
        t.clat[0] = IoStat {
            max: clat.iter().map(|c| c.0).max().unwrap_or(0),
            min: clat.iter().map(|c| c.0).min().unwrap_or(0),
            samples: n,
            mean: 0.0,
            s: 0.0,
        };
        for &(v, c) in clat {
            t.plat_mut(1, 0)[rbench_common::histogram::bucket_index(v)] += c;
        }
        t.io_bytes[0] = n * 4096;
        t.total_io_u[0] = n;
        t.runtime[0] = 1000;
        t
    }

    #[test]
    fn share_of_the_group_as_fio_computes_it() {
        // The mean cut to 1500 KiB/s over a 2048 KiB/s group.
        let u = unit(&ts(1500.7, 2048 * 1024, &[]), Vec::new(), false, "");
        assert_eq!(u.dirs[0].bw_agg, 1500.0 * 100.0 / 2048.0);
        let u = unit(&ts(1500.7, 1000 * 1024, &[]), Vec::new(), false, "");
        assert_eq!(u.dirs[0].bw_agg, 100.0);
        let u = unit(&ts(1500.7, 1000, &[]), Vec::new(), false, "");
        assert_eq!(u.dirs[0].bw_agg, 100.0);
    }

    #[test]
    fn percentiles_and_the_sum_of_two_hosts_come_from_the_buckets() {
        let a = ts(100.0, 4096 * 1024, &[(10, 50), (20, 50)]);
        let b = ts(100.0, 4096 * 1024, &[(30, 100)]);
        let p = |t: &ThreadStat| {
            unit(t, Vec::new(), false, "").dirs[0]
                .clat
                .percentiles
                .clone()
                .unwrap_or_default()
        };
        assert_eq!(p(&a), [(50.0, 10), (90.0, 20), (99.0, 20)]);
        let mut sum = ThreadStat::default();
        sum_into(&mut sum, &a);
        sum_into(&mut sum, &b);
        assert_eq!(sum.clat[0].samples, 200);
        assert_eq!((sum.clat[0].min, sum.clat[0].max), (10, 30));
        assert_eq!(sum.total_io_u[0], 200);
        // The sum prints no percentiles (fio's client_ts has none on)...
        assert!(unit(&sum, Vec::new(), false, "").dirs[0]
            .clat
            .percentiles
            .is_none());
        // ...though its buckets hold both hosts.
        sum.clat_percentiles = 1;
        sum.percentile_list = a.percentile_list;
        assert_eq!(p(&sum), [(50.0, 20), (90.0, 30), (99.0, 30)]);
        // bw and iops samples add up as fio's pure sums.
        assert_eq!(sum.bw[0].mean, 200.0);
        assert_eq!(sum.bw[0].min, 2000);
    }
}
