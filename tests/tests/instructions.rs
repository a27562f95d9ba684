//! Where the original defines the work, ours does the same instructions:
//! `valgrind --tool=callgrind` counts them (deterministic, unlike time).
//! The work is isolated by difference: two runs that differ only in how
//! much of it they do (events of `cpu`, passes of mbw's element loop), so
//! start-up, option parsing and reporting cancel out.
//!
//! - rsysbench cpu vs sysbench 1.0.20: instructions per event within 1%;
//! - rmbw's element loop (-t1) vs mbw 1.2.2's (its -t0): instructions per
//!   copied element within 1%.
//!
//! valgrind is required under RBENCH_REQUIRE_ORIGINALS=1 (tests/run
//! installs it); otherwise a missing valgrind skips with a note.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use rbench_tests::{on_threads, original, our_bin, run_bounded};

const LIMIT: Duration = Duration::from_secs(240);

/// Instructions callgrind collected running `bin args`.
fn instructions(valgrind: &Path, bin: &Path, args: &[&str]) -> u64 {
    let dir = std::env::temp_dir().join(format!(
        "rbench-callgrind-{}-{}",
        std::process::id(),
        bin.file_name().unwrap().to_string_lossy()
    ));
    let _ = std::fs::create_dir_all(&dir);
    let out_file = dir.join(format!("cg.{}", args.join("_").replace('/', "")));
    let o = run_bounded(
        Command::new(valgrind)
            .arg("--tool=callgrind")
            .arg(format!("--callgrind-out-file={}", out_file.display()))
            .arg(bin)
            .args(args)
            .current_dir(&dir),
        LIMIT,
    );
    let _ = std::fs::remove_dir_all(&dir);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        o.status.success(),
        "callgrind {} {args:?}: {err}",
        bin.display()
    );
    let line = err
        .lines()
        .find(|l| l.contains("Collected :"))
        .unwrap_or_else(|| panic!("no instruction count in: {err}"));
    line.rsplit(' ')
        .next()
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("bad count line: {line}"))
}

fn valgrind() -> Option<std::path::PathBuf> {
    original("valgrind")
}

/// (ours, theirs) per unit of work, from `small` and `large` runs.
fn per_unit(vg: &Path, pair: [(&Path, Vec<&str>, Vec<&str>); 2], units: f64) -> Vec<f64> {
    on_threads(&pair, |(bin, small, large)| {
        let a = instructions(vg, bin, small);
        let b = instructions(vg, bin, large);
        (b.saturating_sub(a)) as f64 / units
    })
}

#[test]
fn rsysbench_cpu_event_is_sysbenchs_instruction_count() {
    let (Some(vg), Some(sb)) = (valgrind(), original("sysbench")) else {
        eprintln!("note: valgrind or sysbench missing: instruction counts not compared");
        return;
    };
    let ours = our_bin("rsysbench");
    let run = |n: &'static str| vec!["cpu", "--threads=1", "--time=0", n, "run"];
    let per_event = per_unit(
        &vg,
        [
            (ours.as_path(), run("--events=10"), run("--events=30")),
            (sb.as_path(), run("--events=10"), run("--events=30")),
        ],
        20.0,
    );
    let ratio = per_event[0] / per_event[1];
    eprintln!(
        "cpu instructions per event: rsysbench {:.0}, sysbench {:.0}, ratio {ratio:.4}",
        per_event[0], per_event[1]
    );
    assert!(
        (ratio - 1.0).abs() < 0.01,
        "rsysbench cpu does {ratio:.4}x sysbench's instructions per event"
    );
}

#[test]
fn rmbw_element_loop_is_mbws_instruction_count() {
    let (Some(vg), Some(mbw)) = (valgrind(), original("mbw")) else {
        eprintln!("note: valgrind or mbw missing: instruction counts not compared");
        return;
    };
    let ours = our_bin("rmbw");
    // 4 MiB arrays: 524288 elements; two more passes of the element loop.
    // mbw 1.2.2 runs that loop for -t0 (under its MEMCPY label, spec mbw
    // §3); rmbw runs it for -t1 (DUMB), as the label says.
    let ours_run = |n: &'static str| vec!["-q", "-t1", "-n", n, "4"];
    let mbw_run = |n: &'static str| vec!["-q", "-t0", "-n", n, "4"];
    let per_element = per_unit(
        &vg,
        [
            (ours.as_path(), ours_run("1"), ours_run("3")),
            (mbw.as_path(), mbw_run("1"), mbw_run("3")),
        ],
        2.0 * 524_288.0,
    );
    let ratio = per_element[0] / per_element[1];
    eprintln!(
        "DUMB instructions per element: rmbw {:.3}, mbw {:.3}, ratio {ratio:.4}",
        per_element[0], per_element[1]
    );
    assert!(
        (ratio - 1.0).abs() < 0.01,
        "rmbw's element loop does {ratio:.4}x mbw's instructions per element"
    );
}
