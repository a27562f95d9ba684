//! Shell completions generated from the option table (the same one the
//! parser, `--help` and the man page use): `riperf
//! --generate-completions=bash|zsh|fish`, committed under `completions/`.

use crate::options::table::{ArgKind, Def, Opt as Key, Section, DEFS};
use rbench_common::completions::{self, output_format_choices, Opt, Shell, Spec, Value, Word};

/// The help text of an option's `--help` lines, joined into one line: the
/// first line's text starts at column 28 (iperf3's layout) or, after a
/// longer synopsis, after two spaces or after the synopsis words.
fn help_text(d: &Def) -> String {
    let Some((first, more)) = d.help.split_first() else {
        return String::new();
    };
    let text = match first.get(28..) {
        Some(rest) if first.as_bytes()[27] == b' ' && !rest.starts_with(' ') => rest.trim(),
        _ => match first.trim().rsplit_once("  ") {
            Some((_, text)) => text.trim(),
            None => {
                let words: Vec<&str> = first.split_whitespace().collect();
                let skip = words
                    .iter()
                    .take_while(|w| w.starts_with(['-', '<', '#', '[']))
                    .count();
                return words[skip..]
                    .iter()
                    .copied()
                    .chain(more.iter().map(|l| l.trim()))
                    .collect::<Vec<_>>()
                    .join(" ");
            }
        },
    };
    std::iter::once(text)
        .chain(more.iter().map(|l| l.trim()))
        .collect::<Vec<_>>()
        .join(" ")
}

fn opt(d: &Def) -> Opt {
    let value = match d.arg {
        ArgKind::None => Value::None,
        ArgKind::Required => Value::Required,
        ArgKind::Optional => Value::Optional,
    };
    let o = Opt::new(d.short, Some(d.long), value, &help_text(d));
    match d.opt {
        Key::Format => o.choices(
            "kmgtKMGT"
                .chars()
                .map(|c| Word::new(&c.to_string(), ""))
                .collect(),
            false,
        ),
        Key::OutputFormat => o.choices(output_format_choices(), false),
        Key::Pidfile
        | Key::File
        | Key::Logfile
        | Key::RsaPrivateKeyPath
        | Key::AuthorizedUsersPath
        | Key::RsaPublicKeyPath => o.file(),
        _ => o,
    }
}

/// What the scripts complete: every listed option (aliases and deprecated
/// ones, hidden from `--help`, are left out here too).
pub fn spec() -> Spec {
    Spec {
        program: "riperf".to_string(),
        options: DEFS
            .iter()
            .filter(|d| d.section != Section::Hidden)
            .map(opt)
            .collect(),
        positionals: Vec::new(),
        operand_files: false,
    }
}

/// The script for `shell`.
pub fn render(shell: Shell) -> String {
    completions::render(&spec(), shell)
}
