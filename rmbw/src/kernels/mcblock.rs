//! MCBLOCK (`-t2`): memcpy() of one block at a time, advancing through both
//! arrays; the last block is shorter when the array is not a multiple of
//! the block, so nothing is written past the end. (mbw 1.2.2 re-reads the
//! first source block every time and overruns the destination; spec §3.)

use super::Kernel;
use crate::arrays::Arrays;

pub struct Mcblock;

impl Kernel for Mcblock {
    #[inline(never)]
    fn run(&self, arrays: &mut Arrays, block: usize) {
        let bytes = arrays.len().min(arrays.b.len()) * 8;
        let src = arrays.a.as_ptr().cast::<u8>();
        let dst = arrays.b.as_mut_ptr().cast::<u8>();
        let block = block.max(1);
        let mut off = 0;
        while off < bytes {
            let n = block.min(bytes - off);
            // SAFETY: off + n <= bytes, within both arrays; they do not overlap.
            unsafe { std::ptr::copy_nonoverlapping(src.add(off), dst.add(off), n) };
            off += n;
        }
        std::hint::black_box(dst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_everything_and_nothing_more() {
        let mut arr = Arrays::new(1000, 2).unwrap();
        for (i, x) in arr.a.iter_mut().enumerate() {
            *x = i as u64;
        }
        // 8000 bytes in blocks of 3000: two full blocks and a 2000-byte tail.
        Mcblock.run(&mut arr, 3000);
        assert_eq!(arr.a, arr.b);
        // Odd block sizes split elements; the bytes still all arrive.
        arr.b.fill(0);
        Mcblock.run(&mut arr, 7);
        assert_eq!(arr.a, arr.b);
    }
}
