//! I/O engines: one trait with fio's verbs (`ioengines.h`: queue, commit,
//! getevents), one file per engine. The job loop (`run/worker.rs`) drives
//! every engine through this trait and never knows which one it holds.

/// cmdprio_* of libaio and io_uring: per-I/O priorities.
pub mod cmdprio;
mod io_uring;
mod libaio;
mod mmap;
mod null;
mod sync;

use crate::job::Job;
use std::io;
use std::os::fd::RawFd;

/// What one I/O does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IoKind {
    Read,
    Write,
    Trim,
    Fsync,
    Fdatasync,
}

/// One I/O unit (fio's `io_u`): prepared by the job loop, carried out by the
/// engine. Buffers are allocated once, aligned, before the loop starts.
#[derive(Debug, Clone, Copy)]
pub struct IoUnit {
    pub kind: IoKind,
    pub file: usize,
    pub fd: RawFd,
    pub offset: u64,
    pub len: usize,
    pub buf: *mut u8,
    /// Clock ticks when the unit was prepared and when it was issued.
    pub start: u64,
    pub issue: u64,
    /// Bytes transferred, or a negative errno.
    pub result: i64,
    /// cmdprio: the I/O's own priority (0: the job's) and its index in
    /// the direction's per-priority statistics.
    pub ioprio: u16,
    pub prio_idx: u8,
}

impl IoUnit {
    pub fn new(buf: *mut u8) -> Self {
        IoUnit {
            kind: IoKind::Read,
            file: 0,
            fd: -1,
            offset: 0,
            len: 0,
            buf,
            start: 0,
            issue: 0,
            result: 0,
            ioprio: 0,
            prio_idx: 0,
        }
    }
}

/// fio's `FIO_Q_*` answers to `queue`.
#[allow(clippy::enum_variant_names)] // fio's own words: completed, queued, busy
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Queued {
    /// Done already (synchronous engines); `result` is set.
    Completed,
    /// Accepted; will complete through `getevents` after `commit`.
    Queued,
    /// No room now: reap completions first.
    Busy,
}

/// An I/O engine.
pub trait Engine: Send {
    /// Prepare for `depth` in-flight units over `units` (buffers known) and
    /// the job's open files.
    fn init(&mut self, _units: &[IoUnit], _fds: &[RawFd], _sizes: &[u64]) -> io::Result<()> {
        Ok(())
    }

    /// Start one I/O (`units[idx]`).
    fn queue(&mut self, idx: usize, io: &mut IoUnit) -> Queued;

    /// Hand queued units to the kernel; returns how many were submitted.
    fn commit(&mut self) -> io::Result<usize> {
        Ok(0)
    }

    /// Wait for at least `min` (at most `max`) completions; their indices go
    /// to `done` (capacity reserved by the caller) and `units[i].result` is set.
    fn getevents(
        &mut self,
        _min: usize,
        _max: usize,
        _units: &mut [IoUnit],
        _done: &mut Vec<usize>,
    ) -> io::Result<usize> {
        Ok(0)
    }
}

/// Engine properties the job loop needs.
#[derive(Debug, Clone, Copy)]
pub struct Traits {
    /// Completes every unit inside `queue` (depth stays 1).
    pub sync: bool,
    /// Needs no files and moves no data (`null`).
    pub diskless: bool,
}

pub fn traits(name: &str) -> Traits {
    match name {
        "null" => Traits {
            sync: true,
            diskless: true,
        },
        "libaio" | "io_uring" => Traits {
            sync: false,
            diskless: false,
        },
        _ => Traits {
            sync: true,
            diskless: false,
        },
    }
}

/// The properties of the engine as a job runs it: `null` queues above
/// iodepth 1 (as fio's does), so its units get a submission time.
pub fn job_traits(job: &Job) -> Traits {
    let mut t = traits(&job.engine);
    if job.engine == "null" && null::Null::queues(job.iodepth) {
        t.sync = false;
    }
    t
}

/// Build the engine a job names.
pub fn create(job: &Job) -> io::Result<Box<dyn Engine>> {
    Ok(match job.engine.as_str() {
        "null" => Box::new(null::Null::new(job.iodepth)),
        "sync" => Box::new(sync::Sync::new(sync::Flavor::ReadWrite)),
        "psync" => Box::new(sync::Sync::new(sync::Flavor::Positional)),
        "vsync" => Box::new(sync::Sync::new(sync::Flavor::Vectored)),
        "pvsync" => Box::new(sync::Sync::new(sync::Flavor::PositionalVectored)),
        "pvsync2" => Box::new(sync::Sync::new(sync::Flavor::V2 { hipri: job.hipri })),
        "libaio" => Box::new(libaio::Libaio::new(job.iodepth)?),
        "io_uring" => Box::new(io_uring::Uring::new(job)?),
        "mmap" => Box::new(mmap::Mmap::default()),
        other => {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                format!("engine {other} not loadable"),
            ))
        }
    })
}

/// Reads through these descriptors leave the files' access times alone
/// (O_NOATIME): the kernel then skips its atime check on every read. The
/// same bytes move; only the inode's atime, which relatime would update at
/// most once, stays as it was. Where the flag is refused (a file owned by
/// another user) nothing changes.
pub(crate) fn skip_atime(fds: &[RawFd]) {
    for &fd in fds {
        // SAFETY: fcntl on descriptors the job opened.
        unsafe {
            let flags = libc::fcntl(fd, libc::F_GETFL);
            if flags >= 0 && flags & libc::O_NOATIME == 0 {
                libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NOATIME);
            }
        }
    }
}

/// `-errno` of the last OS error.
pub(crate) fn neg_errno() -> i64 {
    -i64::from(
        io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EIO),
    )
}

/// Trim a range as fio does for every engine: BLKDISCARD on a block
/// device, a punched hole in a regular file.
pub(crate) fn do_trim(io: &IoUnit) -> i64 {
    // SAFETY: fstat/ioctl/fallocate on the job's own descriptor with valid
    // pointers to local values.
    unsafe {
        let mut st: libc::stat = std::mem::zeroed();
        if libc::fstat(io.fd, &mut st) < 0 {
            return neg_errno();
        }
        // A regular file gets a hole (fio 3.33 fails there: README); any
        // other file BLKDISCARD, as fio, so a character device refuses it
        // with fio's ENOTTY.
        let r = if st.st_mode & libc::S_IFMT == libc::S_IFREG {
            libc::fallocate(
                io.fd,
                libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
                io.offset as libc::off_t,
                io.len as libc::off_t,
            )
        } else {
            let range: [u64; 2] = [io.offset, io.len as u64];
            libc::ioctl(io.fd, 0x1277, &range) // BLKDISCARD
        };
        if r < 0 {
            neg_errno()
        } else {
            io.len as i64
        }
    }
}

/// Run a synchronous fsync/fdatasync for a unit (used by every engine that
/// has no native sync command).
pub(crate) fn do_sync(io: &IoUnit) -> i64 {
    // SAFETY: fsync/fdatasync on a descriptor the job opened.
    let r = unsafe {
        if io.kind == IoKind::Fdatasync {
            libc::fdatasync(io.fd)
        } else {
            libc::fsync(io.fd)
        }
    };
    if r < 0 {
        neg_errno()
    } else {
        0
    }
}
