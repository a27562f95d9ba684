//! The program's sequence, as sysbench 1.0.20's main() runs it (spec §1,
//! §3): parse, --help/--version, general checks, header, test lookup,
//! command, test options, then the command itself. Errors come back as
//! values and are printed once here.

use std::io::Write;

use rbench_common::histogram::SysbenchHistogram;
use rbench_common::output::OutputFormat;

use crate::args::{self, CommandLine};
use crate::builtin::{cpu::Cpu, fileio::Fileio, memory::Memory, mutex::Mutex, threads::Threads};
use crate::builtin::{Builtin, Test};
use crate::error::{Fail, Result, Stream};
use crate::log::{Level, Log};
use crate::options;
use crate::report::{Reporter, RunInfo};
use crate::result::Context;
use crate::settings::Settings;

/// sysbench's header line, naming the LuaJIT really bundled (its
/// `jit.version`, e.g. `LuaJIT 2.1.1788856981`), as upstream builds name
/// theirs (`using bundled LuaJIT 2.1.0-beta3`).
pub fn header() -> String {
    let jit = mlua::Lua::new()
        .load("return jit and jit.version or 'LuaJIT'")
        .eval::<String>()
        .unwrap_or_else(|_| "LuaJIT".into());
    format!("sysbench 1.0.20 (using bundled {jit})\n")
}
/// `--version`: exactly sysbench's line, since scripts and sysbench's own
/// suite compare it whole.
pub const VERSION: &str = "sysbench 1.0.20";
/// `--rbench-version`: what is really answering.
pub const RBENCH_VERSION: &str = concat!("rsysbench ", env!("CARGO_PKG_VERSION"), " (rbench)");

/// Write to stdout, ignoring a closed pipe (`rsysbench ... | head`).
pub fn out(text: &str) {
    let mut o = std::io::stdout().lock();
    let _ = o.write_all(text.as_bytes());
    let _ = o.flush();
}

/// Write to stderr, ignoring errors.
pub fn err(text: &str) {
    let _ = std::io::stderr().write_all(text.as_bytes());
}

/// Run the program; returns the exit status.
pub fn main(argv: &[String]) -> i32 {
    let machine = argv.iter().any(|a| {
        a.strip_prefix("--output")
            .and_then(|r| r.strip_prefix(['-', '_']))
            .is_some_and(|r| r.starts_with("format=json") || r.starts_with("format=csv"))
    });
    match run(argv, machine) {
        Ok(code) => code,
        Err(f) => {
            let text = f.text.as_bytes();
            if f.stream == Stream::Stderr || machine {
                let _ = std::io::stderr().write_all(text);
            } else {
                let mut o = std::io::stdout().lock();
                let _ = o.write_all(text);
                let _ = o.flush();
            }
            f.code
        }
    }
}

fn run(argv: &[String], machine: bool) -> Result<i32> {
    // Hidden, for packaging: the completion scripts made from the tables.
    if let Some(shell) = argv
        .iter()
        .find_map(|a| a.strip_prefix("--generate-completions="))
    {
        let shell = shell.parse().map_err(Fail::fatal)?;
        out(&crate::completions::render(shell));
        return Ok(0);
    }
    let mut cl = args::parse(argv)?;
    for note in &cl.stderr_notes {
        err(&format!("{note}\n"));
    }
    if cl.values.flag("help") {
        out(&crate::help::general(std::io::IsTerminal::is_terminal(
            &std::io::stdout(),
        )));
        return Ok(0);
    }
    if cl.values.flag("version") {
        out(&format!("{VERSION}\n"));
        return Ok(0);
    }
    if cl.values.flag("rbench-version") {
        out(&format!("{RBENCH_VERSION}\n"));
        return Ok(0);
    }
    let settings = Settings::read(&cl.values, &mut |w| {
        if machine {
            err(&format!("{w}\n"));
        } else {
            out(&format!("{w}\n"));
        }
    })?;
    // In JSON/CSV mode stdout holds only the document: the log goes to
    // stderr and keeps only warnings and errors.
    let log = crate::log::set_global(if machine {
        Log::new(settings.verbosity.min(Level::Warning as u8), true)
    } else {
        Log::new(settings.verbosity, false)
    });
    log.block(Level::Notice, &format!("{}\n", header()));

    let name = match cl.testname.clone() {
        Some(n) if n != "-" => n,
        _ => return crate::lua::commands::run_script(None, &mut cl, &settings, log),
    };
    let Some(test) = Builtin::find(&name) else {
        return crate::lua::commands::run_script(Some(&name), &mut cl, &settings, log);
    };
    let Some(command) = cl.command.clone() else {
        return Err(Fail::stderr(format!(
            "The '{name}' test requires a command argument. See 'sysbench {name} help'"
        )));
    };
    args::take_test_options(&mut cl, test.options())?;

    match command.as_str() {
        "help" => {
            // Help is always wanted on stdout, whatever --output-format says.
            if machine {
                out(&crate::help::test(test));
            } else {
                log.block(Level::Notice, &crate::help::test(test));
            }
            Ok(0)
        }
        "prepare" | "cleanup" if test != Builtin::Fileio => Err(Fail::stderr(format!(
            "'{name}' test does not implement the '{command}' command."
        ))),
        "prepare" => Fileio::prepare(&cl.values, log, settings.validate).map(|_| 0),
        "cleanup" => Fileio::cleanup(&cl.values, log).map(|_| 0),
        "run" => run_test(test, &cl, &settings, log),
        _ => Err(Fail::stderr(format!("Unknown command: {command}"))),
    }
}

