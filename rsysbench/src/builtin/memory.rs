//! `memory`: each event walks one block word by word (8-byte words), in
//! order or at uniformly random word indexes, writing, reading or doing
//! nothing, as sysbench 1.0.20 does (spec §6.2). Each thread does
//! total/block/threads events (integer division); --events does not apply.
//! Accesses are relaxed atomics, which compile to plain loads and stores
//! but cannot be optimised away (sysbench uses ck_pr loads and stores).

use std::sync::atomic::{AtomicU64, Ordering};

use crate::args::Values;
use crate::builtin::{ModeLine, Test, Worker};
use crate::error::{errno_text, Fail, Result};
use crate::log::Level;
use crate::result::TestKind;
use crate::rng::Rng;
use crate::stats::Slot;

const WORD: u64 = 8;
/// sysbench's LARGE_PAGE_SIZE, used in its HugeTLB size alignment.
const LARGE_PAGE: usize = 4 << 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Oper {
    Write,
    Read,
    None,
}

/// A page-aligned, zeroed block from mmap (optionally from the HugeTLB pool).
struct Block {
    ptr: *mut AtomicU64,
    words: usize,
    bytes: usize,
}

// SAFETY: the block is only accessed through atomics.
unsafe impl Send for Block {}
unsafe impl Sync for Block {}

impl Block {
    /// `bytes` of zeroed memory; from the HugeTLB pool, sysbench's size
    /// (its alignment to 4 MiB: `((size - 1) & !4M) + 4M`). On failure,
    /// sysbench's FATAL line(s); `owner`: the thread of a local block.
    fn new(bytes: usize, hugetlb: bool, owner: Option<usize>) -> Result<Self> {
        let bytes = if hugetlb {
            ((bytes.max(1) - 1) & !LARGE_PAGE) + LARGE_PAGE
        } else {
            bytes
        };
        let flags =
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | if hugetlb { libc::MAP_HUGETLB } else { 0 };
        // SAFETY: an anonymous private mapping; checked for MAP_FAILED.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                bytes,
                libc::PROT_READ | libc::PROT_WRITE,
                flags,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            let e = std::io::Error::last_os_error();
            let buffer = match owner {
                Some(i) => format!("Failed to allocate buffer for thread #{i}!"),
                None => "Failed to allocate buffer!".to_string(),
            };
            return Err(if hugetlb {
                Fail::fatal(format!(
                    "Failed to allocate {bytes} bytes from HugeTLB memory. {}",
                    errno_text(&e)
                ))
                .then(format!("FATAL: {buffer}\n"))
            } else {
                Fail::fatal(buffer)
            });
        }
        // Touch every page now, as sysbench's memset() does, so page faults
        // are not timed as part of the first events.
        // SAFETY: the mapping is `bytes` long and writable.
        unsafe { std::ptr::write_bytes(p.cast::<u8>(), 0, bytes) };
        Ok(Self {
            ptr: p.cast(),
            words: bytes / WORD as usize,
            bytes,
        })
    }

    fn words(&self) -> &[AtomicU64] {
        // SAFETY: the mapping holds `words` u64s, is aligned, zeroed and lives as long as self.
        unsafe { std::slice::from_raw_parts(self.ptr, self.words) }
    }
}

impl Drop for Block {
    fn drop(&mut self) {
        // SAFETY: unmapping what `new` mapped.
        unsafe { libc::munmap(self.ptr.cast(), self.bytes) };
    }
}

pub struct Memory {
    block_size: u64,
    total_size: u64,
    oper: Oper,
    random: bool,
    local: bool,
    hugetlb: bool,
    /// Events per thread.
    per_thread: u64,
    blocks: Vec<Block>,
}

fn choice<'a>(v: &Values, name: &str, allowed: &[&'a str]) -> Result<&'a str> {
    let s = v.string(name).unwrap_or_default();
    allowed
        .iter()
        .find(|a| **a == s)
        .copied()
        .ok_or_else(|| Fail::fatal(format!("Invalid value for {name}: {s}")))
}

