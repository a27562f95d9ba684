//! rfio's log files beside fio 3.33's (§10): the same file names for the
//! same job, the same line shapes with numbers masked, row counts that agree
//! (exactly for per-I/O logs of size-bounded jobs, within a few windows for
//! averaged ones), histogram logs whose merged buckets agree with rfio's own
//! percentiles, and rfio's `--plot` charts (well-formed SVG, one point per
//! window, nothing written outside the directory).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use rbench_tests::rfio::Suite;
use rbench_tests::{mask_numbers, on_path, original, our_bin, parse_json, run_ok, Ran};

const LIMIT: Duration = Duration::from_secs(60);

const SUITE: Suite = Suite::new("rfio-logs", LIMIT);

/// fio, then rfio, on the same arguments in fresh directories (with a job
/// file when one is given). `None` when fio is not installed.
fn both(args: &[&str], jobfile: Option<&str>) -> Option<((Ran, PathBuf), (Ran, PathBuf))> {
    let prepare = |d: &Path| {
        if let Some(text) = jobfile {
            std::fs::write(d.join("job.fio"), text).expect("write job file");
        }
    };
    let ((theirs, d1), (ours, d2)) = SUITE.both(args, &prepare)?;
    assert_eq!(theirs.code, 0, "fio {args:?}: {}", theirs.stderr);
    assert_eq!(ours.code, 0, "rfio {args:?}: {}", ours.stderr);
    Some(((theirs, d1), (ours, d2)))
}

fn cleanup(dirs: &[&Path]) {
    for d in dirs {
        let _ = std::fs::remove_dir_all(d);
    }
}

/// The log files of a directory: name -> lines.
fn logs(d: &Path) -> BTreeMap<String, Vec<String>> {
    std::fs::read_dir(d)
        .expect("read dir")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".log"))
        .map(|n| {
            let text = std::fs::read_to_string(d.join(&n)).unwrap_or_default();
            let lines = text.lines().map(str::to_string).collect();
            (n, lines)
        })
        .collect()
}

/// The distinct line shapes of a log, numbers masked (hex prio included).
fn shapes(lines: &[String]) -> Vec<String> {
    let mut v: Vec<String> = lines
        .iter()
        .map(|l| mask_numbers(l).replace("Nx", "N"))
        .collect();
    v.sort();
    v.dedup();
    v
}

/// Column `i` of every row, as numbers.
fn column(lines: &[String], i: usize) -> Vec<u64> {
    lines
        .iter()
        .map(|l| {
            let f = l
                .split(", ")
                .nth(i)
                .unwrap_or_else(|| panic!("no column {i}: {l}"));
            f.trim()
                .parse()
                .unwrap_or_else(|_| panic!("column {i} of {l}"))
        })
        .collect()
}

