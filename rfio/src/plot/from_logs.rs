//! `--plot=DIR --plot-from=LOG…`: charts drawn from log files that fio or
//! rfio wrote (no job runs). The kind of each log comes from its name as
//! fio forms it (`PREFIX_bw.N.log`, `_iops`, `_lat`, `_clat`, `_slat`,
//! `_clat_hist`):
//!
//! * bw and iops logs: `bandwidth.svg`, `iops.svg`; averaged rows are drawn
//!   as they are, per-I/O rows are summed per 100 ms window;
//! * lat, clat and slat logs: `latency.svg`; averaged rows are drawn as
//!   they are (window means), per-I/O rows as the median and p99 of each
//!   100 ms window;
//! * histogram logs: `<log>_percentiles.svg` (p50, p90, p99, p99.9 of each
//!   row) and `clat_distribution.svg` (all rows merged).

use super::{unit, BYTE_UNITS, DIRS, IOPS_UNITS, NS_UNITS};
use rbench_common::chart::{escape, render, Chart, Series};
use std::path::Path;

/// Per-I/O rows are summarised over windows of this length.
const WINDOW_MS: u64 = 100;

/// The kinds of log file, from fio's names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Bw,
    Iops,
    Lat(&'static str),
    Hist,
}

fn kind_of(name: &str) -> Option<Kind> {
    let stem = name.strip_suffix(".log")?;
    // PREFIX_TYPE.N or PREFIX_TYPE (per_job_logs=0).
    let stem = match stem.rsplit_once('.') {
        Some((s, n)) if n.chars().all(|c| c.is_ascii_digit()) => s,
        _ => stem,
    };
    let kinds = [
        ("_clat_hist", Kind::Hist),
        ("_bw", Kind::Bw),
        ("_iops", Kind::Iops),
        ("_slat", Kind::Lat("slat")),
        ("_clat", Kind::Lat("clat")),
        ("_lat", Kind::Lat("lat")),
    ];
    kinds
        .iter()
        .find(|(suffix, _)| stem.ends_with(suffix))
        .map(|&(_, k)| k)
}

/// One row of a value log: time (ms), value, direction, block size.
struct Row {
    t: u64,
    value: u64,
    ddir: usize,
    bs: u64,
}

fn bad(path: &str, line: usize, what: &str) -> String {
    format!("rfio: {path}:{line}: {what}\n")
}

fn numbers(path: &str, n: usize, line: &str) -> Result<Vec<u64>, String> {
    line.split(',')
        .map(|f| {
            let f = f.trim();
            // log_prio writes the priority as 0x%04x.
            match f.strip_prefix("0x") {
                Some(h) => u64::from_str_radix(h, 16),
                None => f.parse(),
            }
            .map_err(|_| bad(path, n, &format!("'{f}' is not a number")))
        })
        .collect()
}

fn value_rows(path: &str, text: &str) -> Result<Vec<Row>, String> {
    let mut rows = Vec::new();
    for (i, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let f = numbers(path, i + 1, line)?;
        if f.len() < 4 || f[2] > 2 {
            return Err(bad(
                path,
                i + 1,
                "not a fio log row (time, value, ddir, bs, ...)",
            ));
        }
        rows.push(Row {
            t: f[0],
            value: f[1],
            ddir: f[2] as usize,
            bs: f[3],
        });
    }
    Ok(rows)
}

/// Per direction: a row per window of `WINDOW_MS` with the rows in it.
fn windows(rows: &[Row], d: usize) -> Vec<(u64, Vec<&Row>)> {
    let mut out: Vec<(u64, Vec<&Row>)> = Vec::new();
    for r in rows.iter().filter(|r| r.ddir == d) {
        let w = r.t / WINDOW_MS;
        match out.last_mut() {
            Some((last, v)) if *last == w => v.push(r),
            _ => out.push((w, vec![r])),
        }
    }
    out
}

/// Averaged logs have bs 0 in every row; per-I/O logs have the I/O's size.
fn averaged(rows: &[Row]) -> bool {
    rows.iter().all(|r| r.bs == 0)
}

/// A rate log (bw KiB/s or iops) as bytes/s or I/Os per second over time.
fn rate_series(label: &str, rows: &[Row], bw: bool, out: &mut Vec<Series>) {
    for (d, dir) in DIRS.iter().enumerate() {
        let points: Vec<(f64, f64)> = if averaged(rows) {
            rows.iter()
                .filter(|r| r.ddir == d)
                .map(|r| {
                    let v = if bw { r.value * 1024 } else { r.value };
                    (r.t as f64 / 1000.0, v as f64)
                })
                .collect()
        } else {
            windows(rows, d)
                .into_iter()
                .map(|(w, v)| {
                    let sum: u64 = v.iter().map(|r| if bw { r.bs } else { 1 }).sum();
                    let end = (w + 1) * WINDOW_MS;
                    (end as f64 / 1000.0, sum as f64 * 1000.0 / WINDOW_MS as f64)
                })
                .collect()
        };
        if !points.is_empty() {
            out.push(Series {
                label: format!("{label} {dir}"),
                points,
            });
        }
    }
}

