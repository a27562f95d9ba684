//! Job options about files, memory, the job's process and what is
//! reported, each beside the real fio 3.33 on the same arguments:
//! `file_append`, `allow_file_create`, `create_only`, `create_fsync`,
//! `offset_align`, `pre_read`, `fadvise_hint`, `write_hint`, `atomic`,
//! `opendir`, `stats`, `disk_util`, `bs_is_seq_rand`, `bs_unaligned`,
//! `rw_sequencer`, `allrandrepeat`, `mem`/`iomem_align`/`lockmem`,
//! `uid`/`gid`, `ioscheduler`, `cgroup`, the profiles' options.
//!
//! Needs `cargo build -p rfio` first (it runs target/debug/rfio).

use std::path::Path;
use std::time::Duration;

use rbench_tests::rfio::Suite;
use rbench_tests::{fio_json_parts, Ran};
use serde_json::Value;

const SUITE: Suite = Suite::new("rbench-rfio-job-env", Duration::from_secs(60));

/// fio's and ours on the same arguments, each in a fresh directory that
/// `prepare` sets up (the directories go with the runs), or ours alone
/// when fio is not installed (RBENCH_REQUIRE_ORIGINALS=1 fails then).
fn both(
    args: &[&str],
    prepare: &dyn Fn(&Path),
) -> Vec<(&'static str, Ran, rbench_tests::fs::TempDir)> {
    match SUITE.both_dropping(args, prepare) {
        Some(((theirs, d1), (ours, d2))) => vec![("fio", theirs, d1), ("rfio", ours, d2)],
        None => {
            let d = SUITE.scratch("ours");
            prepare(&d);
            let r = SUITE.run_in(&rbench_tests::our_bin("rfio"), &d, args);
            vec![("rfio", r, d)]
        }
    }
}

fn json(who: &str, r: &Ran) -> Value {
    assert_eq!(r.code, 0, "{who}: exit code; stderr: {}", r.stderr);
    fio_json_parts(&r.stdout).1
}

fn io_bytes(v: &Value) -> [u64; 2] {
    let j = &v["jobs"][0];
    [
        j["read"]["io_bytes"].as_u64().unwrap(),
        j["write"]["io_bytes"].as_u64().unwrap(),
    ]
}

/// The same io bytes per direction from every tool; returns them.
fn same_io(args: &[&str], prepare: &dyn Fn(&Path)) -> [u64; 2] {
    let runs = both(args, prepare);
    let got: Vec<(&str, [u64; 2])> = runs
        .iter()
        .map(|(who, r, _)| (*who, io_bytes(&json(who, r))))
        .collect();
    for w in got.windows(2) {
        assert_eq!(
            w[0].1, w[1].1,
            "io bytes {:?} vs {:?} for {args:?}",
            w[0], w[1]
        );
    }
    got[0].1
}

fn lay(d: &Path, name: &str, len: usize, byte: u8) {
    std::fs::write(d.join(name), vec![byte; len]).unwrap();
}

#[test]
fn file_append_writes_past_the_end_and_keeps_what_was_there() {
    let args = [
        "--name=a",
        "--filename=f",
        "--rw=write",
        "--size=64k",
        "--file_append=1",
        "--output-format=json",
    ];
    for (who, r, d) in both(&args, &|d| lay(d, "f", 65536, 0x5a)) {
        assert_eq!(io_bytes(&json(who, &r)), [0, 65536], "{who}");
        let data = std::fs::read(d.join("f")).unwrap();
        assert_eq!(data.len(), 131072, "{who}: the file grew by the job's size");
        assert!(
            data[..65536].iter().all(|&b| b == 0x5a),
            "{who}: old data kept"
        );
    }
}

#[test]
fn allow_file_create_0_refuses_a_missing_file_and_creates_nothing() {
    let args = [
        "--name=a",
        "--filename=f",
        "--rw=read",
        "--size=64k",
        "--allow_file_create=0",
    ];
    for (who, r, d) in both(&args, &|_| {}) {
        assert_eq!(r.code, 1, "{who}: {}", r.stderr);
        assert!(
            r.stderr
                .contains("fio: file creation disallowed by allow_file_create=0"),
            "{who}: {}",
            r.stderr
        );
        assert!(!d.join("f").exists(), "{who} created the file");
        assert!(!r.stdout.contains("groupid="), "{who}: no job block");
    }
}

