//! The command line, read as fio reads it (§1.1): getopt "long only" rules,
//! options before the first `--name` are global, `--name` starts a job,
//! every other argument is a job file.

use crate::failure::Failure;
use crate::options::help;
use crate::options::jobfile::{self, Section};
use crate::options::store::SetError;
use crate::options::trace;
use crate::options::{closest, JobOptions};

/// What to print and how (`--output-format` and friends).
#[derive(Debug, Clone)]
pub struct Program {
    pub normal: bool,
    pub terse: bool,
    pub json: bool,
    pub json_plus: bool,
    pub csv: bool,
    pub terse_version: u32,
    pub output: Option<String>,
    /// --warnings-fatal: a value read as fio reads garbage is an error.
    pub warnings_fatal: bool,
    pub parse_only: bool,
    pub showcmd: bool,
    pub readonly: bool,
    pub sections: Vec<String>,
    /// `--eta`: always, never or auto.
    pub eta: String,
    /// `--eta-interval`, milliseconds (run::eta::set_interval_ms takes it).
    pub eta_interval_ms: Option<u32>,
    /// `--eta-newline`, microseconds.
    pub eta_newline_us: Option<u64>,
    /// `--status-interval`, microseconds.
    pub status_interval_us: Option<u64>,
    /// `--plot=DIR` (rfio only): SVG charts of the run written to DIR.
    pub plot: Option<String>,
    /// `--plot-from=LOG` (repeatable): draw these logs instead of running.
    pub plot_from: Vec<String>,
    /// `--bandwidth-log`: agg-{read,write,trim}_bw.log of all jobs.
    pub bandwidth_log: bool,
    /// `--server[=ARGS]`: serve fio clients instead of running jobs.
    pub server: Option<String>,
    // --- h4: client/server ---
    /// `--server-allow-dir=DIR` (rfio only, repeatable).
    pub server_allow_dirs: Vec<String>,
    /// `--server-allow-from=CIDR` (rfio only, repeatable).
    pub server_allow_from: Vec<String>,
    /// `--server-no-exec` (rfio only).
    pub server_no_exec: bool,
    // --- h1: daemonize ---
    /// `--daemonize=PIDFILE`: with `--server`, background it.
    pub daemonize: Option<String>,
}

impl Default for Program {
    fn default() -> Self {
        Self {
            normal: true,
            terse: false,
            json: false,
            json_plus: false,
            csv: false,
            terse_version: 3,
            output: None,
            warnings_fatal: false,
            parse_only: false,
            showcmd: false,
            readonly: false,
            sections: Vec::new(),
            eta: "auto".into(),
            eta_interval_ms: None,
            eta_newline_us: None,
            status_interval_us: None,
            plot: None,
            plot_from: Vec::new(),
            bandwidth_log: false,
            server: None,
            server_allow_dirs: Vec::new(),
            server_allow_from: Vec::new(),
            server_no_exec: false,
            daemonize: None,
        }
    }
}

/// One job as defined (before `numjobs` cloning).
#[derive(Debug, Clone)]
pub struct JobDef {
    pub name: String,
    pub opts: JobOptions,
    /// Set by an implicit stonewall (a second job file).
    pub stonewall: bool,
}

/// Everything the command line and job files define.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    /// argv[0], for messages that name the program.
    pub prog: String,
    pub program: Program,
    pub jobs: Vec<JobDef>,
    /// Options of global sections as typed (JSON `global options`).
    pub global_typed: Vec<(&'static str, String)>,
    /// `--showcmd` text pieces: (section name or None for global, options).
    pub files: Vec<String>,
}

/// Why reading the command line ended without a plan. Two of fio's answers
/// need the layers above the command line, so the caller (`crate::plan::read_plan`)
/// gives them: `--inflate-log` and the header lines before a job file's error.
#[derive(Debug)]
pub enum Stop {
    /// fio's text and exit status: an error, `--version`, `--help`...
    Failure(Failure),
    /// `--inflate-log=FILE`: fio inflates the log to stdout and exits at once.
    InflateLog(String),
    /// A job file failed; fio has printed the header lines of the jobs
    /// before it, `before` (when normal output is on).
    JobFile { failure: Failure, before: Box<Plan> },
}

