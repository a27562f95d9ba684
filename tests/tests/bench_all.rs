//! `./bench-all`, the suite's one-command machine benchmark: a `--quick` run
//! under dash measures every section with positive numbers, writes its CSVs,
//! report.md and report.html (bench-report's page; tests/bench_report.rs
//! loads it in a browser), and leaves no server or test file behind; `--only` runs only
//! what it names; failures and fallbacks are said, never hidden. The tools are
//! the debug builds (RBENCH_BIN_DIR), so `cargo build --workspace` first.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use rbench_tests::{run_bounded, target_dir};

const LIMIT: Duration = Duration::from_secs(110);

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("bench-all")
}

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("bench-all-test-{}-{tag}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).expect("create temp dir");
    d
}

/// Run `SHELL ./bench-all ARGS` with the tools taken from `bin_dir`.
fn bench_all(shell: &str, bin_dir: &Path, args: &[&str]) -> Output {
    let mut cmd = Command::new(shell);
    cmd.arg(script())
        .args(args)
        .env("RBENCH_BIN_DIR", bin_dir)
        .current_dir(std::env::temp_dir());
    run_bounded(&mut cmd, LIMIT)
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn assert_ok(out: &Output) {
    assert!(
        out.status.success(),
        "bench-all failed ({:?})\nstdout:\n{}\nstderr:\n{}",
        out.status,
        text(&out.stdout),
        text(&out.stderr)
    );
}

/// A section CSV as (header, rows of name -> cell), after checking its shape:
/// one snake_case header, every row as wide as it.
fn read_csv(path: &Path) -> (Vec<String>, Vec<HashMap<String, String>>) {
    let body = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = body.lines();
    let header: Vec<String> = lines
        .next()
        .expect("a header row")
        .split(',')
        .map(str::to_string)
        .collect();
    for h in &header {
        assert!(
            !h.is_empty()
                && h.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
            "{}: column {h:?} is not snake_case",
            path.display()
        );
    }
    let rows: Vec<HashMap<String, String>> = lines
        .map(|l| {
            let cells: Vec<&str> = l.split(',').collect();
            assert_eq!(cells.len(), header.len(), "{}: row {l:?}", path.display());
            header
                .iter()
                .cloned()
                .zip(cells.iter().map(|c| c.to_string()))
                .collect()
        })
        .collect();
    assert!(
        !rows.iter().any(|r| r.values().any(|c| c == &header[0])),
        "{}: a second header row",
        path.display()
    );
    (header, rows)
}

/// A CSV whose cells may be quoted (facts.csv: values hold commas), as
/// (header, rows of cells).
fn read_csv_quoted(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let body = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let cells = |line: &str| {
        let (mut out, mut cell, mut quoted, mut chars) =
            (Vec::new(), String::new(), false, line.chars().peekable());
        while let Some(c) = chars.next() {
            match (c, quoted) {
                ('"', true) if chars.peek() == Some(&'"') => {
                    chars.next();
                    cell.push('"');
                }
                ('"', _) => quoted = !quoted,
                (',', false) => out.push(std::mem::take(&mut cell)),
                _ => cell.push(c),
            }
        }
        out.push(cell);
        out
    };
    let mut lines = body.lines().map(cells);
    let header = lines.next().expect("a header row");
    let rows: Vec<Vec<String>> = lines.collect();
    for r in &rows {
        assert_eq!(r.len(), header.len(), "{}: row {r:?}", path.display());
    }
    (header, rows)
}

/// Every `*_per_s` cell is a positive number; every other cell is present
/// (a number >= 0 or a word) unless `may_be_empty` says it does not apply.
fn check_numbers(
    file: &str,
    header: &[String],
    rows: &[HashMap<String, String>],
    may_be_empty: impl Fn(&HashMap<String, String>, &str) -> bool,
) {
    assert!(!rows.is_empty(), "{file}: no rows");
    for row in rows {
        for col in header {
            let cell = &row[col];
            if col.ends_with("_per_s") {
                let v: f64 = cell
                    .parse()
                    .unwrap_or_else(|_| panic!("{file}: {col} = {cell:?} is not a number"));
                assert!(v > 0.0, "{file}: {col} = {v} in {row:?}");
            } else if cell.is_empty() {
                assert!(may_be_empty(row, col), "{file}: {col} is empty in {row:?}");
            } else if let Ok(v) = cell.parse::<f64>() {
                assert!(v >= 0.0, "{file}: {col} = {v} in {row:?}");
            }
        }
    }
}

/// net.csv cells that do not apply: TCP has no loss figures (and retransmits
/// only where the sender's system reports them), UDP no retransmits.
fn net_does_not_apply(row: &HashMap<String, String>, col: &str) -> bool {
    match row["protocol"].as_str() {
        "tcp" => [
            "loss_percent",
            "lost_packets",
            "packets",
            "jitter_ms",
            "retransmits",
        ]
        .contains(&col),
        _ => col == "retransmits",
    }
}

fn num(row: &HashMap<String, String>, col: &str) -> f64 {
    row[col]
        .parse()
        .unwrap_or_else(|_| panic!("{col} = {:?} is not a number", row[col]))
}

/// Processes whose command line names riperf as a server on `port`.
fn riperf_servers_on(port: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in fs::read_dir("/proc").expect("/proc").flatten() {
        let Ok(raw) = fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let args: Vec<String> = raw
            .split(|&b| b == 0)
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect();
        if args.first().is_some_and(|a| a.ends_with("riperf"))
            && args.iter().any(|a| a == "-s")
            && args.iter().any(|a| a == port)
        {
            found.push(args.join(" "));
        }
    }
    found
}

#[test]
fn quick_run_measures_every_section_and_cleans_up() {
    let tmp = temp_dir("quick");
    let (out_dir, data_dir) = (tmp.join("out"), tmp.join("data"));
    fs::create_dir_all(&data_dir).unwrap();
    let out = bench_all(
        "sh",
        &target_dir(),
        &[
            "--quick",
            "--out",
            out_dir.to_str().unwrap(),
            "--dir",
            data_dir.to_str().unwrap(),
        ],
    );
    assert_ok(&out);
    let stdout = text(&out.stdout);
    let stderr = text(&out.stderr);

    // cpu: 1, 2, 4, ... threads, ending at 2x the CPUs; speed-up relative to 1.
    let (h, cpu) = read_csv(&out_dir.join("cpu.csv"));
    check_numbers("cpu.csv", &h, &cpu, |_, _| false);
    let ncpu = std::thread::available_parallelism().unwrap().get() as f64;
    assert_eq!(num(&cpu[0], "threads"), 1.0);
    assert_eq!(num(cpu.last().unwrap(), "threads"), 2.0 * ncpu);
    assert_eq!(cpu[0]["speedup"], "1.00");
    assert_eq!(cpu[0]["efficiency_percent"], "100.0");
    for r in &cpu {
        assert!(num(r, "p95_latency_ms") > 0.0 && num(r, "avg_latency_ms") > 0.0);
    }

    // disk: 4k and 1M x random/sequential x read/write, IOPS x bs = bandwidth.
    let (h, disk) = read_csv(&out_dir.join("disk.csv"));
    check_numbers("disk.csv", &h, &disk, |_, _| false);
    let tests: Vec<&str> = disk.iter().map(|r| r["test"].as_str()).collect();
    for t in [
        "randread-4k",
        "randwrite-4k",
        "read-4k",
        "write-4k",
        "randread-1M",
        "randwrite-1M",
        "read-1M",
        "write-1M",
    ] {
        assert!(tests.contains(&t), "disk.csv lacks {t}: {tests:?}");
    }
    for r in &disk {
        assert!(num(r, "iops") > 0.0, "{r:?}");
        let product = num(r, "iops") * num(r, "bs_bytes");
        let ratio = num(r, "bw_bytes_per_s") / product;
        assert!((0.98..1.02).contains(&ratio), "IOPS x bs vs bw: {r:?}");
        assert!(
            ["iops", "bandwidth"].contains(&r["limit"].as_str()),
            "{r:?}"
        );
        assert!(["io_uring", "libaio", "psync"].contains(&r["ioengine"].as_str()));
        let (p50, p95, p99) = (
            num(r, "clat_p50_us"),
            num(r, "clat_p95_us"),
            num(r, "clat_p99_us"),
        );
        assert!(
            0.0 < p50 && p50 <= p95 && p95 <= p99,
            "clat percentiles: {r:?}"
        );
    }

    // mem: mbw's three tests on one thread, STREAM triad on all CPUs.
    let (h, mem) = read_csv(&out_dir.join("mem.csv"));
    check_numbers("mem.csv", &h, &mem, |_, _| false);
    let tests: Vec<&str> = mem.iter().map(|r| r["test"].as_str()).collect();
    assert_eq!(tests, ["memcpy", "dumb", "mcblock", "triad"]);
    assert_eq!(num(&mem[3], "threads"), ncpu);

    // net: TCP, UDP unlimited, and a UDP rate with < 1% loss. TCP rows have
    // no loss figures, UDP rows no retransmits.
    let (h, net) = read_csv(&out_dir.join("net.csv"));
    check_numbers("net.csv", &h, &net, net_does_not_apply);
    let tests: Vec<&str> = net.iter().map(|r| r["test"].as_str()).collect();
    assert_eq!(tests, ["tcp", "udp_unlimited", "udp_loss_free"]);
    assert!(num(&net[2], "loss_percent") < 1.0, "{:?}", net[2]);
    assert!(num(&net[1], "packets") > 0.0 && num(&net[2], "packets") > 0.0);

    // The loopback server it started is gone.
    let server = &net[0]["server"];
    let port = server
        .strip_prefix("127.0.0.1:")
        .unwrap_or_else(|| panic!("server {server:?}"));
    assert_eq!(riperf_servers_on(port), Vec::<String>::new());

    // The report names the conditions beside the tables.
    let report = fs::read_to_string(out_dir.join("report.md")).unwrap();
    for s in ["## CPU", "## Disk", "## Memory", "## Network"] {
        assert!(report.contains(s), "report.md lacks {s}:\n{report}");
        assert!(stdout.contains(&s[3..]), "stdout lacks {s}:\n{stdout}");
    }
    let kernel = fs::read_to_string("/proc/sys/kernel/osrelease").unwrap();
    for fact in [
        "| date |",
        "| CPU model |",
        "| memory |",
        "| disk (--dir) |",
        kernel.trim(),
        &format!("{ncpu} CPUs online"),
        data_dir.to_str().unwrap(),
    ] {
        assert!(report.contains(fact), "report.md lacks {fact:?}:\n{report}");
    }
    assert!(report.contains("| threads | events_per_s |"), "{report}");

    // Each tool's raw output is kept.
    for f in [
        "rsysbench-cpu-threads1.csv",
        "rfio-randread-4k.csv",
        "rmbw.csv",
        "rmbw-triad.csv",
        "riperf-tcp.csv",
        "riperf-udp-unlimited.csv",
    ] {
        assert!(out_dir.join("raw").join(f).is_file(), "raw/{f} missing");
    }
    // The page beside report.md: every section's charts, its path said.
    let page = out_dir.join("report.html");
    let html = fs::read_to_string(&page).unwrap_or_else(|e| panic!("report.html: {e}"));
    for chart in [
        "cpu-events",
        "cpu-efficiency",
        "disk-iops",
        "disk-bandwidth",
        "disk-clat",
        "mem-bandwidth",
        "net-throughput",
        "net-udp-loss",
    ] {
        assert!(
            html.contains(&format!("data-chart=\"{chart}\"")),
            "report.html lacks {chart}"
        );
    }
    assert!(html.contains(kernel.trim()), "report.html lacks the kernel");
    assert!(
        stderr.contains(&format!("page: {}", page.display())),
        "the page's path is not said:\n{stderr}"
    );
    let (h, facts) = read_csv_quoted(&out_dir.join("facts.csv"));
    assert_eq!(h, ["key", "fact", "value"]);
    assert!(
        facts
            .iter()
            .any(|f| f[0] == "cpus_online" && f[2] == ncpu.to_string()),
        "{facts:?}"
    );

    // Progress went to stderr, and the test file's directory was removed.
    assert!(stderr.contains("left)"), "no progress on stderr:\n{stderr}");
    let left: Vec<_> = fs::read_dir(&data_dir).unwrap().collect();
    assert!(left.is_empty(), "left in --dir: {left:?}");
    let _ = fs::remove_dir_all(&tmp);
}

#[test]
fn only_mem_runs_only_the_memory_section() {
    let tmp = temp_dir("only-mem");
    // Under bash when present: the script is POSIX sh and runs under both.
    let shell = if Path::new("/bin/bash").exists() {
        "bash"
    } else {
        "sh"
    };
    let out = bench_all(
        shell,
        &target_dir(),
        &["--quick", "--only", "mem", "--out", tmp.to_str().unwrap()],
    );
    assert_ok(&out);
    let (h, mem) = read_csv(&tmp.join("mem.csv"));
    check_numbers("mem.csv", &h, &mem, |_, _| false);
    for other in ["cpu.csv", "disk.csv", "net.csv"] {
        assert!(!tmp.join(other).exists(), "{other} written with --only mem");
    }
    let report = fs::read_to_string(tmp.join("report.md")).unwrap();
    assert!(report.contains("## Memory"));
    for s in ["## CPU", "## Disk", "## Network"] {
        assert!(!report.contains(s), "report.md has {s} with --only mem");
    }
    let html = fs::read_to_string(tmp.join("report.html")).unwrap();
    assert!(html.contains("data-chart=\"mem-bandwidth\""));
    for s in ["cpu-events", "disk-iops", "net-throughput"] {
        assert!(!html.contains(s), "report.html has {s} with --only mem");
    }
    let stderr = text(&out.stderr);
    for tool in ["rsysbench", "rfio", "riperf"] {
        assert!(
            !stderr.contains(tool),
            "{tool} ran with --only mem:\n{stderr}"
        );
    }
    let _ = fs::remove_dir_all(&tmp);
}

#[test]
fn help_and_bad_options() {
    let out = bench_all("sh", &target_dir(), &["--help"]);
    assert_ok(&out);
    let help = text(&out.stdout);
    for opt in ["--quick", "--only", "--out", "--dir", "--server"] {
        assert!(help.contains(opt), "--help lacks {opt}:\n{help}");
    }
    for (args, says) in [
        (&["--bogus"][..], "unknown option '--bogus'"),
        (&["--only", "gpu"][..], "unknown section 'gpu'"),
        (&["--out"][..], "option '--out' needs a value"),
        (&["--dir", "/nonexistent/bench"][..], "is not a directory"),
    ] {
        let out = bench_all("sh", &target_dir(), args);
        assert!(!out.status.success(), "{args:?} exited 0");
        let stderr = text(&out.stderr);
        assert!(stderr.contains(says), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?} printed to stdout");
    }
}

/// A bin dir holding the real tools, with `name` replaced by a shell script.
fn fake_bin_dir(tag: &str, name: &str, script: &str) -> PathBuf {
    use std::os::unix::fs::{symlink, PermissionsExt};
    let dir = temp_dir(tag);
    for tool in ["rsysbench", "rfio", "rmbw", "riperf", "bench-report"] {
        if tool != name {
            symlink(target_dir().join(tool), dir.join(tool)).unwrap();
        }
    }
    let path = dir.join(name);
    fs::write(&path, script).unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

#[test]
fn disk_falls_back_to_psync_and_buffered_io_and_says_so() {
    // An rfio that refuses O_DIRECT (as tmpfs did before Linux 6.6) and has
    // neither io_uring nor libaio.
    let real = target_dir().join("rfio");
    let bin = fake_bin_dir(
        "fallback-bin",
        "rfio",
        &format!(
            "#!/bin/sh\nfor a; do case $a in\n\
             --direct=1) echo 'fio: first direct IO errored.' >&2; exit 1 ;;\n\
             --ioengine=io_uring|--ioengine=libaio) echo 'fio: engine not loadable' >&2; exit 1 ;;\n\
             esac; done\nexec '{}' \"$@\"\n",
            real.display()
        ),
    );
    let tmp = temp_dir("fallback");
    let out = bench_all(
        "sh",
        &bin,
        &[
            "--quick",
            "--only",
            "disk",
            "--out",
            tmp.to_str().unwrap(),
            "--dir",
            tmp.to_str().unwrap(),
        ],
    );
    assert_ok(&out);
    let (h, disk) = read_csv(&tmp.join("disk.csv"));
    check_numbers("disk.csv", &h, &disk, |_, _| false);
    for r in &disk {
        assert_eq!(
            (r["ioengine"].as_str(), r["direct"].as_str()),
            ("psync", "0")
        );
    }
    let report = fs::read_to_string(tmp.join("report.md")).unwrap();
    assert!(report.contains("refused O_DIRECT"), "{report}");
    assert!(report.contains("io_uring unavailable"), "{report}");
    assert!(!fs::read_dir(&tmp)
        .unwrap()
        .flatten()
        .any(|e| e.file_name().to_string_lossy().starts_with("rbench-disk")));
    let _ = fs::remove_dir_all(&tmp);
    let _ = fs::remove_dir_all(&bin);
}

#[test]
fn a_failing_or_empty_step_stops_with_a_message() {
    // A tool that fails: its own message and bench-all's, non-zero exit.
    let bin = fake_bin_dir(
        "failing-bin",
        "rsysbench",
        "#!/bin/sh\necho 'FATAL: no CPU today' >&2\nexit 1\n",
    );
    let tmp = temp_dir("failing");
    let out = bench_all(
        "sh",
        &bin,
        &["--quick", "--only", "cpu", "--out", tmp.to_str().unwrap()],
    );
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(stderr.contains("FATAL: no CPU today"), "{stderr}");
    assert!(stderr.contains("bench-all: error: failed: "), "{stderr}");
    let _ = fs::remove_dir_all(&bin);

    // A tool that succeeds with an empty number: never a silent blank.
    let bin = fake_bin_dir(
        "empty-bin",
        "rsysbench",
        "#!/bin/sh\necho 'row,events_per_second,latency_avg_ms,latency_percentile,latency_percentile_ms'\n\
         echo 'summary,,1.0,95,2.0'\n",
    );
    let out = bench_all(
        "sh",
        &bin,
        &["--quick", "--only", "cpu", "--out", tmp.to_str().unwrap()],
    );
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("'events_per_second' is empty or not a number"),
        "{stderr}"
    );
    assert!(!tmp.join("report.md").exists());
    let _ = fs::remove_dir_all(&bin);
    let _ = fs::remove_dir_all(&tmp);
}

/// Start bench-all in the background, wait for `marker` to appear under
/// `out`, send it `signal` (as Ctrl-C or `kill` would), and return its exit
/// status and stderr.
fn interrupt_when(args: &[&str], out: &Path, marker: &str, signal: &str) -> (i32, String) {
    let err_path = out.with_extension("stderr");
    let mut child = rbench_tests::default_signals(&mut Command::new("sh"))
        .arg(script())
        .args(args)
        .args(["--out", out.to_str().unwrap()])
        .env("RBENCH_BIN_DIR", target_dir())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(fs::File::create(&err_path).unwrap())
        .spawn()
        .expect("spawn bench-all");
    let start = std::time::Instant::now();
    while !out.join(marker).exists() {
        assert!(
            child.try_wait().unwrap().is_none(),
            "bench-all ended before {marker}"
        );
        assert!(start.elapsed() < LIMIT, "{marker} never appeared");
        std::thread::sleep(Duration::from_millis(20));
    }
    let killed = Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(killed.success());
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let stderr = fs::read_to_string(&err_path).unwrap();
            return (status.code().unwrap_or(-1), stderr);
        }
        if start.elapsed() > LIMIT {
            let _ = child.kill();
            panic!("bench-all did not stop after SIG{signal}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn interrupted_run_removes_its_file_and_stops_its_server() {
    let tmp = temp_dir("interrupt");
    let data = tmp.join("data");
    fs::create_dir_all(&data).unwrap();

    // Ctrl-C during the disk runs: the test file's directory goes.
    let out = tmp.join("disk");
    let (code, stderr) = interrupt_when(
        &["--quick", "--only", "disk", "--dir", data.to_str().unwrap()],
        &out,
        "raw/rfio-randread-4k.csv",
        "INT",
    );
    assert_eq!(code, 130, "{stderr}");
    assert!(stderr.contains("bench-all: interrupted"), "{stderr}");
    let left: Vec<_> = fs::read_dir(&data).unwrap().collect();
    assert!(left.is_empty(), "left in --dir after Ctrl-C: {left:?}");

    // SIGTERM while the loopback server runs: the server goes too.
    let out = tmp.join("net");
    let (code, stderr) = interrupt_when(
        &["--quick", "--only", "net"],
        &out,
        "raw/riperf-tcp.csv",
        "TERM",
    );
    assert_eq!(code, 143, "{stderr}");
    let log = fs::read_to_string(out.join("raw/riperf-server.log")).unwrap();
    let port = log
        .split_whitespace()
        .skip_while(|w| *w != "on")
        .nth(1)
        .unwrap_or_else(|| panic!("no port in the server log:\n{log}"));
    assert_eq!(riperf_servers_on(port), Vec::<String>::new());
    let _ = fs::remove_dir_all(&tmp);
}

#[test]
fn net_runs_against_a_given_iperf3_server() {
    let Some(iperf3) = rbench_tests::original("iperf3") else {
        return;
    };
    let tmp = temp_dir("server");
    // A port from this process's id, away from the ranges other tests pick.
    let port = (61000 + std::process::id() % 4000).to_string();
    let mut server = Command::new(iperf3)
        .args(["-s", "-B", "127.0.0.1", "-p", &port])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start iperf3 -s");
    // bench-all's first client must find it listening: a fixed pause lost
    // that race on a loaded machine.
    let listening = rbench_tests::wait_for(Duration::from_secs(10), || {
        rbench_tests::tcp_listening(port.parse().unwrap())
    });
    if !listening {
        let _ = server.kill();
        panic!("iperf3 -s -p {port} never listened");
    }
    let out = bench_all(
        "sh",
        &target_dir(),
        &[
            "--quick",
            "--only",
            "net",
            "--server",
            "127.0.0.1",
            "--port",
            &port,
            "--out",
            tmp.to_str().unwrap(),
        ],
    );
    let _ = server.kill();
    let _ = server.wait();
    assert_ok(&out);
    let (h, net) = read_csv(&tmp.join("net.csv"));
    check_numbers("net.csv", &h, &net, net_does_not_apply);
    for r in &net {
        assert_eq!(r["server"], format!("127.0.0.1:{port}"));
    }
    let report = fs::read_to_string(tmp.join("report.md")).unwrap();
    assert!(report.contains("given with --server"), "{report}");
    // It started no server of its own.
    assert!(!tmp.join("raw/riperf-server.log").exists());
    let _ = fs::remove_dir_all(&tmp);
}
