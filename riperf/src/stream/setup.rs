//! What client and server do alike once a data socket is connected (by
//! `client::streams`) or accepted (by `server::streams`): build the thread
//! body for the stream's direction and protocol, and register the stream
//! (the `[  5] local … connected to …` line, `start.connected`, the session).

use super::buf::PageBuf;
use super::tcp::{TcpReceiver, TcpSender};
use super::udp::{UdpReceiver, UdpSender};
use super::{open_file, stream_id, Counters, Pacing, Stream, StreamIo};
use crate::net::{self, show_ip};
use crate::report::{Connected, Report, StartInfo};
use crate::session::Session;
use std::net::{SocketAddr, TcpStream, UdpSocket};
use std::sync::Arc;

/// The test's settings every stream body of one side shares.
pub struct BodySpec<'a> {
    /// Block (TCP) or datagram (UDP) length.
    pub len: usize,
    /// The payload block: each UDP sender has its own copy (it writes its
    /// headers into it), TCP senders share this one.
    pub block: Arc<PageBuf>,
    pub pacing: Pacing,
    pub udp_counters_64bit: bool,
    /// `-w` not given: a UDP receiver may grow its buffer.
    pub grow_buffer: bool,
    pub zerocopy: bool,
    /// `-F`.
    pub file: Option<&'a str>,
    /// TCP receiver counts what is still buffered after TEST_END (server).
    pub count_tail: bool,
}

/// A UDP stream's thread body.
pub fn udp_body(sock: &Arc<UdpSocket>, sender: bool, spec: &BodySpec) -> Box<dyn StreamIo> {
    if sender {
        Box::new(UdpSender {
            sock: sock.clone(),
            len: spec.len,
            payload: spec.block.to_vec(),
            pacing: spec.pacing,
            counters_64bit: spec.udp_counters_64bit,
        })
    } else {
        Box::new(UdpReceiver {
            sock: sock.clone(),
            len: spec.len,
            counters_64bit: spec.udp_counters_64bit,
            grow_buffer: spec.grow_buffer,
        })
    }
}

/// A TCP stream's thread body; fails only when the `-F` file cannot be opened.
pub fn tcp_body(
    sock: &Arc<TcpStream>,
    sender: bool,
    spec: &BodySpec,
) -> Result<Box<dyn StreamIo>, String> {
    let file = open_file(spec.file, sender)?;
    Ok(if sender {
        Box::new(TcpSender {
            sock: sock.clone(),
            block: spec.block.clone(),
            pacing: spec.pacing,
            zerocopy: spec.zerocopy,
            file,
        })
    } else {
        Box::new(TcpReceiver {
            sock: sock.clone(),
            buf: PageBuf::zeroed(spec.len),
            count_tail: spec.count_tail,
            file,
        })
    })
}

/// A connected data stream, before it is registered.
pub struct NewStream {
    /// Its position in connect/accept order.
    pub index: usize,
    pub fd: i32,
    pub sender: bool,
    pub udp: bool,
    pub local: SocketAddr,
    pub remote: SocketAddr,
    /// The socket, kept open as long as the stream.
    pub keep: Arc<dyn std::any::Any + Send + Sync>,
    /// Send and receive buffer sizes as 3.12 reads them for `start`: a
    /// TCP client before it connects, a TCP server from its listener (the
    /// kernel grows a connected socket's send buffer, 16 KiB to 4 MiB on
    /// loopback). None: read them from the socket now.
    pub bufs: Option<(i64, i64)>,
}

/// Announce and keep the stream: its line in the text report, its entry in
/// `start.connected` (the first stream's buffer sizes too), its place in
/// the session.
pub fn register(s: NewStream, session: &mut Session, report: &mut Report, info: &mut StartInfo) {
    if s.index == 0 {
        let (snd, rcv) = s.bufs.unwrap_or_else(|| net::buffer_sizes(s.fd));
        info.sndbuf_actual = snd;
        info.rcvbuf_actual = rcv;
    }
    report.text(&format!(
        "[{:>3}] local {} port {} connected to {} port {}",
        s.fd,
        show_ip(&s.local),
        s.local.port(),
        show_ip(&s.remote),
        s.remote.port()
    ));
    info.connected.push(Connected {
        socket: s.fd,
        local_host: show_ip(&s.local),
        local_port: s.local.port(),
        remote_host: show_ip(&s.remote),
        remote_port: s.remote.port(),
    });
    session.streams.push(Stream {
        id: stream_id(s.index),
        socket: s.fd,
        sender: s.sender,
        udp: s.udp,
        local: s.local,
        remote: s.remote,
        counters: Arc::new(Counters::default()),
        thread: None,
        fd: s.fd,
        keep: Some(s.keep),
        grouped: false,
    });
}
