//! riperf under faults, beside iperf3 3.12 in the same setups: a peer
//! killed mid-test on either side, a server restarted between tests, a
//! client that never sends TEST_END, the link cut while data flows,
//! `--connect-timeout`, `--rcv-timeout` and `--idle-timeout`. Client and
//! server run in two network namespaces joined by a veth pair that each
//! test makes and deletes (riperf_netns). After every fault the next test
//! must work. Every process is bounded in time and killed by a guard.

mod riperf_netns;

use rbench_tests::{original, our_bin};
use riperf_netns::*;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::time::{Duration, Instant};

const LIMIT: Duration = Duration::from_secs(30);

/// riperf, then iperf3 when installed: each runs the same scenario.
fn tools() -> Vec<(&'static str, PathBuf)> {
    let mut v = vec![("riperf", our_bin("riperf"))];
    if let Some(p) = original("iperf3") {
        v.push(("iperf3", p));
    }
    v
}

/// A whole test against the pair's server, by riperf and by iperf3: the
/// server is ready for the next client after whatever came before. A byte
/// count (-n) rather than a clock ends it: the same exchange from cookie to
/// results, in milliseconds instead of a second per check.
fn next_test_works(pair: &NetPair, what: &str) {
    for (name, bin) in tools() {
        let out = run_client(pair, &bin, &["-n", "8M", "-J"], LIMIT);
        let v: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{what}: {name} client JSON: {e}"));
        assert!(
            out.status.success() && v.get("error").is_none(),
            "{what}: the next {name} client failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            v["end"]["sum_received"]["bytes"].as_u64().unwrap_or(0) > 0,
            "{what}: the next {name} test moved no data"
        );
    }
}

fn one_error(stderr: &str, what: &str) -> String {
    let lines = error_lines(stderr);
    assert_eq!(lines.len(), 1, "{what}: one error line expected: {stderr}");
    lines[0].clone()
}

#[test]
fn server_killed_mid_test_client_reports_it_and_a_new_server_works() {
    let Some(pair) = NetPair::new("srvkill") else {
        return;
    };
    for reverse in [false, true] {
        // What iperf3 3.12 says: the closed control connection (-R: the data
        // stream just ends), or, sending, whichever it notices first of that
        // and its failed write (both seen from 3.12 in this very setup).
        let allowed: &[&str] = if reverse {
            &["iperf3: error - control socket has closed unexpectedly"]
        } else {
            &[
                "iperf3: error - unable to write to stream socket: Connection reset by peer",
                "iperf3: error - unable to write to stream socket: Broken pipe",
                "iperf3: error - control socket has closed unexpectedly",
            ]
        };
        for (name, bin) in tools() {
            let what = format!("{name} server killed, reverse={reverse}");
            let mut srv = NsServer::start(&pair, &bin, &[]);
            let mut args = vec!["-t", "8"];
            if reverse {
                args.push("-R");
            }
            let mut cli = NsClient::start(&pair, &bin, &args);
            assert!(cli.wait_intervals(1, LIMIT), "{what}: no interval");
            srv.kill();
            let code = cli.wait(LIMIT).expect("the client ended");
            let line = one_error(&cli.stderr_text(), &what);
            assert_eq!(code, 1, "{what}: exit status");
            assert!(allowed.contains(&line.as_str()), "{what}: {line}");
            let _srv = NsServer::start(&pair, &bin, &[]);
            next_test_works(&pair, &what);
        }
    }
}

#[test]
fn client_killed_mid_test_server_logs_it_and_serves_the_next() {
    let Some(pair) = NetPair::new("clikill") else {
        return;
    };
    for reverse in [false, true] {
        for (name, bin) in tools() {
            let what = format!("{name} client killed, reverse={reverse}");
            let srv = NsServer::start(&pair, &bin, &[]);
            let mut args = vec!["-t", "8"];
            if reverse {
                args.push("-R");
            }
            let mut cli = NsClient::start(&pair, &bin, &args);
            assert!(cli.wait_intervals(1, LIMIT), "{what}: no interval");
            signal(cli.child.id(), libc::SIGKILL);
            assert_eq!(cli.wait(LIMIT), Some(128), "{what}: killed");
            assert!(
                srv.wait_stderr("iperf3: ", LIMIT),
                "{what}: the server said nothing"
            );
            std::thread::sleep(Duration::from_millis(200));
            let line = one_error(&srv.stderr_text(), &what);
            // 3.12 logs the closed control connection with iperf_err (no
            // "error - "); a sending server may hit the reset first.
            assert!(
                line == "iperf3: the client has unexpectedly closed the connection"
                    || (reverse
                        && line.starts_with("iperf3: error - unable to write to stream socket: ")),
                "{what}: {line}"
            );
            next_test_works(&pair, &what);
        }
    }
}

