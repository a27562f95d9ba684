//! UDP streams (spec §3.2). The sender stamps each datagram with the
//! monotonic time and a sequence number and sends them in batches
//! (`sendmmsg`) as far as the pacing allows; the receiver takes batches
//! (`recvmmsg`) and keeps iperf3's loss, out-of-order and jitter accounting.

use super::{phase, Counters, Pacing, StreamIo, TestShared};
use crate::protocol::udp::UdpHeader;
use rbench_common::clock::now_ns;
use std::net::UdpSocket;
use std::os::fd::AsRawFd;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

/// Datagrams per sendmmsg/recvmmsg call.
const BATCH: usize = 32;

pub struct UdpSender {
    pub sock: Arc<UdpSocket>,
    pub len: usize,
    pub payload: Vec<u8>,
    pub pacing: Pacing,
    pub counters_64bit: bool,
}

pub struct UdpReceiver {
    pub sock: Arc<UdpSocket>,
    pub len: usize,
    pub counters_64bit: bool,
    /// No `-w` given: grow the receive buffer (best effort, up to the
    /// system's rmem_max) so scheduling hiccups do not drop datagrams.
    pub grow_buffer: bool,
}

/// Receive buffer a UDP receiver asks for when `-w` is not given.
const UDP_RCVBUF: usize = 4 * 1024 * 1024;

/// Linux socket options for UDP segmentation offload (not in every libc).
const UDP_SEGMENT: libc::c_int = 103;
const UDP_GRO: libc::c_int = 104;
/// Datagrams per GSO send (the kernel's UDP_MAX_SEGMENTS is at least 64).
const GSO_MAX_SEGS: usize = 64;
/// Room for one coalesced GRO receive.
const GRO_BUF: usize = 65536;
/// Room for the UDP_GRO control message.
const CMSG_SPACE: usize = 64;

fn set_udp_opt(fd: i32, opt: libc::c_int, v: libc::c_int) -> bool {
    // SAFETY: setsockopt with an int value on a valid fd.
    unsafe {
        libc::setsockopt(
            fd,
            libc::SOL_UDP,
            opt,
            &v as *const _ as *const libc::c_void,
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        ) == 0
    }
}

/// Buffers and message headers for one batch, allocated once per stream.
struct Batch {
    bufs: Vec<Vec<u8>>,
    iovs: Vec<libc::iovec>,
    msgs: Vec<libc::mmsghdr>,
    /// Only reached through `msgs`' raw pointers; owned here to stay alive.
    #[allow(dead_code)]
    cmsgs: Vec<[u8; CMSG_SPACE]>,
}

impl Batch {
    /// `n` buffers of `size` bytes, each starting with copies of `fill`
    /// every `stride` bytes.
    fn new(n: usize, size: usize, fill: &[u8], stride: usize, with_cmsg: bool) -> Batch {
        let mut bufs: Vec<Vec<u8>> = (0..n)
            .map(|_| {
                let mut b = vec![0u8; size];
                let stride = stride.max(1);
                let mut off = 0;
                while off < size {
                    let k = fill.len().min(stride).min(size - off);
                    b[off..off + k].copy_from_slice(&fill[..k]);
                    off += stride;
                }
                b
            })
            .collect();
        let mut iovs: Vec<libc::iovec> = bufs
            .iter_mut()
            .map(|b| libc::iovec {
                iov_base: b.as_mut_ptr() as *mut libc::c_void,
                iov_len: b.len(),
            })
            .collect();
        let mut cmsgs = vec![[0u8; CMSG_SPACE]; if with_cmsg { n } else { 0 }];
        let msgs = iovs
            .iter_mut()
            .enumerate()
            .map(|(i, iov)| {
                // SAFETY: an all-zero mmsghdr is a valid "no name, no control" header.
                let mut m: libc::mmsghdr = unsafe { std::mem::zeroed() };
                m.msg_hdr.msg_iov = iov as *mut libc::iovec;
                m.msg_hdr.msg_iovlen = 1;
                if let Some(c) = cmsgs.get_mut(i) {
                    m.msg_hdr.msg_control = c.as_mut_ptr() as *mut libc::c_void;
                    m.msg_hdr.msg_controllen = CMSG_SPACE as _;
                }
                m
            })
            .collect();
        Batch {
            bufs,
            iovs,
            msgs,
            cmsgs,
        }
    }

