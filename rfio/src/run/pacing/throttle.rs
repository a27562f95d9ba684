//! Rate and think time (§3): `rate`, `rate_iops`, `rate_process`,
//! `rate_min`, `rate_iops_min`, `rate_cycle`, `thinktime*` and
//! `rate_ignore_thinktime`. Everything here runs off the per-I/O path
//! unless its option is set.

use crate::engine::IoKind;
use crate::job::Job;
use crate::run::files::filesize::Taus;
use crate::stats::ThreadStats;
use rbench_common::clock::FastClock;
use rbench_common::units::fio::{num2str, N2sUnit};
use std::cell::Cell;

/// What a mixed job's direction draw needs from the rate scheduler. fio
/// picks the direction of a mixed job's I/O (rwmix cycle, then
/// `rate_ddir`) before its offset and block size, and the direction the
/// rate settles on becomes the rwmix cycle's current one; so the draw in
/// run/offsets/choices.rs asks [`Steer::choose`], on due times the job's
/// [`Throttle`] keeps up to date in a cell they share
/// ([`Throttle::steer_handle`], handed to the offset picker by the worker).
#[derive(Clone, Copy, Debug)]
pub struct Steer {
    /// The worker's clock origin, in ticks.
    t0: u64,
    /// Due times of read and write, ns since `t0` (as [`Throttle::due`]).
    next_ns: [u64; 2],
    /// Whether the job mixes in read / write at all (rwmix share > 0).
    mixes: [bool; 2],
}

/// The due times shared by a job's [`Throttle`] and its direction draw
/// (both on the job's thread).
pub type SteerCell = std::rc::Rc<Cell<Steer>>;

/// Whether the rate chooses among the directions of `job` (a mixed job
/// with a rate): only then does the direction draw ask [`Steer::choose`].
pub fn steers(job: &Job) -> bool {
    job.pattern.mixed() && (0..2).any(|d| job.throttle.rate[d] > 0 || job.throttle.rate_iops[d] > 0)
}

impl Steer {
    /// fio's `rate_ddir` on a mixed job: direction `d` (0 read, 1 write) as
    /// the rwmix cycle drew it, or the other one when `d` is ahead of its
    /// rate and the other is due, or due sooner. The worker then waits for
    /// the chosen direction's slot ([`Throttle::gate`]).
    #[cold]
    pub fn choose(&self, d: usize) -> usize {
        let o = 1 - d.min(1);
        if d > 1 || !self.mixes[o] {
            return d;
        }
        let clock = FastClock::get();
        let now = clock.ticks_to_ns(clock.now().saturating_sub(self.t0));
        if self.next_ns[d] <= now {
            d
        } else if self.next_ns[o] <= now || self.next_ns[o] < self.next_ns[d] {
            o
        } else {
            d
        }
    }
}

/// `rate`/`rate_iops`: when each direction's next I/O may start. As in fio,
/// an IOPS cap is a byte rate of `rate_iops × minimum block size`, and the
/// next I/O of a direction is due once the bytes issued so far fit the rate
/// (linear), or after an exponentially distributed gap (poisson).
pub struct Throttle {
    pub on: bool,
    bps: [u64; 3],
    min_bs: [u64; 3],
    poisson: Option<[Taus; 3]>,
    issue_bytes: [u64; 3],
    /// Poisson clock: µs of the gaps drawn so far.
    last_us: [u64; 3],
    next_ns: [u64; 3],
    /// Where the schedule starts, ns since the origin (the end of
    /// ramp_time once it has passed).
    base_ns: u64,
    ignore_think: bool,
    /// A mixed job: the due times shared with its direction draw.
    steer: Option<SteerCell>,
}

