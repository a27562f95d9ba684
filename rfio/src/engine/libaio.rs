//! `ioengine=libaio`: Linux native AIO through the raw syscalls
//! (io_setup/io_submit/io_getevents), no C library needed.

use super::{Engine, IoKind, IoUnit, Queued};
use std::io;

/// The kernel's `struct iocb` (little-endian layout).
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct Iocb {
    data: u64,
    key: u32,
    rw_flags: i32,
    opcode: u16,
    reqprio: i16,
    fildes: u32,
    buf: u64,
    nbytes: u64,
    offset: i64,
    reserved2: u64,
    flags: u32,
    resfd: u32,
}

/// The kernel's `struct io_event`.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct IoEvent {
    data: u64,
    obj: u64,
    res: i64,
    res2: i64,
}

const IOCB_CMD_PREAD: u16 = 0;
const IOCB_CMD_PWRITE: u16 = 1;

pub struct Libaio {
    ctx: libc::c_ulong,
    iocbs: Vec<Iocb>,
    /// Pointers to the iocbs queued since the last commit.
    pending: Vec<*mut Iocb>,
    events: Vec<IoEvent>,
    inflight: usize,
    depth: usize,
}

// SAFETY: the raw pointers point into `iocbs`, owned by this engine, which
// lives on one job thread.
unsafe impl Send for Libaio {}

impl Libaio {
    pub fn new(depth: usize) -> io::Result<Self> {
        let mut ctx: libc::c_ulong = 0;
        // SAFETY: io_setup writes the new context id into `ctx`.
        let r = unsafe { libc::syscall(libc::SYS_io_setup, depth as libc::c_long, &mut ctx) };
        if r < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(Libaio {
            ctx,
            iocbs: vec![Iocb::default(); depth],
            pending: Vec::with_capacity(depth),
            events: vec![IoEvent::default(); depth],
            inflight: 0,
            depth,
        })
    }
}

impl Engine for Libaio {
    #[inline]
    fn queue(&mut self, idx: usize, io: &mut IoUnit) -> Queued {
        if self.inflight + self.pending.len() >= self.depth {
            return Queued::Busy;
        }
        let opcode = match io.kind {
            IoKind::Read => IOCB_CMD_PREAD,
            IoKind::Write => IOCB_CMD_PWRITE,
            // As fio does: syncs run synchronously once the queue is empty
            // (many file systems refuse IOCB_CMD_FSYNC).
            IoKind::Fsync | IoKind::Fdatasync => {
                if self.inflight + self.pending.len() > 0 {
                    return Queued::Busy;
                }
                io.result = super::do_sync(io);
                return Queued::Completed;
            }
            IoKind::Trim => {
                io.result = super::do_trim(io);
                return Queued::Completed;
            }
        };
        let cb = &mut self.iocbs[idx];
        *cb = Iocb {
            data: idx as u64,
            opcode,
            fildes: io.fd as u32,
            buf: io.buf as u64,
            nbytes: io.len as u64,
            offset: io.offset as i64,
            ..Iocb::default()
        };
        self.pending.push(cb);
        Queued::Queued
    }

    fn commit(&mut self) -> io::Result<usize> {
        let mut done = 0;
        while done < self.pending.len() {
            let n = self.pending.len() - done;
            // SAFETY: `pending[done..]` holds `n` valid iocb pointers into
            // `self.iocbs`, which stay alive until their completion.
            let r = unsafe {
                libc::syscall(
                    libc::SYS_io_submit,
                    self.ctx,
                    n as libc::c_long,
                    self.pending.as_mut_ptr().add(done),
                )
            };
            if r < 0 {
                let e = io::Error::last_os_error();
                if e.raw_os_error() == Some(libc::EAGAIN) && done > 0 {
                    break;
                }
                self.pending.clear();
                return Err(e);
            }
            done += r as usize;
        }
        self.pending.drain(..done);
        self.inflight += done;
        Ok(done)
    }

    fn getevents(
        &mut self,
        min: usize,
        max: usize,
        units: &mut [IoUnit],
        done: &mut Vec<usize>,
    ) -> io::Result<usize> {
        let max = max.min(self.events.len()).max(1);
        loop {
            // SAFETY: `events` has room for `max` entries; a null timeout waits.
            let r = unsafe {
                libc::syscall(
                    libc::SYS_io_getevents,
                    self.ctx,
                    min as libc::c_long,
                    max as libc::c_long,
                    self.events.as_mut_ptr(),
                    std::ptr::null_mut::<libc::timespec>(),
                )
            };
            if r < 0 {
                let e = io::Error::last_os_error();
                if e.raw_os_error() == Some(libc::EINTR) {
                    continue;
                }
                return Err(e);
            }
            let n = r as usize;
            for ev in &self.events[..n] {
                let idx = ev.data as usize;
                units[idx].result = ev.res;
                done.push(idx);
            }
            self.inflight -= n;
            return Ok(n);
        }
    }
}

impl Drop for Libaio {
    fn drop(&mut self) {
        // SAFETY: destroying the context this engine created.
        unsafe { libc::syscall(libc::SYS_io_destroy, self.ctx) };
    }
}
