//! rfio's `submitters=N` extension (one job, several submitter threads,
//! one report) and `filesize=lo-hi` sizes beside fio 3.33.
//!
//! No test here times anything: the speed of submitters is measured with
//! `tests/compare.sh rfio-null-submitters-2`.
//!
//! Needs `cargo build -p rfio` first (it runs target/debug/rfio).

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use rbench_tests::rfio::Suite;
use rbench_tests::{command_in, original, our_bin, run_bounded};
use serde_json::Value;

const LIMIT: Duration = Duration::from_secs(60);

const SUITE: Suite = Suite::new("rfio-perf-features", LIMIT);

/// Run a tool in `dir`; stdout, after checking it exited 0.
fn run_ok(bin: &Path, dir: &Path, args: &[&str]) -> String {
    rbench_tests::run_ok(&mut command_in(bin, dir, args), LIMIT)
}

fn rfio_json(dir: &Path, args: &[&str]) -> Value {
    let mut all = vec!["--output-format=json"];
    all.extend_from_slice(args);
    let out = run_ok(&our_bin("rfio"), dir, &all);
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("not JSON ({e}):\n{out}"))
}

/// (jobs in the report, bytes read+written, ios read+written, issued ios
/// per the depth map's total) of a JSON report.
fn moved(v: &Value) -> (usize, u64, u64) {
    let jobs = v["jobs"].as_array().expect("jobs array");
    let j = &jobs[0];
    let sum = |key: &str| {
        ["read", "write"]
            .iter()
            .map(|d| j[*d][key].as_u64().expect("counter"))
            .sum::<u64>()
    };
    (jobs.len(), sum("io_bytes"), sum("total_ios"))
}

/// A size-bound job moves the same bytes in the same number of I/Os with
/// two submitters as with one, and is still one job in the report whose
/// I/O count holds both threads' (each thread covers only half the region).
fn same_work_with_two_submitters(dir: &Path, job: &[&str]) {
    let with = |n: &str| {
        let mut a = job.to_vec();
        let arg = format!("--submitters={n}");
        a.push(&arg);
        moved(&rfio_json(dir, &a))
    };
    let one = with("1");
    let two = with("2");
    assert_eq!(one.0, 1, "{job:?}");
    assert_eq!(two, one, "{job:?}: (jobs, bytes, ios) with 2 submitters");
    assert!(two.1 > 0, "{job:?} moved nothing");
}

#[test]
fn submitters_move_the_same_bytes_null_engine() {
    let d = SUITE.scratch("null");
    same_work_with_two_submitters(
        &d,
        &[
            "--name=job",
            "--ioengine=null",
            "--rw=randread",
            "--bs=4k",
            "--size=64m",
        ],
    );
    // Fewer I/Os than submitters.
    same_work_with_two_submitters(
        &d,
        &[
            "--name=job",
            "--ioengine=null",
            "--rw=read",
            "--size=1m",
            "--number_ios=1",
        ],
    );
    // A size that is not a multiple of the submitters' block split, and
    // io_size beyond the region (the region is revisited).
    same_work_with_two_submitters(
        &d,
        &[
            "--name=job",
            "--ioengine=null",
            "--rw=read",
            "--bs=4k",
            "--size=1236k",
            "--io_size=3m",
        ],
    );
}

#[test]
fn submitters_move_the_same_bytes_on_files() {
    let d = SUITE.scratch("files");
    for engine in ["psync", "io_uring", "libaio"] {
        let e = format!("--ioengine={engine}");
        same_work_with_two_submitters(
            &d,
            &[
                "--name=job",
                &e,
                "--rw=randwrite",
                "--bs=4k",
                "--iodepth=4",
                "--nrfiles=2",
                "--size=8m",
            ],
        );
        same_work_with_two_submitters(
            &d,
            &[
                "--name=job",
                &e,
                "--rw=read",
                "--bs=16k",
                "--iodepth=3",
                "--size=4m",
                "--number_ios=77",
            ],
        );
    }
}

/// Every block of the file is written once with two submitters: the
/// threads split the region, they do not overlap.
#[test]
fn submitters_split_the_region() {
    let d = SUITE.scratch("split");
    let v = rfio_json(
        &d,
        &[
            "--name=job",
            "--filename=data",
            "--ioengine=psync",
            "--rw=randwrite",
            "--bs=4k",
            "--size=1m",
            "--submitters=2",
            "--buffer_pattern=0xab",
        ],
    );
    assert_eq!(moved(&v), (1, 1 << 20, 256));
    let data = std::fs::read(d.join("data")).expect("read data file");
    assert_eq!(data.len(), 1 << 20);
    assert!(
        data.iter().all(|&b| b == 0xab),
        "some block was not written"
    );
}

