//! `--plot=DIR` (rfio only): the run drawn as standalone SVG charts, one
//! file per chart, and an `index.html` listing them beside a table of the
//! final results:
//!
//! * `bandwidth.svg`, `iops.svg`: per job and direction over time;
//! * `clat_percentiles_N.svg` (N: the job number, as in log names): p50,
//!   p90, p99 and p99.9 of completion latency per window;
//! * `clat_distribution.svg`: the cumulative distribution of completion
//!   latency from each job's final histogram (log-scale x).
//!
//! The windows are those of `log_avg_msec` when set, else 100 ms. Job
//! threads hand their trace (run/logs/trace.rs) over when they end; the charts are
//! drawn once every job is done (by the chart module shared with bench-all's
//! page, `rbench_common::chart`). Nothing is written outside DIR.

pub mod from_logs;

use crate::result::Report;
use crate::run::logs::trace::{self, Trace, PERCENTILES};
use rbench_common::chart::{escape, render, unit, Chart, Series};
use std::path::Path;

const DIRS: [&str; 3] = ["read", "write", "trim"];

/// Create DIR up front, so a bad path fails before the jobs run.
pub fn prepare(dir: &str) -> Result<(), String> {
    if dir.is_empty() {
        return Err("rfio: --plot needs a directory\n".into());
    }
    std::fs::create_dir_all(dir)
        .map_err(|e| format!("rfio: cannot create plot directory '{dir}': {e}\n"))
}

const BYTE_UNITS: [(&str, f64); 4] = [
    ("B/s", 1.0),
    ("KiB/s", 1024.0),
    ("MiB/s", 1048576.0),
    ("GiB/s", 1073741824.0),
];
const IOPS_UNITS: [(&str, f64); 3] = [("IOPS", 1.0), ("thousand IOPS", 1e3), ("million IOPS", 1e6)];
const NS_UNITS: [(&str, f64); 4] = [("ns", 1.0), ("µs", 1e3), ("ms", 1e6), ("s", 1e9)];

fn label(t: &Trace, d: usize) -> String {
    format!("{} (job {}) {}", t.name, t.job, DIRS[d])
}

