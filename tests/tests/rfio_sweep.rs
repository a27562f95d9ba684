//! Conformance sweep: rfio beside fio 3.33 on one table of small jobs (every
//! engine, every rw mode, block-size options, mixes, clones, job-file
//! features, file layout options, sync options and a few newer options),
//! each run once per tool with `--output-format=normal,json[+],terse` so a
//! single run yields all three reports. One routine compares, per job:
//!
//! * exit code;
//! * bytes and I/Os moved per direction (and fsyncs), for jobs bounded by size;
//! * the JSON document's key paths, value types and key order, recursively
//!   (percentile and bin keys are values, so they are generalised), plus the
//!   values that do not depend on timing (job names, groups, errors, option
//!   echoes);
//! * the number of fields of every terse line (versions 2-5 in turn);
//! * the normal output's layout with numbers masked;
//! * stderr with numbers masked;
//! * the files left behind (names, sizes; logs by name and column count).
//!
//! Differences that README.md's rfio table documents are listed per job as
//! `Allow` entries with the reason; nothing else may differ. All mismatches
//! are collected and reported together, so one run lists every regression.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use rbench_tests::rfio::Suite;
use rbench_tests::{fio_key_paths, fio_layout, mask_numbers, original, our_bin, run_bounded};
use serde_json::Value;

const LIMIT: Duration = Duration::from_secs(30);

const SUITE: Suite = Suite::new("rfio-sweep", LIMIT);

/// A check a job may skip, because README.md documents the difference.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Allow {
    /// Random offsets come from a different generator; with several block
    /// sizes in one random job fio's block map ends passes earlier
    /// (README: "random offsets").
    Bytes,
    /// Trim on a regular file: rfio punches a hole, fio 3.33 fails with
    /// err=25 (README: "trim on a regular file").
    TrimOnFile,
    /// A failing job: fio prints its error lines into stdout, rfio keeps
    /// them on stderr (README: "JSON when a job fails").
    ErrorStreams,
    /// fio 3.33 counts fdatasync calls past the end of its per-direction
    /// array: they show up as read `short_ios` and not in `sync.total_ios`;
    /// rfio counts them as syncs (README: "fdatasync").
    FdatasyncCount,
    /// unified_rw_reporting=both: fio prints `mixed: IOPS=0, BW=0 (0)…`,
    /// rfio the real mixed values (README: "unified_rw_reporting").
    MixedLine,
    /// A time-based job moves what the clock allows: bytes differ.
    TimeBased,
    /// fio saves `<job>-<n>-verify.state` after a verify job; rfio accepts
    /// verify_state_save but writes no state file (README: "verify").
    VerifyStateFile,
}

struct Case {
    /// Short tag, used in messages and directory names.
    tag: &'static str,
    /// The command line (job files named here are written from `files`).
    args: &'static [&'static str],
    /// Files written into the run directory first: job files, includes.
    files: &'static [(&'static str, &'static str)],
    /// Environment for `${VAR}` substitution.
    env: &'static [(&'static str, &'static str)],
    allow: &'static [Allow],
}

const fn cli(tag: &'static str, args: &'static [&'static str]) -> Case {
    Case {
        tag,
        args,
        files: &[],
        env: &[],
        allow: &[],
    }
}

const fn allowing(mut c: Case, allow: &'static [Allow]) -> Case {
    c.allow = allow;
    c
}

const fn with_files(
    tag: &'static str,
    args: &'static [&'static str],
    files: &'static [(&'static str, &'static str)],
) -> Case {
    Case {
        tag,
        args,
        files,
        env: &[],
        allow: &[],
    }
}

const JOBFILE_STONEWALL: &str = "; [global] then two jobs, the second stonewalled\n\
[global]\nioengine=psync\nsize=1m\nfilename=data\n\n\
[seq-write]\nrw=write\nbs=64k\n\n[rand-read]\nstonewall\nrw=randread\nbs=4k\n";

const JOBFILE_NEW_GROUP: &str = "[global]\nsize=512k\nioengine=sync\n\
[a]\nrw=write\n[b]\nrw=write\nnew_group\n[c]\nrw=read\nnumjobs=2\ngroup_reporting\nnew_group\n";

