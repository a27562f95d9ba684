//! `rfio --client`: fio's command-line client. Takes the hosts and their
//! job files from `hosts.rs`, connects to each server, sends the jobs,
//! prints what the servers send as fio's client prints it: the probe line,
//! server text prefixed `<host> `, each host's report when it quits, the
//! `All clients:` sum and the JSON document at the end.

use super::hosts::{parse_args, Host, Setup, Target};
use super::protocol::{self as p, Command, Decoder, Op};
use super::{cluster, view};
use crate::failure::Failure;
use crate::report::json::J;
use std::io::{Read, Write};
use std::time::{Duration, Instant};

/// Where the client is in its conversation (fio's `Client_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Connected,
    Started,
    Running,
    Stopped,
}

trait Conn: Read + Write {}
impl Conn for std::net::TcpStream {}
impl Conn for std::os::unix::net::UnixStream {}

/// One connected server.
struct Client {
    host: Host,
    conn: Box<dyn Conn>,
    fd: i32,
    decoder: Decoder,
    /// The server's hostname from its PROBE reply (the `<name>` prefix).
    name: Option<String>,
    state: State,
    skip_newline: bool,
    jobs: u32,
    opt_lists: Vec<Vec<(String, String)>>,
    error: u32,
    did_stat: bool,
    /// The report text, printed when the client goes (fio's client->buf).
    buf: String,
    eta_pending: bool,
}

/// What every client's reports add up to, and the output being built.
struct Run<'a> {
    setup: &'a Setup,
    out: Box<dyn Write>,
    sum_stat_clients: i64,
    sum_stat_nr: i64,
    sum_ts: p::ThreadStat,
    sum_gs: p::GroupRunStats,
    allclients: String,
    global_opts: Vec<(String, J)>,
    client_stats: Vec<J>,
    disk_util: Vec<J>,
    error_clients: u32,
    eta: Option<EtaRound>,
    eta_state: EtaState,
    /// The first summed host's percentile list and kinds (rfio's exact
    /// cluster percentiles).
    cluster: Option<cluster::Spec>,
}

/// ETA replies of one request round.
struct EtaRound {
    pending: usize,
    sum: p::JobsEta,
}

impl Run<'_> {
    fn say(&mut self, s: &str) {
        let _ = self.out.write_all(s.as_bytes());
        let _ = self.out.flush();
    }
}

/// `rfio --client ...`: the exit code.
pub fn main(args: &[String]) -> i32 {
    let setup = match parse_args(args) {
        Ok(s) => s,
        Err(f) => return emit_failure(f),
    };
    let out: Box<dyn Write> = match &setup.output {
        Some(path) => match std::fs::File::create(path) {
            Ok(f) => Box::new(f),
            Err(e) => {
                eprintln!("fio: unable to open '{path}' output file: {e}");
                return 1;
            }
        },
        None => Box::new(std::io::stdout()),
    };
    local_job_lines(&setup);
    install_signals();
    let mut clients = connect_all(&setup);
    if clients.is_empty() {
        return 1;
    }
    let mut run = Run {
        setup: &setup,
        out,
        sum_stat_clients: 0,
        sum_stat_nr: 0,
        sum_ts: p::ThreadStat::default(),
        sum_gs: p::GroupRunStats::default(),
        allclients: String::new(),
        global_opts: Vec::new(),
        client_stats: Vec::new(),
        disk_util: Vec::new(),
        error_clients: 0,
        eta: None,
        eta_state: EtaState::default(),
        cluster: None,
    };
    send_jobs(&mut run, &mut clients);
    if clients.is_empty() {
        return 1;
    }
    // fio's version line ends the reading of a command line with a job.
    if !setup.local_job.is_empty() && setup.normal {
        run.say("fio-3.33\n");
    }
    for c in &mut clients {
        let _ = send(c, Op::Run, 0, &[]);
    }
    let json_time = crate::result::ctime(std::time::SystemTime::now());
    let json_stamp = unix_now();
    let retval = serve_loop(&mut run, &mut clients);
    let all = std::mem::take(&mut run.allclients);
    run.say(&all);
    if setup.json {
        let doc = json_document(&mut run, &json_time, json_stamp);
        run.say(&doc);
    }
    i32::from(retval || run.error_clients > 0)
}

