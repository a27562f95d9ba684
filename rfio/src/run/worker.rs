//! The job loop, written once against the [`Engine`] trait. `run` builds a
//! `Worker` and drives it: `job_loop`, then `drain`, `final_verify` and
//! `finish`. Each turn of the loop is one pass of fio's I/O life cycle:
//!
//! - `tick` (cold, when due): ramp's end, samples, status, rate_min,
//!   steady state, the runtime's end;
//! - `fill`: for each free unit `pick` (its work: a due sync or the next
//!   block; `next_pass` when the offsets run out), `prepare` (rate slot,
//!   contents, issue stamp), issue (`Engine::queue`), then `account_sync`
//!   for a synchronous completion or `queued` (and `commit` per batch);
//! - `reap`: wait for completions and `account` each;
//! - between loops `verify_round`; thinktime's `think_stall`.
//!
//! State is grouped by what it is for: `Plan` (fixed before the loop),
//! `Queue` (where the units are), `Issued` (against the job's limits),
//! `Timing`, `Pacing`. The hot path (`fill`, `pick`, `prepare`,
//! `account_sync`, `queued`, `reap`, `account`) allocates nothing, takes no
//! lock and makes no system call beyond the engine's own and the clock's;
//! everything it needs (units, buffers, completion list, histograms) is
//! allocated before the loop.
use super::buffers::Buffers;
use super::files::layout::JobFiles;
use super::logs::job_logs::Logs;
use super::logs::sampler::Sampler;
use super::offsets::picker::Picker;
use super::pacing::throttle::{Gate, Throttle};
use crate::engine::{Engine, IoKind, IoUnit, Queued, Traits};
use crate::job::Job;
use crate::stats::{batch_bucket, depth_bucket, IoError, ThreadStats};
use rbench_common::clock::FastClock;
use rbench_common::stop;
use std::sync::atomic::{AtomicBool, Ordering};

/// Where a read's or write's latency needs a look (see Plan::lat_limit_ns).
fn lat_limit_ns(job: &Job) -> u64 {
    let max = job
        .targets
        .max_latency_us
        .iter()
        .copied()
        .filter(|&v| v > 0)
        .min();
    let target = Some(job.targets.latency_target_us).filter(|&v| v > 0);
    max.into_iter()
        .chain(target)
        .min()
        .map_or(u64::MAX, |us| us.saturating_mul(1000))
}

/// The job's cmdprio (checked already when its engine was set up), with
/// its per-priority statistics in place.
fn cmdprio_of(
    job: &Job,
    st: &mut ThreadStats,
) -> Option<(
    crate::engine::cmdprio::CmdPrio,
    crate::engine::cmdprio::Draws,
)> {
    let c = crate::engine::cmdprio::CmdPrio::from_config(&job.engine_config())
        .ok()
        .flatten()?;
    for d in 0..2 {
        st.dir[d].prios = c.prios[d]
            .iter()
            .map(|&p| (p, rbench_common::histogram::LatencyHistogram::default()))
            .collect();
    }
    let seed = job.rand.randseed.unwrap_or(0x5eed) ^ ((job.number as u64) << 32);
    Some((c, crate::engine::cmdprio::Draws::new(seed)))
}

/// The job's place in its flow (flow=), if it has one, and the clock
/// reading its clock starts at (its flow's common start).
fn flow_start(
    progress: &super::eta::Progress,
    clock: &FastClock,
) -> (Option<super::pacing::flow::Flow>, u64) {
    let flow = progress
        .flow
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .take();
    let t0 = flow
        .as_ref()
        .map_or_else(|| clock.now(), |f| f.start_line(clock));
    (flow, t0)
}

/// Record one completed unit. Hot path.
#[inline]
fn record(st: &mut ThreadStats, io: &IoUnit, done_ns_lat: (u64, u64), job: &Job) -> Option<i32> {
    if io.result < 0 {
        // continue_on_error / ignore_error decide (§3).
        return super::errors::failed(st, io, (-io.result) as i32, done_ns_lat.0, job);
    }
    let (clat, lat) = done_ns_lat;
    match io.kind {
        IoKind::Fsync | IoKind::Fdatasync => {
            st.sync_lat.record(clat);
            st.sync_ios += 1;
        }
        k => {
            let d = match k {
                IoKind::Read => 0,
                IoKind::Write => 1,
                _ => 2,
            };
            let ds = &mut st.dir[d];
            ds.io_bytes += io.result as u64;
            ds.ios += 1;
            // Short: some bytes but not all (fio's `bytes && resid`); a
            // read that found nothing (past the end) is not (checked only
            // when short, so a full transfer costs what it did).
            if (io.result as usize) < io.len && io.result > 0 {
                ds.short_ios += 1;
            }
            if !job.reporting.disable_clat {
                ds.clat.record(clat);
            }
            if !job.reporting.disable_lat {
                ds.lat.record(lat);
            }
            if !ds.prios.is_empty() {
                // cmdprio: lat with lat_percentiles, clat otherwise (fio's).
                let v = if job.reporting.lat_percentiles {
                    lat
                } else {
                    clat
                };
                if let Some(p) = ds.prios.get_mut(usize::from(io.prio_idx)) {
                    p.1.record(v);
                }
            }
        }
    }
    None
}

/// What `run` hands back: the job's counters, how it failed, its logs.
type Ended = (ThreadStats, Option<IoError>, Option<Logs>);

/// Run one job on the calling thread. `go` is raised when every job of the
/// stonewall segment is ready; `exit_all` stops everyone (`exitall`).
pub fn run(
    job: &Job,
    traits: Traits,
    engine: Box<dyn Engine>,
    files: &JobFiles,
    exit_all: &AtomicBool,
    progress: &super::eta::Progress,
) -> Ended {
    let mut w = match Worker::new(job, traits, engine, files, exit_all, progress) {
        Ok(w) => w,
        Err(ended) => return *ended,
    };
    w.job_loop();
    w.drain();
    w.final_verify();
    w.finish()
}

/// One job's life: its units, and everything that works on them. The units
/// stand apart from the core so that the core's steps can take the unit they
/// work on (`&mut IoUnit`) without indexing it again.
struct Worker<'a> {
    /// The I/O units; their buffers live in `core.bufs`.
    units: Vec<IoUnit>,
    /// The units the engine reaped in its last `getevents`.
    done: Vec<usize>,
    core: Core<'a>,
}

/// Everything of a running job but its units.
struct Core<'a> {
    plan: Plan<'a>,
    engine: Box<dyn Engine>,
    q: Queue,
    issued: Issued,
    time: Timing,
    pace: Pacing,
    picker: Picker,
    /// verify=: None when off, so each hook is one predictable branch.
    verifier: Option<crate::run::verify::Verifier<'a>>,
    /// serialize_overlap's checks (off: one predictable branch per I/O).
    overlap: super::overlap::Overlaps,
    /// cmdprio: the priorities and the draws that pick them.
    cmdprio: Option<(
        crate::engine::cmdprio::CmdPrio,
        crate::engine::cmdprio::Draws,
    )>,
    filler: super::buffers::Filler,
    logs: Option<Logs>,
    /// write_iolog: a line per I/O queued.
    iolog: Option<super::iolog::writer::IoLogWriter>,
    st: ThreadStats,
    error: Option<IoError>,
    /// lockfile: the files' locks (None under lockfile=none).
    locks: Option<super::filelock::FileLocks>,
    /// The units' memory (after the engine, which may still point into it).
    _bufs: Buffers,
}

