//! The synchronous engines: sync (read/write after lseek), psync
//! (pread/pwrite), vsync (readv/writev), pvsync (preadv/pwritev) and
//! pvsync2 (preadv2/pwritev2, with `hipri` as RWF_HIPRI).

use super::{do_sync, neg_errno, Engine, IoKind, IoUnit, Queued};

#[derive(Debug, Clone, Copy)]
pub enum Flavor {
    ReadWrite,
    Positional,
    Vectored,
    PositionalVectored,
    V2 { hipri: bool },
}

pub struct Sync {
    flavor: Flavor,
}

impl Sync {
    pub fn new(flavor: Flavor) -> Self {
        Sync { flavor }
    }
}

impl Engine for Sync {
    fn init(
        &mut self,
        _units: &[IoUnit],
        fds: &[std::os::fd::RawFd],
        _sizes: &[u64],
    ) -> std::io::Result<()> {
        super::skip_atime(fds);
        Ok(())
    }

    #[inline]
    fn queue(&mut self, _idx: usize, io: &mut IoUnit) -> Queued {
        let write = match io.kind {
            IoKind::Read => false,
            IoKind::Write => true,
            IoKind::Fsync | IoKind::Fdatasync => {
                io.result = do_sync(io);
                return Queued::Completed;
            }
            IoKind::Trim => {
                io.result = super::do_trim(io);
                return Queued::Completed;
            }
        };
        let off = io.offset as libc::off_t;
        let iov = libc::iovec {
            iov_base: io.buf.cast(),
            iov_len: io.len,
        };
        // SAFETY: `buf` points at `len` bytes owned by the job for the whole
        // run; `fd` is open. Each call is the measured syscall itself.
        let r = unsafe {
            match (self.flavor, write) {
                (Flavor::ReadWrite, _) | (Flavor::Vectored, _) => {
                    if libc::lseek(io.fd, off, libc::SEEK_SET) < 0 {
                        -1
                    } else if matches!(self.flavor, Flavor::ReadWrite) {
                        if write {
                            libc::write(io.fd, io.buf.cast(), io.len)
                        } else {
                            libc::read(io.fd, io.buf.cast(), io.len)
                        }
                    } else if write {
                        libc::writev(io.fd, &iov, 1)
                    } else {
                        libc::readv(io.fd, &iov, 1)
                    }
                }
                (Flavor::Positional, false) => libc::pread(io.fd, io.buf.cast(), io.len, off),
                (Flavor::Positional, true) => libc::pwrite(io.fd, io.buf.cast(), io.len, off),
                (Flavor::PositionalVectored, false) => libc::preadv(io.fd, &iov, 1, off),
                (Flavor::PositionalVectored, true) => libc::pwritev(io.fd, &iov, 1, off),
                (Flavor::V2 { hipri }, w) => {
                    let flags = if hipri { libc::RWF_HIPRI } else { 0 };
                    if w {
                        libc::pwritev2(io.fd, &iov, 1, off, flags)
                    } else {
                        libc::preadv2(io.fd, &iov, 1, off, flags)
                    }
                }
            }
        };
        io.result = if r < 0 { neg_errno() } else { r as i64 };
        Queued::Completed
    }
}