impl Throttle {
    /// `t0`: the worker's clock origin in [`FastClock`] ticks (its due
    /// times count from there).
    pub fn new(job: &Job, t0: u64) -> Self {
        let min_bs: [u64; 3] = std::array::from_fn(|d| job.min_bs(d).max(1));
        let bps: [u64; 3] = std::array::from_fn(|d| {
            if job.throttle.rate[d] > 0 {
                job.throttle.rate[d]
            } else {
                job.throttle.rate_iops[d].saturating_mul(min_bs[d])
            }
        });
        let read_share = job.rwmixread.min(100);
        let steer = steers(job).then(|| {
            std::rc::Rc::new(Cell::new(Steer {
                t0,
                next_ns: [0; 2],
                mixes: [read_share > 0, read_share < 100],
            }))
        });
        Throttle {
            on: bps.iter().any(|&b| b > 0),
            steer,
            bps,
            min_bs,
            poisson: job.throttle.rate_poisson.then(|| {
                // fio's poisson_state per direction: 32-bit generators on
                // seed slots 15, 17 and 18 (FIO_RAND_POISSON*_OFF).
                [15, 17, 18].map(|slot| {
                    let seed = crate::run::files::filesize::slot_seed(job, slot)
                        .unwrap_or_else(rbench_common::clock::now_ns);
                    Taus::new(seed, false)
                })
            }),
            issue_bytes: [0; 3],
            last_us: [0; 3],
            next_ns: [0; 3],
            base_ns: 0,
            ignore_think: job.throttle.rate_ignore_thinktime,
        }
    }

    /// Nanoseconds since the start before which direction `d` may not issue.
    #[inline]
    pub fn due(&self, d: usize) -> u64 {
        self.next_ns[d]
    }

    /// An I/O of `len` bytes went out in direction `d`: its successor's due
    /// time (fio's `usec_for_io`).
    #[cold]
    pub fn issued(&mut self, d: usize, len: u64) {
        let bps = self.bps[d];
        if bps == 0 {
            return;
        }
        self.issue_bytes[d] += len;
        self.next_ns[d] = match &mut self.poisson {
            Some(rngs) => {
                // fio's usec_for_io: the mean gap in whole µs times -ln of
                // a uniform draw in (0, 1], both in single precision.
                let iops = (bps / self.min_bs[d]).max(1);
                let u = (rngs[d].next() as f64 + 1.0) / (1u64 << 32) as f64;
                let gap = ((1_000_000 / iops) as f32 * -(u as f32).ln()) as u64;
                self.last_us[d] += gap;
                self.last_us[d] * 1000
            }
            None => (u128::from(self.issue_bytes[d]) * 1_000_000_000 / u128::from(bps)) as u64,
        } + self.base_ns;
        if let Some(cell) = self.steer.as_ref().filter(|_| d < 2) {
            let mut s = cell.get();
            s.next_ns[d] = self.next_ns[d];
            cell.set(s);
        }
    }

    /// Whether an I/O of `kind` may go now: at once when its direction is
    /// due, else after its slot, once what is in flight has completed
    /// (`Hold` until then), as fio quiesces and sleeps in `rate_ddir`. A
    /// mixed job's direction was chosen before its offset and block size
    /// ([`Steer::choose`]), so it stays. `Stop`: the wait would pass `limit`, the
    /// end of the runtime.
    #[cold]
    pub fn gate(&self, kind: IoKind, now: u64, limit: u64, inflight: usize) -> Gate {
        let d = match kind {
            IoKind::Read => 0,
            IoKind::Write => 1,
            IoKind::Trim => 2,
            _ => return Gate::Go,
        };
        let due = self.due(d);
        if due <= now {
            return Gate::Go;
        }
        if inflight > 0 {
            return Gate::Hold;
        }
        crate::run::pacing::pause::sleep(std::time::Duration::from_nanos(
            due.min(limit).saturating_sub(now),
        ));
        if due > limit {
            Gate::Stop
        } else {
            Gate::Go
        }
    }

    /// The due times a mixed job's direction draw reads (None unless the
    /// rate steers the job's directions).
    pub fn steer_handle(&self) -> Option<SteerCell> {
        self.steer.clone()
    }

    /// ramp_time is over (`now`, ns since the origin): like fio, which
    /// resets its clock and rate counters there, the schedule starts
    /// afresh and every direction is due.
    #[cold]
    pub fn restart(&mut self, now: u64) {
        self.base_ns = now;
        self.issue_bytes = [0; 3];
        self.last_us = [0; 3];
        self.next_ns = [0; 3];
        if let Some(cell) = &self.steer {
            let mut s = cell.get();
            s.next_ns = [0; 2];
            cell.set(s);
        }
    }

