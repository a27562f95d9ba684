//! `threads`: each event takes lock (shared counter++ mod --thread-locks)
//! and --thread-yields times locks it, yields the CPU and unlocks, as
//! sysbench 1.0.20 does (spec §6.3).

use std::sync::atomic::{AtomicU32, Ordering};

use crate::args::Values;
use crate::builtin::{ModeLine, Test, Worker};
use crate::error::{Fail, Result};
use crate::log::Level;
use crate::pmutex::PthreadMutex;
use crate::result::TestKind;
use crate::stats::Slot;

pub struct Threads {
    yields: u32,
    locks: Vec<PthreadMutex>,
    counter: AtomicU32,
}

impl Threads {
    pub fn init(v: &Values) -> Result<Self> {
        let yields = v.int("thread-yields")?;
        let locks = v.int("thread-locks")?;
        if yields < 0 {
            return Err(Fail::fatal(format!(
                "Invalid value for thread-yields: {yields}"
            )));
        }
        if locks <= 0 {
            // sysbench divides by it and dies of SIGFPE.
            return Err(Fail::fatal(format!(
                "Invalid value for thread-locks: {locks} (must be at least 1)"
            )));
        }
        Ok(Self {
            yields: yields as u32,
            locks: (0..locks).map(|_| PthreadMutex::new()).collect(),
            counter: AtomicU32::new(0),
        })
    }
}

pub struct ThreadsWorker<'a> {
    t: &'a Threads,
}

impl Test for Threads {
    type Worker<'a> = ThreadsWorker<'a>;

    fn worker(&self, _thread: usize, _seed: u64) -> Option<ThreadsWorker<'_>> {
        Some(ThreadsWorker { t: self })
    }

    fn mode_lines(&self) -> Vec<ModeLine> {
        vec![
            (
                Level::Info,
                "Doing thread subsystem performance test".into(),
            ),
            (
                Level::Info,
                format!(
                    "Thread yields per test: {} Locks used: {}",
                    self.yields,
                    self.locks.len()
                ),
            ),
        ]
    }

    fn kind(&self) -> TestKind {
        TestKind::General
    }
}

impl Worker for ThreadsWorker<'_> {
    type Req = usize;

    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        let n = self.t.counter.fetch_add(1, Ordering::Relaxed);
        Some(n as usize % self.t.locks.len())
    }

    #[inline(always)]
    fn execute(
        &mut self,
        lock: usize,
        _slot: &Slot,
        _log: &crate::log::Log,
    ) -> std::result::Result<(), String> {
        let m = &self.t.locks[lock];
        for _ in 0..self.t.yields {
            m.lock();
            // SAFETY: sched_yield has no preconditions.
            unsafe { libc::sched_yield() };
            m.unlock();
        }
        Ok(())
    }
}
