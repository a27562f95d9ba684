//! rfio beside fio 3.33 on `zonemode=zbd` over regular files (fio's
//! emulated write pointers): the same io bytes per direction from JSON,
//! the same zone resets, the same blocks written in the file (where the
//! write pointers put them), fio's setup errors and lines; `lockfile`
//! jobs sharing a file move what fio moves, and an exclusive lock keeps
//! two jobs' writes apart (strace).
//!
//! Needs `cargo build -p rfio` first (it runs target/debug/rfio).

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use rbench_tests::fs::TempDir;
use rbench_tests::{original, our_bin, run_bounded};
use serde_json::Value;

const LIMIT: Duration = Duration::from_secs(120);
const MIB: u64 = 1 << 20;

/// A run in `dir` on the file `z` (made `size` bytes long first, none when
/// 0): (stdout, stderr, exit code).
fn run(bin: &Path, dir: &Path, size: u64, args: &[&str]) -> (String, String, Option<i32>) {
    let z = dir.join("z");
    let _ = std::fs::remove_file(&z);
    if size > 0 {
        std::fs::File::create(&z)
            .and_then(|f| f.set_len(size))
            .expect("zone file");
    }
    let out = run_bounded(
        Command::new(bin)
            .current_dir(dir)
            .arg("--filename=z")
            .args(args),
        LIMIT,
    );
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code(),
    )
}

/// Per job: (read bytes, write bytes, error), and the exit code.
fn moved(bin: &Path, dir: &Path, args: &[&str]) -> (Vec<[u64; 3]>, Option<i32>) {
    let mut a = vec!["--output-format=json"];
    a.extend_from_slice(args);
    let (out, err, code) = run(bin, dir, 4 * MIB, &a);
    let json = &out[out
        .find('{')
        .unwrap_or_else(|| panic!("{args:?}: no JSON: {err}"))..];
    let v: Value = serde_json::from_str(json).expect("one JSON document");
    let jobs = v["jobs"].as_array().expect("jobs");
    let n = |j: &Value, k: &str| j[k]["io_bytes"].as_u64().expect("io_bytes");
    let per = jobs
        .iter()
        .map(|j| {
            [
                n(j, "read"),
                n(j, "write"),
                j["error"].as_u64().expect("error"),
            ]
        })
        .collect();
    (per, code)
}

fn dirs(tag: &str) -> (TempDir, TempDir) {
    (
        TempDir::new("rfio-zbd", &format!("{tag}fio")),
        TempDir::new("rfio-zbd", &format!("{tag}rfio")),
    )
}

const ZBD: [&str; 3] = ["--zonemode=zbd", "--zonesize=1m", "--bs=64k"];

