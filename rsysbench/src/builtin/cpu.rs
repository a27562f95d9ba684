//! `cpu`: every event checks the numbers 3 .. --cpu-max-prime for primality
//! by trial division up to their square root, exactly as sysbench 1.0.20's
//! loop does (u64 arithmetic, f64 square root, spec §6.1).

use std::hint::black_box;

use crate::args::Values;
use crate::builtin::{ModeLine, Test, Worker};
use crate::error::{Fail, Result};
use crate::log::Level;
use crate::result::TestKind;
use crate::stats::Slot;

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

/// One event's work; returns how many primes it found. Hot path.
///
/// On x86-64 this is the instruction sequence gcc makes of sysbench
/// 1.0.20's loop (Debian's build, `cpu_execute_event`), written out so the
/// work per event is sysbench's instruction for instruction (issue: the
/// compiler's own version ran 6% fewer instructions): the `l = 2` step as a
/// parity test, `pxor` before each `cvtsi2sd`, the sqrt domain check, the
/// 64-bit `div`, and the unsigned-conversion path for `l` (never taken).
/// The one addition is the prime count (`add` once per prime, ~0.1% of
/// the instructions), which sysbench's build drops as dead code.
#[inline(never)]
pub fn count_primes(max_prime: u64) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        if max_prime <= 3 {
            return 0;
        }
        let primes: u64;
        // SAFETY: registers only; `div` divides by l >= 3 (never 0).
        unsafe {
            std::arch::asm!(
                "2:",
                "pxor %xmm0, %xmm0",
                "cvtsi2sd %r8, %xmm0",
                "ucomisd %xmm0, %xmm3",
                "ja 9f",
                "sqrtsd %xmm0, %xmm0",
                "3:",
                "comisd %xmm2, %xmm0",
                "jb 8f",
                "test $1, %r8b",
                "je 7f",
                "mov $2, %ecx",
                "jmp 5f",
                "4:",
                "pxor %xmm1, %xmm1",
                "cvtsi2sd %rcx, %xmm1",
                "comisd %xmm1, %xmm0",
                "jb 8f",
                "6:",
                "mov %r8, %rax",
                "xor %edx, %edx",
                "div %rcx",
                "test %rdx, %rdx",
                "je 7f",
                "5:",
                "add $1, %rcx",
                "jns 4b",
                "mov %rcx, %rsi",
                "mov %rcx, %rdx",
                "pxor %xmm1, %xmm1",
                "shr %rsi",
                "and $1, %edx",
                "or %rdx, %rsi",
                "cvtsi2sd %rsi, %xmm1",
                "addsd %xmm1, %xmm1",
                "comisd %xmm1, %xmm0",
                "jae 6b",
                "8:",
                "add $1, %r10",
                "7:",
                "add $1, %r8",
                "cmp %r9, %r8",
                "jne 2b",
                "jmp 10f",
                // sysbench calls sqrt() for a negative operand; c never is.
                "9:",
                "sqrtsd %xmm0, %xmm0",
                "jmp 3b",
                "10:",
                inout("r8") 3u64 => _,
                in("r9") max_prime,
                inout("r10") 0u64 => primes,
                out("rax") _,
                out("rcx") _,
                out("rdx") _,
                out("rsi") _,
                out("xmm0") _,
                out("xmm1") _,
                in("xmm2") 2.0f64,
                in("xmm3") 0.0f64,
                options(att_syntax, nomem, nostack)
            );
        }
        primes
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let mut n = 0u64;
        for c in 3..max_prime {
            let t = (c as f64).sqrt();
            let mut l = 2u64;
            while l as f64 <= t {
                if c % l == 0 {
                    break;
                }
                l += 1;
            }
            if l as f64 > t {
                n += 1;
            }
        }
        n
    }
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
        assert_eq!(count_primes(4), 1);
        assert_eq!(count_primes(100), 24);
    }
}
