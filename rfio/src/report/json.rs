//! fio's JSON and JSON+ documents (§7): fio's own printer layout (2-space
//! indent, `"key" : value`, floats as `%f`), keys in fio's order.

use crate::result::{DirReport, LatReport, Report, UnitReport};
use std::fmt::Write;

/// A JSON value that keeps key order and fio's number styles.
pub enum J {
    Obj(Vec<(String, J)>),
    Arr(Vec<J>),
    Int(i64),
    UInt(u64),
    Float(f64),
    Str(String),
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

impl J {
    /// The value as fio prints it at the top level (no newline after).
    pub fn render(&self) -> String {
        let mut s = String::new();
        self.write(&mut s, 0);
        s
    }

    fn write(&self, out: &mut String, level: usize) {
        let pad = "  ".repeat(level + 1);
        let end = "  ".repeat(level);
        match self {
            J::Obj(entries) => {
                out.push_str("{\n");
                for (i, (k, v)) in entries.iter().enumerate() {
                    let _ = write!(out, "{pad}\"{}\" : ", escape(k));
                    v.write(out, level + 1);
                    out.push_str(if i + 1 < entries.len() { ",\n" } else { "\n" });
                }
                let _ = write!(out, "{end}}}");
            }
            J::Arr(items) => {
                out.push_str("[\n");
                for (i, v) in items.iter().enumerate() {
                    out.push_str(&pad);
                    v.write(out, level + 1);
                    out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
                }
                let _ = write!(out, "{end}]");
            }
            J::Int(v) => {
                let _ = write!(out, "{v}");
            }
            J::UInt(v) => {
                let _ = write!(out, "{v}");
            }
            J::Float(v) => {
                let _ = write!(out, "{v:.6}");
            }
            J::Str(s) => {
                let _ = write!(out, "\"{}\"", escape(s));
            }
        }
    }
}

fn obj(entries: Vec<(&str, J)>) -> J {
    J::Obj(
        entries
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
    )
}

/// Options as typed; pairs with empty values are left out, as fio does.
fn options(list: &[(String, String)]) -> J {
    J::Obj(
        list.iter()
            .filter(|(_, v)| !v.is_empty())
            .map(|(k, v)| (k.clone(), J::Str(v.clone())))
            .collect(),
    )
}

/// cmdprio's `prios` array (dropped below when empty).
fn prios(d: &DirReport, lat_pct: bool, plus: bool) -> J {
    let key = if lat_pct { "lat_ns" } else { "clat_ns" };
    J::Arr(
        d.prios
            .iter()
            .map(|(p, l)| {
                obj(vec![
                    ("prioclass", J::UInt(u64::from(p >> 13))),
                    ("prio", J::UInt(u64::from(p & 7))),
                    (key, lat(l, plus)),
                ])
            })
            .collect(),
    )
}

fn lat(l: &LatReport, plus: bool) -> J {
    let mut e = vec![
        ("min", J::UInt(l.min)),
        ("max", J::UInt(l.max)),
        ("mean", J::Float(l.mean)),
        ("stddev", J::Float(l.stddev)),
        ("N", J::UInt(l.n)),
    ];
    if let Some(p) = &l.percentiles {
        e.push((
            "percentile",
            J::Obj(
                p.iter()
                    .map(|(p, v)| (format!("{p:.6}"), J::UInt(*v)))
                    .collect(),
            ),
        ));
    }
    if plus && l.n > 0 && l.percentiles.is_some() {
        e.push((
            "bins",
            J::Obj(
                l.bins
                    .iter()
                    .map(|(k, c)| (k.to_string(), J::UInt(*c)))
                    .collect(),
            ),
        ));
    }
    obj(e)
}

fn dir(d: &DirReport, plus: bool, lat_pct: bool) -> J {
    let mut e = vec![
        ("io_bytes", J::UInt(d.io_bytes)),
        ("io_kbytes", J::UInt(d.io_bytes >> 10)),
        ("bw_bytes", J::UInt(d.bw_bytes)),
        ("bw", J::UInt(d.bw_bytes / 1024)),
        ("iops", J::Float(d.iops)),
        ("runtime", J::UInt(d.runtime_ms)),
        ("total_ios", J::UInt(d.total_ios)),
        ("short_ios", J::UInt(d.short_ios)),
        ("drop_ios", J::UInt(0)),
        ("slat_ns", lat(&d.slat, plus)),
        ("clat_ns", lat(&d.clat, plus)),
        ("lat_ns", lat(&d.lat, plus)),
        ("prios", prios(d, lat_pct, plus)),
        ("bw_min", J::UInt(d.bw.min)),
        ("bw_max", J::UInt(d.bw.max)),
        ("bw_agg", J::Float(d.bw_agg)),
        ("bw_mean", J::Float(d.bw.mean)),
        ("bw_dev", J::Float(d.bw.stddev)),
        ("bw_samples", J::UInt(d.bw.samples)),
        ("iops_min", J::UInt(d.iops_samples.min)),
        ("iops_max", J::UInt(d.iops_samples.max)),
        ("iops_mean", J::Float(d.iops_samples.mean)),
        ("iops_stddev", J::Float(d.iops_samples.stddev)),
        ("iops_samples", J::UInt(d.iops_samples.samples)),
    ];
    if d.prios.is_empty() {
        e.retain(|(k, _)| *k != "prios");
    }
    obj(e)
}

fn floats(keys: &[&str], vals: &[f64]) -> J {
    J::Obj(
        keys.iter()
            .zip(vals)
            .map(|(k, v)| (k.to_string(), J::Float(*v)))
            .collect(),
    )
}

/// One unit's object (also the client's `client_stats` entries).
pub fn unit(u: &UnitReport, plus: bool) -> J {
    const EDGES: [&str; 10] = [
        "2", "4", "10", "20", "50", "100", "250", "500", "750", "1000",
    ];
    const MS: [&str; 12] = [
        "2", "4", "10", "20", "50", "100", "250", "500", "750", "1000", "2000", ">=2000",
    ];
    let batch = ["0", "4", "8", "16", "32", "64", ">=64"];
    let mut e = vec![
        ("jobname", J::Str(u.jobname.clone())),
        ("groupid", J::UInt(u64::from(u.groupid))),
        ("error", J::Int(i64::from(u.error))),
        ("eta", J::UInt(u.eta)),
        ("elapsed", J::UInt(u.elapsed_s)),
        ("job options", options(&u.job_options)),
        ("job_runtime", J::UInt(u.job_runtime_ms)),
        ("usr_cpu", J::Float(u.usr_cpu)),
        ("sys_cpu", J::Float(u.sys_cpu)),
        ("ctx", J::UInt(u.ctx)),
        ("majf", J::UInt(u.majf)),
        ("minf", J::UInt(u.minf)),
        (
            "iodepth_level",
            floats(&["1", "2", "4", "8", "16", "32", ">=64"], &u.iodepth_level),
        ),
        ("iodepth_submit", floats(&batch, &u.iodepth_submit)),
        ("iodepth_complete", floats(&batch, &u.iodepth_complete)),
        ("latency_ns", floats(&EDGES, &u.latency_ns)),
        ("latency_us", floats(&EDGES, &u.latency_us)),
        ("latency_ms", floats(&MS, &u.latency_ms)),
    ];
    if u.iodepth > 0 {
        e.push(("latency_depth", J::UInt(u.iodepth as u64)));
        let (target, window, pct) = u.latency_target;
        e.push(("latency_target", J::UInt(target)));
        e.push(("latency_percentile", J::Float(pct)));
        e.push(("latency_window", J::UInt(window)));
    }
    // Directions go after `job options`: only `mixed` with
    // unified_rw_reporting=mixed, `mixed` after `sync` with `both` (§7).
    let mut dirs = Vec::new();
    if u.unified == 1 {
        dirs.push(("mixed", dir(&u.dirs[0], plus, u.lat_percentiles)));
    } else {
        dirs.push(("read", dir(&u.dirs[0], plus, u.lat_percentiles)));
        dirs.push(("write", dir(&u.dirs[1], plus, u.lat_percentiles)));
        dirs.push(("trim", dir(&u.dirs[2], plus, u.lat_percentiles)));
        dirs.push((
            "sync",
            obj(vec![
                ("total_ios", J::UInt(u.sync_ios)),
                ("lat_ns", lat(&u.sync_lat, plus)),
            ]),
        ));
        if let Some(m) = &u.mixed {
            dirs.push(("mixed", dir(m, plus, u.lat_percentiles)));
        }
    }
    // A job that set no options of its own has no `job options` at all.
    if u.job_options.is_empty() {
        e.retain(|(k, _)| *k != "job options");
    }
    let at = e
        .iter()
        .position(|(k, _)| *k == "job options" || *k == "elapsed")
        .map_or(0, |i| i + 1);
    let at = if e.get(at).is_some_and(|(k, _)| *k == "job options") {
        at + 1
    } else {
        at
    };
    for (k, (name, v)) in dirs.into_iter().enumerate() {
        e.insert(at + k, (name, v));
    }
    if let Some((total, first)) = u.errors {
        let at = e
            .iter()
            .position(|(k, _)| *k == "latency_depth")
            .unwrap_or(e.len());
        e.insert(at, ("first_error", J::Int(i64::from(first))));
        e.insert(at, ("total_err", J::UInt(total)));
    }
    if let Some(d) = &u.description {
        e.push(("desc", J::Str(d.clone())));
    }
    if let Some(ss) = &u.steadystate {
        e.push(("steadystate", steadystate(ss)));
    }
    obj(e)
}

/// fio's `steadystate` object (floats printed from fio's `float`s).
fn steadystate(ss: &crate::stats::SsReport) -> J {
    let ints = |v: &[u64]| J::Arr(v.iter().map(|&x| J::UInt(x)).collect());
    let c = &ss.criterion;
    obj(vec![
        ("ss", J::Str(c.text())),
        ("duration", J::UInt(ss.duration)),
        ("attained", J::UInt(u64::from(ss.attained))),
        (
            "criterion",
            J::Str(format!(
                "{}{}",
                crate::report::c_float(f64::from(ss.value as f32), 6),
                if c.pct { "%" } else { "" }
            )),
        ),
        ("max_deviation", J::Float(ss.max_deviation)),
        ("slope", J::Float(ss.slope)),
        (
            "data",
            obj(vec![
                ("bw_mean", J::UInt(ss.bw_mean)),
                ("iops_mean", J::UInt(ss.iops_mean)),
                ("iops", ints(&ss.iops)),
                ("bw", ints(&ss.bw)),
            ]),
        ),
    ])
}

/// The whole document, newline-terminated.
pub fn render(r: &Report, plus: bool, disks: Option<J>) -> String {
    let mut e = vec![
        ("fio version", J::Str("fio-3.33".into())),
        ("timestamp", J::UInt(r.timestamp)),
        ("timestamp_ms", J::UInt(r.timestamp_ms)),
        ("time", J::Str(r.time.clone())),
    ];
    if r.global_options.iter().any(|(_, v)| !v.is_empty()) {
        e.push(("global options", options(&r.global_options)));
    }
    e.push((
        "jobs",
        J::Arr(r.units.iter().map(|u| unit(u, plus)).collect()),
    ));
    if let Some(d) = disks {
        e.push(("disk_util", d));
    }
    let mut s = String::new();
    obj(e).write(&mut s, 0);
    s.push('\n');
    s
}