/// Per-I/O logs of size-bounded jobs: the same files, the same line shapes
/// and exactly one row per I/O, in every naming combination.
#[test]
fn per_io_logs_have_fio_names_shapes_and_row_counts() {
    let cases: &[(&[&str], Option<&str>)] = &[
        // A prefix, numjobs=2, offsets.
        (
            &[
                "--name=pj",
                "--size=1m",
                "--rw=write",
                "--numjobs=2",
                "--write_bw_log=L",
                "--write_lat_log=L",
                "--write_iops_log=L",
                "--write_hist_log=L",
                "--log_offset=1",
                "--output-format=json",
            ],
            None,
        ),
        // Clones sharing one file each (per_job_logs=0 appends).
        (
            &[
                "--name=shared",
                "--size=1m",
                "--rw=read",
                "--numjobs=2",
                "--write_bw_log=S",
                "--write_lat_log=S",
                "--per_job_logs=0",
                "--output-format=json",
            ],
            None,
        ),
        // The real-time class: prio column 1 without log_prio (root only,
        // as for fio).
        (
            &[
                "--name=rt",
                "--size=256k",
                "--rw=read",
                "--prioclass=1",
                "--write_iops_log=R",
                "--output-format=json",
            ],
            None,
        ),
        // disable_bw_measurement: the per-I/O bw log stays empty.
        (
            &[
                "--name=nobw",
                "--size=256k",
                "--rw=read",
                "--write_bw_log=N",
                "--write_iops_log=N",
                "--disable_bw_measurement=1",
                "--output-format=json",
            ],
            None,
        ),
        // No prefix (job names), priorities in hex, an async engine (slat).
        (
            &["job.fio", "--output-format=json"],
            Some(
                "[global]\nsize=512k\nioengine=libaio\niodepth=4\nlog_prio=1\nprio=3\n\
                 [first]\nrw=randread\nwrite_bw_log\nwrite_lat_log=\n\
                 [second]\nrw=write\nwrite_iops_log=\nlog_offset=1\n",
            ),
        ),
    ];
    for (args, jobfile) in cases {
        let Some(((_, d1), (_, d2))) = both(args, *jobfile) else {
            return;
        };
        let (ours, theirs) = (logs(&d2), logs(&d1));
        assert_eq!(
            ours.keys().collect::<Vec<_>>(),
            theirs.keys().collect::<Vec<_>>(),
            "log files of {args:?}"
        );
        for (name, lines) in &ours {
            let want = &theirs[name];
            assert_eq!(lines.len(), want.len(), "rows of {name} for {args:?}");
            assert_eq!(shapes(lines), shapes(want), "line shapes of {name}");
            // The priority column (0/1, or 0x%04x with log_prio) as fio's.
            let prios = |l: &[String]| -> Vec<String> {
                let mut v: Vec<String> = l
                    .iter()
                    .filter_map(|r| r.rsplit(", ").next())
                    .map(str::to_string)
                    .collect();
                v.dedup();
                v
            };
            assert_eq!(prios(lines), prios(want), "priorities in {name}");
        }
        cleanup(&[&d1, &d2]);
    }
}

/// Rows per direction of an averaged log.
fn rows_per_dir(lines: &[String]) -> [usize; 3] {
    let mut n = [0; 3];
    for d in column(lines, 2) {
        n[d as usize] += 1;
    }
    n
}

/// log_avg_msec=100 over 2 s: about 20 rows per direction in every log, in
/// both tools; averaged rows carry no block size or offset.
#[test]
fn averaged_logs_have_one_row_per_window_and_direction() {
    let args = [
        "--name=avg",
        "--filename=data",
        "--size=16m",
        "--rw=randrw",
        "--ioengine=libaio",
        "--iodepth=4",
        "--runtime=2",
        "--time_based",
        "--write_bw_log=A",
        "--write_lat_log=A",
        "--write_iops_log=A",
        "--log_avg_msec=100",
        "--log_offset=1",
        "--output-format=json",
    ];
    let Some(((_, d1), (_, d2))) = both(&args, None) else {
        return;
    };
    let (ours, theirs) = (logs(&d2), logs(&d1));
    assert_eq!(
        ours.keys().collect::<Vec<_>>(),
        theirs.keys().collect::<Vec<_>>()
    );
    for (name, lines) in &ours {
        let want = &theirs[name];
        assert_eq!(shapes(lines), shapes(want), "line shapes of {name}");
        let (a, b) = (rows_per_dir(lines), rows_per_dir(want));
        for d in 0..2 {
            // 2000 ms / 100 ms windows; a stall of a loaded machine merges
            // windows (in fio too), and the job's end adds a partial
            // window to latency logs.
            assert!((15..=22).contains(&a[d]), "{name}: rfio rows {a:?}");
            assert!(a[d].abs_diff(b[d]) <= 5, "{name}: rfio {a:?}, fio {b:?}");
        }
        assert!(column(lines, 3).iter().all(|&bs| bs == 0), "{name}");
        assert!(column(lines, 4).iter().all(|&off| off == 0), "{name}");
        let times = column(lines, 0);
        assert!(times.iter().all(|&t| t <= 2200), "{name}: {times:?}");
    }
    cleanup(&[&d1, &d2]);
}

/// fio's plat_val_to_idx (spec fio §4.1): the bucket of a latency (ns).
fn bucket_of(v: u64) -> usize {
    let msb = 63 - v.max(1).leading_zeros();
    if msb <= 6 {
        return v as usize;
    }
    let e = msb - 6;
    (((e + 1) << 6) as usize + ((v >> e) & 63) as usize).min(1855)
}

