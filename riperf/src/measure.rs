//! Measurements: what one test produced, as plain data (serde-serializable),
//! and the sampler that turns the stream threads' running totals into
//! interval records and end-of-test totals. No formatting here.

use crate::net::{tcp_info, TcpInfo};
use crate::stream::Stream;
use rbench_common::clock::now_ns;
use serde::Serialize;
use std::sync::atomic::Ordering;

/// TCP_INFO fields in an interval of a sending TCP stream.
#[derive(Debug, Clone, Copy, Serialize, Default)]
pub struct TcpSample {
    pub retransmits: i64,
    pub snd_cwnd: u64,
    pub snd_wnd: u64,
    pub rtt: u64,
    pub rttvar: u64,
    pub pmtu: u64,
}

/// UDP figures of one interval.
#[derive(Debug, Clone, Copy, Serialize, Default)]
pub struct UdpSample {
    /// Datagrams sent (sender) or received by sequence (receiver).
    pub packets: i64,
    pub lost_packets: i64,
    pub jitter_ms: f64,
    pub lost_percent: f64,
}

/// One stream in one interval.
#[derive(Debug, Clone, Serialize)]
pub struct StreamInterval {
    pub index: usize,
    pub socket: i32,
    pub start: f64,
    pub end: f64,
    pub seconds: f64,
    pub bytes: u64,
    pub bits_per_second: f64,
    pub omitted: bool,
    pub sender: bool,
    pub tcp: Option<TcpSample>,
    pub udp: Option<UdpSample>,
}

/// One reporting interval for all streams.
#[derive(Debug, Clone, Serialize)]
pub struct Interval {
    pub streams: Vec<StreamInterval>,
    pub omitted: bool,
}

/// A stream's end-of-test totals, seen from this side.
#[derive(Debug, Clone, Serialize, Default)]
pub struct StreamTotals {
    pub id: i64,
    pub socket: i32,
    pub sender: bool,
    pub udp: bool,
    /// Bytes this side sent or received (after the omit period).
    pub bytes: u64,
    /// Seconds from the stream start (after omit) to the last sample.
    pub seconds: f64,
    /// TCP sender with TCP_INFO: retransmits after omit.
    pub retransmits: Option<i64>,
    pub max_snd_cwnd: u64,
    pub max_snd_wnd: u64,
    pub max_rtt: u64,
    pub min_rtt: u64,
    pub mean_rtt: u64,
    /// UDP: datagrams sent, or highest sequence received.
    pub packets: i64,
    /// UDP receiver: lost since the start (including omit, as iperf3).
    pub lost: i64,
    pub out_of_order: u64,
    /// UDP receiver: jitter in seconds.
    pub jitter: f64,
}

/// Per-stream sampler bookkeeping.
#[derive(Debug, Clone, Default)]
struct Track {
    start_ns: u64,
    last_ns: u64,
    last_bytes: u64,
    last_packets: u64,
    last_lost: i64,
    last_retrans: u64,
    omit_bytes: u64,
    omit_packets: u64,
    omit_retrans: u64,
    max_cwnd: u64,
    max_wnd: u64,
    max_rtt: u64,
    min_rtt: u64,
    rtt_sum: u64,
    rtt_n: u64,
}

/// Turns running totals into intervals.
pub struct Sampler {
    tracks: Vec<Track>,
    pub interval_secs: f64,
}

/// iperf3 keeps times in microseconds and `seconds` as a float.
fn secs(ns: u64) -> f64 {
    (ns / 1000) as f64 / 1e6
}

impl Sampler {
    pub fn new(streams: &[Stream], start_ns: u64, interval_secs: f64) -> Sampler {
        Sampler {
            tracks: streams
                .iter()
                .map(|_| Track {
                    start_ns,
                    last_ns: start_ns,
                    min_rtt: u64::MAX,
                    ..Default::default()
                })
                .collect(),
            interval_secs,
        }
    }

    /// Close the current interval for every stream at `now`. Returns the
    /// interval unless it is a short one with no data (iperf3 drops those).
    pub fn sample(&mut self, streams: &[Stream], now: u64, omitted: bool) -> Option<Interval> {
        let mut out = Vec::with_capacity(streams.len());
        let mut keep = false;
        for (i, (s, t)) in streams.iter().zip(self.tracks.iter_mut()).enumerate() {
            let bytes_now = s.counters.bytes.load(Ordering::Relaxed);
            let bytes = bytes_now.saturating_sub(t.last_bytes);
            let start = secs(t.last_ns.saturating_sub(t.start_ns));
            let end = secs(now.saturating_sub(t.start_ns));
            let seconds = ((now.saturating_sub(t.last_ns)) / 1000) as f64 / 1e6;
            // iperf3 stores interval durations as float.
            let seconds = seconds as f32 as f64;
            if bytes > 0 || seconds >= self.interval_secs * 0.10 {
                keep = true;
            }
            let bps = if seconds > 0.0 {
                bytes as f64 * 8.0 / seconds
            } else {
                0.0
            };
            let mut tcp = None;
            let mut udp = None;
            if s.udp {
                let packets_now = s.counters.packets.load(Ordering::Relaxed);
                let packets = packets_now.saturating_sub(t.last_packets) as i64;
                t.last_packets = packets_now;
                if s.sender {
                    udp = Some(UdpSample {
                        packets,
                        ..Default::default()
                    });
                } else {
                    let lost_now = s.counters.lost.load(Ordering::Relaxed);
                    let lost = lost_now - t.last_lost;
                    t.last_lost = lost_now;
                    let lost_percent = if packets > 0 {
                        100.0 * lost as f64 / packets as f64
                    } else {
                        0.0
                    };
                    udp = Some(UdpSample {
                        packets,
                        lost_packets: lost,
                        jitter_ms: s.counters.jitter() * 1000.0,
                        lost_percent,
                    });
                }
            } else if s.sender {
                if let Some(ti) = tcp_info(s.fd) {
                    tcp = Some(track_tcp(t, &ti));
                }
            }
            t.last_bytes = bytes_now;
            t.last_ns = now;
            out.push(StreamInterval {
                index: i,
                socket: s.socket,
                start,
                end,
                seconds,
                bytes,
                bits_per_second: bps,
                omitted,
                sender: s.sender,
                tcp,
                udp,
            });
        }
        if !keep {
            return None;
        }
        Some(Interval {
            streams: out,
            omitted,
        })
    }

