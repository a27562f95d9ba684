//! `--server --daemonize=PIDFILE`, as fio 3.33 backgrounds its server: a
//! pid file naming a live process stops the start (`fio: pidfile P exists
//! and server appears alive`, exit 0); otherwise the server forks, the
//! parent writes the child's pid to the file and exits, and the child
//! starts a session of its own, logs to syslog (ident `fio`, LOG_USER,
//! every line LOG_INFO) with stdin, stdout and stderr on /dev/null, and
//! removes the pid file when it ends. Differs from fio in one place: when
//! the pid file cannot be written, fio's parent exits 1 but leaves its
//! child serving, unnamed; ours ends the child too.

use std::sync::atomic::{AtomicBool, Ordering};

/// Lines go to syslog (the daemon has no terminal).
static SYSLOG: AtomicBool = AtomicBool::new(false);

/// A daemonized server's pid file, removed by [`Daemon::finish`].
pub struct Daemon {
    pidfile: String,
}

/// fio's `atoi`: optional blanks and sign, then digits (0 when none).
fn atoi(s: &[u8]) -> i32 {
    let s = std::str::from_utf8(s).unwrap_or("");
    let t = s.trim_start();
    let (neg, t) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let digits: String = t.chars().take_while(char::is_ascii_digit).collect();
    let v = digits.parse::<i64>().unwrap_or(0) as i32;
    if neg {
        v.wrapping_neg()
    } else {
        v
    }
}

/// fio's `check_existing_pidfile`: a file there that cannot be read, or
/// whose pid answers SIGCONT (or is refused it), means a server is alive.
fn appears_alive(pidfile: &str) -> bool {
    if std::fs::metadata(pidfile).is_err() {
        return false;
    }
    let Ok(mut f) = std::fs::File::open(pidfile) else {
        return false;
    };
    let mut buf = Vec::new();
    use std::io::Read;
    if f.read_to_end(&mut buf).is_err() || buf.is_empty() {
        return true;
    }
    let pid = atoi(&buf);
    // SAFETY: kill sends a signal; no memory is touched.
    if unsafe { libc::kill(pid, libc::SIGCONT) } < 0 {
        return std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH);
    }
    true
}

/// Backgrounds the server. `Ok` in the child, which goes on to serve;
/// `Err(code)` where rfio stops (the parent exits within).
pub fn start(pidfile: &str) -> Result<Daemon, i32> {
    if appears_alive(pidfile) {
        eprintln!("fio: pidfile {pidfile} exists and server appears alive");
        return Err(0);
    }
    use std::io::Write;
    let _ = std::io::stdout().flush();
    // SAFETY: no thread runs yet (the server starts none before this), so
    // the child starts with a consistent heap.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        let e = std::io::Error::last_os_error();
        eprintln!(
            "fio: failed server fork: {}",
            rbench_common::output::strerror(e.raw_os_error().unwrap_or(0))
        );
        return Err(0);
    }
    if pid > 0 {
        parent(pid, pidfile);
    }
    detach();
    Ok(Daemon {
        pidfile: pidfile.to_string(),
    })
}

/// The parent's part: the pid written, or fio's line and exit 1.
fn parent(pid: libc::pid_t, pidfile: &str) -> ! {
    let code = match std::fs::write(pidfile, format!("{pid}\n")) {
        Ok(()) => 0,
        Err(_) => {
            eprintln!("fio: failed opening pid file {pidfile}");
            // SAFETY: our own child, which nobody else knows of.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
                libc::waitpid(pid, std::ptr::null_mut(), 0);
            }
            1
        }
    };
    // SAFETY: end the parent without running exit handlers the child
    // shares.
    unsafe { libc::_exit(code) }
}

/// The child's part: its own session, syslog, stdio on /dev/null.
fn detach() {
    static IDENT: &[u8] = b"fio\0";
    // SAFETY: setsid, openlog with a static NUL-terminated ident, and
    // dup2 of /dev/null over fds 0-2 touch nothing of Rust's.
    unsafe {
        libc::setsid();
        libc::openlog(
            IDENT.as_ptr().cast(),
            libc::LOG_NDELAY | libc::LOG_NOWAIT | libc::LOG_PID,
            libc::LOG_USER,
        );
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR);
        if null >= 0 {
            for fd in 0..3 {
                libc::dup2(null, fd);
            }
            if null > 2 {
                libc::close(null);
            }
        }
    }
    SYSLOG.store(true, Ordering::SeqCst);
}

impl Daemon {
    /// The server ended (not by a fatal signal): the pid file goes.
    pub fn finish(self) {
        let _ = std::fs::remove_file(&self.pidfile);
        // SAFETY: closes the log opened in detach.
        unsafe { libc::closelog() };
    }
}

/// One of the server's lines: to syslog once daemonized, as fio's
/// log_info/log_err, else to stdout (`err`: stderr).
pub fn log(text: &str, err: bool) {
    use std::io::Write;
    if text.is_empty() {
        return;
    }
    if SYSLOG.load(Ordering::SeqCst) {
        let Ok(c) = std::ffi::CString::new(text.replace('\0', "")) else {
            return;
        };
        // SAFETY: a "%s" format with one NUL-terminated string.
        unsafe { libc::syslog(libc::LOG_INFO, c"%s".as_ptr(), c.as_ptr()) };
        return;
    }
    if err {
        let _ = std::io::stderr().write_all(text.as_bytes());
    } else {
        let mut o = std::io::stdout().lock();
        let _ = o.write_all(text.as_bytes()).and_then(|_| o.flush());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pid_text_reads_as_fios_atoi() {
        assert_eq!(atoi(b"1234\n"), 1234);
        assert_eq!(atoi(b"  -5x"), -5);
        assert_eq!(atoi(b"garbage"), 0);
        assert_eq!(atoi(b"+7"), 7);
    }

    #[test]
    fn a_pid_file_is_alive_as_fio_judges_it() {
        let d = std::env::temp_dir().join(format!("rfio-daemon-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let f = d.join("pid");
        let p = f.to_str().unwrap();
        assert!(!appears_alive(p), "no file");
        std::fs::write(&f, "").unwrap();
        assert!(appears_alive(p), "empty: fio's fread fails");
        std::fs::write(&f, format!("{}\n", std::process::id())).unwrap();
        assert!(appears_alive(p), "our own pid");
        // A pid past pid_max names no process.
        std::fs::write(&f, "2147483646\n").unwrap();
        assert!(!appears_alive(p), "dead pid");
        let _ = std::fs::remove_dir_all(&d);
    }
}
