//! The client: connects, sends the parameters, opens the data streams,
//! decides when the test ends, exchanges results and prints the report
//! (spec §2.4 from the client's side).

mod streams;

use streams::create_streams;

use crate::ctrl::{Ctrl, CtrlError};
use crate::net;
use crate::options::{Config, OutputKind};
use crate::protocol::errors::{server_error_text, StrError};
use crate::protocol::framing::MAX_RESULTS_LEN;
use crate::protocol::results::ServerOutput;
use crate::protocol::{Cookie, PeerResults, Protocol, State, TestParams};
use crate::report::{self, Ctx, Out, Report, StartInfo, TestDesc};
use crate::session::Session;
use crate::stream::TestShared;
use rbench_common::clock::now_ns;
use std::io::Write;
use std::time::Duration;

/// How a client run ended, for `main`.
pub enum ClientEnd {
    Ok,
    /// An error already reported in the output (JSON), exit status 0 as 3.12.
    ReportedInJson,
    /// `iperf3: error - <msg>` on stderr, exit 1.
    Error(String),
    /// Interrupted by a signal: `iperf3: interrupt - the client has terminated`.
    Interrupted,
}

const CTRL_TIMEOUT: Duration = Duration::from_secs(30);

pub fn run(cfg: &Config) -> ClientEnd {
    let mut out = match Out::new(cfg.logfile.as_deref()) {
        Ok(o) => o,
        Err(e) => return ClientEnd::Error(format!("unable to open log file: {}", e.to_string_c())),
    };
    // 3.12 pins the client right after opening the log file, so a CPU
    // this machine lacks ends the run before it connects (no JSON either).
    if let Some(c) = cfg.affinity {
        if rbench_common::cpu::pin_current_thread(c).is_err() {
            return ClientEnd::Error("unable to set CPU affinity: Invalid argument".into());
        }
    }
    out.title = cfg.title.clone();
    out.timestamps = cfg.timestamps.clone();
    out.forceflush = cfg.forceflush;
    let udp = cfg.protocol == Protocol::Udp;
    let ctx = Ctx {
        is_client: true,
        udp,
        bidir: cfg.bidir,
        reverse: cfg.reverse,
        num_streams: cfg.parallel as usize,
        format: cfg.format,
        verbose: cfg.verbose,
        sender_has_retransmits: !udp && !cfg.reverse,
    };
    let mut report = Report::new(cfg.output, ctx, out);
    let mut info = StartInfo {
        system_info: report::system_info(),
        ..Default::default()
    };
    match run_inner(cfg, &mut report, &mut info) {
        Ok(()) => {
            report.finish(None);
            if report.is_text() {
                report.out.line("");
                report.out.line("iperf Done.");
            }
            ClientEnd::Ok
        }
        Err(e) if e == INTERRUPTED => {
            // The partial report is already out in text; JSON gets it now,
            // with the interrupt as its error (3.12 does the same).
            if matches!(
                report.kind,
                OutputKind::Json | OutputKind::JsonStream | OutputKind::Csv
            ) {
                report.finish(Some("interrupt - the client has terminated"));
            }
            ClientEnd::Interrupted
        }
        Err(e) => {
            if matches!(report.kind, OutputKind::Json | OutputKind::JsonStream) {
                if info.test.is_none() {
                    report.set_start(&info);
                }
                report.finish(Some(&e));
                ClientEnd::ReportedInJson
            } else {
                ClientEnd::Error(e)
            }
        }
    }
}

const CONTROL_CLOSED: &str = "control socket has closed unexpectedly";
/// The error value of an interrupted run (reported by `run`, not printed as an error).
const INTERRUPTED: &str = "\u{0}interrupt";

fn read_state(ctrl: &mut Ctrl) -> Result<State, String> {
    read_state_within(ctrl, None)
}

