//! rfio beside fio 3.33 on gaps left after the verify, rate/steady-state
//! and log work: a flag given `=` and no value, the order of a parse
//! error's stderr and stdout lines on one pipe, and the others below.
//!
//! Needs `cargo build -p rfio` first (it runs target/debug/rfio).

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use rbench_tests::rfio::{tools, Suite};
use rbench_tests::{original, our_bin, run_bounded};

const LIMIT: Duration = Duration::from_secs(120);

const SUITE: Suite = Suite::new("rfio-gaps", LIMIT);

/// Both streams on one pipe, as `fio ... 2>&1 | less` shows them.
fn run_merged(bin: &Path, dir: &Path, args: &[&str]) -> (String, i32) {
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg("exec \"$0\" \"$@\" 2>&1")
        .arg(bin)
        .args(args)
        .current_dir(dir);
    let out = run_bounded(&mut cmd, LIMIT);
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

/// `--norandommap=` and `norandommap=` in a job file: a flag with `=` and
/// nothing after it is "failed parsing" (exit 1), while the bare flag and
/// `=1` run.
#[test]
fn flag_with_empty_value_is_refused() {
    for (tool, bin) in tools() {
        let dir = SUITE.temp_dir("flag");
        for (flag, want_code) in [
            ("--norandommap=", 1),
            ("--thread=", 1),
            ("--norandommap", 0),
            ("--norandommap=1", 0),
        ] {
            let r = SUITE.run_in(
                &bin,
                &dir,
                &[
                    "--name=x",
                    "--size=64k",
                    "--filename=f",
                    flag,
                    "--output-format=terse",
                ],
            );
            assert_eq!(r.code, want_code, "{tool} {flag}: {}", r.stderr);
            if want_code == 1 {
                let name = flag.trim_start_matches("--");
                assert_eq!(r.stderr, format!("fio: failed parsing {name}\n"), "{tool}");
                assert_eq!(r.stdout, "", "{tool} {flag}");
            }
        }
        std::fs::write(
            dir.join("j.fio"),
            "[x]\nsize=64k\nfilename=f\nnorandommap=\n",
        )
        .unwrap();
        let r = SUITE.run_in(&bin, &dir, &["j.fio", "--output-format=terse"]);
        assert_eq!(r.code, 1, "{tool}");
        assert_eq!(
            r.stderr, "fio: failed parsing norandommap=\nfio: job x dropped\n",
            "{tool}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// On one pipe, the unbuffered stderr line comes before the value list
/// (fio's stdout is flushed at exit when it is not a terminal).
#[test]
fn bad_value_lines_in_fio_order_on_one_pipe() {
    let mut seen = Vec::new();
    for (tool, bin) in tools() {
        let dir = SUITE.temp_dir("order");
        let (out, code) = run_merged(
            &bin,
            &dir,
            &["--name=x", "--size=64k", "--filename=f", "--verify=bogus"],
        );
        assert_eq!(code, 1, "{tool}");
        let first: Vec<&str> = out.lines().take(2).collect();
        assert_eq!(
            first,
            [
                "fio: failed parsing verify=bogus",
                "        valid values: 0          Don't do IO verification"
            ],
            "{tool}: {out}"
        );
        let (out, code) = run_merged(&bin, &dir, &["--name=x", "--ioengine=bogus"]);
        assert_eq!(code, 1, "{tool}");
        seen.push(out);
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert!(
        seen[0].starts_with("fio: engine bogus not loadable\n"),
        "{}",
        seen[0]
    );
    if seen.len() == 2 {
        assert_eq!(seen[0], seen[1]);
    }
}

/// Rows per data direction (the third field) of a log file.
fn rows_per_dir(path: &Path) -> [usize; 3] {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut n = [0; 3];
    for line in text.lines() {
        if let Some(d) = line
            .split(',')
            .nth(2)
            .and_then(|d| d.trim().parse::<usize>().ok())
        {
            n[d.min(2)] += 1;
        }
    }
    n
}

/// The verify phase's reads (and verify_backlog's) are logged as reads,
/// one row per read in each per-I/O log, beside the writes.
#[test]
fn verify_reads_are_logged_as_reads() {
    for backlog in ["--verify_backlog=0", "--verify_backlog=16"] {
        verify_reads_logged(backlog);
    }
}

fn verify_reads_logged(backlog: &str) {
    let mut seen = Vec::new();
    for (tool, bin) in tools() {
        let dir = SUITE.temp_dir("vlog");
        let r = SUITE.run_in(
            &bin,
            &dir,
            &[
                "--name=x",
                "--size=256k",
                "--filename=f",
                "--rw=write",
                "--verify=crc32c",
                backlog,
                "--write_lat_log=x",
                "--write_bw_log=x",
                "--write_iops_log=x",
                "--output-format=terse",
            ],
        );
        assert_eq!(r.code, 0, "{tool}: {}", r.stderr);
        let counts: Vec<(&str, [usize; 3])> = ["lat", "clat", "slat", "bw", "iops"]
            .into_iter()
            .map(|k| (k, rows_per_dir(&dir.join(format!("x_{k}.1.log")))))
            .collect();
        for (k, n) in &counts {
            let want = if *k == "slat" { [0, 0, 0] } else { [64, 64, 0] };
            assert_eq!(*n, want, "{tool} {backlog} x_{k}.1.log");
        }
        seen.push(counts);
        let _ = std::fs::remove_dir_all(&dir);
    }
    if seen.len() == 2 {
        assert_eq!(seen[0], seen[1]);
    }
}

/// A verify file cut short between the write run and a verify_only run:
/// fio lays the file out again from nothing (the old blocks are gone), so
/// the first block fails with `bad magic header 0` at offset 0. A file of
/// the right size is not laid out and keeps its bytes.
#[test]
fn short_file_is_laid_out_again() {
    let mut seen = Vec::new();
    for (tool, bin) in tools() {
        let dir = SUITE.temp_dir("cut");
        let base = [
            "--name=x",
            "--size=64k",
            "--filename=v",
            "--rw=write",
            "--verify=crc32c",
        ];
        let with = |extra: &[&'static str]| -> Vec<&str> {
            base.iter().chain(extra.iter()).copied().collect()
        };
        let r = SUITE.run_in(&bin, &dir, &with(&["--do_verify=0"]));
        assert_eq!(r.code, 0, "{tool}: {}", r.stderr);
        let written = std::fs::read(dir.join("v")).unwrap();
        // Right size: no layout, verify_only passes, the bytes stay.
        let r = SUITE.run_in(&bin, &dir, &with(&["--verify_only"]));
        assert_eq!(r.code, 0, "{tool}: {}", r.stderr);
        assert!(!r.stdout.contains("Laying out"), "{tool}: {}", r.stdout);
        assert_eq!(std::fs::read(dir.join("v")).unwrap(), written, "{tool}");
        // Cut short: laid out again, zeros from offset 0.
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(dir.join("v"))
            .unwrap();
        f.set_len(30000).unwrap();
        drop(f);
        let r = SUITE.run_in(&bin, &dir, &with(&["--verify_only"]));
        assert_eq!(r.code, 1, "{tool}");
        let first = r.stderr.lines().next().unwrap_or("").to_string();
        assert_eq!(
            first,
            "verify: bad magic header 0, wanted acca at file v offset 0, length 4096 (requested block: offset=0, length=4096)",
            "{tool}"
        );
        assert!(
            r.stdout.contains("x: Laying out IO file (1 file / 0MiB)\n"),
            "{tool}: {}",
            r.stdout
        );
        assert_eq!(std::fs::metadata(dir.join("v")).unwrap().len(), 65536);
        seen.push(first);
        let _ = std::fs::remove_dir_all(&dir);
    }
    if seen.len() == 2 {
        assert_eq!(seen[0], seen[1]);
    }
}

/// A read job on a file cut short: laid out again in full (fio writes it
/// anew from offset 0), whole MiB in the notice, rounded down.
#[test]
fn short_file_for_reads_is_rewritten_whole() {
    for (tool, bin) in tools() {
        let dir = SUITE.temp_dir("cutread");
        std::fs::write(dir.join("r"), vec![0xabu8; 1 << 20]).unwrap();
        let r = SUITE.run_in(
            &bin,
            &dir,
            &["--name=x", "--size=1536k", "--filename=r", "--rw=read"],
        );
        assert_eq!(r.code, 0, "{tool}: {}", r.stderr);
        assert!(
            r.stdout.contains("x: Laying out IO file (1 file / 1MiB)\n"),
            "{tool}: {}",
            r.stdout
        );
        let data = std::fs::read(dir.join("r")).unwrap();
        assert_eq!(data.len(), 1536 << 10, "{tool}");
        let old = data
            .chunks(4096)
            .filter(|c| c.iter().all(|&b| b == 0xab))
            .count();
        assert_eq!(old, 0, "{tool}: blocks of the old content survived");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// Trim verify options and dedupe_global (not run yet by rfio) are taken
/// or refused as fio's parser takes them, with fio's words and --cmdhelp.
#[test]
fn trim_verify_and_dedupe_global_parse_as_fio() {
    let cases: [(&str, i32, &str); 9] = [
        ("--trim_percentage=10", 0, ""),
        ("--trim_verify_zero=0", 0, ""),
        ("--trim_backlog=4", 0, ""),
        ("--trim_backlog_batch=2", 0, ""),
        ("--dedupe_global=1", 0, ""),
        (
            "--trim_percentage=101",
            1,
            "trim_percentage: max value out of range: 101 (100 max)\nfio: failed parsing trim_percentage=101\n",
        ),
        (
            "--trim_verify_zero=2",
            1,
            "max value out of range: 2 (1 max)\nfio: failed parsing trim_verify_zero=2\n",
        ),
        ("--trim_backlog=x", 1, "fio: failed parsing trim_backlog=x\n"),
        (
            "--dedupe_global=",
            1,
            "fio: option dedupe_global requires an argument\n",
        ),
    ];
    for (tool, bin) in tools() {
        let dir = SUITE.temp_dir("trimopts");
        for (arg, code, err) in cases {
            let r = SUITE.run_in(
                &bin,
                &dir,
                &[
                    "--name=x",
                    "--size=64k",
                    "--filename=f",
                    arg,
                    "--output-format=terse",
                ],
            );
            assert_eq!(r.code, code, "{tool} {arg}: {}", r.stderr);
            assert_eq!(r.stderr, err, "{tool} {arg}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    if let Some(fio) = original("fio") {
        let dir = SUITE.temp_dir("trimhelp");
        for o in [
            "trim_percentage",
            "trim_verify_zero",
            "trim_backlog",
            "trim_backlog_batch",
            "dedupe_global",
        ] {
            let arg = format!("--cmdhelp={o}");
            let ours = SUITE.run_in(&our_bin("rfio"), &dir, &[&arg]);
            let theirs = SUITE.run_in(&fio, &dir, &[&arg]);
            assert_eq!(ours.stdout, theirs.stdout, "{o}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// A character device named as the file (a copy of /dev/null's node) is
/// neither laid out nor replaced (fio lays out no device); a directory is
/// and fails on its unlink, as fio's.
#[test]
fn char_device_is_not_laid_out() {
    for (tool, bin) in tools() {
        let dir = SUITE.temp_dir("chr");
        let node = dir.join("nd");
        let made = Command::new("mknod")
            .arg(&node)
            .args(["c", "1", "3"])
            .status()
            .is_ok_and(|s| s.success());
        if !made {
            eprintln!("skipped: mknod needs root");
            return;
        }
        let path = node.to_string_lossy().into_owned();
        let r = SUITE.run_in(
            &bin,
            &dir,
            &[
                "--name=x",
                "--size=64k",
                &format!("--filename={path}"),
                "--rw=write",
            ],
        );
        assert_eq!(r.code, 0, "{tool}: {}", r.stderr);
        assert!(!r.stdout.contains("Laying out"), "{tool}: {}", r.stdout);
        use std::os::unix::fs::FileTypeExt;
        let m = std::fs::symlink_metadata(&node).unwrap();
        assert!(
            m.file_type().is_char_device(),
            "{tool} replaced the device node"
        );
        // A directory is laid out: its unlink fails before the job starts.
        std::fs::create_dir(dir.join("d")).unwrap();
        let path = dir.join("d").to_string_lossy().into_owned();
        let r = SUITE.run_in(
            &bin,
            &dir,
            &[
                "--name=x",
                "--size=64k",
                &format!("--filename={path}"),
                "--rw=write",
            ],
        );
        assert_eq!(r.code, 1, "{tool}");
        assert_eq!(
            r.stderr,
            "fio: pid=0, err=21/file:filesetup.c:150, func=unlink, error=Is a directory\n",
            "{tool}"
        );
        assert!(dir.join("d").is_dir(), "{tool}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