impl From<Failure> for Stop {
    fn from(f: Failure) -> Self {
        Stop::Failure(f)
    }
}

const PROGRAM_WITH_VALUE: &[&str] = &[
    "output",
    "output-format",
    "terse-version",
    "eta",
    "eta-newline",
    "eta-interval",
    "status-interval",
    "section",
    "alloc-size",
    "max-jobs",
    "debug",
    "plot",
    "plot-from",
    "inflate-log",
    // --- h2: fio's --aux-path (t/zbd's runs pass it) ---
    "aux-path",
    // --- h4: client/server ---
    "server-allow-dir",
    "server-allow-from",
    // --- h1: daemonize ---
    "daemonize",
];

/// getopt's complaint (prefixed with argv[0]) and then fio's own.
fn unrecognized(prog: &str, arg: &str, name: &str, engine: Option<&str>) -> Failure {
    let mut s =
        format!("{prog}: unrecognized option '{arg}'\n{prog}: unrecognized option '{arg}'\n");
    if let Some(c) = closest(name, engine) {
        s.push_str(&format!("Did you mean {c}?\n"));
    }
    Failure::stderr(s)
}

const PROGRAM_FLAGS: &[&str] = &[
    "version",
    "rbench-version",
    "help",
    "cmdhelp",
    "enghelp",
    "parse-only",
    "showcmd",
    "readonly",
    "minimal",
    "append-terse",
    "warnings-fatal",
    "generate-man",
    "name",
    "bandwidth-log",
    "server",
    // --- h4: client/server ---
    "server-no-exec",
];

/// getopt's long-option abbreviations: an exact name wins, a unique prefix
/// stands for its option, several candidates are an error (§1.1).
fn resolve_prefix<'a>(
    prog: &str,
    arg: &str,
    name: &'a str,
    engine: Option<&str>,
) -> Result<&'a str, Failure> {
    let program = PROGRAM_WITH_VALUE.iter().chain(PROGRAM_FLAGS);
    let exact = program.clone().any(|p| *p == name)
        || crate::options::find(name).is_some_and(|o| o.available_with(engine));
    if exact || name.is_empty() {
        return Ok(name);
    }
    let mut hits: Vec<(&'static str, &'static str)> = program
        .filter(|p| p.starts_with(name))
        .map(|p| (*p, *p))
        .collect();
    for o in crate::options::table::OPTIONS
        .iter()
        .filter(|o| o.available_with(engine))
    {
        for spelled in std::iter::once(o.name).chain(o.alias) {
            if spelled.starts_with(name) {
                hits.push((spelled, o.name));
            }
        }
    }
    let mut canon: Vec<&str> = hits.iter().map(|h| h.1).collect();
    canon.dedup();
    match canon.len() {
        0 => Ok(name),
        1 => Ok(canon[0]),
        _ => {
            let list: Vec<String> = hits.iter().map(|h| format!("'--{}'", h.0)).collect();
            let mut msg = format!(
                "{prog}: option '{arg}' is ambiguous; possibilities: {}\n{prog}: unrecognized option '{arg}'\n",
                list.join(" ")
            );
            // The hint is the shortest candidate: the fewest letters added.
            if let Some(c) = hits.iter().map(|h| h.0).min_by_key(|c| c.len()) {
                msg.push_str(&format!("Did you mean {c}?\n"));
            }
            Err(Failure::stderr(msg))
        }
    }
}