/// What the job loop is fixed to before it starts (read only in the loop).
struct Plan<'a> {
    job: &'a Job,
    traits: Traits,
    files: &'a JobFiles,
    exit_all: &'a AtomicBool,
    progress: &'a super::eta::Progress,
    clock: &'static FastClock,
    /// The job clock's time 0, in the clock's ticks.
    t0: u64,
    /// Units in the queue (1 for a synchronous engine).
    depth: usize,
    /// iodepth_low: once full, the queue drains to this before refilling.
    low_mark: usize,
    ramp_ns: u64,
    runtime_ns: u64,
    /// ramp_time + runtime (u64::MAX without a runtime).
    end_ns: u64,
    time_based: bool,
    /// io_size (or size): the bytes of one pass.
    io_per_pass: u64,
    /// io_size times loops, against the bytes issued over all loops (fio's
    /// io_bytes_exceeded): a loop of a mixed sequential job runs on until
    /// a direction reaches the end of its region.
    io_limit: u64,
    /// The largest block of any direction.
    max_bs: u64,
    /// number_ios, as fio's exceeds_number_ios: times loops, over the job's
    /// I/Os and its verify reads; 0 (no cap) for a time_based job.
    ios_cap: u64,
    /// Whether io_size may bring another round after the loops. An async
    /// engine's round ends at `size` bytes issued, before fio finds the
    /// file done, so its rounds always start over (fio's null engine queues
    /// too at a depth above 1).
    rounds_restart: bool,
    /// fsync= or fdatasync=: a sync after every N writes (0: none).
    sync_every: u64,
    count_submits: bool,
    /// A synchronous completion's end reading also opens the next pass (the
    /// loop goes straight on): one clock read per I/O saved. Only when no
    /// stall (rate, thinktime, verify backlog) can come between the two.
    carry_end: bool,
    /// Writes get their contents per I/O (buffer patterns, verify headers).
    fill_writes: bool,
    /// Per-I/O bw and iops samples (per-I/O logs).
    per_io_rates: (bool, bool),
    /// The thread's rusage at the start.
    usage0: (f64, f64, u64, u64, u64),
    /// A read's or write's latency above this (ns) is looked at
    /// (max_latency, latency_target; u64::MAX: neither is set).
    lat_limit_ns: u64,
}

impl Plan<'_> {
    /// A clock reading as ns of the job clock.
    #[inline]
    fn ns(&self, t: u64) -> u64 {
        self.clock.ticks_to_ns(t.saturating_sub(self.t0))
    }
}

/// Where the units are: free, waiting for their issue stamp, in flight, held.
struct Queue {
    free: Vec<usize>,
    /// Queued to the engine, not yet committed.
    to_stamp: Vec<usize>,
    inflight: usize,
    /// A prepared unit waiting for its turn (a rate slot, a busy engine, a
    /// verify between loops, the requeued rest of a short transfer).
    held: Option<usize>,
    /// iodepth_low: false while the queue drains to the low mark.
    filling: bool,
}

/// How much of the job was issued, against its limits.
struct Issued {
    bytes: u64,
    ios: u64,
    loops_left: u64,
    writes_since_sync: u64,
    /// The file of a due fsync/fdatasync.
    pending_sync: Option<usize>,
    /// The offsets ran out: no more new I/O.
    exhausted: bool,
    /// A loop ended: verify it once nothing is in flight (verify= only).
    verify_due: bool,
}

/// The job's time: ramp, measured window, when the next cold check is due.
struct Timing {
    measuring: bool,
    /// Job-clock ns at which measuring began (ramp_time's end).
    measure_start: u64,
    sampler: Sampler,
    /// Job-clock ns of the next cold check.
    next_check: u64,
    /// The same (or the end), in clock ticks, rounded down.
    check_at: u64,
    /// The last synchronous completion's clock reading, to start the next pass.
    carried: u64,
}

/// rate, rate_min, steadystate, thinktime.
struct Pacing {
    throttle: Throttle,
    min_rate: super::pacing::throttle::MinRate,
    steady: Option<super::pacing::steadystate::Monitor>,
    think: super::pacing::throttle::Think,
    /// A stall is due once what is in flight has completed (fio quiesces).
    think_pending: bool,
    /// The direction of the last read or write (thinktime's rate credit).
    last_dir: usize,
    /// flow=: the job's flow (None without one), and whether it held the
    /// job back in this pass.
    flow: Option<super::pacing::flow::Flow>,
    flow_held: bool,
    /// latency_target's probe (None without one); wait for what is in
    /// flight (a ramp down), then maybe reset the statistics (its final
    /// window).
    lat: Option<super::pacing::latency::Probe>,
    lat_quiesce: bool,
    lat_final: bool,
}

/// What picking the next unit's work came to.
enum Pick {
    Ready,
    /// The offsets ran out: the job's I/O is done.
    Out,
    /// Starting the next loop failed (unlink_each_loop).
    Failed(IoError),
}

