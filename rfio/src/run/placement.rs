//! Where and how urgently a job runs (§3): `cpus_allowed`/`cpumask` with
//! `cpus_allowed_policy`, `nice`, `prio`/`prioclass`. Applied once by the
//! job's own thread before its first I/O.

use crate::job::Job;

/// fio's ioprio value: class (best-effort when unset) << 13 | level.
pub fn ioprio_value(class: Option<u32>, level: Option<u32>) -> Option<u32> {
    if class.is_none() && level.is_none() {
        return None;
    }
    let class = match class.unwrap_or(0) {
        0 => 2,
        c => c,
    };
    Some((class << 13) | level.unwrap_or(0))
}

/// Apply the job's placement to the calling thread. On failure: the errno
/// and fio's name for the step.
pub fn apply(job: &Job) -> Result<(), (i32, &'static str)> {
    let errno = || std::io::Error::last_os_error().raw_os_error().unwrap_or(0);
    if let Some(cpus) = &job.cpus_allowed {
        if cpus.is_empty() {
            return Err((libc::EINVAL, "cpus_split"));
        }
        // SAFETY: a zeroed cpu_set_t is valid; CPU_SET on numbers below
        // CPU_SETSIZE (checked at parse time against the online count).
        let r = unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            for &c in cpus {
                libc::CPU_SET(c, &mut set);
            }
            libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set)
        };
        if r == -1 {
            return Err((errno(), "cpu_set_affinity"));
        }
    }
    crate::run::numa::apply(job)?;
    if job.nice != 0 {
        // SAFETY: setpriority on this thread (tid) with a bounded value.
        let r = unsafe {
            let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
            libc::setpriority(libc::PRIO_PROCESS, tid, job.nice)
        };
        if r == -1 {
            return Err((errno(), "nice"));
        }
    }
    if let Some(v) = ioprio_value(job.prioclass, job.prio) {
        // ioprio_set(IOPRIO_WHO_PROCESS, this thread, value), before any I/O.
        // SAFETY: plain syscall with integer arguments.
        let r = unsafe { libc::syscall(libc::SYS_ioprio_set, 1, 0, v as libc::c_long) };
        if r == -1 {
            return Err((errno(), "ioprio_set"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ioprio_defaults_to_best_effort() {
        assert_eq!(ioprio_value(None, None), None);
        assert_eq!(ioprio_value(None, Some(4)), Some((2 << 13) | 4));
        assert_eq!(ioprio_value(Some(3), None), Some(3 << 13));
        assert_eq!(ioprio_value(Some(1), Some(7)), Some((1 << 13) | 7));
    }
}
