//! The server: one test at a time, ACCESS_DENIED to anyone else, every
//! control read bounded in time, ready for the next client after any test,
//! successful or not (spec §2.4 from the server's side, §8).

mod accept;
mod limit;
mod streams;

use accept::{bind_udp, BusyGuard};
use limit::RateLimit;

use crate::ctrl::{Ctrl, CtrlError};
use crate::net::{self, show_ip, SockOpts};
use crate::options::{Config, OutputKind, MAX_BLOCKSIZE, MAX_TCP_BUFFER, MAX_TIME};
use crate::protocol::errors::{code, StrError};
use crate::protocol::framing::{MAX_PARAMS_LEN, MAX_RESULTS_LEN};
use crate::protocol::results::ServerOutput;
use crate::protocol::{Cookie, PeerResults, Protocol, State, TestParams, COOKIE_SIZE};
use crate::report::{self, Ctx, Out, Report, StartInfo, TestDesc};
use crate::session::Session;
use crate::stream::TestShared;
use rbench_common::clock::now_ns;
use rbench_common::stop::should_stop;
use socket2::{Domain, Socket, Type};
use std::io::Write;
use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::time::Duration;

/// How long a client may take for each control step before it is dropped.
const STEP_TIMEOUT: Duration = Duration::from_secs(10);

/// The bound on each control step: 10 s, or `--idle-timeout` when shorter
/// ("restart idle server after # seconds in case it got stuck").
pub(crate) fn step_timeout(cfg: &Config) -> Duration {
    match cfg.idle_timeout {
        Some(t) => STEP_TIMEOUT.min(Duration::from_secs(t.max(1))),
        None => STEP_TIMEOUT,
    }
}

const BANNER_RULE: &str = "-----------------------------------------------------------";

/// A failed test: what to tell the client (SERVER_ERROR code) and the log.
pub(crate) struct TestError {
    i_errno: Option<i32>,
    /// The errno sent beside `i_errno` (0: none).
    errno: i32,
    msg: String,
    /// Printed as `iperf3: <msg>` (iperf3's iperf_err), not `iperf3: error - <msg>`.
    plain: bool,
}

impl TestError {
    fn log(msg: impl Into<String>) -> TestError {
        TestError {
            i_errno: None,
            errno: 0,
            msg: msg.into(),
            plain: false,
        }
    }
    fn code(n: i32) -> TestError {
        TestError {
            i_errno: Some(n),
            errno: 0,
            msg: crate::protocol::errors::message(n).0,
            plain: false,
        }
    }
    /// The client vanished mid-test: 3.12 says so without "error - " and
    /// prints no partial interval.
    fn client_closed() -> TestError {
        TestError {
            i_errno: None,
            errno: 0,
            msg: "the client has unexpectedly closed the connection".into(),
            plain: true,
        }
    }
}

fn listen(cfg: &Config) -> std::io::Result<TcpListener> {
    let (ip, v6only): (IpAddr, bool) = match &cfg.bind {
        Some(b) => {
            let h = b.split('%').next().unwrap_or("");
            let ip: IpAddr = h
                .parse()
                .or_else(|_| net::resolve(h, 0, cfg.ipv4_only, cfg.ipv6_only).map(|a| a[0].ip()))
                .map_err(|_| std::io::Error::from_raw_os_error(libc::EADDRNOTAVAIL))?;
            (ip, ip.is_ipv6())
        }
        None if cfg.ipv4_only => (IpAddr::from([0u8; 4]), false),
        None => (IpAddr::from([0u16; 8]), cfg.ipv6_only),
    };
    let addr = SocketAddr::new(ip, cfg.port);
    let s = Socket::new(Domain::for_address(addr), Type::STREAM, None)?;
    s.set_reuse_address(true)?;
    net::bind_device(&s, cfg.bind_dev.as_deref())
        .map_err(|_| std::io::Error::from_raw_os_error(libc::EPERM))?;
    if addr.is_ipv6() {
        let _ = s.set_only_v6(v6only);
    }
    s.bind(&addr.into())?;
    s.listen(128)?;
    Ok(s.into())
}

