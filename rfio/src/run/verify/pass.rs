//! fio's verify phase: the written blocks read back through the job's own
//! engine at the job's depth, each checked when its read completes. Every
//! block read here was written and completed before the phase began.

use super::{record_read, Mismatch, Verifier, Written};
use crate::engine::{Engine, IoKind, IoUnit, Queued};
use crate::run::logs::job_logs::Logs;
use crate::stats::{depth_bucket, ThreadStats};
use rbench_common::clock::now_ns;
use rbench_common::stop;

/// Where the phase's reads go in the job's bw/lat/iops logs (fio logs
/// them as reads): the job's logs when they take per-I/O calls, and the
/// `now_ns` instant the logs' time 0 stands for.
pub struct ReadLog<'a> {
    pub logs: Option<&'a mut Logs>,
    pub base_ns: u64,
    pub per_io_rates: (bool, bool),
    /// write_iolog: the phase's reads are logged as fio logs them.
    pub iolog: Option<&'a mut crate::run::iolog::writer::IoLogWriter>,
}

impl ReadLog<'_> {
    /// One completed read, its latencies in ns.
    #[cold]
    pub(super) fn read(
        &mut self,
        st: &mut ThreadStats,
        io: &IoUnit,
        end_ns: u64,
        lat: (u64, u64),
        slat: u64,
    ) {
        if let Some(l) = self.logs.as_deref_mut() {
            let since = end_ns.saturating_sub(self.base_ns);
            crate::run::worker::log_io(l, st, io, since, lat, slat, self.per_io_rates);
        }
    }
}

/// Why the verify phase stopped early.
#[derive(Debug, Clone)]
pub enum PassError {
    Mismatch(Mismatch),
    Io {
        errno: i32,
        file: usize,
        offset: u64,
        len: usize,
    },
}

/// The phase's queue: free unit slots, the blocks in flight and the
/// first failure.
struct Queue {
    depth: usize,
    free: Vec<usize>,
    done: Vec<usize>,
    /// (block, start, issue): queued reads get their issue time at commit,
    /// so they report slat as the job's own queued I/Os do.
    pending: Vec<Option<(Written, u64, u64)>>,
    next: usize,
    inflight: usize,
    failure: Option<PassError>,
}

/// An engine error that ends the phase: nothing names a block.
fn engine_error(e: &std::io::Error) -> PassError {
    PassError::Io {
        errno: e.raw_os_error().unwrap_or(libc::EIO),
        file: 0,
        offset: 0,
        len: 0,
    }
}

pub(super) fn run(
    v: &mut Verifier<'_>,
    list: &[Written],
    engine: &mut dyn Engine,
    units: &mut [IoUnit],
    sync_engine: bool,
    st: &mut ThreadStats,
    log: &mut ReadLog<'_>,
) -> Result<(), PassError> {
    // The null engine queues above depth 1 but answers busy until what it
    // completed is reaped: fio's verify phase reads through it one by one.
    let depth = if sync_engine || v.fake {
        1
    } else {
        units.len().max(1)
    };
    let mut q = Queue::new(depth, units.len());
    loop {
        if q.submit(v, list, engine, units, st, log) {
            q.commit(engine, st)?;
        }
        if q.inflight == 0 {
            if q.next >= list.len() || q.failure.is_some() || stop::should_stop() {
                break;
            }
            continue;
        }
        q.reap(v, engine, units, st, log)?;
    }
    match q.failure {
        Some(f) => Err(f),
        None => Ok(()),
    }
}

impl Queue {
    /// `depth` free slots of `units` units.
    fn new(depth: usize, units: usize) -> Self {
        Queue {
            depth,
            free: (0..depth.min(units)).rev().collect(),
            done: Vec::with_capacity(depth),
            pending: vec![None; units],
            next: 0,
            inflight: 0,
            failure: None,
        }
    }

