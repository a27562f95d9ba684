//! `ioengine=net` and `netsplice`: I/O over a TCP, UDP or UNIX socket, as
//! fio's net engine, so either end can be fio. A reader with `listen`
//! (always, for UDP and UNIX) binds `port` (or the UNIX path) when the
//! engine is made and accepts its one peer as the job starts; a writer
//! connects to `hostname`:`port`. UDP links open and close with fio's
//! 8-byte link messages, and each datagram of bs >= 24 ends in fio's
//! sequence trailer. `pingpong` answers each I/O with one of the other
//! direction. The job ends when the peer closes the link. netsplice moves
//! TCP data through a pipe (splice/vmsplice).

use super::Config as JobConfig;
use super::{Engine, InitFailure, InitSite, IoKind, IoUnit, Queued};
use std::ffi::CString;
use std::io;
use std::net::{SocketAddr, ToSocketAddrs};

const LINK_MAGIC: u32 = 0x6c69_6e6b;
const LINK_OPEN: u32 = 0x98;
const LINK_CLOSE: u32 = 0x89;
const UDP_SEQ_MAGIC: u64 = 0x6573_7571_6e55_6563;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Proto {
    Tcp,
    Udp,
    Unix,
}

/// What the job asks of the link, read from its options once.
#[derive(Debug, Clone)]
struct Config {
    proto: Proto,
    v6: bool,
    listen: bool,
    pingpong: bool,
    nodelay: bool,
    window: u32,
    mss: u32,
    ttl: u32,
    host: Option<String>,
    port: u16,
    /// Bytes the job writes (MSG_MORE until the last one).
    size: u64,
    reads: bool,
    splice: bool,
}

pub struct Net {
    cfg: Config,
    /// The bound socket of a listener (TCP/UNIX: accepts; UDP: the link).
    listen_fd: libc::c_int,
    /// The link.
    fd: libc::c_int,
    /// The peer (UDP): where datagrams go; a listener learns it.
    peer: Option<SocketAddr>,
    seq: u64,
    written: u64,
    ended: bool,
    /// netsplice's pipe.
    pipe: [libc::c_int; 2],
}

fn refuse(msg: &str) -> InitFailure {
    InitFailure {
        errno: libc::EPERM,
        before: format!("fio: {msg}\n"),
        site: None,
    }
}

fn os_failure(func: &'static str, at: &'static str) -> InitFailure {
    InitFailure {
        errno: io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EIO),
        before: String::new(),
        site: Some(InitSite {
            at,
            func,
            error: None,
        }),
    }
}

fn errno_of(e: &InitFailure) -> io::Error {
    io::Error::from_raw_os_error(e.errno)
}

impl Config {
    fn from_job(cfg: &JobConfig) -> Result<Config, InitFailure> {
        let o = &cfg.opts;
        let proto_word = o.choice("protocol").0;
        let proto = match proto_word.as_str() {
            "udp" | "udpv6" => Proto::Udp,
            "unix" => Proto::Unix,
            _ => Proto::Tcp,
        };
        if cfg.random {
            return Err(refuse("network IO can't be random"));
        }
        let port = o.int("port");
        if proto == Proto::Unix && port != 0 {
            return Err(refuse("network IO port not valid with unix socket"));
        }
        if proto != Proto::Unix && port == 0 {
            return Err(refuse("network IO requires port for tcp or udp"));
        }
        let host = o.text("hostname").or_else(|| o.text("filename"));
        let mut listen = o.flag("listen");
        if proto != Proto::Tcp {
            if listen {
                return Err(refuse("listen only valid for TCP proto IO"));
            }
            if cfg.reads && cfg.writes {
                return Err(refuse("datagram network connections must be read OR write"));
            }
            if proto == Proto::Unix && host.is_none() {
                return Err(refuse("UNIX sockets need host/filename"));
            }
            listen = cfg.reads;
        }
        Ok(Config {
            proto,
            v6: proto_word.ends_with("v6"),
            listen,
            pingpong: o.flag("pingpong"),
            nodelay: o.flag("nodelay"),
            window: o.int("window_size").max(0) as u32,
            mss: o.int("mss").max(0) as u32,
            ttl: o.int("ttl").max(0) as u32,
            host,
            // fio adds the clone's number (numjobs=N listens on N ports).
            port: (port as u64 + cfg.clone as u64) as u16,
            size: match cfg.size {
                Some(rbench_common::units::fio::SizeOrPercent::Bytes(b)) => b,
                _ => u64::MAX,
            },
            reads: cfg.reads,
            splice: cfg.engine == "netsplice",
        })
    }