#[test]
fn create_only_lays_out_and_runs_no_io() {
    let args = [
        "--name=a",
        "--filename=f",
        "--rw=read",
        "--size=96k",
        "--create_only=1",
        "--output-format=json",
    ];
    for (who, r, d) in both(&args, &|_| {}) {
        assert_eq!(io_bytes(&json(who, &r)), [0, 0], "{who}");
        assert_eq!(
            std::fs::metadata(d.join("f")).unwrap().len(),
            98304,
            "{who}"
        );
    }
}

#[test]
fn create_fsync_0_and_pre_read_and_fadvise_hints_move_the_same_bytes() {
    for extra in [
        "--create_fsync=0",
        "--pre_read=1",
        "--fadvise_hint=0",
        "--fadvise_hint=sequential",
        "--atomic=1",
        "--create_serialize=0",
        "--unique_filename=0",
        "--write_barrier=4",
        "--softrandommap=1",
        "--clocksource=clock_gettime",
        "--gtod_cpu=0",
        "--block_error_percentiles=1",
    ] {
        let args = [
            "--name=a",
            "--filename=f",
            "--rw=randread",
            "--size=128k",
            extra,
            "--output-format=json",
        ];
        assert_eq!(same_io(&args, &|_| {}), [131072, 0], "{extra}");
    }
}

#[test]
fn offset_align_aligns_a_percentage_offset() {
    // 10% of 1 MiB is 104857.6: up to 4k (the block) it is 106496, up
    // to 64k 131072; the job reads what lies past it.
    for (align, expect) in [
        (None, 1048576 - 106496),
        (Some("--offset_align=64k"), 1048576 - 131072),
    ] {
        let mut args = vec![
            "--name=a",
            "--filename=f",
            "--rw=read",
            "--offset=10%",
            "--output-format=json",
        ];
        args.extend(align);
        let got = same_io(&args, &|d| lay(d, "f", 1 << 20, 1));
        assert_eq!(got, [expect, 0], "{align:?}");
    }
}

#[test]
fn opendir_adds_every_file_below_the_directory() {
    let prepare = |d: &Path| {
        std::fs::create_dir_all(d.join("od/sub")).unwrap();
        lay(d, "od/x", 3, 1);
        lay(d, "od/sub/y", 8192, 2);
    };
    let args = ["--name=a", "--opendir=od", "--rw=read", "--bs=1"];
    for (who, r, _d) in both(&args, &prepare) {
        assert_eq!(r.code, 0, "{who}: {}", r.stderr);
        assert!(
            r.stdout.starts_with("fio: opendir added 2 files\n"),
            "{who}: {}",
            r.stdout
        );
        assert!(r.stdout.contains("io=8195B"), "{who}: {}", r.stdout);
    }
    let args = ["--name=a", "--opendir=nothere", "--rw=read"];
    for (who, r, _d) in both(&args, &|_| {}) {
        assert_eq!(r.code, 1, "{who}");
        assert!(
            r.stdout
                .contains("func=opendir(nothere), error=No such file or directory"),
            "{who}: {}",
            r.stdout
        );
        assert_eq!(r.stderr, "fio: failed parsing opendir=nothere\n", "{who}");
    }
}

#[test]
fn stats_0_leaves_the_job_out_and_disk_util_0_the_disks() {
    let args = [
        "--name=a",
        "--filename=f",
        "--rw=read",
        "--size=64k",
        "--stats=0",
    ];
    for (who, r, _d) in both(&args, &|_| {}) {
        assert_eq!(r.code, 0, "{who}: {}", r.stderr);
        assert!(!r.stdout.contains("groupid="), "{who}: {}", r.stdout);
        assert!(!r.stdout.contains("READ:"), "{who}: {}", r.stdout);
        assert!(r.stdout.contains("Run status group 0 (all jobs):"), "{who}");
    }
    let args = [
        "--name=a",
        "--filename=f",
        "--rw=read",
        "--size=64k",
        "--disk_util=0",
    ];
    for (who, r, _d) in both(&args, &|_| {}) {
        assert_eq!(r.code, 0, "{who}: {}", r.stderr);
        assert!(r.stdout.contains("groupid="), "{who}");
        assert!(!r.stdout.contains("Disk stats"), "{who}: {}", r.stdout);
    }
}

#[test]
fn block_size_options_draw_fios_sizes() {
    for args in [
        ["--rw=randrw", "--bs=4k,64k", "--bs_is_seq_rand=1"],
        ["--rw=rw", "--bs=4k,64k", "--bs_is_seq_rand=1"],
        ["--rw=randread", "--bsrange=1000-3000", "--bs_unaligned"],
    ] {
        let mut all = vec![
            "--name=a",
            "--filename=f",
            "--size=1m",
            "--output-format=json",
        ];
        all.extend(args);
        same_io(&all, &|_| {});
    }
}

