//! The command line: the option table, the getopt parser, and turning what
//! was given into a [`Config`] with mbw's checks in mbw's order (spec §1):
//! options as they come (`-b 0` and `-h` act at once), then no size, size
//! 0, block larger than the array. Values mbw would misread are errors.

pub mod getopt;
pub mod help;
pub mod table;

use crate::kernels::Method;
use getopt::Event;
use rbench_common::completions::Shell;
use rbench_common::output::OutputFormat;
use rbench_common::units::mbw::{mib_to_bytes, parse_size_mib, strtoul};
use table::{Key, DEFAULT_BLOCK, DEFAULT_RUNS};

/// A measurement to make.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// Array size in MiB (of one array, per thread).
    pub size_mib: u64,
    /// Runs per test.
    pub runs: u32,
    /// Print the AVG lines (`-a` clears it).
    pub show_avg: bool,
    /// Print only result lines (`-q`).
    pub quiet: bool,
    /// Selected tests, in run order, no duplicates.
    pub methods: Vec<Method>,
    /// MCBLOCK block size in bytes.
    pub block: u64,
    /// Threads (`--threads`).
    pub threads: usize,
    pub format: OutputFormat,
}

/// What the command line asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    Run(Config),
    /// mbw's `-h`: usage on stdout, exit 1.
    Usage,
    Help,
    Version,
    GenerateMan,
    GenerateCompletions(Shell),
}

/// The parse outcome: getopt's warnings (for stderr, in order), the output
/// format errors should respect, and the action or the error line.
#[derive(Debug)]
pub struct Parsed {
    pub warnings: Vec<String>,
    pub format: OutputFormat,
    pub action: Result<Action, String>,
}

/// Parse the arguments after the program name.
pub fn parse(prog: &str, args: &[String], posixly_correct: bool) -> Parsed {
    let events = getopt::getopt(prog, args, posixly_correct);
    // Errors go to stdout in text mode (as mbw prints them), to stderr with
    // json/csv; so find the format first, the last one given winning.
    let format = events
        .iter()
        .rev()
        .find_map(|e| match e {
            Event::Opt(d, Some(v)) if d.key == Key::OutputFormat => v.parse().ok(),
            _ => None,
        })
        .unwrap_or_default();
    let mut warnings = Vec::new();
    let action = build(events, &mut warnings, format);
    Parsed {
        warnings,
        format,
        action,
    }
}

fn build(
    events: Vec<Event>,
    warnings: &mut Vec<String>,
    format: OutputFormat,
) -> Result<Action, String> {
    let mut runs = DEFAULT_RUNS;
    let mut show_avg = true;
    let mut quiet = false;
    let mut selected: Vec<Method> = Vec::new();
    let mut block = DEFAULT_BLOCK;
    let mut threads = 1usize;
    let mut size: Option<String> = None;
    for event in events {
        let (def, value) = match event {
            Event::Warning(w) => {
                warnings.push(w);
                continue;
            }
            Event::Operand(o) => {
                // mbw reads the first operand and ignores the rest.
                size.get_or_insert(o);
                continue;
            }
            Event::Opt(def, value) => (def, value.unwrap_or_default()),
        };
        match def.key {
            Key::Runs => runs = parse_runs(&value)?,
            Key::NoAverage => show_avg = false,
            Key::Quiet => quiet = true,
            Key::Test => selected.push(parse_test_number(&value)?),
            Key::Block => block = parse_block(&value)?,
            Key::Usage => return Ok(Action::Usage),
            Key::Threads => threads = parse_threads(&value)?,
            Key::Tests => selected.extend(parse_test_list(&value)?),
            Key::OutputFormat => {
                value
                    .parse::<OutputFormat>()
                    .map_err(|e| format!("Error: {e}"))?;
            }
            Key::Help => return Ok(Action::Help),
            Key::Version => return Ok(Action::Version),
            Key::GenerateMan => return Ok(Action::GenerateMan),
            Key::GenerateCompletions => {
                let shell = value.parse().map_err(|e| format!("Error: {e}"))?;
                return Ok(Action::GenerateCompletions(shell));
            }
        }
    }
    let size = size.ok_or("Error: no array size given!")?;
    let size_mib = parse_size_mib(&size).map_err(|e| {
        let p = strtoul(&size);
        if !p.has_digits || (p.value == 0 && !p.negative) {
            // mbw's own wording for what it also rejects.
            "Error: array size wrong!".to_string()
        } else {
            format!("Error: {e}")
        }
    })?;
    let array_bytes = mib_to_bytes(size_mib).map_err(|e| format!("Error: {e}"))?;
    if array_bytes < block {
        // mbw's wording, inverted as it is (spec §1), checked even without -t2.
        return Err(format!(
            "Error: array size larger than block size ({block} bytes)!"
        ));
    }
    if selected.is_empty() {
        selected = vec![Method::Memcpy, Method::Dumb, Method::Mcblock];
    }
    selected.sort();
    selected.dedup();
    Ok(Action::Run(Config {
        size_mib,
        runs,
        show_avg,
        quiet,
        methods: selected,
        block,
        threads,
        format,
    }))
}