impl<'a> Worker<'a> {
    /// Everything the loop needs, allocated before it starts; a job that
    /// fails here ends with what `run` returns.
    fn new(
        job: &'a Job,
        traits: Traits,
        mut engine: Box<dyn Engine>,
        files: &'a JobFiles,
        exit_all: &'a AtomicBool,
        progress: &'a super::eta::Progress,
    ) -> Result<Worker<'a>, Box<Ended>> {
        let (bufs, units, filler, mut picker) = start(job, traits, &mut *engine, files)?;
        let iolog = open_iolog(job, files)?;
        let mut st = ThreadStats::default();
        let depth = units.len();
        let unit_len = job.max_bs() as usize;
        let unit_len = unit_len
            .checked_next_multiple_of(4096)
            .unwrap_or(usize::MAX);
        let mut verifier = crate::run::verify::Verifier::new(
            job,
            depth,
            unit_len,
            &files.paths,
            &files.fds,
            files.wrap,
            files.io_size / job.bs[1].0.max(1),
        );
        let fill_writes = filler.content.per_write() || verifier.is_some();
        let clock = FastClock::get();
        let (flow, t0) = flow_start(progress, clock);
        let mut time = Timing::new(job);
        let usage0 = rusage();
        let plan = Plan::new(
            job,
            traits,
            files,
            (exit_all, progress),
            (clock, t0),
            usage0,
        );
        if !plan.time_based {
            progress
                .expected_bytes
                .store(files.io_size.saturating_mul(job.loops), Ordering::Relaxed);
        }
        let throttle = Throttle::new(job, t0);
        picker.attach_steer(throttle.steer_handle());
        let pace = Pacing::new(job, throttle, progress, (flow, job.queue.iodepth));
        if let Some(ss) = &pace.steady {
            // Its first look may be due at once (a steady group to join).
            time.next_check = time.next_check.min(ss.next_ns);
        }
        let logs = Logs::new(job);
        let per_io_rates = logs.as_ref().map_or((false, false), Logs::per_io_rates);
        time.sampler.per_io = per_io_rates;
        if logs.as_ref().is_some_and(|l| l.per_io) {
            if let Some(v) = verifier.as_mut() {
                v.log_backlog();
            }
        }
        let mut issued = Issued {
            bytes: 0,
            ios: 0,
            loops_left: job.loops,
            writes_since_sync: 0,
            pending_sync: None,
            exhausted: false,
            verify_due: false,
        };
        if let Some(v) = verifier.as_mut().filter(|v| v.only()) {
            // verify_only: walk the writes without doing them, then verify.
            v.dry_run(&mut picker, files.io_size, &mut st);
            issued.exhausted = true;
        }
        let plan = Plan {
            carry_end: !pace.throttle.on && !pace.think.on && verifier.is_none(),
            fill_writes,
            per_io_rates,
            ..plan
        };
        let q = Queue {
            free: (0..depth).rev().collect(),
            to_stamp: Vec::with_capacity(depth),
            inflight: 0,
            held: None,
            filling: true,
        };
        let core = Core {
            plan,
            engine,
            q,
            issued,
            time,
            pace,
            picker,
            verifier,
            overlap: super::overlap::Overlaps::for_job(job, depth),
            cmdprio: cmdprio_of(job, &mut st),
            filler,
            logs,
            iolog,
            st,
            error: None,
            locks: super::filelock::FileLocks::for_job(job.lockfile, &files.paths),
            _bufs: bufs,
        };
        Ok(Worker {
            units,
            done: Vec::with_capacity(depth),
            core,
        })
    }

    /// The job loop: fio's I/O life cycle, one pass per turn. The hot path
    /// (fill, reap and the steps they call) allocates nothing, takes no
    /// lock and makes no system call beyond the engine's own.
    fn job_loop(&mut self) {
        loop {
            // The same clock reading serves the cold checks and starts the
            // first unit issued below.
            let c = &mut self.core;
            let pass_ticks = if c.time.carried != 0 {
                std::mem::take(&mut c.time.carried)
            } else {
                c.plan.clock.now()
            };
            // Cold checks in the clock's own ticks: no conversion per pass.
            if (pass_ticks >= c.time.check_at || !c.time.measuring) && !c.tick(pass_ticks) {
                break;
            }
            if stop::should_stop() || c.plan.exit_all.load(Ordering::Relaxed) {
                break;
            }
            self.fill(pass_ticks);
            let c = &mut self.core;
            if c.pace.think.on && !c.pace.think_pending {
                let plan = &c.plan;
                c.pace.think_pending = c.pace.think.due(&c.st, || plan.ns(plan.clock.now()));
            }
            if !c.q.to_stamp.is_empty() || c.q.inflight > 0 {
                // A submit or a wait follows: the carried reading would be stale.
                c.time.carried = 0;
            }
            if !c.q.to_stamp.is_empty() {
                self.commit();
            }
            let c = &mut self.core;
            if c.q.inflight > 0 {
                if !self.reap() {
                    break;
                }
            } else if c.issued.exhausted || c.error.is_some() {
                break;
            }
            let c = &mut self.core;
            let quiet = c.q.inflight == 0 && c.q.to_stamp.is_empty();
            if c.issued.verify_due && quiet {
                self.verify_round();
            }
            let c = &mut self.core;
            if c.pace.think_pending && quiet {
                c.think_stall();
            }
            if c.pace.flow_held && quiet {
                c.flow_stall();
            }
            if c.pace.lat.is_some() && !c.lat_step(quiet) {
                break;
            }
        }
    }

    /// Pick, prepare and issue until the queue is full (one unit per pass
    /// for a synchronous engine, so the clock and stop checks run between
    /// them). Hot path.
    #[inline(always)]
    fn fill(&mut self, mut pass_ticks: u64) {
        let c = &mut self.core;
        c.pace.flow_held = false;
        // iodepth_low: once full, wait until the queue drains to the low mark.
        if c.q.inflight >= c.plan.depth {
            c.q.filling = false;
        } else if c.q.inflight <= c.plan.low_mark {
            c.q.filling = true;
        }
        let mut budget = if c.q.filling && !c.pace.think_pending && !c.issued.verify_due {
            c.plan.depth - c.q.inflight
        } else {
            0
        };
        if let Some(l) = &c.pace.lat {
            // latency_target: the probe's depth, nothing while quiescing.
            budget = budget.min(l.qd.saturating_sub(c.q.inflight));
            if c.pace.lat_quiesce {
                budget = 0;
            }
        }
        // A requeued rest (held) still goes out once the offsets ran out.
        while budget > 0
            && (!self.core.issued.exhausted || self.core.q.held.is_some())
            && self.core.error.is_none()
        {
            budget -= 1;
            let c = &mut self.core;
            let (idx, prepared) = match c.q.held.take() {
                Some(h) => (h, true),
                None => {
                    if c.pace.flow.as_mut().is_some_and(|f| f.held()) {
                        c.pace.flow_held = true;
                        break;
                    }
                    match c.q.free.pop() {
                        Some(i) => (i, false),
                        None => break,
                    }
                }
            };
            let io = &mut self.units[idx];
            if !prepared {
                // One clock read saved per pass: the first unit starts at the
                // pass's reading, later ones (async refills) read anew.
                io.start = if pass_ticks != 0 {
                    std::mem::take(&mut pass_ticks)
                } else {
                    c.plan.clock.now()
                };
                match c.pick(io) {
                    Pick::Ready => {}
                    Pick::Out => {
                        c.q.free.push(idx);
                        c.issued.exhausted = true;
                        break;
                    }
                    Pick::Failed(e) => {
                        c.q.free.push(idx);
                        c.error = Some(e);
                        break;
                    }
                }
            }
            if c.issued.verify_due {
                c.q.held = Some(idx);
                break;
            }
            if c.overlap.on() && !c.overlap.claim(idx, io.offset, io.len as u64, c.q.inflight) {
                // fio's FIO_Q_BUSY: it goes once the overlapped I/O is done.
                c.q.held = Some(idx);
                break;
            }
            if !c.prepare(idx, io) {
                break;
            }
            // issue (lockfile: the file's lock held while the engine takes it)
            let held = c
                .locks
                .as_ref()
                .map(|l| l.take(io.file, io.kind == IoKind::Read));
            let queued = c.engine.queue(idx, io);
            drop(held);
            match queued {
                Queued::Completed => c.account_sync(idx, io),
                Queued::Queued => {
                    if c.queued(idx) {
                        self.commit();
                    }
                }
                Queued::Busy => {
                    // Keep the prepared unit (an fsync must not be lost):
                    // it goes out once completions make room, and is
                    // counted as issued then (prepare counts it again).
                    c.st.issued[issue_slot(io.kind)] -= 1;
                    c.q.held = Some(idx);
                    break;
                }
            }
        }
    }

    /// Submit what was queued and stamp its issue time; a failed submission
    /// fails its units (nothing is left in flight).
    #[inline]
    fn commit(&mut self) {
        let c = &mut self.core;
        let r = commit(
            &mut *c.engine,
            &mut self.units,
            &mut c.q.to_stamp,
            &mut c.q.free,
            &mut c.st,
            c.plan.clock,
            c.plan.job,
            c.q.inflight,
        );
        if let Err(f) = r {
            c.q.inflight -= f.2;
            c.error
                .get_or_insert(super::errors::commit_error(&c.plan.job.engine, f.0));
        }
    }

    /// Wait for completions (as many as the queue's state asks for) and
    /// account each one. False when the engine failed. Hot path.
    #[inline(always)]
    fn reap(&mut self) -> bool {
        let c = &mut self.core;
        let job = c.plan.job;
        let inflight = c.q.inflight;
        let full = inflight >= c.plan.depth
            || c.issued.exhausted
            || c.error.is_some()
            || c.pace
                .lat
                .as_ref()
                .is_some_and(|l| inflight >= l.qd || c.pace.lat_quiesce);
        let min = if !c.q.filling {
            // Draining to iodepth_low: wait for exactly that many.
            inflight - c.plan.low_mark.min(inflight - 1)
        } else if full || c.q.held.is_some() || c.pace.think_pending || c.pace.flow_held {
            // Never more than are in flight (fio caps min_evts at its
            // depth): the last I/Os of a job could never complete it.
            job.queue.complete_min.max(1).min(inflight)
        } else {
            0
        };
        self.done.clear();
        let n = match c.engine.getevents(
            min,
            job.queue.complete_max.max(1),
            &mut self.units,
            &mut self.done,
        ) {
            Ok(n) => n,
            Err(e) => {
                c.st.error = e.raw_os_error().unwrap_or(libc::EIO);
                return false;
            }
        };
        let end = c.plan.clock.now();
        c.st.complete_map[batch_bucket(n)] += 1;
        c.st.complete_calls += 1;
        for &idx in &self.done {
            c.account(idx, &mut self.units[idx], end);
        }
        c.q.inflight -= n;
        true
    }

    /// verify= between loops: read back what the loop wrote before the
    /// next one writes over it. Cold.
    #[cold]
    fn verify_round(&mut self) {
        let c = &mut self.core;
        c.issued.verify_due = false;
        let Some(v) = c.verifier.as_mut() else {
            return;
        };
        let p = &c.plan;
        p.progress.state.store(b'V', Ordering::Relaxed);
        // The held unit (next loop's first write) keeps its setup.
        let kept = c.q.held.map(|h| (h, self.units[h]));
        let reads0 = c.st.dir[0].ios;
        // fio closes the files before it verifies; reading them back
        // opens them again, which drops their cache.
        c.picker.drop_caches(true);
        if let Some(l) = c.iolog.as_mut() {
            l.reopen(p.ns(p.clock.now()) / 1000);
        }
        let mut log = crate::run::verify::ReadLog {
            logs: c.logs.as_mut().filter(|l| c.time.measuring && l.per_io),
            base_ns: verify_log_base(p.ns(p.clock.now()), c.time.measure_start),
            per_io_rates: p.per_io_rates,
            iolog: c.iolog.as_mut(),
        };
        let sync = p.traits.sync;
        if let Err(e) = v.final_pass(&mut *c.engine, &mut self.units, sync, &mut c.st, &mut log) {
            c.error = Some(e.into_io_error(sync));
        }
        // The next loop opens the files again.
        if let Some(l) = c.iolog.as_mut() {
            l.reopen(p.ns(p.clock.now()) / 1000);
        }
        // fio's number_ios counts the verify reads too.
        c.issued.ios += c.st.dir[0].ios.saturating_sub(reads0);
        if let Some((h, u)) = kept {
            self.units[h] = u;
        }
        p.progress
            .state
            .store(super::eta::running_letter(p.job), Ordering::Relaxed);
    }

    /// Wait for what is still in flight (not recorded past the runtime cap).
    fn drain(&mut self) {
        let c = &mut self.core;
        while c.q.inflight > 0 {
            self.done.clear();
            match c
                .engine
                .getevents(1, c.plan.depth, &mut self.units, &mut self.done)
            {
                Ok(n) => {
                    c.q.inflight -= n;
                    for &idx in &self.done {
                        c.overlap.release(idx);
                    }
                }
                Err(_) => break,
            }
        }
    }

    /// fio's verify phase: read back and check what the job wrote (not when
    /// the runtime ended the job: fio terminates it then).
    fn final_verify(&mut self) {
        let c = &mut self.core;
        let Some(v) = c.verifier.as_mut().filter(|v| v.wants_pass()) else {
            return;
        };
        let p = &c.plan;
        let timed_out = p.runtime_ns > 0 && p.ns(p.clock.now()) >= p.ramp_ns + p.runtime_ns;
        if c.error.is_some()
            || timed_out
            || stop::should_stop()
            || p.exit_all.load(Ordering::Relaxed)
        {
            return;
        }
        p.progress.state.store(b'V', Ordering::Relaxed);
        c.picker.drop_caches(true);
        if let Some(l) = c.iolog.as_mut() {
            l.reopen(p.ns(p.clock.now()) / 1000);
        }
        let mut log = crate::run::verify::ReadLog {
            logs: c.logs.as_mut().filter(|l| c.time.measuring && l.per_io),
            base_ns: verify_log_base(p.ns(p.clock.now()), c.time.measure_start),
            per_io_rates: p.per_io_rates,
            iolog: c.iolog.as_mut(),
        };
        let sync = p.traits.sync;
        if let Err(e) = v.final_pass(&mut *c.engine, &mut self.units, sync, &mut c.st, &mut log) {
            c.error = Some(e.into_io_error(sync));
        }
    }

    /// The job's runtimes, end_fsync, rusage and logs: what `run` returns.
    fn finish(self) -> Ended {
        let Worker { units, core, .. } = self;
        let Core {
            plan: p,
            engine,
            time,
            pace,
            verifier,
            mut logs,
            iolog,
            mut st,
            mut error,
            picker,
            ..
        } = core;
        let job = p.job;
        let verify_ns = verifier.as_ref().map_or(0, |v| v.spent_ns());
        let end = p.ns(p.clock.now());
        let mut measure_start = time.measure_start;
        if !time.measuring {
            super::errors::reset_keeping_lines(&mut st);
            measure_start = end;
        }
        let usec = (end - measure_start).div_ceil(1000);
        let runtime_ms = usec.div_ceil(1000);
        st.runtime_ms = runtime_ms;
        st.zone_resets = picker.zbd_state().0;
        let dirs = [job.pattern.read, job.pattern.write, job.pattern.trim];
        for (ds, on) in st.dir.iter_mut().zip(dirs) {
            if on || ds.ios > 0 {
                ds.runtime_ms = runtime_ms;
            }
        }
        if verifier.is_some() {
            let ran = end.saturating_sub(measure_start);
            crate::run::verify::phase_runtimes(&mut st, job, ran, verify_ns);
        }
        if job.end_fsync || job.fsync_on_close {
            let last = units.first().map(|u| (u.offset, u.len));
            let depth = units.len();
            let sync = p.traits.sync;
            super::errors::end_fsync(job, p.files, sync, last, depth, &mut st, &mut error);
        }
        let (usage, usage0) = (rusage(), p.usage0);
        st.usr_ms = (usage.0 - usage0.0) * 1000.0;
        st.sys_ms = (usage.1 - usage0.1) * 1000.0;
        st.ctx = usage.2.saturating_sub(usage0.2);
        st.majf = usage.3.saturating_sub(usage0.3);
        st.minf = usage.4.saturating_sub(usage0.4);
        // fill_device: the device filled up is the job done, no error
        // (its `io_u error` line stays).
        if error
            .as_ref()
            .is_some_and(|e| job.fill_device && matches!(e.errno, libc::ENOSPC | libc::EDQUOT))
        {
            error = None;
        }
        if let Some(e) = &error {
            st.error = e.errno;
        }
        if let Some(l) = logs.as_mut() {
            l.finish(end.saturating_sub(measure_start) / 1_000_000, &st);
        }
        if let Some(ss) = &pace.steady {
            st.steadystate = Some(Box::new(ss.report()));
        }
        if let Some(l) = iolog {
            l.close(p.ns(p.clock.now()) / 1000);
        }
        st.latency_qd = pace.lat.as_ref().map_or(0, |l| l.qd);
        drop(engine);
        (st, error, logs)
    }
}