/// The normal report has one job block, and `--cmdhelp` says what the
/// option is.
#[test]
fn submitters_report_one_job_and_are_documented() {
    let d = SUITE.scratch("report");
    let out = run_ok(
        &our_bin("rfio"),
        &d,
        &[
            "--name=job",
            "--ioengine=null",
            "--rw=read",
            "--size=4m",
            "--submitters=2",
        ],
    );
    assert_eq!(out.matches("job: (groupid=").count(), 1, "{out}");
    assert!(out.contains("jobs=1"), "{out}");
    let help = run_ok(&our_bin("rfio"), &d, &["--cmdhelp=submitters"]);
    assert!(help.contains("rbench extension"), "{help}");
    let bad = run_bounded(
        Command::new(our_bin("rfio")).current_dir(&*d).args([
            "--name=job",
            "--ioengine=null",
            "--size=4m",
            "--submitters=0",
        ]),
        LIMIT,
    );
    assert!(!bad.status.success(), "submitters=0 accepted");
}

/// (size, name) of every file in `dir`, sorted by name.
fn sizes(dir: &Path) -> Vec<(String, u64)> {
    let mut v: Vec<(String, u64)> = std::fs::read_dir(dir)
        .expect("read dir")
        .map(|e| {
            let e = e.expect("dir entry");
            let len = e.metadata().expect("metadata").len();
            (e.file_name().to_string_lossy().into_owned(), len)
        })
        .collect();
    v.sort();
    v
}

/// `filesize=lo-hi` gives each file the size fio 3.33 gives it.
#[test]
fn filesize_range_sizes_match_fio() {
    let cases: &[&[&str]] = &[
        &[
            "--name=job",
            "--nrfiles=4",
            "--filesize=1m-4m",
            "--rw=write",
        ],
        &[
            "--name=job",
            "--nrfiles=3",
            "--filesize=100k-10m",
            "--rw=write",
            "--bs=64k",
            "--numjobs=3",
        ],
        &[
            "--name=job",
            "--nrfiles=4",
            "--filesize=1m-4m",
            "--rw=write",
            "--randseed=1234",
        ],
        &[
            "--name=job",
            "--nrfiles=2",
            "--filesize=1m-4m",
            "--rw=write",
            "--random_generator=tausworthe64",
        ],
    ];
    for args in cases {
        let ours = SUITE.scratch("fs-ours");
        run_ok(&our_bin("rfio"), &ours, args);
        let got = sizes(&ours);
        let lo_hi = args
            .iter()
            .find_map(|a| a.strip_prefix("--filesize="))
            .and_then(|r| r.split_once('-'))
            .expect("range");
        let mib = |s: &str| s.trim_end_matches(['m', 'k']).parse::<u64>().expect("n");
        let unit = |s: &str| if s.ends_with('m') { 1 << 20 } else { 1 << 10 };
        let (lo, hi) = (mib(lo_hi.0) * unit(lo_hi.0), mib(lo_hi.1) * unit(lo_hi.1));
        for (name, len) in &got {
            assert!((lo - 65536..=hi).contains(len), "{args:?}: {name} {len}");
        }
        let Some(fio) = original("fio") else {
            continue;
        };
        let theirs = SUITE.scratch("fs-fio");
        run_ok(&fio, &theirs, args);
        assert_eq!(got, sizes(&theirs), "{args:?}");
    }
}

/// A file that already has a size inside the range keeps it (fio draws no
/// size for it), as fio does.
#[test]
fn filesize_keeps_an_existing_in_range_file() {
    let args = [
        "--name=job",
        "--nrfiles=3",
        "--filesize=1m-4m",
        "--rw=write",
    ];
    let prepare = |d: &Path| {
        std::fs::write(d.join("job.0.1"), vec![0u8; 2_000_000]).expect("write file");
    };
    let ours = SUITE.scratch("keep-ours");
    prepare(&ours);
    run_ok(&our_bin("rfio"), &ours, &args);
    let got = sizes(&ours);
    assert_eq!(got[1], ("job.0.1".to_string(), 2_000_000));
    if let Some(fio) = original("fio") {
        let theirs = SUITE.scratch("keep-fio");
        prepare(&theirs);
        run_ok(&fio, &theirs, &args);
        assert_eq!(got, sizes(&theirs));
    }
}

/// A job that runs out of work with fewer I/Os in flight than
/// `iodepth_batch_complete_min` still ends (it waited forever for
/// completions that could not come), with fio's I/O count.
#[test]
fn complete_min_above_what_is_left_ends() {
    let d = SUITE.scratch("complete-min");
    for engine in ["--ioengine=io_uring", "--ioengine=libaio"] {
        let args = [
            "--name=job",
            engine,
            "--rw=randread",
            "--size=1m",
            "--iodepth=8",
            "--iodepth_batch_complete_min=8",
            "--number_ios=5",
        ];
        assert_eq!(moved(&rfio_json(&d, &args)).2, 5, "{args:?}");
    }
}