    /// `rate_ignore_thinktime`: the time spent thinking counts as if I/O
    /// had gone out at the rate, less one block so the next goes at once.
    #[cold]
    pub fn thought(&mut self, d: usize, total_us: u64) {
        let bps = self.bps[d];
        if !self.ignore_think || bps == 0 || total_us == 0 {
            return;
        }
        let missed = bps * total_us / 1_000_000;
        let bs = self.min_bs[d];
        let per_op_us = bs * 1_000_000 / bps;
        let over = if per_op_us <= total_us { bs } else { 0 };
        self.issue_bytes[d] += missed.saturating_sub(over);
        self.last_us[d] += total_us;
    }
}

/// What the rate allows the prepared I/O.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gate {
    Go,
    /// Reap what is in flight first; the unit waits.
    Hold,
    /// The runtime ends before the I/O is due.
    Stop,
}

/// `rate_min`/`rate_iops_min`: after a 2 s settling period, every
/// `rate_cycle` ms the rate over the last cycle must reach the minimum, or
/// the job ends with EIO (fio's `check_min_rate`).
pub struct MinRate {
    pub on: bool,
    bytes: [u64; 3],
    iops: [u64; 3],
    cycle_ms: u64,
    last_bytes: [u64; 3],
    last_ios: [u64; 3],
    last_ns: [u64; 3],
}

impl MinRate {
    pub fn new(job: &Job) -> Self {
        MinRate {
            on: job
                .throttle
                .rate_min
                .iter()
                .chain(&job.throttle.rate_iops_min)
                .any(|&r| r > 0),
            bytes: job.throttle.rate_min,
            iops: job.throttle.rate_iops_min,
            cycle_ms: job.throttle.rate_cycle_ms,
            last_bytes: [0; 3],
            last_ios: [0; 3],
            last_ns: [0; 3],
        }
    }

    /// `since_ns`: time since measuring began. The message on a miss, as fio
    /// words it (its stderr line).
    #[cold]
    pub fn check(&mut self, name: &str, since_ns: u64, st: &ThreadStats) -> Option<String> {
        if since_ns < 2_000_000_000 {
            return None;
        }
        for d in 0..3 {
            let (bytes, ios) = (st.dir[d].io_bytes, st.dir[d].ios);
            if bytes == 0 || (self.bytes[d] == 0 && self.iops[d] == 0) {
                continue;
            }
            if self.last_bytes[d] != 0 || self.last_ios[d] != 0 {
                let spent = since_ns.saturating_sub(self.last_ns[d]) / 1_000_000;
                if spent < self.cycle_ms || spent == 0 {
                    continue;
                }
                if self.bytes[d] > 0 {
                    let got = bytes.saturating_sub(self.last_bytes[d]) * 1000 / spent;
                    if got < self.bytes[d] {
                        return Some(format!(
                            "{name}: rate_min={}B/s not met, got {got}B/s\n",
                            self.bytes[d]
                        ));
                    }
                } else {
                    let got = ios.saturating_sub(self.last_ios[d]) * 1000 / spent;
                    if got < self.iops[d] {
                        return Some(format!(
                            "{name}: rate_iops_min={} not met, got {got} IOPS\n",
                            self.iops[d]
                        ));
                    }
                }
            }
            self.last_bytes[d] = bytes;
            self.last_ios[d] = ios;
            self.last_ns[d] = since_ns;
        }
        None
    }
}

/// The rate limits of the running jobs on fio's status line:
/// `, 0B/s-1024KiB/s` (rate_min-rate summed over the directions each job
/// does), else `, 0-300 IOPS`, else nothing.
pub fn eta_limits<'a>(running: impl Iterator<Item = &'a Job>) -> String {
    let (mut m_rate, mut t_rate, mut m_iops, mut t_iops) = (0u64, 0u64, 0u64, 0u64);
    let mut fmt = (4, true);
    for j in running {
        fmt = (j.reporting.sig_figs, j.kb_base == 1024);
        for (d, on) in [j.pattern.read, j.pattern.write, j.pattern.trim]
            .into_iter()
            .enumerate()
        {
            if on {
                m_rate += j.throttle.rate_min[d];
                t_rate += j.throttle.rate[d];
                m_iops += j.throttle.rate_iops_min[d];
                t_iops += j.throttle.rate_iops[d];
            }
        }
    }
    let n = |v| num2str(v, fmt.0, 1, fmt.1, N2sUnit::BytePerSec);
    if m_rate > 0 || t_rate > 0 {
        format!(", {}-{}", n(m_rate), n(t_rate))
    } else if m_iops > 0 || t_iops > 0 {
        format!(", {m_iops}-{t_iops} IOPS")
    } else {
        String::new()
    }
}

