//! rsysbench fileio under faults (issue 8): a full filesystem during
//! prepare and during a write run, a test file truncated or deleted
//! mid-run, the directory removed mid-run, read-only files and a read-only
//! filesystem, O_DIRECT refused, SIGINT/SIGTERM mid-run, SIGKILL then the
//! next prepare/run/cleanup. Each checks the error text against sysbench
//! 1.0.20 in the same situation, the exit status, that JSON output is
//! one valid document (or nothing when sysbench prints no report), that
//! only the job's `test_file.N` are left, and is bounded in time.
//!
//! The tests mount small tmpfs filesystems, so they need root; without it
//! they say so and skip, except under CI (`CI` set), where root is required.

use std::path::Path;
use std::process::Child;
use std::time::Duration;

use rbench_tests::fs::{file_names, Mount};
use rbench_tests::{
    command_in, is_open, mask_numbers, original, our_bin, ours_then_original, parse_json,
    run_bounded, run_finished, Finished,
};

const LIMIT: Duration = Duration::from_secs(60);

fn run(bin: &Path, dir: &Path, args: &[&str]) -> Finished {
    run_finished(bin, dir, args, LIMIT)
}

/// The FATAL lines, numbers masked before the errno (file descriptors and
/// offsets vary), the errno and its text kept.
fn fatal_lines(s: &str) -> Vec<String> {
    s.lines()
        .filter(|l| l.starts_with("FATAL:"))
        .map(|l| match l.split_once(" errno = ") {
            Some((head, errno)) => format!("{} errno = {errno}", mask_numbers(head)),
            None => mask_numbers(l),
        })
        .collect()
}

/// Start a run, let it work for `after`, send `signal` (a `kill` name),
/// wait (bounded) and return what it printed.
fn signalled(child: Child, after: Duration, signal: &str) -> Finished {
    // Ours handles the signal: wait until its handler is in place. sysbench
    // installs none (the signal kills it), so there is nothing to wait for.
    let ours = std::fs::read_to_string(format!("/proc/{}/comm", child.id()))
        .is_ok_and(|c| c.trim() == "rsysbench");
    if ours {
        rbench_tests::await_handler(child.id(), signal, LIMIT);
    }
    std::thread::sleep(after);
    rbench_tests::send_signal(signal, &child.id().to_string());
    rbench_tests::wait_output_bounded(child, LIMIT).into()
}

fn spawn(bin: &Path, dir: &Path, args: &[&str]) -> Child {
    // sysbench installs no handlers: it must not inherit an ignored SIGINT.
    rbench_tests::spawn_piped(rbench_tests::default_signals(&mut command_in(
        bin, dir, args,
    )))
}

const SMALL: [&str; 2] = ["--file-total-size=8M", "--file-num=2"];

