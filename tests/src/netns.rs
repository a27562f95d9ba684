//! A fleet of "hosts", one network namespace each, for tests that drive
//! servers across real links: a client namespace with one veth pair to
//! each host namespace (`10.201.K.1` on the client's end, `10.201.K.2` on
//! host K's, a /30 each), nothing added to the root namespace. Every
//! process started through [`Fleet::spawn`] is killed and every namespace
//! deleted when the fleet is dropped, also when a test fails.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};

/// Run `ip ARGS`; its stderr is the error.
pub fn ip(args: &[&str]) -> Result<(), String> {
    let out = Command::new("ip")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("ip: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "ip {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

pub struct Fleet {
    pub client_ns: String,
    pub host_ns: Vec<String>,
    children: Vec<Child>,
}

impl Fleet {
    /// A client and `hosts` host namespaces, or None (with a note) where
    /// namespaces cannot be made (not root, no `ip`).
    /// `RBENCH_REQUIRE_NETNS=1` turns that into a failure.
    pub fn new(tag: &str, hosts: usize) -> Option<Fleet> {
        static N: AtomicU32 = AtomicU32::new(0);
        let n = N.fetch_add(1, Ordering::SeqCst);
        let base = format!("rbf-{}-{n}-{tag}", std::process::id());
        let mut fleet = Fleet {
            client_ns: format!("{base}-c"),
            host_ns: Vec::new(),
            children: Vec::new(),
        };
        // SAFETY: geteuid has no preconditions.
        let root = unsafe { libc::geteuid() } == 0;
        let made = if root {
            fleet.setup(&base, hosts)
        } else {
            Err("not root".to_string())
        };
        match made {
            Ok(()) => Some(fleet),
            Err(e) => {
                if std::env::var("RBENCH_REQUIRE_NETNS").as_deref() == Ok("1") {
                    panic!("network namespaces are required (RBENCH_REQUIRE_NETNS=1): {e}");
                }
                eprintln!("note: cannot make network namespaces ({e}); skipping this test");
                None
            }
        }
    }

    fn setup(&mut self, base: &str, hosts: usize) -> Result<(), String> {
        let c = self.client_ns.clone();
        ip(&["netns", "add", &c])?;
        ip(&["-n", &c, "link", "set", "lo", "up"])?;
        for k in 0..hosts {
            let h = format!("{base}-h{k}");
            ip(&["netns", "add", &h])?;
            self.host_ns.push(h.clone());
            let cdev = format!("rbc{k}");
            ip(&[
                "link", "add", &cdev, "netns", &c, "type", "veth", "peer", "name", "rbh", "netns",
                &h,
            ])?;
            ip(&[
                "-n",
                &c,
                "addr",
                "add",
                &format!("10.201.{k}.1/30"),
                "dev",
                &cdev,
            ])?;
            ip(&[
                "-n",
                &h,
                "addr",
                "add",
                &format!("{}/30", Fleet::ip(k)),
                "dev",
                "rbh",
            ])?;
            ip(&["-n", &c, "link", "set", &cdev, "up"])?;
            ip(&["-n", &h, "link", "set", "lo", "up"])?;
            ip(&["-n", &h, "link", "set", "rbh", "up"])?;
        }
        Ok(())
    }

    /// Host `k`'s address.
    pub fn ip(k: usize) -> String {
        format!("10.201.{k}.2")
    }

    /// `program` in namespace `ns` (`ip netns exec` execs it: the child's
    /// pid is the program's own).
    pub fn cmd(ns: &str, program: &Path) -> Command {
        let mut c = Command::new("ip");
        c.args(["netns", "exec", ns]).arg(program);
        c
    }

    /// Starts `cmd`, to be killed when the fleet is dropped; its pid.
    pub fn spawn(&mut self, mut cmd: Command, stdout: &Path) -> u32 {
        let out = std::fs::File::create(stdout).expect("stdout file");
        let err = out.try_clone().expect("stderr file");
        let child = cmd
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
            .expect("spawn in a namespace");
        let pid = child.id();
        self.children.push(child);
        pid
    }

    /// Whether the process `pid` (in its own namespace) listens on `port`.
    pub fn listening(pid: u32, port: u16) -> bool {
        crate::tcp_listening_in(&PathBuf::from(format!("/proc/{pid}/net")), port)
    }
}

impl Drop for Fleet {
    fn drop(&mut self) {
        for c in &mut self.children {
            let _ = c.kill();
            let _ = c.wait();
        }
        // What those started inside (fio's server forks one process a
        // connection) lives only in these namespaces: end it too.
        for ns in self.host_ns.iter().chain([&self.client_ns]) {
            let pids = Command::new("ip").args(["netns", "pids", ns]).output();
            let text = pids.map(|o| o.stdout).unwrap_or_default();
            for pid in String::from_utf8_lossy(&text)
                .split_whitespace()
                .filter_map(|p| p.parse::<i32>().ok())
            {
                // SAFETY: a signal to a process in a namespace made here.
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
        }
        for h in &self.host_ns {
            let _ = ip(&["netns", "del", h]);
        }
        let _ = ip(&["netns", "del", &self.client_ns]);
    }
}