const JOBFILE_INCLUDE: &str = "[global]\ninclude common.inc\n[inc]\nrw=randwrite\n";
const INCLUDED: &str = "size=512k\nbs=8k\n# a comment in the included file\nioengine=pvsync\n";

const JOBFILE_ENV: &str = "[env]\nsize=${SWEEP_SIZE}\nbs=${SWEEP_BS}\nrw=${SWEEP_RW}\n\
ioengine=psync\n";

const JOBFILE_PAGESIZE: &str = "[pg]\nsize=256k\nbs=$pagesize\nrw=read\nnumjobs=2\n";

/// A percentage size after an offset: clipped at the file's end, rounded
/// down to the block size (§12, #377); the file is laid out by a first job.
const JOBFILE_OFFSET_PCT: &str = "[global]\nfilename=f\nbs=8k\n\
[prep]\nsize=1000000\nrw=write\n\
[pct]\nstonewall\noffset=10%\nsize=95%\n\
[end]\nstonewall\noffset=900k\nsize=50%\nrw=write\n";

const SECOND_FILE: &str = "[second]\nsize=256k\nrw=read\n";

/// The jobs: every engine, every rw mode, block-size options, mixes,
/// clones, job files, file layout, sync options and newer options.
const CASES: &[Case] = &[
    // Every engine.
    cli(
        "e-sync",
        &["--name=e", "--ioengine=sync", "--size=1m", "--rw=randrw"],
    ),
    cli(
        "e-psync",
        &["--name=e", "--ioengine=psync", "--size=1m", "--rw=read"],
    ),
    cli(
        "e-vsync",
        &["--name=e", "--ioengine=vsync", "--size=1m", "--rw=write"],
    ),
    cli(
        "e-pvsync",
        &[
            "--name=e",
            "--ioengine=pvsync",
            "--size=1m",
            "--rw=randread",
        ],
    ),
    cli(
        "e-pvsync2",
        &[
            "--name=e",
            "--ioengine=pvsync2",
            "--size=1m",
            "--rw=randwrite",
        ],
    ),
    cli(
        "e-libaio",
        &[
            "--name=e",
            "--ioengine=libaio",
            "--iodepth=8",
            "--direct=1",
            "--size=1m",
            "--rw=randread",
        ],
    ),
    cli(
        "e-io_uring",
        &[
            "--name=e",
            "--ioengine=io_uring",
            "--iodepth=8",
            "--size=1m",
            "--rw=randrw",
        ],
    ),
    cli(
        "e-io_uring-direct",
        &[
            "--name=e",
            "--ioengine=io_uring",
            "--iodepth=4",
            "--direct=1",
            "--size=1m",
            "--rw=write",
        ],
    ),
    cli(
        "e-mmap",
        &["--name=e", "--ioengine=mmap", "--size=1m", "--rw=randwrite"],
    ),
    cli(
        "e-null",
        &["--name=e", "--ioengine=null", "--size=16m", "--rw=randread"],
    ),
    // Every rw mode.
    cli("rw-read", &["--name=m", "--size=1m", "--rw=read"]),
    cli("rw-write", &["--name=m", "--size=1m", "--rw=write"]),
    cli("rw-randread", &["--name=m", "--size=1m", "--rw=randread"]),
    cli("rw-randwrite", &["--name=m", "--size=1m", "--rw=randwrite"]),
    cli("rw-rw", &["--name=m", "--size=1m", "--rw=rw"]),
    cli("rw-readwrite", &["--name=m", "--size=1m", "--rw=readwrite"]),
    cli("rw-randrw", &["--name=m", "--size=1m", "--rw=randrw"]),
    cli("rw-write-hole", &["--name=m", "--size=1m", "--rw=write:8k"]),
    cli(
        "rw-read-hole",
        &["--name=m", "--size=1m", "--rw=read:4k", "--bs=8k"],
    ),
    cli(
        "rw-randread-4",
        &["--name=m", "--size=1m", "--rw=randread:4"],
    ),
    cli(
        "rw-trim-null",
        &["--name=m", "--ioengine=null", "--size=1m", "--rw=trim"],
    ),
    cli(
        "rw-randtrim-null",
        &["--name=m", "--ioengine=null", "--size=1m", "--rw=randtrim"],
    ),
    cli(
        "rw-trimwrite-null",
        &["--name=m", "--ioengine=null", "--size=1m", "--rw=trimwrite"],
    ),
    allowing(
        cli("rw-trim-file", &["--name=m", "--size=256k", "--rw=trim"]),
        &[Allow::TrimOnFile],
    ),
    // Block sizes.
    cli(
        "bs-per-dir",
        &["--name=b", "--size=1m", "--rw=rw", "--bs=8k,16k"],
    ),
    cli(
        "bs-write-only",
        &["--name=b", "--size=1m", "--rw=write", "--bs=,32k"],
    ),
    cli(
        "bsrange-seq",
        &["--name=b", "--size=1m", "--rw=write", "--bsrange=4k-16k"],
    ),
    cli(
        "bsrange-rand",
        &["--name=b", "--size=1m", "--rw=randread", "--bsrange=4k-16k"],
    ),
    cli(
        "bssplit-seq",
        &[
            "--name=b",
            "--size=1m",
            "--rw=write",
            "--bssplit=4k/50:16k/50",
        ],
    ),
    cli(
        "bssplit-rand",
        &[
            "--name=b",
            "--size=1m",
            "--rw=randrw",
            "--bssplit=4k/30:8k/70,64k",
        ],
    ),
    // Mixes.
    cli(
        "mix-70",
        &["--name=x", "--size=1m", "--rw=randrw", "--rwmixread=70"],
    ),
    cli(
        "mix-write20",
        &["--name=x", "--size=1m", "--rw=rw", "--rwmixwrite=20"],
    ),
    cli(
        "mix-unified",
        &[
            "--name=x",
            "--size=1m",
            "--rw=randrw",
            "--unified_rw_reporting=mixed",
        ],
    ),
    // Clones.
    cli(
        "nj-2",
        &["--name=n", "--size=512k", "--rw=write", "--numjobs=2"],
    ),
    cli(
        "nj-2-group",
        &[
            "--name=n",
            "--size=512k",
            "--rw=randread",
            "--numjobs=2",
            "--group_reporting",
        ],
    ),
    cli(
        "nj-3-thread-group",
        &[
            "--name=n",
            "--size=256k",
            "--rw=rw",
            "--numjobs=3",
            "--thread",
            "--group_reporting",
        ],
    ),
    cli(
        "nj-two-jobs",
        &[
            "--size=256k",
            "--name=a",
            "--rw=read",
            "--name=b",
            "--rw=write",
            "--stonewall",
        ],
    ),
    // Job files.
    with_files(
        "jf-stonewall",
        &["job.fio"],
        &[("job.fio", JOBFILE_STONEWALL)],
    ),
    with_files(
        "jf-new-group",
        &["job.fio"],
        &[("job.fio", JOBFILE_NEW_GROUP)],
    ),
    with_files(
        "jf-include",
        &["job.fio"],
        &[("job.fio", JOBFILE_INCLUDE), ("common.inc", INCLUDED)],
    ),
    Case {
        tag: "jf-env",
        args: &["job.fio"],
        files: &[("job.fio", JOBFILE_ENV)],
        env: &[
            ("SWEEP_SIZE", "768k"),
            ("SWEEP_BS", "16k"),
            ("SWEEP_RW", "randrw"),
        ],
        allow: &[],
    },
    with_files(
        "jf-pagesize",
        &["job.fio"],
        &[("job.fio", JOBFILE_PAGESIZE)],
    ),
    with_files(
        "jf-two-files",
        &["--ioengine=pvsync", "job.fio", "second.fio"],
        &[("job.fio", JOBFILE_STONEWALL), ("second.fio", SECOND_FILE)],
    ),
    // Files and regions.
    cli(
        "f-nrfiles",
        &["--name=f", "--size=1m", "--rw=write", "--nrfiles=3"],
    ),
    cli(
        "f-filesize",
        &[
            "--name=f",
            "--filesize=256k",
            "--nrfiles=2",
            "--rw=randwrite",
        ],
    ),
    cli(
        "f-offset",
        &[
            "--name=f",
            "--filename=data",
            "--size=1m",
            "--offset=256k",
            "--rw=write",
        ],
    ),
    cli(
        "f-offset-increment",
        &[
            "--name=f",
            "--filename=data",
            "--size=256k",
            "--offset_increment=256k",
            "--numjobs=3",
            "--rw=write",
        ],
    ),
    cli(
        "f-loops",
        &["--name=f", "--size=256k", "--rw=randread", "--loops=3"],
    ),
    cli(
        "f-number-ios",
        &["--name=f", "--size=1m", "--rw=randwrite", "--number_ios=37"],
    ),
    cli(
        "f-io-size",
        &["--name=f", "--size=256k", "--io_size=1m", "--rw=read"],
    ),
    with_files(
        "f-offset-pct",
        &["job.fio"],
        &[("job.fio", JOBFILE_OFFSET_PCT)],
    ),
    // filename_format without $jobnum: the clones after the first get no
    // file and do nothing (§12, #631).
    cli(
        "f-shared-format",
        &[
            "--name=f",
            "--size=256k",
            "--numjobs=3",
            "--filename_format=same.$filenum",
            "--rw=write",
        ],
    ),
    // fio's byte limit is io_size x loops over all loops, and io_size
    // rounds follow the loops: a mixed sequential loop runs on to the end.
    cli(
        "f-loops-mixed",
        &[
            "--name=f",
            "--size=256k",
            "--rw=rw",
            "--loops=2",
            "--bsrange=4k-16k",
        ],
    ),
    cli(
        "f-io-size-loops",
        &[
            "--name=f",
            "--size=256k",
            "--io_size=768k",
            "--rw=rw",
            "--loops=2",
        ],
    ),
    // Sync options.
    cli(
        "s-fsync",
        &["--name=s", "--size=512k", "--rw=randwrite", "--fsync=4"],
    ),
    allowing(
        cli(
            "s-fdatasync",
            &["--name=s", "--size=512k", "--rw=write", "--fdatasync=3"],
        ),
        &[Allow::FdatasyncCount],
    ),
    // fio syncs after every I/O while the write count is a multiple of N,
    // so reads of a mixed job bring extra syncs.
    cli(
        "s-fsync-mixed",
        &[
            "--name=s",
            "--size=512k",
            "--rw=readwrite",
            "--fsync=3",
            "--bsrange=4k-8k",
        ],
    ),
    cli(
        "s-end-fsync",
        &["--name=s", "--size=512k", "--rw=write", "--end_fsync=1"],
    ),
    // Newer options.
    allowing(
        cli(
            "n-verify",
            &["--name=v", "--size=512k", "--rw=write", "--verify=crc32c"],
        ),
        &[Allow::VerifyStateFile],
    ),
    allowing(
        cli(
            "n-verify-rand",
            &[
                "--name=v",
                "--size=512k",
                "--rw=randwrite",
                "--verify=md5",
                "--ioengine=libaio",
                "--iodepth=4",
            ],
        ),
        &[Allow::VerifyStateFile],
    ),
    cli(
        "n-rate-iops",
        &["--name=r", "--size=256k", "--rw=write", "--rate_iops=1000"],
    ),
    cli(
        "n-rate",
        &["--name=r", "--size=256k", "--rw=read", "--rate=4m"],
    ),
    cli(
        "n-bw-log",
        &[
            "--name=l",
            "--size=256k",
            "--rw=randread",
            "--write_bw_log=bw",
        ],
    ),
    cli(
        "n-all-logs",
        &[
            "--name=l",
            "--size=256k",
            "--rw=randrw",
            "--write_lat_log=lat",
            "--write_iops_log=iops",
            "--log_avg_msec=100",
        ],
    ),
    cli(
        "n-percentiles",
        &[
            "--name=p",
            "--size=512k",
            "--rw=randread",
            "--lat_percentiles=1",
            "--percentile_list=50:90:99.9",
        ],
    ),
    cli(
        "n-description",
        &["--name=d", "--size=256k", "--description=some words"],
    ),
    cli(
        "n-continue-on-error",
        &[
            "--name=c",
            "--ioengine=null",
            "--size=256k",
            "--continue_on_error=all",
        ],
    ),
    allowing(
        cli(
            "n-unified-both",
            &[
                "--name=u",
                "--size=512k",
                "--rw=randrw",
                "--unified_rw_reporting=both",
            ],
        ),
        &[Allow::MixedLine],
    ),
    cli(
        "n-kb-base-1000",
        &[
            "--kb_base=1000",
            "--name=k",
            "--size=512k",
            "--bs=8k",
            "--rw=rw",
        ],
    ),
    cli(
        "n-filename-list",
        &[
            "--name=f",
            "--filename=a:b",
            "--size=512k",
            "--rw=randrw",
            "--ioengine=libaio",
            "--iodepth=4",
        ],
    ),
    cli(
        "n-randrw-clones",
        &[
            "--name=c",
            "--size=256k",
            "--rw=randrw",
            "--rwmixread=60",
            "--numjobs=3",
            "--loops=2",
        ],
    ),
    with_files(
        "n-section",
        &["--section=rand-read", "job.fio"],
        &[("job.fio", JOBFILE_STONEWALL)],
    ),
    allowing(
        cli(
            "n-time-based",
            &[
                "--name=t",
                "--ioengine=null",
                "--size=1m",
                "--runtime=200ms",
                "--time_based",
            ],
        ),
        &[Allow::TimeBased],
    ),
    // Assorted options a size-bound job should not change the bytes of.
    cli(
        "o-uring-clones",
        &[
            "--name=o",
            "--size=512k",
            "--rw=randrw",
            "--ioengine=io_uring",
            "--iodepth=16",
            "--direct=1",
            "--numjobs=2",
            "--group_reporting",
        ],
    ),
    cli(
        "o-thinktime",
        &[
            "--name=o",
            "--size=256k",
            "--rw=randread",
            "--thinktime=100",
            "--thinktime_blocks=8",
        ],
    ),
    cli(
        "o-startdelay",
        &["--name=o", "--size=256k", "--rw=read", "--startdelay=100ms"],
    ),
    cli(
        "o-zipf",
        &[
            "--name=o",
            "--size=512k",
            "--rw=randread",
            "--random_distribution=zipf:1.2",
        ],
    ),
    cli(
        "o-norandommap",
        &["--name=o", "--size=512k", "--rw=randwrite", "--norandommap"],
    ),
    cli(
        "o-sync-direct",
        &[
            "--name=o",
            "--size=256k",
            "--rw=write",
            "--sync=1",
            "--direct=1",
        ],
    ),
    cli(
        "o-fsync-on-close-unlink",
        &[
            "--name=o",
            "--size=256k",
            "--rw=write",
            "--fsync_on_close=1",
            "--unlink=1",
        ],
    ),
    cli(
        "o-zero-buffers",
        &[
            "--name=o",
            "--size=256k",
            "--rw=write",
            "--zero_buffers",
            "--fallocate=none",
        ],
    ),
    cli(
        "o-wait-for",
        &[
            "--size=256k",
            "--name=a",
            "--rw=write",
            "--name=b",
            "--rw=read",
            "--wait_for=a",
            "--ioengine=pvsync2",
        ],
    ),
    cli(
        "o-gtod-reduce",
        &[
            "--name=o",
            "--size=256k",
            "--rw=randread",
            "--gtod_reduce=1",
        ],
    ),
    cli(
        "o-slat-percentiles",
        &[
            "--name=o",
            "--size=256k",
            "--rw=randread",
            "--ioengine=libaio",
            "--iodepth=4",
            "--slat_percentiles=1",
            "--clat_percentiles=0",
        ],
    ),
    cli(
        "o-iodepth-batch",
        &[
            "--name=o",
            "--size=256k",
            "--rw=randread",
            "--ioengine=libaio",
            "--iodepth=8",
            "--iodepth_batch=4",
            "--iodepth_batch_complete_min=2",
        ],
    ),
    cli(
        "o-unit-base-bits",
        &["--unit_base=1", "--name=o", "--size=256k", "--rw=read"],
    ),
    cli(
        "o-create-on-open",
        &[
            "--name=o",
            "--size=256k",
            "--rw=write",
            "--create_on_open=1",
        ],
    ),
    // A bad job file after a command-line job: fio has printed that job's
    // header line already (§12: a stray argument is taken as a job file).
    with_files(
        "x-cli-then-bad-file",
        &["--name=x", "--size=1m", "bad.fio"],
        &[("bad.fio", "rw=read\n[j]\n")],
    ),
    // A job that fails: same exit code and JSON error.
    cli(
        "x-missing-size",
        &["--name=x", "--filename=nofile", "--rw=read"],
    ),
    // An I/O error (O_DIRECT with a 100-byte block): same exit code, JSON
    // error and layout; fio prints its error lines into stdout.
    allowing(
        cli(
            "x-direct-einval",
            &["--name=x", "--size=64k", "--direct=1", "--bs=100"],
        ),
        &[Allow::ErrorStreams],
    ),
];

