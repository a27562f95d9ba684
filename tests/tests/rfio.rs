//! rfio beside fio 3.33: the same command lines in fresh temporary
//! directories, compared as a user compares them: messages and exit codes of
//! bad input, normal-output layout with numbers masked, JSON key paths and
//! value types, terse field counts, bytes moved and files created. Jobs are
//! small (4-16 MiB, at most 1 s) so the file runs in well under a minute.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use rbench_tests::fs::LoopDev;
use rbench_tests::rfio::Suite;
use rbench_tests::{
    fio_key_paths, fio_layout, mask_numbers, original, our_bin, parse_json, run_ok, Ran,
};
use serde_json::Value;

const LIMIT: Duration = Duration::from_secs(60);

const SUITE: Suite = Suite::new("rfio-test", LIMIT);

fn nothing(_: &Path) {}

/// Pids and dates differ from run to run.
fn mask_ids(s: &str) -> String {
    s.lines()
        .map(|l| {
            let l = match l.find("pid=") {
                Some(i) => {
                    let end = l[i + 4..]
                        .find(|c: char| !c.is_ascii_digit())
                        .map_or(l.len(), |e| i + 4 + e);
                    format!("{}pid=N{}", &l[..i], &l[end..])
                }
                None => l.to_string(),
            };
            format!("{l}\n")
        })
        .collect()
}

/// Same stdout, stderr and exit code (pids aside).
fn assert_same_error(args: &[&str], prepare: &dyn Fn(&Path)) {
    let Some(((theirs, d1), (ours, d2))) = SUITE.both(args, prepare) else {
        return;
    };
    // getopt names the program by argv[0].
    let fio = original("fio").unwrap_or_default().display().to_string();
    let rfio = our_bin("rfio").display().to_string();
    let fix = |s: &str, d: &Path| {
        mask_ids(
            &s.replace(&d.display().to_string(), "DIR")
                .replace(&fio, "PROG")
                .replace(&rfio, "PROG"),
        )
    };
    assert_eq!(ours.code, theirs.code, "exit code for {args:?}");
    assert_eq!(
        fix(&ours.stderr, &d2),
        fix(&theirs.stderr, &d1),
        "stderr for {args:?}"
    );
    assert_eq!(
        fix(&ours.stdout, &d2),
        fix(&theirs.stdout, &d1),
        "stdout for {args:?}"
    );
}

#[test]
fn bad_command_lines_fail_as_fio_does() {
    let cases: &[&[&str]] = &[
        &["--name=x", "--size=1M", "--bogusopt=1"],
        &["--name=x", "--size=abc"],
        &["--name=x", "--size=1M", "--rw=readd"],
        &["--name=x", "--size=1M", "--rwmixread=150"],
        &["--name=x", "--size=1M", "--direct=yes"],
        &["--name=x", "--size=1M", "--direct=2"],
        &["--name=x", "--size=1M", "--ioengine=null", "--iodep=4"],
        &["--name=x", "--size=1M", "--ioengine=null", "--outp=terse"],
        &["--name=x", "--size=1M", "--numjobs=$ncpus"],
        &["--name=x", "--size=1M", "--bs=4k", "--kb_base=1001"],
        &["--name=x", "--size=1M", "--runtime=abc"],
        &["--output-format=xml", "--name=x", "--size=1M"],
        &["--name=x", "--hipri", "--ioengine=io_uring", "--size=1M"],
        &["--name=x", "--size"],
        &["--name=x", "--size=1M", "--ioengine=foo"],
        &[
            "--terse-version=7",
            "--name=x",
            "--size=1M",
            "--ioengine=null",
        ],
        &["--cmdhelp=nosuch"],
        &["nonexistent.fio"],
    ];
    for args in cases {
        assert_same_error(args, &nothing);
    }
}

/// getopt abbreviations: a unique prefix names its option.
#[test]
fn unique_prefixes_name_their_option() {
    let args = [
        "--name=x",
        "--ioengine=null",
        "--size=1m",
        "--runt=1",
        "--output-format=terse",
    ];
    let Some(((theirs, _), (ours, _))) = SUITE.both(&args, &nothing) else {
        return;
    };
    assert_eq!((ours.code, theirs.code), (0, 0), "{}", ours.stderr);
    assert!(ours.stdout.starts_with("3;fio-3.33;x;"), "{}", ours.stdout);
}

/// No job: usage on stdout (rfio lists only the program options it
/// implements), `No job(s) defined` on stderr, exit 1.
#[test]
fn no_job_prints_usage_and_fails() {
    let Some(((theirs, _), (ours, _))) = SUITE.both(&[], &nothing) else {
        return;
    };
    assert_eq!(
        (ours.code, ours.stderr.as_str()),
        (theirs.code, theirs.stderr.as_str())
    );
    // The version line, then the usage line that starts with argv[0]
    // ("fio-3.33", "/usr/bin/fio [options] ...").
    let first_two = |s: &str| -> Vec<String> {
        s.lines()
            .take(2)
            .map(|l| {
                let w = l.split(' ').next().unwrap_or("");
                w.rsplit('/')
                    .next()
                    .unwrap_or(w)
                    .trim_start_matches('r')
                    .to_string()
            })
            .collect()
    };
    assert!(ours.stdout.starts_with("fio-3.33\n"));
    assert_eq!(first_two(&ours.stdout), first_two(&theirs.stdout));
    assert!(ours
        .stdout
        .contains("[options] [job options] <job file(s)>"));
}

#[test]
fn missing_size_for_a_new_file_is_a_job_error() {
    assert_same_error(
        &["--name=x", "--filename=does-not-exist", "--rw=read"],
        &nothing,
    );
}

#[test]
fn bad_job_files_fail_as_fio_does() {
    let files: &[(&str, &str)] = &[
        ("outside.fio", "rw=read\n[job1]\nsize=1M\n"),
        ("unknown.fio", "[job1]\nbogus=1\n"),
        ("badvalue.fio", "[job1]\nrw=randred\n"),
        ("badline.fio", "[job1]\nthis line is not an option\n"),
    ];
    for (name, text) in files {
        let write = |d: &Path| std::fs::write(d.join(name), text).expect("write job file");
        assert_same_error(&[name], &write);
    }
}