/// `thinktime`: stall the job after every `thinktime_blocks` blocks
/// (completed, or issued with `thinktime_blocks_type=issue`), or once
/// `thinktime_iotime` of I/O has passed.
pub struct Think {
    pub on: bool,
    us: u64,
    spin_us: u64,
    blocks: u64,
    on_issue: bool,
    iotime_us: u64,
    blocks_set: bool,
    last_blocks: u64,
    last_ns: u64,
}

impl Think {
    pub fn new(job: &Job) -> Self {
        Think {
            on: job.throttle.thinktime_us > 0,
            us: job.throttle.thinktime_us,
            spin_us: job.throttle.thinktime_spin_us,
            blocks: job.throttle.thinktime_blocks,
            on_issue: job.throttle.thinktime_on_issue,
            iotime_us: job.throttle.thinktime_iotime_us,
            blocks_set: job.throttle.thinktime_blocks_set,
            last_blocks: 0,
            last_ns: 0,
        }
    }

    /// Whether a stall is due (`now_ns`: since the job started, read only
    /// for thinktime_iotime).
    #[cold]
    pub fn due(&self, st: &ThreadStats, now_ns: impl FnOnce() -> u64) -> bool {
        if self.iotime_us > 0 {
            if now_ns().saturating_sub(self.last_ns) >= (self.iotime_us + self.us) * 1000 {
                return true;
            }
            if !self.blocks_set {
                return false;
            }
        }
        self.count(st) >= self.last_blocks + self.blocks
    }

    fn count(&self, st: &ThreadStats) -> u64 {
        if self.on_issue {
            st.issued[..3].iter().sum()
        } else {
            st.dir.iter().map(|d| d.ios).sum()
        }
    }

