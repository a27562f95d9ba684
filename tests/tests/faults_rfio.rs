//! rfio under faults (issue 8): a full file system while laying out a file
//! and while writing, the target file truncated or deleted mid-run, its
//! directory removed mid-run, a read-only file, O_DIRECT refused by the file
//! system, an iodepth x bs that cannot be allocated, SIGINT/SIGTERM mid-run,
//! SIGKILL then the next run, and writing to a mounted block device. Each
//! runs fio 3.33 in the same situation (when installed) and compares its
//! `fio:` error lines (pids and offsets masked) and exit status, checks that
//! our JSON/CSV is valid for what ran, that no file appears beside the job's
//! own, and is bounded in time.
//!
//! The tests mount small file systems and make loop devices, so they need
//! root; without it they say so and skip, except under CI (`CI` set), where
//! root is required.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::Duration;

use rbench_tests::fs::{file_names, LoopFs, Mount};
use rbench_tests::{
    command_in, is_open, mask_after, original, our_bin, ours_then_original, parse_json,
    run_bounded, run_finished, run_ok, Finished,
};

const LIMIT: Duration = Duration::from_secs(60);

fn run(bin: &Path, dir: &Path, args: &[&str]) -> Finished {
    run_finished(bin, dir, args, LIMIT)
}

/// Ours, and fio when installed, each with its own directory name.
fn tools() -> Vec<(&'static str, PathBuf)> {
    ours_then_original("ours", "rfio", "fio")
}

/// Lay out `x.0.0` of `size` in `dir` with a write job (64 KiB blocks,
/// `extra` options added); the job must succeed.
fn lay_out(bin: &Path, dir: &Path, size: &str, extra: &[&str]) {
    let size = format!("--size={size}");
    let args = [&["--name=x", "--rw=write", &size, "--bs=64k"], extra].concat();
    let lay = run(bin, dir, &args);
    assert_eq!(lay.code, Some(0), "{}: {}", bin.display(), lay.err);
}

/// fio's error lines from both streams (which stream varies: fio puts some
/// on stdout even before JSON, rfio keeps JSON valid), pids and offsets
/// masked, sorted.
fn fio_lines(r: &Finished) -> Vec<String> {
    let mut v: Vec<String> = r
        .out
        .lines()
        .chain(r.err.lines())
        .filter(|l| l.starts_with("fio:"))
        .map(|l| mask_after(&mask_after(l, "pid="), "offset="))
        .collect();
    v.sort();
    v
}

/// Our CSV: a header and one row per job and direction, all as wide as it.
fn check_csv(s: &str) {
    let rows: Vec<&str> = s.lines().filter(|l| !l.starts_with("fio:")).collect();
    assert!(rows.len() >= 2, "{s}");
    let width = rows[0].split(',').count();
    assert!(rows[0].starts_with("jobname,"), "{s}");
    assert!(rows.iter().all(|r| r.split(',').count() == width), "{s}");
}

fn spawn(bin: &Path, dir: &Path, args: &[&str]) -> Child {
    // A backgrounded CI shell hands SIGINT down ignored: undo that.
    // Its own process group, so that SIGKILL can reach the whole tool
    // (killed alone, fio's parent leaves its job processes waiting).
    rbench_tests::spawn_piped(
        rbench_tests::default_signals(&mut command_in(bin, dir, args)).process_group(0),
    )
}