fn with<'a>(base: &[&'a str], extra: &[&'a str]) -> Vec<&'a str> {
    base.iter().chain(extra).copied().collect()
}

#[test]
fn no_space_during_prepare() {
    let Some(fs) = Mount::tmpfs("enospc-prepare", "2m") else {
        return;
    };
    let ours = fs.sub("ours");
    let r = run(
        &our_bin("rsysbench"),
        &ours,
        &with(&SMALL, &["fileio", "prepare"]),
    );
    assert_eq!(r.code, Some(1), "{}{}", r.out, r.err);
    assert_eq!(
        fatal_lines(&r.out),
        ["FATAL: Failed to write file! errno = 28 (No space left on device)"]
    );
    assert!(r.out.contains("Creating file test_file.0\n"), "{}", r.out);
    assert_eq!(file_names(&ours), ["test_file.0"]);

    // JSON: sysbench prints no report after FATAL, so stdout stays empty
    // and the error goes to stderr.
    std::fs::remove_file(ours.join("test_file.0")).expect("rm");
    let r = run(
        &our_bin("rsysbench"),
        &ours,
        &with(&SMALL, &["fileio", "prepare", "--output-format=json"]),
    );
    assert_eq!(r.code, Some(1));
    assert_eq!(r.out, "");
    assert_eq!(fatal_lines(&r.err).len(), 1, "{}", r.err);

    if let Some(sb) = original("sysbench") {
        let theirs = fs.sub("theirs");
        std::fs::remove_dir_all(&ours).expect("rm");
        let s = run(&sb, &theirs, &with(&SMALL, &["fileio", "prepare"]));
        assert_eq!(s.code, Some(1));
        assert_eq!(
            fatal_lines(&s.out),
            ["FATAL: Failed to write file! errno = 28 (No space left on device)"]
        );
        assert_eq!(file_names(&theirs), ["test_file.0"]);
    }
}

#[test]
fn no_space_during_a_write_run() {
    let Some(fs) = Mount::tmpfs("enospc-run", "2m") else {
        return;
    };
    // seqwr is sysbench's creation test: it truncates and writes the files
    // from scratch, so 8 MiB of writes meet the 2 MiB filesystem's end.
    let args = with(
        &SMALL,
        &["fileio", "--file-test-mode=seqwr", "--time=30", "run"],
    );
    let ours = fs.sub("ours");
    let r = run(&our_bin("rsysbench"), &ours, &args);
    assert_eq!(r.code, Some(1), "{}{}", r.out, r.err);
    let want = "FATAL: Failed to write file! file: N pos: N errno = 28 (No space left on device)";
    assert_eq!(fatal_lines(&r.out), [want]);
    assert_eq!(file_names(&ours), ["test_file.0", "test_file.1"]);

    for format in ["json", "csv"] {
        let flag = format!("--output-format={format}");
        let r = run(&our_bin("rsysbench"), &ours, &with(&args, &[&flag]));
        assert_eq!(r.code, Some(1), "{format}");
        assert_eq!(r.out, "", "{format}: no report after FATAL, as sysbench");
        assert_eq!(fatal_lines(&r.err), [want], "{format}");
    }

    if let Some(sb) = original("sysbench") {
        let theirs = fs.sub("theirs");
        std::fs::remove_dir_all(&ours).expect("rm");
        let s = run(&sb, &theirs, &args);
        assert_eq!(s.code, Some(1));
        assert_eq!(fatal_lines(&s.out), [want]);
    }
}

/// Prepare 8 MiB in `dir` with `bin`, start `mode` for up to 30 s, do
/// `fault` after half a second and wait for the end.
fn fault_mid_run(
    bin: &Path,
    dir: &Path,
    mode: &str,
    extra: &[&str],
    fault: impl FnOnce(),
) -> Finished {
    let p = run(bin, dir, &with(&SMALL, &["fileio", "prepare"]));
    assert_eq!(p.code, Some(0), "{}", p.out);
    let mode = format!("--file-test-mode={mode}");
    let args = with(&SMALL, &["fileio", &mode, "--time=30", "run"]);
    let mut child = spawn(bin, dir, &with(&args, extra));
    // Mid-run: once the run has its files open (a fault before that is
    // another error: a loaded machine may start it late), and a while on.
    let files = [dir.join("test_file.0"), dir.join("test_file.1")];
    let opened = rbench_tests::wait_for(LIMIT, || {
        files.iter().all(|f| is_open(f)) || child.try_wait().is_ok_and(|s| s.is_some())
    });
    assert!(
        opened && child.try_wait().is_ok_and(|s| s.is_none()),
        "the run never opened its files"
    );
    std::thread::sleep(Duration::from_millis(300));
    fault();
    rbench_tests::wait_output_bounded(child, LIMIT).into()
}

#[test]
fn a_file_truncated_mid_run_is_a_failed_read() {
    let Some(fs) = Mount::tmpfs("truncate", "64m") else {
        return;
    };
    let truncate = |d: &Path| {
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(d.join("test_file.0"))
            .expect("open");
        f.set_len(0).expect("truncate");
    };
    let ours = fs.sub("ours");
    let r = fault_mid_run(&our_bin("rsysbench"), &ours, "rndrd", &[], || {
        truncate(&ours)
    });
    assert_eq!(r.code, Some(1), "{}", r.out);
    // A short read sets no errno: sysbench prints strerror(0).
    let want = "FATAL: Failed to read file! file: N pos: N errno = 0 (Success)";
    assert_eq!(fatal_lines(&r.out), [want]);
    assert_eq!(file_names(&ours), ["test_file.0", "test_file.1"]);

    if let Some(sb) = original("sysbench") {
        let theirs = fs.sub("theirs");
        let s = fault_mid_run(&sb, &theirs, "rndrd", &[], || truncate(&theirs));
        assert_eq!(s.code, Some(1));
        assert_eq!(fatal_lines(&s.out), [want]);
    }
}

#[test]
fn a_file_or_the_directory_removed_mid_run_is_not_an_error() {
    let Some(fs) = Mount::tmpfs("unlink", "64m") else {
        return;
    };
    // The open descriptors keep the files alive: sysbench finishes the run,
    // reports and exits 0; nothing is recreated.
    let bin = our_bin("rsysbench");
    let ours = fs.sub("ours");
    let r = fault_mid_run(
        &bin,
        &ours,
        "rndwr",
        &["--time=2", "--output-format=json"],
        || {
            std::fs::remove_file(ours.join("test_file.1")).expect("rm");
        },
    );
    assert_eq!(r.code, Some(0), "{}", r.err);
    let v = parse_json(&r.out);
    assert!(v["total_events"].as_u64() > Some(0), "{v}");
    assert!(v["fileio"]["writes_per_second"].as_f64() > Some(0.0), "{v}");
    assert_eq!(file_names(&ours), ["test_file.0"]);

    let gone = fs.sub("gone");
    let r = fault_mid_run(
        &bin,
        &gone,
        "rndrw",
        &["--time=2", "--output-format=csv"],
        || {
            std::fs::remove_dir_all(&gone).expect("rm -r");
        },
    );
    assert_eq!(r.code, Some(0), "{}", r.err);
    assert!(r.out.lines().count() >= 2, "{}", r.out);
    assert!(!gone.exists(), "the removed directory was recreated");
    assert_eq!(file_names(&fs.dir), ["ours"]);

    if let Some(sb) = original("sysbench") {
        let theirs = fs.sub("theirs");
        let s = fault_mid_run(&sb, &theirs, "rndwr", &["--time=2"], || {
            std::fs::remove_file(theirs.join("test_file.1")).expect("rm");
        });
        assert_eq!(s.code, Some(0));
        assert_eq!(file_names(&theirs), ["test_file.0"]);
    }
}

#[test]
fn read_only_files_and_filesystem_are_open_errors() {
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::CommandExt;
    let Some(fs) = Mount::tmpfs("readonly", "16m") else {
        return;
    };
    let nobody = 65534;
    let tools = ours_then_original("ours", "rsysbench", "sysbench");
    for (who, bin) in &tools {
        let d = fs.sub(who);
        let p = run(bin, &d, &with(&SMALL, &["fileio", "prepare"]));
        assert_eq!(p.code, Some(0), "{}", p.out);
        for f in file_names(&d) {
            let path = d.join(f);
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).expect("chmod");
            std::os::unix::fs::chown(&path, Some(nobody), Some(nobody)).expect("chown");
        }
        // Root ignores file modes: run as nobody, who owns 0444 files.
        let as_nobody = |args: &[&str]| {
            let mut c = command_in(bin, &d, args);
            c.uid(nobody).gid(nobody);
            Finished::from(run_bounded(&mut c, LIMIT))
        };
        for mode in ["rndrw", "rndrd"] {
            let mode = format!("--file-test-mode={mode}");
            let r = as_nobody(&with(&SMALL, &["fileio", &mode, "--time=1", "run"]));
            assert_eq!(r.code, Some(1), "{who} {mode}: {}", r.out);
            assert_eq!(
                fatal_lines(&r.out),
                ["FATAL: Cannot open file 'test_file.N' errno = 13 (Permission denied)"],
                "{who} {mode}"
            );
        }
        let r = as_nobody(&with(&SMALL, &["fileio", "prepare"]));
        assert_eq!(r.code, Some(1), "{who}");
        assert_eq!(
            fatal_lines(&r.out),
            ["FATAL: Can't open file errno = 13 (Permission denied)"],
            "{who}"
        );
        assert_eq!(file_names(&d), ["test_file.0", "test_file.1"]);
    }

    // A read-only filesystem: even the read test opens the files O_RDWR.
    fs.remount("ro");
    for (who, bin) in &tools {
        let d = fs.dir.join(who);
        let r = run(
            bin,
            &d,
            &with(
                &SMALL,
                &["fileio", "--file-test-mode=rndrd", "--time=1", "run"],
            ),
        );
        assert_eq!(r.code, Some(1), "{who}");
        assert_eq!(
            fatal_lines(&r.out),
            ["FATAL: Cannot open file 'test_file.N' errno = 30 (Read-only file system)"],
            "{who}"
        );
        // sysbench's cleanup ignores unlink errors and exits 0.
        let r = run(bin, &d, &with(&SMALL, &["fileio", "cleanup"]));
        assert_eq!(r.code, Some(0), "{who}");
        assert_eq!(file_names(&d), ["test_file.0", "test_file.1"]);
    }
    fs.remount("rw");
}