    /// The GRO segment size from message `i`'s control data, if any.
    fn gro_size(&self, i: usize) -> Option<usize> {
        let m = &self.msgs[i].msg_hdr;
        if m.msg_controllen == 0 || m.msg_control.is_null() {
            return None;
        }
        // SAFETY: msg_control points at our CMSG_SPACE buffer and the
        // kernel set msg_controllen; CMSG_* walk within it.
        unsafe {
            let mut c = libc::CMSG_FIRSTHDR(m);
            while !c.is_null() {
                if (*c).cmsg_level == libc::SOL_UDP && (*c).cmsg_type == UDP_GRO {
                    let mut v: libc::c_int = 0;
                    std::ptr::copy_nonoverlapping(
                        libc::CMSG_DATA(c),
                        &mut v as *mut libc::c_int as *mut u8,
                        std::mem::size_of::<libc::c_int>(),
                    );
                    return (v > 0).then_some(v as usize);
                }
                c = libc::CMSG_NXTHDR(m, c);
            }
        }
        None
    }
}

// SAFETY: the raw pointers in `iovs`/`msgs` point into `bufs`/`iovs`, which
// move with the struct (their heap storage does not), and are only used by
// the owning thread.
unsafe impl Send for Batch {}

fn monotonic_parts() -> (u32, u32) {
    let ns = now_ns();
    (
        (ns / 1_000_000_000) as u32,
        ((ns % 1_000_000_000) / 1000) as u32,
    )
}

impl StreamIo for UdpSender {
    fn into_plain_tcp_sender(self: Box<Self>) -> Result<super::tcp::TcpSender, Box<dyn StreamIo>> {
        Err(self)
    }

    fn run(&mut self, test: &TestShared, c: &Counters) {
        loop {
            match test.phase() {
                phase::WAITING => std::thread::sleep(Duration::from_micros(200)),
                phase::RUNNING => break,
                _ => return,
            }
        }
        // Several datagrams per message with UDP GSO where the kernel has
        // it; the receiving kernel splits them again for peers without GRO.
        let fd = self.sock.as_raw_fd();
        let segs = if self.len <= u16::MAX as usize
            && set_udp_opt(fd, UDP_SEGMENT, self.len as libc::c_int)
        {
            (60_000 / self.len.max(1)).clamp(1, GSO_MAX_SEGS)
        } else {
            1
        };
        let mut batch = Batch::new(BATCH, segs * self.len, &self.payload, self.len, false);
        self.send_loop(test, c, &mut batch, segs);
    }
}

