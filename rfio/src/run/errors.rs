//!
//! How fio 3.33 reports errors (the policy, `continue_on_error` and
//! `ignore_error`, is job/errors.rs): one `io_u error` line per failed I/O
//! (each in flight, in completion order), the site of errors fio notices
//! elsewhere (commit, queue call, end_fsync), and the setup failures it
//! reports without an error code (err_offset) or from a stat.

use super::files::layout::SetupError;
use super::Stream;
use crate::engine::{IoKind, IoUnit};
use crate::job::errors::Verdict;
use crate::job::Job;
use crate::stats::IoError;
use crate::stats::Site;
use crate::stats::ThreadStats;

/// A failed I/O: count it and continue (None) or end the job (the errno).
#[cold]
pub fn failed(st: &mut ThreadStats, io: &IoUnit, errno: i32, clat: u64, job: &Job) -> Option<i32> {
    let sync = matches!(io.kind, IoKind::Fsync | IoKind::Fdatasync);
    if sync && job.engine == "io_uring" {
        // fio does not look at a sync's result on io_uring: done, no error.
        st.sync_lat.record(clat);
        st.sync_ios += 1;
        return None;
    }
    // Failed inside fio's queue call, or vsync's batch (queue_site): no
    // `io_u error` line.
    let unlogged = io.kind == IoKind::Trim
        || (sync && job.engine == "libaio")
        || (!sync && job.engine == "vsync")
        || sets_error_in_queue(&job.engine);
    let p = &job.errors;
    let count = |st: &mut ThreadStats| {
        st.total_err += 1;
        if st.total_err == 1 {
            st.first_error = errno;
        }
    };
    match p.judge(io.kind, errno) {
        Verdict::Continue => {
            count(st);
            if p.dump && !unlogged {
                st.dumped.push(super::worker::io_error(io, errno));
            }
            None
        }
        Verdict::Stop { counted } => {
            if counted {
                count(st);
            }
            // fio logs every fatal error as its I/O completes (the first
            // one also ends the job): an async job's other failed I/Os in
            // flight each get their `io_u error` line, in completion order.
            if !unlogged {
                st.dumped.push(super::worker::io_error(io, errno));
            }
            Some(errno)
        }
    }
}

/// fio's stat of each file before it works out sizes: a failure other
/// than ENOENT (EACCES, ENOTDIR, ELOOP...) fails the job before it starts,
/// its context printed on stderr first (get_file_sizes).
#[cold]
pub fn stat_files(paths: &[std::path::PathBuf]) -> Result<(), SetupError> {
    for p in paths {
        if let Err(e) = std::fs::metadata(p) {
            let errno = e.raw_os_error().unwrap_or(libc::EIO);
            if errno != libc::ENOENT {
                return Err(SetupError {
                    errno,
                    message: Some(format!(
                        "file:filesetup.c:455, func=fstat, error={}\n",
                        rbench_common::output::strerror(errno)
                    )),
                    func: "fstat".into(),
                    in_job: false,
                });
            }
        }
    }
    Ok(())
}

/// A setup failure fio reports with a message only: the job does not run
/// and counts as failed (exit 1), but its error stays 0 (no `err=` line,
/// JSON `error` 0).
pub fn quiet_setup_failure(message: String) -> SetupError {
    SetupError {
        errno: 0,
        message: Some(message),
        func: "setup_files".into(),
        in_job: false,
    }
}

/// fio's err_offset: the offset lies past the end of what the job may use.
pub fn err_offset(job: &Job) -> SetupError {
    quiet_setup_failure(format!("{}: you need to specify valid offset=\n", job.name))
}

/// Without size=, a file's region is what lies past the offset: an offset
/// past the end is fio's err_offset, one at the end leaves the file out
/// (`fio: file F may be ignored`).
pub fn rest_of_file(
    job: &Job,
    p: &std::path::Path,
    offset: u64,
    file_size: u64,
    notices: &mut Vec<(Stream, String)>,
) -> Result<u64, SetupError> {
    if offset > file_size {
        return Err(err_offset(job));
    }
    if offset == file_size {
        notices.push((
            Stream::Stdout,
            format!("fio: file {} may be ignored\n", p.display()),
        ));
    }
    Ok(file_size - offset)
}

