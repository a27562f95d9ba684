//! rsysbench side by side with sysbench 1.0.20: help texts, error messages
//! and exit codes, report layouts with numbers masked, the work done per
//! event, fileio's files, and the JSON/CSV extension.
//!
//! Needs `cargo build -p rsysbench` first (the tests run target/debug/rsysbench).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use rbench_tests::sysbench::layout;
use rbench_tests::{original, our_bin, run_bounded};

const LIMIT: Duration = Duration::from_secs(30);

struct Run {
    out: String,
    err: String,
    code: Option<i32>,
}

fn to_run(o: Output) -> Run {
    Run {
        out: String::from_utf8_lossy(&o.stdout).into_owned(),
        err: String::from_utf8_lossy(&o.stderr).into_owned(),
        code: o.status.code(),
    }
}

fn run_in(bin: &Path, dir: Option<&Path>, args: &[&str]) -> Run {
    let mut c = Command::new(bin);
    c.args(args);
    if let Some(d) = dir {
        c.current_dir(d);
    }
    to_run(run_bounded(&mut c, LIMIT))
}

fn ours(args: &[&str]) -> Run {
    run_in(&our_bin("rsysbench"), None, args)
}

fn sysbench() -> Option<PathBuf> {
    original("sysbench")
}

/// Drop histogram bucket lines and interval lines (how many there are
/// varies run to run: whether sysbench prints a line at the --time mark is
/// a race between its reporting and worker threads), and sort each run of
/// `--debug` worker start lines (the threads' order is a race in both tools).
fn without_buckets(s: &str) -> String {
    let mut lines: Vec<&str> = s
        .lines()
        .filter(|l| !(l.len() > 13 && l.as_bytes()[13] == b'|' && l.starts_with(' ')))
        .filter(|l| !l.starts_with("[ ") || l.contains("Checkpoint"))
        .collect();
    let worker = |l: &&str| l.starts_with("DEBUG: Worker thread");
    let mut i = 0;
    while i < lines.len() {
        let run = lines[i..].iter().take_while(|l| worker(l)).count();
        lines[i..i + run].sort_unstable();
        i += run.max(1);
    }
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// Both tools on the same arguments; same exit code, same stdout/stderr layout.
fn same_layout(args: &[&str]) -> Option<(Run, Run)> {
    let sb = sysbench()?;
    let a = ours(args);
    let b = run_in(&sb, None, args);
    assert_eq!(
        a.code, b.code,
        "exit code for {args:?}\nours:\n{}{}\nsysbench:\n{}{}",
        a.out, a.err, b.out, b.err
    );
    assert_eq!(
        layout(&without_buckets(&a.out)),
        layout(&without_buckets(&b.out)),
        "stdout layout for {args:?}\nours:\n{}\nsysbench:\n{}",
        a.out,
        b.out
    );
    // Our one addition on stderr: the memory test's cache note.
    let our_err: String = a
        .err
        .lines()
        .filter(|l| !l.starts_with("rsysbench: note:"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(layout(&our_err), layout(&b.err), "stderr for {args:?}");
    Some((a, b))
}

/// The value after `label` on the line that starts with it.
fn figure(out: &str, label: &str) -> f64 {
    let line = out
        .lines()
        .find(|l| l.trim_start().starts_with(label))
        .unwrap_or_else(|| panic!("no '{label}' line in:\n{out}"));
    line.trim_start()[label.len()..]
        .split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .find(|t| !t.is_empty())
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| panic!("no number in '{line}'"))
}

#[test]
fn help_lists_the_same_options_and_defaults() {
    let a = ours(&["--help"]);
    assert_eq!(a.code, Some(0));
    // Piped, exactly sysbench's text; at a terminal (`script` gives one)
    // our extension table comes too.
    assert!(!a.out.contains("rsysbench options"), "{}", a.out);
    let ours_without_ext = a.out.clone();
    if let Some(script) = rbench_tests::on_path("script") {
        let cmd = format!("{} --help", our_bin("rsysbench").display());
        let tty = run_in(&script, None, &["-qec", &cmd, "/dev/null"]);
        assert!(
            tty.out.contains("rsysbench options (not in sysbench):"),
            "{}",
            tty.out
        );
        assert!(tty.out.contains("--output-format=STRING"), "{}", tty.out);
    }
    if let Some(sb) = sysbench() {
        let b = run_in(&sb, None, &["--help"]);
        assert_eq!(ours_without_ext, b.out);
        for t in ["cpu", "memory", "fileio", "threads", "mutex"] {
            let a = ours(&[t, "help"]);
            let b = run_in(&sb, None, &[t, "help"]);
            assert_eq!(a.code, Some(0));
            assert_eq!(layout(&a.out), layout(&b.out), "{t} help");
            assert_eq!(a.out.lines().nth(1), b.out.lines().nth(1));
        }
    }
    let v = ours(&["--version"]);
    assert_eq!((v.out.as_str(), v.code), ("sysbench 1.0.20\n", Some(0)));
    if let Some(sb) = sysbench() {
        assert_eq!(v.out, run_in(&sb, None, &["--version"]).out);
    }
    let v = ours(&["--rbench-version"]);
    assert_eq!(
        (v.out.as_str(), v.code),
        ("rsysbench 0.1.0 (rbench)\n", Some(0))
    );
}

#[test]
fn errors_match_sysbench() {
    let cases: &[&[&str]] = &[
        &["nosuchtest", "run"],
        &["cpu", "--no-such-option=1", "run"],
        &["cpu", "--threads=abc", "run"],
        &["cpu"],
        &["cpu", "start"],
        &["cpu", "--threads", "2", "run"],
        &["cpu", "--debug=yes", "run"],
        &["cpu", "--threads=0", "run"],
        &["cpu", "--percentile=101", "run"],
        &["cpu", "--percentile=0", "--histogram=on", "run"],
        &["cpu", "prepare"],
        &["memory", "cleanup"],
        &["memory", "--memory-block-size=3K", "run"],
        &["memory", "--memory-block-size=-1", "run"],
        &["memory", "--memory-oper=copy", "run"],
        &["memory", "--memory-scope=x", "run"],
        &["fileio", "run"],
        &["fileio", "--file-test-mode=rand", "run"],
        &["fileio", "--file-num=0", "prepare"],
        &[
            "fileio",
            "--file-fsync-mode=x",
            "--file-test-mode=rndrd",
            "run",
        ],
        &["cpu", "--verbosity=6", "run"],
        &["cpu", "--rand-type=foo", "run"],
        &["cpu", "--forced-shutdown=x", "run"],
        &["cpu", "--report-checkpoints=3,1,x", "run"],
        &["cpu", "--cpu-max-prime=abc", "run"],
        &["cpu", "--cpu-max-prime=0", "run"],
        &["cpu", "--thread-yields=1", "run"],
        &["cpu", "help", "extra"],
    ];
    for args in cases {
        let a = ours(args);
        assert_ne!(a.code, Some(0), "{args:?} should fail");
        if let Some(sb) = sysbench() {
            let b = run_in(&sb, None, args);
            assert_eq!(a.code, b.code, "exit code of {args:?}");
            assert_eq!(layout(&a.out), layout(&b.out), "stdout of {args:?}");
            assert_eq!(a.err, b.err, "stderr of {args:?}");
        }
    }
}

/// Where the HugeTLB pool cannot give sysbench its block (no huge pages
/// reserved, as on most machines), both say the same FATAL lines: the size
/// sysbench asks for (its 4 MiB alignment), glibc's errno text, then the
/// buffer's own line, global or per thread.
#[test]
fn hugetlb_failure_lines_match_sysbench() {
    let Some(sb) = sysbench() else { return };
    for scope in ["global", "local"] {
        let args = [
            "memory",
            "--memory-hugetlb=on",
            &format!("--memory-scope={scope}"),
            "--threads=2",
            "--memory-total-size=1M",
            "run",
        ];
        let b = run_in(&sb, None, &args);
        if b.code == Some(0) {
            eprintln!("note: the HugeTLB pool has room here; nothing to compare for {scope}");
            continue;
        }
        let a = ours(&args);
        assert_eq!(a.code, b.code, "exit code of {args:?}");
        let fatal = |s: &str| -> Vec<String> {
            s.lines()
                .filter(|l| l.starts_with("FATAL:"))
                .map(str::to_string)
                .collect()
        };
        assert_eq!(fatal(&a.out), fatal(&b.out), "{args:?}");
        assert_eq!(fatal(&a.out).len(), 2, "{}", a.out);
    }
}

#[test]
fn where_sysbench_accepts_nonsense_we_say_why() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["cpu", "--time=-1", "run"],
            "FATAL: Invalid value for --time: -1.",
        ),
        (
            &["cpu", "--events=-5", "run"],
            "FATAL: Invalid value for --events: -5.",
        ),
        (
            &[
                "memory",
                "--memory-block-size=1M",
                "--memory-total-size=1M",
                "--threads=2",
                "run",
            ],
            "each thread would do 0 operations",
        ),
        (
            &["threads", "--thread-locks=0", "run"],
            "Invalid value for thread-locks: 0",
        ),
        (
            &["mutex", "--mutex-num=0", "run"],
            "Invalid value for mutex-num: 0",
        ),
        (
            &["mutex", "--mutex-locks=0", "run"],
            "Invalid value for mutex-locks: 0",
        ),
        (
            &["fileio", "--file-total-size=1", "--file-num=2", "prepare"],
            "each file would be 0 bytes",
        ),
        (
            &["cpu", "--output-format=xml", "run"],
            "Invalid value for --output-format",
        ),
    ];
    for (args, msg) in cases {
        let a = ours(args);
        assert_eq!(a.code, Some(1), "{args:?}: {}{}", a.out, a.err);
        assert!(
            a.out.contains(msg) || a.err.contains(msg),
            "{args:?} should say '{msg}':\n{}{}",
            a.out,
            a.err
        );
    }
}

