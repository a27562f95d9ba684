//! MEMCPY (`-t0`): one memcpy() of the whole array, as the label says.
//! (mbw 1.2.2 times this under its DUMB label; spec §3.)

use super::Kernel;
use crate::arrays::Arrays;

pub struct Memcpy;

impl Kernel for Memcpy {
    #[inline(never)]
    fn run(&self, arrays: &mut Arrays, _block: usize) {
        let n = arrays.len().min(arrays.b.len());
        // SAFETY: a and b are distinct allocations of at least n elements.
        unsafe {
            std::ptr::copy_nonoverlapping(arrays.a.as_ptr(), arrays.b.as_mut_ptr(), n);
        }
        // The destination is never read: keep the copy from being elided.
        std::hint::black_box(arrays.b.as_mut_ptr());
    }
}
