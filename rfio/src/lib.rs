//! rfio's command-line and job-file parser as a library, so the fuzz target
//! in `fuzz/` can drive it; the program is `main.rs`. The library compiles
//! the program's own module tree (it includes `main.rs`, so a module added
//! there is here too) and exposes only [`check_command_line`]. Under
//! `cfg(test)` it is empty: the bin target already runs the unit tests.
//!
//! # The map
//!
//! Layers from the bottom up: each uses only those it names, all listed
//! before it, so no import circle crosses a folder (tests/tests/
//! rfio_layers.rs reads every `crate::` path outside the unit-test modules
//! and holds the code to this list). Unit-test modules may also build a
//! job from a command line with `cli`.
//!
//! - `failure.rs`: a run that ends early: each stream's text and the exit
//!   status. Uses nothing.
//! - `options/`: fio's option table, values, job files, `--cmdhelp`. Uses
//!   failure.
//! - `cli.rs`, `man.rs`, `completions.rs`: the command line read into a
//!   `Plan` (program options, job definitions); the man page and completion
//!   scripts written from the option table. Use options.
//! - `verify/`: fio's verify header, checksums and patterns: functions over
//!   bytes. Uses nothing else in rfio.
//! - `engine/`: the I/O engines behind one trait (queue, commit, reap), one
//!   file each; each is built from a small `engine::Config`, not the job.
//!   Uses options (the job's own options, for the engines' own options).
//! - `job/`: each job's typed settings (`Job`), built from a `Plan` out of
//!   setting groups (`groups.rs`: queue, reporting, throttle, logs, files,
//!   order, randomness, latency targets), and the
//!   setting types with fio's rules for them: zones, distributions,
//!   steadystate, error policy, buffer contents, verify, replay, CPU lists,
//!   rate checks, the job header lines. Uses cli, options, verify and
//!   engine (`Job::engine_config`).
//! - `stats.rs`: one thread's counters and histograms, its I/O errors and
//!   steadystate block: data. Uses job and engine (their setting types).
//! - `run/`: running the jobs: segments and threads (`mod.rs`), the job loop
//!   (`worker.rs`, `submitters.rs`) and what it uses directly (`buffers`,
//!   `errors`, `eta`, `placement`...). Uses job, engine, verify and stats.
//!   - `run/offsets/`: where the next I/O goes: the picker, fio's random
//!     map, distributions, lfsr, strided zones, direction and block-size
//!     choices.
//!   - `run/pacing/`: rate, think time, steady state, sleeps a signal ends.
//!   - `run/files/`: a job's files: layout, opening and cache hints, file
//!     sizes, disk statistics.
//!   - `run/logs/`: fio's log files, the bw/iops sampler, compressed logs,
//!     aggregate bandwidth logs, the `--plot` trace.
//!   - `run/verify/`: the verify pass of a running job (seal, check, trim
//!     verify, the final read-back).
//!   - `run/iolog/`: write_iolog and the reader of replayed logs.
//! - `plan.rs`: what fio does with a command line before anything runs:
//!   read it into a plan, check the jobs. Uses cli, job and run (numa
//!   checks, `--inflate-log`).
//! - `result.rs`: a run's result as the reports see it: data over stats and
//!   run's outcomes.
//! - `report/`: views of the result: normal, terse, JSON, CSV. Uses result,
//!   job, stats and run's report types (disk statistics, the ETA text).
//! - `plot/`: SVG charts of a run's trace or of log files. Uses result and
//!   run/logs (the trace, stored logs).
//! - `merge.rs`: `--merge` of json+ reports. Uses report.
//! - `remote/protocol/`: fio's client/server wire format as data (frames,
//!   CRC16, payload layouts); no I/O. Uses nothing else in rfio.
//! - `remote/`: `--server` and `--client` over that protocol. Uses plan,
//!   job, run, result, report.
//! - `app.rs`, `parse_check.rs`, `main.rs`: wire them: read the plan, build
//!   the jobs, run, report; errors printed once, in `app.rs`.

// The program uses the rest of the tree; the library only parses.
#![cfg_attr(not(test), allow(dead_code))]

#[cfg(not(test))]
include!("main.rs");

/// Read `argv` (with the program name first) and, when given, `job_file`
/// as the text of a job file, as far as rfio does before it runs anything:
/// program options, job options and their values, sections, `numjobs`
/// clones and fio's pre-run checks. `scratch` is where the text is written
/// to be read back as a job file. Returns the number of jobs, or fio's
/// error text and exit status; must never panic. Arguments that name job
/// files are read as such, so callers keep them away from special files.
#[cfg(not(test))]
pub fn check_command_line(
    argv: &[String],
    job_file: Option<&str>,
    scratch: &std::path::Path,
) -> Result<usize, (String, i32)> {
    parse_check::check(argv, job_file, scratch).map_err(|f| (f.stdout + &f.stderr, f.code))
}

/// Feed `data` to every decoder of fio's client/server protocol (frames,
/// each payload layout, the bounded inflate): errors are fine, panics are
/// not. For the `rfio_remote` fuzz target.
#[cfg(not(test))]
pub fn decode_remote(data: &[u8]) {
    remote::protocol::decode_everything(data)
}
