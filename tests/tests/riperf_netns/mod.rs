//! Two network namespaces joined by a veth pair, made by a riperf test and
//! deleted when dropped (also when the test fails), so client and server run
//! on separate "hosts" whose link a test can cut, rate-limit (tbf) or send
//! into a black hole. Nothing is added to the root namespace: the veth ends
//! are created directly inside the namespaces. Used by faults_riperf.rs,
//! accuracy_riperf.rs and load_riperf.rs.

#![allow(dead_code)]

use rbench_tests::netns::ip;
use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// The client's address (namespace `…-c`, device `rbc`).
pub const CLIENT_IP: &str = "10.200.0.1";
/// The server's address (namespace `…-s`, device `rbs`).
pub const SERVER_IP: &str = "10.200.0.2";
/// An address on the link that nobody answers: its neighbour entry points
/// at a MAC no one has, so SYNs to it vanish without an error.
pub const BLACK_HOLE_IP: &str = "10.200.0.3";
pub const PORT: u16 = 5201;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Client,
    Server,
}

pub struct NetPair {
    pub client_ns: String,
    pub server_ns: String,
    tmp: PathBuf,
}

impl NetPair {
    /// Make the pair, or None (with a note) where namespaces cannot be made
    /// (not root). `RBENCH_REQUIRE_NETNS=1` turns that into a failure.
    pub fn new(tag: &str) -> Option<NetPair> {
        static N: AtomicU32 = AtomicU32::new(0);
        let n = N.fetch_add(1, Ordering::SeqCst);
        let base = format!("rb-{}-{n}-{tag}", std::process::id());
        let tmp = std::env::temp_dir().join(&base);
        let _ = std::fs::create_dir_all(&tmp);
        let pair = NetPair {
            client_ns: format!("{base}-c"),
            server_ns: format!("{base}-s"),
            tmp,
        };
        match pair.setup() {
            Ok(()) => Some(pair),
            Err(e) => {
                if std::env::var("RBENCH_REQUIRE_NETNS").as_deref() == Ok("1") {
                    panic!("network namespaces are required (RBENCH_REQUIRE_NETNS=1): {e}");
                }
                eprintln!("note: cannot make network namespaces ({e}); skipping this test");
                None
            }
        }
    }

    fn setup(&self) -> Result<(), String> {
        let (c, s) = (self.client_ns.as_str(), self.server_ns.as_str());
        ip(&["netns", "add", c])?;
        ip(&["netns", "add", s])?;
        ip(&[
            "link", "add", "rbc", "netns", c, "type", "veth", "peer", "name", "rbs", "netns", s,
        ])?;
        ip(&[
            "-n",
            c,
            "addr",
            "add",
            &format!("{CLIENT_IP}/24"),
            "dev",
            "rbc",
        ])?;
        ip(&[
            "-n",
            s,
            "addr",
            "add",
            &format!("{SERVER_IP}/24"),
            "dev",
            "rbs",
        ])?;
        for (ns, dev) in [(c, "rbc"), (s, "rbs")] {
            ip(&["-n", ns, "link", "set", "lo", "up"])?;
            ip(&["-n", ns, "link", "set", dev, "up"])?;
        }
        ip(&[
            "-n",
            c,
            "neigh",
            "replace",
            BLACK_HOLE_IP,
            "lladdr",
            "02:00:00:00:00:99",
            "dev",
            "rbc",
            "nud",
            "permanent",
        ])
    }

    pub fn ns(&self, side: Side) -> &str {
        match side {
            Side::Client => &self.client_ns,
            Side::Server => &self.server_ns,
        }
    }

