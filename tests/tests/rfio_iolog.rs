//! rfio beside fio 3.33 for I/O logs (write_iolog, read_iolog and the
//! replay options), backward sequential steps (`rw=read:-8k`), exit_what,
//! exec_prerun/exec_postrun, numa_cpu_nodes/numa_mem_policy and
//! fill_device. The same command lines run with both tools in fresh
//! directories; compared: exit codes, stderr lines, JSON bytes and I/Os
//! per direction, the files written (an iolog's lines without their
//! times), and each tool's logs replayed by the other.

use std::path::Path;
use std::time::Duration;

use rbench_tests::fs::Mount;
use rbench_tests::rfio::Suite;
use rbench_tests::{fio_json_parts, original, our_bin, Ran};
use serde_json::Value;

const SUITE: Suite = Suite::new("rfio-iolog", Duration::from_secs(120));

/// fio then rfio on `args`, each in a fresh directory `prepare` sets up;
/// each run with the directory (removed on drop). None without fio.
fn both(
    args: &[&str],
    prepare: &dyn Fn(&Path),
) -> Option<(
    (Ran, rbench_tests::fs::TempDir),
    (Ran, rbench_tests::fs::TempDir),
)> {
    let pair = SUITE.both_dropping(args, prepare);
    if pair.is_none() {
        eprintln!("fio is not installed: skipped");
    }
    pair
}

/// The JSON document of a run (fio may print notices ahead of it).
fn json(r: &Ran) -> Value {
    fio_json_parts(&r.stdout).1
}

/// Per job: (name, read bytes, write bytes, read ios, write ios, error).
fn per_job(v: &Value) -> Vec<(String, u64, u64, u64, u64, i64)> {
    v["jobs"]
        .as_array()
        .expect("jobs")
        .iter()
        .map(|j| {
            (
                j["jobname"].as_str().unwrap_or("").to_string(),
                j["read"]["io_bytes"].as_u64().unwrap_or(0),
                j["write"]["io_bytes"].as_u64().unwrap_or(0),
                j["read"]["total_ios"].as_u64().unwrap_or(0),
                j["write"]["total_ios"].as_u64().unwrap_or(0),
                j["error"].as_i64().unwrap_or(-1),
            )
        })
        .collect()
}

/// An iolog's lines without their times (the first field of v3 lines).
fn untimed(log: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(log).unwrap_or_else(|e| panic!("{}: {e}", log.display()));
    text.lines()
        .map(|l| match l.split_once(' ') {
            Some((t, rest)) if t.bytes().all(|c| c.is_ascii_digit()) => rest.to_string(),
            _ => l.to_string(),
        })
        .collect()
}

#[test]
fn write_iolog_writes_fios_lines() {
    // fio's t0007 cut to 8 MiB: holes of 512k between 1m reads.
    for args in [
        &[
            "--name=foo",
            "--size=8m",
            "--rw=read:512k",
            "--bs=1m",
            "--norandommap",
            "--write_iolog=log",
            "--filename=f1",
            "--output-format=json",
        ][..],
        &[
            "--name=w",
            "--size=64k",
            "--rw=write",
            "--fsync=2",
            "--write_iolog=log",
            "--output-format=json",
        ][..],
        // fio closes and opens the files between loops and around the
        // verify phase, whose reads it logs too.
        &[
            "--name=v",
            "--size=16k",
            "--rw=write",
            "--verify=md5",
            "--loops=2",
            "--filename=vf",
            "--write_iolog=log",
            "--output-format=json",
        ][..],
        &[
            "--name=v",
            "--size=16k",
            "--rw=write",
            "--io_size=32k",
            "--nrfiles=2",
            "--write_iolog=log",
            "--output-format=json",
        ][..],
    ] {
        let Some(((theirs, d1), (ours, d2))) = both(args, &|_| {}) else {
            return;
        };
        assert_eq!(
            (theirs.code, ours.code),
            (0, 0),
            "{}\n{}",
            theirs.stderr,
            ours.stderr
        );
        assert_eq!(per_job(&json(&theirs)), per_job(&json(&ours)));
        let (a, b) = (
            untimed(&d1.path().join("log")),
            untimed(&d2.path().join("log")),
        );
        assert_eq!(a[0], "fio version 3 iolog");
        assert_eq!(a, b, "{args:?}");
    }
}

