//! What `rfio --server` lets a client do (rfio's own options; fio's server
//! runs whatever any host that reaches its port sends):
//! `--server-allow-from=CIDR` (which peers may connect), `--server-allow-dir=DIR`
//! (where jobs may put files and logs, and which job files `--remote-config`
//! may load) and `--server-no-exec` (no option that runs a command).
//! Refusals are plain text, sent to the client as TEXT with a failing STOP.

use std::net::IpAddr;
use std::path::{Path, PathBuf};

/// One `--server-allow-from` network.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cidr {
    pub net: IpAddr,
    pub bits: u8,
}

impl Cidr {
    /// `ADDR[/BITS]`; an address alone is one host.
    pub fn parse(s: &str) -> Result<Cidr, String> {
        let bad = || format!("rfio: bad --server-allow-from network '{s}' (want ADDR[/BITS])\n");
        let (a, bits) = match s.split_once('/') {
            Some((a, b)) => (a, Some(b.parse::<u8>().map_err(|_| bad())?)),
            None => (s, None),
        };
        let net: IpAddr = a.parse().map_err(|_| bad())?;
        let max = if net.is_ipv4() { 32 } else { 128 };
        let bits = bits.unwrap_or(max);
        if bits > max {
            return Err(bad());
        }
        Ok(Cidr { net, bits })
    }

    pub fn contains(&self, ip: IpAddr) -> bool {
        let ip = match ip {
            IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
            v4 => v4,
        };
        let (net, ip, width) = match (self.net, ip) {
            (IpAddr::V4(n), IpAddr::V4(i)) => {
                (u128::from(u32::from(n)), u128::from(u32::from(i)), 32)
            }
            (IpAddr::V6(n), IpAddr::V6(i)) => (u128::from(n), u128::from(i), 128),
            _ => return false,
        };
        let shift = width - u32::from(self.bits);
        if shift >= 128 {
            return true;
        }
        (net >> shift) == (ip >> shift)
    }
}

/// The server's limits; all empty (false) is fio's open server.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Policy {
    pub allow_from: Vec<Cidr>,
    pub allow_dirs: Vec<PathBuf>,
    pub no_exec: bool,
}

/// Options and engines that run a program (fio's exec_prerun/postrun,
/// the exec engine, engines loaded from a file).
const EXEC_OPTIONS: &[&str] = &["exec_prerun", "exec_postrun", "trigger", "trigger-remote"];

impl Policy {
    pub fn is_open(&self) -> bool {
        self.allow_from.is_empty() && self.allow_dirs.is_empty() && !self.no_exec
    }