/// Jobs over a 4 MiB file of four 1 MiB zones.
const CASES: &[&[&str]] = &[
    &["--name=w", "--rw=write", "--size=4m"],
    // Nothing written: a read finds no zone with data and does nothing.
    &["--name=r", "--rw=read", "--size=4m"],
    &["--name=r", "--rw=read", "--size=4m", "--read_beyond_wp=1"],
    // Full zones are reset: io_size past the file writes 16 MiB.
    &["--name=w", "--rw=randwrite", "--size=4m", "--io_size=16m"],
    // A mixed job writes while nothing is written.
    &["--name=m", "--rw=randrw", "--size=4m"],
    &["--name=m", "--rw=randrw", "--size=4m", "--read_beyond_wp=1"],
    // A sequential write at the capacity goes on at the next zone.
    &["--name=w", "--rw=write", "--size=4m", "--zonecapacity=768k"],
    &[
        "--name=w",
        "--rw=randwrite",
        "--size=4m",
        "--zonecapacity=800k",
        "--io_size=8m",
    ],
    // offset and size rounded to the zones (fio's lines on stdout).
    &["--name=w", "--rw=write", "--offset=100k", "--size=3m"],
    // Open zone limits.
    &[
        "--name=w",
        "--rw=randwrite",
        "--size=4m",
        "--max_open_zones=2",
        "--io_size=8m",
    ],
    &[
        "--name=w",
        "--rw=randwrite",
        "--size=4m",
        "--max_open_zones=2",
        "--job_max_open_zones=1",
        "--io_size=8m",
    ],
    &[
        "--name=w",
        "--rw=randwrite",
        "--size=4m",
        "--zone_reset_frequency=0.1",
        "--zone_reset_threshold=0.1",
        "--io_size=8m",
    ],
    // A later job reads what an earlier one wrote (the zones are shared).
    &[
        "--name=w",
        "--rw=write",
        "--size=2m",
        "--name=r",
        "--stonewall",
        "--rw=read",
        "--size=4m",
    ],
    &[
        "--name=w",
        "--rw=randwrite",
        "--size=4m",
        "--io_size=1m",
        "--name=r",
        "--stonewall",
        "--rw=rw",
        "--size=4m",
    ],
    &[
        "--name=w",
        "--rw=randwrite",
        "--size=4m",
        "--io_size=1m",
        "--ioengine=libaio",
        "--iodepth=8",
        "--name=r",
        "--stonewall",
        "--rw=randread",
        "--bsrange=4k-32k",
        "--size=4m",
    ],
    &[
        "--name=w",
        "--rw=write",
        "--size=4m",
        "--zonecapacity=512k",
        "--name=r",
        "--stonewall",
        "--rw=read",
        "--size=4m",
    ],
    &["--name=w", "--rw=write", "--size=4m", "--loops=2"],
    &["--name=w", "--rw=write", "--size=4m", "--verify=crc32c"],
    &[
        "--name=w",
        "--rw=randwrite",
        "--size=4m",
        "--numjobs=2",
        "--io_size=2m",
    ],
    // fio's zbd-rand-write example, scaled to the file and bound by size.
    &[
        "--name=zbd-rand-write",
        "--group_reporting",
        "--rw=randwrite",
        "--max_open_zones=32",
        "--numjobs=4",
        "--io_size=2m",
    ],
    // Several block sizes: the map marks what the zone leaves of a block.
    &[
        "--name=w",
        "--rw=randwrite",
        "--size=4m",
        "--bsrange=4k-128k",
        "--io_size=6m",
    ],
    &[
        "--name=w",
        "--rw=randwrite",
        "--size=4m",
        "--bsrange=4k-128k",
        "--zonecapacity=900k",
        "--io_size=6m",
    ],
    &[
        "--name=m",
        "--rw=randrw",
        "--size=4m",
        "--bsrange=4k-128k",
        "--zonecapacity=900k",
    ],
    &[
        "--name=w",
        "--rw=randwrite",
        "--size=4m",
        "--bssplit=4k/50:64k/50",
        "--io_size=3m",
        "--name=r",
        "--stonewall",
        "--rw=randread",
        "--bsrange=4k-128k",
    ],
    // A write longer than a zone fails the job (err=22).
    &["--name=w", "--rw=write", "--size=4m", "--bs=2m"],
];

#[test]
fn io_bytes_per_direction_as_fio() {
    let Some(fio) = original("fio") else { return };
    for (i, case) in CASES.iter().enumerate() {
        let args: Vec<&str> = ZBD.iter().chain(case.iter()).copied().collect();
        let (a, b) = dirs(&format!("io{i}"));
        let theirs = moved(&fio, a.path(), &args);
        let ours = moved(&our_bin("rfio"), b.path(), &args);
        assert_eq!(
            ours, theirs,
            "{args:?}: rfio vs fio (per job: read, write, error; exit)"
        );
    }
}

/// The write line's `N zone resets` in normal output.
fn resets(out: &str) -> Vec<u64> {
    out.split("; ")
        .filter_map(|s| {
            s.strip_suffix(" zone resets\n")
                .or(s.split_once(" zone resets").map(|x| x.0))
        })
        .filter_map(|n| n.trim().parse().ok())
        .collect()
}

