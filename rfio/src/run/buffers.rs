//! I/O buffers: one aligned allocation made before the job loop, carved
//! into one slice per unit.

use super::offsets::Rng;
use std::alloc::{alloc_zeroed, dealloc, Layout};

/// I/O buffers: one aligned allocation, carved per unit.
pub struct Buffers {
    pub ptr: *mut u8,
    layout: Layout,
}

impl Buffers {
    pub fn new(units: usize, unit_len: usize, zero: bool) -> Option<Self> {
        let size = (units * unit_len).max(4096);
        let layout = Layout::from_size_align(size, 4096).ok()?;
        // SAFETY: non-zero size, valid layout.
        let ptr = unsafe { alloc_zeroed(layout) };
        if ptr.is_null() {
            return None;
        }
        // Write buffers carry pseudo-random data, filled once (fio's default
        // scramble is not reproduced per I/O).
        if !zero {
            let mut rng = Rng::new(0x5eed);
            // SAFETY: `ptr` points at `size` writable bytes.
            let bytes = unsafe { std::slice::from_raw_parts_mut(ptr, size) };
            for w in bytes.chunks_mut(8) {
                w.copy_from_slice(&rng.next().to_le_bytes()[..w.len()]);
            }
        }
        Some(Buffers { ptr, layout })
    }
}

impl Drop for Buffers {
    fn drop(&mut self) {
        // SAFETY: freeing what `new` allocated with the same layout.
        unsafe { dealloc(self.ptr, self.layout) };
    }
}