impl UdpSender {
    /// The hot loop: headers written in place, one sendmmsg per batch.
    fn send_loop(&mut self, test: &TestShared, c: &Counters, batch: &mut Batch, segs: usize) {
        let mut segs = segs;
        let fd = self.sock.as_raw_fd();
        let limited = test.limited();
        let len = self.len as u64;
        let start = now_ns();
        let mut seq: u64 = 0;
        let mut sent_bytes: u64 = 0;
        let burst = self.pacing.burst.max(1) as usize;
        let mut max = BATCH * segs;
        while test.phase() == phase::RUNNING {
            let mut k = max;
            if self.pacing.rate != 0 {
                let now = now_ns();
                let wait = self.pacing.wait_ns(sent_bytes, start, now);
                if wait > 0 {
                    std::thread::sleep(Duration::from_nanos(
                        wait.min(self.pacing.pacing_timer_us.max(1) * 1000),
                    ));
                    continue;
                }
                // Datagrams due by now, at least one (or one burst).
                let due = ((now - start) as u128 * self.pacing.rate as u128
                    / 8
                    / 1_000_000_000
                    / len.max(1) as u128) as u64;
                let owed = due.saturating_sub(seq).max(1) as usize;
                // Catching up after a delay goes one GSO message (or one
                // `-b …/N` burst) at a time, so the receiver's buffer is not
                // hit by thousands of datagrams at once.
                k = if burst > 1 {
                    burst.min(max)
                } else {
                    owed.min(segs)
                };
            }
            let (sec, usec) = monotonic_parts();
            let mut n = 0;
            while n < k {
                if limited && !test.reserve_block(len) && test.stop_at_budget() {
                    break;
                }
                let h = UdpHeader {
                    sec,
                    usec,
                    seq: seq + 1 + n as u64,
                };
                let off = (n % segs) * self.len;
                h.encode(&mut batch.bufs[n / segs][off..], self.counters_64bit);
                n += 1;
            }
            if n == 0 {
                return;
            }
            let nmsgs = n.div_ceil(segs);
            for (i, iov) in batch.iovs.iter_mut().enumerate().take(nmsgs) {
                iov.iov_len = (n - i * segs).min(segs) * self.len;
            }
            // SAFETY: `msgs[..nmsgs]` point at live iovecs and buffers of `batch`.
            let r = unsafe { libc::sendmmsg(fd, batch.msgs.as_mut_ptr(), nmsgs as u32, 0) };
            if r > 0 {
                let r = ((r as usize * segs).min(n)) as u64;
                if limited && (r as usize) < n {
                    let unsent = (n - r as usize) as u64;
                    test.unreserve(unsent * len, unsent);
                }
                seq += r;
                sent_bytes += r * len;
                c.bytes.store(sent_bytes, Ordering::Relaxed);
                c.packets.store(seq, Ordering::Relaxed);
            } else {
                let e = std::io::Error::last_os_error();
                if limited {
                    test.unreserve(n as u64 * len, n as u64);
                }
                match e.raw_os_error() {
                    // A full socket buffer or an ICMP error from a closed
                    // port: keep going, like iperf3.
                    Some(libc::EAGAIN)
                    | Some(libc::ENOBUFS)
                    | Some(libc::ECONNREFUSED)
                    | Some(libc::EINTR) => {}
                    // The path cannot take GSO (a segment larger than its
                    // MTU, no checksum offload): one datagram per message.
                    Some(libc::EINVAL) | Some(libc::EMSGSIZE) | Some(libc::EIO) if segs > 1 => {
                        set_udp_opt(fd, UDP_SEGMENT, 0);
                        segs = 1;
                        max = BATCH;
                    }
                    _ => {
                        c.fail(test, &e);
                        return;
                    }
                }
            }
        }
    }
}

/// iperf3's receiver accounting for one datagram (spec §3.2).
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct RecvState {
    pub highest: u64,
    pub lost: i64,
    pub out_of_order: u64,
    pub jitter: f64,
    pub prev_transit: Option<f64>,
}

impl RecvState {
    #[inline]
    pub fn on_datagram(&mut self, h: &UdpHeader, arrival_secs: f64) {
        let seq = h.seq;
        if seq > self.highest {
            if seq > self.highest + 1 {
                self.lost += (seq - self.highest - 1) as i64;
            }
            self.highest = seq;
        } else {
            self.out_of_order += 1;
            if self.lost > 0 {
                self.lost -= 1;
            }
        }
        let transit = arrival_secs - h.time_secs();
        if let Some(prev) = self.prev_transit {
            let d = (transit - prev).abs();
            self.jitter += (d - self.jitter) / 16.0;
        }
        self.prev_transit = Some(transit);
    }
}

impl StreamIo for UdpReceiver {
    fn into_plain_tcp_sender(self: Box<Self>) -> Result<super::tcp::TcpSender, Box<dyn StreamIo>> {
        Err(self)
    }

