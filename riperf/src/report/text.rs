//! The human-readable report, line for line as iperf3 3.12 prints it
//! (spec §5; templates from iperf3's report strings, trailing blanks kept).

use super::sum::IntervalSum;
use super::{Ctx, Summary};
use crate::measure::{Interval, StreamInterval};
use rbench_common::units::iperf::{format_rate, format_transfer, unit_string};

pub const SEPARATOR: &str = "- - - - - - - - - - - - - - - - - - - - - - - - -";

fn tag(ctx: &Ctx, sender: bool) -> String {
    if ctx.bidir {
        format!(
            "[{}-{}]",
            if sender { "TX" } else { "RX" },
            if ctx.is_client { "C" } else { "S" }
        )
    } else {
        String::new()
    }
}

fn id_prefix(ctx: &Ctx) -> &'static str {
    if ctx.bidir {
        "[ ID][Role]"
    } else {
        "[ ID]"
    }
}

/// The header before the first interval.
pub fn interval_header(ctx: &Ctx) -> String {
    let p = id_prefix(ctx);
    let tail = if ctx.udp {
        if ctx.bidir {
            "         Jitter    Lost/Total Datagrams"
        } else if ctx.local_sends() {
            "         Total Datagrams"
        } else {
            "         Jitter    Lost/Total Datagrams"
        }
    } else if ctx.sender_has_retransmits {
        "         Retr  Cwnd"
    } else {
        ""
    };
    format!("{p} Interval           Transfer     Bitrate{tail}")
}

fn omitted(o: bool) -> &'static str {
    if o {
        "(omitted)"
    } else {
        ""
    }
}

fn stream_line(ctx: &Ctx, s: &StreamInterval) -> String {
    let xfer = format_transfer(s.bytes as f64);
    let rate = format_rate(
        if s.seconds > 0.0 {
            s.bytes as f64 / s.seconds
        } else {
            0.0
        },
        ctx.format,
    );
    let head = format!(
        "[{:>3}]{} {:6.2}-{:<6.2} sec  {}  {}",
        s.socket,
        tag(ctx, s.sender),
        s.start,
        s.end,
        xfer,
        rate
    );
    let o = omitted(s.omitted);
    if ctx.udp {
        let u = s.udp.unwrap_or_default();
        if s.sender {
            let z = if ctx.bidir { "          " } else { "" };
            format!("{head} {z} {}  {o}", u.packets)
        } else {
            format!(
                "{head}  {:5.3} ms  {}/{} ({})  {o}",
                u.jitter_ms,
                u.lost_packets,
                u.packets,
                percent(u.lost_percent)
            )
        }
    } else if let (true, Some(t)) = (ctx.sender_has_retransmits && s.sender, s.tcp) {
        format!(
            "{head}  {:3}   {}       {o}",
            t.retransmits,
            format_transfer(t.snd_cwnd as f64)
        )
    } else {
        format!("{head}                  {o}")
    }
}

/// What the server says, with `-V`, for the side it cannot know.
fn not_available(id: &str, side: &str) -> String {
    format!("[{id:>3}] ({side} statistics not available)")
}

/// C's `%.2g` followed by `%`.
pub fn percent(p: f64) -> String {
    let mut s = crate::protocol::cjson::format_g(p, 2);
    if s.contains('e') {
        // %g exponents keep at least two digits, which format_g already does.
    }
    if p == 0.0 {
        s = "0".into();
    }
    s.push('%');
    s
}

/// Lines for one interval: per-stream lines then `[SUM]` per direction.
pub fn interval_lines(ctx: &Ctx, iv: &Interval, first: bool) -> Vec<String> {
    let mut out = Vec::new();
    if first {
        out.push(interval_header(ctx));
    } else if ctx.num_streams > 1 {
        out.push(SEPARATOR.to_string());
    }
    for must_send in ctx.direction_order() {
        let mine: Vec<&StreamInterval> = iv
            .streams
            .iter()
            .filter(|s| s.sender == must_send)
            .collect();
        if mine.is_empty() {
            continue;
        }
        for s in &mine {
            out.push(stream_line(ctx, s));
        }
        if ctx.num_streams > 1 {
            out.push(sum_interval_line(ctx, &mine, must_send));
        }
    }
    out
}

