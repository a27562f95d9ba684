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

/// glibc's random() after srandom(seed) (its default TYPE_3 generator: an
/// additive feedback generator over 31 words, first filled by a
/// Park-Miller LCG). sysbench seeds each worker's xoroshiro128+ from it, so
/// with it rsysbench's scripts draw sysbench's numbers for a given
/// --rand-seed.
pub struct GlibcRandom {
    state: [u32; 31],
    f: usize,
    r: usize,
}

impl GlibcRandom {
    pub fn new(seed: u32) -> Self {
        let mut state = [0u32; 31];
        let mut word = i64::from(if seed == 0 { 1 } else { seed });
        state[0] = word as u32;
        for slot in state.iter_mut().skip(1) {
            // 16807 * word % (2^31 - 1), without overflow (Schrage).
            let hi = word / 127_773;
            let lo = word % 127_773;
            word = 16_807 * lo - 2_836 * hi;
            if word < 0 {
                word += 2_147_483_647;
            }
            *slot = word as u32;
        }
        let mut g = Self { state, f: 3, r: 0 };
        for _ in 0..310 {
            g.next();
        }
        g
    }

    /// The next random(): 31 bits.
    pub fn next(&mut self) -> u32 {
        let v = self.state[self.f].wrapping_add(self.state[self.r]);
        self.state[self.f] = v;
        self.f = (self.f + 1) % 31;
        self.r = (self.r + 1) % 31;
        v >> 1
    }

    /// A thread's xoroshiro128+ state as sysbench's sb_rand_thread_init
    /// makes it: two 64-bit words of two random() calls each.
    pub fn thread_state(&mut self) -> Rng {
        let mut word = || (u64::from(self.next()) << 32) | u64::from(self.next());
        let s0 = word();
        let s1 = word();
        Rng::from_state(s0, s1)
    }
}

impl Rng {
    /// A generator in a given state (an all-zero state would stay zero).
    pub fn from_state(s0: u64, s1: u64) -> Self {
        Self {
            s0,
            s1: if s0 == 0 && s1 == 0 { 1 } else { s1 },
        }
    }
}

/// Which distribution `sb_rand_default` draws from (--rand-type).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RandType {
    Uniform,
    Gaussian,
    Special,
    Pareto,
}

/// The --rand-* parameters, with sysbench's precomputed factors.
#[derive(Debug, Clone, Copy)]
pub struct RandSpec {
    pub kind: RandType,
    iter: u32,
    iter_mult: f64,
    pct_mult: f64,
    pct_2_mult: f64,
    res_mult: f64,
    pareto_power: f64,
}

impl RandSpec {
    pub fn new(kind: RandType, iter: u32, pct: u32, res: u32, pareto_h: f64) -> Self {
        Self {
            kind,
            iter,
            iter_mult: 1.0 / f64::from(iter),
            pct_mult: f64::from(pct) / 100.0,
            pct_2_mult: f64::from(pct) / 200.0,
            res_mult: 100.0 / (100.0 - f64::from(res)),
            pareto_power: pareto_h.ln() / (1.0 - pareto_h).ln(),
        }
    }
}

impl Default for RandSpec {
    fn default() -> Self {
        Self::new(RandType::Special, 12, 1, 75, 0.2)
    }
}

/// sysbench's distributions over [a, b] in its 32-bit arithmetic (a range
/// of 2^32 wraps to 0, as there).
impl Rng {
    pub fn uniform_u32(&mut self, a: u32, b: u32) -> u32 {
        (f64::from(a) + self.uniform_double() * f64::from(b.wrapping_sub(a).wrapping_add(1))) as u32
    }

    pub fn gaussian_u32(&mut self, spec: &RandSpec, a: u32, b: u32) -> u32 {
        let t = f64::from(b.wrapping_sub(a).wrapping_add(1));
        let mut sum = 0.0;
        for _ in 0..spec.iter {
            sum += self.uniform_double() * t;
        }
        a.wrapping_add((sum * spec.iter_mult) as u32)
    }

