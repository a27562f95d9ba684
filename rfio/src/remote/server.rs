//! `rfio --server`: fio's backend server. Listens, answers each client's
//! PROBE, reads its job file (and command-line options), runs the jobs with
//! rfio's runner and sends the report as fio's server does: text lines,
//! one TS per reporting unit, one GS per group, STOP and QUIT. Each client
//! is served by a process of its own; a client that sends bad frames loses
//! its connection, the server goes on.

use super::daemon;
use super::policy::Policy;
use super::protocol::{self as p, Command, Decoder, Op};
use super::tsconv;
use crate::failure::Failure;
use crate::job::Job;
use crate::run::files::diskstats;
use std::io::{Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

/// Where `--server[=ARGS]` listens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Bind {
    Tcp(std::net::SocketAddr),
    Unix(String),
}

/// fio's `--server` argument: `[ip:|ip6:|sock:]host[,port]`, empty for
/// every IPv4 address on port 8765.
pub fn parse_bind(arg: &str) -> Result<Bind, String> {
    if let Some(path) = arg.strip_prefix("sock:") {
        return Ok(Bind::Unix(path.to_string()));
    }
    let (v6, rest) = match arg.strip_prefix("ip6:") {
        Some(r) => (true, r),
        None => (false, arg.strip_prefix("ip:").unwrap_or(arg)),
    };
    let (host, port) = match rest.rsplit_once(',') {
        Some((h, port)) => (
            h,
            port.parse::<u16>()
                .map_err(|_| format!("fio: bad server port {port}\n"))?,
        ),
        None => (rest, p::DEFAULT_PORT),
    };
    let host = if host.is_empty() {
        if v6 {
            "::"
        } else {
            "0.0.0.0"
        }
    } else {
        host
    };
    let ip = match host.parse::<std::net::IpAddr>() {
        Ok(ip) => ip,
        Err(_) => {
            use std::net::ToSocketAddrs;
            (host, port)
                .to_socket_addrs()
                .ok()
                .and_then(|mut a| a.find(|a| a.is_ipv6() == v6))
                .map(|a| a.ip())
                .ok_or_else(|| format!("fio: failed to resolve <{host}>\n"))?
        }
    };
    Ok(Bind::Tcp(std::net::SocketAddr::new(ip, port)))
}

trait Conn: Read + Write + Send {
    fn split(&self) -> std::io::Result<Box<dyn Conn>>;
    /// Ends the connection for every handle on it (the reader thread's too).
    fn close(&self);
}

impl Conn for std::net::TcpStream {
    fn split(&self) -> std::io::Result<Box<dyn Conn>> {
        Ok(Box::new(self.try_clone()?))
    }
    fn close(&self) {
        let _ = self.shutdown(std::net::Shutdown::Both);
    }
}

impl Conn for std::os::unix::net::UnixStream {
    fn split(&self) -> std::io::Result<Box<dyn Conn>> {
        Ok(Box::new(self.try_clone()?))
    }
    fn close(&self) {
        let _ = self.shutdown(std::net::Shutdown::Both);
    }
}

/// Takes the next connection, with its peer's address (none on a unix
/// socket).
type Accept = dyn FnMut() -> std::io::Result<(Box<dyn Conn>, Option<std::net::IpAddr>)>;

/// Serve clients until killed (SIGINT ends it, exit 0, as fio's server).
/// Each connection is served in a child process of its own, forked before
/// any thread starts, as fio's server does: clients run side by side, and
/// one that stalls or breaks affects only its own process.
pub fn serve(arg: &str, prog: &str, policy: &Policy) -> Result<(), Failure> {
    let bind = parse_bind(arg).map_err(Failure::stderr)?;
    let (fd, mut accept) = listen(&bind)?;
    if let Some(n) = policy.notice() {
        daemon::log(n, true);
    }
    catch_sigint();
    loop {
        if INTERRUPTED.load(Ordering::SeqCst) {
            // fio's sig_int removes a unix socket's path.
            if let Bind::Unix(path) = &bind {
                let _ = std::fs::remove_file(path);
            }
            return Ok(());
        }
        // Reap the children of connections that ended.
        // SAFETY: waitpid with WNOHANG on our own children only.
        while unsafe { libc::waitpid(-1, std::ptr::null_mut(), libc::WNOHANG) } > 0 {}
        if !readable(fd) {
            continue;
        }
        let (c, peer) = match accept() {
            Ok(c) => c,
            Err(e) => {
                daemon::log(&format!("fio: accept: {e}\n"), true);
                std::thread::sleep(Duration::from_millis(100));
                continue;
            }
        };
        fork_for(c, fd, prog, policy, peer);
    }
}

