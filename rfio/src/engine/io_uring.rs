//! `ioengine=io_uring` through the io-uring crate, with fio's `hipri`
//! (IOPOLL), `fixedbufs`, `registerfiles` and `sqthread_poll` options.
//! Submissions are batched: `queue` only fills the ring, `commit` submits.

use super::Config;
use super::{Engine, IoKind, IoUnit, Queued};
use io_uring::{opcode, squeue, types, IoUring};
use std::io;
use std::os::fd::{AsRawFd, RawFd};

/// `io_uring_enter` flags and the ring-fd registration opcode
/// (linux/io_uring.h), for the direct enter calls of a local ring.
const ENTER_GETEVENTS: libc::c_long = 1;
const ENTER_REGISTERED_RING: libc::c_long = 1 << 4;
const REGISTER_RING_FDS: libc::c_long = 20;

/// `struct io_uring_rsrc_update`.
#[repr(C)]
struct RsrcUpdate {
    offset: u32,
    resv: u32,
    data: u64,
}

pub struct Uring {
    ring: IoUring,
    fixedbufs: bool,
    registerfiles: bool,
    /// Queued in the ring but not yet submitted.
    pending: usize,
    /// Queued in the ring, counted in flight, submitted with the next wait.
    deferred: usize,
    inflight: usize,
    depth: usize,
    sqpoll: bool,
    /// Built disabled with SINGLE_ISSUER | DEFER_TASKRUN: enabled in `init`
    /// on the job's own thread, which then owns the ring.
    local: bool,
    /// Every commit waits for the job loop's next reap, which submits it
    /// and waits in one io_uring_enter (no thinktime in between).
    batch_into_wait: bool,
    unlink_each_loop: bool,
    /// What `io_uring_enter` is called with on a local ring: the ring's
    /// registered index (no file lookup per call) or its descriptor.
    enter_fd: libc::c_long,
    enter_flags: libc::c_long,
    /// Refills a local ring holds back at most: a quarter of the depth.
    batch: usize,
}

impl Uring {
    pub fn new(cfg: &Config) -> io::Result<Self> {
        let plain = |b: &mut io_uring::Builder| {
            if cfg.sqthread_poll {
                b.setup_sqpoll(1000);
            }
            if cfg.hipri {
                b.setup_iopoll();
            }
        };
        let entries = cfg.iodepth.next_power_of_two().max(1) as u32;
        // Completions run as task work on the job's thread only when it
        // asks for them (DEFER_TASKRUN, Linux 6.1): no wake-ups or IPIs per
        // completion while it is busy submitting, less CPU per I/O. The same
        // I/O is issued either way; older kernels get a plain ring.
        let mut local = !cfg.sqthread_poll && !cfg.hipri;
        let ring = if local {
            let mut b = IoUring::builder();
            plain(&mut b);
            b.setup_r_disabled()
                .setup_single_issuer()
                .setup_defer_taskrun()
                .setup_taskrun_flag();
            match b.build(entries) {
                Ok(r) => r,
                Err(_) => {
                    local = false;
                    let mut b = IoUring::builder();
                    plain(&mut b);
                    b.build(entries)?
                }
            }
        } else {
            let mut b = IoUring::builder();
            plain(&mut b);
            b.build(entries)?
        };
        let enter_fd = libc::c_long::from(ring.as_raw_fd());
        Ok(Uring {
            ring,
            local,
            unlink_each_loop: cfg.unlink_each_loop,
            batch_into_wait: local && cfg.thinktime_us == 0,
            enter_fd,
            enter_flags: 0,
            batch: (cfg.iodepth / 4).max(1),
            fixedbufs: cfg.fixedbufs,
            registerfiles: cfg.registerfiles,
            pending: 0,
            deferred: 0,
            inflight: 0,
            depth: cfg.iodepth,
            sqpoll: cfg.sqthread_poll,
        })
    }
}

impl Uring {
    /// Register the ring's own descriptor (Linux 5.18): every enter then
    /// skips the descriptor lookup. Only the registering thread may use the
    /// index, which is why only a local (single-issuer) ring does it.
    fn register_ring_fd(&mut self) {
        let mut up = RsrcUpdate {
            offset: u32::MAX,
            resv: 0,
            data: self.ring.as_raw_fd() as u64,
        };
        // SAFETY: io_uring_register with a valid pointer to one update.
        let r = unsafe {
            libc::syscall(
                libc::SYS_io_uring_register,
                self.ring.as_raw_fd(),
                REGISTER_RING_FDS,
                &mut up as *mut RsrcUpdate,
                1,
            )
        };
        if r == 1 {
            self.enter_fd = libc::c_long::from(up.offset);
            self.enter_flags = ENTER_REGISTERED_RING;
        }
    }

