//! fio's normal (human) output, rendered from the [`Report`] (§6).

use crate::job::Job;
use crate::result::{DirReport, GroupReport, LatReport, Report, UnitReport};
use rbench_common::units::fio::{num2str, N2sUnit};
use std::fmt::Write;

const DIR_NAMES: [&str; 3] = ["read", "write", "trim"];
const GROUP_LABELS: [&str; 3] = ["   READ", "  WRITE", "   TRIM"];

/// Job header lines, `fio-3.33` and the `Starting …` line (printed before
/// the jobs run).
pub fn header(jobs: &[Job]) -> String {
    let mut s = crate::job::header::job_lines(jobs);
    s.push_str("fio-3.33\n");
    let threads = jobs.iter().filter(|j| j.thread).count();
    let procs = jobs.len() - threads;
    let plural = |n: usize, w: &str| format!("{n} {w}{}", if n == 1 { "" } else { "es" });
    let tplural = |n: usize| format!("{n} thread{}", if n == 1 { "" } else { "s" });
    let _ = match (procs, threads) {
        (p, 0) => writeln!(s, "Starting {}", plural(p, "process")),
        (0, t) => writeln!(s, "Starting {}", tplural(t)),
        (p, t) => writeln!(s, "Starting {} and {}", tplural(t), plural(p, "process")),
    };
    s
}

/// Scale a latency triple to ns/usec/msec as fio's `display_lat` does.
fn lat_unit(min: u64, max: u64, mean: f64, dev: f64) -> (&'static str, u64, u64, f64, f64) {
    if min > 2_000_000 && max > 99_999_999 && dev > 1_000_000.0 {
        (
            "msec",
            min / 1_000_000,
            max / 1_000_000,
            mean / 1e6,
            dev / 1e6,
        )
    } else if min > 2000 && max > 99_999 && dev > 1000.0 {
        ("usec", min / 1000, max / 1000, mean / 1e3, dev / 1e3)
    } else {
        ("nsec", min, max, mean, dev)
    }
}

fn lat_line(s: &mut String, name: &str, l: &LatReport) {
    if l.n == 0 {
        return;
    }
    let (u, min, max, mean, dev) = lat_unit(l.min, l.max, l.mean, l.stddev);
    let _ = writeln!(
        s,
        "    {name} ({u}): min={}, max={}, avg={mean:5.02}, stdev={dev:5.02}",
        num2str(min, 6, 1, false, N2sUnit::None),
        num2str(max, 6, 1, false, N2sUnit::None)
    );
}

/// fio's percentile block (§6.1).
pub fn percentile_block(s: &mut String, name: &str, pcts: &[(f64, u64)], prec: usize) {
    if pcts.is_empty() {
        return;
    }
    let lo = pcts.iter().map(|p| p.1).min().unwrap_or(0);
    let hi = pcts.iter().map(|p| p.1).max().unwrap_or(0);
    let (unit, steps) = if lo > 2_000_000 && hi > 99_999_999 {
        ("msec", 2)
    } else if lo > 2000 && hi > 99_999 {
        ("usec", 1)
    } else {
        ("nsec", 0)
    };
    let scale = |mut v: u64| {
        for _ in 0..steps {
            v = v.div_ceil(1000);
        }
        v
    };
    let w = scale(hi).to_string().len().max(5);
    let per_line = (73 / (prec + 10 + w)).max(1);
    let _ = write!(s, "    {name} percentiles ({unit}):\n     |");
    for (i, (p, v)) in pcts.iter().enumerate() {
        let _ = write!(s, " {p:pw$.prec$}th=[{:w$}]", scale(*v), pw = prec + 3);
        if i + 1 == pcts.len() {
            s.push('\n');
        } else if (i + 1) % per_line == 0 {
            s.push_str(",\n     |");
        } else {
            s.push(',');
        }
    }
}

/// cmdprio: each priority's percentiles, with its share of the I/Os.
fn prio_percentiles(s: &mut String, u: &UnitReport, r: &DirReport, kind: &str) {
    let all = if u.lat_percentiles { r.lat.n } else { r.clat.n };
    for (p, l) in &r.prios {
        if let Some(pcts) = &l.percentiles {
            let share = 100.0 * l.n as f64 / all as f64;
            let name = format!("{kind} prio {}/{} ({share:.2}% of IOs)", p >> 13, p & 7);
            percentile_block(s, &name, pcts, u.pct_precision);
        }
    }
}

