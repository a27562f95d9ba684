//! The program: parse, set up, run, report; errors printed once, here.

use crate::cli::{self, Plan};
use crate::failure::Failure;
use crate::options::help;
use crate::plan::{self, validate};
use crate::report::{self, normal};
use crate::result;
use crate::run::files::diskstats;
use crate::run::{self, Stream};
use std::fs::File;
use std::io::Write;

/// Where output goes: stdout/stderr, or one file for both (`--output`).
/// Shared with the periodic reporter, hence the lock (never taken by a job
/// thread).
struct Out {
    file: Option<std::sync::Mutex<File>>,
}

impl Out {
    fn put(&self, stream: Stream, text: &str) {
        if text.is_empty() {
            return;
        }
        // fio's log_err lines (io_u errors, setup failures) go to stderr
        // even with --output, and into its file too.
        if self.file.is_some() && stream == Stream::Stderr {
            let _ = std::io::stderr().write_all(text.as_bytes());
        }
        let r = match (&self.file, stream) {
            (Some(f), _) => match f.lock() {
                Ok(mut f) => f.write_all(text.as_bytes()),
                Err(_) => Ok(()),
            },
            (None, Stream::Stdout) => {
                let mut o = std::io::stdout().lock();
                o.write_all(text.as_bytes()).and_then(|_| o.flush())
            }
            (None, Stream::Stderr) => std::io::stderr().write_all(text.as_bytes()),
        };
        // A closed pipe is not worth a panic; there is nobody to tell.
        let _ = r;
    }
}

fn fail(f: Failure) -> i32 {
    let out = Out { file: None };
    // fio's stdout is fully buffered unless it is a terminal, so on a pipe
    // or file its part comes out at exit, after the unbuffered stderr lines
    // (`failed parsing verify=bogus` before the valid-value list).
    if std::io::IsTerminal::is_terminal(&std::io::stdout()) {
        out.put(Stream::Stdout, &f.stdout);
        out.put(Stream::Stderr, &f.stderr);
    } else {
        out.put(Stream::Stderr, &f.stderr);
        out.put(Stream::Stdout, &f.stdout);
    }
    f.code
}

/// Values fio reads from garbage without a word (`bs=4q`), read as fio
/// reads them: a warning each on stderr; with --warnings-fatal they end
/// the run (exit 1) before any job starts.
fn read_as_warnings(fatal: bool, jobs: &[crate::job::Job]) -> Result<(), i32> {
    let mut lines = crate::options::value::take_read_as_warnings();
    lines.extend(not_applied(jobs));
    for line in &lines {
        warn(line);
    }
    if fatal && !lines.is_empty() {
        return Err(1);
    }
    Ok(())
}

/// Options rfio reads as fio does but does not carry out, one warning per
/// option and value (an error under --warnings-fatal).
fn not_applied(jobs: &[crate::job::Job]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for j in jobs {
        if let (true, (word, _)) = (
            j.opts.is_set("sync_file_range"),
            j.opts.choice("sync_file_range"),
        ) {
            let line = format!(
                "rfio: warning: sync_file_range={word} is read but not applied: rfio issues no sync_file_range calls\n"
            );
            if !out.contains(&line) {
                out.push(line);
            }
        }
    }
    out
}

/// A parse-time notice on stderr that does not stop the run.
fn warn(msg: &str) {
    Out { file: None }.put(Stream::Stderr, msg);
}

/// Every selected format of one report, in fio's order: terse lines, the
/// JSON document, then normal output (§9); CSV last.
fn render(
    plan: &Plan,
    jobs: &[crate::job::Job],
    runs: &[run::JobRun],
    disks: &[diskstats::DiskReport],
    started: std::time::SystemTime,
) -> String {
    let p = &plan.program;
    let rep = result::build(jobs, runs, &plan.global_typed, p.json_plus, started);
    let pct_list = jobs
        .first()
        .map(|j| j.reporting.percentiles.clone())
        .unwrap_or_default();
    let mut s = String::new();
    if p.terse {
        s.push_str(&report::terse::render(
            &rep,
            p.terse_version,
            &pct_list,
            disks,
        ));
    }
    if p.json {
        s.push_str(&report::json::render(
            &rep,
            p.json_plus,
            report::disk_json(disks),
        ));
    }
    if p.normal {
        s.push_str(&normal::render(&rep, &report::disk_lines(disks)));
    }
    if p.csv {
        s.push_str(&report::csv::render(&rep, &pct_list));
    }
    s
}

