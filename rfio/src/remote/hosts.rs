//! `--client` command lines as fio 3.33's `parse_cmd_line` reads them:
//! which hosts, which job files each gets, which program options are sent
//! to which host, what the client itself does with the rest. No sockets.

use super::protocol as p;
use crate::failure::Failure;

/// Where a client connects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Tcp(std::net::SocketAddr),
    Unix(String),
}

/// One `--client=` host with what it is sent.
#[derive(Debug, Clone)]
pub struct Host {
    /// The host as fio keeps it (without `ip:` and `,port`).
    pub hostname: String,
    pub target: Target,
    pub port: u16,
    /// Job files: (path, on the server's side: `--remote-config`).
    pub files: Vec<(String, bool)>,
    /// Options sent as the JOBLINE (after fio's own `fio`).
    pub argv: Vec<String>,
}

/// The whole client command line.
#[derive(Debug, Default)]
pub struct Setup {
    pub hosts: Vec<Host>,
    /// Job files named apart from any host: every host without its own
    /// gets the first.
    pub shared: Vec<String>,
    pub normal: bool,
    pub json: bool,
    pub json_plus: bool,
    pub terse: bool,
    pub terse_version: u32,
    pub eta_never: bool,
    pub output: Option<String>,
    /// Job options given on the command line: fio parses them into a job
    /// of its own (printing its line) that no host gets.
    pub local_job: Vec<String>,
}

/// True when the command line asks for client mode.
/// A `--version`, `--help`, `--cmdhelp` or `--enghelp` before any
/// `--client` answers and exits as without one (fio acts on it at once).
pub fn wanted(args: &[String]) -> bool {
    fn name(a: &str) -> Option<&str> {
        a.starts_with('-')
            .then(|| a.trim_start_matches('-').split('=').next().unwrap_or(""))
    }
    let first = args
        .iter()
        .skip(1)
        .filter_map(|a| name(a))
        .find(|n| matches!(*n, "client" | "version" | "help" | "cmdhelp" | "enghelp"));
    first == Some("client")
}

/// fio's `fio_server_parse_string` for a client: `sock:PATH`,
/// `[ip:|ip4:|ip6:]host[,port]`, `:port`.
pub fn parse_host(s: &str) -> Result<Host, String> {
    let mk = |hostname: String, target, port| Host {
        hostname,
        target,
        port,
        files: Vec::new(),
        argv: Vec::new(),
    };
    if let Some(path) = s.strip_prefix("sock:") {
        return Ok(mk(path.into(), Target::Unix(path.into()), 0));
    }
    let (v6, rest) = if let Some(r) = s.strip_prefix("ip6:") {
        (true, r)
    } else {
        (
            false,
            s.strip_prefix("ip:")
                .or_else(|| s.strip_prefix("ip4:"))
                .unwrap_or(s),
        )
    };
    let (host, port) = match rest.split_once(',') {
        Some((h, port)) => {
            let n: u32 = atoi(port);
            if n == 0 || n > 65535 {
                return Err(format!("fio: bad server port {n}\n"));
            }
            (h, n as u16)
        }
        None => (rest, p::DEFAULT_PORT),
    };
    let ip = resolve(host, v6)?;
    Ok(mk(
        host.into(),
        Target::Tcp(std::net::SocketAddr::new(ip, port)),
        port,
    ))
}

/// C's atoi: the leading digits, 0 without any.
fn atoi(s: &str) -> u32 {
    let digits: String = s.chars().take_while(|c| c.is_ascii_digit()).collect();
    digits.parse().unwrap_or(u32::MAX)
}

fn resolve(host: &str, v6: bool) -> Result<std::net::IpAddr, String> {
    if let Ok(ip) = host.parse::<std::net::IpAddr>() {
        if ip.is_ipv6() == v6 {
            return Ok(ip);
        }
    }
    use std::net::ToSocketAddrs;
    (host, 0)
        .to_socket_addrs()
        .ok()
        .and_then(|mut a| a.find(|a| a.is_ipv6() == v6))
        .map(|a| a.ip())
        .ok_or_else(|| format!("fio: failed to resolve <{host}> (Name or service not known)\n"))
}