/// Binds where `--server` says and says so (fio's line).
fn listen(bind: &Bind) -> Result<(i32, Box<Accept>), Failure> {
    use std::os::fd::AsRawFd;
    let err = |e: std::io::Error| Failure::stderr(format!("fio: bind: {e}\n"));
    Ok(match bind {
        Bind::Tcp(a) => {
            let l = std::net::TcpListener::bind(a).map_err(err)?;
            let local = l.local_addr().map_err(err)?;
            daemon::log(
                &format!("fio: server listening on {},{}\n", local.ip(), local.port()),
                false,
            );
            (
                l.as_raw_fd(),
                Box::new(move || {
                    l.accept()
                        .map(|(s, a)| (Box::new(s) as Box<dyn Conn>, Some(a.ip())))
                }),
            )
        }
        Bind::Unix(path) => {
            let _ = std::fs::remove_file(path);
            let l = std::os::unix::net::UnixListener::bind(path).map_err(err)?;
            daemon::log(&format!("fio: server listening on {path}\n"), false);
            (
                l.as_raw_fd(),
                Box::new(move || {
                    l.accept()
                        .map(|(s, _)| (Box::new(s) as Box<dyn Conn>, None))
                }),
            )
        }
    })
}

/// SIGINT seen by the listening process.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_sigint(_: libc::c_int) {
    INTERRUPTED.store(true, Ordering::SeqCst);
}

/// SIGINT ends the accept loop (SIGTERM keeps its default: fio's server
/// dies by it, leaving a daemon's pid file in place).
fn catch_sigint() {
    // SAFETY: an async-signal-safe handler (one atomic store), no
    // SA_RESTART so that poll returns.
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        let handler: extern "C" fn(libc::c_int) = on_sigint;
        sa.sa_sigaction = handler as libc::sighandler_t;
        libc::sigemptyset(&mut sa.sa_mask);
        libc::sigaction(libc::SIGINT, &sa, std::ptr::null_mut());
    }
}

/// Whether the listener has a connection within a second (fio's poll).
fn readable(fd: i32) -> bool {
    let mut pfd = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one live pollfd.
    let n = unsafe { libc::poll(&mut pfd, 1, 1000) };
    n > 0 && pfd.revents & libc::POLLIN != 0
}

/// Serves one connection in a child process (here when none can be made).
fn fork_for(
    c: Box<dyn Conn>,
    fd: i32,
    prog: &str,
    policy: &Policy,
    peer: Option<std::net::IpAddr>,
) {
    // SAFETY: the accept loop runs no other thread, so the child starts
    // with this one thread and a consistent heap.
    match unsafe { libc::fork() } {
        0 => {
            // SAFETY: the child drops the listener it will not use, takes
            // SIGINT's default back and dies with its parent (a killed
            // server leaves no orphans).
            unsafe {
                libc::close(fd);
                libc::signal(libc::SIGINT, libc::SIG_DFL);
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            }
            let code = match handle(c, prog, policy, peer) {
                Ok(()) => 0,
                Err(m) => {
                    daemon::log(&m, true);
                    1
                }
            };
            let _ = std::io::stdout().flush();
            // SAFETY: end the child without running the parent's exit
            // handlers twice.
            unsafe { libc::_exit(code) };
        }
        -1 => {
            // No child: serve this one here.
            if let Err(m) = handle(c, prog, policy, peer) {
                daemon::log(&m, true);
            }
        }
        _ => drop(c),
    }
}

/// What the reader thread passes on.
enum Incoming {
    Cmd(Command),
    /// The connection ended or sent bad bytes (the text says why).
    End(Option<String>),
}

