//! The program: parse, then print usage/help/version or measure and
//! report; every error is printed once here, in mbw's style, with mbw's
//! exit status.

use std::io::Write;

use crate::options::{self, help, Action, Config};
use crate::report::{out::Out, Sink};
use crate::result::Plan;
use crate::run::{self, RunError};
use crate::{cache, completions, man, memory};
use rbench_common::output::OutputFormat;
use rbench_common::units::mbw::{elements, mib_to_bytes};

/// Run rmbw with `args` (program name first); returns the exit status.
pub fn main(args: &[String]) -> i32 {
    // Like a C program: die quietly on a closed pipe.
    // SAFETY: restoring the default disposition of SIGPIPE.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
    rbench_common::stop::install();

    let prog = args.first().map_or("rmbw", String::as_str);
    let rest = args.get(1..).unwrap_or(&[]);
    let posixly = std::env::var_os("POSIXLY_CORRECT").is_some();
    let parsed = options::parse(prog, rest, posixly);
    for w in &parsed.warnings {
        eprintln!("{w}");
    }
    let mut out = Out::stdout();
    let (text, status) = match parsed.action {
        Err(msg) => return fail(&mut out, parsed.format, &msg),
        Ok(Action::Usage) => (help::usage("rmbw"), 1),
        Ok(Action::Help) => (help::long_help(), 0),
        Ok(Action::Version) => (format!("{}\n", help::version_line()), 0),
        Ok(Action::GenerateMan) => (man::render(), 0),
        Ok(Action::GenerateCompletions(shell)) => (completions::render(shell), 0),
        Ok(Action::Run(cfg)) => return measure(cfg, out),
    };
    if out
        .write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .is_err()
    {
        return 1;
    }
    status
}

/// Print an error line: on stdout for text as mbw does, on stderr when
/// stdout carries JSON or CSV.
fn fail(out: &mut Out, format: OutputFormat, msg: &str) -> i32 {
    if format == OutputFormat::Text {
        let _ = writeln!(out, "{msg}").and_then(|()| out.flush());
    } else {
        let _ = out.flush();
        eprintln!("{msg}");
    }
    1
}

fn plan(cfg: &Config) -> Result<Plan, String> {
    let elements = elements(cfg.size_mib).map_err(|e| format!("Error: {e}"))?;
    let arrays = cfg
        .methods
        .iter()
        .map(|m| m.kernel().arrays())
        .max()
        .unwrap_or(2);
    let bytes_per_thread = mib_to_bytes(cfg.size_mib)
        .ok()
        .and_then(|b| b.checked_mul(arrays as u64))
        .ok_or_else(|| format!("Error: array size {} MiB is too large", cfg.size_mib))?;
    let cpus = if cfg.threads > 1 {
        rbench_common::cpu::available_cpus()
            .into_iter()
            .take(cfg.threads)
            .collect()
    } else {
        Vec::new()
    };
    Ok(Plan {
        array_size_mib: cfg.size_mib,
        elements,
        arrays,
        bytes_per_thread,
        block_size_bytes: cfg.block,
        runs_per_test: cfg.runs,
        threads: cfg.threads,
        cpus,
        methods: cfg.methods.iter().map(|m| m.label()).collect(),
        show_avg: cfg.show_avg,
        quiet: cfg.quiet,
    })
}

fn measure(cfg: Config, mut out: Out) -> i32 {
    let plan = match plan(&cfg) {
        Ok(p) => p,
        Err(msg) => return fail(&mut out, cfg.format, &msg),
    };
    let total = plan.bytes_per_thread.saturating_mul(plan.threads as u64);
    let mut sink = Sink::new(cfg.format, plan.clone(), out);
    if sink.header().is_err() {
        return 1;
    }
    if let Some(llc) = cache::last_level_cache_bytes() {
        if total <= llc {
            eprintln!(
                "rmbw: warning: the arrays ({} MiB) fit in the {} MiB last-level cache: \
                 this measures the cache, not memory",
                total >> 20,
                llc >> 20
            );
        }
    }
    let fits = !matches!(memory::available_bytes(), Some(avail) if total > avail);
    let result = if fits && usize::try_from(plan.elements).is_ok() {
        run::measure(&plan, &cfg.methods, &mut sink)
    } else {
        Err(RunError::Alloc)
    };
    let flushed = sink.finish();
    match result {
        Ok(()) => {}
        Err(RunError::Alloc) => {
            // mbw's perror() (spec §2); the header lines are already out.
            eprintln!("Error allocating memory: Cannot allocate memory");
            return 1;
        }
        Err(RunError::Pin(msg)) => {
            eprintln!("Error: {msg}");
            return 1;
        }
        Err(RunError::Io(e)) => {
            eprintln!("rmbw: cannot write the results: {e}");
            return 1;
        }
    }
    if flushed.is_err() {
        return 1;
    }
    match rbench_common::stop::last_signal() {
        Some(sig) => 128 + sig,
        None => 0,
    }
}
