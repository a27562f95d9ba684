//! `ioengine=cpuio`: burns CPU instead of doing I/O (fio's cpu engine).
//! Each "I/O" spins for `cpuchunks` microseconds (cpumode=noop) or sorts a
//! 256Ki-entry table four ways (qsort), then idles so that the busy share
//! is `cpuload` percent (that idle time is the job's thinktime, set where
//! the job is built: `job::engine_thinktime`). It moves no bytes.

use super::Config;
use super::{Engine, InitFailure, InitSite, IoUnit, Queued};
use std::time::{Duration, Instant};

/// Entries of the qsort table (fio sorts 256Ki 32-bit integers).
const QSORT_LEN: usize = 256 << 10;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Noop,
    Qsort,
}

pub struct Cpuio {
    mode: Mode,
    /// Microseconds of one burn (adjusted to the sort's own time for qsort).
    cycle_us: u64,
    data: Vec<i32>,
}

impl Cpuio {
    pub fn new(cfg: &Config) -> Result<Self, InitFailure> {
        let load = cfg.opts.int("cpuload").max(0) as u64;
        if load == 0 {
            return Err(InitFailure {
                errno: libc::EINVAL,
                before: String::new(),
                site: Some(InitSite {
                    at: "engines/cpu.c:251",
                    func: "cpuio",
                    error: Some("cpu thread needs rate (cpuload=)"),
                }),
            });
        }
        let mode = match cfg.opts.choice("cpumode").0.as_str() {
            "qsort" => Mode::Qsort,
            _ => Mode::Noop,
        };
        let data = if mode == Mode::Qsort {
            table()
        } else {
            Vec::new()
        };
        Ok(Cpuio {
            mode,
            cycle_us: cfg.opts.int("cpuchunks").max(0) as u64,
            data,
        })
    }

    /// The line fio prints as the engine starts.
    pub fn banner(cfg: &Config) -> String {
        format!(
            "{} ({}): ioengine=cpuio, cpuload={}, cpucycle={}\n",
            cfg.name,
            cfg.opts.choice("cpumode").0,
            cfg.opts.int("cpuload").clamp(0, 100),
            cfg.opts.int("cpuchunks")
        )
    }

    /// The four sorts of fio's qsort mode; returns their time.
    fn sort(&mut self) -> Duration {
        let t = Instant::now();
        self.data.sort_unstable();
        self.data.sort_unstable_by(|a, b| b.cmp(a));
        // Re-order by the low byte of each entry, then reverse again.
        self.data.sort_by_key(|v| *v as i8);
        self.data.sort_unstable_by(|a, b| b.cmp(a));
        t.elapsed()
    }
}

/// fio's multiply-with-carry fill, so both sort the same kind of data.
fn table() -> Vec<i32> {
    let (mut w, mut z) = (521_288_629u32, 362_436_069u32);
    (0..QSORT_LEN)
        .map(|_| {
            z = 36969u32.wrapping_mul(z & 65535).wrapping_add(z >> 16);
            w = 18000u32.wrapping_mul(w & 65535).wrapping_add(w >> 16);
            ((z << 16).wrapping_add(w)) as i32
        })
        .collect()
}

/// Spin (no sleep) for `us` microseconds.
fn spin(us: u64) {
    let end = Instant::now() + Duration::from_micros(us);
    while Instant::now() < end {
        std::hint::spin_loop();
    }
}

impl Engine for Cpuio {
    fn queue(&mut self, _idx: usize, io: &mut IoUnit) -> Queued {
        match self.mode {
            Mode::Noop => spin(self.cycle_us),
            Mode::Qsort => self.cycle_us = self.sort().as_micros() as u64,
        }
        // No bytes move (fio's FIO_NOIO).
        io.len = 0;
        io.result = 0;
        Queued::Completed
    }
}