/// `--server-allow-from`, `--server-allow-dir`, `--server-no-exec`.
fn server_policy(p: &cli::Program) -> Result<crate::remote::policy::Policy, Failure> {
    use crate::remote::policy::{Cidr, Policy};
    Ok(Policy {
        allow_from: p
            .server_allow_from
            .iter()
            .map(|c| Cidr::parse(c))
            .collect::<Result<_, _>>()
            .map_err(Failure::stderr)?,
        allow_dirs: p.server_allow_dirs.iter().map(Into::into).collect(),
        no_exec: p.server_no_exec,
    })
}

/// `--server` (backgrounded first with `--daemonize`): the exit code.
fn serve(plan: &Plan, arg: &str) -> i32 {
    use crate::remote::daemon;
    let p = &plan.program;
    let policy = match server_policy(p) {
        Ok(policy) => policy,
        Err(f) => return fail(f),
    };
    let daemon = match p.daemonize.as_deref().map(daemon::start) {
        Some(Err(code)) => return code,
        Some(Ok(d)) => Some(d),
        None => None,
    };
    let served = crate::remote::server::serve(arg, &plan.prog, &policy);
    let code = match served {
        Ok(()) => 0,
        Err(f) if daemon.is_some() => {
            daemon::log(&(f.stdout + &f.stderr), true);
            f.code
        }
        Err(f) => fail(f),
    };
    if let Some(d) = daemon {
        d.finish();
    }
    code
}

/// What comes before any job runs: --plot-from, --showcmd, the jobs
/// expanded and checked (with their warnings), --parse-only. Err: the exit
/// code when rfio stops here.
fn jobs_to_run(plan: &Plan) -> Result<Vec<crate::job::Job>, i32> {
    let p = &plan.program;
    if let Some(arg) = &p.server {
        return Err(serve(plan, arg));
    }
    if !p.plot_from.is_empty() {
        // rfio's own: charts of existing logs, no job runs.
        return Err(match &p.plot {
            None => fail(Failure::stderr("rfio: --plot-from needs --plot=DIR\n")),
            Some(dir) => match crate::plot::prepare(dir)
                .and_then(|()| crate::plot::from_logs::write(dir, &p.plot_from))
            {
                Ok(()) => 0,
                Err(m) => fail(Failure::stderr(m)),
            },
        });
    }
    if plan.jobs.is_empty() && plan.files.is_empty() {
        // Nothing to parse is no error for --parse-only (fio exits 0).
        if p.parse_only {
            crate::options::trace::free_all(0);
            return Err(0);
        }
        return Err(fail(Failure {
            stdout: help::usage(&plan.prog),
            stderr: "No job(s) defined\n\n".into(),
            code: 1,
        }));
    }
    if p.showcmd {
        let out = Out { file: None };
        for f in &plan.files {
            out.put(Stream::Stdout, f);
        }
        return Err(0);
    }
    let jobs = match crate::job::expand(plan).and_then(|j| validate(&j, p.parse_only).map(|_| j)) {
        Ok(j) => j,
        Err(f) => return Err(fail(f)),
    };
    read_as_warnings(p.warnings_fatal, &jobs)?;
    // --parse-only runs none of fio's job fixups, which say the rest
    // (nor opendir's walk).
    if p.parse_only {
        crate::options::trace::free_all(plan.jobs.len());
        return Err(0);
    }
    if let Some(j) = jobs.iter().find(|j| j.opts.is_set("profile")) {
        return Err(fail(Failure::stderr(format!(
            "rfio: profile={} is not supported: rfio has no built-in profiles (fio 3.33's tiobench and act)\n",
            j.opts.choice("profile").0
        ))));
    }
    deprecated_notices(&jobs, p.normal);
    if let Err(f) = opendir_notices(&jobs, p.normal) {
        return Err(fail(f));
    }
    // fio's job fixup turns randommap off for blockalign= (and says so
    // unless norandommap already did).
    if jobs
        .iter()
        .any(|j| j.rand.blockalign.is_some() && j.pattern.random && !j.rand.norandommap)
    {
        warn("fio: Any use of blockalign= turns off randommap\n");
    }
    if jobs
        .iter()
        .any(|j| j.replay.is_some() && j.opts.is_set("write_iolog"))
    {
        warn("fio: read iolog overrides write_iolog\n");
    }
    for (stdout, line) in crate::job::verify::warnings(&jobs) {
        parse_info(stdout && p.normal, &line);
    }
    if jobs.is_empty() {
        return Err(fail(Failure::stderr("No job(s) defined\n\n")));
    }
    if let Err(m) = p.plot.as_deref().map_or(Ok(()), crate::plot::prepare) {
        return Err(fail(Failure::stderr(m)));
    }
    Ok(jobs)
}