#[test]
fn cpu_report_layout() {
    same_layout(&["cpu", "--events=300", "--time=0", "run"]);
    same_layout(&["cpu", "--threads=2", "--events=300", "--time=0", "run"]);
    same_layout(&[
        "cpu",
        "--events=200",
        "--time=0",
        "--percentile=99",
        "--rand-seed=42",
        "run",
    ]);
    same_layout(&[
        "cpu",
        "--events=200",
        "--time=0",
        "--percentile=0",
        "--cpu-max-prime=2000",
        "run",
    ]);
    if let Some((a, _)) = same_layout(&["cpu", "--events=300", "--time=0", "--histogram", "run"]) {
        let header = "       value  ------------- distribution ------------- count";
        let lines: Vec<&str> = a.out.lines().collect();
        let at = lines
            .iter()
            .position(|l| *l == header)
            .expect("histogram header");
        assert_eq!(
            lines[at - 1],
            "Latency histogram (values are in milliseconds)"
        );
        let total: u64 = lines[at + 1..]
            .iter()
            .take_while(|l| l.len() > 13 && l.as_bytes()[13] == b'|')
            .map(|l| {
                l.rsplit(' ')
                    .next()
                    .and_then(|n| n.parse::<u64>().ok())
                    .expect("count")
            })
            .sum();
        assert_eq!(total, 300, "every event is in the histogram");
    }
    let a = ours(&["cpu", "--events=50", "--time=0", "run"]);
    // Latency values are right-aligned to column 53, as sysbench's %39.2f.
    for l in a
        .out
        .lines()
        .filter(|l| l.starts_with("         m") || l.starts_with("         sum"))
    {
        assert_eq!(l.len(), 53, "'{l}'");
    }
    assert_eq!(figure(&a.out, "total number of events:"), 50.0);
}

