//! rfio beside fio 3.33 on zones: `zonemode=strided` with zonesize,
//! zonerange and zoneskip (sequential, random, mixed, holes, several block
//! sizes, io_size past the zones, loops, time_based, two files, lfsr), the
//! same I/Os in the same order from the latency logs and the same totals
//! from JSON; `random_distribution=zoned_abs` (and zoned) parsing errors
//! and the share of I/Os its zones get; fio's errors for bad zone options.
//!
//! Needs `cargo build -p rfio` first (it runs target/debug/rfio).

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use rbench_tests::fs::TempDir;
use rbench_tests::{original, our_bin, run_bounded};
use serde_json::Value;

const LIMIT: Duration = Duration::from_secs(60);

/// Strided jobs compared I/O by I/O (64 KiB unless said, 4 KiB blocks
/// unless said, null engine unless said).
const STRIDED: &[&[&str]] = &[
    &["--rw=read", "--zonesize=8k", "--zonerange=16k"],
    &[
        "--rw=read",
        "--zonesize=8k",
        "--zonerange=16k",
        "--zoneskip=8k",
        "--io_size=128k",
    ],
    // fio strides a negative skip as a positive one.
    &["--rw=write", "--zonesize=8k", "--zoneskip=-4k"],
    // zonesize over zonerange: the zone is read again from its start.
    &["--rw=read", "--zonesize=12k", "--zonerange=8k"],
    &["--rw=rw", "--zonesize=8k", "--zonerange=16k"],
    &["--rw=read:4k", "--zonesize=8k", "--zonerange=32k"],
    &[
        "--rw=read",
        "--size=256k",
        "--bsrange=4k-16k",
        "--zonesize=30k",
        "--zonerange=64k",
    ],
    // zoneskip in zones: N zone sizes under strided.
    &["--rw=read", "--zonesize=8k", "--zoneskip=1z"],
    // fio's percentage marker: a range past any file.
    &["--rw=read", "--zonesize=8k", "--zonerange=10%"],
    &["--rw=randread", "--zonesize=8k", "--zonerange=16k"],
    &["--rw=randread", "--zonesize=32k", "--zonerange=16k"],
    // Zones past the file's end end it early.
    &[
        "--rw=randrw",
        "--zonesize=8k",
        "--zonerange=16k",
        "--zoneskip=4k",
    ],
    &[
        "--rw=randread",
        "--zonesize=8k",
        "--zonerange=16k",
        "--io_size=256k",
    ],
    &[
        "--rw=randread",
        "--bsrange=4k-8k",
        "--zonesize=8k",
        "--zonerange=16k",
    ],
    &[
        "--rw=randread",
        "--zonesize=8k",
        "--zonerange=16k",
        "--loops=2",
    ],
    &[
        "--rw=randread",
        "--zonesize=8k",
        "--zonerange=16k",
        "--random_generator=lfsr",
    ],
    &[
        "--rw=randread",
        "--zonesize=8k",
        "--zonerange=16k",
        "--percentage_random=50",
    ],
    &[
        "--rw=randrw",
        "--size=256k",
        "--zonesize=32k",
        "--zonerange=64k",
        "--norandommap",
    ],
    // fio's zipf/pareto/normal span the whole file, zones or not.
    &[
        "--rw=randread",
        "--size=256k",
        "--zonesize=32k",
        "--zonerange=64k",
        "--random_distribution=zipf:1.2",
    ],
    &[
        "--rw=randread",
        "--zonesize=8k",
        "--zonerange=16k",
        "--random_distribution=pareto:0.3",
    ],
    &[
        "--rw=randrw",
        "--size=256k",
        "--zonesize=32k",
        "--zonerange=64k",
        "--random_distribution=zoned:50/10:50/90",
    ],
    // The second zone reaches past the zone range: fio ends the file there.
    &[
        "--rw=randread",
        "--size=256k",
        "--zonesize=32k",
        "--zonerange=64k",
        "--random_distribution=zoned_abs:90/16k:10/128k",
    ],
    &[
        "--rw=randread",
        "--size=256k",
        "--bssplit=4k/50:16k/50",
        "--zonesize=32k",
        "--zonerange=64k",
    ],
    &[
        "--rw=randwrite",
        "--size=1m",
        "--zonesize=64k",
        "--zonerange=256k",
        "--zoneskip=128k",
        "--random_generator=tausworthe64",
    ],
    &[
        "--rw=randread",
        "--zonesize=8k",
        "--zonerange=16k",
        "--numjobs=2",
    ],
    // Two files: one byte count for both, a zone start per file.
    &[
        "--rw=randrw",
        "--size=128k",
        "--zonesize=16k",
        "--zonerange=32k",
        "--nrfiles=2",
    ],
    &[
        "--rw=read",
        "--zonesize=8k",
        "--zonerange=16k",
        "--nrfiles=2",
    ],
    // Sizes and offsets in zones of zonesize.
    &["--rw=read", "--size=4z", "--zonesize=8k"],
    &["--rw=read", "--io_size=3z", "--zonesize=8k"],
    &[
        "--ioengine=psync",
        "--rw=randread",
        "--offset=1z",
        "--zonesize=8k",
        "--zonerange=16k",
    ],
    // Real files from an offset on.
    &[
        "--ioengine=psync",
        "--rw=read",
        "--zonesize=8k",
        "--zonerange=16k",
        "--offset=4k",
    ],
    &[
        "--ioengine=psync",
        "--rw=randwrite",
        "--zonesize=8k",
        "--zonerange=16k",
        "--zoneskip=4k",
        "--offset=8k",
    ],
];