fn sum_interval_line(ctx: &Ctx, mine: &[&StreamInterval], sender: bool) -> String {
    let sum = IntervalSum::of(ctx, mine);
    let head = format!(
        "[SUM]{} {:6.2}-{:<6.2} sec  {}  {}",
        tag(ctx, sender),
        sum.start,
        sum.end,
        format_transfer(sum.bytes as f64),
        format_rate(sum.byte_rate(), ctx.format)
    );
    let o = omitted(sum.omitted);
    if ctx.udp {
        if sender {
            let z = if ctx.bidir { "          " } else { "" };
            format!("{head} {z} {}  {o}", sum.packets)
        } else {
            format!(
                "{head}  {:5.3} ms  {}/{} ({})  {o}",
                sum.jitter_ms,
                sum.lost,
                sum.packets,
                percent(sum.lost_percent)
            )
        }
    } else if ctx.sender_has_retransmits && sender {
        format!("{head}  {:3}             {o}", sum.retransmits)
    } else {
        format!("{head}                  {o}")
    }
}

/// A summary line up to the rate: `[  5]   0.00-3.00   sec  1.2 GBytes  3.4 Gbits/sec`.
fn summary_head(ctx: &Ctx, label: &str, bytes: u64, secs: f64) -> String {
    format!(
        "{label} {:6.2}-{:<6.2} sec  {}  {}",
        0.0,
        secs,
        format_transfer(bytes as f64),
        format_rate(
            if secs > 0.0 { bytes as f64 / secs } else { 0.0 },
            ctx.format
        )
    )
}

/// The end-of-test block: separator, header, per-stream sender/receiver
/// lines, `[SUM]` lines. Only lines this side knows (the server prints its
/// own direction only).
pub fn summary_lines(ctx: &Ctx, s: &Summary) -> Vec<String> {
    let mut out = vec![SEPARATOR.to_string()];
    if ctx.verbose {
        out.push("Test Complete. Summary Results:".into());
    }
    let p = id_prefix(ctx);
    let tail = if ctx.udp {
        "         Jitter    Lost/Total Datagrams"
    } else if s.sender_has_retransmits || s.other_side_has_retransmits {
        "         Retr"
    } else {
        ""
    };
    out.push(format!("{p} Interval           Transfer     Bitrate{tail}"));
    let Some(first) = s.streams.first() else {
        return out;
    };
    // iperf3 takes both durations from the first stream.
    let times = (first.sender_time, first.receiver_time);
    for must_send in ctx.direction_order() {
        direction_lines(ctx, s, must_send, times, &mut out);
    }
    trailer_lines(ctx, s, &mut out);
    out
}

/// One summary row's numbers: a stream's, or the `[SUM]` of a direction.
#[derive(Default)]
struct Row {
    sent: u64,
    received: u64,
    retr: i64,
    sent_pk: i64,
    recv_pk: i64,
    lost: i64,
    /// Seconds.
    jitter: f64,
}

/// Which of a row's lines this side prints, over which durations.
struct Shown {
    sender: bool,
    receiver: bool,
    retr: bool,
    /// Sender's and receiver's seconds.
    times: (f64, f64),
}

/// The lines of one direction: each stream's rows, then `[SUM]` with more
/// than one stream.
fn direction_lines(
    ctx: &Ctx,
    s: &Summary,
    must_send: bool,
    times: (f64, f64),
    out: &mut Vec<String>,
) {
    let retr = if ctx.bidir && !must_send {
        s.other_side_has_retransmits
    } else if ctx.bidir {
        s.sender_has_retransmits
    } else {
        s.sender_has_retransmits || s.other_side_has_retransmits
    };
    let shown = Shown {
        sender: ctx.is_client || must_send,
        receiver: ctx.is_client || !must_send,
        retr,
        times,
    };
    let t = tag(ctx, must_send);
    let mine: Vec<_> = s.streams.iter().filter(|x| x.sender == must_send).collect();
    if mine.is_empty() {
        return;
    }
    let mut sum = Row::default();
    for st in &mine {
        let row = Row {
            sent: st.bytes_sent,
            received: st.bytes_received,
            retr: st.retransmits.max(0),
            sent_pk: st.sender_packets,
            recv_pk: st.receiver_packets,
            lost: st.lost,
            jitter: st.jitter,
        };
        sum.sent += row.sent;
        sum.received += row.received;
        sum.retr += row.retr;
        sum.sent_pk += row.sent_pk;
        sum.recv_pk += row.recv_pk;
        sum.lost += row.lost;
        sum.jitter += row.jitter;
        let label = format!("[{:>3}]{t}", st.socket);
        let between = if ctx.udp {
            (st.out_of_order > 0).then(|| {
                format!(
                    "[SUM]{t} {:4.1}-{:4.1} sec  {} datagrams received out-of-order",
                    0.0, times.0, st.out_of_order
                )
            })
        } else {
            file_line(s, must_send, st.bytes_sent, st.bytes_received)
        };
        row_lines(
            ctx,
            &label,
            &st.socket.to_string(),
            &row,
            &shown,
            between,
            out,
        );
    }
    if ctx.num_streams > 1 {
        sum.jitter /= ctx.num_streams as f64;
        row_lines(ctx, &format!("[SUM]{t}"), "SUM", &sum, &shown, None, out);
    }
}

