//! A closed stdout (`tool --help | head -1`) must never make a tool panic:
//! the originals die quietly of SIGPIPE there.

use rbench_tests::{our_bin, run_bounded};
use std::process::Command;
use std::time::Duration;

#[test]
fn help_and_version_into_a_closed_pipe_do_not_panic() {
    for tool in ["rmbw", "rsysbench", "riperf", "rfio"] {
        let bin = our_bin(tool);
        for arg in ["--help", "--version"] {
            // `true` exits at once; after the pause the tool writes into a pipe
            // with no reader and gets EPIPE.
            let script = format!("(sleep 0.2; '{}' {arg}) | true", bin.display());
            let out = run_bounded(
                Command::new("sh").arg("-c").arg(&script),
                Duration::from_secs(20),
            );
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(
                !stderr.contains("panicked"),
                "{tool} {arg} panicked on a closed pipe:\n{stderr}"
            );
        }
    }
}
