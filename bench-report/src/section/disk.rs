//! Disk: IOPS and bandwidth per test, each test's name beside the limit it
//! hit, and its completion latency percentiles (log axis: 1M runs' tails
//! sit decades above 4k runs' medians).

use super::{unit_for, Figure, View};
use crate::data::{Disk, Section};
use rbench_common::chart::{bar, BarChart, Bars};

const IOPS_UNITS: [(&str, f64); 3] = [("IOPS", 1.0), ("thousand IOPS", 1e3), ("million IOPS", 1e6)];
const MIB_UNITS: [(&str, f64); 2] = [("MiB/s", 1.0), ("GiB/s", 1024.0)];
const US_UNITS: [(&str, f64); 3] = [("µs", 1.0), ("ms", 1e3), ("s", 1e6)];

fn limit(d: &Disk) -> String {
    match d.limit.as_str() {
        "iops" => "limit: IOPS".into(),
        "bandwidth" => "limit: bandwidth".into(),
        other => format!("limit: {other}"),
    }
}

/// One series of bars, a value per test in units of `size`.
fn one(rows: &[Disk], label: &str, value: fn(&Disk) -> f64, size: f64) -> Vec<Bars> {
    vec![Bars {
        label: label.into(),
        values: rows.iter().map(|d| Some(value(d) / size)).collect(),
    }]
}

pub fn view(s: &Section<Disk>) -> View {
    let rows = &s.rows;
    let tests: Vec<String> = rows.iter().map(|r| r.test.clone()).collect();
    let limits: Vec<String> = rows.iter().map(limit).collect();
    let (iu, isize) = unit_for(rows.iter().map(|r| r.iops), &IOPS_UNITS);
    let (bu, bsize) = unit_for(rows.iter().map(|r| r.mib_per_s), &MIB_UNITS);
    let mut figures = vec![
        Figure {
            id: "disk-iops",
            svg: bar::svg(&BarChart {
                title: "IOPS per test".into(),
                value_label: format!("I/O operations per second ({iu})"),
                log: false,
                categories: tests.clone(),
                notes: limits.clone(),
                series: one(rows, "IOPS", |d| d.iops, isize),
            }),
        },
        Figure {
            id: "disk-bandwidth",
            svg: bar::svg(&BarChart {
                title: "Bandwidth per test".into(),
                value_label: format!("bandwidth ({bu})"),
                log: false,
                categories: tests.clone(),
                notes: limits.clone(),
                series: one(rows, "bandwidth", |d| d.mib_per_s, bsize),
            }),
        },
    ];
    type Pick = fn(&Disk) -> Option<f64>;
    let picks: [(&str, Pick); 3] = [
        ("p50", |d| d.clat_p50_us),
        ("p95", |d| d.clat_p95_us),
        ("p99", |d| d.clat_p99_us),
    ];
    let known: Vec<f64> = rows
        .iter()
        .flat_map(|d| picks.iter().filter_map(move |p| (p.1)(d)))
        .collect();
    if !known.is_empty() {
        // One unit for all three, from the largest value.
        let (u, size) = unit_for(known, &US_UNITS);
        let series = picks
            .iter()
            .filter(|p| rows.iter().any(|d| (p.1)(d).is_some()))
            .map(|(label, pick)| Bars {
                label: format!("{label} completion latency"),
                values: rows.iter().map(|d| pick(d).map(|v| v / size)).collect(),
            })
            .collect();
        figures.push(Figure {
            id: "disk-clat",
            svg: bar::svg(&BarChart {
                title: "Completion latency percentiles per test".into(),
                value_label: format!("completion latency ({u}, log scale)"),
                log: true,
                categories: tests,
                notes: limits,
                series,
            }),
        });
    }
    View {
        id: "disk",
        title: "Disk: rfio, iodepth 32, time based",
        warnings: Vec::new(),
        figures,
        notes: s.notes.clone(),
    }
}