/// Run the server until `-1` ends it or a signal stops it; the exit status.
pub fn run(cfg: &Config) -> u8 {
    // -A: 3.12 pins the server process before it listens and exits when
    // the CPU cannot be used (stream threads still spread from it).
    if let Some(c) = cfg.affinity {
        if rbench_common::cpu::pin_current_thread(c).is_err() {
            eprintln!("iperf3: error - unable to set CPU affinity: Invalid argument");
            eprintln!("iperf3: exiting");
            return 1;
        }
    }
    let listener = match listen(cfg) {
        Ok(l) => l,
        Err(e) => {
            eprintln!(
                "iperf3: error - unable to start listener for connections: {}",
                e.to_string_c()
            );
            return 1;
        }
    };
    if cfg.daemon {
        // SAFETY: daemon(3) forks and detaches; we hold no threads yet.
        if unsafe { libc::daemon(0, 0) } != 0 {
            eprintln!("iperf3: error - unable to become a daemon");
            return 1;
        }
    }
    if let Some(p) = &cfg.pidfile {
        if std::fs::write(p, format!("{}", std::process::id())).is_err() {
            eprintln!("iperf3: error - unable to write PID file");
            return 1;
        }
    }
    if cfg.verbose && cfg.output == OutputKind::Text {
        if let Ok(mut o) = Out::new(cfg.logfile.as_deref()) {
            o.line("iperf 3.12");
            o.line(&report::system_info());
        }
    }
    let mut test_no = 1u64;
    loop {
        let mut out = match Out::new(cfg.logfile.as_deref()) {
            Ok(o) => o,
            Err(e) => {
                eprintln!(
                    "iperf3: error - unable to open log file: {}",
                    e.to_string_c()
                );
                return 1;
            }
        };
        out.timestamps = cfg.timestamps.clone();
        out.forceflush = cfg.forceflush;
        if cfg.output == OutputKind::Text {
            out.line(BANNER_RULE);
            out.line(&format!(
                "Server listening on {} (test #{test_no})",
                cfg.port
            ));
            out.line(BANNER_RULE);
        }
        let ctrl = match accept_control(&listener) {
            Some(c) => c,
            None => {
                if should_stop() {
                    // As 3.12: a signal ends the server with this message
                    // and status 1, idle or not.
                    eprintln!("iperf3: interrupt - the server has terminated");
                    return 1;
                }
                continue;
            }
        };
        match serve_one(cfg, &listener, ctrl, out) {
            Served::Done => {}
            Served::Interrupted => {
                eprintln!("iperf3: interrupt - the server has terminated");
                return 1;
            }
        }
        test_no += 1;
        if should_stop() {
            eprintln!("iperf3: interrupt - the server has terminated");
            return 1;
        }
        if cfg.one_off {
            return 0;
        }
    }
}

/// Wait for a control connection, or a signal (None).
/// No `--idle-timeout` here: 3.12 restarts a server stuck in a test, not
/// one waiting for a client (it prints no new banner while idle).
fn accept_control(l: &TcpListener) -> Option<TcpStream> {
    loop {
        if should_stop() {
            return None;
        }
        if net::wait_readable(l.as_raw_fd(), Duration::from_millis(200)) {
            if let Ok((s, _)) = l.accept() {
                return Some(s);
            }
        }
    }
}

enum Served {
    Done,
    Interrupted,
}