/// The job's first steps, each of which may fail it before its first I/O:
/// the units and their memory, the engine started, the placement applied,
/// the offsets seeded.
fn start(
    job: &Job,
    traits: Traits,
    engine: &mut dyn Engine,
    files: &JobFiles,
) -> Result<(Buffers, Vec<IoUnit>, super::buffers::Filler, Picker), Box<Ended>> {
    let mut st = ThreadStats::default();
    let depth = if traits.sync { 1 } else { job.queue.iodepth };
    let max_bs = job.max_bs() as usize;
    let unit_len = max_bs.checked_next_multiple_of(4096).unwrap_or(usize::MAX);
    let mut filler = super::buffers::Filler::new(job, files.io_size);
    let backing = super::memory::Backing::of(job);
    let align = job.opts.int("iomem_align").max(0) as usize;
    let bufs = match Buffers::backed(
        depth,
        unit_len,
        &mut filler,
        (&backing, super::memory::huge_page(job)),
        align,
    ) {
        Ok(b) => b,
        Err(a) => {
            // iodepth x bs more than memory can hold, or a mem= fio cannot
            // have either: fio's iomem allocation failure, not an abort.
            st.error = a.errno;
            let e = IoError::at_site(a.errno, a.site(), a.func, a.note);
            return Err(Box::new((st, Some(e), None)));
        }
    };
    let units: Vec<IoUnit> = (0..depth)
        // SAFETY: each unit gets its own `unit_len` slice of the allocation.
        .map(|i| {
            let mut u = IoUnit::new(unsafe { bufs.ptr.add(i * unit_len) });
            u.len = unit_len;
            u
        })
        .collect();
    if let Err(e) = engine.init(&units, &files.fds, &files.sizes) {
        st.error = e.raw_os_error().unwrap_or(libc::EIO);
        let e = match crate::engine::init_failure(&e) {
            // An engine that says where, in fio's words (net's connect).
            Some(f) => {
                st.error = f.errno;
                match &f.site {
                    Some(s) => IoError::at_site(f.errno, s.at, s.func, f.before.clone()),
                    None => IoError::at_site(f.errno, "", "", f.before.clone()),
                }
            }
            None => super::errors::engine_init_error(&job.engine, st.error),
        };
        // fio's job reaps once, finding nothing, on its way out.
        st.complete_map[0] = 1;
        st.complete_calls = 1;
        return Err(Box::new((st, Some(e), None)));
    }
    // fio 3.33 derives the offset seed before applying randseed, so
    // randseed alone changes nothing; with randrepeat=0 it seeds the
    // offsets, and without it the seed comes from the clock (§12).
    let seed = match (job.rand.randrepeat, job.rand.randseed) {
        (true, _) => 0x89 ^ (job.clone as u64).wrapping_mul(0x9E37_79B9),
        (false, Some(s)) => s ^ (job.clone as u64).wrapping_mul(0x9E37_79B9),
        (false, None) => rbench_common::clock::now_ns(),
    };
    if let Err((errno, func)) = super::placement::apply(job) {
        st.error = errno;
        let e = setup_error(errno, "backend.c:1716", func);
        return Err(Box::new((st, Some(e), None)));
    }
    let mut picker = Picker::new(job, files.regions.clone(), seed);
    picker.attach_zbd(job, &files.zbd);
    Ok((bufs, units, filler, picker))
}