    /// Spin for thinktime_spin, sleep the rest; the µs spent. Like fio's,
    /// the stall is not cut short by the end of the runtime.
    #[cold]
    pub fn stall(&mut self, st: &ThreadStats, now_ns: u64) -> u64 {
        let t0 = std::time::Instant::now();
        let spin = self.spin_us.min(self.us);
        let until = t0 + std::time::Duration::from_micros(spin);
        while std::time::Instant::now() < until {
            std::hint::spin_loop();
        }
        let rest = self.us - spin;
        if rest > 0 {
            crate::run::pacing::pause::sleep(std::time::Duration::from_micros(rest));
        }
        self.last_blocks = self.count(st);
        self.last_ns = now_ns;
        t0.elapsed().as_micros() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::test_job as job;

    #[test]
    fn linear_due_times_follow_the_bytes() {
        let mut t = Throttle::new(&job(&["--rate=1m", "--bs=4k"]), 0);
        assert!(t.on && t.due(0) == 0);
        t.issued(0, 4096);
        // 4 KiB at 1 MiB/s: 1/256 s.
        assert_eq!(t.due(0), 1_000_000_000 / 256);
        let mut t = Throttle::new(&job(&["--rate_iops=100", "--bsrange=4k-16k"]), 0);
        t.issued(0, 16384);
        // rate_iops counts in minimum blocks (fio): 16k is four of them.
        assert_eq!(t.due(0), 40_000_000);
    }

    #[test]
    fn a_mixed_job_turns_to_the_direction_that_is_due() {
        // An origin in the future: the clock reads 0 ns throughout, so only
        // the due times decide.
        let stopped = u64::MAX;
        let j = job(&["--rw=randrw", "--rate_iops=1000,500"]);
        assert!(steers(&j));
        let mut t = Throttle::new(&j, stopped);
        let cell = t.steer_handle().expect("a mixed rate job steers");
        let steer = |d| cell.get().choose(d);
        // Nothing issued yet: both are due, the drawn direction stays.
        assert_eq!((steer(0), steer(1)), (0, 1));
        // The read is ahead (due at 1 ms), the write is due: write.
        t.issued(0, 4096);
        assert_eq!((steer(0), steer(1)), (1, 1));
        // Both ahead: the one due sooner (read at 1 ms, write at 2 ms).
        t.issued(1, 4096);
        assert_eq!((steer(0), steer(1)), (0, 0));
        // rwmixread=100: the write never takes a read's turn.
        let j = job(&["--rw=randrw", "--rate_iops=1000", "--rwmixread=100"]);
        let mut t = Throttle::new(&j, stopped);
        let cell = t.steer_handle().expect("a mixed rate job steers");
        t.issued(0, 4096);
        assert_eq!(cell.get().choose(0), 0);
        // One direction only, or no rate: nothing to steer.
        assert!(!steers(&job(&["--rw=randread", "--rate_iops=1000"])));
        assert!(!steers(&job(&["--rw=randrw", "--rate_iops_min=10"])));
    }

    #[test]
    fn poisson_gaps_follow_fios_generator() {
        // fio 3.33 with randrepeat: read's first gaps at 1000 IOPS are
        // drawn from seed slot 15, 32 bits, in single precision.
        let j = job(&["--rw=randrw", "--rate_iops=1000", "--rate_process=poisson"]);
        let mut t = Throttle::new(&j, 0);
        let mut rng = Taus::new(
            crate::run::files::filesize::slot_seed(&j, 15).unwrap(),
            false,
        );
        let mut at = 0u64;
        for _ in 0..100 {
            t.issued(0, 4096);
            let u = (rng.next() as f64 + 1.0) / 4_294_967_296.0;
            at += (1000.0f32 * -(u as f32).ln()) as u64;
            assert_eq!(t.due(0), at * 1000);
        }
        // The write's own generator (slot 17): another sequence.
        t.issued(1, 4096);
        assert_ne!(t.due(1), t.due(0));
    }

    #[test]
    fn the_schedule_starts_again_after_the_ramp() {
        let mut t = Throttle::new(&job(&["--rate_iops=1000"]), 0);
        for _ in 0..10 {
            t.issued(0, 4096);
        }
        assert_eq!(t.due(0), 10_000_000);
        // Ramp over at 3 ms (7 ms ahead): due at once, then 1 ms apart.
        t.restart(3_000_000);
        assert_eq!(t.due(0), 0);
        t.issued(0, 4096);
        assert_eq!(t.due(0), 4_000_000);
    }

    #[test]
    fn poisson_gaps_average_out() {
        let mut t = Throttle::new(&job(&["--rate_iops=1000", "--rate_process=poisson"]), 0);
        for _ in 0..10_000 {
            t.issued(0, 4096);
        }
        // 10 000 gaps of 1 ms on average.
        let s = t.due(0) as f64 / 1e9;
        assert!((9.5..10.5).contains(&s), "{s}");
    }

    #[test]
    fn status_line_limits() {
        let j = job(&["--rate=1m"]);
        assert_eq!(eta_limits([&j].into_iter()), ", 0B/s-1024KiB/s");
        let j = job(&["--rw=randrw", "--rate_iops=100,200"]);
        assert_eq!(eta_limits([&j].into_iter()), ", 0-300 IOPS");
        assert_eq!(eta_limits([&job(&[])].into_iter()), "");
    }

    #[test]
    fn min_rate_waits_two_seconds_then_a_cycle() {
        let j = job(&["--rate_iops_min=100"]);
        let mut m = MinRate::new(&j);
        let mut st = ThreadStats::default();
        st.dir[0].ios = 10;
        st.dir[0].io_bytes = 40960;
        assert!(m.check("t", 1_000_000_000, &st).is_none());
        assert!(m.check("t", 2_000_000_000, &st).is_none());
        st.dir[0].ios = 30;
        assert!(m.check("t", 2_500_000_000, &st).is_none());
        assert_eq!(
            m.check("t", 3_000_000_000, &st).as_deref(),
            Some("t: rate_iops_min=100 not met, got 20 IOPS\n")
        );
    }
}
