//! rfio beside fio 3.33 for the options it used to take without acting on
//! them: trim verify (`trim_percentage`, `trim_verify_zero`,
//! `trim_backlog`, `trim_backlog_batch`) on a loop device that discards,
//! `dedupe_global`, `log_compression_cpus` and `--eta-interval`.
//!
//! Run `cargo build -p rfio` first: the tests execute target/debug/rfio.

use rbench_tests::fs::LoopDev;
use rbench_tests::rfio::Suite;
use rbench_tests::{
    command_in, on_threads, original, our_bin, parse_json, run_bounded, run_in_dir, spawn_piped,
    Ran,
};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const LIMIT: Duration = Duration::from_secs(30);
const SUITE: Suite = Suite::new("rbench-trimverify", LIMIT);
const BLOCK: usize = 4096;
/// Bytes each trim verify job writes (256 blocks).
const SIZE: usize = 1 << 20;

/// What the trim tests read and write on their loop device: the job's
/// region, `SIZE` bytes from the start.
trait Region {
    /// Fill the job's region with bytes that are not zero.
    fn scribble(&self);
    /// Which 4 KiB blocks of the job's region read back as zeros.
    fn zero_blocks(&self) -> Vec<bool>;
}

impl Region for LoopDev {
    fn scribble(&self) {
        let data: Vec<u8> = (0..SIZE).map(|i| (i % 251) as u8 | 1).collect();
        std::fs::write(&self.dev, data).expect("write the device");
    }

    fn zero_blocks(&self) -> Vec<bool> {
        let mut data = std::fs::read(&self.dev).expect("read the device");
        data.truncate(SIZE);
        data.chunks(BLOCK)
            .map(|b| b.iter().all(|&x| x == 0))
            .collect()
    }
}

/// The lines of `s` that start (after blanks) with `prefix`.
fn lines_with<'a>(s: &'a str, prefix: &str) -> Vec<&'a str> {
    s.lines()
        .map(str::trim_start)
        .filter(|l| l.starts_with(prefix))
        .collect()
}

/// A trim verify run on the device: what it printed and the zeroed blocks.
fn trim_run(bin: &Path, dir: &Path, dev: &LoopDev, extra: &[&str]) -> (Ran, Vec<bool>) {
    dev.scribble();
    let filename = format!("--filename={}", dev.dev);
    let mut args = vec![
        "--name=j",
        filename.as_str(),
        "--size=1m",
        "--bs=4k",
        "--rw=trimwrite",
        "--verify=md5",
        "--trim_percentage=50",
        "--trim_backlog=4",
    ];
    args.extend_from_slice(extra);
    let ran = run_in_dir(bin, dir, &args, LIMIT);
    (ran, dev.zero_blocks())
}

#[test]
fn trim_verify_trims_the_blocks_fio_trims() {
    let Some(fio) = original("fio") else { return };
    let rfio = our_bin("rfio");
    let d = SUITE.scratch("trim");
    let Some(dev) = LoopDev::new(
        &format!("{}-trim", SUITE.prefix),
        4 * SIZE as u64,
        None,
        LIMIT,
    ) else {
        return;
    };
    // (options, fio's issued rwts on this job, as a check that the case
    // still tests what it says).
    let cases: &[(&[&str], &str)] = &[
        // trimmed blocks stay on the verify list and read back zero
        (&[], "total=256,256,387,0"),
        // trimmed blocks leave the verify list: fewer reads
        (&["--trim_verify_zero=0"], "total=125,256,387,0"),
        // a batch of 1 every 7 blocks: one listed block never trimmed
        (
            &["--trim_backlog=7", "--trim_backlog_batch=1"],
            "total=256,256,386,0",
        ),
        // -1 is fio's unsigned 2^32-1 percent: every block
        (&["--trim_percentage=-1"], "total=256,256,512,0"),
        // no trim_backlog: blocks are listed, never trimmed
        (&["--trim_backlog=0"], "total=256,256,256,0"),
        // random blocks written again: a rewrite replaces the older entry
        (
            &["--rw=randtrimwrite", "--norandommap"],
            "total=157,256,386,0",
        ),
        // verify_backlog reads and trims interleaved as fio's get_io_u
        // asks for them
        (
            &[
                "--verify_backlog=10",
                "--trim_backlog=3",
                "--trim_verify_zero=0",
            ],
            "total=132,256,380,0",
        ),
        // the trim generator starts again each loop
        (
            &["--loops=2", "--trim_verify_zero=0", "--trim_backlog=5"],
            "total=250,512,774,0",
        ),
    ];
    for (extra, fio_issued) in cases {
        let (theirs, theirs_zero) = trim_run(&fio, &d, &dev, extra);
        let (ours, ours_zero) = trim_run(&rfio, &d, &dev, extra);
        let issued = |r: &Ran| lines_with(&r.stdout, "issued rwts:").concat();
        assert!(
            issued(&theirs).contains(fio_issued),
            "fio {extra:?}: {}",
            theirs.stdout
        );
        assert_eq!(issued(&ours), issued(&theirs), "{extra:?}\n{}", ours.stdout);
        assert_eq!(
            (ours.code, theirs.code),
            (0, 0),
            "{extra:?}\n{}",
            ours.stderr
        );
        // `fio: N trim entries leaked?` and nothing else on stderr
        assert_eq!(ours.stderr, theirs.stderr, "{extra:?}");
        assert_eq!(
            lines_with(&ours.stdout, "trim:").len(),
            lines_with(&theirs.stdout, "trim:").len(),
            "{extra:?}"
        );
        // The same blocks were trimmed (the job's own trims were all
        // written over again).
        let zeroed = |z: &[bool]| z.iter().filter(|&&b| b).count();
        assert!(zeroed(&theirs_zero) > 0 || extra.contains(&"--trim_backlog=0"));
        assert_eq!(
            ours_zero,
            theirs_zero,
            "{extra:?}: {} zeroed blocks, fio {}",
            zeroed(&ours_zero),
            zeroed(&theirs_zero)
        );
    }
}