/// The offsets of the job's 4 KiB preads (strace), or None without strace.
fn pread_offsets(bin: &Path, d: &Path, args: &[&str]) -> Option<Vec<u64>> {
    let strace = rbench_tests::on_path("strace")?;
    let mut full = vec![
        "-f",
        "-e",
        "trace=pread64",
        "-o",
        "trace.txt",
        bin.to_str().unwrap(),
    ];
    full.extend(args);
    let r = SUITE.run_in(&strace, d, &full);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let text = std::fs::read_to_string(d.join("trace.txt")).unwrap();
    Some(
        text.lines()
            .filter(|l| l.contains("pread64(") && l.contains(", 4096, "))
            .filter_map(|l| l.split(", 4096, ").nth(1)?.split(')').next()?.parse().ok())
            .collect(),
    )
}

#[test]
fn rw_sequencer_identical_repeats_each_random_block() {
    let args = [
        "--name=a",
        "--filename=f",
        "--size=64k",
        "--rw=randread:4",
        "--rw_sequencer=identical",
    ];
    let mut seen = Vec::new();
    for (who, bin) in rbench_tests::rfio::tools() {
        let d = SUITE.scratch(who);
        lay(&d, "f", 65536, 3);
        let Some(offs) = pread_offsets(&bin, &d, &args) else {
            eprintln!("note: no strace here; skipping");
            return;
        };
        assert_eq!(offs.len(), 16, "{who}: {offs:?}");
        for run in offs.chunks(4) {
            assert!(run.iter().all(|&o| o == run[0]), "{who}: {offs:?}");
        }
        seen.push(offs);
    }
    if seen.len() == 2 {
        assert_eq!(seen[0], seen[1], "the same blocks as fio");
    }
}

#[test]
fn allrandrepeat_repeats_the_offsets_even_with_randrepeat_0() {
    let args = [
        "--name=a",
        "--filename=f",
        "--size=64k",
        "--rw=randread",
        "--randrepeat=0",
        "--allrandrepeat=1",
    ];
    let bin = rbench_tests::our_bin("rfio");
    let mut runs = Vec::new();
    for k in 0..2 {
        let d = SUITE.scratch(&format!("rep{k}"));
        lay(&d, "f", 65536, 3);
        let Some(offs) = pread_offsets(&bin, &d, &args) else {
            eprintln!("note: no strace here; skipping");
            return;
        };
        runs.push(offs);
    }
    assert_eq!(runs[0].len(), 16);
    assert_eq!(runs[0], runs[1]);
    let mut sorted = runs[0].clone();
    sorted.sort_unstable();
    assert_ne!(sorted, runs[0], "random order");
}

#[test]
fn every_buffer_backing_moves_the_same_bytes() {
    for mem in [
        "--mem=malloc",
        "--mem=shm",
        "--iomem=mmap",
        "--mem=mmapshared",
        "--mem=mmap:membuf",
        "--iomem_align=512",
        "--mem_align=4k",
        "--lockmem=1m",
    ] {
        let args = [
            "--name=a",
            "--filename=f",
            "--rw=read",
            "--size=64k",
            "--iodepth=4",
            mem,
            "--output-format=json",
        ];
        assert_eq!(same_io(&args, &|_| {}), [65536, 0], "{mem}");
    }
    for (who, _r, d) in both(
        &[
            "--name=a",
            "--filename=f",
            "--rw=read",
            "--size=64k",
            "--mem=mmap:membuf",
        ],
        &|_| {},
    ) {
        assert!(
            !d.join("membuf").exists(),
            "{who}: the buffer file it made is removed"
        );
    }
}

#[test]
fn mmaphuge_without_huge_pages_fails_the_job() {
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    if !meminfo
        .lines()
        .any(|l| l.split_whitespace().collect::<Vec<_>>() == ["HugePages_Free:", "0"])
    {
        eprintln!("note: this machine has free huge pages; skipping");
        return;
    }
    let args = [
        "--name=a",
        "--filename=f",
        "--rw=read",
        "--size=64k",
        "--mem=mmaphuge",
    ];
    for (who, r, _d) in both(&args, &|_| {}) {
        assert_eq!(r.code, 1, "{who}");
        assert!(
            r.stdout.contains("func=mmap, error=Cannot allocate memory"),
            "{who}: {}",
            r.stdout
        );
    }
}