#[test]
fn write_iolog_appends_and_fails_as_fio() {
    let args = [
        "--name=a",
        "--size=16k",
        "--filename=f",
        "--write_iolog=log",
        "--output-format=json",
    ];
    let Some(((_, d1), (_, d2))) = both(&args, &|d| {
        std::fs::write(d.join("log"), "kept\n").unwrap();
    }) else {
        return;
    };
    let (a, b) = (
        untimed(&d1.path().join("log")),
        untimed(&d2.path().join("log")),
    );
    assert_eq!(a[0], "kept");
    assert_eq!(a, b);
    let bad = [
        "--name=a",
        "--size=16k",
        "--filename=f",
        "--write_iolog=no/such/dir/log",
        "--output-format=json",
    ];
    let Some(((theirs, _), (ours, _))) = both(&bad, &|_| {}) else {
        return;
    };
    assert_eq!((theirs.code, ours.code), (1, 1));
    assert!(theirs
        .stderr
        .contains("fopen write iolog: No such file or directory"));
    assert_eq!(theirs.stderr.lines().next(), ours.stderr.lines().next());
    assert!(ours
        .stderr
        .contains("err=22/file:iolog.c:795, func=failed initializing iolog"));
    assert_eq!(per_job(&json(&theirs))[0].5, 22);
    assert_eq!(per_job(&json(&ours))[0].5, 22);
}

#[test]
fn backward_steps_issue_fios_offsets() {
    for extra in [&["--size=64k"][..], &["--size=32k", "--offset=16k"][..]] {
        let mut args = vec![
            "--name=b",
            "--bs=4k",
            "--rw=read:-8k",
            "--filename=bf",
            "--write_iolog=log",
            "--output-format=json",
        ];
        args.extend_from_slice(extra);
        let Some(((theirs, d1), (ours, d2))) = both(&args, &|_| {}) else {
            return;
        };
        assert_eq!((theirs.code, ours.code), (0, 0), "{}", ours.stderr);
        assert_eq!(per_job(&json(&theirs)), per_job(&json(&ours)));
        let (a, b) = (
            untimed(&d1.path().join("log")),
            untimed(&d2.path().join("log")),
        );
        // Not simply forward: the second read is behind the first.
        assert!(a.iter().any(|l| l == "bf read 0 4096") || extra.len() > 1);
        assert_eq!(a, b, "{extra:?}");
    }
}

/// A log one tool wrote of a mixed random job, replayed by the other:
/// the same bytes per direction as the job that wrote it.
#[test]
fn each_tool_replays_the_others_log() {
    let Some(fio) = original("fio") else {
        eprintln!("fio is not installed: skipped");
        return;
    };
    let rfio = our_bin("rfio");
    let write = [
        "--name=w",
        "--size=256k",
        "--rw=randrw",
        "--bs=4k",
        "--filename=wf",
        "--write_iolog=log",
        "--output-format=json",
    ];
    let replay = ["--name=r", "--read_iolog=log", "--output-format=json"];
    for (writer, player) in [(&fio, &rfio), (&rfio, &fio)] {
        let d = SUITE.scratch("cross");
        let w = SUITE.run_in(writer, d.path(), &write);
        assert_eq!(w.code, 0, "{}", w.stderr);
        let r = SUITE.run_in(player, d.path(), &replay);
        assert_eq!(r.code, 0, "{}", r.stderr);
        let (w, r) = (per_job(&json(&w))[0].clone(), per_job(&json(&r))[0].clone());
        assert_eq!(
            (w.1, w.2, w.3, w.4),
            (r.1, r.2, r.3, r.4),
            "{writer:?} -> {player:?}"
        );
        assert!(w.1 > 0 && w.2 > 0);
    }
}

