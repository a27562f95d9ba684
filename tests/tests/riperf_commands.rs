//! iperf3 3.12's release checklist of flag sets (kept as our own data in
//! tests/data/riperf-commands.txt), each run in four pairings on loopback:
//! riperf -> riperf, riperf -> iperf3, iperf3 -> riperf and iperf3 ->
//! iperf3. The last is the reference: each of the other three must end
//! with the same exit status, print the same text lines (numbers masked)
//! on the client's and the server's stdout and stderr, and, for `-J`, the
//! same JSON key paths. The four pairings of a line run at once, each with
//! a fresh `-s -1` server on its own port, stopped by pid.

use rbench_tests::{mask_numbers, on_threads, original, our_bin, tcp_listening};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU16, Ordering};
use std::time::{Duration, Instant};

/// A client that runs longer than this is killed (the longest line runs
/// 3 s: `-O 2 -t 1`).
const CLIENT_LIMIT: Duration = Duration::from_secs(30);

/// How long a `-1` server may take to end by itself once its client has.
const SERVER_GRACE: Duration = Duration::from_secs(3);

fn flag_sets() -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/riperf-commands.txt");
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(String::from)
        .collect()
}

/// A port nobody else in this run uses: a random base below Linux's
/// ephemeral range, then sequential.
fn port() -> u16 {
    static NEXT: AtomicU16 = AtomicU16::new(0);
    if NEXT.load(Ordering::SeqCst) == 0 {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos() as u64);
        let seed = (std::process::id() as u64 ^ nanos).wrapping_mul(2654435761);
        let _ = NEXT.compare_exchange(
            0,
            20000 + (seed % 10000) as u16,
            Ordering::SeqCst,
            Ordering::SeqCst,
        );
    }
    NEXT.fetch_add(1, Ordering::SeqCst)
}

/// What one side of a run printed.
#[derive(Debug, Default)]
struct Printed {
    code: Option<i32>,
    out: String,
    err: String,
}

/// A `-s -1` server writing to files in a scratch directory.
struct Server {
    child: Child,
    dir: PathBuf,
}

impl Server {
    fn start(bin: &Path, tag: &str) -> (Server, u16) {
        for _ in 0..5 {
            let port = port();
            if tcp_listening(port) {
                continue;
            }
            let dir = std::env::temp_dir().join(format!(
                "riperf-commands-{}-{tag}-{port}",
                std::process::id()
            ));
            std::fs::create_dir_all(&dir).expect("scratch dir");
            let child = Command::new(bin)
                .args(["-s", "-1", "-p", &port.to_string()])
                .stdin(Stdio::null())
                .stdout(std::fs::File::create(dir.join("out")).expect("out"))
                .stderr(std::fs::File::create(dir.join("err")).expect("err"))
                .spawn()
                .expect("spawn server");
            let mut srv = Server { child, dir };
            // Listening, without a probe connection (a client to `-1`).
            let t = Instant::now();
            while !tcp_listening(port)
                && t.elapsed() < Duration::from_secs(5)
                && srv.child.try_wait().ok().flatten().is_none()
            {
                std::thread::sleep(Duration::from_millis(10));
            }
            if tcp_listening(port) && srv.child.try_wait().ok().flatten().is_none() {
                return (srv, port);
            }
            srv.signal(libc::SIGKILL);
        }
        panic!("{bin:?} did not listen on any of 5 ports");
    }

    fn signal(&mut self, sig: i32) {
        if self.child.try_wait().ok().flatten().is_none() {
            // SAFETY: kill(2) on our own child's pid.
            unsafe { libc::kill(self.child.id() as i32, sig) };
        }
    }