#[test]
fn uid_and_gid_apply_to_the_job_before_it_opens_its_files() {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("note: not root; skipping");
        return;
    }
    // The scratch directory is the job's own (mode 0700): nobody cannot
    // open a file in it.
    let args = [
        "--name=a",
        "--filename=f",
        "--rw=read",
        "--size=64k",
        "--uid=65534",
        "--gid=65534",
    ];
    let prepare = |d: &Path| {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o700)).unwrap();
    };
    for (who, r, _d) in both(&args, &prepare) {
        assert_eq!(r.code, 1, "{who}: {}", r.stderr);
        assert!(
            r.stdout
                .contains("err=13/file:filesetup.c:805, func=open(f), error=Permission denied"),
            "{who}: {}",
            r.stdout
        );
    }
    // In a directory anyone may enter, the job runs as nobody.
    let args = [
        "--name=a",
        "--filename=f",
        "--rw=read",
        "--size=64k",
        "--uid=65534",
        "--gid=65534",
        "--output-format=json",
    ];
    let prepare = |d: &Path| {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).unwrap();
        lay(d, "f", 65536, 1);
    };
    assert_eq!(same_io(&args, &prepare), [65536, 0]);
}

#[test]
fn an_io_scheduler_the_device_does_not_have_fails_the_job() {
    let args = [
        "--name=a",
        "--filename=f",
        "--rw=read",
        "--size=64k",
        "--ioscheduler=rbench-none-such",
    ];
    let runs = both(&args, &|_| {});
    let schedulable = runs[0].2.exists()
        && std::fs::read_dir("/sys/block").is_ok_and(|mut d| {
            d.any(|e| e.is_ok_and(|e| e.path().join("queue/scheduler").exists()))
        });
    if !schedulable {
        eprintln!("note: no block device with an I/O scheduler here; skipping");
        return;
    }
    let outs: Vec<(i32, bool)> = runs
        .iter()
        .map(|(_, r, _)| {
            (
                r.code,
                r.stderr
                    .contains("fio: unable to set io scheduler to rbench-none-such"),
            )
        })
        .collect();
    for w in outs.windows(2) {
        assert_eq!(w[0], w[1], "exit code and message as fio's");
    }
}

#[test]
fn cgroup_jobs_join_the_blkio_group_and_leave_no_group_behind() {
    let mounts = std::fs::read_to_string("/proc/mounts").unwrap_or_default();
    let Some(mount) = mounts.lines().find_map(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        (f.len() > 3 && f[2] == "cgroup" && f[3].split(',').any(|o| o == "blkio"))
            .then(|| f[1].to_string())
    }) else {
        eprintln!("note: no blkio cgroup mount here; skipping");
        return;
    };
    let name = format!("rbench-test-{}", std::process::id());
    let arg = format!("--cgroup={name}");
    let args = [
        "--name=a",
        "--filename=f",
        "--rw=read",
        "--size=64k",
        &arg,
        "--output-format=json",
    ];
    let runs = both(&args, &|_| {});
    let codes: Vec<i32> = runs.iter().map(|(_, r, _)| r.code).collect();
    assert!(codes.windows(2).all(|w| w[0] == w[1]), "{codes:?}");
    let dir = Path::new(&mount).join(&name);
    let _ = std::fs::remove_dir(&dir);
    let ours = &runs.last().unwrap().1;
    if ours.code == 0 {
        assert_eq!(io_bytes(&json("rfio", ours)), [65536, 0]);
    }
    let r = SUITE.run_in(&rbench_tests::our_bin("rfio"), &SUITE.scratch("cg"), &args);
    assert_eq!(r.code, codes[0]);
    assert!(!dir.exists(), "rfio removed the group it made");
}

#[test]
fn profile_options_are_taken_in_any_job() {
    let args = [
        "--name=a",
        "--filename=f",
        "--rw=read",
        "--size=64k",
        "--threads=1",
        "--block=4k",
        "--numruns=2",
        "--dir=.",
        "--load=1",
        "--prep",
    ];
    for (who, r, _d) in both(&args, &|_| {}) {
        assert_eq!(r.code, 0, "{who}: {}", r.stderr);
        assert!(r.stdout.contains("io=64.0KiB"), "{who}");
    }
}

#[test]
fn write_hint_is_set_or_fails_as_fios() {
    for direct in ["--direct=0", "--direct=1"] {
        let args = [
            "--name=a",
            "--filename=f",
            "--rw=write",
            "--size=64k",
            "--write_hint=short",
            direct,
        ];
        let runs = both(&args, &|_| {});
        let seen: Vec<(i32, Option<String>)> = runs
            .iter()
            .map(|(_, r, _)| {
                let line = r
                    .stdout
                    .lines()
                    .find(|l| l.contains("func=fcntl write hint"));
                (
                    r.code,
                    line.map(|l| l.split(", func=").nth(1).unwrap_or("").to_string()),
                )
            })
            .collect();
        assert!(seen.windows(2).all(|w| w[0] == w[1]), "{direct}: {seen:?}");
    }
}