impl Memory {
    pub fn init(v: &Values, threads: u32) -> Result<Self> {
        let raw = v.string("memory-block-size").unwrap_or_default();
        let block_size = v.size("memory-block-size")?;
        if block_size < WORD || !block_size.is_power_of_two() || block_size > isize::MAX as u64 {
            return Err(Fail::fatal(format!(
                "Invalid value for memory-block-size: {raw}"
            )));
        }
        // 0 (or a size sysbench reads as 0) is no limit: the run ends at --time.
        let total_size = v.size("memory-total-size")?;
        if total_size == 0 {
            let raw = v.string("memory-total-size").unwrap_or_default();
            crate::args::warn_size_read_as_zero("memory-total-size", &raw);
        }
        let local = choice(v, "memory-scope", &["global", "local"])? == "local";
        let hugetlb = v.flag("memory-hugetlb");
        let oper = match choice(v, "memory-oper", &["write", "read", "none"])? {
            "write" => Oper::Write,
            "read" => Oper::Read,
            _ => Oper::None,
        };
        let random = choice(v, "memory-access-mode", &["seq", "rnd"])? == "rnd";
        let per_thread = match total_size {
            0 => u64::MAX,
            t => t / block_size / u64::from(threads),
        };
        if per_thread == 0 {
            return Err(Fail::fatal(format!(
                "--memory-total-size={total_size} is less than --memory-block-size={block_size} \
                 times --threads={threads}: each thread would do 0 operations"
            )));
        }
        let nblocks = if local { threads as usize } else { 1 };
        let blocks = (0..nblocks)
            .map(|i| Block::new(block_size as usize, hugetlb, local.then_some(i)))
            .collect::<Result<Vec<_>>>()?;
        Ok(Self {
            block_size,
            total_size,
            oper,
            random,
            local,
            hugetlb,
            per_thread,
            blocks,
        })
    }

    /// Whether one block fits in this CPU's last-level cache (then the
    /// test measures cache, not RAM).
    pub fn fits_in_cache(&self) -> Option<u64> {
        let llc = (0..8)
            .filter_map(|i| {
                let p = format!("/sys/devices/system/cpu/cpu0/cache/index{i}/size");
                let s = std::fs::read_to_string(p).ok()?;
                rbench_common::units::sysbench::parse_size(s.trim()).ok()
            })
            .max()?;
        let working_set = self.block_size * self.blocks.len() as u64;
        (working_set <= llc).then_some(llc)
    }

    pub fn block_size(&self) -> u64 {
        self.block_size
    }
    pub fn hugetlb(&self) -> bool {
        self.hugetlb
    }
}

pub struct MemoryWorker<'a> {
    words: &'a [AtomicU64],
    left: u64,
    oper: Oper,
    random: bool,
    rng: Rng,
}

impl Test for Memory {
    type Worker<'a> = MemoryWorker<'a>;

    fn worker(&self, thread: usize, seed: u64) -> Option<MemoryWorker<'_>> {
        Some({
            let b = if self.local {
                &self.blocks[thread]
            } else {
                &self.blocks[0]
            };
            MemoryWorker {
                words: b.words(),
                left: self.per_thread,
                oper: self.oper,
                random: self.random,
                rng: Rng::for_thread(seed, thread),
            }
        })
    }

    fn mode_lines(&self) -> Vec<ModeLine> {
        let oper = match self.oper {
            Oper::Write => "write",
            Oper::Read => "read",
            Oper::None => "none",
        };
        let scope = if self.local { "local" } else { "global" };
        [
            "Running memory speed test with the following options:".to_string(),
            format!("  block size: {}KiB", self.block_size / 1024),
            format!("  total size: {}MiB", self.total_size / 1024 / 1024),
            format!("  operation: {oper}"),
            format!("  scope: {scope}"),
            String::new(),
        ]
        .into_iter()
        .map(|l| (Level::Notice, l))
        .collect()
    }

    fn kind(&self) -> TestKind {
        TestKind::Memory {
            block_size: self.block_size,
            transfers: self.oper != Oper::None,
        }
    }

    fn uses_event_limit(&self) -> bool {
        false
    }
}

