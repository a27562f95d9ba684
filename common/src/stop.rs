//! Signal-driven stop: SIGINT/SIGTERM set a flag that run loops poll, so a
//! run ends cleanly and results for what ran are printed; a second signal
//! exits at once.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

static STOP: AtomicBool = AtomicBool::new(false);
static SIGNALS: AtomicU32 = AtomicU32::new(0);
static LAST_SIGNAL: AtomicU32 = AtomicU32::new(0);

extern "C" fn on_signal(sig: libc::c_int) {
    // Only async-signal-safe work here: atomics and _exit.
    let n = SIGNALS.fetch_add(1, Ordering::SeqCst);
    LAST_SIGNAL.store(sig as u32, Ordering::SeqCst);
    STOP.store(true, Ordering::SeqCst);
    if n >= 1 {
        // SAFETY: _exit is async-signal-safe.
        unsafe { libc::_exit(128 + sig) };
    }
}

/// Install the SIGINT/SIGTERM handlers. Call once, early in `main`.
pub fn install() {
    let handler = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
    for sig in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: installing a handler that only touches atomics and calls _exit.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = handler;
            sa.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        }
    }
}

/// True once a stop was requested (by a signal or by [`request`]).
#[inline]
pub fn should_stop() -> bool {
    STOP.load(Ordering::Relaxed)
}

/// Ask every run loop to stop, as a signal would.
pub fn request() {
    STOP.store(true, Ordering::SeqCst);
}

/// The last signal received, if any (for exit codes such as 130 for SIGINT).
pub fn last_signal() -> Option<i32> {
    match LAST_SIGNAL.load(Ordering::SeqCst) {
        0 => None,
        s => Some(s as i32),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_sets_the_flag() {
        request();
        assert!(should_stop());
    }
}