fn read_commands(mut r: Box<dyn Conn>, tx: mpsc::Sender<Incoming>) {
    // A reassembled command is at most a job file; 64 MiB is plenty.
    let mut d = Decoder::new(64 << 20);
    let mut buf = vec![0u8; 64 << 10];
    loop {
        match d.next_command() {
            Ok(Some(c)) => {
                if tx.send(Incoming::Cmd(c)).is_err() {
                    return;
                }
                continue;
            }
            Ok(None) => {}
            Err(e) => {
                let _ = tx.send(Incoming::End(Some(format!("{e}\n"))));
                return;
            }
        }
        match r.read(&mut buf) {
            Ok(0) | Err(_) => {
                let _ = tx.send(Incoming::End(None));
                return;
            }
            Ok(n) => d.push(&buf[..n]),
        }
    }
}

fn now_text(text: &str) -> Vec<u8> {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    p::Text {
        level: p::LOG_INFO,
        log_sec: t.as_secs(),
        log_usec: u64::from(t.subsec_micros()),
        text: text.to_string(),
    }
    .encode()
}

/// The jobs a client sent, ready to run.
struct Parsed {
    plan: crate::cli::Plan,
    jobs: Vec<crate::job::Job>,
}

fn parse(prog: &str, args: &[String], job_text: &str) -> Result<Parsed, Failure> {
    static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = std::env::temp_dir().join(format!("rfio-server-{}-{n}.fio", std::process::id()));
    std::fs::write(&path, job_text)
        .map_err(|e| Failure::stderr(format!("fio: job file write: {e}\n")))?;
    let mut argv = vec![prog.to_string()];
    argv.extend(args.iter().cloned());
    argv.push(path.to_string_lossy().into_owned());
    let r = crate::plan::read_plan(&argv).and_then(|plan| {
        let jobs = crate::job::expand(&plan)?;
        crate::plan::validate(&jobs, false)?;
        Ok(Parsed { plan, jobs })
    });
    let _ = std::fs::remove_file(&path);
    r
}

/// Sends one command to the client.
type Sender<'a> = dyn FnMut(Op, u64, &[u8]) -> Result<(), String> + 'a;

/// One client, start to end; the connection is closed whatever happened.
fn handle(
    conn: Box<dyn Conn>,
    prog: &str,
    policy: &Policy,
    peer: Option<std::net::IpAddr>,
) -> Result<(), String> {
    let mut out = conn.split().map_err(|e| format!("fio: {e}\n"))?;
    let closer = out.split();
    let r = match policy.check_peer(peer) {
        Ok(()) => converse(conn, out, prog, policy),
        Err(why) => {
            daemon::log(&why, true);
            let r = refuse(
                &mut |op, tag, pdu| {
                    out.write_all(&p::encode(op, tag, pdu))
                        .map_err(|e| format!("fio: send: {e}\n"))
                },
                &why,
            );
            drain(conn);
            r
        }
    };
    if let Ok(c) = closer {
        c.close();
    }
    r
}

/// The refusal as the client shows an error: the text (each line gets its
/// `<host> `), a failing STOP and QUIT.
fn refuse(send: &mut Sender<'_>, text: &str) -> Result<(), String> {
    for l in text.split_inclusive('\n') {
        send(Op::Text, 0, &now_text(l))?;
    }
    send(
        Op::Stop,
        0,
        &p::Stop {
            error: 1,
            signal: 0,
        }
        .encode(),
    )?;
    send(Op::Quit, 0, &[])
}

/// After QUIT: wait (bounded) for the client to hang up before closing.
/// Closing with its last requests (SEND_ETA) unread would reset the
/// connection, and a reset makes the client's kernel drop the frames it
/// has not read yet: under load (64 servers on 2 CPUs) fio's client then
/// lost the report and said `disconnected`.
fn await_hangup(rx: &mpsc::Receiver<Incoming>) {
    let end = std::time::Instant::now() + Duration::from_secs(5);
    while let Some(left) = end.checked_duration_since(std::time::Instant::now()) {
        match rx.recv_timeout(left) {
            Ok(Incoming::Cmd(_)) => {}
            _ => return,
        }
    }
}