/// fio adds the command line's own job as it reads it (printing its line)
/// though no host gets it.
fn local_job_lines(setup: &Setup) {
    if setup.local_job.is_empty() || !setup.normal {
        return;
    }
    let mut argv = vec!["fio".to_string()];
    argv.extend(setup.local_job.iter().cloned());
    let lines = crate::plan::read_plan(&argv)
        .and_then(|plan| crate::job::expand(&plan))
        .map(|jobs| crate::job::header::job_lines(&jobs));
    if let Ok(l) = lines {
        print!("{l}");
        let _ = std::io::stdout().flush();
    }
}

fn emit_failure(f: Failure) -> i32 {
    print!("{}", f.stdout);
    eprint!("{}", f.stderr);
    let _ = std::io::stdout().flush();
    f.code
}

fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Connects every host in fio's order (the last given first) and sends
/// its PROBE and JOBLINE; a host that cannot be reached is dropped.
fn connect_all(setup: &Setup) -> Vec<Client> {
    use std::os::fd::AsRawFd;
    let mut out = Vec::new();
    for h in setup.hosts.iter().rev() {
        let conn: Result<(Box<dyn Conn>, i32), String> = match &h.target {
            Target::Tcp(a) => std::net::TcpStream::connect(a)
                .map(|s| {
                    let fd = s.as_raw_fd();
                    (Box::new(s) as Box<dyn Conn>, fd)
                })
                .map_err(|e| {
                    format!(
                        "fio: connect: {}\nfio: failed to connect to {}:{}\n",
                        strerror(&e),
                        h.hostname,
                        h.port
                    )
                }),
            Target::Unix(path) => std::os::unix::net::UnixStream::connect(path)
                .map(|s| {
                    let fd = s.as_raw_fd();
                    (Box::new(s) as Box<dyn Conn>, fd)
                })
                .map_err(|e| format!("fio: connect; {}\n", strerror(&e))),
        };
        let (conn, fd) = match conn {
            Ok(c) => c,
            Err(m) => {
                eprint!("{m}");
                continue;
            }
        };
        let mut c = Client {
            host: h.clone(),
            conn,
            fd,
            decoder: Decoder::new(64 << 20),
            name: None,
            state: State::Connected,
            skip_newline: false,
            jobs: 0,
            opt_lists: Vec::new(),
            error: 0,
            did_stat: false,
            buf: String::new(),
            eta_pending: false,
        };
        let server = match &h.target {
            Target::Tcp(a) => a.ip().to_string(),
            Target::Unix(_) => "sock".into(),
        };
        let probe = p::Probe {
            flags: p::PROBE_FLAG_ZLIB,
            server,
        };
        let mut ok = send(&mut c, Op::Probe, 1, &probe.encode()).is_ok();
        if ok && !h.argv.is_empty() {
            let mut args = vec!["fio".to_string()];
            args.extend(h.argv.iter().cloned());
            let line = p::JobLine {
                client_type: p::CLIENT_TYPE_CLI as u16,
                args,
            };
            ok = send(&mut c, Op::JobLine, 0, &line.encode()).is_ok();
        }
        if ok {
            out.push(c);
        }
    }
    out
}

fn strerror(e: &std::io::Error) -> String {
    match e.raw_os_error() {
        Some(n) => rbench_common::output::strerror(n),
        None => e.to_string(),
    }
}

fn send(c: &mut Client, op: Op, tag: u64, pdu: &[u8]) -> std::io::Result<()> {
    c.conn.write_all(&p::encode(op, tag, pdu))
}

/// Each client's own job files, or else the first shared one; a client
/// with none, or whose file cannot be read, is dropped.
fn send_jobs(run: &mut Run<'_>, clients: &mut Vec<Client>) {
    let mut k = 0;
    while k < clients.len() {
        let c = &mut clients[k];
        let files: Vec<(String, bool)> = if c.host.files.is_empty() {
            run.setup
                .shared
                .iter()
                .take(1)
                .map(|f| (f.clone(), false))
                .collect()
        } else {
            c.host.files.clone()
        };
        let ok = !files.is_empty() && files.iter().all(|(f, remote)| send_file(c, f, *remote));
        if ok {
            k += 1;
        } else {
            let c = clients.remove(k);
            remove(run, c);
        }
    }
}

