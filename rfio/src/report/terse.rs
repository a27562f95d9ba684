//! fio's terse (semicolon) lines, versions 2 to 5 (§8).

use crate::result::{DirReport, LatReport, Report, UnitReport};
use crate::run::files::diskstats::DiskReport;
use std::fmt::Write;

fn lat_us(s: &mut String, l: &LatReport) {
    if l.n == 0 {
        s.push_str(";0;0;0.000000;0.000000");
    } else {
        let _ = write!(
            s,
            ";{};{};{:.6};{:.6}",
            l.min / 1000,
            l.max / 1000,
            l.mean / 1000.0,
            l.stddev / 1000.0
        );
    }
}

fn dir(s: &mut String, u: &UnitReport, d: &DirReport, ver: u32) {
    let iops = (d.total_ios * 1000).checked_div(d.runtime_ms).unwrap_or(0);
    let _ = write!(
        s,
        ";{};{};{};{}",
        d.io_bytes >> 10,
        d.bw_bytes / 1024,
        iops,
        d.runtime_ms
    );
    lat_us(s, &d.slat);
    lat_us(s, &d.clat);
    // Percentiles of clat (or of lat with lat_percentiles), 20 slots.
    let source = if u.lat_percentiles { &d.lat } else { &d.clat };
    let pct: Vec<(f64, u64)> = if u.clat_percentiles || u.lat_percentiles {
        match &source.percentiles {
            Some(p) => p.clone(),
            None => Vec::new(),
        }
    } else {
        Vec::new()
    };
    for i in 0..20 {
        match pct.get(i) {
            Some((p, v)) => {
                let _ = write!(s, ";{p:.6}%={}", v / 1000);
            }
            None => s.push_str(";0%=0"),
        }
    }
    lat_us(s, &d.lat);
    if d.bw.samples == 0 {
        s.push_str(";0;0;0.000000%;0.000000;0.000000");
    } else {
        let _ = write!(
            s,
            ";{};{};{:.6}%;{:.6};{:.6}",
            d.bw.min, d.bw.max, d.bw_agg, d.bw.mean, d.bw.stddev
        );
    }
    if ver == 5 {
        let i = &d.iops_samples;
        let _ = write!(
            s,
            ";{};{};{};{:.6};{:.6};{}",
            d.bw.samples, i.min, i.max, i.mean, i.stddev, i.samples
        );
    }
}

/// Fill in the percentile lists a direction with no samples still prints.
fn with_zero_percentiles(u: &UnitReport, pct_list: &[f64]) -> UnitReport {
    let mut u = u.clone();
    for d in &mut u.dirs {
        for l in [&mut d.clat, &mut d.lat] {
            if l.percentiles.is_none() {
                l.percentiles = Some(pct_list.iter().map(|&p| (p, 0)).collect());
            }
        }
    }
    u
}

/// One line per reporting unit.
pub fn render(r: &Report, ver: u32, pct_list: &[f64], disks: &[DiskReport]) -> String {
    let mut out = String::new();
    for u in &r.units {
        let u = &with_zero_percentiles(u, pct_list);
        let mut s = String::new();
        if ver == 2 {
            let _ = write!(s, "2;{};{};{}", u.jobname, u.groupid, u.error);
        } else {
            let _ = write!(s, "{ver};fio-3.33;{};{};{}", u.jobname, u.groupid, u.error);
        }
        let ndirs = match (u.unified, ver) {
            (1, _) => 1,
            (_, 3) => 2,
            _ => 3,
        };
        for d in 0..ndirs {
            dir(&mut s, u, &u.dirs[d], ver);
        }
        if let Some(m) = &u.mixed {
            dir(&mut s, u, m, ver);
        }
        let _ = write!(
            s,
            ";{:.6}%;{:.6}%;{};{};{}",
            u.usr_cpu, u.sys_cpu, u.ctx, u.majf, u.minf
        );
        for v in u.iodepth_level {
            let _ = write!(s, ";{v:3.1}%");
        }
        let first: f64 = u.latency_ns.iter().sum::<f64>() + u.latency_us[0];
        if u.issued[..3].iter().sum::<u64>() == 0 {
            // fio adds the ns buckets as 0/0 when nothing was issued: C's
            // printf shows that NaN as `-nan`.
            s.push_str(";-nan%");
        } else {
            let _ = write!(s, ";{first:3.2}%");
        }
        for v in &u.latency_us[1..] {
            let _ = write!(s, ";{v:3.2}%");
        }
        for v in u.latency_ms {
            let _ = write!(s, ";{v:3.2}%");
        }
        if ver >= 3 {
            for d in disks {
                let _ = write!(
                    s,
                    ";{};{};{};{};{};{};{};{};{:3.2}%",
                    d.name,
                    d.read_ios,
                    d.write_ios,
                    d.read_merges,
                    d.write_merges,
                    d.read_ticks,
                    d.write_ticks,
                    d.in_queue,
                    d.util
                );
            }
        }
        if let Some((total, first)) = u.errors {
            let _ = write!(s, ";{total};{first}");
        }
        match (&u.description, ver) {
            (Some(desc), 2) => {
                // v2 puts the description on a line of its own, after a `;`.
                s.push_str("\n;");
                s.push_str(desc);
            }
            (Some(desc), _) => {
                s.push(';');
                s.push_str(desc);
            }
            _ => {}
        }
        s.push('\n');
        out.push_str(&s);
    }
    out
}
