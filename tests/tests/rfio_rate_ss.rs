//! rfio beside fio 3.33 for rate limits, think time, steady state, CPU and
//! I/O priority placement, and I/O errors (continue_on_error, ignore_error,
//! error_dump) on a full tmpfs. The same command lines run with both tools
//! in fresh directories; what a user compares is compared: messages and exit
//! codes, JSON keys and types, line layouts with numbers masked, and counts
//! in the same ballpark where a clock decides them (tolerances below).
//! Rate accuracy itself is measured by tests/rate_check.sh, not asserted.

use std::path::Path;
use std::time::{Duration, Instant};

use rbench_tests::fs::Mount;
use rbench_tests::rfio::Suite;
use rbench_tests::{
    command_in, fio_json_parts, fio_key_paths, fio_unit_header, mask_numbers,
    masked_lines_starting, on_threads, original, our_bin, ours_then_original, parse_json,
    run_in_dir, spawn_piped, wait_success_bounded, Ran,
};
use serde_json::Value;

const LIMIT: Duration = Duration::from_secs(60);

const SUITE: Suite = Suite::new("rfio-rate", LIMIT);

/// fio then rfio on the same arguments, each in a fresh directory. `None`
/// when fio is not installed.
fn both(args: &[&str]) -> Option<(Ran, Ran)> {
    SUITE.both_runs(args)
}

/// fio and rfio at the same time on job `j`, 1 MiB on the null engine, with
/// the options `rest`, each in a fresh directory. These jobs sleep most of
/// their runtime (a rate, a think time) and their checks are loose enough
/// for a neighbour's load (counts within 15% or more, layouts, verdicts),
/// so the pair takes one run's time, not two. `None` when fio is not
/// installed.
fn both_null(rest: &[&str]) -> Option<(Ran, Ran)> {
    let mut args = vec!["--name=j", "--size=1m", "--ioengine=null"];
    args.extend_from_slice(rest);
    let tools = [original("fio")?, our_bin("rfio")];
    let mut runs = on_threads(&tools, |bin| {
        let dir = SUITE.scratch("null");
        run_in_dir(bin, &dir, &args, LIMIT)
    })
    .into_iter();
    Some((runs.next()?, runs.next()?))
}

/// [`both_null`], each tool exiting 0.
fn both_null_ok(rest: &[&str]) -> Option<(Ran, Ran)> {
    let (theirs, ours) = both_null(rest)?;
    assert_eq!((ours.code, theirs.code), (0, 0), "{}", ours.stderr);
    Some((theirs, ours))
}

/// fio, then rfio, each writing into a fresh 1 MiB tmpfs (`{tmpfs}` in
/// `args` stands for its path) from a fresh working directory: each run
/// with that path. `None` when fio is not installed or mounting is not
/// possible here.
fn on_full_tmpfs(tag: &str, args: &[&str]) -> Option<[(Ran, String); 2]> {
    let fio = original("fio")?;
    let run = |bin: &Path| -> Option<(Ran, String)> {
        let fs = Mount::tmpfs(tag, "1m")?;
        let dir = fs.dir.display().to_string();
        let args: Vec<String> = args.iter().map(|a| a.replace("{tmpfs}", &dir)).collect();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let cwd = SUITE.scratch("cwd");
        Some((run_in_dir(bin, &cwd, &args, LIMIT), dir))
    };
    Some([run(&fio)?, run(&our_bin("rfio"))?])
}

/// fio's notices that share stdout with its JSON when stdout is a pipe
/// (`fio: pid=...` lines ahead of the document; rfio sends them to stderr so
/// its stdout stays one document), and the document itself.
fn fio_json(r: &Ran) -> (String, Value) {
    let (ahead, doc) = fio_json_parts(&r.stdout);
    (format!("{}{ahead}", r.stderr), doc)
}