/// Start `args` in `dir`; once the job has `file` open (bounded) and has
/// run `after` more, do `fault`; wait (bounded) for the end.
fn fault_mid_run(
    bin: &Path,
    dir: &Path,
    args: &[&str],
    file: &Path,
    after: Duration,
    fault: impl FnOnce(),
) -> Finished {
    let mut child = spawn(bin, dir, args);
    let start = std::time::Instant::now();
    while !is_open(file) {
        if start.elapsed() > LIMIT || child.try_wait().expect("try_wait").is_some() {
            let r = Finished::from(rbench_tests::wait_output_bounded(child, LIMIT));
            panic!("{} never opened: {}{}", file.display(), r.out, r.err);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(after);
    fault();
    rbench_tests::wait_output_bounded(child, LIMIT).into()
}

#[test]
fn no_space_while_laying_out_a_file() {
    let mut seen = Vec::new();
    for (who, bin) in tools() {
        // A read job lays its 8 MiB file out first: the 2 MiB fill up.
        let Some(fs) = Mount::tmpfs(&format!("enospc-layout-{who}"), "2m") else {
            return;
        };
        let d = fs.open_sub("job");
        let args = ["--name=x", "--rw=randread", "--size=8m", "--bs=4k"];
        let r = run(&bin, &d, &args);
        assert_eq!(r.code, Some(1), "{who}: {}{}", r.out, r.err);
        assert!(
            r.out.contains("x: Laying out IO file (1 file / 8MiB)\n"),
            "{who}: {}",
            r.out
        );
        assert!(
            r.out.contains("fio: ENOSPC on laying out file, stopping\n"),
            "{who}: {}",
            r.out
        );
        assert_eq!(file_names(&d), ["x.0.0"], "{who}");
        seen.push(fio_lines(&r));
        if who == "ours" {
            std::fs::remove_file(d.join("x.0.0")).expect("rm");
            let r = run(&bin, &d, &[&args[..], &["--output-format=json"]].concat());
            assert_eq!(r.code, Some(1), "{}", r.err);
            let v = parse_json(&r.out);
            assert_eq!(v["jobs"][0]["error"], 28, "{v}");
            assert_eq!(v["jobs"][0]["read"]["io_bytes"], 0, "{v}");
            assert_eq!(file_names(&d), ["x.0.0"]);
        }
    }
    assert_eq!(
        seen[0],
        [
            "fio: ENOSPC on laying out file, stopping",
            "fio: pid=N, err=28/file:filesetup.c:240, func=write, error=No space left on device",
        ]
    );
    if seen.len() == 2 {
        assert_eq!(seen[0], seen[1], "ours, then fio's");
    }
}

#[test]
fn no_space_during_a_write_job() {
    let mut seen = Vec::new();
    let mut written = Vec::new();
    for (who, bin) in tools() {
        let Some(fs) = Mount::tmpfs(&format!("enospc-write-{who}"), "2m") else {
            return;
        };
        let d = fs.open_sub("job");
        let args = [
            "--name=x",
            "--rw=write",
            "--size=8m",
            "--bs=64k",
            "--output-format=json",
        ];
        let r = run(&bin, &d, &args);
        assert_eq!(r.code, Some(1), "{who}: {}{}", r.out, r.err);
        assert_eq!(file_names(&d), ["x.0.0"], "{who}");
        seen.push(fio_lines(&r));
        // fio prints its pid= line on stdout before the JSON; take the
        // document from its first brace.
        let doc = r.out.find('{').map_or("", |i| &r.out[i..]);
        let v = parse_json(if who == "ours" { &r.out } else { doc });
        assert_eq!(v["jobs"][0]["error"], 28, "{who}: {v}");
        written.push(
            v["jobs"][0]["write"]["io_bytes"]
                .as_u64()
                .expect("io_bytes"),
        );
        // The file is as long as what was written (fallocate failed, and a
        // write job's file is not truncated to its size).
        let len = std::fs::metadata(d.join("x.0.0")).expect("stat").len();
        assert_eq!(Some(&len), written.last(), "{who}: file length");
        if who == "ours" {
            // What the file system took is what the report says was written.
            let blocks = std::os::unix::fs::MetadataExt::blocks(
                &std::fs::metadata(d.join("x.0.0")).expect("stat"),
            );
            assert_eq!(written[0], blocks * 512, "{v}");
            std::fs::remove_file(d.join("x.0.0")).expect("rm");
            let r = run(&bin, &d, &[&args[..4], &["--output-format=csv"]].concat());
            assert_eq!(r.code, Some(1), "{}", r.err);
            check_csv(&r.out);
            assert!(r.out.lines().all(|l| !l.starts_with("fio:")), "{}", r.out);
            std::fs::remove_file(d.join("x.0.0")).expect("rm");
        }
    }
    assert_eq!(
        seen[0],
        [
            "fio: io_u error on file x.0.0: No space left on device: write offset=N, buflen=65536",
            "fio: pid=N, err=28/file:io_u.c:1876, func=io_u error, error=No space left on device",
        ]
    );
    assert!(written[0] > 0 && written[0] <= 2 << 20, "{written:?}");
    if seen.len() == 2 {
        assert_eq!(seen[0], seen[1], "ours, then fio's");
        assert_eq!(written[0], written[1], "bytes written before ENOSPC");
    }
}

#[test]
fn a_file_truncated_mid_run_is_fios_full_resid() {
    let Some(fs) = Mount::tmpfs("truncate", "64m") else {
        return;
    };
    let mut seen = Vec::new();
    for (who, bin) in tools() {
        let d = fs.open_sub(who);
        lay_out(&bin, &d, "16m", &[]);
        let args = [
            "--name=x",
            "--rw=randread",
            "--size=16m",
            "--bs=4k",
            "--runtime=20",
            "--time_based",
            "--output-format=json",
        ];
        let file = d.join("x.0.0");
        let r = fault_mid_run(&bin, &d, &args, &file, Duration::from_millis(300), || {
            std::fs::OpenOptions::new()
                .write(true)
                .open(&file)
                .expect("open")
                .set_len(0)
                .expect("truncate");
        });
        assert_eq!(r.code, Some(1), "{who}: {}", r.err);
        assert_eq!(file_names(&d), ["x.0.0"], "{who}");
        seen.push(fio_lines(&r));
        if who == "ours" {
            let v = parse_json(&r.out);
            assert_eq!(v["jobs"][0]["error"], 5, "{v}");
            assert!(v["jobs"][0]["read"]["io_bytes"].as_u64() > Some(0), "{v}");
        }
    }
    assert_eq!(
        seen[0],
        ["fio: pid=N, err=5/file:backend.c:471, func=full resid, error=Input/output error"]
    );
    if seen.len() == 2 {
        assert_eq!(seen[0], seen[1], "ours, then fio's");
    }
}

#[test]
fn a_file_or_its_directory_removed_mid_run_is_not_an_error() {
    let Some(fs) = Mount::tmpfs("unlink", "64m") else {
        return;
    };
    // The open descriptor keeps the file alive: the job finishes, reports
    // and exits 0, and nothing is recreated.
    for (who, bin) in tools() {
        let d = fs.open_sub(who);
        lay_out(&bin, &d, "16m", &[]);
        let args = [
            "--name=x",
            "--rw=randrw",
            "--size=16m",
            "--bs=4k",
            "--runtime=2",
            "--time_based",
            "--output-format=json",
        ];
        let file = d.join("x.0.0");
        let r = fault_mid_run(&bin, &d, &args, &file, Duration::from_millis(300), || {
            std::fs::remove_file(&file).expect("rm");
        });
        assert_eq!(r.code, Some(0), "{who}: {}", r.err);
        assert_eq!(fio_lines(&r), Vec::<String>::new(), "{who}");
        let v = parse_json(&r.out);
        assert_eq!(v["jobs"][0]["error"], 0, "{who}: {v}");
        assert!(
            v["jobs"][0]["write"]["io_bytes"].as_u64() > Some(0),
            "{who}: {v}"
        );
        assert!(file_names(&d).is_empty(), "{who}: {:?}", file_names(&d));

        // The whole directory (its file laid out first), with the job
        // running in another one. CSV is rfio's own format.
        let gone = fs.open_sub(&format!("{who}-gone"));
        let dir_arg = format!("--directory={}", gone.display());
        lay_out(&bin, &d, "16m", &[&dir_arg]);
        let format = if who == "ours" {
            "--output-format=csv"
        } else {
            "--output-format=terse"
        };
        let args = [&args[..6], &[format, &dir_arg]].concat();
        let in_gone = gone.join("x.0.0");
        let r = fault_mid_run(
            &bin,
            &d,
            &args,
            &in_gone,
            Duration::from_millis(300),
            || {
                std::fs::remove_dir_all(&gone).expect("rm -r");
            },
        );
        assert_eq!(r.code, Some(0), "{who}: {}", r.err);
        if who == "ours" {
            check_csv(&r.out);
        }
        assert!(!gone.exists(), "{who}: the removed directory was recreated");
        assert!(file_names(&d).is_empty(), "{who}: {:?}", file_names(&d));
    }
}

#[test]
fn a_read_only_file_refuses_writes_and_allows_reads() {
    use std::os::unix::fs::PermissionsExt;
    let Some(fs) = Mount::tmpfs("readonly", "16m") else {
        return;
    };
    let nobody = 65534;
    let mut seen = Vec::new();
    for (who, bin) in tools() {
        let d = fs.open_sub(who);
        lay_out(&bin, &d, "1m", &[]);
        let file = d.join("x.0.0");
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o444)).expect("chmod");
        std::os::unix::fs::chown(&file, Some(nobody), Some(nobody)).expect("chown");
        // Root ignores file modes: run as nobody, who owns the 0444 file.
        let as_nobody = |args: &[&str]| {
            let mut c = command_in(&bin, &d, args);
            c.uid(nobody).gid(nobody);
            Finished::from(run_bounded(&mut c, LIMIT))
        };
        let w = as_nobody(&[
            "--name=x",
            "--rw=randwrite",
            "--size=1m",
            "--bs=4k",
            "--output-format=json",
        ]);
        assert_eq!(w.code, Some(1), "{who}: {}{}", w.out, w.err);
        seen.push(fio_lines(&w));
        if who == "ours" {
            assert_eq!(parse_json(&w.out)["jobs"][0]["error"], 13);
        }
        let r = as_nobody(&[
            "--name=x",
            "--rw=read",
            "--size=1m",
            "--bs=4k",
            "--output-format=json",
        ]);
        assert_eq!(r.code, Some(0), "{who}: {}", r.err);
        let v = parse_json(&r.out);
        assert_eq!(v["jobs"][0]["read"]["io_bytes"], 1 << 20, "{who}");
        assert_eq!(file_names(&d), ["x.0.0"], "{who}");
        assert_eq!(std::fs::metadata(&file).expect("stat").len(), 1 << 20);
    }
    assert_eq!(
        seen[0],
        ["fio: pid=N, err=13/file:filesetup.c:805, func=open(x.0.0), error=Permission denied"]
    );
    if seen.len() == 2 {
        assert_eq!(seen[0], seen[1], "ours, then fio's");
    }
}

