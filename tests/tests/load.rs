//! Load (issue 8): rfio with `numjobs=64` and `iodepth=64` on io_uring and
//! on libaio completes with correct totals (every job moves its `size`, the
//! group 64 x size, as fio 3.33 on the same job), and rsysbench with 1,024
//! threads completes cpu (`--events=N` gives exactly N) and mutex (one event
//! per thread, as sysbench defines it) runs, as sysbench 1.0.20 does. Each
//! run is bounded in time; the wall times are printed (`--nocapture`), never
//! asserted.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use rbench_tests::fs::TempDir;
use rbench_tests::{original, our_bin, ours_then_original, run_drained};
use serde_json::Value;

const LIMIT: Duration = Duration::from_secs(300);

/// Run `bin args` in `dir`; exit status 0 and stdout as JSON (fio's own
/// notes before the document skipped), with the wall time.
fn run_json(bin: &Path, dir: &Path, args: &[&str]) -> (Value, Duration) {
    let t = Instant::now();
    let out = run_drained(Command::new(bin).args(args).current_dir(dir), LIMIT);
    let wall = t.elapsed();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{bin:?} {args:?}: {}\n{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc = stdout.find('{').map_or("", |i| &stdout[i..]);
    let v = serde_json::from_str(doc).unwrap_or_else(|e| panic!("not JSON ({e}):\n{stdout}"));
    (v, wall)
}

const JOBS: u64 = 64;
const SIZE: u64 = 1 << 20;

/// numjobs=64 x iodepth=64 on `engine`: each job's bytes, the group's, as
/// fio on the same job.
fn rfio_64_jobs_64_deep(engine: &str) {
    let engine_arg = format!("--ioengine={engine}");
    let args = |rw: &'static str, grouped: bool| {
        let mut a = vec![
            "--name=load".to_string(),
            engine_arg.clone(),
            format!("--rw={rw}"),
            "--bs=4k".into(),
            format!("--size={SIZE}"),
            format!("--numjobs={JOBS}"),
            "--iodepth=64".into(),
            "--output-format=json".into(),
        ];
        if grouped {
            a.push("--group_reporting".into());
        }
        a
    };
    let tools = ours_then_original("rfio", "rfio", "fio");
    let mut totals = Vec::new();
    for (who, bin) in &tools {
        let dir = TempDir::new("rbench-load", &format!("{who}-{engine}"));
        let mut seen = Vec::new();
        for (rw, key) in [("randwrite", "write"), ("randread", "read")] {
            // Per job: 64 entries, each with exactly `size` bytes.
            let a = args(rw, false);
            let a: Vec<&str> = a.iter().map(String::as_str).collect();
            let (v, wall) = run_json(bin, &dir, &a);
            let jobs = v["jobs"].as_array().expect("jobs");
            assert_eq!(jobs.len() as u64, JOBS, "{who} {engine} {rw}");
            for j in jobs {
                assert_eq!(j["error"], 0, "{who} {engine} {rw}: {j}");
                assert_eq!(
                    j[key]["io_bytes"], SIZE,
                    "{who} {engine} {rw}: {}",
                    j["jobname"]
                );
                assert_eq!(j[key]["total_ios"], SIZE / 4096, "{who} {engine} {rw}");
                assert_eq!(j["job options"]["iodepth"], "64", "{who}");
            }
            let sum: u64 = jobs
                .iter()
                .filter_map(|j| j[key]["io_bytes"].as_u64())
                .sum();
            eprintln!(
                "{who} {engine} {rw}: {} jobs x iodepth 64, {sum} bytes in {:.2} s wall",
                jobs.len(),
                wall.as_secs_f64()
            );
            // Grouped: one entry holding the 64 jobs' sum.
            let a = args(rw, true);
            let a: Vec<&str> = a.iter().map(String::as_str).collect();
            let (g, wall) = run_json(bin, &dir, &a);
            let jobs = g["jobs"].as_array().expect("jobs");
            assert_eq!(jobs.len(), 1, "{who} {engine} {rw} group_reporting");
            assert_eq!(jobs[0][key]["io_bytes"], JOBS * SIZE, "{who} {engine} {rw}");
            assert_eq!(
                jobs[0][key]["total_ios"],
                JOBS * SIZE / 4096,
                "{who} {engine}"
            );
            eprintln!(
                "{who} {engine} {rw} group_reporting: {} bytes in {:.2} s wall",
                jobs[0][key]["io_bytes"],
                wall.as_secs_f64()
            );
            seen.push((
                sum,
                jobs[0][key]["io_bytes"].clone(),
                jobs[0][key]["io_kbytes"].clone(),
            ));
        }
        // Only the jobs' files were written: load.N.0, one per clone.
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .expect("read_dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        let mut want: Vec<String> = (0..JOBS).map(|n| format!("load.{n}.0")).collect();
        want.sort();
        assert_eq!(names, want, "{who}");
        totals.push(seen);
    }
    if totals.len() == 2 {
        assert_eq!(
            totals[0], totals[1],
            "rfio, then fio: per-job sums and group totals"
        );
    }
}

#[test]
fn rfio_64_jobs_64_deep_on_io_uring() {
    rfio_64_jobs_64_deep("io_uring");
}

#[test]
fn rfio_64_jobs_64_deep_on_libaio() {
    rfio_64_jobs_64_deep("libaio");
}

/// Run a sysbench command line with `bin`; the total events and, from the
/// text report, the per-thread events (avg/stddev) line.
fn sysbench_events(bin: &Path, args: &[&str]) -> (u64, String, Duration) {
    let t = Instant::now();
    let out = run_drained(Command::new(bin).args(args), LIMIT);
    let wall = t.elapsed();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{bin:?} {args:?}:\n{text}");
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.trim().strip_prefix(name))
            .map(|v| v.trim().to_string())
            .unwrap_or_else(|| panic!("no `{name}` in:\n{text}"))
    };
    let events = field("total number of events:").parse().expect("events");
    (events, field("events (avg/stddev):"), wall)
}