#[test]
fn server_restarted_between_tests() {
    let Some(pair) = NetPair::new("restart") else {
        return;
    };
    let riperf = our_bin("riperf");
    let mut statuses = Vec::new();
    for (name, bin) in tools() {
        let what = format!("{name} server restarted");
        let mut srv = NsServer::start(&pair, &bin, &[]);
        next_test_works(&pair, &what);
        // A graceful stop: SIGTERM, its message and status.
        signal(srv.pid(), libc::SIGTERM);
        let t = Instant::now();
        let status = loop {
            if let Some(s) = srv.child.try_wait().expect("try_wait") {
                break s.code();
            }
            assert!(t.elapsed() < LIMIT, "{what}: SIGTERM did not stop it");
            std::thread::sleep(Duration::from_millis(10));
        };
        statuses.push((status, error_lines(&srv.stderr_text())));
        // At once on the same port (SO_REUSEADDR), then SIGKILL and again.
        let mut srv = NsServer::start(&pair, &bin, &[]);
        next_test_works(&pair, &what);
        srv.kill();
        let _srv = NsServer::start(&pair, &riperf, &[]);
        next_test_works(&pair, &what);
    }
    assert_eq!(
        statuses[0],
        (
            Some(1),
            vec!["iperf3: interrupt - the server has terminated".to_string()]
        )
    );
    if let Some(orig) = statuses.get(1) {
        assert_eq!(&statuses[0], orig, "SIGTERM: riperf vs iperf3");
    }
}

/// A hand-made client up to TEST_RUNNING: cookie, parameters for a
/// one-second TCP test, one data connection. Returns (control, data).
fn fake_client_started() -> (TcpStream, TcpStream) {
    let addr = format!("{SERVER_IP}:{PORT}");
    let cookie = [b'q'; 36];
    let mut ctrl = TcpStream::connect(&addr).expect("connect");
    ctrl.write_all(&cookie).unwrap();
    ctrl.write_all(&[0]).unwrap();
    let mut b = [0u8; 1];
    ctrl.read_exact(&mut b).unwrap();
    assert_eq!(b[0], 9, "PARAM_EXCHANGE");
    let params = br#"{"tcp":true,"omit":0,"time":1,"num":0,"blockcount":0,"parallel":1,"len":131072,"pacing_timer":1000,"client_version":"3.12"}"#;
    ctrl.write_all(&(params.len() as u32).to_be_bytes())
        .unwrap();
    ctrl.write_all(params).unwrap();
    ctrl.read_exact(&mut b).unwrap();
    assert_eq!(b[0], 10, "CREATE_STREAMS");
    let mut data = TcpStream::connect(&addr).expect("data connect");
    data.write_all(&cookie).unwrap();
    data.write_all(&[0]).unwrap();
    let mut two = [0u8; 2];
    ctrl.read_exact(&mut two).unwrap();
    assert_eq!(two, [1, 2], "TEST_START, TEST_RUNNING");
    (ctrl, data)
}

/// Whether the server closed (or reset) the control connection; waits at
/// most `wait`.
fn closed_by_server(ctrl: &mut TcpStream, wait: Duration) -> bool {
    ctrl.set_read_timeout(Some(wait)).unwrap();
    let mut sink = [0u8; 256];
    loop {
        match ctrl.read(&mut sink) {
            Ok(0) => return true,
            Ok(_) => continue,
            Err(e) => {
                return !matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                )
            }
        }
    }
}

/// The fake client sends for `send_for`, then falls silent and never sends
/// TEST_END. Returns how long the server took to close the control
/// connection (None: not within `hold`).
fn silent_after_start(send_for: Duration, hold: Duration) -> Option<Duration> {
    let (mut ctrl, mut data) = fake_client_started();
    let block = vec![7u8; 65536];
    let t = Instant::now();
    while t.elapsed() < send_for {
        data.write_all(&block).unwrap();
    }
    let quiet = Instant::now();
    closed_by_server(&mut ctrl, hold).then(|| quiet.elapsed())
}