/// A whole decimal number with nothing else (leading blanks allowed, as strtoul).
fn whole_number(s: &str) -> Option<u64> {
    let p = strtoul(s);
    (p.has_digits && !p.negative && !p.overflow && p.rest.is_empty() && !s.contains('+'))
        .then_some(p.value)
}

fn parse_runs(s: &str) -> Result<u32, String> {
    match whole_number(s) {
        Some(0) => Err("Error: number of runs (-n) must be at least 1 (mbw 1.2.2 would run nothing and print -nan)".into()),
        Some(n) if n <= i32::MAX as u64 => Ok(n as u32),
        _ => Err(format!(
            "Error: number of runs (-n) '{s}' is not a whole number from 1 to {}",
            i32::MAX
        )),
    }
}

fn parse_test_number(s: &str) -> Result<Method, String> {
    match whole_number(s) {
        Some(0) => Ok(Method::Memcpy),
        Some(1) => Ok(Method::Dumb),
        Some(2) => Ok(Method::Mcblock),
        _ => Err(format!(
            "Error: test number (-t) '{s}' is not 0, 1 or 2 (see --test for the STREAM kernels)"
        )),
    }
}

fn parse_block(s: &str) -> Result<u64, String> {
    let p = strtoul(s);
    if !p.has_digits || (p.value == 0 && !p.negative) {
        // mbw's wording (spec §1).
        return Err("Error: what block size do you mean?".into());
    }
    whole_number(s).ok_or_else(|| {
        format!("Error: block size (-b) '{s}' is not a whole, positive number of bytes")
    })
}

fn parse_threads(s: &str) -> Result<usize, String> {
    let cpus = rbench_common::cpu::available_cpus().len();
    match whole_number(s) {
        Some(n) if n >= 1 && n as usize <= cpus => Ok(n as usize),
        Some(n) if n as usize > cpus => Err(format!(
            "Error: --threads={n} asks for more threads than the {cpus} CPUs this process may use"
        )),
        _ => Err(format!(
            "Error: --threads '{s}' is not a whole number of threads from 1 to {cpus}"
        )),
    }
}

