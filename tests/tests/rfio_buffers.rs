//! Buffer contents beside fio 3.33: for each buffer option, both tools
//! write the same 4 MiB file and we compare what compressing and
//! deduplicating storage would see:
//! - zlib ratio of the whole file (long-range repeats count),
//! - zlib ratio per 4 KiB block (what a block-compressing device sees),
//! - share of unique 4 KiB blocks (what a deduplicating device keeps).
//!
//! Tolerance: 0.05 absolute on each ratio. fio and rfio draw random bytes
//! from different generators, and dedupe decisions are random per buffer
//! (a 50% share over 1024 blocks has a standard deviation of about 0.016),
//! so 0.05 is three deviations; measured differences are below 0.02. When
//! fio is missing, each case still checks its expected value on rfio
//! alone (same tolerance).
//!
//! Needs `cargo build -p rfio` first (it runs target/debug/rfio).

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use rbench_tests::rfio::Suite;
use rbench_tests::{original, our_bin, run_bounded, run_ok};

const TOLERANCE: f64 = 0.05;
const BLOCK: usize = 4096;

const SUITE: Suite = Suite::new("rfio-buffers", Duration::from_secs(60));

#[derive(Debug, Clone, Copy)]
struct Shape {
    zlib: f64,
    zlib_block: f64,
    unique: f64,
}

fn deflated_len(data: &[u8]) -> usize {
    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::new(6));
    e.write_all(data).expect("compress");
    e.finish().expect("compress").len()
}

fn shape(data: &[u8]) -> Shape {
    let n = data.len() as f64;
    let blocks: Vec<&[u8]> = data.chunks(BLOCK).collect();
    let per_block: usize = blocks.iter().map(|b| deflated_len(b)).sum();
    let unique: HashSet<&[u8]> = blocks.iter().copied().collect();
    Shape {
        zlib: deflated_len(data) as f64 / n,
        zlib_block: per_block as f64 / n,
        unique: unique.len() as f64 / blocks.len() as f64,
    }
}

fn written(bin: &Path, extra: &[&str]) -> Shape {
    let (dir, data) = write_file(bin, extra);
    let _ = std::fs::remove_dir_all(&dir);
    shape(&data)
}

/// Write the 4 MiB file with `bin`; its directory and contents.
fn write_file(bin: &Path, extra: &[&str]) -> (PathBuf, Vec<u8>) {
    let dir = SUITE.temp_dir("buf");
    let mut cmd = Command::new(bin);
    cmd.args([
        "--name=b",
        "--filename=data",
        "--rw=write",
        "--bs=4k",
        "--size=4m",
        "--output=/dev/null",
    ])
    .args(extra)
    .current_dir(&dir);
    run_ok(&mut cmd, Duration::from_secs(60));
    let data = std::fs::read(dir.join("data")).expect("written file");
    assert_eq!(data.len(), 4 << 20);
    (dir, data)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= TOLERANCE
}

/// Each case: options, and the shape expected of rfio on its own
/// (None: not pinned, only compared with fio).
type Case = (
    &'static [&'static str],
    Option<f64>,
    Option<f64>,
    Option<f64>,
);

const CASES: &[Case] = &[
    // Default: one random buffer, scrambled per write (fio's default).
    (&[], None, Some(0.92), Some(1.0)),
    (&["--refill_buffers"], Some(1.0), Some(1.0), Some(1.0)),
    (&["--zero_buffers"], Some(0.0), Some(0.0), Some(0.0)),
    (&["--scramble_buffers=0"], Some(0.0), Some(1.0), Some(0.0)),
    (
        &["--buffer_compress_percentage=50"],
        Some(0.51),
        Some(0.52),
        Some(1.0),
    ),
    (
        &[
            "--buffer_compress_percentage=75",
            "--buffer_compress_chunk=4k",
        ],
        Some(0.26),
        Some(0.27),
        Some(1.0),
    ),
    (
        &["--buffer_compress_percentage=100"],
        Some(0.0),
        Some(0.0),
        Some(0.0),
    ),
    (
        &["--dedupe_percentage=50"],
        Some(0.51),
        Some(1.0),
        Some(0.5),
    ),
    (
        &["--dedupe_percentage=30", "--buffer_compress_percentage=40"],
        None,
        Some(0.62),
        Some(0.7),
    ),
    (
        &[
            "--dedupe_percentage=60",
            "--dedupe_mode=working_set",
            "--dedupe_working_set_percentage=10",
        ],
        None,
        Some(1.0),
        Some(0.4),
    ),
    (
        &["--buffer_pattern=0xdeadbeef"],
        Some(0.0),
        Some(0.01),
        Some(0.0),
    ),
    (
        &["--buffer_pattern=\"rfio\""],
        Some(0.0),
        Some(0.01),
        Some(0.0),
    ),
    (&["--verify=crc32c"], Some(1.0), Some(1.0), Some(1.0)),
    // dedupe 100: fio restores its stream after every 512-byte chunk, so
    // each block is eight copies of one chunk.
    (
        &["--dedupe_percentage=100"],
        Some(0.0),
        Some(0.14),
        Some(0.0),
    ),
    // scramble_buffers given: scrambled even over zeros.
    (
        &["--zero_buffers", "--scramble_buffers=1"],
        Some(0.02),
        Some(0.05),
        Some(1.0),
    ),
    // Options apply in order: buffer_pattern clears an earlier scramble.
    (
        &["--buffer_pattern=0x55", "--scramble_buffers=1"],
        Some(0.02),
        Some(0.06),
        Some(1.0),
    ),
    (
        &["--scramble_buffers=1", "--buffer_pattern=0x55"],
        Some(0.0),
        Some(0.01),
        Some(0.0),
    ),
    (
        &[
            "--buffer_compress_percentage=30",
            "--buffer_compress_chunk=0",
        ],
        Some(0.7),
        Some(0.71),
        Some(1.0),
    ),
    (
        &["--buffer_compress_percentage=60", "--buffer_pattern=0x55"],
        Some(0.41),
        Some(0.42),
        Some(1.0),
    ),
];