    fn is_multicast(&self) -> bool {
        self.host
            .as_deref()
            .and_then(|h| h.parse::<std::net::Ipv4Addr>().ok())
            .is_some_and(|a| a.is_multicast())
    }
}

impl Net {
    pub fn new(cfg: &JobConfig) -> Result<Self, InitFailure> {
        let cfg = Config::from_job(cfg)?;
        let mut net = Net {
            cfg,
            listen_fd: -1,
            fd: -1,
            peer: None,
            seq: 0,
            written: 0,
            ended: false,
            pipe: [-1; 2],
        };
        if net.cfg.splice {
            // SAFETY: pipe(2) into our own array.
            if unsafe { libc::pipe(net.pipe.as_mut_ptr()) } < 0 {
                return Err(os_failure("pipe", "engines/net.c:1396"));
            }
        }
        if net.cfg.listen {
            net.bind()?;
        } else {
            net.peer = net.resolve()?;
        }
        Ok(net)
    }

    /// The line fio prints as a listener waits for its peer.
    pub fn banner(cfg: &JobConfig) -> Option<String> {
        let tcp = !matches!(
            cfg.opts.choice("protocol").0.as_str(),
            "udp" | "udpv6" | "unix"
        );
        (tcp && cfg.opts.flag("listen") || cfg.opts.choice("protocol").0 == "unix" && cfg.reads)
            .then(|| "fio: waiting for connection\n".to_string())
    }

    /// The writer's peer address (UNIX: none, the path is used).
    fn resolve(&self) -> Result<Option<SocketAddr>, InitFailure> {
        if self.cfg.proto == Proto::Unix {
            return Ok(None);
        }
        let Some(host) = &self.cfg.host else {
            let mut before = "fio: connect with no host to connect to.\n".to_string();
            if self.cfg.reads {
                before.push_str("fio: did you forget to set 'listen'?\n");
            }
            return Err(InitFailure {
                errno: libc::EINVAL,
                before,
                site: Some(InitSite {
                    at: "engines/net.c:1066",
                    func: "no hostname= set",
                    error: None,
                }),
            });
        };
        let found = (host.as_str(), self.cfg.port)
            .to_socket_addrs()
            .ok()
            .and_then(|mut a| a.find(|a| a.is_ipv6() == self.cfg.v6));
        match found {
            Some(a) => Ok(Some(a)),
            None => Err(InitFailure {
                errno: libc::EINVAL,
                before: String::new(),
                site: Some(InitSite {
                    at: "engines/net.c:1036",
                    func: "getaddrinfo: Name or service not known",
                    error: None,
                }),
            }),
        }
    }

    fn socket(&self) -> libc::c_int {
        let domain = match (self.cfg.proto, self.cfg.v6) {
            (Proto::Unix, _) => libc::AF_UNIX,
            (_, true) => libc::AF_INET6,
            _ => libc::AF_INET,
        };
        let ty = if self.cfg.proto == Proto::Udp {
            libc::SOCK_DGRAM
        } else {
            libc::SOCK_STREAM
        };
        // SAFETY: socket(2).
        unsafe { libc::socket(domain, ty | libc::SOCK_CLOEXEC, 0) }
    }
}