/// Reads what the client still sends until it hangs up (bounded), so that
/// its writes after a refusal do not meet a closed socket (SIGPIPE kills
/// fio's client).
fn drain(conn: Box<dyn Conn>) {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || read_commands(conn, tx));
    let end = std::time::Instant::now() + Duration::from_secs(10);
    while let Some(left) = end.checked_duration_since(std::time::Instant::now()) {
        match rx.recv_timeout(left) {
            Ok(Incoming::Cmd(_)) => {}
            _ => return,
        }
    }
}

/// A job file's text (from JOB, or read here for LOAD_FILE): parsed and
/// checked against the policy, its header lines and START sent; on failure
/// the error is sent and the conversation ends (None).
fn take_job(
    send: &mut Sender<'_>,
    prog: &str,
    policy: &Policy,
    args: &[String],
    text: Result<String, String>,
) -> Result<Option<Parsed>, String> {
    let checked = text
        .and_then(|t| policy.check_exec(&t, args).map(|()| t))
        .map_err(Failure::stderr)
        .and_then(|t| parse(prog, args, &t))
        .and_then(|pj| {
            policy
                .check_jobs(&pj.jobs)
                .map(|()| pj)
                .map_err(Failure::stderr)
        });
    match checked {
        Ok(pj) => {
            if pj.plan.program.normal {
                // One TEXT a line, as fio logs them: the client puts
                // `<host> ` before each.
                let lines = crate::job::header::job_lines(&pj.jobs);
                for l in lines.split_inclusive('\n') {
                    send(Op::Text, 0, &now_text(l))?;
                }
            }
            let start = p::Start {
                jobs: pj.jobs.len() as u32,
                stat_outputs: crate::result::unit_members(&pj.jobs).len() as u32,
            };
            send(Op::Start, 0, &start.encode())?;
            Ok(Some(pj))
        }
        Err(f) => {
            // Line by line (each gets its `<host> `), then the error, so
            // the client exits non-zero as with fio.
            for l in (f.stdout + &f.stderr).split_inclusive('\n') {
                send(Op::Text, 0, &now_text(l))?;
            }
            let stop = p::Stop {
                error: f.code.max(1) as u32,
                signal: 0,
            };
            send(Op::Stop, 0, &stop.encode())?;
            send(Op::Quit, 0, &[])?;
            Ok(None)
        }
    }
}

