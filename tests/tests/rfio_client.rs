//! `rfio --client` side by side with fio 3.33's client, against fio's and
//! rfio's servers on loopback: the same report layout (numbers masked) from
//! one host, from two (the `All clients:` sum) and from a mixed fleet; the
//! same JSON keys with `client_stats`, `hostname` and `port`; a server that
//! goes away mid-run; Ctrl-C; a host that cannot be reached.

use rbench_tests::{
    fio_json_parts, fio_key_paths, fio_layout, original, our_bin, run_bounded, wait_for,
};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use rbench_tests::rfio::{fio_lines_only, free_port, Server, CLUSTER};

const JOB: &str = "[cs]\nioengine=null\nsize=16M\nrw=read\nbs=4k\n";
/// For two hosts: long enough that both have said how many reports they
/// will send (START) before the first report comes in, as fio's client
/// needs to sum them (`All clients`).
const JOB2: &str = "[cs]\nioengine=null\nsize=16M\nrw=read\nbs=4k\ntime_based\nruntime=2\n";
/// Runs until stopped (the interrupt test), bounded by its runtime.
const LONG: &str = "[long]\nioengine=null\nsize=16M\nrw=read\nbs=4k\ntime_based\nruntime=30\n";
const LIMIT: Duration = Duration::from_secs(60);

struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let d = std::env::temp_dir().join(format!("rfio-client-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&d).expect("mkdir");
        TempDir(d)
    }
    fn file(&self, name: &str, text: &str) -> String {
        let p = self.0.join(name);
        std::fs::write(&p, text).expect("write");
        p.to_string_lossy().into_owned()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn run(bin: &Path, args: &[String]) -> Output {
    run_bounded(Command::new(bin).arg("--eta=never").args(args), LIMIT)
}

fn text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The layout of a client's output, order aside (hosts answer in any
/// order): fio_layout's lines, sorted, rfio's exact-percentile block left
/// out.
fn sorted_layout(s: &str) -> Vec<String> {
    let mut l = fio_layout(&fio_lines_only(s));
    l.sort();
    l
}

/// The header of rfio's exact cluster percentiles after `All clients`.
#[test]
fn one_host_prints_as_fio_client_from_either_server() {
    let Some(fio) = original("fio") else { return };
    let dir = TempDir::new("one");
    let job = dir.file("cs.fio", JOB);
    for server_bin in [fio.clone(), our_bin("rfio")] {
        let server = Server::start(&server_bin);
        let args = vec![server.host(), job.clone()];
        let theirs = run(&fio, &args);
        let ours = run(&our_bin("rfio"), &args);
        assert!(
            ours.status.success(),
            "{}",
            String::from_utf8_lossy(&ours.stderr)
        );
        assert_eq!(ours.status.code(), theirs.status.code());
        let (t, o) = (text(&theirs), text(&ours));
        assert_eq!(
            fio_layout(&o),
            fio_layout(&t),
            "server {}:\nours:\n{o}\nfio's:\n{t}",
            server_bin.display()
        );
        assert!(o.starts_with("hostname="), "{o}");
        assert!(o.contains("<"), "{o}");
        assert!(o.contains("\ncs: (groupid=0, jobs=1): err= 0"), "{o}");
        assert!(!o.contains("All clients"), "{o}");
    }
}

#[test]
fn mixed_fleet_of_two_prints_all_clients_as_fio_client() {
    let Some(fio) = original("fio") else { return };
    let dir = TempDir::new("two");
    let job = dir.file("cs.fio", JOB2);
    let theirs_srv = Server::start(&fio);
    let ours_srv = Server::start(&our_bin("rfio"));
    let args = vec![theirs_srv.host(), job.clone(), ours_srv.host(), job.clone()];
    let theirs = run(&fio, &args);
    let ours = run(&our_bin("rfio"), &args);
    assert!(
        ours.status.success(),
        "{}",
        String::from_utf8_lossy(&ours.stderr)
    );
    let (t, o) = (text(&theirs), text(&ours));
    assert_eq!(
        sorted_layout(&o),
        sorted_layout(&t),
        "ours:\n{o}\nfio's:\n{t}"
    );
    assert_eq!(o.matches("hostname=").count(), 2, "{o}");
    // The sum comes last, with no percentiles and plain-number rates,
    // then rfio's exact cluster percentiles.
    let all = &o[o.find("All clients: (groupid=0, jobs=2)").expect(&o)..];
    assert!(all.contains("BW=") && !all.contains("B/s ("), "{all}");
    let (fio_part, ours_part) = all.split_at(all.find(CLUSTER).expect(all));
    assert!(!fio_part.contains("percentiles"), "{all}");
    assert!(!all.contains("Run status"), "{all}");
    assert!(
        ours_part.contains("\n  read:\n    clat percentiles ("),
        "{all}"
    );
    assert!(!t.contains(CLUSTER), "{t}");
}

/// rfio's exact cluster percentiles of three hosts (two fio servers, one
/// rfio server): the JSON ones equal those `rfio --merge` computes from
/// the union of the hosts' json+ bins, each lies between the hosts' own
/// (fio's servers' percentiles among them), and the text block shows the
/// same values after fio's `All clients` block.
#[test]
fn all_clients_percentiles_are_those_of_the_union_of_the_hosts() {
    let Some(fio) = original("fio") else { return };
    let dir = TempDir::new("exact");
    let job = dir.file(
        "cs.fio",
        "[cs]\nioengine=null\nsize=16M\nrw=randrw\nbs=4k\ntime_based\nruntime=2\n",
    );
    let servers = [
        Server::start(&fio),
        Server::start(&our_bin("rfio")),
        Server::start(&fio),
    ];
    let mut args = vec!["--output-format=normal,json+".to_string()];
    for s in &servers {
        args.push(s.host());
        args.push(job.clone());
    }
    // json+ of three hosts outgrows a pipe: read it as it comes.
    let out = rbench_tests::run_drained(
        Command::new(our_bin("rfio")).arg("--eta=never").args(&args),
        LIMIT,
    );
    let o = text(&out);
    assert!(out.status.success(), "{o}");
    let (pre, doc) = rbench_tests::fio_json_parts(&o);
    let stats = doc["client_stats"].as_array().expect("client_stats");
    assert_eq!(stats.len(), 4, "{o}");
    let exact = &stats[3]["rbench_cluster_percentiles"];
    // The oracle: rfio --merge over the same document's per-host entries.
    let saved = dir.file("client.json", &o[pre.len()..]);
    let merged = rbench_tests::run_drained(
        Command::new(our_bin("rfio")).args(["--merge".to_string(), saved]),
        LIMIT,
    );
    let merged: serde_json::Value = serde_json::from_slice(&merged.stdout).expect("merge output");
    let block = &pre[pre.find(CLUSTER).expect(pre)..];
    assert!(
        pre[..pre.len() - block.len()].contains("\nAll clients: (groupid=0, jobs=3)"),
        "{pre}"
    );
    for d in ["read", "write"] {
        let ours = &exact[d]["clat_ns"];
        let want = &merged["jobs"][0][d]["clat_ns"];
        assert_eq!(ours["percentile"], want["percentile"], "{d}: {o}");
        let n: u64 = stats[..3]
            .iter()
            .map(|s| s[d]["clat_ns"]["N"].as_u64().unwrap_or(0))
            .sum();
        assert!(n > 0);
        assert_eq!(ours["N"].as_u64(), Some(n), "{d}");
        let pcts = ours["percentile"].as_object().expect("percentiles");
        assert_eq!(pcts.len(), 17, "fio's default list: {o}");
        for (p, v) in pcts {
            let v = v.as_u64().expect("value");
            let hosts: Vec<u64> = stats[..3]
                .iter()
                .map(|s| s[d]["clat_ns"]["percentile"][p].as_u64().expect(p))
                .collect();
            let (lo, hi) = (hosts.iter().min(), hosts.iter().max());
            assert!(Some(&v) >= lo && Some(&v) <= hi, "{d} {p}: {v} {hosts:?}");
        }
        // The text block: the same values in the unit it names.
        let at = block.find(&format!("  {d}:\n")).expect(block);
        let sub = &block[at..];
        let unit = &sub[sub.find("percentiles (").expect(sub) + 13..][..4];
        let div = match unit {
            "nsec" => 1,
            "usec" => 1000,
            _ => 1_000_000,
        };
        let first = sub.find("th=[").expect(sub) + 4;
        let shown: u64 = sub[first..sub[first..].find(']').expect(sub) + first]
            .trim()
            .parse()
            .expect("value");
        let p1 = pcts["1.000000"].as_u64().expect("p1");
        assert_eq!(shown, p1.div_ceil(div), "{d}: {block}");
    }
}

#[test]
fn host_list_file_sends_the_shared_job_to_every_host() {
    let Some(fio) = original("fio") else { return };
    let dir = TempDir::new("list");
    let job = dir.file("cs.fio", JOB2);
    let a = Server::start(&our_bin("rfio"));
    let b = Server::start(&fio);
    let list = dir.file(
        "hosts",
        &format!("127.0.0.1,{}\n127.0.0.1,{}\n", a.port, b.port),
    );
    let args = vec![format!("--client={list}"), job];
    let theirs = run(&fio, &args);
    let ours = run(&our_bin("rfio"), &args);
    let (t, o) = (text(&theirs), text(&ours));
    assert_eq!(
        sorted_layout(&o),
        sorted_layout(&t),
        "ours:\n{o}\nfio's:\n{t}"
    );
    assert_eq!(o.matches("\ncs: (groupid=0").count(), 2, "{o}");
    assert!(o.contains("All clients: (groupid=0, jobs=2)"), "{o}");
}

#[test]
fn json_has_fio_clients_keys_hostname_and_port() {
    let Some(fio) = original("fio") else { return };
    let dir = TempDir::new("json");
    let job = dir.file("cs.fio", JOB2);
    let a = Server::start(&fio);
    let b = Server::start(&our_bin("rfio"));
    for fmt in ["json", "json+"] {
        let args = vec![
            format!("--output-format={fmt}"),
            a.host(),
            job.clone(),
            b.host(),
            job.clone(),
        ];
        let (to, oo) = (run(&fio, &args), run(&our_bin("rfio"), &args));
        let (t, o) = (text(&to), text(&oo));
        let ((tpre, tv), (opre, ov)) = (fio_json_parts(&t), fio_json_parts(&o));
        // The servers' text still comes first, `<host>`-prefixed.
        let lines = |s: &str| {
            let mut v: Vec<String> = s.lines().map(String::from).collect();
            v.sort();
            v
        };
        assert_eq!(lines(opre), lines(tpre));
        // rfio's one extra key (its exact cluster percentiles) aside.
        let paths = |v: &serde_json::Value| {
            let mut p: Vec<(String, &str)> = fio_key_paths(v, false);
            p.retain(|(k, _)| !k.contains("/rbench_cluster_percentiles"));
            p.sort();
            p.dedup();
            p
        };
        assert_eq!(paths(&ov), paths(&tv), "{fmt}: ours:\n{o}\nfio's:\n{t}");
        let stats = ov["client_stats"].as_array().expect("client_stats");
        assert_eq!(stats.len(), 3, "{o}");
        let mut ports: Vec<u64> = stats[..2]
            .iter()
            .map(|s| s["port"].as_u64().unwrap_or(0))
            .collect();
        ports.sort();
        let mut want = vec![u64::from(a.port), u64::from(b.port)];
        want.sort();
        assert_eq!(ports, want);
        assert_eq!(stats[2]["jobname"], "All clients");
        assert!(
            stats[2]["rbench_cluster_percentiles"]["read"]["clat_ns"]["percentile"].is_object()
        );
        assert!(tv["client_stats"][2]
            .get("rbench_cluster_percentiles")
            .is_none());
        assert_eq!(stats[0]["hostname"], "127.0.0.1");
        assert!(ov.get("timestamp_ms").is_none() && ov.get("jobs").is_none());
    }
}

#[test]
fn terse_lines_match_fio_client() {
    let Some(fio) = original("fio") else { return };
    let dir = TempDir::new("terse");
    let job = dir.file("cs.fio", JOB2);
    let a = Server::start(&fio);
    let b = Server::start(&our_bin("rfio"));
    let args = vec![
        "--output-format=terse".into(),
        a.host(),
        job.clone(),
        b.host(),
        job,
    ];
    let (t, o) = (text(&run(&fio, &args)), text(&run(&our_bin("rfio"), &args)));
    let terse = |s: &str| {
        let mut v: Vec<String> = s
            .lines()
            .filter(|l| l.starts_with("3;"))
            .map(rbench_tests::mask_numbers)
            .collect();
        v.sort();
        v
    };
    assert_eq!(terse(&o), terse(&t), "ours:\n{o}\nfio's:\n{t}");
    assert_eq!(terse(&o).len(), 3, "{o}");
}

/// A "server" that answers nothing and hangs up once it has read the job
/// (it serves two clients: fio's, then rfio's).
fn hangs_up() -> (u16, std::thread::JoinHandle<()>) {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = l.local_addr().expect("addr").port();
    let h = std::thread::spawn(move || {
        for _ in 0..2 {
            let Ok((mut s, _)) = l.accept() else { return };
            // Everything the client sends (probe, job, run), then quiet:
            // hanging up earlier kills fio's client with SIGPIPE.
            let _ = s.set_read_timeout(Some(Duration::from_secs(2)));
            let mut b = [0u8; 4096];
            while matches!(s.read(&mut b), Ok(n) if n > 0) {}
        }
    });
    (port, h)
}

#[test]
fn a_server_that_goes_away_is_reported_and_the_others_print() {
    let Some(fio) = original("fio") else { return };
    let dir = TempDir::new("gone");
    let job = dir.file("cs.fio", JOB);
    let good = Server::start(&our_bin("rfio"));
    let (port, h) = hangs_up();
    let mut outs = Vec::new();
    for bin in [fio.clone(), our_bin("rfio")] {
        let args = vec![
            format!("--client=127.0.0.1,{port}"),
            job.clone(),
            good.host(),
            job.clone(),
        ];
        outs.push(run(&bin, &args));
    }
    let _ = h.join();
    let (theirs, ours) = (&outs[0], &outs[1]);
    assert_eq!(ours.status.code(), theirs.status.code());
    assert_eq!(ours.status.code(), Some(1));
    let (t, o) = (text(theirs), text(ours));
    for s in [&t, &o] {
        assert!(s.contains("client: host=127.0.0.1 disconnected\n"), "{s}");
        assert!(s.contains("\ncs: (groupid=0, jobs=1): err= 0"), "{s}");
    }
    assert_eq!(
        sorted_layout(&o),
        sorted_layout(&t),
        "ours:\n{o}\nfio's:\n{t}"
    );
}

#[test]
fn an_unreachable_host_fails_as_with_fio() {
    let Some(fio) = original("fio") else { return };
    let dir = TempDir::new("refused");
    let job = dir.file("cs.fio", JOB);
    let port = free_port();
    for host in [
        format!("127.0.0.1,{port}"),
        "127.0.0.1,0".into(),
        "127.0.0.1,99999".into(),
        "no-such-host.invalid".into(),
    ] {
        let args = vec![format!("--client={host}"), job.clone()];
        let (t, o) = (run(&fio, &args), run(&our_bin("rfio"), &args));
        assert_eq!(o.status.code(), t.status.code(), "{host}");
        assert_eq!(o.status.code(), Some(1), "{host}");
        assert_eq!(
            String::from_utf8_lossy(&o.stderr),
            String::from_utf8_lossy(&t.stderr),
            "{host}"
        );
        assert_eq!(text(&o), text(&t), "{host}");
    }
}

#[test]
fn interrupted_client_stops_the_servers_and_prints_what_ran() {
    if original("fio").is_none() {
        return;
    }
    let dir = TempDir::new("int");
    let job = dir.file("long.fio", LONG);
    for server_bin in [original("fio").expect("fio"), our_bin("rfio")] {
        let server = Server::start(&server_bin);
        let out_path = dir.0.join("out.txt");
        let out = std::fs::File::create(&out_path).expect("out");
        let child = rbench_tests::default_signals(
            Command::new(our_bin("rfio"))
                .arg(server.host())
                .arg(&job)
                .stdin(Stdio::null())
                .stdout(out)
                .stderr(Stdio::null()),
        )
        .spawn()
        .expect("spawn client");
        // Running: the server's ETA answer says so (then some I/O is done).
        let started = wait_for(Duration::from_secs(20), || {
            std::fs::read_to_string(&out_path).is_ok_and(|s| s.contains("Jobs: 1 (f=1)"))
        });
        // Twice, as an impatient user would: fio's client does not give up.
        for _ in 0..2 {
            // SAFETY: kill(2) on our own child.
            unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
            std::thread::sleep(Duration::from_millis(100));
        }
        let status = rbench_tests::wait_output_bounded(child, LIMIT).status;
        let o = std::fs::read_to_string(&out_path).unwrap_or_default();
        assert!(started, "{o}");
        assert_eq!(status.code(), Some(0), "{o}");
        assert!(o.contains("long: (groupid=0, jobs=1): err= 0"), "{o}");
        let run_ms: u64 = o
            .split("run=")
            .nth(1)
            .and_then(|r| r.split('-').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(u64::MAX);
        assert!(run_ms < 30_000, "ran its whole runtime:\n{o}");
    }
}

/// rfio's server limits, refused as an error the client shows (fio's
/// client and ours alike): the text `<host>`-prefixed, `client <host>:
/// exited with error 1`, exit status 1, nothing run.
fn refused(client: &Path, args: &[String], why: &str) {
    let o = run(client, args);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{}: {t}", client.display());
    assert!(
        t.contains(why),
        "{}: wanted {why:?} in:\n{t}",
        client.display()
    );
    assert!(
        t.contains("client <127.0.0.1>: exited with error 1\n"),
        "{t}"
    );
    assert!(!t.contains("(groupid="), "{t}");
}

fn clients() -> Vec<PathBuf> {
    original("fio")
        .into_iter()
        .chain([our_bin("rfio")])
        .collect()
}

#[test]
fn server_allow_from_refuses_other_peers() {
    let dir = TempDir::new("from");
    let job = dir.file("cs.fio", JOB);
    let err = dir.0.join("server.err");
    let s = Server::start_with(
        &our_bin("rfio"),
        &["--server-allow-from=10.0.0.0/8".into()],
        Some(&err),
    );
    for c in clients() {
        refused(
            &c,
            &[s.host(), job.clone()],
            "<127.0.0.1> rfio: server refuses connections from 127.0.0.1 (not in --server-allow-from)\n",
        );
    }
    let ok = Server::start_with(
        &our_bin("rfio"),
        &["--server-allow-from=127.0.0.0/8".into()],
        None,
    );
    let o = run(&our_bin("rfio"), &[ok.host(), job]);
    assert!(
        o.status.success() && text(&o).contains("\ncs: (groupid=0"),
        "{}",
        text(&o)
    );
    // A limited server prints no open-server notice.
    let e = std::fs::read_to_string(&err).unwrap_or_default();
    assert!(!e.contains("any host"), "{e}");
    assert!(
        Command::new(our_bin("rfio"))
            .args(["--server=127.0.0.1,1", "--server-allow-from=10.0.0.0/40"])
            .output()
            .is_ok_and(|o| !o.status.success()
                && String::from_utf8_lossy(&o.stderr).contains("bad --server-allow-from")),
        "a bad network is refused at startup"
    );
}

#[test]
fn server_allow_dir_keeps_files_logs_and_job_files_inside() {
    let dir = TempDir::new("dirs");
    let inside = dir.0.join("inside");
    std::fs::create_dir_all(&inside).expect("mkdir");
    let outside = dir.0.join("outside-data");
    let bad = dir.file(
        "bad.fio",
        &format!(
            "[w]\nioengine=sync\nrw=write\nsize=64k\nfilename={}\n",
            outside.display()
        ),
    );
    let sneaky = dir.file(
        "sneaky.fio",
        &format!(
            "[w]\nioengine=sync\nrw=write\nsize=64k\nfilename={}/../outside-data\n",
            inside.display()
        ),
    );
    let log = dir.file(
        "log.fio",
        &format!(
            "[w]\nioengine=null\nsize=64k\nfilename={}/d\nwrite_bw_log={}/bw\n",
            inside.display(),
            dir.0.display()
        ),
    );
    let good = dir.file(
        "good.fio",
        &format!(
            "[w]\nioengine=sync\nrw=write\nsize=64k\nfilename={}/d\n",
            inside.display()
        ),
    );
    let s = Server::start_with(
        &our_bin("rfio"),
        &[format!("--server-allow-dir={}", inside.display())],
        None,
    );
    for c in clients() {
        refused(
            &c,
            &[s.host(), bad.clone()],
            "(outside every --server-allow-dir)\n",
        );
        refused(
            &c,
            &[s.host(), sneaky.clone()],
            "(outside every --server-allow-dir)\n",
        );
        refused(&c, &[s.host(), log.clone()], "rfio: server refuses log '");
        refused(
            &c,
            &[s.host(), "--remote-config=/etc/passwd".into()],
            "rfio: server refuses job file '/etc/passwd' (outside every --server-allow-dir)\n",
        );
        let o = run(&c, &[s.host(), good.clone()]);
        assert!(o.status.success(), "{}", text(&o));
        assert!(text(&o).contains("\nw: (groupid=0"), "{}", text(&o));
    }
    assert!(!outside.exists(), "a refused job wrote outside");
    assert_eq!(
        std::fs::metadata(inside.join("d")).map(|m| m.len()).ok(),
        Some(65536)
    );
}

#[test]
fn server_no_exec_refuses_options_that_run_programs() {
    let dir = TempDir::new("exec");
    let mark = dir.0.join("ran");
    let job = dir.file(
        "ex.fio",
        &format!(
            "[x]\nioengine=null\nsize=64k\nexec_prerun=touch {}\n",
            mark.display()
        ),
    );
    let s = Server::start_with(&our_bin("rfio"), &["--server-no-exec".into()], None);
    for c in clients() {
        refused(
            &c,
            &[s.host(), job.clone()],
            "(--server-no-exec: no option that runs a program)\n",
        );
    }
    assert!(!mark.exists());
}

#[test]
fn an_open_server_says_once_who_may_run_jobs() {
    let dir = TempDir::new("notice");
    let job = dir.file("cs.fio", JOB);
    let err = dir.0.join("server.err");
    let s = Server::start_with(&our_bin("rfio"), &[], Some(&err));
    for _ in 0..2 {
        assert!(run(&our_bin("rfio"), &[s.host(), job.clone()])
            .status
            .success());
    }
    let e = std::fs::read_to_string(&err).unwrap_or_default();
    assert_eq!(
        e.matches("any host that can reach this port may run jobs")
            .count(),
        1,
        "{e}"
    );
    assert!(e.contains("--server-allow-from=CIDR"), "{e}");
}

#[test]
fn remote_config_loads_a_job_file_on_the_server() {
    let Some(fio) = original("fio") else { return };
    let dir = TempDir::new("remote");
    let job = dir.file("cs.fio", JOB);
    for server_bin in [fio.clone(), our_bin("rfio")] {
        let s = Server::start(&server_bin);
        let args = vec![s.host(), format!("--remote-config={job}")];
        let (t, o) = (run(&fio, &args), run(&our_bin("rfio"), &args));
        assert!(o.status.success(), "{}", text(&o));
        assert_eq!(fio_layout(&text(&o)), fio_layout(&text(&t)));
    }
}

#[test]
fn a_server_killed_mid_run_is_reported_and_the_other_host_prints() {
    let Some(fio) = original("fio") else { return };
    let dir = TempDir::new("killed");
    let long = dir.file("long.fio", LONG);
    let short = dir.file("cs.fio", JOB2);
    for dying_bin in [our_bin("rfio"), fio.clone()] {
        for client in [fio.clone(), our_bin("rfio")] {
            let dying = Server::start(&dying_bin);
            let other = Server::start(&fio);
            let out_path = dir.0.join("out.txt");
            let out = std::fs::File::create(&out_path).expect("out");
            let child = Command::new(&client)
                .args([dying.host(), long.clone(), other.host(), short.clone()])
                .stdin(Stdio::null())
                .stdout(out)
                .stderr(Stdio::null())
                .spawn()
                .expect("spawn client");
            // The other host's report is in (it quit; an ETA line may end
            // just before it, on a \r); the long job runs on.
            let reported = wait_for(Duration::from_secs(30), || {
                std::fs::read_to_string(&out_path)
                    .is_ok_and(|s| s.contains("cs: (groupid=0, jobs=1)"))
            });
            // The server and its connection's process (fio's forks one that
            // outlives its parent).
            let pid = dying.child.id();
            for p in rbench_tests::descendants(pid).into_iter().chain([pid]) {
                // SAFETY: kill(2) on processes this test started.
                unsafe { libc::kill(p as i32, libc::SIGKILL) };
            }
            let status = rbench_tests::wait_output_bounded(child, LIMIT).status;
            let o = std::fs::read_to_string(&out_path).unwrap_or_default();
            let who = format!("{} -> {}", client.display(), dying_bin.display());
            assert!(reported, "{who}:\n{o}");
            assert_eq!(status.code(), Some(1), "{who}:\n{o}");
            assert!(
                o.contains("client: host=127.0.0.1 disconnected\n"),
                "{who}:\n{o}"
            );
            assert!(!o.contains("long: (groupid="), "{who}:\n{o}");
            assert!(!o.contains("All clients"), "{who}:\n{o}");
        }
    }
}

/// Two reporting groups: a group_reporting unit of two clones (mixed
/// directions), then a stonewalled job with a description.
const MULTI: &str = "[global]\nioengine=null\nsize=8M\nbs=4k\n\
    [a]\nrw=randrw\nnumjobs=2\ngroup_reporting\n\
    [b]\nstonewall\nrw=write\ndescription=second job\n";

#[test]
fn groups_clones_and_job_options_as_fio_client() {
    let Some(fio) = original("fio") else { return };
    let dir = TempDir::new("multi");
    let job = dir.file("multi.fio", MULTI);
    for server_bin in [fio.clone(), our_bin("rfio")] {
        let s = Server::start(&server_bin);
        let normal = vec![s.host(), job.clone()];
        let (t, o) = (
            text(&run(&fio, &normal)),
            text(&run(&our_bin("rfio"), &normal)),
        );
        assert_eq!(
            fio_layout(&fio_lines_only(&o)),
            fio_layout(&t),
            "ours:\n{o}\nfio's:\n{t}"
        );
        // Two units from one host: fio's client sums them too.
        assert!(o.contains("All clients: (groupid=1, jobs=2)"), "{o}");
        let json = vec!["--output-format=json".into(), s.host(), job.clone()];
        let (t, o) = (text(&run(&fio, &json)), text(&run(&our_bin("rfio"), &json)));
        let ((_, tv), (_, ov)) = (fio_json_parts(&t), fio_json_parts(&o));
        assert_eq!(ov["global options"], tv["global options"]);
        let opts = |v: &serde_json::Value| {
            v["client_stats"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .map(|u| (u["jobname"].clone(), u["job options"].clone()))
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        };
        assert_eq!(opts(&ov), opts(&tv), "ours:\n{o}\nfio's:\n{t}");
        assert_eq!(ov["client_stats"][1]["desc"], "second job");
    }
}

#[test]
fn unix_socket_servers_as_fio_client() {
    let Some(fio) = original("fio") else { return };
    let dir = TempDir::new("sock");
    let job = dir.file("cs.fio", JOB);
    for (k, server_bin) in [fio.clone(), our_bin("rfio")].iter().enumerate() {
        let path = dir.0.join(format!("s{k}.sock"));
        let child = Command::new(server_bin)
            .arg(format!("--server=sock:{}", path.display()))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn server");
        let _guard = Server { child, port: 0 };
        assert!(wait_for(Duration::from_secs(10), || {
            std::os::unix::net::UnixStream::connect(&path).is_ok()
        }));
        let args = vec![format!("--client=sock:{}", path.display()), job.clone()];
        let (t, o) = (run(&fio, &args), run(&our_bin("rfio"), &args));
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(fio_layout(&text(&o)), fio_layout(&text(&t)));
    }
}

#[test]
fn job_logs_from_a_fio_server_are_written_here_as_fio_client_writes_them() {
    let Some(fio) = original("fio") else { return };
    let dir = TempDir::new("logs");
    let lat = dir.file(
        "lg.fio",
        "[lg]\nioengine=null\nsize=16M\nrw=read\nbs=4k\nwrite_bw_log=lg\nwrite_lat_log=lg\n",
    );
    // log_offset rows are 40 bytes: fio's client writes nr_samples x 32
    // bytes' worth of them (204 of 256).
    let off = dir.file(
        "lo.fio",
        "[lo]\nioengine=null\nsize=1M\nrw=randread\nbs=4k\nwrite_iops_log=lo\nlog_offset=1\n",
    );
    let s = Server::start(&fio);
    // The logs one client run leaves in a fresh directory.
    let listing = |client: &std::path::Path, tag: &str| {
        let cwd = dir.0.join(tag);
        std::fs::create_dir_all(&cwd).expect("mkdir");
        for job in [&lat, &off] {
            let o = run_bounded(
                Command::new(client)
                    .current_dir(&cwd)
                    .args(["--eta=never", &s.host(), job]),
                LIMIT,
            );
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        }
        let mut files: Vec<(String, usize, Vec<usize>)> = std::fs::read_dir(&cwd)
            .expect("list")
            .filter_map(|e| e.ok())
            .map(|e| {
                let text = std::fs::read_to_string(e.path()).unwrap_or_default();
                let mut widths: Vec<usize> = text.lines().map(|l| l.split(", ").count()).collect();
                widths.dedup();
                (
                    e.file_name().to_string_lossy().into_owned(),
                    text.lines().count(),
                    widths,
                )
            })
            .collect();
        files.sort();
        files
    };
    // fio's client now and then exits before a log's last frames are in
    // (a loaded machine: no clat log at all); its complete run is the
    // reference.
    let mut theirs = listing(&fio, "c0");
    for k in 1..4 {
        if theirs.len() == 5 {
            break;
        }
        theirs = listing(&fio, &format!("c0-{k}"));
    }
    let listings = [theirs, listing(&our_bin("rfio"), "c1")];
    assert_eq!(listings[1], listings[0]);
    let names: Vec<&str> = listings[0].iter().map(|f| f.0.as_str()).collect();
    assert_eq!(
        names,
        [
            "lg_bw.1.log.127.0.0.1",
            "lg_clat.1.log.127.0.0.1",
            "lg_lat.1.log.127.0.0.1",
            "lg_slat.1.log.127.0.0.1",
            "lo_iops.1.log.127.0.0.1"
        ]
    );
    assert_eq!(listings[0][0].1, 4096);
    assert_eq!(listings[0][4].1, 204);
}

#[test]
fn job_options_on_the_command_line_make_a_local_job_as_fio_client() {
    let Some(fio) = original("fio") else { return };
    let dir = TempDir::new("local");
    let job = dir.file("cs.fio", JOB);
    let s = Server::start(&fio);
    for args in [
        // No host gets a job: its line, exit 1.
        vec![s.host(), "--name=x".into(), "--ioengine=null".into()],
        // The host's job runs; the local one is only printed, then fio's
        // version line.
        vec![
            s.host(),
            job.clone(),
            "--name=y".into(),
            "--ioengine=null".into(),
        ],
    ] {
        let (t, o) = (run(&fio, &args), run(&our_bin("rfio"), &args));
        assert_eq!(o.status.code(), t.status.code(), "{args:?}");
        assert_eq!(
            fio_layout(&text(&o)),
            fio_layout(&text(&t)),
            "{args:?}:\nours:\n{}\nfio's:\n{}",
            text(&o),
            text(&t)
        );
    }
}

#[test]
fn sixty_four_rfio_servers_all_report_to_either_client() {
    // Each server waits for its client to hang up after QUIT: closing
    // with the client's last ETA requests unread reset the connection,
    // and under this load fio's client lost most reports (`disconnected`).
    let Some(fio) = original("fio") else { return };
    let dir = TempDir::new("fleet");
    let job = dir.file(
        "f.fio",
        "[f]\nioengine=null\nsize=1g\nrw=randread\nbs=4k\nrate_iops=200\ntime_based\nruntime=2\n",
    );
    let servers: Vec<Server> = (0..64).map(|_| Server::start(&our_bin("rfio"))).collect();
    let list: String = servers
        .iter()
        .map(|s| format!("127.0.0.1,{}\n", s.port))
        .collect();
    let list = dir.file("hosts", &list);
    for client in [fio.clone(), our_bin("rfio")] {
        // 64 reports outgrow a pipe: read them as they come.
        let o = rbench_tests::run_drained(
            Command::new(&client)
                .arg("--eta=never")
                .arg(format!("--client={list}"))
                .arg(&job),
            LIMIT,
        );
        let t = text(&o);
        assert!(o.status.success(), "{}: {t}", client.display());
        assert_eq!(
            t.matches("\nf: (groupid=0").count(),
            64,
            "{}: {t}",
            client.display()
        );
        assert!(!t.contains("disconnected"), "{}: {t}", client.display());
        assert!(t.contains("All clients: (groupid=0, jobs=64)"), "{t}");
    }
}

/// The `Jobs:` lines a client drew (split at `\r`), trailing padding cut.
fn eta_lines(out: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(out)
        .split(['\r', '\n'])
        .filter(|l| l.starts_with("Jobs:"))
        .map(|l| l.trim_end().to_string())
        .collect()
}

/// An ETA line's shape: every number (with its unit letter) as `V`.
fn eta_shape(l: &str) -> String {
    let mut out = String::new();
    let mut chars = l.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() {
            while chars
                .peek()
                .is_some_and(|d| d.is_ascii_digit() || *d == '.' || "kMG".contains(*d))
            {
                chars.next();
            }
            out.push('V');
        } else {
            out.push(c);
        }
    }
    out
}

/// The ETA line with rates: fio's client draws the same full line from an
/// rfio server as from fio's (run states, progress, rates, IOPS, eta), and
/// rfio's client draws it from either server.
#[test]
fn eta_lines_carry_states_rates_and_eta_from_either_server() {
    let Some(fio) = original("fio") else { return };
    let dir = TempDir::new("eta");
    let job = dir.file(
        "e.fio",
        "[e]\nioengine=null\nsize=16M\nrw=read\nbs=4k\ntime_based\nruntime=5\nrate=100m\n",
    );
    let servers = [Server::start(&fio), Server::start(&our_bin("rfio"))];
    let want = "Jobs: V (f=V), VB/s-VB/s: [R(V)][V%][r=V][r=V IOPS][eta Vm:Vs]";
    for client in [fio.clone(), our_bin("rfio")] {
        for s in &servers {
            let o = run_bounded(Command::new(&client).arg(s.host()).arg(&job), LIMIT);
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            let lines = eta_lines(&o.stdout);
            let who = format!("{} -> port {}: {lines:#?}", client.display(), s.port);
            let full: Vec<&String> = lines.iter().filter(|l| l.contains("[eta ")).collect();
            assert!(!full.is_empty(), "{who}");
            for l in &full {
                assert_eq!(eta_shape(l), want, "{who}");
                assert!(
                    l.starts_with("Jobs: 1 (f=1), ") && l.contains(": [R(1)]["),
                    "{who}"
                );
            }
            // The progress only grows, to at most 100%.
            let pct: Vec<f64> = full
                .iter()
                .filter_map(|l| l.split("][").nth(1)?.strip_suffix('%')?.parse().ok())
                .collect();
            assert_eq!(pct.len(), full.len(), "{who}");
            assert!(pct.windows(2).all(|w| w[0] <= w[1]) && pct.iter().all(|p| *p <= 100.0));
        }
    }
}

/// The logs one client run per job leaves in a fresh directory `tag`:
/// (name, rows, distinct column counts); a stored `.fz` log's rows are
/// those `rfio --inflate-log` gives.
fn log_listing(
    client: &Path,
    host: &str,
    dir: &TempDir,
    tag: &str,
    jobs: &[&String],
) -> Vec<(String, usize, Vec<usize>)> {
    let cwd = dir.0.join(tag);
    std::fs::create_dir_all(&cwd).expect("mkdir");
    for job in jobs {
        let o = run_bounded(
            Command::new(client)
                .current_dir(&cwd)
                .args(["--eta=never", host, job]),
            LIMIT,
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let mut files: Vec<(String, usize, Vec<usize>)> = std::fs::read_dir(&cwd)
        .expect("list")
        .filter_map(|e| e.ok())
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let text = if name.contains(".fz.") {
                let o = run_bounded(
                    Command::new(our_bin("rfio"))
                        .arg(format!("--inflate-log={}", e.path().display())),
                    LIMIT,
                );
                String::from_utf8_lossy(&o.stdout).into_owned()
            } else {
                std::fs::read_to_string(e.path()).unwrap_or_default()
            };
            let mut widths: Vec<usize> = text.lines().map(|l| l.split(", ").count()).collect();
            widths.dedup();
            (name, text.lines().count(), widths)
        })
        .collect();
    files.sort();
    files
}

/// rfio's server sends its jobs' value logs to the client as fio's server
/// does (IOLOG: the sample records deflated, a stored log's streams as
/// they are) and writes none itself: fio's client and rfio's write the
/// same files, rows and columns from it as fio's client from fio's server.
#[test]
fn job_logs_from_an_rfio_server_reach_either_client_as_from_fio() {
    let Some(fio) = original("fio") else { return };
    let dir = TempDir::new("rlogs");
    let lat = dir.file(
        "lg.fio",
        "[lg]\nioengine=null\nsize=1M\nrw=write\nbs=4k\nwrite_bw_log=lg\nwrite_lat_log=lg\n",
    );
    let off = dir.file(
        "lo.fio",
        "[lo]\nioengine=null\nsize=1M\nrw=randread\nbs=4k\nwrite_iops_log=lo\nlog_offset=1\n",
    );
    let fz = dir.file(
        "lz.fio",
        "[lz]\nioengine=null\nsize=1M\nrw=read\nbs=4k\nwrite_bw_log=lz\nlog_store_compressed=1\n",
    );
    let jobs = [&lat, &off, &fz];
    let theirs_srv = Server::start(&fio);
    let ours_srv = Server::start(&our_bin("rfio"));
    // fio's client now and then exits before a log's last frames are in:
    // its complete run from fio's server is the reference.
    let mut want = log_listing(&fio, &theirs_srv.host(), &dir, "ref", &jobs);
    for k in 1..4 {
        if want.len() == 6 {
            break;
        }
        want = log_listing(&fio, &theirs_srv.host(), &dir, &format!("ref{k}"), &jobs);
    }
    let names: Vec<&str> = want.iter().map(|f| f.0.as_str()).collect();
    assert_eq!(
        names,
        [
            "lg_bw.1.log.127.0.0.1",
            "lg_clat.1.log.127.0.0.1",
            "lg_lat.1.log.127.0.0.1",
            "lg_slat.1.log.127.0.0.1",
            "lo_iops.1.log.127.0.0.1",
            "lz_bw.1.log.fz.127.0.0.1"
        ]
    );
    for (k, client) in [fio.clone(), our_bin("rfio")].iter().enumerate() {
        let got = log_listing(client, &ours_srv.host(), &dir, &format!("ours{k}"), &jobs);
        assert_eq!(got, want, "{}", client.display());
    }
    // The server wrote no log of its own.
    let server_dir = std::env::current_dir().expect("cwd");
    for n in ["lg_bw.1.log", "lo_iops.1.log", "lz_bw.1.log.fz"] {
        assert!(!server_dir.join(n).exists(), "{n}");
    }
}
