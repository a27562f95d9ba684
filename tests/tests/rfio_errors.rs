//! rfio's error output beside fio 3.33's: every failed I/O in flight gets
//! its `io_u error` line (async engines, with and without
//! continue_on_error/error_dump), a refused submission is fio's `io commit`
//! error, setup failures fio reports without an error code (an offset past
//! the end, a block larger than the data set) exit 1 with error 0, a file
//! that cannot be looked at is fio's fstat error, readonly never extends a
//! file, and a job that fails opening its file ran as far as fio's does.
//! Each case runs fio (when installed) and rfio on the same arguments in
//! fresh directories and compares stdout/stderr lines (pids, offsets and
//! measurements masked), exit codes and JSON; every run is bounded in time.
//! /dev/full stands for a device that fails every write; the tmpfs and
//! other-user cases need root and skip without it (not under CI).

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::time::Duration;

use rbench_tests::fs::{LoopDev, Mount, TempDir};
use rbench_tests::rfio::Suite;
use rbench_tests::{
    command_in, mask_after, mask_numbers, original, our_bin, parse_json, run_bounded, Ran,
};
use serde_json::Value;

const LIMIT: Duration = Duration::from_secs(60);
const SUITE: Suite = Suite::new("rbench-rfio-errors", LIMIT);

/// Run `bin args` in `dir`, as user `uid` when given (root only).
fn run_as(bin: &Path, dir: &Path, args: &[&str], uid: Option<u32>) -> Ran {
    let mut cmd = command_in(bin, dir, args);
    if let Some(u) = uid {
        cmd.uid(u).gid(u);
    }
    let out = run_bounded(&mut cmd, LIMIT);
    Ran {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code().unwrap_or(-1),
    }
}

/// Ours, and fio when installed, each in its own fresh directory that
/// `prepare` sets up (removed at the end, also on failure).
struct Pair {
    ours: Ran,
    fio: Option<Ran>,
    _dirs: Vec<TempDir>,
}

fn pair(args: &[&str], prepare: &dyn Fn(&Path)) -> Pair {
    pair_as(args, prepare, None)
}

fn pair_as(args: &[&str], prepare: &dyn Fn(&Path), uid: Option<u32>) -> Pair {
    let mut dirs = Vec::new();
    let mut go = |bin: &Path, tag: &str| {
        let d = SUITE.scratch(tag);
        prepare(&d);
        let r = run_as(bin, &d, args, uid);
        dirs.push(d);
        r
    };
    let fio = original("fio").map(|f| go(&f, "fio"));
    let ours = go(&our_bin("rfio"), "rfio");
    Pair {
        ours,
        fio,
        _dirs: dirs,
    }
}

fn io_u_lines(s: &str) -> Vec<&str> {
    s.lines()
        .filter(|l| l.starts_with("fio: io_u error"))
        .collect()
}

/// stdout's unindented lines (fio's notices, the job and group headers),
/// numbers masked, the job header cut before its pid and date.
fn layout(s: &str) -> Vec<String> {
    s.lines()
        .filter(|l| !l.starts_with(' ') && !l.is_empty())
        .map(|l| {
            let l = if l.contains("(groupid=") {
                l.split(": pid=").next().unwrap_or(l)
            } else {
                l
            };
            mask_numbers(&mask_after(l, "pid="))
        })
        .collect()
}

/// Same stderr (pids masked), same stdout layout, same exit code.
fn assert_same(p: &Pair, what: &str) {
    let Some(f) = &p.fio else { return };
    let mask = |s: &str| -> Vec<String> { s.lines().map(|l| mask_after(l, "pid=")).collect() };
    assert_eq!(
        mask(&p.ours.stderr),
        mask(&f.stderr),
        "{what}: stderr differs from fio's\nours:\n{}\nfio:\n{}",
        p.ours.stderr,
        f.stderr
    );
    assert_eq!(
        layout(&p.ours.stdout),
        layout(&f.stdout),
        "{what}: stdout differs from fio's\nours:\n{}\nfio:\n{}",
        p.ours.stdout,
        f.stdout
    );
    assert_eq!(p.ours.code, f.code, "{what}: exit code");
}

/// fio's JSON document (it may print `fio:` lines ahead of it on stdout).
fn fio_json(s: &str) -> Value {
    let start = s.find("\n{").map_or(0, |i| i + 1);
    parse_json(if s.starts_with('{') { s } else { &s[start..] })
}

fn io_uring_works() -> bool {
    // fio's own io_uring job on /dev/zero: a kernel without io_uring (or a
    // sandbox refusing it) makes both tools fail at init alike.
    let d = SUITE.scratch("probe");
    let r = run_as(
        &our_bin("rfio"),
        &d,
        &[
            "--name=p",
            "--filename=/dev/zero",
            "--rw=read",
            "--size=16k",
            "--ioengine=io_uring",
        ],
        None,
    );
    r.code == 0
}

