//! A GNU getopt_long work-alike driven by the option table (spec §1): short
//! options combine (`-qa`), values attach or follow (`-n3`, `-n 3`), options
//! and operands permute unless POSIXLY_CORRECT is set, `--` ends options.
//! Diagnostics use glibc's wording with the program name as invoked, and the
//! offending option is then ignored, as with mbw.

use super::table::{by_short, OptDef, OPTIONS};

/// What the command line said, in order.
#[derive(Debug, Clone)]
pub enum Event {
    /// An option with its value, if it takes one.
    Opt(&'static OptDef, Option<String>),
    /// A getopt diagnostic (printed on stderr; the option is ignored).
    Warning(String),
    /// A non-option argument.
    Operand(String),
}

/// Parse `args` (without the program name) as getopt_long would.
pub fn getopt(prog: &str, args: &[String], posixly_correct: bool) -> Vec<Event> {
    let mut events = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        if arg == "--" {
            events.extend(args[i..].iter().cloned().map(Event::Operand));
            break;
        }
        if let Some(long) = arg.strip_prefix("--") {
            i += long_option(prog, long, &args[i..], &mut events);
        } else if arg.len() > 1 && arg.starts_with('-') {
            i += short_cluster(prog, &arg[1..], &args[i..], &mut events);
        } else if posixly_correct {
            events.extend(args[i - 1..].iter().cloned().map(Event::Operand));
            break;
        } else {
            events.push(Event::Operand(arg.clone()));
        }
    }
    events
}

/// One `-abc` group; returns how many following arguments it consumed.
fn short_cluster(prog: &str, cluster: &str, next: &[String], events: &mut Vec<Event>) -> usize {
    for (pos, c) in cluster.char_indices() {
        let Some(def) = by_short(c) else {
            events.push(Event::Warning(format!("{prog}: invalid option -- '{c}'")));
            continue;
        };
        if def.arg.is_none() {
            events.push(Event::Opt(def, None));
            continue;
        }
        let attached = &cluster[pos + c.len_utf8()..];
        if !attached.is_empty() {
            events.push(Event::Opt(def, Some(attached.to_string())));
            return 0;
        }
        return match next.first() {
            Some(v) => {
                events.push(Event::Opt(def, Some(v.clone())));
                1
            }
            None => {
                events.push(Event::Warning(format!(
                    "{prog}: option requires an argument -- '{c}'"
                )));
                0
            }
        };
    }
    0
}

/// One `--name[=value]`; returns how many following arguments it consumed.
fn long_option(prog: &str, text: &str, next: &[String], events: &mut Vec<Event>) -> usize {
    let (name, value) = match text.split_once('=') {
        Some((n, v)) => (n, Some(v)),
        None => (text, None),
    };
    let longs = || OPTIONS.iter().filter(|o| o.long.is_some());
    let def = match longs().find(|o| o.long == Some(name)) {
        Some(d) => d,
        None => {
            let candidates: Vec<&'static OptDef> = longs()
                .filter(|o| o.long.is_some_and(|l| l.starts_with(name)) && !o.hidden)
                .collect();
            match candidates.as_slice() {
                [one] => *one,
                [] => {
                    events.push(Event::Warning(format!(
                        "{prog}: unrecognized option '--{text}'"
                    )));
                    return 0;
                }
                many => {
                    let list: String = many
                        .iter()
                        .filter_map(|o| o.long)
                        .map(|l| format!(" '--{l}'"))
                        .collect();
                    events.push(Event::Warning(format!(
                        "{prog}: option '--{name}' is ambiguous; possibilities:{list}"
                    )));
                    return 0;
                }
            }
        }
    };
    let full = def.long.unwrap_or(name);
    match (def.arg, value) {
        (None, None) => {
            events.push(Event::Opt(def, None));
            0
        }
        (None, Some(_)) => {
            events.push(Event::Warning(format!(
                "{prog}: option '--{full}' doesn't allow an argument"
            )));
            0
        }
        (Some(_), Some(v)) => {
            events.push(Event::Opt(def, Some(v.to_string())));
            0
        }
        (Some(_), None) => match next.first() {
            Some(v) => {
                events.push(Event::Opt(def, Some(v.clone())));
                1
            }
            None => {
                events.push(Event::Warning(format!(
                    "{prog}: option '--{full}' requires an argument"
                )));
                0
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::super::table::Key;
    use super::*;

    fn run(args: &[&str], posix: bool) -> Vec<String> {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        getopt("mbw", &args, posix)
            .into_iter()
            .map(|e| match e {
                Event::Opt(d, v) => format!("{:?}={}", d.key, v.unwrap_or_default()),
                Event::Warning(w) => format!("W:{w}"),
                Event::Operand(o) => format!("O:{o}"),
            })
            .collect()
    }

    #[test]
    fn combined_attached_and_separate_values() {
        assert_eq!(
            run(&["-qa", "-n3", "-t", "0", "8"], false),
            ["Quiet=", "NoAverage=", "Runs=3", "Test=0", "O:8"]
        );
        assert_eq!(run(&["-qn", "2", "8"], false), ["Quiet=", "Runs=2", "O:8"]);
    }

    #[test]
    fn permutes_unless_posixly_correct() {
        assert_eq!(run(&["8", "-q"], false), ["O:8", "Quiet="]);
        assert_eq!(run(&["8", "-q"], true), ["O:8", "O:-q"]);
        assert_eq!(
            run(&["-q", "--", "-1", "-a"], false),
            ["Quiet=", "O:-1", "O:-a"]
        );
    }

    #[test]
    fn warnings_in_glibc_wording() {
        assert_eq!(
            run(&["-x", "-n"], false),
            [
                "W:mbw: invalid option -- 'x'",
                "W:mbw: option requires an argument -- 'n'"
            ]
        );
        assert_eq!(
            run(&["--nope=1"], false),
            ["W:mbw: unrecognized option '--nope=1'"]
        );
        assert_eq!(
            run(&["--help=1"], false),
            ["W:mbw: option '--help' doesn't allow an argument"]
        );
        assert_eq!(
            run(&["--threads"], false),
            ["W:mbw: option '--threads' requires an argument"]
        );
        assert_eq!(
            run(&["--t=1"], false),
            ["W:mbw: option '--t' is ambiguous; possibilities: '--threads' '--test'"]
        );
    }

    #[test]
    fn long_options_with_and_without_equals() {
        assert_eq!(
            run(&["--threads=2", "--test", "copy", "--thr", "3"], false),
            ["Threads=2", "Tests=copy", "Threads=3"]
        );
        assert!(matches!(
            getopt("p", &["--version".to_string()], false)[0],
            Event::Opt(d, None) if d.key == Key::Version
        ));
    }

    #[test]
    fn a_value_may_start_with_a_dash() {
        assert_eq!(run(&["-n", "-1", "8"], false), ["Runs=-1", "O:8"]);
        assert_eq!(run(&["-"], false), ["O:-"]);
    }
}
