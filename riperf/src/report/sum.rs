//! The `[SUM]` of one direction's streams over one interval, computed once
//! for every view (text line, JSON `sum` object).

use super::Ctx;
use crate::measure::StreamInterval;

pub struct IntervalSum {
    pub start: f64,
    pub end: f64,
    pub seconds: f64,
    pub bytes: u64,
    pub omitted: bool,
    /// UDP: datagrams sent, or received by sequence.
    pub packets: i64,
    /// UDP receiver.
    pub lost: i64,
    /// UDP receiver: the streams' mean jitter (3.12 divides by the stream count).
    pub jitter_ms: f64,
    pub lost_percent: f64,
    /// TCP sender.
    pub retransmits: i64,
}

impl IntervalSum {
    /// `mine`: the interval's streams of one direction, at least one; times
    /// come from the first stream, as in iperf3.
    pub fn of(ctx: &Ctx, mine: &[&StreamInterval]) -> IntervalSum {
        let first = mine[0];
        let packets: i64 = mine.iter().map(|s| s.udp.map_or(0, |u| u.packets)).sum();
        let lost: i64 = mine
            .iter()
            .map(|s| s.udp.map_or(0, |u| u.lost_packets))
            .sum();
        let jitter_ms = mine
            .iter()
            .map(|s| s.udp.map_or(0.0, |u| u.jitter_ms))
            .sum::<f64>()
            / ctx.num_streams.max(1) as f64;
        IntervalSum {
            start: first.start,
            end: first.end,
            seconds: first.seconds,
            bytes: mine.iter().map(|s| s.bytes).sum(),
            omitted: first.omitted,
            packets,
            lost,
            jitter_ms,
            lost_percent: if packets > 0 {
                100.0 * lost as f64 / packets as f64
            } else {
                0.0
            },
            retransmits: mine
                .iter()
                .map(|s| s.tcp.map_or(0, |t| t.retransmits))
                .sum(),
        }
    }

    /// Bytes per second over the interval.
    pub fn byte_rate(&self) -> f64 {
        if self.seconds > 0.0 {
            self.bytes as f64 / self.seconds
        } else {
            0.0
        }
    }
}
