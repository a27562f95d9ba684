//! `rw=read:N` (sequential I/O with holes) moves the same bytes as fio 3.33:
//! a hole that runs past the file wraps to the region's start and io_size
//! ends the job; a position past the region (with `offset=`) ends it.

use rbench_tests::fs::TempDir;
use rbench_tests::{original, our_bin, run_ok};
use serde_json::Value;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// (read bytes, read ios, write bytes, write ios) of the job.
fn moved(bin: &Path, dir: &Path, args: &[&str]) -> [u64; 4] {
    let out = run_ok(
        Command::new(bin)
            .current_dir(dir)
            .args([
                "--name=x",
                "--filename_format=h.$filenum",
                "--output-format=json",
            ])
            .args(args),
        Duration::from_secs(60),
    );
    let v: Value = serde_json::from_str(&out).expect("one JSON document");
    let j = &v["jobs"][0];
    let n = |d: &str, k: &str| j[d][k].as_u64().expect("number");
    [
        n("read", "io_bytes"),
        n("read", "total_ios"),
        n("write", "io_bytes"),
        n("write", "total_ios"),
    ]
}

#[test]
fn holes_move_what_fio_moves() {
    let Some(fio) = original("fio") else { return };
    let cases: [&[&str]; 7] = [
        &["--rw=read:1g", "--size=1m"],
        &["--rw=read:512k", "--size=1m"],
        &["--rw=read:8k", "--size=1m"],
        &["--rw=write:12k", "--bs=8k", "--size=1m"],
        &["--rw=read:64k", "--size=1m", "--nrfiles=2"],
        &["--rw=read:300k", "--size=512k", "--offset=256k"],
        &["--rw=rw:8k", "--size=1m"],
    ];
    for (i, args) in cases.iter().enumerate() {
        let base = TempDir::new("rbench-holes", &i.to_string());
        let (a, b) = (base.join("fio"), base.join("rfio"));
        std::fs::create_dir_all(&a).expect("dir");
        std::fs::create_dir_all(&b).expect("dir");
        let theirs = moved(&fio, &a, args);
        let ours = moved(&our_bin("rfio"), &b, args);
        assert_eq!(
            ours, theirs,
            "{args:?}: rfio vs fio (read bytes, ios, write bytes, ios)"
        );
        assert!(ours.iter().any(|&x| x > 0), "{args:?} moved nothing");
    }
}