/// A socket address as the C library takes it.
fn raw_addr(a: &SocketAddr) -> (libc::sockaddr_storage, libc::socklen_t) {
    // SAFETY: sockaddr_storage is plain data; all zeroes is valid.
    let mut ss: libc::sockaddr_storage = unsafe { std::mem::zeroed() };
    let len = match a {
        SocketAddr::V4(v4) => {
            // SAFETY: sockaddr_storage is large and aligned enough for any
            // sockaddr.
            let sin = unsafe { &mut *(&mut ss as *mut _ as *mut libc::sockaddr_in) };
            sin.sin_family = libc::AF_INET as libc::sa_family_t;
            sin.sin_port = v4.port().to_be();
            sin.sin_addr.s_addr = u32::from(*v4.ip()).to_be();
            std::mem::size_of::<libc::sockaddr_in>()
        }
        SocketAddr::V6(v6) => {
            // SAFETY: as above.
            let sin6 = unsafe { &mut *(&mut ss as *mut _ as *mut libc::sockaddr_in6) };
            sin6.sin6_family = libc::AF_INET6 as libc::sa_family_t;
            sin6.sin6_port = v6.port().to_be();
            sin6.sin6_addr.s6_addr = v6.ip().octets();
            std::mem::size_of::<libc::sockaddr_in6>()
        }
    };
    (ss, len as libc::socklen_t)
}

/// The address a datagram came from.
fn from_raw(ss: &libc::sockaddr_storage) -> Option<SocketAddr> {
    match ss.ss_family as libc::c_int {
        libc::AF_INET => {
            // SAFETY: the family says what the storage holds.
            let sin = unsafe { &*(ss as *const _ as *const libc::sockaddr_in) };
            let ip = std::net::Ipv4Addr::from(u32::from_be(sin.sin_addr.s_addr));
            Some(SocketAddr::from((ip, u16::from_be(sin.sin_port))))
        }
        libc::AF_INET6 => {
            // SAFETY: as above.
            let sin6 = unsafe { &*(ss as *const _ as *const libc::sockaddr_in6) };
            let ip = std::net::Ipv6Addr::from(sin6.sin6_addr.s6_addr);
            Some(SocketAddr::from((ip, u16::from_be(sin6.sin6_port))))
        }
        _ => None,
    }
}

/// A UNIX socket address for `path`.
fn unix_addr(path: &str) -> (libc::sockaddr_un, libc::socklen_t) {
    // SAFETY: plain data; all zeroes is valid.
    let mut un: libc::sockaddr_un = unsafe { std::mem::zeroed() };
    un.sun_family = libc::AF_UNIX as libc::sa_family_t;
    for (d, s) in un.sun_path.iter_mut().zip(path.bytes().take(107)) {
        *d = s as libc::c_char;
    }
    let len = std::mem::size_of::<libc::sa_family_t>() + path.len().min(107) + 1;
    (un, len as libc::socklen_t)
}

fn setopt(fd: libc::c_int, level: libc::c_int, name: libc::c_int, v: u32) -> bool {
    // SAFETY: setsockopt with a local int.
    unsafe {
        libc::setsockopt(
            fd,
            level,
            name,
            (&v as *const u32).cast(),
            std::mem::size_of::<u32>() as libc::socklen_t,
        ) == 0
    }
}

/// Wait until `fd` is ready for `events`, giving up when rfio is stopped.
fn poll_wait(fd: libc::c_int, events: libc::c_short) -> bool {
    loop {
        let mut p = libc::pollfd {
            fd,
            events,
            revents: 0,
        };
        // SAFETY: poll on one pollfd of our own.
        let r = unsafe { libc::poll(&mut p, 1, 200) };
        if r > 0 {
            return p.revents & events != 0;
        }
        if r < 0 && io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            return false;
        }
        if rbench_common::stop::should_stop() {
            return false;
        }
    }
}

impl Net {
    /// Window size and MSS, as fio sets them on every socket it makes.
    fn tune(&self, fd: libc::c_int) -> Result<(), InitFailure> {
        let c = &self.cfg;
        if c.window > 0 {
            if (c.listen || c.pingpong) && !setopt(fd, libc::SOL_SOCKET, libc::SO_RCVBUF, c.window)
            {
                return Err(os_failure("rcvbuf window size", "engines/net.c:243"));
            }
            if (!c.listen || c.pingpong) && !setopt(fd, libc::SOL_SOCKET, libc::SO_SNDBUF, c.window)
            {
                return Err(os_failure("sndbuf window size", "engines/net.c:250"));
            }
        }
        if c.mss > 0
            && c.proto == Proto::Tcp
            && !setopt(fd, libc::IPPROTO_TCP, libc::TCP_MAXSEG, c.mss)
        {
            return Err(os_failure("setsockopt TCP_MAXSEG", "engines/net.c:276"));
        }
        Ok(())
    }