/// The text of a bad value: fio's `failed parsing k=v` (to stderr, after
/// our detail line) and the valid-value list (to stdout).
pub fn bad_value(err: SetError, name: &str, raw: &str) -> Failure {
    let mut f = Failure::stderr(String::new());
    if name == "ioengine" || crate::options::find(name).is_some_and(|o| o.name == "ioengine") {
        // fio tries to load an unknown engine as a plugin (§3 ioengine).
        let engine = raw.split(':').next().unwrap_or(raw);
        f.stdout = format!(
            "fio: file:ioengines.c:134, func=dlopen, error={engine}: cannot open shared object file: No such file or directory\n"
        );
        f.stderr = format!("fio: engine {engine} not loadable\nfio: failed to load engine\n");
        return f;
    }
    if let SetError::Bad { opt, err } = err {
        if let Some(d) = err.detail {
            f.stderr.push_str(&d);
            f.stderr.push('\n');
        }
        if err.show_choices {
            f.stdout = help::valid_values(opt);
            f.stdout.push('\n');
        }
    }
    f.stderr
        .push_str(&format!("fio: failed parsing {name}={raw}\n"));
    f
}

fn set_output_format(p: &mut Program, list: &str) -> Result<(), Failure> {
    p.normal = false;
    for f in list.split(',') {
        match f {
            "normal" => p.normal = true,
            "terse" => p.terse = true,
            "json" => p.json = true,
            "json+" => {
                p.json = true;
                p.json_plus = true
            }
            "csv" => p.csv = true,
            _ => {
                return Err(Failure::stderr(format!(
                    "fio: invalid output format {f}\nfio: failed parsing output-format\n"
                )))
            }
        }
    }
    Ok(())
}

/// The job sections built so far from the command line: the global
/// options, the job being defined, and whether a `--name=global…` section
/// is open.
struct Sections {
    global: JobOptions,
    current: Option<JobDef>,
    in_global_section: bool,
}

impl Sections {
    /// The engine of the section that takes the next option.
    fn engine(&self) -> Option<&str> {
        match self.current.as_ref() {
            Some(j) if !self.in_global_section => j.opts.engine(),
            _ => self.global.engine(),
        }
    }

    /// `--name=V`: end the job being defined; start a global section
    /// (V begins with `global`) or a job that inherits the globals.
    fn start(&mut self, plan: &mut Plan, v: String) {
        if let Some(j) = self.current.take() {
            plan.jobs.push(j);
        }
        if v.starts_with("global") {
            self.in_global_section = true;
        } else {
            self.in_global_section = false;
            let mut opts = self.global.inherit();
            let _ = opts.set("name", Some(&v));
            self.current = Some(JobDef {
                name: v,
                opts,
                stonewall: false,
            });
        }
    }

    /// A job option, for the open section; a global one is also kept
    /// typed in the plan.
    fn job_option(
        &mut self,
        plan: &mut Plan,
        names: (&str, &str, &str),
        inline: Option<String>,
        args: &[String],
        i: &mut usize,
    ) -> Result<(), Stop> {
        let is_global = self.in_global_section || self.current.is_none();
        let target = match self.current.as_mut() {
            Some(j) if !self.in_global_section => &mut j.opts,
            _ => &mut self.global,
        };
        job_option(target, names, inline, args, i)?;
        if is_global {
            plan.global_typed = self.global.typed.clone();
        }
        Ok(())
    }
}

/// An option's name and inline `=value` from `arg` (`--name` or `-name`);
/// None for a job file.
fn option_parts(arg: &str) -> Option<(&str, Option<String>)> {
    let body = arg
        .strip_prefix("--")
        .or_else(|| arg.strip_prefix('-'))
        .filter(|b| !b.is_empty())?;
    Some(match body.split_once('=') {
        Some((n, v)) => (n, Some(v.to_string())),
        None => (body, None),
    })
}

