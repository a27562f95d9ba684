//! `--output-format=csv`: one header row, a row per stream per interval, and
//! summary rows (per stream sender/receiver and the sums).

use super::{Ctx, Summary};
use crate::measure::Interval;
use serde::Serialize;

#[derive(Serialize)]
pub struct Row {
    pub kind: &'static str,
    pub stream: String,
    pub role: &'static str,
    pub start_s: f64,
    pub end_s: f64,
    pub bytes: u64,
    pub bits_per_second: f64,
    pub retransmits: i64,
    pub jitter_ms: f64,
    pub lost_packets: i64,
    pub packets: i64,
    pub omitted: bool,
}

pub fn interval_rows(ctx: &Ctx, iv: &Interval) -> Vec<Row> {
    let _ = ctx;
    iv.streams
        .iter()
        .map(|s| {
            let u = s.udp.unwrap_or_default();
            Row {
                kind: "interval",
                stream: s.socket.to_string(),
                role: if s.sender { "sender" } else { "receiver" },
                start_s: s.start,
                end_s: s.end,
                bytes: s.bytes,
                bits_per_second: s.bits_per_second,
                retransmits: s.tcp.map_or(-1, |t| t.retransmits),
                jitter_ms: u.jitter_ms,
                lost_packets: u.lost_packets,
                packets: u.packets,
                omitted: s.omitted,
            }
        })
        .collect()
}

pub fn summary_rows(ctx: &Ctx, s: &Summary) -> Vec<Row> {
    let mut rows = Vec::new();
    let (st, rt) = s
        .streams
        .first()
        .map_or((0.0, 0.0), |f| (f.sender_time, f.receiver_time));
    let bps = |b: u64, t: f64| if t > 0.0 { b as f64 * 8.0 / t } else { 0.0 };
    let mut sums = [(0u64, 0i64), (0u64, 0i64)];
    for x in &s.streams {
        rows.push(Row {
            kind: "summary",
            stream: x.socket.to_string(),
            role: "sender",
            start_s: 0.0,
            end_s: st,
            bytes: x.bytes_sent,
            bits_per_second: bps(x.bytes_sent, st),
            retransmits: x.retransmits,
            jitter_ms: 0.0,
            lost_packets: 0,
            packets: x.sender_packets,
            omitted: false,
        });
        rows.push(Row {
            kind: "summary",
            stream: x.socket.to_string(),
            role: "receiver",
            start_s: 0.0,
            end_s: rt,
            bytes: x.bytes_received,
            bits_per_second: bps(x.bytes_received, rt),
            retransmits: -1,
            jitter_ms: x.jitter * 1000.0,
            lost_packets: x.lost,
            packets: x.receiver_packets,
            omitted: false,
        });
        sums[0].0 += x.bytes_sent;
        sums[0].1 += x.retransmits.max(0);
        sums[1].0 += x.bytes_received;
    }
    let _ = ctx;
    rows.push(Row {
        kind: "sum",
        stream: "SUM".into(),
        role: "sender",
        start_s: 0.0,
        end_s: st,
        bytes: sums[0].0,
        bits_per_second: bps(sums[0].0, st),
        retransmits: sums[0].1,
        jitter_ms: 0.0,
        lost_packets: 0,
        packets: s.streams.iter().map(|x| x.sender_packets).sum(),
        omitted: false,
    });
    rows.push(Row {
        kind: "sum",
        stream: "SUM".into(),
        role: "receiver",
        start_s: 0.0,
        end_s: rt,
        bytes: sums[1].0,
        bits_per_second: bps(sums[1].0, rt),
        retransmits: -1,
        jitter_ms: s.streams.iter().map(|x| x.jitter).sum::<f64>() * 1000.0
            / s.streams.len().max(1) as f64,
        lost_packets: s.streams.iter().map(|x| x.lost).sum(),
        packets: s.streams.iter().map(|x| x.receiver_packets).sum(),
        omitted: false,
    });
    rows
}