fn dir_block(s: &mut String, u: &UnitReport, name: &str, r: &DirReport) {
    let pow2 = u.kb_base == 1024;
    // unit_base 0: fio's client sum of every host (`All clients`), whose
    // rates print as plain numbers.
    let rate_unit = match u.unit_base {
        1 => N2sUnit::BitPerSec,
        0 => N2sUnit::None,
        _ => N2sUnit::BytePerSec,
    };
    let rt = r.runtime_ms.max(1);
    let iops = r.total_ios * 1000 / rt;
    let bw = r.io_bytes * 1000 / rt;
    let zone = if name == "write" {
        format!("; {} zone resets", u.zone_resets)
    } else {
        String::new()
    };
    let _ = writeln!(
        s,
        "  {name}: IOPS={}, BW={} ({})({}/{}msec){zone}",
        num2str(iops, u.sig_figs, 1, false, N2sUnit::None),
        num2str(bw, u.sig_figs, 1, pow2, rate_unit),
        num2str(bw, u.sig_figs, 1, !pow2, rate_unit),
        num2str(r.io_bytes, u.sig_figs, 1, pow2, N2sUnit::Byte),
        r.runtime_ms
    );
    lat_line(s, "slat", &r.slat);
    lat_line(s, "clat", &r.clat);
    lat_line(s, " lat", &r.lat);
    let kind = if u.lat_percentiles { "lat" } else { "clat" };
    for (p, l) in &r.prios {
        lat_line(s, &format!("{kind} prio {}/{}", p >> 13, p & 7), l);
    }
    for (name, l) in [("slat", &r.slat), ("clat", &r.clat), ("lat", &r.lat)] {
        if let Some(p) = &l.percentiles {
            percentile_block(s, name, p, u.pct_precision);
        }
    }
    prio_percentiles(s, u, r, kind);
    if r.bw.samples > 0 {
        let kb = u.kb_base;
        let (label, div) = if r.bw.mean > (kb * kb) as f64 {
            ("MiB", kb)
        } else if kb == 1000 {
            ("kB", 1)
        } else {
            ("KiB", 1)
        };
        let _ = writeln!(
            s,
            "   bw ({label:>5}/s): min={:5}, max={:5}, per={:3.2}%, avg={:5.02}, stdev={:5.02}, samples={}",
            r.bw.min / div,
            r.bw.max / div,
            r.bw_agg,
            r.bw.mean / div as f64,
            r.bw.stddev / div as f64,
            r.bw.samples
        );
    }
    let io = &r.iops_samples;
    if io.samples > 0 {
        let _ = writeln!(
            s,
            "   iops        : min={:5}, max={:5}, avg={:5.02}, stdev={:5.02}, samples={}",
            io.min, io.max, io.mean, io.stddev, io.samples
        );
    }
}

fn lat_dist_lines(s: &mut String, unit: &str, labels: &[&str], vals: &[f64]) {
    let entries: Vec<String> = labels
        .iter()
        .zip(vals)
        .filter(|(_, v)| **v > 0.0)
        .map(|(l, v)| format!("{l}={v:3.2}%"))
        .collect();
    for chunk in entries.chunks(5) {
        let _ = writeln!(s, "  lat ({unit})   : {}", chunk.join(", "));
    }
}

fn map_line(s: &mut String, label: &str, keys: &[&str], vals: &[f64; 7]) {
    let parts: Vec<String> = keys
        .iter()
        .zip(vals)
        .map(|(k, v)| format!("{k}={v:3.1}%"))
        .collect();
    let _ = writeln!(s, "{label}: {}", parts.join(", "));
}

/// One reporting unit's block.
pub fn unit_block(s: &mut String, u: &UnitReport) {
    let err = match &u.error_context {
        Some(c) if u.error != 0 => format!("{:2} ({c})", u.error),
        _ => format!("{:2}", u.error),
    };
    let _ = writeln!(
        s,
        "{}: (groupid={}, jobs={}): err={err}: pid={}: {}",
        u.jobname, u.groupid, u.members, u.pid, u.finished_ctime
    );
    if let Some(d) = &u.description {
        let _ = writeln!(s, "  Description  : [{d}]");
    }
    for (d, name) in DIR_NAMES.iter().enumerate() {
        // fio's show_ddir_status skips a direction that took no time
        // (verify_only's dry-run writes have bytes but no runtime).
        if u.dirs[d].io_bytes > 0 && u.dirs[d].runtime_ms > 0 {
            let name = if u.unified == 1 { "mixed" } else { name };
            dir_block(s, u, name, &u.dirs[d]);
        }
    }
    if let Some(m) = &u.mixed {
        dir_block(s, u, "mixed", m);
    }
    const EDGES: [&str; 10] = [
        "2", "4", "10", "20", "50", "100", "250", "500", "750", "1000",
    ];
    const MS: [&str; 12] = [
        "2", "4", "10", "20", "50", "100", "250", "500", "750", "1000", "2000", ">=2000",
    ];
    lat_dist_lines(s, "nsec", &EDGES, &u.latency_ns);
    lat_dist_lines(s, "usec", &EDGES, &u.latency_us);
    lat_dist_lines(s, "msec", &MS, &u.latency_ms);
    if u.sync_ios > 0 {
        s.push_str("  fsync/fdatasync/sync_file_range:\n");
        lat_line(s, "sync", &u.sync_lat);
        if let Some(p) = &u.sync_lat.percentiles {
            let mut b = String::new();
            percentile_block(&mut b, "sync", p, u.pct_precision);
            s.push_str(&b);
        }
    }
    let _ = writeln!(
        s,
        "  cpu          : usr={:3.2}%, sys={:3.2}%, ctx={}, majf={}, minf={}",
        u.usr_cpu, u.sys_cpu, u.ctx, u.majf, u.minf
    );
    map_line(
        s,
        "  IO depths    ",
        &["1", "2", "4", "8", "16", "32", ">=64"],
        &u.iodepth_level,
    );
    let batch = ["0", "4", "8", "16", "32", "64", ">=64"];
    map_line(s, "     submit    ", &batch, &u.iodepth_submit);
    map_line(s, "     complete  ", &batch, &u.iodepth_complete);
    let _ = writeln!(
        s,
        "     issued rwts: total={},{},{},{} short={},{},{},0 dropped=0,0,0,0",
        u.issued[0], u.issued[1], u.issued[2], u.issued[3], u.short[0], u.short[1], u.short[2]
    );
    if let Some((total, first)) = u.errors {
        let _ = writeln!(
            s,
            "     errors    : total={total}, first_error={first}/<{}>",
            rbench_common::output::strerror(first)
        );
    }
    // fio leaves the line out where latency_depth is 0 (a job that never
    // started, the client's `All clients` sum).
    if u.iodepth > 0 {
        let (target, window, pct) = u.latency_target;
        let _ = writeln!(
            s,
            "     latency   : target={target}, window={window}, percentile={pct:.2}%, depth={}",
            u.iodepth
        );
    }
    if let Some(ss) = &u.steadystate {
        ss_line(s, u, ss);
    }
}

