//! `ioengine=mmap`: each file is mapped once; reads and writes are memory
//! copies between the mapping and the unit's buffer.

use super::{Engine, IoKind, IoUnit, Queued};
use std::io;
use std::os::fd::RawFd;

#[derive(Default)]
pub struct Mmap {
    maps: Vec<(*mut u8, usize)>,
}

// SAFETY: the mappings are owned by this engine, which lives on one job thread.
unsafe impl Send for Mmap {}

impl Engine for Mmap {
    fn init(&mut self, _units: &[IoUnit], fds: &[RawFd], sizes: &[u64]) -> io::Result<()> {
        for (&fd, &size) in fds.iter().zip(sizes) {
            let len = size.max(1) as usize;
            // SAFETY: mapping an open file read/write, shared, at offset 0.
            let p = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    len,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_SHARED,
                    fd,
                    0,
                )
            };
            if p == libc::MAP_FAILED {
                return Err(io::Error::last_os_error());
            }
            self.maps.push((p.cast(), len));
        }
        Ok(())
    }

    #[inline]
    fn queue(&mut self, _idx: usize, io: &mut IoUnit) -> Queued {
        let Some(&(base, len)) = self.maps.get(io.file) else {
            io.result = -i64::from(libc::EBADF);
            return Queued::Completed;
        };
        let end = io.offset as usize + io.len;
        io.result = match io.kind {
            _ if end > len => -i64::from(libc::EINVAL),
            // SAFETY: [offset, offset+len) lies inside the mapping (checked
            // above) and the unit's buffer holds `len` bytes.
            IoKind::Read => unsafe {
                std::ptr::copy_nonoverlapping(base.add(io.offset as usize), io.buf, io.len);
                io.len as i64
            },
            IoKind::Write => unsafe {
                std::ptr::copy_nonoverlapping(io.buf, base.add(io.offset as usize), io.len);
                io.len as i64
            },
            IoKind::Fsync | IoKind::Fdatasync => {
                // SAFETY: syncing our own mapping.
                let r = unsafe { libc::msync(base.cast(), len, libc::MS_SYNC) };
                if r < 0 {
                    super::neg_errno()
                } else {
                    0
                }
            }
            IoKind::Trim => super::do_trim(io),
        };
        Queued::Completed
    }
}

impl Drop for Mmap {
    fn drop(&mut self) {
        for &(p, len) in &self.maps {
            // SAFETY: unmapping what init mapped.
            unsafe { libc::munmap(p.cast(), len) };
        }
    }
}
