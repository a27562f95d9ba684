//! Shell completions generated from the option tables (the same ones the
//! parser, `--help`, `<test> help` and the man page use): `rsysbench
//! --generate-completions=bash|zsh|fish`, committed under `completions/`.

use crate::builtin::Builtin;
use crate::options::{self, Kind, OptDef};
use rbench_common::completions::{self, output_format_choices, Opt, Shell, Spec, Value, Word};

/// The commands sysbench's built-in tests take.
const COMMANDS: &[(&str, &str)] = &[
    ("prepare", "create the test files (fileio)"),
    ("run", "run the test"),
    ("cleanup", "remove the test files (fileio)"),
    ("help", "list the test's options"),
];

/// The values sysbench's help lists in braces, `{seq,rnd}`, for string
/// and list options (numeric ones use braces for prose).
fn braced_choices(d: &OptDef) -> Vec<Word> {
    if !matches!(d.kind, Kind::Str | Kind::List) {
        return Vec::new();
    }
    let Some(inner) = d
        .help
        .split_once('{')
        .and_then(|(_, rest)| rest.split_once('}'))
        .map(|(inner, _)| inner)
    else {
        return Vec::new();
    };
    inner
        .split(',')
        .map(str::trim)
        .filter(|w| !w.is_empty() && !w.contains(' '))
        .map(|w| Word::new(w, ""))
        .collect()
}

fn opt(d: &OptDef) -> Opt {
    let value = match d.kind {
        Kind::Bool => Value::Optional,
        _ => Value::Attached,
    };
    let choices = match (d.kind, d.name) {
        (Kind::Bool, _) => ["on", "off"].iter().map(|w| Word::new(w, "")).collect(),
        (_, "output-format") => output_format_choices(),
        _ => braced_choices(d),
    };
    let value_name = d.kind.help_form().trim_start_matches(['[', '=']);
    let value_name = value_name.trim_end_matches(']');
    let o = Opt::new(None, Some(d.name), value, d.help)
        .value_name(value_name)
        .choices(choices, d.kind == Kind::List);
    if d.kind == Kind::File {
        o.file()
    } else {
        o
    }
}

/// What the scripts complete: the general and database options, every
/// built-in test's options (they may appear anywhere), the test names
/// (built-in tests and bundled workloads), then the commands.
pub fn spec() -> Spec {
    let general = [
        options::GENERAL,
        options::RAND,
        options::LOG,
        options::STATS,
        options::EXTENSION,
        options::DB,
        options::MYSQL,
        options::PGSQL,
    ];
    let tests = Builtin::ALL.iter().map(|b| b.options());
    let options = general
        .into_iter()
        .chain(tests)
        .flatten()
        .map(opt)
        .collect();
    Spec {
        program: "rsysbench".to_string(),
        options,
        positionals: vec![
            Builtin::ALL
                .iter()
                .map(|b| Word::new(b.name(), b.description()))
                .chain(
                    crate::workloads::NAMES
                        .iter()
                        .map(|n| Word::new(n, "bundled Lua workload")),
                )
                .collect(),
            COMMANDS.iter().map(|(c, h)| Word::new(c, h)).collect(),
        ],
        operand_files: false,
    }
}

/// The script for `shell`.
pub fn render(shell: Shell) -> String {
    completions::render(&spec(), shell)
}