/// readonly: fio refuses to extend each file (stderr), then fails to drop
/// the cache of the file it never opened (stdout).
#[cold]
pub fn refuse_extend(files: &[(std::path::PathBuf, u64)], notices: &mut Vec<(Stream, String)>) {
    for (p, _) in files {
        notices.push((
            Stream::Stderr,
            "fio: refusing extend of file due to read-only\n".into(),
        ));
        notices.push((
            Stream::Stdout,
            format!(
                "fio: cache invalidation of {} failed: {}\n",
                p.display(),
                rbench_common::output::strerror(libc::EBADF)
            ),
        ));
    }
}

// --- h3: engines ---
/// Engines whose failures fio 3.33 finds in its queue call (they set the
/// unit's error without reporting it): falloc, ftruncate, e4defrag.
fn sets_error_in_queue(engine: &str) -> bool {
    matches!(engine, "falloc" | "ftruncate" | "e4defrag")
}

/// fio trims synchronously for every engine, and libaio syncs, inside its
/// queue call: such a failure is reported from there (`ioengines.c:399,
/// func=td_io_queue`) with no `io_u error` line.
pub fn queue_site(mut e: IoError, engine: &str) -> IoError {
    let sync = matches!(e.kind, IoKind::Fsync | IoKind::Fdatasync);
    if engine == "vsync" && matches!(e.kind, IoKind::Read | IoKind::Write) && e.site.is_none() {
        // vsync moves a batch at once and reports from there.
        e.site = Some(Box::new(Site {
            at: "engines/sync.c:364",
            func: "xfer vsync",
            note: String::new(),
        }));
    }
    if (e.kind == IoKind::Trim || (sync && engine == "libaio") || sets_error_in_queue(engine))
        && e.site.is_none()
    {
        e.site = Some(Box::new(Site {
            at: "ioengines.c:399",
            func: "td_io_queue",
            note: String::new(),
        }));
    }
    e
}

/// end_fsync / fsync_on_close: fio syncs each file through its engine once
/// the job is done, when it wrote and nothing failed. A failure: a sync
/// engine logs the `io_u error` line (with the offset and length of the
/// unit's last I/O: fio reuses that unit), libaio fails in its queue call
/// (td_io_queue), io_uring's result is not looked at; then
/// `fio: end_fsync failed for file F`.
#[cold]
pub fn end_fsync(
    job: &Job,
    files: &super::files::layout::JobFiles,
    sync_engine: bool,
    last: Option<(u64, usize)>,
    depth: usize,
    st: &mut ThreadStats,
    error: &mut Option<IoError>,
) {
    if error.is_some() || !job.pattern.write {
        return;
    }
    // fio does not give back the unit of a failed sync: once all `depth`
    // are gone, a file's sync fails at once, with its line only.
    let mut lost = 0;
    for (file, &fd) in files.fds.iter().enumerate() {
        let name = files
            .paths
            .get(file)
            .map_or_else(|| job.name.clone(), |p| p.display().to_string());
        let failed_line = |e: &IoError| IoError {
            site: Some(Box::new(Site {
                at: "",
                func: "",
                note: format!("fio: end_fsync failed for file {name}\n"),
            })),
            ..e.clone()
        };
        if lost >= depth {
            if let Some(e) = error.as_ref() {
                st.dumped.push(failed_line(e));
            }
            continue;
        }
        // SAFETY: fsync on the job's own descriptor.
        if unsafe { libc::fsync(fd) } == 0 || job.engine == "io_uring" {
            continue;
        }
        lost += 1;
        let errno = std::io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EIO);
        let (offset, len) = last.unwrap_or((0, 0));
        let e = IoError {
            errno,
            kind: IoKind::Fsync,
            offset,
            len,
            file,
            site: None,
        };
        let e = if sync_engine {
            st.dumped.push(e.clone());
            e
        } else {
            queue_site(e, "libaio")
        };
        st.dumped.push(failed_line(&e));
        error.get_or_insert(e);
    }
}

