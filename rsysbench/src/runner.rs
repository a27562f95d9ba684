//! The run loop, written once for every test (spec §3, §4): workers start
//! together behind a barrier, each times its own events into its own
//! [`Slot`], and stops at --time, --events, the test's own end or a
//! signal. The calling thread reports intervals, checkpoints and a forced
//! shutdown while the workers run.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::mpsc;
use std::sync::{Barrier, Condvar, Mutex};
use std::time::Duration;

use rbench_common::clock::FastClock;
use rbench_common::histogram::SysbenchHistogram;
use rbench_common::stop;

use crate::builtin::{Test, Worker};
use crate::log::Log;
use crate::result::{Context, Interval, Summary};
use crate::settings::Settings;
use crate::stats::{Slot, ThreadSnap};

/// sysbench's event queue size for --rate.
const MAX_QUEUE_LEN: usize = 131_072;

/// Where the reporter sends what it has while the run goes on.
pub trait Sink {
    fn interval(&mut self, iv: &Interval);
    fn checkpoint(&mut self, s: &Summary);
    /// The forced shutdown deadline passed: report and exit (status 2).
    fn forced_shutdown(&mut self, s: &Summary) -> !;
}

/// What a finished run hands to the final report.
pub struct Outcome {
    pub summary: Summary,
    /// A worker failed or the --rate queue overflowed (sysbench's exit 1,
    /// no report).
    pub failed: bool,
    /// A worker thread failed to initialise (`Thread initialization
    /// failed!`): nothing ran.
    pub init_failed: bool,
}

/// Poisson arrivals for --rate (sysbench's event generator thread).
struct RateQueue {
    q: Mutex<VecDeque<u64>>,
    cv: Condvar,
    closed: AtomicBool,
    /// Events being executed now (sysbench's concurrency figure).
    concurrency: AtomicU64,
}

/// Shared read-only run parameters plus the few shared counters.
struct Control<'a> {
    clock: &'a FastClock,
    scale: &'a SysbenchHistogram,
    histogram_on: bool,
    start: AtomicU64,
    deadline: AtomicU64,
    max_events: u64,
    issued: AtomicU64,
    rate: Option<RateQueue>,
    /// A worker's event failed: everyone stops.
    error: AtomicBool,
    log: &'a Log,
}

#[derive(Clone, Copy)]
enum Ended {
    Time,
    Events,
    Other,
}

/// The event loop for tests that drive it themselves (a Lua script's
/// `thread_run` calling `sb_more_events`/`sb_event_start`/`sb_event_stop`):
/// the same checks and records as [`worker_loop`], one call at a time.
struct DrivenLoop<'a> {
    ctl: &'a Control<'a>,
    slot: &'a Slot,
    /// The clock reading of the last event_stop, while still current.
    last_now: std::cell::Cell<Option<u64>>,
    started: std::cell::Cell<u64>,
    queued_at: std::cell::Cell<Option<u64>>,
    ended: std::cell::Cell<Option<Ended>>,
}

impl crate::lua::context::EventLoop for DrivenLoop<'_> {
    fn more_events(&self) -> bool {
        let ctl = self.ctl;
        if self.ended.get().is_some() {
            return false;
        }
        let now = self.last_now.take().unwrap_or_else(|| ctl.clock.now());
        let deadline = ctl.deadline.load(Relaxed);
        let end = if now >= deadline {
            Some(Ended::Time)
        } else if stop::should_stop() || ctl.error.load(Relaxed) {
            Some(Ended::Other)
        } else if ctl.max_events > 0 && ctl.issued.fetch_add(1, Relaxed) >= ctl.max_events {
            Some(Ended::Events)
        } else {
            None
        };
        if let Some(e) = end {
            self.ended.set(Some(e));
            return false;
        }
        if let Some(rq) = &ctl.rate {
            match wait_for_event(rq, ctl.clock, deadline) {
                Some(t) => self.queued_at.set(Some(t)),
                None => {
                    self.ended.set(Some(Ended::Time));
                    return false;
                }
            }
        }
        true
    }

    fn event_start(&self) {
        if let Some(rq) = &self.ctl.rate {
            rq.concurrency.fetch_add(1, Relaxed);
        }
        self.started.set(self.ctl.clock.now());
    }

    fn event_stop(&self) {
        let ctl = self.ctl;
        let now = ctl.clock.now();
        if let Some(rq) = &ctl.rate {
            rq.concurrency.fetch_sub(1, Relaxed);
        }
        let from = self.queued_at.take().unwrap_or(self.started.get());
        let ns = ctl.clock.ticks_to_ns(now.saturating_sub(from));
        let bucket = ctl
            .histogram_on
            .then(|| ctl.scale.bucket_index(ns as f64 / 1e6));
        self.slot.record_event(ns, bucket);
        self.last_now.set(Some(now));
    }
}