    fn run(&mut self, test: &TestShared, c: &Counters) {
        let _ = self.sock.set_read_timeout(Some(Duration::from_millis(20)));
        let fd = self.sock.as_raw_fd();
        if self.grow_buffer {
            let sr = socket2::SockRef::from(&*self.sock);
            if sr.recv_buffer_size().is_ok_and(|b| b < UDP_RCVBUF) {
                let _ = sr.set_recv_buffer_size(UDP_RCVBUF);
            }
        }
        // GRO: the kernel hands over several datagrams of one flow at once.
        let gro = set_udp_opt(fd, UDP_GRO, 1);
        let size = if gro { GRO_BUF } else { self.len.max(16) };
        let mut batch = Batch::new(if gro { 16 } else { BATCH }, size, &[], size, gro);
        let nmsgs = batch.msgs.len();
        let mut st = RecvState::default();
        let mut got: u64 = 0;
        loop {
            let p = test.phase();
            if p == phase::DONE {
                return;
            }
            for m in batch.msgs.iter_mut() {
                m.msg_len = 0;
                if gro {
                    m.msg_hdr.msg_controllen = CMSG_SPACE as _;
                }
            }
            // SAFETY: `msgs` describe BATCH live buffers owned by `batch`.
            let r = unsafe {
                libc::recvmmsg(
                    fd,
                    batch.msgs.as_mut_ptr(),
                    nmsgs as u32,
                    libc::MSG_WAITFORONE,
                    std::ptr::null_mut(),
                )
            };
            if r <= 0 {
                let e = std::io::Error::last_os_error();
                match e.raw_os_error() {
                    Some(libc::EAGAIN) | Some(libc::EINTR) | Some(libc::ECONNREFUSED) => {
                        if p >= phase::ENDING {
                            c.drained.store(true, Ordering::SeqCst);
                        }
                        continue;
                    }
                    _ => {
                        c.fail(test, &e);
                        return;
                    }
                }
            }
            if p > phase::RUNNING {
                continue;
            }
            let arrival = now_ns() as f64 / 1e9;
            let before = got;
            for i in 0..r as usize {
                let n = batch.msgs[i].msg_len as usize;
                let seg = if gro {
                    batch.gro_size(i).unwrap_or(n)
                } else {
                    n
                };
                let mut off = 0;
                while off < n {
                    let end = (off + seg.max(1)).min(n);
                    if let Some(h) =
                        UdpHeader::decode(&batch.bufs[i][off..end], self.counters_64bit)
                    {
                        got += (end - off) as u64;
                        st.on_datagram(&h, arrival);
                    }
                    off = end;
                }
            }
            c.bytes.store(got, Ordering::Relaxed);
            c.packets.store(st.highest, Ordering::Relaxed);
            c.lost.store(st.lost, Ordering::Relaxed);
            c.out_of_order.store(st.out_of_order, Ordering::Relaxed);
            c.jitter_bits.store(st.jitter.to_bits(), Ordering::Relaxed);
            // After the counters: the control thread reads them once woken.
            test.received(got - before);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(seq: u64, t: f64) -> UdpHeader {
        UdpHeader {
            sec: t as u32,
            usec: ((t.fract()) * 1e6).round() as u32,
            seq,
        }
    }

    #[test]
    fn loss_and_reordering_like_iperf3() {
        let mut s = RecvState::default();
        for (seq, t) in [(1, 0.0), (2, 0.1), (5, 0.2), (3, 0.3), (6, 0.4)] {
            s.on_datagram(&h(seq, t), t + 0.001);
        }
        assert_eq!(s.highest, 6);
        assert_eq!(s.lost, 1);
        assert_eq!(s.out_of_order, 1);
        assert!(s.jitter.abs() < 1e-6);
    }

    #[test]
    fn jitter_is_smoothed_transit_difference() {
        let mut s = RecvState::default();
        s.on_datagram(&h(1, 1.0), 1.001);
        s.on_datagram(&h(2, 2.0), 2.003);
        assert!((s.jitter - 0.002 / 16.0).abs() < 1e-9);
    }
}
