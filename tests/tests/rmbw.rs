//! rmbw beside mbw 1.2.2: the same command lines, compared as a user would
//! (line layout with numbers masked, stderr, exit codes), and rmbw's own
//! additions checked for what they promise. Sizes stay small (8-16 MiB,
//! two or three runs) so the whole file runs in seconds.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use rbench_tests::{mask_numbers, original, our_bin, run_bounded};
use serde_json::Value;

const LIMIT: Duration = Duration::from_secs(60);

struct Ran {
    stdout: String,
    stderr: String,
    code: i32,
}

fn run_with(bin: &Path, args: &[&str], env: &[(&str, &str)]) -> Ran {
    let mut cmd = Command::new(bin);
    cmd.args(args).env_remove("POSIXLY_CORRECT");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = run_bounded(&mut cmd, LIMIT);
    let prog = bin.to_string_lossy().to_string();
    let stderr = String::from_utf8_lossy(&out.stderr)
        .lines()
        // Our last-level-cache warning has no mbw counterpart.
        .filter(|l| !l.starts_with("rmbw: warning:"))
        .map(|l| format!("{}\n", l.replace(&prog, "PROG")))
        .collect();
    Ran {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr,
        code: out.status.code().unwrap_or(-1),
    }
}

fn rmbw(args: &[&str]) -> Ran {
    run_with(&our_bin("rmbw"), args, &[])
}

fn mbw() -> Option<PathBuf> {
    original("mbw")
}

/// Run both on the same arguments and require the same masked stdout, the
/// same stderr (program name aside) and the same exit code.
fn same_as_mbw(args: &[&str], env: &[(&str, &str)]) -> Option<Ran> {
    let mbw = mbw()?;
    let ours = run_with(&our_bin("rmbw"), args, env);
    let theirs = run_with(&mbw, args, env);
    assert_eq!(
        mask_numbers(&ours.stdout),
        mask_numbers(&theirs.stdout),
        "stdout layout differs for {args:?}\n--- rmbw:\n{}--- mbw:\n{}",
        ours.stdout,
        theirs.stdout
    );
    assert_eq!(ours.stderr, theirs.stderr, "stderr differs for {args:?}");
    assert_eq!(ours.code, theirs.code, "exit code differs for {args:?}");
    Some(ours)
}

fn methods(stdout: &str) -> Vec<&str> {
    stdout
        .lines()
        .filter_map(|l| l.split('\t').nth(1))
        .filter_map(|m| m.strip_prefix("Method: "))
        .collect()
}

#[test]
fn result_lines_match_mbw_with_numbers_masked() {
    for args in [
        &["-n", "2", "16"][..],
        &["-q", "-n", "3", "8"],
        &["-t0", "-n", "2", "8"],
        &["-t1", "-n", "2", "8"],
        &["-t2", "-b", "4096", "-n", "2", "8"],
        &["-a", "-n", "2", "8"],
        &["-t2", "-t0", "-q", "-n", "2", "8"],
        &["-qa", "-n2", "8"],
        &["-n2", "8", "-q", "-t", "1"],
        &["-q", "-n1", "8", "extra", "operands"],
    ] {
        same_as_mbw(args, &[]);
    }
}

#[test]
fn tests_run_in_mbws_fixed_order() {
    let r = rmbw(&["-t2", "-t0", "-q", "-n", "2", "8"]);
    assert_eq!(
        methods(&r.stdout),
        ["MEMCPY", "MEMCPY", "MEMCPY", "MCBLOCK", "MCBLOCK", "MCBLOCK"]
    );
    assert_eq!(
        methods(&rmbw(&["-q", "-n1", "8"]).stdout),
        ["MEMCPY", "MEMCPY", "DUMB", "DUMB", "MCBLOCK", "MCBLOCK"]
    );
}

