//! Clocks: a monotonic nanosecond clock, a cheap hot-path timestamp
//! ([`FastClock`]) and process/thread CPU usage.

use std::sync::OnceLock;

/// Nanoseconds from CLOCK_MONOTONIC (an arbitrary, fixed origin).
#[inline]
pub fn now_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; CLOCK_MONOTONIC always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Fixed-point shift of [`FastClock`]'s ticks-to-ns multiplier.
const SCALE_SHIFT: u32 = 32;

/// A cheap timestamp for hot paths.
///
/// Where the CPU has an invariant TSC (x86_64, CPUID leaf 0x8000_0007 EDX
/// bit 8: constant rate, runs in all C-states) [`FastClock::now`] is one
/// `RDTSC` and ticks are converted to ns with a scale calibrated once per
/// process against CLOCK_MONOTONIC (about 10 ms). Elsewhere ticks *are*
/// CLOCK_MONOTONIC nanoseconds.
///
/// Only differences of ticks are meaningful; convert them with
/// [`FastClock::ticks_to_ns`] or [`FastClock::elapsed_ns`].
#[derive(Debug)]
pub struct FastClock {
    tsc: bool,
    /// ns per tick in 32.32 fixed point.
    mult: u64,
}

impl FastClock {
    /// The process-wide clock, calibrated on first use (about 10 ms: call it
    /// once at startup so calibration never lands inside a measurement).
    pub fn get() -> &'static FastClock {
        static CLOCK: OnceLock<FastClock> = OnceLock::new();
        CLOCK.get_or_init(FastClock::calibrate)
    }

    /// A clock that always uses CLOCK_MONOTONIC (for comparisons and for
    /// systems where the TSC should not be trusted).
    pub fn monotonic() -> FastClock {
        FastClock {
            tsc: false,
            mult: 1 << SCALE_SHIFT,
        }
    }

    fn calibrate() -> FastClock {
        #[cfg(target_arch = "x86_64")]
        {
            if has_invariant_tsc() {
                if let Some(mult) = calibrate_tsc() {
                    return FastClock { tsc: true, mult };
                }
            }
        }
        FastClock::monotonic()
    }

    /// Whether ticks come from the TSC (else from CLOCK_MONOTONIC).
    pub fn is_tsc(&self) -> bool {
        self.tsc
    }

    /// The current time in ticks. Hot path: one `RDTSC` or one vDSO call.
    #[inline]
    pub fn now(&self) -> u64 {
        #[cfg(target_arch = "x86_64")]
        {
            if self.tsc {
                // SAFETY: RDTSC is available on every x86_64 CPU; we only get
                // here when CPUID reported an invariant TSC.
                return unsafe { core::arch::x86_64::_rdtsc() };
            }
        }
        now_ns()
    }

    /// Convert a tick difference to nanoseconds.
    #[inline]
    pub fn ticks_to_ns(&self, ticks: u64) -> u64 {
        ((u128::from(ticks) * u128::from(self.mult)) >> SCALE_SHIFT) as u64
    }

    /// Convert nanoseconds to ticks (e.g. a deadline compared against
    /// [`FastClock::now`] in a hot loop without converting every reading),
    /// rounded down; `u64::MAX` when it does not fit.
    #[inline]
    pub fn ns_to_ticks(&self, ns: u64) -> u64 {
        let t = (u128::from(ns) << SCALE_SHIFT) / u128::from(self.mult.max(1));
        u64::try_from(t).unwrap_or(u64::MAX)
    }

    /// Nanoseconds since `start_ticks` (an earlier [`FastClock::now`]);
    /// 0 if `start_ticks` is in the future.
    #[inline]
    pub fn elapsed_ns(&self, start_ticks: u64) -> u64 {
        self.ticks_to_ns(self.now().saturating_sub(start_ticks))
    }
}

/// CPUID leaf 0x8000_0007, EDX bit 8: the TSC runs at a constant rate and
/// does not stop in deep C-states.
#[cfg(target_arch = "x86_64")]
fn has_invariant_tsc() -> bool {
    use core::arch::x86_64::__cpuid;
    // SAFETY: CPUID exists on every x86_64 CPU; we query the extended leaf
    // only after checking the highest supported extended leaf.
    #[allow(unused_unsafe)]
    let (max_ext, edx) = unsafe {
        let max_ext = __cpuid(0x8000_0000).eax;
        let edx = if max_ext >= 0x8000_0007 {
            __cpuid(0x8000_0007).edx
        } else {
            0
        };
        (max_ext, edx)
    };
    max_ext >= 0x8000_0007 && edx & (1 << 8) != 0
}

/// Measure ns per TSC tick over ~10 ms of CLOCK_MONOTONIC. Each end is the
/// tightest of a few (monotonic, TSC, monotonic) triples, taking the TSC
/// value against the midpoint. Returns None if the TSC looks unusable.
#[cfg(target_arch = "x86_64")]
fn calibrate_tsc() -> Option<u64> {
    fn sample() -> (u64, u64) {
        let mut best = (u64::MAX, 0u64, 0u64);
        for _ in 0..5 {
            let a = now_ns();
            // SAFETY: see FastClock::now.
            let t = unsafe { core::arch::x86_64::_rdtsc() };
            let b = now_ns();
            if b - a < best.0 {
                best = (b - a, a + (b - a) / 2, t);
            }
        }
        (best.1, best.2)
    }
    let (ns0, t0) = sample();
    std::thread::sleep(std::time::Duration::from_millis(10));
    let (ns1, t1) = sample();
    let (dns, dt) = (ns1.checked_sub(ns0)?, t1.checked_sub(t0)?);
    if dns == 0 || dt == 0 {
        return None;
    }
    let mult = ((u128::from(dns) << SCALE_SHIFT) / u128::from(dt)) as u64;
    // A TSC slower than 10 MHz or faster than 100 GHz is not a TSC we trust.
    let ns_per_tick = mult as f64 / (1u64 << SCALE_SHIFT) as f64;
    if !(0.01..=100.0).contains(&ns_per_tick) {
        return None;
    }
    Some(mult)
}

