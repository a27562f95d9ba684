//! Command-line options: the table, the getopt work-alike, and the settings
//! they produce, validated with iperf3 3.12's rules and messages (spec §4).

pub mod getopt;
pub mod man;
pub mod table;

use crate::protocol::Protocol;
use rbench_common::units::iperf::{is_format_letter, parse_rate, parse_size};
use table::Opt;

pub const MAX_TIME: i64 = 86400;
pub const MAX_STREAMS: i64 = 128;
pub const MAX_BLOCKSIZE: i64 = 1024 * 1024;
pub const MAX_TCP_BUFFER: i64 = 512 * 1024 * 1024;
pub const MAX_UDP_BLOCKSIZE: i64 = 65507;
pub const MIN_UDP_BLOCKSIZE: i64 = 16;
pub const MAX_BURST: i64 = 1000;
pub const MAX_MSS: i64 = 9 * 1024;
pub const DEFAULT_TCP_BLKSIZE: i64 = 128 * 1024;
/// 3.12's default -l for --sctp.
pub const DEFAULT_SCTP_BLKSIZE: i64 = 64 * 1024;
pub const DEFAULT_UDP_RATE: u64 = 1024 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Client,
    Server,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OutputKind {
    #[default]
    Text,
    Json,
    JsonStream,
    Csv,
}

/// Everything the command line sets.
#[derive(Debug, Clone)]
pub struct Config {
    pub role: Role,
    pub host: String,
    pub port: u16,
    pub format: char,
    pub interval: f64,
    pub pidfile: Option<String>,
    /// `-F`: send this file / write what arrives to it (TCP).
    pub file: Option<String>,
    pub affinity: Option<usize>,
    pub server_affinity: Option<i64>,
    pub bind: Option<String>,
    pub bind_dev: Option<String>,
    /// The most streams a client may ask for and a server accepts.
    pub max_parallel: i64,
    pub verbose: bool,
    pub output: OutputKind,
    /// Lines 3.12 prints to stdout while it parses the command line.
    pub notices: Vec<String>,
    /// 3.12's `warning: …` lines (stderr) about flags that clash.
    pub warnings: Vec<String>,
    pub logfile: Option<String>,
    pub forceflush: bool,
    pub timestamps: Option<String>,
    pub rcv_timeout_ms: u64,
    pub snd_timeout_ms: Option<u64>,
    pub debug: u8,
    pub daemon: bool,
    pub one_off: bool,
    pub idle_timeout: Option<u64>,
    /// `--server-bitrate-limit`: bit/s over all streams (0 = none) and the
    /// seconds it is averaged over.
    pub server_bitrate_limit: u64,
    pub bitrate_limit_interval: f64,
    pub protocol: Protocol,
    pub connect_timeout_ms: Option<u64>,
    pub rate: u64,
    pub rate_set: bool,
    pub burst: i64,
    pub pacing_timer: i64,
    pub fqrate: u64,
    pub duration: i64,
    pub bytes: u64,
    pub blocks: u64,
    /// 0 = protocol default (UDP: chosen after connecting).
    pub blksize: i64,
    pub cport: u16,
    pub parallel: i64,
    pub reverse: bool,
    pub bidir: bool,
    pub window: i64,
    pub congestion: Option<String>,
    pub mss: i64,
    pub nodelay: bool,
    pub ipv4_only: bool,
    pub ipv6_only: bool,
    pub tos: i64,
    pub flowlabel: i64,
    pub zerocopy: bool,
    pub omit: i64,
    pub title: Option<String>,
    pub extra_data: Option<String>,
    pub get_server_output: bool,
    pub udp_counters_64bit: bool,
    pub repeating_payload: bool,
    pub dont_fragment: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            role: Role::Client,
            host: String::new(),
            port: 5201,
            format: 'a',
            interval: 1.0,
            pidfile: None,
            file: None,
            affinity: None,
            server_affinity: None,
            bind: None,
            bind_dev: None,
            max_parallel: MAX_STREAMS,
            verbose: false,
            output: OutputKind::Text,
            notices: Vec::new(),
            warnings: Vec::new(),
            logfile: None,
            forceflush: false,
            timestamps: None,
            rcv_timeout_ms: 120_000,
            snd_timeout_ms: None,
            debug: 0,
            daemon: false,
            one_off: false,
            idle_timeout: None,
            server_bitrate_limit: 0,
            bitrate_limit_interval: 5.0,
            protocol: Protocol::Tcp,
            connect_timeout_ms: None,
            rate: 0,
            rate_set: false,
            burst: 0,
            pacing_timer: 1000,
            fqrate: 0,
            duration: 10,
            bytes: 0,
            blocks: 0,
            blksize: 0,
            cport: 0,
            parallel: 1,
            reverse: false,
            bidir: false,
            window: 0,
            congestion: None,
            mss: 0,
            nodelay: false,
            ipv4_only: false,
            ipv6_only: false,
            tos: 0,
            flowlabel: 0,
            zerocopy: false,
            omit: 0,
            title: None,
            extra_data: None,
            get_server_output: false,
            udp_counters_64bit: false,
            repeating_payload: false,
            dont_fragment: false,
        }
    }
}

