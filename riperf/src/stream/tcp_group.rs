//! More TCP sending streams than CPUs (`-P 64` on a 2-CPU machine): the
//! plain senders (no `-b`, `-F` or `-Z`) share one thread per CPU instead
//! of a thread each. Each thread asks poll(2) which of its sockets can
//! take more (sleeping when none can), then writes each of those, non-
//! blocking, until one write goes out short (the socket is full) or
//! [`BURST`] blocks went: iperf3 3.12's select loop, on every CPU. Writing
//! every socket blindly instead cost one EAGAIN for every full one: 22,674
//! of 31,601 writes per GiB with `-P 64 -w 256K` (iperf3: 10,639 of
//! 20,664, and 2,296 selects). Sixty-four runnable threads on two
//! CPUs would otherwise crowd out everything else on the machine (a peer
//! on the same host, the control thread) for no gain in throughput.

use super::buf::PageBuf;
use super::tcp::TcpSender;
use super::{phase, Counters, StreamIo, TestShared};
use std::io::{ErrorKind, Write};
use std::net::TcpStream;
use std::os::fd::AsRawFd;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// One member: its socket, block and counters.
struct Member {
    sock: Arc<TcpStream>,
    block: Arc<PageBuf>,
    counters: Arc<Counters>,
    sent: u64,
    live: bool,
}

/// Blocks one socket may take per poll, when it keeps taking them whole
/// (3.12's `multisend`).
const BURST: usize = 10;

/// The senders one thread drives.
pub struct TcpSendGroup {
    members: Vec<Member>,
    /// poll(2)'s array for the live members, and the member of each entry:
    /// refilled every round, allocated once.
    fds: Vec<libc::pollfd>,
    of: Vec<usize>,
}

impl TcpSendGroup {
    /// A group of plain senders with each one's counters.
    pub fn new(senders: Vec<(TcpSender, Arc<Counters>)>) -> TcpSendGroup {
        let n = senders.len();
        TcpSendGroup {
            fds: Vec::with_capacity(n),
            of: Vec::with_capacity(n),
            members: senders
                .into_iter()
                .map(|(s, counters)| Member {
                    sock: s.sock,
                    block: s.block,
                    counters,
                    sent: 0,
                    live: true,
                })
                .collect(),
        }
    }

    /// Wait (at most 100 ms, so the phase is seen) until some live member
    /// can take more; false when none can yet.
    fn poll_writable(&mut self) -> bool {
        self.fds.clear();
        self.of.clear();
        for (i, m) in self.members.iter().enumerate().filter(|(_, m)| m.live) {
            self.fds.push(libc::pollfd {
                fd: m.sock.as_raw_fd(),
                events: libc::POLLOUT,
                revents: 0,
            });
            self.of.push(i);
        }
        // SAFETY: poll over our own array of pollfds.
        let r = unsafe { libc::poll(self.fds.as_mut_ptr(), self.fds.len() as libc::nfds_t, 100) };
        r > 0
    }

    /// Write the members poll found ready (writable, or in error: the
    /// write reports it). Err when the -n/-k budget is spent.
    fn write_ready(&mut self, test: &TestShared, limited: bool) -> Result<(), ()> {
        for k in 0..self.fds.len() {
            if self.fds[k].revents != 0 {
                let m = &mut self.members[self.of[k]];
                send_burst(m, test, limited)?;
            }
        }
        Ok(())
    }
}

/// Up to [`BURST`] blocks to `m`, until one goes out short or not at all
/// (the socket is full). Err when the budget is spent.
fn send_burst(m: &mut Member, test: &TestShared, limited: bool) -> Result<(), ()> {
    let len = m.block.len() as u64;
    let mut sock: &TcpStream = &m.sock;
    for _ in 0..BURST {
        let want = if limited {
            match test.reserve(len, true) {
                0 if test.stop_at_budget() => return Err(()),
                0 => len,
                w => w,
            }
        } else {
            len
        };
        match sock.write(&m.block[..want as usize]) {
            Ok(n) => {
                m.sent += n as u64;
                m.counters.bytes.store(m.sent, Ordering::Relaxed);
                if (n as u64) < want {
                    if limited {
                        test.unreserve(want - n as u64, 0);
                    }
                    return Ok(());
                }
            }
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::Interrupted) => {
                if limited {
                    test.unreserve(want, 1);
                }
                return Ok(());
            }
            Err(e) => {
                if limited {
                    test.unreserve(want, 1);
                }
                m.counters.fail(test, &e);
                m.counters.finished.store(true, Ordering::SeqCst);
                m.live = false;
                return Ok(());
            }
        }
    }
    Ok(())
}

impl StreamIo for TcpSendGroup {
    fn into_plain_tcp_sender(self: Box<Self>) -> Result<TcpSender, Box<dyn StreamIo>> {
        Err(self)
    }

    fn run(&mut self, test: &TestShared, _first: &Counters) {
        for m in &self.members {
            let _ = m.sock.set_nonblocking(true);
        }
        if !super::tcp::wait_for_start(test) {
            return self.finish();
        }
        let limited = test.limited();
        while test.phase() == phase::RUNNING && self.members.iter().any(|m| m.live) {
            if self.poll_writable() && self.write_ready(test, limited).is_err() {
                break;
            }
        }
        self.finish();
    }
}

impl TcpSendGroup {
    /// Every member is done (the thread's own flag covers the first).
    fn finish(&self) {
        for m in &self.members {
            let _ = m.sock.set_nonblocking(false);
            m.counters.finished.store(true, Ordering::SeqCst);
        }
    }
}

/// How many threads `n` plain senders get: one per CPU this process may
/// use, none more than there are senders.
pub fn threads_for(n: usize) -> usize {
    n.min(rbench_common::cpu::available_cpus().len().max(1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn a_group_writes_every_member_and_counts_each() {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        let mut senders = Vec::new();
        let mut peers = Vec::new();
        for _ in 0..3 {
            let s = Arc::new(TcpStream::connect(addr).unwrap());
            peers.push(l.accept().unwrap().0);
            let block = Arc::new(PageBuf::copy_of(&[7u8; 1000]));
            let sender = TcpSender {
                sock: s,
                block,
                pacing: super::super::Pacing {
                    rate: 0,
                    burst: 1,
                    pacing_timer_us: 1000,
                },
                zerocopy: false,
                file: None,
            };
            senders.push((sender, Arc::new(Counters::default())));
        }
        let counters: Vec<Arc<Counters>> = senders.iter().map(|s| s.1.clone()).collect();
        let test = TestShared::new(30_000, 0);
        test.set_phase(phase::RUNNING);
        let mut g = TcpSendGroup::new(senders);
        g.run(&test, &counters[0]);
        let total: u64 = counters
            .iter()
            .map(|c| c.bytes.load(Ordering::Relaxed))
            .sum();
        assert_eq!(total, 30_000, "the budget, exactly, over the members");
        assert!(counters.iter().all(|c| c.bytes.load(Ordering::Relaxed) > 0));
        assert!(counters.iter().all(|c| c.finished.load(Ordering::Relaxed)));
        let mut got = 0;
        for (p, c) in peers.iter_mut().zip(&counters) {
            let want = c.bytes.load(Ordering::Relaxed) as usize;
            let mut buf = vec![0u8; want];
            p.read_exact(&mut buf).unwrap();
            assert!(buf.iter().all(|&b| b == 7));
            got += want;
        }
        assert_eq!(got, 30_000);
    }
}