/// Run a worker's own event loop; what ended it.
fn driven_loop<W: Worker>(w: &mut W, slot: &Slot, ctl: &Control) -> Option<Ended> {
    let lp = DrivenLoop {
        ctl,
        slot,
        last_now: std::cell::Cell::new(Some(ctl.start.load(Relaxed))),
        started: std::cell::Cell::new(0),
        queued_at: std::cell::Cell::new(None),
        ended: std::cell::Cell::new(None),
    };
    let result = crate::lua::context::with_loop(&lp, || w.drive(&lp))?;
    if let Err(msg) = result {
        ctl.log.msg(crate::log::Level::Fatal, &msg);
        ctl.error.store(true, Relaxed);
        return Some(Ended::Other);
    }
    Some(lp.ended.take().unwrap_or(Ended::Other))
}

/// One worker's event loop. Hot path: clock reads, the event, plain stores.
fn worker_loop<W: Worker>(w: &mut W, slot: &Slot, ctl: &Control) -> Ended {
    let clock = ctl.clock;
    let deadline = ctl.deadline.load(Relaxed);
    let limit = ctl.max_events;
    let mut now = ctl.start.load(Relaxed);
    loop {
        if now >= deadline {
            return Ended::Time;
        }
        if stop::should_stop() || ctl.error.load(Relaxed) {
            return Ended::Other;
        }
        if limit > 0 && ctl.issued.fetch_add(1, Relaxed) >= limit {
            return Ended::Events;
        }
        let queued_at = match &ctl.rate {
            Some(rq) => match wait_for_event(rq, clock, deadline) {
                Some(t) => Some(t),
                None => return Ended::Time,
            },
            None => None,
        };
        let Some(req) = w.next() else {
            return Ended::Other;
        };
        let t0 = clock.now();
        if let Some(rq) = &ctl.rate {
            rq.concurrency.fetch_add(1, Relaxed);
        }
        let result = w.execute(req, slot, ctl.log);
        now = clock.now();
        if let Some(rq) = &ctl.rate {
            rq.concurrency.fetch_sub(1, Relaxed);
        }
        if let Err(msg) = result {
            ctl.log.msg(crate::log::Level::Fatal, &msg);
            ctl.error.store(true, Relaxed);
            return Ended::Other;
        }
        let ns = clock.ticks_to_ns(now.saturating_sub(queued_at.unwrap_or(t0)));
        let bucket = ctl
            .histogram_on
            .then(|| ctl.scale.bucket_index(ns as f64 / 1e6));
        slot.record_event(ns, bucket);
    }
}

/// One worker thread's life: initialise, wait for the others, run the
/// events, finish.
fn worker_thread<T: Test>(
    test: &T,
    i: usize,
    seed: u64,
    slot: &Slot,
    ctl: &Control,
    ready: &Barrier,
    go: &Barrier,
) {
    let log = ctl.log;
    log.debug(&format!("Worker thread (#{i}) started"));
    let Some(mut w) = test.worker(i, seed) else {
        log.debug(&format!("Worker thread (#{i}) failed to initialize!"));
        ctl.error.store(true, Relaxed);
        ready.wait();
        go.wait();
        return;
    };
    log.debug(&format!("Worker thread (#{i}) initialized"));
    ready.wait();
    go.wait();
    let ended = match driven_loop(&mut w, slot, ctl) {
        Some(e) => e,
        None => worker_loop(&mut w, slot, ctl),
    };
    match ended {
        Ended::Time => log.info("Time limit exceeded, exiting..."),
        Ended::Events => log.info("Event limit exceeded, exiting..."),
        Ended::Other => {}
    }
    w.finish(slot);
}

