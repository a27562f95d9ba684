//! rfio beside fio 3.33 for flow control (flow_id, flow, flow_sleep),
//! serialize_overlap, max_latency, the latency_target probe and cmdprio
//! (per-I/O priorities and their latency split). The same command lines
//! run with both tools in fresh directories; messages, exit codes, JSON
//! keys and what the numbers must satisfy are compared (ratios within wide
//! bounds where a clock decides them, never durations).

use std::time::Duration;

use rbench_tests::rfio::Suite;
use rbench_tests::{fio_json_parts, mask_numbers, Ran};
use serde_json::Value;

const LIMIT: Duration = Duration::from_secs(120);

const SUITE: Suite = Suite::new("rfio-flow", LIMIT);

/// fio then rfio on the same arguments, each in a fresh directory. `None`
/// when fio is not installed.
fn both(args: &[&str]) -> Option<(Ran, Ran)> {
    SUITE.both_runs(args)
}

fn json(r: &Ran) -> Value {
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    fio_json_parts(&r.stdout).1
}

/// Read I/Os of each job of a JSON report.
fn read_ios(v: &Value) -> Vec<f64> {
    v["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["read"]["total_ios"].as_f64().unwrap())
        .collect()
}

#[test]
fn flow_weights_split_the_ios_as_fios() {
    let args = [
        "--ioengine=null",
        "--size=100g",
        "--runtime=2",
        "--time_based",
        "--flow_id=7",
        "--flow_sleep=100",
        "--output-format=json",
        "--name=light",
        "--flow=1",
        "--name=heavy",
        "--flow=3",
    ];
    let Some((theirs, ours)) = both(&args) else {
        return;
    };
    for (tool, r) in [("fio", &theirs), ("rfio", &ours)] {
        let ios = read_ios(&json(r));
        let ratio = ios[1] / ios[0];
        assert!((2.0..4.0).contains(&ratio), "{tool}: {ios:?}");
    }
}

#[test]
fn a_job_outside_the_flow_is_not_held() {
    // Weight 0 is no flow control at all: the flows' counts never move.
    let args = [
        "--ioengine=null",
        "--size=1m",
        "--output-format=json",
        "--name=a",
        "--flow_id=3",
        "--flow=1",
        "--name=b",
        "--flow_id=3",
    ];
    let Some((theirs, ours)) = both(&args) else {
        return;
    };
    assert_eq!(read_ios(&json(&ours)), read_ios(&json(&theirs)));
}

#[test]
fn flow_out_of_range_is_fios_error() {
    let Some((theirs, ours)) = both(&["--name=x", "--ioengine=null", "--flow=1001"]) else {
        return;
    };
    assert_eq!(ours.code, theirs.code);
    assert_eq!(ours.stderr, theirs.stderr);
    assert!(ours.stderr.contains("1000 max"), "{}", ours.stderr);
}

#[test]
fn serialize_overlap_offload_jobs_all_finish() {
    // t0013 cut short: 8 jobs on the same 4 KiB, their I/Os serialized
    // (each waits for the others': none may starve or deadlock).
    let args = [
        "--name=test",
        "--ioengine=null",
        "--thread=1",
        "--size=4k",
        "--bs=4k",
        "--io_submit_mode=offload",
        "--iodepth=1",
        "--serialize_overlap=1",
        "--numjobs=8",
        "--loops=1000000",
        "--runtime=1",
        "--output-format=json",
    ];
    // fio 3.33's offload jobs can hang at their loops' end (t0013 bounds
    // fio in time for that): a fio that has not ended in 30 s is killed and
    // only rfio is held to the check; rfio must always end.
    let mut runs = Vec::new();
    if let Some(fio) = rbench_tests::original("fio") {
        let dir = SUITE.scratch("fio");
        let child = rbench_tests::spawn_piped(&mut rbench_tests::command_in(&fio, &dir, &args));
        match wait_or_kill(child, Duration::from_secs(30)) {
            Some(out) => runs.push(("fio", String::from_utf8_lossy(&out.stdout).into_owned())),
            None => eprintln!("fio 3.33 hung in its offload mode (killed): rfio checked alone"),
        }
    }
    let dir = SUITE.scratch("rfio");
    let ours = SUITE.run_in(&rbench_tests::our_bin("rfio"), &dir, &args);
    assert_eq!(ours.code, 0, "{}", ours.stderr);
    runs.push(("rfio", ours.stdout));
    for (who, stdout) in runs {
        let ios = read_ios(&fio_json_parts(&stdout).1);
        assert_eq!(ios.len(), 8, "{who}");
        assert!(ios.iter().all(|&n| n > 0.0), "{who}: {ios:?}");
    }
}

/// The child's output once it ends, or None (it is killed) past `limit`.
fn wait_or_kill(mut child: std::process::Child, limit: Duration) -> Option<std::process::Output> {
    let start = std::time::Instant::now();
    while child.try_wait().ok()?.is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().ok()
}

#[test]
fn max_latency_ends_the_job_as_fios() {
    let args = [
        "--name=ml",
        "--ioengine=psync",
        "--rw=write",
        "--bs=4k",
        "--size=256k",
        "--max_latency=1",
        "--filename=ml.dat",
    ];
    let Some((theirs, ours)) = both(&args) else {
        return;
    };
    assert_eq!((ours.code, theirs.code), (1, 1));
    assert_eq!(mask_numbers(&ours.stderr), mask_numbers(&theirs.stderr));
    let err_line = |r: &Ran| {
        r.stdout
            .lines()
            .find(|l| l.starts_with("fio: pid="))
            .map(mask_numbers)
    };
    assert_eq!(err_line(&ours), err_line(&theirs));
    assert!(
        ours.stderr.contains("exceeds specified max (1000 nsec)"),
        "{}",
        ours.stderr
    );
}

#[test]
fn latency_target_ramps_to_the_full_depth_when_it_holds() {
    let args = [
        "--name=lt",
        "--ioengine=null",
        "--rw=randread",
        "--size=16m",
        "--iodepth=16",
        "--latency_target=5s",
        "--latency_window=50ms",
        "--latency_percentile=99.5",
        "--runtime=30",
        "--time_based",
        "--output-format=json",
    ];
    let Some((theirs, ours)) = both(&args) else {
        return;
    };
    let keys = [
        "latency_depth",
        "latency_target",
        "latency_percentile",
        "latency_window",
    ];
    let pick = |v: &Value| keys.map(|k| v["jobs"][0][k].clone());
    let (t, o) = (json(&theirs), json(&ours));
    assert_eq!(pick(&o), pick(&t));
    assert_eq!(o["jobs"][0]["latency_depth"], 16);
    // The probe ends the job long before its runtime.
    assert!(o["jobs"][0]["elapsed"].as_u64().unwrap() < 30);
}

/// libaio on a scratch file, with the options `rest`.
fn prio_args(rest: &[&str]) -> Vec<String> {
    let mut a: Vec<String> = [
        "--name=p",
        "--ioengine=libaio",
        "--size=4m",
        "--filename=p.dat",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    a.extend(rest.iter().map(|s| s.to_string()));
    a
}

/// Each priority's (class, level) and the sum of their sample counts must
/// equal the direction's own count.
fn prios(dir: &Value, key: &str) -> Vec<(u64, u64)> {
    let prios = dir["prios"].as_array().expect("prios");
    let n: u64 = prios.iter().map(|p| p[key]["N"].as_u64().unwrap()).sum();
    assert_eq!(n, dir[key]["N"].as_u64().unwrap());
    prios
        .iter()
        .map(|p| {
            (
                p["prioclass"].as_u64().unwrap(),
                p["prio"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn cmdprio_percentage_splits_the_latencies_as_fios() {
    let a = prio_args(&[
        "--rw=randread",
        "--number_ios=4000",
        "--cmdprio_percentage=50",
    ]);
    let mut a: Vec<&str> = a.iter().map(String::as_str).collect();
    let Some((theirs_normal, ours_normal)) = both(&a) else {
        return;
    };
    a.push("--output-format=json+");
    let Some((theirs, ours)) = both(&a) else {
        return;
    };
    let (t, o) = (json(&theirs), json(&ours));
    let (tr, or) = (&t["jobs"][0]["read"], &o["jobs"][0]["read"]);
    assert_eq!(prios(or, "clat_ns"), prios(tr, "clat_ns"));
    assert_eq!(prios(or, "clat_ns"), vec![(0, 0), (1, 0)]);
    assert!(or["prios"][0]["clat_ns"]["bins"].is_object());
    let lines = |r: &Ran| -> Vec<String> {
        r.stdout
            .lines()
            .filter(|l| l.contains(" prio "))
            // `clat prio 1/0`: the units and shares may differ by a run.
            .map(|l| l.trim().split(" (").next().unwrap().to_string())
            .collect()
    };
    assert_eq!(lines(&ours_normal), lines(&theirs_normal));
    assert_eq!(lines(&ours_normal).len(), 4, "{}", ours_normal.stdout);
}

#[test]
fn cmdprio_bssplit_with_lat_percentiles_as_fios() {
    let a = prio_args(&[
        "--rw=randrw",
        "--number_ios=3000",
        "--bssplit=4k/40:16k/60",
        "--cmdprio_bssplit=4k/25/1/1:4k/75/3/2:16k/0",
        "--lat_percentiles=1",
        "--prioclass=2",
        "--prio=7",
        "--output-format=json+",
    ]);
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let Some((theirs, ours)) = both(&a) else {
        return;
    };
    let (t, o) = (json(&theirs), json(&ours));
    for d in ["read", "write"] {
        let (td, od) = (&t["jobs"][0][d], &o["jobs"][0][d]);
        assert_eq!(prios(od, "lat_ns"), prios(td, "lat_ns"), "{d}");
        assert_eq!(prios(od, "lat_ns"), vec![(2, 7), (1, 1), (3, 2)], "{d}");
    }
}

#[test]
fn cmdprio_conflicts_are_fios_engine_errors() {
    for rest in [
        &["--cmdprio_percentage=10", "--cmdprio_bssplit=4k/10"][..],
        &["--cmdprio_bssplit=4k/60:4k/50"][..],
        &["--cmdprio_bssplit=abc/60"][..],
    ] {
        let a = prio_args(rest);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        let Some((theirs, ours)) = both(&a) else {
            return;
        };
        assert_eq!(ours.code, theirs.code, "{rest:?}");
        assert_eq!(ours.stderr, theirs.stderr, "{rest:?}");
    }
}

#[test]
fn max_latency_is_per_direction_as_fios() {
    // Reads may take 10 s, writes 1 µs: only a write ends the job.
    let args = [
        "--name=ml",
        "--ioengine=psync",
        "--rw=randrw",
        "--bs=4k",
        "--size=256k",
        "--max_latency=10s,1",
        "--filename=ml.dat",
    ];
    let Some((theirs, ours)) = both(&args) else {
        return;
    };
    for r in [&theirs, &ours] {
        assert_eq!(r.code, 1, "{}", r.stderr);
        assert!(
            r.stderr.contains("(1000 nsec)") && r.stderr.contains(" write "),
            "{}",
            r.stderr
        );
    }
}

#[test]
fn cmdprio_priorities_are_logged_per_io_as_fios() {
    let a = prio_args(&[
        "--rw=randread",
        "--cmdprio_percentage=30",
        "--write_lat_log=pl",
        "--log_prio=1",
    ]);
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let Some(((theirs, td), (ours, od))) = SUITE.both_dropping(&a, &|_| {}) else {
        return;
    };
    assert_eq!((ours.code, theirs.code), (0, 0), "{}", ours.stderr);
    // The priorities each tool logged, and how many I/Os had each.
    let prios = |dir: &std::path::Path| {
        let log = std::fs::read_to_string(dir.join("pl_clat.1.log")).unwrap();
        let mut seen: Vec<(String, usize)> = Vec::new();
        for l in log.lines() {
            let p = l.rsplit(", ").next().unwrap().to_string();
            match seen.iter_mut().find(|s| s.0 == p) {
                Some(s) => s.1 += 1,
                None => seen.push((p, 1)),
            }
        }
        seen.sort();
        seen
    };
    let (t, o) = (prios(&td), prios(&od));
    let names = |v: &[(String, usize)]| v.iter().map(|s| s.0.clone()).collect::<Vec<_>>();
    assert_eq!(names(&o), names(&t));
    assert_eq!(names(&o), ["0x0000", "0x2000"]);
    // 30% of 1024 I/Os: the draws differ, the share does not.
    assert!((200..420).contains(&o[1].1), "{o:?}");
}
