//! The `-J` document (spec §6): the same keys, order and number types as
//! iperf3 3.12, built as a JSON tree and printed by the cJSON printer.

use super::sum::IntervalSum;
use super::{Ctx, StartInfo, Summary};
use crate::measure::{Interval, StreamInterval};
use crate::protocol::cjson::num;
use serde_json::{Map, Value};

fn obj(pairs: Vec<(&str, Value)>) -> Value {
    let mut m = Map::new();
    for (k, v) in pairs {
        m.insert(k.to_string(), v);
    }
    Value::Object(m)
}

pub fn start(info: &StartInfo, is_client: bool) -> Value {
    let connected: Vec<Value> = info
        .connected
        .iter()
        .map(|c| {
            obj(vec![
                ("socket", c.socket.into()),
                ("local_host", c.local_host.clone().into()),
                ("local_port", c.local_port.into()),
                ("remote_host", c.remote_host.clone().into()),
                ("remote_port", c.remote_port.into()),
            ])
        })
        .collect();
    let mut m = Map::new();
    m.insert("connected".into(), Value::Array(connected));
    m.insert("version".into(), "iperf 3.12".into());
    m.insert("system_info".into(), info.system_info.clone().into());
    let Some(t) = &info.test else {
        if let (true, Some(oc)) = (is_client, &info.on_connect) {
            m.insert(
                "timestamp".into(),
                obj(vec![
                    ("time", info.time.clone().into()),
                    ("timesecs", info.timesecs.into()),
                ]),
            );
            m.insert(
                "connecting_to".into(),
                obj(vec![
                    ("host", info.peer_host.clone().into()),
                    ("port", info.peer_port.into()),
                ]),
            );
            m.insert("cookie".into(), info.cookie.clone().into());
            if oc.tcp {
                let key = if oc.mss > 0 {
                    "tcp_mss"
                } else {
                    "tcp_mss_default"
                };
                m.insert(key.into(), info.tcp_mss.into());
            }
            m.insert("target_bitrate".into(), oc.rate.into());
        }
        return Value::Object(m);
    };
    let timestamp = obj(vec![
        ("time", info.time.clone().into()),
        ("timesecs", info.timesecs.into()),
    ]);
    let bufs = |m: &mut Map<String, Value>| {
        m.insert("sock_bufsize".into(), t.window.into());
        m.insert("sndbuf_actual".into(), info.sndbuf_actual.into());
        m.insert("rcvbuf_actual".into(), info.rcvbuf_actual.into());
    };
    if is_client {
        m.insert("timestamp".into(), timestamp);
        m.insert(
            "connecting_to".into(),
            obj(vec![
                ("host", info.peer_host.clone().into()),
                ("port", info.peer_port.into()),
            ]),
        );
        m.insert("cookie".into(), info.cookie.clone().into());
        if !t.udp {
            m.insert(
                if t.mss > 0 {
                    "tcp_mss"
                } else {
                    "tcp_mss_default"
                }
                .into(),
                info.tcp_mss.into(),
            );
        }
        m.insert("target_bitrate".into(), t.rate.into());
        bufs(&mut m);
    } else {
        // 3.12's server adds target_bitrate while reading the parameters
        // (and again later: a duplicate key, kept here at its first place).
        if t.rate != 0 {
            m.insert("target_bitrate".into(), t.rate.into());
        }
        // TCP streams exist (and report their buffers) before the
        // timestamp is added; UDP streams only after the cookie.
        if !t.udp {
            bufs(&mut m);
        }
        m.insert("timestamp".into(), timestamp);
        m.insert(
            "accepted_connection".into(),
            obj(vec![
                ("host", info.peer_host.clone().into()),
                ("port", info.peer_port.into()),
            ]),
        );
        m.insert("cookie".into(), info.cookie.clone().into());
        if t.udp {
            bufs(&mut m);
        } else {
            m.insert("tcp_mss_default".into(), info.tcp_mss.into());
        }
        m.insert("target_bitrate".into(), t.rate.into());
    }
    m.insert(
        "test_start".into(),
        obj(vec![
            ("protocol", if t.udp { "UDP" } else { "TCP" }.into()),
            ("num_streams", t.num_streams.into()),
            ("blksize", t.blksize.into()),
            ("omit", t.omit.into()),
            ("duration", t.duration.into()),
            ("bytes", t.bytes.into()),
            ("blocks", t.blocks.into()),
            ("reverse", (t.reverse as i64).into()),
            ("tos", t.tos.into()),
            ("target_bitrate", t.rate.into()),
        ]),
    );
    Value::Object(m)
}