#[test]
fn cpu_intervals_checkpoints_and_debug_layout() {
    if let Some((a, b)) = same_layout(&["cpu", "--time=2", "--report-interval=1", "run"]) {
        let line = |o: &str| o.lines().find(|l| l.starts_with("[ 1s ]")).map(layout);
        assert_eq!(line(&a.out), line(&b.out));
    }
    let first_interval = |args: &[&str]| {
        let a = ours(args);
        let line = |o: &str| o.lines().find(|l| l.starts_with("[ 1s ]")).map(layout);
        assert!(line(&a.out).is_some(), "{args:?}:\n{}", a.out);
        if let Some(sb) = sysbench() {
            assert_eq!(line(&a.out), line(&run_in(&sb, None, args).out), "{args:?}");
        }
    };
    first_interval(&[
        "memory",
        "--time=2",
        "--report-interval=1",
        "--memory-block-size=1M",
        "run",
    ]);
    first_interval(&["threads", "--time=2", "--report-interval=1", "run"]);
    same_layout(&["cpu", "--time=2", "--report-checkpoints=1", "run"]);
    same_layout(&[
        "cpu",
        "--debug=on",
        "--threads=2",
        "--events=20",
        "--time=0",
        "run",
    ]);
    same_layout(&["cpu", "--verbosity=0", "--events=5", "run"]);
    // --rate: Poisson arrivals into a queue; the run-mode block says so.
    if let Some((a, _)) = same_layout(&["cpu", "--rate=500", "--events=100", "--time=0", "run"]) {
        assert!(a.out.contains("Target transaction rate: 500/sec\n"));
        assert_eq!(figure(&a.out, "total number of events:"), 100.0);
    }
}