/// read_iolog that could not be read, or write_iolog that cannot be
/// opened: fio's init_iolog fails the job (EINVAL) before its first I/O.
fn open_iolog(
    job: &Job,
    files: &JobFiles,
) -> Result<Option<super::iolog::writer::IoLogWriter>, Box<Ended>> {
    let fail = |note: String| {
        let st = ThreadStats {
            error: libc::EINVAL,
            ..ThreadStats::default()
        };
        let e = IoError::at_site(
            libc::EINVAL,
            "iolog.c:795",
            "failed initializing iolog",
            note,
        );
        Box::new((st, Some(e), None))
    };
    if let Some(e) = job.replay.as_ref().and_then(|r| r.load_error.clone()) {
        return Err(fail(e));
    }
    let Some(path) = &job.write_iolog else {
        return Ok(None);
    };
    super::iolog::writer::IoLogWriter::create(path, &files.paths, 0)
        .map(Some)
        .map_err(fail)
}

impl<'a> Plan<'a> {
    /// The loop's fixed values (carry_end, fill_writes and per_io_rates are
    /// set once the verifier and logs exist).
    fn new(
        job: &'a Job,
        traits: Traits,
        files: &'a JobFiles,
        (exit_all, progress): (&'a AtomicBool, &'a super::eta::Progress),
        (clock, t0): (&'static FastClock, u64),
        usage0: (f64, f64, u64, u64, u64),
    ) -> Plan<'a> {
        let depth = if traits.sync { 1 } else { job.queue.iodepth };
        let ramp_ns = job.ramp_us * 1000;
        let runtime_ns = job.runtime_us * 1000;
        let time_based = job.time_based && runtime_ns > 0;
        let io_per_pass = files.io_size;
        let queues = !traits.sync || (traits.diskless && job.queue.iodepth > 1);
        Plan {
            job,
            traits,
            files,
            exit_all,
            progress,
            clock,
            t0,
            depth,
            low_mark: if traits.sync {
                0
            } else {
                job.queue.iodepth_low.min(depth - 1)
            },
            ramp_ns,
            runtime_ns,
            end_ns: if runtime_ns > 0 {
                ramp_ns + runtime_ns
            } else {
                u64::MAX
            },
            time_based,
            io_per_pass,
            io_limit: io_per_pass.saturating_mul(job.loops.max(1)),
            max_bs: job.bs.iter().map(|b| b.1).max().unwrap_or(1).max(1),
            ios_cap: if time_based {
                0
            } else {
                job.number_ios.saturating_mul(job.loops.max(1))
            },
            rounds_restart: job.opts.flag("do_verify") || job.loops > 1 || queues,
            sync_every: if job.fsync > 0 {
                job.fsync
            } else {
                job.fdatasync
            },
            // fio counts none for the null engine; every other engine,
            // diskless ones (cpuio, exec, net, filecreate) too.
            count_submits: !traits.diskless || job.engine != "null",
            carry_end: false,
            fill_writes: false,
            per_io_rates: (false, false),
            usage0,
            lat_limit_ns: lat_limit_ns(job),
        }
    }
}

impl Timing {
    fn new(job: &Job) -> Timing {
        let sampler = Sampler::new(job, 0);
        let mut next_check = sampler.next_due();
        if job.logs.agg_bw_log {
            next_check = next_check.min(50_000_000);
        }
        Timing {
            measuring: job.ramp_us == 0,
            measure_start: 0,
            sampler,
            next_check,
            check_at: 0,
            carried: 0,
        }
    }
}

impl Pacing {
    /// `flow`: the job's place in its flow; `depth`: its iodepth, the most
    /// latency_target's probe goes to (and reports: fio's, even where a
    /// synchronous engine keeps one I/O in flight).
    fn new(
        job: &Job,
        throttle: Throttle,
        progress: &super::eta::Progress,
        (flow, depth): (Option<super::pacing::flow::Flow>, usize),
    ) -> Pacing {
        let min_rate = super::pacing::throttle::MinRate::new(job);
        let steady = job.steadystate.map(|ss| {
            let phase_ms = progress.started_ms.load(Ordering::Relaxed);
            super::pacing::steadystate::Monitor::join(
                job,
                ss,
                phase_ms * 1_000_000,
                progress.ss_group.get().cloned(),
            )
        });
        Pacing {
            throttle,
            min_rate,
            steady,
            think: super::pacing::throttle::Think::new(job),
            think_pending: false,
            last_dir: 0,
            flow,
            flow_held: false,
            lat: super::pacing::latency::Probe::new(job, depth),
            lat_quiesce: false,
            lat_final: false,
        }
    }
}