/// As [`read_state`], giving up after `limit` without a message.
fn read_state_within(ctrl: &mut Ctrl, limit: Option<Duration>) -> Result<State, String> {
    let start = now_ns();
    loop {
        if limit.is_some_and(|l| now_ns() - start > l.as_nanos() as u64) {
            return Err("unable to receive control message: Connection timed out".into());
        }
        match ctrl.read_state(Duration::from_millis(200)) {
            Ok(s) => return Ok(s),
            Err(CtrlError::Timeout) => {
                if rbench_common::stop::should_stop() {
                    let _ = ctrl.send_state(State::ClientTerminate);
                    return Err(INTERRUPTED.into());
                }
            }
            Err(CtrlError::UnknownState(_)) => {
                return Err("received an unknown control message".into())
            }
            Err(CtrlError::Closed) => return Err(CONTROL_CLOSED.into()),
            Err(e) => return Err(format!("unable to receive control message: {e}")),
        }
    }
}

fn server_error(ctrl: &mut Ctrl) -> String {
    let mut b = [0u8; 8];
    let mut got = [0i32; 2];
    if ctrl.read_exact(&mut b[..4], CTRL_TIMEOUT).is_ok() {
        got[0] = i32::from_be_bytes([b[0], b[1], b[2], b[3]]);
        if ctrl.read_exact(&mut b[4..], CTRL_TIMEOUT).is_ok() {
            got[1] = i32::from_be_bytes([b[4], b[5], b[6], b[7]]);
        }
    }
    server_error_text(got[0], got[1])
}

fn params_of(cfg: &Config, blksize: i64) -> TestParams {
    TestParams {
        protocol: cfg.protocol,
        omit: cfg.omit,
        server_affinity: cfg.server_affinity,
        time: cfg.duration,
        num: cfg.bytes,
        blockcount: cfg.blocks,
        mss: cfg.mss,
        nodelay: cfg.nodelay,
        parallel: cfg.parallel,
        reverse: cfg.reverse,
        bidirectional: cfg.bidir,
        window: cfg.window,
        len: blksize,
        bandwidth: cfg.rate,
        fqrate: cfg.fqrate,
        pacing_timer: cfg.pacing_timer,
        burst: cfg.burst,
        tos: cfg.tos,
        flowlabel: cfg.flowlabel,
        title: cfg.title.clone(),
        extra_data: cfg.extra_data.clone(),
        congestion: cfg.congestion.clone(),
        congestion_used: None,
        get_server_output: cfg.get_server_output,
        udp_counters_64bit: cfg.udp_counters_64bit,
        repeating_payload: cfg.repeating_payload,
        zerocopy: cfg.zerocopy,
        dont_fragment: cfg.dont_fragment,
        authtoken: None,
        client_version: None,
    }
}

fn run_inner(cfg: &Config, report: &mut Report, info: &mut StartInfo) -> Result<(), String> {
    if report.is_text() && cfg.verbose {
        report.out.line("iperf 3.12");
        report.out.prefix_only();
        let si = info.system_info.clone();
        report.out.line(&si);
    }
    let mut l = connect(cfg)?;
    note_connection(cfg, &l, info);
    let udp = cfg.protocol == Protocol::Udp;
    let shared = TestShared::new(cfg.bytes, cfg.blocks);
    let mut session = Session::new(shared.clone(), cfg.interval, cfg.omit, udp);
    let mut server_results: Option<PeerResults> = None;
    let mut local_end_done = false;
    loop {
        let st = if session.running() && !local_end_done {
            match wait_running(cfg, l.blksize, &mut l.ctrl, &mut session, report)? {
                Some(s) => s,
                None => {
                    // Our side decided the test is over.
                    end_our_side(cfg, &mut l.ctrl, &mut session)?;
                    local_end_done = true;
                    continue;
                }
            }
        } else if local_end_done {
            await_server_after_end(cfg, &mut l.ctrl, &mut session, report)?
        } else {
            read_state(&mut l.ctrl)?
        };
        match st {
            State::ParamExchange => send_parameters(cfg, &mut l, report)?,
            State::CreateStreams => start_streams(cfg, &l, &shared, &mut session, report, info)?,
            State::TestStart => {}
            State::TestRunning => session.start(),
            State::ExchangeResults => {
                if !local_end_done {
                    session.end_deferred();
                    local_end_done = true;
                }
                server_results = Some(exchange_results(cfg, &mut l.ctrl, &session, udp)?);
            }
            State::DisplayResults => {
                return display_results(
                    cfg,
                    &mut l.ctrl,
                    &mut session,
                    report,
                    server_results.as_ref(),
                    udp,
                )
            }
            State::AccessDenied => {
                return Err("the server is busy running a test. try again later".into())
            }
            State::ServerError => return Err(server_error(&mut l.ctrl)),
            State::ServerTerminate => {
                if !local_end_done {
                    session.end(report, false);
                }
                if let Ok(s) = session.summary(None, report.ctx.sender_has_retransmits) {
                    report.summary(&s);
                }
                session.stop();
                return Err("the server has terminated".into());
            }
            _ => return Err("received an unknown control message".into()),
        }
    }
}