/// fio's JSON document (after its notices) and rfio's (all of its stdout).
fn docs(theirs: &Ran, ours: &Ran) -> (Value, Value) {
    (fio_json(theirs).1, parse_json(&ours.stdout))
}

/// [`docs`] of [`both_null`].
fn null_docs(rest: &[&str]) -> Option<(Value, Value)> {
    let (theirs, ours) = both_null(rest)?;
    Some(docs(&theirs, &ours))
}

/// Pids, dates and numbers differ from run to run.
fn masked(s: &str) -> String {
    mask_numbers(s)
        .lines()
        .filter(|l| !l.contains(" CET ") && !l.contains("UTC"))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// The read I/Os of a JSON report's first job (0 when missing).
fn read_ios(r: &Ran) -> f64 {
    parse_json(&r.stdout)["jobs"][0]["read"]["total_ios"]
        .as_f64()
        .unwrap_or(0.0)
}

/// Same exit code and the same stderr/stdout text.
#[test]
fn option_errors_match_fio() {
    let cases: &[&[&str]] = &[
        &["--rate=1m", "--rate_iops=10"],
        &["--rate_min=1m", "--rate_iops_min=10"],
        &["--rate=1m", "--rate_min=2m"],
        &["--rate_iops=10,20", "--rate_iops_min=5,30"],
        &["--rate_process=bursty"],
        &["--ss=iops"],
        &["--ss=iops:abc"],
        &["--ss=bw:x%"],
        &["--ss=foo:1"],
        &["--ignore_error=EFOO"],
        &["--ignore_error=0"],
        &["--cpumask=0x100000"],
        &["--cpus_allowed_policy=bad"],
        &["--prioclass=4"],
        &["--prio=8"],
        &["--continue_on_error=sometimes"],
        &["--thinktime_blocks_type=later"],
    ];
    for extra in cases {
        let mut args = vec!["--name=j", "--size=64k", "--ioengine=null"];
        args.extend_from_slice(extra);
        let Some((theirs, ours)) = both(&args) else {
            return;
        };
        assert_eq!(ours.code, theirs.code, "exit code for {args:?}");
        assert_eq!(ours.stderr, theirs.stderr, "stderr for {args:?}");
        assert_eq!(ours.stdout, theirs.stdout, "stdout for {args:?}");
    }
}

#[test]
fn cmdhelp_of_the_new_options_matches_fio() {
    for o in [
        "rate_min",
        "ratemin",
        "rate_iops_min",
        "rate_process",
        "rate_cycle",
        "rate_ignore_thinktime",
        "thinktime_blocks_type",
        "thinktime_iotime",
        "steadystate",
        "ss",
        "ss_dur",
        "ss_ramp",
        "cpus_allowed_policy",
        "cpumask",
        "prioclass",
        "ignore_error",
        "error_dump",
    ] {
        let arg = format!("--cmdhelp={o}");
        let Some((theirs, ours)) = both(&[&arg]) else {
            return;
        };
        assert_eq!(ours.stdout, theirs.stdout, "{arg}");
        assert_eq!(ours.code, theirs.code, "{arg}");
    }
}

/// Total ios of a rate_iops=500 job over 2 s: 1000 expected; each tool
/// within 15% of that (start-up and the last partial interval), for the
/// linear and the poisson process (poisson: 30%, its gaps are random).
#[test]
fn rate_iops_gives_the_same_ballpark_of_ios() {
    let cases = [("linear", 0.15), ("poisson", 0.30)];
    let runs = on_threads(&cases, |(process, _)| {
        let p = format!("--rate_process={process}");
        both_null_ok(&[
            "--rw=randread",
            "--rate_iops=500",
            &p,
            "--runtime=2",
            "--time_based",
            "--output-format=json",
        ])
    });
    for ((process, tol), run) in cases.iter().zip(runs) {
        let Some((theirs, ours)) = run else {
            return;
        };
        for (tool, n) in [("fio", read_ios(&theirs)), ("rfio", read_ios(&ours))] {
            assert!(
                (n - 1000.0).abs() <= 1000.0 * tol,
                "{tool} did {n} ios at rate_iops=500 for 2 s ({process})"
            );
        }
    }
}

/// Per-direction caps (`rate=1m,2m`) on a mixed job: both tools move about
/// twice as many write bytes as read bytes.
#[test]
fn per_direction_rates_split_a_mixed_job() {
    let Some((theirs, ours)) = both_null(&[
        "--rw=randrw",
        "--rate=1m,2m",
        "--runtime=2",
        "--time_based",
        "--output-format=json",
    ]) else {
        return;
    };
    for (tool, r) in [("fio", &theirs), ("rfio", &ours)] {
        let j = &parse_json(&r.stdout)["jobs"][0];
        let rd = j["read"]["io_bytes"].as_f64().unwrap_or(0.0);
        let wr = j["write"]["io_bytes"].as_f64().unwrap_or(0.0);
        assert!(
            rd > 0.0 && (wr / rd - 2.0).abs() < 0.3,
            "{tool}: read {rd} write {wr}"
        );
    }
}

/// thinktime: 20 ms after every 5 blocks over 1 s is at most 50 stalls of 5
/// blocks (250 ios) plus the first burst; both tools near that, and
/// rate_ignore_thinktime runs. (thinktime_spin is left out: fio 3.33 with
/// it hangs now and then under a test harness.)
#[test]
fn thinktime_stalls_both_alike() {
    let cases = [
        &["--thinktime=20ms", "--thinktime_blocks=5"][..],
        &[
            "--thinktime=20ms",
            "--thinktime_blocks=5",
            "--thinktime_blocks_type=issue",
        ],
        &[
            "--thinktime=20ms",
            "--rate_iops=400",
            "--rate_ignore_thinktime=1",
        ],
    ];
    let run = |extra: &&[&str]| {
        let mut rest = vec!["--runtime=1", "--time_based", "--output-format=json"];
        rest.extend_from_slice(extra);
        both_null_ok(&rest)
    };
    let near = |extra: &[&str], (theirs, ours): (Ran, Ran)| {
        let (f, o) = (read_ios(&theirs), read_ios(&ours));
        (o > 0.0 && (o / f - 1.0).abs() < 0.35)
            .then_some(())
            .ok_or(format!("{extra:?}: rfio {o} ios, fio {f}"))
    };
    for (extra, pair) in cases.iter().zip(on_threads(&cases, run)) {
        let Some(pair) = pair else {
            return;
        };
        if let Err(why) = near(extra, pair) {
            // Every stall is a sleep, and a loaded CPU wakes each one late
            // by a varying amount (seen with CPU hogs: fio 33 cycles of the
            // 20 ms think in a second beside rfio's 49): once more, and
            // near each other then.
            eprintln!("note: {why}; once more");
            let again = run(extra).expect("fio ran before");
            if let Err(why) = near(extra, again) {
                panic!("{why} (and in the run before)");
            }
        }
    }
}

/// rate_iops_min not met (thinktime holds the job to 20 IOPS): after fio's
/// 2 s settling period and one rate_cycle, the job ends with EIO, the same
/// lines on the same streams and exit status 1; JSON stays one document.
#[test]
fn rate_min_ends_the_job_as_fio() {
    let cases = [
        (&["--rate_iops_min=100"][..], false),
        (&["--rate_iops_min=100"][..], true),
        (&["--rate_min=1m"][..], false),
        (&["--rate_min=1m"][..], true),
    ];
    let runs = on_threads(&cases, |(extra, json)| {
        let mut rest = vec!["--thinktime=50ms", "--runtime=8", "--time_based"];
        rest.extend_from_slice(extra);
        if *json {
            rest.push("--output-format=json");
        }
        both_null(&rest)
    });
    for ((extra, json), run) in cases.iter().zip(runs) {
        let Some((theirs, ours)) = run else {
            return;
        };
        if *json {
            assert_eq!((ours.code, theirs.code), (1, 1));
            let (notices, t) = fio_json(&theirs);
            let o = parse_json(&ours.stdout);
            assert_eq!(masked(&ours.stderr), masked(&notices), "{extra:?}");
            assert_eq!(o["jobs"][0]["error"], 5);
            assert_eq!(t["jobs"][0]["error"], 5);
            // Well before the 8 s runtime: after the 2 s settling and a cycle.
            let rt = |v: &Value| v["jobs"][0]["job_runtime"].as_u64().unwrap_or(0);
            assert!(rt(&o) < 6000 && rt(&t) < 6000, "{} {}", rt(&o), rt(&t));
            continue;
        }
        assert_eq!((ours.code, theirs.code), (1, 1));
        assert_eq!(masked(&ours.stderr), masked(&theirs.stderr), "{extra:?}");
        assert!(theirs.stderr.starts_with("j: rate_"), "{}", theirs.stderr);
        assert_eq!(
            masked_lines_starting(&ours.stdout, "fio: pid="),
            masked_lines_starting(&theirs.stdout, "fio: pid="),
        );
        assert_eq!(
            fio_unit_header(&ours.stdout),
            fio_unit_header(&theirs.stdout)
        );
    }
}

/// A flat, rate-limited job reaches steady state: both end early, and the
/// `steadystate` JSON block has fio's keys, order and types; the normal
/// line has fio's layout.
#[test]
fn steadystate_ends_a_settled_job() {
    let cases = ["iops:10%", "bw:5%", "iops_slope:20", "bw_slope:1%"];
    let runs = on_threads(&cases, |ss| {
        let s = format!("--ss={ss}");
        both_null_ok(&[
            "--rate_iops=1000",
            &s,
            "--ss_dur=2",
            "--runtime=15",
            "--time_based",
            "--output-format=json",
        ])
    });
    for (ss, run) in cases.iter().zip(runs) {
        let Some((theirs, ours)) = run else {
            return;
        };
        let (t, o) = docs(&theirs, &ours);
        let (tj, oj) = (&t["jobs"][0], &o["jobs"][0]);
        let keys = |j: &Value| -> Vec<String> {
            j.as_object()
                .map(|m| m.keys().cloned().collect())
                .unwrap_or_default()
        };
        assert_eq!(keys(oj), keys(tj), "{ss}");
        assert_eq!(
            fio_key_paths(&oj["steadystate"], true),
            fio_key_paths(&tj["steadystate"], true),
            "{ss}"
        );
        assert_eq!(oj["steadystate"]["ss"], tj["steadystate"]["ss"]);
        for j in [tj, oj] {
            assert_eq!(
                j["steadystate"]["attained"], 1,
                "{ss}: {}",
                j["steadystate"]
            );
            assert!(
                j["job_runtime"].as_u64().unwrap_or(u64::MAX) < 10_000,
                "{ss}"
            );
        }
    }
}

/// The normal output's steadystate line has fio's layout.
#[test]
fn steadystate_line_matches_fio() {
    let Some((theirs, ours)) = both_null(&[
        "--rate_iops=1000",
        "--ss=iops:50%",
        "--ss_dur=2",
        "--ss_ramp=1",
        "--runtime=15",
        "--time_based",
    ]) else {
        return;
    };
    assert_eq!(
        masked_lines_starting(&ours.stdout, "steadystate"),
        masked_lines_starting(&theirs.stdout, "steadystate")
    );
    assert_eq!(masked_lines_starting(&ours.stdout, "steadystate").len(), 1);
}

/// Without attaining (a limit nobody meets) the job runs its runtime and
/// reports attained=0 with a full window.
#[test]
fn steadystate_not_attained_runs_to_the_end() {
    let Some((theirs, ours)) = both_null(&[
        "--rate_iops=1000",
        "--ss=iops:0",
        "--ss_dur=1",
        "--runtime=3",
        "--time_based",
        "--output-format=json",
    ]) else {
        return;
    };
    for r in [&theirs, &ours] {
        let j = &parse_json(&r.stdout)["jobs"][0];
        assert_eq!(j["steadystate"]["attained"], 0);
        assert_eq!(
            j["steadystate"]["data"]["iops"].as_array().map(Vec::len),
            Some(1)
        );
        assert!(j["job_runtime"].as_u64().unwrap_or(0) >= 2900);
    }
}

/// Write 2 MiB into a 1 MiB tmpfs: ENOSPC. Without continue_on_error the job
/// stops with fio's lines and exit 1; with ignore_error=,ENOSPC it continues
/// (errors line, exit 0); error_dump prints each error. JSON output stays one
/// document with fio's error fields.
#[test]
fn enospc_on_a_full_tmpfs_is_reported_as_fio() {
    let cases: &[&[&str]] = &[
        &[],
        &["--continue_on_error=write"],
        &["--continue_on_error=read"],
        &["--ignore_error=,ENOSPC"],
        &["--ignore_error=,ENOSPC", "--error_dump=1"],
        &["--continue_on_error=all", "--ignore_error=,28"],
        &["--ioengine=libaio", "--ignore_error=,ENOSPC"],
    ];
    for extra in cases {
        for format in ["normal", "json"] {
            let fmt = format!("--output-format={format}");
            let mut args = vec![
                "--name=j",
                "--filename={tmpfs}/f",
                "--size=2m",
                "--rw=write",
                "--bs=256k",
                &fmt,
            ];
            args.extend_from_slice(extra);
            let Some([theirs, ours]) = on_full_tmpfs("enospc", &args) else {
                return;
            };
            let fix = |s: &str, dir: &str| masked(&s.replace(dir, "DIR"));
            assert_eq!(ours.0.code, theirs.0.code, "{extra:?} {format}");
            let notices = if format == "json" {
                fio_json(&theirs.0).0
            } else {
                theirs.0.stderr.clone()
            };
            assert_eq!(
                fix(&ours.0.stderr, &ours.1),
                fix(&notices, &theirs.1),
                "stderr {extra:?} {format}"
            );
            if format == "json" {
                let (t, o) = docs(&theirs.0, &ours.0);
                for k in ["error", "total_err", "first_error"] {
                    assert_eq!(o["jobs"][0][k], t["jobs"][0][k], "{k} {extra:?}");
                }
                assert_eq!(
                    o["jobs"][0]["write"]["io_bytes"], t["jobs"][0]["write"]["io_bytes"],
                    "{extra:?}"
                );
            } else {
                assert_eq!(
                    fio_unit_header(&ours.0.stdout),
                    fio_unit_header(&theirs.0.stdout),
                    "{extra:?}"
                );
                for p in ["fio: pid=", "errors", "issued rwts"] {
                    assert_eq!(
                        masked_lines_starting(&ours.0.stdout, p),
                        masked_lines_starting(&theirs.0.stdout, p),
                        "{p} {extra:?}"
                    );
                }
            }
        }
    }
}

/// The threads of a running tool but its main one: (tid,
/// Cpus_allowed_list, ioprio, nice).
fn job_threads(pid: u32) -> Vec<(u32, String, i64, i64)> {
    let mut out = Vec::new();
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return out;
    };
    for t in tasks.flatten() {
        let Some(tid) = t.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        let status = std::fs::read_to_string(t.path().join("status")).unwrap_or_default();
        if tid == pid {
            continue;
        }
        let cpus = status
            .lines()
            .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
            .unwrap_or("")
            .trim()
            .to_string();
        // SAFETY: ioprio_get(IOPRIO_WHO_PROCESS, tid) has no memory arguments.
        let prio = unsafe { libc::syscall(libc::SYS_ioprio_get, 1, tid as libc::c_long) };
        // nice: field 19 of stat, the 17th after the `(comm)` field.
        let stat = std::fs::read_to_string(t.path().join("stat")).unwrap_or_default();
        let nice = stat
            .rsplit(')')
            .next()
            .and_then(|r| r.split_whitespace().nth(16))
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        out.push((tid, cpus, prio, nice));
    }
    out
}

