//! Shared helpers for the integration tests: find our binaries, find the
//! originals (failing, not skipping, when `RBENCH_REQUIRE_ORIGINALS=1`), run
//! commands with a time bound (collected as [`Ran`] or [`Finished`], or
//! required to succeed with [`run_ok`]), run an original and ours side by
//! side ([`run_pair`], [`ours_then_original`]) or cases at once
//! ([`on_threads`]), signal a running tool ([`await_handler`],
//! [`send_signal`], [`kill_tree`]), wait for a state instead of sleeping
//! ([`wait_for`], [`tcp_listening`], [`tcp_established`], [`is_open`]), mask
//! numbers so layouts can be compared, and read JSON. Scratch directories
//! and mounted file systems are in [`fs`]; what the rfio test files share
//! (fio beside rfio, a directory prefix and a bound per file) in [`rfio`].

pub mod fs;
pub mod netns;
pub mod rfio;
pub mod sql;
pub mod sysbench;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// The target directory our binaries were built into (`cargo build` first).
pub fn target_dir() -> PathBuf {
    // Test executables live in target/<profile>/deps/.
    let exe = std::env::current_exe().expect("current_exe");
    exe.parent()
        .and_then(|p| p.parent())
        .expect("target/<profile>")
        .to_path_buf()
}

/// Path of one of our tools; panics with the fix when it was not built.
pub fn our_bin(name: &str) -> PathBuf {
    let p = target_dir().join(name);
    assert!(
        p.exists(),
        "{} not found: run `cargo build --workspace` before `cargo test`",
        p.display()
    );
    p
}

/// Path of an original tool (fio, sysbench, mbw, iperf3, jq) when installed.
/// With `RBENCH_REQUIRE_ORIGINALS=1` a missing original fails the test;
/// otherwise the caller gets `None` and skips the comparison, saying so.
pub fn original(name: &str) -> Option<PathBuf> {
    let found = on_path(name);
    if found.is_none() {
        if std::env::var("RBENCH_REQUIRE_ORIGINALS").as_deref() == Ok("1") {
            panic!("the original `{name}` is required (RBENCH_REQUIRE_ORIGINALS=1) but is not installed");
        }
        eprintln!("note: `{name}` is not installed; skipping the comparison with it");
    }
    found
}

/// A program found on PATH, or `None` (for optional helpers that are not
/// originals, say nothing).
pub fn on_path(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(name))
            .find(|p| p.is_file())
    })
}

/// Our tool `ours` labelled `label`, then the original `original` labelled
/// with its own name when it is installed: the tools a test runs in turn.
pub fn ours_then_original(
    label: &'static str,
    ours: &str,
    original_name: &'static str,
) -> Vec<(&'static str, PathBuf)> {
    let mut v = vec![(label, our_bin(ours))];
    if let Some(p) = original(original_name) {
        v.push((original_name, p));
    }
    v
}