/// The control connection and what the client learned making it.
struct Link {
    ctrl: Ctrl,
    peer: std::net::SocketAddr,
    /// -B's address, if any.
    bind_ip: Option<std::net::IpAddr>,
    cookie: Cookie,
    /// The control connection's MSS.
    ctrl_mss: i64,
    /// -l, or for UDP without it the control connection's MSS.
    blksize: i64,
    /// When it connected, as the `Time:` line writes it, and in seconds.
    time_s: String,
    timesecs: i64,
}

/// Resolve the server, connect (-B, --bind-dev, --connect-timeout), send
/// the cookie.
fn connect(cfg: &Config) -> Result<Link, String> {
    let addrs = net::resolve(&cfg.host, cfg.port, cfg.ipv4_only, cfg.ipv6_only)
        .map_err(|e| format!("unable to connect to server: {}", e.to_string_c()))?;
    let bind_ip = match &cfg.bind {
        Some(b) => Some(
            b.split('%')
                .next()
                .unwrap_or("")
                .parse()
                .map_err(|_| "unable to connect to server: Invalid argument".to_string())?,
        ),
        None => None,
    };
    let timeout = cfg.connect_timeout_ms.map(Duration::from_millis);
    let ctrl_stream = net::connect_tcp(&addrs, bind_ip, 0, timeout, &|s, _| {
        net::bind_device(s, cfg.bind_dev.as_deref())
    })
    .map_err(|e| match e {
        net::ConnectError::Io(e) => format!("unable to connect to server: {}", e.to_string_c()),
        net::ConnectError::Option(n) => server_error_text(n, 0),
    })?;
    let mut ctrl = Ctrl::new(ctrl_stream);
    let peer = ctrl.stream.peer_addr().map_err(|e| e.to_string_c())?;
    let cookie = Cookie::random();
    ctrl.stream
        .write_all(cookie.as_bytes())
        .map_err(|e| format!("unable to send cookie to server: {}", e.to_string_c()))?;
    let ctrl_mss = net::tcp_mss(ctrl.fd());
    let udp = cfg.protocol == Protocol::Udp;
    let mut blksize = cfg.blksize;
    if udp && blksize == 0 {
        blksize = if ctrl_mss > 0 {
            ctrl_mss.min(65507)
        } else {
            1460
        };
    }
    let (time_s, timesecs) = report::gmt_now();
    Ok(Link {
        ctrl,
        peer,
        bind_ip,
        cookie,
        ctrl_mss,
        blksize,
        time_s,
        timesecs,
    })
}

/// What the start of the report says of the connection.
fn note_connection(cfg: &Config, l: &Link, info: &mut StartInfo) {
    info.time = l.time_s.clone();
    info.timesecs = l.timesecs;
    info.peer_host = cfg.host.clone();
    info.peer_port = cfg.port;
    info.cookie = l.cookie.text();
    info.on_connect = Some(report::OnConnect {
        tcp: cfg.protocol == Protocol::Tcp,
        mss: cfg.mss,
        rate: cfg.rate,
    });
    info.tcp_mss = if cfg.mss > 0 { cfg.mss } else { l.ctrl_mss };
}