#[test]
fn version2_logs_and_replay_options() {
    let v2 = "fio version 2 iolog\nrf add\nrf open\nrf write 0 4096\nrf write 8192 8192\n\
              rf read 0 4096\nrf close\n";
    let prepare = |d: &Path| std::fs::write(d.join("log"), v2).unwrap();
    for extra in [
        &[][..],
        &["--replay_redirect=other"][..],
        &["--replay_scale=2", "--replay_align=8192"][..],
    ] {
        let mut args = vec!["--name=r", "--read_iolog=log", "--output-format=json"];
        args.extend_from_slice(extra);
        let Some(((theirs, d1), (ours, d2))) = both(&args, &prepare) else {
            return;
        };
        assert_eq!((theirs.code, ours.code), (0, 0), "{}", ours.stderr);
        assert_eq!(per_job(&json(&theirs)), per_job(&json(&ours)), "{extra:?}");
        let size = |d: &Path, f: &str| std::fs::metadata(d.join(f)).map(|m| m.len()).ok();
        for f in ["rf", "other"] {
            assert_eq!(size(d1.path(), f), size(d2.path(), f), "{f} {extra:?}");
        }
    }
}

/// A version 3 log's waits, scaled or dropped, and read in chunks: the
/// same I/O as fio's (times are not compared).
#[test]
fn version3_replay_options_keep_the_io() {
    let v3 = "fio version 3 iolog\n1 t3 add\n2 t3 open\n10 t3 write 0 4096\n\
              2000 t3 write 4096 8192\n4000 t3 read 0 4096\n4001 t3 wait 5 5\n\
              5000 t3 sync 0 0\n6000 t3 close\n";
    let prepare = |d: &Path| std::fs::write(d.join("log"), v3).unwrap();
    for extra in [
        "--replay_time_scale=200",
        "--replay_no_stall=1",
        "--read_iolog_chunked=1",
    ] {
        let args = [
            "--name=r",
            "--read_iolog=log",
            extra,
            "--output-format=json",
        ];
        let Some(((theirs, d1), (ours, d2))) = both(&args, &prepare) else {
            return;
        };
        assert_eq!((theirs.code, ours.code), (0, 0), "{extra}: {}", ours.stderr);
        assert_eq!(theirs.stderr, ours.stderr, "{extra}");
        assert!(theirs
            .stderr
            .contains("ignoring wait command with version 3"));
        let (t, o) = (per_job(&json(&theirs)), per_job(&json(&ours)));
        assert_eq!((t[0].1, t[0].2), (4096, 12288), "{extra}");
        assert_eq!(t, o, "{extra}");
        let size = |d: &Path| std::fs::metadata(d.join("t3")).map(|m| m.len()).ok();
        assert_eq!(size(d1.path()), size(d2.path()), "{extra}");
    }
}

/// A replayed read past the end of a short file: fio does not size a
/// replay's files, so the rest of the short read fails (full resid, EIO).
#[test]
fn replay_past_a_files_end_fails_as_fio() {
    let log = "fio version 2 iolog\nrf add\nrf open\nrf read 0 4096\nrf close\n";
    let prepare = |d: &Path| {
        std::fs::write(d.join("log"), log).unwrap();
        std::fs::write(d.join("rf"), "x\n").unwrap();
    };
    let args = ["--name=r", "--read_iolog=log", "--output-format=json"];
    let Some(((theirs, _), (ours, _))) = both(&args, &prepare) else {
        return;
    };
    assert_eq!((theirs.code, ours.code), (1, 1), "{}", ours.stderr);
    let (t, o) = (json(&theirs), json(&ours));
    assert_eq!(per_job(&t), per_job(&o));
    assert_eq!(per_job(&t)[0].5, 5);
    assert_eq!(
        t["jobs"][0]["read"]["short_ios"],
        o["jobs"][0]["read"]["short_ios"]
    );
}

#[test]
fn bad_logs_fail_as_fio() {
    let cases: [(&str, Option<&str>); 4] = [
        ("missing", None),
        ("garbage", Some("garbage\n")),
        ("badline", Some("fio version 2 iolog\nf add\nf jump 0 1\nnonsense\n")),
        (
            "noread",
            Some("fio version 2 iolog\nmissing add\nmissing open\nmissing read 0 4096\nmissing close\n"),
        ),
    ];
    for (name, text) in cases {
        let arg = format!("--read_iolog={name}");
        let args = ["--name=r", arg.as_str(), "--output-format=json"];
        let prepare = |d: &Path| {
            if let Some(t) = text {
                std::fs::write(d.join(name), t).unwrap();
            }
        };
        let Some(((theirs, _), (ours, _))) = both(&args, &prepare) else {
            return;
        };
        assert_eq!(theirs.code, ours.code, "{name}: {}", ours.stderr);
        assert_eq!(
            per_job(&json(&theirs))[0].5,
            per_job(&json(&ours))[0].5,
            "{name}"
        );
        // fio's lines on stderr, in order (rfio adds its pid line there).
        let ours_lines: Vec<&str> = ours.stderr.lines().collect();
        for l in theirs.stderr.lines() {
            assert!(
                ours_lines.contains(&l),
                "{name}: {l:?} missing from\n{}",
                ours.stderr
            );
        }
    }
}