fn serve_one(cfg: &Config, listener: &TcpListener, stream: TcpStream, out: Out) -> Served {
    let mut ctrl = Ctrl::new(stream);
    let peer = match ctrl.stream.peer_addr() {
        Ok(p) => p,
        Err(_) => return Served::Done,
    };
    let mut cookie = [0u8; COOKIE_SIZE];
    if ctrl.read_exact(&mut cookie, step_timeout(cfg)).is_err() {
        // Silent or short client: drop it (3.12 would hang here, CVE-2023-7250).
        return Served::Done;
    }
    let cookie = Cookie::from_wire(cookie);
    let ctx = Ctx {
        is_client: false,
        udp: false,
        bidir: false,
        reverse: false,
        num_streams: 1,
        format: cfg.format,
        verbose: cfg.verbose,
        sender_has_retransmits: false,
    };
    let mut report = Report::new(cfg.output, ctx, out);
    report.out.capture = Some(String::new());
    let mut info = StartInfo {
        system_info: report::system_info(),
        peer_host: show_ip(&peer),
        peer_port: peer.port(),
        cookie: cookie.text(),
        ..Default::default()
    };
    let (t, secs) = report::gmt_now();
    info.time = t;
    info.timesecs = secs;
    let r = run_test(cfg, listener, &mut ctrl, &cookie, &mut report, &mut info);
    match r {
        Ok(interrupted) => {
            if matches!(
                report.kind,
                OutputKind::Json | OutputKind::Csv | OutputKind::JsonStream
            ) {
                report.finish(None);
            }
            if interrupted {
                return Served::Interrupted;
            }
        }
        Err(e) => {
            if let Some(n) = e.i_errno {
                let mut b = vec![State::ServerError.to_byte()];
                b.extend_from_slice(&n.to_be_bytes());
                b.extend_from_slice(&e.errno.to_be_bytes());
                let _ = ctrl.stream.write_all(&b);
            }
            if !e.msg.is_empty() {
                if matches!(report.kind, OutputKind::Json | OutputKind::JsonStream) {
                    report.finish(Some(&e.msg));
                } else if e.plain {
                    eprintln!("iperf3: {}", e.msg);
                } else {
                    eprintln!("iperf3: error - {}", e.msg);
                }
            }
            if should_stop() {
                return Served::Interrupted;
            }
        }
    }
    Served::Done
}

fn validate(p: &TestParams, max_parallel: i64) -> Result<(), TestError> {
    if p.protocol == Protocol::Sctp {
        // 3.12 fails to make its SCTP listener where the kernel has no
        // SCTP; riperf has no SCTP streams even where it has.
        // SAFETY: socket(2) with constant arguments; the fd is closed below.
        let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_STREAM, libc::IPPROTO_SCTP) };
        if fd >= 0 {
            // SAFETY: our own fresh descriptor.
            unsafe { libc::close(fd) };
            return Err(TestError::code(131));
        }
        let e = std::io::Error::last_os_error();
        return Err(TestError {
            i_errno: Some(code::IESTREAMLISTEN),
            errno: e.raw_os_error().unwrap_or(0),
            msg: format!("unable to start stream listener: {}", e.to_string_c()),
            plain: false,
        });
    }
    if !(1..=max_parallel).contains(&p.parallel) {
        return Err(TestError::code(code::IENUMSTREAMS));
    }
    match p.protocol {
        Protocol::Udp if !(16..=65507).contains(&p.len) => {
            return Err(TestError::code(code::IEUDPBLOCKSIZE))
        }
        Protocol::Tcp if !(1..=MAX_BLOCKSIZE).contains(&p.len) => {
            return Err(TestError::code(code::IEBLOCKSIZE))
        }
        _ => {}
    }
    if !(0..=MAX_TIME).contains(&p.time) {
        return Err(TestError::code(5));
    }
    if !(0..=60).contains(&p.omit) {
        return Err(TestError::code(12));
    }
    if !(0..=MAX_TCP_BUFFER).contains(&p.window) {
        return Err(TestError::code(8));
    }
    if p.burst < 0 || p.burst > 1000 {
        return Err(TestError::code(15));
    }
    Ok(())
}

/// How long past a timed test's end a server that only sends (-R) goes
/// on sending while TEST_END has not come in.
const SEND_PAST_END_NS: u64 = 100_000_000;

/// When a sending server stops its senders by itself: `SEND_PAST_END_NS`
/// after the end of a timed `-R` test (`None` otherwise: it receives too,
/// or the client decides by bytes or blocks). 3.12 sends until TEST_END.
/// riperf's -R -P 128 against a riperf client runs 256 busy threads on
/// 2 CPUs here: the client's TEST_END, sent at -t, waited in the loopback
/// backlog behind them and reached this server 0.5-2.9 s late (sender's
/// end 2.5-4.9 s for -t 2; 3.12's pair 2.02-2.07). The test's end in the
/// report is then when the senders stopped (nothing is sent after).
fn senders_stop_at(p: &TestParams, start_ns: u64) -> Option<u64> {
    (p.time > 0 && p.reverse && !p.bidirectional).then(|| {
        start_ns + (p.time as u64 + p.omit.max(0) as u64) * 1_000_000_000 + SEND_PAST_END_NS
    })
}