fn send_file(c: &mut Client, path: &str, remote: bool) -> bool {
    if remote {
        let l = p::LoadFile {
            client_type: p::CLIENT_TYPE_CLI as u16,
            path: path.to_string(),
        };
        return send(c, Op::LoadFile, 0, &l.encode()).is_ok();
    }
    match std::fs::read(path) {
        Ok(bytes) => {
            // NUL-terminated, as fio's client sends it.
            let mut text = String::from_utf8_lossy(&bytes).into_owned();
            text.push('\0');
            let j = p::JobFile {
                client_type: p::CLIENT_TYPE_CLI,
                text,
            };
            send(c, Op::Job, 0, &j.encode()).is_ok()
        }
        Err(e) => {
            eprintln!("fio: job file <{path}> open: {}", strerror(&e));
            false
        }
    }
}

/// The client leaves: its report is printed (fio's `fio_put_client`).
fn remove(run: &mut Run<'_>, c: Client) {
    let buf = c.buf;
    run.say(&buf);
    if !c.did_stat {
        run.sum_stat_clients -= 1;
    }
    if c.error != 0 {
        run.error_clients += 1;
    }
}

/// fio's `fio_handle_clients`: poll every server, handle what each sends,
/// ask for ETAs; true when a server went away or reported an error.
fn serve_loop(run: &mut Run<'_>, clients: &mut Vec<Client>) -> bool {
    let mut retval = false;
    let mut last_eta = Instant::now();
    let mut quits_sent = 0;
    let mut buf = vec![0u8; 64 << 10];
    while !clients.is_empty() {
        let signals = SIGNALS.load(std::sync::atomic::Ordering::SeqCst);
        if signals > quits_sent {
            // fio's client sends every server a QUIT on each signal: the
            // servers stop their jobs and send what ran.
            quits_sent = signals;
            for c in clients.iter_mut() {
                let _ = send(c, Op::Quit, 0, &[]);
            }
        }
        if last_eta.elapsed() >= Duration::from_millis(1000) {
            last_eta = Instant::now();
            request_etas(run, clients);
        }
        let mut pfds: Vec<libc::pollfd> = clients
            .iter()
            .map(|c| libc::pollfd {
                fd: c.fd,
                events: libc::POLLIN,
                revents: 0,
            })
            .collect();
        // SAFETY: pfds is a live array of pollfd of the given length.
        let n = unsafe { libc::poll(pfds.as_mut_ptr(), pfds.len() as libc::nfds_t, 100) };
        if n <= 0 {
            continue;
        }
        let mut gone = Vec::new();
        for (k, pfd) in pfds.iter().enumerate() {
            if pfd.revents == 0 {
                continue;
            }
            match pump(run, &mut clients[k], &mut buf) {
                Flow::More => {
                    if clients[k].error != 0 {
                        retval = true;
                    }
                }
                Flow::Quit => gone.push(k),
                Flow::Lost(why) => {
                    if let Some(w) = why {
                        eprint!("{w}");
                    }
                    let h = clients[k].host.hostname.clone();
                    run.say(&format!("client: host={h} disconnected\n"));
                    retval = true;
                    gone.push(k);
                }
            }
        }
        for k in gone.into_iter().rev() {
            let c = clients.remove(k);
            if c.eta_pending {
                eta_reply(run, None);
            }
            remove(run, c);
        }
    }
    retval
}

/// SIGINT and SIGTERM seen; each one asks the servers to quit.
static SIGNALS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

extern "C" fn on_signal(_: libc::c_int) {
    SIGNALS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
}

fn install_signals() {
    // The handler only adds to an atomic: fio's client never exits on a
    // second signal.
    rbench_common::stop::install_handler(on_signal);
}

enum Flow {
    More,
    Quit,
    Lost(Option<String>),
}

