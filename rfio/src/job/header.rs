//! The line fio prints for each job as it adds it, before anything runs:
//! `NAME: (g=G): rw=..., bs=(R) ..., ioengine=..., iodepth=N`.

use super::Job;
use rbench_common::units::fio::{num2str, N2sUnit};
use std::fmt::Write;

/// The `NAME: (g=G): rw=…` line of each job (`...` for its clones): fio
/// prints it as it adds the job, so also before a later job file fails.
pub fn job_lines(jobs: &[Job]) -> String {
    let mut s = String::new();
    for (i, j) in jobs.iter().enumerate() {
        // fio prints none for an engine that does no I/O (cpuio, exec).
        if crate::engine::noio(&j.engine) {
            continue;
        }
        if j.clone > 0 {
            // One `...` for a job's clones (they follow it).
            if i > 0 && jobs[i - 1].clone == 0 {
                s.push_str("...\n");
            }
            continue;
        }
        let pow2 = j.kb_base == 1024;
        let b = |v: u64| num2str(v, j.reporting.sig_figs, 1, pow2, N2sUnit::Byte);
        let _ = writeln!(
            s,
            "{}: (g={}): rw={}, bs=(R) {}-{}, (W) {}-{}, (T) {}-{}, ioengine={}, iodepth={}",
            j.name,
            j.groupid,
            // fio names the mode by its direction bits: `readwrite` is `rw`.
            if j.rw_word == "readwrite" {
                "rw"
            } else {
                &j.rw_word
            },
            b(j.bs[0].0),
            b(j.bs[0].1),
            b(j.bs[1].0),
            b(j.bs[1].1),
            b(j.bs[2].0),
            b(j.bs[2].1),
            j.engine,
            j.queue.iodepth
        );
    }
    s
}