    /// The listener's socket, bound (and listening for TCP/UNIX).
    fn bind(&mut self) -> Result<(), InitFailure> {
        let fd = self.socket();
        if fd < 0 {
            return Err(os_failure("socket", "engines/net.c:1183"));
        }
        self.listen_fd = fd;
        let r = if self.cfg.proto == Proto::Unix {
            let path = self.cfg.host.clone().unwrap_or_default();
            if let Ok(c) = CString::new(path.as_str()) {
                // SAFETY: unlinking a stale socket path, as fio does.
                unsafe { libc::unlink(c.as_ptr()) };
            }
            let (un, len) = unix_addr(&path);
            // SAFETY: bind with a sockaddr_un of our own.
            unsafe { libc::bind(fd, (&un as *const libc::sockaddr_un).cast(), len) }
        } else {
            for o in [libc::SO_REUSEADDR, libc::SO_REUSEPORT] {
                if !setopt(fd, libc::SOL_SOCKET, o, 1) {
                    return Err(os_failure("setsockopt", "engines/net.c:1192"));
                }
            }
            self.tune(fd)?;
            if self.cfg.host.is_some() {
                self.join_group(fd)?;
            }
            let any: SocketAddr = if self.cfg.v6 {
                (std::net::Ipv6Addr::UNSPECIFIED, self.cfg.port).into()
            } else {
                let ip = self
                    .cfg
                    .host
                    .as_deref()
                    .and_then(|h| h.parse().ok())
                    .unwrap_or(std::net::Ipv4Addr::UNSPECIFIED);
                (ip, self.cfg.port).into()
            };
            let (ss, len) = raw_addr(&any);
            // SAFETY: bind with a sockaddr of our own.
            unsafe { libc::bind(fd, (&ss as *const libc::sockaddr_storage).cast(), len) }
        };
        if r < 0 {
            return Err(os_failure("bind", "engines/net.c:1263"));
        }
        // SAFETY: listen(2) on our socket.
        if self.cfg.proto != Proto::Udp && unsafe { libc::listen(fd, 10) } < 0 {
            return Err(os_failure("listen", "engines/net.c:1287"));
        }
        Ok(())
    }

    /// A UDP listener given a host: it must be a multicast group to join.
    fn join_group(&self, fd: libc::c_int) -> Result<(), InitFailure> {
        if self.cfg.proto != Proto::Udp || !self.cfg.is_multicast() {
            return Err(refuse(
                "hostname not valid for non-multicast inbound network IO",
            ));
        }
        if self.cfg.v6 {
            return Err(refuse("IPv6 not supported for multicast network IO"));
        }
        let group: std::net::Ipv4Addr = self.cfg.host.as_deref().unwrap_or("").parse().unwrap();
        let mr = libc::ip_mreq {
            imr_multiaddr: libc::in_addr {
                s_addr: u32::from(group).to_be(),
            },
            imr_interface: libc::in_addr { s_addr: 0 },
        };
        // SAFETY: setsockopt with an ip_mreq of our own.
        let r = unsafe {
            libc::setsockopt(
                fd,
                libc::IPPROTO_IP,
                libc::IP_ADD_MEMBERSHIP,
                (&mr as *const libc::ip_mreq).cast(),
                std::mem::size_of::<libc::ip_mreq>() as libc::socklen_t,
            )
        };
        if r < 0 {
            return Err(os_failure(
                "setsockopt IP_ADD_MEMBERSHIP",
                "engines/net.c:1236",
            ));
        }
        Ok(())
    }
}