/// Reads what is there and handles every whole command in it.
fn pump(run: &mut Run<'_>, c: &mut Client, buf: &mut [u8]) -> Flow {
    match c.conn.read(buf) {
        Ok(0) | Err(_) => return Flow::Lost(None),
        Ok(n) => c.decoder.push(&buf[..n]),
    }
    loop {
        match c.decoder.next_command() {
            Ok(Some(cmd)) => {
                if let Some(f) = handle(run, c, cmd) {
                    return f;
                }
            }
            Ok(None) => return Flow::More,
            Err(e) => return Flow::Lost(Some(format!("{e}\n"))),
        }
    }
}

/// One command from a server; `Some` when the conversation ends.
fn handle(run: &mut Run<'_>, c: &mut Client, cmd: Command) -> Option<Flow> {
    let bad = |e: p::ProtoError| Some(Flow::Lost(Some(format!("{e}\n"))));
    match cmd.op() {
        Some(Op::Quit) => return Some(Flow::Quit),
        Some(Op::Text) => match p::Text::decode(&cmd.payload) {
            Ok(t) => text(run, c, &t.text),
            Err(e) => return bad(e),
        },
        Some(Op::Probe) => match p::ProbeReply::decode(&cmd.payload) {
            Ok(r) => probe(run, c, &r),
            Err(e) => return bad(e),
        },
        Some(Op::Start) => match p::Start::decode(&cmd.payload) {
            Ok(s) => {
                c.state = State::Started;
                c.jobs = s.jobs;
                c.opt_lists = vec![Vec::new(); s.jobs as usize];
                run.sum_stat_clients += i64::from(s.stat_outputs);
            }
            Err(e) => return bad(e),
        },
        Some(Op::ServerStart) => c.state = State::Running,
        Some(Op::JobOpt) => match p::JobOption::decode(&cmd.payload) {
            Ok(o) => job_opt(run, c, o),
            Err(e) => return bad(e),
        },
        Some(Op::Ts) => match p::ThreadStat::decode(&cmd.payload) {
            Ok(ts) => thread_status(run, c, ts),
            Err(e) => return bad(e),
        },
        Some(Op::Gs) => match p::GroupRunStats::decode(&cmd.payload) {
            Ok(g) => {
                if run.setup.normal {
                    crate::report::normal::group_block(&mut c.buf, &view::group(&g));
                }
            }
            Err(e) => return bad(e),
        },
        Some(Op::Du) => match p::DiskUtil::decode(&cmd.payload) {
            Ok(d) => disk_util(run, c, &d),
            Err(e) => return bad(e),
        },
        Some(Op::Stop) => match p::Stop::decode(&cmd.payload) {
            Ok(s) => {
                c.state = State::Stopped;
                c.error = s.error;
                if s.error != 0 {
                    let m = format!(
                        "client <{}>: exited with error {}\n",
                        c.host.hostname, s.error
                    );
                    run.say(&m);
                }
            }
            Err(e) => return bad(e),
        },
        Some(Op::Eta) => {
            if c.eta_pending {
                c.eta_pending = false;
                eta_reply(run, p::JobsEta::decode(&cmd.payload).ok());
            }
        }
        Some(Op::IoLog) => iolog(c, &cmd.payload),
        // Triggers and gfio's job updates: not kept by this client.
        Some(Op::AddJob) | Some(Op::UpdateJob) | Some(Op::VTrigger) => {}
        Some(o) => eprintln!("fio: unknown client op: {}", o.name()),
        None => eprintln!("fio: unknown client op: {}", cmd.opcode),
    }
    None
}