    pub fn dev(side: Side) -> &'static str {
        match side {
            Side::Client => "rbc",
            Side::Server => "rbs",
        }
    }

    /// `program` run inside the namespace of `side` (`ip netns exec` execs
    /// it, so the child's pid is the program's own).
    pub fn cmd(&self, side: Side, program: &Path) -> Command {
        let mut c = Command::new("ip");
        c.args(["netns", "exec", self.ns(side)]).arg(program);
        c
    }

    /// Bring the client's end of the link down or up.
    pub fn link(&self, up: bool) {
        ip(&[
            "-n",
            &self.client_ns,
            "link",
            "set",
            "rbc",
            if up { "up" } else { "down" },
        ])
        .expect("link up/down");
    }

    /// A tbf qdisc on the egress of `side`'s device (inside its namespace).
    pub fn tbf(&self, side: Side, rate: &str, burst: &str, limit: &str) {
        let out = Command::new("ip")
            .args([
                "netns",
                "exec",
                self.ns(side),
                "tc",
                "qdisc",
                "replace",
                "dev",
            ])
            .arg(Self::dev(side))
            .args(["root", "tbf", "rate", rate, "burst", burst, "limit", limit])
            .output()
            .expect("tc");
        assert!(
            out.status.success(),
            "tc qdisc add tbf: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// The root qdisc's counters on `side`: (packets sent, packets dropped).
    pub fn qdisc_counts(&self, side: Side) -> (u64, u64) {
        let out = Command::new("ip")
            .args([
                "netns",
                "exec",
                self.ns(side),
                "tc",
                "-s",
                "qdisc",
                "show",
                "dev",
            ])
            .arg(Self::dev(side))
            .output()
            .expect("tc -s");
        let text = String::from_utf8_lossy(&out.stdout);
        // " Sent 123 bytes 45 pkt (dropped 6, overlimits 7 requeues 0)"
        let line = text
            .lines()
            .find(|l| l.trim_start().starts_with("Sent "))
            .unwrap_or_else(|| panic!("no counters in tc output:\n{text}"));
        let words: Vec<&str> = line.split_whitespace().collect();
        let num = |after: &str| -> u64 {
            let i = words
                .iter()
                .position(|w| *w == after)
                .unwrap_or_else(|| panic!("no `{after}` in {line}"));
            words[i + 1]
                .trim_end_matches(',')
                .parse()
                .unwrap_or_else(|_| panic!("bad number after `{after}` in {line}"))
        };
        let pkts = {
            let i = words.iter().position(|w| *w == "pkt").expect("pkt");
            words[i - 1].parse().expect("pkt count")
        };
        (pkts, num("(dropped"))
    }

    /// Bytes the root qdisc on `side` has passed so far (exact also for
    /// GSO packets, which its packet counters count as one).
    pub fn qdisc_bytes(&self, side: Side) -> u64 {
        let out = Command::new("ip")
            .args([
                "netns",
                "exec",
                self.ns(side),
                "tc",
                "-s",
                "qdisc",
                "show",
                "dev",
            ])
            .arg(Self::dev(side))
            .output()
            .expect("tc -s");
        let text = String::from_utf8_lossy(&out.stdout);
        text.lines()
            .find_map(|l| l.trim_start().strip_prefix("Sent "))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no byte counter in tc output:\n{text}"))
    }

    /// UDP datagrams `side`'s kernel dropped for full socket receive
    /// buffers so far (`Udp: RcvbufErrors` of /proc/net/snmp in its
    /// namespace): a receiver that falls behind loses them after the link.
    pub fn udp_rcvbuf_errors(&self, side: Side) -> u64 {
        let out = Command::new("ip")
            .args(["netns", "exec", self.ns(side), "cat", "/proc/net/snmp"])
            .output()
            .expect("ip netns exec cat /proc/net/snmp");
        let text = String::from_utf8_lossy(&out.stdout);
        let mut udp = text.lines().filter(|l| l.starts_with("Udp: "));
        let (names, values) = (udp.next().unwrap_or(""), udp.next().unwrap_or(""));
        names
            .split_whitespace()
            .zip(values.split_whitespace())
            .find(|(n, _)| *n == "RcvbufErrors")
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or_else(|| panic!("no Udp RcvbufErrors in:\n{text}"))
    }

    /// A file in this pair's scratch directory.
    pub fn file(&self, name: &str) -> PathBuf {
        self.tmp.join(name)
    }

    /// Run `f` on a thread that has joined `side`'s namespace (setns only
    /// moves the calling thread), for hand-made protocol peers.
    pub fn in_ns<T: Send + 'static>(
        &self,
        side: Side,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> std::thread::JoinHandle<T> {
        let path = format!("/var/run/netns/{}", self.ns(side));
        std::thread::spawn(move || {
            let ns = File::open(&path).expect("open netns");
            // SAFETY: setns on an open namespace fd; it moves this thread only.
            let r = unsafe { libc::setns(ns.as_raw_fd(), libc::CLONE_NEWNET) };
            assert_eq!(r, 0, "setns {path}: {}", std::io::Error::last_os_error());
            f()
        })
    }
}

impl Drop for NetPair {
    fn drop(&mut self) {
        // Deleting a namespace removes its veth end; the peer end goes with it.
        let _ = ip(&["netns", "del", &self.client_ns]);
        let _ = ip(&["netns", "del", &self.server_ns]);
        let _ = std::fs::remove_dir_all(&self.tmp);
    }
}

/// A server (ours or iperf3) in the server namespace; killed when dropped.
/// stdout and stderr go to files, so a killed server's lines are kept
/// (`--forceflush` makes iperf3 write its lines as it goes).
pub struct NsServer {
    pub child: Child,
    pub stdout: PathBuf,
    pub stderr: PathBuf,
}

static SPAWNED: AtomicU32 = AtomicU32::new(0);

/// Spawn `cmd` with stdout and stderr in fresh files of the pair's scratch
/// directory, named after `role`.
fn spawn_logged(pair: &NetPair, mut cmd: Command, role: &str) -> (Child, PathBuf, PathBuf) {
    let n = SPAWNED.fetch_add(1, Ordering::SeqCst);
    let stdout = pair.file(&format!("{role}{n}.out"));
    let stderr = pair.file(&format!("{role}{n}.err"));
    let child = cmd
        .stdin(Stdio::null())
        .stdout(File::create(&stdout).expect("stdout file"))
        .stderr(File::create(&stderr).expect("stderr file"))
        .spawn()
        .unwrap_or_else(|e| panic!("spawn {role}: {e}"));
    (child, stdout, stderr)
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_default()
}

impl NsServer {
    pub fn start(pair: &NetPair, bin: &Path, extra: &[&str]) -> NsServer {
        let mut cmd = pair.cmd(Side::Server, bin);
        cmd.args(["-s", "-p", &PORT.to_string(), "--forceflush"])
            .args(extra);
        let (child, stdout, stderr) = spawn_logged(pair, cmd, "server");
        let srv = NsServer {
            child,
            stdout,
            stderr,
        };
        srv.wait_listening();
        srv
    }

    /// Wait (bounded) until the server listens on PORT in its namespace
    /// (its own /proc/<pid>/net/tcp shows that namespace's sockets).
    fn wait_listening(&self) {
        let net = PathBuf::from(format!("/proc/{}/net", self.child.id()));
        assert!(
            wait_for(Duration::from_secs(10), || rbench_tests::tcp_listening_in(
                &net, PORT
            )),
            "server did not listen within 10 s: {}",
            self.stderr_text()
        );
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn stdout_text(&self) -> String {
        read(&self.stdout)
    }

    pub fn stderr_text(&self) -> String {
        read(&self.stderr)
    }

    /// Wait (bounded) until the server's stderr holds `needle`.
    pub fn wait_stderr(&self, needle: &str, limit: Duration) -> bool {
        wait_for(limit, || self.stderr_text().contains(needle))
    }

    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Wait (bounded) for a `-1` server to exit; its status.
    pub fn child_wait(&mut self, limit: Duration) -> Option<i32> {
        let t = Instant::now();
        while t.elapsed() < limit {
            if let Some(s) = self.child.try_wait().expect("try_wait") {
                return s.code();
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        None
    }
}

impl Drop for NsServer {
    fn drop(&mut self) {
        self.kill();
    }
}

pub use rbench_tests::wait_for;

/// A client in the client namespace, started in the background with its
/// output in files; killed when dropped.
pub struct NsClient {
    pub child: Child,
    pub stdout: PathBuf,
    pub stderr: PathBuf,
}

impl NsClient {
    pub fn start(pair: &NetPair, bin: &Path, args: &[&str]) -> NsClient {
        let mut cmd = pair.cmd(Side::Client, bin);
        cmd.args(["-c", SERVER_IP, "-p", &PORT.to_string(), "--forceflush"])
            .args(args);
        let (child, stdout, stderr) = spawn_logged(pair, cmd, "client");
        NsClient {
            child,
            stdout,
            stderr,
        }
    }

    pub fn stdout_text(&self) -> String {
        read(&self.stdout)
    }

    pub fn stderr_text(&self) -> String {
        read(&self.stderr)
    }

    /// Wait (bounded) until the client has printed `n` interval lines.
    pub fn wait_intervals(&self, n: usize, limit: Duration) -> bool {
        wait_for(limit, || {
            self.stdout_text()
                .lines()
                .filter(|l| l.contains(" sec ") && !l.contains("sender") && !l.contains("receiver"))
                .count()
                >= n
        })
    }

    /// Wait (bounded) for the exit status; None if it did not end in time.
    pub fn wait(&mut self, limit: Duration) -> Option<i32> {
        let t = Instant::now();
        while t.elapsed() < limit {
            if let Some(s) = self.child.try_wait().expect("try_wait") {
                return Some(s.code().unwrap_or(128));
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        None
    }
}

impl Drop for NsClient {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Run a client to the end in the client namespace, bounded in time.
pub fn run_client(pair: &NetPair, bin: &Path, args: &[&str], limit: Duration) -> Output {
    rbench_tests::run_bounded(
        pair.cmd(Side::Client, bin)
            .args(["-c", SERVER_IP, "-p", &PORT.to_string()])
            .args(args),
        limit,
    )
}

/// The `iperf3: …` lines of a program's stderr.
pub fn error_lines(stderr: &str) -> Vec<String> {
    stderr
        .lines()
        .filter(|l| l.starts_with("iperf3:"))
        .map(str::to_string)
        .collect()
}

/// Send a signal to a process.
pub fn signal(pid: u32, sig: i32) {
    // SAFETY: kill(2) on a pid this test started.
    unsafe { libc::kill(pid as i32, sig) };
}