/// (direction, offset) of each row of the latency log `lat_clat.1.log`
/// in `dir`.
fn logged_ios(dir: &Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(dir.join("lat_clat.1.log")).expect("latency log");
    text.lines()
        .map(|l| {
            let f: Vec<&str> = l.split(',').map(str::trim).collect();
            (f[2].to_string(), f[4].to_string())
        })
        .collect()
}

#[test]
fn trim_verify_counts_and_logs_as_fio() {
    let Some(fio) = original("fio") else { return };
    let rfio = our_bin("rfio");
    let d = SUITE.scratch("json");
    let Some(dev) = LoopDev::new(
        &format!("{}-json", SUITE.prefix),
        4 * SIZE as u64,
        None,
        LIMIT,
    ) else {
        return;
    };
    let extra = [
        "--output-format=json",
        "--randseed=77",
        "--trim_backlog_batch=2",
        "--write_lat_log=lat",
        "--log_offset=1",
    ];
    let (theirs, _) = trim_run(&fio, &d, &dev, &extra);
    let theirs_log = logged_ios(&d);
    let (ours, _) = trim_run(&rfio, &d, &dev, &extra);
    let ours_log = logged_ios(&d);
    let counts = |r: &Ran| {
        let v = parse_json(&r.stdout);
        let j = &v["jobs"][0];
        let n = |p: &str| j.pointer(p).and_then(|x| x.as_u64());
        (
            n("/trim/total_ios"),
            n("/trim/io_bytes"),
            n("/trim/clat_ns/N"),
            n("/read/total_ios"),
            n("/write/total_ios"),
            n("/error"),
            n("/trim/runtime").is_some_and(|t| t > 0),
        )
    };
    let theirs_counts = counts(&theirs);
    assert_eq!(theirs_counts.0, Some(384), "fio: {}", theirs.stdout);
    assert_eq!(counts(&ours), theirs_counts);
    // The trims of trim verify are logged as trims, among the writes, in
    // fio's order; then the verify reads.
    assert_eq!(theirs_log.len(), 256 * 2 + 384);
    assert_eq!(ours_log, theirs_log);
}

#[test]
fn trim_options_keep_fios_ranges() {
    let Some(fio) = original("fio") else { return };
    let rfio = our_bin("rfio");
    let d = SUITE.scratch("ranges");
    // (value, fio's exit code): fio checks no minimum of 0, so -1 is taken.
    for (v, code) in [("101", 1), ("abc", 1), ("-1", 0), ("100", 0)] {
        let arg = format!("--trim_percentage={v}");
        let args = ["--name=j", "--ioengine=null", "--size=1m", arg.as_str()];
        let theirs = run_in_dir(&fio, &d, &args, LIMIT);
        let ours = run_in_dir(&rfio, &d, &args, LIMIT);
        assert_eq!(theirs.code, code, "fio {v}: {}", theirs.stderr);
        assert_eq!(
            (ours.code, &ours.stderr),
            (theirs.code, &theirs.stderr),
            "{v}"
        );
    }
}

/// Per file, its set of 4 KiB blocks.
fn block_sets(files: &[PathBuf]) -> Vec<HashSet<Vec<u8>>> {
    files
        .iter()
        .map(|f| {
            let data = std::fs::read(f).expect("written file");
            data.chunks(BLOCK).map(<[u8]>::to_vec).collect()
        })
        .collect()
}

