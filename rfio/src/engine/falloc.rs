//! `ioengine=falloc`: every I/O is a fallocate(2) of its range: a read
//! allocates keeping the size (FALLOC_FL_KEEP_SIZE), a write allocates and
//! extends, a trim punches a hole. The files are opened read-write.

use super::{Engine, IoKind, IoUnit, Queued};

#[derive(Default)]
pub struct Falloc;

impl Engine for Falloc {
    #[inline]
    fn queue(&mut self, _idx: usize, io: &mut IoUnit) -> Queued {
        let mode = match io.kind {
            IoKind::Read => libc::FALLOC_FL_KEEP_SIZE,
            IoKind::Write => 0,
            IoKind::Trim => libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
            IoKind::Fsync | IoKind::Fdatasync => {
                io.result = super::do_sync(io);
                return Queued::Completed;
            }
        };
        // SAFETY: fallocate on a descriptor the job opened.
        let r = unsafe {
            libc::fallocate(io.fd, mode, io.offset as libc::off_t, io.len as libc::off_t)
        };
        io.result = if r < 0 {
            super::neg_errno()
        } else {
            io.len as i64
        };
        Queued::Completed
    }
}