/// A read or write that moved some bytes but not all (a read across a
/// file's end, a write that filled the file system): fio counts it short
/// and issues the rest again (its requeue), the bytes moved so far never
/// counted. True when the unit, now holding the rest, should go out again.
/// Where the rest would start at the file's end (`real_size`), fio
/// completes it instead: a sync engine with no bytes counted, an async one
/// with the bytes it moved (then the caller's accounting counts it short).
#[cold]
pub fn short_rest(io: &mut IoUnit, st: &mut ThreadStats, real_size: u64, sync: bool) -> bool {
    let d = match io.kind {
        IoKind::Read => 0,
        IoKind::Write => 1,
        _ => return false,
    };
    let moved = io.result as usize;
    let offset = io.offset + moved as u64;
    if !sync && offset >= real_size {
        return false;
    }
    st.dir[d].short_ios += 1;
    if sync && offset == real_size {
        // fio's sync_done: a completion of no bytes.
        io.len = 0;
        io.result = 0;
        return false;
    }
    if io.kind == IoKind::Write {
        // The rest goes out from the buffer's start.
        // SAFETY: both ranges lie inside the unit's own buffer of io.len.
        unsafe { std::ptr::copy(io.buf.add(moved), io.buf, io.len - moved) };
    }
    io.offset = offset;
    io.len -= moved;
    true
}

/// [`short_rest`] for a synchronous engine: the rest goes out at once,
/// again while it comes back short.
#[cold]
pub fn resubmit_short(
    engine: &mut dyn crate::engine::Engine,
    idx: usize,
    io: &mut IoUnit,
    st: &mut ThreadStats,
    real_size: u64,
) {
    while io.result > 0 && (io.result as usize) < io.len && short_rest(io, st, real_size, true) {
        st.issued[if io.kind == IoKind::Read { 0 } else { 1 }] += 1;
        if engine.queue(idx, io) != crate::engine::Queued::Completed {
            break;
        }
    }
}

/// An engine that cannot start: a file mmap refuses (a device such as
/// `/dev/full`), an io_uring or libaio queue that cannot be set up. fio
/// fails the job there, at the engine's own site, before any I/O.
#[cold]
pub fn engine_init_error(engine: &str, errno: i32) -> IoError {
    let (at, func) = match engine {
        "mmap" => ("engines/mmap.c:118", "mmap"),
        "libaio" => ("engines/libaio.c:485", "io_queue_init"),
        _ => ("engines/io_uring.c:998", "io_queue_init"),
    };
    let note = if engine == "io_uring" && errno == libc::ENOSYS {
        "fio: your kernel doesn't support io_uring\n".to_string()
    } else {
        String::new()
    };
    IoError::at_site(errno, at, func, note)
}

/// Whether fio prints a report block for a job that ended with `e` and
/// did no I/O: not when its engine never started (engine_init_error).
pub fn has_block(e: &IoError) -> bool {
    !e.site.as_ref().is_some_and(|s| {
        s.at.starts_with("engines/") && matches!(s.func, "mmap" | "io_queue_init")
            || s.at.starts_with("engines/net.c")
    })
}

/// fio's "first direct IO errored" note comes only when the failed I/O was
/// the first issued of its direction (`io_issues[ddir & 1] == 1`: a trim
/// looks at the reads, a sync at the writes).
pub fn first_of_its_direction(st: &ThreadStats, e: &IoError) -> bool {
    let d = match e.kind {
        IoKind::Read | IoKind::Trim => 0,
        _ => 1,
    };
    st.issued[d] == 1
}

/// A failed submission (io_submit/io_uring_enter refused the batch): fio
/// reports it from the engine's commit, with no `io_u error` line.
#[cold]
pub fn commit_error(engine: &str, errno: i32) -> IoError {
    let (at, func) = if engine == "io_uring" {
        ("engines/io_uring.c:674", "io_uring_enter submit")
    } else {
        ("ioengines.c:496", "io commit")
    };
    IoError::at_site(errno, at, func, String::new())
}

/// The ramp's end resets the counts, not the errors: fio keeps its error
/// count and first error (thread data, not stats), and printed the
/// `io_u error` lines of I/Os that failed during the ramp as they happened.
#[cold]
pub fn reset_keeping_lines(st: &mut ThreadStats) {
    let lines = std::mem::take(&mut st.dumped);
    let (total, first) = (st.total_err, st.first_error);
    st.reset();
    st.dumped = lines;
    st.total_err = total;
    st.first_error = first;
}

