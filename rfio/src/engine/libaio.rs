//! `ioengine=libaio`: Linux native AIO through the raw syscalls
//! (io_setup/io_submit/io_getevents), no C library needed.

use super::{Engine, IoKind, IoUnit, Queued};
use rbench_common::aio::{AioContext, IoEvent, Iocb, CMD_PREAD, CMD_PWRITE};
use std::io;

pub struct Libaio {
    ctx: AioContext,
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
        Ok(Libaio {
            ctx: AioContext::new(depth)?,
            iocbs: vec![Iocb::default(); depth],
            pending: Vec::with_capacity(depth),
            events: vec![IoEvent::default(); depth],
            inflight: 0,
            depth,
        })
    }
}

impl Engine for Libaio {
    fn init(
        &mut self,
        _units: &[IoUnit],
        fds: &[std::os::fd::RawFd],
        _sizes: &[u64],
    ) -> io::Result<()> {
        super::skip_atime(fds);
        Ok(())
    }

    #[inline]
    fn queue(&mut self, idx: usize, io: &mut IoUnit) -> Queued {
        if self.inflight + self.pending.len() >= self.depth {
            return Queued::Busy;
        }
        let opcode = match io.kind {
            IoKind::Read => CMD_PREAD,
            IoKind::Write => CMD_PWRITE,
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
            // cmdprio: IOCB_FLAG_IOPRIO with the I/O's priority.
            reqprio: io.ioprio as i16,
            flags: if io.ioprio != 0 { 1 << 1 } else { 0 },
            ..Iocb::default()
        };
        self.pending.push(cb);
        Queued::Queued
    }

    fn commit(&mut self) -> io::Result<usize> {
        let mut done = 0;
        while done < self.pending.len() {
            // SAFETY: `pending[done..]` holds valid iocb pointers into
            // `self.iocbs`, which stay alive until their completion.
            match unsafe { self.ctx.submit(&mut self.pending[done..]) } {
                Ok(r) => done += r,
                Err(e) => {
                    if e.raw_os_error() == Some(libc::EAGAIN) && done > 0 {
                        break;
                    }
                    self.pending.clear();
                    return Err(e);
                }
            }
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
        // As fio: never wait for more than is in flight.
        let min = min.min(self.inflight);
        let max = max.min(self.events.len()).max(1);
        loop {
            let n = match self.ctx.getevents(min, &mut self.events[..max]) {
                Ok(n) => n,
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
                Err(e) => return Err(e),
            };
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