/// Our side decided the test is over: TEST_END.
fn end_our_side(cfg: &Config, ctrl: &mut Ctrl, session: &mut Session) -> Result<(), String> {
    let send_end = |ctrl: &mut Ctrl| {
        ctrl.send_state(State::TestEnd)
            .map_err(|e| format!("unable to send control message: {}", e.to_string_c()))
    };
    if cfg.bytes != 0 || cfg.blocks != 0 {
        // -n/-k: the receiver's count should hold every
        // byte sent: the senders finish their write and
        // the peer acknowledges it (bounded) first.
        session.end_deferred();
        session.wait_acked(Duration::from_secs(1));
        send_end(ctrl)?;
    } else {
        // A timed test ends at -t, as in 3.12: TEST_END
        // goes now, and the senders' writes in progress
        // finish after it. Waiting for them (a paced
        // --fq-rate queue, -P 128 threads) pushed the
        // receiver's last interval past -t.
        session.shared.set_phase(crate::stream::phase::ENDING);
        send_end(ctrl)?;
        session.end_deferred();
    }
    Ok(())
}

/// The server's next message once we sent TEST_END.
fn await_server_after_end(
    cfg: &Config,
    ctrl: &mut Ctrl,
    session: &mut Session,
    report: &mut Report,
) -> Result<State, String> {
    // After TEST_END the server answers at once. 3.12 waits forever
    // for a server that does not (cut off, frozen); riperf gives up
    // after --rcv-timeout (default 120 s).
    match read_state_within(ctrl, Some(Duration::from_millis(cfg.rcv_timeout_ms))) {
        Ok(s) => Ok(s),
        Err(e) => {
            // Interrupted while waiting for the server: 3.12 prints
            // what this side measured before its interrupt message.
            if e == INTERRUPTED && report.is_text() {
                if let Some(iv) = session.last_interval.take() {
                    report.interval(&iv);
                }
                if let Ok(s) = session.summary(None, report.ctx.sender_has_retransmits) {
                    report.summary(&s);
                }
            }
            session.stop();
            Err(e)
        }
    }
}

/// PARAM_EXCHANGE: the connection lines, then our parameters.
fn send_parameters(cfg: &Config, l: &mut Link, report: &mut Report) -> Result<(), String> {
    let udp = cfg.protocol == Protocol::Udp;
    if cfg.verbose {
        // 3.12 prints these with printf: on stdout, also with -J
        // or --logfile, without -T or --timestamps prefixes.
        let mut o = std::io::stdout().lock();
        let _ = writeln!(o, "Control connection MSS {}", l.ctrl_mss);
        if udp && cfg.blksize == 0 {
            let _ = writeln!(o, "Setting UDP block size to {}", l.blksize);
        }
        let _ = o.flush();
    }
    if udp && l.ctrl_mss > 0 && l.blksize > l.ctrl_mss {
        eprintln!(
            "warning: UDP block size {} exceeds TCP MSS {}, may result in fragmentation / drops",
            l.blksize, l.ctrl_mss
        );
    }
    if report.is_text() {
        if cfg.verbose {
            report.out.line(&format!("Time: {}", l.time_s));
        }
        report.out.line(&format!(
            "Connecting to host {}, port {}",
            cfg.host, cfg.port
        ));
        if cfg.reverse {
            report.out.line(&format!(
                "Reverse mode, remote host {} is sending",
                cfg.host
            ));
        }
        if cfg.verbose {
            report
                .out
                .line(&format!("      Cookie: {}", l.cookie.text()));
            // TCP only: not for UDP, nor SCTP.
            if cfg.protocol == Protocol::Tcp {
                if cfg.mss > 0 {
                    report.out.line(&format!("      TCP MSS: {}", cfg.mss));
                } else {
                    report
                        .out
                        .line(&format!("      TCP MSS: {} (default)", l.ctrl_mss));
                }
            }
            if cfg.rate > 0 {
                report
                    .out
                    .line(&format!("      Target Bitrate: {}", cfg.rate));
            }
        }
    }
    let params = params_of(cfg, l.blksize).to_json();
    debug_json(cfg.debug, "send_parameters:", &params);
    l.ctrl
        .send_json(&params)
        .map_err(|e| format!("unable to send parameters to server: {}", e.to_string_c()))?;
    Ok(())
}

