//! rmbw under faults (issue 8): SIGTERM mid-run, memory that cannot be
//! allocated (a size too large, an address-space limit, with threads), and
//! a reader that closes stdout. Each checks the exit status against mbw
//! 1.2.2 where mbw has one, that JSON/CSV output is complete for what ran,
//! and is bounded in time. SIGINT mid-run is in `rmbw.rs`.

use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

use rbench_tests::{original, our_bin, run_bounded, spawn_piped};
use serde_json::Value;

const LIMIT: Duration = Duration::from_secs(60);
const NO_MEMORY: &str = "Error allocating memory: Cannot allocate memory\n";

/// Run `bin` under `sh` with an address-space limit of `kib`.
fn limited(bin: &Path, kib: u64, args: &[&str]) -> Output {
    let mut c = Command::new("sh");
    c.arg("-c")
        .arg(format!("ulimit -v {kib} && exec \"$0\" \"$@\""))
        .arg(bin)
        .args(args);
    run_bounded(&mut c, LIMIT)
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Start a long run, send `signal` after a while, return what it printed.
fn signalled(args: &[&str], signal: &str) -> Output {
    let child = spawn_piped(Command::new(our_bin("rmbw")).args(args));
    rbench_tests::await_handler(child.id(), signal, LIMIT);
    std::thread::sleep(Duration::from_millis(700));
    rbench_tests::send_signal(signal, &child.id().to_string());
    // Drain while waiting: the results can outgrow a pipe's buffer.
    rbench_tests::wait_output_bounded(child, LIMIT)
}

#[test]
fn sigterm_mid_run_keeps_json_and_csv_complete() {
    // mbw dies on SIGTERM without a word; rmbw stops after the current copy
    // and reports what ran, exiting 128 + 15 as a shell would show.
    let o = signalled(
        &["--output-format=json", "-n", "2147483647", "-t0", "16"],
        "TERM",
    );
    assert_eq!(o.status.code(), Some(143), "{}", text(&o.stderr));
    let v: Value = serde_json::from_slice(&o.stdout).expect("one JSON document after SIGTERM");
    let results = v["results"].as_array().expect("results");
    assert!(results.len() >= 2, "{v}");
    let last = results.last().expect("a result");
    assert_eq!(last["run"], "AVG");
    assert!(last["mib_per_s"].as_f64() > Some(0.0), "{last}");
    assert!(results[..results.len() - 1]
        .iter()
        .all(|r| r["method"] == "MEMCPY" && r["elapsed_s"].as_f64() > Some(0.0)));

    let o = signalled(
        &["--output-format=csv", "-n", "2147483647", "-t2", "16"],
        "TERM",
    );
    assert_eq!(o.status.code(), Some(143));
    let out = text(&o.stdout);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "method,run,elapsed_s,mib,mib_per_s,threads");
    assert!(lines.len() >= 3, "{out}");
    assert!(lines.iter().all(|l| l.split(',').count() == 6), "{out}");
    assert!(lines[lines.len() - 1].starts_with("MCBLOCK,AVG,"), "{out}");
}

#[test]
fn a_size_that_cannot_be_allocated_is_mbws_error_in_every_format() {
    let bin = our_bin("rmbw");
    // 10^9 MiB: no machine has it.
    let o = run_bounded(
        Command::new(&bin).args(["-q", "-n", "1", "--output-format=json", "1000000000"]),
        LIMIT,
    );
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(text(&o.stderr), NO_MEMORY);
    let v: Value = serde_json::from_slice(&o.stdout).expect("one JSON document");
    assert_eq!(v["array_size_mib"], 1_000_000_000u64);
    assert_eq!(v["results"].as_array().map(Vec::len), Some(0), "{v}");

    let o = run_bounded(
        Command::new(&bin).args(["-q", "-n", "1", "--output-format=csv", "1000000000"]),
        LIMIT,
    );
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(text(&o.stderr), NO_MEMORY);
    assert_eq!(
        text(&o.stdout),
        "method,run,elapsed_s,mib,mib_per_s,threads\n"
    );
}

#[test]
fn an_address_space_limit_fails_cleanly_as_mbw() {
    // 150 MiB arrays (300 MiB for two) under a 200 MB address-space limit.
    let bin = our_bin("rmbw");
    let ours = limited(&bin, 200_000, &["-q", "-n", "1", "150"]);
    assert_eq!(ours.status.code(), Some(1), "{}", text(&ours.stderr));
    assert!(
        text(&ours.stderr).ends_with(NO_MEMORY),
        "{}",
        text(&ours.stderr)
    );
    assert!(!text(&ours.stderr).contains("panicked"));
    if let Some(mbw) = original("mbw") {
        let theirs = limited(&mbw, 200_000, &["-q", "-n", "1", "150"]);
        assert_eq!(theirs.status.code(), Some(1));
        assert_eq!(text(&theirs.stderr), NO_MEMORY);
        assert_eq!(text(&ours.stdout), text(&theirs.stdout));
    }

    // Two threads each allocating their own arrays: one of them fails.
    let o = limited(
        &bin,
        400_000,
        &[
            "-q",
            "-n",
            "1",
            "--threads=2",
            "--output-format=json",
            "150",
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    assert!(text(&o.stderr).ends_with(NO_MEMORY), "{}", text(&o.stderr));
    let v: Value = serde_json::from_slice(&o.stdout).expect("one JSON document");
    assert_eq!(v["threads"], 2);
    assert_eq!(v["results"].as_array().map(Vec::len), Some(0), "{v}");
}

/// Run `bin -n 100000 8` with its stdout closed from the start; return
/// how it ended and its stderr.
fn with_stdout_closed(bin: &Path) -> (std::process::ExitStatus, String) {
    let mut child = spawn_piped(Command::new(bin).args(["-n", "100000", "8"]));
    drop(child.stdout.take());
    let o = rbench_tests::wait_output_bounded(child, LIMIT);
    (o.status, text(&o.stderr))
}

#[test]
fn a_closed_stdout_ends_the_run_as_it_ends_mbw() {
    // `rmbw ... | head -1`: like a C program, killed by SIGPIPE, no panic.
    let (status, err) = with_stdout_closed(&our_bin("rmbw"));
    assert_eq!(status.signal(), Some(13), "{status:?}: {err}");
    assert!(
        !err.contains("panicked") && !err.contains("Broken pipe"),
        "{err}"
    );
    if let Some(mbw) = original("mbw") {
        let (theirs, _) = with_stdout_closed(&mbw);
        assert_eq!(theirs.signal(), status.signal());
    }
}
