//! One running test, as either side sees it: the streams, their threads,
//! the interval clock (with the omit period) and the results exchange
//! payloads. Client and server drive it from their control loops.

use crate::measure::{CpuClock, Sampler, StreamTotals};
use crate::net;
use crate::protocol::{PeerResults, StreamResults};
use crate::report::{Report, Summary, SummaryStream};
use crate::stream::{phase, Stream, TestShared};
use rbench_common::clock::now_ns;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

pub struct Session {
    pub streams: Vec<Stream>,
    /// Stream bodies created but not started yet (started on TEST_START).
    pub pending: Vec<Box<dyn crate::stream::StreamIo>>,
    pub shared: Arc<TestShared>,
    pub sampler: Option<Sampler>,
    pub cpu: Option<CpuClock>,
    pub interval_ns: u64,
    pub omit_ns: u64,
    pub start_ns: u64,
    pub next_tick: u64,
    pub omitting: bool,
    pub udp: bool,
    /// Totals taken at the end of the test.
    pub totals: Vec<StreamTotals>,
    pub cpu_final: (f64, f64, f64),
    /// The last interval, held back when the report prints it later (the
    /// client prints it on DISPLAY_RESULTS, as iperf3 does).
    pub last_interval: Option<crate::measure::Interval>,
    /// When this side stopped its senders before the peer ended the test
    /// (see [`Session::stop_senders`]): the test's end for its report.
    pub senders_stopped_ns: Option<u64>,
}

impl Session {
    pub fn new(shared: Arc<TestShared>, interval: f64, omit: i64, udp: bool) -> Session {
        Session {
            streams: Vec::new(),
            pending: Vec::new(),
            shared,
            sampler: None,
            cpu: None,
            interval_ns: (interval * 1e9) as u64,
            omit_ns: omit.max(0) as u64 * 1_000_000_000,
            start_ns: 0,
            next_tick: u64::MAX,
            omitting: false,
            udp,
            totals: Vec::new(),
            cpu_final: (0.0, 0.0, 0.0),
            last_interval: None,
            senders_stopped_ns: None,
        }
    }

    /// Stop the senders ahead of the peer's TEST_END; the test then ends,
    /// for the report, now (nothing is sent after).
    pub fn stop_senders(&mut self) {
        self.shared.set_phase(phase::ENDING);
        self.senders_stopped_ns = Some(now_ns());
    }

    /// TEST_RUNNING: the clock starts and senders go.
    pub fn start(&mut self) {
        let now = now_ns();
        self.start_ns = now;
        self.cpu = Some(CpuClock::start());
        self.sampler = Some(Sampler::new(
            &self.streams,
            now,
            self.interval_ns as f64 / 1e9,
        ));
        self.omitting = self.omit_ns > 0;
        self.next_tick = if self.interval_ns > 0 {
            now + self.interval_ns
        } else {
            u64::MAX
        };
        if self.omitting {
            self.next_tick = self.next_tick.min(now + self.omit_ns);
        }
        self.shared.set_phase(phase::RUNNING);
    }

    pub fn running(&self) -> bool {
        self.sampler.is_some()
    }

    /// Whether the omit period ends on an interval boundary (within 1 ms).
    fn omit_on_tick(&self) -> bool {
        if self.interval_ns == 0 {
            return false;
        }
        let r = self.omit_ns % self.interval_ns;
        r < 1_000_000 || self.interval_ns - r < 1_000_000
    }

    /// The next moment the loop must wake up for.
    pub fn next_deadline(&self) -> u64 {
        self.next_tick
    }

    /// Run due interval ticks and the end of the omit period.
    /// Returns the bytes of a regular (not omitted) interval it closed.
    pub fn tick(&mut self, report: &mut Report) -> Option<u64> {
        let now = now_ns();
        let on_tick = self.omit_on_tick();
        let sampler = self.sampler.as_mut()?;
        if now < self.next_tick {
            return None;
        }
        let omit_end = self.start_ns + self.omit_ns;
        if self.omitting && now >= omit_end {
            // 3.12 ends the omit period by resetting its counters and
            // timers: the part of an interval cut off there is dropped,
            // unprinted (`-O 2 -i .3`: six omitted intervals, not seven).
            // Only an interval ending at the omit end is shown.
            let sample = sampler.sample(&self.streams, now, true);
            if let Some(iv) = sample.filter(|_| on_tick) {
                report.interval(&iv);
            }
            sampler.reset_for_omit(&self.streams, now);
            self.omitting = false;
            self.next_tick = if self.interval_ns > 0 {
                now + self.interval_ns
            } else {
                u64::MAX
            };
            return None;
        }
        let mut closed = None;
        if let Some(iv) = sampler.sample(&self.streams, now, self.omitting) {
            report.interval(&iv);
            if !self.omitting {
                closed = Some(iv.streams.iter().map(|s| s.bytes).sum());
            }
        }
        self.next_tick = if self.interval_ns > 0 {
            self.next_tick + self.interval_ns
        } else {
            u64::MAX
        };
        if self.omitting {
            self.next_tick = self.next_tick.min(omit_end);
        }
        if self.next_tick <= now {
            self.next_tick = now + self.interval_ns.max(1);
        }
        closed
    }