    /// The omit period ended at `now`: totals and times restart from here.
    pub fn reset_for_omit(&mut self, streams: &[Stream], now: u64) {
        for (s, t) in streams.iter().zip(self.tracks.iter_mut()) {
            t.omit_bytes = s.counters.bytes.load(Ordering::Relaxed);
            t.omit_packets = s.counters.packets.load(Ordering::Relaxed);
            t.omit_retrans = t.last_retrans;
            t.last_bytes = t.omit_bytes;
            t.last_packets = t.omit_packets;
            t.start_ns = now;
            t.last_ns = now;
            t.max_cwnd = 0;
            t.max_wnd = 0;
            t.max_rtt = 0;
            t.min_rtt = u64::MAX;
            t.rtt_sum = 0;
            t.rtt_n = 0;
        }
    }

    /// End-of-test totals for every stream, as of the last sample.
    pub fn totals(&self, streams: &[Stream]) -> Vec<StreamTotals> {
        streams
            .iter()
            .zip(self.tracks.iter())
            .map(|(s, t)| {
                let c = &s.counters;
                let bytes = c.bytes.load(Ordering::Relaxed).saturating_sub(t.omit_bytes);
                let tcp_sender = s.sender && !s.udp;
                StreamTotals {
                    id: s.id,
                    socket: s.socket,
                    sender: s.sender,
                    udp: s.udp,
                    bytes,
                    seconds: secs(t.last_ns.saturating_sub(t.start_ns)),
                    retransmits: tcp_sender
                        .then(|| t.last_retrans.saturating_sub(t.omit_retrans) as i64),
                    max_snd_cwnd: t.max_cwnd,
                    max_snd_wnd: t.max_wnd,
                    max_rtt: t.max_rtt,
                    min_rtt: if t.min_rtt == u64::MAX { 0 } else { t.min_rtt },
                    mean_rtt: t.rtt_sum.checked_div(t.rtt_n).unwrap_or(0),
                    packets: if s.sender {
                        c.packets
                            .load(Ordering::Relaxed)
                            .saturating_sub(t.omit_packets) as i64
                    } else {
                        c.packets.load(Ordering::Relaxed) as i64
                    },
                    lost: c.lost.load(Ordering::Relaxed),
                    out_of_order: c.out_of_order.load(Ordering::Relaxed),
                    jitter: c.jitter(),
                }
            })
            .collect()
    }
}

fn track_tcp(t: &mut Track, ti: &TcpInfo) -> TcpSample {
    let retr = ti.retransmits.saturating_sub(t.last_retrans);
    t.last_retrans = ti.retransmits;
    t.max_cwnd = t.max_cwnd.max(ti.snd_cwnd);
    t.max_wnd = t.max_wnd.max(ti.snd_wnd);
    t.max_rtt = t.max_rtt.max(ti.rtt);
    t.min_rtt = t.min_rtt.min(ti.rtt);
    t.rtt_sum += ti.rtt;
    t.rtt_n += 1;
    TcpSample {
        retransmits: retr as i64,
        snd_cwnd: ti.snd_cwnd,
        snd_wnd: ti.snd_wnd,
        rtt: ti.rtt,
        rttvar: ti.rttvar,
        pmtu: ti.pmtu,
    }
}

/// Process CPU use since `start`: (total, user, system) in percent of one CPU.
pub struct CpuClock {
    wall_ns: u64,
    user_us: u64,
    sys_us: u64,
}

fn rusage_us() -> (u64, u64) {
    // SAFETY: getrusage fills a plain struct.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    let us = |t: libc::timeval| t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64;
    (us(ru.ru_utime), us(ru.ru_stime))
}

impl CpuClock {
    pub fn start() -> CpuClock {
        let (u, s) = rusage_us();
        CpuClock {
            wall_ns: now_ns(),
            user_us: u,
            sys_us: s,
        }
    }

    pub fn percent(&self) -> (f64, f64, f64) {
        let (u, s) = rusage_us();
        let wall_us = (now_ns().saturating_sub(self.wall_ns) / 1000).max(1) as f64;
        let user = (u - self.user_us) as f64 / wall_us * 100.0;
        let sys = (s - self.sys_us) as f64 / wall_us * 100.0;
        (user + sys, user, sys)
    }
}
