//! rfio beside fio 3.33 on random jobs with the random map on, and without
//! one (norandommap, zipf/pareto/normal, lfsr): more than
//! one block size (bsrange, bssplit, a bs per direction), mixed jobs with
//! one block size, several files (one map per file, one generator; every
//! file_service_type), percentage_random, `:N`, clones,
//! and random_generator=lfsr (no map then): the
//! same I/Os in the same order, with the same (possibly shortened) lengths,
//! and the job ends where fio's ends (fio ends `bs=4k,16k` randrw early, so
//! does rfio).
//!
//! Needs `cargo build -p rfio` first (it runs target/debug/rfio).

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use rbench_tests::fs::TempDir;
use rbench_tests::{original, our_bin, run_bounded};
use serde_json::Value;

const LIMIT: Duration = Duration::from_secs(120);

/// The jobs compared; each runs on the null engine.
const JOBS: &[&[&str]] = &[
    &["--rw=randread", "--size=64m", "--bsrange=4k-16k"],
    &["--rw=randread", "--size=64m", "--bssplit=4k/50:64k/50"],
    &["--rw=randrw", "--size=64m", "--bs=4k,16k"],
    &[
        "--rw=randread",
        "--size=64m",
        "--bsrange=4k-16k",
        "--randseed=7",
    ],
    &["--rw=randrw", "--size=32m", "--bssplit=4k/30:16k/70"],
    &[
        "--rw=randwrite",
        "--size=16m",
        "--bsrange=4k-16k",
        "--random_generator=tausworthe64",
    ],
    &[
        "--rw=randrw",
        "--size=16m",
        "--bsrange=4k-16k",
        "--randrepeat=0",
        "--randseed=9",
    ],
    &[
        "--rw=randread",
        "--size=8m",
        "--bsrange=4k-16k",
        "--loops=2",
    ],
    &["--rw=randrw", "--size=16m", "--bs=4k"],
    &["--rw=randrw", "--size=16m", "--bs=4k", "--rwmixread=70"],
    &["--rw=randread", "--size=16m", "--bs=4k", "--nrfiles=2"],
    &["--rw=randrw", "--size=16m", "--bs=4k", "--nrfiles=3"],
    &["--rw=randtrim", "--size=8m", "--bs=4k", "--filename=a:b"],
    &[
        "--rw=randread",
        "--size=16m",
        "--bsrange=4k-16k",
        "--nrfiles=2",
    ],
    &[
        "--rw=randread",
        "--size=16m",
        "--bs=4k",
        "--nrfiles=2",
        "--file_service_type=sequential",
    ],
    &[
        "--rw=randwrite",
        "--size=16m",
        "--bs=4k",
        "--nrfiles=2",
        "--file_service_type=roundrobin:3",
    ],
    &[
        "--rw=randrw",
        "--size=8m",
        "--bs=4k",
        "--nrfiles=2",
        "--loops=2",
    ],
    &[
        "--rw=randread",
        "--size=16m",
        "--bs=8k",
        "--nrfiles=3",
        "--io_size=40m",
        "--random_generator=tausworthe64",
    ],
    &[
        "--rw=randrw",
        "--size=16m",
        "--bsrange=4k-16k",
        "--nrfiles=3",
    ],
    &["--rw=randrw", "--size=16m", "--bs=4k,8k", "--nrfiles=2"],
    &[
        "--rw=randrw",
        "--size=16m",
        "--bs=4k",
        "--nrfiles=3",
        "--file_service_type=random",
    ],
    &[
        "--rw=randrw",
        "--size=16m",
        "--bssplit=4k/50:16k/50",
        "--nrfiles=4",
        "--file_service_type=random:2",
        "--loops=2",
    ],
    &[
        "--rw=randrw",
        "--size=8m",
        "--bs=4k",
        "--nrfiles=2",
        "--randseed=4",
        "--loops=2",
    ],
    &[
        "--rw=randread",
        "--size=8m",
        "--bsrange=4k-8k",
        "--randseed=3",
        "--loops=2",
    ],
    &[
        "--rw=randread",
        "--size=4m",
        "--bsrange=4k-8k",
        "--numjobs=2",
        "--randseed=3",
    ],
    &[
        "--rw=randread",
        "--size=16m",
        "--bs=4k",
        "--percentage_random=50",
    ],
    &[
        "--rw=randrw",
        "--size=16m",
        "--bs=4k",
        "--percentage_random=30",
        "--random_generator=tausworthe64",
    ],
    &[
        "--rw=randrw",
        "--size=12m",
        "--bsrange=4k-16k",
        "--percentage_random=50,70",
        "--nrfiles=3",
    ],
    &[
        "--rw=randread",
        "--size=12m",
        "--bs=4k",
        "--percentage_random=50",
        "--nrfiles=3",
        "--file_service_type=random",
    ],
    &[
        "--rw=randrw",
        "--size=16m",
        "--bssplit=4k/50:16k/50",
        "--percentage_random=80",
        "--nrfiles=2",
        "--file_service_type=roundrobin:3",
        "--loops=2",
    ],
    &[
        "--rw=randtrim",
        "--size=16m",
        "--bs=4k",
        "--percentage_random=25",
        "--filename=a:b",
    ],
    &[
        "--rw=randread",
        "--size=4m",
        "--bsrange=4k-16k",
        "--percentage_random=50",
    ],
    &["--rw=randtrimwrite", "--size=4m", "--bsrange=4k-16k"],
    // One direction, but fio's map counts the read blocks (rw_min_bs).
    &["--rw=randwrite", "--size=5000k", "--bs=4k,8k"],
    // fio's atoi: 4k is 4, 0 never takes a random offset.
    &["--rw=randread:4k", "--size=4m", "--bs=4k"],
    &[
        "--rw=randread:0",
        "--size=4m",
        "--bsrange=4k-8k",
        "--nrfiles=2",
    ],
    &["--rw=randwrite:3", "--size=4m", "--bsrange=4k-16k"],
    // 4m over 3 files: fio's files keep size/3 unrounded and the job
    // moves all of it (1024 I/Os); one file of 2001k ends at its end.
    &[
        "--rw=randread",
        "--size=4m",
        "--bs=4k",
        "--nrfiles=3",
        "--percentage_random=50",
    ],
    &["--rw=randread:2", "--size=4m", "--bs=4k", "--nrfiles=3"],
    // A file ending early (the last 16k block lies past 3001k): io_size
    // starts another round, as fio's keep_running.
    &[
        "--rw=randread:5",
        "--size=3001k",
        "--bs=16k",
        "--io_size=2m",
        "--random_distribution=normal:15",
    ],
    // Null-engine filesize= files: size/nrfiles inside the range stays,
    // a clone's offset comes off the file's size.
    &[
        "--rw=randread",
        "--size=3m",
        "--bsrange=4k-8k",
        "--filesize=1m-2m",
        "--nrfiles=2",
    ],
    &[
        "--rw=randwrite",
        "--size=3m",
        "--bsrange=4k-8k",
        "--filesize=1m-2m",
        "--offset_increment=256k",
        "--numjobs=2",
    ],
    // Null-engine files start at the job's offset (a percentage of their
    // size, aligned up), clones further by offset_increment.
    &[
        "--rw=randread",
        "--size=4m",
        "--bs=4k",
        "--offset=10%",
        "--offset_increment=5%",
        "--numjobs=2",
        "--nrfiles=3",
    ],
    &[
        "--rw=randread",
        "--size=2001k",
        "--bs=4k",
        "--percentage_random=50",
    ],
    &[
        "--rw=randrw:8",
        "--size=4m",
        "--bs=4k",
        "--nrfiles=2",
        "--file_service_type=random",
        "--loops=2",
    ],
];

