//! rfio's engines beside fio 3.33's (posixaio, cpuio, filecreate,
//! filestat, filedelete, falloc, ftruncate, exec, splice, e4defrag, net,
//! netsplice, sg, io_uring_cmd): the same exit code, the same bytes per
//! direction, the same files left behind, fio's lines where a job cannot
//! run, and data over the network between fio and rfio both ways.

use rbench_tests::fs::{file_names, TempDir};
use rbench_tests::{original, our_bin, run_bounded, tcp_listening, wait_for, Ran};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(120);

fn run(bin: &Path, dir: &Path, args: &[&str]) -> Ran {
    run_bounded(Command::new(bin).current_dir(dir).args(args), LIMIT).into()
}

/// The JSON document of a run (after any lines an engine prints first).
fn json(out: &str) -> Value {
    let at = out.find("\n{").map_or(0, |i| i + 1);
    serde_json::from_str(&out[at..]).unwrap_or_else(|e| panic!("no JSON ({e}):\n{out}"))
}

/// (read bytes, read ios, write bytes, write ios, trim bytes, error) per job.
fn moved(v: &Value) -> Vec<[u64; 6]> {
    v["jobs"]
        .as_array()
        .expect("jobs")
        .iter()
        .map(|j| {
            let n = |d: &str, k: &str| j[d][k].as_u64().unwrap_or(u64::MAX);
            [
                n("read", "io_bytes"),
                n("read", "total_ios"),
                n("write", "io_bytes"),
                n("write", "total_ios"),
                n("trim", "io_bytes"),
                j["error"].as_u64().unwrap_or(u64::MAX),
            ]
        })
        .collect()
}

/// Run `args` with fio and with rfio, each in its own scratch directory:
/// same exit code, same bytes per direction, same files left behind.
fn same_as_fio(tag: &str, args: &[&str]) {
    let Some(fio) = original("fio") else { return };
    let d1 = TempDir::new("rfio-engines", &format!("{tag}-fio"));
    let d2 = TempDir::new("rfio-engines", &format!("{tag}-rfio"));
    let mut full = vec!["--output-format=json"];
    full.extend_from_slice(args);
    let theirs = run(&fio, &d1, &full);
    let ours = run(&our_bin("rfio"), &d2, &full);
    assert_eq!(
        theirs.code, ours.code,
        "{tag}: exit codes differ\nfio: {}\nrfio: {}",
        theirs.stderr, ours.stderr
    );
    assert!(!ours.stderr.contains("panicked"), "{tag}: {}", ours.stderr);
    assert_eq!(
        moved(&json(&theirs.stdout)),
        moved(&json(&ours.stdout)),
        "{tag}: bytes differ\nrfio stderr: {}",
        ours.stderr
    );
    assert_eq!(file_names(&d1), file_names(&d2), "{tag}: files left differ");
}

#[test]
fn posixaio_moves_what_fio_moves() {
    same_as_fio(
        "posixaio",
        &[
            "--name=p",
            "--ioengine=posixaio",
            "--size=1m",
            "--iodepth=16",
            "--rw=randrw",
        ],
    );
    same_as_fio(
        "posixaio-write",
        &[
            "--name=p",
            "--ioengine=posixaio",
            "--size=512k",
            "--iodepth=4",
            "--rw=write",
            "--bs=64k",
        ],
    );
}

#[test]
fn splice_falloc_ftruncate_move_what_fio_moves() {
    same_as_fio(
        "splice",
        &[
            "--name=s",
            "--ioengine=splice",
            "--size=1m",
            "--rw=rw",
            "--bs=128k",
        ],
    );
    same_as_fio(
        "falloc",
        &["--name=f", "--ioengine=falloc", "--size=1m", "--rw=randrw"],
    );
    same_as_fio(
        "falloc-trim",
        &[
            "--name=f",
            "--ioengine=falloc",
            "--size=1m",
            "--rw=randtrim",
        ],
    );
    same_as_fio(
        "ftruncate",
        &[
            "--name=t",
            "--ioengine=ftruncate",
            "--size=1m",
            "--rw=write",
        ],
    );
    // A read is refused (EINVAL): exit 1, error 22, on both.
    same_as_fio(
        "ftruncate-read",
        &[
            "--name=t",
            "--ioengine=ftruncate",
            "--size=64k",
            "--rw=read",
        ],
    );
}