#[test]
fn getopt_behaviour_matches_mbw() {
    // Unknown option: warning on stderr, run continues.
    same_as_mbw(&["-x", "-q", "-n", "1", "8"], &[]);
    // Missing value: warning, then the no-size error.
    same_as_mbw(&["-n"], &[]);
    // `--` ends options: what follows is an operand.
    same_as_mbw(&["-q", "-n1", "8", "--", "-t1"], &[]);
    // POSIXLY_CORRECT: options after the size are operands.
    same_as_mbw(&["-q", "-n1", "8", "-t1"], &[("POSIXLY_CORRECT", "1")]);
}

#[test]
fn mbw_errors_match_mbw() {
    for args in [
        &[][..],
        &["abc"],
        &["0"],
        &["-b", "0", "64"],
        &["-b", "2000000", "1"],
        &["-h"],
        &["-q", "-n", "1", "1000000000"],
    ] {
        let Some(mbw) = mbw() else { return };
        let ours = rmbw(args);
        let theirs = run_with(&mbw, args, &[]);
        // The usage text names the program that prints it.
        let expected = theirs.stdout.replace("Usage: mbw ", "Usage: rmbw ");
        assert_eq!(ours.stdout, expected, "{args:?}");
        assert_eq!(ours.stderr, theirs.stderr, "{args:?}");
        assert_eq!(ours.code, theirs.code, "{args:?}");
        assert_eq!(ours.code, 1, "{args:?}");
    }
}

#[test]
fn allocation_failure_is_mbws_clean_error() {
    // 10^9 MiB: the header lines, then perror's line, exit 1.
    let ours = same_as_mbw(&["-n", "1", "1000000000"], &[]);
    if let Some(ours) = ours {
        assert_eq!(
            ours.stderr,
            "Error allocating memory: Cannot allocate memory\n"
        );
        assert_eq!(ours.code, 1);
    }
}

#[test]
fn nonsense_mbw_accepts_is_an_error() {
    // mbw 1.2.2: -n 0 prints -nan averages, -t7 runs everything, `-- -1`
    // wraps around, 1G is read as 1 MiB. rmbw refuses each, exit 1.
    for (args, mbw_code) in [
        (&["-n", "0", "8"][..], 0),
        (&["-n", "-1", "-q", "8"], 0),
        (&["-t7", "-q", "-n", "1", "1"], 0),
        (&["-q", "-n", "1", "--", "-1"], 1),
        (&["-q", "-n", "1", "1G"], 0),
    ] {
        let ours = rmbw(args);
        assert_eq!(ours.code, 1, "{args:?}: {}", ours.stdout);
        assert!(
            ours.stdout.starts_with("Error: "),
            "{args:?}: {}",
            ours.stdout
        );
        assert_eq!(ours.stdout.lines().count(), 1, "{args:?}");
        if let Some(mbw) = mbw() {
            assert_eq!(run_with(&mbw, args, &[]).code, mbw_code, "mbw {args:?}");
        }
    }
    let n0 = mbw().map(|m| run_with(&m, &["-n", "0", "8"], &[]));
    if let Some(n0) = n0 {
        assert!(n0.stdout.contains("Elapsed: -nan"));
    }
}

#[test]
fn size_suffix_m_is_read_as_mbw_reads_it() {
    same_as_mbw(&["-n", "1", "-q", "8M"], &[]);
    let r = rmbw(&["-n", "1", "-q", "-t0", "8MiB"]);
    assert_eq!(r.code, 0);
    assert!(r.stdout.contains("MiB: 8.00000"));
}

