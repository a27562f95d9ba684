//! Opening the data streams on CREATE_STREAMS: TCP connections that
//! present the cookie, UDP sockets that say hello and wait for the reply,
//! and the thread bodies that will drive them.

use crate::net::{self, SockOpts};
use crate::options::Config;
use crate::protocol::errors::{server_error_text, StrError};
use crate::protocol::udp::{is_reply, HELLO};
use crate::protocol::{Cookie, Protocol};
use crate::report::{Report, StartInfo};
use crate::session::Session;
use crate::stream::setup::{register, tcp_body, udp_body, BodySpec, NewStream};
use crate::stream::{payload, Pacing, StreamIo, TestShared};
use std::io::Write;
use std::net::{SocketAddr, UdpSocket};
use std::os::fd::AsRawFd;
use std::sync::Arc;
use std::time::Duration;

/// One opened stream: its descriptor, local address, the body that will
/// drive it, and what keeps its socket alive.
type Opened = (
    i32,
    SocketAddr,
    Box<dyn StreamIo>,
    Arc<dyn std::any::Any + Send + Sync>,
);

/// An opened TCP stream, and its buffer sizes before it connected.
type OpenedTcp = (
    i32,
    SocketAddr,
    Box<dyn StreamIo>,
    Arc<dyn std::any::Any + Send + Sync>,
    Option<(i64, i64)>,
);

/// Where the streams go: the server's address and the local address to
/// bind.
#[derive(Clone, Copy)]
struct Ends {
    peer: SocketAddr,
    bind_ip: Option<std::net::IpAddr>,
}

#[allow(clippy::too_many_arguments)]
pub fn create_streams(
    cfg: &Config,
    cookie: &Cookie,
    peer: SocketAddr,
    bind_ip: Option<std::net::IpAddr>,
    blksize: i64,
    shared: &Arc<TestShared>,
    session: &mut Session,
    report: &mut Report,
    info: &mut StartInfo,
) -> Result<(), String> {
    let udp = cfg.protocol == Protocol::Udp;
    let n = if cfg.bidir {
        2 * cfg.parallel
    } else {
        cfg.parallel
    } as usize;
    let opts = sock_opts(cfg);
    let _ = shared;
    let spec = body_spec(cfg, blksize);
    let ends = Ends { peer, bind_ip };
    let mut bodies: Vec<Box<dyn StreamIo>> = Vec::new();
    for i in 0..n {
        let sender = if cfg.bidir {
            i < cfg.parallel as usize
        } else {
            !cfg.reverse
        };
        // --cport P: stream i binds P+i (3.12; --bidir's receiving streams
        // follow the sending ones, so no two streams share a port).
        let cport = if cfg.cport != 0 {
            cfg.cport.wrapping_add(i as u16)
        } else {
            0
        };
        let (fd, local, io, keep, bufs) = if udp {
            let (fd, local, io, keep) = open_udp(ends, cport, &opts, blksize, sender, &spec)?;
            (fd, local, io, keep, None)
        } else {
            open_tcp(cfg, cookie, ends, cport, &opts, sender, &spec)?
        };
        let new = NewStream {
            index: i,
            fd,
            sender,
            udp,
            local,
            remote: peer,
            keep,
            bufs,
        };
        register(new, session, report, info);
        bodies.push(io);
    }
    session.pending = bodies;
    Ok(())
}

/// The socket options every stream gets.
fn sock_opts(cfg: &Config) -> SockOpts {
    SockOpts {
        window: cfg.window,
        mss: cfg.mss,
        nodelay: cfg.nodelay,
        congestion: cfg.congestion.clone(),
        tos: cfg.tos,
        dont_fragment: cfg.dont_fragment,
        fqrate: cfg.fqrate,
        snd_timeout_ms: cfg.snd_timeout_ms,
        bind_dev: cfg.bind_dev.clone(),
    }
}

/// What the stream bodies send and how fast: the block, its pacing and
/// the --file to send or write.
fn body_spec(cfg: &Config, blksize: i64) -> BodySpec<'_> {
    let block = payload(blksize as usize, cfg.repeating_payload);
    let per_stream_rate = cfg.rate;
    let pacing = Pacing {
        rate: per_stream_rate,
        burst: cfg.burst.max(0) as u64,
        pacing_timer_us: cfg.pacing_timer.max(1) as u64,
    };
    BodySpec {
        len: blksize as usize,
        block: Arc::new(block),
        pacing,
        udp_counters_64bit: cfg.udp_counters_64bit,
        grow_buffer: cfg.window == 0,
        zerocopy: cfg.zerocopy,
        file: cfg.file.as_deref(),
        count_tail: false,
    }
}

