//! Does riperf tell the truth? Each test compares what riperf reports with
//! an independent measurement of the same run, and with iperf3 3.12 in the
//! same setup: client and server in two network namespaces joined by a veth
//! pair, a `tbf` qdisc on the sending side's device limiting the link.
//!
//! Method (this kernel has no netem, no tc filters and no iptables, so the
//! tbf qdisc is both the rate limit and the loss injector):
//! * Rate: a tbf of RATE bit/s passes RATE bits of Ethernet frames per
//!   second. The goodput a receiver can see is RATE × payload / frame:
//!   TCP 1448 of 1514 bytes per frame (MTU 1500, timestamps on), UDP with
//!   1400-byte datagrams 1400 of 1442 (+8 UDP, +20 IP, +14 Ethernet). The
//!   receiver's reported bits/s must be within 5% of that (the tolerance
//!   covers the bucket's initial burst and the test's start and end).
//! * Loss: UDP sent at 1.5 × the tbf rate into a short tbf queue: tbf drops
//!   what does not fit, and counts it (`tc -s qdisc`: "dropped N"). The
//!   receiver's lost percentage must be within 1 percentage point of the
//!   qdisc's dropped / (sent + dropped) over the same run. The qdisc also
//!   carries the few control-connection packets, and counts a dropped UDP
//!   GSO batch (riperf sends batches) as one drop: both are far below 1%.
//! * Order: one path, one queue: nothing arrives out of order, so the
//!   out-of-order count must be 0, as iperf3's is.

mod riperf_netns;

use rbench_tests::{original, our_bin};
use riperf_netns::*;
use serde_json::Value;
use std::path::PathBuf;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(30);
const RATE_MBIT: f64 = 100.0;

fn tools() -> Vec<(&'static str, PathBuf)> {
    let mut v = vec![("riperf", our_bin("riperf"))];
    if let Some(p) = original("iperf3") {
        v.push(("iperf3", p));
    }
    v
}

fn run_json(pair: &NetPair, bin: &PathBuf, args: &[&str]) -> Value {
    let out = run_client(pair, bin, args, LIMIT);
    assert!(
        out.status.success(),
        "{bin:?} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("client JSON");
    assert!(v.get("error").is_none(), "{bin:?} {args:?}: {}", v["error"]);
    v
}

/// The side whose egress carries the data: the client's, or the server's with -R.
fn sending_side(reverse: bool) -> Side {
    if reverse {
        Side::Server
    } else {
        Side::Client
    }
}

fn within(got: f64, want: f64, tol: f64) -> bool {
    (got - want).abs() <= want * tol
}

#[test]
fn tcp_rate_through_tbf_within_5_percent() {
    let Some(pair) = NetPair::new("acctcp") else {
        return;
    };
    let rate = format!("{RATE_MBIT}mbit");
    pair.tbf(Side::Client, &rate, "32kb", "200kb");
    pair.tbf(Side::Server, &rate, "32kb", "200kb");
    let goodput = RATE_MBIT * 1e6 * 1448.0 / 1514.0;
    let mut seen = Vec::new();
    for (name, bin) in tools() {
        let _srv = NsServer::start(&pair, &bin, &[]);
        for reverse in [false, true] {
            let mut args = vec!["-t", "3", "-J"];
            if reverse {
                args.push("-R");
            }
            let v = run_json(&pair, &bin, &args);
            let bps = v["end"]["sum_received"]["bits_per_second"]
                .as_f64()
                .expect("sum_received bits_per_second");
            eprintln!(
                "{name} TCP reverse={reverse}: {:.2} Mbit/s received, tbf goodput {:.2}",
                bps / 1e6,
                goodput / 1e6
            );
            assert!(
                within(bps, goodput, 0.05),
                "{name} TCP reverse={reverse}: {bps} bit/s vs {goodput}"
            );
            seen.push(bps);
        }
    }
    // riperf and iperf3 agree with each other as well as with the link.
    if seen.len() == 4 {
        for i in 0..2 {
            assert!(
                within(seen[i], seen[i + 2], 0.05),
                "riperf {} vs iperf3 {}",
                seen[i],
                seen[i + 2]
            );
        }
    }
}

#[test]
fn udp_rate_loss_and_order_through_tbf() {
    let Some(pair) = NetPair::new("accudp") else {
        return;
    };
    let rate = format!("{RATE_MBIT}mbit");
    let offered = format!("{}M", RATE_MBIT * 1.5);
    let goodput = RATE_MBIT * 1e6 * 1400.0 / 1442.0;
    for (name, bin) in tools() {
        let _srv = NsServer::start(&pair, &bin, &[]);
        for reverse in [false, true] {
            let what = format!("{name} UDP reverse={reverse}");
            let side = sending_side(reverse);
            // A queue of ~20 datagrams: what the bucket cannot pass is dropped.
            pair.tbf(side, &rate, "16kb", "30kb");
            let (sent0, dropped0) = pair.qdisc_counts(side);
            let mut args = vec!["-u", "-b", &offered, "-l", "1400", "-t", "3", "-J"];
            if reverse {
                args.push("-R");
            }
            let v = run_json(&pair, &bin, &args);
            let (sent1, dropped1) = pair.qdisc_counts(side);
            let (sent, dropped) = ((sent1 - sent0) as f64, (dropped1 - dropped0) as f64);
            let qdisc_loss = 100.0 * dropped / (sent + dropped);
            let sum = &v["end"]["sum"];
            let lost = sum["lost_packets"].as_f64().expect("lost_packets");
            let total = sum["packets"].as_f64().expect("packets");
            let loss = sum["lost_percent"].as_f64().expect("lost_percent");
            let bps = v["end"]["sum_received"]["bits_per_second"]
                .as_f64()
                .expect("sum_received bits_per_second");
            let ooo = v["end"]["streams"][0]["udp"]["out_of_order"]
                .as_u64()
                .expect("out_of_order");
            eprintln!(
                "{what}: {:.2} Mbit/s received (tbf goodput {:.2}); lost {lost}/{total} = {loss:.2}%, \
                 tbf dropped {dropped}/{} = {qdisc_loss:.2}%; out of order {ooo}",
                bps / 1e6,
                goodput / 1e6,
                sent + dropped
            );
            assert!(
                within(bps, goodput, 0.05),
                "{what}: {bps} bit/s vs {goodput}"
            );
            assert!(dropped > 100.0, "{what}: the tbf dropped nothing");
            assert!(
                (loss - qdisc_loss).abs() <= 1.0,
                "{what}: reported loss {loss}% vs tbf drops {qdisc_loss}%"
            );
            assert_eq!(ooo, 0, "{what}: out of order on a single path");
        }
    }
}
