//! What the rfio test files share: each names its scratch-directory prefix
//! and its time bound once, as a [`Suite`], and runs fio 3.33 and rfio
//! through it, alone ([`Suite::run_in`]) or side by side on the same
//! arguments ([`Suite::both`]).
//!
//! ```ignore
//! const SUITE: Suite = Suite::new("rfio-logs", Duration::from_secs(60));
//! let d = SUITE.temp_dir("plot");
//! let r = SUITE.run_in(&our_bin("rfio"), &d, &["--name=p", "--size=8m"]);
//! ```

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::fs::{self, TempDir};
use crate::{dropping_dirs, ours_then_original, run_in_dir, run_pair, Ran};

/// One test file's prefix for its scratch directories
/// (`<tmp>/<prefix>-<pid>-<n>-<tag>`) and the bound on each run.
pub struct Suite {
    pub prefix: &'static str,
    pub limit: Duration,
}

impl Suite {
    pub const fn new(prefix: &'static str, limit: Duration) -> Suite {
        Suite { prefix, limit }
    }

    /// A fresh, empty directory for one run, kept for the test to compare
    /// (the first call of a process removes what earlier runs left).
    pub fn temp_dir(&self, tag: &str) -> PathBuf {
        fs::temp_dir(self.prefix, tag)
    }

    /// A fresh, empty directory removed on drop (also when a test fails).
    pub fn scratch(&self, tag: &str) -> TempDir {
        TempDir::new(self.prefix, tag)
    }

    /// `bin args` in `dir`, stdin closed, killed past the limit.
    pub fn run_in(&self, bin: &Path, dir: &Path, args: &[&str]) -> Ran {
        run_in_dir(bin, dir, args, self.limit)
    }

    /// fio, then rfio, on the same arguments, each in its own fresh
    /// directory (kept) that `prepare` sets up first; each run with its
    /// directory. `None` when fio is not installed.
    pub fn both(
        &self,
        args: &[&str],
        prepare: &dyn Fn(&Path),
    ) -> Option<((Ran, PathBuf), (Ran, PathBuf))> {
        run_pair("fio", "rfio", self.prefix, args, prepare, self.limit)
    }

    /// [`Suite::both`], each directory removed on drop.
    pub fn both_dropping(
        &self,
        args: &[&str],
        prepare: &dyn Fn(&Path),
    ) -> Option<((Ran, TempDir), (Ran, TempDir))> {
        self.both(args, prepare).map(dropping_dirs)
    }

    /// fio's run and rfio's on the same arguments, each in a fresh
    /// directory removed once both ran. `None` when fio is not installed.
    pub fn both_runs(&self, args: &[&str]) -> Option<(Ran, Ran)> {
        let ((theirs, _), (ours, _)) = self.both_dropping(args, &|_| {})?;
        Some((theirs, ours))
    }
}

/// rfio, then fio when it is installed, each labelled with its name: the
/// tools a test runs in turn.
pub fn tools() -> Vec<(&'static str, PathBuf)> {
    ours_then_original("rfio", "rfio", "fio")
}

/// A free loopback TCP port (taken and released at once).
pub fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    l.local_addr().expect("addr").port()
}

/// A `--server` (fio's or rfio's) on a loopback port, killed when dropped.
pub struct Server {
    pub child: std::process::Child,
    pub port: u16,
}

impl Server {
    pub fn start(bin: &Path) -> Server {
        Server::start_with(bin, &[], None)
    }

    /// With more server options; its stderr to `stderr` when given. A port
    /// taken between the probe and the bind: another is tried.
    pub fn start_with(bin: &Path, extra: &[String], stderr: Option<&Path>) -> Server {
        use std::process::{Command, Stdio};
        for _ in 0..5 {
            let port = free_port();
            let err = match stderr {
                Some(p) => Stdio::from(std::fs::File::create(p).expect("stderr file")),
                None => Stdio::null(),
            };
            let child = Command::new(bin)
                .arg(format!("--server=127.0.0.1,{port}"))
                .args(extra)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(err)
                .spawn()
                .expect("spawn server");
            let mut s = Server { child, port };
            if crate::wait_for(Duration::from_secs(10), || {
                crate::tcp_listening(port) || s.child.try_wait().ok().flatten().is_some()
            }) && s.alive()
                && crate::tcp_listening(port)
            {
                return s;
            }
        }
        panic!("{} --server did not start listening", bin.display());
    }

    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// The client's `--client=` argument for this server.
    pub fn host(&self) -> String {
        format!("--client=127.0.0.1,{}", self.port)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The header of rfio's exact cluster-percentile block (printed after
/// fio's `All clients` block by rfio's client).
pub const CLUSTER: &str = "All clients: exact percentiles over every host's I/Os (rfio):";

/// A client's output without rfio's exact-percentile block (its header
/// and the indented lines after it): the lines fio's client prints too.
pub fn fio_lines_only(s: &str) -> String {
    let mut out = String::new();
    let mut skip = false;
    for l in s.split_inclusive('\n') {
        if l.starts_with(CLUSTER) {
            skip = true;
            continue;
        }
        if skip && l.starts_with(' ') {
            continue;
        }
        skip = false;
        out.push_str(l);
    }
    out
}
