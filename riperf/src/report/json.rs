//! The `-J` document (spec §6): the same keys, order and number types as
//! iperf3 3.12, built as a JSON tree and printed by the cJSON printer.

use super::sum::IntervalSum;
use super::{Ctx, OnConnect, StartInfo, Summary, SummaryStream, TestDesc};
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
    let mut m = Map::new();
    m.insert("connected".into(), connected(info));
    m.insert("version".into(), "iperf 3.12".into());
    m.insert("system_info".into(), info.system_info.clone().into());
    let Some(t) = &info.test else {
        if let (true, Some(oc)) = (is_client, &info.on_connect) {
            insert_on_connect(&mut m, info, oc);
        }
        return Value::Object(m);
    };
    if is_client {
        insert_client_test(&mut m, info, t);
    } else {
        insert_server_test(&mut m, info, t);
    }
    m.insert("test_start".into(), test_start(t));
    Value::Object(m)
}

/// `connected`: each stream's socket and ends.
fn connected(info: &StartInfo) -> Value {
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
    Value::Array(connected)
}

/// `timestamp`: when the test started.
fn timestamp(info: &StartInfo) -> Value {
    obj(vec![
        ("time", info.time.clone().into()),
        ("timesecs", info.timesecs.into()),
    ])
}

/// The peer's host and port (`connecting_to`, `accepted_connection`).
fn peer(info: &StartInfo) -> Value {
    obj(vec![
        ("host", info.peer_host.clone().into()),
        ("port", info.peer_port.into()),
    ])
}

/// The socket buffer sizes asked for and got.
fn insert_bufs(m: &mut Map<String, Value>, info: &StartInfo, t: &TestDesc) {
    m.insert("sock_bufsize".into(), t.window.into());
    m.insert("sndbuf_actual".into(), info.sndbuf_actual.into());
    m.insert("rcvbuf_actual".into(), info.rcvbuf_actual.into());
}

/// A client that connected but has no test yet: what it knows then.
fn insert_on_connect(m: &mut Map<String, Value>, info: &StartInfo, oc: &OnConnect) {
    m.insert("timestamp".into(), timestamp(info));
    m.insert("connecting_to".into(), peer(info));
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

/// The client's keys, in 3.12's order.
fn insert_client_test(m: &mut Map<String, Value>, info: &StartInfo, t: &TestDesc) {
    m.insert("timestamp".into(), timestamp(info));
    m.insert("connecting_to".into(), peer(info));
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
    insert_bufs(m, info, t);
}

/// The server's keys, in 3.12's order.
fn insert_server_test(m: &mut Map<String, Value>, info: &StartInfo, t: &TestDesc) {
    // 3.12's server adds target_bitrate while reading the parameters
    // (and again later: a duplicate key, kept here at its first place).
    if t.rate != 0 {
        m.insert("target_bitrate".into(), t.rate.into());
    }
    // TCP streams exist (and report their buffers) before the
    // timestamp is added; UDP streams only after the cookie.
    if !t.udp {
        insert_bufs(m, info, t);
    }
    m.insert("timestamp".into(), timestamp(info));
    m.insert("accepted_connection".into(), peer(info));
    m.insert("cookie".into(), info.cookie.clone().into());
    if t.udp {
        insert_bufs(m, info, t);
    } else {
        m.insert("tcp_mss_default".into(), info.tcp_mss.into());
    }
    m.insert("target_bitrate".into(), t.rate.into());
}

/// `test_start`: the test's parameters.
fn test_start(t: &TestDesc) -> Value {
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
    ])
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

/// The test's sending and receiving times (of its first stream).
#[derive(Clone, Copy)]
struct Times {
    sender: f64,
    receiver: f64,
}

/// One direction's totals over its streams.
#[derive(Default)]
struct Totals {
    sent: u64,
    received: u64,
    retransmits: i64,
    sender_packets: i64,
    receiver_packets: i64,
    lost: i64,
    jitter: f64,
}

impl Totals {
    fn add(&mut self, st: &SummaryStream) {
        self.sent += st.bytes_sent;
        self.received += st.bytes_received;
        self.retransmits += st.retransmits.max(0);
        self.sender_packets += st.sender_packets;
        self.receiver_packets += st.receiver_packets;
        self.lost += st.lost;
        self.jitter += st.jitter;
    }
}