impl Core<'_> {
    /// tick: the cold checks, due at `check_at` (and each pass while
    /// ramping): ramp's end, samples, progress, snapshots, rate_min, steady
    /// state, the runtime's end. False when the job ends here.
    #[inline(never)]
    fn tick(&mut self, pass_ticks: u64) -> bool {
        let now = self.plan.ns(pass_ticks);
        if (now >= self.time.next_check || !self.time.measuring) && !self.checks(now) {
            return false;
        }
        let p = &self.plan;
        if p.runtime_ns > 0 && now >= p.ramp_ns + p.runtime_ns && self.time.measuring {
            return false;
        }
        // The first tick at which a check or the end may be due (rounded
        // down, so never late; the exact comparisons decide).
        let next = self.time.next_check.min(p.end_ns);
        self.time.check_at = p.t0.saturating_add(p.clock.ns_to_ticks(next));
        true
    }

    /// The checks due at `now` (job-clock ns); false when rate_min or the
    /// steady state ends the job.
    fn checks(&mut self, now: u64) -> bool {
        let job = self.plan.job;
        let t = &mut self.time;
        if !t.measuring && now >= self.plan.ramp_ns {
            super::errors::reset_keeping_lines(&mut self.st);
            if self.pace.throttle.on {
                self.pace.throttle.restart(now);
            }
            t.measuring = true;
            t.measure_start = now;
            t.sampler = Sampler::new(job, now);
            t.sampler.per_io = self.plan.per_io_rates;
            if let Some(l) = self.pace.lat.as_mut() {
                l.restart(now, 0);
            }
        } else if t.measuring {
            t.sampler.sample(now, &mut self.st, self.logs.as_mut());
        }
        self.publish(now);
        self.time.next_check = self.time.sampler.next_due();
        if self.time.measuring && (self.pace.min_rate.on || self.pace.steady.is_some()) {
            if let Some(e) = self.rate_checks(now) {
                if let Some(e) = e {
                    self.error.get_or_insert(e);
                }
                return false;
            }
        }
        let progress = self.plan.progress;
        if progress.want_snapshots.load(Ordering::Relaxed) {
            // Fresh snapshots for --status-interval: check every 50 ms.
            self.time.next_check = self.time.next_check.min(now + 50_000_000);
        }
        if job.logs.agg_bw_log {
            // Fresh counts for --bandwidth-log's samples: every 50 ms.
            self.time.next_check = self.time.next_check.min(now + 50_000_000);
        }
        true
    }

    /// Counts for the status line and, when asked, a snapshot of the job.
    fn publish(&mut self, now: u64) {
        let (job, progress) = (self.plan.job, self.plan.progress);
        let (st, measuring) = (&self.st, self.time.measuring);
        // Nothing during ramp_time: fio's status code (its rates,
        // --bandwidth-log) counts a job only once it runs.
        let shown = |v: u64| if measuring { v } else { 0 };
        progress.publish(
            std::array::from_fn(|d| shown(st.dir[d].io_bytes)),
            std::array::from_fn(|d| shown(st.dir[d].ios)),
        );
        if measuring && progress.want_snapshots.load(Ordering::Relaxed) {
            let ms = (now - self.time.measure_start).div_ceil(1_000_000);
            let mut snap = st.clone();
            snap.runtime_ms = ms;
            snap.steadystate = self.pace.steady.as_ref().map(|m| Box::new(m.report()));
            for (d, on) in
                snap.dir
                    .iter_mut()
                    .zip([job.pattern.read, job.pattern.write, job.pattern.trim])
            {
                if on {
                    d.runtime_ms = ms;
                }
            }
            let (u, usage0) = (rusage(), self.plan.usage0);
            snap.usr_ms = (u.0 - usage0.0) * 1000.0;
            snap.sys_ms = (u.1 - usage0.1) * 1000.0;
            progress.offer_snapshot(&snap);
        }
    }

    /// rate_min and steadystate: Some when the job ends (with rate_min's
    /// error); they may bring the next check closer.
    fn rate_checks(&mut self, now: u64) -> Option<Option<IoError>> {
        let job = self.plan.job;
        let since = now - self.time.measure_start;
        let min_rate = &mut self.pace.min_rate;
        if let Some(note) = min_rate
            .on
            .then(|| min_rate.check(&job.name, since, &self.st))
            .flatten()
        {
            let at = ("backend.c:1131", "check_min_rate");
            return Some(Some(IoError::at_site(libc::EIO, at.0, at.1, note)));
        }
        if let Some(ss) = self.pace.steady.as_mut() {
            if since >= ss.next_ns {
                let ios = self.st.dir.iter().map(|d| d.ios).sum();
                let bytes = self.st.dir.iter().map(|d| d.io_bytes).sum();
                if ss.tick(since, ios, bytes) {
                    return Some(None);
                }
            }
            self.time.next_check = self
                .time
                .next_check
                .min(self.time.measure_start + ss.next_ns);
        }
        if self.pace.min_rate.on {
            // fio checks after every completion; a tenth of a cycle is close.
            let tenth = job.throttle.rate_cycle_ms.clamp(1, 1000) * 100_000;
            self.time.next_check = self.time.next_check.min(now + tenth);
        }
        None
    }

    /// pick: the next unit's work (a due sync, or the picker's next block),
    /// starting a new pass, round or loop when the offsets run out. Hot path.
    #[inline(always)]
    fn pick(&mut self, io: &mut IoUnit) -> Pick {
        let (p, n) = (&self.plan, &mut self.issued);
        let ios_left = p.ios_cap == 0 || n.ios < p.ios_cap;
        let bytes_left = p.io_per_pass == 0 || n.bytes < p.io_limit;
        // A due fsync goes out only if more I/O follows, as in fio.
        let sync_file = n
            .pending_sync
            .filter(|_| ios_left && (bytes_left || p.time_based));
        if let Some(file) = sync_file {
            n.pending_sync = None;
            io.kind = if p.job.fsync > 0 {
                IoKind::Fsync
            } else {
                IoKind::Fdatasync
            };
            io.file = file;
            io.fd = self.picker.fd(file);
            io.len = 0;
            return Pick::Ready;
        }
        let mut got = (ios_left && (bytes_left || p.time_based) || self.picker.has_followup())
            && self.picker.next(io);
        if !got && self.picker.zbd_state().1 {
            // fio's zbd_adjust_block: a write longer than a zone fails the job.
            return Pick::Failed(IoError::at_site(
                libc::EINVAL,
                "zbd.c:1937",
                "I/O buflen exceeds zone size",
                String::new(),
            ));
        }
        if !got {
            got = match self.next_pass(io, ios_left) {
                Ok(got) => got,
                Err(e) => return Pick::Failed(e),
            };
        }
        if !got {
            return Pick::Out;
        }
        if !self.picker.followup {
            self.trim_last(io);
            self.issued.bytes += io.len as u64;
        }
        let n = &mut self.issued;
        n.ios += 1;
        if self.plan.sync_every > 0 {
            // fio (get_rw_ddir) syncs after any I/O while the write count is
            // a multiple of N: in a mixed job each read there brings one
            // more sync.
            if io.kind == IoKind::Write {
                n.writes_since_sync += 1;
            }
            if n.writes_since_sync > 0 && n.writes_since_sync.is_multiple_of(self.plan.sync_every) {
                n.pending_sync = Some(io.file);
            }
        }
        Pick::Ready
    }

    /// The picker ran out: another pass or round (time_based, io_size), or
    /// the job's next loop; Ok(true) when `io` got a block from it. Cold.
    #[cold]
    fn next_pass(&mut self, io: &mut IoUnit, ios_left: bool) -> Result<bool, IoError> {
        let (p, picker) = (&self.plan, &mut self.picker);
        let (job, time_based, files) = (p.job, p.time_based, p.files);
        let n = &mut self.issued;
        let verifier = self.verifier.as_ref();
        let mut got = false;
        // fio's keep_running: once the loops are done, another round while
        // io_size is not reached by a whole block, counting what verify read
        // back (fio's io_bytes). Only when rounds start over (fio resets its
        // done files for do_verify=1 or loops > 1).
        let io_size_left = || {
            let (read_bytes, read_ios) = verifier.map_or((0, 0), |v| v.reads_after_round());
            n.loops_left <= 1
                && files.wrap
                && p.rounds_restart
                && p.io_per_pass.saturating_sub(n.bytes + read_bytes) >= p.max_bs
                && (p.ios_cap == 0 || n.ios + read_ios < p.ios_cap)
        };
        if ios_left && (time_based || io_size_left()) {
            // fio verifies each round before the next one.
            n.verify_due = !time_based && verifier.is_some_and(|v| v.wants_pass());
            // Every block of the region was visited; io_size (or the clock)
            // asks for more: start a new pass. For io_size fio runs another
            // round of the job (keep_running), which reseeds its generators.
            // A zoned job's pass ends where a file does, a new round for fio
            // too.
            if time_based && job.zones.is_none() {
                picker.new_pass();
            } else {
                picker.new_loop();
            }
            // fio drops each file's cache as it starts over: one file (or a
            // random map) wraps in place, more files (and io_size rounds)
            // are closed and opened again.
            let reopened = !time_based || (files.regions.len() > 1 && !job.pattern.random);
            picker.drop_caches(reopened);
            if let Some(l) = self.iolog.as_mut().filter(|_| reopened) {
                l.reopen(p.ns(p.clock.now()) / 1000);
            }
            got = picker.next(io);
        }
        if got {
            return Ok(true);
        }
        // One loop of the job is complete.
        n.loops_left = n.loops_left.saturating_sub(1);
        if !(ios_left && (time_based || n.loops_left > 0)) {
            return Ok(false);
        }
        // verify=: fio checks each loop before the next one writes; this
        // unit waits for that.
        n.verify_due = verifier.is_some_and(|v| v.wants_pass()) && !time_based;
        if job.files.unlink_each_loop && !time_based {
            let writes = job.pattern.write || job.pattern.trim;
            if let Err((errno, file)) = super::files::layout::recreate(files, writes) {
                return Err(IoError {
                    errno,
                    kind: io.kind,
                    offset: 0,
                    len: 0,
                    file,
                    site: None,
                });
            }
        }
        picker.new_loop();
        got = time_based || n.bytes < p.io_limit;
        if got {
            // fio closes the files between loops; its next I/O opens them
            // again, which drops their cache.
            picker.drop_caches(true);
            if let Some(l) = self.iolog.as_mut() {
                l.reopen(p.ns(p.clock.now()) / 1000);
            }
            got = picker.next(io);
        }
        Ok(got)
    }

    /// The last unit of a pass is cut to what io_size leaves (fio's io_u
    /// trimming), in whole grains; a mixed job's last unit goes out whole,
    /// as in fio.
    #[inline(always)]
    fn trim_last(&self, io: &mut IoUnit) {
        let (p, job) = (&self.plan, self.plan.job);
        let left = p.io_limit.saturating_sub(self.issued.bytes);
        if !p.time_based
            && p.io_per_pass > 0
            && (io.len as u64) > left
            && !job.pattern.mixed()
            // Zones end a pass anywhere: fio's last I/O then goes out
            // whole (run/offsets/zones.rs).
            && job.zones.is_none()
            && !super::offsets::fiomap::whole_last_unit(job)
        {
            let grain = job.bs.iter().map(|b| b.0).min().unwrap_or(1).max(1);
            let cut = left / grain * grain;
            if cut > 0 {
                io.len = cut as usize;
            }
        }
    }

    /// prepare: a picked unit waits for its rate slot, gets its contents
    /// (writes) and its issue stamp. False when it may not go now (held for
    /// its slot, or freed: the rate ends the job). Hot path.
    #[inline(always)]
    fn prepare(&mut self, idx: usize, io: &mut IoUnit) -> bool {
        let p = &self.plan;
        let pace = &mut self.pace;
        if pace.throttle.on && !matches!(io.kind, IoKind::Fsync | IoKind::Fdatasync) {
            let now = p.ns(p.clock.now());
            match pace.throttle.gate(io.kind, now, p.end_ns, self.q.inflight) {
                Gate::Go => {}
                Gate::Hold => {
                    self.q.held = Some(idx);
                    return false;
                }
                Gate::Stop => {
                    self.q.free.push(idx);
                    return false;
                }
            }
            let d = match io.kind {
                IoKind::Read => 0,
                IoKind::Write => 1,
                _ => 2,
            };
            pace.throttle.issued(d, io.len as u64);
            io.start = p.clock.now();
        }
        if let Some((c, draws)) = self.cmdprio.as_mut() {
            let (ioprio, index) = match io.kind {
                IoKind::Read => c.pick(0, io.len as u64, draws.next()),
                IoKind::Write => c.pick(1, io.len as u64, draws.next()),
                _ => None,
            }
            .unwrap_or((0, 0));
            io.ioprio = ioprio;
            io.prio_idx = index;
        }
        if pace.think.on {
            pace.last_dir = match io.kind {
                IoKind::Read => 0,
                IoKind::Write => 1,
                _ => pace.last_dir,
            };
        }
        if p.fill_writes && io.kind == IoKind::Write {
            let (filler, verifier) = (&mut self.filler, self.verifier.as_mut());
            crate::run::verify::prepare_write(idx, io, filler, verifier, p.ns(io.start));
        }
        self.st.issued[issue_slot(io.kind)] += 1;
        io.issue = p.clock.now();
        if let Some(l) = self.iolog.as_mut() {
            l.io(p.ns(io.issue) / 1000, io);
        }
        true
    }

    /// A unit the engine queued: in flight, waiting for its commit; true
    /// when the batch (iodepth_batch) is due. Hot path.
    #[inline(always)]
    fn queued(&mut self, idx: usize) -> bool {
        // Its depth is counted when it is committed.
        self.q.inflight += 1;
        self.q.to_stamp.push(idx);
        self.q.to_stamp.len() >= self.plan.job.queue.iodepth_batch
    }

    /// account, synchronously: a unit the engine completed as it was
    /// queued. Hot path.
    #[inline(always)]
    fn account_sync(&mut self, idx: usize, io: &mut IoUnit) {
        if self.overlap.on() {
            self.overlap.release(idx);
        }
        let p = &self.plan;
        // Short (cold): fio issues the rest again at once.
        if (io.result as usize) < io.len && io.result > 0 && self.verifier.is_none() {
            let real = p.files.sizes.get(io.file).copied().unwrap_or(u64::MAX);
            super::errors::resubmit_short(&mut *self.engine, idx, io, &mut self.st, real);
        }
        let end = p.clock.now();
        if p.carry_end {
            self.time.carried = end;
        }
        let resid = io.result == 0 && io.len > 0 && matches!(io.kind, IoKind::Read | IoKind::Write);
        if resid && self.engine.ended() {
            // The peer closed the link (net): the job ends here, as fio's.
            self.issued.exhausted = true;
            self.q.free.push(idx);
            return;
        }
        if resid {
            // fio's "full resid": a synchronous transfer that moved nothing
            // (a read at end of file) is EIO.
            io.result = -i64::from(libc::EIO);
        }
        let lat = (
            p.clock.ticks_to_ns(end - io.issue),
            p.clock.ticks_to_ns(end - io.start),
        );
        if lat.1 > p.lat_limit_ns {
            self.lat_exceeded(io, lat.1);
        }
        let p = &self.plan;
        let st = &mut self.st;
        st.depth_map[depth_bucket(self.q.inflight + 1)] += 1;
        if p.count_submits {
            st.submit_map[1] += 1;
            st.complete_map[1] += 1;
            st.submit_calls += 1;
            st.complete_calls += 1;
        }
        let t = &self.time;
        if let Some(l) = self.logs.as_mut().filter(|l| t.measuring && l.per_io) {
            let since = p.ns(end).saturating_sub(t.measure_start);
            log_io(l, st, io, since, lat, 0, p.per_io_rates);
        }
        if let Some(errno) = record(st, io, lat, p.job) {
            self.error = Some(IoError {
                site: resid.then(|| {
                    // fio reports a full resid from backend.c, with no
                    // `io_u error` line.
                    Box::new(crate::stats::Site {
                        at: "backend.c:471",
                        func: "full resid",
                        note: String::new(),
                    })
                }),
                ..io_error(io, errno)
            });
        }
        self.verify_completed(idx, io, true);
        self.q.free.push(idx);
    }

    /// account: one unit reaped, or the requeued rest of a
    /// short one (held, it goes out next). Hot path.
    #[inline(always)]
    fn account(&mut self, idx: usize, u: &mut IoUnit, end: u64) {
        if self.overlap.on() {
            self.overlap.release(idx);
        }
        let p = &self.plan;
        // Short (cold): fio requeues the rest, which goes out next as the
        // held unit.
        if (u.result as usize) < u.len
            && u.result > 0
            && self.q.held.is_none()
            && self.verifier.is_none()
            && super::errors::short_rest(
                u,
                &mut self.st,
                p.files.sizes.get(u.file).copied().unwrap_or(u64::MAX),
                false,
            )
        {
            self.q.held = Some(idx);
            return;
        }
        let io = &*u;
        let lat = (
            p.clock.ticks_to_ns(end.saturating_sub(io.issue)),
            p.clock.ticks_to_ns(end.saturating_sub(io.start)),
        );
        if lat.1 > p.lat_limit_ns {
            self.lat_exceeded(io, lat.1);
        }
        let p = &self.plan;
        let t = &self.time;
        if let Some(l) = self.logs.as_mut().filter(|l| t.measuring && l.per_io) {
            let slat = p.clock.ticks_to_ns(io.issue.saturating_sub(io.start));
            let since = p.ns(end).saturating_sub(t.measure_start);
            log_io(l, &mut self.st, io, since, lat, slat, p.per_io_rates);
        }
        if let Some(errno) = record(&mut self.st, io, lat, p.job) {
            self.error.get_or_insert(io_error(io, errno));
        }
        self.verify_completed(idx, io, p.traits.sync);
        self.q.free.push(idx);
    }

    /// verify=: a completed unit's verify bookkeeping (a read checked, a
    /// write remembered, backlog reads done).
    #[inline(always)]
    fn verify_completed(&mut self, idx: usize, io: &IoUnit, sync: bool) {
        let Some(v) = self.verifier.as_mut() else {
            return;
        };
        let (p, t) = (&self.plan, &self.time);
        if let Err(m) = v.completed_and_logged(
            idx,
            io,
            &mut self.st,
            self.logs.as_mut().filter(|l| t.measuring && l.per_io),
            || verify_log_base(p.ns(p.clock.now()), t.measure_start),
            p.per_io_rates,
        ) {
            self.error.get_or_insert(m.into_io_error(sync));
        }
        self.issued.ios += v.take_backlog_ios();
    }

    /// A read or write over max_latency or latency_target (`lat`, ns
    /// since it was prepared, as fio's): max_latency's error, or the
    /// probe's verdict. Cold.
    #[cold]
    fn lat_exceeded(&mut self, io: &IoUnit, lat: u64) {
        let job = self.plan.job;
        if job.reporting.disable_lat || !matches!(io.kind, IoKind::Read | IoKind::Write) {
            return;
        }
        let max = job.targets.max_latency_us[issue_slot(io.kind)].saturating_mul(1000);
        if max > 0 && lat > max {
            self.lat_fatal(io, lat, max);
        }
        let now = self.plan.ns(self.plan.clock.now());
        let ios = self.st.dir[0].ios + self.st.dir[1].ios;
        let Some(probe) = self.pace.lat.as_mut().filter(|l| lat > l.target_ns) else {
            return;
        };
        let target = probe.target_ns;
        match probe.over(now, ios) {
            super::pacing::latency::Step::Fatal => self.lat_fatal(io, lat, target),
            super::pacing::latency::Step::Quiesce => self.pace.lat_quiesce = true,
            _ => {}
        }
    }

    /// fio's lat_fatal: the job ends with ETIMEDOUT (the first error's
    /// line only).
    #[cold]
    fn lat_fatal(&mut self, io: &IoUnit, lat: u64, max: u64) {
        if self.error.is_some() {
            return;
        }
        let path = self.plan.files.paths.get(io.file);
        let name = path.map_or_else(|| self.plan.job.name.clone(), |p| p.display().to_string());
        let dir = if io.kind == IoKind::Read {
            "read"
        } else {
            "write"
        };
        let note = format!(
            "fio: latency of {lat} nsec exceeds specified max ({max} nsec): {name} {dir} {} {}\n",
            io.offset, io.len
        );
        let at = ("io_u.c:1432", "max latency exceeded");
        self.error = Some(IoError::at_site(libc::ETIMEDOUT, at.0, at.1, note));
    }

    /// latency_target between loop turns: the window's verdict, and what
    /// a quiesce waited for. False when the probe is done with the job.
    #[cold]
    fn lat_step(&mut self, quiet: bool) -> bool {
        use super::pacing::latency::Step;
        let p = &self.plan;
        let now = p.ns(p.clock.now());
        if self.pace.lat_quiesce {
            if !quiet {
                return true;
            }
            self.pace.lat_quiesce = false;
            if std::mem::take(&mut self.pace.lat_final) {
                // The final window: its statistics alone are reported.
                super::errors::reset_keeping_lines(&mut self.st);
                self.time.measure_start = now;
                self.time.sampler = Sampler::new(p.job, now);
                self.time.sampler.per_io = p.per_io_rates;
            }
            if let Some(l) = self.pace.lat.as_mut() {
                l.new_window(now, self.st.dir[0].ios + self.st.dir[1].ios);
            }
            return true;
        }
        if !self.time.measuring {
            return true;
        }
        let ios = self.st.dir[0].ios + self.st.dir[1].ios;
        let Some(l) = self.pace.lat.as_mut() else {
            return true;
        };
        match l.check(now, ios) {
            Step::Go => true,
            Step::Quiesce => {
                self.pace.lat_quiesce = true;
                true
            }
            Step::FinalRun => {
                self.pace.lat_quiesce = true;
                self.pace.lat_final = true;
                true
            }
            Step::Done | Step::Fatal => false,
        }
    }

    /// flow: held back, with nothing in flight.
    #[cold]
    fn flow_stall(&mut self) {
        // fio sleeps flow_sleep once held (after what was in flight
        // completed), and otherwise goes straight round again.
        let us = self.pace.flow.as_ref().map_or(0, |f| f.sleep_us);
        if us > 0 {
            super::pacing::pause::sleep(std::time::Duration::from_micros(us));
        }
    }

    /// thinktime: stall with nothing in flight (fio's io_u_quiesce).
    #[cold]
    fn think_stall(&mut self) {
        self.pace.think_pending = false;
        let now = self.plan.ns(self.plan.clock.now());
        let spent = self.pace.think.stall(&self.st, now);
        self.pace.throttle.thought(self.pace.last_dir, spent);
    }
}

