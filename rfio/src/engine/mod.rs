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
// --- h3: engines ---
mod cpuio;
mod e4defrag;
mod exec;
mod falloc;
mod fileops;
mod ftruncate;
mod net;
mod passthru;
pub use passthru::Refusal;
mod config;
pub use config::Config;
mod posixaio;
mod splice;

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

    /// The peer closed the link (net): no more I/O; the unit that found
    /// it moved nothing and ends the job without an error. Asked only of a
    /// unit that moved nothing.
    fn ended(&self) -> bool {
        false
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

// --- h3: engines ---
/// Why an engine's init failed, as fio reports it: `before` on stderr, then
/// `fio: io engine NAME init failed.`, then the job's `fio: pid=N, err=E/`
/// line with its site (`file:AT, func=FUNC, error=TEXT`; none: nothing
/// after the slash).
#[derive(Debug)]
pub struct InitFailure {
    pub errno: i32,
    pub before: String,
    pub site: Option<InitSite>,
}

#[derive(Debug)]
pub struct InitSite {
    pub at: &'static str,
    pub func: &'static str,
    /// The error's text (None: strerror of the errno).
    pub error: Option<&'static str>,
}

impl std::fmt::Display for InitFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "io engine init failed (errno {})", self.errno)
    }
}

impl std::error::Error for InitFailure {}

impl From<InitFailure> for io::Error {
    fn from(e: InitFailure) -> io::Error {
        io::Error::other(e)
    }
}

/// The InitFailure inside an error from [`create`], if it holds one.
pub fn init_failure(e: &io::Error) -> Option<&InitFailure> {
    e.get_ref().and_then(|r| r.downcast_ref::<InitFailure>())
}

/// Engines that do no I/O at all (fio's FIO_NOIO): they need no size,
/// move no bytes, and fio prints no description line for their jobs.
pub fn noio(name: &str) -> bool {
    matches!(name, "cpuio" | "exec")
}

/// The lines an engine prints on stdout as its job starts (cpuio, exec).
pub fn banner(cfg: &Config) -> Option<String> {
    match cfg.engine {
        "cpuio" if cfg.opts.int("cpuload") > 0 => Some(cpuio::Cpuio::banner(cfg)),
        "exec" if cfg.opts.text("program").is_some() => Some(exec::Exec::banner(cfg)),
        "net" | "netsplice" => net::Net::banner(cfg),
        _ => None,
    }
}

/// An engine that refuses the job's files before anything is laid out
/// (sg, io_uring_cmd on what is not their device): fio's lines for stderr
/// and the job's error.
pub fn refuse_files(cfg: &Config) -> Option<Refusal> {
    passthru::refuse(cfg)
}

pub fn traits(name: &str) -> Traits {
    match name {
        "null" => Traits {
            sync: true,
            diskless: true,
        },
        "libaio" | "io_uring" | "posixaio" => Traits {
            sync: false,
            diskless: false,
        },
        "filecreate" | "cpuio" | "exec" | "net" | "netsplice" => Traits {
            sync: true,
            diskless: true,
        },
        _ => Traits {
            sync: true,
            diskless: false,
        },
    }
}

/// The properties of the engine as a job runs it: `null` queues above
/// iodepth 1 (as fio's does), so its units get a submission time.
pub fn job_traits(cfg: &Config) -> Traits {
    let mut t = traits(cfg.engine);
    if cfg.engine == "null" && null::Null::queues(cfg.iodepth) {
        t.sync = false;
    }
    t
}

/// Build the engine a job names.
pub fn create(cfg: &Config) -> io::Result<Box<dyn Engine>> {
    Ok(match cfg.engine {
        "null" => Box::new(null::Null::new(cfg.iodepth)),
        "sync" => Box::new(sync::Sync::new(sync::Flavor::ReadWrite)),
        "psync" => Box::new(sync::Sync::new(sync::Flavor::Positional)),
        "vsync" => Box::new(sync::Sync::new(sync::Flavor::Vectored)),
        "pvsync" => Box::new(sync::Sync::new(sync::Flavor::PositionalVectored)),
        "pvsync2" => Box::new(sync::Sync::new(sync::Flavor::V2 { hipri: cfg.hipri })),
        "libaio" => Box::new(libaio::Libaio::new(cfg.iodepth)?),
        "io_uring" => Box::new(io_uring::Uring::new(cfg)?),
        "mmap" => Box::new(mmap::Mmap::default()),
        "posixaio" => Box::new(posixaio::Posixaio::new(cfg.iodepth)),
        "cpuio" => Box::new(cpuio::Cpuio::new(cfg)?),
        "filecreate" => Box::new(fileops::FileOps::new(cfg, fileops::Op::Create)),
        "filestat" => Box::new(fileops::FileOps::new(
            cfg,
            fileops::Op::Stat(fileops::FileOps::stat_type(cfg)),
        )),
        "filedelete" => Box::new(fileops::FileOps::new(cfg, fileops::Op::Delete)),
        "falloc" => Box::new(falloc::Falloc),
        "ftruncate" => Box::new(ftruncate::Ftruncate),
        "exec" => Box::new(exec::Exec::new(cfg)?),
        "splice" => Box::new(splice::Splice::new()?),
        "e4defrag" => Box::new(e4defrag::E4defrag::new(cfg)?),
        "net" | "netsplice" => Box::new(net::Net::new(cfg)?),
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