/// `random_generator=lfsr` (fio's LFSR per file, no random map): one file
/// and several, loops, clones, percentage_random, norandommap; the last I/O
/// goes out whole past `size` as fio's. And clones of a job with randseed
/// (fio seeds them from slot 6).
const LFSR_JOBS: &[&[&str]] = &[
    &["--rw=randread", "--size=4m", "--bs=4k"],
    &[
        "--rw=randrw",
        "--size=6m",
        "--bsrange=4k-16k",
        "--nrfiles=3",
    ],
    &[
        "--rw=randread",
        "--size=4m",
        "--bs=4k",
        "--nrfiles=2",
        "--loops=2",
    ],
    &["--rw=randwrite", "--size=8m", "--bssplit=4k/50:64k/50"],
    &["--rw=randread", "--size=4m", "--bs=4k", "--numjobs=3"],
    &[
        "--rw=randrw",
        "--size=4m",
        "--bs=4k",
        "--percentage_random=50",
        "--nrfiles=2",
        "--file_service_type=random",
    ],
    &["--rw=randread", "--size=4m", "--bs=8k", "--norandommap"],
    &["--rw=randread:4", "--size=4m", "--bs=4k"],
    &[
        "--rw=randread",
        "--size=4m",
        "--bs=4k",
        "--numjobs=2",
        "--randseed=3",
        "--loops=2",
    ],
];