/// The program options that take no separate value; whether `name` was
/// one. The ones that print and exit stop the parse.
fn program_flag(
    p: &mut Program,
    name: &str,
    inline: Option<&str>,
    prog: &str,
) -> Result<bool, Stop> {
    match name {
        "version"
        | "rbench-version"
        | "generate-man"
        | "generate-completions"
        | "help"
        | "cmdhelp"
        | "enghelp" => return Err(exit_option(name, inline, prog)),
        "warnings-fatal" => p.warnings_fatal = true,
        "parse-only" => p.parse_only = true,
        "showcmd" => p.showcmd = true,
        "readonly" => p.readonly = true,
        "minimal" => {
            p.normal = false;
            p.terse = true;
            p.json = false;
        }
        "append-terse" => p.terse = true,
        "bandwidth-log" => p.bandwidth_log = true,
        // An optional value, given only as `--server=ARGS` (getopt).
        "server" => p.server = Some(inline.unwrap_or_default().to_string()),
        "server-no-exec" => p.server_no_exec = true,
        _ => return Ok(false),
    }
    Ok(true)
}

/// The value of option `arg`: inline, or the next argument (stepping
/// `i` past it); getopt's messages when there is none (`hint` after them).
fn option_value(
    (prog, arg): (&str, &str),
    inline: Option<String>,
    args: &[String],
    i: &mut usize,
    hint: &str,
) -> Result<String, Failure> {
    if let Some(v) = inline {
        return Ok(v);
    }
    let v = args.get(*i).cloned().ok_or_else(|| {
        Failure::stderr(format!(
            "{prog}: option '{arg}' requires an argument\n{prog}: unrecognized option '{arg}'\n{hint}"
        ))
    })?;
    *i += 1;
    Ok(v)
}

/// Parse argv (without the program name) into a plan.
/// Parse argv (`args[0]` is the program name, used in getopt's messages).
pub fn parse(argv: &[String]) -> Result<Plan, Stop> {
    let prog = argv.first().map_or("fio", String::as_str);
    let args = argv.get(1..).unwrap_or(&[]);
    let mut plan = Plan {
        prog: prog.to_string(),
        ..Plan::default()
    };
    let mut s = Sections {
        global: JobOptions::default(),
        current: None,
        in_global_section: false,
    };
    let mut job_files = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        let Some((name, inline)) = option_parts(arg) else {
            job_files.push(arg.clone());
            continue;
        };
        let name = resolve_prefix(&plan.prog, arg, name, s.engine())?;
        if program_flag(&mut plan.program, name, inline.as_deref(), prog)? {
            continue;
        }
        if PROGRAM_WITH_VALUE.contains(&name) {
            // --- h1: daemonize --- (fio's closest-option hint)
            let hint = if name == "daemonize" {
                "Did you mean daemonize?\n"
            } else {
                ""
            };
            let v = option_value((prog, arg), inline, args, &mut i, hint)?;
            valued_option(&mut plan.program, name, v)?;
        } else if name == "name" {
            let v = option_value((prog, arg), inline, args, &mut i, "Did you mean name?\n")?;
            s.start(&mut plan, v);
        } else {
            s.job_option(&mut plan, (prog, arg, name), inline, args, &mut i)?;
        }
    }
    if let Some(j) = s.current.take() {
        plan.jobs.push(j);
    }
    add_job_files(plan, &s.global, &job_files)
}

/// The job files named on the command line, read in order after its
/// options (`before`: the plan so far, for the error's report).
fn add_job_files(mut plan: Plan, global: &JobOptions, job_files: &[String]) -> Result<Plan, Stop> {
    for (n, file) in job_files.iter().enumerate() {
        // Command-line globals seed only the first job file (§1.1).
        let seed = if n == 0 {
            global.clone()
        } else {
            JobOptions::default()
        };
        if n == 0 {
            // fio frees the command line's jobs before it reads a file.
            trace::free_jobs(plan.jobs.len());
        }
        trace::line(format!("Parsing ini file {file}"));
        let added = jobfile::read(file).and_then(|s| add_file_jobs(&mut plan, seed, &s, n > 0));
        if let Err(failure) = added {
            return Err(Stop::JobFile {
                failure,
                before: Box::new(plan),
            });
        }
    }
    Ok(plan)
}

