//! The arrays a thread copies between: allocated once (fallibly: a size
//! that cannot be allocated is an error, never an abort), filled with 0xaa
//! like mbw so every page is touched before the first timed run, and
//! reused by every run of every test (spec §2).

/// mbw fills every long with this value.
const FILL: u64 = 0xaa;

/// Allocation failed (reported as mbw reports it: "Cannot allocate memory").
#[derive(Debug)]
pub struct AllocError;

/// Two or three arrays of equal length, in 8-byte elements.
pub struct Arrays {
    pub a: Vec<u64>,
    pub b: Vec<u64>,
    /// Only for the STREAM kernels add and triad.
    pub c: Vec<u64>,
}

impl Arrays {
    /// Allocate `count` arrays (2 or 3) of `elements` each and fill them.
    ///
    /// Vec's allocation goes to malloc as mbw's calloc does, so both get
    /// the same kind of memory (fresh mmap'd pages for large sizes).
    pub fn new(elements: usize, count: usize) -> Result<Arrays, AllocError> {
        let one = || -> Result<Vec<u64>, AllocError> {
            let mut v = Vec::new();
            v.try_reserve_exact(elements).map_err(|_| AllocError)?;
            v.resize(elements, FILL);
            Ok(v)
        };
        let a = one()?;
        let b = one()?;
        let c = if count > 2 { one()? } else { Vec::new() };
        Ok(Arrays { a, b, c })
    }

    /// Elements per array.
    pub fn len(&self) -> usize {
        self.a.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filled_like_mbw() {
        let a = Arrays::new(1000, 2).unwrap();
        assert_eq!(a.len(), 1000);
        assert!(a.a.iter().chain(&a.b).all(|&x| x == 0xaa));
        assert!(a.c.is_empty());
        assert_eq!(Arrays::new(10, 3).unwrap().c.len(), 10);
    }

    #[test]
    fn impossible_size_is_an_error() {
        assert!(Arrays::new(usize::MAX / 16, 2).is_err());
    }
}
