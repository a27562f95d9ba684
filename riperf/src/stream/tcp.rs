//! TCP streams: a sender writes one reused block as fast as allowed; a
//! receiver reads into one reused buffer. Sockets carry short send/receive
//! timeouts so the threads see phase changes without extra syscalls.

use super::buf::PageBuf;
use super::{phase, Counters, Pacing, StreamIo, TestShared};
use rbench_common::clock::now_ns;
use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::os::fd::AsRawFd;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

pub struct TcpSender {
    pub sock: Arc<TcpStream>,
    /// The payload block, shared read-only by every sending stream of the
    /// test: one copy stays in cache however many streams write it.
    pub block: Arc<PageBuf>,
    pub pacing: Pacing,
    /// `-Z`: send with sendfile(2) from a memory file holding the block.
    pub zerocopy: bool,
    /// `-F`: send this file's content once instead of the block.
    pub file: Option<std::fs::File>,
}

/// A memory file holding `block`, for sendfile(2).
fn block_file(block: &[u8]) -> Option<std::fs::File> {
    use std::os::fd::FromRawFd;
    // SAFETY: memfd_create with a NUL-terminated name; the fd is owned below.
    let fd = unsafe { libc::memfd_create(c"riperf-block".as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return None;
    }
    // SAFETY: `fd` is a fresh, owned descriptor.
    let mut f = unsafe { std::fs::File::from_raw_fd(fd) };
    f.write_all(block).ok()?;
    Some(f)
}

pub struct TcpReceiver {
    pub sock: Arc<TcpStream>,
    pub buf: PageBuf,
    /// Count data still buffered after TEST_END (the server side does, so
    /// its byte count equals what the client wrote).
    pub count_tail: bool,
    /// `-F`: write what arrives to this file.
    pub file: Option<std::fs::File>,
}

/// A socket timeout (EAGAIN from SO_SNDTIMEO/SO_RCVTIMEO) or a signal:
/// try again. Anything else, ETIMEDOUT included, ends the stream.
fn is_transient(e: &std::io::Error) -> bool {
    matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::Interrupted)
}

pub(super) fn wait_for_start(test: &TestShared) -> bool {
    loop {
        match test.phase() {
            phase::WAITING => std::thread::sleep(Duration::from_micros(200)),
            phase::RUNNING => return true,
            _ => return false,
        }
    }
}

impl StreamIo for TcpSender {
    fn into_plain_tcp_sender(self: Box<Self>) -> Result<TcpSender, Box<dyn StreamIo>> {
        if self.pacing.rate == 0 && !self.zerocopy && self.file.is_none() {
            Ok(*self)
        } else {
            Err(self)
        }
    }

    fn run(&mut self, test: &TestShared, c: &Counters) {
        let _ = self
            .sock
            .set_write_timeout(Some(Duration::from_millis(100)));
        if !wait_for_start(test) {
            return;
        }
        self.send_loop(test, c);
    }
}

impl TcpSender {
    /// The hot loop: no allocation, no lock; one write per block.
    fn send_loop(&mut self, test: &TestShared, c: &Counters) {
        let limited = test.limited();
        let len = self.block.len() as u64;
        let start = now_ns();
        let mut sent: u64 = 0;
        let burst = self.pacing.burst.max(1);
        let mut sock: &TcpStream = &self.sock;
        if self.file.is_some() {
            self.send_file(test, c);
            return;
        }
        let file = if self.zerocopy {
            block_file(&self.block)
        } else {
            None
        };
        let file_fd = file.as_ref().map(|f| f.as_raw_fd());
        let sock_fd = self.sock.as_raw_fd();
        while test.phase() == phase::RUNNING {
            if self.pacing.rate != 0 {
                let wait = self.pacing.wait_ns(sent, start, now_ns());
                if wait > 0 {
                    std::thread::sleep(Duration::from_nanos(
                        wait.min(self.pacing.pacing_timer_us.max(1) * 1000),
                    ));
                    continue;
                }
            }
            for _ in 0..burst {
                let mut want = len;
                if limited {
                    want = test.reserve(len, true);
                    if want == 0 {
                        if test.stop_at_budget() {
                            return;
                        }
                        want = len;
                    }
                }
                let r = match file_fd {
                    Some(ffd) => {
                        let mut off: libc::off_t = 0;
                        // SAFETY: both fds are open; `off` is a valid offset pointer.
                        let n = unsafe { libc::sendfile(sock_fd, ffd, &mut off, want as usize) };
                        if n >= 0 {
                            Ok(n as usize)
                        } else {
                            Err(std::io::Error::last_os_error())
                        }
                    }
                    None => sock.write(&self.block[..want as usize]),
                };
                match r {
                    Ok(n) => {
                        sent += n as u64;
                        c.bytes.store(sent, Ordering::Relaxed);
                        // Only what went out counts against -n.
                        if limited && (n as u64) < want {
                            test.unreserve(want - n as u64, 0);
                        }
                    }
                    // The socket's send timeout (EAGAIN) lets the loop see the
                    // phase; ETIMEDOUT (--snd-timeout) is a real failure.
                    Err(e) if is_transient(&e) => {
                        if limited {
                            test.unreserve(want, 1);
                        }
                    }
                    Err(e) => {
                        c.fail(test, &e);
                        return;
                    }
                }
            }
        }
    }
}

