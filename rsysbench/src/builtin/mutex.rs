//! `mutex`: one event per thread; it does --mutex-locks rounds of: pick a
//! uniform mutex out of --mutex-num, spin --mutex-loops empty iterations,
//! lock it, bump a shared counter, unlock (spec §6.4, sysbench 1.0.20).

use std::sync::atomic::{AtomicU64, Ordering};

use crate::args::Values;
use crate::builtin::{ModeLine, Test, Worker};
use crate::error::{Fail, Result};
use crate::log::Level;
use crate::pmutex::PthreadMutex;
use crate::result::TestKind;
use crate::rng::Rng;
use crate::stats::Slot;

/// sysbench's thread_lock: a mutex followed by 256 bytes of padding, so
/// the array has the same footprint and cache behaviour.
struct PaddedMutex {
    m: PthreadMutex,
    _pad: [u8; 256],
}

pub struct Mutex {
    locks: Vec<PaddedMutex>,
    nlocks: u32,
    loops: u32,
    /// sysbench's global_var: bumped under whichever mutex was picked.
    shared: AtomicU64,
}

impl Mutex {
    pub fn init(v: &Values) -> Result<Self> {
        let num = v.int("mutex-num")?;
        let nlocks = v.int("mutex-locks")?;
        let loops = v.int("mutex-loops")?;
        if num <= 0 {
            // sysbench hangs on 0.
            return Err(Fail::fatal(format!(
                "Invalid value for mutex-num: {num} (must be at least 1)"
            )));
        }
        if nlocks <= 0 {
            // sysbench wraps 0 around to 2^32 locks.
            return Err(Fail::fatal(format!(
                "Invalid value for mutex-locks: {nlocks} (must be at least 1)"
            )));
        }
        if loops < 0 {
            return Err(Fail::fatal(format!(
                "Invalid value for mutex-loops: {loops}"
            )));
        }
        Ok(Self {
            locks: (0..num)
                .map(|_| PaddedMutex {
                    m: PthreadMutex::new(),
                    _pad: [0; 256],
                })
                .collect(),
            nlocks: nlocks as u32,
            loops: loops as u32,
            shared: AtomicU64::new(0),
        })
    }
}

pub struct MutexWorker<'a> {
    m: &'a Mutex,
    done: bool,
    rng: Rng,
}

impl Test for Mutex {
    type Worker<'a> = MutexWorker<'a>;

    fn worker(&self, thread: usize, seed: u64) -> Option<MutexWorker<'_>> {
        Some(MutexWorker {
            m: self,
            done: false,
            rng: Rng::for_thread(seed, thread),
        })
    }

    fn mode_lines(&self) -> Vec<ModeLine> {
        vec![(Level::Info, "Doing mutex performance test".into())]
    }

    fn kind(&self) -> TestKind {
        TestKind::General
    }
}

impl Worker for MutexWorker<'_> {
    type Req = ();

    fn next(&mut self) -> Option<()> {
        if self.done {
            return None;
        }
        self.done = true;
        Some(())
    }

    fn execute(
        &mut self,
        _req: (),
        _slot: &Slot,
        _log: &crate::log::Log,
    ) -> std::result::Result<(), String> {
        let n = self.m.locks.len() as u64;
        for _ in 0..self.m.nlocks {
            let i = self.rng.uniform(0, n - 1) as usize;
            for _ in 0..self.m.loops {
                crate::builtin::compiler_barrier();
            }
            let l = &self.m.locks[i].m;
            l.lock();
            let v = self.m.shared.load(Ordering::Relaxed);
            self.m.shared.store(v + 1, Ordering::Relaxed);
            l.unlock();
        }
        Ok(())
    }
}