/// Run a command with stdin closed and a wall-clock bound; kill it past the bound.
pub fn run_bounded(cmd: &mut Command, limit: Duration) -> Output {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let start = Instant::now();
    loop {
        if child.try_wait().expect("try_wait").is_some() {
            break;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let out = child.wait_with_output().expect("wait");
            panic!(
                "{cmd:?} ran past {limit:?}; stdout so far:\n{}\nstderr:\n{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    child.wait_with_output().expect("wait")
}

/// Replace every number (integers, decimals, `inf`, `nan`, signs) with `N`,
/// so two outputs with different measurements compare equal when their
/// layout is the same.
pub fn mask_numbers(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let starts_number = c.is_ascii_digit()
            || ((c == b'-' || c == b'+')
                && i + 1 < b.len()
                && (b[i + 1].is_ascii_digit()
                    || s[i + 1..].starts_with("nan")
                    || s[i + 1..].starts_with("inf")));
        let word_start = i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        if starts_number && word_start
            || (word_start
                && (s[i..].starts_with("nan") || s[i..].starts_with("inf"))
                && !s[i..]
                    .get(3..4)
                    .is_some_and(|c| c.chars().all(|c| c.is_ascii_alphanumeric())))
        {
            i += 1;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'.') {
                i += 1;
            }
            out.push('N');
        } else {
            out.push(c as char);
            i += 1;
        }
    }
    out
}

/// `line` with the digits after each `key` replaced by `N` (`pid=N`,
/// `offset=N`): the numbers that differ from run to run in an error line.
pub fn mask_after(line: &str, key: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(i) = rest.find(key) {
        out.push_str(&rest[..i + key.len()]);
        rest = rest[i + key.len()..].trim_start_matches(|c: char| c.is_ascii_digit());
        out.push('N');
    }
    out.push_str(rest);
    out
}

/// fio's (and rfio's) normal output as a layout to compare: numbers masked,
/// blanks collapsed, `avg= N` (fio's `%5.02f` padding) as `avg=N`, latency
/// units as `(U)`; the lines whose number depends on measured values
/// (percentile rows, latency distribution, bw/iops sample lines, which need
/// a 500 ms window) left out.
pub fn fio_layout(s: &str) -> Vec<String> {
    mask_numbers(s)
        .lines()
        .filter(|l| {
            let t = l.trim_start();
            !(t.starts_with('|')
                || (t.starts_with("lat (") && t.contains(")   :"))
                || t.starts_with("bw (")
                || t.starts_with("iops "))
        })
        .map(|l| {
            let l = l.split_whitespace().collect::<Vec<_>>().join(" ");
            let l = l.replace("= N", "=N");
            l.replace("(nsec)", "(U)")
                .replace("(usec)", "(U)")
                .replace("(msec)", "(U)")
        })
        .collect()
}

/// Wait (bounded) until process `pid` has a handler installed for signal
/// `signo` (its SigCgt mask in /proc), so a signal sent next is handled by
/// the tool rather than lost or fatal while it is still starting up on a
/// loaded machine. Returns false if the process ended or the bound passed.
pub fn wait_until_catches(pid: u32, signo: u32, limit: Duration) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else {
            return false;
        };
        let caught = status
            .lines()
            .find_map(|l| l.strip_prefix("SigCgt:"))
            .and_then(|m| u64::from_str_radix(m.trim(), 16).ok())
            .is_some_and(|mask| mask & (1u64 << (signo - 1)) != 0);
        if caught {
            return true;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    false
}

/// How many TCP sockets on local port `port` are in `state` (as
/// /proc/net/tcp writes it: `0A` LISTEN, `01` ESTABLISHED) in the network
/// namespace whose tables are under `net`: `/proc/net` for this process's,
/// or `/proc/<pid>/net` for the namespace process `pid` runs in.
pub fn tcp_sockets_in(net: &Path, port: u16, state: &str) -> usize {
    let needle = format!(":{port:04X}");
    ["tcp", "tcp6"]
        .iter()
        .map(|f| {
            std::fs::read_to_string(net.join(f))
                .unwrap_or_default()
                .lines()
                .filter(|l| {
                    let c: Vec<&str> = l.split_whitespace().collect();
                    // local_address is ADDR:PORT in hex.
                    c.len() > 3 && c[1].ends_with(&needle) && c[3] == state
                })
                .count()
        })
        .sum()
}

/// Whether a TCP socket listens on `port` in the namespace of `net` (see
/// [`tcp_sockets_in`]).
pub fn tcp_listening_in(net: &Path, port: u16) -> bool {
    tcp_sockets_in(net, port, "0A") > 0
}

/// Whether a TCP socket of this network namespace listens on `port`.
pub fn tcp_listening(port: u16) -> bool {
    tcp_listening_in(Path::new("/proc/net"), port)
}

/// How many connections to this namespace's local port `port` are
/// established (a server's side of them, accepted or still queued).
pub fn tcp_established(port: u16) -> usize {
    tcp_sockets_in(Path::new("/proc/net"), port, "01")
}

/// Poll `cond` every 10 ms until it holds or `limit` passes; whether it held.
pub fn wait_for(limit: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let t = Instant::now();
    while t.elapsed() < limit {
        if cond() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    cond()
}

/// `f` on each of `cases`, each on a thread of its own, the results in the
/// cases' order: for runs that sleep most of the time (rate limits, think
/// times, steady-state windows), which then take one run's time, not the sum.
pub fn on_threads<C: Sync, T: Send>(cases: &[C], f: impl Fn(&C) -> T + Sync) -> Vec<T> {
    std::thread::scope(|s| {
        let f = &f;
        let handles: Vec<_> = cases.iter().map(|c| s.spawn(move || f(c))).collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    })
}

/// Whether any process has `file` open (a link in some `/proc/<pid>/fd`).
pub fn is_open(file: &Path) -> bool {
    // The links name the real path: resolve the directory's (a TMPDIR
    // behind a symlink), the file itself may not exist yet.
    let real = file
        .parent()
        .and_then(|d| d.canonicalize().ok())
        .zip(file.file_name())
        .map(|(d, name)| d.join(name));
    let file = real.as_deref().unwrap_or(file);
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return false;
    };
    procs.flatten().any(|p| {
        std::fs::read_dir(p.path().join("fd")).is_ok_and(|fds| {
            fds.flatten()
                .any(|fd| std::fs::read_link(fd.path()).is_ok_and(|l| l == file))
        })
    })
}

/// The number of a signal named as `kill` names it (INT, TERM, KILL, ...).
pub fn signal_number(name: &str) -> u32 {
    match name.trim_start_matches("SIG") {
        "HUP" => 1,
        "INT" => 2,
        "QUIT" => 3,
        "KILL" => 9,
        "USR1" => 10,
        "USR2" => 12,
        "PIPE" => 13,
        "TERM" => 15,
        other => panic!("unknown signal name {other}"),
    }
}

/// Wait (bounded) for a spawned child with piped output, draining its
/// stdout and stderr meanwhile so a child that writes more than a pipe holds
/// cannot block forever; past the bound it is killed and the test fails.
pub fn wait_output_bounded(child: std::process::Child, limit: Duration) -> Output {
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(limit) {
        Ok(out) => out.expect("wait"),
        Err(_) => {
            let _ = Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status();
            panic!("process {pid} did not end within {limit:?}");
        }
    }
}

/// [`wait_output_bounded`], and the process must have exited 0 (its stderr
/// is the failure message otherwise).
pub fn wait_success_bounded(child: std::process::Child, limit: Duration) -> Output {
    let out = wait_output_bounded(child, limit);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Spawn `cmd` with stdin closed and stdout/stderr piped.
pub fn spawn_piped(cmd: &mut Command) -> Child {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn")
}

/// Like [`run_bounded`], but stdout and stderr are drained while it runs,
/// for a command that writes more than a pipe holds.
pub fn run_drained(cmd: &mut Command, limit: Duration) -> Output {
    wait_output_bounded(spawn_piped(cmd), limit)
}

/// Unless `signal` (a `kill` name) is KILL, wait (bounded) until process
/// `pid` has its handler for it in place; fail the test when it never has.
pub fn await_handler(pid: u32, signal: &str, limit: Duration) {
    if signal != "KILL" {
        assert!(
            wait_until_catches(pid, signal_number(signal), limit),
            "process {pid} never caught SIG{signal}"
        );
    }
}

/// Send `signal` (a `kill` name) to `target` (a pid, or `-pgid` for a
/// process group) with kill(1); fail the test when kill fails.
pub fn send_signal(signal: &str, target: &str) {
    let ok = Command::new("kill")
        .args([&format!("-{signal}"), "--", target])
        .status()
        .expect("kill")
        .success();
    assert!(ok, "kill -{signal} {target}");
}

/// The processes whose parent is `pid`, and theirs, and so on.
pub fn descendants(pid: u32) -> Vec<u32> {
    // (pid, ppid) of every process: ppid is the 2nd field after `(comm)`.
    let all: Vec<(u32, u32)> = std::fs::read_dir("/proc")
        .map(|d| {
            d.flatten()
                .filter_map(|e| {
                    let p: u32 = e.file_name().to_str()?.parse().ok()?;
                    let stat = std::fs::read_to_string(e.path().join("stat")).ok()?;
                    let ppid = stat.rsplit(')').next()?.split_whitespace().nth(1)?;
                    Some((p, ppid.parse().ok()?))
                })
                .collect()
        })
        .unwrap_or_default();
    let mut found = vec![pid];
    let mut i = 0;
    while i < found.len() {
        let parent = found[i];
        found.extend(all.iter().filter(|&&(_, pp)| pp == parent).map(|&(p, _)| p));
        i += 1;
    }
    found.remove(0);
    found
}

/// SIGKILL the process group led by `pid` and every process descended from
/// `pid`, also those that left the group: fio's job processes call setsid,
/// and killed with the group alone they ran out their runtime as orphans.
/// The group is stopped first, so that nothing forks while it is looked at.
pub fn kill_tree(pid: u32) {
    send_signal("STOP", &format!("-{pid}"));
    for p in descendants(pid) {
        // SAFETY: kill(2) has no memory arguments.
        unsafe { libc::kill(p as i32, libc::SIGKILL) };
    }
    send_signal("KILL", &format!("-{pid}"));
}

/// Give the child default SIGINT/SIGTERM dispositions. A test run started in
/// the background of a non-interactive shell inherits SIGINT ignored, and a
/// POSIX shell cannot trap a signal that was ignored when it started, so a
/// test that interrupts a shell script must undo that first.
pub fn default_signals(cmd: &mut Command) -> &mut Command {
    use std::os::unix::process::CommandExt;
    // SAFETY: signal(2) is async-signal-safe, as pre_exec requires.
    unsafe {
        cmd.pre_exec(|| {
            libc::signal(libc::SIGINT, libc::SIG_DFL);
            libc::signal(libc::SIGTERM, libc::SIG_DFL);
            Ok(())
        })
    }
}

/// What a finished run printed, and its exit code (-1 when a signal ended it).
pub struct Ran {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

/// Run `bin args` in `dir` with stdin closed, killed past `limit`.
pub fn run_in_dir(bin: &Path, dir: &Path, args: &[&str], limit: Duration) -> Ran {
    run_bounded(&mut command_in(bin, dir, args), limit).into()
}

/// The original, then ours, on the same arguments, each in a fresh
/// directory from [`fs::temp_dir`] (tagged with the tool's name) that
/// `prepare` sets up first; each run, with the directory it ran in. `None`
/// when the original is not installed.
pub fn run_pair(
    original_name: &str,
    ours: &str,
    prefix: &str,
    args: &[&str],
    prepare: &dyn Fn(&Path),
    limit: Duration,
) -> Option<((Ran, PathBuf), (Ran, PathBuf))> {
    let theirs_bin = original(original_name)?;
    let d1 = fs::temp_dir(prefix, original_name);
    let d2 = fs::temp_dir(prefix, ours);
    prepare(&d1);
    prepare(&d2);
    let theirs = run_in_dir(&theirs_bin, &d1, args, limit);
    let ours = run_in_dir(&our_bin(ours), &d2, args, limit);
    Some(((theirs, d1), (ours, d2)))
}

/// What [`run_pair`] returns, each directory now an [`fs::TempDir`] that
/// is removed with its contents when dropped (`run_pair(..).map(dropping_dirs)`).
pub fn dropping_dirs(
    pair: ((Ran, PathBuf), (Ran, PathBuf)),
) -> ((Ran, fs::TempDir), (Ran, fs::TempDir)) {
    let ((theirs, d1), (ours, d2)) = pair;
    ((theirs, d1.into()), (ours, d2.into()))
}

impl From<Output> for Ran {
    fn from(o: Output) -> Ran {
        Ran {
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
            code: o.status.code().unwrap_or(-1),
        }
    }
}

/// What a finished run printed, and its exit code as the system gives it
/// (`None` when a signal ended it, where [`Ran`] has -1).
pub struct Finished {
    pub code: Option<i32>,
    pub out: String,
    pub err: String,
}

impl From<Output> for Finished {
    fn from(o: Output) -> Finished {
        Finished {
            code: o.status.code(),
            out: String::from_utf8_lossy(&o.stdout).into_owned(),
            err: String::from_utf8_lossy(&o.stderr).into_owned(),
        }
    }
}

/// A command for `bin args` in `dir`.
pub fn command_in(bin: &Path, dir: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(bin);
    c.args(args).current_dir(dir);
    c
}

/// Run `bin args` in `dir` with stdin closed, killed past `limit`.
pub fn run_finished(bin: &Path, dir: &Path, args: &[&str], limit: Duration) -> Finished {
    run_bounded(&mut command_in(bin, dir, args), limit).into()
}

/// Run a command like [`run_bounded`]; it must exit 0, or the test fails
/// showing the command, its stdout and its stderr. Returns its stdout.
pub fn run_ok(cmd: &mut Command, limit: Duration) -> String {
    let out = run_bounded(cmd, limit);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{cmd:?} failed ({}):\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// The JSON type of `v` as a word: object, array, string, float (a number
/// serde_json holds as f64), integer, bool or null.
pub fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Object(_) => "object",
        Value::Array(_) => "array",
        Value::String(_) => "string",
        Value::Number(n) if n.is_f64() => "float",
        Value::Number(_) => "integer",
        Value::Bool(_) => "bool",
        Value::Null => "null",
    }
}

/// Every node of a fio-style JSON document as (key path, [`json_kind`]), in
/// document order: `/jobs/[]/read/io_bytes`, or `/jobs/[0]/...` with
/// `indexed`. The keys under `percentile` and `bins` are values (a
/// percentile, a latency), so they are written `*`.
pub fn fio_key_paths(v: &Value, indexed: bool) -> Vec<(String, &'static str)> {
    fn walk(v: &Value, path: &str, indexed: bool, out: &mut Vec<(String, &'static str)>) {
        out.push((path.to_string(), json_kind(v)));
        match v {
            Value::Object(m) => {
                let generic = path.ends_with("/percentile") || path.ends_with("/bins");
                for (k, x) in m {
                    let k = if generic { "*" } else { k.as_str() };
                    walk(x, &format!("{path}/{k}"), indexed, out);
                }
            }
            Value::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    let item = if indexed {
                        format!("[{i}]")
                    } else {
                        "[]".into()
                    };
                    walk(x, &format!("{path}/{item}"), indexed, out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(v, "", indexed, &mut out);
    out
}

/// `s` as one JSON document; fails the test, showing `s`, when it is not.
pub fn parse_json(s: &str) -> Value {
    serde_json::from_str(s).unwrap_or_else(|e| panic!("not one JSON document ({e}):\n{s}"))
}

/// fio's stdout with JSON output split into what it printed ahead of the
/// document (its `fio: pid=...` notices share stdout when that is a pipe)
/// and the document, which must be one.
pub fn fio_json_parts(stdout: &str) -> (&str, Value) {
    let at = stdout.find("{\n").unwrap_or(0);
    (&stdout[..at], parse_json(&stdout[at..]))
}

/// The lines of `out` that start with `prefix` (after indentation), numbers
/// masked.
pub fn masked_lines_starting(out: &str, prefix: &str) -> Vec<String> {
    out.lines()
        .filter(|l| l.trim_start().starts_with(prefix))
        .map(mask_numbers)
        .collect()
}

/// The first unit header of fio's normal output (`j: (groupid=N, jobs=N):
/// err= N`), up to its `: pid=`, numbers masked.
pub fn fio_unit_header(out: &str) -> Option<String> {
    out.lines()
        .find(|l| l.contains("(groupid="))
        .map(|l| mask_numbers(&l[..l.find(": pid=").unwrap_or(l.len())]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_numbers_but_not_words() {
        assert_eq!(
            mask_numbers("0\tMethod: DUMB\tElapsed: 0.00465\tCopy: -nan MiB/s inf x2"),
            "N\tMethod: DUMB\tElapsed: N\tCopy: N MiB/s N x2"
        );
    }

    #[test]
    fn mask_after_masks_only_the_digits_after_the_key() {
        assert_eq!(
            mask_after("fio: pid=123, err=5 offset=4096 x=7", "pid="),
            "fio: pid=N, err=5 offset=4096 x=7"
        );
        assert_eq!(
            mask_after("offset=1 offset=22", "offset="),
            "offset=N offset=N"
        );
    }

    #[test]
    fn fio_json_parts_split_notices_from_the_document() {
        let (ahead, v) = fio_json_parts("fio: pid=12, err=28/file:io_u.c:1\n{\n  \"a\": 1\n}\n");
        assert_eq!(ahead, "fio: pid=12, err=28/file:io_u.c:1\n");
        assert_eq!(v["a"], 1);
        assert_eq!(fio_json_parts("{\n}").0, "");
    }

    #[test]
    fn unit_header_and_lines_starting_mask_numbers() {
        let out = concat!(
            "j: (groupid=0, jobs=2): err= 0: pid=77: Mon\n",
            "  steadystate  : attained=yes, bw=1.5MiB/s\n",
        );
        assert_eq!(
            fio_unit_header(out).as_deref(),
            Some("j: (groupid=N, jobs=N): err= N")
        );
        assert_eq!(fio_unit_header("no header"), None);
        assert_eq!(
            masked_lines_starting(out, "steadystate"),
            ["  steadystate  : attained=yes, bw=N/s"]
        );
    }

    #[test]
    fn key_paths_write_percentile_keys_as_a_star() {
        let v = parse_json(r#"{"jobs": [{"clat": {"percentile": {"50.000000": 7}}, "bw": 1.5}]}"#);
        let all: Vec<(String, &str)> = [
            ("", "object"),
            ("/jobs", "array"),
            ("/jobs/[]", "object"),
            ("/jobs/[]/clat", "object"),
            ("/jobs/[]/clat/percentile", "object"),
            ("/jobs/[]/clat/percentile/*", "integer"),
            ("/jobs/[]/bw", "float"),
        ]
        .iter()
        .map(|&(p, k)| (p.to_string(), k))
        .collect();
        assert_eq!(fio_key_paths(&v, false), all);
        assert_eq!(fio_key_paths(&v, true)[2].0, "/jobs/[0]");
    }
}
