//! rfio's `--bandwidth-log` aggregate logs and compressed logs
//! (`log_compression`, `log_store_compressed`, `--inflate-log`) beside
//! fio 3.33's: the same file names, line shapes and row counts (within one
//! sample for the time-driven aggregate logs), rates that match the jobs'
//! limits, `.fz` files that each tool inflates to the other's text, and
//! fio's messages and exit codes for files that do not inflate. Every run
//! works in its own temporary directory.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use rbench_tests::fs::{file_names, TempDir};
use rbench_tests::rfio::Suite;
use rbench_tests::{
    command_in, mask_numbers, original, our_bin, parse_json, run_drained, run_in_dir, run_ok, Ran,
};

const LIMIT: Duration = Duration::from_secs(60);

const SUITE: Suite = Suite::new("rfio-logs2", LIMIT);

/// `bin args` run in `d`, which must exit 0: its stdout.
fn run(bin: &Path, d: &Path, args: &[&str]) -> String {
    run_ok(&mut command_in(bin, d, args), LIMIT)
}

/// fio and rfio on the same arguments, each in its own directory, each
/// exiting 0; `None` when fio is not installed.
fn both(args: &[&str]) -> Option<(TempDir, TempDir)> {
    let ((theirs, d1), (ours, d2)) = SUITE.both_dropping(args, &|_| {})?;
    for (who, r) in [("fio", &theirs), ("rfio", &ours)] {
        assert_eq!(r.code, 0, "{who} {args:?}: {}", r.stderr);
    }
    Some((d1, d2))
}

/// Files by name: name -> bytes.
type Files = BTreeMap<String, Vec<u8>>;

/// The files of a directory whose names end with `suffix`.
fn files(d: &Path, suffix: &str) -> Files {
    file_names(d)
        .into_iter()
        .filter(|n| n.ends_with(suffix))
        .map(|n| {
            let bytes = std::fs::read(d.join(&n)).expect("read log");
            (n, bytes)
        })
        .collect()
}

/// The names of `f`'s files, in order.
fn names(f: &Files) -> Vec<&String> {
    f.keys().collect()
}

/// [`both`], then each tool's directory with its files whose names end
/// with `suffix`: fio's, then rfio's.
fn both_files(args: &[&str], suffix: &str) -> Option<((TempDir, Files), (TempDir, Files))> {
    let (d1, d2) = both(args)?;
    let (theirs, ours) = (files(&d1, suffix), files(&d2, suffix));
    Some(((d1, theirs), (d2, ours)))
}

/// Rows of numbers, as a log holds them.
type Rows = Vec<Vec<u64>>;

/// A log's rows as numbers.
fn rows(text: &str) -> Rows {
    text.lines()
        .map(|l| {
            l.split(", ")
                .map(|v| {
                    v.parse()
                        .unwrap_or_else(|_| panic!("not a number in {l:?}"))
                })
                .collect()
        })
        .collect()
}

/// `bin --inflate-log=file` run in `d` (its output drained as it comes:
/// a log is more than a pipe holds).
fn inflate(bin: &Path, d: &Path, file: &str) -> Ran {
    let arg = format!("--inflate-log={file}");
    run_drained(&mut command_in(bin, d, &[&arg]), LIMIT).into()
}

/// The rows of `agg-read_bw.log` that fio and rfio write when run with
/// `pre`, then one null-engine job `a` reading at 4 MiB/s, then `post`.
/// `None` when fio is not installed.
fn agg_read_rows(pre: &[&str], post: &[&str]) -> Option<(Rows, Rows)> {
    let job = [
        "--name=a",
        "--ioengine=null",
        "--size=100g",
        "--rw=read",
        "--bs=4k",
        "--rate=4m",
    ];
    let args: Vec<&str> = pre.iter().chain(&job).chain(post).copied().collect();
    let (d1, d2) = both(&args)?;
    let read = |d: &Path| {
        let text = std::fs::read_to_string(d.join("agg-read_bw.log")).expect("agg log");
        rows(&text)
    };
    Some((read(&d1), read(&d2)))
}

/// Job `z` on the null engine: `size` of 4 KiB random reads and writes,
/// `logs` of every I/O with its offset, then `more` options.
fn z_job<'a>(size: &'a str, logs: &[&'a str], more: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "--name=z",
        "--ioengine=null",
        size,
        "--rw=randrw",
        "--bs=4k",
    ];
    args.extend_from_slice(logs);
    args.push("--log_offset=1");
    args.extend_from_slice(more);
    args
}