impl Net {
    /// The listener's side of opening the link: accept the peer (TCP,
    /// UNIX) or wait for its link-open message (UDP).
    fn accept(&mut self) -> Result<(), InitFailure> {
        if self.cfg.proto == Proto::Udp {
            self.fd = self.listen_fd;
            let mut msg = [0u8; 8];
            let r = self.recv_from(&mut msg);
            if r < 0 {
                return Err(os_failure("recvfrom udp link open", "engines/net.c:935"));
            }
            let magic = u32::from_be_bytes(msg[..4].try_into().unwrap());
            let cmd = u32::from_be_bytes(msg[4..].try_into().unwrap());
            if magic != LINK_MAGIC || cmd != LINK_OPEN {
                return Err(refuse(&format!("bad udp open magic {magic:x}/{cmd:x}")));
            }
            return Ok(());
        }
        if !poll_wait(self.listen_fd, libc::POLLIN) {
            return Err(os_failure("poll", "engines/net.c:304"));
        }
        // SAFETY: accept(2) on our listening socket, not asking the address.
        self.fd = unsafe {
            libc::accept4(
                self.listen_fd,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                libc::SOCK_CLOEXEC,
            )
        };
        if self.fd < 0 {
            return Err(os_failure("accept", "engines/net.c:859"));
        }
        self.no_delay()
    }

    fn no_delay(&self) -> Result<(), InitFailure> {
        if self.cfg.nodelay
            && self.cfg.proto == Proto::Tcp
            && !setopt(self.fd, libc::IPPROTO_TCP, libc::TCP_NODELAY, 1)
        {
            return Err(refuse(&format!(
                "cannot set TCP_NODELAY option on socket ({}), disable with 'nodelay=0'",
                io::Error::last_os_error()
            )));
        }
        Ok(())
    }

    /// The writer's side: connect (TCP, UNIX), or send the link-open
    /// message (UDP; a multicast group gets the ttl).
    fn connect(&mut self) -> Result<(), InitFailure> {
        self.fd = self.socket();
        if self.fd < 0 {
            return Err(os_failure("socket", "engines/net.c:737"));
        }
        self.no_delay()?;
        self.tune(self.fd)?;
        if self.cfg.proto == Proto::Udp {
            if self.cfg.is_multicast()
                && !setopt(
                    self.fd,
                    libc::IPPROTO_IP,
                    libc::IP_MULTICAST_TTL,
                    self.cfg.ttl,
                )
            {
                return Err(os_failure(
                    "setsockopt IP_MULTICAST_TTL",
                    "engines/net.c:785",
                ));
            }
            let mut msg = [0u8; 8];
            msg[..4].copy_from_slice(&LINK_MAGIC.to_be_bytes());
            msg[4..].copy_from_slice(&LINK_OPEN.to_be_bytes());
            if self.send_to(&msg) < 0 {
                return Err(os_failure("sendto udp link open", "engines/net.c:973"));
            }
            return Ok(());
        }
        let r = match &self.peer {
            Some(a) => {
                let (ss, len) = raw_addr(a);
                // SAFETY: connect with a sockaddr of our own.
                unsafe {
                    libc::connect(self.fd, (&ss as *const libc::sockaddr_storage).cast(), len)
                }
            }
            None => {
                let (un, len) = unix_addr(self.cfg.host.as_deref().unwrap_or(""));
                // SAFETY: as above.
                unsafe { libc::connect(self.fd, (&un as *const libc::sockaddr_un).cast(), len) }
            }
        };
        if r < 0 {
            return Err(os_failure("connect", "engines/net.c:800"));
        }
        Ok(())
    }

    fn send_to(&self, buf: &[u8]) -> isize {
        let Some(a) = &self.peer else {
            return -1;
        };
        let (ss, len) = raw_addr(a);
        // SAFETY: sendto from a buffer of `buf.len()` bytes.
        unsafe {
            libc::sendto(
                self.fd,
                buf.as_ptr().cast(),
                buf.len(),
                0,
                (&ss as *const libc::sockaddr_storage).cast(),
                len,
            )
        }
    }

