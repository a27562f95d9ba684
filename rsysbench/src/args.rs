//! The command line as sysbench 1.0.20 reads it (spec §1): `--name=value`
//! or bare `--name` anywhere, other items are words (testname, command);
//! general options are matched first, the leftovers later against the
//! test's own table. Values are typed when read, so a bad number is
//! reported at the moment sysbench would report it.

use std::collections::HashMap;

use rbench_common::units::sysbench::parse_size;

use crate::error::{Fail, Result};
use crate::options::{self, internal_name, Kind, OptDef};

/// Option values as typed; `None` is a cleared value (`--x=` or bare `--x`).
#[derive(Debug, Default, Clone)]
pub struct Values {
    set: HashMap<String, Option<String>>,
    /// The tables the values may come from (for defaults).
    defs: Vec<&'static OptDef>,
}

/// What the first pass made of the command line.
#[derive(Debug, Default)]
pub struct CommandLine {
    pub testname: Option<String>,
    pub command: Option<String>,
    /// `--x` items no first-pass option took (test options, or unknown).
    pub leftovers: Vec<String>,
    pub values: Values,
    /// Lines sysbench prints on stderr while parsing (deprecations, config file).
    pub stderr_notes: Vec<String>,
}

/// A C `strtol` over the whole string (leading blanks and a sign allowed),
/// in the range of a C int.
pub fn parse_c_int(s: &str) -> Option<i64> {
    let t = s.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let v: i64 = t.strip_prefix('+').unwrap_or(t).parse().ok()?;
    (i32::MIN as i64..=i32::MAX as i64)
        .contains(&v)
        .then_some(v)
}

/// sysbench's boolean words; anything else is not a boolean.
fn parse_bool(v: Option<&str>) -> Option<bool> {
    match v {
        None => Some(true),
        Some("on" | "true" | "1") => Some(true),
        Some("off" | "false" | "0" | "") => Some(false),
        Some(_) => None,
    }
}

