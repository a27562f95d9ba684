//! Socket setup shared by client and server: connecting and listening the
//! way iperf3 does, socket options, TCP_INFO, and peer-address printing.

use socket2::{Domain, Protocol as SockProto, SockAddr, Socket, Type};
use std::io;
use std::net::{IpAddr, SocketAddr, TcpStream, ToSocketAddrs};
use std::os::fd::AsRawFd;
use std::time::Duration;

/// The address as iperf3 prints it: IPv4-mapped IPv6 as plain IPv4.
pub fn show_ip(a: &SocketAddr) -> String {
    match a.ip() {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => v4.to_string(),
            None => v6.to_string(),
        },
        IpAddr::V4(v4) => v4.to_string(),
    }
}

/// Resolve `host:port`, honouring `-4`/`-6`.
pub fn resolve(host: &str, port: u16, v4: bool, v6: bool) -> io::Result<Vec<SocketAddr>> {
    let host = host.split('%').next().unwrap_or(host);
    let addrs: Vec<SocketAddr> = (host, port)
        .to_socket_addrs()?
        .filter(|a| (!v4 || a.is_ipv4()) && (!v6 || a.is_ipv6()))
        .collect();
    if addrs.is_empty() {
        return Err(io::Error::new(
            io::ErrorKind::NotFound,
            "Name or service not known",
        ));
    }
    Ok(addrs)
}

/// Options applied to data sockets before connecting or accepting.
#[derive(Debug, Clone, Default)]
pub struct SockOpts {
    pub window: i64,
    pub mss: i64,
    pub nodelay: bool,
    pub congestion: Option<String>,
    pub tos: i64,
    pub dont_fragment: bool,
    pub fqrate: u64,
    /// `--snd-timeout`: TCP_USER_TIMEOUT in ms.
    pub snd_timeout_ms: Option<u64>,
    /// `--bind-dev` or `host%dev`: SO_BINDTODEVICE.
    pub bind_dev: Option<String>,
}

/// SO_BINDTODEVICE when a device is named (i_errno 143 on failure).
pub fn bind_device(s: &Socket, dev: Option<&str>) -> Result<(), i32> {
    match dev {
        Some(d) if !d.is_empty() => s.bind_device(Some(d.as_bytes())).map_err(|_| 143),
        _ => Ok(()),
    }
}

/// Set a socket's send and receive buffers and check they took (iperf3's
/// IESETBUF2 check: Linux doubles the value, so it must read back ≥ asked).
pub fn set_window(s: &Socket, window: i64) -> Result<(), i32> {
    if window <= 0 {
        return Ok(());
    }
    let w = window as usize;
    s.set_send_buffer_size(w).map_err(|_| 124)?;
    s.set_recv_buffer_size(w).map_err(|_| 124)?;
    let snd = s.send_buffer_size().unwrap_or(0);
    let rcv = s.recv_buffer_size().unwrap_or(0);
    if snd < w || rcv < w {
        return Err(141);
    }
    Ok(())
}

/// Apply `-M -N -C -S --dont-fragment --fq-rate` to a TCP socket.
pub fn apply_tcp_opts(s: &Socket, o: &SockOpts, is_v6: bool) -> Result<(), i32> {
    if let Some(ms) = o.snd_timeout_ms {
        s.set_tcp_user_timeout(Some(std::time::Duration::from_millis(ms)))
            .map_err(|_| 148)?;
    }
    if o.nodelay {
        s.set_nodelay(true).map_err(|_| 122)?;
    }
    if o.mss > 0 {
        s.set_mss(o.mss as u32).map_err(|_| 123)?;
    }
    if let Some(cc) = &o.congestion {
        s.set_tcp_congestion(cc.as_bytes()).map_err(|_| 134)?;
    }
    apply_ip_opts(s, o, is_v6)
}