#[test]
fn block_not_a_multiple_of_the_array_runs_cleanly() {
    // mbw 1.2.2 overruns its heap buffer here and aborts (exit 134).
    let r = rmbw(&["-t2", "-b", "3000000", "-n", "1", "8"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(methods(&r.stdout), ["MCBLOCK", "MCBLOCK"]);
    assert!(r.stdout.contains("Using 3000000 bytes as blocks"));
}

#[test]
fn labels_pair_like_with_like() {
    // Our MEMCPY (-t0) times memcpy(), which mbw 1.2.2 prints as DUMB (-t1);
    // our DUMB (-t1) times the element loop, mbw's MEMCPY (-t0).
    let Some(mbw) = mbw() else { return };
    for (ours_t, theirs_t, ours_label, theirs_label) in [
        ("-t0", "-t1", "MEMCPY", "DUMB"),
        ("-t1", "-t0", "DUMB", "MEMCPY"),
    ] {
        let ours = rmbw(&["-q", "-n", "2", ours_t, "8"]);
        let theirs = run_with(&mbw, &["-q", "-n", "2", theirs_t, "8"], &[]);
        assert_eq!(methods(&ours.stdout), [ours_label; 3]);
        assert_eq!(methods(&theirs.stdout), [theirs_label; 3]);
        let relabelled = ours.stdout.replace(
            &format!("Method: {ours_label}\t"),
            &format!("Method: {theirs_label}\t"),
        );
        assert_eq!(mask_numbers(&relabelled), mask_numbers(&theirs.stdout));
    }
}

#[test]
fn averages_are_mib_over_mean_elapsed() {
    let r = rmbw(&["-q", "-n", "3", "-t0", "8"]);
    let rows: Vec<Vec<&str>> = r.stdout.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(rows.len(), 4);
    let num = |f: &str| -> f64 { f.split_whitespace().nth(1).unwrap().parse().unwrap() };
    let mean = rows[..3].iter().map(|r| num(r[2])).sum::<f64>() / 3.0;
    assert_eq!(rows[3][0], "AVG");
    // Each printed value is rounded to 5 decimals: allow both roundings.
    assert!((num(rows[3][2]) - mean).abs() <= 0.000_011, "{}", r.stdout);
    assert_eq!(num(rows[3][3]), 8.0);

    // Exactly, from the unrounded JSON values.
    let v = json(&["-n", "3", "-t1", "8"]);
    let res = v["results"].as_array().unwrap();
    let e: Vec<f64> = res
        .iter()
        .map(|r| r["elapsed_s"].as_f64().unwrap())
        .collect();
    assert_eq!(res[3]["run"], "AVG");
    assert!((e[3] - (e[0] + e[1] + e[2]) / 3.0).abs() < 1e-12);
    if let Some(rate) = res[3]["mib_per_s"].as_f64() {
        assert!((rate - 8.0 / e[3]).abs() < 1e-6 * rate);
    }
}

fn json(args: &[&str]) -> Value {
    let mut all = vec!["--output-format=json"];
    all.extend_from_slice(args);
    let r = rmbw(&all);
    assert_eq!(r.code, 0, "{}", r.stderr);
    serde_json::from_str(&r.stdout).expect("one valid JSON document")
}

#[test]
fn json_has_one_object_per_run_and_average() {
    let v = json(&["-n", "2", "-t0", "-t1", "8"]);
    assert_eq!(v["tool"], "rmbw");
    assert_eq!(v["array_size_mib"], 8);
    assert_eq!(v["runs_per_test"], 2);
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 6);
    let runs: Vec<&str> = results.iter().map(|r| r["run"].as_str().unwrap()).collect();
    assert_eq!(runs, ["0", "1", "AVG", "0", "1", "AVG"]);
    for r in results {
        assert!(r["method"].is_string());
        for key in ["elapsed_s", "mib"] {
            assert!(r[key].is_f64(), "{key} in {r}");
        }
        assert!(r["mib_per_s"].is_f64() || r["mib_per_s"].is_null());
        assert_eq!(r["mib"], 8.0);
        assert_eq!(r["threads"], 1);
    }
    // -a drops the averages here too.
    let v = json(&["-a", "-n", "2", "-t0", "8"]);
    assert_eq!(v["results"].as_array().unwrap().len(), 2);
}

#[test]
fn csv_has_one_header_and_rows_of_equal_width() {
    let r = rmbw(&["--output-format=csv", "-n", "2", "8"]);
    assert_eq!(r.code, 0);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines[0], "method,run,elapsed_s,mib,mib_per_s,threads");
    assert_eq!(lines.len(), 1 + 3 * 3);
    assert!(lines.iter().all(|l| l.split(',').count() == 6));
    assert_eq!(lines.iter().filter(|l| l.starts_with("method,")).count(), 1);
    assert_eq!(lines[3].split(',').nth(1), Some("AVG"));
    // No mbw header lines mixed in.
    assert!(!r.stdout.contains("Long uses"));
}

