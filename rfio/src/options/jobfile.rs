//! Job files: fio's INI dialect (§1.3).

use crate::failure::Failure;
use std::path::{Path, PathBuf};

/// One `[section]` with its option lines (`key`, value as written).
#[derive(Debug, Clone)]
pub struct Section {
    pub name: String,
    pub lines: Vec<(String, Option<String>)>,
}

impl Section {
    pub fn is_global(&self) -> bool {
        self.name.starts_with("global")
    }
}

/// Read and split a job file into sections; `-` is stdin.
pub fn read(path: &str) -> Result<Vec<Section>, Failure> {
    let text = if path == "-" {
        std::io::read_to_string(std::io::stdin()).ok()
    } else {
        std::fs::read_to_string(path).ok()
    }
    .ok_or_else(|| Failure::stderr(format!("fio: unable to open '{path}' job file\n")))?;
    let dir = Path::new(path).parent().map(Path::to_path_buf);
    let mut sections: Vec<Section> = Vec::new();
    parse_lines(&text, dir.as_deref(), &mut sections, false)?;
    Ok(sections)
}

/// Remove comments and blanks: whole-line `;`/`#` comments, and everything
/// from the first `;` or `#` in other lines (fio's rule, so values cannot
/// contain them).
fn strip(line: &str) -> &str {
    let t = line.trim_start();
    let t = match t.find([';', '#']) {
        Some(i) => &t[..i],
        None => t,
    };
    t.trim_end_matches(|c: char| c.is_whitespace() || c.is_control())
}

fn parse_lines(
    text: &str,
    dir: Option<&Path>,
    sections: &mut Vec<Section>,
    included: bool,
) -> Result<(), Failure> {
    for raw in text.lines() {
        let line = strip(raw);
        if line.is_empty() {
            continue;
        }
        if let Some(rest) = line.strip_prefix('[') {
            if included {
                return Err(Failure::stderr("No new sections in included files\n"));
            }
            // fio drops the last character whatever it is, so `[broken`
            // becomes job `broke`; we refuse it instead.
            let Some(name) = rest.strip_suffix(']') else {
                return Err(Failure::stderr(format!(
                    "fio: section header <{line}> is missing its closing ']'\n"
                )));
            };
            sections.push(Section {
                name: name.to_string(),
                lines: Vec::new(),
            });
            continue;
        }
        let Some(section) = sections.last_mut() else {
            return Err(Failure::stderr(format!(
                "fio: option <{line}> outside of [] job section\n"
            )));
        };
        if let Some(file) = line.strip_prefix("include ") {
            let file = file.trim();
            let mut candidates = vec![PathBuf::from(file)];
            if let Some(d) = dir {
                candidates.push(d.join(file));
            }
            let found = candidates
                .iter()
                .find_map(|p| std::fs::read_to_string(p).ok().map(|t| (t, p.clone())));
            let Some((inc, p)) = found else {
                return Err(Failure::stderr(format!(
                    "fio: unable to open '{file}' include file\n"
                )));
            };
            parse_lines(&inc, p.parent(), sections, true)?;
            continue;
        }
        let line = substitute(line);
        let (k, v) = match line.split_once('=') {
            Some((k, v)) => (k.trim().to_string(), Some(v.trim().to_string())),
            None => (line.trim().to_string(), None),
        };
        section.lines.push((k, v));
    }
    Ok(())
}

/// `${VAR}` from the environment, then `$ncpus`, `$pagesize`, `$mb_memory`.
fn substitute(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(i) = rest.find("${") {
        out.push_str(&rest[..i]);
        match rest[i + 2..].find('}') {
            Some(j) => {
                let var = &rest[i + 2..i + 2 + j];
                out.push_str(&std::env::var(var).unwrap_or_default());
                rest = &rest[i + 3 + j..];
            }
            None => {
                out.push_str(&rest[i..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    let ncpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    // SAFETY: sysconf has no preconditions.
    let (pagesize, pages) = unsafe {
        (
            libc::sysconf(libc::_SC_PAGESIZE).max(1) as u64,
            libc::sysconf(libc::_SC_PHYS_PAGES).max(0) as u64,
        )
    };
    let before = out.clone();
    let out = out
        .replace("$ncpus", &ncpus.to_string())
        .replace("$pagesize", &pagesize.to_string())
        .replace("$mb_memory", &(pages * pagesize / (1 << 20)).to_string());
    if out != before {
        if let Some((k, v)) = out.split_once('=') {
            if let Some(n) = eval(v.trim()) {
                return format!("{k}={n}");
            }
        }
    }
    out
}

/// Integer arithmetic `+ - * /` (left to right, `*`/`/` first), as fio
/// evaluates substituted values through `bc`.
fn eval(expr: &str) -> Option<i64> {
    if !expr.contains(['+', '-', '*', '/']) {
        return None;
    }
    let mut terms: Vec<(char, i64)> = Vec::new();
    let mut op = '+';
    for tok in expr
        .split_inclusive(['+', '-'])
        .map(str::trim)
        .filter(|t| !t.is_empty())
    {
        let (body, next) = match tok.chars().last() {
            Some(c @ ('+' | '-')) => (&tok[..tok.len() - 1], c),
            _ => (tok, '+'),
        };
        let mut v: Option<i64> = None;
        let mut mop = '*';
        for f in body.split_inclusive(['*', '/']) {
            let (num, o) = match f.chars().last() {
                Some(c @ ('*' | '/')) => (&f[..f.len() - 1], c),
                _ => (f, '*'),
            };
            let n: i64 = num.trim().parse().ok()?;
            v = Some(match (v, mop) {
                (None, _) => n,
                (Some(a), '*') => a.checked_mul(n)?,
                (Some(a), _) => a.checked_div(n)?,
            });
            mop = o;
        }
        terms.push((op, v?));
        op = next;
    }
    Some(
        terms
            .iter()
            .map(|(o, v)| if *o == '-' { -v } else { *v })
            .sum(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_values() {
        assert_eq!(strip("  bs=4k ; block size"), "bs=4k");
        assert_eq!(strip("# all comment"), "");
        assert_eq!(strip("rw=read\t\r"), "rw=read");
    }

    #[test]
    fn arithmetic_after_substitution() {
        assert_eq!(eval("4*2"), Some(8));
        assert_eq!(eval("2+3*4-1"), Some(13));
        assert_eq!(eval("8/2"), Some(4));
        assert_eq!(eval("8"), None);
        std::env::set_var("RFIO_TEST_BS", "8k");
        assert_eq!(substitute("bs=${RFIO_TEST_BS}"), "bs=8k");
        let n = std::thread::available_parallelism().unwrap().get();
        assert_eq!(substitute("numjobs=$ncpus*2"), format!("numjobs={}", n * 2));
    }

    #[test]
    fn sections_and_errors() {
        let mut s = Vec::new();
        parse_lines(
            "[global]\nbs=4k\n[job]\nrw=read\ntime_based\n",
            None,
            &mut s,
            false,
        )
        .unwrap();
        assert_eq!(s.len(), 2);
        assert!(s[0].is_global());
        assert_eq!(s[1].lines[1], ("time_based".to_string(), None));
        let mut s = Vec::new();
        assert!(parse_lines("rw=read\n[job]\n", None, &mut s, false).is_err());
        let mut s = Vec::new();
        assert!(parse_lines("[broken\nrw=read\n", None, &mut s, false).is_err());
    }
}
