//! The committed completion scripts under `completions/` are exactly what
//! the binaries generate from their option tables now, and each one loads
//! in its shell. `RBENCH_WRITE_COMPLETIONS=1 cargo test -p rbench-tests
//! --test completions` rewrites them after an option change.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use rbench_tests::{our_bin, run_bounded};

const LIMIT: Duration = Duration::from_secs(30);

/// The tools whose completions are generated (add riperf and rfio when
/// they take `--generate-completions`).
const TOOLS: &[&str] = &["rmbw", "rsysbench", "riperf", "rfio"];

/// (shell, committed file name for `tool`).
fn files(tool: &str) -> [(&'static str, String); 3] {
    [
        ("bash", format!("{tool}.bash")),
        ("zsh", format!("_{tool}")),
        ("fish", format!("{tool}.fish")),
    ]
}

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../completions")
}

fn generate(tool: &str, shell: &str) -> String {
    let out = run_bounded(
        Command::new(our_bin(tool)).arg(format!("--generate-completions={shell}")),
        LIMIT,
    );
    assert!(
        out.status.success(),
        "{tool} --generate-completions={shell}"
    );
    String::from_utf8(out.stdout).expect("UTF-8 script")
}

/// A shell on PATH, if installed (zsh and fish are optional for the tests).
fn shell(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

#[test]
fn committed_scripts_match_the_option_tables() {
    let write = std::env::var("RBENCH_WRITE_COMPLETIONS").as_deref() == Ok("1");
    for tool in TOOLS {
        for (sh, name) in files(tool) {
            let now = generate(tool, sh);
            let path = dir().join(&name);
            if write {
                std::fs::write(&path, &now).expect("write completion script");
                continue;
            }
            let committed = std::fs::read_to_string(&path).unwrap_or_default();
            assert!(
                committed == now,
                "completions/{name} is out of date: run \
                 RBENCH_WRITE_COMPLETIONS=1 cargo test -p rbench-tests --test completions"
            );
        }
    }
}

#[test]
fn unknown_shell_is_an_error() {
    for tool in TOOLS {
        let out = run_bounded(
            Command::new(our_bin(tool)).arg("--generate-completions=tcsh"),
            LIMIT,
        );
        assert_eq!(out.status.code(), Some(1), "{tool}");
        assert!(out.stdout.is_empty() || !out.stdout.starts_with(b"#"));
    }
}

#[test]
fn scripts_load_in_their_shells() {
    for tool in TOOLS {
        let [(_, bash), (_, zsh), (_, fish)] = files(tool);
        let out = run_bounded(
            Command::new("bash").arg("-c").arg(format!(
                "source {}; complete -p {tool}",
                dir().join(bash).display()
            )),
            LIMIT,
        );
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            format!("complete -F _{tool} {tool}\n"),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // zsh and fish are not in a default Debian: check their syntax where installed.
        for (sh, file) in [("zsh", zsh), ("fish", fish)] {
            let Some(bin) = shell(sh) else {
                eprintln!("note: {sh} is not installed; skipping the {file} syntax check");
                continue;
            };
            let out = run_bounded(Command::new(bin).arg("-n").arg(dir().join(&file)), LIMIT);
            assert!(
                out.status.success() && out.stderr.is_empty(),
                "{sh} -n {file}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
}

/// What the bash function offers for a command line (the last word is the
/// one being completed; `=` is a word of its own, as bash splits it).
fn bash_offers(tool: &str, words: &[&str]) -> Vec<String> {
    let script = dir().join(format!("{tool}.bash"));
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let out = run_bounded(
        Command::new("bash").arg("-c").arg(format!(
            "source {}; COMP_WORDS=({}); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); \
             _{tool}; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
            script.display(),
            quoted.join(" ")
        )),
        LIMIT,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

#[test]
fn bash_completes_what_the_parsers_accept() {
    assert_eq!(
        bash_offers("rmbw", &["rmbw", "--output-format", "=", ""]),
        ["text", "json", "csv"]
    );
    assert_eq!(bash_offers("rmbw", &["rmbw", "-t", ""]), ["0", "1", "2"]);
    assert_eq!(
        bash_offers("rmbw", &["rmbw", "--test", "=", "copy,tr"]),
        ["copy,triad"]
    );
    assert_eq!(bash_offers("rmbw", &["rmbw", "--thr"]), ["--threads="]);
    assert_eq!(
        bash_offers("rsysbench", &["rsysbench", ""]),
        [
            "fileio",
            "cpu",
            "memory",
            "threads",
            "mutex",
            "bulk_insert",
            "oltp_delete",
            "oltp_insert",
            "oltp_point_select",
            "oltp_read_only",
            "oltp_read_write",
            "oltp_update_index",
            "oltp_update_non_index",
            "oltp_write_only",
            "select_random_points",
            "select_random_ranges"
        ]
    );
    assert_eq!(
        bash_offers(
            "rsysbench",
            &["rsysbench", "--threads", "=", "2", "cpu", ""]
        ),
        ["prepare", "run", "cleanup", "help"]
    );
    assert_eq!(
        bash_offers(
            "rsysbench",
            &["rsysbench", "memory", "--memory-oper", "=", ""]
        ),
        ["read", "write", "none"]
    );
    assert_eq!(
        bash_offers("rsysbench", &["rsysbench", "--debug", "=", ""]),
        ["on", "off"]
    );
}

/// Every option the completions offer is one the tool documents in its
/// help (`--help`, each test's `help` for rsysbench, `--cmdhelp=all` for
/// rfio's job options), and the reverse.
#[test]
fn completions_offer_the_documented_options() {
    for tool in TOOLS {
        let mut help = String::new();
        let mut runs: Vec<Vec<&str>> = vec![vec!["--help"]];
        if *tool == "rsysbench" {
            for t in ["fileio", "cpu", "memory", "threads", "mutex"] {
                runs.push(vec![t, "help"]);
            }
        }
        for args in runs {
            let out = run_bounded(Command::new(our_bin(tool)).args(&args), LIMIT);
            help.push_str(&String::from_utf8_lossy(&out.stdout));
        }
        if *tool == "rsysbench" {
            // Its own options table shows at a terminal only (piped, --help
            // is sysbench's text): `script` gives it one.
            let script = rbench_tests::on_path("script").expect("script (bsdutils)");
            let cmd = format!("{} --help", our_bin(tool).display());
            let out = run_bounded(
                Command::new(script).args(["-qec", &cmd, "/dev/null"]),
                LIMIT,
            );
            help.push_str(&String::from_utf8_lossy(&out.stdout));
        }
        if *tool == "rfio" {
            // fio's job options are listed as `name : help` by --cmdhelp=all.
            let out = run_bounded(Command::new(our_bin(tool)).arg("--cmdhelp=all"), LIMIT);
            for line in String::from_utf8_lossy(&out.stdout).lines() {
                if let Some(name) = line.split([' ', ':']).next().filter(|n| !n.is_empty()) {
                    help.push_str(&format!(" --{name}\n"));
                }
            }
        }
        let offered: Vec<String> = bash_offers(tool, &[tool, "-"])
            .into_iter()
            .map(|o| o.trim_end_matches('=').to_string())
            .collect();
        assert!(offered.len() > 5, "{tool}: {offered:?}");
        for opt in &offered {
            // `-n N` / `--threads=N` / `--threads=N ` / `--debug[=on|off]`
            let documented = help
                .split(|c: char| c.is_whitespace() || matches!(c, '=' | '[' | ',' | '<'))
                .any(|w| w == opt);
            assert!(documented, "{tool}: {opt} is completed but not in its help");
        }
        for word in help.split(|c: char| c.is_whitespace() || matches!(c, '=' | '[' | '<')) {
            if word.starts_with("--")
                && word.len() > 2
                && word.chars().nth(2).is_some_and(|c| c.is_ascii_lowercase())
            {
                let name = word.trim_end_matches([',', '.', ')', ':']);
                let db = ["--mysql", "--pgsql", "--db-"]
                    .iter()
                    .any(|p| name.starts_with(p));
                if !db {
                    assert!(
                        offered.iter().any(|o| o == name),
                        "{tool}: {name} is in its help but not completed"
                    );
                }
            }
        }
    }
}