/// Bits per second of `b` bytes in `t` seconds (0 without time).
fn bps(b: u64, t: f64) -> Value {
    num(if t > 0.0 { b as f64 * 8.0 / t } else { 0.0 })
}

/// `lost` of `packets` in percent (0 without packets).
fn lost_percent(lost: i64, packets: i64) -> Value {
    num(if packets > 0 {
        100.0 * lost as f64 / packets as f64
    } else {
        0.0
    })
}

pub fn end(ctx: &Ctx, s: &Summary) -> Value {
    let mut m = Map::new();
    let mut streams = Vec::new();
    let mut sums: Vec<(String, Value)> = Vec::new();
    let times = s.streams.first().map_or(
        Times {
            sender: 0.0,
            receiver: 0.0,
        },
        |f| Times {
            sender: f.sender_time,
            receiver: f.receiver_time,
        },
    );
    for must_send in ctx.direction_order() {
        let mine: Vec<_> = s.streams.iter().filter(|x| x.sender == must_send).collect();
        if mine.is_empty() {
            continue;
        }
        let retr_known = retransmits_known(ctx, s, must_send);
        let mut totals = Totals::default();
        for st in &mine {
            totals.add(st);
            streams.push(if ctx.udp {
                udp_stream_end(st, times)
            } else {
                tcp_stream_end(st, times, retr_known, s.file.as_ref())
            });
        }
        let reverse = ctx.bidir && (ctx.is_client != must_send);
        let sfx = if reverse { "_bidir_reverse" } else { "" };
        if ctx.udp {
            udp_sums(ctx, &totals, times, must_send, sfx, &mut sums);
        } else {
            tcp_sums(&totals, times, must_send, retr_known, sfx, &mut sums);
        }
    }
    m.insert("streams".into(), Value::Array(streams));
    for (k, v) in sums {
        m.insert(k, v);
    }
    insert_cpu_and_congestion(&mut m, ctx, s);
    Value::Object(m)
}

/// Whether the streams sending `must_send`'s way report retransmits.
fn retransmits_known(ctx: &Ctx, s: &Summary, must_send: bool) -> bool {
    if ctx.bidir && !must_send {
        s.other_side_has_retransmits
    } else if ctx.bidir {
        s.sender_has_retransmits
    } else {
        s.sender_has_retransmits || s.other_side_has_retransmits
    }
}

/// A UDP stream's `end` entry.
fn udp_stream_end(st: &SummaryStream, times: Times) -> Value {
    let packets = if st.sender_packets != 0 {
        st.sender_packets
    } else {
        st.receiver_packets
    };
    obj(vec![(
        "udp",
        obj(vec![
            ("socket", st.socket.into()),
            ("start", 0.into()),
            ("end", num(times.receiver)),
            ("seconds", num(times.sender)),
            ("bytes", st.bytes_sent.into()),
            ("bits_per_second", bps(st.bytes_sent, times.sender)),
            ("jitter_ms", num(st.jitter * 1000.0)),
            ("lost_packets", st.lost.into()),
            ("packets", packets.into()),
            ("lost_percent", lost_percent(st.lost, packets)),
            ("out_of_order", st.out_of_order.into()),
            ("sender", st.sender.into()),
        ]),
    )])
}

/// A TCP stream's `end` entry: its sender side, its `-F` file, and its
/// receiver side.
fn tcp_stream_end(
    st: &SummaryStream,
    times: Times,
    retr_known: bool,
    file: Option<&(String, u64)>,
) -> Value {
    let mut sv = vec![
        ("socket", st.socket.into()),
        ("start", 0.into()),
        ("end", num(times.sender)),
        ("seconds", num(times.sender)),
        ("bytes", st.bytes_sent.into()),
        ("bits_per_second", bps(st.bytes_sent, times.sender)),
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
        ("end", num(times.receiver)),
        ("seconds", num(times.sender)),
        ("bytes", st.bytes_received.into()),
        ("bits_per_second", bps(st.bytes_received, times.receiver)),
        ("sender", st.sender.into()),
    ];
    let mut one = vec![("sender", obj(sv))];
    if let Some((name, size)) = file {
        one.push(("diskfile", diskfile(st, name, *size)));
    }
    one.push(("receiver", obj(rv)));
    obj(one)
}

