//! `--server --daemonize=PIDFILE` beside fio 3.33's: the command returns
//! at once, the pid file names a server in a session of its own with its
//! stdio on /dev/null that serves fio's client and rfio's; SIGINT ends it
//! and removes the file, SIGTERM kills it and leaves the file; a pid file
//! naming a live process (or empty) stops the start, exit 0; one that
//! cannot be written is fio's error, exit 1.

use rbench_tests::rfio::free_port;
use rbench_tests::{original, our_bin, run_bounded, tcp_listening, wait_for};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(60);
const JOB: &str = "[d]\nioengine=null\nsize=4M\nrw=read\nbs=4k\n";

struct Scratch(PathBuf);

impl Scratch {
    fn new(tag: &str) -> Scratch {
        let d = std::env::temp_dir().join(format!("rfio-daemonize-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).expect("mkdir");
        Scratch(d)
    }
    fn path(&self, name: &str) -> String {
        self.0.join(name).to_string_lossy().into_owned()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A process that is there and not a zombie (the daemon's parent is
/// init, which may be slow to reap it).
fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| s.rsplit_once(") ").map(|(_, r)| !r.starts_with('Z')))
        .unwrap_or(false)
}

/// Every process whose command line is exactly `bin --server=ADDR ...`
/// as started here (fio leaves one behind when its pid file fails).
fn servers_on(bin: &Path, server_arg: &str) -> Vec<i32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let args: Vec<&[u8]> = cmd.split(|&b| b == 0).collect();
            args.first() == Some(&bin.as_os_str().as_encoded_bytes())
                && args.get(1) == Some(&server_arg.as_bytes())
        })
        .filter(|&pid| alive(pid))
        .collect()
}

/// Kills the daemons a test started, also when it fails.
struct Reaper(Vec<(PathBuf, String)>);