/// What ioprio_get answers for a thread that never set one.
const DEFAULT_IOPRIO: i64 = 0;

/// Start the tool, look at its job threads while they run (the threads
/// whose ioprio was set), then let it finish.
fn observe(bin: &Path, args: &[&str], want: usize) -> Vec<(u32, String, i64, i64)> {
    let d = SUITE.scratch("placement");
    let child = spawn_piped(&mut command_in(bin, &d, args));
    let pid = child.id();
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut seen = Vec::new();
    // Job threads set their placement before their first I/O; look until
    // every one shows the change (or the deadline).
    while Instant::now() < deadline {
        seen = job_threads(pid);
        if seen.iter().filter(|t| t.2 != DEFAULT_IOPRIO).count() >= want {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    wait_success_bounded(child, LIMIT);
    seen
}

#[test]
fn placement_shows_in_proc_while_the_job_runs() {
    let online = std::thread::available_parallelism().map_or(1, |n| n.get());
    // The tools side by side: each job mostly waits out its runtime.
    on_threads(&ours_then_original("rfio", "rfio", "fio"), |(tool, bin)| {
        placement_of(tool, bin, online)
    });
}

/// The job threads of `bin` (fio with --thread, or rfio) carry the placement.
fn placement_of(tool: &str, bin: &Path, online: usize) {
    let observe_with = |extra: &[&str], want: usize| {
        let mut args = vec![
            "--name=j",
            "--ioengine=null",
            "--size=1m",
            "--runtime=2",
            "--time_based",
            "--thread",
        ];
        args.extend_from_slice(extra);
        observe(bin, &args, want)
    };
    // cpus_allowed and prio/prioclass on one job thread.
    let seen = observe_with(
        &["--cpus_allowed=0", "--prioclass=2", "--prio=5", "--nice=5"],
        1,
    );
    assert!(
        seen.iter()
            .any(|t| t.1 == "0" && t.2 == (2 << 13) | 5 && t.3 == 5),
        "{tool} threads: {seen:?}"
    );
    // cpumask, and idle class with level 0.
    let seen = observe_with(&["--cpumask=0x1", "--prioclass=3"], 1);
    assert!(
        seen.iter().any(|t| t.1 == "0" && t.2 == 3 << 13),
        "{tool} threads: {seen:?}"
    );
    if online >= 2 {
        // split: job N takes the ((N-1) mod 2)-th CPU of 0-1; shared: both
        // keep the whole set.
        for (policy, want) in [("split", ["0", "1"]), ("shared", ["0-1", "0-1"])] {
            let policy_arg = format!("--cpus_allowed_policy={policy}");
            let seen = observe_with(
                &["--cpus_allowed=0-1", &policy_arg, "--numjobs=2", "--prio=1"],
                2,
            );
            let mut cpus: Vec<&str> = seen
                .iter()
                .filter(|t| t.2 != DEFAULT_IOPRIO)
                .map(|t| t.1.as_str())
                .collect();
            cpus.sort_unstable();
            assert_eq!(cpus, want, "{tool} threads: {seen:?}");
        }
    }
}

/// The status line names the running jobs' rate limits (`, MIN-MAX` bytes/s
/// or `, MIN-MAX IOPS`) as fio's does.
#[test]
fn status_line_shows_rate_limits() {
    let cases = [
        &["--rate=1m"][..],
        &["--rw=randrw", "--rate_iops=100,200"],
        &["--rate=2m", "--rate_min=1m"],
    ];
    let runs = on_threads(&cases, |extra| {
        let mut rest = vec!["--runtime=2", "--time_based", "--eta=always"];
        rest.extend_from_slice(extra);
        both_null(&rest)
    });
    for (extra, run) in cases.iter().zip(runs) {
        let Some((theirs, ours)) = run else {
            return;
        };
        let first = |r: &Ran| {
            r.stdout
                .split(['\r', '\n'])
                .find(|l| l.starts_with("Jobs: 1"))
                .map(|l| l.split(": [").next().unwrap_or("").trim_end().to_string())
        };
        assert!(first(&theirs).is_some(), "{}", theirs.stdout);
        assert_eq!(first(&ours), first(&theirs), "{extra:?}");
    }
}

/// group_reporting: one steadystate block for the group, its window holding
/// the members' summed rates (two jobs at 1000 IOPS: about 2000), as fio.
#[test]
fn steadystate_of_a_reporting_group_sums_its_jobs() {
    let Some((t, o)) = null_docs(&[
        "--rate_iops=1000",
        "--numjobs=2",
        "--group_reporting",
        "--ss=iops:5%",
        "--ss_dur=2",
        "--runtime=10",
        "--time_based",
        "--output-format=json",
    ]) else {
        return;
    };
    for (tool, v) in [("fio", &t), ("rfio", &o)] {
        let jobs = v["jobs"].as_array().map_or(0, Vec::len);
        assert_eq!(jobs, 1, "{tool}");
        let ss = &v["jobs"][0]["steadystate"];
        assert_eq!(ss["attained"], 1, "{tool}: {ss}");
        let mean = ss["data"]["iops_mean"].as_f64().unwrap_or(0.0);
        assert!((mean - 2000.0).abs() < 200.0, "{tool}: {ss}");
    }
}

/// exitall_on_error: a job failing with ENOSPC ends the others of its run
/// (a 10 s time_based job stops early), exit status 1, as fio.
#[test]
fn exitall_on_error_stops_the_other_jobs() {
    let args = [
        "--exitall_on_error",
        "--output-format=json",
        "--name=a",
        "--filename={tmpfs}/f",
        "--size=2m",
        "--rw=write",
        "--bs=256k",
        "--name=b",
        "--ioengine=null",
        "--size=1m",
        "--time_based",
        "--runtime=10",
    ];
    let Some([(theirs, _), (ours, _)]) = on_full_tmpfs("exitall", &args) else {
        return;
    };
    assert_eq!((ours.code, theirs.code), (1, 1), "{}", ours.stderr);
    let (t, o) = docs(&theirs, &ours);
    for (tool, v) in [("fio", t), ("rfio", o)] {
        assert_eq!(v["jobs"][0]["error"], 28, "{tool}");
        let rt = v["jobs"][1]["job_runtime"].as_u64().unwrap_or(u64::MAX);
        assert!(rt < 5000, "{tool}: job b ran {rt} ms");
    }
}

/// A think time longer than the runtime is slept out: like fio's, the
/// stall is not cut short when the runtime ends (4 s in a 1 s job).
#[test]
fn a_long_thinktime_outlasts_the_runtime() {
    let Some((t, o)) = null_docs(&[
        "--thinktime=4s",
        "--runtime=1",
        "--time_based",
        "--output-format=json",
    ]) else {
        return;
    };
    for (tool, v) in [("fio", t), ("rfio", o)] {
        let j = &v["jobs"][0];
        let rt = j["job_runtime"].as_u64().unwrap_or(u64::MAX);
        assert!((3500..8000).contains(&rt), "{tool}: ran {rt} ms");
        assert_eq!(j["read"]["total_ios"], 1, "{tool}");
    }
}

/// Mixed jobs under per-direction rates: fio picks an I/O's direction
/// (rwmix draw, then the rate's turn to a direction that is due) before its
/// offset and block size, and draws poisson gaps from its own seeded
/// generators; rfio does the same, so each direction's I/O count and bytes
/// match fio's. Measured over 2 s with the null engine (rfio / fio, read
/// and write ios): 2000,1000 4000/2000 both; bs=4k,16k 4000/2000 both;
/// rate=1m,2m 512/1025 both; poisson 3932/2080 vs 3933/2080. What differs
/// is the edges: fio's first I/O comes some ms after its clock starts (a
/// short catch-up: 10 ms is 20 ios at 2000 IOPS) and the last may fall
/// either side of the end, so each count may differ by 2% plus 4 ios.
/// Before the fix rfio's bs=4k,16k split was 1818/2965 ios against fio's
/// 4000/2000 and its poisson counts were another draw (3% apart). The
/// cases run side by side (a rate job sleeps most of the time).
#[test]
fn mixed_rates_split_each_direction_as_fio() {
    let cases: [&[&str]; 6] = [
        &["--rate_iops=2000,1000"],
        // Write blocks 4x larger: a turn to the other direction happens
        // before the block size is drawn (16k writes, 4k reads).
        &["--rate_iops=2000,1000", "--bs=4k,16k"],
        &["--rate=1m,2m"],
        &["--rate_iops=1000", "--rwmixread=70"],
        &["--rate_iops=2000,1000", "--rate_process=poisson"],
        &[
            "--rate_iops=1000",
            "--rwmixread=70",
            "--rate_process=poisson",
        ],
    ];
    let run = |extra: &&[&str]| {
        let mut args = vec![
            "--name=j",
            "--size=64m",
            "--ioengine=null",
            "--rw=randrw",
            "--runtime=2",
            "--time_based",
            "--output-format=json",
        ];
        args.extend_from_slice(extra);
        both(&args)
    };
    let mut retry = Vec::new();
    for (extra, pair) in cases.iter().zip(on_threads(&cases, run)) {
        let Some((theirs, ours)) = pair else {
            return;
        };
        if let Err(why) = same_split(extra, &theirs, &ours) {
            eprintln!("note: {why}; running the case once more");
            retry.push(*extra);
        }
    }
    // A rate job asleep until its next I/O and woken late by a loaded CPU
    // past its runtime loses that late stretch's I/Os (seen with CPU hogs:
    // fio 493 reads, 3835 of 4000, where both make 512 and 4000 alone):
    // each mismatching case runs once more, alone, and must match then.
    for extra in &retry {
        let (theirs, ours) = run(extra).expect("fio ran before");
        if let Err(why) = same_split(extra, &theirs, &ours) {
            panic!("{why} (and in the first run)");
        }
    }
}

/// Whether a mixed rate job of rfio moved each direction's I/Os and block
/// sizes as fio's did (the counts within 2% plus 4 ios: the edges of the
/// run); the difference when not.
fn same_split(extra: &[&str], theirs: &Ran, ours: &Ran) -> Result<(), String> {
    assert_eq!(
        (ours.code, theirs.code),
        (0, 0),
        "{extra:?}: {}",
        ours.stderr
    );
    let (t, o) = docs(theirs, ours);
    for dir in ["read", "write"] {
        let get = |v: &Value, k: &str| v["jobs"][0][dir][k].as_f64().unwrap_or(-1.0);
        let (fi, ri) = (get(&t, "total_ios"), get(&o, "total_ios"));
        if !(fi > 0.0 && (ri - fi).abs() <= fi * 0.02 + 4.0) {
            return Err(format!("{extra:?} {dir}: rfio {ri} ios, fio {fi}"));
        }
        // The same block size per direction (bytes per I/O).
        let block = |v: &Value, n: f64| (get(v, "io_bytes") / n).round();
        assert_eq!(block(&o, ri), block(&t, fi), "{extra:?} {dir}: block size");
    }
    Ok(())
}
