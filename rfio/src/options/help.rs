//! `--cmdhelp`, the valid-value lists and the usage text, all generated from
//! the option table.

use super::table::{find_listed, OptDef, OPTIONS};
use super::value::Kind;
use crate::failure::Failure;

/// fio's "valid values" block of a string option.
pub fn valid_values(opt: &OptDef) -> String {
    let (Kind::Choice(words) | Kind::Multi(words)) = opt.kind else {
        return String::new();
    };
    let mut s = String::new();
    for (i, (w, h)) in words.iter().enumerate() {
        let label = if i == 0 { "valid values" } else { "" };
        if h.is_empty() {
            s.push_str(&format!("{label:>20}: {w:<10}\n"));
        } else {
            s.push_str(&format!("{label:>20}: {w:<10} {h}\n"));
        }
    }
    s
}

fn range_line(opt: &OptDef) -> Option<String> {
    match opt.kind {
        Kind::Int { min, max } => Some(format!("min={min}, max={max}")),
        Kind::Bool => Some("min=0, max=1".into()),
        Kind::SizeList { min, max, .. } if max == u64::MAX => Some(format!("min={min}, max=-1")),
        Kind::SizeList { min, max, .. } => Some(format!("min={min}, max={max}")),
        Kind::Ranges => Some("min=1".into()),
        Kind::FloatList => Some("min=0.000000, max=100.000000".into()),
        Kind::Fraction => Some("min=0.000000, max=1.000000".into()),
        _ => None,
    }
}

/// The detailed help of one option.
pub fn describe(opt: &OptDef) -> String {
    let mut s = format!("{:>20}: {}\n", opt.name, opt.help);
    if let Some(a) = opt.alias {
        s.push_str(&format!("{:>20}: {a}\n", "alias"));
    }
    let (ty, range) = match opt.shown {
        Some((t, r)) => (t, r.map(str::to_string)),
        None => (opt.kind.type_text(), range_line(opt)),
    };
    s.push_str(&format!("{:>20}: {ty}\n", "type"));
    s.push_str(&format!(
        "{:>20}: {}\n",
        "default",
        opt.default.unwrap_or("no default")
    ));
    if let Some(r) = range {
        s.push_str(&format!("{:>20}: {r}\n", "range"));
    }
    s.push_str(&valid_values(opt));
    s.push('\n');
    s
}

/// `--cmdhelp[=name|all]`; an unknown name prints fio's message and still
/// exits 0, as fio does.
pub fn cmdhelp(which: &str) -> Failure {
    if which == "all" {
        let mut s = String::new();
        // Soft-deprecated options (no help) are taken but never listed.
        for o in OPTIONS.iter().filter(|o| !o.help.is_empty()) {
            s.push_str(&format!("{:<24}: {}\n", o.name, o.help));
        }
        return Failure::done(s);
    }
    // fio knows an engine's own options only once the engine is loaded
    // (--enghelp=ENGINE,OPTION), and soft-deprecated ones not at all.
    match find_listed(which).filter(|o| !o.help.is_empty() && o.engines.is_empty()) {
        Some(o) => Failure::done(describe(o)),
        None => Failure {
            stdout: "\n".into(),
            stderr: format!("No such command: {which}"),
            code: 0,
        },
    }
}

/// `--enghelp[=engine[,option]]`: the engines, or one engine's options.
pub fn enghelp(which: Option<&str>) -> Failure {
    use super::table::ENGINES;
    let Some(which) = which.filter(|w| !w.is_empty()) else {
        let mut s = String::from("Available IO engines:\n");
        for (e, _) in ENGINES {
            s.push_str(&format!("\t{e}\n"));
        }
        return Failure::done(s);
    };
    let (engine, opt) = match which.split_once(',') {
        Some((e, o)) => (e, Some(o)),
        None => (which, None),
    };
    if !ENGINES.iter().any(|(e, _)| *e == engine) {
        return Failure {
            stdout: String::new(),
            stderr: format!("fio: engine {engine} not loadable\n"),
            code: 1,
        };
    }
    let own: Vec<&OptDef> = OPTIONS
        .iter()
        .filter(|o| o.engines.contains(&engine))
        .collect();
    if let Some(name) = opt {
        return match own.iter().find(|o| o.name == name) {
            Some(o) => Failure::done(describe(o)),
            None => Failure::done(format!("No such command: {name}\n")),
        };
    }
    if own.is_empty() {
        return Failure {
            stdout: format!("IO engine {engine} has no options\n"),
            stderr: String::new(),
            code: 1,
        };
    }
    let mut s = String::new();
    for o in own {
        s.push_str(&format!("{:<24}: {}\n", o.name, o.help));
    }
    Failure::done(s)
}