pub fn apply_ip_opts(s: &Socket, o: &SockOpts, is_v6: bool) -> Result<(), i32> {
    bind_device(s, o.bind_dev.as_deref())?;
    if o.tos > 0 {
        let r = if is_v6 {
            s.set_tclass_v6(o.tos as u32)
        } else {
            s.set_tos(o.tos as u32)
        };
        r.map_err(|_| 125)?;
    }
    if o.dont_fragment && !is_v6 {
        let v: libc::c_int = libc::IP_PMTUDISC_DO;
        // SAFETY: setsockopt with a valid fd and an int option value.
        let r = unsafe {
            libc::setsockopt(
                s.as_raw_fd(),
                libc::IPPROTO_IP,
                libc::IP_MTU_DISCOVER,
                &v as *const _ as *const libc::c_void,
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            )
        };
        if r != 0 {
            return Err(145);
        }
    }
    if o.fqrate > 0 {
        let rate = (o.fqrate / 8) as u32;
        // SAFETY: setsockopt with a valid fd and a u32 option value.
        let r = unsafe {
            libc::setsockopt(
                s.as_raw_fd(),
                libc::SOL_SOCKET,
                libc::SO_MAX_PACING_RATE,
                &rate as *const _ as *const libc::c_void,
                4,
            )
        };
        if r != 0 {
            return Err(140);
        }
    }
    Ok(())
}

/// Connect a TCP socket to one of `addrs`, optionally bound to `bind`/`cport`.
pub fn connect_tcp(
    addrs: &[SocketAddr],
    bind: Option<IpAddr>,
    cport: u16,
    timeout: Option<Duration>,
    prepare: &dyn Fn(&Socket, bool) -> Result<(), i32>,
) -> Result<TcpStream, ConnectError> {
    let mut last = io::Error::new(io::ErrorKind::NotFound, "no address");
    for a in addrs {
        let s = Socket::new(Domain::for_address(*a), Type::STREAM, Some(SockProto::TCP))
            .map_err(ConnectError::Io)?;
        prepare(&s, a.is_ipv6()).map_err(ConnectError::Option)?;
        if bind.is_some() || cport != 0 {
            let ip = bind.unwrap_or(if a.is_ipv6() {
                IpAddr::from([0u16; 8])
            } else {
                IpAddr::from([0u8; 4])
            });
            let _ = s.set_reuse_address(true);
            s.bind(&SockAddr::from(SocketAddr::new(ip, cport)))
                .map_err(ConnectError::Io)?;
        }
        let r = match timeout {
            Some(t) => s.connect_timeout(&SockAddr::from(*a), t),
            None => s.connect(&SockAddr::from(*a)),
        };
        match r {
            Ok(()) => return Ok(s.into()),
            Err(e) => last = e,
        }
    }
    Err(ConnectError::Io(last))
}

#[derive(Debug)]
pub enum ConnectError {
    Io(io::Error),
    /// An iperf3 i_errno for a socket option that failed.
    Option(i32),
}

/// What iperf3 shows from TCP_INFO.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TcpInfo {
    pub retransmits: u64,
    pub snd_cwnd: u64,
    pub snd_wnd: u64,
    pub rtt: u64,
    pub rttvar: u64,
    pub pmtu: u64,
}

/// Byte offsets in the kernel's `struct tcp_info` (stable ABI; `snd_wnd`
/// since Linux 5.4).
mod ti_off {
    pub const SND_MSS: usize = 16;
    pub const PMTU: usize = 60;
    pub const RTT: usize = 68;
    pub const RTTVAR: usize = 72;
    pub const SND_CWND: usize = 80;
    pub const TOTAL_RETRANS: usize = 100;
    pub const SND_WND: usize = 228;
}

/// Read TCP_INFO (cwnd in bytes = snd_cwnd × snd_mss, as iperf3 reports).
pub fn tcp_info(fd: i32) -> Option<TcpInfo> {
    // u64 storage keeps the buffer aligned for the kernel's struct.
    let mut raw = [0u64; 40];
    let mut len = std::mem::size_of_val(&raw) as libc::socklen_t;
    // SAFETY: getsockopt writes at most `len` bytes into `raw`.
    let r = unsafe {
        libc::getsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_INFO,
            raw.as_mut_ptr() as *mut libc::c_void,
            &mut len,
        )
    };
    if r != 0 {
        return None;
    }
    let len = len as usize;
    let mut bytes = [0u8; 320];
    for (chunk, w) in bytes.chunks_exact_mut(8).zip(raw.iter()) {
        chunk.copy_from_slice(&w.to_ne_bytes());
    }
    let at = |o: usize| -> u64 {
        if o + 4 <= len {
            u32::from_ne_bytes([bytes[o], bytes[o + 1], bytes[o + 2], bytes[o + 3]]) as u64
        } else {
            0
        }
    };
    Some(TcpInfo {
        retransmits: at(ti_off::TOTAL_RETRANS),
        snd_cwnd: at(ti_off::SND_CWND) * at(ti_off::SND_MSS),
        snd_wnd: at(ti_off::SND_WND),
        rtt: at(ti_off::RTT),
        rttvar: at(ti_off::RTTVAR),
        pmtu: at(ti_off::PMTU),
    })
}