/// The `now_ns` instant of the logs' time 0, for the verify phase's reads
/// (`since` is now on the job clock, in ns after its start).
fn verify_log_base(since: u64, measure_start: u64) -> u64 {
    rbench_common::clock::now_ns().saturating_sub(since.saturating_sub(measure_start))
}

/// Log one completed I/O; with per-I/O bw/iops logs the summary samples
/// become per-I/O too, as in fio (§4). Cold unless logs are on.
#[cold]
pub(crate) fn log_io(
    l: &mut Logs,
    st: &mut ThreadStats,
    io: &IoUnit,
    since_ns: u64,
    lat: (u64, u64),
    slat: u64,
    per_io_rates: (bool, bool),
) {
    let d = match io.kind {
        IoKind::Read => 0,
        IoKind::Write => 1,
        IoKind::Trim => 2,
        _ => return,
    };
    if io.result < 0 {
        return;
    }
    let bs = io.result as u64;
    if io.ioprio != 0 {
        l.io_at_prio(
            io.ioprio,
            (since_ns, d, bs, io.offset),
            (slat, lat.0, lat.1),
        );
    } else {
        l.io(since_ns, d, bs, io.offset, (slat, lat.0, lat.1));
    }
    if per_io_rates.0 {
        st.dir[d].bw.push(bs * 1_000_000 / lat.0.max(1));
    }
    if per_io_rates.1 {
        st.dir[d].iops.push(1);
    }
}