#[test]
fn every_failed_io_in_flight_gets_its_io_u_error_line() {
    if !io_uring_works() {
        eprintln!("note: io_uring unavailable here; skipping");
        return;
    }
    let base = [
        "--name=j",
        "--filename=/dev/full",
        "--rw=write",
        "--bs=4k",
        "--size=1m",
        "--ioengine=io_uring",
        "--iodepth=8",
    ];
    let p = pair(&base, &|_| {});
    let lines = io_u_lines(&p.ours.stderr);
    assert_eq!(
        lines.len(),
        8,
        "one line per failed write:\n{}",
        p.ours.stderr
    );
    // In completion order: /dev/full completes the batch in order.
    for (k, l) in lines.iter().enumerate() {
        assert_eq!(
            *l,
            format!(
                "fio: io_u error on file /dev/full: No space left on device: write offset={}, buflen=4096",
                k * 4096
            )
        );
    }
    assert_eq!(p.ours.code, 1);
    assert!(p
        .ours
        .stdout
        .contains("err=28/file:io_u.c:1876, func=io_u error, error=No space left on device"));
    assert_same(&p, "io_uring iodepth=8 on /dev/full");

    // Two jobs: each its own eight lines (threads interleave: sorted).
    let mut args = base.to_vec();
    args.push("--numjobs=2");
    let p = pair(&args, &|_| {});
    assert_eq!(io_u_lines(&p.ours.stderr).len(), 16);
    assert_eq!(p.ours.code, 2, "fio counts each failed job");
    if let Some(f) = &p.fio {
        let mut a = io_u_lines(&p.ours.stderr);
        let mut b = io_u_lines(&f.stderr);
        a.sort_unstable();
        b.sort_unstable();
        assert_eq!(a, b);
        assert_eq!(p.ours.code, f.code);
    }
}

#[test]
fn continue_on_error_and_error_dump_decide_which_lines_show() {
    let uring = io_uring_works();
    // (extra options, io_u lines with psync, with io_uring at iodepth 8, exit)
    let cases: [(&[&str], usize, usize, i32); 5] = [
        // ENOSPC is not on the default list: still fatal, each logged.
        (&["--continue_on_error=write"], 1, 8, 1),
        (
            &["--continue_on_error=all", "--ignore_error=,ENOSPC"],
            0,
            0,
            0,
        ),
        // error_dump logs the errors continued past too: all 16 writes.
        (&["--ignore_error=,ENOSPC", "--error_dump=1"], 16, 16, 0),
        (&["--error_dump=1"], 1, 8, 1),
        (&["--continue_on_error=read"], 1, 8, 1),
    ];
    for (extra, sync_lines, async_lines, code) in cases {
        for (engine, n) in [("psync", sync_lines), ("io_uring", async_lines)] {
            if engine == "io_uring" && !uring {
                continue;
            }
            let mut args = vec![
                "--name=j",
                "--filename=/dev/full",
                "--rw=write",
                "--bs=4k",
                "--size=64k",
                "--iodepth=8",
            ];
            let e = format!("--ioengine={engine}");
            args.push(&e);
            args.extend_from_slice(extra);
            let p = pair(&args, &|_| {});
            let what = format!("{engine} {extra:?}");
            assert_eq!(
                io_u_lines(&p.ours.stderr).len(),
                n,
                "{what}:\n{}",
                p.ours.stderr
            );
            assert_eq!(p.ours.code, code, "{what}");
            assert_same(&p, &what);
        }
    }
}

#[test]
fn json_stays_one_document_beside_many_error_lines() {
    if !io_uring_works() {
        eprintln!("note: io_uring unavailable here; skipping");
        return;
    }
    let p = pair(
        &[
            "--name=j",
            "--filename=/dev/full",
            "--rw=write",
            "--size=1m",
            "--ioengine=io_uring",
            "--iodepth=8",
            "--output-format=json",
        ],
        &|_| {},
    );
    let ours = parse_json(&p.ours.stdout);
    assert_eq!(ours["jobs"][0]["error"], 28);
    assert_eq!(ours["jobs"][0]["write"]["total_ios"], 8);
    assert_eq!(io_u_lines(&p.ours.stderr).len(), 8);
    assert_eq!(p.ours.code, 1);
    if let Some(f) = &p.fio {
        assert_eq!(io_u_lines(&p.ours.stderr), io_u_lines(&f.stderr));
        let theirs = fio_json(&f.stdout);
        assert_eq!(ours["jobs"][0]["error"], theirs["jobs"][0]["error"]);
        assert_eq!(
            ours["jobs"][0]["write"]["total_ios"],
            theirs["jobs"][0]["write"]["total_ios"]
        );
        assert_eq!(p.ours.code, f.code);
    }
}

#[test]
fn a_refused_submission_is_fios_io_commit_error() {
    // libaio cannot submit to /dev/full (a character device): io_submit
    // says EINVAL, which fio reports from its commit, with no io_u line.
    let p = pair(
        &[
            "--name=j",
            "--filename=/dev/full",
            "--rw=write",
            "--size=64k",
            "--ioengine=libaio",
            "--iodepth=8",
        ],
        &|_| {},
    );
    if p.ours.stdout.contains("io_queue_init") {
        eprintln!("note: libaio unavailable here; skipping");
        return;
    }
    assert!(io_u_lines(&p.ours.stderr).is_empty(), "{}", p.ours.stderr);
    assert!(
        p.ours
            .stdout
            .contains("err=22/file:ioengines.c:496, func=io commit, error=Invalid argument"),
        "{}",
        p.ours.stdout
    );
    assert_eq!(p.ours.code, 1);
    assert_same(&p, "libaio on /dev/full");
}