impl Values {
    fn def(&self, name: &str) -> Option<&'static OptDef> {
        self.defs
            .iter()
            .copied()
            .find(|d| options::same_name(d.name, name))
    }

    /// Accept `--name[=value]` if `name` is in `tables`; `false` if not
    /// (or if a boolean got a word sysbench does not take).
    pub fn take(&mut self, tables: &[&'static [OptDef]], name: &str, value: Option<&str>) -> bool {
        let Some(def) = options::find(tables, name) else {
            return false;
        };
        let stored = match def.kind {
            Kind::Bool => match parse_bool(value) {
                Some(b) => Some(if b { "on" } else { "off" }.to_string()),
                None => return false,
            },
            _ => value.filter(|v| !v.is_empty()).map(str::to_string),
        };
        if !self.defs.iter().any(|d| std::ptr::eq(*d, def)) {
            self.defs.push(def);
        }
        self.set.insert(internal_name(def.name), stored);
        true
    }

    /// Register a table's options so their defaults can be read, and reset
    /// any value a config file gave them (test options do not stick, §1).
    pub fn register(&mut self, table: &'static [OptDef], reset: bool) {
        for d in table {
            if !self.defs.iter().any(|x| std::ptr::eq(*x, d)) {
                self.defs.push(d);
            }
            if reset {
                self.set.remove(&internal_name(d.name));
            }
        }
    }

    /// The raw text: the value given, else the default; `None` when cleared
    /// or without a default.
    pub fn raw(&self, name: &str) -> Option<String> {
        match self.set.get(&internal_name(name)) {
            Some(v) => v.clone(),
            None => self.def(name).and_then(|d| d.default).map(str::to_string),
        }
    }

    /// An integer option (`Invalid value for the 'x' option: 'v'`, spec §1).
    pub fn int(&self, name: &str) -> Result<i64> {
        let Some(v) = self.raw(name) else {
            return Ok(0);
        };
        if self.def(name).map(|d| d.kind) == Some(Kind::IntSize) {
            return parse_size(&v)
                .ok()
                .and_then(|n| i64::try_from(n).ok())
                .filter(|n| *n <= i32::MAX as i64)
                .ok_or_else(|| invalid_value(name, &v));
        }
        parse_c_int(&v).ok_or_else(|| invalid_value(name, &v))
    }

    /// A size option, read as sysbench reads it (leading digits, then one
    /// K/M/G/T suffix, anything after it ignored; no digits or another
    /// suffix reads 0, `512B` included). Where the run goes on with a value
    /// the text does not say, a warning on stderr names the option and it.
    pub fn size(&self, name: &str) -> Result<u64> {
        let Some(v) = self.raw(name) else {
            return Ok(0);
        };
        let n = sysbench_size(&v);
        // A size read as 0 is then refused with sysbench's own message (or
        // means "none" as there): the warning is for runs that go on with
        // a value the text does not say.
        if n != 0 && parse_size(&v).ok() != Some(n) {
            warn_once(
                name,
                &format!(
                    "rsysbench: warning: --{name}={v} read as {n}, as sysbench 1.0.20 reads it"
                ),
            );
        }
        Ok(n)
    }

    /// A floating point option (sysbench reads garbage as 0; we refuse it).
    pub fn double(&self, name: &str) -> Result<f64> {
        let Some(v) = self.raw(name) else {
            return Ok(0.0);
        };
        v.trim()
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite())
            .ok_or_else(|| invalid_value(name, &v))
    }

    pub fn string(&self, name: &str) -> Option<String> {
        self.raw(name)
    }

    pub fn list(&self, name: &str) -> Vec<String> {
        self.raw(name)
            .map(|v| {
                v.split(',')
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    }

    pub fn flag(&self, name: &str) -> bool {
        self.raw(name).as_deref() == Some("on")
    }
}

/// sysbench's sb_opt_to_size: digits (wrapping as its unsigned long long
/// does), then the first other character as a K/M/G/T multiplier; any
/// other character after digits makes the size 0.
pub fn sysbench_size(s: &str) -> u64 {
    let mut res: u64 = 0;
    let mut digits = false;
    let mut mult = None;
    for c in s.bytes() {
        if !c.is_ascii_digit() {
            if digits {
                mult = Some(c);
            }
            break;
        }
        digits = true;
        res = res.wrapping_mul(10).wrapping_add(u64::from(c - b'0'));
    }
    match mult.map(|c| c.to_ascii_uppercase()) {
        None => res,
        Some(c) => match b"KMGT".iter().position(|m| *m == c) {
            Some(n) => (0..=n).fold(res, |r, _| r.wrapping_mul(1024)),
            None => 0,
        },
    }
}

/// Warn that size option `name`, given as `raw`, was read as 0 (for a test
/// that goes on with that 0 instead of refusing it).
pub fn warn_size_read_as_zero(name: &str, raw: &str) {
    if parse_size(raw).ok() != Some(0) {
        warn_once(
            name,
            &format!("rsysbench: warning: --{name}={raw} read as 0, as sysbench 1.0.20 reads it"),
        );
    }
}

/// Print a parsing warning for option `name` once per run.
fn warn_once(name: &str, text: &str) {
    static WARNED: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let mut w = WARNED.lock().unwrap_or_else(|p| p.into_inner());
    if w.iter().any(|n| n == name) {
        return;
    }
    w.push(name.to_string());
    let _ = std::io::Write::write_all(&mut std::io::stderr(), format!("{text}\n").as_bytes());
}

fn invalid_value(name: &str, v: &str) -> Fail {
    Fail::stderr(format!(
        "Invalid value for the '{}' option: '{v}'",
        internal_name(name)
    ))
}

/// Split `--name=value` / `--name`.
fn split_option(arg: &str) -> Option<(&str, Option<&str>)> {
    let body = arg.strip_prefix("--")?;
    Some(match body.split_once('=') {
        Some((n, v)) => (n, Some(v)),
        None => (body, None),
    })
}

/// The first pass over argv (without the program name).
pub fn parse(args: &[String]) -> Result<CommandLine> {
    let mut cl = CommandLine::default();
    for t in options::FIRST_PASS {
        cl.values.register(t, false);
    }
    let mut words: Vec<&str> = Vec::new();
    for arg in args {
        let Some((name, value)) = split_option(arg) else {
            words.push(arg);
            continue;
        };
        if options::same_name(name, "test") {
            cl.stderr_notes.push("WARNING: the --test option is deprecated. You can pass a script name or path on the command line without any options.".into());
            cl.testname = value.map(str::to_string);
            continue;
        }
        if options::same_name(name, "config-file") {
            if let Some(path) = value {
                read_config_file(path, &mut cl);
            }
            continue;
        }
        if !cl.values.take(options::FIRST_PASS, name, value) {
            cl.leftovers.push(arg.clone());
        }
    }
    let mut words = words.into_iter();
    if cl.testname.is_none() {
        cl.testname = words.next().map(str::to_string);
    }
    cl.command = words.next().map(str::to_string);
    if let Some(extra) = words.next() {
        return Err(Fail::stderr(format!(
            "Unrecognized command line argument: {extra}"
        )));
    }
    Ok(cl)
}

/// `name=value` lines; `#` comments; quotes stripped; lines without `=`
/// ignored. Options the first pass does not know are kept for the test
/// table, where sysbench's reset makes them have no effect (spec §1).
fn read_config_file(path: &str, cl: &mut CommandLine) {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            let msg = e
                .raw_os_error()
                .map_or_else(|| e.to_string(), rbench_common::output::strerror);
            cl.stderr_notes.push(format!("{path}: {msg}"));
            return;
        }
    };
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("").trim_start();
        let Some((name, value)) = line.split_once('=') else {
            continue;
        };
        let value = value.trim().trim_matches(['"', '\'']);
        cl.values.take(options::FIRST_PASS, name, Some(value));
    }
}