/// The program options that answer and stop (version, help, man page,
/// completions): what they print.
fn exit_option(name: &str, inline: Option<&str>, prog: &str) -> Stop {
    match name {
        // Exactly fio's line: scripts cut it (`cut -d- -f2`, blktests).
        "version" => Failure::done("fio-3.33\n".to_string()).into(),
        "rbench-version" => {
            Failure::done(concat!("rfio ", env!("CARGO_PKG_VERSION"), " (rbench)\n").to_string())
                .into()
        }
        // rfio's own: the man page, generated from the option table.
        "generate-man" => Failure::done(crate::man::render()).into(),
        // rfio's own: the completion scripts, generated from the same table.
        "generate-completions" => match inline.unwrap_or("").parse() {
            Ok(shell) => Failure::done(crate::completions::render(shell)),
            Err(e) => Failure::stderr(format!("{prog}: {e}\n")),
        }
        .into(),
        "help" => Failure::done(help::usage(prog)).into(),
        "cmdhelp" => help::cmdhelp(inline.unwrap_or("all")).into(),
        _ => help::enghelp(inline).into(),
    }
}

/// A program option with a value (`--output`, `--eta`, `--section`...).
fn valued_option(p: &mut Program, name: &str, v: String) -> Result<(), Stop> {
    match name {
        "output" => p.output = Some(v),
        "plot" => p.plot = Some(v),
        "plot-from" => p.plot_from.push(v),
        // --- h4: client/server ---
        "server-allow-dir" => p.server_allow_dirs.push(v),
        "server-allow-from" => p.server_allow_from.push(v),
        // --- h1: daemonize ---
        "daemonize" => p.daemonize = Some(v),
        // fio inflates the log to stdout and exits at once.
        "inflate-log" => return Err(Stop::InflateLog(v)),
        "output-format" => set_output_format(p, &v)?,
        "terse-version" => match v.parse() {
            Ok(n @ 2..=5) => p.terse_version = n,
            _ => return Err(Failure::stderr("fio: bad terse version format\n").into()),
        },
        "section" => {
            if v == "global" {
                return Err(Failure::stderr("fio: can't use global as only section\n").into());
            }
            p.sections.push(v)
        }
        "eta" => p.eta = v,
        "eta-interval" => p.eta_interval_ms = Some(parse_interval(&v).map_err(Failure::stderr)?),
        "eta-newline" => {
            let t = rbench_common::units::fio::parse_time_us(
                &v,
                rbench_common::units::fio::TimeUnit::Seconds,
            )
            .ok()
            .filter(|&t| t > 0)
            .ok_or_else(|| Failure::stderr(format!("fio: failed parsing eta-newline={v}\n")))?;
            p.eta_newline_us = Some(t);
        }
        "status-interval" => {
            let t = rbench_common::units::fio::parse_time_us(
                &v,
                rbench_common::units::fio::TimeUnit::Seconds,
            )
            .map_err(|_| Failure::stderr(format!("fio: failed parsing status-interval={v}\n")))?;
            if t < 1000 {
                return Err(Failure::stderr("fio: status interval too small\n").into());
            }
            p.status_interval_us = Some(t);
        }
        // fio's lines as it sets each class; only `parse` traces.
        "debug" => {
            let (out, err) = crate::options::trace::set_classes(&v);
            print!("{out}");
            eprint!("{err}");
        }
        // Accepted for compatibility; not implemented.
        _ => {}
    }
    Ok(())
}