/// A direction's rows of a hist log merged: counts per coarse bucket.
fn merged_hist(lines: &[String], ddir: u64) -> Vec<u64> {
    let mut merged: Vec<u64> = Vec::new();
    for l in lines {
        let f: Vec<u64> = l
            .split(", ")
            .map(|v| v.trim().parse().unwrap_or(0))
            .collect();
        if f[1] != ddir {
            continue;
        }
        merged.resize(f.len() - 3, 0);
        for (m, v) in merged.iter_mut().zip(&f[3..]) {
            *m += v;
        }
    }
    merged
}

/// Histogram logs: fio's row layout (time, ddir, bs, 1856 >> coarseness
/// bucket counts), about one row per log_hist_msec, and buckets that are
/// the run's own: each coarse bucket holds at most what the run's json+
/// clat bins hold there (the rows leave out only the I/Os after the last
/// row, as fio's do), and the percentiles of the merged rows are the run's
/// percentiles up to that missing tail: the p-th percentile of the logged
/// I/Os lies in a bucket whose rank in the whole run is between its rank in
/// the log and that plus the I/Os not logged. When that tail is under a
/// tenth of the I/Os, the log's median bucket also meets the JSON median
/// within 10%.
#[test]
fn hist_logs_match_fio_and_agree_with_the_percentiles() {
    for coarseness in ["0", "3"] {
        let c = format!("--log_hist_coarseness={coarseness}");
        let args = [
            "--name=h",
            "--filename=data",
            "--size=16m",
            "--rw=randread",
            "--ioengine=libaio",
            "--iodepth=4",
            "--runtime=2",
            "--time_based",
            "--write_hist_log=H",
            "--log_hist_msec=100",
            &c,
            "--output-format=json+",
        ];
        let Some(((_, d1), (ours_run, d2))) = both(&args, None) else {
            return;
        };
        let (ours, theirs) = (logs(&d2), logs(&d1));
        assert_eq!(
            ours.keys().collect::<Vec<_>>(),
            vec!["H_clat_hist.1.log"],
            "{args:?}"
        );
        assert_eq!(
            ours.keys().collect::<Vec<_>>(),
            theirs.keys().collect::<Vec<_>>()
        );
        let (a, b) = (&ours["H_clat_hist.1.log"], &theirs["H_clat_hist.1.log"]);
        let k: u32 = coarseness.parse().unwrap_or(0);
        let width = |lines: &[String]| {
            let mut w: Vec<usize> = lines.iter().map(|l| l.split(", ").count()).collect();
            w.dedup();
            w
        };
        assert_eq!(width(a), vec![3 + (1856 >> k)]);
        assert_eq!(width(a), width(b));
        assert!((16..=21).contains(&a.len()), "rfio rows: {}", a.len());
        assert!(
            a.len().abs_diff(b.len()) <= 4,
            "rows {} vs fio {}",
            a.len(),
            b.len()
        );
        assert!(column(a, 1).iter().all(|&d| d == 0));
        assert!(column(a, 2).iter().all(|&bs| bs == 4096));

        let doc = parse_json(&ours_run.stdout);
        let clat = &doc["jobs"][0]["read"]["clat_ns"];
        // The run's histogram, folded to the log's coarseness.
        let mut run = vec![0u64; 1856 >> k];
        for (value, count) in clat["bins"].as_object().expect("json+ bins") {
            let v: u64 = value.parse().expect("bin value");
            run[bucket_of(v) >> k] += count.as_u64().unwrap_or(0);
        }
        let logged = merged_hist(a, 0);
        assert_eq!(logged.len(), run.len());
        for (i, (l, r)) in logged.iter().zip(&run).enumerate() {
            assert!(l <= r, "bucket {i}: {l} logged, {r} in the run");
        }
        let (n_log, n_run): (u64, u64) = (logged.iter().sum(), run.iter().sum());
        let missing = n_run - n_log;
        assert!(
            n_log > 0 && missing < n_run,
            "{missing} of {n_run} I/Os not logged"
        );
        for p in [50.0, 90.0, 99.0] {
            let rank = ((n_log as f64 * p / 100.0).ceil() as u64).max(1);
            let mut seen = 0;
            let bucket = logged
                .iter()
                .position(|&c| {
                    seen += c;
                    seen >= rank
                })
                .expect("percentile bucket");
            let before: u64 = run[..bucket].iter().sum();
            let through = before + run[bucket];
            assert!(
                through >= rank && before < rank + missing,
                "p{p}: bucket {bucket} holds run ranks {before}..{through}, log rank {rank} (+{missing})"
            );
        }
        // The rates of a loaded machine vary tenfold from window to window,
        // so the tail can be large: the values are compared when it is
        // under a tenth of the run.
        if missing * 10 >= n_run {
            cleanup(&[&d1, &d2]);
            continue;
        }
        let median = clat["percentile"]["50.000000"].as_f64().unwrap_or(0.0);
        let mut seen = 0;
        let half = n_log.div_ceil(2);
        let bucket = logged
            .iter()
            .position(|&c| {
                seen += c;
                seen >= half
            })
            .unwrap_or(0);
        let lower = bucket_value(bucket << k);
        let upper = bucket_value(((bucket + 1) << k) - 1);
        assert!(
            lower <= median * 1.1 && upper >= median * 0.9,
            "median {median} vs the log's bucket {lower}..{upper} (coarseness {k})"
        );
        cleanup(&[&d1, &d2]);
    }
}