/// Take one queued arrival (its tick), or `None` when the run is over.
fn wait_for_event(rq: &RateQueue, clock: &FastClock, deadline: u64) -> Option<u64> {
    let mut q = rq.q.lock().unwrap_or_else(|p| p.into_inner());
    loop {
        if let Some(t) = q.pop_front() {
            return Some(t);
        }
        if rq.closed.load(Relaxed) || stop::should_stop() || clock.now() >= deadline {
            return None;
        }
        q = rq
            .cv
            .wait_timeout(q, Duration::from_millis(10))
            .unwrap_or_else(|p| p.into_inner())
            .0;
    }
}

/// sysbench's event generator: exponential gaps with mean 1/rate.
fn generate_events(ctl: &Control, rate: u32, seed: u64, all_done: &AtomicBool) {
    let Some(rq) = &ctl.rate else { return };
    let clock = ctl.clock;
    let mut rng = crate::rng::Rng::for_thread(seed, usize::MAX);
    let lambda_ns = 1e9 / f64::from(rate);
    let start = ctl.start.load(Relaxed);
    let deadline = ctl.deadline.load(Relaxed);
    let mut next_ns = clock.elapsed_ns(start) as f64;
    loop {
        next_ns += -lambda_ns * (1.0 - rng.uniform_double()).ln();
        let now = clock.now();
        if now >= deadline || stop::should_stop() || all_done.load(Relaxed) {
            break;
        }
        let cur_ns = clock.ticks_to_ns(now.saturating_sub(start)) as f64;
        if next_ns > cur_ns {
            std::thread::sleep(Duration::from_nanos((next_ns - cur_ns) as u64));
        }
        let mut q = rq.q.lock().unwrap_or_else(|p| p.into_inner());
        if q.len() >= MAX_QUEUE_LEN {
            ctl.error.store(true, Relaxed);
            ctl.log.msg(
                crate::log::Level::Fatal,
                "The event queue is full. This means the worker threads are unable to keep up with the specified event generation rate",
            );
            break;
        }
        q.push_back(clock.now());
        drop(q);
        rq.cv.notify_one();
    }
    rq.closed.store(true, Relaxed);
    rq.cv.notify_all();
}

fn snapshots(slots: &[Slot]) -> Vec<ThreadSnap> {
    slots.iter().map(Slot::snapshot).collect()
}

fn deltas(now: &[ThreadSnap], base: &[ThreadSnap]) -> Vec<ThreadSnap> {
    now.iter().zip(base).map(|(a, b)| a.since(b)).collect()
}

