//! What fio 3.33's own test material (`tests/fio-suite/run.sh`) found wrong
//! in rfio, each beside the real fio: the null engine above iodepth 1 queues,
//! so it records submission latency (t0016: mean slat + mean clat = mean
//! lat) and counts each I/O issued once; JSON `global options` has a global
//! section's `name=` and the last value of an option set again in a later
//! global section, and a job that set no options of its own has no `job
//! options`; the blockalign= warning is not shown with norandommap; and
//! `--parse-only` runs none of fio's job fixups (no size, directory or
//! blockalign checks), so the examples' placeholder directories parse.
//!
//! Needs `cargo build -p rfio` first (it runs target/debug/rfio).

use std::path::Path;
use std::time::Duration;

use rbench_tests::rfio::Suite;
use rbench_tests::{fio_json_parts, Ran};
use serde_json::Value;

const SUITE: Suite = Suite::new("rbench-rfio-suite-fixes", Duration::from_secs(60));

fn write(d: &Path, name: &str, text: &str) {
    std::fs::write(d.join(name), text).unwrap();
}

/// fio's and ours on the same arguments (each in a fresh directory that
/// `prepare` sets up), or ours alone when fio is not installed.
fn both(args: &[&str], prepare: &dyn Fn(&Path)) -> (Option<Ran>, Ran) {
    match SUITE.both_dropping(args, prepare) {
        Some(((theirs, _d1), (ours, _d2))) => (Some(theirs), ours),
        None => {
            let d = SUITE.scratch("ours");
            prepare(&d);
            (None, SUITE.run_in(&rbench_tests::our_bin("rfio"), &d, args))
        }
    }
}

fn json(r: &Ran) -> Value {
    assert_eq!(r.code, 0, "exit code; stderr: {}", r.stderr);
    fio_json_parts(&r.stdout).1
}

fn mean(v: &Value, key: &str) -> f64 {
    v["jobs"][0]["read"][key]["mean"].as_f64().unwrap()
}

#[test]
fn null_engine_above_depth_one_records_submission_latency() {
    for depth in ["16", "4"] {
        let args = [
            "--name=test",
            "--ioengine=null",
            "--size=1M",
            &format!("--iodepth={depth}"),
            "--output-format=json",
        ];
        let (theirs, ours) = both(&args, &|_| {});
        for (who, r) in [("fio", theirs.as_ref()), ("rfio", Some(&ours))] {
            let Some(r) = r else { continue };
            let v = json(r);
            let (slat, clat, lat) = (mean(&v, "slat_ns"), mean(&v, "clat_ns"), mean(&v, "lat_ns"));
            // t0016's check.
            assert!(
                (slat + clat - lat).abs() <= 1.0,
                "{who} iodepth={depth}: slat {slat} + clat {clat} != lat {lat}"
            );
            let job = &v["jobs"][0];
            assert_eq!(job["read"]["slat_ns"]["N"], 256, "{who}: slat samples");
            assert_eq!(job["read"]["total_ios"], 256, "{who}: total_ios");
            // A busy answer does not count an I/O twice; each goes out alone
            // (fio's null engine answers busy until its completions are reaped).
            assert_eq!(job["iodepth_level"]["1"], 100.0, "{who}: depth levels");
        }
    }
    // Its verify phase reads one by one too (fio's null engine is busy
    // until its completions are reaped).
    let args = [
        "--name=x",
        "--ioengine=null",
        "--iodepth=8",
        "--rw=write",
        "--verify=md5",
        "--size=1m",
        "--output-format=json",
    ];
    let (theirs, ours) = both(&args, &|_| {});
    let v = json(&ours);
    assert_eq!(v["jobs"][0]["read"]["total_ios"], 256);
    assert_eq!(
        v["jobs"][0]["iodepth_level"]["1"], 100.0,
        "{}",
        v["jobs"][0]["iodepth_level"]
    );
    if let Some(t) = theirs {
        assert_eq!(
            v["jobs"][0]["iodepth_level"],
            json(&t)["jobs"][0]["iodepth_level"]
        );
    }
    // At depth 1 it stays synchronous: no submission latency.
    let (theirs, ours) = both(
        &[
            "--name=test",
            "--ioengine=null",
            "--size=1M",
            "--output-format=json",
        ],
        &|_| {},
    );
    for r in theirs.iter().chain([&ours]) {
        let v = json(r);
        assert_eq!(v["jobs"][0]["read"]["slat_ns"]["N"], 0);
    }
}