/// A line fio logs as it reads the jobs: on stdout with normal output
/// (`to_stdout`), else on stderr, so JSON and terse documents stay whole.
fn parse_info(to_stdout: bool, line: &str) {
    let to = if to_stdout {
        Stream::Stdout
    } else {
        Stream::Stderr
    };
    Out { file: None }.put(to, line);
}

/// fio's line for an option it takes but no longer reads (`Option
/// verifysort is deprecated`), once per option: stdout under normal output,
/// stderr otherwise (the documents stay whole).
fn deprecated_notices(jobs: &[crate::job::Job], normal: bool) {
    let mut said: Vec<&str> = Vec::new();
    for j in jobs {
        for name in ["flow_watermark", "verifysort", "verifysort_nr"] {
            if j.opts.is_set(name) && !said.contains(&name) {
                said.push(name);
                parse_info(normal, &format!("Option {name} is deprecated\n"));
            }
        }
    }
}

/// opendir=: fio's count of the files it added, once per job section, as
/// it reads the job (stdout under normal output; stderr otherwise, so the
/// JSON and terse documents stay whole).
fn opendir_notices(jobs: &[crate::job::Job], normal: bool) -> Result<(), Failure> {
    for j in jobs.iter().filter(|j| j.clone == 0) {
        if let Some(dir) = j.opts.text("opendir") {
            crate::job::opendir_files(&dir)?;
            parse_info(
                normal,
                &format!("fio: opendir added {} files\n", j.filenames.len()),
            );
        }
    }
    Ok(())
}

/// A job run's end: devices, the signal line, the report, aggregate logs,
/// plots; the exit code (failed jobs, 128 + them after a signal).
fn report_runs(
    (plan, jobs, started): (&Plan, &[crate::job::Job], std::time::SystemTime),
    runs: &[run::JobRun],
    out: &Out,
    agg: Option<&run::logs::agglog::AggLog>,
    disk_before: &diskstats::Before,
) -> i32 {
    let p = &plan.program;
    let normal_on = p.normal;
    // Devices count only when some job got as far as running.
    let disks = if runs.iter().all(|r| r.setup_failed) {
        Vec::new()
    } else {
        diskstats::after(disk_before)
    };
    let signal = rbench_common::stop::last_signal();
    if let Some(sig) = signal {
        // fio prints this on stdout even before JSON; ours keeps the JSON,
        // terse and CSV reports valid by sending it to stderr then.
        let stream = if normal_on {
            Stream::Stdout
        } else {
            Stream::Stderr
        };
        out.put(stream, &format!("\nfio: terminating on signal {sig}\n"));
    }
    agg_report_sample(agg, p.json, jobs, runs);
    out.put(Stream::Stdout, &render(plan, jobs, runs, &disks, started));
    // fio writes the aggregate logs after the report (perror on stderr).
    if let Some(e) = agg.as_ref().and_then(|a| a.write()) {
        warn(&e);
    }
    // A job whose setup failed counts even when fio leaves its error 0
    // (err_offset, "blocksize is larger than data set range"); without a
    // signal only such failures leave a setup-failed job at error 0.
    let mut failed = runs
        .iter()
        .filter(|r| r.stats.error != 0 || (r.setup_failed && signal.is_none()))
        .count() as i32;
    if let Some(dir) = &p.plot {
        let rep = result::build(jobs, runs, &plan.global_typed, p.json_plus, started);
        if let Err(e) = crate::plot::write(dir, &rep, &crate::run::logs::trace::take()) {
            out.put(
                Stream::Stderr,
                &format!("rfio: failed to write plots to '{dir}': {e}\n"),
            );
            failed = failed.max(1);
        }
    }
    match signal {
        Some(_) => 128 + failed,
        None => failed,
    }
}