struct Ran {
    dir: PathBuf,
    stdout: String,
    stderr: String,
    code: i32,
}

fn run_case(bin: &Path, case: &Case, extra: &[String], who: &str) -> Ran {
    let dir = SUITE.temp_dir(&format!("{}-{who}", case.tag));
    for (name, text) in case.files {
        std::fs::write(dir.join(name), text).expect("write job file");
    }
    let mut cmd = Command::new(bin);
    cmd.args(case.args).args(extra).current_dir(&dir);
    for (k, v) in case.env {
        cmd.env(k, v);
    }
    let out = run_bounded(&mut cmd, LIMIT);
    Ran {
        dir,
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code().unwrap_or(-1),
    }
}

/// One combined run split into its parts: terse lines, the JSON document,
/// and the normal output (everything else, in order).
struct Parts {
    terse: Vec<String>,
    json: Option<Value>,
    normal: String,
}

fn split(stdout: &str, terse_version: u32) -> Parts {
    let prefix = format!("{terse_version};");
    let mut terse = Vec::new();
    let mut json = String::new();
    let mut normal = String::new();
    let mut in_json = false;
    for line in stdout.lines() {
        if in_json {
            json.push_str(line);
            json.push('\n');
            in_json = line != "}";
        } else if line == "{" && json.is_empty() {
            json.push_str("{\n");
            in_json = true;
        } else if line.starts_with(&prefix) && line.matches(';').count() > 20 {
            terse.push(line.to_string());
        } else {
            normal.push_str(line);
            normal.push('\n');
        }
    }
    Parts {
        terse,
        json: serde_json::from_str(&json).ok(),
        normal,
    }
}