/// fio's plat_idx_to_val: the middle of a bucket (ns).
fn bucket_value(idx: usize) -> f64 {
    if idx < 128 {
        return idx as f64;
    }
    let error_bits = (idx >> 6) as i32 - 1;
    2f64.powi(error_bits + 6) + ((idx % 64) as f64 + 0.5) * 2f64.powi(error_bits)
}

/// fio's own histogram parser (tools/hist/fiologparser_hist.py, which needs
/// numpy and pandas) reads our log as it reads fio's: same columns, about
/// the same number of intervals. Runs where the script is found through
/// FIOLOGPARSER_HIST or on PATH; says so and passes otherwise.
#[test]
fn fiologparser_hist_reads_our_hist_log() {
    let script = std::env::var_os("FIOLOGPARSER_HIST")
        .map(PathBuf::from)
        .or_else(|| on_path("fiologparser_hist.py"));
    let Some(script) = script else {
        eprintln!("note: fiologparser_hist.py not found (FIOLOGPARSER_HIST); skipping");
        return;
    };
    let args = [
        "--name=h",
        "--filename=data",
        "--size=16m",
        "--rw=randread",
        "--ioengine=libaio",
        "--iodepth=4",
        "--runtime=2",
        "--time_based",
        "--write_hist_log=H",
        "--log_hist_msec=100",
        "--output-format=json",
    ];
    let Some(((_, d1), (_, d2))) = both(&args, None) else {
        return;
    };
    let parse = |d: &Path| -> Vec<String> {
        let mut cmd = Command::new("python3");
        cmd.arg(&script)
            .args(["-i", "500", "H_clat_hist.1.log"])
            .current_dir(d);
        run_ok(&mut cmd, LIMIT)
            .lines()
            .map(str::to_string)
            .collect()
    };
    let (ours, theirs) = (parse(&d2), parse(&d1));
    assert_eq!(ours.first(), theirs.first(), "header");
    assert!(
        ours.len().abs_diff(theirs.len()) <= 1,
        "{ours:?}\n{theirs:?}"
    );
    assert_eq!(shapes(&ours[1..]), shapes(&theirs[1..]), "rows");
    cleanup(&[&d1, &d2]);
}

/// Every file under a directory, relative names.
fn tree(d: &Path, base: &Path, out: &mut Vec<String>) {
    for e in std::fs::read_dir(d).expect("read dir").flatten() {
        let p = e.path();
        if p.is_dir() {
            tree(&p, base, out);
        } else if let Ok(rel) = p.strip_prefix(base) {
            out.push(rel.display().to_string());
        }
    }
    out.sort();
}