/// The fake client keeps sending a little (64 KiB every 100 ms) long after
/// its one-second test, and never sends TEST_END. Returns the seconds from
/// TEST_RUNNING until the server closed the control connection.
fn sending_without_end(hold: Duration) -> Option<f64> {
    let (mut ctrl, mut data) = fake_client_started();
    let t = Instant::now();
    let block = vec![7u8; 65536];
    while t.elapsed() < hold {
        if data.write_all(&block).is_err()
            || closed_by_server(&mut ctrl, Duration::from_millis(100))
        {
            return Some(t.elapsed().as_secs_f64());
        }
    }
    None
}

#[test]
fn client_sending_past_its_time_without_test_end_is_dropped_by_the_watchdog() {
    // 3.12 drops a test at duration + omit + 40 s: 41 s here, so riperf and
    // iperf3 run side by side, each in its own pair of namespaces.
    let runs: Vec<_> = tools()
        .into_iter()
        .map(|(name, bin)| {
            std::thread::spawn(move || {
                let pair = NetPair::new("watchdog")?;
                let srv = NsServer::start(&pair, &bin, &[]);
                let fake = pair.in_ns(Side::Client, || {
                    sending_without_end(Duration::from_secs(70))
                });
                let dropped = fake.join().expect("fake client");
                next_test_works(&pair, &format!("{name} after its watchdog"));
                drop(srv);
                Some((name, dropped))
            })
        })
        .collect();
    let seen: Vec<_> = runs
        .into_iter()
        .filter_map(|h| h.join().expect("watchdog run"))
        .collect();
    for (name, dropped) in &seen {
        assert!(dropped.is_some(), "{name} never dropped the test");
    }
    if let [(_, Some(ours)), (_, Some(orig))] = seen[..] {
        eprintln!("watchdog: riperf dropped the test after {ours:.1} s, iperf3 after {orig:.1} s");
        assert!(
            (ours - orig).abs() < 3.0,
            "riperf's watchdog {ours} s vs iperf3's {orig} s"
        );
    }
}

#[test]
fn client_that_never_sends_test_end_is_dropped_after_rcv_timeout() {
    let Some(pair) = NetPair::new("noend") else {
        return;
    };
    for (name, bin) in tools() {
        let what = format!("{name} server, silent client");
        let srv = NsServer::start(&pair, &bin, &["--rcv-timeout", "1000"]);
        let fake = pair.in_ns(Side::Client, || {
            silent_after_start(Duration::from_millis(300), Duration::from_secs(15))
        });
        let dropped = fake.join().expect("fake client");
        assert!(dropped.is_some(), "{what}: the server kept the test open");
        assert!(
            srv.wait_stderr("idle timeout", LIMIT),
            "{what}: {}",
            srv.stderr_text()
        );
        assert_eq!(
            one_error(&srv.stderr_text(), &what),
            "iperf3: error - idle timeout for receiving data"
        );
        next_test_works(&pair, &what);
    }
}

#[test]
fn link_cut_while_data_flows() {
    let Some(pair) = NetPair::new("cut") else {
        return;
    };
    let mut seen: Vec<(bool, String, i32, String, String)> = Vec::new();
    for reverse in [false, true] {
        for (name, bin) in tools() {
            let what = format!("{name}: link cut, reverse={reverse}");
            // The receiving side gives up after 1 s without data, the sending
            // side after 1 s of unacknowledged data (TCP_USER_TIMEOUT).
            let (srv_args, cli_args): (&[&str], &[&str]) = if reverse {
                (
                    &["--snd-timeout", "1000"],
                    &["-t", "8", "-R", "--rcv-timeout", "1000"],
                )
            } else {
                (
                    &["--rcv-timeout", "1000"],
                    &["-t", "8", "--snd-timeout", "1000"],
                )
            };
            let srv = NsServer::start(&pair, &bin, srv_args);
            let mut cli = NsClient::start(&pair, &bin, cli_args);
            assert!(cli.wait_intervals(1, LIMIT), "{what}: no interval");
            pair.link(false);
            let code = cli.wait(LIMIT).expect("the client ended");
            let cli_line = one_error(&cli.stderr_text(), &what);
            assert!(
                srv.wait_stderr("iperf3: ", LIMIT),
                "{what}: the server said nothing"
            );
            std::thread::sleep(Duration::from_millis(200));
            let srv_line = one_error(&srv.stderr_text(), &what);
            pair.link(true);
            next_test_works(&pair, &what);
            // Which errno a timed-out socket reports depends on the route
            // at that moment (ETIMEDOUT, or ENETUNREACH with the link down).
            let mask = |l: &str| {
                l.replace("Network is unreachable", "Connection timed out")
                    .replace("No route to host", "Connection timed out")
            };
            seen.push((
                reverse,
                name.to_string(),
                code,
                mask(&cli_line),
                mask(&srv_line),
            ));
        }
    }
    for (reverse, name, code, cli, srv) in &seen {
        assert_eq!(*code, 1, "{name} reverse={reverse}");
        let (want_cli, want_srv) = if *reverse {
            (
                "iperf3: error - idle timeout for receiving data",
                "iperf3: error - unable to write to stream socket: Connection timed out",
            )
        } else {
            (
                "iperf3: error - unable to write to stream socket: Connection timed out",
                "iperf3: error - idle timeout for receiving data",
            )
        };
        assert_eq!(cli, want_cli, "{name} client, reverse={reverse}");
        assert_eq!(srv, want_srv, "{name} server, reverse={reverse}");
    }
}