/// [`fio_key_paths`] (arrays' items by index) as `path: type` lines,
/// repeats in a row collapsed.
fn key_paths(v: &Value) -> Vec<String> {
    let mut out: Vec<String> = fio_key_paths(v, true)
        .into_iter()
        .map(|(path, kind)| format!("{path}: {kind}"))
        .collect();
    out.dedup();
    out
}

const DIRS: [&str; 3] = ["read", "write", "trim"];

/// Values of the document that do not depend on timing.
fn fixed_values(doc: &Value, bytes: bool) -> Vec<String> {
    let mut out = vec![format!("global options = {}", doc["global options"])];
    for job in doc["jobs"].as_array().into_iter().flatten() {
        let name = &job["jobname"];
        for key in ["groupid", "error", "job options", "desc", "total_err"] {
            out.push(format!("{name} {key} = {}", job[key]));
        }
        if bytes {
            for d in DIRS.iter().chain(&["mixed"]) {
                for key in ["io_bytes", "total_ios", "short_ios", "drop_ios"] {
                    out.push(format!("{name} {d}.{key} = {}", job[d][key]));
                }
            }
            out.push(format!(
                "{name} sync.total_ios = {}",
                job["sync"]["total_ios"]
            ));
        }
    }
    out
}

/// Normal output as [`fio_layout`] has it, the run's directory as `DIR`.
fn layout(s: &str, dir: &Path) -> Vec<String> {
    fio_layout(&s.replace(&dir.display().to_string(), "DIR"))
}