/// User and system CPU time consumed, in seconds.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CpuUsage {
    /// Time spent in user mode.
    pub user_s: f64,
    /// Time spent in the kernel on our behalf.
    pub sys_s: f64,
}

impl CpuUsage {
    /// Usage accrued between `earlier` and `self`.
    pub fn since(&self, earlier: &CpuUsage) -> CpuUsage {
        CpuUsage {
            user_s: self.user_s - earlier.user_s,
            sys_s: self.sys_s - earlier.sys_s,
        }
    }
}

fn rusage(who: libc::c_int) -> CpuUsage {
    // SAFETY: an all-zero rusage is a valid value of a plain C struct.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `ru` is valid and writable; `who` is RUSAGE_SELF or
    // RUSAGE_THREAD, both supported on Linux, so this cannot fail.
    unsafe { libc::getrusage(who, &mut ru) };
    let secs = |tv: libc::timeval| tv.tv_sec as f64 + tv.tv_usec as f64 / 1e6;
    CpuUsage {
        user_s: secs(ru.ru_utime),
        sys_s: secs(ru.ru_stime),
    }
}

/// CPU time of the whole process (all threads), via getrusage(RUSAGE_SELF).
pub fn process_cpu_usage() -> CpuUsage {
    rusage(libc::RUSAGE_SELF)
}

/// CPU time of the calling thread, via getrusage(RUSAGE_THREAD).
pub fn thread_cpu_usage() -> CpuUsage {
    rusage(libc::RUSAGE_THREAD)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn monotonic_and_advancing() {
        let a = now_ns();
        std::thread::sleep(Duration::from_millis(2));
        let b = now_ns();
        assert!(b > a);
        assert!(b - a >= 2_000_000);
    }

    /// A (ticks, monotonic ns) pair read back to back, retried (bounded)
    /// until both reads fall within 50 µs, so preemption between the two
    /// reads cannot skew the comparison.
    fn paired_reading(clock: &FastClock) -> (u64, u64) {
        let mut best = (u64::MAX, 0, 0);
        for _ in 0..1000 {
            let a = now_ns();
            let t = clock.now();
            let b = now_ns();
            if b - a < best.0 {
                best = (b - a, t, a + (b - a) / 2);
            }
            if best.0 < 50_000 {
                break;
            }
        }
        (best.1, best.2)
    }

    #[test]
    fn fast_clock_agrees_with_monotonic_over_an_interval() {
        let clock = FastClock::get();
        let (t0, n0) = paired_reading(clock);
        std::thread::sleep(Duration::from_millis(150));
        let (t1, n1) = paired_reading(clock);
        let fast = clock.ticks_to_ns(t1 - t0) as f64;
        let mono = (n1 - n0) as f64;
        let rel = (fast - mono).abs() / mono;
        assert!(
            rel < 0.01,
            "tsc={} fast={fast} mono={mono} rel={rel}",
            clock.is_tsc()
        );
        // ns -> ticks -> ns round-trips to within one tick's worth of ns.
        let back = clock.ticks_to_ns(clock.ns_to_ticks(1_000_000_000));
        assert!(back.abs_diff(1_000_000_000) <= 2, "{back}");
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn uses_the_tsc_when_cpuinfo_says_it_is_invariant() {
        // Linux derives these two flags from the same CPUID bit we read.
        let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let has = |flag: &str| {
            info.lines()
                .filter(|l| l.starts_with("flags"))
                .any(|l| l.split_whitespace().any(|w| w == flag))
        };
        if has("constant_tsc") && has("nonstop_tsc") {
            assert!(has_invariant_tsc());
            assert!(FastClock::get().is_tsc());
        }
    }

    #[test]
    fn monotonic_fallback_is_identity() {
        let c = FastClock::monotonic();
        assert!(!c.is_tsc());
        assert_eq!(c.ticks_to_ns(123_456_789), 123_456_789);
        assert_eq!(c.ns_to_ticks(123_456_789), 123_456_789);
        let start = c.now();
        assert!(c.elapsed_ns(start) < 60_000_000_000);
        assert_eq!(c.elapsed_ns(u64::MAX), 0);
    }

    #[test]
    fn burning_cpu_increases_user_time() {
        let before_p = process_cpu_usage();
        let before_t = thread_cpu_usage();
        // Spin until the thread's user time moves (bounded to a few seconds
        // of wall time in case the scheduler starves us).
        let deadline = now_ns() + 5_000_000_000;
        let mut x = 0u64;
        while thread_cpu_usage().user_s <= before_t.user_s + 0.02 && now_ns() < deadline {
            for i in 0..100_000u64 {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(i);
            }
            std::hint::black_box(x);
        }
        let after_t = thread_cpu_usage();
        let after_p = process_cpu_usage();
        assert!(after_t.user_s > before_t.user_s);
        assert!(after_p.user_s > before_p.user_s);
        assert!(after_p.since(&before_p).user_s > 0.0);
    }
}