/// PARAM_EXCHANGE: the client's parameters, read and checked; the report
/// set up for them.
fn receive_params(
    cfg: &Config,
    ctrl: &mut Ctrl,
    report: &mut Report,
) -> Result<TestParams, TestError> {
    let v = ctrl
        .read_json(MAX_PARAMS_LEN, step_timeout(cfg))
        .map_err(|e| match e {
            CtrlError::Closed => {
                TestError::log("the client has unexpectedly closed the connection")
            }
            CtrlError::Timeout => {
                TestError::log("unable to receive parameters from client: timeout")
            }
            other => TestError {
                i_errno: Some(code::IERECVPARAMS),
                errno: 0,
                msg: format!("unable to receive parameters from client: {other}"),
                plain: false,
            },
        })?;
    crate::client::debug_json(cfg.debug, "get_parameters:", &v);
    let p = TestParams::from_json(&v);
    if !p.get_server_output {
        // Nobody will ask for the text: do not keep it.
        report.out.capture = None;
    }
    validate(&p, cfg.max_parallel)?;
    let udp = p.protocol == Protocol::Udp;
    report.ctx = Ctx {
        is_client: false,
        udp,
        bidir: p.bidirectional,
        reverse: p.reverse,
        num_streams: p.parallel as usize,
        format: cfg.format,
        verbose: cfg.verbose,
        sender_has_retransmits: !udp && (p.reverse || p.bidirectional),
    };
    Ok(p)
}

/// The data sockets' options: the client's asks, the server's own.
fn sock_opts(cfg: &Config, p: &TestParams) -> SockOpts {
    SockOpts {
        window: p.window,
        mss: p.mss,
        nodelay: p.nodelay,
        congestion: p.congestion.clone(),
        tos: p.tos,
        dont_fragment: p.dont_fragment,
        fqrate: p.fqrate,
        snd_timeout_ms: cfg.snd_timeout_ms,
        bind_dev: cfg.bind_dev.clone(),
    }
}

/// Check the window and congestion control can be had before promising
/// streams (iperf3 fails its stream listener the same way: SERVER_ERROR
/// 141, or its congestion error).
fn probe_socket_options(p: &TestParams) -> Result<(), TestError> {
    if p.window > 0 {
        let probe = Socket::new(Domain::IPV4, Type::STREAM, None)
            .map_err(|_| TestError::code(code::IESTREAMLISTEN))?;
        net::set_window(&probe, p.window).map_err(TestError::code)?;
    }
    if let Some(cc) = &p.congestion {
        let probe = Socket::new(Domain::IPV4, Type::STREAM, None)
            .map_err(|_| TestError::code(code::IESTREAMLISTEN))?;
        probe
            .set_tcp_congestion(cc.as_bytes())
            .map_err(|_| TestError::code(code::IESETCONGESTION))?;
    }
    Ok(())
}

/// 3.12 greets the client once its stream listener stands (not when
/// that fails, as for --sctp without SCTP in the kernel).
fn greet(cfg: &Config, p: &TestParams, report: &mut Report, info: &StartInfo) {
    if cfg.verbose {
        report.text(&format!("Time: {}", report::gmt_now().0));
    }
    report.text(&format!(
        "Accepted connection from {}, port {}",
        info.peer_host, info.peer_port
    ));
    if cfg.verbose {
        report.text(&format!("      Cookie: {}", info.cookie));
        if p.protocol != Protocol::Udp {
            report.text(&format!("      TCP MSS: {} (default)", p.mss));
        }
    }
}

/// The test as `start.test_start` describes it.
fn test_desc(p: &TestParams) -> TestDesc {
    TestDesc {
        udp: p.protocol == Protocol::Udp,
        num_streams: p.parallel,
        blksize: p.len,
        omit: p.omit,
        duration: p.time,
        bytes: p.num,
        blocks: p.blockcount,
        reverse: p.reverse,
        tos: p.tos,
        rate: p.bandwidth,
        window: p.window,
        mss: p.mss,
    }
}