#[test]
fn compressibility_and_dedupe_match_fio() {
    let fio = original("fio");
    let mut report = String::new();
    let mut bad = Vec::new();
    for (extra, zlib, zlib_block, unique) in CASES {
        let mine = written(&our_bin("rfio"), extra);
        report.push_str(&format!("{extra:?}: rfio {mine:?}"));
        for (want, got, what) in [
            (zlib, mine.zlib, "zlib"),
            (zlib_block, mine.zlib_block, "zlib per block"),
            (unique, mine.unique, "unique blocks"),
        ] {
            if let Some(w) = want {
                if !close(*w, got) {
                    bad.push(format!("{extra:?}: rfio {what} {got:.3}, expected {w:.3}"));
                }
            }
        }
        if let Some(fio) = &fio {
            let theirs = written(fio, extra);
            report.push_str(&format!(" fio {theirs:?}"));
            for (a, b, what) in [
                (mine.zlib, theirs.zlib, "zlib"),
                (mine.zlib_block, theirs.zlib_block, "zlib per block"),
                (mine.unique, theirs.unique, "unique blocks"),
            ] {
                if !close(a, b) {
                    bad.push(format!("{extra:?}: {what} rfio {a:.3}, fio {b:.3}"));
                }
            }
        }
        report.push('\n');
    }
    assert!(bad.is_empty(), "{}\n{report}", bad.join("\n"));
}

#[test]
fn refilled_buffers_are_new_for_every_write_and_fill_is_repeatable() {
    // refill_buffers: no two 4 KiB blocks alike; two runs with the same
    // options write the same bytes (fio's #158: only with refill_buffers).
    let dir_a = SUITE.temp_dir("a");
    let dir_b = SUITE.temp_dir("b");
    for d in [&dir_a, &dir_b] {
        let mut cmd = Command::new(our_bin("rfio"));
        cmd.args([
            "--name=b",
            "--filename=data",
            "--rw=write",
            "--bs=4k",
            "--size=1m",
            "--refill_buffers",
            "--output=/dev/null",
        ])
        .current_dir(d);
        run_ok(&mut cmd, Duration::from_secs(60));
    }
    let a = std::fs::read(dir_a.join("data")).expect("file a");
    let b = std::fs::read(dir_b.join("data")).expect("file b");
    assert_eq!(shape(&a).unique, 1.0);
    assert!(a == b, "same options, same contents");
}

/// fio's own dedupe estimator (`fio-dedupe`, shipped with fio) reads the
/// share of duplicate blocks back from rfio's file as the option asked.
#[test]
fn fio_dedupe_reads_back_the_asked_share() {
    let Some(tool) = original("fio-dedupe") else {
        return;
    };
    for (pct, extra) in [
        (50, &["--dedupe_percentage=50"][..]),
        (
            30,
            &["--dedupe_percentage=30", "--buffer_compress_percentage=40"],
        ),
        (80, &["--dedupe_percentage=80"]),
    ] {
        let (dir, _) = write_file(&our_bin("rfio"), extra);
        let mut cmd = Command::new(&tool);
        cmd.args(["-b", "4096"]).arg(dir.join("data"));
        let out = run_bounded(&mut cmd, Duration::from_secs(60));
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let _ = std::fs::remove_dir_all(&dir);
        let setting: u32 = text
            .lines()
            .find_map(|l| l.strip_prefix("Fio setting: dedupe_percentage="))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or_else(|| panic!("fio-dedupe output: {text}"));
        // 1024 blocks: the drawn share is within 5 points of the asked one.
        assert!(
            setting.abs_diff(pct) <= 5,
            "{extra:?}: fio-dedupe says {setting}"
        );
    }
}