fn parse_test_list(s: &str) -> Result<Vec<Method>, String> {
    let mut out = Vec::new();
    for name in s.split(',') {
        let name = name.trim();
        match name {
            "all" => out.extend(Method::ALL),
            "mbw" => out.extend([Method::Memcpy, Method::Dumb, Method::Mcblock]),
            "stream" => out.extend([Method::Copy, Method::Scale, Method::Add, Method::Triad]),
            _ => match Method::ALL.iter().find(|m| m.name() == name) {
                Some(m) => out.push(*m),
                None => {
                    let names: Vec<&str> = Method::ALL.iter().map(|m| m.name()).collect();
                    return Err(format!(
                        "Error: unknown test '{name}' in --test; choose from {}, stream, mbw, all",
                        names.join(", ")
                    ));
                }
            },
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(args: &[&str]) -> Parsed {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        parse("rmbw", &args, false)
    }

    fn config(args: &[&str]) -> Config {
        match p(args).action {
            Ok(Action::Run(c)) => c,
            other => panic!("{args:?}: {other:?}"),
        }
    }

    fn error(args: &[&str]) -> String {
        p(args).action.expect_err("an error")
    }

    #[test]
    fn defaults_are_mbws() {
        let c = config(&["64"]);
        assert_eq!(c.size_mib, 64);
        assert_eq!(c.runs, 10);
        assert_eq!(c.block, 262_144);
        assert_eq!(c.methods, [Method::Memcpy, Method::Dumb, Method::Mcblock]);
        assert!(c.show_avg && !c.quiet);
        assert_eq!(c.threads, 1);
    }

    #[test]
    fn tests_run_in_fixed_order() {
        assert_eq!(
            config(&["-t2", "-t0", "-t2", "8"]).methods,
            [Method::Memcpy, Method::Mcblock]
        );
        assert_eq!(
            config(&["--test=triad,copy", "-t1", "8"]).methods,
            [Method::Dumb, Method::Copy, Method::Triad]
        );
    }

    #[test]
    fn mbw_errors_in_mbw_order_and_wording() {
        assert_eq!(error(&[]), "Error: no array size given!");
        assert_eq!(error(&["abc"]), "Error: array size wrong!");
        assert_eq!(error(&["0"]), "Error: array size wrong!");
        assert_eq!(
            error(&["-b", "0", "64"]),
            "Error: what block size do you mean?"
        );
        assert_eq!(
            error(&["-b", "2000000", "1"]),
            "Error: array size larger than block size (2000000 bytes)!"
        );
        // -b 0 acts at once, before a later -h; -h acts before a later -b 0.
        assert!(p(&["-b0", "-h"]).action.is_err());
        assert_eq!(p(&["-h", "-b0"]).action.unwrap(), Action::Usage);
    }

    #[test]
    fn nonsense_mbw_accepts_is_an_error() {
        for args in [
            &["-n", "0", "8"][..],
            &["-n", "-1", "8"],
            &["-t7", "8"],
            &["-tx", "8"],
            &["--", "-1"],
            &["1G"],
            &["-b", "4k", "8"],
            &["--threads=0", "8"],
            &["--threads=100000", "8"],
            &["--test=bogus", "8"],
            &["--output-format=xml", "8"],
        ] {
            let e = error(args);
            assert!(e.starts_with("Error: "), "{args:?}: {e}");
        }
    }

    #[test]
    fn compatible_readings_are_kept() {
        assert_eq!(config(&["8M"]).size_mib, 8);
        assert_eq!(config(&["-n3", "-qa", "8", "extra"]).runs, 3);
        assert_eq!(
            config(&["--output-format=csv", "8"]).format,
            OutputFormat::Csv
        );
        assert_eq!(p(&["-x", "8"]).warnings, ["rmbw: invalid option -- 'x'"]);
    }

    #[test]
    fn errors_follow_the_output_format() {
        assert_eq!(p(&["--output-format=json"]).format, OutputFormat::Json);
    }

    proptest::proptest! {
        #[test]
        fn never_panics_on_any_command_line(
            args in proptest::collection::vec("(-{0,2}[a-z0-9=,:+-]{0,6})|\\PC{0,8}", 0..6),
            posix in proptest::bool::ANY,
        ) {
            let parsed = parse("rmbw", &args, posix);
            if let Ok(Action::Run(c)) = parsed.action {
                proptest::prop_assert!(c.runs >= 1 && c.size_mib >= 1 && c.block >= 1);
                proptest::prop_assert!(c.block <= c.size_mib.saturating_mul(1 << 20));
                proptest::prop_assert!(!c.methods.is_empty());
            }
        }
    }
}
