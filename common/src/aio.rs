//! Linux native AIO through the raw syscalls (io_setup, io_submit,
//! io_getevents, io_destroy): the kernel ABI that rfio's libaio engine and
//! rsysbench's `--file-io-mode=async` both drive, with no C library.

use std::io;

/// `struct iocb` from <linux/aio_abi.h> (little-endian layout).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct Iocb {
    pub data: u64,
    pub key: u32,
    pub rw_flags: i32,
    pub opcode: u16,
    pub reqprio: i16,
    pub fildes: u32,
    pub buf: u64,
    pub nbytes: u64,
    pub offset: i64,
    pub reserved2: u64,
    pub flags: u32,
    pub resfd: u32,
}

/// `struct io_event`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct IoEvent {
    pub data: u64,
    pub obj: u64,
    pub res: i64,
    pub res2: i64,
}

pub const CMD_PREAD: u16 = 0;
pub const CMD_PWRITE: u16 = 1;

/// One AIO context; destroyed (waiting for what is in flight) on drop.
#[derive(Debug)]
pub struct AioContext {
    ctx: libc::c_ulong,
}

impl AioContext {
    /// io_setup for up to `depth` requests in flight.
    pub fn new(depth: usize) -> io::Result<Self> {
        let mut ctx: libc::c_ulong = 0;
        // SAFETY: io_setup writes the new context id into `ctx`.
        let r = unsafe { libc::syscall(libc::SYS_io_setup, depth as libc::c_long, &mut ctx) };
        if r != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(Self { ctx })
    }

    /// io_submit: how many of `iocbs` the kernel took, or the error.
    ///
    /// # Safety
    /// Every pointer must point to a valid iocb whose buffer stays alive
    /// and in place until its completion is reaped.
    #[inline]
    pub unsafe fn submit(&self, iocbs: &mut [*mut Iocb]) -> io::Result<usize> {
        // SAFETY: the caller vouches for the iocbs (see above).
        let r = unsafe {
            libc::syscall(
                libc::SYS_io_submit,
                self.ctx,
                iocbs.len() as libc::c_long,
                iocbs.as_mut_ptr(),
            )
        };
        if r < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(r as usize)
    }

    /// io_getevents: wait (no timeout) for at least `min` completions, at
    /// most `events.len()`; returns how many were written. EINTR is
    /// returned to the caller, who decides whether to retry.
    #[inline]
    pub fn getevents(&self, min: usize, events: &mut [IoEvent]) -> io::Result<usize> {
        // SAFETY: `events` has room for `events.len()` entries; a null
        // timeout waits.
        let r = unsafe {
            libc::syscall(
                libc::SYS_io_getevents,
                self.ctx,
                min as libc::c_long,
                events.len() as libc::c_long,
                events.as_mut_ptr(),
                std::ptr::null_mut::<libc::timespec>(),
            )
        };
        if r < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(r as usize)
    }
}

impl Drop for AioContext {
    fn drop(&mut self) {
        // SAFETY: destroying the context created in `new`.
        unsafe { libc::syscall(libc::SYS_io_destroy, self.ctx) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;

    #[test]
    fn a_write_then_a_read_complete() {
        let dir = std::env::temp_dir().join(format!("rbench-aio-{}", std::process::id()));
        let f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&dir)
            .unwrap();
        let ctx = AioContext::new(4).unwrap();
        let data = [7u8; 512];
        let mut back = [0u8; 512];
        let mut events = [IoEvent::default(); 4];
        for (opcode, buf) in [
            (CMD_PWRITE, data.as_ptr()),
            (CMD_PREAD, back.as_mut_ptr().cast_const()),
        ] {
            let mut cb = Iocb {
                data: 9,
                opcode,
                fildes: f.as_raw_fd() as u32,
                buf: buf as u64,
                nbytes: 512,
                ..Iocb::default()
            };
            // SAFETY: `cb` and the buffers outlive the completion reaped below.
            assert_eq!(
                unsafe { ctx.submit(&mut [&mut cb as *mut Iocb]) }.unwrap(),
                1
            );
            assert_eq!(ctx.getevents(1, &mut events).unwrap(), 1);
            assert_eq!((events[0].data, events[0].res), (9, 512));
        }
        assert_eq!(back, data);
        let _ = std::fs::remove_file(&dir);
    }
}