#[test]
fn rsysbench_cpu_with_1024_threads_runs_exactly_the_events_asked() {
    const EVENTS: u64 = 20_000;
    let events = format!("--events={EVENTS}");
    let args = [
        "cpu",
        "--threads=1024",
        "--time=0",
        &events,
        "--cpu-max-prime=200",
        "run",
    ];
    let (ours, _, wall) = sysbench_events(&our_bin("rsysbench"), &args);
    eprintln!(
        "rsysbench cpu, 1024 threads: {ours} events in {:.2} s wall",
        wall.as_secs_f64()
    );
    assert_eq!(ours, EVENTS);
    // The JSON report agrees, thread by thread.
    let json_args = [&args[..5], &["--output-format=json", "run"]].concat();
    let out = run_drained(Command::new(our_bin("rsysbench")).args(&json_args), LIMIT);
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["total_events"], EVENTS);
    let threads = v["per_thread"].as_array().expect("per_thread");
    assert_eq!(threads.len(), 1024);
    let sum: u64 = threads.iter().filter_map(|t| t["events"].as_u64()).sum();
    assert_eq!(sum, EVENTS, "per-thread events add up to the total");
    if let Some(sb) = original("sysbench") {
        let (theirs, _, wall) = sysbench_events(&sb, &args);
        eprintln!(
            "sysbench cpu, 1024 threads: {theirs} events in {:.2} s wall",
            wall.as_secs_f64()
        );
        assert_eq!(theirs, EVENTS);
    }
}

#[test]
fn rsysbench_mutex_with_1024_threads_runs_one_event_per_thread() {
    // sysbench's mutex test: each thread runs one event of --mutex-locks
    // lock/unlock rounds, so 1,024 threads make exactly 1,024 events.
    let args = [
        "mutex",
        "--threads=1024",
        "--mutex-locks=2000",
        "--mutex-loops=100",
        "--time=0",
        "run",
    ];
    let (ours, fairness, wall) = sysbench_events(&our_bin("rsysbench"), &args);
    eprintln!(
        "rsysbench mutex, 1024 threads: {ours} events in {:.2} s wall",
        wall.as_secs_f64()
    );
    assert_eq!(ours, 1024);
    assert_eq!(fairness, "1.0000/0.00");
    let json_args = [&args[..5], &["--output-format=json", "run"]].concat();
    let out = run_drained(Command::new(our_bin("rsysbench")).args(&json_args), LIMIT);
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["total_events"], 1024);
    let threads = v["per_thread"].as_array().expect("per_thread");
    assert_eq!(threads.len(), 1024);
    assert!(
        threads.iter().all(|t| t["events"] == 1),
        "one event per thread"
    );
    if let Some(sb) = original("sysbench") {
        let (theirs, fairness, wall) = sysbench_events(&sb, &args);
        eprintln!(
            "sysbench mutex, 1024 threads: {theirs} events in {:.2} s wall",
            wall.as_secs_f64()
        );
        assert_eq!(theirs, 1024);
        assert_eq!(fairness, "1.0000/0.00");
    }
}