#[test]
fn direct_io_refused_by_the_file_system() {
    // tmpfs accepts O_DIRECT since Linux 6.6; ramfs never has.
    let Some(fs) = Mount::new("direct", "ramfs", "mode=0777") else {
        return;
    };
    let mut seen = Vec::new();
    for (who, bin) in tools() {
        let d = fs.open_sub(who);
        let r = run(
            &bin,
            &d,
            &[
                "--name=x",
                "--rw=randread",
                "--direct=1",
                "--size=1m",
                "--bs=4k",
            ],
        );
        assert_eq!(r.code, Some(1), "{who}: {}{}", r.out, r.err);
        assert!(
            r.out.contains("x: Laying out IO file (1 file / 1MiB)\n"),
            "{who}"
        );
        assert!(
            r.out.contains("Run status group 0 (all jobs):"),
            "{who}: {}",
            r.out
        );
        assert_eq!(file_names(&d), ["x.0.0"], "{who}");
        seen.push(fio_lines(&r));
        if who == "ours" {
            let j = run(
                &bin,
                &d,
                &[
                    "--name=x",
                    "--rw=randread",
                    "--direct=1",
                    "--size=1m",
                    "--bs=4k",
                    "--output-format=json",
                ],
            );
            assert_eq!(j.code, Some(1));
            assert_eq!(parse_json(&j.out)["jobs"][0]["error"], 22);
        }
    }
    assert_eq!(
        seen[0],
        [
            "fio: destination does not support O_DIRECT",
            "fio: looks like your file system does not support direct=1/buffered=0",
            "fio: pid=N, err=22/file:filesetup.c:805, func=open(x.0.0), error=Invalid argument",
        ]
    );
    if seen.len() == 2 {
        assert_eq!(seen[0], seen[1], "ours, then fio's");
    }
}

