//! What packaging relies on: `--version` in the original's first-line shape,
//! man pages groff renders without warnings, and [package.metadata.deb]
//! tables that install into the standard places beside the originals.
//! (CI builds, installs and checks the .deb files: packaging/*.sh.)

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use rbench_tests::{original, our_bin, run_bounded};
use serde_json::Value;

const LIMIT: Duration = Duration::from_secs(60);

/// The finished tools packaging covers (add riperf and rfio with their metadata).
const TOOLS: &[&str] = &["rmbw", "rsysbench", "riperf", "rfio"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn first_line(cmd: &mut Command) -> String {
    let out = run_bounded(cmd, LIMIT);
    assert!(out.status.success(), "{cmd:?}");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .unwrap_or("")
        .to_string()
}

#[test]
fn rsysbench_version_parses_as_sysbench_does() {
    let ours = first_line(Command::new(our_bin("rsysbench")).arg("--version"));
    let words: Vec<&str> = ours.split_whitespace().collect();
    // What scripts do: `awk '{print $2}'`, `^sysbench ([0-9.]+)`.
    assert_eq!(words, ["sysbench", "1.0.20"], "{ours}");
    let own = first_line(Command::new(our_bin("rsysbench")).arg("--rbench-version"));
    assert_eq!(
        own,
        format!("rsysbench {} (rbench)", env!("CARGO_PKG_VERSION"))
    );
    if let Some(sb) = original("sysbench") {
        let theirs = first_line(Command::new(sb).arg("--version"));
        assert_eq!(theirs, ours);
    }
}

#[test]
fn rfio_version_parses_as_fio_does() {
    let ours = first_line(Command::new(our_bin("rfio")).arg("--version"));
    // What scripts do: `fio --version | awk '{print $1}'`, `cut -d- -f2`,
    // `^fio-([0-9.]+)`: the first word is fio's whole version line.
    let first = ours.split_whitespace().next().unwrap_or("");
    assert_eq!(ours, "fio-3.33");
    let own = first_line(Command::new(our_bin("rfio")).arg("--rbench-version"));
    assert_eq!(own, format!("rfio {} (rbench)", env!("CARGO_PKG_VERSION")));
    if let Some(fio) = original("fio") {
        let theirs = first_line(Command::new(fio).arg("--version"));
        assert_eq!(theirs, first);
        assert_eq!(theirs.split('-').nth(1), first.split('-').nth(1));
    }
}

#[test]
fn rmbw_version_names_the_mbw_it_matches() {
    let ours = first_line(Command::new(our_bin("rmbw")).arg("--version"));
    let rest = ours.strip_prefix("rmbw ").expect("starts with the name");
    let (version, tail) = rest.split_once(' ').expect("version then compatibility");
    assert_eq!(version, env!("CARGO_PKG_VERSION"));
    assert_eq!(tail, "(mbw 1.2.2 compatible)");
}

#[test]
fn man_pages_render_without_groff_warnings() {
    let Some(groff) = original("groff") else {
        return;
    };
    for tool in TOOLS {
        let page = root().join(format!("man/{tool}.1"));
        let out = run_bounded(
            Command::new(&groff)
                .args(["-ww", "-man", "-Tutf8"])
                .arg(&page),
            LIMIT,
        );
        assert!(out.status.success(), "groff {tool}.1");
        assert!(
            out.stdout.len() > 1000,
            "{tool}.1 renders to almost nothing"
        );
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            "",
            "groff warnings for man/{tool}.1"
        );
    }
}

/// Every package's [package.metadata.deb], as `cargo metadata` reads it.
fn deb_tables() -> Vec<(String, Value)> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = run_bounded(
        Command::new(cargo)
            .args([
                "metadata",
                "--format-version",
                "1",
                "--no-deps",
                "--offline",
            ])
            .current_dir(root()),
        LIMIT,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: Value = serde_json::from_slice(&out.stdout).expect("cargo metadata JSON");
    meta["packages"]
        .as_array()
        .expect("packages")
        .iter()
        .filter(|p| !p["metadata"]["deb"].is_null())
        .map(|p| {
            (
                p["name"].as_str().unwrap().to_string(),
                p["metadata"]["deb"].clone(),
            )
        })
        .collect()
}

