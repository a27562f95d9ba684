//! `ioengine=posixaio`: POSIX asynchronous I/O through the C library
//! (aio_read/aio_write, polled with aio_error, waited for with aio_suspend).
//! Syncs and trims run synchronously once nothing is in flight, as fio's.

use super::{Engine, IoKind, IoUnit, Queued};
use std::io;

pub struct Posixaio {
    /// One control block per unit (fio keeps one in each io_u).
    cbs: Vec<libc::aiocb>,
    in_flight: Vec<bool>,
    queued: usize,
    /// aio_suspend's list, filled anew before each wait.
    waiting: Vec<*const libc::aiocb>,
}

// SAFETY: the pointers in `waiting` point into `cbs`, owned by this engine,
// which lives on one job thread.
unsafe impl Send for Posixaio {}

impl Posixaio {
    pub fn new(depth: usize) -> Self {
        // SAFETY: aiocb is a plain C struct; all zeroes is its idle state.
        let cb: libc::aiocb = unsafe { std::mem::zeroed() };
        Posixaio {
            cbs: vec![cb; depth],
            in_flight: vec![false; depth],
            queued: 0,
            waiting: Vec::with_capacity(depth),
        }
    }

    /// Reap what is done among the units in flight; true when some still are.
    fn reap(&mut self, units: &mut [IoUnit], done: &mut Vec<usize>) -> bool {
        self.waiting.clear();
        for (i, (cb, flying)) in self.cbs.iter_mut().zip(&mut self.in_flight).enumerate() {
            if !*flying {
                continue;
            }
            // SAFETY: a control block submitted by `queue`, still ours.
            let err = unsafe { libc::aio_error(cb) };
            if err == libc::EINPROGRESS {
                self.waiting.push(cb);
                continue;
            }
            *flying = false;
            self.queued -= 1;
            units[i].result = match err {
                // SAFETY: a control block that completed.
                0 => (unsafe { libc::aio_return(cb) }) as i64,
                libc::ECANCELED => 0,
                e => -i64::from(e),
            };
            done.push(i);
        }
        !self.waiting.is_empty()
    }
}

impl Engine for Posixaio {
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
        let write = match io.kind {
            IoKind::Read => false,
            IoKind::Write => true,
            IoKind::Trim | IoKind::Fsync | IoKind::Fdatasync => {
                if self.queued > 0 {
                    return Queued::Busy;
                }
                io.result = if io.kind == IoKind::Trim {
                    super::do_trim(io)
                } else {
                    super::do_sync(io)
                };
                return Queued::Completed;
            }
        };
        let cb = &mut self.cbs[idx];
        cb.aio_fildes = io.fd;
        cb.aio_buf = io.buf.cast();
        cb.aio_nbytes = io.len;
        cb.aio_offset = io.offset as libc::off_t;
        // SAFETY: the control block and the buffer it names stay alive and
        // untouched until the unit is reaped.
        let r = unsafe {
            if write {
                libc::aio_write(cb)
            } else {
                libc::aio_read(cb)
            }
        };
        if r != 0 {
            let e = super::neg_errno();
            if e == -i64::from(libc::EAGAIN) {
                return Queued::Busy;
            }
            io.result = e;
            return Queued::Completed;
        }
        self.in_flight[idx] = true;
        self.queued += 1;
        Queued::Queued
    }

    fn getevents(
        &mut self,
        min: usize,
        _max: usize,
        units: &mut [IoUnit],
        done: &mut Vec<usize>,
    ) -> io::Result<usize> {
        let first = done.len();
        loop {
            let more = self.reap(units, done);
            let got = done.len() - first;
            if got >= min || !more {
                return Ok(got);
            }
            // SAFETY: `waiting` holds control blocks in flight.
            unsafe {
                libc::aio_suspend(
                    self.waiting.as_ptr(),
                    self.waiting.len() as libc::c_int,
                    std::ptr::null(),
                )
            };
        }
    }
}