#[test]
fn iodepth_times_bs_beyond_memory_is_an_allocation_error() {
    let Some(fs) = Mount::tmpfs("nomem", "16m") else {
        return;
    };
    let mut seen = Vec::new();
    for (who, bin) in tools() {
        let d = fs.open_sub(who);
        // A sparse 2 GiB file: read in place, no layout.
        let f = std::fs::File::create(d.join("x.0.0")).expect("create");
        f.set_len(2 << 30).expect("sparse");
        drop(f);
        // 4096 x 1 GiB = 4 TiB of buffers. An address-space limit makes sure
        // no kernel setting lets the allocation through.
        let mut c = command_in(
            &bin,
            &d,
            &[
                "--name=x",
                "--rw=read",
                "--ioengine=libaio",
                "--iodepth=4096",
                "--bs=1g",
                "--size=2g",
            ],
        );
        // SAFETY: setrlimit is async-signal-safe, as pre_exec requires.
        unsafe {
            c.pre_exec(|| {
                let lim = libc::rlimit {
                    rlim_cur: 64 << 30,
                    rlim_max: 64 << 30,
                };
                libc::setrlimit(libc::RLIMIT_AS, &lim);
                Ok(())
            });
        }
        let r = Finished::from(run_bounded(&mut c, LIMIT));
        assert_eq!(r.code, Some(1), "{who}: {}{}", r.out, r.err);
        let line = "fio: pid=N, err=12/file:memory.c:332, func=iomem allocation, error=Cannot allocate memory";
        let lines = fio_lines(&r);
        assert!(lines.iter().any(|l| l == line), "{who}: {lines:?}");
        assert!(
            r.out
                .contains("err=12 (file:memory.c:332, func=iomem allocation"),
            "{who}: {}",
            r.out
        );
        // fio 3.33 also prints a stray `io_u error ... Bad address` line
        // for an I/O it never issued; ours prints only the cause.
        seen.push(
            lines
                .into_iter()
                .filter(|l| !l.contains("Bad address"))
                .collect::<Vec<_>>(),
        );
        assert_eq!(file_names(&d), ["x.0.0"], "{who}");
    }
    if seen.len() == 2 {
        assert_eq!(seen[0], seen[1], "ours, then fio's");
    }
}