/// The control connection's MSS (TCP_MAXSEG).
pub fn tcp_mss(fd: i32) -> i64 {
    let mut v: libc::c_int = 0;
    let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: getsockopt into an int.
    let r = unsafe {
        libc::getsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_MAXSEG,
            &mut v as *mut _ as *mut libc::c_void,
            &mut len,
        )
    };
    if r == 0 {
        v as i64
    } else {
        0
    }
}

/// The congestion algorithm in use on a TCP socket.
pub fn congestion_of(fd: i32) -> Option<String> {
    let mut buf = [0u8; 16];
    let mut len = buf.len() as libc::socklen_t;
    // SAFETY: getsockopt into a 16-byte buffer.
    let r = unsafe {
        libc::getsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_CONGESTION,
            buf.as_mut_ptr() as *mut libc::c_void,
            &mut len,
        )
    };
    if r != 0 {
        return None;
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(len as usize);
    Some(String::from_utf8_lossy(&buf[..end]).into_owned())
}

/// Actual (kernel-doubled) send and receive buffer sizes.
pub fn buffer_sizes(fd: i32) -> (i64, i64) {
    let get = |opt| {
        let mut v: libc::c_int = 0;
        let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
        // SAFETY: getsockopt into an int.
        unsafe {
            libc::getsockopt(
                fd,
                libc::SOL_SOCKET,
                opt,
                &mut v as *mut _ as *mut libc::c_void,
                &mut len,
            )
        };
        v as i64
    };
    (get(libc::SO_SNDBUF), get(libc::SO_RCVBUF))
}

fn timespec(d: Duration) -> libc::timespec {
    libc::timespec {
        tv_sec: d.as_secs().min(i32::MAX as u64) as libc::time_t,
        tv_nsec: d.subsec_nanos() as libc::c_long,
    }
}

/// Wait until `fd` is readable or `timeout` passes; true when readable.
pub fn wait_readable(fd: i32, timeout: Duration) -> bool {
    let mut p = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    let ts = timespec(timeout);
    // SAFETY: one valid pollfd and a valid timespec.
    let r = unsafe { libc::ppoll(&mut p, 1, &ts, std::ptr::null()) };
    r > 0
}

/// A wake-up one thread sends another that sleeps in [`wait_woken`]: an
/// eventfd, readable from the first notification until the sleeper takes
/// it. It lets the control thread sleep until a stream thread ends instead
/// of polling for the end every few milliseconds (iperf3 has one thread
/// and makes no such wake-ups).
pub struct Wake(std::fs::File);

impl Wake {
    pub fn new() -> io::Result<Wake> {
        use std::os::fd::FromRawFd;
        // SAFETY: eventfd(2) with constant flags; the fd is owned below.
        let fd = unsafe { libc::eventfd(0, libc::EFD_CLOEXEC | libc::EFD_NONBLOCK) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: a fresh descriptor nobody else owns.
        Ok(Wake(unsafe { std::fs::File::from_raw_fd(fd) }))
    }

    /// Wake the sleeper (now, or at its next wait): add 1 to the counter.
    pub fn notify(&self) {
        let _ = io::Write::write(&mut &self.0, &1u64.to_ne_bytes());
    }

    /// Take the notifications sent so far (the counter back to 0).
    fn take(&self) {
        let _ = io::Read::read(&mut &self.0, &mut [0u8; 8]);
    }

    /// Whether a notification waits, taking it (tests).
    #[cfg(test)]
    pub fn take_pending(&self) -> bool {
        let pending = wait_readable(self.0.as_raw_fd(), Duration::ZERO);
        self.take();
        pending
    }
}

/// As [`wait_readable`], and also back early when `wake` was notified
/// (the notification is taken). True when `fd` is readable.
pub fn wait_woken(fd: i32, wake: Option<&Wake>, timeout: Duration) -> bool {
    let Some(w) = wake else {
        return wait_readable(fd, timeout);
    };
    let mut p = [fd, w.0.as_raw_fd()].map(|fd| libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    });
    let ts = timespec(timeout);
    // SAFETY: our own array of two pollfds and a valid timespec.
    let r = unsafe { libc::ppoll(p.as_mut_ptr(), 2, &ts, std::ptr::null()) };
    if r > 0 && p[1].revents != 0 {
        w.take();
    }
    r > 0 && p[0].revents != 0
}