    /// Gaussian for most draws; the rest uniform over a window of
    /// --rand-spec-pct percent of the range at its middle.
    pub fn special_u32(&mut self, spec: &RandSpec, a: u32, b: u32) -> u32 {
        let t = f64::from(b.wrapping_sub(a));
        let rnd = self.uniform_double();
        if rnd * (t * spec.res_mult) < t {
            let mut sum = 0.0;
            for _ in 0..spec.iter {
                sum += self.uniform_double();
            }
            return (f64::from(a) + sum * t * spec.iter_mult) as u32;
        }
        let d = t * spec.pct_mult;
        let res = rnd * (d + 1.0) + t / 2.0 - t * spec.pct_2_mult;
        a.wrapping_add(res as u32)
    }

    pub fn pareto_u32(&mut self, spec: &RandSpec, a: u32, b: u32) -> u32 {
        let t = f64::from(b.wrapping_sub(a).wrapping_add(1));
        a.wrapping_add((t * self.uniform_double().powf(spec.pareto_power)) as u32)
    }

    /// The --rand-type distribution.
    pub fn default_u32(&mut self, spec: &RandSpec, a: u32, b: u32) -> u32 {
        match spec.kind {
            RandType::Uniform => self.uniform_u32(a, b),
            RandType::Gaussian => self.gaussian_u32(spec, a, b),
            RandType::Special => self.special_u32(spec, a, b),
            RandType::Pareto => self.pareto_u32(spec, a, b),
        }
    }
}

/// sysbench.rand.unique(): a walk through a permutation of the 32-bit
/// integers (a quadratic-residue permutation), shared by all threads.
pub struct UniqueSequence {
    index: std::sync::atomic::AtomicU32,
    offset: u32,
}

fn permute_qpr(x: u32) -> u32 {
    const PRIME: u32 = 4_294_967_291;
    if x >= PRIME {
        return x;
    }
    let residue = ((u64::from(x) * u64::from(x)) % u64::from(PRIME)) as u32;
    if x <= PRIME / 2 {
        residue
    } else {
        PRIME - residue
    }
}

impl UniqueSequence {
    pub fn new(seed_index: u32, seed_offset: u32) -> Self {
        Self {
            index: std::sync::atomic::AtomicU32::new(permute_qpr(
                permute_qpr(seed_index).wrapping_add(0x682f_0161),
            )),
            offset: permute_qpr(permute_qpr(seed_offset).wrapping_add(0x4679_0905)),
        }
    }

    pub fn next(&self) -> u32 {
        let i = self
            .index
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        permute_qpr(permute_qpr(i).wrapping_add(self.offset) ^ 0x5bf0_3635)
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
    fn distributions_stay_in_range() {
        let spec = RandSpec::default();
        let mut r = Rng::for_thread(7, 0);
        for kind in [
            RandType::Uniform,
            RandType::Gaussian,
            RandType::Special,
            RandType::Pareto,
        ] {
            let spec = RandSpec { kind, ..spec };
            for _ in 0..10_000 {
                let v = r.default_u32(&spec, 10, 20);
                assert!((10..=20).contains(&v), "{kind:?} gave {v}");
            }
        }
    }

    #[test]
    fn glibc_random_matches_glibc() {
        // srandom(1): glibc's documented first outputs.
        let mut g = GlibcRandom::new(1);
        assert_eq!(g.next(), 1_804_289_383);
        assert_eq!(g.next(), 846_930_886);
        assert_eq!(g.next(), 1_681_692_777);
    }

    #[test]
    fn unique_never_repeats_in_a_short_walk() {
        let u = UniqueSequence::new(1, 2);
        let mut seen = std::collections::HashSet::new();
        for _ in 0..100_000 {
            assert!(seen.insert(u.next()));
        }
    }

    #[test]
    fn threads_get_different_streams() {
        let a = Rng::for_thread(1, 0).next_u64();
        let b = Rng::for_thread(1, 1).next_u64();
        assert_ne!(a, b);
        assert_eq!(Rng::for_thread(1, 0).next_u64(), a);
    }
}