fn converse(
    conn: Box<dyn Conn>,
    mut out: Box<dyn Conn>,
    prog: &str,
    policy: &Policy,
) -> Result<(), String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || read_commands(conn, tx));
    let mut send = |op: Op, tag: u64, pdu: &[u8]| -> Result<(), String> {
        out.write_all(&p::encode(op, tag, pdu))
            .map_err(|e| format!("fio: send: {e}\n"))
    };
    let mut args: Vec<String> = Vec::new();
    let mut parsed: Option<Parsed> = None;
    loop {
        let cmd = match rx.recv() {
            Ok(Incoming::Cmd(c)) => c,
            Ok(Incoming::End(why)) => return why.map_or(Ok(()), Err),
            Err(_) => return Ok(()),
        };
        match cmd.op() {
            Some(Op::Probe) => {
                let probe = p::Probe::decode(&cmd.payload).map_err(|e| format!("{e}\n"))?;
                let reply = p::ProbeReply {
                    hostname: hostname(),
                    bigendian: 0,
                    fio_version: "fio-3.33".into(),
                    os: 1,
                    arch: 1,
                    bpp: std::mem::size_of::<usize>() as u8,
                    cpus: std::thread::available_parallelism().map_or(1, |n| n.get() as u32),
                    flags: probe.flags & p::PROBE_FLAG_ZLIB,
                };
                ZLIB.store(reply.flags != 0, Ordering::SeqCst);
                send(Op::Probe, cmd.tag, &reply.encode())?;
            }
            Some(Op::JobLine) => {
                let l = p::JobLine::decode(&cmd.payload).map_err(|e| format!("{e}\n"))?;
                args = l.args.into_iter().skip(1).collect();
            }
            Some(Op::Job) => {
                let j = p::JobFile::decode(&cmd.payload).map_err(|e| format!("{e}\n"))?;
                match take_job(&mut send, prog, policy, &args, Ok(j.text))? {
                    Some(pj) => parsed = Some(pj),
                    None => {
                        await_hangup(&rx);
                        return Ok(());
                    }
                }
            }
            Some(Op::LoadFile) => {
                // --remote-config: a job file on this side.
                let l = p::LoadFile::decode(&cmd.payload).map_err(|e| format!("{e}\n"))?;
                let text = policy
                    .check_path("job file", std::path::Path::new(&l.path))
                    .and_then(|()| {
                        std::fs::read_to_string(&l.path)
                            .map_err(|_| format!("fio: unable to open '{}' job file\n", l.path))
                    });
                match take_job(&mut send, prog, policy, &args, text)? {
                    Some(pj) => parsed = Some(pj),
                    None => {
                        await_hangup(&rx);
                        return Ok(());
                    }
                }
            }
            Some(Op::Run) => {
                let Some(pj) = parsed.take() else {
                    send(Op::Quit, 0, &[])?;
                    return Ok(());
                };
                run(&pj, &rx, &mut send)?;
                send(Op::Quit, 0, &[])?;
                await_hangup(&rx);
                return Ok(());
            }
            Some(Op::SendEta) => send(Op::Eta, cmd.tag, &p::JobsEta::default().encode())?,
            Some(Op::Quit) | Some(Op::Exit) => return Ok(()),
            // Commands a server does not act on here.
            Some(_) => {}
            None => return Err(format!("fio: unknown opcode: {}\n", cmd.opcode)),
        }
    }
}

fn hostname() -> String {
    let mut b = [0u8; 256];
    // SAFETY: gethostname writes at most len bytes into the buffer.
    let r = unsafe { libc::gethostname(b.as_mut_ptr().cast(), b.len()) };
    if r != 0 {
        return "localhost".into();
    }
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    String::from_utf8_lossy(&b[..end]).into_owned()
}

/// Runs the jobs while answering the client's ETA requests, then sends the
/// report.
fn run(pj: &Parsed, rx: &mpsc::Receiver<Incoming>, send: &mut Sender<'_>) -> Result<(), String> {
    let jobs = &pj.jobs;
    let normal = pj.plan.program.normal;
    if normal {
        let head = crate::report::normal::header(jobs);
        let lines = crate::job::header::job_lines(jobs);
        let starting = head[lines.len()..].trim_start_matches("fio-3.33\n");
        send(Op::Text, 0, &now_text(starting))?;
    }
    send(Op::ServerStart, 0, &[])?;
    let started = std::time::SystemTime::now();
    let disk_paths = disk_paths(jobs);
    let disk_before = diskstats::before(disk_paths.iter().map(|p| p.as_path()));
    // The jobs' value logs come back here, to go to the client (IOLOG).
    let (log_tx, log_rx) = mpsc::channel();
    crate::run::logs::job_logs::send_to_client(log_tx);
    let runs = run_jobs(jobs, normal, rx, send);
    rbench_common::stop::clear_request();
    let runs = runs?;
    while let Ok(l) = log_rx.try_recv() {
        send(Op::IoLog, 0, &iolog(&l))?;
    }
    let report = crate::result::build(
        jobs,
        &runs,
        &pj.plan.global_typed,
        pj.plan.program.json_plus,
        started,
    );
    send_job_options(&report, send)?;
    let error = send_unit_stats(jobs, &runs, &report, send)?;
    for g in &report.groups {
        send(Op::Gs, 0, &tsconv::group_stats(g).encode())?;
    }
    // Devices count only when some job got as far as running.
    if !runs.iter().all(|r| r.setup_failed) {
        for d in diskstats::after(&disk_before) {
            send(Op::Du, 0, &tsconv::disk_util(&d).encode())?;
        }
    }
    // fio's blank line after the group lines (disk stats would follow it).
    if normal {
        send(Op::Text, 0, &now_text("\n"))?;
    }
    let stop = p::Stop { error, signal: 0 };
    send(Op::Stop, 0, &stop.encode())?;
    Ok(())
}

