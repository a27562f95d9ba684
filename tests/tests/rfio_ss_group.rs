//! rfio beside fio 3.33 for `steadystate` with `group_reporting`: fio judges
//! a reporting group's summed rates in one window, kept by the group's last
//! job (the "leader"), only while that job runs, and ends every member once
//! the window is steady; the report's `steadystate` block is the group's.
//! The same job files run with both tools in fresh directories (null engine,
//! every run bounded in time); compared: exit codes, the JSON block's key
//! paths and types, attained, the window's sums, early or full-length ends,
//! and the normal output's lines with numbers masked.

use std::ops::RangeInclusive;
use std::path::Path;
use std::time::Duration;

use rbench_tests::rfio::Suite;
use rbench_tests::{
    fio_json_parts, fio_key_paths, fio_layout, fio_unit_header, masked_lines_starting, Ran,
};
use serde_json::Value;

const LIMIT: Duration = Duration::from_secs(40);

const SUITE: Suite = Suite::new("rfio-ssg", LIMIT);

/// fio, then rfio, on `job` (a job file written into each fresh directory,
/// none when empty) plus `args`. `None` when fio is not installed.
fn both(job: &str, args: &[&str]) -> Option<(Ran, Ran)> {
    let mut a = Vec::new();
    if !job.is_empty() {
        a.push("j.fio");
    }
    a.extend_from_slice(args);
    let write_job = |d: &Path| {
        if !job.is_empty() {
            std::fs::write(d.join("j.fio"), job).expect("write job file");
        }
    };
    let ((theirs, _), (ours, _)) = SUITE.both_dropping(&a, &write_job)?;
    Some((theirs, ours))
}

/// fio's and rfio's JSON documents for `job`, both having exited 0. `None`
/// when fio is not installed.
fn json_docs(job: &str) -> Option<(Value, Value)> {
    let (theirs, ours) = both(job, &["--output-format=json"])?;
    assert_eq!((ours.code, theirs.code), (0, 0), "{}", ours.stderr);
    Some((doc(&theirs), doc(&ours)))
}

/// The JSON document of a run (fio may print notices ahead of it).
fn doc(r: &Ran) -> Value {
    fio_json_parts(&r.stdout).1
}

fn u(v: &Value) -> u64 {
    v.as_u64()
        .unwrap_or_else(|| panic!("not an unsigned integer: {v}"))
}

/// A job's `steadystate` block says attained, with the window's mean IOPS
/// in `mean`.
fn assert_attained(j: &Value, mean: RangeInclusive<u64>) {
    let ss = &j["steadystate"];
    assert_eq!(ss["attained"], 1, "{ss}");
    assert!(mean.contains(&u(&ss["data"]["iops_mean"])), "{ss}");
}

/// A job file: the `[global]` section of a steadystate group of
/// null-engine random readers running `runtime` seconds, then `jobs`, their
/// own sections.
fn group_job(runtime: u32, jobs: &str) -> String {
    format!(
        "[global]
ioengine=null
size=1G
rw=randread
group_reporting
steadystate=iops:10%
ss_dur=2
time_based
runtime={runtime}
{jobs}"
    )
}

/// fio's and rfio's report unit for `jobs` in a 9 s group, each having
/// attained steady state with the window's mean IOPS in `mean`. `None`
/// when fio is not installed.
fn attained_units(jobs: &str, mean: RangeInclusive<u64>) -> Option<[Value; 2]> {
    let (t, o) = json_docs(&group_job(9, jobs))?;
    let units = [t["jobs"][0].clone(), o["jobs"][0].clone()];
    for j in &units {
        assert_attained(j, mean.clone());
    }
    Some(units)
}

/// Two clones of a flat job at 3000 IOPS each.
fn two_clones() -> String {
    group_job(10, "[j]\nnumjobs=2\nrate_iops=3000\n")
}

/// Two clones of a flat job: one report unit, one `steadystate` block with
/// fio's key paths and types, attained by both tools well before the
/// runtime, its window holding the two clones' summed IOPS.
#[test]
fn a_group_stops_early_with_one_block() {
    let Some((t, o)) = json_docs(&two_clones()) else {
        return;
    };
    for d in [&t, &o] {
        assert_eq!(d["jobs"].as_array().map(Vec::len), Some(1), "{d}");
    }
    let (tj, oj) = (&t["jobs"][0], &o["jobs"][0]);
    assert_eq!(
        fio_key_paths(&oj["steadystate"], true),
        fio_key_paths(&tj["steadystate"], true)
    );
    for k in ["ss", "duration", "attained"] {
        assert_eq!(oj["steadystate"][k], tj["steadystate"][k], "{k}");
    }
    for j in [tj, oj] {
        let ss = &j["steadystate"];
        // The window holds the group's sum, 2 x 3000 IOPS (a clone's own
        // window would hold about 3000).
        assert_attained(j, 5400..=6600);
        // Both clones end early: the read runtime is the longest member's.
        assert!(u(&j["read"]["runtime"]) < 6000, "{}", j["read"]["runtime"]);
        for v in ss["data"]["iops"].as_array().into_iter().flatten() {
            assert!((5400..=6600).contains(&u(v)), "{ss}");
        }
    }
}