    /// End of the test on this side: stop senders, take the last (partial)
    /// interval and the totals. `wait_drain` lets receivers count what is
    /// still buffered (server side).
    pub fn end(&mut self, report: &mut Report, wait_drain: bool) {
        self.end_with(Some(report), wait_drain);
    }

    /// As [`Session::end`], keeping the last interval in `last_interval`
    /// instead of reporting it.
    pub fn end_deferred(&mut self) {
        self.end_with(None, false);
    }

    fn end_with(&mut self, mut report: Option<&mut Report>, wait_drain: bool) {
        self.shared.set_phase(phase::ENDING);
        // The interval ends now (or when our senders stopped); bytes still
        // being written or drained below belong to it.
        let end_ns = self
            .senders_stopped_ns
            .map_or_else(now_ns, |t| t.min(now_ns()));
        // Senders finish the write in progress, so the totals hold every
        // byte handed to the kernel.
        let deadline = now_ns() + 300_000_000;
        while now_ns() < deadline
            && self.streams.iter().any(|s| {
                s.sender && s.thread.is_some() && !s.counters.finished.load(Ordering::SeqCst)
            })
        {
            std::thread::sleep(Duration::from_micros(200));
        }
        let now = end_ns;
        if wait_drain {
            let deadline = now + 500_000_000;
            while now_ns() < deadline
                && self
                    .streams
                    .iter()
                    .any(|s| !s.sender && !s.counters.drained.load(Ordering::SeqCst))
            {
                std::thread::sleep(Duration::from_millis(2));
            }
        }
        if let Some(sampler) = self.sampler.as_mut() {
            if let Some(iv) = sampler.sample(&self.streams, now, self.omitting) {
                match report.as_mut() {
                    Some(r) => r.interval(&iv),
                    None => self.last_interval = Some(iv),
                }
            }
            self.totals = sampler.totals(&self.streams);
        }
        if let Some(c) = &self.cpu {
            self.cpu_final = c.percent();
        }
    }

    /// Wait (bounded) until the peer has acknowledged everything our TCP
    /// senders wrote, so a receiver's count at TEST_END holds all of it.
    pub fn wait_acked(&self, limit: Duration) {
        let deadline = now_ns() + limit.as_nanos() as u64;
        let tcp_senders: Vec<i32> = self
            .streams
            .iter()
            .filter(|s| s.sender && !s.udp)
            .map(|s| s.fd)
            .collect();
        if tcp_senders.is_empty() {
            return;
        }
        while now_ns() < deadline && tcp_senders.iter().any(|&fd| net::unacked_bytes(fd) > 0) {
            std::thread::sleep(Duration::from_micros(500));
        }
        // The receiver reads what arrived within moments.
        std::thread::sleep(Duration::from_millis(5));
    }

    /// Close the data connections for both directions, as the iperf3 server
    /// does on TEST_END: a 3.12 client draining a `-R` test with blocking
    /// reads needs the EOF to get back to its control connection.
    pub fn shutdown_streams(&self) {
        for s in self.streams.iter().filter(|s| !s.udp) {
            // SAFETY: shutdown(2) on a socket this session owns.
            unsafe { libc::shutdown(s.fd, libc::SHUT_RDWR) };
        }
    }

    /// Stop every thread and wait for them.
    pub fn stop(&mut self) {
        self.shared.set_phase(phase::DONE);
        for s in &mut self.streams {
            if let Some(h) = s.thread.take() {
                let _ = h.join();
            }
        }
    }

    /// Bytes counted so far by senders and by receivers.
    pub fn counted(&self) -> (u64, u64) {
        let mut sent = 0;
        let mut recv = 0;
        for s in &self.streams {
            let b = s.counters.bytes.load(Ordering::Relaxed);
            if s.sender {
                sent += b;
            } else {
                recv += b;
            }
        }
        (sent, recv)
    }