/// IOLOG: a job's log, written here as `NAME.HOST` (fio's client): rows
/// as text, a log stored compressed (`log_store_compressed`) as it came.
/// fio's server may end the command early (an empty fragment ends a
/// command, and its deflate output can be empty): the stream is inflated
/// as far as it goes, as fio's client does, and a fragment too short to
/// be a log is dropped. Histogram logs are not written.
fn iolog(c: &Client, payload: &[u8]) {
    const XMIT_COMPRESSED: u32 = 1;
    const STORE_COMPRESSED: u32 = 2;
    const LOG_TYPE_HIST: u32 = 6;
    let Ok((h, samples)) = p::IoLogHeader::decode(payload) else {
        return;
    };
    if h.log_type == LOG_TYPE_HIST && h.compressed != STORE_COMPRESSED {
        return;
    }
    use crate::run::logs::logzip;
    let bytes = match h.compressed {
        STORE_COMPRESSED => samples.to_vec(),
        z => {
            let mut raw = if z == XMIT_COMPRESSED {
                logzip::inflate_raw(samples)
            } else {
                samples.to_vec()
            };
            // fio's client sizes the rows as nr_samples plain records (32
            // bytes): with log_offset's 40-byte rows it writes fewer.
            raw.truncate((h.nr_samples as usize).saturating_mul(32));
            logzip::samples_text(&raw).into_bytes()
        }
    };
    let path = format!("{}.{}", h.name, c.host.hostname);
    if let Err(e) = std::fs::write(&path, bytes) {
        eprintln!("fio: fopen log {path} : {}", strerror(&e));
    }
}

fn probe(run: &mut Run<'_>, c: &mut Client, r: &p::ProbeReply) {
    if run.setup.normal {
        let os = if r.os == 1 { "Linux" } else { "unknown" };
        let arch = match r.arch {
            1 => "x86-64",
            _ => "unknown",
        };
        let line = format!(
            "hostname={}, be={}, {}-bit, os={os}, arch={arch}, fio={}, flags={:x}\n",
            r.hostname,
            r.bigendian,
            u32::from(r.bpp) * 8,
            r.fio_version,
            r.flags
        );
        run.say(&line);
    }
    if c.name.is_none() {
        c.name = Some(r.hostname.clone());
    }
}

fn text(run: &mut Run<'_>, c: &mut Client, t: &str) {
    let mut s = String::new();
    if !c.skip_newline && !run.setup.terse {
        let name = c.name.as_deref().unwrap_or(&c.host.hostname);
        s = format!("<{name}> ");
    }
    s.push_str(t);
    run.say(&s);
    c.skip_newline = !t.contains('\n');
}

fn job_opt(run: &mut Run<'_>, c: &mut Client, o: p::JobOption) {
    if o.global {
        if run.setup.json {
            run.global_opts.push((o.name, J::Str(o.value)));
        }
    } else if let Some(list) = c.opt_lists.get_mut(o.groupid as usize) {
        list.push((o.name, o.value));
    }
}

fn client_info(obj: &mut J, c: &Client) {
    if let J::Obj(e) = obj {
        e.push(("hostname".into(), J::Str(c.host.hostname.clone())));
        e.push(("port".into(), J::Int(i64::from(c.host.port))));
    }
}

/// One unit's JSON object as fio's client writes it: no eta or elapsed.
fn unit_json(u: &crate::result::UnitReport, plus: bool) -> J {
    let mut j = crate::report::json::unit(u, plus);
    if let J::Obj(e) = &mut j {
        e.retain(|(k, _)| k != "eta" && k != "elapsed");
    }
    j
}