/// `  steadystate  : attained=yes, bw=… (…), iops=…, iops mean dev=…` (§6.1).
fn ss_line(s: &mut String, u: &UnitReport, ss: &crate::stats::SsReport) {
    let pow2 = u.kb_base == 1024;
    let unit = if u.unit_base == 1 {
        N2sUnit::BitPerSec
    } else {
        N2sUnit::BytePerSec
    };
    let kib = ss.bw_mean / u.kb_base;
    let c = &ss.criterion;
    let _ = writeln!(
        s,
        "  steadystate  : attained={}, bw={} ({}), iops={}, {}{}={}{}",
        if ss.attained { "yes" } else { "no" },
        num2str(kib, u.sig_figs, u.kb_base, pow2, unit),
        num2str(kib, u.sig_figs, u.kb_base, !pow2, unit),
        num2str(ss.iops_mean, u.sig_figs, 1, false, N2sUnit::None),
        if c.iops { "iops" } else { "bw" },
        if c.slope { " slope" } else { " mean dev" },
        crate::report::c_float(f64::from(ss.value as f32), 3),
        if c.pct { "%" } else { "" }
    );
}

pub fn group_block(s: &mut String, g: &GroupReport) {
    let _ = writeln!(s, "\nRun status group {} (all jobs):", g.groupid);
    let pow2 = g.kb_base == 1024;
    let rate = if g.unit_base == 1 {
        N2sUnit::BitPerSec
    } else {
        N2sUnit::BytePerSec
    };
    let n = |v: u64, p: bool, unit| num2str(v, g.sig_figs, 1, p, unit);
    let lines = g.dirs.iter().zip(GROUP_LABELS).map(|(d, l)| {
        let l = if g.unified == 1 { "  MIXED" } else { l };
        (d, l)
    });
    for (gd, label) in lines.chain(g.mixed.as_ref().map(|m| (m, "  MIXED"))) {
        if gd.max_run == 0 {
            continue;
        }
        let _ = writeln!(
            s,
            "{}: bw={} ({}), {}-{} ({}-{}), io={} ({}), run={}-{}msec",
            label,
            n(gd.agg_bw, pow2, rate),
            n(gd.agg_bw, !pow2, rate),
            n(gd.min_bw, pow2, rate),
            n(gd.max_bw, pow2, rate),
            n(gd.min_bw, !pow2, rate),
            n(gd.max_bw, !pow2, rate),
            n(gd.io_bytes, pow2, N2sUnit::Byte),
            n(gd.io_bytes, !pow2, N2sUnit::Byte),
            gd.min_run,
            gd.max_run
        );
    }
}

/// The result part of normal output: a blank line, the unit blocks, the
/// group lines and the disk lines.
pub fn render(r: &Report, disks: &str) -> String {
    let mut s = String::from("\n");
    for u in r.units.iter().filter(|u| !u.idle || u.error != 0) {
        if u.idle && u.error != 0 && u.error_context.is_none() {
            continue;
        }
        unit_block(&mut s, u);
    }
    for g in &r.groups {
        group_block(&mut s, g);
    }
    if !disks.is_empty() {
        s.push_str("\nDisk stats (read/write):\n");
        s.push_str(disks);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentile_layout_matches_fio() {
        let p: Vec<(f64, u64)> = [1.0, 5.0, 10.0, 20.0, 30.0]
            .iter()
            .map(|&x| (x, 9000 + x as u64))
            .collect();
        let mut s = String::new();
        percentile_block(&mut s, "clat", &p, 2);
        assert_eq!(
            s,
            "    clat percentiles (nsec):\n     |  1.00th=[ 9001],  5.00th=[ 9005], 10.00th=[ 9010], 20.00th=[ 9020],\n     | 30.00th=[ 9030]\n"
        );
    }
}