/// The client asked for zlib in its PROBE (fio's clients do).
static ZLIB: AtomicBool = AtomicBool::new(false);

/// One log as fio's server sends it: the header (its log_offset and
/// log_prio left 0, as fio's), then the sample records deflated when the
/// client takes zlib, or a stored log's streams as they are.
fn iolog(l: &crate::run::logs::job_logs::SentLog) -> Vec<u8> {
    const XMIT_COMPRESSED: u32 = 1;
    const STORE_COMPRESSED: u32 = 2;
    let zlib = ZLIB.load(Ordering::SeqCst);
    let compressed = match (l.stored, zlib) {
        (true, _) => STORE_COMPRESSED,
        (false, true) => XMIT_COMPRESSED,
        (false, false) => 0,
    };
    let h = p::IoLogHeader {
        nr_samples: l.rows,
        thread_number: 0,
        log_type: l.log_type,
        compressed,
        log_offset: 0,
        log_prio: 0,
        log_hist_coarseness: 0,
        name: l.name.clone(),
    };
    let mut out = h.encode();
    if compressed == XMIT_COMPRESSED {
        out.extend_from_slice(&p::deflate(&l.bytes));
    } else {
        out.extend_from_slice(&l.bytes);
    }
    out
}

/// The files whose devices disk_util reports on.
fn disk_paths(jobs: &[Job]) -> Vec<std::path::PathBuf> {
    jobs.iter()
        .filter(|j| !crate::engine::traits(&j.engine).diskless && j.opts.flag("disk_util"))
        .flat_map(|j| j.filenames.iter().cloned())
        .collect()
}

/// Run the jobs on a thread of their own, forwarding their text to the
/// client and answering its commands meanwhile.
fn run_jobs(
    jobs: &[Job],
    normal: bool,
    rx: &mpsc::Receiver<Incoming>,
    send: &mut Sender<'_>,
) -> Result<Vec<crate::run::JobRun>, String> {
    let (ntx, nrx) = mpsc::channel::<String>();
    std::thread::scope(|s| -> Result<Vec<crate::run::JobRun>, String> {
        let h = s.spawn(move || {
            // The status thread keeps what ETA requests are answered with.
            crate::run::eta::keep_for_client();
            crate::run::run_all(jobs, Some(None), None, None, &mut |st, t| {
                if normal || st == crate::run::Stream::Stderr || t.starts_with("fio:") {
                    let _ = ntx.send(t.to_string());
                }
            })
        });
        loop {
            while let Ok(t) = nrx.try_recv() {
                send(Op::Text, 0, &now_text(&t))?;
            }
            if h.is_finished() {
                break;
            }
            answer_while_running(jobs, rx, send)?;
        }
        while let Ok(t) = nrx.try_recv() {
            send(Op::Text, 0, &now_text(&t))?;
        }
        h.join().map_err(|_| "fio: job runner failed\n".to_string())
    })
}

/// Wait a little for a client command and answer it: the ETA, or a quit.
fn answer_while_running(
    jobs: &[Job],
    rx: &mpsc::Receiver<Incoming>,
    send: &mut Sender<'_>,
) -> Result<(), String> {
    match rx.recv_timeout(Duration::from_millis(50)) {
        Ok(Incoming::Cmd(c)) if c.op() == Some(Op::SendEta) => {
            send(Op::Eta, c.tag, &running_eta(jobs).encode())?;
        }
        Ok(Incoming::Cmd(c)) if matches!(c.op(), Some(Op::Quit) | Some(Op::Exit)) => {
            // The client was interrupted: stop the jobs, as a
            // signal would, and send what ran.
            rbench_common::stop::request();
        }
        Ok(_) | Err(mpsc::RecvTimeoutError::Timeout) => {}
        Err(mpsc::RecvTimeoutError::Disconnected) => {}
    }
    Ok(())
}

