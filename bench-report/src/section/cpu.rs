//! CPU: events/s and efficiency against threads, the scaling curve. The
//! straight line of linear scaling from one thread runs up to the CPUs
//! online: past them no more can be expected.

use super::{unit_for, Figure, View};
use crate::data::{Cpu, Section};
use rbench_common::chart::{line, Chart, Series};

const RATE_UNITS: [(&str, f64); 3] = [
    ("events/s", 1.0),
    ("thousand events/s", 1e3),
    ("million events/s", 1e6),
];

pub fn view(s: &Section<Cpu>, cpus: Option<f64>) -> View {
    let rows = &s.rows;
    let threads: Vec<f64> = rows.iter().map(|r| r.threads).collect();
    let rates: Vec<f64> = rows.iter().map(|r| r.events_per_s).collect();
    let one = rows
        .iter()
        .find(|r| r.threads == 1.0)
        .map(|r| r.events_per_s);
    let cpus = cpus.unwrap_or(f64::INFINITY);
    let ideal: Vec<(f64, f64)> = one
        .map(|e| {
            threads
                .iter()
                .filter(|&&t| t <= cpus)
                .map(|&t| (t, e * t))
                .collect()
        })
        .unwrap_or_default();
    // One unit for the measurements and the ideal line.
    let (u, size) = unit_for(
        rates.iter().copied().chain(ideal.iter().map(|p| p.1)),
        &RATE_UNITS,
    );
    let x_label = if cpus.is_finite() {
        format!("threads ({cpus} CPUs online)")
    } else {
        "threads".to_string()
    };
    // The ideal line first, so that the measured curve is drawn over it.
    let mut series = Vec::new();
    if !ideal.is_empty() {
        series.push(Series {
            label: "linear from 1 thread".into(),
            points: ideal.iter().map(|&(t, e)| (t, e / size)).collect(),
        });
    }
    series.push(Series {
        label: "measured".into(),
        points: threads
            .iter()
            .zip(&rates)
            .map(|(&t, &e)| (t, e / size))
            .collect(),
    });
    let events = Chart {
        title: "Events per second against threads".into(),
        x_label: x_label.clone(),
        y_label: format!("rsysbench cpu rate ({u})"),
        log_x: false,
        log_y: false,
        series,
    };
    let efficiency = Chart {
        title: "Efficiency against threads".into(),
        x_label,
        y_label: "efficiency (% of linear scaling)".into(),
        log_x: false,
        log_y: false,
        series: vec![Series {
            label: "efficiency".into(),
            points: rows
                .iter()
                .map(|r| (r.threads, r.efficiency_percent))
                .collect(),
        }],
    };
    View {
        id: "cpu",
        title: "CPU: rsysbench cpu, threads 1 to 2x CPUs",
        warnings: Vec::new(),
        figures: vec![
            Figure {
                id: "cpu-events",
                svg: line::svg(&events),
            },
            Figure {
                id: "cpu-efficiency",
                svg: line::svg(&efficiency),
            },
        ],
        notes: s.notes.clone(),
    }
}
