//! `ioengine=splice`: data moves through a pipe. A read splices the file's
//! range into the pipe and reads it out into the buffer; a write vmsplices
//! the buffer into the pipe and splices the pipe into the file. Both go in
//! pieces the pipe can hold.

use super::{Engine, IoKind, IoUnit, Queued};
use std::io;

pub struct Splice {
    /// [read end, write end].
    pipe: [libc::c_int; 2],
}

impl Splice {
    pub fn new() -> io::Result<Self> {
        let mut pipe = [-1; 2];
        // SAFETY: pipe(2) into a two-int array of our own.
        if unsafe { libc::pipe(pipe.as_mut_ptr()) } < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(Splice { pipe })
    }

    /// File range into the pipe, pipe into the buffer. Bytes read or -errno.
    fn read(&mut self, io: &IoUnit) -> i64 {
        let mut done = 0usize;
        while done < io.len {
            let mut off = (io.offset + done as u64) as libc::loff_t;
            // SAFETY: splice between the job's descriptor and our pipe;
            // then read into the unit's buffer within its length.
            let n = unsafe {
                libc::splice(
                    io.fd,
                    &mut off,
                    self.pipe[1],
                    std::ptr::null_mut(),
                    io.len - done,
                    libc::SPLICE_F_MORE,
                )
            };
            if n < 0 {
                return super::neg_errno();
            }
            if n == 0 {
                break;
            }
            let mut left = n as usize;
            while left > 0 {
                let r = unsafe { libc::read(self.pipe[0], io.buf.add(done).cast(), left) };
                if r <= 0 {
                    return if r < 0 {
                        super::neg_errno()
                    } else {
                        done as i64
                    };
                }
                left -= r as usize;
                done += r as usize;
            }
        }
        done as i64
    }

    /// Buffer into the pipe, pipe into the file. Bytes written or -errno.
    fn write(&mut self, io: &IoUnit) -> i64 {
        let mut done = 0usize;
        while done < io.len {
            let iov = libc::iovec {
                // SAFETY: within the unit's buffer.
                iov_base: unsafe { io.buf.add(done) }.cast(),
                iov_len: io.len - done,
            };
            // SAFETY: vmsplice of our buffer into our pipe, then splice of
            // what went in to the job's descriptor at its offset.
            let n = unsafe { libc::vmsplice(self.pipe[1], &iov, 1, libc::SPLICE_F_NONBLOCK) };
            if n < 0 {
                return super::neg_errno();
            }
            let mut left = n as usize;
            while left > 0 {
                let mut off = (io.offset + done as u64) as libc::loff_t;
                let r = unsafe {
                    libc::splice(self.pipe[0], std::ptr::null_mut(), io.fd, &mut off, left, 0)
                };
                if r <= 0 {
                    return if r < 0 {
                        super::neg_errno()
                    } else {
                        done as i64
                    };
                }
                left -= r as usize;
                done += r as usize;
            }
        }
        done as i64
    }
}

impl Drop for Splice {
    fn drop(&mut self) {
        for fd in self.pipe {
            // SAFETY: the pipe this engine made.
            unsafe { libc::close(fd) };
        }
    }
}

impl Engine for Splice {
    #[inline]
    fn queue(&mut self, _idx: usize, io: &mut IoUnit) -> Queued {
        io.result = match io.kind {
            IoKind::Read => self.read(io),
            IoKind::Write => self.write(io),
            IoKind::Trim => super::do_trim(io),
            IoKind::Fsync | IoKind::Fdatasync => super::do_sync(io),
        };
        Queued::Completed
    }
}
