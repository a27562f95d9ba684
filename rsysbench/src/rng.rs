//! sysbench's per-thread generator: xoroshiro128+ with uniform doubles built
//! from the top 52 bits (spec §7). Threads are seeded from one seed (the
//! --rand-seed value, or the time) through SplitMix64, so every thread gets
//! its own stream; identical streams to sysbench's do not matter.

#[derive(Debug, Clone)]
pub struct Rng {
    s0: u64,
    s1: u64,
}

fn splitmix64(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Rng {
    /// The generator for `thread` given the run's seed.
    pub fn for_thread(seed: u64, thread: usize) -> Self {
        let mut x = seed ^ (thread as u64).wrapping_mul(0xD134_2543_DE82_EF95);
        let s0 = splitmix64(&mut x);
        let s1 = splitmix64(&mut x);
        // An all-zero state would stay zero.
        Self {
            s0,
            s1: if s0 == 0 && s1 == 0 { 1 } else { s1 },
        }
    }

    #[inline(always)]
    pub fn next_u64(&mut self) -> u64 {
        let s0 = self.s0;
        let mut s1 = self.s1;
        let result = s0.wrapping_add(s1);
        s1 ^= s0;
        self.s0 = s0.rotate_left(55) ^ s1 ^ (s1 << 14);
        self.s1 = s1.rotate_left(36);
        result
    }

    /// A double in [0, 1): exponent bits of 1.0 with 52 random mantissa bits, minus 1.
    #[inline(always)]
    pub fn uniform_double(&mut self) -> f64 {
        f64::from_bits((0x3FF << 52) | (self.next_u64() >> 12)) - 1.0
    }

    /// An integer in [a, b] (sysbench's sb_rand_uniform).
    #[inline(always)]
    pub fn uniform(&mut self, a: u64, b: u64) -> u64 {
        a + (self.uniform_double() * (b - a + 1) as f64) as u64
    }
}

/// The run's seed: --rand-seed, or the current time when it is 0.
pub fn run_seed(rand_seed: u32) -> u64 {
    if rand_seed != 0 {
        return u64::from(rand_seed);
    }
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() ^ u64::from(d.subsec_nanos()))
        .unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_stays_in_range_and_covers_it() {
        let mut r = Rng::for_thread(42, 0);
        let mut seen = [false; 10];
        for _ in 0..10_000 {
            let d = r.uniform_double();
            assert!((0.0..1.0).contains(&d));
            let u = r.uniform(0, 9);
            seen[u as usize] = true;
        }
        assert!(seen.iter().all(|s| *s));
    }

    #[test]
    fn threads_get_different_streams() {
        let a = Rng::for_thread(1, 0).next_u64();
        let b = Rng::for_thread(1, 1).next_u64();
        assert_ne!(a, b);
        assert_eq!(Rng::for_thread(1, 0).next_u64(), a);
    }
}