/// Two jobs writing 4 MiB with a dedupe working set: (unique blocks per
/// file, blocks the two files share).
fn two_dedupe_jobs(bin: &Path, global: bool) -> (Vec<usize>, usize) {
    let d = SUITE.scratch("dedupe");
    let global = format!("--dedupe_global={}", u8::from(global));
    let args = [
        "--rw=write",
        "--bs=4k",
        "--size=4m",
        "--dedupe_percentage=50",
        "--dedupe_mode=working_set",
        "--dedupe_working_set_percentage=10",
        global.as_str(),
        "--name=a",
        "--name=b",
    ];
    let ran = run_in_dir(bin, &d, &args, LIMIT);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let sets = block_sets(&[d.join("a.0.0"), d.join("b.0.0")]);
    (
        sets.iter().map(HashSet::len).collect(),
        sets[0].intersection(&sets[1]).count(),
    )
}

#[test]
fn dedupe_global_shares_the_working_set_across_jobs_as_fio() {
    let Some(fio) = original("fio") else { return };
    let rfio = our_bin("rfio");
    // 1024 blocks per file, half of them from a set of 102 pages.
    for global in [false, true] {
        let (theirs_unique, theirs_shared) = two_dedupe_jobs(&fio, global);
        let (ours_unique, ours_shared) = two_dedupe_jobs(&rfio, global);
        if !global {
            // Each job repeats only its own buffers: nothing in common.
            assert_eq!((ours_shared, theirs_shared), (0, 0));
        } else {
            // fio: the working set's 102 pages, 51 from each job, end up
            // in both files (a page no write picked is a few at most).
            assert!(theirs_shared > 80, "fio shares {theirs_shared}");
            assert!(
                ours_shared.abs_diff(theirs_shared) <= 8,
                "shared blocks: rfio {ours_shared}, fio {theirs_shared}"
            );
        }
        for (o, t) in ours_unique.iter().zip(&theirs_unique) {
            assert!(
                o.abs_diff(*t) * 100 <= t * 6,
                "global={global}: unique blocks per file rfio {ours_unique:?}, fio {theirs_unique:?}"
            );
        }
    }
}

/// Process `pid` and its children (fio runs each job in a process of its
/// own).
fn with_children(pid: u32) -> Vec<u32> {
    let mut out = vec![pid];
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return out;
    };
    for p in procs.flatten() {
        let Some(child) = p.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        let stat = std::fs::read_to_string(p.path().join("stat")).unwrap_or_default();
        // ppid: the 2nd field after `(comm)`.
        let ppid = stat
            .rsplit(')')
            .next()
            .and_then(|r| r.split_whitespace().nth(1))
            .and_then(|n| n.parse::<u32>().ok());
        if ppid == Some(pid) {
            out.push(child);
        }
    }
    out
}

/// The threads of process `pid` and its children running at nice 1 (the
/// log compression worker, as fio's workqueue runs it): their
/// Cpus_allowed_list.
fn nice_one_threads(pid: u32) -> Vec<String> {
    let tasks = with_children(pid).into_iter().flat_map(|p| {
        std::fs::read_dir(format!("/proc/{p}/task"))
            .into_iter()
            .flatten()
            .flatten()
    });
    let mut out = Vec::new();
    for t in tasks {
        let stat = std::fs::read_to_string(t.path().join("stat")).unwrap_or_default();
        // nice: the 17th field after `(comm)`.
        let nice = stat
            .rsplit(')')
            .next()
            .and_then(|r| r.split_whitespace().nth(16))
            .and_then(|n| n.parse::<i64>().ok());
        if nice != Some(1) {
            continue;
        }
        let status = std::fs::read_to_string(t.path().join("status")).unwrap_or_default();
        if let Some(c) = status
            .lines()
            .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        {
            out.push(c.trim().to_string());
        }
    }
    out
}

/// Run a 2 s job keeping a compressed latency log and report the affinity
/// of its nice-1 threads while it runs. (Not `--thread`: fio 3.33 then
/// often hangs at the end of a job with log_compression.)
fn packing_threads(bin: &Path, extra: &[&str]) -> Option<Vec<String>> {
    let d = SUITE.scratch("logcpus");
    let mut args = vec![
        "--name=j",
        "--ioengine=null",
        "--size=1m",
        "--time_based",
        "--runtime=2",
        // A small log: writing millions of rows would take longer than the job.
        "--rate_iops=1000",
        "--log_compression=64k",
        "--write_lat_log=lat",
    ];
    args.extend_from_slice(extra);
    let mut child = spawn_piped(&mut command_in(bin, &d, &args));
    let pid = child.id();
    // The job runs 2 s, but a loaded machine may take a while to start it:
    // look until the thread shows or the process is gone (bounded by LIMIT).
    let deadline = Instant::now() + LIMIT;
    let mut seen = Vec::new();
    while seen.is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
        if !matches!(child.try_wait(), Ok(None)) {
            break;
        }
        seen = nice_one_threads(pid);
    }
    // A run that outlives its bound (seen once in CI with four runs at once
    // on a loaded machine) is killed and reported as None; the caller says
    // which tool and tries that case once more.
    let end = Instant::now() + LIMIT;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                assert!(status.success(), "{} {args:?}: {status}", bin.display());
                return Some(seen);
            }
            Ok(None) if Instant::now() < end => std::thread::sleep(Duration::from_millis(20)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                eprintln!(
                    "note: {} {args:?} did not end within {LIMIT:?}",
                    bin.display()
                );
                return None;
            }
        }
    }
}