/// Run `test` with the general settings; the calling thread reports.
pub fn run<T: Test>(
    test: &T,
    s: &Settings,
    log: &Log,
    ctx: Context,
    seed: u64,
    sink: &mut dyn Sink,
) -> Outcome {
    let clock = FastClock::get();
    let n = s.threads as usize;
    let slots: Vec<Slot> = (0..n).map(|_| Slot::new()).collect();
    let ctl = Control {
        clock,
        scale: ctx.scale,
        histogram_on: s.percentile > 0,
        start: AtomicU64::new(0),
        deadline: AtomicU64::new(u64::MAX),
        max_events: if test.uses_event_limit() {
            s.max_events
        } else {
            0
        },
        issued: AtomicU64::new(0),
        error: AtomicBool::new(false),
        rate: (s.rate > 0).then(|| RateQueue {
            q: Mutex::new(VecDeque::new()),
            cv: Condvar::new(),
            closed: AtomicBool::new(false),
            concurrency: AtomicU64::new(0),
        }),
        log,
    };
    let ready = Barrier::new(n + 1);
    let go = Barrier::new(n + 1);
    let all_done = AtomicBool::new(false);
    let (done_tx, done_rx) = mpsc::channel::<()>();

    std::thread::scope(|scope| {
        for (i, slot) in slots.iter().enumerate() {
            let (ctl, ready, go, done_tx) = (&ctl, &ready, &go, done_tx.clone());
            let spawned = std::thread::Builder::new()
                .stack_size(s.stack_size.max(test.min_stack_size()))
                .spawn_scoped(scope, move || {
                    crate::lua::context::set_thread_id(i as i32);
                    crate::lua::context::with_slot(slot, || {
                        worker_thread(test, i, seed, slot, ctl, ready, go);
                    });
                    slot.done.store(true, Relaxed);
                    let _ = done_tx.send(());
                });
            if let Err(e) = spawned {
                log.msg(
                    crate::log::Level::Fatal,
                    &format!("pthread_create() for thread #{i} failed. errno = {e}"),
                );
                std::process::exit(1);
            }
        }
        drop(done_tx);

        ready.wait();
        if ctl.error.load(Relaxed) {
            // A thread failed to initialise: let the others see it and go.
            go.wait();
            return Outcome {
                summary: Monitor::new(&slots, ctx, clock.now(), clock).cumulative(),
                failed: true,
                init_failed: true,
            };
        }
        let start = clock.now();
        ctl.start.store(start, Relaxed);
        if s.max_time > 0 {
            ctl.deadline.store(
                start + clock.ns_to_ticks(s.max_time * 1_000_000_000),
                Relaxed,
            );
        }
        log.notice("Threads started!\n");
        go.wait();

        if s.rate > 0 {
            let (ctl, all_done) = (&ctl, &all_done);
            scope.spawn(move || generate_events(ctl, s.rate, seed, all_done));
        }

        let mut m = Monitor::new(&slots, ctx, start, clock);
        m.watch(s, &ctl, &done_rx, sink);
        all_done.store(true, Relaxed);
        if let Some(rq) = &ctl.rate {
            rq.closed.store(true, Relaxed);
            rq.cv.notify_all();
        }
        Outcome {
            summary: m.cumulative(),
            failed: ctl.error.load(Relaxed),
            init_failed: false,
        }
    })
}

/// The reporting side of a run: intervals, checkpoints and the forced
/// shutdown, each from differences of per-thread snapshots.
struct Monitor<'a> {
    slots: &'a [Slot],
    ctx: Context<'a>,
    clock: &'a FastClock,
    start: u64,
    /// Snapshot and time (s) of the last interval line.
    interval_base: Vec<ThreadSnap>,
    interval_t: f64,
    /// Snapshot and time (s) of the last checkpoint (or the start).
    ck_base: Vec<ThreadSnap>,
    ck_t: f64,
}

impl<'a> Monitor<'a> {
    fn new(slots: &'a [Slot], ctx: Context<'a>, start: u64, clock: &'a FastClock) -> Self {
        let zero = vec![ThreadSnap::default(); slots.len()];
        Self {
            slots,
            ctx,
            clock,
            start,
            interval_base: zero.clone(),
            interval_t: 0.0,
            ck_base: zero,
            ck_t: 0.0,
        }
    }

    /// Seconds since the threads started.
    fn elapsed(&self) -> f64 {
        self.clock
            .ticks_to_ns(self.clock.now().saturating_sub(self.start)) as f64
            / 1e9
    }

    fn running(&self) -> usize {
        self.slots.iter().filter(|x| !x.done.load(Relaxed)).count()
    }

    /// The cumulative report since the last checkpoint.
    fn cumulative(&self) -> Summary {
        let elapsed = self.elapsed();
        let snap = snapshots(self.slots);
        Summary::build(
            self.ctx,
            &deltas(&snap, &self.ck_base),
            elapsed,
            elapsed - self.ck_t,
        )
    }