const AGG: [&str; 3] = ["agg-read_bw.log", "agg-trim_bw.log", "agg-write_bw.log"];

#[test]
fn aggregate_bandwidth_logs_beside_fio() {
    // Two rate-limited jobs: reads 2 MiB/s each, writes 1 MiB/s in one.
    let args = [
        "--eta=always",
        "--bandwidth-log",
        "--name=a",
        "--filename=data",
        "--size=8m",
        "--rw=randrw",
        "--bs=4k",
        "--rate=1m,1m",
        "--runtime=3",
        "--time_based",
        "--name=b",
        "--filename=data2",
        "--size=8m",
        "--rw=randread",
        "--bs=4k",
        "--rate=1m",
        "--runtime=3",
        "--time_based",
    ];
    let Some(((_, theirs), (_, ours))) = both_files(&args, "_bw.log") else {
        return;
    };
    assert_eq!(names(&ours), names(&theirs));
    assert_eq!(names(&ours), AGG.iter().collect::<Vec<_>>());
    // KiB/s the jobs are limited to, per direction (read, trim, write).
    let want = [2048u64, 0, 1024];
    for (name, want) in AGG.iter().zip(want) {
        let (t, o) = (
            String::from_utf8_lossy(&theirs[*name]).into_owned(),
            String::from_utf8_lossy(&ours[*name]).into_owned(),
        );
        let (tr, or) = (rows(&t), rows(&o));
        assert!(
            tr.len().abs_diff(or.len()) <= 1 && or.len() >= 3,
            "{name}: fio {} rows, rfio {}\nfio:\n{t}rfio:\n{o}",
            tr.len(),
            or.len()
        );
        let dir = match *name {
            "agg-read_bw.log" => 0,
            "agg-write_bw.log" => 1,
            _ => 2,
        };
        for (who, text, rs) in [("fio", &t, &tr), ("rfio", &o, &or)] {
            assert!(
                text.lines().all(|l| mask_numbers(l) == "N, N, N, N, N"),
                "{who} {name}:\n{text}"
            );
            assert!(rs.iter().all(|r| r[2] == dir && r[3] == 0 && r[4] == 0));
            assert!(rs.windows(2).all(|w| w[0][0] < w[1][0]), "{who} {name}");
            // The rows in the middle of the run carry the limit (the first
            // one spans the start, the last one may span the end).
            for r in &rs[1..rs.len() - 1] {
                let ok = if want == 0 {
                    r[1] == 0
                } else {
                    r[1] >= want * 3 / 4 && r[1] <= want * 5 / 4
                };
                assert!(
                    ok,
                    "{who} {name}: {} KiB/s, want about {want}\n{text}",
                    r[1]
                );
            }
        }
    }
}

#[test]
fn aggregate_logs_without_the_status_line() {
    // stdout is a pipe: fio's status code (and so its sampling) does not
    // run without --eta=always, nor with JSON on stdout; the files are
    // still written, empty. fio's JSON report asks that code for the ETA
    // once more, which then takes one sample over the whole run.
    for extra in [&[][..], &["--eta=always", "--output-format=json"][..]] {
        let mut args = vec![
            "--bandwidth-log",
            "--name=a",
            "--filename=data",
            "--size=2m",
            "--rw=read",
            "--bs=4k",
            "--rate=2m",
        ];
        args.extend_from_slice(extra);
        let Some(((_, theirs), (_, ours))) = both_files(&args, "_bw.log") else {
            return;
        };
        assert_eq!(names(&ours), AGG.iter().collect::<Vec<_>>());
        if extra.is_empty() {
            assert_eq!(theirs, ours);
            assert!(ours.values().all(|b| b.is_empty()));
            continue;
        }
        for (name, t) in &theirs {
            let (t, o) = (
                String::from_utf8_lossy(t),
                String::from_utf8_lossy(&ours[name]),
            );
            assert_eq!(mask_numbers(&t), "N, N, N, N, N\n", "fio {name}");
            assert_eq!(mask_numbers(&o), "N, N, N, N, N\n", "rfio {name}");
            if name == "agg-read_bw.log" {
                // 2 MiB at 2 MiB/s, over the run from its start.
                for (who, r) in [("fio", rows(&t)), ("rfio", rows(&o))] {
                    assert!((1000..=2100).contains(&r[0][1]), "{who}: {r:?}");
                }
            } else {
                assert_eq!(rows(&o)[0][1], 0);
            }
        }
    }
}