fn thread_status(run: &mut Run<'_>, c: &mut Client, ts: p::ThreadStat) {
    let opts = match ts.thread_number {
        n if n >= 1 && n <= c.jobs => c.opt_lists.get(n as usize - 1).cloned().unwrap_or_default(),
        _ => Vec::new(),
    };
    let when = crate::result::ctime(std::time::SystemTime::now());
    let plus = run.setup.json_plus;
    let u = view::unit(&ts, opts, plus, &when);
    show(run.setup, &u, &mut c.buf);
    terse(run.setup, &u, &mut c.buf);
    if run.setup.json {
        let mut j = unit_json(&u, plus);
        client_info(&mut j, c);
        run.client_stats.push(j);
    }
    c.did_stat = true;
    if run.sum_stat_clients <= 1 {
        return;
    }
    view::sum_into(&mut run.sum_ts, &ts);
    view::sum_group(&mut run.sum_gs, &ts.rs);
    if run.cluster.is_none() {
        run.cluster = Some(cluster::Spec::of(&ts));
    }
    run.sum_ts.members += 1;
    run.sum_ts.thread_number = ts.thread_number;
    run.sum_ts.groupid = ts.groupid;
    run.sum_ts.unified_rw_rep = ts.unified_rw_rep;
    run.sum_ts.sig_figs = ts.sig_figs;
    run.sum_stat_nr += 1;
    if run.sum_stat_nr == run.sum_stat_clients {
        let mut all = std::mem::take(&mut run.sum_ts);
        all.name = "All clients".into();
        all.rs = run.sum_gs;
        let u = view::unit(&all, Vec::new(), plus, &when);
        let exact = run.cluster.as_ref().map(|s| cluster::unit(&all, s, plus));
        let mut text = String::new();
        show(run.setup, &u, &mut text);
        if let (Some(e), true) = (&exact, run.setup.normal && !text.is_empty()) {
            text.push_str(&cluster::text(e));
        }
        terse(run.setup, &u, &mut text);
        run.allclients.push_str(&text);
        if run.setup.json {
            let mut j = unit_json(&u, plus);
            client_info(&mut j, c);
            if let (J::Obj(e), Some(x)) = (&mut j, &exact) {
                e.push((cluster::JSON_KEY.into(), cluster::json(x)));
            }
            run.client_stats.push(j);
        }
    }
}

/// fio's `show_thread_status` in normal output: nothing for a unit that
/// moved nothing.
fn show(setup: &Setup, u: &crate::result::UnitReport, buf: &mut String) {
    if !setup.normal {
        return;
    }
    let issued: u64 = u.issued[..3].iter().sum();
    let bytes: u64 = u.dirs.iter().map(|d| d.io_bytes).sum();
    if issued == 0 && bytes == 0 {
        return;
    }
    crate::report::normal::unit_block(buf, u);
}

/// The unit's terse line.
fn terse(setup: &Setup, u: &crate::result::UnitReport, buf: &mut String) {
    if !setup.terse {
        return;
    }
    let pct: Vec<f64> = u
        .dirs
        .iter()
        .find_map(|d| d.clat.percentiles.as_ref().or(d.lat.percentiles.as_ref()))
        .map(|p| p.iter().map(|x| x.0).collect())
        .unwrap_or_default();
    let r = crate::result::Report {
        timestamp: 0,
        timestamp_ms: 0,
        time: String::new(),
        global_options: Vec::new(),
        units: vec![u.clone()],
        groups: Vec::new(),
    };
    buf.push_str(&crate::report::terse::render(
        &r,
        setup.terse_version,
        &pct,
        &[],
    ));
}

fn disk_util(run: &mut Run<'_>, c: &mut Client, d: &p::DiskUtil) {
    let util = if d.msec == 0 {
        0.0
    } else {
        (100.0 * d.io_ticks as f64 / d.msec as f64).min(100.0)
    };
    let r = crate::run::files::diskstats::DiskReport {
        name: d.name.clone(),
        read_ios: d.ios[0],
        write_ios: d.ios[1],
        read_merges: d.merges[0],
        write_merges: d.merges[1],
        read_ticks: d.ticks[0],
        write_ticks: d.ticks[1],
        in_queue: d.time_in_queue,
        util,
    };
    if run.setup.json {
        if let Some(J::Arr(mut v)) = crate::report::disk_json(std::slice::from_ref(&r)) {
            if let Some(mut j) = v.pop() {
                client_info(&mut j, c);
                run.disk_util.push(j);
            }
        }
    }
    if run.setup.terse && run.setup.terse_version >= 3 {
        let t = format!(
            ";{};{};{};{};{};{};{};{};{:3.2}%\n",
            r.name,
            r.read_ios,
            r.write_ios,
            r.read_merges,
            r.write_merges,
            r.read_ticks,
            r.write_ticks,
            r.in_queue,
            r.util
        );
        c.buf.push_str(&t);
    }
    if run.setup.normal {
        c.buf.push_str("\nDisk stats (read/write):\n");
        c.buf
            .push_str(&crate::report::disk_lines(std::slice::from_ref(&r)));
    }
}