fn run_test(b: Builtin, cl: &CommandLine, s: &Settings, log: &Log) -> Result<i32> {
    let v = &cl.values;
    match b {
        Builtin::Cpu => execute(b, Cpu::init(v)?, cl, s, log),
        Builtin::Memory => {
            let m = Memory::init(v, s.threads)?;
            // For a person at a terminal only: scripts (and sysbench's own
            // suite) read stderr too, and sysbench prints nothing there.
            let person = std::io::IsTerminal::is_terminal(&std::io::stderr());
            if let Some(llc) = m.fits_in_cache().filter(|_| person) {
                err(&format!(
                    "rsysbench: note: the memory block ({} bytes{}) fits in the CPU cache ({} bytes): \
                     this measures cache bandwidth, not RAM (use a larger --memory-block-size)\n",
                    m.block_size(),
                    if m.hugetlb() { ", HugeTLB" } else { "" },
                    llc
                ));
            }
            execute(b, m, cl, s, log)
        }
        Builtin::Threads => execute(b, Threads::init(v)?, cl, s, log),
        Builtin::Mutex => execute(b, Mutex::init(v)?, cl, s, log),
        Builtin::Fileio => execute(b, Fileio::init(v, s)?, cl, s, log),
    }
}

/// The run-mode block (spec §3).
/// sysbench's helper threads start before the workers and say so at
/// debug verbosity (in an order their race picks; here always this one).
pub fn announce_helper_threads(s: &Settings, log: &Log) {
    if s.report_interval > 0 {
        log.debug("Reporting thread started");
    }
    if s.rate > 0 {
        log.debug("Event generating thread started");
    }
    if !s.checkpoints.is_empty() {
        log.debug("Checkpoints report thread started");
    }
}

pub fn print_run_mode(s: &Settings, log: &Log) {
    log.notice("Running the test with following options:");
    log.notice(&format!("Number of threads: {}", s.threads));
    if s.rate > 0 {
        log.notice(&format!("Target transaction rate: {}/sec", s.rate));
    }
    if s.report_interval > 0 {
        log.notice(&format!(
            "Report intermediate results every {} second(s)",
            s.report_interval
        ));
    }
    if !s.checkpoints.is_empty() {
        let list: Vec<String> = s.checkpoints.iter().map(u64::to_string).collect();
        log.notice(&format!(
            "Report checkpoint(s) at {} seconds",
            list.join(", ")
        ));
    }
    if s.debug {
        log.notice("Debug mode enabled.\n");
    }
    if s.validate {
        log.notice("Validation checks: on.\n");
    }
    if s.rand_seed != 0 {
        log.notice(&format!(
            "Initializing random number generator from seed ({}).\n",
            s.rand_seed as i32
        ));
    } else {
        log.notice("Initializing random number generator from current time\n");
    }
    if let Some(extra) = s.forced_shutdown {
        log.notice(&format!(
            "Forcing shutdown in {} seconds",
            s.max_time + extra
        ));
    }
    log.notice("");
}

/// Every option in effect, for the JSON document.
fn effective_options(cl: &CommandLine, b: Builtin) -> serde_json::Map<String, serde_json::Value> {
    let mut m = serde_json::Map::new();
    let tables = [
        options::GENERAL,
        options::RAND,
        options::LOG,
        options::STATS,
        b.options(),
    ];
    for d in tables.iter().flat_map(|t| t.iter()) {
        if matches!(d.name, "help" | "version" | "config-file") {
            continue;
        }
        let v = cl
            .values
            .raw(d.name)
            .map_or(serde_json::Value::Null, |x| x.into());
        m.insert(options::internal_name(d.name), v);
    }
    m
}

fn execute<T: Test>(
    b: Builtin,
    mut t: T,
    cl: &CommandLine,
    s: &Settings,
    log: &Log,
) -> Result<i32> {
    print_run_mode(s, log);
    for (level, line) in t.mode_lines() {
        log.msg(level, &line);
    }
    t.open(log)?;
    announce_helper_threads(s, log);
    log.notice("Initializing worker threads...\n");

    let scale = SysbenchHistogram::new();
    let ctx = Context {
        kind: t.kind(),
        percentile: s.percentile,
        scale: &scale,
    };
    let info = RunInfo {
        test: b.name(),
        threads: s.threads,
        kind: t.kind(),
        percentile: s.percentile,
        histogram: s.histogram,
        debug: s.debug,
        db_debug: false,
        options: effective_options(cl, b),
    };
    let mut reporter = Reporter::new(s.output, info, log);
    let seed = crate::rng::run_seed(s.rand_seed);
    let outcome = crate::runner::run(&t, s, log, ctx, seed, &mut reporter);
    log.info("Done.\n");
    if outcome.failed {
        return Ok(1);
    }
    let signal = rbench_common::stop::last_signal();
    let status = if signal.is_some() {
        "interrupted"
    } else {
        "completed"
    };
    if s.output != OutputFormat::Text || log.enabled(Level::Notice) {
        reporter.finish(&outcome.summary, status);
    }
    Ok(signal.map_or(0, |sig| 128 + sig))
}