/// Parse each SVG with python's XML parser; per file, the number of points
/// of each `series` polyline.
fn svg_points(d: &Path, files: &[&str]) -> BTreeMap<String, Vec<usize>> {
    let script = "import sys, xml.etree.ElementTree as ET\n\
        ns = '{http://www.w3.org/2000/svg}'\n\
        for f in sys.argv[1:]:\n\
        \x20   root = ET.parse(f).getroot()\n\
        \x20   assert root.tag == ns + 'svg', root.tag\n\
        \x20   lines = [p for p in root.iter(ns + 'polyline') if p.get('class') == 'series']\n\
        \x20   print(f, *[len(p.get('points').split()) for p in lines])\n";
    let mut cmd = Command::new("python3");
    cmd.arg("-c").arg(script).args(files).current_dir(d);
    // The script fails (an exception on stderr) on a file that is not
    // well-formed SVG.
    run_ok(&mut cmd, LIMIT)
        .lines()
        .map(|l| {
            let mut w = l.split(' ');
            let name = w.next().unwrap_or_default().to_string();
            (name, w.filter_map(|n| n.parse().ok()).collect())
        })
        .collect()
}

/// `--plot=DIR`: the charts and the index in DIR, well-formed SVG with one
/// point per 200 ms window of a 2 s run, and nothing but the logs the user
/// asked for outside DIR.
#[test]
fn plot_draws_well_formed_charts_in_its_directory_only() {
    let d = SUITE.temp_dir("plot");
    let ran = SUITE.run_in(
        &our_bin("rfio"),
        &d,
        &[
            "--name=p",
            "--filename=data",
            "--size=8m",
            "--rw=randrw",
            "--runtime=2",
            "--time_based",
            "--log_avg_msec=200",
            "--write_bw_log=B",
            "--plot=charts",
            "--output-format=json",
        ],
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    parse_json(&ran.stdout);
    let mut files = Vec::new();
    tree(&d, &d, &mut files);
    assert_eq!(
        files,
        [
            "B_bw.1.log",
            "charts/bandwidth.svg",
            "charts/clat_distribution.svg",
            "charts/clat_percentiles_1.svg",
            "charts/index.html",
            "charts/iops.svg",
            "data",
        ]
    );
    let charts = d.join("charts");
    let svgs = [
        "bandwidth.svg",
        "iops.svg",
        "clat_percentiles_1.svg",
        "clat_distribution.svg",
    ];
    let points = svg_points(&charts, &svgs);
    // Read and write lines, ~10 windows each.
    for f in ["bandwidth.svg", "iops.svg"] {
        assert_eq!(points[f].len(), 2, "{f}");
        assert!(
            points[f].iter().all(|n| (8..=11).contains(n)),
            "{f}: {points:?}"
        );
    }
    // p50, p90, p99, p99.9 per direction.
    assert_eq!(points["clat_percentiles_1.svg"].len(), 8);
    assert!(points["clat_percentiles_1.svg"]
        .iter()
        .all(|n| (8..=11).contains(n)));
    // The distribution: one line per direction, a point per used bucket.
    assert_eq!(points["clat_distribution.svg"].len(), 2);
    assert!(points["clat_distribution.svg"].iter().all(|&n| n > 1));
    let index = std::fs::read_to_string(charts.join("index.html")).unwrap_or_default();
    for f in svgs {
        assert!(
            index.contains(&format!("src=\"{f}\"")),
            "{f} not in index.html"
        );
    }
    assert!(
        index.contains("<td>1</td><td>p</td><td>read</td>"),
        "{index}"
    );
    cleanup(&[&d]);
}

/// A --plot directory that cannot be created fails before any job runs.
#[test]
fn plot_into_a_file_fails_before_running() {
    let d = SUITE.temp_dir("plotbad");
    std::fs::write(d.join("taken"), "x").expect("write");
    let ran = SUITE.run_in(
        &our_bin("rfio"),
        &d,
        &["--name=p", "--size=1m", "--plot=taken/charts"],
    );
    assert_eq!(ran.code, 1);
    assert!(
        ran.stderr.contains("cannot create plot directory"),
        "{}",
        ran.stderr
    );
    assert!(!d.join("p.0.0").exists(), "the job ran");
    cleanup(&[&d]);
}

/// per_job_logs=0 appends (fio opens the shared file with "a"): a second
/// run doubles every log, and `--write_bw_log=` is fio's usage error.
#[test]
fn shared_logs_append_and_empty_names_fail_as_fio_does() {
    let Some(fio) = original("fio") else {
        return;
    };
    let args = [
        "--name=ap",
        "--size=256k",
        "--rw=write",
        "--write_lat_log=P",
        "--per_job_logs=0",
        "--output-format=json",
    ];
    let (d1, d2) = (SUITE.temp_dir("fio"), SUITE.temp_dir("rfio"));
    for _ in 0..2 {
        assert_eq!(SUITE.run_in(&fio, &d1, &args).code, 0);
        assert_eq!(SUITE.run_in(&our_bin("rfio"), &d2, &args).code, 0);
    }
    let (ours, theirs) = (logs(&d2), logs(&d1));
    assert_eq!(
        ours.keys().collect::<Vec<_>>(),
        theirs.keys().collect::<Vec<_>>()
    );
    assert_eq!(ours["P_clat.log"].len(), 2 * 64);
    assert_eq!(ours["P_clat.log"].len(), theirs["P_clat.log"].len());
    let bad = ["--name=e", "--size=64k", "--write_bw_log="];
    let (a, b) = (
        SUITE.run_in(&our_bin("rfio"), &d2, &bad),
        SUITE.run_in(&fio, &d1, &bad),
    );
    assert_eq!((a.code, a.stderr.as_str()), (b.code, b.stderr.as_str()));
    assert_eq!(a.stderr, "fio: option write_bw_log requires an argument\n");
    // A log that cannot be opened: fio's perror line per file, the run
    // goes on and succeeds.
    let bad = [
        "--name=e",
        "--size=64k",
        "--write_lat_log=/nonexistent-rfio-dir/x",
        "--output-format=json",
    ];
    let (a, b) = (
        SUITE.run_in(&our_bin("rfio"), &d2, &bad),
        SUITE.run_in(&fio, &d1, &bad),
    );
    assert_eq!((a.code, a.stderr.as_str()), (b.code, b.stderr.as_str()));
    assert_eq!(a.stderr, "fopen log: No such file or directory\n".repeat(3));
    cleanup(&[&d1, &d2]);
}

/// fio's fio_generate_plots (gnuplot) draws the same charts from our
/// averaged logs as from fio's. Skipped, saying so, without gnuplot.
#[test]
fn fio_generate_plots_reads_our_logs() {
    let (Some(plots), Some(_)) = (on_path("fio_generate_plots"), on_path("gnuplot")) else {
        eprintln!("note: fio_generate_plots or gnuplot not installed; skipping");
        return;
    };
    let args = [
        "--name=g",
        "--filename=data",
        "--size=8m",
        "--rw=randrw",
        "--runtime=1",
        "--time_based",
        "--write_bw_log=g",
        "--write_iops_log=g",
        "--write_lat_log=g",
        "--log_avg_msec=100",
        "--output-format=json",
    ];
    let Some(((_, d1), (_, d2))) = both(&args, None) else {
        return;
    };
    let draw = |d: &Path| -> Vec<(String, bool)> {
        let mut cmd = Command::new(&plots);
        cmd.arg("g").current_dir(d);
        run_ok(&mut cmd, LIMIT);
        let mut svgs: Vec<(String, bool)> = std::fs::read_dir(d)
            .expect("read dir")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".svg"))
            .map(|n| {
                let text = std::fs::read_to_string(d.join(&n)).unwrap_or_default();
                // A drawn line: gnuplot's path elements with data.
                (n, text.matches("<path").count() > 5)
            })
            .collect();
        svgs.sort();
        svgs
    };
    let (ours, theirs) = (draw(&d2), draw(&d1));
    assert_eq!(ours.len(), 5, "{ours:?}");
    assert_eq!(ours, theirs);
    cleanup(&[&d1, &d2]);
}

