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
}

/// rfio, then fio when it is installed, each labelled with its name: the
/// tools a test runs in turn.
pub fn tools() -> Vec<(&'static str, PathBuf)> {
    ours_then_original("rfio", "rfio", "fio")
}