/// `-V`'s `Starting Test:` line.
fn announce_test(cfg: &Config, p: &TestParams, report: &mut Report) {
    if cfg.verbose {
        report.text(&format!(
            "Starting Test: protocol: {}, {} streams, {} byte blocks, omitting {} seconds, {} second test, tos {}",
            if p.protocol == Protocol::Udp { "UDP" } else { "TCP" },
            p.parallel,
            p.len,
            p.omit,
            p.time,
            p.tos
        ));
    }
}

/// The stream threads (pinned by -A or the client's server affinity);
/// --server-bitrate-limit refuses a test that asks for more up front.
fn start_streams(
    cfg: &Config,
    p: &TestParams,
    session: &mut Session,
    bodies: Vec<Box<dyn crate::stream::StreamIo>>,
    shared: &std::sync::Arc<TestShared>,
) -> Result<(), TestError> {
    let streams = std::mem::take(&mut session.streams);
    let first_cpu = cfg
        .affinity
        .or(p.server_affinity.map(|a| a.max(0) as usize));
    let all = streams.into_iter().zip(bodies).collect();
    let (started, failed) =
        crate::stream::spawn_all(all, shared, |i| crate::stream::stream_cpu(first_cpu, i));
    session.streams.extend(started);
    if failed.is_some() {
        session.stop();
        return Err(TestError::code(200));
    }
    let requested = p.parallel as u64 * p.bandwidth * if p.bidirectional { 2 } else { 1 };
    if cfg.server_bitrate_limit > 0 && requested > cfg.server_bitrate_limit {
        session.stop();
        return Err(TestError::log(
            "total required bandwidth is larger than server limit",
        ));
    }
    Ok(())
}

/// Ok(true) when interrupted by a signal.
fn run_test(
    cfg: &Config,
    listener: &TcpListener,
    ctrl: &mut Ctrl,
    cookie: &Cookie,
    report: &mut Report,
    info: &mut StartInfo,
) -> Result<bool, TestError> {
    let send = |c: &mut Ctrl, s: State| {
        c.send_state(s).map_err(|e| {
            TestError::log(format!(
                "unable to send control message: {}",
                e.to_string_c()
            ))
        })
    };
    send(ctrl, State::ParamExchange)?;
    let p = receive_params(cfg, ctrl, report)?;
    let udp = p.protocol == Protocol::Udp;
    let opts = sock_opts(cfg, &p);
    probe_socket_options(&p)?;
    let local_ip = ctrl.stream.local_addr().map(|a| a.ip()).ok();
    let udp_sock = if udp {
        Some(bind_udp(listener, cfg.port).map_err(|_| TestError::code(code::IESTREAMLISTEN))?)
    } else {
        None
    };
    send(ctrl, State::CreateStreams)?;
    greet(cfg, &p, report, info);
    let sends = p.reverse || p.bidirectional;
    let shared = TestShared::with_overshoot(
        if sends { p.num } else { 0 },
        if sends { p.blockcount } else { 0 },
        udp,
    );
    let mut session = Session::new(shared.clone(), cfg.interval, p.omit, udp);
    let bodies = streams::accept_streams(
        cfg,
        &p,
        listener,
        ctrl,
        cookie,
        udp_sock,
        &opts,
        local_ip,
        &mut session,
        report,
        info,
    )?;
    info.test = Some(test_desc(&p));
    report.set_start(info);
    announce_test(cfg, &p, report);
    start_streams(cfg, &p, &mut session, bodies, &shared)?;
    let mut busy = BusyGuard::start(listener);
    send(ctrl, State::TestStart)?;
    // TEST_RUNNING goes out before our senders start: once they run (-R
    // -P 128) they could hold this thread off the CPU before the send,
    // starting the client's clock late (a sending server's end then read
    // 2 s for -t 1). Receivers count from the start already.
    if let Err(e) = send(ctrl, State::TestRunning) {
        session.stop();
        return Err(e);
    }
    session.start();
    let r = running_loop(cfg, &p, ctrl, &mut session, report, &mut busy);
    if let Some(b) = busy.as_mut() {
        b.stop();
    }
    session.stop();
    r
}