#[test]
fn enospc_on_a_small_tmpfs_fails_every_write_in_flight() {
    for engine in ["io_uring", "libaio"] {
        if engine == "io_uring" && !io_uring_works() {
            continue;
        }
        let mut runs = Vec::new();
        for tool in ["fio", "rfio"] {
            let bin = if tool == "fio" {
                match original("fio") {
                    Some(b) => b,
                    None => continue,
                }
            } else {
                our_bin("rfio")
            };
            let Some(fs) = Mount::tmpfs(&format!("errors-{engine}-{tool}"), "1m") else {
                return;
            };
            let r = run_as(
                &bin,
                &fs.dir,
                &[
                    "--name=j",
                    "--filename=f",
                    "--rw=write",
                    "--bs=4k",
                    "--size=4m",
                    &format!("--ioengine={engine}"),
                    "--iodepth=8",
                ],
                None,
            );
            runs.push(r);
        }
        let ours = runs.last().expect("ours ran");
        let lines = io_u_lines(&ours.stderr);
        assert_eq!(lines.len(), 8, "{engine}:\n{}", ours.stderr);
        assert!(lines
            .iter()
            .all(|l| l
                .starts_with("fio: io_u error on file f: No space left on device: write offset=")));
        assert_eq!(ours.code, 1);
        // The latency distribution is over every I/O issued, the failed
        // ones too (fio's total_io_u): 256 of 264 writes made it.
        let share = lat_share(&ours.stdout);
        assert!((share - 25600.0 / 264.0).abs() < 0.1, "{engine}: {share}");
        if let [f, o] = &runs[..] {
            assert!((lat_share(&f.stdout) - lat_share(&o.stdout)).abs() < 0.1);
            let mask = |s: &str| -> Vec<String> {
                s.lines()
                    .map(|l| mask_after(&mask_after(l, "pid="), "offset="))
                    .collect()
            };
            assert_eq!(mask(&o.stderr), mask(&f.stderr), "{engine}");
            assert_eq!(layout(&o.stdout), layout(&f.stdout), "{engine}");
            assert_eq!(o.code, f.code);
        }
    }
}

/// The sum of the `lat (unit) : bound=P%` shares of normal output.
fn lat_share(s: &str) -> f64 {
    s.lines()
        .filter(|l| l.trim_start().starts_with("lat (") && l.contains("%"))
        .flat_map(|l| l.split(':').nth(1).unwrap_or("").split(','))
        .filter_map(|kv| kv.split('=').nth(1))
        .filter_map(|v| v.trim().trim_end_matches('%').parse::<f64>().ok())
        .sum()
}

fn one_mib_file(d: &Path) {
    std::fs::write(d.join("f1m"), vec![0u8; 1 << 20]).expect("write f1m");
}

#[test]
fn an_offset_past_the_end_fails_without_an_error_code() {
    let cases: [&[&str]; 3] = [
        &["--size=50%", "--offset=2m"],
        &["--offset=2m"],
        &["--filesize=64k", "--offset=128k"],
    ];
    for extra in cases {
        let mut args = vec!["--name=j", "--filename=f1m", "--rw=read", "--bs=4k"];
        args.extend_from_slice(extra);
        let p = pair(&args, &one_mib_file);
        let what = format!("{extra:?}");
        assert_eq!(
            p.ours.stderr, "j: you need to specify valid offset=\n",
            "{what}"
        );
        assert!(!p.ours.stdout.contains("err="), "{what}: {}", p.ours.stdout);
        assert_eq!(p.ours.code, 1, "{what}");
        assert_same(&p, &what);
        for d in &p._dirs {
            let len = std::fs::metadata(d.join("f1m")).expect("f1m").len();
            assert_eq!(len, 1 << 20, "{what}: the file is left as it was");
        }
        // JSON: the job is there, with error 0, as in fio.
        args.push("--output-format=json");
        let p = pair(&args, &one_mib_file);
        let ours = parse_json(&p.ours.stdout);
        assert_eq!(ours["jobs"][0]["error"], 0, "{what}");
        assert_eq!(p.ours.code, 1);
        if let Some(f) = &p.fio {
            let theirs = fio_json(&f.stdout);
            assert_eq!(ours["jobs"][0]["error"], theirs["jobs"][0]["error"]);
            assert_eq!(
                ours["jobs"][0].get("latency_depth").is_some(),
                theirs["jobs"][0].get("latency_depth").is_some(),
                "{what}: a job that never ran has no latency target keys"
            );
            assert_eq!(p.ours.code, f.code);
        }
    }
    // The other jobs still run; the exit code counts the failed one.
    let p = pair(
        &[
            "--name=j",
            "--filename=f1m",
            "--rw=read",
            "--size=50%",
            "--offset=2m",
            "--name=k",
            "--filename=f1m",
            "--rw=read",
            "--size=4k",
        ],
        &one_mib_file,
    );
    assert!(p.ours.stdout.contains("k: (groupid=0, jobs=1): err= 0"));
    assert_eq!(p.ours.code, 1);
    assert_same(&p, "two jobs, one with a bad offset");
}

#[test]
fn a_block_larger_than_the_data_set_fails_without_an_error_code() {
    let small = |n: usize| move |d: &Path| std::fs::write(d.join("small"), vec![0u8; n]).unwrap();
    let cases: [(usize, &[&str]); 3] = [
        (1024, &[]),
        (6144, &["--size=50%"]),
        (6144, &["--filesize=1k"]),
    ];
    for (n, extra) in cases {
        let mut args = vec!["--name=j", "--filename=small", "--rw=read", "--bs=4k"];
        args.extend_from_slice(extra);
        let p = pair(&args, &small(n));
        let what = format!("{n} bytes {extra:?}");
        assert_eq!(
            p.ours.stderr, "fio: blocksize is larger than data set range\n",
            "{what}"
        );
        assert_eq!(p.ours.code, 1, "{what}");
        assert_same(&p, &what);
    }
}

