//! Every option, defined once: names, argument kind and help lines. The same
//! table drives the parser, `--help` and the man page (spec §4).

/// Whether an option takes an argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgKind {
    None,
    Required,
    /// Only as `--opt=value` (or `-dN` for a short option), like getopt's `::`.
    Optional,
}

/// What an option sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opt {
    Port,
    Format,
    Interval,
    Pidfile,
    File,
    Affinity,
    Bind,
    BindDev,
    MaxParallel,
    Verbose,
    Json,
    JsonStream,
    OutputFormat,
    Logfile,
    ForceFlush,
    Timestamps,
    RcvTimeout,
    SndTimeout,
    Debug,
    Version,
    Help,
    Server,
    Daemon,
    OneOff,
    ServerBitrateLimit,
    IdleTimeout,
    RsaPrivateKeyPath,
    AuthorizedUsersPath,
    TimeSkewThreshold,
    Client,
    Sctp,
    Xbind,
    Nstreams,
    Udp,
    ConnectTimeout,
    Bitrate,
    PacingTimer,
    FqRate,
    NoFqSocketPacing,
    Time,
    Bytes,
    BlockCount,
    Length,
    Cport,
    Parallel,
    Reverse,
    Bidir,
    Window,
    Congestion,
    SetMss,
    NoDelay,
    Version4,
    Version6,
    Tos,
    Dscp,
    FlowLabel,
    ZeroCopy,
    Omit,
    Title,
    ExtraData,
    GetServerOutput,
    UdpCounters64,
    RepeatingPayload,
    DontFragment,
    Username,
    RsaPublicKeyPath,
}

/// The help section an option is listed under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Section {
    Both,
    Server,
    Client,
    /// Accepted but not listed (iperf3's aliases and deprecated options).
    Hidden,
}

pub struct Def {
    pub short: Option<char>,
    pub long: &'static str,
    pub arg: ArgKind,
    pub opt: Opt,
    pub section: Section,
    /// The help lines exactly as `--help` prints them.
    pub help: &'static [&'static str],
}

const fn d(
    short: Option<char>,
    long: &'static str,
    arg: ArgKind,
    opt: Opt,
    section: Section,
    help: &'static [&'static str],
) -> Def {
    Def {
        short,
        long,
        arg,
        opt,
        section,
        help,
    }
}

use ArgKind::{None as N, Optional as O, Required as R};
use Section::{Both as B, Client as C, Hidden as H, Server as S};