    /// Submit everything in the submission queue and wait for `min`
    /// completions, in one `io_uring_enter`. A local ring always asks for
    /// events: its completions are posted only by such a call.
    #[inline]
    fn enter(&mut self, min: usize) -> io::Result<usize> {
        if !self.local {
            return self.ring.submit_and_wait(min);
        }
        let to_submit = self.ring.submission().len() as libc::c_long;
        // SAFETY: io_uring_enter on our ring with no extra argument.
        let r = unsafe {
            libc::syscall(
                libc::SYS_io_uring_enter,
                self.enter_fd,
                to_submit,
                min as libc::c_long,
                self.enter_flags | ENTER_GETEVENTS,
                std::ptr::null::<libc::c_void>(),
                0 as libc::c_long,
            )
        };
        if r < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(r as usize)
        }
    }
}

impl Uring {
    /// Take up to `max` completions from the completion ring (no syscall).
    #[inline]
    fn reap(&mut self, max: usize, units: &mut [IoUnit], done: &mut Vec<usize>) -> usize {
        let mut n = 0;
        if max == 0 {
            return 0;
        }
        for cqe in self.ring.completion() {
            let idx = cqe.user_data() as usize;
            units[idx].result = i64::from(cqe.result());
            done.push(idx);
            n += 1;
            if n >= max {
                break;
            }
        }
        n
    }

    /// `getevents` on a local (DEFER_TASKRUN) ring, whose completions are
    /// posted only by an enter. Completions already posted are taken first,
    /// without a syscall, and the refills queued meanwhile wait in the
    /// submission ring; once the caller needs a completion that is not
    /// there, or once a quarter of the depth is waiting, one enter submits
    /// them together (a plugged batch for the block layer: fewer device
    /// notifications). A refill is thus held back only while the job loop
    /// is busy with completions at hand, and never many of them.
    fn getevents_local(
        &mut self,
        min: usize,
        max: usize,
        units: &mut [IoUnit],
        done: &mut Vec<usize>,
    ) -> io::Result<usize> {
        let mut n = 0;
        loop {
            n += self.reap(max - n, units, done);
            if n >= max || (n >= min && n > 0) {
                if self.deferred >= self.batch {
                    // Enough refills held back: out they go (the device's
                    // queue stays within `batch` of the job's depth).
                    match self.enter(0) {
                        Ok(_) => self.deferred = 0,
                        Err(e) if e.raw_os_error() == Some(libc::EINTR) => {}
                        Err(e) => return Err(e),
                    }
                }
                break;
            }
            let pending = self.deferred > 0 || self.ring.submission().taskrun();
            if n >= min && !pending {
                // A peek (min 0) with nothing queued and nothing posted.
                break;
            }
            if self.inflight == n && self.deferred == 0 {
                break;
            }
            // Submit what is queued; wait only for what the caller needs.
            let want = min.saturating_sub(n);
            match self.enter(want) {
                Ok(_) => self.deferred = 0,
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => {}
                Err(e) => return Err(e),
            }
            if want == 0 {
                n += self.reap(max - n, units, done);
                break;
            }
        }
        self.inflight -= n;
        Ok(n)
    }
}