#[test]
fn direct_io_refused_by_the_filesystem() {
    // tmpfs accepts O_DIRECT since Linux 6.6; ramfs still refuses it
    // (it has no size limit: the test's files are a few MiB).
    let Some(fs) = Mount::new("direct", "ramfs", "mode=0777") else {
        return;
    };
    // O_DIRECT's value differs between architectures.
    #[cfg(any(target_arch = "aarch64", target_arch = "arm"))]
    const O_DIRECT: i32 = 0o200000;
    #[cfg(not(any(target_arch = "aarch64", target_arch = "arm")))]
    const O_DIRECT: i32 = 0o40000;
    use std::os::unix::fs::OpenOptionsExt;
    let probe = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .custom_flags(O_DIRECT)
        .open(fs.dir.join("probe"));
    let _ = std::fs::remove_file(fs.dir.join("probe"));
    if probe.is_ok() {
        panic!("ramfs accepted O_DIRECT: this test needs a filesystem that refuses it");
    }
    let d = fs.sub("ours");
    let p = run(
        &our_bin("rsysbench"),
        &d,
        &with(&SMALL, &["fileio", "prepare"]),
    );
    assert_eq!(p.code, Some(0), "{}", p.out);
    let args = with(
        &SMALL,
        &[
            "fileio",
            "--file-test-mode=rndrd",
            "--file-extra-flags=direct",
            "--time=1",
            "run",
        ],
    );
    let r = run(&our_bin("rsysbench"), &d, &args);
    assert_eq!(r.code, Some(1), "{}", r.out);
    assert!(r.out.contains("errno = 22 (Invalid argument)"), "{}", r.out);
    if let Some(sb) = original("sysbench") {
        let s = run(&sb, &d, &args);
        assert_eq!(fatal_lines(&s.out), fatal_lines(&r.out));
    }
}

