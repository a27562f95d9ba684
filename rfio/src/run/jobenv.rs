//! What a job's thread sets up for itself before its first I/O, in fio's
//! order (backend.c thread_main): group and user (`gid=`, `uid=`), locked
//! memory (`lockmem=`), its blkio cgroup (`cgroup=`, `cgroup_weight=`,
//! `cgroup_nodelete=`), the device's I/O scheduler (`ioscheduler=`) and
//! the pre-read of its files (`pre_read=`). What it holds is released
//! when the job ends ([`Env`]'s drop). Cold: once per job.

use super::files::layout::JobFiles;
use crate::job::Job;
use crate::stats::IoError;
use std::path::PathBuf;

/// What a job holds while it runs.
pub struct Env {
    _pinned: Option<super::memory::Pinned>,
    cgroup: Option<PathBuf>,
}

impl Drop for Env {
    fn drop(&mut self) {
        if let Some(dir) = self.cgroup.take() {
            leave_cgroup(&dir);
        }
    }
}

/// Set the job's thread up; `notice` gets the lines fio prints on the way.
/// An error is the job's, as fio reports it (`fio: pid=..., func=...`).
#[cold]
pub fn enter(job: &Job, files: &JobFiles, notice: &mut String) -> Result<Env, IoError> {
    if set_ids(job)? {
        reopen_files(job, files)?;
    }
    let pinned = super::memory::pin(job, notice).map_err(|line| {
        // fio's perror line, and the job ends without an error code.
        IoError::at_site(libc::ENOMEM, "memory.c:47", "lockmem", line)
    })?;
    let cgroup = join_cgroup(job, notice)?;
    let env = Env {
        _pinned: pinned,
        cgroup,
    };
    set_scheduler(job, files, notice)?;
    if job.opts.flag("pre_read") {
        pre_read(job, files)?;
    }
    Ok(env)
}

/// `gid=` then `uid=` (a new group needs the privilege the user may
/// drop), for this thread only: fio's job processes each have their own.
/// Whether either was set.
fn set_ids(job: &Job) -> Result<bool, IoError> {
    for (name, nr, at) in [
        ("gid", libc::SYS_setgid, "backend.c:1675"),
        ("uid", libc::SYS_setuid, "backend.c:1679"),
    ] {
        if !job.opts.is_set(name) {
            continue;
        }
        let id = job.opts.int(name) as libc::c_long;
        // SAFETY: the raw syscall changes this thread's credentials only.
        if unsafe { libc::syscall(nr, id) } != 0 {
            let func = if name == "gid" { "setgid" } else { "setuid" };
            return Err(IoError::at_site(last_errno(), at, func, String::new()));
        }
    }
    Ok(job.opts.is_set("gid") || job.opts.is_set("uid"))
}

/// fio opens a job's files after it took the job's ids: the files opened
/// before are opened again as the new user, in place (same descriptors),
/// so what that user may not open fails the job as it fails fio's.
fn reopen_files(job: &Job, files: &JobFiles) -> Result<(), IoError> {
    for (p, &fd) in files.paths.iter().zip(&files.fds) {
        let new = super::files::layout::open(job, p).map_err(|e| {
            // Once per job: the name lives as long as the report.
            let func: &'static str = Box::leak(e.func.into_boxed_str());
            IoError::at_site(e.errno, "filesetup.c:805", func, String::new())
        })?;
        // SAFETY: replacing our own descriptor with one just opened.
        unsafe {
            libc::dup2(new, fd);
            libc::close(new);
        }
    }
    Ok(())
}

fn last_errno() -> i32 {
    std::io::Error::last_os_error()
        .raw_os_error()
        .unwrap_or(libc::EIO)
}

/// The blkio controller's mount (cgroup v1), or a cgroup2 mount, as fio
/// looks for them in /proc/mounts.
fn cgroup_mount() -> Option<(PathBuf, bool)> {
    let mounts = std::fs::read_to_string("/proc/mounts").ok()?;
    mounts.lines().find_map(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        match f.as_slice() {
            [_, dir, "cgroup", opts, ..] if opts.split(',').any(|o| o == "blkio") => {
                Some((PathBuf::from(dir), false))
            }
            [_, dir, "cgroup2", ..] => Some((PathBuf::from(dir), true)),
            _ => None,
        }
    })
}

/// `cgroup=NAME`: the cgroup made under the blkio mount (mode 0755), its
/// weight written, and this thread moved into it.
fn join_cgroup(job: &Job, notice: &mut String) -> Result<Option<PathBuf>, IoError> {
    let Some(name) = job.opts.text("cgroup") else {
        return Ok(None);
    };
    let Some((mount, v2)) = cgroup_mount() else {
        notice.push_str("fio: cgroup blkio does not appear to be mounted\n");
        return Err(IoError::at_site(0, "cgroup.c:57", "cgroup", String::new()));
    };
    let dir = mount.join(&name);
    if let Err(e) = std::fs::create_dir(&dir) {
        if e.kind() != std::io::ErrorKind::AlreadyExists {
            return Err(IoError::at_site(
                e.raw_os_error().unwrap_or(libc::EIO),
                "cgroup.c:185",
                "cgroup mkdir",
                format!("fio: path {}\n", dir.display()),
            ));
        }
    }
    let keep = job.opts.flag("cgroup_nodelete");
    enter_cgroup(job, &dir, v2, notice).inspect_err(|_| {
        if !keep {
            let _ = std::fs::remove_dir(&dir);
        }
    })?;
    Ok((!keep).then_some(dir))
}

