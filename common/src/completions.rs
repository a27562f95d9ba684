//! Shell completion scripts (bash, zsh, fish) generated from a tool's own
//! option table, so completions cannot drift from the parser (STYLE:
//! ripgrep's "a flag is defined once"). The tools parse with hand-written
//! tables (getopt and sysbench quirks), not clap, so each tool maps its
//! table into a [`Spec`] and calls [`render`] from a hidden option.

use std::fmt::Write;
use std::str::FromStr;

/// A shell we write completions for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
}

impl Shell {
    pub const ALL: [Shell; 3] = [Shell::Bash, Shell::Zsh, Shell::Fish];

    /// The file name the script is installed (and committed) under.
    pub fn file_name(self, program: &str) -> String {
        match self {
            Shell::Bash => format!("{program}.bash"),
            Shell::Zsh => format!("_{program}"),
            Shell::Fish => format!("{program}.fish"),
        }
    }
}

impl FromStr for Shell {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "bash" => Ok(Shell::Bash),
            "zsh" => Ok(Shell::Zsh),
            "fish" => Ok(Shell::Fish),
            _ => Err(format!("unknown shell '{s}': use bash, zsh or fish")),
        }
    }
}

/// How an option takes its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Value {
    /// A flag.
    None,
    /// getopt style: attached (`-n3`, `--x=3`) or the next word (`-n 3`).
    Required,
    /// sysbench style: only attached (`--x=3`); the next word is not its value.
    Attached,
    /// sysbench booleans: bare `--x` or `--x=on`.
    Optional,
}

/// A word the user may type: an option value or a positional word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    pub word: String,
    pub help: String,
}

impl Word {
    pub fn new(word: &str, help: &str) -> Word {
        Word {
            word: word.to_string(),
            help: help.to_string(),
        }
    }
}

/// One option as the completions see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opt {
    pub short: Option<char>,
    pub long: Option<String>,
    pub value: Value,
    /// The value's name (`N`, `FORMAT`), shown by zsh.
    pub value_name: String,
    /// The values it accepts, if they are a fixed set.
    pub choices: Vec<Word>,
    /// The value is a comma-separated list of `choices`.
    pub list: bool,
    /// The value is a file name.
    pub file: bool,
    pub help: String,
}

impl Opt {
    /// An option: at least one of `short` and `long`.
    pub fn new(short: Option<char>, long: Option<&str>, value: Value, help: &str) -> Opt {
        Opt {
            short,
            long: long.map(str::to_string),
            value,
            value_name: "VALUE".to_string(),
            choices: Vec::new(),
            list: false,
            file: false,
            help: help.to_string(),
        }
    }

    pub fn value_name(mut self, name: &str) -> Opt {
        self.value_name = name.to_string();
        self
    }

    /// The value is a file name (completed from the file system).
    pub fn file(mut self) -> Opt {
        self.file = true;
        self
    }

    /// The fixed set of values; `list` when a comma-separated list of them is taken.
    pub fn choices(mut self, choices: Vec<Word>, list: bool) -> Opt {
        self.choices = choices;
        self.list = list;
        self
    }
}

/// Everything the scripts complete for one program.
#[derive(Debug, Clone, Default)]
pub struct Spec {
    pub program: String,
    pub options: Vec<Opt>,
    /// Words for the first, second, ... non-option argument (rsysbench's
    /// test names, then its commands); empty when operands are free.
    pub positionals: Vec<Vec<Word>>,
    /// Other operands are file names (rfio's job files); else nothing is offered.
    pub operand_files: bool,
}

/// The completion script for `shell`.
pub fn render(spec: &Spec, shell: Shell) -> String {
    match shell {
        Shell::Bash => bash(spec),
        Shell::Zsh => zsh(spec),
        Shell::Fish => fish(spec),
    }
}

/// The longest description shown in a menu.
const SUMMARY_MAX: usize = 72;

