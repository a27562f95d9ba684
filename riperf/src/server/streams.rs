//! Stream setup on the server: accept the client's data connections
//! (cookie-checked TCP, hello-checked UDP), set their options and build the
//! thread bodies that will drive them.

use super::accept::{bind_udp, tcp_accept, udp_accept};
use super::TestError;
use crate::ctrl::Ctrl;
use crate::net::{self, SockOpts};
use crate::options::Config;
use crate::protocol::errors::code;
use crate::protocol::{Cookie, TestParams};
use crate::report::{Report, StartInfo};
use crate::session::Session;
use crate::stream::setup::{register, tcp_body, udp_body, BodySpec, NewStream};
use crate::stream::{payload, Pacing, StreamIo};
use rbench_common::clock::now_ns;
use std::net::{IpAddr, SocketAddr, TcpListener, UdpSocket};
use std::os::fd::AsRawFd;
use std::sync::Arc;

/// One accepted stream: its descriptor, local and remote addresses, the
/// body that will drive it, and what keeps its socket alive.
type Accepted = (
    i32,
    SocketAddr,
    SocketAddr,
    Box<dyn StreamIo>,
    Arc<dyn std::any::Any + Send + Sync>,
);

/// Accept the test's `nstreams` data streams into `session`; the bodies for
/// their threads, in the same order.
#[allow(clippy::too_many_arguments)]
pub fn accept_streams(
    cfg: &Config,
    p: &TestParams,
    listener: &TcpListener,
    ctrl: &mut Ctrl,
    cookie: &Cookie,
    mut udp_sock: Option<UdpSocket>,
    opts: &SockOpts,
    local_ip: Option<IpAddr>,
    session: &mut Session,
    report: &mut Report,
    info: &mut StartInfo,
) -> Result<Vec<Box<dyn StreamIo>>, TestError> {
    let udp = udp_sock.is_some();
    let nstreams = if p.bidirectional {
        2 * p.parallel
    } else {
        p.parallel
    } as usize;
    let spec = body_spec(cfg, p);
    let mut bodies: Vec<Box<dyn StreamIo>> = Vec::new();
    // 30 s for every stream to arrive (less with --idle-timeout).
    let deadline = now_ns() + 3 * super::step_timeout(cfg).as_nanos() as u64;
    for i in 0..nstreams {
        // Client stream i: the first P send in bidir mode (so we receive).
        let sender = if p.bidirectional {
            i >= p.parallel as usize
        } else {
            p.reverse
        };
        let (fd, local, remote, io, keep) = if udp {
            let s = udp_sock
                .take()
                .ok_or_else(|| TestError::code(code::IESTREAMLISTEN))?;
            let (accepted, next) = accept_udp(cfg, p, listener, ctrl, s, deadline, sender, &spec)?;
            udp_sock = Some(next);
            accepted
        } else {
            let v6 = local_ip.is_some_and(|i| i.is_ipv6());
            accept_tcp(
                p,
                listener,
                ctrl,
                cookie,
                deadline,
                (opts, v6),
                sender,
                &spec,
            )?
        };
        // 3.12 reads the buffer sizes from its listener (with -w set on it).
        let bufs =
            (i == 0 && !udp && p.window == 0).then(|| net::buffer_sizes(listener.as_raw_fd()));
        let new = NewStream {
            index: i,
            fd,
            sender,
            udp,
            local,
            remote,
            keep,
            bufs,
        };
        register(new, session, report, info);
        bodies.push(io);
    }
    drop(udp_sock);
    Ok(bodies)
}

/// What the stream bodies send and how fast, from the client's
/// parameters: the block, its pacing and the --file to send or write.
fn body_spec<'a>(cfg: &'a Config, p: &TestParams) -> BodySpec<'a> {
    let block = payload(p.len as usize, p.repeating_payload);
    let pacing = Pacing {
        rate: p.bandwidth,
        burst: p.burst.max(0) as u64,
        pacing_timer_us: p.pacing_timer.max(1) as u64,
    };
    BodySpec {
        len: p.len as usize,
        block: Arc::new(block),
        pacing,
        udp_counters_64bit: p.udp_counters_64bit,
        grow_buffer: p.window == 0,
        zerocopy: p.zerocopy,
        file: cfg.file.as_deref(),
        count_tail: true,
    }
}

/// A UDP stream on socket `s`, and the listener bound for the next one.
#[allow(clippy::too_many_arguments)]
fn accept_udp(
    cfg: &Config,
    p: &TestParams,
    listener: &TcpListener,
    ctrl: &mut Ctrl,
    s: UdpSocket,
    deadline: u64,
    sender: bool,
    spec: &BodySpec<'_>,
) -> Result<(Accepted, UdpSocket), TestError> {
    // The next stream's listener is bound before the reply goes
    // out, as iperf3 does: the client sends its next hello as soon
    // as it has the reply.
    let (s, remote, next) = udp_accept(s, ctrl, deadline, || {
        bind_udp(listener, cfg.port).map_err(|_| TestError::code(code::IESTREAMLISTEN))
    })?;
    net::set_window_udp(&s, p.window, p.len);
    let local = s
        .local_addr()
        .map_err(|_| TestError::code(code::IESTREAMACCEPT))?;
    let fd = s.as_raw_fd();
    let s = Arc::new(s);
    Ok(((fd, local, remote, udp_body(&s, sender, spec), s), next))
}

/// A TCP stream that presented the cookie, with the stream options set
/// (`opts`, for IPv6 when `v6`).
#[allow(clippy::too_many_arguments)]
fn accept_tcp(
    p: &TestParams,
    listener: &TcpListener,
    ctrl: &mut Ctrl,
    cookie: &Cookie,
    deadline: u64,
    (opts, v6): (&SockOpts, bool),
    sender: bool,
    spec: &BodySpec<'_>,
) -> Result<Accepted, TestError> {
    let t = tcp_accept(listener, ctrl, cookie, deadline)?;
    {
        let sr = socket2::SockRef::from(&t);
        net::set_window(&sr, p.window).map_err(TestError::code)?;
        net::apply_tcp_opts(&sr, opts, v6).map_err(TestError::code)?;
    }
    let local = t
        .local_addr()
        .map_err(|_| TestError::code(code::IESTREAMACCEPT))?;
    let remote = t
        .peer_addr()
        .map_err(|_| TestError::code(code::IESTREAMACCEPT))?;
    let fd = t.as_raw_fd();
    let t = Arc::new(t);
    let io = tcp_body(&t, sender, spec).map_err(TestError::log)?;
    Ok((fd, local, remote, io, t))
}