#[test]
fn stored_logs_inflate_alike_with_either_tool() {
    let Some(fio) = original("fio") else {
        return;
    };
    let rfio = our_bin("rfio");
    for extra in [&[][..], &["--log_prio=1"][..]] {
        // Per-I/O logs, stored compressed, of a size-bounded job.
        let mut args = z_job(
            "--size=8m",
            &[
                "--write_lat_log=z",
                "--write_iops_log=z",
                "--write_bw_log=z",
            ],
            &["--log_store_compressed=1"],
        );
        args.extend_from_slice(extra);
        let Some(((d1, theirs), (d2, ours))) = both_files(&args, ".fz") else {
            return;
        };
        assert_eq!(names(&theirs), names(&ours));
        assert!(ours.contains_key("z_iops.1.log.fz"));
        assert!(files(&d2, ".log").is_empty(), "no plain logs beside .fz");
        for name in ours.keys() {
            // Each tool reads each tool's file alike (an empty one too).
            for (d, who) in [(&d1, "fio's"), (&d2, "rfio's")] {
                let (a, b) = (inflate(&fio, d, name), inflate(&rfio, d, name));
                assert_eq!(a.code, b.code, "{who} {name}: {}", b.stderr);
                assert_eq!(a.stdout, b.stdout, "{who} {name} {extra:?}");
                assert_eq!(a.stderr, b.stderr, "{who} {name}");
            }
            if theirs[name].len() <= 8 {
                // An empty log: no bytes, or (its job's other logs having
                // outgrown 1024 rows) fio's 8-byte empty stream.
                assert_eq!(theirs[name], ours[name], "{name}");
            }
            let ours_text = inflate(&fio, &d2, name).stdout;
            let theirs_text = inflate(&fio, &d1, name).stdout;
            let shape = |t: &str| t.lines().map(mask_numbers).collect::<Vec<_>>();
            assert_eq!(shape(&ours_text), shape(&theirs_text), "{name} {extra:?}");
            if name.starts_with("z_iops") {
                // 8 MiB in 4 KiB blocks: 2048 rows (zlib streams of 1024
                // rows, then 2048: two here).
                assert_eq!(ours_text.lines().count(), 2048);
            }
        }
    }
}

#[test]
fn stored_log_is_the_plain_log_compressed() {
    let Some(fio) = original("fio") else {
        return;
    };
    // The same job plain and stored: the iops log's rows (value 1, the
    // direction, size and offset of every I/O, all seeded) agree but for
    // their times; numjobs=2 with per_job_logs=0 appends two jobs' streams
    // to one file, which fio inflates whole.
    let common = z_job(
        "--size=4m",
        &["--write_iops_log=z"],
        &["--numjobs=2", "--per_job_logs=0"],
    );
    let rfio = our_bin("rfio");
    let plain = SUITE.scratch("plain");
    run(&rfio, &plain, &common);
    let text = std::fs::read_to_string(plain.join("z_iops.log")).expect("plain log");
    let untimed = |t: &str| -> Vec<String> {
        let mut v: Vec<String> = t
            .lines()
            .map(|l| l.split_once(", ").map_or(l, |x| x.1).to_string())
            .collect();
        v.sort();
        v
    };
    assert_eq!(text.lines().count(), 2048);
    // log_compression=1024 keeps the rows in memory as compressed chunks
    // of 25 (1024 bytes of 40-byte records): the same text comes out.
    for extra in [
        &["--log_store_compressed=1"][..],
        &["--log_compression=1024"],
        &["--log_compression=1024", "--log_store_compressed=1"],
    ] {
        let d = SUITE.scratch("stored1");
        let mut args = common.clone();
        args.extend_from_slice(extra);
        run(&rfio, &d, &args);
        let out = if extra.contains(&"--log_store_compressed=1") {
            let inflated = inflate(&fio, &d, "z_iops.log.fz");
            assert_eq!(inflated.code, 0, "{}", inflated.stderr);
            inflated.stdout
        } else {
            std::fs::read_to_string(d.join("z_iops.log")).expect("log")
        };
        assert_eq!(untimed(&text), untimed(&out), "{extra:?}");
    }
}