#[test]
fn read_iolog_overrides_write_iolog() {
    let v2 = "fio version 2 iolog\nrf add\nrf open\nrf write 0 4096\nrf close\n";
    let args = [
        "--name=r",
        "--read_iolog=log",
        "--write_iolog=out",
        "--output-format=json",
    ];
    let prepare = |d: &Path| std::fs::write(d.join("log"), v2).unwrap();
    let Some(((theirs, d1), (ours, d2))) = both(&args, &prepare) else {
        return;
    };
    assert_eq!(theirs.stderr, "fio: read iolog overrides write_iolog\n");
    assert_eq!(ours.stderr, theirs.stderr);
    assert!(!d1.path().join("out").exists() && !d2.path().join("out").exists());
}

#[test]
fn exec_prerun_and_postrun_as_fio() {
    let args = [
        "--name=pre",
        "--size=16k",
        "--filename=f",
        "--exec_prerun=echo one; echo two >&2",
        "--exec_postrun=echo post",
        "--output-format=terse",
    ];
    let Some(((theirs, d1), (ours, d2))) = both(&args, &|_| {}) else {
        return;
    };
    assert_eq!((theirs.code, ours.code), (0, 0));
    let saving = |r: &Ran| -> Vec<String> {
        r.stdout
            .lines()
            .filter(|l| !l.starts_with("3;"))
            .map(String::from)
            .collect()
    };
    assert_eq!(saving(&theirs), saving(&ours));
    assert!(saving(&ours).contains(&"pre : Saving output of prerun in pre.prerun.txt".to_string()));
    for f in ["pre.prerun.txt", "pre.postrun.txt"] {
        let read = |d: &Path| std::fs::read_to_string(d.join(f)).ok();
        assert_eq!(read(d1.path()), read(d2.path()), "{f}");
    }
    // A prerun that fails: the job does no I/O, with no error.
    let failing = [
        "--name=pre",
        "--size=16k",
        "--filename=f",
        "--exec_prerun=false",
        "--output-format=json",
    ];
    let Some(((theirs, _), (ours, _))) = both(&failing, &|_| {}) else {
        return;
    };
    assert_eq!((theirs.code, ours.code), (0, 0));
    let (t, o) = (per_job(&json(&theirs)), per_job(&json(&ours)));
    assert_eq!((t[0].1, t[0].5), (0, 0));
    assert_eq!(t, o);
}

#[test]
fn numa_options_as_fio_with_libnuma() {
    for v in [
        "--numa_cpu_nodes=999",
        "--numa_cpu_nodes=abc",
        "--numa_mem_policy=bogus",
        "--numa_mem_policy=bind",
        "--numa_mem_policy=local:0",
        "--numa_mem_policy=prefer",
        "--numa_mem_policy=interleave:999",
    ] {
        let args = ["--name=n", "--size=16k", "--filename=f", v];
        let Some(((theirs, _), (ours, _))) = both(&args, &|_| {}) else {
            return;
        };
        assert_eq!((theirs.code, ours.code), (1, 1), "{v}");
        assert_eq!(theirs.stderr, ours.stderr, "{v}");
        assert_eq!(theirs.stdout, ours.stdout, "{v}");
    }
    for v in [
        "--numa_cpu_nodes=0",
        "--numa_mem_policy=bind:0",
        "--numa_mem_policy=local",
    ] {
        let args = [
            "--name=n",
            "--size=16k",
            "--filename=f",
            v,
            "--output-format=json",
        ];
        let Some(((theirs, _), (ours, _))) = both(&args, &|_| {}) else {
            return;
        };
        assert_eq!((theirs.code, ours.code), (0, 0), "{v}: {}", ours.stderr);
        assert_eq!(per_job(&json(&theirs)), per_job(&json(&ours)), "{v}");
    }
}