#[test]
fn deb_metadata_installs_beside_the_originals() {
    let tables = deb_tables();
    for tool in TOOLS {
        let (_, deb) = tables
            .iter()
            .find(|(name, _)| name == tool)
            .unwrap_or_else(|| panic!("{tool} has no [package.metadata.deb]"));
        assert_eq!(deb["name"], format!("rbench-{tool}"));
        // Different file names from the originals' packages: nothing to conflict with.
        for key in ["conflicts", "replaces", "provides", "breaks"] {
            assert!(deb[key].is_null(), "{tool}: {key} is set");
        }
        let assets: Vec<(String, String)> = deb["assets"]
            .as_array()
            .expect("assets")
            .iter()
            .map(|a| {
                let src = a[0].as_str().unwrap().to_string();
                let mut dest = a[1].as_str().unwrap().to_string();
                if dest.ends_with('/') {
                    dest.push_str(src.rsplit('/').next().unwrap());
                }
                (src, dest)
            })
            .collect();
        for (src, _) in &assets {
            if !src.starts_with("target/") {
                assert!(
                    root().join(tool).join(src).is_file(),
                    "{tool}: {src} missing"
                );
            }
        }
        let dests: Vec<&str> = assets.iter().map(|(_, d)| d.as_str()).collect();
        for want in [
            format!("usr/bin/{tool}"),
            format!("usr/share/man/man1/{tool}.1"),
            format!("usr/share/bash-completion/completions/{tool}"),
            format!("usr/share/zsh/vendor-completions/_{tool}"),
            format!("usr/share/fish/vendor_completions.d/{tool}.fish"),
        ] {
            assert!(
                dests.contains(&want.as_str()),
                "{tool}: no {want} in {dests:?}"
            );
        }
    }
}

#[test]
fn packaging_scripts_parse() {
    for script in ["build-debs.sh", "check-debs.sh"] {
        let out = run_bounded(
            Command::new("sh")
                .arg("-n")
                .arg(root().join("packaging").join(script)),
            LIMIT,
        );
        assert!(
            out.status.success(),
            "{script}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// The example blocks (`.nf` ... `.fi`) of a man page's EXAMPLES section,
/// as a user would type them.
fn man_examples(tool: &str) -> Vec<String> {
    let page = std::fs::read_to_string(root().join(format!("man/{tool}.1"))).expect("man page");
    let examples = page
        .split(".SH EXAMPLES")
        .nth(1)
        .expect("an EXAMPLES section");
    let examples = examples.split("\n.SH ").next().unwrap_or("");
    examples
        .split(".nf\n")
        .skip(1)
        .filter_map(|b| b.split("\n.fi").next())
        .map(|b| {
            b.replace("\\-", "-")
                .replace("\\(aq", "'")
                .replace("\\e", "\\")
                .replace("\\\\", "\\")
        })
        .collect()
}

/// A pipeline that starts a server in the background (`riperf -s -1 -p N
/// >/dev/null & sleep 1`), with the pause replaced by a wait (bounded to
/// 10 s) until port N listens: on a loaded machine a second was not always
/// enough, and the client met a refused connection. A probe connection
/// would be the `-1` server's one client, so /proc/net/tcp is read instead.
fn wait_for_backgrounded_server(pipeline: &str) -> String {
    let Some((server, rest)) = pipeline.split_once(" & sleep 1") else {
        return pipeline.to_string();
    };
    let port: u16 = server
        .split_whitespace()
        .skip_while(|w| *w != "-p")
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no -p PORT in {server:?}"));
    format!(
        "{server} & for _ in $(seq 200); do \
         grep -qE ':{port:04X} [0-9A-F]+:[0-9A-F]+ 0A ' /proc/net/tcp /proc/net/tcp6 && break; \
         sleep 0.05; done{rest}"
    )
}

/// The man pages' pipelines (jq on JSON, awk on CSV, grep on text) run as
/// printed, with our binaries first on PATH and shorter runs, and print
/// numbers.
#[test]
fn man_page_pipelines_work() {
    if original("jq").is_none() {
        return;
    }
    let bin_dir = our_bin("rmbw").parent().unwrap().to_path_buf();
    let path = std::env::join_paths(
        std::iter::once(bin_dir).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap();
    let dir = std::env::temp_dir();
    for tool in TOOLS {
        let pipelines: Vec<String> = man_examples(tool)
            .into_iter()
            .filter(|b| b.contains('|') && b.contains(tool) && !b.contains("mbw -q"))
            .collect();
        assert!(pipelines.len() >= 2, "{tool}: {pipelines:?}");
        for p in pipelines {
            // Shorter runs: seconds for rsysbench, 16 MiB arrays for rmbw.
            let short: String = p
                .split(' ')
                .map(|w| match w {
                    w if w.starts_with("--time=") => "--time=2",
                    "256" | "512" | "1024" => "16",
                    w => w,
                })
                .collect::<Vec<_>>()
                .join(" ");
            let short = wait_for_backgrounded_server(&short);
            // Drained and bounded to the end: a backgrounded server left
            // behind by a failed client holds the pipes.
            let out = rbench_tests::run_drained(
                Command::new("bash")
                    .args(["-o", "pipefail", "-c", &short])
                    .env("PATH", &path)
                    .current_dir(&dir),
                LIMIT,
            );
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert!(
                out.status.success(),
                "{short}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(!stdout.trim().is_empty(), "{short}: no output");
            for line in stdout.lines() {
                assert!(
                    line.split(|c: char| c.is_whitespace() || c == ':')
                        .any(|w| w.parse::<f64>().is_ok_and(|v| v > 0.0)),
                    "{short}: no positive number in {line:?}"
                );
            }
        }
    }
}