/// Values fio silently reads as something else (`bs=4q` is 4 bytes,
/// `size=1.5M` is 1, `runtime=10x` 16 µs: "0x" inside makes it hex) run
/// as fio runs them, with a warning naming the option and how it was read;
/// --warnings-fatal makes that an error. A negative offset stays refused.
#[test]
fn garbage_values_run_as_fio_reads_them() {
    let d = SUITE.temp_dir("garbage");
    let json = "--output-format=json";
    for (args, warning) in [
        (
            &["--name=x", "--ioengine=null", "--size=1M", "--bs=4q"][..],
            "rfio: warning: bs=4q read as 4, as fio 3.33 reads it\n",
        ),
        (
            &[
                "--name=x",
                "--ioengine=null",
                "--size=1M",
                "--bs=1k",
                "--runtime=10x",
            ],
            "rfio: warning: runtime=10x read as 16 us, as fio 3.33 reads it\n",
        ),
        (
            &["--name=x", "--ioengine=null", "--size=1.5M", "--bs=1"],
            "rfio: warning: size=1.5M read as 1, as fio 3.33 reads it\n",
        ),
        (
            &[
                "--name=x",
                "--ioengine=null",
                "--filesize=65536)",
                "--bs=4k",
            ],
            "rfio: warning: filesize=65536) read as 65536, as fio 3.33 reads it\n",
        ),
    ] {
        let mut with_json = args.to_vec();
        with_json.push(json);
        let r = SUITE.run_in(&our_bin("rfio"), &d, &with_json);
        assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
        assert_eq!(r.stderr, warning, "{args:?}");
        let ios = |out: &str| -> (u64, u64) {
            let v: serde_json::Value = serde_json::from_str(out).expect("json");
            let read = &v["jobs"][0]["read"];
            (
                read["io_bytes"].as_u64().expect("io_bytes"),
                read["total_ios"].as_u64().expect("total_ios"),
            )
        };
        // (What a 16 µs run moves is a race: its figures are not compared.)
        let timed = args.iter().any(|a| a.starts_with("--runtime"));
        if let Some(fio) = original("fio").filter(|_| !timed) {
            let theirs = SUITE.run_in(&fio, &d, &with_json);
            assert_eq!(theirs.code, 0, "fio {args:?}: {}", theirs.stderr);
            assert_eq!(ios(&r.stdout), ios(&theirs.stdout), "{args:?}");
        }
        let mut fatal = vec!["--warnings-fatal"];
        fatal.extend_from_slice(args);
        let r = SUITE.run_in(&our_bin("rfio"), &d, &fatal);
        assert_eq!(r.code, 1, "--warnings-fatal {args:?}");
        assert_eq!(r.stderr, warning);
        assert!(r.stdout.is_empty(), "{}", r.stdout);
    }
    let r = SUITE.run_in(
        &our_bin("rfio"),
        &d,
        &["--name=x", "--ioengine=null", "--size=1M", "--offset=-1"],
    );
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("fio: failed parsing"), "{}", r.stderr);
    assert!(r.stdout.is_empty());
    // A job without files: fio runs it and moves nothing.
    let r = SUITE.run_in(
        &our_bin("rfio"),
        &d,
        &["--name=x", "--ioengine=null", "--size=1M", "--nrfiles=0"],
    );
    assert_eq!(r.code, 1);
    assert!(r.stdout.is_empty());
    assert_eq!(r.stderr, "fio: nrfiles=0: a job needs at least one file\n");
    std::fs::write(d.join("broken.fio"), "[broken\nsize=1M\n").expect("write");
    let r = SUITE.run_in(&our_bin("rfio"), &d, &["broken.fio"]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("missing its closing ']'"), "{}", r.stderr);
}

/// `--cmdhelp` of every option in rfio's table is fio's, except the value
/// lists rfio shortens (engines it does not implement)
/// and engine options (fio only knows them once the engine is loaded).
#[test]
fn cmdhelp_of_every_option_matches_fio() {
    let Some(fio) = original("fio") else {
        return;
    };
    let d = SUITE.temp_dir("cmdhelp");
    let all = SUITE.run_in(&our_bin("rfio"), &d, &["--cmdhelp=all"]);
    let shortened = [
        "ioengine",
        "hipri",
        "fixedbufs",
        "registerfiles",
        "sqthread_poll",
        // rbench's own extension: fio has no such option.
        "submitters",
        // --- h3: engines (their options: fio knows them once loaded) ---
        "cpuload",
        "cpuchunks",
        "cpumode",
        "exit_on_io_done",
        "stat_type",
        "program",
        "arguments",
        "grace_time",
        "std_redirect",
        "hostname",
        "port",
        "protocol",
        "nodelay",
        "listen",
        "pingpong",
        "interface",
        "ttl",
        "window_size",
        "mss",
        "donorname",
        "inplace",
        "readfua",
        "writefua",
        "sg_write_mode",
        "stream_id",
        "sqthread_poll_cpu",
        "nonvectored",
        "cmd_type",
        // The service engines' (README): fio knows them once they load.
        "clientname",
        "clustername",
        "pool",
        "rbdname",
        "busy_poll",
        "conf",
        "touch_objects",
        "volume",
        "brick",
        "uri",
        "skip_bad",
        "bindname",
        "verb",
    ];
    let names: Vec<&str> = all
        .stdout
        .lines()
        .filter_map(|l| l.split(':').next())
        .map(str::trim)
        .filter(|n| !n.is_empty() && !shortened.contains(n))
        .collect();
    assert!(names.len() > 80, "{}", all.stdout);
    for name in names {
        let arg = format!("--cmdhelp={name}");
        let ours = SUITE.run_in(&our_bin("rfio"), &d, &[&arg]);
        let theirs = SUITE.run_in(&fio, &d, &[&arg]);
        assert_eq!(ours.stdout, theirs.stdout, "{arg}");
    }
}

#[test]
fn cmdhelp_matches_fio() {
    for opt in [
        "bs",
        "rw",
        "runtime",
        "percentile_list",
        "size",
        "direct",
        "time_based",
        "sync",
    ] {
        assert_same_error(&[&format!("--cmdhelp={opt}")], &nothing);
    }
}

fn jobfile(d: &Path) {
    let text = "; two jobs, the second stonewalled\n[global]\nioengine=psync\nsize=4M\n\
                filename=data\n\n[seq-write]\nrw=write\nbs=64k\n\n[rand-read]\nstonewall\n\
                rw=randread\nbs=4k\n";
    std::fs::write(d.join("job.fio"), text).expect("write job file");
}