#[test]
fn empty_files_without_size_ask_for_one() {
    let empty = |d: &Path| std::fs::write(d.join("empty"), b"").unwrap();
    for file in ["empty", "/dev/zero"] {
        let f = format!("--filename={file}");
        let p = pair(&["--name=j", &f, "--rw=read"], &empty);
        assert!(
            p.ours.stderr.starts_with("j: you need to specify size=\n"),
            "{file}: {}",
            p.ours.stderr
        );
        assert!(p.ours.stderr.contains("func=total_file_size"));
        assert_eq!(p.ours.code, 1);
        assert_same(&p, file);
    }
}

#[test]
fn a_file_that_cannot_be_looked_at_is_fios_fstat_error() {
    let prepare = |d: &Path| {
        std::fs::write(d.join("plain"), b"x").unwrap();
        std::os::unix::fs::symlink("loop", d.join("loop")).unwrap();
        std::fs::create_dir(d.join("adir")).unwrap();
    };
    let cases = [
        ("plain/x", "read", "Not a directory"),
        ("plain/x", "write", "Not a directory"),
        ("loop", "read", "Too many levels of symbolic links"),
    ];
    for (file, rw, msg) in cases {
        let f = format!("--filename={file}");
        let r = format!("--rw={rw}");
        let args = ["--name=j", &f, &r, "--size=1m"];
        let p = pair(&args, &prepare);
        let what = format!("{file} {rw}");
        assert!(
            p.ours
                .stderr
                .starts_with(&format!("file:filesetup.c:455, func=fstat, error={msg}\n")),
            "{what}: {}",
            p.ours.stderr
        );
        assert!(p.ours.stderr.contains("func=fstat"));
        assert!(
            !p.ours.stdout.contains("Laying out"),
            "{what}: nothing laid out"
        );
        assert_eq!(p.ours.code, 1, "{what}");
        assert_same(&p, &what);
    }
    // A directory named as the file: EISDIR from fio's unlink before layout.
    let p = pair(
        &["--name=j", "--filename=adir", "--rw=write", "--size=1m"],
        &prepare,
    );
    assert!(p
        .ours
        .stderr
        .contains("err=21/file:filesetup.c:150, func=unlink"));
    assert_eq!(p.ours.code, 1);
    assert_same(&p, "a directory as the file");
}

#[test]
fn permission_denied_matches_fio_for_another_user() {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        rbench_tests::fs::cannot("running as another user needs root");
        return;
    }
    const NOBODY: u32 = 65534;
    // The binaries must be reachable for that user (not under a private
    // home directory).
    let reachable = std::process::Command::new(our_bin("rfio"))
        .arg("--version")
        .uid(NOBODY)
        .gid(NOBODY)
        .output()
        .is_ok_and(|o| o.status.success());
    if !reachable {
        eprintln!(
            "note: skipping: user {NOBODY} cannot run {}",
            our_bin("rfio").display()
        );
        return;
    }
    let prepare = |d: &Path| {
        use std::os::unix::fs::PermissionsExt;
        let open = std::fs::Permissions::from_mode(0o777);
        std::fs::set_permissions(d, open).unwrap();
        let private = d.join("private");
        std::fs::create_dir(&private).unwrap();
        std::fs::write(private.join("f"), vec![0u8; 1 << 20]).unwrap();
        std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o700)).unwrap();
        std::fs::write(d.join("ro"), vec![0u8; 1 << 20]).unwrap();
        std::fs::set_permissions(d.join("ro"), std::fs::Permissions::from_mode(0o444)).unwrap();
    };
    let cases = [
        ("private/f", "read"),
        ("private/new", "write"),
        ("ro", "write"),
        ("ro", "read"),
    ];
    for (file, rw) in cases {
        let f = format!("--filename={file}");
        let r = format!("--rw={rw}");
        let p = pair_as(&["--name=j", &f, &r, "--size=1m"], &prepare, Some(NOBODY));
        let what = format!("{file} {rw}");
        let expect = match (file, rw) {
            ("ro", "read") => 0,
            _ => 1,
        };
        assert_eq!(p.ours.code, expect, "{what}: {}", p.ours.stderr);
        if file.starts_with("private") {
            assert!(p
                .ours
                .stderr
                .starts_with("file:filesetup.c:455, func=fstat, error=Permission denied\n"));
        }
        assert_same(&p, &what);
    }
}

/// `--readonly` 1 MiB sequential read, iodepth 8 on `engine`, of a file
/// `len` bytes long (fio and rfio).
fn readonly_read_of_short_file(engine: &str, len: usize) -> Pair {
    let e = format!("--ioengine={engine}");
    let args = [
        "--name=j",
        "--filename=short",
        "--rw=read",
        "--bs=4k",
        "--size=1m",
        "--iodepth=8",
        "--readonly",
        &e,
    ];
    pair(&args, &|d: &Path| {
        std::fs::write(d.join("short"), vec![7u8; len]).expect("write the short file")
    })
}

