//! The built-in tests behind one trait (STYLE: one file per test). The run
//! loop in `runner.rs` is written once against [`Test`] and [`Worker`].

pub mod cpu;
pub mod fileio;
pub mod memory;
pub mod mutex;
pub mod threads;

use crate::log::Level;
use crate::options::{self, OptDef};
use crate::result::TestKind;
use crate::stats::Slot;

/// A line of the test's mode block (`print_mode`), with its log level.
pub type ModeLine = (Level, String);

/// sysbench's ck_pr_barrier(): an empty asm statement that clobbers memory,
/// so empty spin loops stay loops.
#[inline(always)]
pub fn compiler_barrier() {
    // SAFETY: an empty asm block with no operands.
    unsafe { std::arch::asm!("", options(nostack, preserves_flags)) };
}

/// One built-in test, initialised from its options and ready to run.
pub trait Test: Sync {
    /// Per-thread state; created on the worker's own thread.
    type Worker<'a>: Worker
    where
        Self: 'a;

    /// The worker for thread `thread` (0-based) and the run's seed;
    /// `None` when the thread failed to initialise (the test has said why).
    fn worker(&self, thread: usize, seed: u64) -> Option<Self::Worker<'_>>;

    /// Get ready after the mode lines are printed (fileio opens its files).
    fn open(&mut self, _log: &crate::log::Log) -> crate::error::Result<()> {
        Ok(())
    }

    /// Lines printed after the run-mode block.
    fn mode_lines(&self) -> Vec<ModeLine>;

    /// What the report shows beyond the general block.
    fn kind(&self) -> TestKind;

    /// The smallest stack a worker thread needs (Lua states want more than
    /// sysbench's 64K default for the built-in tests).
    fn min_stack_size(&self) -> usize {
        64 * 1024
    }

    /// Whether `--events` limits this test (memory has its own limit, §6.2).
    fn uses_event_limit(&self) -> bool {
        true
    }
}

/// A worker thread's side of a test: sysbench's next_event/execute_event.
/// Created and used on its own thread only.
pub trait Worker {
    type Req;
    /// The next event, or `None` when this thread has no more work.
    fn next(&mut self) -> Option<Self::Req>;
    /// Do one event (timed by the caller). Hot path: no allocation. An
    /// error (a failed write, say) is the FATAL message that ends the run.
    /// `log` is for --debug lines (fileio prints one per request).
    fn execute(&mut self, req: Self::Req, slot: &Slot, log: &crate::log::Log)
        -> Result<(), String>;
    /// Run the whole event loop itself (a Lua script's `thread_run`),
    /// calling back into `lp` for each event; `None` for tests that leave
    /// the loop to the runner. `Err` is the FATAL message that ends the run.
    fn drive(&mut self, _lp: &dyn crate::lua::context::EventLoop) -> Option<Result<(), String>> {
        None
    }
    /// After the last event (fileio's fsync at end).
    fn finish(&mut self, _slot: &Slot) {}
}

/// The built-in tests sysbench 1.0.20 lists, in its `--help` order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Builtin {
    Fileio,
    Cpu,
    Memory,
    Threads,
    Mutex,
}

impl Builtin {
    pub const ALL: [Builtin; 5] = [
        Builtin::Fileio,
        Builtin::Cpu,
        Builtin::Memory,
        Builtin::Threads,
        Builtin::Mutex,
    ];

    pub fn find(name: &str) -> Option<Builtin> {
        Self::ALL.into_iter().find(|b| b.name() == name)
    }

    pub fn name(self) -> &'static str {
        match self {
            Builtin::Fileio => "fileio",
            Builtin::Cpu => "cpu",
            Builtin::Memory => "memory",
            Builtin::Threads => "threads",
            Builtin::Mutex => "mutex",
        }
    }

    pub fn description(self) -> &'static str {
        match self {
            Builtin::Fileio => "File I/O test",
            Builtin::Cpu => "CPU performance test",
            Builtin::Memory => "Memory functions speed test",
            Builtin::Threads => "Threads subsystem performance test",
            Builtin::Mutex => "Mutex performance test",
        }
    }

    pub fn options(self) -> &'static [OptDef] {
        match self {
            Builtin::Fileio => options::FILEIO,
            Builtin::Cpu => options::CPU,
            Builtin::Memory => options::MEMORY,
            Builtin::Threads => options::THREADS,
            Builtin::Mutex => options::MUTEX,
        }
    }
}