/// Files a run left behind: data files by name and size, log files by
/// name and the column count of their first row; job files are skipped.
fn files_in(case: &Case, d: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let Ok(entries) = std::fs::read_dir(d) else {
        return out;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if case.files.iter().any(|(f, _)| *f == name) {
            continue;
        }
        let what = if name.ends_with(".log") {
            let text = std::fs::read_to_string(e.path()).unwrap_or_default();
            let cols = text.lines().next().map_or(0, |l| l.split(", ").count());
            format!("log, {cols} columns")
        } else {
            format!("{} bytes", e.metadata().map(|m| m.len()).unwrap_or(0))
        };
        out.insert(name, what);
    }
    out
}

/// fio's and rfio's text for the same thing differ only by numbers and
/// the directories the runs used.
fn masked(s: &str, dir: &Path) -> String {
    mask_numbers(&s.replace(&dir.display().to_string(), "DIR"))
}

/// Run one case with both tools and return its mismatches (empty: same).
fn compare(fio: &Path, case: &Case, index: usize) -> Vec<String> {
    let terse_version = 2 + (index % 4) as u32;
    let json = if index.is_multiple_of(2) {
        "json"
    } else {
        "json+"
    };
    let extra = [
        format!("--output-format=normal,{json},terse"),
        format!("--terse-version={terse_version}"),
    ];
    let theirs = run_case(fio, case, &extra, "fio");
    let ours = run_case(&our_bin("rfio"), case, &extra, "rfio");
    let allowed = |a: Allow| case.allow.contains(&a);
    let mut bad = Vec::new();
    let mut diff = |what: &str, a: String, b: String| {
        if a != b {
            bad.push(format!(
                "[{}] {what} differs (terse v{terse_version}, {json})\n  rfio: {a}\n  fio:  {b}",
                case.tag
            ));
        }
    };
    if allowed(Allow::TrimOnFile) {
        // fio fails with ENOTTY (BLKDISCARD on a file); rfio punches holes
        // and trims the whole region.
        let (a, b) = (
            split(&ours.stdout, terse_version).json,
            split(&theirs.stdout, terse_version).json,
        );
        let error = |d: &Option<Value>| d.as_ref().map(|d| d["jobs"][0]["error"].clone());
        let trimmed =
            |d: &Option<Value>| d.as_ref().map(|d| d["jobs"][0]["trim"]["io_bytes"].clone());
        diff(
            "fio's trim error",
            error(&b).unwrap_or_default().to_string(),
            "25".into(),
        );
        diff(
            "rfio's trim error",
            error(&a).unwrap_or_default().to_string(),
            "0".into(),
        );
        diff(
            "rfio's trimmed bytes",
            trimmed(&a).unwrap_or_default().to_string(),
            "262144".into(),
        );
        return bad;
    }
    diff("exit code", ours.code.to_string(), theirs.code.to_string());
    let (a, b) = (
        split(&ours.stdout, terse_version),
        split(&theirs.stdout, terse_version),
    );
    // JSON: shape of the whole document, then the untimed values.
    match (&a.json, &b.json) {
        (Some(ja), Some(jb)) => {
            let (pa, pb) = (key_paths(ja), key_paths(jb));
            if pa != pb {
                let first = pa.iter().zip(&pb).position(|(x, y)| x != y);
                let at = first.unwrap_or(pa.len().min(pb.len()));
                diff(
                    "JSON key paths/types",
                    format!("{:?}", &pa[at..(at + 3).min(pa.len())]),
                    format!("{:?}", &pb[at..(at + 3).min(pb.len())]),
                );
            }
            let bytes = !allowed(Allow::Bytes) && !allowed(Allow::TimeBased);
            let (mut va, vb) = (fixed_values(ja, bytes), fixed_values(jb, bytes));
            if allowed(Allow::FdatasyncCount) {
                // Move rfio's sync count where fio 3.33 puts it.
                for (x, y) in va.iter_mut().zip(&vb) {
                    if x.contains(" sync.total_ios = ") || x.contains(" read.short_ios = ") {
                        x.clone_from(y);
                    }
                }
            }
            for (x, y) in va.iter().zip(&vb) {
                diff("JSON value", x.clone(), y.clone());
            }
            diff("JSON job count", va.len().to_string(), vb.len().to_string());
        }
        (x, y) => diff(
            "JSON document present",
            x.is_some().to_string(),
            y.is_some().to_string(),
        ),
    }
    // Terse: the same lines with the same number of fields.
    // Field counts, and where fio's printf shows a NaN (0/0 of a unit
    // that issued nothing).
    let fields = |t: &[String]| {
        t.iter()
            .map(|l| {
                let f: Vec<&str> = l.split(';').collect();
                let nan: Vec<usize> = (0..f.len()).filter(|&i| f[i].contains("nan")).collect();
                format!("{} {nan:?}", f.len())
            })
            .collect::<Vec<_>>()
            .join(",")
    };
    diff("terse field counts", fields(&a.terse), fields(&b.terse));
    // Normal output layout and stderr.
    if !allowed(Allow::ErrorStreams) {
        let (mut la, mut lb) = (layout(&a.normal, &ours.dir), layout(&b.normal, &theirs.dir));
        if allowed(Allow::MixedLine) {
            la.retain(|l| !l.starts_with("mixed: IOPS="));
            lb.retain(|l| !l.starts_with("mixed: IOPS="));
        }
        if la != lb {
            let at = la.iter().zip(&lb).position(|(x, y)| x != y);
            let at = at.unwrap_or(la.len().min(lb.len()));
            diff(
                "normal layout",
                format!("line {at}: {:?}", la.get(at)),
                format!("line {at}: {:?}", lb.get(at)),
            );
        }
        diff(
            "stderr",
            masked(&ours.stderr, &ours.dir),
            masked(&theirs.stderr, &theirs.dir),
        );
    }
    let mut their_files = files_in(case, &theirs.dir);
    if allowed(Allow::VerifyStateFile) {
        their_files.retain(|name, _| !name.ends_with("-verify.state"));
    }
    diff(
        "files left",
        format!("{:?}", files_in(case, &ours.dir)),
        format!("{their_files:?}"),
    );
    if bad.is_empty() {
        let _ = std::fs::remove_dir_all(&ours.dir);
        let _ = std::fs::remove_dir_all(&theirs.dir);
    }
    bad
}

