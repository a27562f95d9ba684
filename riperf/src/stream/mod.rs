//! Data streams: one thread per stream, TCP and UDP behind one trait. The
//! threads publish running totals in atomics (single writer, no lock); the
//! control thread samples them once per interval.

pub mod buf;
pub mod setup;
pub mod tcp;
pub mod tcp_group;
pub mod udp;

use std::sync::atomic::{AtomicBool, AtomicI32, AtomicI64, AtomicU64, AtomicU8, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

/// Test phases as the stream threads see them.
pub mod phase {
    /// Streams set up; receivers already count (data may race TEST_RUNNING).
    pub const WAITING: u8 = 0;
    /// Senders send, receivers count.
    pub const RUNNING: u8 = 1;
    /// Senders stop; receivers count what is still buffered, then drain uncounted.
    pub const ENDING: u8 = 2;
    /// Threads exit.
    pub const DONE: u8 = 3;
}

/// Test-wide state shared by every stream thread.
pub struct TestShared {
    pub phase: AtomicU8,
    /// `-n`: total bytes all senders may send (0 = no limit).
    pub limit_bytes: u64,
    /// `-k`: total blocks all senders may send (0 = no limit).
    pub limit_blocks: u64,
    pub total_bytes: AtomicU64,
    pub total_blocks: AtomicU64,
    /// A UDP server's senders (`-R`/`--bidir`) go on past the budget when
    /// the client has not ended the test soon after it was spent: datagrams
    /// get lost, so the client may need more than `-n` to reach its count
    /// (a 3.12 pair waits until the client's --rcv-timeout instead).
    overshoot: bool,
    /// The budget no longer applies (an overshooting server after the grace).
    unlimited: AtomicBool,
    /// `-F`: a sender read its file to the end (3.12 then ends a client's
    /// test, whatever `-t` says).
    pub file_eof: AtomicBool,
    /// Notified as each stream thread ends and when the receivers reach
    /// `recv_limit`; the client's control thread sleeps on it (see
    /// [`crate::net::Wake`]). Set by the client once its streams are
    /// connected, so the `[  4]` socket numbers stay as they were; unset on
    /// the server and where no eventfd is to be had.
    pub wake: std::sync::OnceLock<crate::net::Wake>,
    /// A receiving client's `-n`/`-k` in bytes (0: none): the receivers
    /// wake the control thread once together they counted this much.
    pub recv_limit: AtomicU64,
    recv_total: AtomicU64,
}

/// How long an overshooting server waits for TEST_END once the budget is spent.
const OVERSHOOT_GRACE_NS: u64 = 250_000_000;

impl TestShared {
    pub fn new(limit_bytes: u64, limit_blocks: u64) -> Arc<TestShared> {
        Self::with_overshoot(limit_bytes, limit_blocks, false)
    }

    /// As [`TestShared::new`], for a sending server: see `overshoot`.
    pub fn with_overshoot(limit_bytes: u64, limit_blocks: u64, overshoot: bool) -> Arc<TestShared> {
        Arc::new(TestShared {
            phase: AtomicU8::new(phase::WAITING),
            limit_bytes,
            limit_blocks,
            total_bytes: AtomicU64::new(0),
            total_blocks: AtomicU64::new(0),
            overshoot,
            unlimited: AtomicBool::new(false),
            file_eof: AtomicBool::new(false),
            wake: std::sync::OnceLock::new(),
            recv_limit: AtomicU64::new(0),
            recv_total: AtomicU64::new(0),
        })
    }

    /// The budget is spent: whether the calling sender stops now. An
    /// overshooting server's sender first waits (bounded) for the test to
    /// end, then sends on without a budget.
    pub fn stop_at_budget(&self) -> bool {
        if !self.overshoot {
            return true;
        }
        let deadline = rbench_common::clock::now_ns() + OVERSHOOT_GRACE_NS;
        while rbench_common::clock::now_ns() < deadline {
            if self.phase() != phase::RUNNING {
                return true;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        self.unlimited.store(true, Ordering::Relaxed);
        self.phase() != phase::RUNNING
    }

    #[inline]
    pub fn phase(&self) -> u8 {
        self.phase.load(Ordering::Relaxed)
    }

    pub fn set_phase(&self, p: u8) {
        self.phase.store(p, Ordering::SeqCst);
    }

    /// Take one block of `len` bytes from the `-n`/`-k` budget; false when
    /// the budget is spent. Only called when a limit is set.
    #[inline]
    pub fn reserve_block(&self, len: u64) -> bool {
        self.reserve(len, false) != 0
    }

    /// Take one block from the `-n`/`-k` budget: the bytes that may be
    /// sent, 0 when the budget is spent. With `partial` (TCP) the last block
    /// is cut to what is left, so the senders send exactly `-n`; without
    /// (a UDP datagram is whole) it goes out whole.
    #[inline]
    pub fn reserve(&self, len: u64, partial: bool) -> u64 {
        if self.unlimited.load(Ordering::Relaxed) {
            return len;
        }
        let mut take = len;
        if self.limit_bytes != 0 {
            let limit = self.limit_bytes;
            let step = |cur: u64| if partial { len.min(limit - cur) } else { len };
            match self
                .total_bytes
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |cur| {
                    (cur < limit).then(|| cur + step(cur))
                }) {
                Ok(prev) => take = step(prev),
                Err(_) => return 0,
            }
        }
        if self.limit_blocks != 0
            && self
                .total_blocks
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |cur| {
                    (cur < self.limit_blocks).then_some(cur + 1)
                })
                .is_err()
        {
            if self.limit_bytes != 0 {
                self.total_bytes.fetch_sub(take, Ordering::Relaxed);
            }
            return 0;
        }
        take
    }

    /// Give back what was reserved but not sent (a send that timed out or
    /// went out in part), so the senders together send the whole budget.
    #[inline]
    pub fn unreserve(&self, bytes: u64, blocks: u64) {
        if self.limit_bytes != 0 {
            self.total_bytes.fetch_sub(bytes, Ordering::Relaxed);
        }
        if self.limit_blocks != 0 {
            self.total_blocks.fetch_sub(blocks, Ordering::Relaxed);
        }
    }

    /// A receiver counted `n` more bytes: the receivers together reaching
    /// `recv_limit` wakes the control thread (one atomic add per read or
    /// datagram batch, and only under a receiving client's -n/-k).
    #[inline]
    pub fn received(&self, n: u64) {
        let limit = self.recv_limit.load(Ordering::Relaxed);
        if limit == 0 {
            return;
        }
        let before = self.recv_total.fetch_add(n, Ordering::Relaxed);
        if before < limit && before + n >= limit {
            if let Some(w) = self.wake.get() {
                w.notify();
            }
        }
    }

    pub fn limited(&self) -> bool {
        self.limit_bytes != 0 || self.limit_blocks != 0
    }
}

/// One stream's running totals, written by its thread only.
#[derive(Default)]
pub struct Counters {
    /// Bytes sent or received (counted ones).
    pub bytes: AtomicU64,
    /// UDP: datagrams sent, or the highest sequence number received.
    pub packets: AtomicU64,
    /// UDP receiver: lost datagrams (may go down on late arrivals).
    pub lost: AtomicI64,
    pub out_of_order: AtomicU64,
    /// UDP receiver: jitter in seconds, as f64 bits.
    pub jitter_bits: AtomicU64,
    /// The sender stopped (budget spent or error) or the receiver saw EOF.
    pub finished: AtomicBool,
    /// A receiver found its socket idle after the test ended.
    pub drained: AtomicBool,
    /// The errno of the send or receive that stopped this stream while the
    /// test ran (0: none); the control thread reports it as iperf3 does.
    pub errno: AtomicI32,
}

impl Counters {
    pub fn jitter(&self) -> f64 {
        f64::from_bits(self.jitter_bits.load(Ordering::Relaxed))
    }

    /// Record the error that stopped the stream, unless the test was
    /// already ending (a peer closing at the end is no failure).
    pub fn fail(&self, test: &TestShared, e: &std::io::Error) {
        if test.phase() <= phase::RUNNING {
            let n = match e.kind() {
                std::io::ErrorKind::TimedOut => libc::ETIMEDOUT,
                _ => e.raw_os_error().unwrap_or(libc::EIO),
            };
            self.errno.store(n.max(1), Ordering::SeqCst);
        }
    }

    /// The error that stopped this stream, as iperf3 words it.
    pub fn error(&self, sender: bool) -> Option<String> {
        let n = self.errno.load(Ordering::SeqCst);
        (n != 0).then(|| {
            format!(
                "unable to {} stream socket: {}",
                if sender { "write to" } else { "read from" },
                crate::protocol::errors::StrError::to_string_c(&std::io::Error::from_raw_os_error(
                    n
                ))
            )
        })
    }
}

/// How a sending stream paces itself (`-b rate[/burst]`, `--pacing-timer`).
#[derive(Debug, Clone, Copy)]
pub struct Pacing {
    /// Bits per second for this stream; 0 = unlimited.
    pub rate: u64,
    /// Blocks sent per green light (at least 1).
    pub burst: u64,
    pub pacing_timer_us: u64,
}

impl Pacing {
    /// How long to wait before sending more, given what was sent since `start_ns`.
    #[inline]
    pub fn wait_ns(&self, sent_bytes: u64, start_ns: u64, now_ns: u64) -> u64 {
        if self.rate == 0 {
            return 0;
        }
        // When may `sent_bytes` have been sent at `rate`?
        let due_ns = (sent_bytes as u128 * 8 * 1_000_000_000 / self.rate as u128) as u64;
        let elapsed = now_ns.saturating_sub(start_ns);
        due_ns.saturating_sub(elapsed)
    }
}

/// What a stream does: send or receive, over TCP or UDP. Implementations
/// keep their socket and buffer; `run` is the stream thread's whole life.
pub trait StreamIo: Send {
    fn run(&mut self, test: &TestShared, counters: &Counters);

    /// A TCP sender with nothing of its own to pace or read (no `-b`,
    /// `-F`, `-Z`), which may share a thread ([`spawn_all`]); else itself.
    fn into_plain_tcp_sender(self: Box<Self>) -> Result<tcp::TcpSender, Box<dyn StreamIo>>;
}

/// Start every stream's thread (stream `i` pinned to `cpu(i)` when given).
/// More plain TCP senders than CPUs share one thread per CPU
/// ([`tcp_group`]); the first stream of each group holds its thread. The
/// streams started, and the error that stopped the rest.
pub fn spawn_all(
    streams: Vec<(Stream, Box<dyn StreamIo>)>,
    test: &Arc<TestShared>,
    cpu: impl Fn(usize) -> Option<usize>,
) -> (Vec<Stream>, Option<std::io::Error>) {
    let mut plain = Vec::new();
    let mut others = Vec::new();
    for (i, (s, io)) in streams.into_iter().enumerate() {
        match io.into_plain_tcp_sender() {
            Ok(t) if s.sender && !s.udp => plain.push((i, s, t)),
            Ok(t) => others.push((i, s, Box::new(t) as Box<dyn StreamIo>)),
            Err(io) => others.push((i, s, io)),
        }
    }
    let groups = tcp_group::threads_for(plain.len());
    if plain.len() <= groups {
        others.extend(
            plain
                .into_iter()
                .map(|(i, s, t)| (i, s, Box::new(t) as Box<dyn StreamIo>)),
        );
    } else {
        others.extend(group_senders(plain, groups));
    }
    others.sort_by_key(|x| x.0);
    let mut started = Vec::new();
    for (i, mut s, io) in others {
        // The members of a group after its first run on its thread.
        if s.thread.is_none() && s.grouped {
            started.push(s);
            continue;
        }
        if let Err(e) = s.spawn(io, test.clone(), cpu(i)) {
            return (started, Some(e));
        }
        started.push(s);
    }
    (started, None)
}

/// Deal the plain senders round robin into `n` groups; each group's body
/// goes with its first stream, which runs it on its thread; the other
/// members are marked `grouped` and get no thread of their own.
fn group_senders(
    plain: Vec<(usize, Stream, tcp::TcpSender)>,
    n: usize,
) -> Vec<(usize, Stream, Box<dyn StreamIo>)> {
    let mut buckets: Vec<Vec<(usize, Stream, tcp::TcpSender)>> =
        (0..n).map(|_| Vec::new()).collect();
    for (k, x) in plain.into_iter().enumerate() {
        buckets[k % n].push(x);
    }
    let mut out = Vec::new();
    for bucket in buckets {
        let mut senders = Vec::new();
        let mut streams = Vec::new();
        for (i, mut s, t) in bucket {
            senders.push((t, s.counters.clone()));
            s.grouped = !streams.is_empty();
            streams.push((i, s));
        }
        let mut body: Option<Box<dyn StreamIo>> =
            Some(Box::new(tcp_group::TcpSendGroup::new(senders)));
        for (i, s) in streams {
            let io = body.take().unwrap_or_else(|| Box::new(Grouped));
            out.push((i, s, io));
        }
    }
    out
}

/// The body of a stream another stream's thread drives (never run).
struct Grouped;

impl StreamIo for Grouped {
    fn run(&mut self, _test: &TestShared, _counters: &Counters) {}

    fn into_plain_tcp_sender(self: Box<Self>) -> Result<tcp::TcpSender, Box<dyn StreamIo>> {
        Err(self)
    }
}

/// A running stream as the control thread sees it.
pub struct Stream {
    pub id: i64,
    /// The socket number shown in `[  5]` (our fd).
    pub socket: i32,
    pub sender: bool,
    pub udp: bool,
    pub local: std::net::SocketAddr,
    pub remote: std::net::SocketAddr,
    pub counters: Arc<Counters>,
    pub thread: Option<JoinHandle<()>>,
    /// Kept for TCP_INFO reads from the control thread.
    pub fd: i32,
    /// The socket, kept open until the stream is dropped.
    pub keep: Option<Arc<dyn std::any::Any + Send + Sync>>,
    /// Sent by another stream's thread ([`spawn_all`]): no thread of its own.
    pub grouped: bool,
}

impl Stream {
    /// Start the thread for `io`, pinned to `cpu` when given.
    pub fn spawn(
        &mut self,
        mut io: Box<dyn StreamIo>,
        test: Arc<TestShared>,
        cpu: Option<usize>,
    ) -> std::io::Result<()> {
        let counters = self.counters.clone();
        let h = std::thread::Builder::new()
            .name(format!("stream-{}", self.id))
            .spawn(move || {
                if let Some(c) = cpu {
                    let _ = rbench_common::cpu::pin_current_thread(c);
                }
                io.run(&test, &counters);
                counters.finished.store(true, Ordering::SeqCst);
                if let Some(w) = test.wake.get() {
                    w.notify();
                }
            })?;
        self.thread = Some(h);
        Ok(())
    }
}

/// The CPU for stream `index` when `-A first` is given: streams spread
/// over the CPUs this process may use, starting at `first` (iperf3 pins its
/// one thread to `first`; riperf has a thread per stream).
pub fn stream_cpu(first: Option<usize>, index: usize) -> Option<usize> {
    let first = first?;
    let cpus = rbench_common::cpu::available_cpus();
    let start = cpus.iter().position(|&c| c == first).unwrap_or(0);
    cpus.get((start + index) % cpus.len().max(1))
        .copied()
        .or(Some(first))
}

/// Stream ids as iperf3 numbers them: 1, then 3, 4, 5, … (spec §10.3).
pub fn stream_id(index: usize) -> i64 {
    if index == 0 {
        1
    } else {
        index as i64 + 2
    }
}

/// `-F`: the file a stream reads (sender) or writes (receiver).
pub fn open_file(path: Option<&str>, sender: bool) -> Result<Option<std::fs::File>, String> {
    let Some(p) = path else { return Ok(None) };
    let f = if sender {
        std::fs::File::open(p)
    } else {
        std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(p)
    };
    f.map(Some).map_err(|e| {
        format!(
            "unable to open -F file: {}",
            crate::protocol::errors::StrError::to_string_c(&e)
        )
    })
}

/// `-F`: the file's name and size for the summary's `Sent … of …` line.
pub fn file_info(path: Option<&str>) -> Option<(String, u64)> {
    let p = path?;
    Some((p.to_string(), std::fs::metadata(p).map_or(0, |m| m.len())))
}

/// A block of payload: random bytes, or `0123456789…` with
/// `--repeating-payload`; page-aligned, as iperf3's mapped buffer is.
pub fn payload(len: usize, repeating: bool) -> buf::PageBuf {
    let mut b = buf::PageBuf::zeroed(len);
    if repeating {
        for (i, x) in b.iter_mut().enumerate() {
            *x = b'0' + (i % 10) as u8;
        }
    } else {
        crate::protocol::cookie::fill_random(&mut b);
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_follow_iperf3() {
        assert_eq!((0..4).map(stream_id).collect::<Vec<_>>(), vec![1, 3, 4, 5]);
    }

    #[test]
    fn pacing_waits_for_the_average_rate() {
        let p = Pacing {
            rate: 8_000_000,
            burst: 1,
            pacing_timer_us: 1000,
        };
        // 1 MB at 8 Mbit/s is due at 1 s.
        assert_eq!(p.wait_ns(1_000_000, 0, 250_000_000), 750_000_000);
        assert_eq!(p.wait_ns(1_000_000, 0, 2_000_000_000), 0);
        let free = Pacing { rate: 0, ..p };
        assert_eq!(free.wait_ns(u64::MAX, 0, 0), 0);
    }

    #[test]
    fn stream_errors_count_only_while_the_test_runs() {
        let t = TestShared::new(0, 0);
        let c = Counters::default();
        let reset = std::io::Error::from_raw_os_error(libc::ECONNRESET);
        t.set_phase(phase::ENDING);
        c.fail(&t, &reset);
        assert_eq!(
            c.error(true),
            None,
            "a peer closing at the end is no failure"
        );
        t.set_phase(phase::RUNNING);
        c.fail(&t, &reset);
        assert_eq!(
            c.error(true).as_deref(),
            Some("unable to write to stream socket: Connection reset by peer")
        );
        let c = Counters::default();
        c.fail(&t, &std::io::Error::from(std::io::ErrorKind::TimedOut));
        assert_eq!(
            c.error(false).as_deref(),
            Some("unable to read from stream socket: Connection timed out")
        );
    }

    #[test]
    fn an_overshooting_server_sends_on_after_the_grace() {
        let t = TestShared::with_overshoot(100, 0, true);
        t.set_phase(phase::RUNNING);
        assert!(t.reserve_block(100));
        assert!(!t.reserve_block(100));
        assert!(!t.stop_at_budget(), "still running after the grace");
        assert!(t.reserve_block(100));
        let t = TestShared::with_overshoot(100, 0, true);
        t.set_phase(phase::ENDING);
        assert!(t.stop_at_budget(), "the test ended: stop");
        assert!(TestShared::new(100, 0).stop_at_budget());
    }

    #[test]
    fn receivers_wake_the_control_thread_once_at_the_limit() {
        let t = TestShared::new(0, 0);
        t.received(1 << 20);
        assert!(t.wake.get().is_none(), "no wake-up set: nothing to do");
        t.wake.set(crate::net::Wake::new().unwrap()).ok().unwrap();
        let w = t.wake.get().unwrap();
        t.received(1 << 20);
        assert!(!w.take_pending(), "no limit: no wake-up");
        t.recv_limit.store(300, Ordering::Relaxed);
        t.recv_total.store(0, Ordering::Relaxed);
        t.received(200);
        assert!(!w.take_pending(), "200 of 300");
        t.received(200);
        assert!(w.take_pending(), "crossed 300");
        t.received(200);
        assert!(!w.take_pending(), "once only");
    }

    #[test]
    fn budget_is_shared() {
        let t = TestShared::new(300, 0);
        assert!(t.reserve_block(128));
        assert!(t.reserve_block(128));
        assert!(t.reserve_block(128));
        assert!(!t.reserve_block(128));
    }

    #[test]
    fn the_last_tcp_block_is_cut_to_the_budget() {
        let t = TestShared::new(300, 0);
        assert_eq!(t.reserve(128, true), 128);
        assert_eq!(t.reserve(128, true), 128);
        assert_eq!(t.reserve(128, true), 44);
        assert_eq!(t.reserve(128, true), 0);
        let t = TestShared::new(0, 2);
        assert_eq!(t.reserve(128, true), 128);
        assert_eq!(t.reserve(128, true), 128);
        assert_eq!(t.reserve(128, true), 0);
    }

    #[test]
    fn unsent_reservations_go_back_to_the_budget() {
        let t = TestShared::new(256, 2);
        assert!(t.reserve_block(128));
        assert!(t.reserve_block(128));
        // The second send timed out: nothing of it left.
        t.unreserve(128, 1);
        assert!(t.reserve_block(128), "the block that was not sent");
        assert!(!t.reserve_block(128));
    }
}