impl MemoryWorker<'_> {
    /// Store the number of words left (`end - p`) into every word, with the
    /// instruction mix of sysbench's gcc build (pointer difference, shift,
    /// store, unrolled by 8), so blocks that fit in cache compare too. LLVM
    /// would keep a counter instead and do half the instructions per store.
    #[inline(always)]
    fn seq_write(&self) {
        let n = self.words.len();
        #[cfg(target_arch = "x86_64")]
        if n.is_multiple_of(8) {
            let start = self.words.as_ptr() as *mut u64;
            // SAFETY: [start, start + n) is the block; the loop writes each
            // word once, 64 bytes per round, and n is a multiple of 8. The
            // words are AtomicU64 accessed only by plain aligned stores and
            // loads, as sysbench does.
            unsafe {
                let end = start.add(n);
                std::arch::asm!(
                    "2:",
                    "mov {v}, {end}", "sub {v}, {p}", "sar {v}, 3", "mov qword ptr [{p}], {v}",
                    "lea {q}, [{p} + 8]", "mov {v}, {end}", "sub {v}, {q}", "sar {v}, 3", "mov qword ptr [{q}], {v}",
                    "lea {q}, [{p} + 16]", "mov {v}, {end}", "sub {v}, {q}", "sar {v}, 3", "mov qword ptr [{q}], {v}",
                    "lea {q}, [{p} + 24]", "mov {v}, {end}", "sub {v}, {q}", "sar {v}, 3", "mov qword ptr [{q}], {v}",
                    "lea {q}, [{p} + 32]", "mov {v}, {end}", "sub {v}, {q}", "sar {v}, 3", "mov qword ptr [{q}], {v}",
                    "lea {q}, [{p} + 40]", "mov {v}, {end}", "sub {v}, {q}", "sar {v}, 3", "mov qword ptr [{q}], {v}",
                    "lea {q}, [{p} + 48]", "mov {v}, {end}", "sub {v}, {q}", "sar {v}, 3", "mov qword ptr [{q}], {v}",
                    "lea {q}, [{p} + 56]", "mov {v}, {end}", "sub {v}, {q}", "sar {v}, 3", "mov qword ptr [{q}], {v}",
                    "add {p}, 64",
                    "cmp {p}, {end}",
                    "jb 2b",
                    p = inout(reg) start => _,
                    end = in(reg) end,
                    v = out(reg) _,
                    q = out(reg) _,
                    options(nostack)
                );
            }
            return;
        }
        for (i, w) in self.words.iter().enumerate() {
            w.store((n - i) as u64, Ordering::Relaxed);
        }
    }

    /// Loads folded into a register and kept alive once per block (a
    /// black_box per word would add a stack store per load).
    #[inline(always)]
    fn seq_read(&self) {
        let mut acc = 0u64;
        for w in self.words {
            acc ^= w.load(Ordering::Relaxed);
        }
        std::hint::black_box(acc);
    }

    #[inline(always)]
    fn seq_none(&self) {
        for _ in self.words {
            crate::builtin::compiler_barrier();
        }
    }

    #[inline(always)]
    fn rnd(&mut self) {
        let n = self.words.len();
        let nf = n as f64;
        let mut acc = 0u64;
        for i in 0..n {
            let idx = ((self.rng.uniform_double() * nf) as usize).min(n - 1);
            match self.oper {
                Oper::Write => self.words[idx].store(i as u64 * WORD, Ordering::Relaxed),
                Oper::Read => acc ^= self.words[idx].load(Ordering::Relaxed),
                Oper::None => acc ^= idx as u64,
            }
        }
        std::hint::black_box(acc);
    }
}

impl Worker for MemoryWorker<'_> {
    type Req = ();

    #[inline(always)]
    fn next(&mut self) -> Option<()> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        Some(())
    }

    #[inline(always)]
    fn execute(
        &mut self,
        _req: (),
        _slot: &Slot,
        _log: &crate::log::Log,
    ) -> std::result::Result<(), String> {
        match (self.random, self.oper) {
            (true, _) => self.rnd(),
            (false, Oper::Write) => self.seq_write(),
            (false, Oper::Read) => self.seq_read(),
            (false, Oper::None) => self.seq_none(),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seq_write_stores_words_left() {
        for size in [8usize, 32, 64, 4096] {
            let b = Block::new(size, false, None).unwrap();
            let w = MemoryWorker {
                words: b.words(),
                left: 1,
                oper: Oper::Write,
                random: false,
                rng: Rng::for_thread(1, 0),
            };
            w.seq_write();
            // sysbench stores end - p: the number of words left.
            let got: Vec<u64> = b
                .words()
                .iter()
                .map(|x| x.load(Ordering::Relaxed))
                .collect();
            let want: Vec<u64> = (1..=size as u64 / 8).rev().collect();
            assert_eq!(got, want, "{size}-byte block");
        }
    }
}