/// `-F`: how much of the file went, under the stream's sender line.
fn file_line(s: &Summary, must_send: bool, sent: u64, received: u64) -> Option<String> {
    let (name, size) = s.file.as_ref()?;
    let done = if must_send { sent } else { received };
    let pct = if *size > 0 {
        (done as f64 / *size as f64 * 100.0) as i64
    } else {
        100
    };
    // 3.12 prints these units without the plural `s`.
    Some(format!(
        "        Sent {} / {} ({pct}%) of {name}",
        unit_string(done as f64, 'A'),
        unit_string(*size as f64, 'A')
    ))
}

/// A row's sender and receiver lines (or, verbose, that the other side
/// has them), `between` them what goes there.
fn row_lines(
    ctx: &Ctx,
    label: &str,
    who: &str,
    r: &Row,
    shown: &Shown,
    between: Option<String>,
    out: &mut Vec<String>,
) {
    let head = |bytes: u64, secs: f64| summary_head(ctx, label, bytes, secs);
    let (sender_time, receiver_time) = shown.times;
    if shown.sender {
        out.push(if ctx.udp {
            format!(
                "{}  {:5.3} ms  {}/{} ({})  sender",
                head(r.sent, sender_time),
                0.0,
                0,
                r.sent_pk,
                percent(0.0)
            )
        } else if shown.retr {
            format!(
                "{}  {:3}             sender",
                head(r.sent, sender_time),
                r.retr
            )
        } else {
            format!("{}                  sender", head(r.sent, sender_time))
        });
    } else if ctx.verbose {
        out.push(not_available(who, "sender"));
    }
    out.extend(between);
    if shown.receiver {
        out.push(if ctx.udp {
            let pct = if r.recv_pk > 0 {
                100.0 * r.lost as f64 / r.recv_pk as f64
            } else {
                0.0
            };
            format!(
                "{}  {:5.3} ms  {}/{} ({})  receiver",
                head(r.received, receiver_time),
                r.jitter * 1000.0,
                r.lost,
                r.recv_pk,
                percent(pct)
            )
        } else {
            format!(
                "{}                  receiver",
                head(r.received, receiver_time)
            )
        });
    } else if ctx.verbose {
        out.push(not_available(who, "receiver"));
    }
}

