//! The STREAM kernels on 8-byte doubles (McCalpin's copy, scale, add,
//! triad) with STREAM's byte accounting: copy and scale read one array and
//! write one (2 arrays counted), add and triad read two and write one (3).
//!
//! The arrays hold doubles for these kernels: `prepare` sets a = 1.0,
//! b = 2.0, c = 0.0 as STREAM does (mbw's 0xaa pattern read as a double is
//! a denormal, which would make the arithmetic crawl). The kernels write
//! only b or c, so the values stay bounded however many runs are made.

use super::Kernel;
use crate::arrays::Arrays;

/// STREAM's scalar.
const SCALAR: f64 = 3.0;

fn as_f64(v: &[u64]) -> &[f64] {
    // SAFETY: u64 and f64 have the same size and alignment, and every bit
    // pattern is a valid f64.
    unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<f64>(), v.len()) }
}

fn as_f64_mut(v: &mut [u64]) -> &mut [f64] {
    // SAFETY: as in as_f64; the borrow is exclusive.
    unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr().cast::<f64>(), v.len()) }
}

fn init_values(arrays: &mut Arrays) {
    as_f64_mut(&mut arrays.a).fill(1.0);
    as_f64_mut(&mut arrays.b).fill(2.0);
    as_f64_mut(&mut arrays.c).fill(0.0);
}

/// copy: b[i] = a[i].
pub struct Copy;
/// scale: b[i] = q * a[i].
pub struct Scale;
/// add: c[i] = a[i] + b[i].
pub struct Add;
/// triad: c[i] = a[i] + q * b[i].
pub struct Triad;

impl Kernel for Copy {
    fn counted_arrays(&self) -> u64 {
        2
    }
    fn prepare(&self, arrays: &mut Arrays) {
        init_values(arrays);
    }
    #[inline(never)]
    fn run(&self, arrays: &mut Arrays, _block: usize) {
        let a = as_f64(&arrays.a);
        let b = as_f64_mut(&mut arrays.b);
        for (d, s) in b.iter_mut().zip(a) {
            *d = *s;
        }
        std::hint::black_box(b);
    }
}

impl Kernel for Scale {
    fn counted_arrays(&self) -> u64 {
        2
    }
    fn prepare(&self, arrays: &mut Arrays) {
        init_values(arrays);
    }
    #[inline(never)]
    fn run(&self, arrays: &mut Arrays, _block: usize) {
        let q = std::hint::black_box(SCALAR);
        let a = as_f64(&arrays.a);
        let b = as_f64_mut(&mut arrays.b);
        for (d, s) in b.iter_mut().zip(a) {
            *d = q * *s;
        }
        std::hint::black_box(b);
    }
}

impl Kernel for Add {
    fn arrays(&self) -> usize {
        3
    }
    fn counted_arrays(&self) -> u64 {
        3
    }
    fn prepare(&self, arrays: &mut Arrays) {
        init_values(arrays);
    }
    #[inline(never)]
    fn run(&self, arrays: &mut Arrays, _block: usize) {
        let a = as_f64(&arrays.a);
        let b = as_f64(&arrays.b);
        let c = as_f64_mut(&mut arrays.c);
        for ((d, x), y) in c.iter_mut().zip(a).zip(b) {
            *d = *x + *y;
        }
        std::hint::black_box(c);
    }
}

impl Kernel for Triad {
    fn arrays(&self) -> usize {
        3
    }
    fn counted_arrays(&self) -> u64 {
        3
    }
    fn prepare(&self, arrays: &mut Arrays) {
        init_values(arrays);
    }
    #[inline(never)]
    fn run(&self, arrays: &mut Arrays, _block: usize) {
        let q = std::hint::black_box(SCALAR);
        let a = as_f64(&arrays.a);
        let b = as_f64(&arrays.b);
        let c = as_f64_mut(&mut arrays.c);
        for ((d, x), y) in c.iter_mut().zip(a).zip(b) {
            *d = *x + q * *y;
        }
        std::hint::black_box(c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernels_compute_what_stream_computes() {
        let mut arr = Arrays::new(64, 3).unwrap();
        Copy.prepare(&mut arr);
        Copy.run(&mut arr, 0);
        assert!(as_f64(&arr.b).iter().all(|&x| x == 1.0));
        Scale.run(&mut arr, 0);
        assert!(as_f64(&arr.b).iter().all(|&x| x == 3.0));
        Add.run(&mut arr, 0);
        assert!(as_f64(&arr.c).iter().all(|&x| x == 4.0));
        Triad.run(&mut arr, 0);
        assert!(as_f64(&arr.c).iter().all(|&x| x == 10.0));
    }
}
