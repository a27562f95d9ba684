//! exec_prerun / exec_postrun: a job's shell command before its I/O and
//! after it, run as fio runs it (system(3): `CMD > NAME.MODE.txt 2>&1`,
//! so only the command's last part has its output saved there).

use std::io::Write;
use std::process::Command;

/// exec_prerun, as the job starts: false when it failed, which ends the
/// job before its I/O with no error (fio's goto err).
pub fn prerun(job: &crate::job::Job) -> bool {
    job.exec_prerun
        .as_ref()
        .is_none_or(|c| run(&job.name, c, "prerun"))
}

/// exec_postrun, once the job's I/O and logs are done (its result is not
/// looked at, as fio's).
pub fn postrun(job: &crate::job::Job) {
    if let Some(c) = &job.exec_postrun {
        run(&job.name, c, "postrun");
    }
}

/// Run `cmd` for job `name` (`mode`: prerun or postrun), saying where its
/// output goes as fio does; true when the shell exited 0.
pub fn run(name: &str, cmd: &str, mode: &str) -> bool {
    let line = format!("{name} : Saving output of {mode} in {name}.{mode}.txt\n");
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(line.as_bytes());
    let _ = out.flush();
    drop(out);
    let full = format!("{cmd} > {name}.{mode}.txt 2>&1");
    match Command::new("/bin/sh").arg("-c").arg(&full).status() {
        Ok(s) => s.success(),
        Err(_) => {
            eprintln!("fio: exec of cmd <{full}> failed");
            false
        }
    }
}
