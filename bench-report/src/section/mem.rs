//! Memory: MiB/s per kernel (mbw's three on one thread, STREAM triad on all
//! CPUs), average and best run; rmbw's warning that the arrays fit in the
//! cache, when it gave one, above the chart rather than among the notes.

use super::{unit_for, Figure, View};
use crate::data::{Mem, Section};
use rbench_common::chart::{bar, BarChart, Bars};

const UNITS: [(&str, f64); 2] = [("MiB/s", 1.0), ("GiB/s", 1024.0)];

pub fn view(s: &Section<Mem>) -> View {
    let rows = &s.rows;
    let (u, size) = unit_for(
        rows.iter().map(|r| r.best_mib_per_s.max(r.avg_mib_per_s)),
        &UNITS,
    );
    let plural = |n: f64, one: &str| {
        if n == 1.0 {
            format!("1 {one}")
        } else {
            format!("{n} {one}s")
        }
    };
    let chart = BarChart {
        title: "Memory bandwidth per kernel".into(),
        value_label: format!("copy rate ({u})"),
        log: false,
        categories: rows.iter().map(|r| r.test.to_uppercase()).collect(),
        notes: rows
            .iter()
            .map(|r| {
                format!(
                    "{}, {} MiB arrays",
                    plural(r.threads, "thread"),
                    r.array_mib
                )
            })
            .collect(),
        series: vec![
            Bars {
                label: "average of the runs".into(),
                values: rows.iter().map(|r| Some(r.avg_mib_per_s / size)).collect(),
            },
            Bars {
                label: "best run".into(),
                values: rows.iter().map(|r| Some(r.best_mib_per_s / size)).collect(),
            },
        ],
    };
    let (warnings, notes) = s.notes.iter().cloned().partition(|n| n.contains("warning"));
    View {
        id: "mem",
        title: "Memory: rmbw",
        warnings,
        figures: vec![Figure {
            id: "mem-bandwidth",
            svg: bar::svg(&chart),
        }],
        notes,
    }
}
