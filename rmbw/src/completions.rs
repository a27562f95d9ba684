//! Shell completions generated from the option table (the same one the
//! parser, `-h`, `--help` and the man page use): `rmbw
//! --generate-completions=bash|zsh|fish`, committed under `completions/`.

use crate::kernels::Method;
use crate::options::table::{Key, OPTIONS};
use rbench_common::completions::{self, output_format_choices, Opt, Shell, Spec, Value, Word};

/// The values an option accepts, where they are a fixed set (as the parser
/// in `options/mod.rs` reads them).
fn choices(key: Key) -> (Vec<Word>, bool) {
    match key {
        Key::Test => (
            Method::ALL[..3]
                .iter()
                .enumerate()
                .map(|(i, m)| Word::new(&i.to_string(), m.label()))
                .collect(),
            false,
        ),
        Key::Tests => {
            let mut ws: Vec<Word> = Method::ALL
                .iter()
                .map(|m| Word::new(m.name(), m.label()))
                .collect();
            ws.push(Word::new("stream", "the four STREAM kernels"));
            ws.push(Word::new("mbw", "mbw's three tests"));
            ws.push(Word::new("all", "all seven tests"));
            (ws, true)
        }
        Key::OutputFormat => (output_format_choices(), false),
        _ => (Vec::new(), false),
    }
}

/// What the scripts complete, from the table.
pub fn spec() -> Spec {
    let options = OPTIONS
        .iter()
        .filter(|o| !o.hidden)
        .map(|o| {
            let value = if o.arg.is_some() {
                Value::Required
            } else {
                Value::None
            };
            let (ws, list) = choices(o.key);
            // The table's paragraph starts with each value's meaning.
            let help = match o.key {
                Key::OutputFormat => "Output format: text, json or csv",
                _ => o.help,
            };
            Opt::new(o.short, o.long, value, help)
                .value_name(o.arg.unwrap_or("VALUE"))
                .choices(ws, list)
        })
        .collect();
    Spec {
        program: "rmbw".to_string(),
        options,
        // The operand is the array size in MiB: nothing to offer.
        positionals: Vec::new(),
        operand_files: false,
    }
}

/// The script for `shell`.
pub fn render(shell: Shell) -> String {
    completions::render(&spec(), shell)
}
