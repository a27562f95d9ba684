//! The README's pipeline examples are commands users copy: every line of
//! every "```sh pipelines" block runs here, with our freshly built tools
//! first on PATH, under `bash -o pipefail`, and must print numbers.
//! Each tool's section has one such block with jq on JSON, awk on CSV and
//! grep on the text output.

use rbench_tests::{original, our_bin, run_bounded, target_dir};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

fn readme() -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../README.md");
    std::fs::read_to_string(&p).expect("README.md")
}

/// The lines of the pipelines block in the section `## <tool>`.
fn pipelines(text: &str, tool: &str) -> Vec<String> {
    let head = format!("\n## {tool}\n");
    let start = text
        .find(&head)
        .unwrap_or_else(|| panic!("no section {head:?}"))
        + head.len();
    let section = &text[start..];
    let section = &section[..section.find("\n## ").unwrap_or(section.len())];
    let open = section
        .find("```sh pipelines\n")
        .unwrap_or_else(|| panic!("section {tool} has no ```sh pipelines block"))
        + "```sh pipelines\n".len();
    let body = &section[open..];
    let body = &body[..body.find("```").expect("closed block")];
    body.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(String::from)
        .collect()
}

/// Every token that reads as a positive number (units stripped).
fn positive_numbers(out: &str) -> usize {
    out.split(|c: char| c.is_whitespace() || c == ',' || c == '=')
        .filter_map(|w| {
            let w = w.trim_end_matches(|c: char| c.is_ascii_alphabetic() || c == '/');
            w.parse::<f64>().ok()
        })
        .filter(|v| *v > 0.0 && v.is_finite())
        .count()
}

fn run_line(line: &str, cwd: &std::path::Path) -> String {
    let path = format!(
        "{}:{}",
        target_dir().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = run_bounded(
        Command::new("bash")
            .args(["-o", "pipefail", "-c", line])
            .env("PATH", path)
            .current_dir(cwd),
        Duration::from_secs(120),
    );
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "README line failed ({:?}): {line}\nstdout:\n{stdout}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        positive_numbers(&stdout) > 0,
        "README line printed no positive number: {line}\n{stdout}"
    );
    stdout
}

fn check_tool(tool: &str, rewrite: impl Fn(&str) -> String) {
    our_bin(tool);
    // The pipelines need jq, awk and grep; jq is one of the originals CI installs.
    original("jq").expect("jq is needed by the README's pipelines");
    let lines = pipelines(&readme(), tool);
    for needle in ["| jq ", "| awk ", "| grep "] {
        assert!(
            lines.iter().any(|l| l.contains(needle)),
            "{tool}'s pipelines block has no `{needle}` example"
        );
    }
    let dir = std::env::temp_dir().join(format!("rbench-readme-{tool}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    for line in &lines {
        assert!(
            line.starts_with(&format!("{tool} ")),
            "a pipeline starts with the tool: {line}"
        );
        run_line(&rewrite(line), &dir);
    }
    // Nothing was written where the commands ran (null engine, no files).
    let left: Vec<_> = std::fs::read_dir(&dir).expect("read_dir").collect();
    assert!(left.is_empty(), "{tool}'s pipelines wrote files: {left:?}");
    let _ = std::fs::remove_dir(&dir);
}

#[test]
fn rmbw_pipelines_run() {
    check_tool("rmbw", str::to_string);
}

#[test]
fn rsysbench_pipelines_run() {
    check_tool("rsysbench", str::to_string);
}

#[test]
fn rfio_pipelines_run() {
    check_tool("rfio", str::to_string);
}

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `riperf -s -p port`, once its banner says it listens (a probe
/// connection would count as a client); `None` when it exits first (the
/// port is taken) or says nothing within 10 s.
fn riperf_server(port: u16) -> Option<Server> {
    let mut child = Command::new(our_bin("riperf"))
        .args(["-s", "-p", &port.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("riperf -s");
    let stdout = child.stdout.take().expect("piped stdout");
    let server = Server(child);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if line.contains("Server listening on") {
                let _ = tx.send(());
            }
        }
    });
    // The sender goes with the reader thread when riperf exits.
    rx.recv_timeout(Duration::from_secs(10))
        .ok()
        .map(|()| server)
}

#[test]
fn riperf_pipelines_run() {
    // The README's lines talk to `riperf -s` on the default port; here the
    // server gets a port of its own (below Linux's ephemeral range, 32768
    // and up, where a client socket may hold one; another port when one is
    // taken all the same) and the lines are pointed at it.
    let (port, _server) = (0..5)
        .find_map(|n| {
            let port = 20000 + ((std::process::id() + 997 * n) % 12000) as u16;
            riperf_server(port).map(|s| (port, s))
        })
        .expect("riperf -s did not start listening on any of 5 ports");
    check_tool("riperf", |l| {
        l.replacen("-c 127.0.0.1", &format!("-c 127.0.0.1 -p {port}"), 1)
    });
}