/// log_unix_epoch and log_alternate_epoch (with its clock id) move the time
/// column to that clock, as in fio: Unix ms, or CLOCK_MONOTONIC's ms.
#[test]
fn log_epochs_follow_the_chosen_clock() {
    let unix_ms = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64)
    };
    let monotonic_ms = || -> u64 {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: clock_gettime writes into the timespec we own.
        unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
        ts.tv_sec as u64 * 1000 + ts.tv_nsec as u64 / 1_000_000
    };
    let cases: [(&[&str], &dyn Fn() -> u64); 2] = [
        (&["--log_unix_epoch=1"], &unix_ms),
        (
            &[
                "--log_alternate_epoch=1",
                "--log_alternate_epoch_clock_id=1",
            ],
            &monotonic_ms,
        ),
    ];
    for (extra, clock) in cases {
        let mut args = vec![
            "--name=e",
            "--size=64k",
            "--rw=read",
            "--write_bw_log=E",
            "--output-format=json",
        ];
        args.extend_from_slice(extra);
        let before = clock();
        let Some(((_, d1), (_, d2))) = both(&args, None) else {
            return;
        };
        let after = clock();
        for d in [&d2, &d1] {
            let rows = &logs(d)["E_bw.1.log"];
            assert_eq!(rows.len(), 16, "{args:?}");
            for t in column(rows, 0) {
                assert!(
                    (before..=after).contains(&t),
                    "{args:?}: {t} not in {before}..{after} ({})",
                    d.display()
                );
            }
        }
        cleanup(&[&d1, &d2]);
    }
}

