//! A getopt_long work-alike driven by [`super::table::DEFS`]: short option
//! clusters (`-uR`), attached values (`-p5201`, `--port=5201`), unique long
//! prefixes (`--rev`), optional arguments only when attached.

use super::table::{ArgKind, Def, Opt, DEFS};

/// A command-line error, with getopt's message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GetoptError(pub String);

/// Split `args` (without the program name) into options and their values.
pub fn getopt(args: &[String]) -> Result<Vec<(Opt, Option<String>)>, GetoptError> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if a == "--" {
            break;
        }
        if let Some(body) = a.strip_prefix("--") {
            let (name, attached) = match body.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (body, None),
            };
            let def = find_long(name)
                .ok_or_else(|| GetoptError(format!("unrecognized option '--{name}'")))?;
            let value = match def.arg {
                ArgKind::None => {
                    if attached.is_some() {
                        return Err(GetoptError(format!(
                            "option '--{}' doesn't allow an argument",
                            def.long
                        )));
                    }
                    None
                }
                ArgKind::Optional => attached,
                ArgKind::Required => match attached {
                    Some(v) => Some(v),
                    None if i < args.len() => {
                        i += 1;
                        Some(args[i - 1].clone())
                    }
                    None => {
                        return Err(GetoptError(format!(
                            "option '--{}' requires an argument",
                            def.long
                        )))
                    }
                },
            };
            out.push((def.opt, value));
        } else if a.len() > 1 && a.starts_with('-') {
            let chars: Vec<char> = a[1..].chars().collect();
            let mut j = 0;
            while j < chars.len() {
                let c = chars[j];
                j += 1;
                let def = DEFS
                    .iter()
                    .find(|d| d.short == Some(c))
                    .ok_or_else(|| GetoptError(format!("invalid option -- '{c}'")))?;
                let rest: String = chars[j..].iter().collect();
                let value = match def.arg {
                    ArgKind::None => None,
                    ArgKind::Optional => {
                        j = chars.len();
                        (!rest.is_empty()).then_some(rest)
                    }
                    ArgKind::Required => {
                        j = chars.len();
                        if !rest.is_empty() {
                            Some(rest)
                        } else if i < args.len() {
                            i += 1;
                            Some(args[i - 1].clone())
                        } else {
                            return Err(GetoptError(format!(
                                "option requires an argument -- '{c}'"
                            )));
                        }
                    }
                };
                out.push((def.opt, value));
            }
        }
        // Non-option words are ignored, as iperf3 does.
    }
    Ok(out)
}

fn find_long(name: &str) -> Option<&'static Def> {
    if let Some(d) = DEFS.iter().find(|d| d.long == name) {
        return Some(d);
    }
    let mut matches = DEFS
        .iter()
        .filter(|d| !name.is_empty() && d.long.starts_with(name));
    let first = matches.next()?;
    // Ambiguous unless every match is the same option (aliases).
    if matches.all(|d| d.opt == first.opt) {
        Some(first)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn parses_like_getopt_long() {
        let r = getopt(&v(&[
            "-c",
            "h",
            "-uR",
            "-p5201",
            "--time=3",
            "--rev",
            "-d",
            "--bitrate",
            "1M",
        ]))
        .unwrap();
        assert_eq!(
            r,
            vec![
                (Opt::Client, Some("h".into())),
                (Opt::Udp, None),
                (Opt::Reverse, None),
                (Opt::Port, Some("5201".into())),
                (Opt::Time, Some("3".into())),
                (Opt::Reverse, None),
                (Opt::Debug, None),
                (Opt::Bitrate, Some("1M".into())),
            ]
        );
        assert_eq!(
            getopt(&v(&["--bogus"])),
            Err(GetoptError("unrecognized option '--bogus'".into()))
        );
        assert_eq!(
            getopt(&v(&["-x"])),
            Err(GetoptError("invalid option -- 'x'".into()))
        );
        assert!(getopt(&v(&["-p"])).is_err());
    }
}