/// The ETA of the jobs running, as fio's server fills it: their states,
/// rates, limits and times from the run's status; before its first tick,
/// all of them running with no rate or time known.
fn running_eta(jobs: &[Job]) -> p::JobsEta {
    let fmt = p::JobsEta {
        is_pow2: u32::from(jobs.iter().any(|j| j.kb_base.is_power_of_two())),
        unit_base: tsconv::n2s_unit(jobs.last().map_or(8, |j| j.reporting.unit_base)),
        sig_figs: jobs.last().map_or(4, |j| j.reporting.sig_figs as u32),
        ..Default::default()
    };
    match crate::run::eta::latest() {
        Some(st) => tsconv::jobs_eta(&st, fmt),
        None => starting_eta(jobs),
    }
}

/// Before the run's first status: all jobs running, nothing known.
fn starting_eta(jobs: &[Job]) -> p::JobsEta {
    let nr_jobs = jobs.len() as u32;
    p::JobsEta {
        nr_running: nr_jobs,
        nr_threads: nr_jobs,
        files_open: nr_jobs,
        run_str: "R".repeat(nr_jobs as usize),
        // fio's "unknown" (INT_MAX): the client prints no
        // rate or eta part.
        eta_sec: i32::MAX as u64,
        is_pow2: u32::from(jobs.first().is_none_or(|j| j.kb_base == 1024)),
        unit_base: tsconv::n2s_unit(jobs.first().map_or(8, |j| j.reporting.unit_base)),
        sig_figs: jobs.first().map_or(4, |j| j.reporting.sig_figs as u32),
        ..Default::default()
    }
}

/// Global options first, then each unit's options (JSON `job options`).
fn send_job_options(report: &crate::result::Report, send: &mut Sender<'_>) -> Result<(), String> {
    for (name, value) in &report.global_options {
        let o = p::JobOption {
            global: true,
            truncated: false,
            groupid: 0,
            name: name.clone(),
            value: value.clone(),
        };
        send(Op::JobOpt, 0, &o.encode())?;
    }
    for (u, unit) in report.units.iter().enumerate() {
        // fio numbers a unit's options by the unit's index while its client
        // looks them up by the unit's first job: past a group_reporting
        // unit of several jobs, later units show none (as with fio).
        for (name, value) in &unit.job_options {
            let o = p::JobOption {
                global: false,
                truncated: false,
                groupid: u as u32,
                name: name.clone(),
                value: value.clone(),
            };
            send(Op::JobOpt, 0, &o.encode())?;
        }
    }
    Ok(())
}

/// Each unit's thread stats; the first unit error, for the stop command.
fn send_unit_stats(
    jobs: &[Job],
    runs: &[crate::run::JobRun],
    report: &crate::result::Report,
    send: &mut Sender<'_>,
) -> Result<u32, String> {
    let members = crate::result::unit_members(jobs);
    let mut error = 0;
    for (u, unit) in report.units.iter().enumerate() {
        let st = crate::result::unit_stats(jobs, runs, members[u].clone());
        let group = report.groups.iter().find(|g| g.groupid == unit.groupid);
        let ts = tsconv::thread_stat(&jobs[members[u].start], members[u].start, &st, unit, group);
        if unit.error != 0 && error == 0 {
            error = unit.error as u32;
        }
        send(Op::Ts, 0, &ts.encode())?;
    }
    Ok(error)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bind_forms() {
        let tcp = |s: &str| Bind::Tcp(s.parse().unwrap());
        assert_eq!(parse_bind(""), Ok(tcp("0.0.0.0:8765")));
        assert_eq!(parse_bind("127.0.0.1,9000"), Ok(tcp("127.0.0.1:9000")));
        assert_eq!(parse_bind("ip:127.0.0.1"), Ok(tcp("127.0.0.1:8765")));
        assert_eq!(parse_bind("ip6:::1,9001"), Ok(tcp("[::1]:9001")));
        assert_eq!(parse_bind("ip6:,9001"), Ok(tcp("[::]:9001")));
        assert_eq!(
            parse_bind("sock:/tmp/fio.sock"),
            Ok(Bind::Unix("/tmp/fio.sock".into()))
        );
        assert!(parse_bind("127.0.0.1,notaport").is_err());
        assert!(parse_bind("127.0.0.1,70000").is_err());
    }
}