#[test]
fn sweep_matches_fio() {
    let Some(fio) = original("fio") else {
        return;
    };
    // Selected cases only, e.g. RFIO_SWEEP=e-,rw- (tag prefixes).
    let only = std::env::var("RFIO_SWEEP").unwrap_or_default();
    let selected: Vec<(usize, &Case)> = CASES
        .iter()
        .enumerate()
        .filter(|(_, c)| only.is_empty() || only.split(',').any(|p| c.tag.starts_with(p)))
        .collect();
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    // fio spends most of its half second per run asleep, so a few runs at
    // once keep the sweep short even on two cores.
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some((index, case)) = selected.get(i) else {
                    break;
                };
                let bad = compare(&fio, case, *index);
                failures.lock().expect("lock").extend(bad);
            });
        }
    });
    let failures = failures.into_inner().expect("lock");
    eprintln!(
        "sweep: {} jobs x 7 checks (exit, bytes, JSON shape+values, terse, layout, stderr, files)",
        selected.len()
    );
    assert!(
        failures.is_empty(),
        "{} mismatches with fio:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The table covers what the sweep promises.
#[test]
fn sweep_covers_every_engine_and_rw_mode() {
    let args: Vec<&str> = CASES.iter().flat_map(|c| c.args.iter().copied()).collect();
    for engine in [
        "sync", "psync", "vsync", "pvsync", "pvsync2", "libaio", "io_uring", "mmap", "null",
    ] {
        let arg = format!("--ioengine={engine}");
        assert!(args.contains(&arg.as_str()), "{engine}");
    }
    for rw in [
        "read",
        "write",
        "randread",
        "randwrite",
        "rw",
        "readwrite",
        "randrw",
        "trim",
        "randtrim",
        "trimwrite",
    ] {
        let arg = format!("--rw={rw}");
        assert!(args.contains(&arg.as_str()), "{rw}");
    }
}