fn request_etas(run: &mut Run<'_>, clients: &mut [Client]) {
    if run.setup.eta_never || run.eta.is_some() {
        return;
    }
    let mut round = EtaRound {
        pending: 0,
        sum: p::JobsEta::default(),
    };
    for c in clients.iter_mut().filter(|c| c.state == State::Running) {
        if send(c, Op::SendEta, 2, &[]).is_ok() {
            c.eta_pending = true;
            round.pending += 1;
        }
    }
    if round.pending > 0 {
        run.eta = Some(round);
    }
}

/// One server's ETA (or its loss); the line is shown when the round is in.
fn eta_reply(run: &mut Run<'_>, je: Option<p::JobsEta>) {
    let Some(round) = run.eta.as_mut() else {
        return;
    };
    if let Some(je) = je {
        sum_eta(&mut round.sum, &je);
    }
    round.pending -= 1;
    if round.pending == 0 {
        let sum = run.eta.take().map(|r| r.sum).unwrap_or_default();
        if !run.setup.json {
            let line = eta_line(&sum, &mut run.eta_state);
            run.say(&line);
        }
    }
}

fn sum_eta(dst: &mut p::JobsEta, je: &p::JobsEta) {
    dst.nr_running += je.nr_running;
    dst.nr_ramp += je.nr_ramp;
    dst.nr_pending += je.nr_pending;
    dst.nr_setting_up += je.nr_setting_up;
    dst.files_open += je.files_open;
    for d in 0..3 {
        dst.m_rate[d] += je.m_rate[d];
        dst.t_rate[d] += je.t_rate[d];
        dst.m_iops[d] += je.m_iops[d];
        dst.t_iops[d] += je.t_iops[d];
        dst.rate[d] += je.rate[d];
        dst.iops[d] += je.iops[d];
    }
    dst.elapsed_sec += je.elapsed_sec;
    dst.eta_sec = dst.eta_sec.max(je.eta_sec);
    dst.nr_threads += je.nr_threads;
    // fio's sum keeps is_pow2, unit_base and sig_figs at 0: its client
    // prints rates as plain SI numbers (`r=15.9G`) and limits as `0B/s`.
    dst.run_str = je.run_str.clone();
}

/// What `display_thread_status` keeps between lines.
#[derive(Default)]
struct EtaState {
    /// A percentage was shown once (then 0 s left shows 100.0%).
    good: bool,
    /// The last line's length: a shorter one is padded over it.
    last_len: usize,
}

/// num2str's unit from its number (fio's `N2S_*`).
fn n2s_unit(n: u32) -> rbench_common::units::fio::N2sUnit {
    use rbench_common::units::fio::N2sUnit::*;
    match n {
        1 => PerSec,
        2 => Byte,
        3 => Bit,
        4 => BytePerSec,
        5 => BitPerSec,
        _ => None,
    }
}