/// From TEST_RUNNING to IPERF_DONE.
fn running_loop(
    cfg: &Config,
    p: &TestParams,
    ctrl: &mut Ctrl,
    session: &mut Session,
    report: &mut Report,
    busy: &mut Option<BusyGuard>,
) -> Result<bool, TestError> {
    if let Some(interrupted) = until_test_end(cfg, p, ctrl, session, report)? {
        return Ok(interrupted);
    }
    let udp = p.protocol == Protocol::Udp;
    // TEST_END: the test ends now (stopping the busy guard first, a
    // thread on a 20 ms poll, pushed a sending server's end past -t under
    // load: 1.06 s for -R -P 8 -t 1, 1.9 s with -P 128).
    session.end(report, true);
    // The test is over: the next client waits in the backlog rather than
    // being refused while results are exchanged.
    if let Some(b) = busy.as_mut() {
        b.stop();
    }
    // The summary first (the server never shows peer numbers).
    session.shutdown_streams();
    print_summary(session, report, udp, cfg.file.as_deref())?;
    exchange_server_results(cfg, p, ctrl, session, report)
}

/// The test runs: intervals, the senders' stop, the watchdogs, until
/// TEST_END (None) or the test ends otherwise (Some(interrupted by a
/// signal)).
fn until_test_end(
    cfg: &Config,
    p: &TestParams,
    ctrl: &mut Ctrl,
    session: &mut Session,
    report: &mut Report,
) -> Result<Option<bool>, TestError> {
    let udp = p.protocol == Protocol::Udp;
    // 3.12's watchdog: duration + omit + 40 s; with -n/-k, an idle limit.
    let watchdog = if p.time > 0 {
        session.start_ns + (p.time as u64 + p.omit.max(0) as u64 + 40) * 1_000_000_000
    } else {
        u64::MAX
    };
    let idle_ns = cfg.rcv_timeout_ms * 1_000_000;
    let mut stop_senders = senders_stop_at(p, session.start_ns);
    let mut limit = RateLimit::new(cfg);
    let mut last_progress = now_ns();
    let mut last_counted = (0, 0);
    loop {
        if should_stop() {
            let _ = ctrl.send_state(State::ServerTerminate);
            session.end(report, false);
            print_summary(session, report, udp, cfg.file.as_deref())?;
            return Ok(Some(true));
        }
        let now = now_ns();
        if now > watchdog {
            return Err(TestError::log("test exceeded its time limit; dropped"));
        }
        let counted = session.counted();
        if counted != last_counted {
            last_counted = counted;
            last_progress = now;
        } else if now - last_progress > idle_ns {
            return Err(TestError::log("idle timeout for receiving data"));
        }
        if let Some(e) = session.stream_error(Duration::ZERO) {
            return Err(TestError::log(e));
        }
        if stop_senders.is_some_and(|t| now >= t) {
            session.stop_senders();
            stop_senders = None;
        }
        // Once our senders stopped, the test has ended for the report:
        // no more intervals, only TEST_END to wait for.
        let due = match (stop_senders, session.senders_stopped_ns) {
            (_, Some(_)) => u64::MAX,
            (Some(t), None) => session.next_deadline().min(t),
            (None, None) => session.next_deadline(),
        };
        let wait = Duration::from_nanos(due.saturating_sub(now).min(200_000_000));
        if !net::wait_readable(ctrl.fd(), wait) {
            if session.senders_stopped_ns.is_some() {
                continue;
            }
            if let Some(bytes) = session.tick(report) {
                if limit.exceeded(bytes) {
                    return Err(TestError::log(
                        "total required bandwidth is larger than server limit",
                    ));
                }
            }
            continue;
        }
        let b = match ctrl.read_byte(Duration::from_millis(100)) {
            Ok(b) => b,
            Err(CtrlError::Timeout) => continue,
            Err(CtrlError::Closed) => return Err(TestError::client_closed()),
            Err(e) => {
                return Err(TestError::log(format!(
                    "unable to receive control message: {e}"
                )))
            }
        };
        match State::from_byte(b) {
            Some(State::TestStart) => continue,
            Some(State::TestEnd) => return Ok(None),
            Some(State::ClientTerminate) => {
                session.end(report, false);
                print_summary(session, report, udp, cfg.file.as_deref())?;
                eprintln!("iperf3: the client has terminated");
                return Ok(Some(false));
            }
            Some(State::IperfDone) => return Ok(Some(false)),
            _ => return Err(TestError::log("received an unknown control message")),
        }
    }
}