/// The program options rfio reads, in fio's `--help` layout.
pub const USAGE: &[(&str, &str)] = &[
    ("--parse-only", "Parse options only, don't start any IO"),
    ("--output", "Write output to file"),
    ("--bandwidth-log", "Generate aggregate bandwidth logs"),
    ("--minimal", "Minimal (terse) output"),
    (
        "--output-format=type",
        "Output format (terse,json,json+,normal,csv)",
    ),
    (
        "--terse-version=type",
        "Set terse version output format (default 3, or 2 or 4 or 5)",
    ),
    ("--version", "Print version info and exit"),
    ("--help", "Print this page"),
    (
        "--cmdhelp=cmd",
        "Print command help, \"all\" for all of them",
    ),
    (
        "--enghelp=engine",
        "Print ioengine help, or list available ioengines",
    ),
    ("--enghelp=engine,cmd", "Print help for an ioengine cmd"),
    (
        "--eta=when",
        "When ETA estimate should be printed (always, never or auto)",
    ),
    (
        "--eta-newline=t",
        "Force a new line for every 't' period passed",
    ),
    (
        "--status-interval=t",
        "Force full status dump every 't' period passed",
    ),
    ("--showcmd", "Turn a job file into command line options"),
    ("--server=args", "Start a backend fio server"),
    // --- h1: daemonize ---
    (
        "--daemonize=pidfile",
        "Background fio server, write pid to file",
    ),
    // --- h4: client/server ---
    (
        "--client=hostname",
        "Talk to remote backend(s) fio server at hostname",
    ),
    (
        "--remote-config=file",
        "Tell fio server to load this local job file",
    ),
    (
        "--server-allow-from=cidr",
        "rfio: with --server, serve only peers in this network (repeatable)",
    ),
    (
        "--server-allow-dir=dir",
        "rfio: with --server, jobs' files, logs and remote job files only under dir (repeatable)",
    ),
    (
        "--server-no-exec",
        "rfio: with --server, refuse options that run a program",
    ),
    (
        "--merge file...",
        "rfio: merge json+ reports (bins) into one unit with exact percentiles",
    ),
    (
        "--readonly",
        "Turn on safety read-only checks, preventing writes",
    ),
    (
        "--section=name",
        "Only run specified section in job file, multiple sections can be specified",
    ),
    // Accepted for fio's command lines; they change nothing in rfio.
    ("--debug=options", "Accepted for compatibility; no effect"),
    ("--alloc-size=kb", "Accepted for compatibility; no effect"),
    ("--warnings-fatal", "Fio parser warnings are fatal"),
    (
        "--max-jobs=nr",
        "Maximum number of threads/processes to support",
    ),
    ("--eta-interval=t", "Accepted for compatibility; no effect"),
    ("--append-terse", "Append terse output to the normal output"),
    ("--inflate-log=log", "Inflate and output compressed log"),
    (
        "--aux-path=path",
        "Use this path for fio state generated files (rfio writes none)",
    ),
    (
        "--plot=dir",
        "rfio: write SVG charts of the run and an index.html to dir",
    ),
    (
        "--plot-from=log",
        "rfio: with --plot, chart this fio/rfio log (repeatable); no job runs",
    ),
    (
        "--rbench-version",
        "rfio: print rfio's own version (--version prints fio's line, as scripts expect)",
    ),
];

/// `--help` text: version, then `PROG [options]…` (argv[0], as fio prints it).
pub fn usage(prog: &str) -> String {
    let mut s = format!("fio-3.33\n{prog} [options] [job options] <job file(s)>\n");
    for (o, h) in USAGE {
        let tabs = if o.len() < 14 { "\t\t" } else { "\t" };
        s.push_str(&format!("  {o}{tabs}{h}\n"));
    }
    s.push_str("\nrfio is a reimplementation of fio by the rbench project\n");
    s
}

/// Every option as a man-page section body (roff), grouped by category.
pub fn man_options() -> String {
    let mut cats: Vec<&str> = Vec::new();
    for o in OPTIONS {
        if !cats.contains(&o.category) {
            cats.push(o.category);
        }
    }
    let mut s = String::new();
    for c in cats {
        s.push_str(&format!(".SS \"{c}\"\n"));
        for o in OPTIONS.iter().filter(|o| o.category == c) {
            let alias = o.alias.map(|a| format!(", {a}")).unwrap_or_default();
            s.push_str(&format!(".TP\n.BI \"{}{}\"\n", o.name, alias));
            if o.help.is_empty() {
                s.push_str("Deprecated in fio: accepted and ignored.");
            } else {
                s.push_str(&format!("{}.", o.help.replace('\\', "\\\\")));
            }
            if let Some(d) = o.default {
                s.push_str(&format!(" Default: {d}."));
            }
            if let Kind::Choice(words) | Kind::Multi(words) = o.kind {
                let ws: Vec<&str> = words.iter().map(|(w, _)| *w).collect();
                s.push_str(&format!(" Values: {}.", ws.join(", ")));
            }
            if !o.engines.is_empty() {
                s.push_str(&format!(" Engines: {}.", o.engines.join(", ")));
            }
            s.push('\n');
        }
    }
    s
}