/// What the command line asks for.
#[derive(Debug)]
pub enum Command {
    Run(Box<Config>),
    Help,
    Version,
}

/// Why the command line was refused; `main` prints each kind as iperf3 does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UsageError {
    /// getopt's own complaint: message + usage on stderr.
    Getopt(String),
    /// `iperf3: parameter error - <msg>` + usage on stdout.
    Parameter(String),
    /// `iperf3: error - <msg>` without usage.
    Fatal(String),
}

/// C's `atoi`: leading blanks, sign, digits; anything else stops it.
pub fn atoi(s: &str) -> i64 {
    let t = s.trim_start();
    let (neg, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let mut n: i64 = 0;
    for c in digits.bytes() {
        if !c.is_ascii_digit() {
            break;
        }
        n = n.saturating_mul(10).saturating_add((c - b'0') as i64);
    }
    if neg {
        -n
    } else {
        n
    }
}

/// C's `strtol(s, NULL, 0)`: decimal, `0` octal or `0x` hex.
fn strtol0(s: &str) -> Option<i64> {
    let t = s.trim();
    if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        i64::from_str_radix(h, 16).ok()
    } else if t.len() > 1 && t.starts_with('0') {
        i64::from_str_radix(&t[1..], 8).ok()
    } else {
        t.parse().ok()
    }
}

/// C's `strtol(s, &end, 0)` where only `end != s` is checked: the number
/// at the start of `s` (blanks, a sign, `0x`/`0` prefixes as base 0 reads
/// them), whatever follows; `None` when no digit starts it.
fn strtol0_prefix(s: &str) -> Option<i64> {
    let t = s.trim_start();
    let (neg, t) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let b = t.as_bytes();
    let (radix, digits) = if b.len() > 2
        && b[0] == b'0'
        && (b[1] | 0x20) == b'x'
        && (b[2] as char).is_ascii_hexdigit()
    {
        (16, &t[2..])
    } else if b.first() == Some(&b'0') {
        (8, t)
    } else {
        (10, t)
    };
    let n = digits
        .chars()
        .take_while(|c| c.is_digit(radix))
        .map(|c| c.to_digit(radix).unwrap_or(0) as i64);
    let mut value: Option<i64> = None;
    for d in n {
        value = Some(
            value
                .unwrap_or(0)
                .saturating_mul(radix as i64)
                .saturating_add(d),
        );
    }
    value.map(|v| if neg { -v } else { v })
}

fn dscp_value(s: &str) -> Option<i64> {
    let names = [
        ("cs0", 0),
        ("cs1", 8),
        ("cs2", 16),
        ("cs3", 24),
        ("cs4", 32),
        ("cs5", 40),
        ("cs6", 48),
        ("cs7", 56),
        ("af11", 10),
        ("af12", 12),
        ("af13", 14),
        ("af21", 18),
        ("af22", 20),
        ("af23", 22),
        ("af31", 26),
        ("af32", 28),
        ("af33", 30),
        ("af41", 34),
        ("af42", 36),
        ("af43", 38),
        ("ef", 46),
        ("va", 44),
        ("le", 1),
    ];
    let l = s.to_ascii_lowercase();
    names
        .iter()
        .find(|(n, _)| *n == l)
        .map(|(_, v)| *v)
        .or_else(|| strtol0(s).filter(|v| (0..=63).contains(v)))
}

fn size(s: &str) -> i64 {
    parse_size(s).map(|v| v as i64).unwrap_or(0)
}

/// What parsing has seen beyond the settings themselves.
#[derive(Default)]
struct Seen {
    role: Option<Role>,
    /// An option only a client may give.
    client_flag: bool,
    /// An option only a server may give.
    server_flag: bool,
    duration_set: bool,
    rcv_timeout_set: bool,
}