#[test]
fn fill_device_ends_at_enospc_without_error() {
    let Some(fio) = original("fio") else {
        eprintln!("fio is not installed: skipped");
        return;
    };
    let Some(m) = Mount::tmpfs("rfio-fill", "2m") else {
        return;
    };
    // A writer fills the device with its I/O (at depth 8 every write in
    // flight fails and has its line, as fio's); a reader's layout fills
    // it and the job reads that back.
    for (rw, engine) in [
        ("--rw=write", "--ioengine=psync"),
        ("--rw=write", "--ioengine=libaio"),
        ("--rw=read", "--ioengine=psync"),
    ] {
        let mut args = vec![
            "--name=fill",
            "--filename=df",
            rw,
            engine,
            "--bs=64k",
            "--fill_device=1",
            "--output-format=json",
        ];
        if engine.ends_with("libaio") {
            args.push("--iodepth=8");
        }
        let mut seen = Vec::new();
        for (tag, bin) in [("fio", fio.clone()), ("rfio", our_bin("rfio"))] {
            let d = m.sub(tag);
            let r = SUITE.run_in(&bin, &d, &args);
            let len = std::fs::metadata(d.join("df"))
                .map(|m| m.len())
                .unwrap_or(0);
            let _ = std::fs::remove_file(d.join("df"));
            let jobs = per_job(&json(&r));
            seen.push((r.code, r.stderr, jobs, len));
        }
        assert_eq!(seen[0].0, 0, "{rw} {engine}");
        assert!(seen[0].3 > 1 << 20, "{rw} {engine}: {:?}", seen[0]);
        if rw == "--rw=write" {
            assert!(
                seen[0].1.contains("No space left on device"),
                "{}",
                seen[0].1
            );
        }
        assert_eq!(seen[0], seen[1], "{rw} {engine}");
    }
}

#[test]
fn exit_what_stops_what_fio_stops() {
    // A slow job with exitall beside a rate-bound one in another group;
    // a last job after a stonewall.
    let job = |what: &str| {
        format!(
            "[global]\nfilename=ew\nfilesize=1m\nbs=4k\nexitall=1\n\
             [slow]\nrw=read\nnew_group=1\nthinktime=10000\nnumber_ios=10\nexit_what={what}\n\
             [fast]\nnew_group=1\nrw=randread\nrate=256k\n\
             [later]\nstonewall\nrw=read\n"
        )
    };
    for what in ["group", "stonewall", "all"] {
        let text = job(what);
        let prepare = |d: &Path| std::fs::write(d.join("ew.fio"), &text).unwrap();
        let args = ["--output-format=json", "ew.fio"];
        let Some(((theirs, _), (ours, _))) = both(&args, &prepare) else {
            return;
        };
        assert_eq!((theirs.code, ours.code), (0, 0), "{what}: {}", ours.stderr);
        let (t, o) = (per_job(&json(&theirs)), per_job(&json(&ours)));
        let shape = |v: &[(String, u64, u64, u64, u64, i64)]| {
            // fast read it all (its group was not stopped), later ran.
            (v[1].1 == 1 << 20, v[2].1 > 0)
        };
        let want = match what {
            "group" => (true, true),
            "stonewall" => (false, true),
            _ => (false, false),
        };
        assert_eq!(shape(&t), want, "fio, {what}: {t:?}");
        assert_eq!(shape(&o), want, "rfio, {what}: {o:?}");
    }
}

/// A blktrace (its magic in the first event) is refused as a fio built
/// without blktrace refuses it; fio 3.33 here would replay it.
#[test]
fn blktrace_input_is_refused_with_fios_line() {
    let d = SUITE.scratch("blktrace");
    let mut trace = vec![0u8; 96];
    trace[..4].copy_from_slice(&0x6561_7407u32.to_le_bytes());
    std::fs::write(d.path().join("trace"), &trace).unwrap();
    let args = ["--name=r", "--read_iolog=trace", "--output-format=json"];
    let r = SUITE.run_in(&our_bin("rfio"), d.path(), &args);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r
        .stderr
        .starts_with("fio: iolog version 1 is no longer supported\n"));
    assert!(r
        .stderr
        .contains("err=22/file:iolog.c:795, func=failed initializing iolog"));
    assert_eq!(per_job(&json(&r))[0].5, 22);
}