#[test]
fn zone_resets_as_fio() {
    let Some(fio) = original("fio") else { return };
    let cases: [&[&str]; 3] = [
        &["--io_size=16m"],
        &["--io_size=16m", "--max_open_zones=2"],
        &[
            "--io_size=16m",
            "--zone_reset_frequency=0.1",
            "--zone_reset_threshold=0.1",
        ],
    ];
    for (i, case) in cases.iter().enumerate() {
        let mut args: Vec<&str> = ZBD.to_vec();
        args.extend(["--name=w", "--rw=randwrite", "--size=4m"]);
        args.extend_from_slice(case);
        let (a, b) = dirs(&format!("reset{i}"));
        let theirs = resets(&run(&fio, a.path(), 4 * MIB, &args).0);
        let ours = resets(&run(&our_bin("rfio"), b.path(), 4 * MIB, &args).0);
        assert_eq!(ours, theirs, "{args:?}");
        assert!(ours.first().is_some_and(|&n| n >= 12), "{args:?}: {ours:?}");
    }
}

/// The 64 KiB blocks of `file` that hold anything but zeros.
fn written_blocks(file: &Path) -> Vec<u64> {
    let data = std::fs::read(file).expect("zone file");
    data.chunks(65536)
        .enumerate()
        .filter(|(_, c)| c.iter().any(|&b| b != 0))
        .map(|(i, _)| i as u64)
        .collect()
}

/// Random writes land at the write pointers: each zone holds its data from
/// its start on, the same blocks as fio's.
#[test]
fn writes_fill_each_zone_from_its_start_as_fio() {
    let Some(fio) = original("fio") else { return };
    let cases: [&[&str]; 3] = [
        &["--rw=randwrite", "--io_size=1m"],
        &["--rw=randwrite", "--io_size=2m", "--zonecapacity=512k"],
        &["--rw=write", "--zonecapacity=768k"],
    ];
    for (i, case) in cases.iter().enumerate() {
        let mut args: Vec<&str> = ZBD.to_vec();
        args.extend(["--name=w", "--size=4m"]);
        args.extend_from_slice(case);
        let (a, b) = dirs(&format!("wp{i}"));
        run(&fio, a.path(), 4 * MIB, &args);
        run(&our_bin("rfio"), b.path(), 4 * MIB, &args);
        let theirs = written_blocks(&a.path().join("z"));
        let ours = written_blocks(&b.path().join("z"));
        assert_eq!(ours, theirs, "{args:?}: written 64 KiB blocks");
        // Each zone's blocks are a prefix of it (no holes below a pointer).
        for zone in 0..4 {
            let inside: Vec<u64> = ours
                .iter()
                .filter(|&&x| x / 16 == zone)
                .map(|x| x % 16)
                .collect();
            assert!(
                inside.iter().enumerate().all(|(k, &x)| k as u64 == x),
                "{args:?}: zone {zone} holds {inside:?}"
            );
        }
    }
}

/// stdout lines fio prints that are not numbers of a report.
fn lines(out: &str) -> Vec<String> {
    out.lines()
        .filter(|l| l.starts_with("z:") || l.starts_with("fio:") || l.contains("zone size"))
        .map(|l| l.replace(|c: char| c.is_ascii_digit(), "").to_string())
        .filter(|l| !l.starts_with("fio: pid="))
        .collect()
}