#[test]
fn readonly_never_extends_a_file() {
    let short_len = 65536;
    let uring = io_uring_works();
    for (engine, code) in [("psync", 1), ("io_uring", 0), ("libaio", 0)] {
        if engine == "io_uring" && !uring {
            continue;
        }
        let p = readonly_read_of_short_file(engine, short_len);
        assert_eq!(
            p.ours.stderr, "fio: refusing extend of file due to read-only\n",
            "{engine}"
        );
        assert!(p
            .ours
            .stdout
            .contains("fio: cache invalidation of short failed: Bad file descriptor\n"));
        // A sync read past the end moves nothing: fio's full resid (EIO);
        // async engines count such reads as done.
        assert_eq!(p.ours.code, code, "{engine}: {}", p.ours.stdout);
        for d in &p._dirs {
            let len = std::fs::metadata(d.join("short")).unwrap().len();
            assert_eq!(len, 65536, "{engine}: not extended");
        }
        assert_same(&p, engine);
        // Reads past the end that find nothing are not short ones.
        let issued = |s: &str| -> String {
            s.lines()
                .find(|l| l.contains("issued rwts"))
                .unwrap_or_default()
                .to_string()
        };
        assert!(
            issued(&p.ours.stdout).contains("short=0,0,0,0"),
            "{engine}: {}",
            issued(&p.ours.stdout)
        );
        if let Some(f) = &p.fio {
            assert_eq!(issued(&p.ours.stdout), issued(&f.stdout), "{engine}");
        }
    }
    // A missing file is not created: its open in the job fails, and the
    // job ran that far (disk stats, JSON latency keys, one empty reap).
    let args = [
        "--name=j",
        "--filename=nofile",
        "--rw=read",
        "--size=1m",
        "--readonly",
    ];
    let p = pair(&args, &|_| {});
    assert!(p.ours.stdout.contains(
        "err=2/file:filesetup.c:805, func=open(nofile), error=No such file or directory"
    ));
    assert_eq!(p.ours.code, 1);
    assert_same(&p, "readonly, missing file");
    let mut args = args.to_vec();
    args.push("--output-format=json");
    let p = pair(&args, &|_| {});
    let ours = parse_json(&p.ours.stdout);
    assert_eq!(ours["jobs"][0]["error"], 2);
    assert!(ours["jobs"][0].get("latency_depth").is_some());
    assert_eq!(ours["jobs"][0]["iodepth_complete"]["0"], 100.0);
    if let Some(f) = &p.fio {
        let theirs = fio_json(&f.stdout);
        for key in ["error", "iodepth_complete", "latency_depth"] {
            assert_eq!(ours["jobs"][0][key], theirs["jobs"][0][key], "{key}");
        }
        assert_eq!(
            ours.get("disk_util").is_some(),
            theirs.get("disk_util").is_some()
        );
    }
}

#[test]
fn without_size_the_region_is_what_lies_past_the_offset() {
    let p = pair(
        &["--name=j", "--filename=f1m", "--rw=read", "--offset=512k"],
        &one_mib_file,
    );
    assert!(p.ours.stdout.contains("io=512KiB"), "{}", p.ours.stdout);
    assert!(!p.ours.stdout.contains("Laying out"));
    assert_eq!(p.ours.code, 0);
    for d in &p._dirs {
        let len = std::fs::metadata(d.join("f1m")).expect("f1m").len();
        assert_eq!(len, 1 << 20, "never extended");
    }
    assert_same(&p, "offset=512k without size");
    // At the very end: fio leaves the file out, then finds nothing to do.
    let p = pair(
        &["--name=j", "--filename=f1m", "--rw=read", "--offset=1m"],
        &one_mib_file,
    );
    assert!(p.ours.stdout.contains("fio: file f1m may be ignored\n"));
    assert_eq!(
        p.ours.stderr,
        "fio: blocksize is larger than data set range\n"
    );
    assert_eq!(p.ours.code, 1);
    assert_same(&p, "offset=1m without size");
    // Files of different sizes: each is read whole, none extended.
    let two = |d: &Path| {
        std::fs::write(d.join("a"), vec![0u8; 64 << 10]).unwrap();
        std::fs::write(d.join("b"), vec![0u8; 192 << 10]).unwrap();
    };
    let p = pair(&["--name=j", "--filename=a:b", "--rw=read"], &two);
    assert!(p.ours.stdout.contains("io=256KiB"), "{}", p.ours.stdout);
    for d in &p._dirs {
        assert_eq!(std::fs::metadata(d.join("a")).unwrap().len(), 64 << 10);
        assert_eq!(std::fs::metadata(d.join("b")).unwrap().len(), 192 << 10);
    }
    assert_same(&p, "two files without size");
}

/// A loop device of `size` bytes with `sector`-byte sectors (root only).
fn loop_dev(name: &str, size: u64, sector: u32) -> Option<LoopDev> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        rbench_tests::fs::cannot("loop devices need root");
        return None;
    }
    LoopDev::new(
        &format!("{}-{name}", SUITE.prefix),
        size,
        Some(sector),
        LIMIT,
    )
}

