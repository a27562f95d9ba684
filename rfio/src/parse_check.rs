//! The parser end to end, as far as rfio reads before it runs anything: the
//! command line, job files, the jobs they resolve to and fio's pre-run
//! checks. The fuzz target (through `lib.rs`) and the proptest below drive
//! it: whatever the input, the answer is jobs or an error, never a panic.

use crate::failure::Failure;
use std::path::Path;

/// Parse `argv` (program name first) plus `job_file`'s text, written to
/// `scratch` and given as the last job file; resolve the jobs and validate
/// them as `app::main` does. Returns how many jobs would run.
// The program itself runs `app::main`; the library and the tests call this.
#[allow(dead_code)]
pub fn check(argv: &[String], job_file: Option<&str>, scratch: &Path) -> Result<usize, Failure> {
    let mut argv = argv.to_vec();
    if let Some(text) = job_file {
        std::fs::write(scratch, text)
            .map_err(|e| Failure::stderr(format!("cannot write {}: {e}\n", scratch.display())))?;
        argv.push(scratch.to_string_lossy().into_owned());
    }
    let plan = crate::plan::read_plan(&argv)?;
    let jobs = crate::job::expand(&plan)?;
    crate::plan::validate(&jobs, plan.program.parse_only)?;
    Ok(jobs.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::table::OPTIONS;
    use proptest::prelude::*;

    /// A scratch job file per test thread (proptest cases run one by one).
    fn scratch() -> std::path::PathBuf {
        std::env::temp_dir().join(format!(
            "rfio-parse-check-{}-{:?}.fio",
            std::process::id(),
            std::thread::current().id()
        ))
    }

    /// Values of the shapes fio's options take, and a few that are none.
    fn value() -> impl Strategy<Value = String> {
        prop_oneof![
            "[0-9]{1,20}[kKmMgGtTpP%]?[iI]?[bB]?",
            "-?[0-9]{1,4}(\\.[0-9]{1,3})?(s|ms|us|m|h|d)?",
            "[0-9]{1,5}[kmg]?([-:,/][0-9]{0,5}[kmg]?){1,4}",
            "(read|write|randrw|rw|psync|libaio|io_uring|null|sync|zipf|pareto|normal|random|gauss)(:[0-9.]{0,5})?",
            "[ -~]{0,16}",
            "\\PC{0,12}",
        ]
    }

    /// A job file from option names (some mistyped), values and sections.
    fn job_file() -> impl Strategy<Value = String> {
        let line = prop_oneof![
            4 => (0..OPTIONS.len(), proptest::option::of(value()))
                .prop_map(|(i, v)| match v {
                    Some(v) => format!("{}={v}", OPTIONS[i].name),
                    None => OPTIONS[i].name.to_string(),
                }),
            1 => "\\[[a-z]{0,6}\\]?",
            1 => Just("[global]".to_string()),
            1 => "[ -~]{0,24}",
        ];
        proptest::collection::vec(line, 0..12).prop_map(|lines| {
            let mut t = String::from("[job]\n");
            for l in lines {
                t.push_str(&l);
                t.push('\n');
            }
            t
        })
    }

    fn args() -> impl Strategy<Value = Vec<String>> {
        proptest::collection::vec(
            prop_oneof![
                (0..OPTIONS.len(), value()).prop_map(|(i, v)| format!("--{}={v}", OPTIONS[i].name)),
                "--(name|output-format|section|readonly|parse-only)(=[a-z,+]{0,12})?",
                "-{1,2}[a-z_]{1,12}",
            ],
            0..5,
        )
    }

    proptest! {
        /// Whatever the job file and command line, parsing, resolving the
        /// jobs and fio's pre-run checks give jobs or an error, never a
        /// panic; an error always says something and exits non-zero.
        #[test]
        fn any_job_file_or_command_line_is_handled(text in job_file(), args in args()) {
            let mut argv = vec!["fio".to_string()];
            argv.extend(args);
            match check(&argv, Some(&text), &scratch()) {
                Ok(_) => {}
                Err(f) => {
                    // --version, --cmdhelp and friends end early with 0.
                    if f.code != 0 {
                        prop_assert!(!f.stderr.is_empty() || !f.stdout.is_empty());
                    }
                }
            }
            let _ = std::fs::remove_file(scratch());
        }
    }

    /// Inputs that once panicked or ran away: each is now fio's error.
    #[test]
    fn regressions_are_errors() {
        let argv = vec!["fio".to_string()];
        for (line, want) in [
            // Percentages summed in a u32 overflowed.
            ("bssplit=4k/4294967295:4k/5", "fio: failed parsing bssplit="),
            // fio refuses a skip past 2^63; ours wrapped offsets.
            (
                "rw=read:18446744073709551615",
                "fio: rw postfix parsing failed\n",
            ),
            // Built every clone (and file name) before running out.
            (
                "numjobs=99999999999\nnrfiles=99999999",
                "error: maximum number of jobs reached.\n",
            ),
        ] {
            let text = format!("[x]\nioengine=null\nsize=1m\n{line}\n");
            let f = check(&argv, Some(&text), &scratch()).expect_err(line);
            assert_eq!(f.code, 1, "{line}");
            assert!(f.stderr.contains(want), "{line}: {}", f.stderr);
        }
        let _ = std::fs::remove_file(scratch());
    }

    #[test]
    fn a_reference_job_file_resolves() {
        let text =
            "[global]\nioengine=null\nsize=1m\n[a]\nrw=randread\nnumjobs=3\n[b]\nbs=4k,64k\n";
        let argv = vec!["fio".to_string()];
        let n = check(&argv, Some(text), &scratch()).unwrap_or_else(|f| panic!("{}", f.stderr));
        let _ = std::fs::remove_file(scratch());
        assert_eq!(n, 4);
    }
}