/// Send `signal` (a `kill` name) to a running rfio once its handler is in
/// place and it has run `after`; return what it printed.
fn signalled(child: Child, after: Duration, signal: &str) -> Finished {
    rbench_tests::await_handler(child.id(), signal, LIMIT);
    std::thread::sleep(after);
    // SIGKILL goes to the whole tree, fio's job processes included (they
    // leave the group: killed with it alone, they ran out their 30 s
    // runtime holding the output pipes); the others to the tool's own
    // process, as a user's Ctrl-C or kill would reach fio's handler.
    if signal == "KILL" {
        rbench_tests::kill_tree(child.id());
    } else {
        rbench_tests::send_signal(signal, &child.id().to_string());
    }
    rbench_tests::wait_output_bounded(child, LIMIT).into()
}

#[test]
fn sigint_and_sigterm_mid_run_report_what_ran() {
    let Some(fs) = Mount::tmpfs("signals", "64m") else {
        return;
    };
    let bin = our_bin("rfio");
    let d = fs.open_sub("ours");
    // Laid out first, so the signals meet the job running, not laying out.
    lay_out(&bin, &d, "16m", &[]);
    let base = [
        "--name=x",
        "--rw=randrw",
        "--ioengine=libaio",
        "--iodepth=8",
        "--size=16m",
        "--bs=4k",
        "--runtime=30",
        "--time_based",
    ];
    for (signal, signo) in [("INT", 2), ("TERM", 15)] {
        let note = format!("fio: terminating on signal {signo}");
        let args = [&base[..], &["--output-format=json"]].concat();
        let r = signalled(spawn(&bin, &d, &args), Duration::from_millis(800), signal);
        // fio exits 128 after a signal (and 128 + the failed jobs).
        assert_eq!(r.code, Some(128), "SIG{signal}: {}", r.err);
        assert!(r.err.contains(&note), "SIG{signal}: {}", r.err);
        let v = parse_json(&r.out);
        let job = &v["jobs"][0];
        assert_eq!(job["error"], 0, "{v}");
        let read = job["read"]["io_bytes"].as_u64().expect("io_bytes");
        assert!(read > 0, "{v}");
        assert_eq!(job["read"]["io_kbytes"].as_u64(), Some(read / 1024), "{v}");
        assert!(job["read"]["runtime"].as_u64() > Some(0), "{v}");
        assert!(job["read"]["runtime"].as_u64() < Some(30_000), "{v}");

        let r = signalled(spawn(&bin, &d, &base), Duration::from_millis(800), signal);
        assert_eq!(r.code, Some(128), "SIG{signal}: {}", r.err);
        assert!(r.out.contains(&format!("\n{note}\n")), "{}", r.out);
        assert!(
            r.out.contains("x: (groupid=0, jobs=1): err= 0: pid="),
            "{}",
            r.out
        );
        assert!(
            r.out.contains("Run status group 0 (all jobs):"),
            "{}",
            r.out
        );
        assert!(r.out.contains("   READ: bw="), "{}", r.out);
        let csv = [&base[..], &["--output-format=csv"]].concat();
        let r = signalled(spawn(&bin, &d, &csv), Duration::from_millis(800), signal);
        assert_eq!(r.code, Some(128), "SIG{signal}: {}", r.err);
        check_csv(&r.out);
        assert_eq!(file_names(&d), ["x.0.0"]);
        assert_eq!(
            std::fs::metadata(d.join("x.0.0")).expect("stat").len(),
            16 << 20
        );
    }
    if let Some(fio) = original("fio") {
        // fio, one process (--thread) so the signal reaches the handler
        // that reports: the same status and note.
        let theirs = fs.open_sub("fio");
        // The file laid out first, and the signal once the job has it open
        // and ran a while: a loaded machine must not catch fio mid-layout.
        lay_out(&fio, &theirs, "16m", &[]);
        let args = [&base[..], &["--thread"]].concat();
        let mut child = spawn(&fio, &theirs, &args);
        let file = theirs.join("x.0.0");
        let start = std::time::Instant::now();
        while !is_open(&file) && start.elapsed() < LIMIT {
            assert!(child.try_wait().expect("try_wait").is_none(), "fio ended");
            std::thread::sleep(Duration::from_millis(5));
        }
        let r = signalled(child, Duration::from_millis(800), "INT");
        assert_eq!(r.code, Some(128), "fio: {}", r.err);
        assert!(r.out.contains("fio: terminating on signal 2"), "{}", r.out);
        assert!(r.out.contains("   READ: bw="), "{}", r.out);
    }
}

