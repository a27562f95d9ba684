//! `ioengine=e4defrag`: every write asks ext4 to move the I/O's range of
//! the file onto blocks of a donor file (EXT4_IOC_MOVE_EXT), as e4defrag(8)
//! does. The donor (`donorname`, under `directory`) is created at init and
//! preallocated over the job's file size unless `inplace=1`, which
//! allocates and frees the donor's space around each move. Reads fail
//! with EINVAL; a file system that is not ext4 fails each move as the
//! kernel refuses it (ENOTTY), as fio's.

use super::Config;
use super::{Engine, InitFailure, InitSite, IoKind, IoUnit, Queued};
use std::ffi::CString;

/// EXT4_IOC_MOVE_EXT: _IOWR('f', 15, struct move_extent).
const EXT4_IOC_MOVE_EXT: libc::c_ulong = 0xC028_660F;

#[repr(C)]
#[derive(Default)]
struct MoveExtent {
    reserved: u32,
    donor_fd: u32,
    orig_start: u64,
    donor_start: u64,
    len: u64,
    moved_len: u64,
}

pub struct E4defrag {
    donor: libc::c_int,
    /// The donor's block size (st_blksize).
    bsz: u64,
    inplace: bool,
}

fn init_error(errno: i32) -> InitFailure {
    InitFailure {
        errno,
        before: String::new(),
        site: Some(InitSite {
            at: "engines/e4defrag.c:113",
            func: "io_queue_init",
            error: None,
        }),
    }
}

impl E4defrag {
    pub fn new(cfg: &Config) -> Result<Self, InitFailure> {
        let name = cfg.opts.text("donorname").unwrap_or_default();
        if name.is_empty() {
            return Err(InitFailure {
                errno: libc::EPERM,
                before: "'donorname' options required\n".into(),
                site: None,
            });
        }
        let path = match cfg.opts.text("directory") {
            Some(d) => format!("{d}/{name}"),
            None => name,
        };
        let c = CString::new(path).map_err(|_| init_error(libc::EINVAL))?;
        let inplace = cfg.opts.int("inplace") != 0;
        // SAFETY: open/fallocate/fstat on a path and descriptor of our own.
        unsafe {
            let donor = libc::open(c.as_ptr(), libc::O_CREAT | libc::O_WRONLY, 0o644);
            if donor < 0 {
                let e = std::io::Error::last_os_error()
                    .raw_os_error()
                    .unwrap_or(libc::EIO);
                return Err(init_error(e));
            }
            let fail = |donor| {
                let e = std::io::Error::last_os_error()
                    .raw_os_error()
                    .unwrap_or(libc::EIO);
                libc::close(donor);
                Err(init_error(e))
            };
            if !inplace {
                // fio allocates filesize's upper bound less the offset.
                let start = match cfg.offset {
                    rbench_common::units::fio::SizeOrPercent::Bytes(s) => s,
                    _ => 0,
                };
                let high = cfg.filesize.map_or(0, |f| f.1);
                let len = high as i64 - start as i64;
                if libc::fallocate(donor, 0, start as libc::off_t, len as libc::off_t) < 0 {
                    return fail(donor);
                }
            }
            let mut st: libc::stat = std::mem::zeroed();
            if libc::fstat(donor, &mut st) < 0 {
                return fail(donor);
            }
            Ok(E4defrag {
                donor,
                bsz: (st.st_blksize as u64).max(1),
                inplace,
            })
        }
    }

    /// One move: bytes moved or -errno.
    fn defrag(&mut self, io: &IoUnit) -> i64 {
        // SAFETY: fallocate/ioctl/ftruncate on our donor and the job's
        // descriptor, with a move_extent of our own.
        unsafe {
            if self.inplace
                && libc::fallocate(self.donor, 0, io.offset as _, io.len as libc::off_t) < 0
            {
                return super::neg_errno();
            }
            let orig_start = io.offset / self.bsz;
            let mut me = MoveExtent {
                donor_fd: self.donor as u32,
                orig_start,
                donor_start: orig_start,
                len: (io.offset + io.len as u64).div_ceil(self.bsz) - orig_start,
                ..MoveExtent::default()
            };
            let r = libc::ioctl(io.fd, EXT4_IOC_MOVE_EXT, &mut me);
            let err = (r < 0).then(super::neg_errno);
            let moved = (me.moved_len * self.bsz).min(io.len as u64);
            if self.inplace {
                libc::ftruncate(self.donor, 0);
            }
            match err {
                Some(e) => e,
                // Nothing moved: the range lies past the file's end.
                None if moved == 0 && io.len > 0 => -i64::from(libc::EINVAL),
                None => moved as i64,
            }
        }
    }
}

impl Drop for E4defrag {
    fn drop(&mut self) {
        // SAFETY: the donor descriptor this engine opened.
        unsafe { libc::close(self.donor) };
    }
}

impl Engine for E4defrag {
    fn queue(&mut self, _idx: usize, io: &mut IoUnit) -> Queued {
        io.result = match io.kind {
            IoKind::Write => self.defrag(io),
            IoKind::Fsync | IoKind::Fdatasync => super::do_sync(io),
            _ => -i64::from(libc::EINVAL),
        };
        Queued::Completed
    }
}