#[test]
fn sigint_and_sigterm_mid_run_report_what_ran() {
    let Some(fs) = Mount::tmpfs("signals", "64m") else {
        return;
    };
    let bin = our_bin("rsysbench");
    let d = fs.sub("ours");
    let p = run(&bin, &d, &with(&SMALL, &["fileio", "prepare"]));
    assert_eq!(p.code, Some(0), "{}", p.out);
    for (signal, code) in [("INT", 130), ("TERM", 143)] {
        let args = with(
            &SMALL,
            &[
                "fileio",
                "--file-test-mode=rndrw",
                "--time=0",
                "--events=0",
                "--output-format=json",
                "run",
            ],
        );
        let r = signalled(spawn(&bin, &d, &args), Duration::from_millis(800), signal);
        assert_eq!(r.code, Some(code), "SIG{signal}: {}", r.err);
        let v = parse_json(&r.out);
        assert_eq!(v["test"], "fileio", "{v}");
        assert!(v["total_events"].as_u64() > Some(0), "{v}");
        assert!(v["fileio"]["reads_per_second"].is_number(), "{v}");
        assert!(v["latency_ms"]["max"].is_number(), "{v}");

        let args = with(
            &SMALL,
            &[
                "fileio",
                "--file-test-mode=rndwr",
                "--time=0",
                "--events=0",
                "run",
            ],
        );
        let r = signalled(spawn(&bin, &d, &args), Duration::from_millis(800), signal);
        assert_eq!(r.code, Some(code), "SIG{signal}");
        assert!(r.out.contains("total number of events:"), "{}", r.out);
        assert!(r.out.contains("writes/s:"), "{}", r.out);
        // The files are intact: same names and sizes.
        for f in ["test_file.0", "test_file.1"] {
            let len = std::fs::metadata(d.join(f)).expect("stat").len();
            assert_eq!(len, 4 << 20, "{f}");
        }
        assert_eq!(file_names(&d), ["test_file.0", "test_file.1"]);
        if let Some(sb) = original("sysbench") {
            // sysbench 1.0.20 has no handler: the signal kills it and the
            // report is lost; rsysbench reports what ran (a documented
            // difference).
            let s = signalled(spawn(&sb, &d, &args), Duration::from_millis(800), signal);
            assert_eq!(s.code, None, "sysbench is killed by SIG{signal}");
            assert!(!s.out.contains("total number of events:"), "{}", s.out);
        }
    }
}