#[test]
fn connect_timeout_gives_up_like_iperf3() {
    let Some(pair) = NetPair::new("conn") else {
        return;
    };
    let mut seen = Vec::new();
    for (name, bin) in tools() {
        for json in [false, true] {
            let mut args = vec!["-c", BLACK_HOLE_IP, "--connect-timeout", "300", "-t", "1"];
            if json {
                args.push("-J");
            }
            let out = rbench_tests::run_bounded(
                pair.cmd(Side::Client, &bin).args(&args),
                Duration::from_secs(10),
            );
            let error = if json {
                let v: serde_json::Value =
                    serde_json::from_slice(&out.stdout).expect("JSON on a connect failure");
                v["error"].as_str().unwrap_or("").to_string()
            } else {
                one_error(&String::from_utf8_lossy(&out.stderr), name)
            };
            seen.push((json, out.status.code(), error));
            let _ = name;
        }
    }
    assert_eq!(
        seen[0],
        (
            false,
            Some(1),
            "iperf3: error - unable to connect to server: Connection timed out".into()
        )
    );
    assert_eq!(
        seen[1],
        (
            true,
            Some(0),
            "unable to connect to server: Connection timed out".into()
        )
    );
    if seen.len() == 4 {
        assert_eq!(seen[..2], seen[2..], "riperf vs iperf3");
    }
}

#[test]
fn rcv_timeout_when_the_sender_stops() {
    let Some(pair) = NetPair::new("rcvto") else {
        return;
    };
    for (name, bin) in tools() {
        // A -R client whose server freezes (SIGSTOP): no data, no FIN.
        let what = format!("{name}: server frozen under a -R client");
        let srv = NsServer::start(&pair, &bin, &[]);
        let mut cli = NsClient::start(&pair, &bin, &["-t", "8", "-R", "--rcv-timeout", "1000"]);
        assert!(cli.wait_intervals(1, LIMIT), "{what}: no interval");
        signal(srv.pid(), libc::SIGSTOP);
        let code = cli.wait(LIMIT);
        signal(srv.pid(), libc::SIGCONT);
        assert_eq!(code, Some(1), "{what}");
        assert_eq!(
            one_error(&cli.stderr_text(), &what),
            "iperf3: error - idle timeout for receiving data"
        );
        next_test_works(&pair, &what);
        drop(srv);

        // A server receiving from a client that freezes.
        let what = format!("{name}: client frozen, server --rcv-timeout");
        let srv = NsServer::start(&pair, &bin, &["--rcv-timeout", "1000"]);
        let cli = NsClient::start(&pair, &bin, &["-t", "8"]);
        assert!(cli.wait_intervals(1, LIMIT), "{what}: no interval");
        signal(cli.child.id(), libc::SIGSTOP);
        assert!(srv.wait_stderr("iperf3: ", LIMIT), "{what}: nothing logged");
        std::thread::sleep(Duration::from_millis(200));
        assert_eq!(
            one_error(&srv.stderr_text(), &what),
            "iperf3: error - idle timeout for receiving data"
        );
        drop(cli);
        next_test_works(&pair, &what);
    }
}

