//! `cpu`: every event checks the numbers 3 .. --cpu-max-prime for primality
//! by trial division up to their square root, exactly as sysbench 1.0.20's
//! loop does (u64 arithmetic, f64 square root, spec §6.1).

use std::hint::black_box;

use crate::args::Values;
use crate::error::{Fail, Result};
use crate::log::Level;
use crate::result::TestKind;
use crate::stats::Slot;
use crate::tests::{ModeLine, Test, Worker};

pub struct Cpu {
    max_prime: u64,
}

impl Cpu {
    pub fn init(v: &Values) -> Result<Self> {
        let n = v.int("cpu-max-prime")?;
        if n <= 0 {
            return Err(Fail::fatal(format!("Invalid value of cpu-max-prime: {n}.")));
        }
        Ok(Self {
            max_prime: n as u64,
        })
    }
}

/// `a % b` with the 64-bit `div` instruction gcc emits for sysbench's
/// `unsigned long long` loop. LLVM would test whether both operands fit in
/// 32 bits and use the cheaper 32-bit divide, which makes each event do
/// less work than sysbench's on CPUs where 64-bit division is slow.
#[inline(always)]
fn rem_u64(a: u64, b: u64) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        let rem: u64;
        // SAFETY: `b` >= 2 (the caller's divisor starts at 2), so `div`
        // cannot fault; rdx:rax = 0:a, the remainder lands in rdx.
        unsafe {
            std::arch::asm!(
                "div {d}",
                d = in(reg) b,
                inout("rax") a => _,
                inout("rdx") 0u64 => rem,
                options(pure, nomem, nostack)
            );
        }
        rem
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        a % b
    }
}

/// One event's work; returns how many primes it found. Hot path.
#[inline(never)]
pub fn count_primes(max_prime: u64) -> u64 {
    // Values stay below 2^31 (--cpu-max-prime is a C int), so converting
    // through i64 gives the same doubles with gcc's single cvtsi2sd.
    let f = |x: u64| x as i64 as f64;
    let mut n = 0u64;
    let mut c = 3u64;
    while c < max_prime {
        let t = f(c).sqrt();
        let mut l = 2u64;
        // The l = 2 step is a parity test, as gcc compiles sysbench's loop.
        if f(l) <= t && c & 1 != 0 {
            l = 3;
            while f(l) <= t {
                if rem_u64(c, l) == 0 {
                    break;
                }
                l += 1;
            }
        }
        if f(l) > t {
            n += 1;
        }
        c += 1;
    }
    n
}

pub struct CpuWorker {
    max_prime: u64,
}

impl Test for Cpu {
    type Worker<'a> = CpuWorker;

    fn worker(&self, _thread: usize, _seed: u64) -> Option<CpuWorker> {
        Some(CpuWorker {
            max_prime: self.max_prime,
        })
    }

    fn mode_lines(&self) -> Vec<ModeLine> {
        vec![
            (Level::Info, "Doing CPU performance benchmark\n".into()),
            (
                Level::Notice,
                format!("Prime numbers limit: {}\n", self.max_prime),
            ),
        ]
    }

    fn kind(&self) -> TestKind {
        TestKind::Cpu
    }
}

impl Worker for CpuWorker {
    type Req = ();

    #[inline(always)]
    fn next(&mut self) -> Option<()> {
        Some(())
    }

    #[inline(always)]
    fn execute(
        &mut self,
        _req: (),
        _slot: &Slot,
        _log: &crate::log::Log,
    ) -> std::result::Result<(), String> {
        black_box(count_primes(black_box(self.max_prime)));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_primes_as_sysbench() {
        // sysbench's loop counts the primes in 3 .. N-1 (spec §6.1).
        assert_eq!(count_primes(10_000), 1228);
        assert_eq!(count_primes(20_000), 2261);
        assert_eq!(count_primes(3), 0);
    }
}
