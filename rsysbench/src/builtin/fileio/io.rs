//! Files, buffers and mappings for fileio: open(2) with sysbench's flags
//! and mode 0600, page-aligned request buffers, whole-file mmaps.

use std::ffi::CString;
use std::os::fd::OwnedFd;

pub(super) use crate::error::errno_text;
use crate::error::{Fail, Result};

pub(super) fn file_name(i: u32) -> String {
    format!("test_file.{i}")
}

pub(super) fn open_raw(name: &str, flags: libc::c_int) -> std::io::Result<OwnedFd> {
    let c = CString::new(name).map_err(|_| std::io::Error::from_raw_os_error(libc::EINVAL))?;
    // SAFETY: a valid C string; the returned fd is owned below.
    let fd = unsafe { libc::open(c.as_ptr(), flags, 0o600 as libc::c_uint) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `fd` was just opened and is owned by nobody else.
    Ok(unsafe { std::os::fd::FromRawFd::from_raw_fd(fd) })
}

/// A page-aligned, zeroed buffer (O_DIRECT needs the alignment).
pub(super) struct Buffer {
    pub(super) ptr: *mut u8,
    pub(super) len: usize,
}

// SAFETY: each buffer belongs to one thread at a time.
unsafe impl Send for Buffer {}

impl Buffer {
    pub(super) fn new(len: usize) -> Result<Self> {
        let layout = std::alloc::Layout::from_size_align(len.max(1), 4096)
            .map_err(|_| Fail::fatal("Failed to allocate a memory buffer"))?;
        // SAFETY: non-zero size layout.
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        if ptr.is_null() {
            return Err(Fail::fatal("Failed to allocate a memory buffer"));
        }
        Ok(Self { ptr, len })
    }

    pub(super) fn as_mut(&mut self) -> &mut [u8] {
        // SAFETY: `len` zero-initialised bytes owned by self.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        if self.ptr.is_null() {
            return;
        }
        if let Ok(layout) = std::alloc::Layout::from_size_align(self.len.max(1), 4096) {
            // SAFETY: allocated in `new` with this layout.
            unsafe { std::alloc::dealloc(self.ptr, layout) };
        }
    }
}

/// A file mapped whole for --file-io-mode=mmap.
pub(super) struct Map {
    pub(super) ptr: *mut u8,
    pub(super) len: usize,
}

// SAFETY: accessed with memcpy by threads working on distinct requests, as
// sysbench does; the mapping lives until the test is dropped.
unsafe impl Send for Map {}
unsafe impl Sync for Map {}

impl Drop for Map {
    fn drop(&mut self) {
        // SAFETY: unmapping what open() mapped.
        unsafe { libc::munmap(self.ptr.cast(), self.len) };
    }
}