    /// The one-time notice of an open server, on stderr at startup.
    pub fn notice(&self) -> Option<&'static str> {
        self.is_open().then_some(
            "rfio: note: any host that can reach this port may run jobs here, as this user, \
             on any file it can write; limit it with --server-allow-from=CIDR, \
             --server-allow-dir=DIR, --server-no-exec\n",
        )
    }

    /// A peer that may not connect: the refusal.
    pub fn check_peer(&self, peer: Option<IpAddr>) -> Result<(), String> {
        if self.allow_from.is_empty() {
            return Ok(());
        }
        match peer {
            Some(ip) if self.allow_from.iter().any(|c| c.contains(ip)) => Ok(()),
            // A unix socket's peer is local: only the file's mode guards it.
            None => Ok(()),
            Some(ip) => Err(format!(
                "rfio: server refuses connections from {ip} (not in --server-allow-from)\n"
            )),
        }
    }

    /// A job file's text and command line: no option that runs a program.
    pub fn check_exec(&self, job_text: &str, args: &[String]) -> Result<(), String> {
        if !self.no_exec {
            return Ok(());
        }
        let lines = job_text
            .lines()
            .map(|l| l.trim().to_string())
            .chain(args.iter().map(|a| a.trim_start_matches('-').to_string()));
        for l in lines {
            let (k, v) = match l.split_once('=') {
                Some((k, v)) => (k.trim().to_string(), v.trim().to_string()),
                None => (l.clone(), String::new()),
            };
            let engine_runs = k == "ioengine" && (v == "exec" || v.starts_with("external"));
            if EXEC_OPTIONS.contains(&k.as_str()) || engine_runs {
                return Err(format!(
                    "rfio: server refuses '{l}' (--server-no-exec: no option that runs a program)\n"
                ));
            }
        }
        Ok(())
    }

    /// A path a job would create or open: it must lie in an allowed
    /// directory (checked on its absolute, `..`-free form).
    pub fn check_path(&self, what: &str, path: &Path) -> Result<(), String> {
        if self.allow_dirs.is_empty() {
            return Ok(());
        }
        let abs = absolute(path);
        if self.allow_dirs.iter().any(|d| abs.starts_with(absolute(d))) {
            return Ok(());
        }
        Err(format!(
            "rfio: server refuses {what} '{}' (outside every --server-allow-dir)\n",
            path.display()
        ))
    }

    /// Every file and log of the parsed jobs.
    pub fn check_jobs(&self, jobs: &[crate::job::Job]) -> Result<(), String> {
        for j in jobs {
            for f in &j.filenames {
                self.check_path("file", f)?;
            }
            let logs = [
                &j.logs.write_bw_log,
                &j.logs.write_iops_log,
                &j.logs.write_lat_log,
                &j.logs.write_hist_log,
            ];
            for l in logs.into_iter().flatten() {
                self.check_path("log", Path::new(l))?;
            }
        }
        Ok(())
    }
}

/// `path` made absolute against the working directory, with `.` and `..`
/// folded (without touching the file system: the file may not exist yet;
/// symlinks inside an allowed directory are the owner's choice).
fn absolute(path: &Path) -> PathBuf {
    use std::path::Component;
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(path)
    };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn networks() {
        let c = Cidr::parse("10.1.0.0/16").unwrap();
        assert!(c.contains("10.1.200.3".parse().unwrap()));
        assert!(!c.contains("10.2.0.1".parse().unwrap()));
        assert!(c.contains("::ffff:10.1.0.9".parse().unwrap()));
        assert!(Cidr::parse("0.0.0.0/0")
            .unwrap()
            .contains("8.8.8.8".parse().unwrap()));
        let h = Cidr::parse("127.0.0.1").unwrap();
        assert!(h.contains("127.0.0.1".parse().unwrap()));
        assert!(!h.contains("127.0.0.2".parse().unwrap()));
        let v6 = Cidr::parse("fd00::/8").unwrap();
        assert!(v6.contains("fd12::1".parse().unwrap()));
        assert!(!v6.contains("fe80::1".parse().unwrap()));
        assert!(Cidr::parse("10.0.0.0/33").is_err());
        assert!(Cidr::parse("nonsense").is_err());
    }

    #[test]
    fn paths_fold_dots_before_the_check() {
        let p = Policy {
            allow_dirs: vec![PathBuf::from("/srv/fio")],
            ..Policy::default()
        };
        assert!(p.check_path("file", Path::new("/srv/fio/a/b")).is_ok());
        assert!(p
            .check_path("file", Path::new("/srv/fio/../etc/passwd"))
            .is_err());
        assert!(p.check_path("file", Path::new("/srv/fiox")).is_err());
        assert!(Policy::default()
            .check_path("file", Path::new("/etc/x"))
            .is_ok());
    }

    #[test]
    fn exec_options_refused_only_with_no_exec() {
        let p = Policy {
            no_exec: true,
            ..Policy::default()
        };
        assert!(p.check_exec("[a]\nexec_prerun=rm -rf /\n", &[]).is_err());
        assert!(p.check_exec("[a]\nioengine = exec\n", &[]).is_err());
        assert!(p
            .check_exec("[a]\nrw=read\n", &["--trigger=x".into()])
            .is_err());
        assert!(p.check_exec("[a]\nrw=read\nioengine=null\n", &[]).is_ok());
        assert!(Policy::default()
            .check_exec("[a]\nexec_prerun=x\n", &[])
            .is_ok());
    }
}