#[test]
fn setup_errors_as_fio() {
    let Some(fio) = original("fio") else { return };
    let cases: [(u64, &[&str]); 13] = [
        // fio's range lines for the reset options (parsing, exit 1).
        (
            4 * MIB,
            &[
                "--zonemode=zbd",
                "--zonesize=1m",
                "--zone_reset_threshold=2",
            ],
        ),
        (
            4 * MIB,
            &[
                "--zonemode=zbd",
                "--zonesize=1m",
                "--zone_reset_frequency=-1",
            ],
        ),
        (4 * MIB, &["--zonemode=zbd", "--rw=write"]),
        (
            4 * MIB,
            &[
                "--zonemode=zbd",
                "--zonesize=1m",
                "--zonecapacity=2m",
                "--rw=write",
            ],
        ),
        (4 * MIB, &["--zonemode=zbd", "--zonesize=100", "--rw=write"]),
        // A new file has no zones yet.
        (0, &["--zonemode=zbd", "--zonesize=1m", "--rw=write"]),
        (
            4 * MIB,
            &[
                "--zonemode=zbd",
                "--zonesize=1m",
                "--zoneskip=100k",
                "--rw=write",
            ],
        ),
        (
            4 * MIB,
            &[
                "--zonemode=zbd",
                "--zonesize=1m",
                "--job_max_open_zones=2",
                "--rw=write",
            ],
        ),
        (
            4 * MIB,
            &[
                "--zonemode=zbd",
                "--zonesize=1m",
                "--bs=3k",
                "--verify=crc32c",
                "--rw=write",
            ],
        ),
        (
            4 * MIB,
            &[
                "--zonemode=zbd",
                "--zonesize=1m",
                "--create_serialize=0",
                "--rw=write",
            ],
        ),
        (4 * MIB, &["--zonemode=zbd", "--zonesize=1m", "--rw=trim"]),
        (
            4 * MIB,
            &["--zonemode=zbd", "--zonesize=1m", "--max_open_zones=5000"],
        ),
        (
            4 * MIB,
            &[
                "--zonemode=zbd",
                "--zonesize=1m",
                "--offset=3600k",
                "--rw=write",
            ],
        ),
    ];
    for (i, (size, case)) in cases.iter().enumerate() {
        let mut args = vec!["--name=a", "--size=4m", "--bs=64k"];
        args.extend_from_slice(case);
        let (a, b) = dirs(&format!("err{i}"));
        let (fo, fe, fc) = run(&fio, a.path(), *size, &args);
        let (ro, re, rc) = run(&our_bin("rfio"), b.path(), *size, &args);
        let pid = |e: &str| {
            e.lines()
                .map(|l| match l.find("pid=") {
                    Some(p) => format!(
                        "{}{}",
                        &l[..p],
                        &l[l[p..].find(',').map_or(l.len(), |c| p + c)..]
                    ),
                    None => l.to_string(),
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(
            (pid(&re), rc),
            (pid(&fe), fc),
            "{args:?}: stderr and exit code"
        );
        assert_eq!(lines(&ro), lines(&fo), "{args:?}: stdout lines");
        assert_eq!(rc, Some(1), "{args:?}");
    }
}

/// Two jobs sharing a file with a lock move what fio moves.
#[test]
fn lockfile_jobs_move_what_fio_moves() {
    let Some(fio) = original("fio") else { return };
    for (i, mode) in ["exclusive", "readwrite", "readwrite:4"].iter().enumerate() {
        let lock = format!("--lockfile={mode}");
        let args = [
            lock.as_str(),
            "--bs=4k",
            "--size=1m",
            "--name=w",
            "--rw=randwrite",
            "--name=r",
            "--rw=randread",
            "--name=w2",
            "--rw=write",
            "--numjobs=2",
        ];
        let (a, b) = dirs(&format!("lock{i}"));
        let theirs = moved(&fio, a.path(), &args);
        let ours = moved(&our_bin("rfio"), b.path(), &args);
        assert_eq!(ours, theirs, "{args:?}");
        let (_, err, code) = run(
            &our_bin("rfio"),
            b.path(),
            0,
            &["--warnings-fatal", args[0], "--size=64k", "--name=a"],
        );
        assert_eq!((code, err.as_str()), (Some(0), ""), "{mode}: no warning");
    }
}

/// (thread, entering) for each pwrite64 event of an `strace -f` log: an
/// `<unfinished ...>` entry is one still in the kernel while another
/// thread's event comes.
fn pwrite_events(log: &str) -> Vec<(String, bool)> {
    log.lines()
        .filter(|l| l.contains("pwrite64"))
        .map(|l| {
            let tid = l.split_whitespace().nth(1).unwrap_or("").to_string();
            (tid, !l.contains("resumed>"))
        })
        .collect()
}

/// lockfile=exclusive: no write of one job is in the kernel while the
/// other job's write starts (strace -f sees every pwrite64 whole).
#[test]
fn exclusive_lock_keeps_writes_apart() {
    let Some(strace) = rbench_tests::on_path("strace") else {
        return;
    };
    let d = TempDir::new("rfio-zbd", "strace");
    let log = d.path().join("trace");
    let out = run_bounded(
        Command::new(strace)
            .current_dir(d.path())
            .args(["-f", "-qq", "-e", "trace=pwrite64", "-o"])
            .arg(&log)
            .arg(our_bin("rfio"))
            .args([
                "--filename=shared",
                "--lockfile=exclusive",
                "--bs=4k",
                "--size=2m",
                "--name=a",
                "--rw=randwrite",
                "--name=b",
                "--rw=randwrite",
                "--randseed=7",
            ]),
        LIMIT,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let log = std::fs::read_to_string(&log).expect("strace log");
    let events = pwrite_events(&log);
    let tids: std::collections::BTreeSet<&String> = events.iter().map(|e| &e.0).collect();
    assert!(tids.len() >= 2, "two writing threads: {tids:?}");
    assert!(events.len() >= 1024, "{} pwrite64 events", events.len());
    for l in log.lines().filter(|l| l.contains("pwrite64")) {
        assert!(
            !l.contains("<unfinished ...>"),
            "a write overlapped another: {l}"
        );
    }
}

/// The (direction, offset, length) of each read and write in `log` (a
/// write_iolog of version 3).
fn logged(log: &Path) -> Vec<(String, u64, u64)> {
    std::fs::read_to_string(log)
        .expect("iolog")
        .lines()
        .filter_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            match w.as_slice() {
                [_, _, kind @ ("read" | "write"), off, len] => {
                    Some((kind.to_string(), off.parse().ok()?, len.parse().ok()?))
                }
                _ => None,
            }
        })
        .collect()
}

/// zoneskip with sequential I/O: after a zone's worth (or at a zone's end
/// or, reading, its write pointer) the I/O moves on by zonesize + zoneskip,
/// back to the offset past the file's end: fio's offsets in fio's order.
#[test]
fn zoneskip_moves_sequential_io_as_fio() {
    let Some(fio) = original("fio") else { return };
    let cases: [&[&str]; 5] = [
        &["--name=w", "--rw=write", "--size=4m", "--zoneskip=1m"],
        &[
            "--name=w",
            "--rw=write",
            "--size=4m",
            "--zoneskip=2m",
            "--io_size=3m",
        ],
        &[
            "--name=w",
            "--rw=write",
            "--size=4m",
            "--zoneskip=1m",
            "--bs=192k",
            "--io_size=5m",
        ],
        &[
            "--name=w",
            "--rw=write",
            "--offset=1m",
            "--size=3m",
            "--zoneskip=1m",
            "--io_size=3m",
        ],
        &[
            "--name=w",
            "--rw=randwrite",
            "--size=4m",
            "--io_size=2m",
            "--name=r",
            "--stonewall",
            "--rw=read",
            "--zoneskip=1m",
            "--io_size=3m",
        ],
    ];
    for (i, case) in cases.iter().enumerate() {
        let mut args = vec![
            "--zonemode=zbd",
            "--zonesize=1m",
            "--bs=256k",
            "--write_iolog=log",
        ];
        args.extend_from_slice(case);
        let (a, b) = dirs(&format!("skip{i}"));
        run(&fio, a.path(), 4 * MIB, &args);
        run(&our_bin("rfio"), b.path(), 4 * MIB, &args);
        let theirs = logged(&a.path().join("log"));
        let ours = logged(&b.path().join("log"));
        assert_eq!(ours, theirs, "{args:?}: I/Os in order");
        assert!(ours.len() >= 8, "{args:?}: {ours:?}");
    }
}

/// `--parse-only` skips fio's job fixups: zonemode=zbd with
/// create_serialize=0 parses (a run refuses it, setup_errors_as_fio).
#[test]
fn parse_only_takes_what_a_run_refuses() {
    let Some(fio) = original("fio") else { return };
    let args = [
        "--parse-only",
        "--name=a",
        "--zonemode=zbd",
        "--create_serialize=0",
    ];
    let (a, b) = dirs("parse");
    let theirs = run(&fio, a.path(), 0, &args);
    let ours = run(&our_bin("rfio"), b.path(), 0, &args);
    assert_eq!(ours, theirs, "{args:?}");
    assert_eq!(ours.2, Some(0));
}
