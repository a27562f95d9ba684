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

use crate::log::Log;
use crate::result::{Context, Interval, Summary};
use crate::settings::Settings;
use crate::stats::{Slot, ThreadSnap};
use crate::tests::{Test, Worker};

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

enum Ended {
    Time,
    Events,
    Other,
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
                .stack_size(s.stack_size.max(64 * 1024))
                .spawn_scoped(scope, move || {
                    log.debug(&format!("Worker thread (#{i}) started"));
                    let mut w = test.worker(i, seed);
                    log.debug(&format!("Worker thread (#{i}) initialized"));
                    ready.wait();
                    go.wait();
                    match worker_loop(&mut w, slot, ctl) {
                        Ended::Time => log.info("Time limit exceeded, exiting..."),
                        Ended::Events => log.info("Event limit exceeded, exiting..."),
                        Ended::Other => {}
                    }
                    w.finish(slot);
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

        let secs = |t: u64| clock.ticks_to_ns(t.saturating_sub(start)) as f64 / 1e9;
        let interval = s.report_interval;
        let mut next_interval = (interval > 0).then_some(interval as f64);
        let mut checkpoints = s.checkpoints.iter().map(|c| *c as f64).peekable();
        let forced_at = s.forced_shutdown.map(|x| (s.max_time + x) as f64);
        let zero = vec![ThreadSnap::default(); n];
        let mut interval_base = zero.clone();
        let mut interval_t = 0.0;
        let mut ck_base = zero;
        let mut ck_t = 0.0;
        let mut finished = 0;

        while finished < n {
            let elapsed = secs(clock.now());
            while checkpoints
                .peek()
                .is_some_and(|c| *c <= elapsed && *c <= 0.0)
            {
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
            let now = clock.now();
            let elapsed = secs(now);
            if forced_at.is_some_and(|at| elapsed >= at) {
                let snap = snapshots(&slots);
                let mut sum =
                    Summary::build(ctx, &deltas(&snap, &ck_base), elapsed, elapsed - ck_t);
                let unfinished = slots.iter().filter(|x| !x.done.load(Relaxed)).count();
                sum.unfinished_events = Some(unfinished as u32);
                sink.forced_shutdown(&sum);
            }
            if checkpoints.peek().is_some_and(|c| elapsed >= *c) {
                checkpoints.next();
                let snap = snapshots(&slots);
                let sum = Summary::build(ctx, &deltas(&snap, &ck_base), elapsed, elapsed - ck_t);
                for x in &slots {
                    x.reset_min_max();
                }
                ck_base = snap;
                ck_t = elapsed;
                sink.checkpoint(&sum);
            }
            if let Some(tick) = next_interval.filter(|t| elapsed >= *t) {
                // Skip grid points we overslept; none at or after --time.
                let mut next = tick + interval as f64;
                while next <= elapsed {
                    next += interval as f64;
                }
                next_interval = Some(next);
                if s.max_time > 0 && tick >= s.max_time as f64 {
                    // Workers stop at --time too: sysbench prints this line
                    // only when they are still busy (e.g. fileio's final
                    // fsync), so give a finishing event a moment first.
                    let grace = clock.now() + clock.ns_to_ticks(5_000_000);
                    while finished < n && clock.now() < grace {
                        if done_rx.recv_timeout(Duration::from_millis(1)).is_ok() {
                            finished += 1;
                        }
                    }
                }
                let running = slots.iter().filter(|x| !x.done.load(Relaxed)).count();
                if running > 0 {
                    let snap = snapshots(&slots);
                    let mut iv = Interval::build(
                        ctx,
                        &deltas(&snap, &interval_base),
                        elapsed,
                        elapsed - interval_t,
                        running as u32,
                    );
                    if let Some(rq) = &ctl.rate {
                        let len = rq.q.lock().map(|q| q.len()).unwrap_or(0);
                        iv.queue_length = Some(len as u64);
                        iv.concurrency = Some(rq.concurrency.load(Relaxed));
                    }
                    interval_base = snap;
                    interval_t = elapsed;
                    sink.interval(&iv);
                }
            }
        }
        all_done.store(true, Relaxed);
        if let Some(rq) = &ctl.rate {
            rq.closed.store(true, Relaxed);
            rq.cv.notify_all();
        }
        let end = clock.now();
        let elapsed = secs(end);
        let snap = snapshots(&slots);
        let summary = Summary::build(ctx, &deltas(&snap, &ck_base), elapsed, elapsed - ck_t);
        Outcome {
            summary,
            failed: ctl.error.load(Relaxed),
        }
    })
}
