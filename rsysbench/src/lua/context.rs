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