pub static DEFS: &[Def] = &[
    d(Some('p'), "port", R, Opt::Port, B, &["  -p, --port      #         server port to listen on/connect to"]),
    d(Some('f'), "format", R, Opt::Format, B, &["  -f, --format   [kmgtKMGT] format to report: Kbits, Mbits, Gbits, Tbits"]),
    d(Some('i'), "interval", R, Opt::Interval, B, &["  -i, --interval  #         seconds between periodic throughput reports"]),
    d(Some('I'), "pidfile", R, Opt::Pidfile, B, &["  -I, --pidfile file        write PID file"]),
    d(Some('F'), "file", R, Opt::File, B, &["  -F, --file name           xmit/recv the specified file"]),
    d(Some('A'), "affinity", R, Opt::Affinity, B, &["  -A, --affinity n/n,m      set CPU affinity"]),
    d(Some('B'), "bind", R, Opt::Bind, B, &[
        "  -B, --bind <host>[%<dev>] bind to the interface associated with the address <host>",
        "                            (optional <dev> equivalent to `--bind-dev <dev>`)",
    ]),
    d(None, "bind-dev", R, Opt::BindDev, B, &["  --bind-dev <dev>          bind to the network interface with SO_BINDTODEVICE"]),
    d(Some('V'), "verbose", N, Opt::Verbose, B, &["  -V, --verbose             more detailed output"]),
    d(Some('J'), "json", N, Opt::Json, B, &["  -J, --json                output in JSON format"]),
    d(None, "json-stream", N, Opt::JsonStream, B, &["  --json-stream             output in line-delimited JSON format (as iperf3 3.17)"]),
    d(None, "output-format", R, Opt::OutputFormat, B, &["  --output-format fmt       output format: text, json or csv (riperf)"]),
    d(None, "max-parallel", R, Opt::MaxParallel, B, &["  --max-parallel #          most parallel streams to run or accept (default 128; riperf)"]),
    d(None, "logfile", R, Opt::Logfile, B, &["  --logfile f               send output to a log file"]),
    d(None, "forceflush", N, Opt::ForceFlush, B, &["  --forceflush              force flushing output at every interval"]),
    d(None, "timestamps", O, Opt::Timestamps, B, &[
        "  --timestamps<=format>     emit a timestamp at the start of each output line",
        "                            (optional \"=\" and format string as per strftime(3))",
    ]),
    d(None, "rcv-timeout", R, Opt::RcvTimeout, B, &["  --rcv-timeout #           idle timeout for receiving data (default 120000 ms)"]),
    d(None, "snd-timeout", R, Opt::SndTimeout, B, &[
        "  --snd-timeout #           timeout for unacknowledged TCP data",
        "                            (in ms, default is system settings)",
    ]),
    d(Some('d'), "debug", O, Opt::Debug, B, &[
        "  -d, --debug[=#]           emit debugging output",
        "                            (optional optional \"=\" and debug level: 1-4. Default is 4 - all messages)",
    ]),
    d(Some('v'), "version", N, Opt::Version, B, &["  -v, --version             show version information and quit"]),
    d(Some('h'), "help", N, Opt::Help, B, &["  -h, --help                show this message and quit"]),
    d(Some('s'), "server", N, Opt::Server, S, &["  -s, --server              run in server mode"]),
    d(Some('D'), "daemon", N, Opt::Daemon, S, &["  -D, --daemon              run the server as a daemon"]),
    d(Some('1'), "one-off", N, Opt::OneOff, S, &["  -1, --one-off             handle one client connection then exit"]),
    d(None, "server-bitrate-limit", R, Opt::ServerBitrateLimit, S, &[
        "  --server-bitrate-limit #[KMG][/#]   server's total bit rate limit (default 0 = no limit)",
        "                            (optional slash and number of secs interval for averaging",
        "                            total data rate.  Default is 5 seconds)",
    ]),
    d(None, "idle-timeout", R, Opt::IdleTimeout, S, &[
        "  --idle-timeout #          restart idle server after # seconds in case it",
        "                            got stuck (default - no timeout)",
    ]),
    d(None, "rsa-private-key-path", R, Opt::RsaPrivateKeyPath, S, &[
        "  --rsa-private-key-path    path to the RSA private key used to decrypt",
        "                            authentication credentials",
    ]),
    d(None, "authorized-users-path", R, Opt::AuthorizedUsersPath, S, &[
        "  --authorized-users-path   path to the configuration file containing user",
        "                            credentials",
    ]),
    d(None, "time-skew-threshold", R, Opt::TimeSkewThreshold, S, &[
        "  --time-skew-threshold     time skew threshold (in seconds) between the server",
        "                            and client during the authentication process",
    ]),
    d(Some('c'), "client", R, Opt::Client, C, &[
        "  -c, --client <host>[%<dev>] run in client mode, connecting to <host>",
        "                              (option <dev> equivalent to `--bind-dev <dev>`)",
    ]),
    d(None, "sctp", N, Opt::Sctp, C, &["  --sctp                    use SCTP rather than TCP"]),
    d(Some('X'), "xbind", R, Opt::Xbind, C, &["  -X, --xbind <name>        bind SCTP association to links"]),
    d(None, "nstreams", R, Opt::Nstreams, C, &["  --nstreams      #         number of SCTP streams"]),
    d(Some('u'), "udp", N, Opt::Udp, C, &["  -u, --udp                 use UDP rather than TCP"]),
    d(None, "connect-timeout", R, Opt::ConnectTimeout, C, &["  --connect-timeout #       timeout for control connection setup (ms)"]),
    d(Some('b'), "bitrate", R, Opt::Bitrate, C, &[
        "  -b, --bitrate #[KMG][/#]  target bitrate in bits/sec (0 for unlimited)",
        "                            (default 1 Mbit/sec for UDP, unlimited for TCP)",
        "                            (optional slash and packet count for burst mode)",
    ]),
    d(None, "bandwidth", R, Opt::Bitrate, H, &[]),
    d(None, "pacing-timer", R, Opt::PacingTimer, C, &["  --pacing-timer #[KMG]     set the timing for pacing, in microseconds (default 1000)"]),
    d(None, "fq-rate", R, Opt::FqRate, C, &[
        "  --fq-rate #[KMG]          enable fair-queuing based socket pacing in",
        "                            bits/sec (Linux only)",
    ]),
    d(None, "no-fq-socket-pacing", N, Opt::NoFqSocketPacing, H, &[]),
    d(Some('t'), "time", R, Opt::Time, C, &["  -t, --time      #         time in seconds to transmit for (default 10 secs)"]),
    d(Some('n'), "bytes", R, Opt::Bytes, C, &["  -n, --bytes     #[KMG]    number of bytes to transmit (instead of -t)"]),
    d(Some('k'), "blockcount", R, Opt::BlockCount, C, &["  -k, --blockcount #[KMG]   number of blocks (packets) to transmit (instead of -t or -n)"]),
    d(Some('l'), "length", R, Opt::Length, C, &[
        "  -l, --length    #[KMG]    length of buffer to read or write",
        "                            (default 128 KB for TCP, dynamic or 1460 for UDP)",
    ]),
    d(None, "cport", R, Opt::Cport, C, &["  --cport         <port>    bind to a specific client port (TCP and UDP, default: ephemeral port)"]),
    d(Some('P'), "parallel", R, Opt::Parallel, C, &["  -P, --parallel  #         number of parallel client streams to run"]),
    d(Some('R'), "reverse", N, Opt::Reverse, C, &["  -R, --reverse             run in reverse mode (server sends, client receives)"]),
    d(None, "bidir", N, Opt::Bidir, C, &[
        "  --bidir                   run in bidirectional mode.",
        "                            Client and server send and receive data.",
    ]),
    d(Some('w'), "window", R, Opt::Window, C, &[
        "  -w, --window    #[KMG]    set send/receive socket buffer sizes",
        "                            (indirectly sets TCP window size)",
    ]),
    d(Some('C'), "congestion", R, Opt::Congestion, C, &["  -C, --congestion <algo>   set TCP congestion control algorithm (Linux and FreeBSD only)"]),
    d(None, "linux-congestion", R, Opt::Congestion, H, &[]),
    d(Some('M'), "set-mss", R, Opt::SetMss, C, &["  -M, --set-mss   #         set TCP/SCTP maximum segment size (MTU - 40 bytes)"]),
    d(Some('N'), "no-delay", N, Opt::NoDelay, C, &["  -N, --no-delay            set TCP/SCTP no delay, disabling Nagle's Algorithm"]),
    d(Some('4'), "version4", N, Opt::Version4, C, &["  -4, --version4            only use IPv4"]),
    d(Some('6'), "version6", N, Opt::Version6, C, &["  -6, --version6            only use IPv6"]),
    d(Some('S'), "tos", R, Opt::Tos, C, &[
        "  -S, --tos N               set the IP type of service, 0-255.",
        "                            The usual prefixes for octal and hex can be used,",
        "                            i.e. 52, 064 and 0x34 all specify the same value.",
    ]),
    d(None, "dscp", R, Opt::Dscp, C, &[
        "  --dscp N or --dscp val    set the IP dscp value, either 0-63 or symbolic.",
        "                            Numeric values can be specified in decimal,",
        "                            octal and hex (see --tos above).",
    ]),
    d(Some('L'), "flowlabel", R, Opt::FlowLabel, C, &["  -L, --flowlabel N         set the IPv6 flow label (only supported on Linux)"]),
    d(Some('Z'), "zerocopy", N, Opt::ZeroCopy, C, &["  -Z, --zerocopy            use a 'zero copy' method of sending data"]),
    d(Some('O'), "omit", R, Opt::Omit, C, &["  -O, --omit N              perform pre-test for N seconds and omit the pre-test statistics"]),
    d(Some('T'), "title", R, Opt::Title, C, &["  -T, --title str           prefix every output line with this string"]),
    d(None, "extra-data", R, Opt::ExtraData, C, &["  --extra-data str          data string to include in client and server JSON"]),
    d(None, "get-server-output", N, Opt::GetServerOutput, C, &["  --get-server-output       get results from server"]),
    d(None, "udp-counters-64bit", N, Opt::UdpCounters64, C, &["  --udp-counters-64bit      use 64-bit counters in UDP test packets"]),
    d(None, "repeating-payload", N, Opt::RepeatingPayload, C, &[
        "  --repeating-payload       use repeating pattern in payload, instead of",
        "                            randomized payload (like in iperf2)",
    ]),
    d(None, "dont-fragment", N, Opt::DontFragment, C, &["  --dont-fragment           set IPv4 Don't Fragment flag"]),
    d(None, "username", R, Opt::Username, C, &["  --username                username for authentication"]),
    d(None, "rsa-public-key-path", R, Opt::RsaPublicKeyPath, C, &[
        "  --rsa-public-key-path     path to the RSA public key used to encrypt",
        "                            authentication credentials",
    ]),
];

/// The full `--help` text, generated from [`DEFS`].
pub fn usage_long() -> String {
    let mut s = String::from(
        "Usage: iperf3 [-s|-c host] [options]\n       iperf3 [-h|--help] [-v|--version]\n\n",
    );
    for (section, title) in [
        (Section::Both, "Server or Client:"),
        (Section::Server, "Server specific:"),
        (Section::Client, "Client specific:"),
    ] {
        s.push_str(title);
        s.push('\n');
        for def in DEFS.iter().filter(|d| d.section == section) {
            for line in def.help {
                s.push_str(line);
                s.push('\n');
            }
        }
    }
    s.push_str(
        "\n[KMG] indicates options that support a K/M/G suffix for kilo-, mega-, or giga-\n\n",
    );
    s.push_str("riperf: an iperf3 3.12 compatible implementation (rbench)\n");
    s
}