/// fio's fio2gnuplot reads our bw log as it reads fio's: the same data
/// files, with the same line shapes (numbers masked).
#[test]
fn fio2gnuplot_reads_our_logs() {
    let Some(tool) = on_path("fio2gnuplot") else {
        eprintln!("note: fio2gnuplot not installed; skipping");
        return;
    };
    let args = [
        "--name=g",
        "--filename=data",
        "--size=8m",
        "--rw=randrw",
        "--runtime=1",
        "--time_based",
        "--write_bw_log=g",
        "--log_avg_msec=100",
        "--output-format=json",
    ];
    let Some(((_, d1), (_, d2))) = both(&args, None) else {
        return;
    };
    let read = |d: &Path| -> BTreeMap<String, Vec<String>> {
        let mut cmd = Command::new(&tool);
        cmd.args(["-p", "g_bw*.log"]).current_dir(d);
        run_ok(&mut cmd, LIMIT);
        std::fs::read_dir(d)
            .expect("read dir")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("g_bw") && !n.ends_with(".log") || n.starts_with("gnuplot"))
            .map(|n| {
                let text = std::fs::read_to_string(d.join(&n)).unwrap_or_default();
                let lines: Vec<String> = text.lines().map(str::to_string).collect();
                (n, shapes(&lines))
            })
            .collect()
    };
    let (ours, theirs) = (read(&d2), read(&d1));
    assert!(ours.contains_key("g_bw.global"), "{ours:?}");
    assert_eq!(ours, theirs);
    cleanup(&[&d1, &d2]);
}

/// fio: a one-second 8 MiB randrw job in `d` with the log options `logs`.
fn fio_randrw_with_logs(fio: &Path, d: &Path, logs: &[&str]) {
    let mut args = vec![
        "--name=f",
        "--filename=data",
        "--size=8m",
        "--rw=randrw",
        "--runtime=1",
        "--time_based",
        "--output-format=json",
    ];
    args.extend(logs);
    let ran = SUITE.run_in(fio, d, &args);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
}