impl TcpSender {
    /// `-F`: the file's content, once, block by block (two syscalls per
    /// block: this mode is about moving a file, not peak rate).
    fn send_file(&mut self, test: &TestShared, c: &Counters) {
        let Some(mut f) = self.file.take() else {
            return;
        };
        let mut sock: &TcpStream = &self.sock;
        let mut sent: u64 = 0;
        let mut buf = PageBuf::zeroed(self.block.len());
        let start = now_ns();
        while test.phase() == phase::RUNNING {
            if self.pacing.rate != 0 {
                let wait = self.pacing.wait_ns(sent, start, now_ns());
                if wait > 0 {
                    std::thread::sleep(Duration::from_nanos(wait.min(1_000_000)));
                    continue;
                }
            }
            let mut n = match f.read(&mut buf) {
                Ok(0) | Err(_) => {
                    test.file_eof.store(true, Ordering::SeqCst);
                    return;
                }
                Ok(n) => n,
            };
            if test.limited() {
                match test.reserve(n as u64, true) {
                    0 if test.stop_at_budget() => return,
                    0 => {}
                    take => n = take as usize,
                }
            }
            let mut off = 0;
            while off < n {
                match sock.write(&buf[off..n]) {
                    Ok(k) => {
                        off += k;
                        sent += k as u64;
                        c.bytes.store(sent, Ordering::Relaxed);
                    }
                    Err(e) if is_transient(&e) => {
                        if test.phase() != phase::RUNNING {
                            return;
                        }
                    }
                    Err(e) => {
                        c.fail(test, &e);
                        return;
                    }
                }
            }
        }
    }
}

impl StreamIo for TcpReceiver {
    fn into_plain_tcp_sender(self: Box<Self>) -> Result<TcpSender, Box<dyn StreamIo>> {
        Err(self)
    }

    fn run(&mut self, test: &TestShared, c: &Counters) {
        let _ = self.sock.set_read_timeout(Some(Duration::from_millis(20)));
        let mut sock: &TcpStream = &self.sock;
        let mut got: u64 = 0;
        loop {
            let p = test.phase();
            if p == phase::DONE {
                return;
            }
            match sock.read(&mut self.buf) {
                Ok(0) => {
                    c.drained.store(true, Ordering::SeqCst);
                    return;
                }
                Ok(n) => {
                    if p <= phase::RUNNING
                        || (self.count_tail && !c.drained.load(Ordering::Relaxed))
                    {
                        got += n as u64;
                        c.bytes.store(got, Ordering::Relaxed);
                        test.received(n as u64);
                        if let Some(f) = &mut self.file {
                            let _ = f.write_all(&self.buf[..n]);
                        }
                    }
                }
                Err(e) if is_transient(&e) => {
                    if p >= phase::ENDING {
                        c.drained.store(true, Ordering::SeqCst);
                    }
                }
                Err(e) => {
                    c.fail(test, &e);
                    c.drained.store(true, Ordering::SeqCst);
                    return;
                }
            }
        }
    }
}