/// Program options fio forwards to the current client (FIO_CLIENT_FLAG).
const FORWARDED: &[&str] = &[
    "output",
    "latency-log",
    "bandwidth-log",
    "minimal",
    "output-format",
    "version",
    "help",
    "cmdhelp",
    "enghelp",
    "showcmd",
    "readonly",
    "eta",
    "eta-interval",
    "eta-newline",
    "debug",
    "parse-only",
    "section",
    "inflate-log",
    "alloc-size",
    "profile",
    "warnings-fatal",
    "max-jobs",
    "terse-version",
    "status-interval",
    "trigger-file",
    "trigger-timeout",
    "trigger",
    "trigger-remote",
    "aux-path",
];

/// Options whose value may be the next argument.
const WITH_VALUE: &[&str] = &[
    "output",
    "output-format",
    "eta",
    "eta-interval",
    "eta-newline",
    "section",
    "terse-version",
    "status-interval",
    "remote-config",
    "client",
    "debug",
    "max-jobs",
    "alloc-size",
    "trigger-file",
    "trigger-timeout",
    "trigger",
    "trigger-remote",
    "aux-path",
];

/// The client command line as fio's `parse_cmd_line` reads it.
pub fn parse_args(args: &[String]) -> Result<Setup, Failure> {
    let mut s = Setup {
        normal: true,
        terse_version: 3,
        ..Setup::default()
    };
    // Hosts sharing the options that follow (fio's arg_list): a host
    // given no options of its own joins the next host's.
    let mut group: Vec<usize> = Vec::new();
    let mut i = 1;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        let Some(body) = arg.strip_prefix("--").or_else(|| arg.strip_prefix('-')) else {
            s.shared.push(arg.clone());
            continue;
        };
        let (name, inline) = match body.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (body, None),
        };
        let mut value = || -> Result<String, Failure> {
            if let Some(v) = &inline {
                return Ok(v.clone());
            }
            let v = args.get(i).cloned().ok_or_else(|| {
                Failure::stderr(format!("fio: option '{arg}' requires an argument\n"))
            })?;
            i += 1;
            Ok(v)
        };
        match name {
            "client" => {
                let v = value()?;
                add_client(&mut s, &mut group, &v)?;
                if std::fs::File::open(&v).is_ok() {
                    continue;
                }
                // Arguments up to the next option: this host's job files.
                while i < args.len() && !args[i].starts_with('-') {
                    let cur = s.hosts.len() - 1;
                    s.hosts[cur].files.push((args[i].clone(), false));
                    i += 1;
                }
            }
            "remote-config" => {
                let v = value()?;
                match s.hosts.last_mut() {
                    Some(h) => h.files.push((v, true)),
                    None => return Err(Failure::stderr(String::new())),
                }
            }
            "server" => {
                return Err(Failure::stderr("fio: can't be both client and server\n"));
            }
            // --- h1: daemonize --- fio's client takes the pid file and
            // uses it for nothing.
            "daemonize" => {
                value()?;
            }
            _ => {
                let v = if WITH_VALUE.contains(&name) {
                    Some(value()?)
                } else {
                    inline.clone()
                };
                local_option(&mut s, name, v.as_deref())?;
                if !FORWARDED.contains(&name) && crate::options::find(name).is_some() {
                    s.local_job.push(arg.clone());
                }
                if FORWARDED.contains(&name) && !s.hosts.is_empty() {
                    let text = match (&inline, &v) {
                        (None, Some(v)) => vec![arg.clone(), v.clone()],
                        _ => vec![arg.clone()],
                    };
                    let cur = s.hosts.len() - 1;
                    for k in group.iter().copied().chain([cur]) {
                        s.hosts[k].argv.extend(text.iter().cloned());
                    }
                }
            }
        }
    }
    Ok(s)
}

fn add_client(s: &mut Setup, group: &mut Vec<usize>, v: &str) -> Result<(), Failure> {
    let names: Vec<String> = match std::fs::read_to_string(v) {
        Ok(text) => text.split_whitespace().map(String::from).collect(),
        Err(_) if std::path::Path::new(v).exists() => {
            return Err(Failure::stderr(format!(
                "fio: could not open client list file {v} for read\n"
            )))
        }
        Err(_) => vec![v.to_string()],
    };
    let from_file = names.len() != 1 || names[0] != v;
    for name in names {
        if let Some(cur) = s.hosts.len().checked_sub(1) {
            if s.hosts[cur].argv.is_empty() {
                group.push(cur);
            } else {
                group.clear();
            }
        }
        match parse_host(&name) {
            Ok(h) => s.hosts.push(h),
            Err(m) => {
                // fio cut the argument at its comma before failing.
                let name = match name.strip_prefix("sock:") {
                    Some(_) => name.as_str(),
                    None => name.split(',').next().unwrap_or(&name),
                };
                let tail = if from_file {
                    format!("fio: failed adding client {name} from file {v}\n")
                } else {
                    format!("fio: failed adding client {name}\n")
                };
                return Err(Failure::stderr(m + &tail));
            }
        }
    }
    Ok(())
}