/// `--plot=DIR --plot-from=LOG…` draws fio's own logs: one point per row
/// of an averaged log and of a histogram log, well-formed SVG; bad input
/// is an error that names the file.
#[test]
fn plot_from_draws_fio_logs() {
    let Some(fio) = original("fio") else {
        return;
    };
    let d = SUITE.temp_dir("plotfrom");
    fio_randrw_with_logs(
        &fio,
        &d,
        &[
            "--write_bw_log=A",
            "--write_lat_log=A",
            "--write_hist_log=A",
            "--log_avg_msec=100",
            "--log_hist_msec=100",
        ],
    );
    let from = [
        "--plot-from=A_bw.1.log",
        "--plot-from=A_clat.1.log",
        "--plot-from=A_clat_hist.1.log",
    ];
    let mut args = vec!["--plot=charts"];
    args.extend(from);
    let ours = SUITE.run_in(&our_bin("rfio"), &d, &args);
    assert_eq!(ours.code, 0, "{}", ours.stderr);
    let logs = logs(&d);
    let points = svg_points(
        &d.join("charts"),
        &[
            "bandwidth.svg",
            "latency.svg",
            "A_clat_hist.1_percentiles.svg",
            "clat_distribution.svg",
        ],
    );
    // Rows per direction with rows (the direction is column 1 of a hist log).
    let rows = |name: &str| {
        let mut r = [0usize; 3];
        let col = if name.contains("hist") { 1 } else { 2 };
        for d in column(&logs[name], col) {
            r[d as usize] += 1;
        }
        r.into_iter().filter(|&n| n > 0).collect::<Vec<_>>()
    };
    assert_eq!(points["bandwidth.svg"], rows("A_bw.1.log"));
    assert_eq!(points["latency.svg"], rows("A_clat.1.log"));
    // p50, p90, p99, p99.9 per direction, a point per row.
    let hist: Vec<usize> = rows("A_clat_hist.1.log")
        .into_iter()
        .flat_map(|n| [n; 4])
        .collect();
    assert_eq!(points["A_clat_hist.1_percentiles.svg"], hist);
    assert_eq!(points["clat_distribution.svg"].len(), 2);
    let index = std::fs::read_to_string(d.join("charts/index.html")).unwrap_or_default();
    assert!(index.contains("A_clat_hist.1_percentiles.svg"), "{index}");

    // Bad input: no --plot, a name that is no log, a row that is no row.
    let r = SUITE.run_in(&our_bin("rfio"), &d, &from[..1]);
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (1, "rfio: --plot-from needs --plot=DIR\n")
    );
    let r = SUITE.run_in(&our_bin("rfio"), &d, &["--plot=c2", "--plot-from=data"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("data: not a fio log name"),
        "{}",
        r.stderr
    );
    std::fs::write(d.join("B_bw.1.log"), "0, 1, 0, 0, 0\nsome text\n").expect("write");
    let r = SUITE.run_in(
        &our_bin("rfio"),
        &d,
        &["--plot=c2", "--plot-from=B_bw.1.log"],
    );
    assert_eq!(r.code, 1);
    assert!(r.stderr.starts_with("rfio: B_bw.1.log:2: "), "{}", r.stderr);
    cleanup(&[&d]);
}

/// `--plot-from` also reads fio's stored logs (`log_store_compressed=1`,
/// `NAME.log.fz`): a point per row of the log as `fio --inflate-log`
/// prints it; a file that does not inflate is an error naming it.
#[test]
fn plot_from_reads_stored_logs() {
    let Some(fio) = original("fio") else {
        return;
    };
    let d = SUITE.temp_dir("plotfz");
    fio_randrw_with_logs(
        &fio,
        &d,
        &[
            "--write_bw_log=Z",
            "--log_avg_msec=100",
            "--log_store_compressed=1",
            "--log_compression=1m",
        ],
    );
    let text = SUITE.run_in(&fio, &d, &["--inflate-log=Z_bw.1.log.fz"]);
    assert_eq!(text.code, 0, "{}", text.stderr);
    let lines: Vec<String> = text.stdout.lines().map(str::to_string).collect();
    let mut rows = [0usize; 3];
    for dir in column(&lines, 2) {
        rows[dir as usize] += 1;
    }
    let rows: Vec<usize> = rows.into_iter().filter(|&n| n > 0).collect();
    assert!(!rows.is_empty(), "{}", text.stdout);
    let ours = SUITE.run_in(
        &our_bin("rfio"),
        &d,
        &["--plot=charts", "--plot-from=Z_bw.1.log.fz"],
    );
    assert_eq!(ours.code, 0, "{}", ours.stderr);
    let points = svg_points(&d.join("charts"), &["bandwidth.svg"]);
    assert_eq!(points["bandwidth.svg"], rows);

    std::fs::write(d.join("X_bw.1.log.fz"), "not zlib\n").expect("write");
    let r = SUITE.run_in(
        &our_bin("rfio"),
        &d,
        &["--plot=c2", "--plot-from=X_bw.1.log.fz"],
    );
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (1, "rfio: X_bw.1.log.fz: failed inflating log\n")
    );
    cleanup(&[&d]);
}