/// A stream's share of the `-F` file `name` of `size` bytes.
fn diskfile(st: &SummaryStream, name: &str, size: u64) -> Value {
    // 3.12: whole percents, truncated; an empty file is 100%.
    let pct = |b: u64| {
        if size > 0 {
            (b as f64 / size as f64 * 100.0) as i64
        } else {
            100
        }
    };
    obj(vec![
        ("sent", st.bytes_sent.into()),
        ("received", st.bytes_received.into()),
        ("size", size.into()),
        ("percent_sent", pct(st.bytes_sent).into()),
        ("percent_received", pct(st.bytes_received).into()),
        ("filename", name.to_string().into()),
    ])
}

/// One UDP total object.
#[allow(clippy::too_many_arguments)]
fn udp_total(
    end: f64,
    seconds: f64,
    bytes: u64,
    bits: Value,
    lost: i64,
    packets: i64,
    jitter: f64,
    sender: bool,
) -> Value {
    obj(vec![
        ("start", 0.into()),
        ("end", num(end)),
        ("seconds", num(seconds)),
        ("bytes", bytes.into()),
        ("bits_per_second", bits),
        ("jitter_ms", num(jitter)),
        ("lost_packets", lost.into()),
        ("packets", packets.into()),
        ("lost_percent", lost_percent(lost, packets)),
        ("sender", sender.into()),
    ])
}

/// A UDP direction's `sum`, `sum_sent` and `sum_received` (with `sfx`).
fn udp_sums(
    ctx: &Ctx,
    t: &Totals,
    times: Times,
    must_send: bool,
    sfx: &str,
    sums: &mut Vec<(String, Value)>,
) {
    let packets = if t.sender_packets != 0 {
        t.sender_packets
    } else {
        t.receiver_packets
    };
    let avg_jit = t.jitter / ctx.num_streams as f64 * 1000.0;
    let (st, rt) = (times.sender, times.receiver);
    // `sum` mixes the sender's bytes and rate with the receiver's
    // times and loss (3.12's legacy object, spec §6.4).
    let legacy = udp_total(
        rt,
        rt,
        t.sent,
        bps(t.sent, st),
        t.lost,
        packets,
        avg_jit,
        must_send,
    );
    let sent = udp_total(
        st,
        st,
        t.sent,
        bps(t.sent, st),
        0,
        t.sender_packets,
        0.0,
        true,
    );
    let received = udp_total(
        rt,
        rt,
        t.received,
        bps(t.received, rt),
        t.lost,
        t.receiver_packets,
        avg_jit,
        false,
    );
    sums.push((format!("sum{sfx}"), legacy));
    sums.push((format!("sum_sent{sfx}"), sent));
    sums.push((format!("sum_received{sfx}"), received));
}

/// A TCP direction's `sum_sent` and `sum_received` (with `sfx`).
fn tcp_sums(
    t: &Totals,
    times: Times,
    must_send: bool,
    retr_known: bool,
    sfx: &str,
    sums: &mut Vec<(String, Value)>,
) {
    let mut sv = vec![
        ("start", 0.into()),
        ("end", num(times.sender)),
        ("seconds", num(times.sender)),
        ("bytes", t.sent.into()),
        ("bits_per_second", bps(t.sent, times.sender)),
    ];
    if retr_known {
        sv.push(("retransmits", t.retransmits.into()));
    }
    sv.push(("sender", must_send.into()));
    sums.push((format!("sum_sent{sfx}"), obj(sv)));
    sums.push((
        format!("sum_received{sfx}"),
        obj(vec![
            ("start", 0.into()),
            ("end", num(times.receiver)),
            ("seconds", num(times.receiver)),
            ("bytes", t.received.into()),
            ("bits_per_second", bps(t.received, times.receiver)),
            ("sender", must_send.into()),
        ]),
    ));
}

/// The `end` document's CPU use and (TCP) congestion algorithms.
fn insert_cpu_and_congestion(m: &mut Map<String, Value>, ctx: &Ctx, s: &Summary) {
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
}