    /// recvfrom into `buf`; a listener learns its peer from it.
    fn recv_from(&mut self, buf: &mut [u8]) -> isize {
        // SAFETY: plain data; recvfrom fills it.
        let mut ss: libc::sockaddr_storage = unsafe { std::mem::zeroed() };
        let mut len = std::mem::size_of::<libc::sockaddr_storage>() as libc::socklen_t;
        // SAFETY: recvfrom into `buf` and our address storage.
        let r = unsafe {
            libc::recvfrom(
                self.fd,
                buf.as_mut_ptr().cast(),
                buf.len(),
                0,
                (&mut ss as *mut libc::sockaddr_storage).cast(),
                &mut len,
            )
        };
        if r >= 0 && self.cfg.listen {
            self.peer = from_raw(&ss).or(self.peer);
        }
        r
    }
}

impl Net {
    /// Send one unit (TCP: MSG_MORE while more of the job's size follows).
    fn send(&mut self, io: &mut IoUnit) -> i64 {
        loop {
            let r = if self.cfg.proto == Proto::Udp {
                self.stamp_seq(io);
                // SAFETY: the unit's buffer holds `len` bytes.
                let buf = unsafe { std::slice::from_raw_parts(io.buf, io.len) };
                self.send_to(buf)
            } else if self.cfg.splice && self.cfg.proto == Proto::Tcp {
                self.splice_out(io)
            } else {
                let more = self.written + (io.len as u64) < self.cfg.size && !self.cfg.pingpong;
                let flags = libc::MSG_NOSIGNAL | if more { libc::MSG_MORE } else { 0 };
                // SAFETY: send from the unit's buffer within its length.
                unsafe { libc::send(self.fd, io.buf.cast(), io.len, flags) }
            };
            if r > 0 {
                self.written += r as u64;
                return r as i64;
            }
            if r < 0 || !poll_wait(self.fd, libc::POLLOUT) {
                return if r < 0 { super::neg_errno() } else { 0 };
            }
        }
    }

    /// Receive one unit; the peer's close (EOF, UDP's close message) ends
    /// the cfg.
    fn recv(&mut self, io: &mut IoUnit) -> i64 {
        let mut flags = 0;
        loop {
            // SAFETY: the unit's buffer holds `len` bytes.
            let buf = unsafe { std::slice::from_raw_parts_mut(io.buf, io.len) };
            let r = if self.cfg.proto == Proto::Udp {
                self.recv_from(buf)
            } else if self.cfg.splice && self.cfg.proto == Proto::Tcp {
                self.splice_in(io)
            } else {
                // SAFETY: recv into the unit's buffer.
                unsafe { libc::recv(self.fd, buf.as_mut_ptr().cast(), buf.len(), flags) }
            };
            if r == 8 && is_close(&buf[..8]) {
                self.ended = true;
                return 0;
            }
            if r > 0 {
                return r as i64;
            }
            if r < 0 {
                return super::neg_errno();
            }
            if flags != 0 || !poll_wait(self.fd, libc::POLLIN) {
                self.ended = true;
                return 0;
            }
            flags = libc::MSG_WAITALL;
        }
    }

    /// fio's UDP sequence trailer (magic, seq, bs; little-endian) at the
    /// end of each datagram that can hold it.
    fn stamp_seq(&mut self, io: &mut IoUnit) {
        if io.len < 24 {
            return;
        }
        let mut t = [0u8; 24];
        t[..8].copy_from_slice(&UDP_SEQ_MAGIC.to_le_bytes());
        t[8..16].copy_from_slice(&self.seq.to_le_bytes());
        t[16..].copy_from_slice(&(io.len as u64).to_le_bytes());
        self.seq += 1;
        // SAFETY: the last 24 bytes of the unit's buffer.
        unsafe { std::ptr::copy_nonoverlapping(t.as_ptr(), io.buf.add(io.len - 24), 24) };
    }

