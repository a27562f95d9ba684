//! `ioengine=ftruncate`: every write truncates (or extends) its file to the
//! I/O's offset; no data moves. Reads and trims fail with EINVAL, as fio's.

use super::{Engine, IoKind, IoUnit, Queued};

#[derive(Default)]
pub struct Ftruncate;

impl Engine for Ftruncate {
    #[inline]
    fn queue(&mut self, _idx: usize, io: &mut IoUnit) -> Queued {
        io.result = match io.kind {
            IoKind::Write => {
                // SAFETY: ftruncate on a descriptor the job opened.
                if unsafe { libc::ftruncate(io.fd, io.offset as libc::off_t) } < 0 {
                    super::neg_errno()
                } else {
                    io.len as i64
                }
            }
            IoKind::Fsync | IoKind::Fdatasync => super::do_sync(io),
            _ => -i64::from(libc::EINVAL),
        };
        Queued::Completed
    }
}