#[test]
fn a_block_device_smaller_than_size_is_never_passed() {
    let Some(lo) = loop_dev("small", 1 << 20, 512) else {
        return;
    };
    let f = format!("--filename={}", lo.dev);
    for rw in ["read", "write", "randread", "randwrite"] {
        let r = format!("--rw={rw}");
        let p = pair(&["--name=j", &f, &r, "--size=4m"], &|_| {});
        // Sequential stops at the end, random draws inside: 1 MiB, no error.
        assert!(
            p.ours.stdout.contains("io=1024KiB"),
            "{rw}: {}",
            p.ours.stdout
        );
        assert_eq!(p.ours.code, 0, "{rw}: {}", p.ours.stderr);
        assert_same(&p, rw);
    }
    let p = pair(&["--name=j", &f, "--rw=read", "--offset=2m"], &|_| {});
    assert_eq!(p.ours.stderr, "j: you need to specify valid offset=\n");
    assert_eq!(p.ours.code, 1);
    assert_same(&p, "offset past a block device's end");
}

#[test]
fn the_direct_io_note_comes_with_sync_engines_only() {
    // 4 KiB sectors refuse 512-byte direct I/O with EINVAL.
    let Some(lo) = loop_dev("4k-sectors", 4 << 20, 4096) else {
        return;
    };
    let f = format!("--filename={}", lo.dev);
    let note = "fio: first direct IO errored.";
    let uring = io_uring_works();
    for (engine, lines, noted) in [
        ("psync", 1, true),
        ("io_uring", 4, false),
        ("libaio", 4, false),
    ] {
        if engine == "io_uring" && !uring {
            continue;
        }
        let e = format!("--ioengine={engine}");
        let args = [
            "--name=j",
            &f,
            "--rw=read",
            "--bs=512",
            "--direct=1",
            "--size=64k",
            "--iodepth=4",
            &e,
        ];
        let p = pair(&args, &|_| {});
        assert_eq!(
            io_u_lines(&p.ours.stderr).len(),
            lines,
            "{engine}: {}",
            p.ours.stderr
        );
        assert_eq!(
            p.ours.stdout.contains(note),
            noted,
            "{engine}: {}",
            p.ours.stdout
        );
        assert_eq!(p.ours.code, 1);
        assert_same(&p, engine);
    }
    // Only for the first I/O: read:512 skips 512 bytes after each read, so
    // the second one is misaligned and fails without the note.
    let args = [
        "--name=j",
        &f,
        "--rw=read:512",
        "--bs=4k",
        "--direct=1",
        "--size=64k",
    ];
    let p = pair(&args, &|_| {});
    assert_eq!(
        io_u_lines(&p.ours.stderr),
        [format!(
            "fio: io_u error on file {}: Invalid argument: read offset=4608, buflen=4096",
            lo.dev
        )]
    );
    assert!(!p.ours.stdout.contains(note), "{}", p.ours.stdout);
    assert_same(&p, "second I/O misaligned");
}

#[test]
fn errors_during_ramp_time_keep_their_lines_and_counts() {
    let uring = io_uring_works();
    for engine in ["psync", "io_uring"] {
        if engine == "io_uring" && !uring {
            continue;
        }
        let e = format!("--ioengine={engine}");
        // Fatal: the job ends inside its ramp, every failed write logged.
        let fatal = [
            "--name=j",
            "--filename=/dev/full",
            "--rw=write",
            "--size=1m",
            "--iodepth=8",
            "--ramp_time=2",
            "--runtime=3",
            "--time_based",
            &e,
        ];
        let p = pair(&fatal, &|_| {});
        let n = if engine == "psync" { 1 } else { 8 };
        assert_eq!(io_u_lines(&p.ours.stderr).len(), n, "{engine}");
        assert_eq!(p.ours.code, 1);
        assert_same(&p, &format!("{engine} fatal in ramp"));
        // Continued past: the count and first error outlive the ramp.
        let cont = [
            "--name=j",
            "--filename=/dev/full",
            "--rw=write",
            "--size=64k",
            "--iodepth=8",
            "--ramp_time=1",
            "--ignore_error=,ENOSPC",
            "--output-format=json",
            &e,
        ];
        let p = pair(&cont, &|_| {});
        let ours = parse_json(&p.ours.stdout);
        assert_eq!(ours["jobs"][0]["total_err"], 16, "{engine}");
        assert_eq!(ours["jobs"][0]["first_error"], 28, "{engine}");
        assert_eq!(p.ours.code, 0);
        if let Some(f) = &p.fio {
            let theirs = fio_json(&f.stdout);
            for key in ["error", "total_err", "first_error"] {
                assert_eq!(
                    ours["jobs"][0][key], theirs["jobs"][0][key],
                    "{engine} {key}"
                );
            }
        }
    }
}

#[test]
fn a_failed_trim_is_reported_from_the_queue_call() {
    // fio trims synchronously inside its queue call for every engine: no
    // io_u error line, the error's site is ioengines.c:399 td_io_queue,
    // and BLKDISCARD on a character device says ENOTTY.
    let uring = io_uring_works();
    for engine in ["psync", "io_uring", "libaio"] {
        if engine == "io_uring" && !uring {
            continue;
        }
        let e = format!("--ioengine={engine}");
        let args = [
            "--name=j",
            "--filename=/dev/full",
            "--rw=trim",
            "--size=64k",
            "--iodepth=4",
            &e,
        ];
        let p = pair(&args, &|_| {});
        assert!(
            io_u_lines(&p.ours.stderr).is_empty(),
            "{engine}: {}",
            p.ours.stderr
        );
        let site = "err=25/file:ioengines.c:399, func=td_io_queue, error=Inappropriate ioctl";
        assert!(p.ours.stdout.contains(site), "{engine}: {}", p.ours.stdout);
        assert_eq!(p.ours.code, 1);
        if let Some(f) = &p.fio {
            assert!(io_u_lines(&f.stderr).is_empty());
            assert!(f.stdout.contains(site), "{engine}: {}", f.stdout);
            assert_eq!(p.ours.code, f.code);
        }
    }
}