#[test]
fn file_operation_engines_create_stat_and_delete_as_fio() {
    let common = ["--name=t", "--nrfiles=3", "--filesize=8k"];
    for e in ["filecreate", "filestat", "filedelete"] {
        let engine = format!("--ioengine={e}");
        let mut args = common.to_vec();
        args.push(&engine);
        same_as_fio(e, &args);
    }
    // filecreate leaves the files (empty), filedelete none.
    let d = TempDir::new("rfio-engines", "fc-files");
    let r = run(
        &our_bin("rfio"),
        &d,
        &["--name=t", "--nrfiles=3", "--ioengine=filecreate"],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(file_names(&d), ["t.0.0", "t.0.1", "t.0.2"]);
    assert!(std::fs::metadata(d.join("t.0.1")).unwrap().len() == 0);
    let r = run(
        &our_bin("rfio"),
        &d,
        &[
            "--name=t",
            "--nrfiles=3",
            "--filesize=4k",
            "--ioengine=filedelete",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(file_names(&d).is_empty(), "{:?}", file_names(&d));
}

#[test]
fn e4defrag_defragments_or_fails_as_fio() {
    // On ext4 both move the blocks; elsewhere both fail each move.
    same_as_fio(
        "e4defrag",
        &[
            "--name=e",
            "--ioengine=e4defrag",
            "--filesize=256k",
            "--rw=write",
            "--donorname=dd",
        ],
    );
    same_as_fio(
        "e4defrag-inplace",
        &[
            "--name=e",
            "--ioengine=e4defrag",
            "--filesize=256k",
            "--rw=randwrite",
            "--donorname=dd",
            "--inplace=1",
        ],
    );
}

/// fio's and rfio's stderr and exit code for a job that cannot start.
fn same_refusal(tag: &str, args: &[&str]) {
    let Some(fio) = original("fio") else { return };
    let d1 = TempDir::new("rfio-engines", &format!("{tag}-fio"));
    let d2 = TempDir::new("rfio-engines", &format!("{tag}-rfio"));
    let theirs = run(&fio, &d1, args);
    let ours = run(&our_bin("rfio"), &d2, args);
    assert_eq!(theirs.code, ours.code, "{tag}: {}", ours.stderr);
    assert_eq!(theirs.stderr, ours.stderr, "{tag}");
    let pid_line = |s: &str| {
        s.lines().find(|l| l.starts_with("fio: pid=")).map(|l| {
            l.split_once(", ")
                .map_or(String::new(), |x| x.1.to_string())
        })
    };
    assert_eq!(pid_line(&theirs.stdout), pid_line(&ours.stdout), "{tag}");
}

#[test]
fn engines_refuse_as_fio() {
    same_refusal("cpuio-noload", &["--name=c", "--ioengine=cpuio"]);
    same_refusal("exec-noprog", &["--name=x", "--ioengine=exec"]);
    same_refusal(
        "e4defrag-nodonor",
        &[
            "--name=e",
            "--ioengine=e4defrag",
            "--size=64k",
            "--rw=write",
        ],
    );
    same_refusal(
        "sg-file",
        &[
            "--name=x",
            "--ioengine=sg",
            "--filename=plainfile",
            "--size=64k",
            "--rw=write",
        ],
    );
    same_refusal(
        "uring-cmd-file",
        &[
            "--name=x",
            "--ioengine=io_uring_cmd",
            "--filename=plainfile",
            "--size=64k",
            "--rw=write",
        ],
    );
    // A failure inside the engine's queue call: fio's td_io_queue line, no
    // io_u error line.
    same_refusal(
        "ftruncate-read",
        &[
            "--name=t",
            "--ioengine=ftruncate",
            "--size=64k",
            "--rw=read",
        ],
    );
    same_refusal(
        "net-noport",
        &["--name=r", "--ioengine=net", "--rw=read", "--size=1m"],
    );
    same_refusal(
        "net-random",
        &[
            "--name=r",
            "--ioengine=net",
            "--rw=randread",
            "--port=1",
            "--size=1m",
        ],
    );
}

#[test]
fn cpuio_and_exec_run_for_their_runtime_moving_nothing() {
    let Some(fio) = original("fio") else { return };
    for (tag, args) in [
        (
            "cpuio",
            vec![
                "--name=c",
                "--ioengine=cpuio",
                "--cpuload=10",
                "--cpuchunks=1000",
                "--runtime=1",
                "--time_based",
            ],
        ),
        (
            "exec",
            vec![
                "--name=x",
                "--ioengine=exec",
                "--program=/bin/echo",
                "--arguments=hi %n %r",
                "--runtime=1",
                "--time_based",
            ],
        ),
    ] {
        let d1 = TempDir::new("rfio-engines", &format!("{tag}-fio"));
        let d2 = TempDir::new("rfio-engines", &format!("{tag}-rfio"));
        let theirs = run(&fio, &d1, &args);
        let ours = run(&our_bin("rfio"), &d2, &args);
        assert_eq!((theirs.code, ours.code), (0, 0), "{tag}: {}", ours.stderr);
        // The engine's own lines, and no job description line.
        let own = |s: &str| {
            s.lines()
                .filter(|l| l.starts_with(&args[0][7..]) && !l.contains("groupid"))
                .map(str::to_string)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            own(&theirs.stdout),
            own(&ours.stdout),
            "{tag}:\n{}",
            ours.stdout
        );
        // Nothing moves: no read or write lines in either report.
        let io_lines = |s: &str| s.lines().filter(|l| l.contains("IOPS=")).count();
        assert_eq!(
            io_lines(&theirs.stdout),
            io_lines(&ours.stdout),
            "{tag}:\n{}",
            ours.stdout
        );
        assert_eq!(file_names(&d1), file_names(&d2), "{tag}");
    }
    let d = TempDir::new("rfio-engines", "exec-out");
    let r = run(
        &our_bin("rfio"),
        &d,
        &[
            "--name=x",
            "--ioengine=exec",
            "--program=/bin/echo",
            "--arguments=hi %n %r",
            "--runtime=1",
            "--time_based",
        ],
    );
    assert_eq!(r.code, 0);
    assert_eq!(
        std::fs::read_to_string(d.join("x.stdout")).unwrap(),
        "hi x 1\n"
    );
}

/// A receiver (`listen` for TCP) on `rx`, a sender on `tx`: both exit 0,
/// the sender writes `size` bytes, the receiver reads some and no more.
fn transfer(rx: &Path, tx: &Path, port: u16, proto: &str, extra: &[&str]) {
    let d = TempDir::new("rfio-engines", &format!("net-{port}"));
    let size = 1u64 << 20;
    let common = [
        "--ioengine=net".to_string(),
        format!("--port={port}"),
        format!("--protocol={proto}"),
        "--bs=4k".into(),
        format!("--size={size}"),
        "--output-format=json".into(),
    ];
    let mut recv = Command::new(rx);
    recv.current_dir(&d)
        .args(&common)
        .args(["--name=r", "--rw=read"])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if proto == "tcp" {
        recv.arg("--listen");
    }
    let child = recv.spawn().expect("receiver");
    if proto == "tcp" {
        assert!(
            wait_for(Duration::from_secs(30), || tcp_listening(port)),
            "receiver never listened"
        );
    } else {
        std::thread::sleep(Duration::from_secs(1));
    }
    let sent = run_bounded(
        Command::new(tx)
            .current_dir(&d)
            .args(&common)
            .args(["--name=s", "--rw=write", "--hostname=127.0.0.1"])
            .args(extra),
        LIMIT,
    );
    let got = rbench_tests::wait_output_bounded(child, LIMIT);
    let (sent, got): (Ran, Ran) = (sent.into(), got.into());
    assert_eq!(
        (sent.code, got.code),
        (0, 0),
        "send: {}\nrecv: {}",
        sent.stderr,
        got.stderr
    );
    let s = moved(&json(&sent.stdout))[0];
    let r = moved(&json(&got.stdout))[0];
    assert_eq!(s[2], size, "the sender writes the job's size");
    // A receiver counts what it got; short reads' accounting ends fio's
    // (and rfio's) a little before the job's size, UDP may drop some.
    assert!(r[0] > 0 && r[0] <= size, "received {} of {size}", r[0]);
    if proto == "tcp" {
        assert!(r[0] >= size / 2, "received {} of {size}", r[0]);
    }
}

#[test]
fn net_moves_data_between_fio_and_rfio_both_ways() {
    let Some(fio) = original("fio") else { return };
    let ours = our_bin("rfio");
    transfer(&ours, &fio, 18911, "tcp", &[]);
    transfer(&fio, &ours, 18912, "tcp", &[]);
    transfer(&ours, &ours, 18913, "tcp", &["--nodelay=1"]);
    transfer(&ours, &fio, 18914, "tcp", &["--pingpong"]);
    transfer(&fio, &ours, 18915, "tcp", &["--pingpong"]);
    transfer(&fio, &ours, 18916, "udp", &["--bs=1k"]);
}