/// fio's `io_u error` lines, in the order the I/Os completed: the fatal
/// errors and (error_dump) the ones continued past. `err`, the job's error:
/// when it is one of them its line is here, in its place (`.1` is true and
/// the caller prints no other); an I/O error that fio reports from
/// elsewhere (a sync engine's full resid, with its own site) has no line.
pub fn dump_lines(
    dumped: &[IoError],
    paths: &[std::path::PathBuf],
    job: &str,
    err: Option<&IoError>,
) -> (Option<String>, bool) {
    let same = |a: &IoError, b: &IoError| {
        a.site.is_none()
            && (a.errno, a.kind, a.offset, a.len, a.file)
                == (b.errno, b.kind, b.offset, b.len, b.file)
    };
    let mut s = String::new();
    let mut logged = false;
    for e in dumped {
        if let Some(err) = err.filter(|err| !logged && same(e, err)) {
            if err.site.is_some() {
                continue;
            }
            logged = true;
        }
        // A continued verify failure carries fio's verify lines.
        if let Some(site) = &e.site {
            s.push_str(&site.note);
            continue;
        }
        let name = paths
            .get(e.file)
            .map_or_else(|| job.to_string(), |p| p.display().to_string());
        let dir = match e.kind {
            IoKind::Read => "read",
            IoKind::Write => "write",
            IoKind::Trim => "trim",
            _ => "sync",
        };
        s.push_str(&format!(
            "fio: io_u error on file {name}: {}: {dir} offset={}, buflen={}\n",
            rbench_common::output::strerror(e.errno),
            e.offset,
            e.len
        ));
    }
    ((!s.is_empty()).then_some(s), logged)
}

/// The context of a job that ended without a fatal error but continued
/// past some (None otherwise).
pub fn continued(job: &Job, st: &ThreadStats) -> Option<String> {
    (st.error == 0 && st.total_err > 0)
        .then(|| continued_context(&job.engine, job.errors.dump, st.first_error))
}

/// The error context of a job that only continued past errors: fio keeps
/// the first one in its report (`err=28 (file:engines/sync.c:126, ...)`),
/// named after where the engine noticed it; with error_dump the log names it.
pub fn continued_context(engine: &str, dump: bool, errno: i32) -> String {
    let msg = rbench_common::output::strerror(errno);
    if errno == libc::EILSEQ {
        // Verify failures (verify/mod.rs): fio's report shows `err=84 ()`.
        String::new()
    } else if engine == "vsync" {
        format!("file:engines/sync.c:364, func=xfer vsync, error={msg}")
    } else if dump {
        format!("file:io_u.c:1876, func=io_u error, error={msg}")
    } else if matches!(engine, "libaio" | "io_uring") {
        String::new()
    } else {
        format!("file:engines/sync.c:126, func=xfer, error={msg}")
    }
}

#[cfg(test)]
fn err(kind: IoKind, offset: u64) -> IoError {
    IoError {
        errno: libc::ENOSPC,
        kind,
        offset,
        len: 4096,
        file: 0,
        site: None,
    }
}

#[test]
fn every_failed_io_has_its_line_in_order_the_jobs_own_once() {
    let paths = [std::path::PathBuf::from("f")];
    let dumped = [err(IoKind::Write, 0), err(IoKind::Write, 4096)];
    let (s, logged) = dump_lines(&dumped, &paths, "j", Some(&dumped[0]));
    assert!(logged);
    let s = s.unwrap();
    let lines: Vec<&str> = s.lines().collect();
    assert_eq!(lines.len(), 2);
    assert!(lines[0].ends_with("write offset=0, buflen=4096"));
    assert!(lines[1].ends_with("write offset=4096, buflen=4096"));
    assert!(lines[0].starts_with("fio: io_u error on file f: "));
    // The job's error reported from its own site (full resid): no line.
    let mut resid = err(IoKind::Read, 0);
    resid.site = Some(Box::new(Site {
        at: "backend.c:471",
        func: "full resid",
        note: String::new(),
    }));
    let (s, logged) = dump_lines(&[err(IoKind::Read, 0)], &paths, "j", Some(&resid));
    assert!(!logged);
    assert_eq!(s, None);
}

#[test]
fn queue_call_failures_have_fios_site() {
    let t = queue_site(err(IoKind::Trim, 0), "psync");
    assert_eq!(t.site.map(|s| s.func), Some("td_io_queue"));
    let s = queue_site(err(IoKind::Fsync, 0), "libaio");
    assert_eq!(s.site.map(|s| s.at), Some("ioengines.c:399"));
    assert!(queue_site(err(IoKind::Fsync, 0), "psync").site.is_none());
    assert!(queue_site(err(IoKind::Write, 0), "libaio").site.is_none());
    let c = commit_error("libaio", libc::EINVAL);
    assert_eq!(
        c.site.map(|s| (s.at, s.func)),
        Some(("ioengines.c:496", "io commit"))
    );
}