/// A job option (`--bs=4k`, `--rw randread`) set on `target`, its value
/// inline or the next argument (`i` moves past it).
fn job_option(
    target: &mut JobOptions,
    (prog, arg, name): (&str, &str, &str),
    inline: Option<String>,
    args: &[String],
    i: &mut usize,
) -> Result<(), Stop> {
    let known = crate::options::find(name).filter(|o| o.available_with(target.engine()));
    let Some(opt) = known else {
        return Err(unrecognized(prog, arg, name, target.engine()).into());
    };
    let value = match inline {
        // fio: `--bs=` (an empty value for an option that takes
        // one) is "requires an argument", not the default.
        Some(v) if v.is_empty() && opt.kind.needs_value() => {
            return Err(
                Failure::stderr(format!("fio: option {name} requires an argument\n")).into(),
            );
        }
        Some(v) => Some(v),
        None if opt.kind.needs_value() => match args.get(*i) {
            Some(v) => {
                *i += 1;
                Some(v.clone())
            }
            None => {
                let mut f = unrecognized(prog, arg, name, target.engine());
                f.stderr = format!(
                    "{prog}: option '{arg}' requires an argument\n{}",
                    f.stderr.split_once('\n').map_or("", |x| x.1)
                );
                return Err(f.into());
            }
        },
        None => None,
    };
    target
        .set(name, value.as_deref())
        .map_err(|e| bad_value(e, name, value.as_deref().unwrap_or("")))?;
    Ok(())
}

/// The shortest `--eta-interval`: fio's helper thread wakes every 250 ms
/// (DISK_UTIL_MSEC, run/eta.rs's HELPER_TICK_MS).
const ETA_INTERVAL_MIN_MS: u32 = 250;

/// Parse `--eta-interval` as fio does: seconds by default, at least
/// 250 ms; a negative time wraps to fio's unsigned milliseconds.
fn parse_interval(v: &str) -> Result<u32, String> {
    use rbench_common::units::fio::{parse_time_us, TimeUnit};
    let failed = || format!("fio: failed parsing eta interval {v}\n");
    let ms = match parse_time_us(v, TimeUnit::Seconds) {
        Ok(us) => (us / 1000) as u32,
        Err(_) => {
            let us = v
                .strip_prefix('-')
                .and_then(|r| parse_time_us(r, TimeUnit::Seconds).ok())
                .ok_or_else(failed)?;
            (-((us / 1000) as i64)) as u32
        }
    };
    if ms < ETA_INTERVAL_MIN_MS {
        return Err("fio: eta interval time too short (250msec min)\n".into());
    }
    Ok(ms)
}

/// Apply a section's lines in fio's parse order: `ioengine` first (so its
/// private options are known), then by option priority (§1.3).
fn apply_section(opts: &mut JobOptions, sec: &Section, parse_only: bool) -> Result<(), Failure> {
    let mut lines: Vec<&(String, Option<String>)> = sec.lines.iter().collect();
    lines.sort_by_key(|(k, _)| {
        let p = crate::options::find(k).map_or(0, |o| o.prio);
        (k != "ioengine", -p)
    });
    // The JSON echo lists the section's options in fio's priority order;
    // `ioengine` goes first above only so its private options parse.
    let echoed_before = opts.typed.len();
    let result = apply_lines(opts, sec, lines, parse_only);
    let canonical = |k: &str| crate::options::find(k).map(|o| o.name);
    let key = |n: &str| {
        let written = sec.lines.iter().position(|(k, _)| canonical(k) == Some(n));
        (crate::options::find(n).map_or(0, |o| -o.prio), written)
    };
    opts.typed[echoed_before..].sort_by_key(|(n, _)| key(n));
    result
}

fn apply_lines(
    opts: &mut JobOptions,
    sec: &Section,
    lines: Vec<&(String, Option<String>)>,
    parse_only: bool,
) -> Result<(), Failure> {
    let dropped = |f: Failure| {
        let mut f = f;
        f.stderr
            .push_str(&format!("fio: job {} dropped\n", sec.name));
        f
    };
    for (k, v) in lines {
        // A job section's name is its header; a global section's `name=`
        // names nothing but still shows in JSON `global options`.
        if k == "name" && !sec.is_global() {
            continue;
        }
        let line = match v {
            Some(v) => format!("{k}={v}"),
            None => k.clone(),
        };
        match opts.set(k, v.as_deref()) {
            Ok(()) => {}
            Err(SetError::Unknown) => {
                let mut s = format!("Bad option <{line}>\n");
                if let Some(c) = closest(k, opts.engine()) {
                    s.push_str(&format!("Did you mean {c}?\n"));
                }
                return Err(dropped(Failure::stderr(s)));
            }
            // fio's --parse-only loads no engine a job file names: one it
            // could not load is no error there (its own options still are).
            Err(_)
                if parse_only && crate::options::find(k).is_some_and(|o| o.name == "ioengine") => {}
            Err(e) => {
                return Err(dropped(bad_value(e, k, v.as_deref().unwrap_or(""))));
            }
        }
    }
    Ok(())
}

