//! `rfio --server` against a real fio 3.33 client, side by side with
//! `fio --server`: the same report layout (numbers masked), the same bytes
//! moved, JSON that parses with the client's keys; and a server that
//! outlives clients sending broken frames.

use rbench_tests::{fio_layout, original, our_bin, run_bounded, wait_for};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use rbench_tests::rfio::Server;

const JOB: &str = "[cs]\nioengine=null\nsize=16M\nrw=read\nbs=4k\n";
/// Two reporting groups: a group_reporting unit of two clones (mixed
/// directions), then a stonewalled job with a description.
const MULTI: &str = "[global]\nioengine=null\nsize=8M\nbs=4k\n\
    [a]\nrw=randrw\nnumjobs=2\ngroup_reporting\n\
    [b]\nstonewall\nrw=write\ndescription=second job\n";
const LIMIT: Duration = Duration::from_secs(60);

fn job_file(dir: &Path) -> PathBuf {
    write_job(dir, "cs.fio", JOB)
}

fn write_job(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write job");
    p
}

fn client(fio: &Path, port: u16, extra: &[&str], job: &Path) -> Output {
    let out = run_bounded(
        Command::new(fio)
            .arg(format!("--client=127.0.0.1,{port}"))
            .arg("--eta=never")
            .args(extra)
            .arg(job),
        LIMIT,
    );
    assert!(
        out.status.success(),
        "fio client against port {port} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn temp(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("rfio-remote-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("mkdir");
    d
}

/// Normal and JSON output of a fio client for `job`, from a server of
/// rfio's, then from one of fio's; `data`, when given, is removed before
/// each normal run (so both lay out their file).
fn both_servers(fio: &Path, job: &Path, data: Option<&Path>) -> Vec<(String, serde_json::Value)> {
    let mut outs = Vec::new();
    for bin in [our_bin("rfio"), fio.to_path_buf()] {
        let server = Server::start(&bin);
        if let Some(d) = data {
            let _ = std::fs::remove_file(d);
        }
        let normal = client(fio, server.port, &[], job);
        let json = client(fio, server.port, &["--output-format=json"], job);
        let json = String::from_utf8_lossy(&json.stdout).into_owned();
        let start = json.find('{').unwrap_or(0);
        let v = serde_json::from_str(&json[start..]).unwrap_or_else(|e| panic!("{e}:\n{json}"));
        outs.push((String::from_utf8_lossy(&normal.stdout).into_owned(), v));
    }
    outs
}

fn keys(v: &serde_json::Value) -> Vec<String> {
    v.as_object()
        .map_or(Vec::new(), |o| o.keys().cloned().collect())
}

#[test]
fn fio_client_prints_the_same_report_from_rfio_as_from_fio() {
    let Some(fio) = original("fio") else { return };
    let dir = temp("report");
    let outs = both_servers(&fio, &job_file(&dir), None);
    let _ = std::fs::remove_dir_all(&dir);
    let (ours, theirs) = (&outs[0], &outs[1]);
    // The probe line, the server's text lines and the client's report.
    let first = |s: &str| s.lines().next().unwrap_or("").to_string();
    assert!(first(&ours.0).starts_with("hostname="), "{}", ours.0);
    assert_eq!(first(&ours.0), first(&theirs.0));
    assert!(ours.0.contains("> Starting 1 process\n"), "{}", ours.0);
    assert!(
        ours.0.contains("Run status group 0 (all jobs):"),
        "{}",
        ours.0
    );
    assert_eq!(
        fio_layout(&ours.0),
        fio_layout(&theirs.0),
        "{}\n---\n{}",
        ours.0,
        theirs.0
    );
    // Same bytes moved; the JSON has the client's own keys.
    let (a, b) = (&ours.1, &theirs.1);
    assert_eq!(keys(a), keys(b));
    let (ja, jb) = (&a["client_stats"][0], &b["client_stats"][0]);
    assert_eq!(keys(ja), keys(jb));
    assert_eq!(keys(&ja["read"]), keys(&jb["read"]));
    assert_eq!(ja["read"]["io_bytes"], 16u64 << 20);
    assert_eq!(ja["read"]["io_bytes"], jb["read"]["io_bytes"]);
    assert_eq!(ja["read"]["total_ios"], jb["read"]["total_ios"]);
    assert_eq!(ja["job options"], jb["job options"]);
    assert_eq!(ja["jobname"], "cs");
}

#[test]
fn groups_and_clones_report_as_from_fio() {
    let Some(fio) = original("fio") else { return };
    let dir = temp("groups");
    let outs = both_servers(&fio, &write_job(&dir, "multi.fio", MULTI), None);
    let _ = std::fs::remove_dir_all(&dir);
    let (ours, theirs) = (&outs[0], &outs[1]);
    assert!(ours.0.contains("<"), "{}", ours.0);
    assert!(ours.0.contains("> ...\n"), "{}", ours.0);
    assert!(
        ours.0.contains("Run status group 1 (all jobs):"),
        "{}",
        ours.0
    );
    assert_eq!(
        fio_layout(&ours.0),
        fio_layout(&theirs.0),
        "{}\n---\n{}",
        ours.0,
        theirs.0
    );
    let units = |v: &serde_json::Value| -> Vec<serde_json::Value> {
        v["client_stats"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|u| {
                        serde_json::json!([
                            u["jobname"],
                            u["groupid"],
                            u["read"]["io_bytes"].as_u64().map(|b| b > 0),
                            u["write"]["io_bytes"].as_u64().map(|b| b > 0),
                            // randrw splits 8 MiB per clone at random, in both tools.
                            u["read"]["io_bytes"].as_u64().unwrap_or(0)
                                + u["write"]["io_bytes"].as_u64().unwrap_or(0),
                            u["job options"],
                        ])
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    assert_eq!(units(&ours.1), units(&theirs.1));
    assert_eq!(ours.1["global options"], theirs.1["global options"]);
}

/// A frame header as fio builds one, CRC16 (ARC) over its first 20 bytes.
fn frame(version: u16, opcode: u16, payload: &[u8]) -> Vec<u8> {
    fn crc16(b: &[u8]) -> u16 {
        let mut c: u16 = 0;
        for &x in b {
            c ^= u16::from(x);
            for _ in 0..8 {
                c = if c & 1 != 0 {
                    (c >> 1) ^ 0xa001
                } else {
                    c >> 1
                };
            }
        }
        c
    }
    let mut h = Vec::new();
    h.extend(version.to_le_bytes());
    h.extend(opcode.to_le_bytes());
    h.extend(0u32.to_le_bytes());
    h.extend(0u64.to_le_bytes());
    h.extend((payload.len() as u32).to_le_bytes());
    let c = crc16(&h);
    h.extend(c.to_le_bytes());
    h.extend(crc16(payload).to_le_bytes());
    h.extend(payload);
    h
}

/// Send `bytes`, then wait (bounded) for the server to hang up.
fn hostile(port: u16, bytes: &[u8], half_close: bool) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(20)))
        .expect("timeout");
    s.write_all(bytes).expect("send");
    if half_close {
        let _ = s.shutdown(std::net::Shutdown::Write);
    }
    let mut buf = [0u8; 4096];
    loop {
        match s.read(&mut buf) {
            Ok(0) => return,
            Ok(_) => continue,
            Err(e) => panic!("server kept a broken connection open: {e}"),
        }
    }
}

#[test]
fn broken_frames_close_only_their_connection() {
    let rfio = our_bin("rfio");
    let mut server = Server::start(&rfio);
    let mut probe = 1u64.to_le_bytes().to_vec();
    probe.extend([0u8; 128]);
    let good = frame(97, 10, &probe);
    // Header CRC wrong.
    let mut bad_crc = good.clone();
    bad_crc[2] ^= 1;
    hostile(server.port, &bad_crc, false);
    // Payload CRC wrong.
    let mut bad_pdu = good.clone();
    bad_pdu[30] ^= 1;
    hostile(server.port, &bad_pdu, false);
    // Another protocol version, a fragment over 1 KiB, an unknown opcode.
    hostile(server.port, &frame(96, 10, &probe), false);
    hostile(server.port, &frame(97, 10, &[0; 1500]), false);
    hostile(server.port, &frame(97, 99, &[]), false);
    // A truncated probe payload, and a frame cut short then closed.
    hostile(server.port, &frame(97, 10, &[1, 2, 3]), false);
    hostile(server.port, &good[..good.len() - 7], true);
    assert!(server.alive(), "rfio --server died on a broken frame");
    // The next client is served as usual.
    if let Some(fio) = original("fio") {
        let dir = temp("hostile");
        let out = client(&fio, server.port, &[], &job_file(&dir));
        let _ = std::fs::remove_dir_all(&dir);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.starts_with("hostname="), "{text}");
        assert!(text.contains("io=16.0MiB"), "{text}");
    } else {
        // Without fio: a well-formed probe still gets its reply.
        let mut s = TcpStream::connect(("127.0.0.1", server.port)).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(20)))
            .expect("timeout");
        s.write_all(&good).expect("send");
        let mut head = [0u8; 24];
        s.read_exact(&mut head).expect("probe reply");
        assert_eq!(u16::from_le_bytes([head[2], head[3]]), 10);
    }
    assert!(server.alive());
}