#[test]
fn errors_go_to_stderr_with_json_and_csv() {
    let r = rmbw(&["--output-format=json", "abc"]);
    assert_eq!(r.code, 1);
    assert_eq!(r.stdout, "");
    assert_eq!(r.stderr, "Error: array size wrong!\n");
}

#[test]
fn threads_copy_their_own_arrays_and_add_up() {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cpus < 2 {
        eprintln!("note: one CPU only; --threads=2 not testable here");
        return;
    }
    let r = rmbw(&["--threads=2", "-n", "2", "-t0", "8"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert!(
        lines[1].starts_with("Using 2 threads on CPUs "),
        "{}",
        r.stdout
    );
    assert_eq!(methods(&r.stdout), ["MEMCPY"; 3]);
    assert!(
        lines[3..].iter().all(|l| l.contains("\tMiB: 16.00000\t")),
        "{}",
        r.stdout
    );
    let v = json(&["--threads", "2", "-n", "1", "-t1", "8"]);
    assert_eq!(v["threads"], 2);
    assert_eq!(v["cpus"].as_array().unwrap().len(), 2);
    assert_eq!(v["results"][0]["mib"], 16.0);
    // More threads than CPUs is an error.
    let r = rmbw(&["--threads=100000", "8"]);
    assert_eq!(r.code, 1);
    assert!(r
        .stdout
        .starts_with("Error: --threads=100000 asks for more threads than the "));
}

#[test]
fn stream_kernels_use_streams_accounting() {
    let r = rmbw(&["--test=stream", "-n", "2", "8"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r
        .stdout
        .starts_with("Long uses 8 bytes. Allocating 3*1048576 elements = 25165824 bytes"));
    assert_eq!(
        methods(&r.stdout),
        [
            "COPY", "COPY", "COPY", "SCALE", "SCALE", "SCALE", "ADD", "ADD", "ADD", "TRIAD",
            "TRIAD", "TRIAD"
        ]
    );
    for line in r.stdout.lines().skip(2) {
        let want = if line.contains("COPY") || line.contains("SCALE") {
            "16.00000"
        } else {
            "24.00000"
        };
        assert!(line.contains(&format!("\tMiB: {want}\t")), "{line}");
    }
    // Only add and triad need the third array.
    let r = rmbw(&["--test=copy,scale", "-n", "1", "8"]);
    assert!(r
        .stdout
        .starts_with("Long uses 8 bytes. Allocating 2*1048576 elements"));
    // mbw's tests and STREAM's combine, in the fixed order.
    let r = rmbw(&["-q", "--test=triad", "-t1", "-n", "1", "8"]);
    assert_eq!(methods(&r.stdout), ["DUMB", "DUMB", "TRIAD", "TRIAD"]);
    assert_eq!(rmbw(&["--test=bogus", "8"]).code, 1);
}

/// Start a long run, interrupt it, and return what it printed.
fn interrupted(args: &[&str]) -> Ran {
    let child = Command::new(our_bin("rmbw"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn rmbw");
    assert!(
        rbench_tests::wait_until_catches(child.id(), 2, LIMIT),
        "rmbw never caught SIGINT"
    );
    std::thread::sleep(Duration::from_millis(700));
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    // Drain while waiting: the results can outgrow a pipe's buffer.
    let out = rbench_tests::wait_output_bounded(child, LIMIT);
    Ran {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code().unwrap_or(-1),
    }
}

#[test]
fn sigint_stops_after_the_current_copy_with_valid_results() {
    let r = interrupted(&["-q", "-n", "2147483647", "-t0", "16"]);
    assert_eq!(r.code, 130, "{}", r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert!(lines.len() >= 2, "{}", r.stdout);
    let last = lines.last().unwrap();
    assert!(last.starts_with("AVG\tMethod: MEMCPY\t"), "{last}");
    assert!(!last.contains("nan"), "{last}");
    let shape = mask_numbers("0\tMethod: MEMCPY\tElapsed: 0.1\tMiB: 16.0\tCopy: 1.0 MiB/s");
    assert!(lines[..lines.len() - 1]
        .iter()
        .all(|l| mask_numbers(l) == shape));

    let r = interrupted(&["--output-format=json", "-n", "2147483647", "-t1", "16"]);
    assert_eq!(r.code, 130);
    let v: Value = serde_json::from_str(&r.stdout).expect("valid JSON after SIGINT");
    let results = v["results"].as_array().unwrap();
    assert!(results.len() >= 2);
    assert_eq!(results.last().unwrap()["run"], "AVG");

    // With threads: the workers finish their copy, the CSV is complete.
    if std::thread::available_parallelism().map_or(1, |n| n.get()) >= 2 {
        let r = interrupted(&[
            "--threads=2",
            "--output-format=csv",
            "-n",
            "1000000",
            "-t0",
            "16",
        ]);
        assert_eq!(r.code, 130);
        let lines: Vec<&str> = r.stdout.lines().collect();
        assert_eq!(lines[0], "method,run,elapsed_s,mib,mib_per_s,threads");
        assert!(lines.len() >= 3, "{}", r.stdout);
        assert!(lines.last().unwrap().starts_with("MEMCPY,AVG,"));
        assert!(lines[1..].iter().all(|l| l.ends_with(",2")));
    }
}

#[test]
fn usage_help_and_version() {
    let r = rmbw(&["-h"]);
    assert_eq!(r.code, 1);
    assert!(r
        .stdout
        .starts_with("Usage: rmbw [options] array_size_in_MiB\n"));
    let r = rmbw(&["--help"]);
    assert_eq!(r.code, 0);
    for opt in [
        "-n N",
        "-b BYTES",
        "--threads=N",
        "--test=LIST",
        "--output-format=FORMAT",
    ] {
        assert!(r.stdout.contains(opt), "{opt}");
    }
    let r = rmbw(&["--version"]);
    assert_eq!(r.code, 0);
    assert!(
        r.stdout.starts_with("rmbw 0.")
            && r.stdout
                .lines()
                .next()
                .unwrap()
                .ends_with("(mbw 1.2.2 compatible)")
    );
}

#[test]
fn warns_when_the_arrays_fit_in_the_last_level_cache() {
    let out = run_bounded(
        Command::new(our_bin("rmbw")).args(["-q", "-n", "1", "-t0", "1"]),
        LIMIT,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    if Path::new("/sys/devices/system/cpu/cpu0/cache/index0/size").exists() {
        assert!(
            stderr.contains("rmbw: warning: the arrays (2 MiB) fit in the"),
            "{stderr}"
        );
    }
    assert!(out.status.success());
}

#[test]
fn man_page_renders_without_warnings() {
    let page = Path::new(env!("CARGO_MANIFEST_DIR")).join("../man/rmbw.1");
    let Some(groff) = original("groff") else {
        return;
    };
    let out = run_bounded(
        Command::new(groff)
            .args(["-ww", "-man", "-Tutf8"])
            .arg(&page),
        LIMIT,
    );
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stderr), "", "groff warnings");
}