/// `--debug=parse`: fio's trace of a global section read from a job file
/// (its header, its lines, then the next header).
fn trace_section(sec: &Section, next: Option<&Section>) {
    trace::line(format!("[{}]", sec.name));
    trace::line(format!("Parsing section [{}]", sec.name));
    trace_lines(sec, next);
}

/// A section's lines as fio echoes them while reading, then the next
/// section's header (fio handles a section's options once it reads it).
fn trace_lines(sec: &Section, next: Option<&Section>) {
    for (k, v) in &sec.lines {
        trace::line(match v {
            Some(v) => format!("{k}={v}"),
            None => k.clone(),
        });
    }
    if let Some(n) = next {
        trace::line(format!("[{}]", n.name));
    }
}

fn add_file_jobs(
    plan: &mut Plan,
    mut global: JobOptions,
    sections: &[Section],
    stonewall_first: bool,
) -> Result<(), Failure> {
    let mut first = true;
    // fio resets its default job before each later job file, and JSON
    // `global options` echoes what the default job holds at the end.
    if stonewall_first {
        plan.global_typed.clear();
    }
    for (i, sec) in sections.iter().enumerate() {
        let next = sections.get(i + 1);
        if sec.is_global() {
            trace_section(sec, next);
            apply_section(&mut global, sec, plan.program.parse_only)?;
            // An option set again keeps its first place with the last value.
            for (k, v) in &global.typed {
                match plan.global_typed.iter_mut().find(|(n, _)| n == k) {
                    Some(slot) => slot.1.clone_from(v),
                    None => plan.global_typed.push((k, v.clone())),
                }
            }
            continue;
        }
        let wanted = &plan.program.sections;
        if !wanted.is_empty() && !wanted.contains(&sec.name) {
            continue;
        }
        trace::line(format!("[{}]", sec.name));
        trace::line(format!("Parsing section [{}]", sec.name));
        let mut opts = global.inherit();
        trace_lines(sec, next);
        apply_section(&mut opts, sec, plan.program.parse_only)?;
        trace::file_job_freed();
        plan.jobs.push(JobDef {
            name: sec.name.clone(),
            opts,
            stonewall: first && stonewall_first,
        });
        first = false;
    }
    let mut text = String::from("fio ");
    for sec in sections {
        if !sec.is_global() {
            text.push_str(&format!("--name={} ", sec.name));
        }
        let mut lines: Vec<&(String, Option<String>)> = sec.lines.iter().collect();
        lines.sort_by_key(|(k, _)| -crate::options::find(k).map_or(0, |o| o.prio));
        for (k, v) in lines {
            match v {
                Some(v) if k == "description" => text.push_str(&format!("--{k}=\"{v}\" ")),
                Some(v) => text.push_str(&format!("--{k}={v} ")),
                None => text.push_str(&format!("--{k} ")),
            }
        }
    }
    text.push('\n');
    plan.files.push(text);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interval_parses_like_fio() {
        assert_eq!(parse_interval("1"), Ok(1000));
        assert_eq!(parse_interval("250ms"), Ok(250));
        assert!(parse_interval("249ms").unwrap_err().contains("too short"));
        assert!(parse_interval("0").unwrap_err().contains("too short"));
        assert!(parse_interval("abc")
            .unwrap_err()
            .contains("failed parsing"));
        assert_eq!(parse_interval("-1"), Ok((-1000i64) as u32));
    }
}
