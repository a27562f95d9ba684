//! rfio's job files and option values: the input is a job file's text,
//! optionally followed by NUL-separated command-line arguments; both are
//! read as rfio reads them before it runs anything (program and job
//! options, sections, `include`, `${VAR}`, values of every kind, `numjobs`
//! clones, fio's pre-run checks), giving jobs or fio's error text, never a
//! panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

/// A word that would make the parser read a special file (a job file or an
/// `include` naming a device or /proc can block or never end): such inputs
/// say nothing about the parser.
fn names_special_file(s: &str) -> bool {
    s == "-"
        || ["/dev", "/proc", "/sys", "dev/", "proc/", "sys/"]
            .iter()
            .any(|p| s.contains(p))
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut parts = text.split('\0');
    let job_file = parts.next().unwrap_or("");
    if job_file.contains("include") && names_special_file(job_file) {
        return;
    }
    let mut argv = vec!["fio".to_string()];
    argv.extend(parts.filter(|a| !names_special_file(a)).map(str::to_string));
    let scratch =
        std::env::temp_dir().join(format!("rfio-jobfile-fuzz-{}.fio", std::process::id()));
    match rfio::check_command_line(&argv, Some(job_file), &scratch) {
        Ok(_) => {}
        Err((msg, code)) => {
            // --version, --help and friends end early with 0 and text.
            assert!(code == 0 || !msg.is_empty(), "{argv:?} {job_file:?}");
        }
    }
});