/// The group's weight, then this thread into it.
fn enter_cgroup(
    job: &Job,
    dir: &std::path::Path,
    v2: bool,
    notice: &mut String,
) -> Result<(), IoError> {
    if job.opts.is_set("cgroup_weight") {
        if v2 {
            notice.push_str("fio: cgroup weit doesn't work with cgroup2\n");
            return Err(IoError::at_site(0, "cgroup.c:194", "cgroup", String::new()));
        }
        write_value(
            dir,
            "blkio.weight",
            job.opts.int("cgroup_weight"),
            "cgroup open weight",
        )?;
    }
    // SAFETY: gettid has no preconditions.
    let tid = unsafe { libc::syscall(libc::SYS_gettid) };
    let file = if v2 { "cgroup.threads" } else { "tasks" };
    write_value(dir, file, tid, "cgroup write pid")
}

fn write_value(
    dir: &std::path::Path,
    file: &str,
    v: impl std::fmt::Display,
    func: &'static str,
) -> Result<(), IoError> {
    std::fs::write(dir.join(file), v.to_string()).map_err(|e| {
        IoError::at_site(
            e.raw_os_error().unwrap_or(libc::EIO),
            "cgroup.c:136",
            func,
            String::new(),
        )
    })
}

/// The job is done: its thread goes back to the root group and the group
/// it made is removed (a group other jobs still use stays).
fn leave_cgroup(dir: &std::path::Path) {
    if let Some(root) = dir.parent() {
        // SAFETY: gettid has no preconditions.
        let tid = unsafe { libc::syscall(libc::SYS_gettid) };
        let file = if root.join("cgroup.threads").exists() {
            "cgroup.threads"
        } else {
            "tasks"
        };
        let _ = std::fs::write(root.join(file), tid.to_string());
    }
    let _ = std::fs::remove_dir(dir);
}

/// `ioscheduler=NAME` on the device of each regular file or block device:
/// written to its queue/scheduler and read back, as fio checks it.
fn set_scheduler(job: &Job, files: &JobFiles, notice: &mut String) -> Result<(), IoError> {
    let Some(want) = job.opts.text("ioscheduler") else {
        return Ok(());
    };
    if crate::engine::traits(&job.engine).diskless {
        return Ok(());
    }
    for p in &files.paths {
        let Some(dev) = super::files::diskstats::device_of(p) else {
            continue;
        };
        let path = format!("/sys/block/{dev}/queue/scheduler");
        if !std::path::Path::new(&path).exists() {
            notice.push_str("fio: os or kernel doesn't support IO scheduler switching\n");
            continue;
        }
        let failed = |e: std::io::Error, func| {
            IoError::at_site(
                e.raw_os_error().unwrap_or(libc::EIO),
                "backend.c:1410",
                func,
                String::new(),
            )
        };
        // A name the kernel refuses fails the write; fio then reads back
        // what is set and fails the job with EINVAL.
        let _ = std::fs::write(&path, &want);
        let now = std::fs::read_to_string(&path).map_err(|e| failed(e, "fread"))?;
        let now = now.lines().next().unwrap_or("");
        if now == "none" {
            notice.push_str("fio: io scheduler is not tunable\n");
            continue;
        }
        if !now.contains(&format!("[{want}]")) {
            return Err(IoError::at_site(
                libc::EINVAL,
                "backend.c:1450",
                "iosched_switch",
                format!("fio: unable to set io scheduler to {want}\n"),
            ));
        }
    }
    Ok(())
}

/// `pre_read=1`: each file's region read once into the page cache before
/// the job starts, in blocks of the largest read size (fio reads with
/// read(2) whatever the engine).
fn pre_read(job: &Job, files: &JobFiles) -> Result<(), IoError> {
    let bs = job.bs[0].1.max(1) as usize;
    let mut buf = vec![0u8; bs];
    for &(fd, start, len) in &files.regions {
        if fd < 0 || super::files::layout::kind(fd) == libc::S_IFCHR {
            continue;
        }
        let mut off = start;
        let end = start + len;
        while off < end && !rbench_common::stop::should_stop() {
            let n = ((end - off) as usize).min(bs);
            // SAFETY: reading into our own buffer of at least n bytes.
            let r = unsafe { libc::pread(fd, buf.as_mut_ptr().cast(), n, off as libc::off_t) };
            if r != n as isize {
                // fio stops pre-reading there and goes on with the job.
                break;
            }
            off += n as u64;
        }
    }
    Ok(())
}