/// A help text shortened for a menu: the first sentence, on one line,
/// without a parenthesised aside, at most [`SUMMARY_MAX`] characters.
fn summary(help: &str) -> String {
    let one_line = help.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut s = match one_line.find(". ") {
        Some(i) => &one_line[..i],
        None => one_line.trim_end_matches('.'),
    };
    if let Some(i) = s.find(" (").filter(|&i| i >= 12) {
        s = &s[..i];
    }
    if s.chars().count() <= SUMMARY_MAX {
        return s.to_string();
    }
    let cut: String = s.chars().take(SUMMARY_MAX - 3).collect();
    let cut = cut.rsplit_once(' ').map_or(cut.as_str(), |(head, _)| head);
    format!("{}...", cut.trim_end_matches([',', ';', ':']))
}

/// A shell function name part: the program name with non-word characters as `_`.
fn ident(program: &str) -> String {
    program
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// Quote for the shell inside single quotes (bash, zsh, fish all accept `'\''`
/// except fish, which takes `\'`; see [`fish_quote`]).
fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

fn words(ws: &[Word]) -> String {
    ws.iter()
        .map(|w| w.word.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The spellings that take their value from the next word (getopt style).
fn separate_value_names(spec: &Spec) -> Vec<String> {
    let mut names = Vec::new();
    for o in spec.options.iter().filter(|o| o.value == Value::Required) {
        names.extend(o.short.map(|c| format!("-{c}")));
        names.extend(o.long.as_ref().map(|l| format!("--{l}")));
    }
    names
}

fn bash(spec: &Spec) -> String {
    let p = &spec.program;
    let f = format!("_{}", ident(p));
    let mut s = format!(
        "# bash completion for {p}; generated by `{p} --generate-completions=bash`.\n\
         # Do not edit: it is made from the option table.\n\n{f}()\n{{\n"
    );
    s.push_str(
        "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n    \
         local opt=\"\" pre=\"\"\n    \
         # `--x=v` is one word or three (`--x` `=` `v`) depending on COMP_WORDBREAKS.\n    \
         if [[ $cur == \"=\" ]]; then\n        opt=$prev cur=\"\"\n    \
         elif [[ $prev == \"=\" && $COMP_CWORD -ge 2 ]]; then\n        opt=${COMP_WORDS[COMP_CWORD-2]}\n    \
         elif [[ $cur == --*=* ]]; then\n        opt=${cur%%=*} pre=\"$opt=\" cur=${cur#*=}\n    \
         fi\n",
    );
    // Values after `=`.
    s.push_str("    if [[ -n $opt ]]; then\n        case $opt in\n");
    for o in &spec.options {
        let (Some(l), false) = (&o.long, o.value == Value::None) else {
            continue;
        };
        let _ = writeln!(s, "            --{l}) {} ;;", bash_values(o));
    }
    s.push_str("        esac\n        return 0\n    fi\n");
    // Values in the next word.
    let separate: Vec<&Opt> = spec
        .options
        .iter()
        .filter(|o| o.value == Value::Required)
        .collect();
    if !separate.is_empty() {
        s.push_str("    case $prev in\n");
        for o in separate {
            let names: Vec<String> = o
                .short
                .map(|c| format!("-{c}"))
                .into_iter()
                .chain(o.long.as_ref().map(|l| format!("--{l}")))
                .collect();
            let _ = writeln!(
                s,
                "        {}) {} return 0 ;;",
                names.join("|"),
                bash_values(o)
            );
        }
        s.push_str("    esac\n");
    }
    // Option names.
    let mut names = Vec::new();
    for o in &spec.options {
        names.extend(o.short.map(|c| format!("-{c}")));
        if let Some(l) = &o.long {
            names.push(match o.value {
                Value::Required | Value::Attached => format!("--{l}="),
                Value::None | Value::Optional => format!("--{l}"),
            });
        }
    }
    let _ = write!(
        s,
        "    if [[ $cur == -* ]]; then\n        \
         COMPREPLY=($(compgen -W {} -- \"$cur\"))\n        \
         [[ ${{#COMPREPLY[@]}} -eq 1 && ${{COMPREPLY[0]}} == *= ]] && compopt -o nospace 2>/dev/null\n        \
         return 0\n    fi\n",
        sh_quote(&names.join(" "))
    );
    if !spec.positionals.is_empty() {
        let skip = separate_value_names(spec).join("|");
        s.push_str("    local i n=0\n    for ((i = 1; i < COMP_CWORD; i++)); do\n        case ${COMP_WORDS[i]} in\n");
        s.push_str("            =) ((i++)) ;;\n");
        if !skip.is_empty() {
            let _ = writeln!(s, "            {skip}) ((i++)) ;;");
        }
        s.push_str("            -*) ;;\n            *) [[ ${COMP_WORDS[i-1]} == \"=\" ]] || ((n++)) ;;\n        esac\n    done\n    case $n in\n");
        for (i, ws) in spec.positionals.iter().enumerate() {
            let _ = writeln!(
                s,
                "        {i}) COMPREPLY=($(compgen -W {} -- \"$cur\")) ;;",
                sh_quote(&words(ws))
            );
        }
        s.push_str("    esac\n");
    }
    if spec.operand_files {
        s.push_str("    [[ ${#COMPREPLY[@]} -gt 0 ]] || COMPREPLY=($(compgen -f -- \"$cur\"))\n");
    }
    let _ = write!(s, "}}\n\ncomplete -F {f} {p}\n");
    s
}

/// The bash statement completing `o`'s value in `$cur` (with `$pre` kept).
fn bash_values(o: &Opt) -> String {
    if o.file {
        return "COMPREPLY=($(compgen -P \"$pre\" -f -- \"$cur\"));".to_string();
    }
    if o.choices.is_empty() {
        return ":;".to_string();
    }
    let ws = sh_quote(&words(&o.choices));
    if o.list {
        // Complete the item after the last comma, keeping the ones before.
        format!(
            "local done=\"\"; [[ $cur == *,* ]] && done=${{cur%,*}},; \
             COMPREPLY=($(compgen -P \"$pre$done\" -W {ws} -- \"${{cur##*,}}\"));"
        )
    } else {
        format!("COMPREPLY=($(compgen -P \"$pre\" -W {ws} -- \"$cur\"));")
    }
}

/// Escape for an `_arguments` description inside `[...]`.
fn zsh_desc(s: &str) -> String {
    summary(s)
        .replace('\\', r"\\")
        .replace('[', r"\[")
        .replace(']', r"\]")
        .replace(':', r"\:")
}

/// The `:name:action` part of a zsh option spec.
fn zsh_action(o: &Opt) -> String {
    let name = o.value_name.replace(':', r"\:");
    let action = if o.file {
        "_files".to_string()
    } else if o.choices.is_empty() {
        " ".to_string()
    } else if o.list {
        let mut v = format!("_values -s , {}", o.value_name);
        for c in &o.choices {
            let _ = write!(v, " {}", zsh_value_item(c));
        }
        v
    } else {
        let items: Vec<String> = o
            .choices
            .iter()
            .map(|c| {
                if c.help.is_empty() {
                    c.word.clone()
                } else {
                    format!(
                        "{}\\:\"{}\"",
                        c.word,
                        zsh_desc(&c.help).replace('"', "\\\"")
                    )
                }
            })
            .collect();
        format!("(({}))", items.join(" "))
    };
    format!("{name}:{action}")
}

/// One `_values` item: `word[help]`, quoted for the shell.
fn zsh_value_item(c: &Word) -> String {
    if c.help.is_empty() {
        format!("\"{}\"", c.word)
    } else {
        format!("\"{}[{}]\"", c.word, zsh_desc(&c.help).replace('"', "\\\""))
    }
}

fn zsh(spec: &Spec) -> String {
    let p = &spec.program;
    let mut specs = Vec::new();
    for o in &spec.options {
        let desc = zsh_desc(&o.help);
        let mut forms = Vec::new();
        if let Some(c) = o.short {
            forms.push(match o.value {
                Value::None => format!("-{c}[{desc}]"),
                Value::Optional => format!("-{c}-[{desc}]::{}", zsh_action(o)),
                Value::Required | Value::Attached => format!("-{c}+[{desc}]:{}", zsh_action(o)),
            });
        }
        if let Some(l) = &o.long {
            forms.push(match o.value {
                Value::None => format!("--{l}[{desc}]"),
                Value::Required => format!("--{l}=[{desc}]:{}", zsh_action(o)),
                Value::Attached => format!("--{l}=-[{desc}]:{}", zsh_action(o)),
                Value::Optional => format!("--{l}=-[{desc}]::{}", zsh_action(o)),
            });
        }
        // Options may be repeated (the last one wins), so no exclusion lists.
        specs.extend(
            forms
                .into_iter()
                .map(|f| format!("'*{}'", f.replace('\'', r"'\''"))),
        );
    }
    for (i, ws) in spec.positionals.iter().enumerate() {
        let items: Vec<String> = ws
            .iter()
            .map(|w| {
                format!(
                    "{}\\:\"{}\"",
                    w.word,
                    zsh_desc(&w.help).replace('"', "\\\"")
                )
            })
            .collect();
        let f = format!("{}:word:(({}))", i + 1, items.join(" "));
        specs.push(format!("'{}'", f.replace('\'', r"'\''")));
    }
    if spec.operand_files {
        specs.push("'*:file:_files'".to_string());
    }
    let mut s = format!(
        "#compdef {p}\n# zsh completion for {p}; generated by `{p} --generate-completions=zsh`.\n\
         # Do not edit: it is made from the option table.\n\n_arguments -s -S \\\n"
    );
    for (i, sp) in specs.iter().enumerate() {
        let _ = writeln!(s, "  {sp}{}", if i + 1 < specs.len() { " \\" } else { "" });
    }
    s
}

/// Quote for fish: inside single quotes only `\` and `'` are special.
fn fish_quote(s: &str) -> String {
    format!("'{}'", s.replace('\\', r"\\").replace('\'', r"\'"))
}

fn fish(spec: &Spec) -> String {
    let p = &spec.program;
    let mut s = format!(
        "# fish completion for {p}; generated by `{p} --generate-completions=fish`.\n\
         # Do not edit: it is made from the option table.\n\n"
    );
    let cmd = format!("complete -c {p}");
    if !spec.operand_files {
        // Operands are words (or numbers), not file names.
        let _ = writeln!(s, "{cmd} -f");
    }
    if !spec.positionals.is_empty() {
        let f = format!("__{}_operands", ident(p));
        let skip = separate_value_names(spec);
        let _ = writeln!(
            s,
            "# How many non-option words precede the cursor.\nfunction {f}"
        );
        s.push_str("    set -l n 0\n    set -l skip 0\n    for w in (commandline -opc)[2..-1]\n");
        s.push_str("        if test $skip -eq 1\n            set skip 0\n        else if string match -q -- '-*' $w\n");
        if !skip.is_empty() {
            let _ = writeln!(
                s,
                "            contains -- $w {}; and set skip 1",
                skip.join(" ")
            );
        }
        s.push_str("        else\n            set n (math $n + 1)\n        end\n    end\n    echo $n\nend\n\n");
        for (i, ws) in spec.positionals.iter().enumerate() {
            for w in ws {
                let _ = writeln!(
                    s,
                    "{cmd} -n 'test ({f}) -eq {i}' -f -a {} -d {}",
                    fish_quote(&w.word),
                    fish_quote(&summary(&w.help))
                );
            }
        }
        s.push('\n');
    }
    for o in &spec.options {
        let mut line = cmd.clone();
        if let Some(c) = o.short {
            let _ = write!(line, " -s {c}");
        }
        if let Some(l) = &o.long {
            let _ = write!(line, " -l {l}");
        }
        match o.value {
            Value::None | Value::Optional => {}
            Value::Required | Value::Attached if o.file => line.push_str(" -r -F"),
            Value::Required | Value::Attached if o.choices.is_empty() => line.push_str(" -r"),
            Value::Required | Value::Attached => {
                let _ = write!(line, " -x -a {}", fish_quote(&words(&o.choices)));
            }
        }
        let _ = writeln!(s, "{line} -d {}", fish_quote(&summary(&o.help)));
    }
    s
}

/// The shared `--output-format` values, as completions offer them.
pub fn output_format_choices() -> Vec<Word> {
    use crate::output::OutputFormat;
    [
        (OutputFormat::Text, "the original tool's text"),
        (OutputFormat::Json, "one JSON document"),
        (OutputFormat::Csv, "one header row, then rows"),
    ]
    .iter()
    .map(|(f, help)| Word::new(&f.to_string(), help))
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Spec {
        Spec {
            program: "rx".into(),
            options: vec![
                Opt::new(Some('n'), None, Value::Required, "Runs. More text."),
                Opt::new(None, Some("mode"), Value::Attached, "it's a mode: a]b").choices(
                    vec![Word::new("seq", "in order"), Word::new("rnd", "")],
                    false,
                ),
                Opt::new(None, Some("debug"), Value::Optional, "debug")
                    .choices(vec![Word::new("on", ""), Word::new("off", "")], false),
                Opt::new(None, Some("conf"), Value::Attached, "a file").file(),
            ],
            positionals: vec![vec![Word::new("cpu", "the CPU test")]],
            operand_files: false,
        }
    }

    #[test]
    fn summaries_are_one_short_sentence() {
        assert_eq!(
            summary("Runs per test. Each run is one copy."),
            "Runs per test"
        );
        assert_eq!(
            summary("Do not print the AVG line (or row) after."),
            "Do not print the AVG line"
        );
        assert_eq!(summary("multi\n   line."), "multi line");
        let long = summary(&"word ".repeat(40));
        assert!(
            long.ends_with("...") && long.chars().count() <= SUMMARY_MAX,
            "{long}"
        );
    }

    #[test]
    fn shells_by_name() {
        assert_eq!("zsh".parse::<Shell>(), Ok(Shell::Zsh));
        assert!("tcsh"
            .parse::<Shell>()
            .unwrap_err()
            .contains("bash, zsh or fish"));
        assert_eq!(Shell::Zsh.file_name("rx"), "_rx");
    }

    #[test]
    fn bash_script_quotes_and_lists() {
        let s = render(&sample(), Shell::Bash);
        assert!(s.contains("complete -F _rx rx\n"));
        assert!(s.contains("'-n --mode= --debug --conf='"));
        assert!(s.contains("--mode) COMPREPLY=($(compgen -P \"$pre\" -W 'seq rnd' -- \"$cur\"));"));
        assert!(s.contains("--conf) COMPREPLY=($(compgen -P \"$pre\" -f -- \"$cur\"));"));
        // `-n` takes the next word: it is skipped when counting operands.
        assert!(s.contains("            -n) ((i++)) ;;\n"));
        assert!(s.contains("0) COMPREPLY=($(compgen -W 'cpu' -- \"$cur\")) ;;"));
    }

    #[test]
    fn zsh_script_escapes_descriptions() {
        let s = render(&sample(), Shell::Zsh);
        assert!(s.starts_with("#compdef rx\n"));
        assert!(
            s.contains(r#"'*--mode=-[it'\''s a mode\: a\]b]:VALUE:((seq\:"in order" rnd))'"#),
            "{s}"
        );
        assert!(s.contains("'*--debug=-[debug]::VALUE:((on off))'"), "{s}");
        assert!(s.contains("'*-n+[Runs]:VALUE: '"), "{s}");
        assert!(s.contains("'*--conf=-[a file]:VALUE:_files'"), "{s}");
        assert!(s.contains(r#"'1:word:((cpu\:"the CPU test"))'"#), "{s}");
    }

    #[test]
    fn fish_script_quotes() {
        let s = render(&sample(), Shell::Fish);
        assert!(
            s.contains(r"complete -c rx -l mode -x -a 'seq rnd' -d 'it\'s a mode: a]b'"),
            "{s}"
        );
        assert!(
            s.contains("complete -c rx -l conf -r -F -d 'a file'"),
            "{s}"
        );
        assert!(s.contains("contains -- $w -n; and set skip 1"), "{s}");
        assert!(
            s.contains(
                "complete -c rx -n 'test (__rx_operands) -eq 0' -f -a 'cpu' -d 'the CPU test'"
            ),
            "{s}"
        );
    }
}