/// EXCHANGE_RESULTS and DISPLAY_RESULTS: the client's results in (checked
/// against our streams), ours out (with our output when asked), then
/// IPERF_DONE.
fn exchange_server_results(
    cfg: &Config,
    p: &TestParams,
    ctrl: &mut Ctrl,
    session: &mut Session,
    report: &mut Report,
) -> Result<bool, TestError> {
    let udp = p.protocol == Protocol::Udp;
    ctrl.send_state(State::ExchangeResults).map_err(|e| {
        TestError::log(format!(
            "unable to send control message: {}",
            e.to_string_c()
        ))
    })?;
    let v = ctrl
        .read_json(MAX_RESULTS_LEN.min(16 * 1024 * 1024), step_timeout(cfg))
        .map_err(|e| TestError::log(format!("unable to receive results: {e}")))?;
    crate::client::debug_json(cfg.debug, "get_results", &v);
    let client = PeerResults::from_json(&v).map_err(|e| TestError::log(e.to_string()))?;
    for cs in &client.streams {
        if !session.totals.iter().any(|t| t.id == cs.id) {
            return Err(TestError::log("stream has an invalid id"));
        }
    }
    let mut mine = session.results(!udp, !(p.reverse || p.bidirectional));
    if p.get_server_output {
        mine.server_output = Some(match report.kind {
            OutputKind::Json | OutputKind::JsonStream => {
                ServerOutput::Json(report.json_document(None))
            }
            _ => ServerOutput::Text(report.out.capture.clone().unwrap_or_default()),
        });
    }
    let mine = mine.to_json();
    crate::client::debug_json(cfg.debug, "send_results", &mine);
    ctrl.send_json(&mine)
        .map_err(|e| TestError::log(format!("unable to send results: {}", e.to_string_c())))?;
    ctrl.send_state(State::DisplayResults).map_err(|e| {
        TestError::log(format!(
            "unable to send control message: {}",
            e.to_string_c()
        ))
    })?;
    // Wait (bounded) for IPERF_DONE; a client that just closes is fine too.
    match ctrl.read_byte(step_timeout(cfg)) {
        Ok(b) if State::from_byte(b) == Some(State::IperfDone) => {}
        Ok(_) => return Err(TestError::log("received an unknown control message")),
        Err(_) => {}
    }
    Ok(false)
}

fn print_summary(
    session: &Session,
    report: &mut Report,
    udp: bool,
    cfg_file: Option<&str>,
) -> Result<(), TestError> {
    let mut s = session
        .summary(None, report.ctx.sender_has_retransmits)
        .map_err(TestError::log)?;
    if !udp {
        let local = session
            .streams
            .first()
            .and_then(|s| net::congestion_of(s.fd));
        if report.ctx.reverse || report.ctx.bidir {
            s.sender_congestion = local;
        } else {
            s.receiver_congestion = local;
        }
    }
    s.file = crate::stream::file_info(cfg_file);
    report.summary(&s);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_timed_reverse_server_stops_its_senders() {
        let p = |time, reverse, bidirectional, omit| TestParams {
            time,
            reverse,
            bidirectional,
            omit,
            ..TestParams::default()
        };
        let s = 1_000_000_000;
        assert_eq!(
            senders_stop_at(&p(2, true, false, 1), 5 * s),
            Some(8 * s + SEND_PAST_END_NS)
        );
        assert_eq!(senders_stop_at(&p(2, false, false, 0), s), None);
        assert_eq!(senders_stop_at(&p(2, true, true, 0), s), None);
        assert_eq!(senders_stop_at(&p(0, true, false, 0), s), None);
    }
}
