//! DUMB (`-t1`): `b[i] = a[i]` one 8-byte element at a time, as the label
//! says. (mbw 1.2.2 times this loop under its MEMCPY label; spec §3.)
//!
//! gcc -O2 compiles mbw's loop to a scalar 8-byte load/store loop. Volatile
//! accesses give exactly that loop here: the optimiser may neither turn it
//! into a memcpy() call nor vectorise it, so the label stays true.

use super::Kernel;
use crate::arrays::Arrays;

pub struct Dumb;

impl Kernel for Dumb {
    #[inline(never)]
    fn run(&self, arrays: &mut Arrays, _block: usize) {
        let n = arrays.len().min(arrays.b.len());
        let src = arrays.a.as_ptr();
        let dst = arrays.b.as_mut_ptr();
        for i in 0..n {
            // SAFETY: i < n, within both arrays.
            unsafe { dst.add(i).write_volatile(src.add(i).read_volatile()) };
        }
    }
}
