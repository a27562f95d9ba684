//! `rfio --merge` (rfio's own): json+ reports merged into one unit whose
//! percentiles come from the union of their latency bins. A fio 3.33 report
//! merged alone (or with itself) keeps fio's own percentiles; several
//! reports give the percentiles of the union of their bins.

use rbench_tests::{original, our_bin, run_bounded};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(60);

struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let d = std::env::temp_dir().join(format!("rfio-merge-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&d).expect("mkdir");
        TempDir(d)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A json+ report of a 4096-I/O random read job (null engine) by `bin`.
fn report(bin: &Path, dir: &TempDir, name: &str, seed: u32) -> String {
    let o = run_bounded(
        Command::new(bin).args([
            "--name=m",
            "--ioengine=null",
            "--size=16M",
            "--bs=4k",
            "--rw=randread",
            &format!("--randseed={seed}"),
            "--lat_percentiles=1",
            "--output-format=json+",
        ]),
        LIMIT,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let p = dir.0.join(name);
    std::fs::write(&p, &o.stdout).expect("write");
    p.to_string_lossy().into_owned()
}

fn merge(files: &[&str]) -> Value {
    let o = run_bounded(
        Command::new(our_bin("rfio")).arg("--merge").args(files),
        LIMIT,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).expect("merged JSON")
}

fn load(path: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("read")).expect("json")
}

/// (value, count) of a json+ `bins` object, ascending.
fn bins(v: &Value) -> Vec<(u64, u64)> {
    let mut b: Vec<(u64, u64)> = v["bins"]
        .as_object()
        .expect("bins")
        .iter()
        .map(|(k, c)| (k.parse().expect("bin"), c.as_u64().expect("count")))
        .collect();
    b.sort();
    b
}

/// The nearest-rank percentile of a binned distribution: the first bin
/// whose running count reaches p% of all (fio's rule; the job sizes keep
/// p% of N off the integers where fio's extended precision would differ).
fn nearest_rank(bins: &[(u64, u64)], p: f64) -> u64 {
    let n: u64 = bins.iter().map(|b| b.1).sum();
    let rank = (p / 100.0 * n as f64).ceil().max(1.0) as u64;
    let mut seen = 0;
    for &(v, c) in bins {
        seen += c;
        if seen >= rank {
            return v;
        }
    }
    0
}

#[test]
fn one_fio_report_keeps_fios_percentiles_alone_or_merged_with_itself() {
    let Some(fio) = original("fio") else { return };
    let dir = TempDir::new("one");
    let a = report(&fio, &dir, "a.json", 1);
    let theirs = &load(&a)["jobs"][0]["read"];
    for files in [vec![a.as_str()], vec![a.as_str(), a.as_str()]] {
        let m = merge(&files);
        let ours = &m["jobs"][0]["read"];
        for kind in ["clat_ns", "lat_ns"] {
            assert_eq!(
                ours[kind]["percentile"], theirs[kind]["percentile"],
                "{kind} of {files:?}"
            );
            assert_eq!(ours[kind]["min"], theirs[kind]["min"]);
            assert_eq!(ours[kind]["max"], theirs[kind]["max"]);
            let n = theirs[kind]["N"].as_u64().expect("N") * files.len() as u64;
            assert_eq!(ours[kind]["N"].as_u64(), Some(n));
            let (om, tm) = (ours[kind]["mean"].as_f64(), theirs[kind]["mean"].as_f64());
            assert!(
                (om.unwrap_or(0.0) - tm.unwrap_or(1.0)).abs() < 1e-3,
                "{om:?} {tm:?}"
            );
        }
        assert_eq!(
            ours["total_ios"].as_u64(),
            theirs["total_ios"].as_u64().map(|n| n * files.len() as u64)
        );
    }
}

#[test]
fn several_reports_give_the_percentiles_of_their_bins_union() {
    let Some(fio) = original("fio") else { return };
    let dir = TempDir::new("many");
    let files = [
        report(&fio, &dir, "a.json", 1),
        report(&our_bin("rfio"), &dir, "b.json", 2),
        report(&fio, &dir, "c.json", 3),
    ];
    let refs: Vec<&str> = files.iter().map(String::as_str).collect();
    let m = merge(&refs);
    assert_eq!(m["jobs"][0]["units"], 3);
    for kind in ["clat_ns", "lat_ns"] {
        let mut union: Vec<(u64, u64)> = Vec::new();
        for f in &files {
            for (v, c) in bins(&load(f)["jobs"][0]["read"][kind]) {
                match union.iter_mut().find(|b| b.0 == v) {
                    Some(b) => b.1 += c,
                    None => union.push((v, c)),
                }
            }
        }
        union.sort();
        let ours = &m["jobs"][0]["read"][kind];
        assert_eq!(bins(ours), union, "{kind}: merged bins are the union");
        let pct = ours["percentile"].as_object().expect("percentile");
        assert_eq!(pct.len(), 17, "fio's default list");
        for (k, v) in pct {
            let p: f64 = k.parse().expect("key");
            assert_eq!(v.as_u64(), Some(nearest_rank(&union, p)), "{kind} {k}");
        }
    }
}

#[test]
fn merge_refuses_what_it_cannot_read() {
    let dir = TempDir::new("bad");
    let junk = dir.0.join("junk.json");
    std::fs::write(&junk, "not json\n").expect("write");
    for args in [
        vec![],
        vec![junk.to_string_lossy().into_owned()],
        vec![dir.0.join("missing.json").to_string_lossy().into_owned()],
    ] {
        let o = run_bounded(
            Command::new(our_bin("rfio")).arg("--merge").args(&args),
            LIMIT,
        );
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(e.starts_with("rfio: --merge"), "{e}");
        assert!(o.stdout.is_empty());
    }
}