#[test]
fn memory_does_the_same_operations() {
    let args = [
        "memory",
        "--memory-total-size=64M",
        "--memory-block-size=4K",
        "run",
    ];
    if let Some((a, b)) = same_layout(&args) {
        assert_eq!(figure(&a.out, "Total operations:"), 16384.0);
        assert_eq!(
            figure(&a.out, "Total operations:"),
            figure(&b.out, "Total operations:")
        );
        let mib = |o: &str| {
            o.lines()
                .find(|l| l.contains("MiB transferred"))
                .map(|l| l.split(' ').next().map(str::to_string))
        };
        assert_eq!(mib(&a.out), mib(&b.out));
        assert_eq!(mib(&a.out), Some(Some("64.00".to_string())));
    }
    same_layout(&[
        "memory",
        "--memory-total-size=16M",
        "--memory-oper=none",
        "run",
    ]);
    same_layout(&[
        "memory",
        "--memory-total-size=16M",
        "--memory-oper=read",
        "--memory-access-mode=rnd",
        "--threads=2",
        "--memory-scope=local",
        "run",
    ]);
    // --events does not limit the memory test (sysbench §6.2).
    let a = ours(&["memory", "--memory-total-size=8M", "--events=3", "run"]);
    assert_eq!(figure(&a.out, "Total operations:"), 8192.0);
}

#[test]
fn threads_and_mutex_layout() {
    // Few events of few yields: a sched_yield beside a busy neighbour on the
    // same CPU costs a whole time slice, so sysbench's default 1,000 per
    // event (and 200 events) ran past the 30 s bound on a loaded machine.
    same_layout(&[
        "threads",
        "--events=20",
        "--thread-yields=10",
        "--time=0",
        "run",
    ]);
    same_layout(&[
        "threads",
        "--threads=2",
        "--thread-yields=10",
        "--thread-locks=2",
        "--events=20",
        "--time=0",
        "run",
    ]);
    if let Some((a, b)) = same_layout(&["mutex", "--threads=2", "--mutex-locks=2000", "run"]) {
        // One event per thread, whatever the limits.
        assert_eq!(figure(&a.out, "total number of events:"), 2.0);
        assert_eq!(figure(&b.out, "total number of events:"), 2.0);
    }
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("rsysbench-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch dir");
    d
}