#[test]
fn after_sigkill_the_next_prepare_run_and_cleanup_work() {
    let Some(fs) = Mount::tmpfs("sigkill", "64m") else {
        return;
    };
    let tools = ours_then_original("ours", "rsysbench", "sysbench");
    let mut seen = Vec::new();
    for (who, bin) in &tools {
        let d = fs.sub(who);
        let p = run(bin, &d, &with(&SMALL, &["fileio", "prepare"]));
        assert_eq!(p.code, Some(0), "{who}: {}", p.out);
        let args = with(
            &SMALL,
            &["fileio", "--file-test-mode=rndwr", "--time=30", "run"],
        );
        let r = signalled(spawn(bin, &d, &args), Duration::from_millis(500), "KILL");
        assert_eq!(r.code, None, "{who}: killed by the signal");
        // A prepare killed half-way leaves a short file: simulate it.
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(d.join("test_file.1"))
            .expect("open");
        f.set_len(100_000).expect("truncate");
        let p = run(bin, &d, &with(&SMALL, &["fileio", "prepare"]));
        assert_eq!(p.code, Some(0), "{who}: {}", p.out);
        assert!(
            p.out.contains("Reusing existing file test_file.0\n"),
            "{}",
            p.out
        );
        assert!(
            p.out.contains("Extending existing file test_file.1\n"),
            "{}",
            p.out
        );
        let r = run(
            bin,
            &d,
            &with(
                &SMALL,
                &["fileio", "--file-test-mode=rndrw", "--time=1", "run"],
            ),
        );
        assert_eq!(r.code, Some(0), "{who}: {}", r.out);
        assert!(r.out.contains("reads/s:"), "{}", r.out);
        let c = run(bin, &d, &with(&SMALL, &["fileio", "cleanup"]));
        assert_eq!(c.code, Some(0), "{who}");
        assert!(file_names(&d).is_empty(), "{who}: {:?}", file_names(&d));
        seen.push(mask_numbers(&p.out));
    }
    if seen.len() == 2 {
        // The header names each one's LuaJIT (2.1.<n> bundled, 2.1.0-beta3 system).
        let header = |s: &str| {
            s.replacen("bundled", "system", 1)
                .replacen("N-beta3", "N", 1)
        };
        assert_eq!(header(&seen[0]), header(&seen[1]));
    }
}
