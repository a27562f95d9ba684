//! DUMB (`-t1`): `b[i] = a[i]` one 8-byte element at a time, as the label
//! says. (mbw 1.2.2 times this loop under its MEMCPY label; spec §3.)
//!
//! gcc -O2 compiles mbw's C loop to the plain loop below: load 8 bytes,
//! store 8 bytes, step, compare, branch. On x86-64 we write exactly that
//! loop, so the two tools time the same instructions (LLVM would unroll or
//! vectorise a Rust loop, or turn it into a memcpy() call, and the label
//! would no longer be true). Elsewhere, volatile accesses keep the loop an
//! 8-byte element loop.

use super::Kernel;
use crate::arrays::Arrays;

pub struct Dumb;

impl Kernel for Dumb {
    #[inline(never)]
    fn run(&self, arrays: &mut Arrays, _block: usize) {
        let n = arrays.len().min(arrays.b.len());
        let src = arrays.a.as_ptr();
        let dst = arrays.b.as_mut_ptr();
        // SAFETY: both arrays hold at least n elements and do not overlap.
        unsafe { element_loop(src, dst, n) };
    }
}

#[cfg(target_arch = "x86_64")]
unsafe fn element_loop(src: *const u64, dst: *mut u64, n: usize) {
    if n == 0 {
        return;
    }
    // SAFETY: reads src[0..n], writes dst[0..n]; the caller guarantees both.
    unsafe {
        std::arch::asm!(
            "xor {i:e}, {i:e}",
            // Align the loop head as gcc does for mbw's loop.
            ".p2align 4",
            "2:",
            "mov {t}, qword ptr [{src} + 8*{i}]",
            "mov qword ptr [{dst} + 8*{i}], {t}",
            "add {i}, 1",
            "cmp {n}, {i}",
            "jne 2b",
            src = in(reg) src,
            dst = in(reg) dst,
            n = in(reg) n,
            i = out(reg) _,
            t = out(reg) _,
            options(nostack),
        );
    }
}

#[cfg(not(target_arch = "x86_64"))]
unsafe fn element_loop(src: *const u64, dst: *mut u64, n: usize) {
    for i in 0..n {
        // SAFETY: i < n, within both arrays.
        unsafe { dst.add(i).write_volatile(src.add(i).read_volatile()) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_every_element() {
        for n in [0usize, 1, 7, 1000] {
            let mut arr = Arrays::new(n, 2).unwrap();
            for (i, x) in arr.a.iter_mut().enumerate() {
                *x = i as u64 * 3 + 1;
            }
            Dumb.run(&mut arr, 0);
            assert_eq!(arr.a, arr.b);
        }
    }
}