fn listing(d: &Path) -> Vec<(String, u64)> {
    let mut v: Vec<(String, u64)> = std::fs::read_dir(d)
        .expect("read_dir")
        .map(|e| {
            let e = e.expect("entry");
            (
                e.file_name().to_string_lossy().into_owned(),
                e.metadata().map(|m| m.len()).unwrap_or(0),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn fileio_prepare_run_cleanup() {
    let ours_dir = scratch("ours");
    std::fs::write(ours_dir.join("keep.txt"), b"not ours").expect("write");
    let bin = our_bin("rsysbench");
    let size = ["--file-total-size=8M", "--file-num=8"];
    let with = |extra: &[&'static str]| -> Vec<&str> {
        size.iter().copied().chain(extra.iter().copied()).collect()
    };

    let prep = run_in(&bin, Some(&ours_dir), &with(&["fileio", "prepare"]));
    assert_eq!(prep.code, Some(0), "{}", prep.out);
    let files = listing(&ours_dir);
    assert_eq!(files.len(), 9);
    assert!(files
        .iter()
        .filter(|(n, _)| n.starts_with("test_file."))
        .all(|(_, len)| *len == 1 << 20));

    let runs: &[&[&'static str]] = &[
        &[
            "fileio",
            "--file-test-mode=rndrw",
            "--file-io-mode=async",
            "--file-async-backlog=8",
            "--events=500",
            "--time=0",
            "run",
        ],
        &[
            "fileio",
            "--file-test-mode=rndrw",
            "--events=500",
            "--time=0",
            "run",
        ],
        &[
            "fileio",
            "--file-test-mode=seqrd",
            "--events=500",
            "--time=0",
            "run",
        ],
        &[
            "fileio",
            "--file-test-mode=rndrd",
            "--file-io-mode=mmap",
            "--events=300",
            "--time=0",
            "run",
        ],
        &[
            "fileio",
            "--file-test-mode=seqrewr",
            "--file-merged-requests=2",
            "--events=300",
            "--time=0",
            "run",
        ],
        &[
            "fileio",
            "--file-test-mode=seqwr",
            "--file-fsync-freq=0",
            "--events=300",
            "--time=0",
            "run",
        ],
    ];
    let sb_dir = scratch("sysbench");
    let sb = sysbench();
    if let Some(sb) = &sb {
        let b = run_in(sb, Some(&sb_dir), &with(&["fileio", "prepare"]));
        assert_eq!(layout(&prep.out), layout(&b.out));
    }
    for args in runs {
        let a = run_in(&bin, Some(&ours_dir), &with(args));
        assert_eq!(a.code, Some(0), "{args:?}: {}{}", a.out, a.err);
        let events: f64 = args[args.len() - 3]["--events=".len()..]
            .parse()
            .expect("--events");
        assert_eq!(
            figure(&a.out, "total number of events:"),
            events,
            "{args:?}"
        );
        if let Some(sb) = &sb {
            let b = run_in(sb, Some(&sb_dir), &with(args));
            assert_eq!(a.code, b.code);
            assert_eq!(layout(&a.out), layout(&b.out), "{args:?}");
            if args[1].ends_with("rndrw") {
                // Same request mix: 1.5 reads per write, fsync sweeps every 100.
                let ratio = |o: &str| figure(o, "reads/s:") / figure(o, "writes/s:");
                assert!((ratio(&a.out) - ratio(&b.out)).abs() < 0.1);
            }
        }
    }
    // seqwr re-created the files; prepare tops them up again.
    let again = run_in(&bin, Some(&ours_dir), &with(&["fileio", "prepare"]));
    assert!(
        again.out.contains("Extending existing file test_file.0")
            || again.out.contains("Reusing existing file")
    );
    let clean = run_in(&bin, Some(&ours_dir), &with(&["fileio", "cleanup"]));
    assert_eq!(clean.code, Some(0));
    assert!(clean.out.ends_with("Removing test files...\n"));
    assert_eq!(listing(&ours_dir), vec![("keep.txt".to_string(), 8)]);

    // Without prepared files: sysbench's own message and status.
    let a = run_in(
        &bin,
        Some(&ours_dir),
        &with(&["fileio", "--file-test-mode=rndrd", "run"]),
    );
    assert_eq!(a.code, Some(1));
    assert!(a.out.contains("FATAL: Cannot open file 'test_file.0' errno = 2 (No such file or directory)\nWARNING: Did you forget to run the prepare step?\n"));
    if let Some(sb) = &sb {
        let _ = run_in(sb, Some(&sb_dir), &with(&["fileio", "cleanup"]));
        let b = run_in(
            sb,
            Some(&sb_dir),
            &with(&["fileio", "--file-test-mode=rndrd", "run"]),
        );
        assert_eq!(layout(&a.out), layout(&b.out));
    }
    let _ = std::fs::remove_dir_all(&ours_dir);
    let _ = std::fs::remove_dir_all(&sb_dir);
}

#[test]
fn json_output_is_one_document() {
    let a = ours(&[
        "cpu",
        "--time=2",
        "--report-interval=1",
        "--percentile=97",
        "--output-format=json",
        "run",
    ]);
    assert_eq!(a.code, Some(0), "{}", a.err);
    let v: serde_json::Value = serde_json::from_str(&a.out).expect("stdout is one JSON document");
    assert_eq!(v["test"], "cpu");
    assert_eq!(v["status"], "completed");
    assert!(v["events_per_second"].as_f64().expect("events_per_second") > 0.0);
    assert!(v["total_events"].as_u64().expect("total_events") > 0);
    for k in ["min", "avg", "max", "sum", "percentile_value"] {
        assert!(v["latency_ms"][k].is_f64(), "latency_ms.{k}");
    }
    assert_eq!(v["latency_ms"]["percentile"], 97);
    for p in ["50", "90", "95", "97", "99", "99.9"] {
        assert!(v["latency_ms"]["percentiles"][p].is_f64(), "percentile {p}");
    }
    assert!(v["fairness"]["events_stddev"].is_f64());
    assert_eq!(v["options"]["cpu_max_prime"], "10000");
    let iv = v["intervals"].as_array().expect("intervals");
    // The 2 s tick races the end of the run: one interval or two.
    assert!((1..=2).contains(&iv.len()), "{} intervals", iv.len());
    assert!(iv[0]["events_per_second"].is_f64());

    let m = ours(&[
        "memory",
        "--memory-total-size=32M",
        "--output-format=json",
        "run",
    ]);
    let v: serde_json::Value = serde_json::from_str(&m.out).expect("memory JSON");
    assert_eq!(v["memory"]["total_operations"], 32768);
    assert_eq!(v["memory"]["transferred_mib"], 32.0);
    assert!(v["memory"]["mib_per_second"].is_f64());
}

#[test]
fn csv_output_has_interval_rows_then_the_summary() {
    let a = ours(&[
        "cpu",
        "--time=3",
        "--report-interval=1",
        "--output-format=csv",
        "run",
    ]);
    assert_eq!(a.code, Some(0), "{}", a.err);
    let rows: Vec<Vec<&str>> = a.out.lines().map(|l| l.split(',').collect()).collect();
    let header = &rows[0];
    assert_eq!(header[0], "row");
    let eps = header
        .iter()
        .position(|h| *h == "events_per_second")
        .expect("events_per_second column");
    assert!(header.iter().all(|h| h
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')));
    assert!(rows.iter().all(|r| r.len() == header.len()));
    let kinds: Vec<&str> = rows[1..].iter().map(|r| r[0]).collect();
    // The 3 s tick races the end of the run, as in sysbench: it is printed
    // when a worker is still busy 5 ms after --time (a loaded machine).
    let intervals = kinds.len().saturating_sub(1);
    assert!(
        (2..=3).contains(&intervals) && kinds[..intervals].iter().all(|k| *k == "interval"),
        "{kinds:?}"
    );
    assert_eq!(kinds.last(), Some(&"summary"), "{kinds:?}");
    for r in &rows[1..] {
        assert!(r[eps].parse::<f64>().expect("a number") > 0.0);
    }
}

#[test]
fn forced_shutdown_reports_and_exits_2() {
    // One event far longer than --time: sysbench's forced shutdown prints
    // the report with the unfinished count and exits 2.
    let args = [
        "threads",
        "--thread-yields=50000000",
        "--time=1",
        "--forced-shutdown=1",
        "run",
    ];
    let a = ours(&args);
    assert_eq!(a.code, Some(2), "{}", a.out);
    assert!(a.out.contains("Forcing shutdown in 2 seconds"));
    assert!(a.out.contains(
        "FATAL: The --max-time limit has expired, forcing shutdown...\n\nNumber of unfinished transactions on forced shutdown: 1\n"
    ));
    same_layout(&args);
}

#[test]
fn sigint_stops_the_run_and_reports_what_ran() {
    let mut child = Command::new(our_bin("rsysbench"))
        .args(["cpu", "--time=0", "--events=0", "run"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    assert!(rbench_tests::wait_until_catches(child.id(), 2, LIMIT));
    std::thread::sleep(Duration::from_millis(500));
    // SAFETY: signalling our own child.
    unsafe { libc_kill(child.id() as i32, 2) };
    let start = std::time::Instant::now();
    loop {
        if child.try_wait().expect("wait").is_some() || start.elapsed() > LIMIT {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let _ = child.kill();
    let o = child.wait_with_output().expect("output");
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(130), "{out}");
    assert!(
        out.contains("WARNING: Both event and time limits are disabled, running an endless test")
    );
    assert!(figure(&out, "total number of events:") > 0.0, "{out}");
}

extern "C" {
    #[link_name = "kill"]
    fn libc_kill(pid: i32, sig: i32) -> i32;
}