impl Drop for Reaper {
    fn drop(&mut self) {
        for (bin, arg) in &self.0 {
            for pid in servers_on(bin, arg) {
                // SAFETY: a signal to a server this test started.
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
        }
    }
}

fn daemonize(bin: &Path, server_arg: &str, pidfile: &str) -> Output {
    run_bounded(
        Command::new(bin)
            .arg(server_arg)
            .arg(format!("--daemonize={pidfile}")),
        LIMIT,
    )
}

fn pid_in(pidfile: &str) -> i32 {
    let text = std::fs::read_to_string(pidfile).expect("pid file");
    assert!(
        text.ends_with('\n') && text.trim().len() == text.len() - 1,
        "{text:?}"
    );
    text.trim().parse().expect("a pid")
}

fn fd_target(pid: i32, fd: u32) -> PathBuf {
    std::fs::read_link(format!("/proc/{pid}/fd/{fd}")).unwrap_or_default()
}

/// The session id (field 6 of /proc/PID/stat).
fn session(pid: i32) -> i32 {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let rest = s.rsplit_once(") ").map_or("", |(_, r)| r);
    rest.split(' ')
        .nth(3)
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

fn client_report(client: &Path, port: u16, job: &str) -> String {
    let o = run_bounded(
        Command::new(client)
            .arg("--eta=never")
            .arg(format!("--client=127.0.0.1,{port}"))
            .arg(job),
        LIMIT,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn servers() -> Option<Vec<PathBuf>> {
    let fio = original("fio")?;
    Some(vec![fio, our_bin("rfio")])
}

#[test]
fn a_daemonized_server_serves_both_clients_and_sigint_removes_its_pid_file() {
    let Some(bins) = servers() else { return };
    let dir = Scratch::new("serve");
    let job = dir.path("d.fio");
    std::fs::write(&job, JOB).expect("job");
    for bin in &bins {
        let port = free_port();
        let arg = format!("--server=127.0.0.1,{port}");
        let _reap = Reaper(vec![(bin.clone(), arg.clone())]);
        let pidfile = dir.path("server.pid");
        let o = daemonize(bin, &arg, &pidfile);
        assert_eq!(o.status.code(), Some(0), "{}", bin.display());
        assert!(o.stdout.is_empty() && o.stderr.is_empty(), "{o:?}");
        let pid = pid_in(&pidfile);
        assert!(wait_for(LIMIT, || tcp_listening(port)), "{}", bin.display());
        assert!(alive(pid));
        assert_eq!(session(pid), pid, "{}: its own session", bin.display());
        for fd in 0..3 {
            assert_eq!(fd_target(pid, fd), Path::new("/dev/null"), "fd {fd}");
        }
        for client in &bins {
            let r = client_report(client, port, &job);
            assert!(r.contains("\nd: (groupid=0, jobs=1): err= 0"), "{r}");
        }
        // SAFETY: a signal to the daemon this test started.
        unsafe { libc::kill(pid, libc::SIGINT) };
        assert!(wait_for(LIMIT, || !alive(pid)), "{}", bin.display());
        assert!(
            wait_for(LIMIT, || !Path::new(&pidfile).exists()),
            "{}: pid file left",
            bin.display()
        );
    }
}

#[test]
fn sigterm_kills_a_daemonized_server_and_leaves_its_pid_file() {
    let Some(bins) = servers() else { return };
    let dir = Scratch::new("term");
    for bin in &bins {
        let port = free_port();
        let arg = format!("--server=127.0.0.1,{port}");
        let _reap = Reaper(vec![(bin.clone(), arg.clone())]);
        let pidfile = dir.path("server.pid");
        let _ = std::fs::remove_file(&pidfile);
        assert!(daemonize(bin, &arg, &pidfile).status.success());
        let pid = pid_in(&pidfile);
        assert!(wait_for(LIMIT, || tcp_listening(port)));
        // SAFETY: a signal to the daemon this test started.
        unsafe { libc::kill(pid, libc::SIGTERM) };
        assert!(wait_for(LIMIT, || !alive(pid)), "{}", bin.display());
        assert!(Path::new(&pidfile).exists(), "{}", bin.display());
    }
}

#[test]
fn a_pid_file_naming_a_live_process_stops_the_start_as_fio() {
    let Some(bins) = servers() else { return };
    let dir = Scratch::new("alive");
    let pidfile = dir.path("server.pid");
    // Our own pid (alive), and an empty file (fio cannot read a pid: alive).
    for text in [format!("{}\n", std::process::id()), String::new()] {
        let mut seen = Vec::new();
        for bin in &bins {
            std::fs::write(&pidfile, &text).expect("pid file");
            let port = free_port();
            let arg = format!("--server=127.0.0.1,{port}");
            let _reap = Reaper(vec![(bin.clone(), arg.clone())]);
            let o = daemonize(bin, &arg, &pidfile);
            assert!(!tcp_listening(port) && servers_on(bin, &arg).is_empty());
            assert_eq!(std::fs::read_to_string(&pidfile).ok(), Some(text.clone()));
            seen.push((o.status.code(), o.stdout, o.stderr));
        }
        assert_eq!(seen[0], seen[1], "{text:?}");
        let want = format!("fio: pidfile {pidfile} exists and server appears alive\n");
        assert_eq!(seen[1].2, want.as_bytes(), "{text:?}");
        assert_eq!(seen[1].0, Some(0));
    }
}

#[test]
fn a_pid_file_that_cannot_be_written_fails_as_fio() {
    let Some(bins) = servers() else { return };
    let pidfile = "/nonexistent-rfio-dir/server.pid";
    let mut seen = Vec::new();
    for bin in &bins {
        let port = free_port();
        let arg = format!("--server=127.0.0.1,{port}");
        let _reap = Reaper(vec![(bin.clone(), arg.clone())]);
        let o = daemonize(bin, &arg, pidfile);
        seen.push((o.status.code(), o.stdout, o.stderr));
        if bin.ends_with("rfio") {
            // fio's child goes on serving, unnamed; rfio's is ended.
            assert!(servers_on(bin, &arg).is_empty(), "an rfio server was left");
        }
    }
    assert_eq!(seen[0], seen[1]);
    assert_eq!(seen[1].0, Some(1));
    let want = format!("fio: failed opening pid file {pidfile}\n");
    assert_eq!(seen[1].2, want.as_bytes());
}

#[test]
fn daemonize_without_a_value_is_fios_getopt_error() {
    let Some(bins) = servers() else { return };
    let outs: Vec<Output> = bins
        .iter()
        .map(|b| run_bounded(Command::new(b).arg("--daemonize"), LIMIT))
        .collect();
    let strip = |o: &Output, bin: &Path| {
        String::from_utf8_lossy(&o.stderr).replace(&bin.display().to_string(), "PROG")
    };
    assert_eq!(outs[0].status.code(), outs[1].status.code());
    assert_eq!(strip(&outs[0], &bins[0]), strip(&outs[1], &bins[1]));
    assert!(strip(&outs[1], &bins[1]).contains("Did you mean daemonize?"));
}

#[test]
fn sigint_ends_a_foreground_server_with_exit_0_as_fio() {
    let Some(bins) = servers() else { return };
    let mut codes = Vec::new();
    for bin in &bins {
        let port = free_port();
        let mut child = Command::new(bin)
            .arg(format!("--server=127.0.0.1,{port}"))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("spawn");
        assert!(wait_for(LIMIT, || tcp_listening(port)));
        // SAFETY: a signal to the server this test started.
        unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
        let ended = wait_for(LIMIT, || child.try_wait().ok().flatten().is_some());
        if !ended {
            let _ = child.kill();
        }
        codes.push(child.wait().expect("wait").code());
    }
    assert_eq!(codes, [Some(0), Some(0)]);
}

#[test]
fn a_client_takes_daemonize_and_ignores_it_as_fio() {
    let Some(bins) = servers() else { return };
    let dir = Scratch::new("client");
    let job = dir.path("d.fio");
    std::fs::write(&job, JOB).expect("job");
    let server = rbench_tests::rfio::Server::start(&bins[0]);
    let pidfile = dir.path("client.pid");
    for client in &bins {
        for before in [true, false] {
            let mut cmd = Command::new(client);
            cmd.arg("--eta=never");
            let d = format!("--daemonize={pidfile}");
            if before {
                cmd.arg(&d);
            }
            cmd.arg(server.host());
            if !before {
                cmd.arg(&d);
            }
            let o = run_bounded(cmd.arg(&job), LIMIT);
            let out = String::from_utf8_lossy(&o.stdout);
            assert!(o.status.success(), "{}: {out}", client.display());
            assert!(out.contains("\nd: (groupid=0, jobs=1): err= 0"), "{out}");
            assert!(!Path::new(&pidfile).exists());
        }
    }
}