#[test]
fn after_sigkill_the_next_run_works() {
    let Some(fs) = Mount::tmpfs("sigkill", "128m") else {
        return;
    };
    for (who, bin) in tools() {
        let d = fs.open_sub(who);
        // Killed while laying out 64 MiB (a read job writes its file first)
        // or mid-run: the next run extends or reuses the file and works.
        let args = [
            "--name=x",
            "--rw=randread",
            "--size=64m",
            "--bs=4k",
            "--runtime=30",
            "--time_based",
        ];
        for after in [Duration::from_millis(20), Duration::from_millis(900)] {
            let r = signalled(spawn(&bin, &d, &args), after, "KILL");
            assert_eq!(r.code, None, "{who}: killed by the signal");
            let r = run(
                &bin,
                &d,
                &[
                    "--name=x",
                    "--rw=randread",
                    "--size=64m",
                    "--bs=64k",
                    "--output-format=json",
                ],
            );
            assert_eq!(r.code, Some(0), "{who}: {}", r.err);
            let doc = r.out.find('{').map_or("", |i| &r.out[i..]);
            let v = parse_json(doc);
            assert_eq!(v["jobs"][0]["error"], 0, "{who}: {v}");
            assert_eq!(v["jobs"][0]["read"]["io_bytes"], 64 << 20, "{who}: {v}");
            assert_eq!(file_names(&d), ["x.0.0"], "{who}");
            assert_eq!(
                std::fs::metadata(d.join("x.0.0")).expect("stat").len(),
                64 << 20
            );
        }
    }
}