#[test]
fn deprecated_options_say_so_and_hugepage_size_is_taken() {
    let args = [
        "--name=a",
        "--filename=f",
        "--rw=read",
        "--size=64k",
        "--verifysort=1",
        "--hugepage-size=4m",
    ];
    for (who, r, _d) in both(&args, &|_| {}) {
        assert_eq!(r.code, 0, "{who}: {}", r.stderr);
        assert!(
            r.stdout.starts_with("Option verifysort is deprecated\n"),
            "{who}: {}",
            r.stdout
        );
        assert!(r.stdout.contains("io=64.0KiB"), "{who}");
    }
}

#[test]
fn service_engines_parse_and_are_refused_as_fio_refuses_an_engine_it_cannot_load() {
    let rfio = rbench_tests::our_bin("rfio");
    let d = SUITE.scratch("svc");
    std::fs::write(
        d.join("rbd.fio"),
        "[rbd]\nioengine=rbd\nclientname=admin\npool=rbd\nrbdname=fio_test\nbusy_poll=1\nrw=randwrite\nbs=4k\n",
    )
    .unwrap();
    std::fs::write(
        d.join("plugin.fio"),
        "[x]\nioengine=libiscsi\nfilename=iscsi\n",
    )
    .unwrap();
    for job in ["rbd.fio", "plugin.fio"] {
        let r = SUITE.run_in(&rfio, &d, &["--parse-only", job]);
        assert_eq!(
            (r.code, r.stdout.as_str(), r.stderr.as_str()),
            (0, "", ""),
            "{job}"
        );
    }
    // fio's own lines for an engine it cannot load (its run of a plugin
    // that is not installed), exit 1.
    let r = SUITE.run_in(&rfio, &d, &["rbd.fio"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stdout
            .contains("func=dlopen, error=rbd: cannot open shared object file"),
        "{}",
        r.stdout
    );
    assert_eq!(
        r.stderr,
        "fio: engine rbd not loadable\nfio: failed to load engine\n"
    );
    // An option of another engine is still refused.
    std::fs::write(
        d.join("bad.fio"),
        "[x]\nioengine=libiscsi\nclientname=admin\n",
    )
    .unwrap();
    let r = SUITE.run_in(&rfio, &d, &["--parse-only", "bad.fio"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("Bad option <clientname=admin>"),
        "{}",
        r.stderr
    );
}

#[test]
fn debug_parse_traces_the_parser_as_fio() {
    let norm = |s: &str| -> String {
        s.lines()
            .map(|l| match l.strip_prefix("parse ") {
                Some(rest) => format!(
                    "parse PID {}",
                    rest.trim_start()
                        .split_once(' ')
                        .map_or("", |x| x.1)
                        .trim_start()
                ),
                None => l.to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    let prepare = |d: &Path| {
        std::fs::write(
            d.join("j.fio"),
            "[global]\nbs=4k\n[a]\nsize=1m\n[b]\nrw=write\n",
        )
        .unwrap();
    };
    for args in [
        vec![
            "--parse-only",
            "--debug=parse",
            "--ss_dur=10s",
            "--ss=iops:10",
            "--ss_ramp=5",
        ],
        vec!["--parse-only", "--debug=parse", "--ss=bw:.1%"],
        vec!["--parse-only", "--debug=parse", "--ss=bw:12"],
        vec!["--debug=parse", "--parse-only", "j.fio"],
        vec![
            "--debug=parse",
            "--parse-only",
            "--name=x",
            "--bs=4k,8k",
            "--norandommap",
            "--percentile_list=50:90",
            "--runtime=10",
        ],
    ] {
        let runs = both(&args, &prepare);
        let outs: Vec<String> = runs.iter().map(|(_, r, _)| norm(&r.stdout)).collect();
        assert!(outs[0].contains("parse PID "), "{}", outs[0]);
        for w in outs.windows(2) {
            assert_eq!(w[0], w[1], "{args:?}");
        }
    }
    let r = SUITE.run_in(
        &rbench_tests::our_bin("rfio"),
        &SUITE.scratch("dbg"),
        &["--debug=io,nosuch", "--parse-only"],
    );
    assert_eq!(r.stdout, "fio: set debug option io\n");
    assert_eq!(r.stderr, "fio: debug mask nosuch not found\n");
}