/// Parse the arguments (without the program name).
pub fn parse(args: &[String]) -> Result<Command, UsageError> {
    let opts = getopt::getopt(args).map_err(|e| UsageError::Getopt(e.0))?;
    let mut c = Config::default();
    let mut seen = Seen::default();
    for (opt, val) in opts {
        match opt {
            Opt::Help => return Ok(Command::Help),
            Opt::Version => return Ok(Command::Version),
            _ => {}
        }
        let handled = general_option(opt, val.clone(), &mut c, &mut seen)?
            || server_option(opt, val.clone(), &mut c, &mut seen)?
            || client_option(opt, val, &mut c, &mut seen)?;
        debug_assert!(handled, "{opt:?} is in no option group");
    }
    check_roles(&mut c, &seen)?;
    if c.role == Role::Client {
        settle_client(&mut c, &seen)?;
    }
    settle_output(&mut c);
    Ok(Command::Run(Box::new(c)))
}

/// Options of both roles: ports, output, logging, timeouts; false for
/// an option of another group.
fn general_option(
    opt: Opt,
    val: Option<String>,
    c: &mut Config,
    seen: &mut Seen,
) -> Result<bool, UsageError> {
    Ok(output_option(opt, val.clone(), c)? || connection_option(opt, val, c, seen)?)
}

/// The general options of the output: format, interval, JSON, logging;
/// false for another option.
fn output_option(opt: Opt, val: Option<String>, c: &mut Config) -> Result<bool, UsageError> {
    let v = val.clone().unwrap_or_default();
    let p = |m: &str| UsageError::Parameter(m.to_string());
    match opt {
        Opt::Format => match v.chars().next() {
            Some(f) if is_format_letter(f) => c.format = f,
            _ => {
                return Err(p(
                    "bad format specifier (valid formats are in the set [kmgtKMGT])",
                ))
            }
        },
        Opt::Interval => {
            let i = v.trim().parse::<f64>().unwrap_or(0.0);
            if (!(0.1..=60.0).contains(&i)) && i != 0.0 {
                return Err(p("invalid report interval (min = 0.1, max = 60 seconds)"));
            }
            c.interval = i;
        }
        Opt::Verbose => c.verbose = true,
        Opt::Json => c.output = OutputKind::Json,
        Opt::JsonStream => c.output = OutputKind::JsonStream,
        Opt::OutputFormat => {
            c.output = match v.as_str() {
                "text" | "normal" => OutputKind::Text,
                "json" => OutputKind::Json,
                "json-stream" => OutputKind::JsonStream,
                "csv" => OutputKind::Csv,
                _ => {
                    return Err(p(
                        "bad output format (valid formats are text, json, json-stream, csv)",
                    ))
                }
            }
        }
        Opt::Logfile => c.logfile = Some(v),
        Opt::ForceFlush => c.forceflush = true,
        Opt::Timestamps => c.timestamps = Some(val.unwrap_or_else(|| "%c ".into())),
        Opt::Debug => c.debug = val.map(|s| atoi(&s).clamp(1, 4) as u8).unwrap_or(4),
        _ => return Ok(false),
    }
    Ok(true)
}