/// The error record of a unit.
pub(super) fn io_error(io: &IoUnit, errno: i32) -> IoError {
    IoError {
        errno,
        kind: io.kind,
        offset: io.offset,
        len: io.len,
        file: io.file,
        site: None,
    }
}

/// The `issued` counter of an I/O kind (read, write, trim, sync).
#[inline(always)]
fn issue_slot(kind: IoKind) -> usize {
    match kind {
        IoKind::Read => 0,
        IoKind::Write => 1,
        IoKind::Trim => 2,
        _ => 3,
    }
}

/// A job that failed before its first I/O, reported from fio's `at`/`func`.
fn setup_error(errno: i32, at: &'static str, func: &'static str) -> IoError {
    IoError::at_site(errno, at, func, String::new())
}

/// Submit what was queued and stamp its issue time (slat = issue - start).
/// A failed submission fails its units: they go back to `free` and the
/// error (errno, first unit) is returned; nothing is left in flight.
/// As in fio, the units committed are counted in the IO depths at the depth
/// reached with them (`inflight`, those queued included), before the call.
#[inline]
#[allow(clippy::too_many_arguments)]
fn commit(
    engine: &mut dyn Engine,
    units: &mut [IoUnit],
    to_stamp: &mut Vec<usize>,
    free: &mut Vec<usize>,
    st: &mut ThreadStats,
    clock: &FastClock,
    job: &Job,
    inflight: usize,
) -> Result<(), (i32, usize, usize)> {
    st.depth_map[depth_bucket(inflight)] += to_stamp.len() as u64;
    let n = match engine.commit() {
        Ok(n) => n,
        Err(e) => {
            let errno = e.raw_os_error().unwrap_or(libc::EIO);
            let failed = to_stamp.len();
            let first = to_stamp.first().copied().unwrap_or(0);
            free.extend_from_slice(to_stamp);
            to_stamp.clear();
            return Err((errno, first, failed));
        }
    };
    let now = clock.now();
    st.submit_map[batch_bucket(n.max(to_stamp.len()))] += 1;
    st.submit_calls += 1;
    for &idx in to_stamp.iter() {
        let io = &mut units[idx];
        io.issue = now;
        if !job.reporting.disable_slat {
            let d = match io.kind {
                IoKind::Read => 0,
                IoKind::Write => 1,
                IoKind::Trim => 2,
                _ => continue,
            };
            st.dir[d]
                .slat
                .record(clock.ticks_to_ns(now.saturating_sub(io.start)));
        }
    }
    to_stamp.clear();
    Ok(())
}

/// (user s, system s, context switches, major faults, minor faults) of this thread.
fn rusage() -> (f64, f64, u64, u64, u64) {
    // SAFETY: zeroed rusage is valid; RUSAGE_THREAD is supported on Linux.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut ru) };
    let s = |tv: libc::timeval| tv.tv_sec as f64 + tv.tv_usec as f64 / 1e6;
    (
        s(ru.ru_utime),
        s(ru.ru_stime),
        (ru.ru_nvcsw + ru.ru_nivcsw) as u64,
        ru.ru_majflt as u64,
        ru.ru_minflt as u64,
    )
}
