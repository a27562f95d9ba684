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
}

/// Buffers and message headers for one batch, allocated once per stream.
struct Batch {
    bufs: Vec<Vec<u8>>,
    iovs: Vec<libc::iovec>,
    msgs: Vec<libc::mmsghdr>,
}

impl Batch {
    fn new(len: usize, fill: &[u8]) -> Batch {
        let mut bufs: Vec<Vec<u8>> = (0..BATCH)
            .map(|_| {
                let mut b = vec![0u8; len];
                let n = fill.len().min(len);
                b[..n].copy_from_slice(&fill[..n]);
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
        let msgs = iovs
            .iter_mut()
            .map(|iov| {
                // SAFETY: an all-zero mmsghdr is a valid "no name, no control" header.
                let mut m: libc::mmsghdr = unsafe { std::mem::zeroed() };
                m.msg_hdr.msg_iov = iov as *mut libc::iovec;
                m.msg_hdr.msg_iovlen = 1;
                m
            })
            .collect();
        Batch { bufs, iovs, msgs }
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
    fn run(&mut self, test: &TestShared, c: &Counters) {
        loop {
            match test.phase() {
                phase::WAITING => std::thread::sleep(Duration::from_micros(200)),
                phase::RUNNING => break,
                _ => return,
            }
        }
        let mut batch = Batch::new(self.len, &self.payload);
        self.send_loop(test, c, &mut batch);
    }
}

impl UdpSender {
    /// The hot loop: headers written in place, one sendmmsg per batch.
    fn send_loop(&mut self, test: &TestShared, c: &Counters, batch: &mut Batch) {
        let fd = self.sock.as_raw_fd();
        let limited = test.limited();
        let len = self.len as u64;
        let start = now_ns();
        let mut seq: u64 = 0;
        let mut sent_bytes: u64 = 0;
        let burst = self.pacing.burst.max(1) as usize;
        while test.phase() == phase::RUNNING {
            let mut k = BATCH;
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
                k = owed.max(burst).min(BATCH);
            }
            let (sec, usec) = monotonic_parts();
            let mut n = 0;
            while n < k {
                if limited && !test.reserve_block(len) {
                    break;
                }
                let h = UdpHeader {
                    sec,
                    usec,
                    seq: seq + 1 + n as u64,
                };
                h.encode(&mut batch.bufs[n], self.counters_64bit);
                n += 1;
            }
            if n == 0 {
                return;
            }
            // SAFETY: `msgs[..n]` point at live iovecs and buffers of `batch`.
            let r = unsafe { libc::sendmmsg(fd, batch.msgs.as_mut_ptr(), n as u32, 0) };
            if r > 0 {
                let r = r as u64;
                seq += r;
                sent_bytes += r * len;
                c.bytes.store(sent_bytes, Ordering::Relaxed);
                c.packets.store(seq, Ordering::Relaxed);
            } else {
                let e = std::io::Error::last_os_error();
                match e.raw_os_error() {
                    // A full socket buffer or an ICMP error from a closed
                    // port: keep going, like iperf3.
                    Some(libc::EAGAIN)
                    | Some(libc::ENOBUFS)
                    | Some(libc::ECONNREFUSED)
                    | Some(libc::EINTR) => {}
                    _ => return,
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
    fn run(&mut self, test: &TestShared, c: &Counters) {
        let _ = self.sock.set_read_timeout(Some(Duration::from_millis(20)));
        let fd = self.sock.as_raw_fd();
        let mut batch = Batch::new(self.len.max(16), &[]);
        let mut st = RecvState::default();
        let mut got: u64 = 0;
        loop {
            let p = test.phase();
            if p == phase::DONE {
                return;
            }
            for (m, iov) in batch.msgs.iter_mut().zip(batch.iovs.iter()) {
                m.msg_len = 0;
                let _ = iov;
            }
            // SAFETY: `msgs` describe BATCH live buffers owned by `batch`.
            let r = unsafe {
                libc::recvmmsg(
                    fd,
                    batch.msgs.as_mut_ptr(),
                    BATCH as u32,
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
                    _ => return,
                }
            }
            if p > phase::RUNNING {
                continue;
            }
            let arrival = now_ns() as f64 / 1e9;
            for i in 0..r as usize {
                let n = batch.msgs[i].msg_len as usize;
                let Some(h) = UdpHeader::decode(&batch.bufs[i][..n], self.counters_64bit) else {
                    continue;
                };
                got += n as u64;
                st.on_datagram(&h, arrival);
            }
            c.bytes.store(got, Ordering::Relaxed);
            c.packets.store(st.highest, Ordering::Relaxed);
            c.lost.store(st.lost, Ordering::Relaxed);
            c.out_of_order.store(st.out_of_order, Ordering::Relaxed);
            c.jitter_bits.store(st.jitter.to_bits(), Ordering::Relaxed);
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
