//! rfio's command-line and job-file parser as a library, so the fuzz target
//! in `fuzz/` can drive it; the program is `main.rs`. The library compiles
//! the program's own module tree (it includes `main.rs`, so a module added
//! there is here too) and exposes only [`check_command_line`]. Under
//! `cfg(test)` it is empty: the bin target already runs the unit tests.

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
