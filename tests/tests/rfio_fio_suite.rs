//! fio 3.33's own test material, run with the real fio and with rfio by
//! `tests/fio-suite/run.sh`: t/run-fio-tests.py's job tests, the python
//! runners in t/ (readonly, strided, latency_percentiles, jsonplus2csv,
//! log_compression, steadystate when scipy is there) and `--parse-only` of
//! every examples/*.fio. Every test that passes with fio must pass with
//! ours, except the known differences listed below, each with its reason
//! (so any new regression fails this test).
//!
//! Needs `FIO_SRC` (an unpacked fio 3.33 tree: axboe/fio at tag fio-3.33,
//! never part of this repository), python3 and the original fio on PATH;
//! without `FIO_SRC` the test says so and passes. Only some parts:
//! `PARTS="jobs examples"`. Takes long (the job tests run fio's own
//! time-based jobs twice) and needs about 6 GiB free under the keep
//! directory's file system (t0002 lays out 5 GiB; run.sh deletes each
//! job test's data files before the next). Needs `cargo build -p rfio`
//! first.

use std::process::Command;
use std::time::Duration;

use rbench_tests::fs::temp_dir;
use rbench_tests::{our_bin, run_bounded};

/// Every part, both binaries, one after another.
const LIMIT: Duration = Duration::from_secs(3 * 3600);

/// Tests that pass with fio 3.33 and are known to fail with ours, and why.
/// Remove an entry once ours passes (the test then says so).
const EXPECTED: &[(&str, &str)] = &[
    // t/run-fio-tests.py's job tests.
    // fio reads a number and ignores what follows it (`512/25` is 512);
    // rfio reads it the same and says so in a warning on stderr (the rule
    // for all four tools), and these jobs' checks want an empty stderr:
    (
        "jobs/t0023",
        "bsrange=512/25:1k:25:2k:25:4k/25 runs as fio's 512-1k, with rfio's warning on stderr",
    ),
    ("jobs/t0024", "bsrange=512/25:1k:25:2k:25:4k/25, as t0023"),
];

#[derive(Debug)]
struct Row {
    test: String,
    original: String,
    ours: String,
}

/// `TEST  original:X  ours:Y` lines of run.sh's report.
fn rows(out: &str) -> Vec<Row> {
    out.lines()
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            let test = w.next().filter(|t| t.contains('/'))?;
            let original = w.next()?.strip_prefix("original:")?;
            let ours = w.next()?.strip_prefix("ours:")?;
            Some(Row {
                test: test.to_string(),
                original: original.to_string(),
                ours: ours.to_string(),
            })
        })
        .collect()
}

/// The reason `test` is listed (`RUNNER/*` lists every test of a runner).
fn expected(test: &str) -> Option<&'static str> {
    EXPECTED
        .iter()
        .find(|(t, _)| match t.strip_suffix('*') {
            Some(prefix) => test.starts_with(prefix),
            None => *t == test,
        })
        .map(|(_, why)| *why)
}

#[test]
fn fio_own_suite() {
    if std::env::var_os("FIO_SRC").is_none_or(|s| s.is_empty()) {
        eprintln!(
            "note: FIO_SRC is not set (an unpacked fio 3.33 tree); skipping fio's own test suite"
        );
        return;
    }
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fio-suite/run.sh");
    let keep = temp_dir("rfio-fio-suite", "artifacts");
    let mut cmd = Command::new("bash");
    cmd.arg(&script)
        .arg("--keep")
        .arg(&keep)
        .arg(our_bin("rfio"));
    let out = run_bounded(&mut cmd, LIMIT);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    eprintln!("{stdout}");
    let code = out.status.code();
    assert!(
        matches!(code, Some(0) | Some(1)),
        "run.sh failed to run (exit {code:?}):\n{stdout}\n{stderr}"
    );
    let rows = rows(&stdout);
    if rows.is_empty() {
        // run.sh skips (exit 0, a note) without python3 or a fio tree.
        assert_eq!(
            code,
            Some(0),
            "run.sh reported no tests:\n{stdout}\n{stderr}"
        );
        eprintln!("note: run.sh ran no tests: {}", stdout.trim());
        return;
    }
    let mut failures = Vec::new();
    for r in &rows {
        let passes = r.ours == "PASS";
        match (r.original.as_str(), expected(&r.test)) {
            ("PASS", None) if !passes => {
                failures.push(format!("{} passes with fio 3.33, ours: {}", r.test, r.ours))
            }
            ("PASS", Some(why)) if !passes => {
                eprintln!("expected difference: {} ({why})", r.test)
            }
            (_, Some(_)) if passes && !r.test.ends_with("/runner") => eprintln!(
                "note: {} is listed in EXPECTED but passes with ours now: remove it",
                r.test
            ),
            _ => {}
        }
    }
    assert!(
        failures.is_empty(),
        "{} test(s) of fio's suite fail with ours (outputs kept in {}):\n{}",
        failures.len(),
        keep.display(),
        failures.join("\n")
    );
    let _ = std::fs::remove_dir_all(&keep);
}

#[test]
fn expected_list_has_reasons_and_no_duplicates() {
    let mut seen = std::collections::HashSet::new();
    for (t, why) in EXPECTED {
        assert!(t.contains('/') && !why.is_empty(), "{t}: {why}");
        assert!(seen.insert(*t), "{t} listed twice");
    }
    assert!(expected("strided/3").is_none());
    assert!(expected("steadystate/parse4").is_none());
    assert!(expected("steadystate/job1").is_none());
    assert!(expected("jobs/t0007").is_none());
    assert!(expected("jobs/t0011").is_none());
    assert!(expected("jobs/t0023").is_some());
    assert!(expected("jobs/t0001").is_none());
    assert!(expected("examples/null.fio").is_none());
}
