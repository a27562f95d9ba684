//! Page-aligned byte buffers for the TCP data path. iperf3 3.12 maps each
//! stream's buffer (so it starts on a page); a heap `Vec` of 128 KiB starts
//! 16 or 32 bytes into a page, and then every 64-byte line the kernel
//! copies from (send) or to (receive) straddles two cache lines.

use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;

/// The alignment: one page.
pub const ALIGN: usize = 4096;

/// A zeroed, page-aligned, fixed-length byte buffer.
pub struct PageBuf {
    ptr: NonNull<u8>,
    len: usize,
}

// SAFETY: PageBuf owns its allocation outright, like a Vec<u8>.
unsafe impl Send for PageBuf {}
// SAFETY: shared access is read-only (&[u8]), like a Vec<u8>.
unsafe impl Sync for PageBuf {}

impl PageBuf {
    /// `len` zero bytes (at least one) starting on a page boundary.
    pub fn zeroed(len: usize) -> PageBuf {
        let layout = Self::layout(len);
        // SAFETY: the layout's size is at least 1.
        let p = unsafe { alloc_zeroed(layout) };
        let ptr = NonNull::new(p).unwrap_or_else(|| std::alloc::handle_alloc_error(layout));
        PageBuf {
            ptr,
            len: len.max(1),
        }
    }

    /// A page-aligned copy of `bytes`.
    pub fn copy_of(bytes: &[u8]) -> PageBuf {
        let mut b = PageBuf::zeroed(bytes.len());
        b[..bytes.len()].copy_from_slice(bytes);
        b
    }

    fn layout(len: usize) -> Layout {
        Layout::from_size_align(len.max(1), ALIGN).expect("buffer length fits a layout")
    }
}

impl Deref for PageBuf {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        // SAFETY: `ptr` points to `len` initialised bytes we own.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl DerefMut for PageBuf {
    fn deref_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in deref, and `&mut self` is the only access.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl Drop for PageBuf {
    fn drop(&mut self) {
        // SAFETY: allocated in `zeroed` with this same layout.
        unsafe { dealloc(self.ptr.as_ptr(), Self::layout(self.len)) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_start_on_a_page_and_keep_their_bytes() {
        for len in [0, 1, 1000, 128 * 1024, 128 * 1024 + 3] {
            let b = PageBuf::copy_of(&vec![5u8; len]);
            assert_eq!(b.as_ptr() as usize % ALIGN, 0, "len {len}");
            assert_eq!(b.len(), len.max(1));
            assert!(b[..len].iter().all(|&x| x == 5));
        }
        let z = PageBuf::zeroed(128 * 1024);
        assert!(z.iter().all(|&x| x == 0));
    }
}