/// A latency log (ns) as window means, or per-window p50/p99 of its I/Os.
fn latency_series(label: &str, rows: &[Row], out: &mut Vec<Series>) {
    for (d, dir) in DIRS.iter().enumerate() {
        if averaged(rows) {
            let points: Vec<(f64, f64)> = rows
                .iter()
                .filter(|r| r.ddir == d)
                .map(|r| (r.t as f64 / 1000.0, r.value as f64))
                .collect();
            if !points.is_empty() {
                out.push(Series {
                    label: format!("{label} {dir} mean"),
                    points,
                });
            }
            continue;
        }
        let w = windows(rows, d);
        for (p, name) in [(0.5, "p50"), (0.99, "p99")] {
            let points: Vec<(f64, f64)> = w
                .iter()
                .map(|(w, v)| {
                    let mut vals: Vec<u64> = v.iter().map(|r| r.value).collect();
                    vals.sort_unstable();
                    let rank = ((vals.len() as f64 * p).ceil() as usize).clamp(1, vals.len());
                    (((w + 1) * WINDOW_MS) as f64 / 1000.0, vals[rank - 1] as f64)
                })
                .collect();
            if !points.is_empty() {
                out.push(Series {
                    label: format!("{label} {dir} {name}"),
                    points,
                });
            }
        }
    }
}

/// A coarse bucket's latency (ns) as fiologparser_hist.py computes it:
/// halfway between the bucket's lower edge and the upper edge of the fine
/// bucket that follows the group.
fn coarse_value(idx: usize, coarseness: u32) -> f64 {
    let fine = |i: usize, edge: f64| -> f64 {
        if i < 128 {
            return i as f64;
        }
        let error_bits = (i >> 6) as i32 - 1;
        2f64.powi(error_bits + 6) + ((i % 64) as f64 + edge) * 2f64.powi(error_bits)
    };
    let stride = 1usize << coarseness;
    let lower = fine(idx * stride, 0.0);
    let upper = fine(idx * stride + stride, 1.0);
    (lower + upper) / 2.0
}

/// The p-th percentile (0..1) of coarse bucket counts, in ns.
fn hist_percentile(counts: &[u64], coarseness: u32, p: f64) -> Option<f64> {
    let total: u64 = counts.iter().sum();
    let rank = ((total as f64 * p).ceil() as u64).max(1);
    let mut seen = 0;
    counts
        .iter()
        .position(|&c| {
            seen += c;
            total > 0 && seen >= rank
        })
        .map(|i| coarse_value(i, coarseness))
}

/// A histogram log: (percentile chart, CDF series per direction).
fn hist_charts(label: &str, path: &str, text: &str) -> Result<(Chart, Vec<Series>), String> {
    let pcts = [(0.5, "p50"), (0.9, "p90"), (0.99, "p99"), (0.999, "p99.9")];
    // (direction, percentile) -> points; merged counts per direction.
    let mut lines: Vec<Vec<(f64, f64)>> = vec![Vec::new(); 3 * pcts.len()];
    let mut merged: [Vec<u64>; 3] = Default::default();
    let mut coarseness = 0;
    for (i, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let f = numbers(path, i + 1, line)?;
        let buckets = f.len().saturating_sub(3);
        // 1856 >> coarseness buckets per row (fio's FIO_IO_U_PLAT_NR).
        let Some(k) = (0..=6).find(|&k| 1856 >> k == buckets) else {
            return Err(bad(path, i + 1, "not a fio histogram log row"));
        };
        let d = f[1] as usize;
        if d > 2 {
            return Err(bad(path, i + 1, "direction is not 0, 1 or 2"));
        }
        coarseness = k;
        let counts = &f[3..];
        if merged[d].len() != buckets {
            merged[d] = vec![0; buckets];
        }
        for (m, c) in merged[d].iter_mut().zip(counts) {
            *m += c;
        }
        for (j, (p, _)) in pcts.iter().enumerate() {
            if let Some(v) = hist_percentile(counts, k, *p) {
                lines[d * pcts.len() + j].push((f[0] as f64 / 1000.0, v));
            }
        }
    }
    let max = lines.iter().flatten().map(|p| p.1).fold(0.0, f64::max);
    let (u, scale) = unit(max, &NS_UNITS);
    let mut series = Vec::new();
    for (i, points) in lines.into_iter().enumerate() {
        if !points.is_empty() {
            let (d, j) = (i / pcts.len(), i % pcts.len());
            series.push(Series {
                label: format!("{} {}", DIRS[d], pcts[j].1),
                points: points.into_iter().map(|(t, v)| (t, v / scale)).collect(),
            });
        }
    }
    let mut cdf = Vec::new();
    for (d, counts) in merged.iter().enumerate() {
        let total: u64 = counts.iter().sum();
        if total == 0 {
            continue;
        }
        let mut below = 0;
        let points = counts
            .iter()
            .enumerate()
            .filter(|(_, &c)| c > 0)
            .map(|(i, &c)| {
                below += c;
                (
                    coarse_value(i, coarseness),
                    below as f64 * 100.0 / total as f64,
                )
            })
            .collect();
        cdf.push(Series {
            label: format!("{label} {}", DIRS[d]),
            points,
        });
    }
    let chart = Chart {
        title: format!("Completion latency percentiles per row of {label}"),
        x_label: "time since the job started (s)".into(),
        y_label: format!("completion latency ({u}, log scale)"),
        log_x: false,
        log_y: true,
        series,
    };
    Ok((chart, cdf))
}