/// A chart of one per-direction quantity over time.
fn over_time(
    traces: &[Trace],
    title: &str,
    what: &str,
    units: &[(&'static str, f64)],
    value: fn(&trace::Point, usize) -> f64,
) -> Chart {
    let max = traces
        .iter()
        .flat_map(|t| {
            t.points
                .iter()
                .flat_map(move |p| (0..3).map(move |d| value(p, d)))
        })
        .fold(0.0, f64::max);
    let (u, scale) = unit(max, units);
    let mut series = Vec::new();
    for t in traces {
        for d in (0..3).filter(|&d| t.dirs[d]) {
            series.push(Series {
                label: label(t, d),
                points: t
                    .points
                    .iter()
                    .map(|p| (p.t_ms as f64 / 1000.0, value(p, d) / scale))
                    .collect(),
            });
        }
    }
    Chart {
        title: title.into(),
        x_label: "time since the job started (s)".into(),
        y_label: format!("{what} ({u})"),
        log_x: false,
        log_y: false,
        series,
    }
}

fn percentiles_chart(t: &Trace) -> Chart {
    let max = t
        .points
        .iter()
        .flat_map(|p| p.clat.iter().flatten())
        .fold(0u64, |a, &b| a.max(b));
    let (u, scale) = unit(max as f64, &NS_UNITS);
    let mut series = Vec::new();
    for d in (0..3).filter(|&d| t.dirs[d]) {
        for (k, pct) in PERCENTILES.iter().enumerate() {
            series.push(Series {
                label: format!("{} p{pct}", DIRS[d]),
                points: t
                    .points
                    .iter()
                    // A window without completions has no percentiles.
                    .filter(|p| p.ios[d] > 0)
                    .map(|p| (p.t_ms as f64 / 1000.0, p.clat[d][k] as f64 / scale))
                    .collect(),
            });
        }
    }
    Chart {
        title: format!(
            "Completion latency percentiles per {} ms: {} (job {})",
            t.every_ms, t.name, t.job
        ),
        x_label: "time since the job started (s)".into(),
        // Tail percentiles are often orders of magnitude above the median.
        y_label: format!("completion latency ({u}, log scale)"),
        log_x: false,
        log_y: true,
        series,
    }
}

fn distribution_chart(traces: &[Trace]) -> Chart {
    let max = traces
        .iter()
        .flat_map(|t| t.clat_bins.iter().flatten())
        .map(|b| b.0)
        .max()
        .unwrap_or(0);
    let (u, scale) = unit(max as f64, &NS_UNITS);
    let mut series = Vec::new();
    for t in traces {
        for d in (0..3).filter(|&d| !t.clat_bins[d].is_empty()) {
            let total: u64 = t.clat_bins[d].iter().map(|b| b.1).sum();
            let mut below = 0u64;
            let points = t.clat_bins[d]
                .iter()
                .map(|&(v, n)| {
                    below += n;
                    // 0 ns cannot sit on a log axis: draw it at 1 ns.
                    (v.max(1) as f64 / scale, below as f64 * 100.0 / total as f64)
                })
                .collect();
            series.push(Series {
                label: label(t, d),
                points,
            });
        }
    }
    Chart {
        title: "Completion latency distribution (whole run)".into(),
        x_label: format!("completion latency ({u}, log scale)"),
        y_label: "I/Os completed within (%)".into(),
        log_x: true,
        log_y: false,
        series,
    }
}

/// The index page: the final results per reporting unit, then the charts.
fn index(report: &Report, charts: &[(String, String)]) -> String {
    let e = escape;
    let mut s = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head><meta charset=\"utf-8\">\
         <title>rfio run</title>\n<style>body{font-family:sans-serif;margin:2em}\
         table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;\
         text-align:right}th:first-child,td:first-child{text-align:left}\
         img{max-width:100%}</style></head>\n<body>\n<h1>rfio run</h1>\n",
    );
    s.push_str(&format!("<p>{}</p>\n", e(&report.time)));
    s.push_str(
        "<table>\n<tr><th>#</th><th>job</th><th>direction</th><th>bandwidth (KiB/s)</th><th>IOPS</th>\
         <th>clat mean (µs)</th><th>clat p50 (µs)</th><th>clat p99 (µs)</th></tr>\n",
    );
    // Reporting units in order: job numbers unless group_reporting merged.
    for (n, u) in report.units.iter().enumerate() {
        for (d, r) in u.dirs.iter().enumerate().filter(|(_, r)| r.total_ios > 0) {
            let pct = |want: f64| {
                r.clat
                    .percentiles
                    .as_ref()
                    .and_then(|v| v.iter().find(|p| (p.0 - want).abs() < 1e-9))
                    .map_or("-".to_string(), |p| format!("{:.2}", p.1 as f64 / 1000.0))
            };
            s.push_str(&format!(
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.0}</td><td>{:.2}</td><td>{}</td><td>{}</td></tr>\n",
                n + 1,
                e(&u.jobname),
                DIRS[d],
                r.bw_bytes / 1024,
                r.iops,
                r.clat.mean / 1000.0,
                pct(50.0),
                pct(99.0)
            ));
        }
    }
    s.push_str("</table>\n");
    for (file, title) in charts {
        s.push_str(&format!(
            "<h2>{}</h2>\n<p><a href=\"{1}\"><img src=\"{1}\" alt=\"{0}\"></a></p>\n",
            e(title),
            e(file)
        ));
    }
    s.push_str("</body>\n</html>\n");
    s
}

/// Draw every chart into `dir` (created by [`prepare`]).
pub fn write(dir: &str, report: &Report, traces: &[Trace]) -> std::io::Result<()> {
    let mut charts: Vec<(String, Chart)> = vec![
        (
            "bandwidth.svg".into(),
            over_time(traces, "Bandwidth", "bandwidth", &BYTE_UNITS, |p, d| {
                p.bw[d]
            }),
        ),
        (
            "iops.svg".into(),
            over_time(
                traces,
                "IOPS",
                "I/O operations per second",
                &IOPS_UNITS,
                |p, d| p.iops[d],
            ),
        ),
    ];
    for t in traces {
        charts.push((
            format!("clat_percentiles_{}.svg", t.job),
            percentiles_chart(t),
        ));
    }
    charts.push(("clat_distribution.svg".into(), distribution_chart(traces)));
    let dir = Path::new(dir);
    let mut listed = Vec::new();
    for (file, chart) in &charts {
        std::fs::write(dir.join(file), render(chart))?;
        listed.push((file.clone(), chart.title.clone()));
    }
    std::fs::write(dir.join("index.html"), index(report, &listed))
}