    fn ended_within(&mut self, limit: Duration) -> bool {
        let t = Instant::now();
        loop {
            if self.child.try_wait().ok().flatten().is_some() {
                return true;
            }
            if t.elapsed() > limit {
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Let it end by itself, else SIGTERM (what a `-1` server whose client
    /// never connected gets), else SIGKILL; what it printed.
    fn finish(mut self) -> Printed {
        if !self.ended_within(SERVER_GRACE) {
            self.signal(libc::SIGTERM);
            if !self.ended_within(Duration::from_secs(5)) {
                self.signal(libc::SIGKILL);
            }
        }
        let code = self.child.wait().ok().and_then(|s| s.code());
        let read = |f: &str| std::fs::read_to_string(self.dir.join(f)).unwrap_or_default();
        Printed {
            code,
            out: read("out"),
            err: read("err"),
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.signal(libc::SIGKILL);
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Run `client` against a fresh `server` with `flags`; the client's and
/// the server's output.
fn pairing(client: &Path, server: &Path, flags: &[&str], tag: &str) -> (Printed, Printed) {
    let (srv, port) = Server::start(server, tag);
    let host = if flags.contains(&"-6") {
        "::1"
    } else {
        "127.0.0.1"
    };
    let child = Command::new(client)
        .args(["-c", host, "-p", &port.to_string()])
        .args(flags)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn client");
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    let cli = match rx.recv_timeout(CLIENT_LIMIT) {
        Ok(o) => {
            let o = o.expect("wait client");
            Printed {
                code: o.status.code(),
                out: String::from_utf8_lossy(&o.stdout).into_owned(),
                err: String::from_utf8_lossy(&o.stderr).into_owned(),
            }
        }
        Err(_) => {
            // SAFETY: kill(2) on our own child's pid, still unreaped.
            unsafe { libc::kill(pid as i32, libc::SIGKILL) };
            Printed {
                code: None,
                err: format!("(killed after {CLIENT_LIMIT:?})"),
                ..Printed::default()
            }
        }
    };
    (cli, srv.finish())
}

/// Text as lines to compare: the cookie and the clock masked, then every
/// number, unit prefixes folded (KBytes/MBytes, Mbits/Gbits: magnitudes
/// vary), blanks folded; each distinct line once, in the order first seen
/// (how many interval rows a run prints depends on timing).
///
/// Left out: the lines riperf's usage text has of its own (its options
/// and name, marked "riperf" or "(as iperf3 3.17)") and the two of
/// 3.12's that point at esnet's homepage and bug tracker.
fn layout(text: &str) -> Vec<String> {
    let mut seen = Vec::new();
    for line in text.lines() {
        if line.contains("riperf")
            || line.contains("(as iperf3 ")
            || line.starts_with("iperf3 homepage at:")
            || line.starts_with("Report bugs to:")
        {
            continue;
        }
        let line = match (line.find("Cookie: "), line.find("Time: ")) {
            (Some(i), _) => format!("{}Cookie: X", &line[..i]),
            (None, Some(i)) => format!("{}Time: X", &line[..i]),
            _ => line.to_string(),
        };
        let mut l = mask_numbers(&line);
        for p in ["K", "M", "G", "T"] {
            l = l.replace(&format!("{p}Bytes"), "Bytes");
            l = l.replace(&format!("{p}bits"), "bits");
        }
        let l = l.split_whitespace().collect::<Vec<_>>().join(" ");
        if !seen.contains(&l) {
            seen.push(l);
        }
    }
    seen
}

/// Every key path of the JSON document in `text` (what follows its first
/// `{`: 3.12's `-V -J` prints a line ahead), arrays as `[]`.
fn key_paths(text: &str) -> Result<BTreeSet<String>, String> {
    fn walk(v: &Value, path: String, out: &mut BTreeSet<String>) {
        match v {
            Value::Object(m) => m
                .iter()
                .for_each(|(k, x)| walk(x, format!("{path}/{k}"), out)),
            Value::Array(a) => a.iter().for_each(|x| walk(x, format!("{path}[]"), out)),
            _ => {}
        }
        out.insert(path);
    }
    let at = text.find('{').ok_or("no JSON document")?;
    let v: Value = serde_json::from_str(&text[at..]).map_err(|e| e.to_string())?;
    let mut out = BTreeSet::new();
    walk(&v, String::new(), &mut out);
    Ok(out)
}

/// How `got` differs from `want` (empty when it does not).
fn differences(flags: &str, want: &(Printed, Printed), got: &(Printed, Printed)) -> Vec<String> {
    let mut d = Vec::new();
    let json = flags.split_whitespace().any(|f| f == "-J");
    for (side, w, g) in [("client", &want.0, &got.0), ("server", &want.1, &got.1)] {
        if w.code != g.code {
            d.push(format!(
                "{side} exit status {:?}, iperf3 {:?}",
                g.code, w.code
            ));
        }
        let mut streams = vec![("stderr", &w.err, &g.err)];
        if json && side == "client" {
            let (kw, kg) = (key_paths(&w.out), key_paths(&g.out));
            match (&kw, &kg) {
                (Ok(a), Ok(b)) if a != b => d.push(format!(
                    "client JSON key paths: missing {:?}, extra {:?}",
                    a.difference(b).collect::<Vec<_>>(),
                    b.difference(a).collect::<Vec<_>>()
                )),
                (Ok(_), Err(e)) => d.push(format!("client stdout is not JSON ({e})")),
                _ => {}
            }
        } else {
            streams.push(("stdout", &w.out, &g.out));
        }
        for (name, w, g) in streams {
            let (lw, lg) = (layout(w), layout(g));
            if lw != lg {
                let missing: Vec<_> = lw.iter().filter(|l| !lg.contains(l)).collect();
                let extra: Vec<_> = lg.iter().filter(|l| !lw.contains(l)).collect();
                d.push(format!(
                    "{side} {name}: missing {missing:?}, extra {extra:?}{}\n--- iperf3:\n{w}--- this pairing:\n{g}",
                    if missing.is_empty() && extra.is_empty() {
                        " (same lines, another order)"
                    } else {
                        ""
                    }
                ));
            }
        }
    }
    d
}

#[test]
fn release_checklist_flag_sets_in_four_pairings() {
    let Some(iperf3) = original("iperf3") else {
        return;
    };
    let riperf = our_bin("riperf");
    let lines = flag_sets();
    assert_eq!(lines.len(), 34, "the checklist has 34 flag sets");
    let pairings: [(&str, &Path, &Path); 4] = [
        ("iperf3->iperf3", &iperf3, &iperf3),
        ("riperf->riperf", &riperf, &riperf),
        ("riperf->iperf3", &riperf, &iperf3),
        ("iperf3->riperf", &iperf3, &riperf),
    ];
    let mut failures = Vec::new();
    for line in &lines {
        let flags: Vec<&str> = line.split_whitespace().collect();
        let runs = on_threads(&pairings, |(tag, cli, srv)| {
            pairing(cli, srv, &flags, &tag.replace("->", "-"))
        });
        for ((tag, _, _), run) in pairings.iter().zip(&runs).skip(1) {
            for d in differences(line, &runs[0], run) {
                failures.push(format!("`{line}` {tag}: {d}"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} differences from iperf3 -> iperf3:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn layout_masks_what_varies_and_keeps_the_rest() {
    let a = "      Cookie: abc123\n[  5]   0.00-1.00   sec  1.19 GBytes  10.2 Gbits/sec\n\
             [  5]   1.00-2.00   sec   900 MBytes  7.5 Mbits/sec\nTime: Wed, 02 Dec 2026 06:19:51 GMT\n";
    assert_eq!(
        layout(a),
        ["Cookie: X", "[ N] N-N sec N Bytes N bits/sec", "Time: X"]
    );
    // A word that changes is a difference.
    assert_ne!(layout("sender\n"), layout("receiver\n"));
    let p = key_paths("Control connection MSS 1\n{\"a\": [{\"b\": 1}, {\"c\": 2}]}").unwrap();
    assert_eq!(
        p.into_iter().collect::<Vec<_>>(),
        ["", "/a", "/a[]", "/a[]/b", "/a[]/c"]
    );
}