/// `global options` and each job's `job options` (absent: null).
fn options(r: &Ran) -> (Value, Vec<Value>) {
    let v = json(r);
    let jobs = v["jobs"].as_array().unwrap();
    (
        v["global options"].clone(),
        jobs.iter().map(|j| j["job options"].clone()).collect(),
    )
}

#[test]
fn json_global_and_job_options_match_fio() {
    let files: &[(&str, &str, &str)] = &[
        (
            "name in a global section, an option set twice",
            "[global]\nioengine=null\nsize=1m\nbs=4k\nbs=8k\nname=gname\n\n[a]\nrw=read\n[b]\n",
            r#"{"ioengine":"null","size":"1m","bs":"8k","name":"gname"}"#,
        ),
        (
            "set again in a later global section",
            "[global]\nbs=4k\nioengine=null\nsize=1m\n[global]\nbs=8k\nname=foo\n[a]\n",
            r#"{"bs":"8k","ioengine":"null","size":"1m","name":"foo"}"#,
        ),
        (
            "set twice in a job",
            "[global]\nioengine=null\nsize=1m\n[a]\nrw=read\nbs=1k\nrw=write\n",
            r#"{"ioengine":"null","size":"1m"}"#,
        ),
    ];
    for (what, text, global) in files {
        let (theirs, ours) = both(&["--output-format=json", "job.fio"], &|d| {
            write(d, "job.fio", text)
        });
        let (g, jobs) = options(&ours);
        let want: Value = serde_json::from_str(global).unwrap();
        assert_eq!(g, want, "{what}: global options");
        // Key order too: fio keeps the first place of an option set again.
        assert_eq!(
            g.to_string(),
            want.to_string(),
            "{what}: global options order"
        );
        if let Some(t) = theirs {
            let (tg, tjobs) = options(&t);
            assert_eq!(
                g.to_string(),
                tg.to_string(),
                "{what}: global options vs fio"
            );
            assert_eq!(
                format!("{jobs:?}"),
                format!("{tjobs:?}"),
                "{what}: job options vs fio"
            );
        }
    }
    // `[b]` above set nothing of its own: no `job options` key, and the
    // directions still follow `elapsed`.
    let (_, ours) = both(&["--output-format=json", "job.fio"], &|d| {
        write(d, "job.fio", "[global]\nioengine=null\nsize=64k\n[b]\n")
    });
    let v = json(&ours);
    let keys: Vec<&str> = v["jobs"][0]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys[..6],
        ["jobname", "groupid", "error", "eta", "elapsed", "read"]
    );
}

#[test]
fn blockalign_warning_and_parse_only_fixups_match_fio() {
    const WARN: &str = "fio: Any use of blockalign= turns off randommap\n";
    let cases: &[(&[&str], &str)] = &[
        (&["--rw=randread", "--blockalign=8k", "--norandommap"], ""),
        (&["--rw=randread", "--blockalign=8k"], WARN),
        (&["--rw=randread", "--bs=8k", "--blockalign=4k"], WARN),
        (&["--rw=read", "--blockalign=8k"], ""),
    ];
    for (extra, want) in cases {
        let mut args = vec!["--name=x", "--ioengine=null", "--size=64k"];
        args.extend_from_slice(extra);
        let (theirs, ours) = both(&args, &|_| {});
        assert_eq!(ours.code, 0, "{args:?}: {}", ours.stderr);
        assert_eq!(ours.stderr, *want, "{args:?}: stderr");
        if let Some(t) = theirs {
            assert_eq!(ours.stderr, t.stderr, "{args:?}: stderr vs fio");
        }
        // --parse-only: no fixups, no warning.
        args.insert(0, "--parse-only");
        let (theirs, ours) = both(&args, &|_| {});
        assert_eq!((ours.code, ours.stderr.as_str()), (0, ""), "{args:?}");
        if let Some(t) = theirs {
            assert_eq!((t.code, t.stderr.as_str()), (0, ""), "fio {args:?}");
        }
    }
    // A directory that is not there and a size below the block size fail
    // a run, not a parse.
    for extra in [
        ["--directory=/nonexistent-rbench-dir", "--size=1m"],
        ["--size=1", "--bs=4k"],
    ] {
        let mut args = vec!["--parse-only", "--name=x"];
        args.extend_from_slice(&extra);
        let (theirs, ours) = both(&args, &|_| {});
        assert_eq!(
            (ours.code, ours.stdout.as_str(), ours.stderr.as_str()),
            (0, "", ""),
            "{args:?}"
        );
        if let Some(t) = theirs {
            assert_eq!(
                (t.code, t.stdout.as_str(), t.stderr.as_str()),
                (0, "", ""),
                "fio {args:?}"
            );
        }
        let (theirs, ours) = both(&args[1..], &|_| {});
        assert_eq!(ours.code, 1, "{:?} runs: {}", &args[1..], ours.stderr);
        if let Some(t) = theirs {
            assert_eq!(ours.stderr, t.stderr, "{:?} vs fio", &args[1..]);
        }
    }
}

