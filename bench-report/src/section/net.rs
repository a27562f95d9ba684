//! Network: what each test sent and what arrived, and the loss of the UDP
//! tests (the loss-free rate is the one under 1%).

use super::{unit_for, Figure, View};
use crate::data::{Net, Section};
use rbench_common::chart::{bar, BarChart, Bars};

/// Network rates in decimal units, as iperf3 reports them.
const UNITS: [(&str, f64); 3] = [("Mbit/s", 1e6), ("Gbit/s", 1e9), ("Tbit/s", 1e12)];

pub fn view(s: &Section<Net>) -> View {
    let rows = &s.rows;
    let (u, size) = unit_for(
        rows.iter()
            .map(|r| r.sender_bits_per_s.max(r.receiver_bits_per_s)),
        &UNITS,
    );
    let mut figures = vec![Figure {
        id: "net-throughput",
        svg: bar::svg(&BarChart {
            title: "Throughput per test".into(),
            value_label: format!("throughput ({u})"),
            log: false,
            categories: rows.iter().map(|r| r.test.clone()).collect(),
            notes: rows.iter().map(|r| r.protocol.to_uppercase()).collect(),
            series: vec![
                Bars {
                    label: "sent".into(),
                    values: rows
                        .iter()
                        .map(|r| Some(r.sender_bits_per_s / size))
                        .collect(),
                },
                Bars {
                    label: "received".into(),
                    values: rows
                        .iter()
                        .map(|r| Some(r.receiver_bits_per_s / size))
                        .collect(),
                },
            ],
        }),
    }];
    let udp: Vec<&Net> = rows.iter().filter(|r| r.loss_percent.is_some()).collect();
    if !udp.is_empty() {
        figures.push(Figure {
            id: "net-udp-loss",
            svg: bar::svg(&BarChart {
                title: "UDP loss per test".into(),
                value_label: "datagrams lost (%)".into(),
                log: false,
                categories: udp.iter().map(|r| r.test.clone()).collect(),
                notes: udp
                    .iter()
                    .map(|r| match (r.lost_packets, r.packets) {
                        (Some(l), Some(p)) => format!("{l} of {p} lost"),
                        _ => String::new(),
                    })
                    .collect(),
                series: vec![Bars {
                    label: "loss".into(),
                    values: udp.iter().map(|r| r.loss_percent).collect(),
                }],
            }),
        });
    }
    View {
        id: "net",
        title: "Network: riperf",
        warnings: Vec::new(),
        figures,
        notes: s.notes.clone(),
    }
}
