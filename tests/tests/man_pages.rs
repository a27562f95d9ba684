//! Every option a tool's `--help` lists is described in its man page, as
//! a reader sees the page (`groff -man -Tascii`, then `col -b`), for all
//! four tools. groff is required under RBENCH_REQUIRE_ORIGINALS=1.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use rbench_tests::{on_path, original, our_bin, run_bounded};

const LIMIT: Duration = Duration::from_secs(30);

/// The options in a help text: every long option (`--name`), and the
/// short ones (`-x`) that start an entry line.
fn options(text: &str) -> Vec<String> {
    let long = text
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .filter_map(|w| w.strip_prefix("--"))
        .filter(|n| n.starts_with(|c: char| c.is_ascii_alphabetic()))
        .map(|n| format!("--{}", n.trim_end_matches('-')));
    let short = text.lines().filter_map(|l| {
        let w = l.trim_start().split([' ', ',', '\t', ':']).next()?;
        let b = w.as_bytes();
        (b.len() == 2 && b[0] == b'-' && b[1].is_ascii_alphanumeric()).then(|| w.to_string())
    });
    let mut found: Vec<String> = long.chain(short).collect();
    found.sort();
    found.dedup();
    found
}

/// The page as a reader sees it.
fn rendered(groff: &Path, page: &Path) -> String {
    let o = run_bounded(
        Command::new(groff).args(["-man", "-Tascii"]).arg(page),
        LIMIT,
    );
    assert!(o.status.success(), "groff {}", page.display());
    let mut col = Command::new("col")
        .arg("-b")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("col");
    {
        use std::io::Write;
        let mut stdin = col.stdin.take().expect("stdin");
        stdin.write_all(&o.stdout).expect("col input");
    }
    let out = col.wait_with_output().expect("col");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// What `--help` prints; for rsysbench also at a terminal, where it adds
/// its own options table (`script` gives it one).
fn help_texts(tool: &str) -> Vec<String> {
    let bin = our_bin(tool);
    let mut texts =
        vec![
            String::from_utf8_lossy(&run_bounded(Command::new(&bin).arg("--help"), LIMIT).stdout)
                .into_owned(),
        ];
    if tool == "rsysbench" {
        if let Some(script) = on_path("script") {
            let cmd = format!("{} --help", bin.display());
            let o = run_bounded(
                Command::new(script).args(["-qec", &cmd, "/dev/null"]),
                LIMIT,
            );
            texts.push(String::from_utf8_lossy(&o.stdout).into_owned());
        }
    }
    texts
}

#[test]
fn every_option_help_lists_is_in_the_man_page() {
    let Some(groff) = original("groff") else {
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut missing = Vec::new();
    for tool in ["rfio", "rsysbench", "rmbw", "riperf"] {
        let page = rendered(&groff, &root.join(format!("man/{tool}.1")));
        let help: String = help_texts(tool).concat();
        let options = options(&help);
        assert!(
            options.len() > 5,
            "{tool}: too few options in --help:\n{help}"
        );
        for o in options {
            if !page.contains(&o) {
                missing.push(format!("{tool} {o}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "described in --help but not in the man page: {missing:?}"
    );
}