    /// The first error that stopped a stream while the test ran, waiting
    /// up to `grace` for one: a peer that dies closes the control
    /// connection and the data connections at once, and iperf3 reports the
    /// failed send rather than the closed control connection.
    pub fn stream_error(&self, grace: Duration) -> Option<String> {
        let deadline = now_ns() + grace.as_nanos() as u64;
        loop {
            if let Some(e) = self.streams.iter().find_map(|s| s.counters.error(s.sender)) {
                return Some(e);
            }
            if now_ns() >= deadline || self.shared.phase() != phase::RUNNING {
                return None;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    pub fn all_senders_finished(&self) -> bool {
        let mut any = false;
        for s in self.streams.iter().filter(|s| s.sender) {
            any = true;
            if !s.counters.finished.load(Ordering::Relaxed) {
                return false;
            }
        }
        any
    }

    /// This side's results message (spec §2.6).
    pub fn results(&self, tcp: bool, mode_receiver_only: bool) -> PeerResults {
        let (t, u, s) = self.cpu_final;
        PeerResults {
            cpu_util_total: t,
            cpu_util_user: u,
            cpu_util_system: s,
            sender_has_retransmits: if mode_receiver_only {
                -1
            } else if tcp {
                1
            } else {
                0
            },
            congestion_used: if tcp {
                self.streams.first().and_then(|s| net::congestion_of(s.fd))
            } else {
                None
            },
            server_output: None,
            streams: self
                .totals
                .iter()
                .map(|x| StreamResults {
                    id: x.id,
                    bytes: x.bytes,
                    retransmits: if x.sender && tcp {
                        x.retransmits.unwrap_or(-1)
                    } else {
                        -1
                    },
                    jitter: if x.sender { 0.0 } else { x.jitter },
                    errors: if x.sender { 0 } else { x.lost },
                    packets: x.packets,
                    start_time: 0.0,
                    end_time: x.seconds,
                })
                .collect(),
        }
    }

    /// The end-of-test view: local totals, plus the peer's when known.
    pub fn summary(&self, peer: Option<&PeerResults>, local_retr: bool) -> Result<Summary, String> {
        if let Some(p) = peer {
            for ps in &p.streams {
                if !self.totals.iter().any(|t| t.id == ps.id) {
                    return Err("stream has an invalid id".into());
                }
            }
        }
        let mut streams = Vec::new();
        for t in &self.totals {
            let ps = peer.and_then(|p| p.streams.iter().find(|s| s.id == t.id));
            let mut s = SummaryStream {
                socket: t.socket,
                sender: t.sender,
                max_snd_cwnd: t.max_snd_cwnd,
                max_snd_wnd: t.max_snd_wnd,
                max_rtt: t.max_rtt,
                min_rtt: t.min_rtt,
                mean_rtt: t.mean_rtt,
                ..Default::default()
            };
            if t.sender {
                s.bytes_sent = t.bytes;
                s.sender_time = t.seconds;
                s.retransmits = t.retransmits.unwrap_or(-1);
                s.sender_packets = t.packets;
                if let Some(p) = ps {
                    s.bytes_received = p.bytes;
                    s.receiver_time = p.end_time;
                    s.receiver_packets = p.packets;
                    s.lost = p.errors;
                    s.jitter = p.jitter;
                }
                if s.receiver_time == 0.0 {
                    s.receiver_time = s.sender_time;
                }
            } else {
                s.bytes_received = t.bytes;
                s.receiver_time = t.seconds;
                s.receiver_packets = t.packets;
                s.lost = t.lost;
                s.jitter = t.jitter;
                s.out_of_order = t.out_of_order;
                if let Some(p) = ps {
                    s.bytes_sent = p.bytes;
                    s.sender_time = p.end_time;
                    s.retransmits = p.retransmits;
                    s.sender_packets = p.packets;
                }
                if s.sender_time == 0.0 {
                    s.sender_time = s.receiver_time;
                }
            }
            streams.push(s);
        }
        Ok(Summary {
            streams,
            cpu: self.cpu_final,
            remote_cpu: peer.map_or((0.0, 0.0, 0.0), |p| {
                (p.cpu_util_total, p.cpu_util_user, p.cpu_util_system)
            }),
            sender_has_retransmits: local_retr,
            other_side_has_retransmits: peer.is_some_and(|p| p.sender_has_retransmits == 1),
            sender_congestion: None,
            receiver_congestion: None,
            file: None,
        })
    }
}

/// A session given up on an error still has its stream threads waiting or
/// running: they stop (the process may go on, as a server does).
impl Drop for Session {
    fn drop(&mut self) {
        self.shared.set_phase(phase::DONE);
    }
}