#[test]
fn with_output_error_lines_go_to_stderr_and_the_file() {
    // fio's log_err writes stderr and, with --output, the file as well;
    // fio runs as threads here (--thread) so its file gets the job's lines
    // (forked jobs lose them with their stdio buffer at exit).
    if !io_uring_works() {
        eprintln!("note: io_uring unavailable here; skipping");
        return;
    }
    let p = pair(
        &[
            "--name=j",
            "--filename=/dev/full",
            "--rw=write",
            "--size=64k",
            "--ioengine=io_uring",
            "--iodepth=8",
            "--thread",
            "--output=o.txt",
        ],
        &|_| {},
    );
    assert_eq!(io_u_lines(&p.ours.stderr).len(), 8, "{}", p.ours.stderr);
    assert!(p.ours.stdout.is_empty());
    let files: Vec<String> = p
        ._dirs
        .iter()
        .map(|d| std::fs::read_to_string(d.join("o.txt")).expect("o.txt"))
        .collect();
    let ours = files.last().expect("ours");
    assert_eq!(io_u_lines(ours).len(), 8, "{ours}");
    assert!(ours.contains("err=28/file:io_u.c:1876"));
    assert_same(&p, "--output");
    if let [theirs, ours] = &files[..] {
        assert_eq!(layout(ours), layout(theirs));
        assert_eq!(io_u_lines(ours), io_u_lines(theirs));
    }
}

#[test]
fn failed_syncs_are_reported_as_each_engine_does_in_fio() {
    // fsync on /dev/zero says EINVAL. fio: a sync engine logs the io_u
    // line; libaio fails inside its queue call (td_io_queue, no line);
    // io_uring never looks at a sync's result. end_fsync adds `end_fsync
    // failed for file F`, and a failed sync keeps its unit, so with one
    // unit the next file fails without trying (no io_u line).
    let uring = io_uring_works();
    let queue_site = "err=22/file:ioengines.c:399, func=td_io_queue";
    let io_u_site = "err=22/file:io_u.c:1876, func=io_u error";
    // (engine, option, files, io_u lines, end_fsync lines, site, exit)
    let cases: [(&str, &str, &str, usize, usize, &str, i32); 8] = [
        ("psync", "--fsync=4", "/dev/zero", 1, 0, io_u_site, 1),
        ("libaio", "--fsync=4", "/dev/zero", 0, 0, queue_site, 1),
        ("io_uring", "--fsync=4", "/dev/zero", 0, 0, "", 0),
        ("psync", "--end_fsync=1", "/dev/zero", 1, 1, io_u_site, 1),
        (
            "psync",
            "--fsync_on_close=1",
            "/dev/zero",
            1,
            1,
            io_u_site,
            1,
        ),
        ("libaio", "--end_fsync=1", "/dev/zero", 0, 1, queue_site, 1),
        ("io_uring", "--end_fsync=1", "/dev/zero", 0, 0, "", 0),
        (
            "psync",
            "--end_fsync=1",
            "/dev/zero:/dev/null",
            1,
            2,
            io_u_site,
            1,
        ),
    ];
    for (engine, opt, files, lines, ends, site, code) in cases {
        if engine == "io_uring" && !uring {
            continue;
        }
        let e = format!("--ioengine={engine}");
        let f = format!("--filename={files}");
        let args = ["--name=j", &f, "--rw=write", "--size=64k", opt, &e];
        let p = pair(&args, &|_| {});
        let what = format!("{engine} {opt} {files}");
        let io_u = io_u_lines(&p.ours.stderr);
        assert_eq!(io_u.len(), lines, "{what}: {}", p.ours.stderr);
        assert!(io_u.iter().all(|l| l.contains(": sync offset=")), "{what}");
        let end_lines = p
            .ours
            .stderr
            .lines()
            .filter(|l| l.starts_with("fio: end_fsync failed for file /dev/"))
            .count();
        assert_eq!(end_lines, ends, "{what}: {}", p.ours.stderr);
        if site.is_empty() {
            assert!(!p.ours.stdout.contains("fio: pid="), "{what}");
            assert!(p.ours.stdout.contains("err= 0:"), "{what}");
        } else {
            assert!(p.ours.stdout.contains(site), "{what}: {}", p.ours.stdout);
        }
        assert_eq!(p.ours.code, code, "{what}");
        assert_same(&p, &what);
    }
}

/// `issued rwts` and the group's `io=` of normal output.
fn counts(s: &str) -> (String, String) {
    let find = |key: &str| {
        s.lines()
            .find(|l| l.contains(key))
            .map(|l| l.trim().to_string())
            .unwrap_or_default()
    };
    let io = find("io=");
    let io = io
        .split(", ")
        .find(|p| p.starts_with("io="))
        .and_then(|p| p.split(' ').next())
        .unwrap_or("");
    (find("issued rwts"), io.to_string())
}

