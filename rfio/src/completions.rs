//! Shell completions generated from the option table (the same one the
//! parser, `--cmdhelp` and the man page use): `rfio
//! --generate-completions=bash|zsh|fish`, committed under `completions/`.

use crate::options::table::OPTIONS;
use crate::options::value::Kind;
use rbench_common::completions::{self, Opt, Shell, Spec, Value, Word};

/// fio's program options (cli.rs), which are not job options.
const PROGRAM: &[(&str, Value, &str)] = &[
    ("output", Value::Required, "Write output to a file"),
    (
        "output-format",
        Value::Required,
        "Output formats: normal, terse, json, json+, csv",
    ),
    (
        "terse-version",
        Value::Required,
        "Terse version output format (2 to 5)",
    ),
    (
        "eta",
        Value::Required,
        "When ETA estimate should be printed",
    ),
    (
        "eta-newline",
        Value::Required,
        "Force a new line for every period passed",
    ),
    (
        "eta-interval",
        Value::Required,
        "Force ETA updates at this interval",
    ),
    (
        "status-interval",
        Value::Required,
        "Print full output at this interval",
    ),
    (
        "section",
        Value::Required,
        "Only run the named job file section",
    ),
    (
        "alloc-size",
        Value::Required,
        "Set smalloc pool size (accepted, no effect)",
    ),
    (
        "max-jobs",
        Value::Required,
        "Maximum number of threads/processes",
    ),
    (
        "debug",
        Value::Required,
        "Enable debug logging (accepted, no effect)",
    ),
    (
        "plot",
        Value::Required,
        "rfio: write SVG charts of the run to this directory",
    ),
    (
        "plot-from",
        Value::Required,
        "rfio: with --plot, chart this fio log instead of running jobs",
    ),
    (
        "inflate-log",
        Value::Required,
        "Inflate and output compressed log",
    ),
    (
        "aux-path",
        Value::Required,
        "Use this path for fio state generated files (rfio writes none)",
    ),
    (
        "bandwidth-log",
        Value::None,
        "Generate aggregate bandwidth logs",
    ),
    ("version", Value::None, "Print version info and exit"),
    (
        "rbench-version",
        Value::None,
        "Print rfio's own version (rbench)",
    ),
    ("help", Value::None, "Print this page"),
    (
        "cmdhelp",
        Value::Optional,
        "Print command help, \"all\" for all of them",
    ),
    (
        "enghelp",
        Value::Optional,
        "Print ioengine help, or list available ioengines",
    ),
    (
        "parse-only",
        Value::None,
        "Parse options only, don't start any IO",
    ),
    (
        "showcmd",
        Value::None,
        "Turn a job file into command line options",
    ),
    (
        "server",
        Value::Optional,
        "Start a backend fio server ([ip:|ip6:|sock:]host[,port])",
    ),
    // --- h1: daemonize ---
    (
        "daemonize",
        Value::Required,
        "Background fio server, write pid to file",
    ),
    // --- h4: client/server ---
    (
        "client",
        Value::Required,
        "Talk to remote backend(s) fio server at hostname (or a file of hosts)",
    ),
    (
        "remote-config",
        Value::Required,
        "Tell fio server to load this local job file",
    ),
    (
        "server-allow-from",
        Value::Required,
        "rfio: with --server, serve only peers in this network (CIDR)",
    ),
    (
        "server-allow-dir",
        Value::Required,
        "rfio: with --server, jobs' files and logs only under this directory",
    ),
    (
        "server-no-exec",
        Value::None,
        "rfio: with --server, refuse options that run a program",
    ),
    (
        "merge",
        Value::None,
        "rfio: merge json+ reports into one unit with exact percentiles",
    ),
    ("readonly", Value::None, "Turn on safety read-only checks"),
    ("minimal", Value::None, "Minimal (terse) output"),
    (
        "append-terse",
        Value::None,
        "Append terse output to the normal output",
    ),
    (
        "warnings-fatal",
        Value::None,
        "Fio parser warnings are fatal",
    ),
];

fn words(list: &[(&str, &str)]) -> Vec<Word> {
    list.iter().map(|(w, h)| Word::new(w, h)).collect()
}

/// What the scripts complete: program options, then every job option
/// (`--name=value` or `--name value`; flags take no next word).
pub fn spec() -> Spec {
    let mut options: Vec<Opt> = PROGRAM
        .iter()
        .map(|&(name, value, help)| {
            let o = Opt::new(None, Some(name), value, help);
            match name {
                "output" | "inflate-log" | "client" | "remote-config" | "server-allow-dir" => {
                    o.file()
                }
                "output-format" => o.choices(
                    ["normal", "terse", "json", "json+", "csv"]
                        .iter()
                        .map(|w| Word::new(w, ""))
                        .collect(),
                    true,
                ),
                "eta" => o.choices(
                    ["always", "never", "auto"]
                        .iter()
                        .map(|w| Word::new(w, ""))
                        .collect(),
                    false,
                ),
                _ => o,
            }
        })
        .collect();
    // Soft-deprecated options (no help) are taken, never offered.
    for d in OPTIONS.iter().filter(|d| !d.help.is_empty()) {
        let value = if d.kind.needs_value() {
            Value::Required
        } else {
            Value::Optional
        };
        let o = Opt::new(None, Some(d.name), value, d.help);
        let o = match d.kind {
            Kind::Choice(list) | Kind::Multi(list) => o.choices(words(list), false),
            Kind::Text if matches!(d.name, "filename" | "directory" | "opendir") => o.file(),
            _ => o,
        };
        options.push(o);
    }
    Spec {
        program: "rfio".to_string(),
        options,
        positionals: Vec::new(),
        // Operands are job files.
        operand_files: true,
    }
}

/// The script for `shell`.
pub fn render(shell: Shell) -> String {
    completions::render(&spec(), shell)
}