fn stream_interval(ctx: &Ctx, s: &StreamInterval) -> Value {
    let mut v = vec![
        ("socket", s.socket.into()),
        ("start", num(s.start)),
        ("end", num(s.end)),
        ("seconds", num(s.seconds)),
        ("bytes", s.bytes.into()),
        ("bits_per_second", num(s.bits_per_second)),
    ];
    if ctx.udp {
        let u = s.udp.unwrap_or_default();
        if s.sender {
            v.push(("packets", u.packets.into()));
        } else {
            v.push(("jitter_ms", num(u.jitter_ms)));
            v.push(("lost_packets", u.lost_packets.into()));
            v.push(("packets", u.packets.into()));
            v.push(("lost_percent", num(u.lost_percent)));
        }
    } else if let (true, Some(t)) = (ctx.sender_has_retransmits && s.sender, s.tcp) {
        v.push(("retransmits", t.retransmits.into()));
        v.push(("snd_cwnd", t.snd_cwnd.into()));
        v.push(("snd_wnd", t.snd_wnd.into()));
        v.push(("rtt", t.rtt.into()));
        v.push(("rttvar", t.rttvar.into()));
        v.push(("pmtu", t.pmtu.into()));
    }
    v.push(("omitted", s.omitted.into()));
    v.push(("sender", s.sender.into()));
    obj(v)
}

fn interval_sum(ctx: &Ctx, mine: &[&StreamInterval], sender: bool) -> Value {
    let sum = IntervalSum::of(ctx, mine);
    let mut v = vec![
        ("start", num(sum.start)),
        ("end", num(sum.end)),
        ("seconds", num(sum.seconds)),
        ("bytes", sum.bytes.into()),
        ("bits_per_second", num(sum.byte_rate() * 8.0)),
    ];
    if ctx.udp {
        if sender {
            v.push(("packets", sum.packets.into()));
        } else {
            v.push(("jitter_ms", num(sum.jitter_ms)));
            v.push(("lost_packets", sum.lost.into()));
            v.push(("packets", sum.packets.into()));
            v.push(("lost_percent", num(sum.lost_percent)));
        }
    } else if ctx.sender_has_retransmits && sender {
        v.push(("retransmits", sum.retransmits.into()));
    }
    v.push(("omitted", sum.omitted.into()));
    v.push(("sender", sender.into()));
    obj(v)
}

pub fn interval(ctx: &Ctx, iv: &Interval) -> Value {
    let mut m = Map::new();
    let mut streams = Vec::new();
    let mut sums = Vec::new();
    for must_send in ctx.direction_order() {
        let mine: Vec<&StreamInterval> = iv
            .streams
            .iter()
            .filter(|s| s.sender == must_send)
            .collect();
        if mine.is_empty() {
            continue;
        }
        streams.extend(mine.iter().map(|s| stream_interval(ctx, s)));
        let name = if ctx.bidir && (ctx.is_client != must_send) {
            "sum_bidir_reverse"
        } else {
            "sum"
        };
        sums.push((name, interval_sum(ctx, &mine, must_send)));
    }
    m.insert("streams".into(), Value::Array(streams));
    for (k, v) in sums {
        m.insert(k.into(), v);
    }
    Value::Object(m)
}