/// fio's `display_thread_status` line, ending in `\r`.
fn eta_line(je: &p::JobsEta, st: &mut EtaState) -> String {
    use rbench_common::units::fio::{num2str, N2sUnit};
    let mut s = format!("Jobs: {} (f={})", je.nr_running, je.files_open);
    let pow2 = je.is_pow2 != 0;
    let sig = je.sig_figs as usize;
    let sum = |v: &[u64; 3]| v.iter().sum::<u64>();
    let sum32 = |v: &[u32; 3]| v.iter().map(|&x| u64::from(x)).sum::<u64>();
    if sum(&je.m_rate) > 0 || sum(&je.t_rate) > 0 {
        let r = |v| num2str(v, sig, 1, pow2, N2sUnit::BytePerSec);
        s.push_str(&format!(", {}-{}", r(sum(&je.m_rate)), r(sum(&je.t_rate))));
    } else if sum32(&je.m_iops) > 0 || sum32(&je.t_iops) > 0 {
        s.push_str(&format!(
            ", {}-{} IOPS",
            sum32(&je.m_iops),
            sum32(&je.t_iops)
        ));
    }
    // fio's INT_MAX: unknown, no progress part.
    let unknown = je.eta_sec as u32 == i32::MAX as u32;
    if !unknown && je.nr_running > 0 {
        let perc_str = if (je.eta_sec == 0 && !st.good)
            || je.nr_ramp == je.nr_running
            || je.eta_sec as u32 == u32::MAX
        {
            "-.-%".to_string()
        } else {
            let mut perc = if je.elapsed_sec > 0 {
                je.elapsed_sec as f64 / (je.elapsed_sec + je.eta_sec) as f64
            } else {
                0.0
            };
            let mut mult = 100.0;
            if je.nr_setting_up > 0 {
                mult *= 1.0 - f64::from(je.nr_setting_up) / f64::from(je.nr_running);
            }
            st.good = true;
            perc *= mult;
            format!("{perc:3.1}%")
        };
        let mut l = format!(": [{}][{perc_str}]", je.run_str);
        let has: Vec<usize> = (0..3)
            .filter(|&d| je.rate[d] != 0 || je.iops[d] != 0)
            .collect();
        if !has.is_empty() {
            let c = ['r', 'w', 't'];
            let unit = n2s_unit(je.unit_base);
            let part = |f: &dyn Fn(usize) -> String| {
                has.iter()
                    .map(|&d| format!("{}={}", c[d], f(d)))
                    .collect::<Vec<_>>()
                    .join(",")
            };
            let rate = part(&|d| num2str(je.rate[d], 4, 1024, pow2, unit));
            let iops = part(&|d| num2str(u64::from(je.iops[d]), 4, 1, false, N2sUnit::None));
            l.push_str(&format!("[{rate}][{iops} IOPS]"));
        }
        l.push_str(&format!("[eta {}]", crate::run::eta::eta_text(je.eta_sec)));
        s.push_str(&l);
        if s.len() < st.last_len {
            s.push_str(&" ".repeat(st.last_len - s.len()));
        }
        st.last_len = s.len();
    }
    s.push('\r');
    s
}

/// The JSON document fio's client prints at the end.
fn json_document(run: &mut Run<'_>, time: &str, stamp: u64) -> String {
    let doc = J::Obj(vec![
        ("fio version".into(), J::Str("fio-3.33".into())),
        ("timestamp".into(), J::UInt(stamp)),
        ("time".into(), J::Str(time.to_string())),
        (
            "global options".into(),
            J::Obj(std::mem::take(&mut run.global_opts)),
        ),
        (
            "client_stats".into(),
            J::Arr(std::mem::take(&mut run.client_stats)),
        ),
        (
            "disk_util".into(),
            J::Arr(std::mem::take(&mut run.disk_util)),
        ),
    ]);
    format!("\n{}\n", doc.render())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eta_line_as_fio_draws_it() {
        let mut st = EtaState::default();
        let je = p::JobsEta {
            nr_running: 1,
            files_open: 1,
            eta_sec: i32::MAX as u64,
            ..Default::default()
        };
        assert_eq!(eta_line(&je, &mut st), "Jobs: 1 (f=1)\r");
        let je = p::JobsEta {
            nr_running: 1,
            files_open: 1,
            elapsed_sec: 1,
            eta_sec: 1,
            // KiB/s, as fio keeps it: num2str starts from base 1024.
            rate: [2_000_000, 0, 0],
            iops: [500_000, 0, 0],
            run_str: "R".into(),
            ..Default::default()
        };
        assert_eq!(
            eta_line(&je, &mut st),
            "Jobs: 1 (f=1): [R][50.0%][r=2000M][r=500k IOPS][eta 00m:01s]\r"
        );
        // Shorter than the last: padded over it.
        let je = p::JobsEta {
            nr_running: 1,
            files_open: 1,
            elapsed_sec: 2,
            eta_sec: 0,
            run_str: "R".into(),
            ..Default::default()
        };
        let l = eta_line(&je, &mut st);
        assert!(
            l.starts_with("Jobs: 1 (f=1): [R][100.0%][eta 00m:00s]   "),
            "{l:?}"
        );
        assert_eq!(
            l.len(),
            "Jobs: 1 (f=1): [R][50.0%][r=2000M][r=500k IOPS][eta 00m:01s]\r".len()
        );
    }
}