#[test]
fn rfio_histogram_log_stored_compressed_inflates_to_its_text() {
    // fio stores a pointer in place of the bucket counts (its own
    // --inflate-log prints addresses); rfio stores the histogram text.
    let rfio = our_bin("rfio");
    let args = [
        "--name=h",
        "--ioengine=null",
        "--size=4m",
        "--rw=read",
        "--bs=4k",
        "--rate_iops=2000",
        "--write_hist_log=h",
        "--log_hist_msec=100",
    ];
    let (plain, stored) = (SUITE.scratch("hist"), SUITE.scratch("hist-fz"));
    run(&rfio, &plain, &args);
    let mut more = args.to_vec();
    more.push("--log_store_compressed=1");
    run(&rfio, &stored, &more);
    let text = std::fs::read_to_string(plain.join("h_clat_hist.1.log")).expect("plain");
    let r = inflate(&rfio, &stored, "h_clat_hist.1.log.fz");
    assert_eq!(r.code, 0, "{}", r.stderr);
    let (rs, want) = (rows(&r.stdout), rows(&text));
    // Half a second in 100 ms rows; the plain log's columns: time,
    // direction, block size, the buckets.
    assert!(
        rs.len() >= 4 && rs.len().abs_diff(want.len()) <= 1,
        "{} rows stored, {} plain",
        rs.len(),
        want.len()
    );
    assert!(rs
        .iter()
        .all(|r| r.len() == want[0].len() && r[1] == 0 && r[2] == 4096));
    let total = |rs: &[Vec<u64>]| -> u64 { rs.iter().map(|r| r[3..].iter().sum::<u64>()).sum() };
    // Every I/O but those of the last, unfinished 100 ms (200 at most).
    let n = total(&rs);
    assert!((1024 - 200..=1024).contains(&n), "{n} I/Os counted");
}

#[test]
fn log_compression_feeds_averaged_rate_logs_per_io_as_fio() {
    // With log_compression fio's averaged bw/iops logs take per-I/O values
    // (its per_unit_log): the iops log averages ones, and the summary's
    // bw/iops samples are per I/O too. The text stays plain.
    let args = [
        "--name=c",
        "--ioengine=null",
        "--size=16m",
        "--rw=randread",
        "--bs=4k",
        "--rate_iops=500",
        "--runtime=1",
        "--time_based",
        "--write_bw_log=c",
        "--write_iops_log=c",
        "--log_avg_msec=100",
        "--log_compression=4k",
        "--output-format=json",
    ];
    let Some(fio) = original("fio") else {
        return;
    };
    let rfio = our_bin("rfio");
    let (d1, d2) = (SUITE.scratch("gz-fio"), SUITE.scratch("gz-rfio"));
    let (a, b) = (run(&fio, &d1, &args), run(&rfio, &d2, &args));
    let (theirs, ours) = (files(&d1, ".log"), files(&d2, ".log"));
    assert_eq!(names(&theirs), names(&ours));
    assert!(files(&d2, ".fz").is_empty());
    for (name, t) in &theirs {
        let (t, o) = (
            rows(&String::from_utf8_lossy(t)),
            rows(&String::from_utf8_lossy(&ours[name])),
        );
        // 100 ms windows of a 1 s run: how many close depends on when each
        // tool's job clock starts and stops, which a loaded machine moves
        // by a window or two (seen: fio 12, rfio 10 in CI). Counted by the
        // windows the rows fall in: fio late into its first window writes a
        // row per I/O completed there (seen under load: five rows at 99-100
        // ms, 14 rows in all, beside rfio's 10).
        let windows = |rs: &[Vec<u64>]| {
            let mut w: Vec<u64> = rs.iter().map(|r| (r[0] + 50) / 100).collect();
            w.dedup();
            w.len()
        };
        assert!(
            windows(&t).abs_diff(windows(&o)) <= 3,
            "{name}: {} windows ({} rows) vs {} ({})",
            windows(&t),
            t.len(),
            windows(&o),
            o.len()
        );
        if name.contains("iops") {
            assert!(t.iter().chain(&o).all(|r| r[1] == 1), "{name}");
        }
    }
    let samples = |s: &str| -> u64 {
        parse_json(s)["jobs"][0]["read"]["iops_samples"]
            .as_u64()
            .expect("iops_samples")
    };
    // One sample per I/O: about 500 in the second, not 10 windows.
    let (ts, os) = (samples(&a), samples(&b));
    assert!(
        ts > 400 && os > 400 && ts.abs_diff(os) < 50,
        "fio {ts}, rfio {os}"
    );
}