impl Engine for Uring {
    /// Buffers and files are registered with the ring even when the job
    /// does not ask for `fixedbufs`/`registerfiles`: the kernel then skips
    /// per-I/O page pinning and file lookups (same I/O, less CPU). Asked-for
    /// registration that fails is an error; implicit registration falls back.
    fn init(&mut self, units: &[IoUnit], fds: &[RawFd], _sizes: &[u64]) -> io::Result<()> {
        if self.local {
            // The enabling thread becomes the ring's single issuer.
            self.ring.submitter().register_enable_rings()?;
            self.register_ring_fd();
        }
        super::skip_atime(fds);
        let iov: Vec<libc::iovec> = units
            .iter()
            .map(|u| libc::iovec {
                iov_base: u.buf.cast(),
                iov_len: u.len.max(1),
            })
            .collect();
        // SAFETY: the buffers outlive the ring (owned by the job loop, which
        // drops the engine first).
        match unsafe { self.ring.submitter().register_buffers(&iov) } {
            Ok(()) => self.fixedbufs = true,
            Err(e) if self.fixedbufs => return Err(e),
            Err(_) => {}
        }
        // unlink_each_loop replaces the files under their descriptors:
        // registered files would keep the old ones.
        if !fds.is_empty() && (self.registerfiles || !self.unlink_each_loop) {
            match self.ring.submitter().register_files(fds) {
                Ok(()) => self.registerfiles = true,
                Err(e) if self.registerfiles => return Err(e),
                Err(_) => {}
            }
        }
        Ok(())
    }

    #[inline]
    fn queue(&mut self, idx: usize, io: &mut IoUnit) -> Queued {
        if self.inflight + self.pending >= self.depth {
            return Queued::Busy;
        }
        let len = io.len as u32;
        macro_rules! build {
            ($fd:expr) => {
                match io.kind {
                    IoKind::Read if self.fixedbufs => {
                        opcode::ReadFixed::new($fd, io.buf, len, idx as u16)
                            .offset(io.offset)
                            .ioprio(io.ioprio)
                            .build()
                    }
                    IoKind::Write if self.fixedbufs => {
                        opcode::WriteFixed::new($fd, io.buf, len, idx as u16)
                            .offset(io.offset)
                            .ioprio(io.ioprio)
                            .build()
                    }
                    IoKind::Read => opcode::Read::new($fd, io.buf, len)
                        .offset(io.offset)
                        .ioprio(io.ioprio)
                        .build(),
                    IoKind::Write => opcode::Write::new($fd, io.buf, len)
                        .offset(io.offset)
                        .ioprio(io.ioprio)
                        .build(),
                    IoKind::Fsync => opcode::Fsync::new($fd).build(),
                    IoKind::Fdatasync => opcode::Fsync::new($fd)
                        .flags(types::FsyncFlags::DATASYNC)
                        .build(),
                    IoKind::Trim => {
                        io.result = super::do_trim(io);
                        return Queued::Completed;
                    }
                }
            };
        }
        let entry: squeue::Entry = if self.registerfiles {
            build!(types::Fixed(io.file as u32))
        } else {
            build!(types::Fd(io.fd))
        };
        // SAFETY: the buffer and descriptor stay valid until the completion
        // is reaped in `getevents`.
        match unsafe { self.ring.submission().push(&entry.user_data(idx as u64)) } {
            Ok(()) => {
                self.pending += 1;
                Queued::Queued
            }
            Err(_) => Queued::Busy,
        }
    }

    fn commit(&mut self) -> io::Result<usize> {
        if self.pending == 0 {
            return Ok(0);
        }
        let n = self.pending;
        if (self.inflight + n >= self.depth || self.batch_into_wait) && !self.sqpoll {
            // The job loop reaps next (the queue is full, or it always does
            // before thinking again): submit in the same io_uring_enter as
            // the wait, one syscall for every refill of this pass.
            self.deferred += n;
        } else {
            self.enter(0)?;
        }
        self.inflight += n;
        self.pending = 0;
        Ok(n)
    }

    fn getevents(
        &mut self,
        min: usize,
        max: usize,
        units: &mut [IoUnit],
        done: &mut Vec<usize>,
    ) -> io::Result<usize> {
        // As fio: never wait for more than is in flight (a job that ran out
        // of work with iodepth_batch_complete_min above what is left).
        let min = min.min(self.inflight);
        if self.local {
            return self.getevents_local(min, max, units, done);
        }
        let mut n = 0;
        loop {
            if self.deferred > 0 {
                let ready = self.ring.completion().len();
                let want = min.saturating_sub(ready);
                match self.enter(want) {
                    Ok(_) => self.deferred = 0,
                    Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
                    Err(e) => return Err(e),
                }
            }
            n += self.reap(max - n, units, done);
            if n >= min || n >= max || self.inflight == n {
                break;
            }
            match self.enter(min - n) {
                Ok(_) => {}
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => {}
                Err(e) => return Err(e),
            }
        }
        self.inflight -= n;
        Ok(n)
    }
}