#[test]
fn showcmd_and_parse_only_match_fio() {
    assert_same_error(&["--showcmd", "job.fio"], &jobfile);
    assert_same_error(&["--parse-only", "job.fio"], &jobfile);
}

/// Normal output as [`fio_layout`] has it, MiB/s as KiB/s (the unit
/// follows the values) and without disk lines (other device names).
fn layout(s: &str) -> Vec<String> {
    fio_layout(s)
        .into_iter()
        .map(|l| l.replace("MiB/s)", "KiB/s)"))
        .filter(|l| !l.starts_with("N:"))
        .collect()
}

fn assert_same_layout(args: &[&str], prepare: &dyn Fn(&Path)) {
    let Some(((theirs, _), (ours, _))) = SUITE.both(args, prepare) else {
        return;
    };
    assert_eq!(ours.code, theirs.code, "{args:?}: {}", ours.stderr);
    let (a, b) = (layout(&ours.stdout), layout(&theirs.stdout));
    assert_eq!(
        a, b,
        "normal output layout for {args:?}\n--- rfio:\n{}--- fio:\n{}",
        ours.stdout, theirs.stdout
    );
}

#[test]
fn normal_output_layout_matches_fio() {
    assert_same_layout(
        &["--name=n", "--ioengine=null", "--size=16m", "--rw=randread"],
        &nothing,
    );
    assert_same_layout(
        &[
            "--name=w",
            "--size=4m",
            "--rw=write",
            "--bs=64k",
            "--fsync=8",
        ],
        &nothing,
    );
    assert_same_layout(
        &[
            "--name=m",
            "--size=4m",
            "--rw=randrw",
            "--ioengine=libaio",
            "--iodepth=4",
        ],
        &nothing,
    );
    assert_same_layout(
        &[
            "--name=g",
            "--size=4m",
            "--numjobs=2",
            "--group_reporting",
            "--rw=write",
        ],
        &nothing,
    );
    assert_same_layout(&["job.fio"], &jobfile);
}

/// The bw and iops sample lines of a job longer than a sampling window.
#[test]
fn sample_lines_match_fio() {
    let args = [
        "--name=s",
        "--ioengine=null",
        "--size=16m",
        "--runtime=1",
        "--time_based",
    ];
    let Some(((theirs, _), (ours, _))) = SUITE.both(&args, &nothing) else {
        return;
    };
    let lines = |s: &str| -> Vec<String> {
        mask_numbers(s)
            .lines()
            .filter(|l| l.trim_start().starts_with("bw (") || l.trim_start().starts_with("iops "))
            .map(|l| {
                l.split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ")
                    .replace("= N", "=N")
            })
            .collect()
    };
    assert_eq!(lines(&ours.stdout), lines(&theirs.stdout));
    assert_eq!(lines(&ours.stdout).len(), 2, "{}", ours.stdout);
}

/// [`fio_key_paths`] (arrays' items as `[]`), each path once.
fn dedup_paths(v: &Value) -> Vec<(String, &'static str)> {
    let mut all = fio_key_paths(v, false);
    let mut seen = std::collections::HashSet::new();
    all.retain(|p| seen.insert(p.clone()));
    all
}

#[test]
fn json_key_paths_and_types_match_fio() {
    let jobs: &[&[&str]] = &[
        &["--name=j", "--ioengine=null", "--size=16m", "--rw=randread"],
        &[
            "--name=j",
            "--size=4m",
            "--rw=randrw",
            "--ioengine=io_uring",
            "--iodepth=4",
        ],
        &["--name=j", "--size=4m", "--rw=randwrite", "--fsync=4"],
        &[
            "--name=j",
            "--size=4m",
            "--rw=read",
            "--numjobs=2",
            "--group_reporting",
        ],
        &[
            "--name=j",
            "--size=4m",
            "--rw=randrw",
            "--unified_rw_reporting=mixed",
        ],
        &[
            "--name=j",
            "--size=4m",
            "--rw=randrw",
            "--unified_rw_reporting=both",
        ],
        &[
            "--name=j",
            "--ioengine=null",
            "--size=4m",
            "--continue_on_error=all",
        ],
        &[
            "--name=j",
            "--ioengine=null",
            "--size=4m",
            "--description=some words",
        ],
    ];
    for job in jobs {
        for fmt in ["--output-format=json", "--output-format=json+"] {
            let mut args = job.to_vec();
            args.push(fmt);
            let Some(((theirs, _), (ours, _))) = SUITE.both(&args, &nothing) else {
                return;
            };
            assert_eq!(ours.code, 0, "{args:?}: {}", ours.stderr);
            let (a, b) = (parse_json(&ours.stdout), parse_json(&theirs.stdout));
            assert_eq!(dedup_paths(&a), dedup_paths(&b), "JSON shape for {args:?}");
        }
    }
}

fn io_bytes(doc: &Value) -> Vec<u64> {
    let jobs = doc["jobs"].as_array().expect("jobs array");
    jobs.iter()
        .map(|j| {
            ["read", "write", "trim"]
                .iter()
                .map(|d| j[d]["io_bytes"].as_u64().unwrap_or(0))
                .sum()
        })
        .collect()
}

/// Regular files a run left behind: name -> size.
fn files_in(d: &Path) -> BTreeMap<String, u64> {
    std::fs::read_dir(d)
        .expect("read dir")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().extension().is_none_or(|x| x != "fio"))
        .map(|e| {
            let size = e.metadata().map(|m| m.len()).unwrap_or(0);
            (e.file_name().to_string_lossy().into_owned(), size)
        })
        .collect()
}

