//! The tests (kernels): each is one small file implementing [`Kernel`]; the
//! run loop in `run.rs` drives them without knowing which it drives.

mod dumb;
mod mcblock;
mod memcpy;
mod stream;

use crate::arrays::Arrays;

/// A test rmbw can run, in the fixed order tests run in (spec §2: mbw runs
/// 0, 1, 2 whatever the order given; the STREAM kernels follow).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Method {
    Memcpy,
    Dumb,
    Mcblock,
    Copy,
    Scale,
    Add,
    Triad,
}

impl Method {
    pub const ALL: [Method; 7] = [
        Method::Memcpy,
        Method::Dumb,
        Method::Mcblock,
        Method::Copy,
        Method::Scale,
        Method::Add,
        Method::Triad,
    ];

    /// The label printed after `Method: `.
    pub fn label(self) -> &'static str {
        match self {
            Method::Memcpy => "MEMCPY",
            Method::Dumb => "DUMB",
            Method::Mcblock => "MCBLOCK",
            Method::Copy => "COPY",
            Method::Scale => "SCALE",
            Method::Add => "ADD",
            Method::Triad => "TRIAD",
        }
    }

    /// The name `--test` takes.
    pub fn name(self) -> &'static str {
        match self {
            Method::Memcpy => "memcpy",
            Method::Dumb => "dumb",
            Method::Mcblock => "mcblock",
            Method::Copy => "copy",
            Method::Scale => "scale",
            Method::Add => "add",
            Method::Triad => "triad",
        }
    }

    /// The kernel that implements it.
    pub fn kernel(self) -> &'static dyn Kernel {
        match self {
            Method::Memcpy => &memcpy::Memcpy,
            Method::Dumb => &dumb::Dumb,
            Method::Mcblock => &mcblock::Mcblock,
            Method::Copy => &stream::Copy,
            Method::Scale => &stream::Scale,
            Method::Add => &stream::Add,
            Method::Triad => &stream::Triad,
        }
    }
}

/// One test. `run` is the timed hot path: it copies, and nothing else
/// (no allocation, no output, no system call).
pub trait Kernel: Sync {
    /// Arrays it touches (2 or 3); a third array is allocated only if needed.
    fn arrays(&self) -> usize {
        2
    }

    /// How many array-sized transfers one run is counted as: 1 for mbw's
    /// tests (mbw counts one array per copy), 2 or 3 for STREAM's kernels
    /// (STREAM counts every array read or written).
    fn counted_arrays(&self) -> u64 {
        1
    }

    /// Untimed set-up before the first run (e.g. STREAM's initial values).
    fn prepare(&self, _arrays: &mut Arrays) {}

    /// One timed run over the whole arrays; `block` is MCBLOCK's block size.
    fn run(&self, arrays: &mut Arrays, block: usize);
}