/// fio's JSON report takes an aggregate sample (its forced ETA).
fn agg_report_sample(
    agg: Option<&run::logs::agglog::AggLog>,
    json: bool,
    jobs: &[crate::job::Job],
    runs: &[run::JobRun],
) {
    if let Some(a) = agg.filter(|_| json) {
        a.report_sample(
            jobs,
            runs.iter()
                .map(|r| std::array::from_fn(|d| r.stats.dir[d].io_bytes)),
        );
    }
}

pub fn main(args: &[String]) -> i32 {
    if crate::remote::hosts::wanted(args) {
        return crate::remote::client::main(args);
    }
    if crate::merge::wanted(args) {
        return crate::merge::main(args);
    }
    let plan: Plan = match plan::read_plan(args) {
        Ok(p) => p,
        Err(f) => return fail(f),
    };
    if let Some(ms) = plan.program.eta_interval_ms {
        run::eta::set_interval_ms(ms);
    }
    let jobs = match jobs_to_run(&plan) {
        Ok(j) => j,
        Err(code) => return code,
    };
    let p = &plan.program;
    let out = Out {
        file: match &p.output {
            Some(path) => match File::create(path) {
                Ok(f) => Some(std::sync::Mutex::new(f)),
                Err(e) => {
                    return fail(Failure::stderr(format!(
                        "fio: unable to open '{path}' output file: {e}\n"
                    )))
                }
            },
            None => None,
        },
    };
    let normal_on = p.normal;
    if normal_on {
        out.put(Stream::Stdout, &normal::header(&jobs));
    }
    rbench_common::stop::install();
    let started = std::time::SystemTime::now();
    let disk_paths: Vec<std::path::PathBuf> = jobs
        .iter()
        .filter(|j| !crate::engine::traits(&j.engine).diskless && j.opts.flag("disk_util"))
        .flat_map(|j| j.filenames.iter().cloned())
        .collect();
    let disk_before = diskstats::before(disk_paths.iter().map(|p| p.as_path()));
    let tty = std::io::IsTerminal::is_terminal(&std::io::stdout());
    let eta = (normal_on && p.output.is_none() && (p.eta == "always" || (p.eta == "auto" && tty)))
        .then(|| p.eta_newline_us.map(std::time::Duration::from_micros));
    // --bandwidth-log: sampled where fio's status code runs.
    let agg = p.bandwidth_log.then(|| {
        let sampling =
            run::logs::agglog::AggLog::sampling_wanted(normal_on, p.output.is_some(), &p.eta, tty);
        run::logs::agglog::AggLog::new(sampling)
    });
    // --status-interval: a full report of what ran so far, every interval.
    let periodic_report = |snaps: &[run::JobRun]| {
        agg_report_sample(agg.as_ref(), p.json, &jobs, snaps);
        let disks = diskstats::after(&disk_before);
        out.put(
            Stream::Stdout,
            &render(&plan, &jobs, snaps, &disks, started),
        );
    };
    let periodic = p.status_interval_us.map(|us| {
        (
            std::time::Duration::from_micros(us),
            &periodic_report as &run::PeriodicReport<'_>,
        )
    });
    let runs = run::run_all(&jobs, eta, periodic, agg.as_ref(), &mut |s, t| {
        // Progress notices belong to normal output. Without it (json,
        // terse, csv) stdout carries only results: fio's error lines that
        // it prints on stdout go to stderr instead, so the JSON stays valid.
        if normal_on {
            out.put(s, t)
        } else if s == Stream::Stderr || t.starts_with("fio:") || t.starts_with("note:") {
            out.put(Stream::Stderr, t)
        }
    });
    report_runs(
        (&plan, &jobs, started),
        &runs,
        &out,
        agg.as_ref(),
        &disk_before,
    )
}