/// The program options the client itself acts on.
fn local_option(s: &mut Setup, name: &str, v: Option<&str>) -> Result<(), Failure> {
    match (name, v) {
        ("output-format", Some(list)) => {
            s.normal = false;
            for f in list.split(',') {
                match f {
                    "normal" => s.normal = true,
                    "json" => s.json = true,
                    "json+" => {
                        s.json = true;
                        s.json_plus = true
                    }
                    "terse" | "minimal" | "csv" => s.terse = true,
                    _ => {
                        return Err(Failure::stderr(format!(
                            "fio: invalid output format {f}\nfio: failed parsing output-format\n"
                        )))
                    }
                }
            }
        }
        ("minimal", _) => {
            s.normal = false;
            s.terse = true;
        }
        ("terse-version", Some(v)) => {
            s.terse_version = match v.parse() {
                Ok(n @ 2..=5) => n,
                _ => return Err(Failure::stderr("fio: bad terse version format\n")),
            }
        }
        ("eta", Some(v)) => s.eta_never = v == "never",
        ("output", Some(v)) => s.output = Some(v.to_string()),
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        std::iter::once("rfio")
            .chain(list.iter().copied())
            .map(String::from)
            .collect()
    }
    #[test]
    fn client_mode_unless_help_or_version_comes_first() {
        assert!(wanted(&args(&["--client=h", "j.fio"])));
        assert!(wanted(&args(&["-client", "h", "--version"])));
        assert!(!wanted(&args(&["--version", "--client=h"])));
        assert!(!wanted(&args(&["--cmdhelp=bs", "--client=h"])));
        assert!(!wanted(&args(&["--clients=h"])));
        assert!(!wanted(&args(&["client.fio"])));
    }

    #[test]
    fn host_forms() {
        let h = parse_host("127.0.0.1,9000").unwrap();
        assert_eq!(h.hostname, "127.0.0.1");
        assert_eq!(h.target, Target::Tcp("127.0.0.1:9000".parse().unwrap()));
        assert_eq!(parse_host("ip:127.0.0.1").unwrap().port, p::DEFAULT_PORT);
        let v6 = parse_host("ip6:::1,9001").unwrap();
        assert_eq!(v6.target, Target::Tcp("[::1]:9001".parse().unwrap()));
        assert_eq!(
            parse_host("sock:/tmp/f.sock").unwrap().target,
            Target::Unix("/tmp/f.sock".into())
        );
        assert_eq!(
            parse_host("127.0.0.1,0").unwrap_err(),
            "fio: bad server port 0\n"
        );
        assert!(parse_host("127.0.0.1,70000").is_err());
    }

    #[test]
    fn job_files_follow_their_host_and_the_rest_are_shared() {
        let s = parse_args(&args(&[
            "--client=127.0.0.1,1",
            "a.fio",
            "b.fio",
            "--client=127.0.0.1,2",
            "--output-format=json",
            "c.fio",
        ]))
        .unwrap();
        assert_eq!(s.hosts.len(), 2);
        let files = |i: usize| {
            s.hosts[i]
                .files
                .iter()
                .map(|f| f.0.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(files(0), ["a.fio", "b.fio"]);
        assert!(files(1).is_empty());
        assert_eq!(s.shared, ["c.fio"]);
        assert!(s.json && !s.normal);
        // A host with no options of its own gets the next host's.
        assert_eq!(s.hosts[0].argv, ["--output-format=json"]);
        assert_eq!(s.hosts[1].argv, ["--output-format=json"]);
    }

    #[test]
    fn options_before_any_host_stay_local() {
        let s = parse_args(&args(&[
            "--eta=never",
            "--client=127.0.0.1,1",
            "--remote-config=/srv/j.fio",
        ]))
        .unwrap();
        assert!(s.eta_never);
        assert!(s.hosts[0].argv.is_empty());
        assert_eq!(s.hosts[0].files, [("/srv/j.fio".to_string(), true)]);
        assert!(parse_args(&args(&["--remote-config=x"])).is_err());
        assert!(parse_args(&args(&["--client=127.0.0.1", "--server"])).is_err());
        assert!(parse_args(&args(&["--client=127.0.0.1", "--output-format=xml"])).is_err());
    }
}
