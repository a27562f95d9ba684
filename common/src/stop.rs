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
///
/// The first signal only sets the flag ([`should_stop`]); the second calls
/// `_exit(128 + signal)` at once. Handlers use `SA_RESTART`, so interrupted
/// system calls resume: a loop that blocks (accept, read, poll) must block
/// with a timeout and check [`should_stop`] between waits.
pub fn install() {
    install_handler(on_signal);
}

/// Install `handler` for SIGINT and SIGTERM, with `SA_RESTART` as above,
/// for a tool that counts signals its own way (`handler` must be
/// async-signal-safe: atomics, `_exit`).
pub fn install_handler(handler: extern "C" fn(libc::c_int)) {
    let handler = handler as libc::sighandler_t;
    for sig in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: installing an async-signal-safe handler (the caller's word).
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

/// Clear a stop asked by [`request`], so the next run runs (a server's
/// next client). A signal's count and number stay.
pub fn clear_request() {
    STOP.store(false, Ordering::SeqCst);
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
    use std::io::{BufRead, BufReader};
    use std::process::{Child, Command, Stdio};
    use std::sync::mpsc;
    use std::time::{Duration, Instant};

    /// Set in the re-executed test binary: which child behaviour to run.
    const CHILD_ENV: &str = "RBENCH_STOP_TEST_CHILD";
    const LIMIT: Duration = Duration::from_secs(20);

    #[test]
    fn request_sets_the_flag() {
        request();
        assert!(should_stop());
    }

    /// The child side of the signal tests. Under a normal `cargo test` (no
    /// CHILD_ENV) it does nothing; the parent tests run this binary again
    /// with CHILD_ENV set and only this test selected.
    #[test]
    fn signal_child() {
        let Ok(mode) = std::env::var(CHILD_ENV) else {
            return;
        };
        install();
        println!("ready");
        let deadline = Instant::now() + LIMIT;
        while !should_stop() {
            if Instant::now() > deadline {
                std::process::exit(3);
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        if mode == "once" {
            println!("stopped cleanly after signal {:?}", last_signal());
            std::process::exit(0);
        }
        // "twice": keep "working" after the first signal, as a run that is
        // slow to wind down would; the second signal must end it at once.
        println!("first signal seen");
        while Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
        std::process::exit(4);
    }

    struct ChildRun {
        child: Child,
        lines: mpsc::Receiver<String>,
    }

    impl ChildRun {
        fn start(mode: &str) -> ChildRun {
            let mut child = Command::new(std::env::current_exe().unwrap())
                .args(["--exact", "stop::tests::signal_child", "--nocapture"])
                .args(["--test-threads", "1"])
                .env(CHILD_ENV, mode)
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            let out = child.stdout.take().unwrap();
            let (tx, lines) = mpsc::channel();
            std::thread::spawn(move || {
                for l in BufReader::new(out).lines().map_while(Result::ok) {
                    if tx.send(l).is_err() {
                        break;
                    }
                }
            });
            ChildRun { child, lines }
        }

        /// Wait (bounded) for a stdout line containing `prefix`, returning
        /// the line from there (the harness may print "test ... " first).
        fn wait_line(&mut self, prefix: &str) -> String {
            let deadline = Instant::now() + LIMIT;
            loop {
                let left = deadline.saturating_duration_since(Instant::now());
                match self.lines.recv_timeout(left) {
                    Ok(l) if l.contains(prefix) => {
                        return l[l.find(prefix).unwrap_or(0)..].to_string()
                    }
                    Ok(_) => continue,
                    Err(e) => {
                        let _ = self.child.kill();
                        panic!("child never printed '{prefix}': {e}");
                    }
                }
            }
        }

        fn signal(&self, sig: i32) {
            // SAFETY: kill(2) on our own child's pid has no memory effects.
            let rc = unsafe { libc::kill(self.child.id() as libc::pid_t, sig) };
            assert_eq!(rc, 0);
        }

        /// Wait (bounded) for the exit code.
        fn exit_code(&mut self) -> Option<i32> {
            let deadline = Instant::now() + LIMIT;
            loop {
                if let Some(st) = self.child.try_wait().unwrap() {
                    return st.code();
                }
                if Instant::now() > deadline {
                    let _ = self.child.kill();
                    let _ = self.child.wait();
                    panic!("child did not exit");
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        }
    }

    #[test]
    fn one_sigint_stops_the_run_cleanly() {
        let mut c = ChildRun::start("once");
        c.wait_line("ready");
        c.signal(libc::SIGINT);
        let line = c.wait_line("stopped cleanly");
        assert_eq!(
            line,
            format!("stopped cleanly after signal Some({})", libc::SIGINT)
        );
        assert_eq!(c.exit_code(), Some(0));
    }

    #[test]
    fn a_second_signal_exits_at_once_with_128_plus_signal() {
        let mut c = ChildRun::start("twice");
        c.wait_line("ready");
        c.signal(libc::SIGINT);
        c.wait_line("first signal seen");
        c.signal(libc::SIGTERM);
        assert_eq!(c.exit_code(), Some(128 + libc::SIGTERM));
    }
}