/// CREATE_STREAMS: connect the data streams, start the report, start the
/// stream threads (waiting for TEST_RUNNING).
fn start_streams(
    cfg: &Config,
    l: &Link,
    shared: &std::sync::Arc<TestShared>,
    session: &mut Session,
    report: &mut Report,
    info: &mut StartInfo,
) -> Result<(), String> {
    let udp = cfg.protocol == Protocol::Udp;
    if cfg.protocol == Protocol::Sctp {
        return Err(sctp_stream_error());
    }
    create_streams(
        cfg, &l.cookie, l.peer, l.bind_ip, l.blksize, shared, session, report, info,
    )?;
    let desc = TestDesc {
        udp,
        num_streams: cfg.parallel,
        blksize: l.blksize,
        omit: cfg.omit,
        duration: cfg.duration,
        bytes: cfg.bytes,
        blocks: cfg.blocks,
        reverse: cfg.reverse,
        tos: cfg.tos,
        rate: cfg.rate,
        window: cfg.window,
        mss: cfg.mss,
    };
    info.test = Some(desc);
    report.set_start(info);
    if report.is_text() && cfg.verbose {
        report.out.line(&format!(
            "Starting Test: protocol: {}, {} streams, {} byte blocks, omitting {} seconds, {} second test, tos {}",
            if udp { "UDP" } else { "TCP" },
            cfg.parallel,
            l.blksize,
            cfg.omit,
            cfg.duration,
            cfg.tos
        ));
    }
    // The stream threads start now, waiting for TEST_RUNNING:
    // the server's clock starts when it sends TEST_RUNNING, right
    // after TEST_START, so spawning them on TEST_START (-P 128
    // on a busy machine: tens of ms) started ours late and our
    // TEST_END went past the server's -t.
    let streams = std::mem::take(&mut session.streams);
    let bodies = std::mem::take(&mut session.pending);
    let all = streams.into_iter().zip(bodies).collect();
    if let Ok(w) = net::Wake::new() {
        let _ = shared.wake.set(w);
    }
    let limit = recv_limit(cfg, l.blksize);
    shared
        .recv_limit
        .store(limit, std::sync::atomic::Ordering::Relaxed);
    let (started, failed) =
        crate::stream::spawn_all(all, shared, |i| crate::stream::stream_cpu(cfg.affinity, i));
    session.streams = started;
    match failed {
        Some(e) => Err(format!(
            "unable to create a new stream: {}",
            e.to_string_c()
        )),
        None => Ok(()),
    }
}

/// What this client's receivers may count before the test is done (-n,
/// or -k blocks of the block size; the first reached): 0 when it sends only.
fn recv_limit(cfg: &Config, blksize: i64) -> u64 {
    if !(cfg.reverse || cfg.bidir) {
        return 0;
    }
    let blocks = cfg.blocks.saturating_mul(blksize.max(1) as u64);
    match (cfg.bytes, blocks) {
        (0, b) => b,
        (n, 0) => n,
        (n, b) => n.min(b),
    }
}

/// EXCHANGE_RESULTS: ours out, the server's in.
fn exchange_results(
    cfg: &Config,
    ctrl: &mut Ctrl,
    session: &Session,
    udp: bool,
) -> Result<PeerResults, String> {
    let mine = session.results(!udp, false).to_json();
    debug_json(cfg.debug, "send_results", &mine);
    ctrl.send_json(&mine)
        .map_err(|e| format!("unable to send results: {}", e.to_string_c()))?;
    let v = ctrl
        .read_json(MAX_RESULTS_LEN, CTRL_TIMEOUT)
        .map_err(|e| format!("unable to receive results: {e}"))?;
    debug_json(cfg.debug, "get_results", &v);
    PeerResults::from_json(&v).map_err(|e| e.to_string())
}