#[test]
fn log_compression_cpus_pins_the_packing_thread_as_fio() {
    let Some(fio) = original("fio") else { return };
    let rfio = our_bin("rfio");
    let online = std::thread::available_parallelism().map_or(1, |n| n.get());
    let last = (online - 1).to_string();
    let pinned = format!("--log_compression_cpus={last}");
    let cases: Vec<(PathBuf, Vec<&str>)> = vec![
        (rfio.clone(), vec![pinned.as_str()]),
        (fio.clone(), vec![pinned.as_str()]),
        (rfio.clone(), vec![]),
        (fio.clone(), vec![]),
    ];
    // Each run mostly waits out its runtime: all four at once.
    let seen = on_threads(&cases, |(bin, extra)| {
        packing_threads(bin, extra)
            .or_else(|| packing_threads(bin, extra))
            .unwrap_or_else(|| {
                panic!(
                    "{} {extra:?}: the 2 s job did not end, twice",
                    bin.display()
                )
            })
    });
    assert_eq!(seen[1], vec![last.clone()], "fio's compression worker");
    assert_eq!(seen[0], seen[1], "rfio's packing thread, pinned");
    let all = if online == 1 {
        "0".to_string()
    } else {
        format!("0-{last}")
    };
    assert_eq!(seen[3], vec![all], "fio's worker without the option");
    assert_eq!(seen[2], seen[3], "rfio's packing thread without the option");

    // fio's parser: a CPU past the last online one is refused.
    let d = SUITE.scratch("logcpus-bad");
    let too_far = format!("--log_compression_cpus={}", online + 3);
    let args = ["--name=j", "--ioengine=null", "--size=1m", too_far.as_str()];
    let theirs = run_in_dir(&fio, &d, &args, LIMIT);
    let ours = run_in_dir(&rfio, &d, &args, LIMIT);
    assert_eq!(theirs.code, 1, "{}", theirs.stderr);
    assert_eq!((ours.code, &ours.stderr), (theirs.code, &theirs.stderr));
}

#[test]
fn eta_interval_is_parsed_as_fio() {
    let Some(fio) = original("fio") else { return };
    let rfio = our_bin("rfio");
    let d = SUITE.scratch("eta-bad");
    for v in ["0", "249ms", "abc", "250ms"] {
        let arg = format!("--eta-interval={v}");
        let args = [arg.as_str(), "--name=j", "--ioengine=null", "--size=1m"];
        let theirs = run_in_dir(&fio, &d, &args, LIMIT);
        let ours = run_in_dir(&rfio, &d, &args, LIMIT);
        assert_eq!(
            (ours.code, &ours.stderr),
            (theirs.code, &theirs.stderr),
            "{v}"
        );
    }
}

/// How many status lines a 2 s rate-limited job draws with `interval`.
fn status_lines(bin: &Path, interval: &str) -> usize {
    let d = SUITE.scratch("eta");
    let arg = format!("--eta-interval={interval}");
    let args = [
        "--eta=always",
        arg.as_str(),
        "--name=j",
        "--ioengine=null",
        "--size=1g",
        "--time_based",
        "--runtime=2",
        "--rate_iops=1000",
    ];
    let out = run_bounded(&mut command_in(bin, &d, &args), LIMIT);
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout)
        .split(['\r', '\n'])
        .filter(|l| l.starts_with("Jobs:"))
        .count()
}

#[test]
fn eta_interval_sets_how_often_the_status_line_is_drawn() {
    let Some(fio) = original("fio") else { return };
    let rfio = our_bin("rfio");
    let cases = [
        (rfio.clone(), "250ms"),
        (fio.clone(), "250ms"),
        (rfio, "1s"),
        (fio, "1s"),
    ];
    let n = on_threads(&cases, |(bin, interval)| status_lines(bin, interval));
    // fio draws on its helper's 250 ms ticks: about 8 lines in 2 s at
    // 250ms, 2 at 1s; a busy machine may cost a line.
    assert!(n[1] >= 6 && n[3] <= 3, "fio: {n:?}");
    assert!(
        n[0].abs_diff(n[1]) <= 1,
        "250ms: rfio {}, fio {}",
        n[0],
        n[1]
    );
    assert!(n[2].abs_diff(n[3]) <= 1, "1s: rfio {}, fio {}", n[2], n[3]);
}
