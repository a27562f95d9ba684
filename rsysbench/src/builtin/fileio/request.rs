//! sysbench's request generator (file_get_seq_request /
//! file_get_rnd_request): one shared state under one lock, as sysbench's
//! request mutex, because the sequential cursor and the fsync sweep are
//! shared by all threads.

use crate::rng::Rng;

use super::params::Mode;
use super::Fileio;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Op {
    Read,
    Write,
    Fsync,
}

#[derive(Debug, Clone, Copy)]
pub struct Request {
    pub(super) op: Op,
    pub(super) file: u32,
    pub(super) pos: u64,
    pub(super) size: u64,
}

/// sysbench's shared request state (file_get_seq/rnd_request).
#[derive(Debug, Default)]
pub(super) struct Generator {
    pub(super) position: u64,
    pub(super) current_file: u32,
    pub(super) fsynced_file: u32,
    pub(super) req_performed: u64,
    pub(super) dirty: bool,
    /// Reads and writes issued, for --file-rw-ratio.
    pub(super) reads: u64,
    pub(super) writes: u64,
}

impl Fileio {
    pub(super) fn next_request(&self, rng: &mut Rng) -> Request {
        let p = &self.p;
        let mut g = self.gen.lock().unwrap_or_else(|e| e.into_inner());
        if self.mode.sequential() {
            let op = if self.mode.writes() {
                Op::Write
            } else {
                Op::Read
            };
            if p.fsync_freq != 0
                && op == Op::Write
                && g.dirty
                && g.req_performed.is_multiple_of(p.fsync_freq)
            {
                return fsync_sweep(&mut g, p.num);
            }
            g.req_performed += 1;
            if op == Op::Write {
                g.dirty = true;
            }
            if g.current_file == p.num {
                g.position = 0;
                g.current_file = 0;
            }
            let size = p.request_size.min(p.file_size - g.position);
            let r = Request {
                op,
                file: g.current_file,
                pos: g.position,
                size,
            };
            g.position += size;
            if g.position == p.file_size {
                g.current_file += 1;
                g.position = 0;
            }
            return r;
        }
        let op = match self.mode {
            Mode::RndWrite => Op::Write,
            Mode::RndRw if (g.reads + 1) as f64 / (g.writes + 1) as f64 >= p.rw_ratio => Op::Write,
            _ => Op::Read,
        };
        if p.fsync_freq != 0 && g.dirty && g.req_performed.is_multiple_of(p.fsync_freq) {
            return fsync_sweep(&mut g, p.num);
        }
        let total = p.file_size * u64::from(p.num);
        let mut pos = (rng.uniform_double() * total as f64) as u64;
        pos -= pos % p.block;
        let file = ((pos / p.file_size) as u32).min(p.num - 1);
        let pos = pos - u64::from(file) * p.file_size;
        let size = p.block.min(p.file_size - pos);
        g.req_performed += 1;
        match op {
            Op::Write => {
                g.dirty = true;
                g.writes += 1;
            }
            _ => g.reads += 1,
        }
        Request {
            op,
            file,
            pos,
            size,
        }
    }
}

pub(super) fn fsync_sweep(g: &mut Generator, num: u32) -> Request {
    let r = Request {
        op: Op::Fsync,
        file: g.fsynced_file,
        pos: 0,
        size: 0,
    };
    g.fsynced_file += 1;
    if g.fsynced_file == num {
        g.fsynced_file = 0;
        g.dirty = false;
    }
    r
}