/// DISPLAY_RESULTS: the last interval, the summary, the server's output
/// when asked for; IPERF_DONE.
fn display_results(
    cfg: &Config,
    ctrl: &mut Ctrl,
    session: &mut Session,
    report: &mut Report,
    server_results: Option<&PeerResults>,
    udp: bool,
) -> Result<(), String> {
    let peer_res = server_results;
    // 3.12 takes the sender's retransmit flag from the results
    // before printing the last interval: a -R client whose only
    // interval prints now shows the Retr/Cwnd header.
    if cfg.reverse && !udp && peer_res.is_some_and(|p| p.sender_has_retransmits == 1) {
        report.ctx.sender_has_retransmits = true;
    }
    if let Some(iv) = session.last_interval.take() {
        report.interval(&iv);
    }
    let mut summary = session.summary(peer_res, report.ctx.sender_has_retransmits)?;
    if !udp {
        let local = session
            .streams
            .first()
            .and_then(|s| net::congestion_of(s.fd));
        let remote = peer_res.and_then(|p| p.congestion_used.clone());
        if report.ctx.local_sends() || cfg.bidir {
            summary.sender_congestion = local;
            summary.receiver_congestion = remote;
        } else {
            summary.sender_congestion = remote;
            summary.receiver_congestion = local;
        }
    }
    summary.file = crate::stream::file_info(cfg.file.as_deref());
    report.summary(&summary);
    if let Some(t) = &cfg.title {
        report.extra_top.push(("title".into(), t.clone().into()));
    }
    if let Some(e) = &cfg.extra_data {
        report
            .extra_top
            .push(("extra_data".into(), e.clone().into()));
    }
    // A real iperf3 server keeps `get_server_output` set from an
    // earlier client that asked: 3.12 shows (and keeps for -J)
    // the server's output only when this client asked for it.
    let asked = cfg.get_server_output;
    match peer_res
        .filter(|_| asked)
        .and_then(|p| p.server_output.clone())
    {
        Some(ServerOutput::Text(t)) => {
            if report.is_text() {
                report.out.raw("\nServer output:\n");
                report.out.raw(&t);
                report.out.raw("\n");
            } else {
                report
                    .extra_top
                    .push(("server_output_text".into(), t.into()));
            }
        }
        Some(ServerOutput::Json(j)) => {
            if report.is_text() {
                report.out.raw("\nServer JSON output:\n");
                report.out.raw(&crate::protocol::cjson::to_pretty(&j));
                report.out.raw("\n");
            } else {
                report.extra_top.push(("server_output_json".into(), j));
            }
        }
        None => {}
    }
    let _ = ctrl.send_state(State::IperfDone);
    session.stop();
    Ok(())
}

/// A server that takes an SCTP test: 3.12 fails to make its socket where
/// the kernel has no SCTP; riperf has no SCTP streams at all.
fn sctp_stream_error() -> String {
    // SAFETY: socket(2) with constant arguments; the fd is closed below.
    let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_STREAM, libc::IPPROTO_SCTP) };
    if fd < 0 {
        let e = std::io::Error::last_os_error();
        return format!("unable to connect stream: {}", e.to_string_c());
    }
    // SAFETY: our own fresh descriptor.
    unsafe { libc::close(fd) };
    "unable to connect stream: riperf has no SCTP support".into()
}

