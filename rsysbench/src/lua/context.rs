//! What code running on a worker thread (a Lua hook, a database driver
//! called from Lua) needs to know about that thread: its sysbench thread id
//! and where its SQL counters go. Set by the runner on each thread; absent
//! (counts dropped, id 0) on threads that run no benchmark.

use std::cell::Cell;

/// sysbench's `sb_counter_type` (the values scripts see through `ffi`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C)]
pub enum SbCounter {
    Other = 0,
    Read = 1,
    Write = 2,
    Trx = 3,
    Error = 4,
    Reconnect = 5,
}

impl SbCounter {
    pub const COUNT: usize = 6;

    pub fn from_raw(v: i32) -> Option<SbCounter> {
        use SbCounter::*;
        [Other, Read, Write, Trx, Error, Reconnect]
            .get(usize::try_from(v).ok()?)
            .copied()
    }
}

thread_local! {
    static THREAD_ID: Cell<i32> = const { Cell::new(0) };
    static COUNTERS: Cell<*const crate::stats::Slot> = const { Cell::new(std::ptr::null()) };
}

/// The sysbench thread id of the calling thread (0 on the main thread).
pub fn thread_id() -> i32 {
    THREAD_ID.with(Cell::get)
}

/// Set the calling thread's id (workers and parallel-command threads).
pub fn set_thread_id(id: i32) {
    THREAD_ID.with(|c| c.set(id));
}

/// Count one SQL statement, error or reconnect for the calling thread.
/// Hot path: a thread-local read and a plain store.
#[inline]
pub fn count(c: SbCounter) {
    COUNTERS.with(|p| {
        let slot = p.get();
        if !slot.is_null() {
            // SAFETY: set by `with_slot` for the duration of the run on this
            // thread only; the slot outlives that scope.
            unsafe { (*slot).add_sql(c) };
        }
    });
}

/// Run `f` with the calling thread's SQL counters going to `slot`.
pub fn with_slot<R>(slot: &crate::stats::Slot, f: impl FnOnce() -> R) -> R {
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            COUNTERS.with(|p| p.set(std::ptr::null()));
        }
    }
    COUNTERS.with(|p| p.set(slot as *const _));
    let _reset = Reset;
    f()
}

/// What `sb_more_events`/`sb_event_start`/`sb_event_stop` drive: the
/// runner's per-thread event loop (runner.rs implements it).
pub trait EventLoop {
    fn more_events(&self) -> bool;
    fn event_start(&self);
    fn event_stop(&self);
}

thread_local! {
    static LOOP: Cell<Option<*const (dyn EventLoop + 'static)>> = const { Cell::new(None) };
    static RNG: std::cell::RefCell<crate::rng::Rng> =
        std::cell::RefCell::new(crate::rng::Rng::for_thread(0, 0));
}

/// Run `f` with the calling thread's `sb_*` event calls going to `lp`.
pub fn with_loop<R>(lp: &dyn EventLoop, f: impl FnOnce() -> R) -> R {
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            LOOP.with(|p| p.set(None));
        }
    }
    // SAFETY: the pointer is cleared before `lp` goes out of scope (Reset
    // runs when this frame ends); the lifetime is erased only to store it.
    let erased: *const (dyn EventLoop + 'static) =
        unsafe { std::mem::transmute(lp as *const dyn EventLoop) };
    LOOP.with(|p| p.set(Some(erased)));
    let _reset = Reset;
    f()
}

/// The calling thread's event loop, if a run is going on on it.
#[inline]
pub fn event_loop<R>(f: impl FnOnce(&dyn EventLoop) -> R) -> Option<R> {
    LOOP.with(|p| p.get()).map(|lp| {
        // SAFETY: set by `with_loop` for the duration of its closure.
        f(unsafe { &*lp })
    })
}

/// Seed the calling thread's generator (each worker, command thread and
/// the main thread get their own stream from the run's seed).
pub fn seed_rng(seed: u64, thread: usize) {
    RNG.with(|r| *r.borrow_mut() = crate::rng::Rng::for_thread(seed, thread));
}

/// Give the calling thread this generator state.
pub fn set_rng(rng: crate::rng::Rng) {
    RNG.with(|r| *r.borrow_mut() = rng);
}

/// Draw from the calling thread's generator.
#[inline]
pub fn with_rng<R>(f: impl FnOnce(&mut crate::rng::Rng) -> R) -> R {
    RNG.with(|r| f(&mut r.borrow_mut()))
}

static SQL_STATS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// A database driver was initialised: Lua tests report SQL statistics
/// (sysbench prints its plain report for scripts that use no driver).
pub fn enable_sql_stats() {
    SQL_STATS.store(true, std::sync::atomic::Ordering::Release);
}

pub fn sql_stats_enabled() -> bool {
    SQL_STATS.load(std::sync::atomic::Ordering::Acquire)
}