/// Random jobs without a map: norandommap, blockalign, zipf/pareto/normal/zoned offsets
/// (with a center), the non-uniform file services (the map on: a full
/// file starts over), clones with randseed.
const NOMAP_JOBS: &[&[&str]] = &[
    // A distribution's last range lies past the file: under a non-uniform
    // file service fio starts the file over and draws a file again.
    &[
        "--rw=randwrite",
        "--size=4m",
        "--bs=4k",
        "--random_distribution=zipf:0.9",
        "--nrfiles=3",
        "--file_service_type=normal",
    ],
    &[
        "--rw=randread",
        "--size=4m",
        "--bs=4k",
        "--random_distribution=zoned:60/10:30/20:10/70",
    ],
    &[
        "--rw=randrw",
        "--size=8m",
        "--bsrange=4k-16k",
        "--nrfiles=2",
        "--random_distribution=zoned_abs:60/1m:40/3m",
    ],
    &[
        "--rw=randrw",
        "--size=4m",
        "--bsrange=4k-16k",
        "--blockalign=2k",
        "--nrfiles=2",
    ],
    &[
        "--rw=randread",
        "--size=4m",
        "--bs=4k",
        "--blockalign=1k",
        "--random_distribution=zipf",
    ],
    &[
        "--rw=randread",
        "--size=4m",
        "--bs=4k",
        "--random_distribution=zipf:1.2",
    ],
    &[
        "--rw=randrw",
        "--size=4m",
        "--bsrange=4k-16k",
        "--nrfiles=2",
        "--random_distribution=pareto:0.3",
    ],
    &[
        "--rw=randwrite",
        "--size=4m",
        "--bs=4k",
        "--random_distribution=normal:10:0.3",
        "--percentage_random=50",
    ],
    &[
        "--rw=randread",
        "--size=4m",
        "--bs=4k",
        "--numjobs=2",
        "--randseed=5",
        "--random_distribution=zipf",
    ],
    &[
        "--rw=randread",
        "--size=4m",
        "--bs=4k",
        "--nrfiles=3",
        "--file_service_type=zipf",
    ],
    &[
        "--rw=randrw",
        "--size=4m",
        "--bsrange=4k-16k",
        "--nrfiles=4",
        "--file_service_type=pareto:0.3",
    ],
    &[
        "--rw=randread",
        "--size=4m",
        "--bs=4k",
        "--nrfiles=3",
        "--norandommap",
        "--file_service_type=gauss:5:0.3",
    ],
    &[
        "--rw=randwrite",
        "--size=8m",
        "--bssplit=4k/50:64k/50",
        "--norandommap",
        "--percentage_random=30",
        "--nrfiles=2",
    ],
];

/// Per job and direction (read, write, trim): total_ios and io_bytes from
/// the JSON report, and the (direction, length, offset) of every I/O from
/// the latency logs with offsets, job after job.
struct Run {
    totals: Vec<(u64, u64)>,
    ios: Vec<String>,
}

fn run(bin: &Path, dir: &Path, job: &[&str]) -> Run {
    let out = run_bounded(
        Command::new(bin)
            .args(["--name=x", "--ioengine=null", "--output-format=json"])
            .args(["--write_lat_log=m", "--log_offset=1"])
            .args(job)
            .current_dir(dir),
        LIMIT,
    );
    assert!(
        out.status.success(),
        "{bin:?} {job:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    let jobs = v["jobs"].as_array().expect("jobs");
    let totals = jobs
        .iter()
        .flat_map(|j| {
            ["read", "write", "trim"].map(|d| {
                let n = |k: &str| j[d][k].as_u64().expect(k);
                (n("total_ios"), n("io_bytes"))
            })
        })
        .collect();
    let mut ios = Vec::new();
    for k in 1..=jobs.len() {
        let log = std::fs::read_to_string(dir.join(format!("m_lat.{k}.log"))).expect("latency log");
        ios.extend(log.lines().map(|l| {
            let row = l.split(", ").skip(2).take(3).collect::<Vec<_>>();
            format!("job {k}: {}", row.join(","))
        }));
    }
    Run { totals, ios }
}

/// Each job beside fio: the same totals, the same I/Os in the same order.
fn compare(jobs: &[&[&str]], extra: &[&str], tag: &str) {
    let Some(fio) = original("fio") else {
        return;
    };
    let rfio = our_bin("rfio");
    for (i, job) in jobs.iter().enumerate() {
        let job: Vec<&str> = job.iter().chain(extra).copied().collect();
        let (a, b) = (
            TempDir::new("rfio-randmap", &format!("{tag}fio{i}")),
            TempDir::new("rfio-randmap", &format!("{tag}rfio{i}")),
        );
        let theirs = run(&fio, a.path(), &job);
        let ours = run(&rfio, b.path(), &job);
        assert!(
            theirs.totals.iter().any(|t| t.0 > 0),
            "{job:?}: fio did no I/O"
        );
        assert_eq!(
            ours.totals, theirs.totals,
            "{job:?}: (ios, bytes) per job and direction"
        );
        assert_eq!(ours.ios.len(), theirs.ios.len(), "{job:?}: logged I/Os");
        if let Some(at) = (0..ours.ios.len()).find(|&k| ours.ios[k] != theirs.ios[k]) {
            panic!(
                "{job:?}: I/O {at} differs (direction, length, offset): rfio {} fio {}",
                ours.ios[at], theirs.ios[at]
            );
        }
    }
}

#[test]
fn random_offsets_with_several_block_sizes_match_fio() {
    compare(JOBS, &[], "");
}

#[test]
fn offsets_without_a_map_and_file_distributions_match_fio() {
    compare(NOMAP_JOBS, &[], "nomap");
}

#[test]
fn lfsr_offsets_match_fio() {
    compare(LFSR_JOBS, &["--random_generator=lfsr"], "lfsr");
}