/// A script's option validator: (name as typed, value or None for a bare
/// `--name`) -> whether to accept it; Err is a Lua error, fatal.
pub type Validate<'a> = &'a mut dyn FnMut(&str, Option<&str>) -> Result<bool>;

/// The second pass: match leftovers against the test's table.
pub fn take_test_options(cl: &mut CommandLine, table: &'static [OptDef]) -> Result<()> {
    take_validated_options(cl, table, &mut |_, _| Ok(true))
}

/// The second pass, with a script's validator called on every option the
/// table knows before its value is read (as sysbench's set_option() does;
/// one refused is an invalid option).
pub fn take_validated_options(
    cl: &mut CommandLine,
    table: &'static [OptDef],
    validate: Validate,
) -> Result<()> {
    cl.values.register(table, true);
    for arg in &cl.leftovers {
        let ok = match split_option(arg) {
            Some((n, v)) if options::find(&[table], n).is_some() => {
                validate(n, v)? && cl.values.take(&[table], n, v)
            }
            _ => false,
        };
        if !ok {
            return Err(Fail::stderr(format!("invalid option: {arg}")));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn words_and_options() {
        let cl = parse(&argv("--threads=2 cpu --cpu-max-prime=5 run")).unwrap();
        assert_eq!(cl.testname.as_deref(), Some("cpu"));
        assert_eq!(cl.command.as_deref(), Some("run"));
        assert_eq!(cl.values.int("threads").unwrap(), 2);
        assert_eq!(cl.leftovers, vec!["--cpu-max-prime=5"]);
    }

    #[test]
    fn separate_value_is_a_word() {
        let e = parse(&argv("cpu --threads 2 run")).unwrap_err();
        assert_eq!(e.text, "Unrecognized command line argument: run\n");
    }

    #[test]
    fn bare_and_cleared_ints_read_zero() {
        let cl = parse(&argv("cpu --time --threads= run")).unwrap();
        assert_eq!(cl.values.int("time").unwrap(), 0);
        assert_eq!(cl.values.int("threads").unwrap(), 0);
    }

    #[test]
    fn bad_int_is_reported_when_read() {
        let cl = parse(&argv("cpu --threads=abc run")).unwrap();
        let e = cl.values.int("threads").unwrap_err();
        assert_eq!(e.text, "Invalid value for the 'threads' option: 'abc'\n");
    }

    #[test]
    fn bad_bool_is_left_over() {
        let cl = parse(&argv("cpu --debug=yes run")).unwrap();
        assert_eq!(cl.leftovers, vec!["--debug=yes"]);
        let cl = parse(&argv("cpu --debug=true --validate run")).unwrap();
        assert!(cl.values.flag("debug") && cl.values.flag("validate"));
    }

    proptest::proptest! {
        /// Whatever the command line, parsing and reading every option
        /// gives a value or an error, never a panic.
        #[test]
        fn any_command_line_is_handled(
            args in proptest::collection::vec(
                proptest::prop_oneof![
                    "--[a-z_-]{1,20}(=[ -~]{0,12})?",
                    "[a-z]{1,8}",
                    "\\PC{0,16}",
                ],
                0..6,
            )
        ) {
            if let Ok(mut cl) = parse(&args) {
                let _ = crate::settings::Settings::read(&cl.values, &mut |_| {});
                for b in crate::builtin::Builtin::ALL {
                    let _ = take_test_options(&mut cl, b.options());
                    for d in b.options() {
                        let _ = cl.values.int(d.name);
                        let _ = cl.values.size(d.name);
                        let _ = cl.values.double(d.name);
                        let _ = cl.values.list(d.name);
                    }
                }
            }
        }
    }

    #[test]
    fn sizes_read_as_sysbench() {
        assert_eq!(sysbench_size("1K"), 1024);
        assert_eq!(sysbench_size("1kb"), 1024);
        assert_eq!(sysbench_size("2M"), 2 << 20);
        assert_eq!(sysbench_size("1Kfoo"), 1024);
        assert_eq!(sysbench_size("1X"), 0);
        assert_eq!(sysbench_size("1.5K"), 0);
        assert_eq!(sysbench_size("512B"), 0);
        assert_eq!(sysbench_size("-1"), 0);
        assert_eq!(sysbench_size(" 5K"), 0);
        assert_eq!(sysbench_size("0x10"), 0);
        assert_eq!(sysbench_size("123"), 123);
    }

    #[test]
    fn c_ints() {
        assert_eq!(parse_c_int(" -12"), Some(-12));
        assert_eq!(parse_c_int("+7"), Some(7));
        assert_eq!(parse_c_int("7x"), None);
        assert_eq!(parse_c_int("99999999999"), None);
        assert_eq!(parse_c_int(""), None);
    }
}
