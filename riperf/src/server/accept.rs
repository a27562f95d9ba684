//! Taking data connections and refusing everyone else: TCP streams must
//! present the test's cookie, UDP streams say hello with 4 bytes, and while
//! a test runs every new connection is answered ACCESS_DENIED.

use super::TestError;
use crate::ctrl::{Ctrl, CtrlError};
use crate::net;
use crate::protocol::errors::code;
use crate::protocol::udp::REPLY;
use crate::protocol::{Cookie, State, COOKIE_SIZE};
use rbench_common::clock::now_ns;
use rbench_common::stop::should_stop;
use socket2::{Domain, Socket, Type};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream, UdpSocket};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Accepts and refuses connections while a test runs (ACCESS_DENIED).
pub struct BusyGuard {
    stop: Arc<AtomicBool>,
    /// Wakes the thread to stop (else it looks at `stop` every 20 ms).
    wake: Option<Arc<net::Wake>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl BusyGuard {
    pub fn start(l: &TcpListener) -> Option<BusyGuard> {
        let l = l.try_clone().ok()?;
        let stop = Arc::new(AtomicBool::new(false));
        let s2 = stop.clone();
        let wake = net::Wake::new().ok().map(Arc::new);
        let w2 = wake.clone();
        // With the wake-up, no timed wake-ups while the test runs.
        let period = Duration::from_millis(if wake.is_some() { 1000 } else { 20 });
        let thread = std::thread::Builder::new()
            .name("busy".into())
            .spawn(move || {
                while !s2.load(Ordering::SeqCst) {
                    if net::wait_woken(l.as_raw_fd(), w2.as_deref(), period)
                        && !s2.load(Ordering::SeqCst)
                    {
                        if let Ok((mut c, _)) = l.accept() {
                            // Answer without reading, as iperf3 does, then close.
                            let _ = c.write_all(&[State::AccessDenied.to_byte()]);
                        }
                    }
                }
            })
            .ok()?;
        Some(BusyGuard {
            stop,
            wake,
            thread: Some(thread),
        })
    }
}

impl BusyGuard {
    /// Stop refusing clients (the test is over; the next one is welcome).
    pub fn stop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(w) = &self.wake {
            w.notify();
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for BusyGuard {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Accept one data connection with the test's cookie; others get ACCESS_DENIED.
pub fn tcp_accept(
    l: &TcpListener,
    ctrl: &mut Ctrl,
    cookie: &Cookie,
    deadline: u64,
) -> Result<TcpStream, TestError> {
    loop {
        let now = now_ns();
        if now > deadline {
            return Err(TestError::log(
                "unable to accept stream connection: timeout",
            ));
        }
        if should_stop() {
            return Err(TestError::log(""));
        }
        // A client that gives up while we wait must not keep us here.
        client_gone(ctrl)?;
        if !net::wait_readable(l.as_raw_fd(), Duration::from_millis(100)) {
            continue;
        }
        let Ok((mut s, _)) = l.accept() else { continue };
        let _ = s.set_read_timeout(Some(Duration::from_secs(5)));
        let mut got = [0u8; COOKIE_SIZE];
        let ok = s.read_exact(&mut got).is_ok() && &got == cookie.as_bytes();
        if ok {
            let _ = s.set_read_timeout(None);
            return Ok(s);
        }
        let _ = s.write_all(&[State::AccessDenied.to_byte()]);
    }
}

pub fn bind_udp(l: &TcpListener, port: u16) -> std::io::Result<UdpSocket> {
    let la = l.local_addr()?;
    let addr = SocketAddr::new(la.ip(), port);
    let s = Socket::new(Domain::for_address(addr), Type::DGRAM, None)?;
    s.set_reuse_address(true)?;
    if addr.is_ipv6() {
        let _ = s.set_only_v6(false);
    }
    s.bind(&addr.into())?;
    Ok(s.into())
}

/// Take one UDP stream: the client's hello, connect back, reply "6789".
pub fn udp_accept(
    s: UdpSocket,
    ctrl: &mut Ctrl,
    deadline: u64,
    bind_next: impl FnOnce() -> Result<UdpSocket, TestError>,
) -> Result<(UdpSocket, SocketAddr, UdpSocket), TestError> {
    let mut buf = [0u8; 65536];
    let _ = s.set_read_timeout(Some(Duration::from_millis(100)));
    loop {
        if now_ns() > deadline || should_stop() {
            return Err(TestError::log(
                "unable to accept stream connection: timeout",
            ));
        }
        client_gone(ctrl)?;
        match s.recv_from(&mut buf) {
            // Only a 4-byte hello opens a stream; other datagrams (a flood,
            // stray data) are dropped.
            Ok((n, _)) if n != 4 => continue,
            Ok((_, from)) => {
                s.connect(from)
                    .map_err(|_| TestError::code(code::IESTREAMACCEPT))?;
                let next = bind_next()?;
                s.send(&REPLY)
                    .map_err(|_| TestError::code(code::IESTREAMACCEPT))?;
                let _ = s.set_read_timeout(None);
                return Ok((s, from, next));
            }
            Err(_) => continue,
        }
    }
}

/// While streams are being set up the client only speaks if it gave up:
/// an EOF, or IPERF_DONE/CLIENT_TERMINATE after an error on its side.
pub fn client_gone(ctrl: &mut Ctrl) -> Result<(), TestError> {
    if !net::wait_readable(ctrl.fd(), Duration::ZERO) {
        return Ok(());
    }
    match ctrl.read_byte(Duration::from_millis(100)) {
        Ok(b)
            if State::from_byte(b) == Some(State::IperfDone)
                || State::from_byte(b) == Some(State::ClientTerminate) =>
        {
            Err(TestError::log("the client has terminated"))
        }
        Ok(_) => Err(TestError::log("received an unknown control message")),
        Err(CtrlError::Timeout) => Ok(()),
        Err(_) => Err(TestError::log(
            "the client has unexpectedly closed the connection",
        )),
    }
}