/// While the test runs: wake for interval ticks, watch the end conditions and
/// the control connection. `Ok(None)` when this side ends the test.
fn wait_running(
    cfg: &Config,
    blksize: i64,
    ctrl: &mut Ctrl,
    session: &mut Session,
    report: &mut Report,
) -> Result<Option<State>, String> {
    let end_ns = if cfg.duration > 0 && cfg.bytes == 0 && cfg.blocks == 0 {
        session.start_ns + (cfg.duration as u64 + cfg.omit.max(0) as u64) * 1_000_000_000
    } else {
        u64::MAX
    };
    let limited = cfg.bytes != 0 || cfg.blocks != 0;
    let receives = cfg.reverse || cfg.bidir;
    let mut last_recv = (now_ns(), 0u64);
    loop {
        if receives {
            let (_, recv) = session.counted();
            let now = now_ns();
            if recv != last_recv.1 {
                last_recv = (now, recv);
            } else if now - last_recv.0 > cfg.rcv_timeout_ms * 1_000_000 {
                return Err("idle timeout for receiving data".into());
            }
        }
        if rbench_common::stop::should_stop() {
            session.end(report, false);
            let _ = ctrl.send_state(State::ClientTerminate);
            if let Ok(s) = session.summary(None, report.ctx.sender_has_retransmits) {
                report.summary(&s);
            }
            session.stop();
            return Err(INTERRUPTED.into());
        }
        let now = now_ns();
        let mut deadline = session.next_deadline().min(end_ns);
        // -F: the end of the file ends the test too.
        let file_send = cfg.file.is_some() && (!cfg.reverse || cfg.bidir);
        // Senders end on their own (budget spent, end of file, error) and
        // their threads' end wakes this one, as do receivers reaching -n/-k.
        let wake = session.shared.wake.get();
        if wake.is_none() && (limited || file_send) {
            deadline = deadline.min(now + 2_000_000);
        }
        let wait = Duration::from_nanos(deadline.saturating_sub(now).min(200_000_000));
        if net::wait_woken(ctrl.fd(), wake, wait) {
            return read_state(ctrl).map(Some).map_err(|e| {
                if e == CONTROL_CLOSED {
                    session
                        .stream_error(Duration::from_millis(100))
                        .unwrap_or(e)
                } else {
                    e
                }
            });
        }
        // A stream that failed (peer gone, --snd-timeout) ends the test
        // with its error, as in iperf3.
        if let Some(e) = session.stream_error(Duration::ZERO) {
            return Err(e);
        }
        let now = now_ns();
        if now >= end_ns && !session.omitting {
            return Ok(None);
        }
        let _ = session.tick(report);
        if !session.omitting
            && file_send
            && session
                .shared
                .file_eof
                .load(std::sync::atomic::Ordering::SeqCst)
        {
            return Ok(None);
        }
        if !session.omitting && limited {
            let (sent, recv) = session.counted();
            let bytes_done = cfg.bytes != 0 && (sent >= cfg.bytes || recv >= cfg.bytes);
            let blocks_done = cfg.blocks != 0
                && (session
                    .shared
                    .total_blocks
                    .load(std::sync::atomic::Ordering::Relaxed)
                    >= cfg.blocks
                    || recv >= cfg.blocks * blksize.max(1) as u64);
            if bytes_done || blocks_done || session.all_senders_finished() {
                return Ok(None);
            }
        }
    }
}

/// `-d`: the control messages as 3.12 prints them (pretty JSON on stdout).
pub(crate) fn debug_json(level: u8, title: &str, v: &serde_json::Value) {
    if level > 0 {
        let text = format!("{title}\n{}\n", crate::protocol::cjson::to_pretty(v));
        // A closed stdout must not panic (iperf3 would die of SIGPIPE quietly).
        let _ = std::io::Write::write_all(&mut std::io::stdout().lock(), text.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn receive_limit_is_the_first_of_bytes_and_blocks_when_receiving() {
        let c = |reverse, bidir, bytes, blocks| Config {
            reverse,
            bidir,
            bytes,
            blocks,
            ..Config::default()
        };
        assert_eq!(recv_limit(&c(false, false, 1000, 0), 100), 0, "sends only");
        assert_eq!(recv_limit(&c(true, false, 1000, 0), 100), 1000);
        assert_eq!(recv_limit(&c(false, true, 0, 3), 100), 300);
        assert_eq!(recv_limit(&c(true, false, 1000, 3), 100), 300);
        assert_eq!(recv_limit(&c(true, false, 200, 3), 100), 200);
        assert_eq!(recv_limit(&c(true, false, 0, 0), 100), 0, "-t");
    }
}