/// Scale every series of a chart to one unit; returns the unit's name.
fn scaled(mut series: Vec<Series>, units: &[(&'static str, f64)]) -> (Vec<Series>, &'static str) {
    let max = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .fold(0.0, f64::max);
    let (u, scale) = unit(max, units);
    for s in &mut series {
        for p in &mut s.points {
            p.1 /= scale;
        }
    }
    (series, u)
}

/// The series read from the logs, by chart.
#[derive(Default)]
struct Gathered {
    bw: Vec<Series>,
    iops: Vec<Series>,
    lat: Vec<Series>,
    hists: Vec<(String, Chart)>,
    cdf: Vec<Series>,
}

/// Draw the charts of `logs` into `dir` (created by [`super::prepare`]).
pub fn write(dir: &str, logs: &[String]) -> Result<(), String> {
    let mut got = Gathered::default();
    for path in logs {
        let (label, kind, text) = read_log(path)?;
        got.add(path, &label, kind, &text)?;
    }
    write_page(Path::new(dir), logs, &got.charts())
}

/// Log `path`'s label (its name less `.log`), kind and text.
fn read_log(path: &str) -> Result<(String, Kind, String), String> {
    let name = Path::new(path)
        .file_name()
        .map_or(path.to_string(), |n| n.to_string_lossy().into_owned());
    // `NAME.log.fz` (log_store_compressed): fio's stored log, inflated.
    let (name, stored) = match name.strip_suffix(".fz") {
        Some(n) => (n.to_string(), true),
        None => (name, false),
    };
    let kind = kind_of(&name).ok_or_else(|| {
        format!("rfio: {path}: not a fio log name (PREFIX_bw|iops|lat|clat|slat|clat_hist[.N].log[.fz])\n")
    })?;
    let text = if stored {
        let data = std::fs::read(path).map_err(|e| format!("rfio: {path}: {e}\n"))?;
        match crate::run::logs::logzip::inflate(&data) {
            (text, None) => text,
            (_, Some(_)) => return Err(format!("rfio: {path}: failed inflating log\n")),
        }
    } else {
        std::fs::read_to_string(path).map_err(|e| format!("rfio: {path}: {e}\n"))?
    };
    let label = name.trim_end_matches(".log").to_string();
    Ok((label, kind, text))
}

/// A chart file's name from a log label: anything but ASCII letters,
/// digits and dots becomes `_`.
fn file_stem(label: &str) -> String {
    label
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// A chart over the job's time, its series scaled to one of `units`.
fn over_time(series: Vec<Series>, title: &str, what: &str, units: &[(&'static str, f64)]) -> Chart {
    let (series, u) = scaled(series, units);
    Chart {
        title: title.into(),
        x_label: "time since the job started (s)".into(),
        y_label: format!("{what} ({u})"),
        log_x: false,
        log_y: false,
        series,
    }
}

impl Gathered {
    /// Add the series of log `path` (labelled `label`, of `kind`).
    fn add(&mut self, path: &str, label: &str, kind: Kind, text: &str) -> Result<(), String> {
        match kind {
            Kind::Bw => rate_series(label, &value_rows(path, text)?, true, &mut self.bw),
            Kind::Iops => rate_series(label, &value_rows(path, text)?, false, &mut self.iops),
            Kind::Lat(_) => latency_series(label, &value_rows(path, text)?, &mut self.lat),
            Kind::Hist => {
                let (chart, c) = hist_charts(label, path, text)?;
                let file = file_stem(label);
                self.hists.push((format!("{file}_percentiles.svg"), chart));
                self.cdf.extend(c);
            }
        }
        Ok(())
    }

    /// The charts to draw, by file name: bandwidth, IOPS and latency over
    /// time, each histogram log's percentiles, and their distribution.
    fn charts(self) -> Vec<(String, Chart)> {
        let mut charts: Vec<(String, Chart)> = Vec::new();
        if !self.bw.is_empty() {
            charts.push((
                "bandwidth.svg".into(),
                over_time(self.bw, "Bandwidth", "bandwidth", &BYTE_UNITS),
            ));
        }
        if !self.iops.is_empty() {
            charts.push((
                "iops.svg".into(),
                over_time(self.iops, "IOPS", "I/O operations per second", &IOPS_UNITS),
            ));
        }
        if !self.lat.is_empty() {
            charts.push((
                "latency.svg".into(),
                over_time(self.lat, "Latency", "latency", &NS_UNITS),
            ));
        }
        charts.extend(self.hists);
        if !self.cdf.is_empty() {
            charts.push(("clat_distribution.svg".into(), cdf_chart(self.cdf)));
        }
        charts
    }
}

/// The completion latency distribution of the histogram logs, its
/// latencies scaled to one unit.
fn cdf_chart(mut cdf: Vec<Series>) -> Chart {
    let max = cdf
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .fold(0.0, f64::max);
    let (u, scale) = unit(max, &NS_UNITS);
    for s in &mut cdf {
        for p in &mut s.points {
            p.0 /= scale;
        }
    }
    Chart {
        title: "Completion latency distribution (histogram logs)".into(),
        x_label: format!("completion latency ({u}, log scale)"),
        y_label: "I/Os completed within (%)".into(),
        log_x: true,
        log_y: false,
        series: cdf,
    }
}

/// Write each chart's SVG into `dir`, and `index.html` listing the logs
/// and showing the charts.
fn write_page(dir: &Path, logs: &[String], charts: &[(String, Chart)]) -> Result<(), String> {
    let fail =
        |e: std::io::Error| format!("rfio: failed to write plots to '{}': {e}\n", dir.display());
    let mut page = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head><meta charset=\"utf-8\">\
         <title>rfio log charts</title>\n<style>body{font-family:sans-serif;margin:2em}\
         img{max-width:100%}</style></head>\n<body>\n<h1>rfio log charts</h1>\n<ul>\n",
    );
    for path in logs {
        page.push_str(&format!("<li>{}</li>\n", escape(path)));
    }
    page.push_str("</ul>\n");
    for (file, chart) in charts {
        std::fs::write(dir.join(file), render(chart)).map_err(fail)?;
        page.push_str(&format!(
            "<h2>{}</h2>\n<p><a href=\"{1}\"><img src=\"{1}\" alt=\"{0}\"></a></p>\n",
            escape(&chart.title),
            escape(file)
        ));
    }
    page.push_str("</body>\n</html>\n");
    std::fs::write(dir.join("index.html"), page).map_err(fail)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_come_from_fio_names() {
        assert_eq!(kind_of("a_bw.1.log"), Some(Kind::Bw));
        assert_eq!(kind_of("a_iops.log"), Some(Kind::Iops));
        assert_eq!(kind_of("x_y_clat_hist.12.log"), Some(Kind::Hist));
        assert_eq!(kind_of("a_clat.1.log"), Some(Kind::Lat("clat")));
        assert_eq!(kind_of("a_slat.1.log"), Some(Kind::Lat("slat")));
        assert_eq!(kind_of("a_lat.1.log"), Some(Kind::Lat("lat")));
        assert_eq!(kind_of("a_bw.1.txt"), None);
        assert_eq!(kind_of("notes.log"), None);
    }

    #[test]
    fn per_io_rows_are_summed_per_window() {
        let rows: Vec<Row> = (0..10)
            .map(|i| Row {
                t: i * 20,
                value: 1,
                ddir: 0,
                bs: 4096,
            })
            .collect();
        let mut s = Vec::new();
        rate_series("x", &rows, true, &mut s);
        // 5 I/Os of 4 KiB in each 100 ms window: 200 KiB/s.
        assert_eq!(s[0].points, vec![(0.1, 204800.0), (0.2, 204800.0)]);
    }

    #[test]
    fn coarse_buckets_cover_their_fine_buckets() {
        // fiologparser_hist.py's value: from the bucket's lower edge to the
        // upper edge of the bucket after it, halved.
        assert_eq!(coarse_value(5, 0), 5.5);
        assert_eq!(coarse_value(64, 1), 131.0);
        assert_eq!(hist_percentile(&[0, 3, 1], 0, 0.5), Some(1.5));
        assert_eq!(hist_percentile(&[0, 0], 0, 0.5), None);
    }
}