#[test]
fn same_bytes_and_same_files_as_fio() {
    let jobs: &[&[&str]] = &[
        &[
            "--name=a",
            "--size=4m",
            "--rw=randread",
            "--numjobs=2",
            "--nrfiles=2",
        ],
        &[
            "--name=b",
            "--size=4m",
            "--rw=write",
            "--bs=16k",
            "--loops=2",
        ],
        &[
            "--name=c",
            "--size=4m",
            "--rw=randrw",
            "--rwmixread=70",
            "--ioengine=libaio",
            "--iodepth=8",
        ],
        &[
            "--name=d",
            "--size=8m",
            "--io_size=4m",
            "--rw=read",
            "--ioengine=pvsync2",
        ],
        &[
            "--name=e",
            "--size=4m",
            "--rw=randwrite",
            "--bsrange=4k-16k",
            "--ioengine=mmap",
        ],
        &[
            "--name=f",
            "--size=4m",
            "--rw=read",
            "--ioengine=sync",
            "--number_ios=100",
        ],
        &[
            "--name=g",
            "--ioengine=null",
            "--size=8m",
            "--bs=8k",
            "--rw=rw",
        ],
        &[
            "--name=h",
            "--directory=sub",
            "--size=4m",
            "--rw=write",
            "--ioengine=vsync",
        ],
    ];
    for job in jobs {
        let mut args = job.to_vec();
        args.push("--output-format=json");
        let mk = |d: &Path| std::fs::create_dir_all(d.join("sub")).expect("mkdir");
        let Some(((theirs, d1), (ours, d2))) = SUITE.both(&args, &mk) else {
            return;
        };
        assert_eq!(ours.code, 0, "{args:?}: {}", ours.stderr);
        let (a, b) = (parse_json(&ours.stdout), parse_json(&theirs.stdout));
        assert_eq!(io_bytes(&a), io_bytes(&b), "bytes moved by {args:?}");
        assert_eq!(files_in(&d2), files_in(&d1), "files left by {args:?}");
        assert_eq!(files_in(&d2.join("sub")), files_in(&d1.join("sub")));
    }
}

#[test]
fn terse_field_counts_match_fio() {
    for ver in ["2", "3", "4", "5"] {
        for job in [
            &["--name=t", "--ioengine=null", "--size=8m"][..],
            &["--name=t", "--size=4m", "--rw=randread"],
            &[
                "--name=t",
                "--size=4m",
                "--rw=randrw",
                "--unified_rw_reporting=mixed",
            ],
            &[
                "--name=t",
                "--size=4m",
                "--rw=randrw",
                "--unified_rw_reporting=both",
            ],
            &[
                "--name=t",
                "--ioengine=null",
                "--size=4m",
                "--continue_on_error=all",
            ],
            &[
                "--name=t",
                "--ioengine=null",
                "--size=4m",
                "--description=d",
            ],
        ] {
            let mut args = job.to_vec();
            let v = format!("--terse-version={ver}");
            args.extend(["--output-format=terse", v.as_str()]);
            let Some(((theirs, _), (ours, _))) = SUITE.both(&args, &nothing) else {
                return;
            };
            let count = |s: &str| s.lines().map(|l| l.split(';').count()).collect::<Vec<_>>();
            assert_eq!(count(&ours.stdout), count(&theirs.stdout), "{args:?}");
            // Scripts read fields 7 and 8 (read bw and iops) as integers.
            for line in ours.stdout.lines().filter(|l| l.contains(';')) {
                let f: Vec<&str> = line.split(';').collect();
                if ver != "2" {
                    assert!(
                        f[6].parse::<u64>().is_ok() && f[7].parse::<u64>().is_ok(),
                        "{line}"
                    );
                }
            }
        }
    }
}

#[test]
fn combined_formats_print_terse_then_json_then_normal() {
    let args = [
        "--name=c",
        "--ioengine=null",
        "--size=8m",
        "--output-format=normal,json,terse",
    ];
    let Some(((theirs, _), (ours, _))) = SUITE.both(&args, &nothing) else {
        return;
    };
    let order = |s: &str| {
        let terse = s.find("3;fio-3.33;").expect("terse line");
        let json = s.find("{\n  \"fio version\"").expect("json document");
        let normal = s.find("(groupid=").expect("normal block");
        (terse < json, json < normal)
    };
    assert_eq!(order(&ours.stdout), order(&theirs.stdout));
    assert_eq!(order(&ours.stdout), (true, true));
}

