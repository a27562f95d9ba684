//! A mixed fleet across network namespaces: one namespace per "host", fio
//! 3.33's `--server` on some and rfio's on the others, each on the default
//! port at its own address; fio's client and rfio's, in a client namespace,
//! drive the whole fleet by IP and print the same report shapes (numbers
//! masked, hosts in any order), the same JSON keys, and rfio's exact cluster
//! percentiles after fio's `All clients` block. Every server is killed and
//! every namespace deleted at the end, also on failure (tests/src/netns.rs).
//! Skipped, with a note, where namespaces cannot be made (not root).

use rbench_tests::netns::Fleet;
use rbench_tests::rfio::{fio_lines_only, CLUSTER};
use rbench_tests::{fio_json_parts, fio_key_paths, fio_layout, original, our_bin, run_drained};
use rbench_tests::{fs::TempDir, wait_for};
use std::path::PathBuf;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(60);
const JOB: &str = "[n]\nioengine=null\nsize=16M\nrw=randrw\nbs=4k\ntime_based\nruntime=2\n";
/// The report without rfio's exact-percentile block, as layout lines,
/// sorted (hosts answer in any order).
fn shape(s: &str) -> Vec<String> {
    let kept = fio_lines_only(s);
    let mut v = fio_layout(&kept);
    v.sort();
    v
}

fn json_paths(v: &serde_json::Value) -> Vec<(String, &'static str)> {
    let mut p = fio_key_paths(v, false);
    p.retain(|(k, _)| !k.contains("/rbench_cluster_percentiles"));
    p.sort();
    p.dedup();
    p
}

#[test]
fn fio_and_rfio_clients_drive_a_mixed_fleet_across_namespaces() {
    let Some(fio) = original("fio") else { return };
    let Some(mut fleet) = Fleet::new("mixed", 4) else {
        return;
    };
    let dir = TempDir::new("rfio-netns", "fleet");
    let job = dir.path().join("n.fio");
    std::fs::write(&job, JOB).expect("job");
    // fio, rfio, fio, rfio: each on its host's address, default port.
    let bins: Vec<PathBuf> = (0..4)
        .map(|k| {
            if k % 2 == 0 {
                fio.clone()
            } else {
                our_bin("rfio")
            }
        })
        .collect();
    for (k, bin) in bins.iter().enumerate() {
        let mut cmd = Fleet::cmd(&fleet.host_ns[k], bin);
        cmd.arg(format!("--server={}", Fleet::ip(k)));
        let pid = fleet.spawn(cmd, &dir.path().join(format!("server{k}.out")));
        assert!(
            wait_for(LIMIT, || Fleet::listening(pid, 8765)),
            "host {k}: {} --server did not listen",
            bin.display()
        );
    }
    let client = |bin: &PathBuf, fmt: &str| {
        let mut cmd = Fleet::cmd(&fleet.client_ns, bin);
        cmd.args(["--eta=never", &format!("--output-format={fmt}")]);
        for k in 0..4 {
            cmd.arg(format!("--client={}", Fleet::ip(k))).arg(&job);
        }
        let o = run_drained(&mut cmd, LIMIT);
        let text = String::from_utf8_lossy(&o.stdout).into_owned();
        assert!(
            o.status.success(),
            "{}: {text}\n{}",
            bin.display(),
            String::from_utf8_lossy(&o.stderr)
        );
        text
    };
    let (theirs, ours) = (client(&fio, "normal"), client(&our_bin("rfio"), "normal"));
    assert_eq!(
        shape(&ours),
        shape(&theirs),
        "ours:\n{ours}\nfio's:\n{theirs}"
    );
    assert_eq!(ours.matches("hostname=").count(), 4, "{ours}");
    assert_eq!(
        ours.matches("\nn: (groupid=0, jobs=1)").count(),
        4,
        "{ours}"
    );
    let all = &ours[ours.find("All clients: (groupid=0, jobs=4)").expect(&ours)..];
    assert!(all.contains(CLUSTER), "{all}");
    let (theirs, ours) = (client(&fio, "json"), client(&our_bin("rfio"), "json"));
    let ((_, tv), (_, ov)) = (fio_json_parts(&theirs), fio_json_parts(&ours));
    assert_eq!(
        json_paths(&ov),
        json_paths(&tv),
        "ours:\n{ours}\nfio's:\n{theirs}"
    );
    let stats = ov["client_stats"].as_array().expect("client_stats");
    assert_eq!(stats.len(), 5, "{ours}");
    let mut hosts: Vec<String> = stats[..4]
        .iter()
        .map(|s| s["hostname"].as_str().unwrap_or("").to_string())
        .collect();
    hosts.sort();
    let mut want: Vec<String> = (0..4).map(Fleet::ip).collect();
    want.sort();
    assert_eq!(hosts, want);
    assert!(stats[4]["rbench_cluster_percentiles"]["read"]["clat_ns"]["N"].as_u64() > Some(0));
}