/// Per job and direction: (job name, total_ios, io_bytes) from JSON, and
/// every logged I/O as `job: direction,length,offset`.
struct Run {
    totals: Vec<(String, u64, u64)>,
    ios: Vec<String>,
}

/// One run of all `jobs` side by side (fio's start-up costs most of a
/// small run): job i is `z{i}`, on the null engine over 64 KiB with 4 KiB
/// blocks unless it says otherwise.
fn run(bin: &Path, dir: &Path, jobs: &[Vec<&str>]) -> Run {
    let mut cmd = Command::new(bin);
    // The report goes to a file: 30 jobs' JSON would fill the pipe.
    cmd.args(["--output-format=json", "--output=out.json"])
        .args(["--zonemode=strided", "--bs=4k"])
        .args(["--write_lat_log=z", "--log_offset=1"])
        .args(["--ioengine=null", "--size=64k"])
        .current_dir(dir);
    for (i, job) in jobs.iter().enumerate() {
        cmd.arg(format!("--name=z{i}")).args(job);
    }
    let out = run_bounded(&mut cmd, LIMIT);
    assert!(
        out.status.success(),
        "{bin:?} {jobs:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = std::fs::read(dir.join("out.json")).expect("report");
    // fio's error lines from a job go into the file too when jobs are
    // threads (rfio's always are): the report starts at its `{`.
    let at = report.iter().position(|&b| b == b'{').unwrap_or(0);
    let v: Value = serde_json::from_slice(&report[at..]).expect("JSON report");
    let reported = v["jobs"].as_array().expect("jobs");
    let name = |j: &Value| j["jobname"].as_str().unwrap_or("?").to_string();
    let totals = reported
        .iter()
        .flat_map(|j| {
            ["read", "write", "trim"].map(|d| {
                let n = |k: &str| j[d][k].as_u64().expect(k);
                (format!("{} {d}", name(j)), n("total_ios"), n("io_bytes"))
            })
        })
        .collect();
    let mut ios = Vec::new();
    for (k, j) in reported.iter().enumerate() {
        let log =
            std::fs::read_to_string(dir.join(format!("z_lat.{}.log", k + 1))).expect("latency log");
        ios.extend(log.lines().map(|l| {
            let row = l.split(", ").skip(2).take(3).collect::<Vec<_>>();
            format!("{} ({:?}): {}", name(j), jobs.get(k), row.join(","))
        }));
    }
    Run { totals, ios }
}

/// Both runs of `jobs`, fio's first (None without fio).
fn both(jobs: &[Vec<&str>], tag: &str) -> Option<(Run, Run)> {
    let fio = original("fio")?;
    let (a, b) = (
        TempDir::new("rfio-zones", &format!("{tag}fio")),
        TempDir::new("rfio-zones", &format!("{tag}rfio")),
    );
    Some((
        run(&fio, a.path(), jobs),
        run(&our_bin("rfio"), b.path(), jobs),
    ))
}

#[test]
fn strided_zones_issue_fios_ios() {
    let jobs: Vec<Vec<&str>> = STRIDED.iter().map(|j| j.to_vec()).collect();
    let Some((theirs, ours)) = both(&jobs, "s") else {
        return;
    };
    for t in theirs.totals.chunks(3) {
        assert!(t.iter().any(|d| d.1 > 0), "{t:?}: fio did no I/O");
    }
    assert_eq!(
        ours.totals, theirs.totals,
        "(ios, bytes) per job and direction"
    );
    if let Some(at) =
        (0..ours.ios.len().min(theirs.ios.len())).find(|&k| ours.ios[k] != theirs.ios[k])
    {
        panic!(
            "I/O {at} differs (direction, length, offset): rfio {} fio {}",
            ours.ios[at], theirs.ios[at]
        );
    }
    assert_eq!(ours.ios.len(), theirs.ios.len(), "logged I/Os");
}

/// time_based: the run's length is the clock's, so the I/Os both logged
/// first are compared (fio starts each round over, reseeded, where a zone
/// ends the file).
#[test]
fn time_based_zones_go_round_as_fio() {
    let jobs: &[&[&str]] = &[
        &[
            "--rw=read",
            "--zonesize=16k",
            "--zonerange=32k",
            "--zoneskip=8k",
        ],
        &[
            "--rw=randrw",
            "--zonesize=16k",
            "--zonerange=32k",
            "--zoneskip=8k",
        ],
    ];
    for (i, job) in jobs.iter().enumerate() {
        let job: Vec<&str> = job
            .iter()
            .copied()
            .chain(["--time_based", "--runtime=200ms", "--thinktime=500us"])
            .collect();
        let Some((theirs, ours)) = both(std::slice::from_ref(&job), &format!("t{i}")) else {
            return;
        };
        let n = ours.ios.len().min(theirs.ios.len());
        assert!(n >= 20, "{job:?}: {n} I/Os logged");
        assert_eq!(ours.ios[..n], theirs.ios[..n], "{job:?}");
    }
}

/// stdout (of a run that failed before any report: a report's numbers
/// vary), stderr and exit code of `args` on the null engine.
fn outcome(bin: &Path, dir: &Path, args: &[&str]) -> (String, String, Option<i32>) {
    let out = run_bounded(
        Command::new(bin)
            .args(["--name=z", "--ioengine=null", "--size=64k", "--rw=randread"])
            .arg("--output-format=json")
            .args(args)
            .current_dir(dir),
        LIMIT,
    );
    let stdout = if out.status.success() || out.stdout.starts_with(b"{") {
        String::new()
    } else {
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    (
        stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code(),
    )
}

#[test]
fn bad_zone_options_fail_as_fio() {
    let Some(fio) = original("fio") else {
        return;
    };
    let cases: &[&[&str]] = &[
        // zonesize needs zonemode=strided (the default is none).
        &["--zonesize=8k"],
        &["--zonemode=none", "--zonesize=8k", "--zonerange=16k"],
        &["--zonemode=strided", "--zonerange=16k"],
        &["--zonemode=strided", "--zonesize=0"],
        &["--zonemode=strided", "--zonesize=1z"],
        &["--zonemode=strided", "--zonesize=8k", "--zonerange=2z"],
        &["--zonemode=strided", "--zonesize=8k", "--zoneskip=z"],
        &["--zonemode=bogus"],
        &["--max_open_zones=4097"],
        // `Nz` outside size/io_size/offset/offset_increment/zoneskip.
        &["--bs=2z"],
        &["--runtime=2z"],
        &["--rwmixread=5z"],
        &["--percentage_random=5z"],
        &["--size=xz"],
        &["--offset=4kz"],
        // Without a zone size, zones are 0 bytes: no size at all.
        &["--size=2z"],
        &["--offset=1z", "--io_size=1z"],
        &["--read_beyond_wp=2"],
        // Accepted and without effect outside zonemode=zbd.
        &["--zonemode=none", "--zonerange=16k", "--zoneskip=8k"],
        &[
            "--zonecapacity=4k",
            "--max_open_zones=8",
            "--ignore_zone_limits=1",
        ],
        &["--random_distribution=zoned_abs"],
        &["--random_distribution=zoned"],
        &["--random_distribution=zoned_abs:60/16k:30/48k"],
        &["--random_distribution=zoned_abs:60/16k:50/48k"],
        &["--random_distribution=zoned_abs:60/x"],
        &["--random_distribution=zoned_abs:x/16k"],
        &["--random_distribution=zoned_abs:60k/16k"],
        &["--random_distribution=zoned_abs:50/16k:50/16k,100/32k"],
        &["--random_distribution=zoned:60/50:40/60"],
        &["--random_distribution=zoned:60/10:30/90"],
        // A zone past the file: fio says so and ends the file.
        &["--random_distribution=zoned_abs:100/128k"],
        &["--random_distribution=zoned_abs:60/16k:40"],
        &["--random_distribution=zoned:60:40"],
    ];
    for (i, args) in cases.iter().enumerate() {
        let (a, b) = (
            TempDir::new("rfio-zones", &format!("e{i}fio")),
            TempDir::new("rfio-zones", &format!("e{i}rfio")),
        );
        let theirs = outcome(&fio, a.path(), args);
        let ours = outcome(&our_bin("rfio"), b.path(), args);
        assert_eq!(ours, theirs, "{args:?}: (stdout, stderr, exit code)");
    }
}

/// zoned_abs:80/128k:20/896k over 1 MiB: the first zone gets its share of
/// the I/Os in both (the generators differ, the shape is the same).
#[test]
fn zoned_abs_gives_each_zone_its_share() {
    let Some(fio) = original("fio") else {
        return;
    };
    let job = [
        "--name=z",
        "--ioengine=null",
        "--size=1m",
        "--rw=randread",
        "--random_distribution=zoned_abs:80/128k:20/896k",
        "--write_lat_log=z",
        "--log_offset=1",
        "--output-format=json",
    ];
    for (bin, tag) in [(fio, "fio"), (our_bin("rfio"), "rfio")] {
        let d = TempDir::new("rfio-zones", &format!("abs{tag}"));
        let out = run_bounded(Command::new(&bin).args(job).current_dir(d.path()), LIMIT);
        assert!(out.status.success(), "{tag}");
        let v: Value = serde_json::from_slice(&out.stdout).expect("JSON report");
        assert_eq!(v["jobs"][0]["read"]["io_bytes"], 1 << 20, "{tag}");
        let log = std::fs::read_to_string(d.path().join("z_lat.1.log")).expect("log");
        let offsets: Vec<u64> = log
            .lines()
            .filter_map(|l| l.split(", ").nth(4)?.parse().ok())
            .collect();
        assert_eq!(offsets.len(), 256, "{tag}");
        let first = offsets.iter().filter(|&&o| o < 128 << 10).count();
        // 80% of the draws go there (fio 3.33 put 212 of 256 there).
        assert!((180..=240).contains(&first), "{tag}: {first} of 256");
    }
}

#[test]
fn zone_options_cmdhelp_is_fios() {
    let Some(fio) = original("fio") else {
        return;
    };
    let d = TempDir::new("rfio-zones", "cmdhelp");
    for name in [
        "zonemode",
        "zonesize",
        "zonerange",
        "zoneskip",
        "zonecapacity",
        "read_beyond_wp",
        "max_open_zones",
        "job_max_open_zones",
        "ignore_zone_limits",
        "zone_reset_threshold",
        "zone_reset_frequency",
        "random_distribution",
    ] {
        let arg = format!("--cmdhelp={name}");
        let out = |bin: &Path| {
            let o = run_bounded(Command::new(bin).arg(&arg).current_dir(d.path()), LIMIT);
            String::from_utf8_lossy(&o.stdout).into_owned()
        };
        let theirs = out(&fio);
        assert!(theirs.contains(name), "{theirs}");
        assert_eq!(out(&our_bin("rfio")), theirs, "{arg}");
    }
}