/// A short checksum of a device's contents (`cksum`).
fn cksum(dev: &str) -> String {
    run_ok(Command::new("cksum").arg(dev), LIMIT)
        .split_whitespace()
        .take(2)
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn writing_to_a_mounted_block_device_is_refused() {
    let Some(fs) = LoopFs::new("mounted", LIMIT) else {
        return;
    };
    let dev = fs.dev().to_string();
    let filename = format!("--filename={dev}");
    let before = cksum(&dev);
    let files = file_names(&fs.mnt);
    let cwd = std::env::temp_dir();
    let mut seen = Vec::new();
    for (who, bin) in tools() {
        // (A trim job: fio skips the check and the kernel refuses the
        // discard with EBUSY; rfio refuses it with the same line as writes.)
        for rw in ["write", "randrw"] {
            let rw_arg = format!("--rw={rw}");
            let r = run(
                &bin,
                &cwd,
                &[
                    "--name=x",
                    &filename,
                    &rw_arg,
                    "--size=1m",
                    "--bs=4k",
                    "--output-format=json",
                ],
            );
            // fio 3.33 refuses but exits 0 and reports the job with error
            // 0; rfio refuses with a failure (EINVAL), so a script sees it.
            let want = if who == "ours" { Some(1) } else { Some(0) };
            assert_eq!(r.code, want, "{who} {rw}: {}{}", r.out, r.err);
            let line =
                format!("{dev} appears mounted, and 'allow_mounted_write' isn't set. Aborting.");
            assert!(r.err.contains(&line), "{who} {rw}: {}", r.err);
            let doc = r.out.find('{').map_or("", |i| &r.out[i..]);
            let v = parse_json(doc);
            assert_eq!(v["jobs"][0]["write"]["io_bytes"], 0, "{who} {rw}: {v}");
            seen.push(
                fio_lines(&r)
                    .into_iter()
                    .filter(|l| l.contains("appears mounted"))
                    .collect::<Vec<_>>(),
            );
        }
        // Reading the mounted device is allowed.
        let r = run(
            &bin,
            &cwd,
            &[
                "--name=x",
                &filename,
                "--rw=read",
                "--size=1m",
                "--bs=4k",
                "--output-format=json",
            ],
        );
        assert_eq!(r.code, Some(0), "{who}: {}", r.err);
        let doc = r.out.find('{').map_or("", |i| &r.out[i..]);
        assert_eq!(
            parse_json(doc)["jobs"][0]["read"]["io_bytes"],
            1 << 20,
            "{who}"
        );
    }
    // Nothing was written: the device and the mounted file system are as
    // they were, and no file appeared where the jobs ran or in the mount.
    assert_eq!(cksum(&dev), before);
    assert_eq!(file_names(&fs.mnt), files);
    assert!(seen.windows(2).all(|w| w[0] == w[1]), "{seen:?}");
    assert!(!cwd.join("x.0.0").exists());
    drop(fs);
}

#[test]
fn a_signal_ends_a_long_thinktime_rate_wait_or_startdelay() {
    let Some(fs) = Mount::tmpfs("sleeps", "16m") else {
        return;
    };
    // Each would sleep for an hour or more; a signal ends it at once and
    // the report covers what ran (fio sleeps in slices and checks too).
    // (option, fewest and most bytes done before the signal): one block
    // before the first think; a block or two before the rate's first wait;
    // nothing before the start.
    let cases: [(&str, u64, u64); 3] = [
        ("--thinktime=1h", 4096, 4096),
        ("--rate=1", 4096, 65536),
        ("--startdelay=1h", 0, 0),
    ];
    for (who, bin) in tools() {
        let d = fs.open_sub(who);
        for (opt, least, most) in cases {
            let mut args = vec!["--name=x", "--ioengine=null", "--size=1m", opt];
            if who == "fio" {
                // One process, so the signal reaches the reporting handler.
                args.push("--thread");
            } else {
                args.push("--output-format=json");
            }
            let child = spawn(&bin, &d, &args);
            if who == "fio" {
                std::thread::sleep(Duration::from_millis(1500));
            }
            let r = signalled(child, Duration::from_millis(500), "TERM");
            assert_eq!(r.code, Some(128), "{who} {opt}: {}{}", r.out, r.err);
            if who == "ours" {
                assert!(
                    r.err.contains("fio: terminating on signal 15"),
                    "{opt}: {}",
                    r.err
                );
                let v = parse_json(&r.out);
                assert_eq!(v["jobs"][0]["error"], 0, "{opt}: {v}");
                let done = v["jobs"][0]["read"]["io_bytes"].as_u64().expect("io_bytes");
                assert!((least..=most).contains(&done), "{opt}: {v}");
            } else {
                assert!(
                    r.out.contains("fio: terminating on signal 15"),
                    "{opt}: {}",
                    r.out
                );
            }
            assert!(
                file_names(&d).is_empty(),
                "{who} {opt}: {:?}",
                file_names(&d)
            );
        }
    }
}

#[test]
fn sigint_while_laying_out_stops_and_removes_the_partial_file() {
    let Some(fs) = Mount::tmpfs("layout-signal", "1536m") else {
        return;
    };
    for (who, bin) in tools() {
        let d = fs.open_sub(who);
        let file = d.join("x.0.0");
        let mut args = vec!["--name=x", "--rw=read", "--size=1g", "--bs=1m"];
        if who == "fio" {
            // One process, so the signal reaches the handler that reports.
            args.push("--thread");
        } else {
            args.push("--output-format=json");
        }
        let mut child = spawn(&bin, &d, &args);
        let signo = rbench_tests::signal_number("INT");
        assert!(
            rbench_tests::wait_until_catches(child.id(), signo, LIMIT),
            "{who}"
        );
        // Mid-layout: the file exists and is still growing.
        let start = std::time::Instant::now();
        while std::fs::metadata(&file).map_or(true, |m| m.len() == 0) {
            assert!(start.elapsed() < LIMIT, "{who}: no layout");
            assert!(child.try_wait().expect("try_wait").is_none(), "{who} ended");
            std::thread::sleep(Duration::from_millis(2));
        }
        let r = signalled(child, Duration::ZERO, "INT");
        assert_eq!(r.code, Some(128), "{who}: {}{}", r.out, r.err);
        // The partial file is removed; nothing else was written.
        assert!(file_names(&d).is_empty(), "{who}: {:?}", file_names(&d));
        assert_eq!(fio_lines(&r), ["fio: terminating on signal 2"], "{who}");
        if who == "ours" {
            let v = parse_json(&r.out);
            assert_eq!(v["jobs"][0]["error"], 0, "{v}");
            assert_eq!(v["jobs"][0]["read"]["io_bytes"], 0, "{v}");
        }
    }
}

#[test]
fn a_missing_directory_is_refused_and_a_files_missing_directories_are_made() {
    let Some(fs) = Mount::tmpfs("dirs", "16m") else {
        return;
    };
    let mut seen = Vec::new();
    for (who, bin) in tools() {
        let d = fs.open_sub(who);
        std::fs::write(d.join("afile"), b"").expect("afile");
        let mut lines = Vec::new();
        for dir in [
            "--directory=missing/x",
            "--directory=afile",
            "--directory=.:missing",
        ] {
            let r = run(&bin, &d, &["--name=x", "--rw=read", "--size=1m", dir]);
            assert_eq!(r.code, Some(1), "{who} {dir}: {}{}", r.out, r.err);
            lines.push(fio_lines(&r));
        }
        assert_eq!(file_names(&d), ["afile"], "{who}: nothing laid out");
        // filename= in directories that do not exist yet: fio makes them
        // (mode 0700), lays the file out and runs.
        let r = run(
            &bin,
            &d,
            &["--name=x", "--rw=read", "--size=1m", "--filename=new/sub/f"],
        );
        assert_eq!(r.code, Some(0), "{who}: {}{}", r.out, r.err);
        let mode = std::os::unix::fs::PermissionsExt::mode(
            &std::fs::metadata(d.join("new/sub"))
                .expect("made")
                .permissions(),
        );
        assert_eq!(mode & 0o777, 0o700, "{who}");
        assert_eq!(
            std::fs::metadata(d.join("new/sub/f")).expect("file").len(),
            1 << 20
        );
        assert_eq!(file_names(&d), ["afile", "new"], "{who}");
        seen.push(lines);
    }
    assert_eq!(
        seen[0][0],
        [
            "fio: failed parsing directory=missing/x",
            "fio: file:options.c:1457, func=lstat, error=No such file or directory",
            "fio: missing/x is not a directory",
        ]
    );
    if seen.len() == 2 {
        assert_eq!(seen[0], seen[1], "ours, then fio's");
    }
}