/// `-V`: the CPU line (3.12's server prints it only when it sends) and the
/// congestion control algorithms.
fn trailer_lines(ctx: &Ctx, s: &Summary, out: &mut Vec<String>) {
    if ctx.verbose && (ctx.is_client || ctx.local_sends()) {
        let (lt, lu, ls) = s.cpu;
        let (rt, ru, rs) = s.remote_cpu;
        let (l, r) = if ctx.local_sends() {
            ("local/sender", "remote/receiver")
        } else {
            ("local/receiver", "remote/sender")
        };
        out.push(format!(
            "CPU Utilization: {l} {lt:.1}% ({lu:.1}%u/{ls:.1}%s), {r} {rt:.1}% ({ru:.1}%u/{rs:.1}%s)"
        ));
    }
    if ctx.verbose && !ctx.udp {
        if let Some(c) = &s.sender_congestion {
            out.push(format!("snd_tcp_congestion {c}"));
        }
        if let Some(c) = &s.receiver_congestion {
            out.push(format!("rcv_tcp_congestion {c}"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::{TcpSample, UdpSample};
    use crate::report::SummaryStream;

    fn ctx() -> Ctx {
        Ctx {
            is_client: true,
            udp: false,
            bidir: false,
            reverse: false,
            num_streams: 1,
            format: 'a',
            verbose: false,
            sender_has_retransmits: true,
        }
    }

    fn si(bytes: u64, sender: bool) -> StreamInterval {
        StreamInterval {
            index: 0,
            socket: 5,
            start: 0.0,
            end: 1.0,
            seconds: 1.0,
            bytes,
            bits_per_second: bytes as f64 * 8.0,
            omitted: false,
            sender,
            tcp: None,
            udp: None,
        }
    }

    #[test]
    fn tcp_lines_match_the_reference_byte_for_byte() {
        // reference/iperf3/tcp_default.txt (values chosen to print the same).
        let mut s = si(1_857_573_519, true);
        s.tcp = Some(TcpSample {
            retransmits: 21,
            snd_cwnd: 767 * 1024,
            ..Default::default()
        });
        let iv = Interval {
            streams: vec![s],
            omitted: false,
        };
        let lines = interval_lines(&ctx(), &iv, true);
        assert_eq!(
            lines[0],
            "[ ID] Interval           Transfer     Bitrate         Retr  Cwnd"
        );
        assert_eq!(
            lines[1],
            "[  5]   0.00-1.00   sec  1.73 GBytes  14.9 Gbits/sec   21    767 KBytes       "
        );
        // Receiver interval on the server: 18 blanks after /sec.
        let c = Ctx {
            is_client: false,
            sender_has_retransmits: false,
            ..ctx()
        };
        let iv = Interval {
            streams: vec![si(2_308_544_020, false)],
            omitted: false,
        };
        let lines = interval_lines(&c, &iv, true);
        assert_eq!(lines[0], "[ ID] Interval           Transfer     Bitrate");
        assert_eq!(
            lines[1],
            "[  5]   0.00-1.00   sec  2.15 GBytes  18.5 Gbits/sec                  "
        );
    }

    #[test]
    fn udp_and_summary_lines_match_the_reference() {
        // reference/iperf3/udp_100M.txt
        let c = Ctx {
            udp: true,
            sender_has_retransmits: false,
            ..ctx()
        };
        let mut s = si(12_517_376, true);
        s.udp = Some(UdpSample {
            packets: 382,
            ..Default::default()
        });
        let iv = Interval {
            streams: vec![s],
            omitted: false,
        };
        let lines = interval_lines(&c, &iv, true);
        assert_eq!(
            lines[0],
            "[ ID] Interval           Transfer     Bitrate         Total Datagrams"
        );
        assert_eq!(
            lines[1],
            "[  5]   0.00-1.00   sec  11.9 MBytes   100 Mbits/sec  382  "
        );
        let sum = Summary {
            streams: vec![SummaryStream {
                socket: 5,
                sender: true,
                bytes_sent: 25_001_984,
                bytes_received: 25_001_984,
                sender_time: 2.0,
                receiver_time: 2.0,
                sender_packets: 763,
                receiver_packets: 763,
                jitter: 0.000170,
                ..Default::default()
            }],
            ..Default::default()
        };
        let lines = summary_lines(&c, &sum);
        assert_eq!(lines[0], SEPARATOR);
        assert_eq!(
            lines[1],
            "[ ID] Interval           Transfer     Bitrate         Jitter    Lost/Total Datagrams"
        );
        assert_eq!(
            lines[2],
            "[  5]   0.00-2.00   sec  23.8 MBytes   100 Mbits/sec  0.000 ms  0/763 (0%)  sender"
        );
        assert_eq!(
            lines[3],
            "[  5]   0.00-2.00   sec  23.8 MBytes   100 Mbits/sec  0.170 ms  0/763 (0%)  receiver"
        );
    }

    #[test]
    fn bidir_tags_and_tcp_summary() {
        // reference/iperf3/tcp_bidir.txt
        let c = Ctx {
            bidir: true,
            ..ctx()
        };
        let sum = Summary {
            streams: vec![
                SummaryStream {
                    socket: 5,
                    sender: true,
                    bytes_sent: 2_684_354_560,
                    bytes_received: 2_684_354_560,
                    sender_time: 2.0,
                    receiver_time: 2.0,
                    retransmits: 1,
                    ..Default::default()
                },
                SummaryStream {
                    socket: 7,
                    sender: false,
                    bytes_sent: 2_340_757_504,
                    bytes_received: 2_330_000_000,
                    retransmits: 0,
                    ..Default::default()
                },
            ],
            sender_has_retransmits: true,
            other_side_has_retransmits: true,
            ..Default::default()
        };
        let lines = summary_lines(&c, &sum);
        assert_eq!(
            lines[1],
            "[ ID][Role] Interval           Transfer     Bitrate         Retr"
        );
        assert_eq!(
            lines[2],
            "[  5][TX-C]   0.00-2.00   sec  2.50 GBytes  10.7 Gbits/sec    1             sender"
        );
        assert_eq!(
            lines[3],
            "[  5][TX-C]   0.00-2.00   sec  2.50 GBytes  10.7 Gbits/sec                  receiver"
        );
        assert_eq!(
            lines[4],
            "[  7][RX-C]   0.00-2.00   sec  2.18 GBytes  9.36 Gbits/sec    0             sender"
        );
    }

    #[test]
    fn percent_like_printf_g() {
        assert_eq!(percent(0.0), "0%");
        assert_eq!(percent(10.3135), "10%");
        assert_eq!(percent(0.0723), "0.072%");
        assert_eq!(percent(2.5), "2.5%");
    }
}