/// A UDP stream: connected, with its hello answered.
fn open_udp(
    ends: Ends,
    cport: u16,
    opts: &SockOpts,
    blksize: i64,
    sender: bool,
    spec: &BodySpec<'_>,
) -> Result<Opened, String> {
    let s = udp_connect(ends.peer, ends.bind_ip, cport, opts, blksize)?;
    let local = s.local_addr().map_err(|e| e.to_string_c())?;
    let fd = s.as_raw_fd();
    let s = Arc::new(s);
    Ok((fd, local, udp_body(&s, sender, spec), s))
}

/// A TCP stream: connected with the stream options set, and the cookie
/// presented.
fn open_tcp(
    cfg: &Config,
    cookie: &Cookie,
    ends: Ends,
    cport: u16,
    opts: &SockOpts,
    sender: bool,
    spec: &BodySpec<'_>,
) -> Result<OpenedTcp, String> {
    let peer = ends.peer;
    let label = cfg.flowlabel.max(0) as u32;
    let bufs = std::cell::Cell::new(None);
    let prepare = |s: &socket2::Socket, v6: bool| -> Result<(), i32> {
        net::set_window(s, opts.window)?;
        net::apply_tcp_opts(s, opts, v6)?;
        if label != 0 {
            net::flowlabel_mgr(s, &peer, label)?;
        }
        // 3.12 reads the buffer sizes here, before connecting.
        bufs.set(Some(net::buffer_sizes(s.as_raw_fd())));
        Ok(())
    };
    let to = net::with_flowlabel(peer, label);
    let mut t =
        net::connect_tcp(&[to], ends.bind_ip, cport, None, &prepare).map_err(|e| match e {
            net::ConnectError::Io(e) => {
                format!("unable to connect stream: {}", e.to_string_c())
            }
            net::ConnectError::Option(n) => server_error_text(n, 0),
        })?;
    t.write_all(cookie.as_bytes())
        .map_err(|e| format!("unable to connect stream: {}", e.to_string_c()))?;
    let local = t.local_addr().map_err(|e| e.to_string_c())?;
    let fd = t.as_raw_fd();
    let t = Arc::new(t);
    Ok((fd, local, tcp_body(&t, sender, spec)?, t, bufs.get()))
}

fn udp_connect(
    peer: SocketAddr,
    bind_ip: Option<std::net::IpAddr>,
    cport: u16,
    opts: &SockOpts,
    blksize: i64,
) -> Result<UdpSocket, String> {
    let local: SocketAddr = match (bind_ip, peer) {
        (Some(ip), _) => SocketAddr::new(ip, cport),
        (None, SocketAddr::V4(_)) => SocketAddr::new([0u8; 4].into(), cport),
        (None, SocketAddr::V6(_)) => SocketAddr::new([0u16; 8].into(), cport),
    };
    let s = socket2::Socket::new(
        socket2::Domain::for_address(peer),
        socket2::Type::DGRAM,
        None,
    )
    .map_err(|e| format!("unable to create a new stream: {}", e.to_string_c()))?;
    if cport != 0 {
        let _ = s.set_reuse_address(true);
    }
    s.bind(&local.into())
        .map_err(|e| format!("unable to create a new stream: {}", e.to_string_c()))?;
    net::set_window(&s, opts.window).map_err(|n| server_error_text(n, 0))?;
    // Like iperf3: a socket buffer smaller than a datagram is raised.
    if let Ok(b) = s.send_buffer_size() {
        if (b as i64) < blksize {
            let _ = s.set_send_buffer_size(blksize as usize + 1024);
        }
    }
    if let Ok(b) = s.recv_buffer_size() {
        if (b as i64) < blksize {
            let _ = s.set_recv_buffer_size(blksize as usize + 1024);
        }
    }
    net::apply_ip_opts(&s, opts, peer.is_ipv6()).map_err(|n| server_error_text(n, 0))?;
    s.connect(&peer.into())
        .map_err(|e| format!("unable to connect stream: {}", e.to_string_c()))?;
    let s: UdpSocket = s.into();
    s.send(&HELLO)
        .map_err(|e| format!("unable to write to stream socket: {}", e.to_string_c()))?;
    // Wait for the reply; with -R up to two data datagrams may come first.
    s.set_read_timeout(Some(Duration::from_secs(30))).ok();
    let mut buf = vec![0u8; 65536];
    for _ in 0..3 {
        match s.recv(&mut buf) {
            Ok(n) if is_reply(&buf[..n]) => {
                s.set_read_timeout(None).ok();
                return Ok(s);
            }
            Ok(_) => continue,
            Err(e) => {
                return Err(format!(
                    "unable to read from stream socket: {}",
                    e.to_string_c()
                ))
            }
        }
    }
    Err("unable to read from stream socket: no UDP reply from the server".into())
}