/// The normal output: fio's layout (numbers masked), with one
/// `steadystate` line for the group under a `jobs=2` unit header.
#[test]
fn the_normal_report_has_one_group_line() {
    let Some((theirs, ours)) = both(&two_clones(), &[]) else {
        return;
    };
    assert_eq!((ours.code, theirs.code), (0, 0), "{}", ours.stderr);
    let (t, o) = (
        masked_lines_starting(&theirs.stdout, "steadystate"),
        masked_lines_starting(&ours.stdout, "steadystate"),
    );
    assert_eq!(o, t);
    assert_eq!(t.len(), 1, "{}", theirs.stdout);
    assert!(t[0].contains("attained=yes"), "{}", t[0]);
    assert_eq!(
        fio_unit_header(&ours.stdout),
        fio_unit_header(&theirs.stdout)
    );
    assert_eq!(fio_layout(&ours.stdout), fio_layout(&theirs.stdout));
}

/// fio judges the group only while its last job runs: when that job ends
/// at once, the group is never steady and the other job runs its whole
/// runtime (judged on its own, its flat rate would end it after 2 s).
#[test]
fn no_verdict_once_the_last_job_ended() {
    let job = "[global]
ioengine=null
rw=randread
group_reporting
steadystate=iops:10%
ss_dur=2
[a]
size=1G
time_based
runtime=4
rate_iops=1000
[b]
size=4k
";
    let Some((t, o)) = json_docs(job) else {
        return;
    };
    let (tj, oj) = (&t["jobs"][0], &o["jobs"][0]);
    assert_eq!(
        fio_key_paths(&oj["steadystate"], true),
        fio_key_paths(&tj["steadystate"], true)
    );
    for j in [tj, oj] {
        let ss = &j["steadystate"];
        assert_eq!(ss["attained"], 0, "{ss}");
        assert_eq!(ss["data"]["iops"], serde_json::json!([0, 0]), "{ss}");
        assert!(u(&j["read"]["runtime"]) >= 3900, "{}", j["read"]["runtime"]);
    }
}

/// The leader starts late (startdelay): nothing is judged before it runs,
/// then the summed window (1000 + 2000 IOPS) settles and both jobs end
/// together before the runtime.
#[test]
fn judging_waits_for_the_last_job() {
    let jobs = "[a]\nrate_iops=1000\n[b]\nrate_iops=2000\nstartdelay=2\n";
    let Some(units) = attained_units(jobs, 2900..=3100) else {
        return;
    };
    for j in &units {
        // a ran past 2 s (no verdict before b started) and stopped early.
        let rt = u(&j["read"]["runtime"]);
        assert!((3000..7000).contains(&rt), "{rt}");
    }
}

/// The first job starts late into a group whose leader is already steady:
/// fio ends it before it does any I/O, and so does rfio.
#[test]
fn a_late_member_of_a_steady_group_does_no_io() {
    let jobs = "[b]\nrate_iops=2000\nstartdelay=4\n[a]\nrate_iops=1000\n";
    // Only a's 1000 IOPS: b never ran.
    let Some(units) = attained_units(jobs, 900..=1100) else {
        return;
    };
    for j in &units {
        let ios = u(&j["read"]["total_ios"]);
        assert!(ios < 3000, "b did I/O: {ios} ios in all");
    }
}

/// fio rejects a job whose steadystate settings differ from an earlier
/// job's of its group (group_reporting or not; no steadystate at all
/// differs too): the header lines so far, then its message on stdout, exit
/// 1. A stonewall starts a new group, where other settings are fine.
#[test]
fn inconsistent_settings_in_a_group_are_rejected() {
    let job = "[global]
ioengine=null
size=1M
rw=randread
[a]
ss=iops:10%
ss_dur=2
[b]
ss=iops:20%
ss_dur=2
";
    let cases: &[(&str, &[&str])] = &[
        (job, &[]),
        (job, &["--output-format=json"]),
        (
            "",
            &[
                "--name=a",
                "--ioengine=null",
                "--size=1M",
                "--ss=iops:10%",
                "--ss_dur=2",
                "--name=b",
            ],
        ),
    ];
    for (file, args) in cases {
        let Some((theirs, ours)) = both(file, args) else {
            return;
        };
        assert_eq!((ours.code, theirs.code), (1, 1), "{args:?}");
        assert_eq!(ours.stdout, theirs.stdout, "{args:?}");
        assert_eq!(ours.stderr, theirs.stderr, "{args:?}");
        assert!(theirs.stdout.contains("job rejected: steadystate options"));
    }
    let apart = job.replace("[b]\n", "[b]\nstonewall\nruntime=1\n");
    let Some((t, o)) = json_docs(&apart) else {
        return;
    };
    for d in [&t, &o] {
        let ss: Vec<&Value> = d["jobs"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|j| &j["steadystate"]["ss"])
            .collect();
        assert_eq!(ss, ["iops:10.000000%", "iops:20.000000%"], "{d}");
    }
}