#[test]
fn a_short_transfer_is_issued_again_for_the_rest() {
    // fio counts a short read or write and issues the rest again, the bytes
    // moved so far never counted: a 66 KiB file read as 1 MiB (readonly)
    // moves 64 KiB; the rest of a 6 KiB write that filled a 1 MiB tmpfs
    // fails with its own offset and length.
    let uring = io_uring_works();
    let short_len = 66 << 10;
    for (engine, code, issued) in [("psync", 1, 18), ("io_uring", 0, 257), ("libaio", 0, 257)] {
        if engine == "io_uring" && !uring {
            continue;
        }
        let p = readonly_read_of_short_file(engine, short_len);
        let (iss, io) = counts(&p.ours.stdout);
        assert_eq!(io, "io=64.0KiB", "{engine}: {}", p.ours.stdout);
        assert!(
            iss.contains(&format!("total={issued},0,0,0 short=1,0,0,0")),
            "{engine}: {iss}"
        );
        assert_eq!(p.ours.code, code, "{engine}");
        assert_same(&p, engine);
        if let Some(f) = &p.fio {
            assert_eq!(counts(&p.ours.stdout), counts(&f.stdout), "{engine}");
        }
    }
    for engine in ["psync", "io_uring", "libaio"] {
        if engine == "io_uring" && !uring {
            continue;
        }
        let mut runs = Vec::new();
        for tool in ["fio", "rfio"] {
            let bin = match tool {
                "fio" => match original("fio") {
                    Some(b) => b,
                    None => continue,
                },
                _ => our_bin("rfio"),
            };
            let Some(fs) = Mount::tmpfs(&format!("errors-short-{engine}-{tool}"), "1m") else {
                return;
            };
            let e = format!("--ioengine={engine}");
            let args = [
                "--name=j",
                "--filename=f",
                "--rw=write",
                "--bs=6k",
                "--size=4m",
                "--iodepth=4",
                &e,
            ];
            runs.push(run_as(&bin, &fs.dir, &args, None));
        }
        let ours = runs.last().expect("ours ran");
        let lines = io_u_lines(&ours.stderr);
        assert_eq!(
            lines.last().copied(),
            Some(
                "fio: io_u error on file f: No space left on device: write offset=1048576, buflen=2048"
            ),
            "{engine}: {}",
            ours.stderr
        );
        assert_eq!(counts(&ours.stdout).1, "io=1020KiB", "{engine}");
        assert_eq!(ours.code, 1);
        if let [f, o] = &runs[..] {
            assert_eq!(o.stderr, f.stderr, "{engine}");
            assert_eq!(counts(&o.stdout), counts(&f.stdout), "{engine}");
            assert_eq!(o.code, f.code);
        }
    }
}

#[test]
fn vsync_reports_errors_from_its_batch() {
    // fio's vsync moves its batch in one call and reports a failure from
    // there (engines/sync.c:364, xfer vsync), with no io_u error line.
    let site = "file:engines/sync.c:364, func=xfer vsync, error=No space left on device";
    let cases: [(&[&str], i32); 3] = [
        (&[], 1),
        (&["--continue_on_error=all", "--ignore_error=,ENOSPC"], 0),
        (
            &[
                "--continue_on_error=all",
                "--ignore_error=,ENOSPC",
                "--error_dump=1",
            ],
            0,
        ),
    ];
    for (extra, code) in cases {
        let mut args = vec![
            "--name=j",
            "--filename=/dev/full",
            "--rw=write",
            "--size=64k",
            "--ioengine=vsync",
        ];
        args.extend_from_slice(extra);
        let p = pair(&args, &|_| {});
        let what = format!("{extra:?}");
        assert!(
            io_u_lines(&p.ours.stderr).is_empty(),
            "{what}: {}",
            p.ours.stderr
        );
        assert!(p.ours.stdout.contains(site), "{what}: {}", p.ours.stdout);
        assert_eq!(p.ours.code, code, "{what}");
        assert_same(&p, &what);
    }
}

#[test]
fn an_engine_that_cannot_start_fails_at_its_own_site() {
    // mmap refuses /dev/full: fio's in-job error at engines/mmap.c:118, no
    // report block (no I/O was issued), JSON error 19 with one empty reap.
    for rw in ["write", "read"] {
        let r = format!("--rw={rw}");
        let args = [
            "--name=j",
            "--filename=/dev/full",
            &r,
            "--size=64k",
            "--ioengine=mmap",
        ];
        let p = pair(&args, &|_| {});
        assert!(
            p.ours
                .stdout
                .contains("err=19/file:engines/mmap.c:118, func=mmap, error=No such device"),
            "{rw}: {}",
            p.ours.stdout
        );
        assert!(!p.ours.stdout.contains("(groupid="), "{rw}: no block");
        assert_eq!(p.ours.code, 1);
        assert_same(&p, rw);
    }
    let p = pair(
        &[
            "--name=j",
            "--filename=/dev/full",
            "--rw=write",
            "--size=64k",
            "--ioengine=mmap",
            "--output-format=json",
        ],
        &|_| {},
    );
    let ours = parse_json(&p.ours.stdout);
    assert_eq!(ours["jobs"][0]["error"], 19);
    assert_eq!(ours["jobs"][0]["iodepth_complete"]["0"], 100.0);
    if let Some(f) = &p.fio {
        let theirs = fio_json(&f.stdout);
        for key in ["error", "iodepth_complete", "latency_depth"] {
            assert_eq!(ours["jobs"][0][key], theirs["jobs"][0][key], "{key}");
        }
    }
}