#[test]
fn csv_has_header_and_one_row_per_direction() {
    let d = SUITE.temp_dir("csv");
    let r = SUITE.run_in(
        &our_bin("rfio"),
        &d,
        &[
            "--name=c",
            "--ioengine=null",
            "--size=8m",
            "--rw=randrw",
            "--output-format=csv",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{}", r.stdout);
    for col in [
        "jobname",
        "direction",
        "io_bytes",
        "bw_bytes",
        "iops",
        "runtime_ms",
        "lat_mean_ns",
        "clat_p50_ns",
        "clat_p99_ns",
    ] {
        assert!(
            lines[0].split(',').any(|c| c == col),
            "missing {col}: {}",
            lines[0]
        );
    }
    let width = lines[0].split(',').count();
    assert!(lines[1..].iter().all(|l| l.split(',').count() == width));
    assert!(lines[1].starts_with("c,0,read,") && lines[2].starts_with("c,0,write,"));
    let bytes: u64 = lines[1..]
        .iter()
        .map(|l| {
            l.split(',')
                .nth(3)
                .and_then(|v| v.parse::<u64>().ok())
                .expect("io_bytes")
        })
        .sum();
    assert_eq!(bytes, 8 << 20);
}

#[test]
fn json_stays_one_document_when_a_job_fails() {
    let d = SUITE.temp_dir("jsonfail");
    let r = SUITE.run_in(
        &our_bin("rfio"),
        &d,
        &[
            "--name=x",
            "--filename=missing",
            "--rw=read",
            "--output-format=json",
        ],
    );
    assert_eq!(r.code, 1);
    let doc = parse_json(&r.stdout);
    assert!(doc["jobs"].is_array());
    assert!(r.stderr.contains("you need to specify size="));
    // An I/O error (O_DIRECT with a 100-byte block): fio prints its error
    // lines on stdout and breaks the document; rfio keeps it valid.
    std::fs::write(d.join("data"), vec![0u8; 1 << 20]).expect("write data");
    let r = SUITE.run_in(
        &our_bin("rfio"),
        &d,
        &[
            "--name=x",
            "--filename=data",
            "--direct=1",
            "--bs=100",
            "--output-format=json",
        ],
    );
    assert_eq!(r.code, 1);
    assert_eq!(parse_json(&r.stdout)["jobs"][0]["error"], 22);
    assert!(r.stderr.contains("err=22"), "{}", r.stderr);
}

#[test]
fn time_based_runs_for_its_runtime() {
    let d = SUITE.temp_dir("timed");
    let r = SUITE.run_in(
        &our_bin("rfio"),
        &d,
        &[
            "--name=t",
            "--ioengine=null",
            "--size=1m",
            "--runtime=300ms",
            "--time_based",
            "--output-format=json",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let doc = parse_json(&r.stdout);
    let rt = doc["jobs"][0]["read"]["runtime"].as_u64().expect("runtime");
    assert!(rt >= 300, "runtime {rt} ms");
    // Many passes over the 1 MiB region.
    assert!(doc["jobs"][0]["read"]["io_bytes"].as_u64().unwrap_or(0) > 1 << 20);
}

/// Log files: the same names as fio's, the same number of fields per row,
/// per-I/O rows for every I/O of a size-bounded job.
#[test]
fn log_files_match_fio() {
    let args = [
        "--name=lg",
        "--size=4m",
        "--rw=randrw",
        "--numjobs=2",
        "--write_bw_log=per",
        "--write_lat_log=per",
        "--write_iops_log=per",
        "--log_offset=1",
        "--output-format=json",
    ];
    let Some(((theirs, d1), (ours, d2))) = SUITE.both(&args, &nothing) else {
        return;
    };
    assert_eq!(ours.code, 0, "{}", ours.stderr);
    let logs = |d: &Path| -> BTreeMap<String, (usize, Vec<usize>)> {
        files_in(d)
            .into_keys()
            .filter(|n| n.ends_with(".log"))
            .map(|n| {
                let text = std::fs::read_to_string(d.join(&n)).unwrap_or_default();
                let mut widths: Vec<usize> = text.lines().map(|l| l.split(", ").count()).collect();
                widths.dedup();
                (n, (text.lines().count(), widths))
            })
            .collect()
    };
    let (a, b) = (logs(&d2), logs(&d1));
    assert_eq!(a, b, "log files");
    assert!(a.contains_key("per_lat.1.log") && a.contains_key("per_bw.2.log"));
    let doc = parse_json(&theirs.stdout);
    assert!(io_bytes(&doc).iter().all(|&b| b == 4 << 20));
}

/// `--status-interval` prints full reports while running; in JSON mode
/// they are concatenated documents, as fio prints them.
#[test]
fn status_interval_prints_periodic_json_documents() {
    let d = SUITE.temp_dir("status");
    let r = SUITE.run_in(
        &our_bin("rfio"),
        &d,
        &[
            "--name=s",
            "--ioengine=null",
            "--size=1m",
            "--runtime=1500ms",
            "--time_based",
            "--status-interval=500ms",
            "--output-format=json",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let docs: Vec<Value> = serde_json::Deserializer::from_str(&r.stdout)
        .into_iter::<Value>()
        .collect::<Result<_, _>>()
        .expect("concatenated JSON documents");
    assert!(docs.len() >= 2, "{} documents", docs.len());
    for doc in &docs {
        assert_eq!(doc["jobs"][0]["jobname"], "s");
    }
}

/// Every rw mode moves the bytes fio moves (null engine: no files).
#[test]
fn every_rw_mode_moves_the_same_bytes() {
    for rw in [
        "read",
        "write",
        "trim",
        "randread",
        "randwrite",
        "randtrim",
        "rw",
        "readwrite",
        "randrw",
        "trimwrite",
        "randread:4",
    ] {
        let rw_opt = format!("--rw={rw}");
        let args = [
            "--name=m",
            "--ioengine=null",
            "--size=8m",
            rw_opt.as_str(),
            "--output-format=json",
        ];
        let Some(((theirs, _), (ours, _))) = SUITE.both(&args, &nothing) else {
            return;
        };
        assert_eq!(ours.code, 0, "{rw}: {}", ours.stderr);
        let total = |s: &str| io_bytes(&parse_json(s)).iter().sum::<u64>();
        assert_eq!(
            total(&ours.stdout),
            total(&theirs.stdout),
            "bytes for rw={rw}"
        );
    }
}

/// The queue stays full the way fio keeps it full: same IO depths line for
/// a size-bounded job at depth 16 on both asynchronous engines.
#[test]
fn async_engines_keep_the_queue_as_fio_does() {
    for engine in ["--ioengine=libaio", "--ioengine=io_uring"] {
        let args = [
            "--name=q",
            "--size=4m",
            "--rw=randread",
            engine,
            "--iodepth=16",
            "--direct=1",
        ];
        let Some(((theirs, _), (ours, _))) = SUITE.both(&args, &nothing) else {
            return;
        };
        let depths = |s: &str| {
            s.lines()
                .find(|l| l.contains("IO depths"))
                .map(str::to_string)
                .unwrap_or_default()
        };
        assert_eq!(ours.code, 0, "{}", ours.stderr);
        assert_eq!(depths(&ours.stdout), depths(&theirs.stdout), "{engine}");
    }
}

/// Regular files a run left behind: name -> permission bits.
fn modes_in(d: &Path) -> BTreeMap<String, u32> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::read_dir(d)
        .expect("read dir")
        .filter_map(|e| e.ok())
        .map(|e| {
            let mode = e.metadata().map(|m| m.permissions().mode()).unwrap_or(0);
            (e.file_name().to_string_lossy().into_owned(), mode & 0o777)
        })
        .collect()
}

#[test]
fn create_on_open_and_unlink_each_loop_match_fio() {
    let jobs: &[&[&str]] = &[
        // Files unlinked between loops come back created on open (0600).
        &["--rw=write", "--loops=3", "--unlink_each_loop=1"],
        &["--rw=write", "--loops=1", "--unlink_each_loop=1"],
        &[
            "--rw=randwrite",
            "--nrfiles=2",
            "--loops=2",
            "--unlink_each_loop=1",
            "--ioengine=libaio",
            "--iodepth=4",
        ],
        // A read job finds its file gone: ENOENT, exit 1.
        &["--rw=read", "--loops=2", "--unlink_each_loop=1"],
        // No layout: created empty on open; reading it is fio's EIO.
        &["--rw=randwrite", "--create_on_open=1"],
        &["--rw=write", "--create_on_open=1", "--ioengine=io_uring"],
        &["--rw=read", "--create_on_open=1"],
    ];
    for job in jobs {
        let mut args = vec!["--name=x", "--size=1m", "--output-format=json"];
        args.extend_from_slice(job);
        let Some(((theirs, d1), (ours, d2))) = SUITE.both(&args, &nothing) else {
            return;
        };
        assert_eq!(
            ours.code, theirs.code,
            "exit code of {args:?}: {}",
            ours.stderr
        );
        // fio prints its job errors into stdout, before the JSON document.
        let doc = theirs.stdout.find("\n{").map_or(0, |i| i + 1);
        let (a, b) = (parse_json(&ours.stdout), parse_json(&theirs.stdout[doc..]));
        assert_eq!(
            a["jobs"][0]["error"], b["jobs"][0]["error"],
            "error of {args:?}"
        );
        if theirs.code == 0 {
            assert_eq!(io_bytes(&a), io_bytes(&b), "bytes moved by {args:?}");
        }
        assert_eq!(files_in(&d2), files_in(&d1), "files left by {args:?}");
        assert_eq!(modes_in(&d2), modes_in(&d1), "file modes left by {args:?}");
    }
}

/// The header and the number of columns of every CSV file that
/// fio_jsonplus_clat2csv wrote into `d`.
fn clat2csv_shape(script: &Path, d: &Path, json: &str) -> Vec<(String, usize)> {
    std::fs::write(d.join("out.json"), json).expect("write json+");
    let mut cmd = Command::new(script);
    cmd.args(["out.json", "clat.csv"]).current_dir(d);
    run_ok(&mut cmd, LIMIT);
    let mut csvs: Vec<_> = std::fs::read_dir(d)
        .expect("read dir")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "csv"))
        .collect();
    csvs.sort();
    csvs.iter()
        .map(|p| {
            let text = std::fs::read_to_string(p).expect("read csv");
            let mut lines = text.lines();
            let header = lines.next().unwrap_or_default().to_string();
            let cols: Vec<usize> = lines.map(|l| l.split(',').count()).collect();
            let widest = cols.iter().copied().max().unwrap_or(0);
            assert!(!cols.is_empty(), "{}: no bucket rows", p.display());
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
            (format!("{}: {header}", name.unwrap_or_default()), widest)
        })
        .collect()
}

#[test]
fn json_plus_buckets_are_read_by_fio_jsonplus_clat2csv() {
    let Some(script) = original("fio_jsonplus_clat2csv") else {
        return;
    };
    for job in [
        &["--rw=randread", "--ioengine=null"][..],
        &[
            "--rw=randrw",
            "--ioengine=libaio",
            "--iodepth=4",
            "--numjobs=2",
        ][..],
    ] {
        let mut args = vec!["--name=x", "--size=2m", "--output-format=json+"];
        args.extend_from_slice(job);
        let Some(((theirs, d1), (ours, d2))) = SUITE.both(&args, &nothing) else {
            return;
        };
        assert_eq!(ours.code, 0, "{args:?}: {}", ours.stderr);
        assert_eq!(
            clat2csv_shape(&script, &d2, &ours.stdout),
            clat2csv_shape(&script, &d1, &theirs.stdout),
            "fio_jsonplus_clat2csv on the json+ of {args:?}"
        );
    }
}

#[test]
fn bad_file_service_type_values_fail_as_fio_does() {
    for v in ["zipf:1.0", "pareto:2", "normal:200", "gauss:-1", "zipf:abc"] {
        let arg = format!("--file_service_type={v}");
        assert_same_error(
            &[
                "--name=x",
                "--size=64k",
                "--nrfiles=2",
                &arg,
                "--ioengine=null",
            ],
            &nothing,
        );
    }
}

#[test]
fn every_file_service_type_moves_the_same_bytes() {
    for fst in [
        "random",
        "roundrobin",
        "sequential",
        "random:4",
        "zipf",
        "zipf:1.2",
        "pareto:0.5",
        "normal:10",
        "gauss",
    ] {
        let arg = format!("--file_service_type={fst}");
        let args = [
            "--name=x",
            "--size=256k",
            "--rw=randread",
            "--nrfiles=4",
            &arg,
            "--output-format=json",
        ];
        let Some(((theirs, d1), (ours, d2))) = SUITE.both(&args, &nothing) else {
            return;
        };
        assert_eq!(ours.code, 0, "{args:?}: {}", ours.stderr);
        let (a, b) = (parse_json(&ours.stdout), parse_json(&theirs.stdout));
        assert_eq!(io_bytes(&a), io_bytes(&b), "bytes moved by {args:?}");
        assert_eq!(files_in(&d2), files_in(&d1), "files left by {args:?}");
    }
}

#[test]
fn filesize_sizes_each_file_and_size_caps_it() {
    // A fixed filesize: the same files and bytes as fio, with and without size=.
    for extra in [&[][..], &["--size=2m"][..]] {
        let mut args = vec![
            "--name=x",
            "--filesize=1m",
            "--nrfiles=3",
            "--rw=write",
            "--output-format=json",
        ];
        args.extend_from_slice(extra);
        let Some(((theirs, d1), (ours, d2))) = SUITE.both(&args, &nothing) else {
            return;
        };
        assert_eq!(ours.code, 0, "{args:?}: {}", ours.stderr);
        let (a, b) = (parse_json(&ours.stdout), parse_json(&theirs.stdout));
        assert_eq!(io_bytes(&a), io_bytes(&b), "bytes moved by {args:?}");
        assert_eq!(files_in(&d2), files_in(&d1), "files left by {args:?}");
    }
    // A range: each file's size is drawn from it, the same sizes as fio
    // draws (run/files/filesize.rs), and, without size=, the job writes them all.
    let args = [
        "--name=x",
        "--filesize=1m-3m",
        "--nrfiles=3",
        "--rw=write",
        "--output-format=json",
    ];
    let Some(((theirs, d1), (ours, d2))) = SUITE.both(&args, &nothing) else {
        return;
    };
    for (ran, d) in [(&ours, &d2), (&theirs, &d1)] {
        assert_eq!(ran.code, 0, "{}", ran.stderr);
        let sizes = files_in(d);
        assert_eq!(sizes.len(), 3, "{sizes:?}");
        assert!(
            sizes
                .values()
                .all(|&s| (1 << 20..=3 << 20).contains(&s) && s % 4096 == 0),
            "{sizes:?}"
        );
        let written: u64 = sizes.values().sum();
        assert_eq!(io_bytes(&parse_json(&ran.stdout)), vec![written]);
    }
    assert_eq!(files_in(&d2), files_in(&d1), "sizes drawn for {args:?}");
}

/// The offset column of a latency log: the order in which I/Os were issued.
fn logged_offsets(d: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(d.join("l_clat.1.log")).unwrap_or_default();
    text.lines()
        .filter_map(|l| l.split(',').nth(4))
        .map(|f| f.trim().to_string())
        .collect()
}

#[test]
fn file_service_order_of_sequential_jobs_matches_fio() {
    for rw in ["--rw=read", "--rw=write"] {
        for fst in ["sequential", "roundrobin", "roundrobin:4"] {
            let arg = format!("--file_service_type={fst}");
            let args = [
                "--name=x",
                "--size=64k",
                "--nrfiles=2",
                rw,
                &arg,
                "--ioengine=psync",
                "--write_lat_log=l",
                "--log_offset=1",
                "--output-format=json",
            ];
            let Some(((theirs, d1), (ours, d2))) = SUITE.both(&args, &nothing) else {
                return;
            };
            assert_eq!(ours.code, 0, "{args:?}: {}", ours.stderr);
            let (a, b) = (parse_json(&ours.stdout), parse_json(&theirs.stdout));
            assert_eq!(io_bytes(&a), io_bytes(&b), "bytes moved by {args:?}");
            let order = logged_offsets(&d2);
            assert_eq!(order.len(), 16, "{args:?}");
            assert_eq!(order, logged_offsets(&d1), "I/O order of {args:?}");
        }
    }
}

/// Pages of `path` the page cache holds (mincore over a mapping of it).
fn cached_pages(path: &Path) -> usize {
    use std::os::fd::AsRawFd;
    let f = std::fs::File::open(path).expect("open file");
    let len = f.metadata().expect("stat").len() as usize;
    if len == 0 {
        return 0;
    }
    // SAFETY: a read-only shared mapping of a file we hold open, unmapped
    // below; mincore writes one byte per page into a vector that long.
    unsafe {
        let page = libc::sysconf(libc::_SC_PAGESIZE) as usize;
        let map = libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ,
            libc::MAP_SHARED,
            f.as_raw_fd(),
            0,
        );
        assert_ne!(map, libc::MAP_FAILED, "mmap {}", path.display());
        let mut vec = vec![0u8; len.div_ceil(page)];
        let r = libc::mincore(map, len, vec.as_mut_ptr());
        libc::munmap(map, len);
        assert_eq!(r, 0, "mincore {}", path.display());
        vec.iter().filter(|&&b| b & 1 == 1).count()
    }
}

/// Whether this file system drops clean pages on POSIX_FADV_DONTNEED
/// (tmpfs and ramfs keep them: their pages are the file).
fn cache_drops_in(dir: &Path) -> bool {
    use std::os::fd::AsRawFd;
    let p = dir.join("probe");
    std::fs::write(&p, vec![7u8; 64 << 10]).expect("write probe");
    let f = std::fs::File::open(&p).expect("open probe");
    f.sync_all().expect("fsync probe");
    // SAFETY: advisory call on a descriptor we own.
    unsafe { libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    let kept = cached_pages(&p);
    let _ = std::fs::remove_file(&p);
    kept == 0
}

/// fio drops a file's page cache at each pass over it (each loop, each
/// io_size round; issue 14), so buffered reads of a small file come from
/// the device every pass. A random read job on a 1 MiB file (256 pages,
/// no readahead under fio's POSIX_FADV_RANDOM hint) whose last pass
/// reads 64 blocks leaves those 64 pages cached, not the whole file;
/// invalidate=0 keeps what earlier passes read. Counted with mincore,
/// after each tool, against the same expected count.
#[test]
fn page_cache_is_dropped_at_each_pass_as_fio_drops_it() {
    let probe = SUITE.temp_dir("cache-probe");
    if !cache_drops_in(&probe) {
        eprintln!(
            "note: {} keeps pages on POSIX_FADV_DONTNEED (tmpfs?); skipping",
            probe.display()
        );
        return;
    }
    let base = ["--name=x", "--filename=f", "--size=1m", "--bs=4k"];
    let cases: &[(&[&str], usize)] = &[
        // The second loop reads 64 blocks (number_ios counts over loops).
        (&["--rw=randread", "--loops=2", "--number_ios=160"], 64),
        // io_size: a second round of 64 blocks.
        (&["--rw=randread", "--io_size=1280k"], 64),
        (
            &[
                "--rw=randread",
                "--loops=2",
                "--number_ios=160",
                "--invalidate=0",
            ],
            256,
        ),
    ];
    let mut tools = vec![("rfio", our_bin("rfio"))];
    if let Some(f) = original("fio") {
        tools.push(("fio", f));
    }
    for (extra, want) in cases {
        let args: Vec<&str> = base.iter().chain(extra.iter()).copied().collect();
        for (name, bin) in &tools {
            let dir = SUITE.temp_dir("cache");
            let r = SUITE.run_in(bin, &dir, &args);
            assert_eq!(r.code, 0, "{name} {extra:?}: {}", r.stderr);
            assert_eq!(
                cached_pages(&dir.join("f")),
                *want,
                "{name} {extra:?}: pages cached after the run"
            );
        }
    }
}

/// The fadvise64 calls a run makes, as (offset, length, advice) sorted
/// (descriptor numbers and the clones' order aside), and its BLKFLSBUF
/// ioctls, or None when strace cannot trace here.
fn fadvise_calls(bin: &Path, dir: &Path, args: &[&str]) -> Option<(Ran, Vec<String>)> {
    let strace = rbench_tests::on_path("strace")?;
    let trace = dir.join("fadvise.trace");
    let mut full = vec![
        "-f".to_string(),
        "-qq".into(),
        "-e".into(),
        "trace=fadvise64,ioctl".into(),
        "-o".into(),
        trace.display().to_string(),
        bin.display().to_string(),
    ];
    full.extend(args.iter().map(|s| s.to_string()));
    let full: Vec<&str> = full.iter().map(String::as_str).collect();
    let r = SUITE.run_in(&strace, dir, &full);
    let text = std::fs::read_to_string(&trace).ok()?;
    let _ = std::fs::remove_file(&trace);
    if r.stderr.contains("ptrace") && text.is_empty() {
        return None;
    }
    let mut calls: Vec<String> = text
        .lines()
        .filter_map(|l| l.split_once("fadvise64(").map(|x| x.1))
        // A call another process interrupts is cut in two lines by strace:
        // its arguments end at " <unfinished ...>", its result comes later.
        .filter_map(|l| {
            l.split_once(" <unfinished")
                .or_else(|| l.split_once(')'))
                .map(|x| x.0)
        })
        .map(|l| l.split_once(", ").map_or(l, |x| x.1).to_string())
        .chain(
            text.lines()
                .filter(|l| l.contains("ioctl(") && l.contains("BLKFLSBUF"))
                .map(|_| "BLKFLSBUF".to_string()),
        )
        .collect();
    calls.sort();
    Some((r, calls))
}

/// The same fadvise calls as fio (strace): where each pass over a file
/// drops its page cache (layout, open, each loop, each io_size round, the
/// verify phase, a non-uniform file service starting a file over, reopened
/// files hinted again), with the same ranges; invalidate=0 keeps only the
/// layout's; direct=1 drops at reopens only. time_based wraps in place:
/// one drop per pass over the file, for both tools.
#[test]
fn fadvise_calls_match_fio() {
    let Some(fio) = original("fio") else { return };
    if rbench_tests::on_path("strace").is_none() {
        if std::env::var("RBENCH_REQUIRE_ORIGINALS").as_deref() == Ok("1") {
            panic!("strace is required (RBENCH_REQUIRE_ORIGINALS=1) but is not installed");
        }
        eprintln!("note: strace is not installed; skipping");
        return;
    }
    let base = ["--name=x", "--bs=4k", "--output-format=json"];
    let cases: &[&[&str]] = &[
        &["--filename=f", "--size=1m", "--rw=read", "--loops=3"],
        &["--filename=f", "--size=1m", "--rw=randread", "--io_size=3m"],
        &["--filename=f", "--size=1m", "--rw=randrw", "--io_size=3m"],
        &[
            "--filename=f",
            "--size=1m",
            "--rw=write",
            "--verify=crc32c",
            "--loops=2",
        ],
        &[
            "--filename=f",
            "--size=1m",
            "--rw=randread",
            "--loops=2",
            "--invalidate=0",
        ],
        &["--nrfiles=2", "--size=2m", "--rw=read", "--loops=2"],
        &[
            "--nrfiles=2",
            "--size=2m",
            "--rw=randread",
            "--file_service_type=zipf",
            "--number_ios=2000",
        ],
        &[
            "--filename=f",
            "--size=1m",
            "--rw=write",
            "--numjobs=2",
            "--offset_increment=1m",
        ],
        &[
            "--filename=f",
            "--size=1m",
            "--rw=read",
            "--direct=1",
            "--loops=2",
        ],
    ];
    for extra in cases {
        let args: Vec<&str> = base.iter().chain(extra.iter()).copied().collect();
        let d1 = SUITE.temp_dir("fadvise-fio");
        let Some((theirs, want)) = fadvise_calls(&fio, &d1, &args) else {
            eprintln!("note: strace cannot trace here; skipping");
            return;
        };
        if theirs.code != 0 && theirs.stderr.contains("O_DIRECT") {
            continue;
        }
        assert_eq!(theirs.code, 0, "fio {extra:?}: {}", theirs.stderr);
        let d2 = SUITE.temp_dir("fadvise-rfio");
        let (ours, got) = fadvise_calls(&our_bin("rfio"), &d2, &args).expect("strace");
        assert_eq!(ours.code, 0, "rfio {extra:?}: {}", ours.stderr);
        assert_eq!(got, want, "fadvise64 calls for {extra:?}");
    }
    // time_based: each wrap drops the file's cache (fio's
    // loop_cache_invalidate); besides the layout's and the open's, one per
    // pass completed (the last pass may end just before its wrap).
    for rw in ["--rw=read", "--rw=randread"] {
        let args = [
            "--name=x",
            "--filename=f",
            "--size=1m",
            "--bs=4k",
            rw,
            "--time_based",
            "--runtime=300ms",
            "--output-format=json",
        ];
        for (name, bin) in [("fio", fio.clone()), ("rfio", our_bin("rfio"))] {
            let dir = SUITE.temp_dir("fadvise-tb");
            let (r, calls) = fadvise_calls(&bin, &dir, &args).expect("strace");
            assert_eq!(r.code, 0, "{name} {rw}: {}", r.stderr);
            let doc = parse_json(&r.stdout);
            let passes = doc["jobs"][0]["read"]["io_bytes"].as_u64().unwrap_or(0) >> 20;
            let drops = calls.iter().filter(|c| c.ends_with("DONTNEED")).count() as u64;
            assert!(
                passes > 0 && (passes + 1..=passes + 2).contains(&drops),
                "{name} {rw}: {drops} drops for {passes} whole passes: {calls:?}"
            );
        }
    }
}

/// On a block device fio flushes the buffer cache (BLKFLSBUF, as root)
/// wherever it drops a file's cache: at each open, loop, io_size round and
/// verify phase, under direct=1 too, never with invalidate=0; and hints
/// the access pattern at each open. The same ioctls and fadvise64 calls
/// from rfio (strace, a loop device; needs root, skips without it).
#[test]
fn block_devices_are_flushed_at_each_pass_as_fio_flushes_them() {
    let Some(fio) = original("fio") else { return };
    if rbench_tests::on_path("strace").is_none() {
        eprintln!("note: strace is not installed; skipping");
        return;
    }
    let dir = SUITE.temp_dir("blkflsbuf");
    let Some(dev) = LoopDev::new("blkflsbuf", 4 << 20, None, LIMIT) else {
        return;
    };
    let file = format!("--filename={}", dev.dev);
    let cases: &[&[&str]] = &[
        &["--rw=read", "--loops=2"],
        &["--rw=randread", "--io_size=3m"],
        &["--rw=read", "--direct=1", "--loops=2"],
        &["--rw=write", "--verify=crc32c", "--loops=2"],
        &["--rw=read", "--invalidate=0", "--loops=2"],
    ];
    for extra in cases {
        let mut args = vec![
            "--name=x",
            file.as_str(),
            "--bs=4k",
            "--size=1m",
            "--output=/dev/null",
        ];
        args.extend_from_slice(extra);
        let Some((theirs, want)) = fadvise_calls(&fio, &dir, &args) else {
            eprintln!("note: strace cannot trace here; skipping");
            return;
        };
        assert_eq!(theirs.code, 0, "fio {extra:?}: {}", theirs.stderr);
        let (ours, got) = fadvise_calls(&our_bin("rfio"), &dir, &args).expect("strace");
        assert_eq!(ours.code, 0, "rfio {extra:?}: {}", ours.stderr);
        assert_eq!(got, want, "BLKFLSBUF and fadvise64 calls for {extra:?}");
    }
}
