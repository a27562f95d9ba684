//! `log_compression=N`: a log kept in memory as compressed chunks, as fio
//! keeps it. Every N bytes' worth of rows (fio's record size: 32 bytes, 40
//! with log_offset) leave the job thread for a compressor thread, as in
//! fio's log compression workqueue; the log is written from the chunks and
//! the rows still held when the job ends, so the text is the same as
//! without the option. A chunk is fio's record layout (with offset and
//! priority) in one zlib stream.
//!
//! As fio's compression worker, the thread starts with the job, runs one
//! nice level below it and, with `log_compression_cpus`, only on those
//! CPUs (fio's gz_init_worker).

use crate::run::logs::logzip::{self, Layout, Record};
use flate2::write::ZlibEncoder;
use flate2::Compression;
use std::io::Write;
use std::sync::mpsc::{channel, Sender};
use std::thread::JoinHandle;

/// The layout of packed chunks: every field kept.
const PACKED: Layout = Layout {
    offset: true,
    prio: true,
};

/// Compressed chunks, each with the index of its log.
type Chunks = Vec<(usize, Vec<u8>)>;

/// Chunks of one job's logs, compressed on their own thread.
pub struct Packer {
    /// Rows per chunk.
    pub rows: usize,
    tx: Option<Sender<(usize, Vec<Record>)>>,
    worker: Option<JoinHandle<Chunks>>,
    /// Chunks compressed here (no thread to hand them to).
    done: Chunks,
}

impl Packer {
    /// Chunks of `bytes` worth of fio records (`offset`: 40-byte records),
    /// packed on a thread started now, pinned to `cpus` when given.
    pub fn new(bytes: u64, offset: bool, cpus: Option<&[usize]>) -> Packer {
        let size = if offset { 40 } else { 32 };
        let mut p = Packer {
            rows: (bytes / size).max(1) as usize,
            tx: None,
            worker: None,
            done: Vec::new(),
        };
        let cpus = cpus.map(<[usize]>::to_vec);
        let (tx, rx) = channel::<(usize, Vec<Record>)>();
        let spawned = std::thread::Builder::new()
            .name("rfio-logzip".into())
            .spawn(move || {
                worker_setup(cpus.as_deref());
                let mut out = Vec::new();
                for (log, rows) in rx {
                    out.push((log, pack(&rows)));
                }
                out
            });
        // No thread: chunks are compressed on the job's thread.
        if let Ok(h) = spawned {
            p.tx = Some(tx);
            p.worker = Some(h);
        }
        p
    }

    /// Hand a full chunk of log `log` to the compressor. Cold: once per
    /// chunk.
    #[cold]
    pub fn send(&mut self, log: usize, rows: Vec<Record>) {
        if self.tx.is_none() {
            self.done.push((log, pack(&rows)));
            return;
        }
        if let Some(tx) = &self.tx {
            if let Err(e) = tx.send((log, rows)) {
                let (log, rows) = e.0;
                self.done.push((log, pack(&rows)));
            }
        }
    }
}

impl Packer {
    /// Every chunk so far, per log (`logs` of them), in order.
    pub fn finish(&mut self, logs: usize) -> Vec<Vec<Vec<u8>>> {
        drop(self.tx.take());
        let mut chunks = self
            .worker
            .take()
            .and_then(|h| h.join().ok())
            .unwrap_or_default();
        chunks.append(&mut self.done);
        let mut per_log = vec![Vec::new(); logs];
        for (log, c) in chunks {
            if let Some(l) = per_log.get_mut(log) {
                l.push(c);
            }
        }
        per_log
    }
}

/// fio's workqueue worker setup: `nice(1)`, then the CPUs of
/// `log_compression_cpus`. Both only ever lower what the thread may do, so
/// a failure leaves it packing as before.
fn worker_setup(cpus: Option<&[usize]>) {
    // SAFETY: plain syscalls on this thread (its tid) with bounded values.
    unsafe {
        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
        *libc::__errno_location() = 0;
        let now = libc::getpriority(libc::PRIO_PROCESS, tid);
        if *libc::__errno_location() == 0 {
            libc::setpriority(libc::PRIO_PROCESS, tid, now + 1);
        }
    }
    let Some(cpus) = cpus.filter(|c| !c.is_empty()) else {
        return;
    };
    // SAFETY: a zeroed cpu_set_t is valid; CPU_SET on numbers checked
    // against the online count when the option was parsed.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for &c in cpus {
            libc::CPU_SET(c, &mut set);
        }
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
    }
}

/// One chunk: records in one zlib stream.
fn pack(rows: &[Record]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(rows.len() * 40);
    for r in rows {
        PACKED.put(&mut bytes, r);
    }
    // The fastest level: the chunks never leave rfio, and the job thread
    // makes rows faster than a slower level packs them.
    let mut z = ZlibEncoder::new(Vec::with_capacity(bytes.len() / 8), Compression::fast());
    // Writing to a Vec cannot fail.
    let _ = z.write_all(&bytes);
    z.finish().unwrap_or_default()
}

/// The rows of a chunk.
pub fn unpack(chunk: &[u8]) -> Vec<Record> {
    logzip::records(chunk)
}
