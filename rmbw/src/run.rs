//! Measuring: allocate the arrays once, then for each selected test time
//! each run with two clock reads around the kernel only. One thread runs on
//! the main thread, unpinned, as mbw does; `--threads=N` runs N pinned
//! workers in lock-step (a barrier starts every run on all of them).
//! Nothing here formats or prints: records go to the [`Observer`].

use std::io;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Barrier, Mutex};

use crate::arrays::{AllocError, Arrays};
use crate::kernels::{Kernel, Method};
use crate::result::{Average, Plan, Record};
use rbench_common::clock::now_ns;
use rbench_common::stop::should_stop;

/// Receives what the measurement produces, as it is produced.
pub trait Observer {
    /// The arrays are allocated and filled; runs start now.
    fn ready(&mut self) -> io::Result<()>;
    /// One run's or one average's record.
    fn record(&mut self, rec: &Record) -> io::Result<()>;
}

/// Why a measurement could not be made.
#[derive(Debug)]
pub enum RunError {
    Alloc,
    Pin(String),
    Io(io::Error),
}

impl From<io::Error> for RunError {
    fn from(e: io::Error) -> Self {
        RunError::Io(e)
    }
}

/// Microseconds on the monotonic clock: mbw times with gettimeofday's
/// microseconds, so Elapsed has the same resolution and meaning, without
/// wall-clock jumps.
#[inline]
fn now_us() -> u64 {
    now_ns() / 1000
}

/// The hot path: one timed run of `kernel`; returns (start, end) in µs.
#[inline]
fn timed_run(kernel: &dyn Kernel, arrays: &mut Arrays, block: usize) -> (u64, u64) {
    let start = now_us();
    kernel.run(arrays, block);
    let end = now_us();
    (start, end)
}

/// Run every selected test of `plan`, reporting to `obs`. Stops after the
/// current run when a stop was requested (SIGINT/SIGTERM); the averages
/// then cover the runs done.
pub fn measure(plan: &Plan, methods: &[Method], obs: &mut dyn Observer) -> Result<(), RunError> {
    if plan.threads <= 1 {
        measure_here(plan, methods, obs)
    } else {
        measure_threads(plan, methods, obs)
    }
}

fn record(plan: &Plan, method: Method, run: u32, start: u64, end: u64) -> Record {
    let elapsed_s = end.saturating_sub(start) as f64 / 1e6;
    let mib = (plan.array_size_mib * method.kernel().counted_arrays() * plan.threads as u64) as f64;
    Record {
        method: method.label(),
        run: run.to_string(),
        elapsed_s,
        mib,
        mib_per_s: mib / elapsed_s,
        threads: plan.threads,
    }
}

/// Drive the runs of every test; `go(kernel index, prepare?)` performs one
/// step and returns the run's (start, end) in µs.
fn drive(
    plan: &Plan,
    methods: &[Method],
    obs: &mut dyn Observer,
    go: &mut dyn FnMut(usize, bool) -> (u64, u64),
) -> Result<(), RunError> {
    obs.ready()?;
    for (k, &method) in methods.iter().enumerate() {
        if should_stop() {
            break;
        }
        go(k, true);
        let mut avg = Average::default();
        for run in 0..plan.runs_per_test {
            if should_stop() {
                break;
            }
            let (start, end) = go(k, false);
            let rec = record(plan, method, run, start, end);
            obs.record(&rec)?;
            avg.add(&rec);
        }
        if let Some(avg) = avg.record() {
            obs.record(&avg)?;
        }
    }
    Ok(())
}

fn measure_here(plan: &Plan, methods: &[Method], obs: &mut dyn Observer) -> Result<(), RunError> {
    let mut arrays =
        Arrays::new(plan.elements as usize, plan.arrays).map_err(|AllocError| RunError::Alloc)?;
    let block = plan.block_size_bytes as usize;
    drive(plan, methods, obs, &mut |k, prepare| {
        let kernel = methods[k].kernel();
        if prepare {
            kernel.prepare(&mut arrays);
            (0, 0)
        } else {
            timed_run(kernel, &mut arrays, block)
        }
    })
}

/// The command workers read after each start barrier.
const QUIT: usize = usize::MAX;

struct Shared {
    barrier: Barrier,
    /// QUIT, or kernel index * 2 (+1 to prepare instead of run).
    command: AtomicUsize,
    starts: Vec<AtomicU64>,
    ends: Vec<AtomicU64>,
    failure: Mutex<Option<RunError>>,
}

fn worker(i: usize, cpu: usize, plan: &Plan, methods: &[Method], shared: &Shared) {
    // Pin first, then allocate and fill: the thread first-touches its own
    // arrays, so they live on its NUMA node.
    let arrays = rbench_common::cpu::pin_current_thread(cpu)
        .map_err(|e| RunError::Pin(e.to_string()))
        .and_then(|()| {
            Arrays::new(plan.elements as usize, plan.arrays).map_err(|AllocError| RunError::Alloc)
        });
    let mut arrays = match arrays {
        Ok(a) => Some(a),
        Err(e) => {
            if let Ok(mut f) = shared.failure.lock() {
                f.get_or_insert(e);
            }
            None
        }
    };
    let block = plan.block_size_bytes as usize;
    shared.barrier.wait(); // allocated
    loop {
        shared.barrier.wait(); // go
        let command = shared.command.load(Ordering::Acquire);
        if command == QUIT {
            return;
        }
        if let Some(arrays) = arrays.as_mut() {
            let kernel = methods[command / 2].kernel();
            if command % 2 == 1 {
                kernel.prepare(arrays);
            } else {
                let (s, e) = timed_run(kernel, arrays, block);
                shared.starts[i].store(s, Ordering::Relaxed);
                shared.ends[i].store(e, Ordering::Relaxed);
            }
        }
        shared.barrier.wait(); // done
    }
}

fn measure_threads(
    plan: &Plan,
    methods: &[Method],
    obs: &mut dyn Observer,
) -> Result<(), RunError> {
    let n = plan.threads;
    let shared = Shared {
        barrier: Barrier::new(n + 1),
        command: AtomicUsize::new(QUIT),
        starts: (0..n).map(|_| AtomicU64::new(0)).collect(),
        ends: (0..n).map(|_| AtomicU64::new(0)).collect(),
        failure: Mutex::new(None),
    };
    std::thread::scope(|scope| {
        for (i, &cpu) in plan.cpus.iter().enumerate().take(n) {
            let shared = &shared;
            scope.spawn(move || worker(i, cpu, plan, methods, shared));
        }
        shared.barrier.wait(); // allocated
        let failed = shared.failure.lock().map(|mut f| f.take()).unwrap_or(None);
        let result = match failed {
            Some(e) => Err(e),
            None => drive(plan, methods, obs, &mut |k, prepare| {
                shared
                    .command
                    .store(k * 2 + usize::from(prepare), Ordering::Release);
                shared.barrier.wait(); // go
                shared.barrier.wait(); // done
                                       // The run spans from the first start to the last end.
                let start = shared
                    .starts
                    .iter()
                    .map(|a| a.load(Ordering::Relaxed))
                    .min();
                let end = shared.ends.iter().map(|a| a.load(Ordering::Relaxed)).max();
                (start.unwrap_or(0), end.unwrap_or(0))
            }),
        };
        shared.command.store(QUIT, Ordering::Release);
        shared.barrier.wait(); // go: quit
        result
    })
}
