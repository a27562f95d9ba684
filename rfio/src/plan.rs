//! What fio does with a command line before anything runs, shared by the
//! program (app.rs) and the server (remote/server.rs): read it into a
//! plan, and check the jobs built from it.

use crate::cli::{self, Plan, Stop};
use crate::failure::Failure;
use rbench_common::units::fio::SizeOrPercent;

/// The command line and job files as fio reads them ([`cli::parse`]), with
/// the two answers that need more than the options: `--inflate-log`
/// inflates the log and exits, and a job file's error follows the header
/// lines of the jobs before it.
pub fn read_plan(args: &[String]) -> Result<Plan, Failure> {
    match cli::parse(args) {
        Ok(plan) => Ok(plan),
        Err(Stop::Failure(f)) => Err(f),
        Err(Stop::InflateLog(path)) => Err(crate::run::logs::logzip::inflate_file(&path)),
        Err(Stop::JobFile {
            mut failure,
            before,
        }) => {
            if before.program.normal {
                if let Ok(jobs) = crate::job::expand(&before) {
                    failure
                        .stdout
                        .insert_str(0, &crate::job::header::job_lines(&jobs));
                }
            }
            Err(failure)
        }
    }
}

/// Checks fio makes before anything runs (§1.4: parse errors exit 1).
/// With `--parse-only` fio skips its job fixups and the directory check
/// (`parse_dryrun()`): only what the option parser itself refuses fails.
pub fn validate(jobs: &[crate::job::Job], parse_only: bool) -> Result<(), Failure> {
    for j in jobs {
        let min_bs = j.bs.iter().map(|b| b.0).min().unwrap_or(4096);
        if parse_only {
            // Only the read-only check below is the parser's own.
        } else if let Some(SizeOrPercent::Bytes(s)) = j.size {
            if s < min_bs {
                return Err(Failure::stderr(format!(
                    "fio: size too small, must not be less than minimum block size: {s} < {min_bs}\n"
                )));
            }
        }
        // fio checks directory= as it parses it: each must exist and be
        // a directory.
        if let Some(dirs) = j.opts.text("directory").filter(|_| !parse_only) {
            for d in dirs.split(':').filter(|d| !d.is_empty()) {
                let stdout = match std::fs::metadata(d) {
                    Ok(m) if m.is_dir() => continue,
                    Ok(_) => String::new(),
                    Err(e) => format!(
                        "fio: file:options.c:1457, func=lstat, error={}\n",
                        rbench_common::output::strerror(e.raw_os_error().unwrap_or(libc::ENOENT))
                    ),
                };
                return Err(Failure {
                    stdout,
                    stderr: format!(
                        "fio: {d} is not a directory\nfio: failed parsing directory={dirs}\n"
                    ),
                    code: 1,
                });
            }
        }
        // fio's fixup_options (skipped by its dry run).
        if !parse_only && j.zbd.is_some() && !j.files.create_serialize {
            return Err(Failure::stderr(
                "fio: --zonemode=zbd and --create_serialize=0 are not compatible.\n",
            ));
        }
        if !parse_only {
            // fio's numa option callbacks (skipped by its dry run).
            crate::run::numa::check(j).map_err(|(stdout, stderr)| Failure {
                stdout,
                stderr,
                code: 1,
            })?;
        }
        // fio's run of an engine it cannot load (its --parse-only takes
        // the job): rfio has none of these built in.
        if !parse_only && crate::options::table::SERVICE_ENGINES.contains(&j.engine.as_str()) {
            return Err(crate::cli::bad_value(
                crate::options::store::SetError::Unknown,
                "ioengine",
                &j.engine,
            ));
        }
        if j.readonly && (j.pattern.write || j.pattern.trim) {
            return Err(Failure::stderr(format!(
                "fio: job <{}> has write bit set, but fio is in read-only mode\n",
                j.name
            )));
        }
    }
    Ok(())
}