/// UDP buffers: `-w` if given, and never smaller than one datagram.
pub fn set_window_udp(s: &std::net::UdpSocket, window: i64, len: i64) {
    let sr = socket2::SockRef::from(s);
    if window > 0 {
        let _ = sr.set_send_buffer_size(window as usize);
        let _ = sr.set_recv_buffer_size(window as usize);
    }
    if sr.send_buffer_size().is_ok_and(|b| (b as i64) < len) {
        let _ = sr.set_send_buffer_size(len as usize + 1024);
    }
    if sr.recv_buffer_size().is_ok_and(|b| (b as i64) < len) {
        let _ = sr.set_recv_buffer_size(len as usize + 1024);
    }
}

/// Bytes written to a TCP socket and not yet acknowledged (SIOCOUTQ).
pub fn unacked_bytes(fd: i32) -> i64 {
    let mut v: libc::c_int = 0;
    // SAFETY: SIOCOUTQ (TIOCOUTQ) writes one int.
    let r = unsafe { libc::ioctl(fd, libc::TIOCOUTQ, &mut v) };
    if r == 0 {
        v as i64
    } else {
        0
    }
}

/// `-L`: the peer address carrying the IPv6 flow label.
pub fn with_flowlabel(peer: SocketAddr, label: u32) -> SocketAddr {
    match peer {
        SocketAddr::V6(a) if label != 0 => SocketAddr::V6(std::net::SocketAddrV6::new(
            *a.ip(),
            a.port(),
            (label & 0xfffff).to_be(),
            a.scope_id(),
        )),
        other => other,
    }
}

/// `-L`: lease the flow label for the peer and send it (Linux's
/// IPV6_FLOWLABEL_MGR; i_errno 127 when it cannot be set).
pub fn flowlabel_mgr(s: &Socket, peer: &SocketAddr, label: u32) -> Result<(), i32> {
    const IPV6_FLOWLABEL_MGR: libc::c_int = 32;
    const IPV6_FLOWINFO_SEND: libc::c_int = 33;
    #[repr(C)]
    struct FlowLabelReq {
        dst: [u8; 16],
        label: u32,
        action: u8,
        share: u8,
        flags: u16,
        expires: u16,
        linger: u16,
        pad: u32,
    }
    let SocketAddr::V6(a) = peer else {
        return Err(127);
    };
    let req = FlowLabelReq {
        dst: a.ip().octets(),
        label: (label & 0xfffff).to_be(),
        action: 0,  // IPV6_FL_A_GET
        share: 255, // IPV6_FL_S_ANY
        flags: 1,   // IPV6_FL_F_CREATE
        expires: 0,
        linger: 0,
        pad: 0,
    };
    let one: libc::c_int = 1;
    // SAFETY: setsockopt with plain-data option values of the stated sizes.
    let ok = unsafe {
        libc::setsockopt(
            s.as_raw_fd(),
            libc::IPPROTO_IPV6,
            IPV6_FLOWLABEL_MGR,
            &req as *const _ as *const libc::c_void,
            std::mem::size_of::<FlowLabelReq>() as libc::socklen_t,
        ) == 0
            && libc::setsockopt(
                s.as_raw_fd(),
                libc::IPPROTO_IPV6,
                IPV6_FLOWINFO_SEND,
                &one as *const _ as *const libc::c_void,
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            ) == 0
    };
    if ok {
        Ok(())
    } else {
        Err(127)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::unix::net::UnixStream;

    #[test]
    fn a_wake_is_seen_once_and_taken() {
        let (mut a, b) = UnixStream::pair().unwrap();
        let w = Wake::new().unwrap();
        let wake_fd = w.0.as_raw_fd();
        assert!(!wait_readable(wake_fd, Duration::ZERO), "nothing sent yet");
        w.notify();
        w.notify();
        assert!(wait_readable(wake_fd, Duration::ZERO), "notified");
        // Woken, `b` not readable: false, and both notifications taken.
        assert!(!wait_woken(
            b.as_raw_fd(),
            Some(&w),
            Duration::from_secs(30)
        ));
        assert!(!wait_readable(wake_fd, Duration::ZERO), "taken");
        a.write_all(b"x").unwrap();
        assert!(wait_woken(b.as_raw_fd(), Some(&w), Duration::from_secs(30)));
        assert!(wait_woken(b.as_raw_fd(), None, Duration::from_secs(30)));
    }
}