#[test]
fn bad_job_file_fails_the_client_and_the_server_goes_on() {
    let Some(fio) = original("fio") else { return };
    let server = Server::start(&our_bin("rfio"));
    let dir = temp("badjob");
    let bad = write_job(&dir, "bad.fio", "[x]\nioengine=null\nrw=bogus\nsize=1M\n");
    let out = run_bounded(
        Command::new(&fio)
            .arg(format!("--client=127.0.0.1,{}", server.port))
            .arg("--eta=never")
            .arg(&bad),
        LIMIT,
    );
    let text = String::from_utf8_lossy(&out.stdout);
    // fio's own words, each line from the server prefixed with its host.
    assert!(!out.status.success(), "{text}");
    assert!(text.contains("> fio: failed parsing rw=bogus\n"), "{text}");
    assert!(text.contains(">         valid values: read "), "{text}");
    let good = client(&fio, server.port, &[], &job_file(&dir));
    let _ = std::fs::remove_dir_all(&dir);
    assert!(String::from_utf8_lossy(&good.stdout).contains("io=16.0MiB"));
}

#[test]
fn interrupted_client_gets_what_ran_and_the_next_client_runs_whole() {
    let Some(fio) = original("fio") else { return };
    let server = Server::start(&our_bin("rfio"));
    let dir = temp("interrupt");
    let long = write_job(
        &dir,
        "long.fio",
        "[long]\nioengine=null\nsize=1M\nrw=read\nbs=4k\ntime_based\nruntime=60\n",
    );
    let child = rbench_tests::spawn_piped(
        Command::new(&fio)
            .arg(format!("--client=127.0.0.1,{}", server.port))
            .arg("--eta=never")
            .arg(&long),
    );
    let pid = child.id();
    // Running once the server has the connection; then a moment more.
    assert!(wait_for(Duration::from_secs(20), || {
        rbench_tests::tcp_established(server.port) > 0
    }));
    std::thread::sleep(Duration::from_millis(1500));
    // SAFETY: kill(2) on the pid of the child this test spawned.
    unsafe { libc::kill(pid as i32, libc::SIGINT) };
    let out = rbench_tests::wait_output_bounded(child, Duration::from_secs(30));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Run status group 0 (all jobs):"), "{text}");
    let run_ms: u64 = text
        .split("run=")
        .nth(1)
        .and_then(|r| r.split('-').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no run= in\n{text}"));
    assert!(run_ms < 30_000, "{text}");
    // The stop was for that client only.
    let next = client(
        &fio,
        server.port,
        &[],
        &write_job(
            &dir,
            "short.fio",
            "[short]\nioengine=null\nsize=1M\nrw=read\nbs=4k\ntime_based\nruntime=2\n",
        ),
    );
    let _ = std::fs::remove_dir_all(&dir);
    let text = String::from_utf8_lossy(&next.stdout);
    let run_ms: u64 = text
        .split("run=")
        .nth(1)
        .and_then(|r| r.split('-').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no run= in\n{text}"));
    assert!(run_ms >= 1900, "{text}");
}

#[test]
fn a_silent_client_does_not_hold_up_the_next() {
    let Some(fio) = original("fio") else { return };
    let mut server = Server::start(&our_bin("rfio"));
    // Connected, never a byte: served by a process of its own, as in fio.
    let silent = TcpStream::connect(("127.0.0.1", server.port)).expect("connect");
    let dir = temp("silent");
    let out = client(&fio, server.port, &[], &job_file(&dir));
    let _ = std::fs::remove_dir_all(&dir);
    assert!(String::from_utf8_lossy(&out.stdout).contains("io=16.0MiB"));
    drop(silent);
    assert!(server.alive());
}

#[test]
fn disk_stats_reach_the_client_as_from_fio() {
    let Some(fio) = original("fio") else { return };
    let dir = temp("disk");
    let job = write_job(
        &dir,
        "file.fio",
        &format!(
            "[f]\nfilename={}\nsize=4M\nrw=write\nbs=64k\n",
            dir.join("data").display()
        ),
    );
    let outs = both_servers(&fio, &job, Some(&dir.join("data")));
    let _ = std::fs::remove_dir_all(&dir);
    let (ours, theirs) = (&outs[0], &outs[1]);
    // Both or neither show devices (a file on tmpfs has none).
    assert_eq!(
        ours.0.contains("Disk stats (read/write):"),
        theirs.0.contains("Disk stats (read/write):"),
        "{}\n---\n{}",
        ours.0,
        theirs.0
    );
    assert_eq!(
        fio_layout(&ours.0),
        fio_layout(&theirs.0),
        "{}\n---\n{}",
        ours.0,
        theirs.0
    );
    let disks = |v: &serde_json::Value| -> Vec<(serde_json::Value, Vec<String>)> {
        v["disk_util"]
            .as_array()
            .map(|a| a.iter().map(|d| (d["name"].clone(), keys(d))).collect())
            .unwrap_or_default()
    };
    assert_eq!(disks(&ours.1), disks(&theirs.1));
    assert_eq!(ours.1["client_stats"][0]["write"]["io_bytes"], 4u64 << 20);
}