/// The general options of the connection and the process: port, files,
/// affinity, binding, parallelism, timeouts; false for another option.
fn connection_option(
    opt: Opt,
    val: Option<String>,
    c: &mut Config,
    seen: &mut Seen,
) -> Result<bool, UsageError> {
    let v = val.unwrap_or_default();
    let p = |m: &str| UsageError::Parameter(m.to_string());
    match opt {
        Opt::Port => {
            let n = atoi(&v);
            if !(1..=65535).contains(&n) {
                return Err(p("port number must be between 1 and 65535 inclusive"));
            }
            c.port = n as u16;
        }
        Opt::Pidfile => c.pidfile = Some(v),
        Opt::File => c.file = Some(v),
        Opt::Affinity => set_affinity(&v, c, seen)?,
        Opt::Bind => {
            if let Some((_, dev)) = v.split_once('%') {
                c.bind_dev = Some(dev.to_string());
            }
            c.bind = Some(v);
        }
        Opt::BindDev => c.bind_dev = Some(v),
        Opt::MaxParallel => {
            c.max_parallel = atoi(&v);
            if c.max_parallel < 1 {
                return Err(p("--max-parallel must be at least 1"));
            }
        }
        Opt::RcvTimeout => {
            let n = atoi(&v);
            if !(100..=86_400_000).contains(&n) {
                return Err(p("receive timeout value is incorrect or not in range"));
            }
            c.rcv_timeout_ms = n as u64;
            seen.rcv_timeout_set = true;
        }
        Opt::SndTimeout => {
            let n = atoi(&v);
            if !(0..=86_400_000).contains(&n) {
                return Err(p("send timeout value is incorrect or not in range"));
            }
            c.snd_timeout_ms = Some(n as u64);
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// `-A n[,m]`. 3.12: the number (strtol base 0) the value starts with,
/// in 0..=1024, else refused; what follows it is ignored (`2/2` is CPU 2)
/// except a `,m` for the server.
fn set_affinity(v: &str, c: &mut Config, seen: &mut Seen) -> Result<(), UsageError> {
    let refused = || UsageError::Parameter("unable to set CPU affinity: ".to_string());
    let b = v.split_once(',').map(|(_, b)| b);
    let cpu = strtol0_prefix(v).filter(|n| (0..=1024).contains(n));
    let Some(cpu) = cpu else {
        return Err(refused());
    };
    c.affinity = Some(cpu as usize);
    if let Some(b) = b {
        let n = atoi(b);
        if !(0..=1024).contains(&n) {
            return Err(refused());
        }
        c.server_affinity = Some(n);
        seen.client_flag = true;
    }
    Ok(())
}

/// Options of the server (and the `-s` itself); false for another group's.
fn server_option(
    opt: Opt,
    val: Option<String>,
    c: &mut Config,
    seen: &mut Seen,
) -> Result<bool, UsageError> {
    let v = val.unwrap_or_default();
    let p = |m: &str| UsageError::Parameter(m.to_string());
    match opt {
        Opt::Server => {
            if seen.role == Some(Role::Client) {
                return Err(p("cannot be both server and client"));
            }
            seen.role = Some(Role::Server);
        }
        Opt::Daemon => {
            c.daemon = true;
            seen.server_flag = true;
        }
        Opt::OneOff => {
            c.one_off = true;
            seen.server_flag = true;
        }
        Opt::ServerBitrateLimit => {
            let (r, secs) = match v.split_once('/') {
                Some((r, t)) => (r, Some(t)),
                None => (v.as_str(), None),
            };
            if let Some(t) = secs {
                let t = t.trim().parse::<f64>().unwrap_or(0.0);
                if t != 0.0 && !(0.1..=60.0).contains(&t) {
                    return Err(p("invalid time interval for calculating average data rate"));
                }
                c.bitrate_limit_interval = t;
            }
            c.server_bitrate_limit = parse_rate(r).map(|x| x.max(0.0) as u64).unwrap_or(0);
            seen.server_flag = true;
        }
        Opt::IdleTimeout => {
            let n = atoi(&v);
            if !(1..=86400).contains(&n) {
                return Err(p(
                    "idle timeout parameter is not positive or larger than allowed limit",
                ));
            }
            c.idle_timeout = Some(n as u64);
            seen.server_flag = true;
        }
        Opt::RsaPrivateKeyPath
        | Opt::AuthorizedUsersPath
        | Opt::TimeSkewThreshold
        | Opt::Username
        | Opt::RsaPublicKeyPath => {
            return Err(UsageError::Fatal(
                "authentication options are not supported by riperf".into(),
            ))
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// Options of the client (and the `-c HOST` itself); false for another
/// group's. Every client option but `-c`, `-4` and `-6` marks the
/// command line as a client's.
fn client_option(
    opt: Opt,
    val: Option<String>,
    c: &mut Config,
    seen: &mut Seen,
) -> Result<bool, UsageError> {
    let v = val.unwrap_or_default();
    let p = |m: &str| UsageError::Parameter(m.to_string());
    match opt {
        Opt::Client => {
            if seen.role == Some(Role::Server) {
                return Err(p("cannot be both server and client"));
            }
            seen.role = Some(Role::Client);
            if let Some((_, dev)) = v.split_once('%') {
                c.bind_dev = Some(dev.to_string());
            }
            c.host = v;
        }
        Opt::Version4 => c.ipv4_only = true,
        Opt::Version6 => c.ipv6_only = true,
        _ => {
            let taken = client_test_option(opt, &v, c, seen)?
                || client_rate_option(opt, &v, c)?
                || client_socket_option(opt, &v, c)?
                || client_extra_option(opt, v, c);
            if taken {
                seen.client_flag = true;
            }
            return Ok(taken);
        }
    }
    Ok(true)
}

/// What the test moves and for how long: protocol, duration, amount, block
/// length, streams, direction, omitted seconds.
fn client_test_option(
    opt: Opt,
    v: &str,
    c: &mut Config,
    seen: &mut Seen,
) -> Result<bool, UsageError> {
    let p = |m: &str| UsageError::Parameter(m.to_string());
    match opt {
        Opt::Udp => {
            c.protocol = Protocol::Udp;
        }
        // --sctp goes to the server as 3.12 sends it (where the kernel
        // has no SCTP a 3.12 server answers with its listener error);
        // riperf itself has no SCTP streams.
        Opt::Sctp => {
            c.protocol = Protocol::Sctp;
        }
        Opt::Xbind | Opt::Nstreams => return Err(p("no SCTP support available")),
        Opt::Time => {
            c.duration = atoi(v);
            if c.duration > MAX_TIME {
                return Err(p("test duration too long (maximum = 86400 seconds)"));
            }
            seen.duration_set = true;
        }
        Opt::Bytes => {
            c.bytes = size(v).max(0) as u64;
        }
        Opt::BlockCount => {
            c.blocks = size(v).max(0) as u64;
        }
        Opt::Length => {
            c.blksize = size(v);
        }
        Opt::Parallel => {
            c.parallel = atoi(v);
        }
        Opt::Reverse => {
            if c.bidir {
                return Err(p("cannot be both reverse and bidirectional"));
            }
            c.reverse = true;
        }
        Opt::Bidir => {
            if c.reverse {
                return Err(p("cannot be both reverse and bidirectional"));
            }
            c.bidir = true;
        }
        Opt::Omit => {
            c.omit = atoi(v);
            if !(0..=60).contains(&c.omit) {
                return Err(p("bogus value for --omit"));
            }
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// How fast the client sends: `-b rate[/burst]`, the pacing timer, fq pacing.
fn client_rate_option(opt: Opt, v: &str, c: &mut Config) -> Result<bool, UsageError> {
    let p = |m: &str| UsageError::Parameter(m.to_string());
    match opt {
        Opt::Bitrate => {
            let (r, b) = match v.split_once('/') {
                Some((r, b)) => (r, Some(b)),
                None => (v, None),
            };
            c.rate = parse_rate(r).map(|x| x.max(0.0) as u64).unwrap_or(0);
            c.rate_set = true;
            if let Some(b) = b {
                let n = atoi(b);
                if n <= 0 || n > MAX_BURST {
                    return Err(p("invalid burst count (maximum = 1000)"));
                }
                c.burst = n;
            }
        }
        Opt::PacingTimer => {
            let n = size(v);
            if n <= 0 {
                return Err(p("pacing timer must be positive"));
            }
            c.pacing_timer = n;
        }
        Opt::FqRate => {
            c.fqrate = parse_rate(v).map(|x| x.max(0.0) as u64).unwrap_or(0);
        }
        Opt::NoFqSocketPacing => {
            c.notices
                .push("Warning:  --no-fq-socket-pacing is deprecated".into());
            c.fqrate = 0;
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// The client's sockets: connect timeout, port, buffer, congestion control,
/// MSS, TCP_NODELAY, TOS/DSCP, flow label, zero copy, don't-fragment.
fn client_socket_option(opt: Opt, v: &str, c: &mut Config) -> Result<bool, UsageError> {
    let p = |m: &str| UsageError::Parameter(m.to_string());
    match opt {
        Opt::ConnectTimeout => {
            c.connect_timeout_ms = Some(size(v).max(0) as u64);
        }
        Opt::Cport => {
            let n = atoi(v);
            if !(1..=65535).contains(&n) {
                return Err(p("port number must be between 1 and 65535 inclusive"));
            }
            c.cport = n as u16;
        }
        Opt::Window => {
            c.window = size(v);
            if c.window > MAX_TCP_BUFFER {
                return Err(p(
                    "socket buffer size too large (maximum = 536870912 bytes)",
                ));
            }
        }
        Opt::Congestion => {
            c.congestion = Some(v.to_string());
        }
        Opt::SetMss => {
            c.mss = atoi(v);
            if c.mss > MAX_MSS {
                return Err(p("TCP MSS too large (maximum = 9216 bytes)"));
            }
        }
        Opt::NoDelay => {
            c.nodelay = true;
        }
        Opt::Tos => match strtol0(v) {
            Some(t) if (0..=255).contains(&t) => c.tos = t,
            _ => return Err(p("bad TOS value (must be between 0 and 255 inclusive)")),
        },
        Opt::Dscp => match dscp_value(v) {
            Some(d) => c.tos = d << 2,
            None => return Err(p("bad TOS value (must be between 0 and 255 inclusive)")),
        },
        Opt::FlowLabel => {
            c.flowlabel = strtol0(v).unwrap_or(-1);
            if !(1..=0xfffff).contains(&c.flowlabel) {
                return Err(p("unable to set IPv6 flow label"));
            }
        }
        Opt::ZeroCopy => {
            c.zerocopy = true;
        }
        Opt::DontFragment => {
            c.dont_fragment = true;
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// What the client adds to the test: title, extra data, the server's
/// output, 64-bit UDP counters, a repeating payload.
fn client_extra_option(opt: Opt, v: String, c: &mut Config) -> bool {
    match opt {
        Opt::Title => {
            c.title = Some(v);
        }
        Opt::ExtraData => {
            c.extra_data = Some(v);
        }
        Opt::GetServerOutput => {
            c.get_server_output = true;
        }
        Opt::UdpCounters64 => {
            c.udp_counters_64bit = true;
        }
        Opt::RepeatingPayload => {
            c.repeating_payload = true;
        }
        _ => return false,
    }
    true
}

/// The stream limit, then one role, without options of the other.
fn check_roles(c: &mut Config, seen: &Seen) -> Result<(), UsageError> {
    let p = |m: &str| UsageError::Parameter(m.to_string());
    if c.parallel > c.max_parallel {
        return Err(UsageError::Parameter(format!(
            "number of parallel streams too large (maximum = {})",
            c.max_parallel
        )));
    }
    let role = seen
        .role
        .ok_or_else(|| p("must either be a client (-c) or server (-s)"))?;
    c.role = role;
    if role == Role::Server && seen.client_flag {
        return Err(p("some option you are trying to set is client only"));
    }
    if role == Role::Client && seen.server_flag {
        return Err(p("some option you are trying to set is server only"));
    }
    Ok(())
}

/// A client's end condition, -F size, stream count, rate and block size.
fn settle_client(c: &mut Config, seen: &Seen) -> Result<(), UsageError> {
    let p = |m: &str| UsageError::Parameter(m.to_string());
    let ends = [seen.duration_set, c.bytes != 0, c.blocks != 0];
    if ends.iter().filter(|x| **x).count() > 1 {
        return Err(p(
            "only one test end condition (-t, -n, -k) may be specified",
        ));
    }
    if seen.rcv_timeout_set && !c.reverse && !c.bidir {
        return Err(p(
            "client receive timeout is valid only in receiving mode: ",
        ));
    }
    if c.file.is_some() && c.protocol != Protocol::Tcp {
        return Err(UsageError::Fatal(
            "-F/--file is supported with TCP only by riperf".into(),
        ));
    }
    // iperf3: -F sets -n to the file's size when no end condition is
    // given, in -R too (the size of the file before it is rewritten).
    if let (Some(f), false) = (&c.file, seen.duration_set) {
        if c.bytes == 0 && c.blocks == 0 {
            match std::fs::metadata(f) {
                Ok(m) if m.len() > 0 => c.bytes = m.len(),
                Ok(_) => {}
                // -R writes the file: it need not exist yet.
                Err(_) if c.reverse => {}
                Err(_) => {
                    return Err(UsageError::Fatal(
                        "unable to open -F file: No such file or directory".into(),
                    ))
                }
            }
        }
    }
    if !seen.duration_set && (c.bytes != 0 || c.blocks != 0) {
        c.duration = 0;
    }
    if c.parallel < 1 {
        c.parallel = 1;
    }
    match c.protocol {
        Protocol::Udp => {
            if !c.rate_set {
                c.rate = DEFAULT_UDP_RATE;
            }
            if c.blksize != 0 && !(MIN_UDP_BLOCKSIZE..=MAX_UDP_BLOCKSIZE).contains(&c.blksize) {
                return Err(p(
                    "block size invalid (minimum = 16 bytes, maximum = 65507 bytes)",
                ));
            }
        }
        _ => {
            if c.blksize == 0 {
                c.blksize = if c.protocol == Protocol::Sctp {
                    DEFAULT_SCTP_BLKSIZE
                } else {
                    DEFAULT_TCP_BLKSIZE
                };
            }
            if c.blksize <= 0 || c.blksize > MAX_BLOCKSIZE {
                return Err(p("block size too large (maximum = 1048576 bytes)"));
            }
        }
    }
    Ok(())
}

/// -4 with -6, and 3.12's warnings for options JSON output ignores.
fn settle_output(c: &mut Config) {
    if c.ipv4_only && c.ipv6_only {
        c.ipv4_only = false;
    }
    if matches!(c.output, OutputKind::Json | OutputKind::JsonStream) {
        if c.format != 'a' {
            c.warnings
                .push("Report format (-f) flag ignored with JSON output (-J)".into());
        }
        if c.verbose {
            c.warnings
                .push("Verbose output (-v) may interfere with JSON output (-J)".into());
        }
        if c.debug > 0 {
            c.warnings
                .push("Debug output (-d) may interfere with JSON output (-J)".into());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(args: &[&str]) -> Result<Config, UsageError> {
        let a: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        match parse(&a)? {
            Command::Run(c) => Ok(*c),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn defaults_and_units() {
        let c = run(&["-c", "127.0.0.1", "-u"]).unwrap();
        assert_eq!(c.rate, 1048576);
        assert_eq!(c.blksize, 0);
        let c = run(&["-c", "h", "-n", "100M", "-b", "10M/5", "-w", "1M"]).unwrap();
        assert_eq!(c.bytes, 104857600);
        assert_eq!(c.duration, 0);
        assert_eq!(c.rate, 10_000_000);
        assert_eq!(c.burst, 5);
        assert_eq!(c.window, 1048576);
        assert_eq!(c.blksize, 131072);
    }

    #[test]
    fn affinity_reads_the_leading_number_as_strtol() {
        // iperf3's own release checks pass `-A 2/2`: CPU 2, no server CPU.
        let c = run(&["-c", "h", "-A", "2/2"]).unwrap();
        assert_eq!((c.affinity, c.server_affinity), (Some(2), None));
        let c = run(&["-c", "h", "-A", "0x10,3"]).unwrap();
        assert_eq!((c.affinity, c.server_affinity), (Some(16), Some(3)));
        assert_eq!(run(&["-c", "h", "-A", "010"]).unwrap().affinity, Some(8));
        for bad in ["/2", "x", "-1", "1025", ""] {
            assert!(run(&["-c", "h", "-A", bad]).is_err(), "-A {bad:?}");
        }
        assert_eq!(strtol0_prefix(" +7k"), Some(7));
        assert_eq!(strtol0_prefix("0x"), Some(0));
        assert_eq!(strtol0_prefix("-"), None);
    }

    #[test]
    fn errors_match_iperf3() {
        let pe = |m: &str| Err(UsageError::Parameter(m.into()));
        assert_eq!(
            run(&["-t", "1"]).map(|_| ()),
            pe("must either be a client (-c) or server (-s)")
        );
        assert_eq!(
            run(&["-c", "h", "-f", "x"]).map(|_| ()),
            pe("bad format specifier (valid formats are in the set [kmgtKMGT])")
        );
        assert_eq!(
            run(&["-c", "h", "-R", "--bidir"]).map(|_| ()),
            pe("cannot be both reverse and bidirectional")
        );
        assert_eq!(
            run(&["-c", "h", "-u", "-l", "70000"]).map(|_| ()),
            pe("block size invalid (minimum = 16 bytes, maximum = 65507 bytes)")
        );
        assert_eq!(
            run(&["-s", "-t", "3"]).map(|_| ()),
            pe("some option you are trying to set is client only")
        );
        assert_eq!(
            run(&["-c", "h", "-t", "1", "-n", "1"]).map(|_| ()),
            pe("only one test end condition (-t, -n, -k) may be specified")
        );
        assert!(matches!(run(&["--bogus"]), Err(UsageError::Getopt(_))));
    }

    #[test]
    fn help_is_generated_from_the_table() {
        let u = table::usage_long();
        assert!(u.contains("  -p, --port      #         server port to listen on/connect to\n"));
        assert!(u.contains("Client specific:\n  -c, --client"));
        assert!(!u.contains("--bandwidth"));
    }
}