    /// netsplice: socket into the pipe, pipe into the buffer.
    fn splice_in(&mut self, io: &IoUnit) -> isize {
        // SAFETY: splice from our socket into our pipe, then read from the
        // pipe into the unit's buffer, within its length.
        unsafe {
            let n = libc::splice(
                self.fd,
                std::ptr::null_mut(),
                self.pipe[1],
                std::ptr::null_mut(),
                io.len,
                libc::SPLICE_F_MOVE,
            );
            if n <= 0 {
                return n;
            }
            let mut got = 0usize;
            while got < n as usize {
                let r = libc::read(self.pipe[0], io.buf.add(got).cast(), n as usize - got);
                if r <= 0 {
                    return -1;
                }
                got += r as usize;
            }
            n
        }
    }

    /// netsplice: the buffer into the pipe, the pipe into the socket.
    fn splice_out(&mut self, io: &IoUnit) -> isize {
        let iov = libc::iovec {
            iov_base: io.buf.cast(),
            iov_len: io.len,
        };
        // SAFETY: vmsplice of the unit's buffer into our pipe, then splice
        // of what went in to our socket.
        unsafe {
            let n = libc::vmsplice(self.pipe[1], &iov, 1, 0);
            if n <= 0 {
                return n;
            }
            let mut sent = 0usize;
            while sent < n as usize {
                let r = libc::splice(
                    self.pipe[0],
                    std::ptr::null_mut(),
                    self.fd,
                    std::ptr::null_mut(),
                    n as usize - sent,
                    libc::SPLICE_F_MOVE,
                );
                if r <= 0 {
                    return -1;
                }
                sent += r as usize;
            }
            n
        }
    }
}

fn is_close(b: &[u8]) -> bool {
    u32::from_le_bytes(b[..4].try_into().unwrap()) == LINK_MAGIC
        && u32::from_le_bytes(b[4..8].try_into().unwrap()) == LINK_CLOSE
}

impl Engine for Net {
    fn init(
        &mut self,
        _units: &[IoUnit],
        _fds: &[std::os::fd::RawFd],
        _sizes: &[u64],
    ) -> io::Result<()> {
        let r = if self.cfg.listen {
            self.accept()
        } else {
            self.connect()
        };
        r.map_err(|e| {
            let err = errno_of(&e);
            if e.site.is_some() || !e.before.is_empty() {
                io::Error::other(e)
            } else {
                err
            }
        })
    }

    fn queue(&mut self, _idx: usize, io: &mut IoUnit) -> Queued {
        let r = match io.kind {
            IoKind::Write => self.send(io),
            IoKind::Read => self.recv(io),
            _ => 0,
        };
        io.result = r;
        if self.cfg.pingpong && r == io.len as i64 {
            // The answer, the other way.
            io.result = match (io.kind, self.cfg.reads) {
                (IoKind::Read, true) => self.send(io),
                (IoKind::Write, false) => self.recv(io),
                _ => r,
            };
        }
        if matches!(io.kind, IoKind::Fsync | IoKind::Fdatasync | IoKind::Trim) {
            io.result = io.len as i64;
        }
        Queued::Completed
    }

    fn ended(&self) -> bool {
        self.ended
    }
}

impl Drop for Net {
    fn drop(&mut self) {
        // A writer tells its peer the link is closing with fio's close
        // message (fio sends it on TCP links too, in the stream).
        if self.cfg.proto != Proto::Unix && !self.cfg.listen && self.fd >= 0 {
            let mut msg = [0u8; 8];
            msg[..4].copy_from_slice(&LINK_MAGIC.to_le_bytes());
            msg[4..].copy_from_slice(&LINK_CLOSE.to_le_bytes());
            if self.cfg.proto == Proto::Udp {
                self.send_to(&msg);
            } else {
                // SAFETY: send of a local 8-byte message.
                unsafe { libc::send(self.fd, msg.as_ptr().cast(), 8, libc::MSG_NOSIGNAL) };
            }
        }
        let listen = (self.listen_fd != self.fd).then_some(self.listen_fd);
        for fd in [
            Some(self.fd),
            listen,
            Some(self.pipe[0]),
            Some(self.pipe[1]),
        ]
        .into_iter()
        .flatten()
        .filter(|&fd| fd >= 0)
        {
            // SAFETY: descriptors this engine made, each closed once.
            unsafe { libc::close(fd) };
        }
    }
}