#[test]
fn idle_timeout_restarts_a_server_stuck_with_a_silent_client() {
    let Some(pair) = NetPair::new("idle") else {
        return;
    };
    // Idle without clients, 3.12 prints its banner once: so must we.
    let mut banners = Vec::new();
    for (_, bin) in tools() {
        let mut srv = NsServer::start(&pair, &bin, &["--idle-timeout", "1"]);
        std::thread::sleep(Duration::from_millis(2500));
        srv.kill();
        banners.push(srv.stdout_text().matches("Server listening").count());
    }
    assert_eq!(banners[0], 1, "riperf banners while idle");
    if let Some(&orig) = banners.get(1) {
        assert_eq!(banners[0], orig, "banners: riperf vs iperf3");
    }
    // A client that connects, sends its cookie and then nothing: riperf
    // drops it after --idle-timeout (instead of its 10 s step bound) and
    // serves the next client. (3.12 blocks reading the parameters until
    // the silent client goes away: CVE-2023-7250.)
    let srv = NsServer::start(&pair, &our_bin("riperf"), &["--idle-timeout", "1"]);
    let silent = pair.in_ns(Side::Client, || {
        let mut s = TcpStream::connect(format!("{SERVER_IP}:{PORT}")).expect("connect");
        s.write_all(&[b'z'; 37]).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(12))).unwrap();
        let mut b = [0u8; 64];
        let t = Instant::now();
        // PARAM_EXCHANGE, then EOF when the server gives up on us.
        while let Ok(n) = s.read(&mut b) {
            if n == 0 {
                return Some(t.elapsed());
            }
        }
        None
    });
    let gave_up = silent.join().expect("silent client");
    assert!(gave_up.is_some(), "the server kept the silent client");
    next_test_works(&pair, "after a silent client");
    drop(srv);
}

/// A hand-made server for one `-R` test that never answers TEST_END: it
/// sends data until TEST_END arrives, then holds both connections silent
/// for `hold`, or until `release` is dropped (the client under test is done).
fn server_ignoring_test_end(
    listener: std::net::TcpListener,
    hold: Duration,
    release: std::sync::mpsc::Receiver<()>,
) {
    let (mut ctrl, _) = listener.accept().expect("accept control");
    let mut cookie = [0u8; 37];
    ctrl.read_exact(&mut cookie).unwrap();
    ctrl.write_all(&[9]).unwrap(); // PARAM_EXCHANGE
    let mut len = [0u8; 4];
    ctrl.read_exact(&mut len).unwrap();
    let mut params = vec![0u8; u32::from_be_bytes(len) as usize];
    ctrl.read_exact(&mut params).unwrap();
    ctrl.write_all(&[10]).unwrap(); // CREATE_STREAMS
    let (mut data, _) = listener.accept().expect("accept data");
    data.read_exact(&mut cookie).unwrap();
    ctrl.write_all(&[1, 2]).unwrap(); // TEST_START, TEST_RUNNING
    ctrl.set_nonblocking(true).unwrap();
    let block = vec![5u8; 65536];
    let mut b = [0u8; 1];
    let t = Instant::now();
    while t.elapsed() < hold {
        match ctrl.read(&mut b) {
            Ok(1) if b[0] == 4 => break, // TEST_END: fall silent
            Ok(_) => {}
            Err(_) => {
                let _ = data.write_all(&block);
                std::thread::sleep(Duration::from_millis(5));
            }
        }
    }
    let _ = release.recv_timeout(hold.saturating_sub(t.elapsed()));
}

#[test]
fn server_that_never_answers_test_end() {
    let Some(pair) = NetPair::new("noanswer") else {
        return;
    };
    for (name, bin) in tools() {
        let hold = Duration::from_secs(8);
        // The client starts once the fake server listens: a fixed pause
        // lost that race on a loaded machine (connection refused).
        let (bound, listening) = std::sync::mpsc::channel();
        let (done, release) = std::sync::mpsc::channel::<()>();
        let fake = pair.in_ns(Side::Server, move || {
            let l = std::net::TcpListener::bind(format!("{SERVER_IP}:{PORT}")).expect("bind");
            let _ = bound.send(());
            server_ignoring_test_end(l, hold, release)
        });
        listening
            .recv_timeout(LIMIT)
            .expect("the fake server never listened");
        let mut cli = NsClient::start(&pair, &bin, &["-t", "1", "-R", "--rcv-timeout", "1000"]);
        let code = cli.wait(Duration::from_secs(6));
        if name == "riperf" {
            // riperf gives up after --rcv-timeout without an answer.
            assert_eq!(code, Some(1), "riperf: {}", cli.stderr_text());
            assert_eq!(
                one_error(&cli.stderr_text(), name),
                "iperf3: error - unable to receive control message: Connection timed out"
            );
        } else {
            // 3.12 waits for the answer as long as the server holds on
            // (its control reads have no timeout): still running here.
            assert_eq!(code, None, "iperf3 gave up: {}", cli.stderr_text());
        }
        drop(cli);
        drop(done);
        fake.join().expect("fake server");
    }
}