    /// Queue reads of the next blocks while a slot is free and the engine
    /// takes them; a read completed at once is checked here. Whether any
    /// read was left queued (to commit).
    fn submit(
        &mut self,
        v: &Verifier<'_>,
        list: &[Written],
        engine: &mut dyn Engine,
        units: &mut [IoUnit],
        st: &mut ThreadStats,
        log: &mut ReadLog<'_>,
    ) -> bool {
        let mut queued = false;
        while self.failure.is_none() && self.next < list.len() && !stop::should_stop() {
            let Some(idx) = self.free.pop() else { break };
            let w = list[self.next];
            let io = &mut units[idx];
            prepare_read(v, io, &w);
            let t0 = now_ns();
            if let Some(l) = log.iolog.as_deref_mut() {
                l.io_now(io);
            }
            match engine.queue(idx, io) {
                Queued::Completed => {
                    self.next += 1;
                    st.depth_map[depth_bucket(1)] += 1;
                    self.pending[idx] = Some((w, t0, t0));
                    if let Err(e) = finish(v, &units[idx], &mut self.pending[idx], st, log) {
                        self.failure = Some(e);
                    }
                    self.free.push(idx);
                }
                Queued::Queued => {
                    self.next += 1;
                    self.pending[idx] = Some((w, t0, 0));
                    self.inflight += 1;
                    st.depth_map[depth_bucket(self.inflight)] += 1;
                    queued = true;
                }
                Queued::Busy => {
                    self.free.push(idx);
                    break;
                }
            }
        }
        queued
    }

    /// Submit what was queued and give it its issue time (and slat); a
    /// commit error ends the phase with the first failure.
    fn commit(&mut self, engine: &mut dyn Engine, st: &mut ThreadStats) -> Result<(), PassError> {
        if let Err(e) = engine.commit() {
            // Nothing submitted is in flight any more.
            return Err(self.failure.take().unwrap_or_else(|| engine_error(&e)));
        }
        let now = now_ns();
        for (_, start, issue) in self.pending.iter_mut().flatten() {
            if *issue == 0 {
                *issue = now;
                st.dir[0].slat.record(now.saturating_sub(*start));
            }
        }
        Ok(())
    }

    /// Reap at least one completed read and check each.
    fn reap(
        &mut self,
        v: &Verifier<'_>,
        engine: &mut dyn Engine,
        units: &mut [IoUnit],
        st: &mut ThreadStats,
        log: &mut ReadLog<'_>,
    ) -> Result<(), PassError> {
        self.done.clear();
        let n = engine
            .getevents(1, self.depth, units, &mut self.done)
            .map_err(|e| engine_error(&e))?;
        self.inflight -= n.min(self.inflight);
        for &idx in &self.done {
            let r = finish(v, &units[idx], &mut self.pending[idx], st, log);
            if let Err(e) = r {
                self.failure.get_or_insert(e);
            }
            self.free.push(idx);
        }
        Ok(())
    }
}

/// Point unit `io` at block `w` for a read.
fn prepare_read(v: &Verifier<'_>, io: &mut IoUnit, w: &Written) {
    io.kind = IoKind::Read;
    io.file = w.file as usize;
    io.fd = v.fds.get(io.file).copied().unwrap_or(-1);
    io.offset = w.offset;
    io.len = w.len as usize;
    io.result = 0;
}

/// Check one completed verify read.
fn finish(
    v: &Verifier<'_>,
    io: &IoUnit,
    pending: &mut Option<(Written, u64, u64)>,
    st: &mut ThreadStats,
    log: &mut ReadLog<'_>,
) -> Result<(), PassError> {
    let Some((w, t0, issue)) = pending.take() else {
        return Ok(());
    };
    if io.result < 0 {
        return Err(PassError::Io {
            errno: (-io.result) as i32,
            file: io.file,
            offset: io.offset,
            len: io.len,
        });
    }
    // A queued read's clat starts at its issue (slat recorded at commit).
    let now = now_ns();
    let lat = (now.saturating_sub(issue), now.saturating_sub(t0));
    record_read(st, io.result as u64, lat.0, lat.1);
    if log.logs.is_some() {
        log.read(st, io, now, lat, issue.saturating_sub(t0));
    }
    if v.spec.kind == super::Kind::Null || v.fake {
        return Ok(());
    }
    // SAFETY: the unit's buffer holds `len` bytes and its read is done.
    let buf = unsafe { std::slice::from_raw_parts_mut(io.buf, io.len) };
    // Past the end of a cut file nothing comes back: check zeros there.
    let got = (io.result as usize).min(io.len);
    buf[got..].fill(0);
    let r = v.check_written(buf, &w);
    v.judged(r, st).map_err(PassError::Mismatch)
}