pub fn end(ctx: &Ctx, s: &Summary) -> Value {
    let mut m = Map::new();
    let mut streams = Vec::new();
    let mut sums: Vec<(String, Value)> = Vec::new();
    let (sender_time, receiver_time) = s
        .streams
        .first()
        .map_or((0.0, 0.0), |f| (f.sender_time, f.receiver_time));
    for must_send in ctx.direction_order() {
        let mine: Vec<_> = s.streams.iter().filter(|x| x.sender == must_send).collect();
        if mine.is_empty() {
            continue;
        }
        let retr_known = if ctx.bidir && !must_send {
            s.other_side_has_retransmits
        } else if ctx.bidir {
            s.sender_has_retransmits
        } else {
            s.sender_has_retransmits || s.other_side_has_retransmits
        };
        let (mut ts, mut tr, mut retr) = (0u64, 0u64, 0i64);
        let (mut spk, mut rpk, mut lost, mut jit) = (0i64, 0i64, 0i64, 0.0);
        for st in &mine {
            ts += st.bytes_sent;
            tr += st.bytes_received;
            retr += st.retransmits.max(0);
            spk += st.sender_packets;
            rpk += st.receiver_packets;
            lost += st.lost;
            jit += st.jitter;
            let bps = |b: u64, t: f64| num(if t > 0.0 { b as f64 * 8.0 / t } else { 0.0 });
            if ctx.udp {
                let packets = if st.sender_packets != 0 {
                    st.sender_packets
                } else {
                    st.receiver_packets
                };
                streams.push(obj(vec![(
                    "udp",
                    obj(vec![
                        ("socket", st.socket.into()),
                        ("start", 0.into()),
                        ("end", num(receiver_time)),
                        ("seconds", num(sender_time)),
                        ("bytes", st.bytes_sent.into()),
                        ("bits_per_second", bps(st.bytes_sent, sender_time)),
                        ("jitter_ms", num(st.jitter * 1000.0)),
                        ("lost_packets", st.lost.into()),
                        ("packets", packets.into()),
                        (
                            "lost_percent",
                            num(if packets > 0 {
                                100.0 * st.lost as f64 / packets as f64
                            } else {
                                0.0
                            }),
                        ),
                        ("out_of_order", st.out_of_order.into()),
                        ("sender", st.sender.into()),
                    ]),
                )]));
            } else {
                let mut sv = vec![
                    ("socket", st.socket.into()),
                    ("start", 0.into()),
                    ("end", num(sender_time)),
                    ("seconds", num(sender_time)),
                    ("bytes", st.bytes_sent.into()),
                    ("bits_per_second", bps(st.bytes_sent, sender_time)),
                ];
                if retr_known {
                    sv.push(("retransmits", st.retransmits.max(0).into()));
                    sv.push(("max_snd_cwnd", st.max_snd_cwnd.into()));
                    sv.push(("max_snd_wnd", st.max_snd_wnd.into()));
                    sv.push(("max_rtt", st.max_rtt.into()));
                    sv.push(("min_rtt", st.min_rtt.into()));
                    sv.push(("mean_rtt", st.mean_rtt.into()));
                }
                sv.push(("sender", st.sender.into()));
                let rv = vec![
                    ("socket", st.socket.into()),
                    ("start", 0.into()),
                    ("end", num(receiver_time)),
                    ("seconds", num(sender_time)),
                    ("bytes", st.bytes_received.into()),
                    ("bits_per_second", bps(st.bytes_received, receiver_time)),
                    ("sender", st.sender.into()),
                ];
                let mut one = vec![("sender", obj(sv))];
                if let Some((name, size)) = &s.file {
                    // 3.12: whole percents, truncated; an empty file is 100%.
                    let pct = |b: u64| {
                        if *size > 0 {
                            (b as f64 / *size as f64 * 100.0) as i64
                        } else {
                            100
                        }
                    };
                    one.push((
                        "diskfile",
                        obj(vec![
                            ("sent", st.bytes_sent.into()),
                            ("received", st.bytes_received.into()),
                            ("size", (*size).into()),
                            ("percent_sent", pct(st.bytes_sent).into()),
                            ("percent_received", pct(st.bytes_received).into()),
                            ("filename", name.clone().into()),
                        ]),
                    ));
                }
                one.push(("receiver", obj(rv)));
                streams.push(obj(one));
            }
        }
        let reverse = ctx.bidir && (ctx.is_client != must_send);
        let sfx = if reverse { "_bidir_reverse" } else { "" };
        let bps = |b: u64, t: f64| num(if t > 0.0 { b as f64 * 8.0 / t } else { 0.0 });
        if ctx.udp {
            let packets = if spk != 0 { spk } else { rpk };
            let lp = |l: i64, p: i64| {
                num(if p > 0 {
                    100.0 * l as f64 / p as f64
                } else {
                    0.0
                })
            };
            let avg_jit = jit / ctx.num_streams as f64 * 1000.0;
            let total = |end: f64,
                         seconds: f64,
                         bytes: u64,
                         bits: Value,
                         lost: i64,
                         packets: i64,
                         jitter: f64,
                         sender: bool| {
                obj(vec![
                    ("start", 0.into()),
                    ("end", num(end)),
                    ("seconds", num(seconds)),
                    ("bytes", bytes.into()),
                    ("bits_per_second", bits),
                    ("jitter_ms", num(jitter)),
                    ("lost_packets", lost.into()),
                    ("packets", packets.into()),
                    ("lost_percent", lp(lost, packets)),
                    ("sender", sender.into()),
                ])
            };
            // `sum` mixes the sender's bytes and rate with the receiver's
            // times and loss (3.12's legacy object, spec §6.4).
            let legacy = total(
                receiver_time,
                receiver_time,
                ts,
                bps(ts, sender_time),
                lost,
                packets,
                avg_jit,
                must_send,
            );
            let sent = total(
                sender_time,
                sender_time,
                ts,
                bps(ts, sender_time),
                0,
                spk,
                0.0,
                true,
            );
            let received = total(
                receiver_time,
                receiver_time,
                tr,
                bps(tr, receiver_time),
                lost,
                rpk,
                avg_jit,
                false,
            );
            sums.push((format!("sum{sfx}"), legacy));
            sums.push((format!("sum_sent{sfx}"), sent));
            sums.push((format!("sum_received{sfx}"), received));
        } else {
            let mut sv = vec![
                ("start", 0.into()),
                ("end", num(sender_time)),
                ("seconds", num(sender_time)),
                ("bytes", ts.into()),
                ("bits_per_second", bps(ts, sender_time)),
            ];
            if retr_known {
                sv.push(("retransmits", retr.into()));
            }
            sv.push(("sender", must_send.into()));
            sums.push((format!("sum_sent{sfx}"), obj(sv)));
            sums.push((
                format!("sum_received{sfx}"),
                obj(vec![
                    ("start", 0.into()),
                    ("end", num(receiver_time)),
                    ("seconds", num(receiver_time)),
                    ("bytes", tr.into()),
                    ("bits_per_second", bps(tr, receiver_time)),
                    ("sender", must_send.into()),
                ]),
            ));
        }
    }
    m.insert("streams".into(), Value::Array(streams));
    for (k, v) in sums {
        m.insert(k, v);
    }
    m.insert(
        "cpu_utilization_percent".into(),
        obj(vec![
            ("host_total", num(s.cpu.0)),
            ("host_user", num(s.cpu.1)),
            ("host_system", num(s.cpu.2)),
            ("remote_total", num(s.remote_cpu.0)),
            ("remote_user", num(s.remote_cpu.1)),
            ("remote_system", num(s.remote_cpu.2)),
        ]),
    );
    if !ctx.udp {
        if let Some(c) = &s.sender_congestion {
            m.insert("sender_tcp_congestion".into(), c.clone().into());
        }
        if let Some(c) = &s.receiver_congestion {
            m.insert("receiver_tcp_congestion".into(), c.clone().into());
        }
    }
    Value::Object(m)
}
