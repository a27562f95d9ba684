//! A fileio worker: executes requests with pread/pwrite, mmap copies or
//! native AIO, fsyncs, and counts reads, writes, fsyncs and bytes.

use std::os::fd::AsRawFd;

use crate::aio;
use crate::builtin::Worker;
use crate::log::Log;
use crate::rng::Rng;
use crate::stats::{Counter, Slot};

use super::io::{errno_text, Buffer};
use super::params::IoMode;
use super::request::{Op, Request};
use super::validate::{check_block, fill_block};
use super::Fileio;

pub struct FileioWorker<'a> {
    pub(super) t: &'a Fileio,
    pub(super) buf: Buffer,
    pub(super) rng: Rng,
    pub(super) aio: Option<aio::Context>,
}

impl FileioWorker<'_> {
    /// Async mode: queue the request; once --file-async-backlog requests
    /// are in flight, wait for at least one (sysbench's file_submit_or_wait).
    /// Reads and writes are counted when they complete.
    fn submit(&mut self, opcode: u16, r: &Request, slot: &Slot) -> std::result::Result<(), String> {
        let t = self.t;
        let Some(ctx) = self.aio.as_mut() else {
            return Err("no asynchronous I/O context for this thread".into());
        };
        let cb = aio::Iocb {
            opcode,
            fildes: t.files[r.file as usize].as_raw_fd() as u32,
            buf: self.buf.ptr as u64,
            nbytes: r.size,
            offset: r.pos as i64,
            ..aio::Iocb::default()
        };
        ctx.submit(cb)
            .map_err(|e| format!("io_submit() failed! {}", errno_text(&e)))?;
        let in_flight = ctx.in_flight;
        if opcode == aio::CMD_PWRITE && t.p.fsync_all {
            t.fsync_file(r.file)?;
            slot.add(Counter::Fsyncs, 1);
        }
        if in_flight < t.p.backlog {
            return Ok(());
        }
        self.reap(1, slot)
    }

    /// Reap at least `min` completions and count them.
    fn reap(&mut self, min: usize, slot: &Slot) -> std::result::Result<(), String> {
        let Some(ctx) = self.aio.as_mut() else {
            return Ok(());
        };
        let n = ctx
            .reap(min)
            .map_err(|e| format!("io_getevents() failed! {}", errno_text(&e)))?;
        for e in &ctx.events[..n] {
            let cb = ctx.request(e);
            let read = cb.opcode == aio::CMD_PREAD;
            if e.res != cb.nbytes as i64 {
                return Err(format!(
                    "Asynchronous {} failed!\n",
                    if read { "read" } else { "write" }
                ));
            }
            if read {
                slot.add(Counter::Reads, 1);
                slot.add(Counter::BytesRead, cb.nbytes);
            } else {
                slot.add(Counter::Writes, 1);
                slot.add(Counter::BytesWritten, cb.nbytes);
            }
        }
        Ok(())
    }

    fn io_error(&self, what: &str, r: &Request) -> String {
        let e = std::io::Error::last_os_error();
        format!(
            "Failed to {what} file! file: {} pos: {} {}",
            self.t.files[r.file as usize].as_raw_fd(),
            r.pos,
            errno_text(&e)
        )
    }
}

impl Worker for FileioWorker<'_> {
    type Req = Request;

    fn next(&mut self) -> Option<Request> {
        Some(self.t.next_request(&mut self.rng))
    }

    fn execute(&mut self, r: Request, slot: &Slot, log: &Log) -> std::result::Result<(), String> {
        if self.t.debug {
            let op = match r.op {
                Op::Read => 1,
                Op::Write => 2,
                Op::Fsync => 3,
            };
            log.debug(&format!(
                "Executing request, operation: {op}, file_id: {}, pos: {}, size: {}",
                r.file, r.pos as i32, r.size as i32
            ));
        }
        let t = self.t;
        let len = r.size as usize;
        if len > self.buf.len {
            return Err(format!("I/O request exceeds the buffer: {len} bytes"));
        }
        match r.op {
            Op::Write => {
                if t.validate {
                    fill_block(&mut self.buf.as_mut()[..len], r.pos, &mut self.rng);
                }
                let done = match t.p.io {
                    IoMode::Async => return self.submit(aio::CMD_PWRITE, &r, slot),
                    IoMode::Sync => {
                        let fd = t.files[r.file as usize].as_raw_fd();
                        // SAFETY: writing `len` bytes from our buffer.
                        unsafe { libc::pwrite(fd, self.buf.ptr.cast(), len, r.pos as libc::off_t) }
                    }
                    IoMode::Mmap => {
                        let m = &t.maps[r.file as usize];
                        // SAFETY: pos + len <= file_size = the mapping's length.
                        unsafe {
                            std::ptr::copy_nonoverlapping(
                                self.buf.ptr,
                                m.ptr.add(r.pos as usize),
                                len,
                            )
                        };
                        len as isize
                    }
                };
                if done != len as isize {
                    return Err(self.io_error("write", &r));
                }
                if t.p.fsync_all {
                    t.fsync_file(r.file)?;
                    slot.add(Counter::Fsyncs, 1);
                }
                slot.add(Counter::Writes, 1);
                slot.add(Counter::BytesWritten, r.size);
            }
            Op::Read => {
                let done = match t.p.io {
                    IoMode::Async => return self.submit(aio::CMD_PREAD, &r, slot),
                    IoMode::Sync => {
                        let fd = t.files[r.file as usize].as_raw_fd();
                        // SAFETY: reading `len` bytes into our buffer.
                        unsafe { libc::pread(fd, self.buf.ptr.cast(), len, r.pos as libc::off_t) }
                    }
                    IoMode::Mmap => {
                        let m = &t.maps[r.file as usize];
                        // SAFETY: pos + len <= the mapping's length.
                        unsafe {
                            std::ptr::copy_nonoverlapping(
                                m.ptr.add(r.pos as usize),
                                self.buf.ptr,
                                len,
                            )
                        };
                        len as isize
                    }
                };
                if done != len as isize {
                    return Err(self.io_error("read", &r));
                }
                if t.validate {
                    check_block(&self.buf.as_mut()[..len], r.pos).map_err(|e| {
                        format!(
                            "{e}\nFATAL: Validation failed on file {}, block offset {}, exiting...",
                            r.file, r.pos
                        )
                    })?;
                }
                slot.add(Counter::Reads, 1);
                slot.add(Counter::BytesRead, r.size);
            }
            Op::Fsync => {
                if !t.p.fsync_all {
                    t.fsync_file(r.file)?;
                    slot.add(Counter::Fsyncs, 1);
                }
            }
        }
        Ok(())
    }

    fn finish(&mut self, slot: &Slot) {
        let t = self.t;
        if t.p.fsync_end && t.mode.writes() {
            for i in 0..t.p.num {
                if t.fsync_file(i).is_ok() {
                    slot.add(Counter::Fsyncs, 1);
                }
            }
        }
        // Wait for what async mode still has in flight (sysbench's thread_done).
        while self.aio.as_ref().is_some_and(|c| c.in_flight > 0) {
            if self.reap(1, slot).is_err() {
                break;
            }
        }
    }
}