    /// A checkpoint: report, then start counting afresh.
    fn checkpoint(&mut self, sink: &mut dyn Sink) {
        let elapsed = self.elapsed();
        let snap = snapshots(self.slots);
        let sum = Summary::build(
            self.ctx,
            &deltas(&snap, &self.ck_base),
            elapsed,
            elapsed - self.ck_t,
        );
        for x in self.slots {
            x.reset_min_max();
        }
        self.ck_base = snap;
        self.ck_t = elapsed;
        sink.checkpoint(&sum);
    }

    /// One intermediate line for what happened since the last one.
    fn interval(&mut self, rate: Option<&RateQueue>) -> Option<Interval> {
        let running = self.running();
        if running == 0 {
            return None;
        }
        let elapsed = self.elapsed();
        let snap = snapshots(self.slots);
        let mut iv = Interval::build(
            self.ctx,
            &deltas(&snap, &self.interval_base),
            elapsed,
            elapsed - self.interval_t,
            running as u32,
        );
        if let Some(rq) = rate {
            let len = rq.q.lock().map(|q| q.len()).unwrap_or(0);
            iv.queue_length = Some(len as u64);
            iv.concurrency = Some(rq.concurrency.load(Relaxed));
        }
        self.interval_base = snap;
        self.interval_t = elapsed;
        Some(iv)
    }

    /// Wait for the workers, reporting on the way (spec §5: intervals on
    /// the grid, late slots skipped; checkpoints; forced shutdown).
    fn watch(
        &mut self,
        s: &Settings,
        ctl: &Control,
        done_rx: &mpsc::Receiver<()>,
        sink: &mut dyn Sink,
    ) {
        let n = self.slots.len();
        let interval = s.report_interval as f64;
        let mut next_interval = (interval > 0.0).then_some(interval);
        let mut checkpoints = s.checkpoints.iter().map(|c| *c as f64).peekable();
        let forced_at = s.forced_shutdown.map(|x| (s.max_time + x) as f64);
        let mut finished = 0;
        while finished < n {
            let elapsed = self.elapsed();
            while checkpoints.peek().is_some_and(|c| *c <= 0.0) {
                checkpoints.next();
            }
            let wake = [next_interval, checkpoints.peek().copied(), forced_at]
                .into_iter()
                .flatten()
                .fold(f64::INFINITY, f64::min);
            let wait = if wake.is_finite() {
                Duration::from_secs_f64((wake - elapsed).max(0.0))
            } else {
                Duration::from_secs(3600)
            };
            match done_rx.recv_timeout(wait) {
                Ok(()) => {
                    finished += 1;
                    continue;
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
                Err(mpsc::RecvTimeoutError::Timeout) => {}
            }
            let elapsed = self.elapsed();
            if forced_at.is_some_and(|at| elapsed >= at) {
                let mut sum = self.cumulative();
                sum.unfinished_events = Some(self.running() as u32);
                sink.forced_shutdown(&sum);
            }
            if checkpoints.peek().is_some_and(|c| elapsed >= *c) {
                checkpoints.next();
                self.checkpoint(sink);
            }
            if let Some(tick) = next_interval.filter(|t| elapsed >= *t) {
                let mut next = tick + interval;
                while next <= elapsed {
                    next += interval;
                }
                next_interval = Some(next);
                if s.max_time > 0 && tick >= s.max_time as f64 {
                    // Workers stop at --time too: sysbench prints this line
                    // only when they are still busy (e.g. fileio's final
                    // fsync), so give a finishing event a moment first.
                    let grace = self.clock.now() + self.clock.ns_to_ticks(5_000_000);
                    while finished < n && self.clock.now() < grace {
                        if done_rx.recv_timeout(Duration::from_millis(1)).is_ok() {
                            finished += 1;
                        }
                    }
                }
                if let Some(iv) = self.interval(ctl.rate.as_ref()) {
                    sink.interval(&iv);
                }
            }
        }
    }
}