#[test]
fn inflate_log_failures_match_fio() {
    let Some(fio) = original("fio") else {
        return;
    };
    let rfio = our_bin("rfio");
    let d = SUITE.scratch("bad");
    std::fs::write(d.join("empty.fz"), b"").expect("write");
    std::fs::write(d.join("junk.fz"), b"this is not zlib").expect("write");
    for file in ["missing.fz", "empty.fz", "junk.fz"] {
        let (a, b) = (inflate(&fio, &d, file), inflate(&rfio, &d, file));
        assert_eq!(a.code, b.code, "{file}");
        assert_ne!(b.code, 0, "{file}");
        assert_eq!(a.stdout, b.stdout, "{file}");
        assert_eq!(a.stderr, b.stderr, "{file}");
    }
}

#[test]
fn help_and_cmdhelp_list_the_options_as_fio() {
    let Some(fio) = original("fio") else {
        return;
    };
    let rfio = our_bin("rfio");
    let d = SUITE.scratch("help");
    let (a, b) = (run(&fio, &d, &["--help"]), run(&rfio, &d, &["--help"]));
    for line in ["--bandwidth-log\t", "--inflate-log=log\t"] {
        let find = |s: &str| s.lines().find(|l| l.contains(line)).map(str::to_string);
        assert_eq!(find(&a), find(&b), "{line}");
        assert!(find(&b).is_some());
    }
    for opt in ["log_compression", "log_store_compressed"] {
        let arg = format!("--cmdhelp={opt}");
        let (a, b) = (run(&fio, &d, &[&arg]), run(&rfio, &d, &[&arg]));
        assert_eq!(a, b, "{opt}");
    }
    // Out of fio's range: refused by both.
    let args = [
        "--name=x",
        "--ioengine=null",
        "--size=1m",
        "--log_compression=1000",
    ];
    let (a, b) = (
        run_in_dir(&fio, &d, &args, LIMIT),
        run_in_dir(&rfio, &d, &args, LIMIT),
    );
    assert_eq!((a.code, b.code), (1, 1), "{}\n{}", a.stderr, b.stderr);
}

#[test]
fn json_status_reports_take_aggregate_samples_as_fio() {
    // Each --status-interval JSON report asks fio's status code for the
    // ETA, which takes an aggregate sample: one row a second here, though
    // stdout is a pipe.
    let Some((t, o)) = agg_read_rows(
        &[
            "--bandwidth-log",
            "--status-interval=1",
            "--output-format=json",
        ],
        &["--runtime=3", "--time_based"],
    ) else {
        return;
    };
    assert!(
        t.len().abs_diff(o.len()) <= 1 && o.len() >= 2,
        "fio {t:?}\nrfio {o:?}"
    );
    for (who, rs) in [("fio", &t), ("rfio", &o)] {
        // About a second apart, each after the first at the rate limit.
        for w in rs.windows(2) {
            assert!((900..=1200).contains(&(w[1][0] - w[0][0])), "{who} {rs:?}");
            assert!((3500..=4700).contains(&w[1][1]), "{who} {rs:?}");
        }
    }
}

#[test]
fn ramp_time_moves_nothing_in_the_aggregate_logs() {
    // fio's status code counts a job's bytes once its ramp_time is over:
    // zero rows until then, the limit after.
    let Some((t, o)) = agg_read_rows(
        &["--eta=always", "--bandwidth-log"],
        &["--ramp_time=1", "--runtime=2", "--time_based"],
    ) else {
        return;
    };
    // While nothing counts, every wake more than 500 ms after the start
    // takes a row (one more or less with the timer's jitter): compare the
    // rows that carry bytes.
    let moving = |rs: &[Vec<u64>]| rs.iter().filter(|r| r[1] > 0).count();
    assert!(
        moving(&t).abs_diff(moving(&o)) <= 1,
        "fio {t:?}\nrfio {o:?}"
    );
    for (who, rs) in [("fio", &t), ("rfio", &o)] {
        let ramping: Vec<u64> = rs.iter().filter(|r| r[0] < 1000).map(|r| r[1]).collect();
        assert!(
            !ramping.is_empty() && ramping.iter().all(|&v| v == 0),
            "{who} {rs:?}"
        );
        let last = &rs[rs.len() - 1];
        assert!(
            last[0] > 2000 && (3500..=4700).contains(&last[1]),
            "{who} {rs:?}"
        );
    }
}