#[test]
fn io_depths_count_each_commit_at_its_depth() {
    // fio counts the units of a commit at the depth reached with them: the
    // null engine at iodepth_batch=4 commits four at a time, all at depth 4
    // (rfio used to count them at 1, 2, 3 and 4 as each was queued).
    for (depth, batch, want) in [("8", "4", "4"), ("16", "1", "1"), ("8", "8", "8")] {
        let args = [
            "--name=x",
            "--ioengine=null",
            "--size=1M",
            &format!("--iodepth={depth}"),
            &format!("--iodepth_batch={batch}"),
            "--output-format=json",
        ];
        let (theirs, ours) = both(&args, &|_| {});
        let level = |r: &Ran| json(r)["jobs"][0]["iodepth_level"].clone();
        assert_eq!(level(&ours)[want], 100.0, "{args:?}: {}", level(&ours));
        if let Some(t) = theirs {
            assert_eq!(level(&ours), level(&t), "{args:?} vs fio");
        }
    }
}

#[test]
fn io_submit_mode_is_accepted_as_fio_does() {
    // fio's t0013 and two examples use io_submit_mode=offload; rfio runs
    // it inline (the same I/Os). fio itself is only asked to parse: its
    // offload threads can hang (t0010 does here).
    for mode in ["inline", "offload"] {
        let arg = format!("--io_submit_mode={mode}");
        let args = [
            "--parse-only",
            "--name=x",
            "--ioengine=null",
            "--size=1m",
            &arg,
        ];
        let (theirs, ours) = both(&args, &|_| {});
        assert_eq!((ours.code, ours.stderr.as_str()), (0, ""), "{args:?}");
        if let Some(t) = theirs {
            assert_eq!((t.code, t.stderr.as_str()), (0, ""), "fio {args:?}");
        }
        let d = SUITE.scratch("submit-mode");
        let r = SUITE.run_in(
            &rbench_tests::our_bin("rfio"),
            &d,
            &[
                "--name=x",
                "--ioengine=null",
                "--size=16m",
                "--iodepth=16",
                &arg,
                "--output-format=json",
            ],
        );
        let v = json(&r);
        assert_eq!(v["jobs"][0]["read"]["io_kbytes"], 16384, "{mode}");
        assert_eq!(v["jobs"][0]["job options"]["io_submit_mode"], mode);
    }
    let args = ["--parse-only", "--name=x", "--io_submit_mode=bogus"];
    let (theirs, ours) = both(&args, &|_| {});
    assert_eq!(ours.code, 1);
    assert!(
        ours.stderr.contains("failed parsing io_submit_mode=bogus"),
        "{}",
        ours.stderr
    );
    if let Some(t) = theirs {
        assert_eq!(
            (ours.code, &ours.stdout, &ours.stderr),
            (t.code, &t.stdout, &t.stderr)
        );
    }
}

#[test]
fn parse_only_without_jobs_is_no_error() {
    // steadystate_tests.py parses bare global options this way.
    for args in [
        &["--parse-only"][..],
        &[
            "--parse-only",
            "--ss_dur=10s",
            "--ss=iops:10",
            "--ss_ramp=5",
        ][..],
    ] {
        let (theirs, ours) = both(args, &|_| {});
        assert_eq!(
            (ours.code, ours.stdout.as_str(), ours.stderr.as_str()),
            (0, "", ""),
            "{args:?}"
        );
        if let Some(t) = theirs {
            assert_eq!(
                (t.code, t.stdout.as_str(), t.stderr.as_str()),
                (0, "", ""),
                "fio {args:?}"
            );
        }
    }
    // Without --parse-only it still is.
    let (theirs, ours) = both(&["--bs=4k"], &|_| {});
    assert_eq!(ours.code, 1);
    assert!(
        ours.stderr.starts_with("No job(s) defined"),
        "{}",
        ours.stderr
    );
    if let Some(t) = theirs {
        assert_eq!((ours.code, &ours.stderr), (t.code, &t.stderr));
    }
}
