//! sysbench 1.0.20's own cram suite (`tests/t/*.t`), run file by file with
//! the real sysbench and with rsysbench by `tests/sysbench-suite/run.sh`:
//! every file that passes with the original must pass with ours, except the
//! expected differences listed below, each with its reason.
//!
//! Needs `SYSBENCH_SRC` (an unpacked sysbench 1.0.20 tree: akopytov/sysbench
//! at tag 1.0.20, never part of this repository), `cram` (`pip install
//! cram==0.7`) and the original sysbench on PATH; without `SYSBENCH_SRC` the
//! test says so and passes. The database files run when
//! `RBENCH_MYSQL_ARGS`/`RBENCH_PGSQL_ARGS` are set (`eval "$(tests/db/servers.sh
//! env DIR)"`) or `RBENCH_SUITE_DB=1`; otherwise they skip themselves. Only
//! some files: `FILES="cmdline opt_version"`. Needs `cargo build -p
//! rsysbench` first.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use rbench_tests::fs::temp_dir;
use rbench_tests::{our_bin, run_bounded};

/// The whole suite, both binaries, one file after another (the database
/// files take most of it).
const LIMIT: Duration = Duration::from_secs(3600);

/// Files that pass with sysbench 1.0.20 and are known to fail with ours,
/// and why. Remove an entry once ours passes (the test then says so).
const EXPECTED: &[(&str, &str)] = &[];

#[derive(Debug)]
struct Row {
    file: String,
    original: String,
    ours: String,
}

/// `FILE  original:X  ours:Y` lines of run.sh's report.
fn rows(out: &str) -> Vec<Row> {
    out.lines()
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            let file = w.next().filter(|f| f.ends_with(".t"))?;
            let original = w.next()?.strip_prefix("original:")?;
            let ours = w.next()?.strip_prefix("ours:")?;
            Some(Row {
                file: file.to_string(),
                original: original.to_string(),
                ours: ours.to_string(),
            })
        })
        .collect()
}

fn expected(file: &str) -> Option<&'static str> {
    EXPECTED
        .iter()
        .find(|(f, _)| *f == file)
        .map(|(_, why)| *why)
}

/// The first lines of a kept diff, for the failure message.
fn diff_head(keep: &Path, file: &str) -> String {
    let p = keep.join("ours").join(format!("{file}.diff"));
    match std::fs::read_to_string(&p) {
        Ok(s) => {
            let mut head: Vec<&str> = s.lines().take(40).collect();
            if s.lines().count() > 40 {
                head.push("  ...");
            }
            head.join("\n")
        }
        Err(e) => format!("(no diff at {}: {e})", p.display()),
    }
}

#[test]
fn sysbench_cram_suite() {
    if std::env::var_os("SYSBENCH_SRC").is_none_or(|s| s.is_empty()) {
        eprintln!(
            "note: SYSBENCH_SRC is not set (an unpacked sysbench 1.0.20 tree); \
             skipping sysbench's cram suite"
        );
        return;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("sysbench-suite/run.sh");
    let keep = temp_dir("rsysbench-suite", "diffs");
    let mut cmd = Command::new("bash");
    cmd.arg(&script).arg("--keep").arg(&keep);
    let db = ["RBENCH_MYSQL_ARGS", "RBENCH_PGSQL_ARGS"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|s| !s.is_empty()));
    if db {
        cmd.arg("--db");
    }
    cmd.arg(our_bin("rsysbench"));
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
        // run.sh skips (exit 0, a note) without cram or a sysbench tree.
        assert_eq!(
            code,
            Some(0),
            "run.sh reported no files:\n{stdout}\n{stderr}"
        );
        eprintln!("note: run.sh ran no files: {}", stdout.trim());
        return;
    }

    let mut failures = Vec::new();
    for r in &rows {
        let passes = r.ours == "PASS";
        match (r.original.as_str(), expected(&r.file)) {
            ("PASS", None) if !passes => failures.push(format!(
                "{} passes with sysbench 1.0.20, ours: {}\n{}",
                r.file,
                r.ours,
                diff_head(&keep, &r.file)
            )),
            ("PASS", Some(why)) if !passes => {
                eprintln!("expected difference: {} ({why})", r.file)
            }
            (_, Some(_)) if passes => eprintln!(
                "note: {} is listed in EXPECTED but passes with ours now: remove it",
                r.file
            ),
            _ => {}
        }
    }
    assert!(
        failures.is_empty(),
        "{} file(s) of sysbench's suite fail with ours (diffs kept in {}):\n\n{}",
        failures.len(),
        keep.display(),
        failures.join("\n\n")
    );
    let _ = std::fs::remove_dir_all(&keep);
}
