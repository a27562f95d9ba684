//! The verify pass of a running job (`verify=`): written blocks carry fio 3.33's header and
//! checksum (see crate::verify::header), so a block read back from the wrong place,
//! cut short or altered is caught and reported with fio's messages; files
//! written by fio verify in rfio and the other way round.
//!
//! The job loop calls in behind one `Option` check each: [`prepare_write`]
//! (→ [`Verifier::seal`]) when a write is prepared, [`Verifier::completed`]
//! when an I/O completes (writes enter the history only once complete, so
//! out-of-order completions at any depth never cause false failures), and
//! [`Verifier::final_pass`] once nothing is in flight, after each loop and
//! at the end (fio's verify phase); [`Verifier::dry_run`] stands in for the
//! writes of a verify_only job. With verify off none of this runs; the
//! write buffers then follow the buffer options (run/buffers.rs).

mod check;
mod pass;
mod trim;

use crate::engine::{IoKind, IoUnit};
pub use crate::job::verify::Spec;
use crate::job::Job;
use crate::run::buffers::{Buffers, Content, Filler};
use crate::stats::ThreadStats;
use crate::verify::checksum;
use crate::verify::header::{self, Header};
use crate::verify::Kind;
pub use pass::PassError;
pub use pass::ReadLog;
use std::os::fd::RawFd;
use std::path::PathBuf;

/// A verify_backlog read (or a trim verify's trim) to log: file, offset,
/// bytes, its end (`now_ns`), latency in ns, and which it was.
type BacklogRead = (usize, u64, u64, u64, u64, IoKind);

/// A verify failure: fio's message lines, and where.
#[derive(Debug, Clone)]
pub struct Mismatch {
    pub report: String,
    pub file: usize,
    pub offset: u64,
    pub len: usize,
    /// 0: a verify failure (EILSEQ); else a trim verify's trim failed.
    pub errno: i32,
}

/// One completed write, to be read back.
#[derive(Debug, Clone, Copy)]
struct Written {
    offset: u64,
    seed: u64,
    file: u32,
    len: u32,
    numberio: u16,
    trimmed: trim::Trimmed,
    /// The write's place in issue order (fio logs a write before it
    /// issues it; completions at depth > 1 come back in another order).
    /// Wraps: only compared within one pass ([`issue_order_seeds`]).
    seq: u32,
}

/// What one block is expected to be.
#[derive(Debug, Clone, Copy)]
struct Expect {
    seed: Option<u64>,
    numberio: Option<u16>,
    /// fio's io_u flags in the message: 0x88 in the verify phase, 0x8 for
    /// a verified read of a read job.
    flags: u32,
}

/// Verify's share of a job's byte and I/O counts: fio's keep_running and
/// exceeds_number_ios count verify reads with the job's own I/O.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    /// Bytes read back so far (verify phases and backlog checks).
    read_bytes: u64,
    /// Bytes of writes sealed, and of those checked or dropped since (by
    /// a verify phase or backlog): their difference is what the next
    /// verify phase reads, writes still in flight included.
    sealed_bytes: u64,
    consumed_bytes: u64,
    /// Writes (I/Os) checked or dropped the same way.
    consumed_ios: u64,
    /// Backlog reads not yet taken by the worker (it counts them in
    /// number_ios, as fio's io_blocks).
    backlog_ios: u64,
}

/// The verify state of one running job.
pub struct Verifier<'a> {
    spec: &'a Spec,
    thread: u16,
    paths: &'a [PathBuf],
    fds: &'a [RawFd],
    /// Seed, numberio and issue sequence of the write each unit carries.
    unit_writes: Vec<(u64, u16, u32)>,
    writes: u64,
    history: Vec<Written>,
    /// History entries already checked by verify_backlog.
    checked: usize,
    /// Check reads as they complete (a read-only job with verify=).
    check_reads: bool,
    /// Sort and drop overwritten blocks before the final pass.
    overlaps: bool,
    /// The job writes (rw has a write part).
    job_writes: bool,
    /// A buffer for backlog reads (and regenerated blocks).
    scratch: Buffers,
    scratch_len: usize,
    /// The job's buffer contents (to regenerate a block for verify_dump).
    content: Content,
    /// Compare the header's seed (fio does for read-write jobs only).
    check_seed: bool,
    /// continue_on_error: whether verify failures are continued past.
    continue_verify: bool,
    /// Time spent in verify phases (the read runtime, as fio counts it).
    spent_ns: u64,
    /// What verify read and will read (io_size and number_ios rounds).
    tally: Tally,
    /// verify_backlog reads waiting to be logged (Some only with per-I/O
    /// logs on).
    backlog_reads: Option<Vec<BacklogRead>>,
    /// The engine moves no data (null): read back, pretend to check, as
    /// fio does for its FIO_FAKEIO engines.
    pub(crate) fake: bool,
    /// The job's loops (verify_only repeats its phase that many times;
    /// its dry run adds io_size's rounds).
    loops: u64,
    /// trim_percentage: trim verify (None when off).
    trim: Option<trim::TrimVerify>,
}

impl<'a> Verifier<'a> {
    /// The verifier of `job`, if it verifies. `units`: queue depth;
    /// `unit_len`: the largest block.
    pub fn new(
        job: &'a Job,
        units: usize,
        unit_len: usize,
        paths: &'a [PathBuf],
        fds: &'a [RawFd],
        wrap: bool,
        expected_writes: u64,
    ) -> Option<Verifier<'a>> {
        let spec = job.verify.as_ref()?;
        let mut quiet = Filler::from_content(Content {
            zero: true,
            ..Content::default()
        });
        let scratch = Buffers::new(1, unit_len, &mut quiet)?;
        let writes = job.pattern.write && !spec.only;
        let fake = crate::engine::traits(&job.engine).diskless;
        Some(Verifier {
            spec,
            thread: job.number as u16,
            paths,
            fds,
            unit_writes: vec![(0, 0, 0); units],
            writes: 0,
            history: Vec::with_capacity(if writes {
                expected_writes.min(1 << 20) as usize
            } else {
                0
            }),
            checked: 0,
            check_reads: job.pattern.read && !job.pattern.write,
            overlaps: !random_map(job),
            job_writes: job.pattern.write,
            scratch,
            scratch_len: unit_len,
            content: job.content.clone(),
            check_seed: job.pattern.read && job.pattern.write && spec.backlog == 0,
            continue_verify: matches!(
                job.errors.judge(IoKind::Read, libc::EILSEQ),
                crate::job::errors::Verdict::Continue
            ),
            spent_ns: 0,
            tally: Tally::default(),
            backlog_reads: None,
            fake,
            loops: job.loops,
            trim: trim::TrimVerify::new(job, fake, job.rand.norandommap || job.loops > 1 || wrap),
        })
    }

    /// verify_only on a writing job: a dry run replaces the writes (fio's
    /// do_dry_run); a read job with verify_only reads and checks as usual.
    pub fn only(&self) -> bool {
        self.spec.only && self.job_writes
    }

    /// Fill a write's buffer with verifiable contents: seeded random data
    /// (or the verify pattern) and a header per interval.
    #[inline]
    pub fn seal(&mut self, idx: usize, io: &IoUnit, fill: &mut Filler) {
        // SAFETY: the unit's buffer holds at least `len` bytes.
        let buf = unsafe { std::slice::from_raw_parts_mut(io.buf, io.len) };
        let numberio = self.writes as u16;
        let seq = self.writes as u32;
        self.writes += 1;
        self.tally.sealed_bytes += io.len as u64;
        let seed = match &self.spec.pattern {
            Some(p) => {
                p.fill(buf, io.offset);
                0
            }
            None => {
                let s = fill.next_seed();
                crate::run::buffers::fill_seeded(&fill.content, buf, s);
                s
            }
        };
        if let Some(slot) = self.unit_writes.get_mut(idx) {
            *slot = (seed, numberio, seq);
        }
        let now = rbench_common::clock::now_ns();
        self.write_headers(buf, io.offset, seed, numberio, now);
    }

    fn write_headers(&self, buf: &mut [u8], offset: u64, seed: u64, numberio: u16, now: u64) {
        let kind = self.spec.kind;
        let hs = kind.hdr_size();
        if hs == 0 {
            return;
        }
        let inc = hdr_inc(self.spec.interval, buf.len());
        for (i, chunk) in buf.chunks_mut(inc).enumerate() {
            if chunk.len() <= hs || self.spec.offset + hs > chunk.len() {
                continue;
            }
            let h = Header {
                verify_type: kind as u16,
                len: inc as u32,
                rand_seed: seed,
                offset: offset + (i * self.spec.interval) as u64,
                time_sec: (now / 1_000_000_000) as u32,
                time_nsec: (now % 1_000_000_000) as u32,
                thread: self.thread,
                numberio,
                ..Header::default()
            };
            h.write(chunk);
            let (head, data) = chunk.split_at_mut(hs);
            checksum::fill(kind, data, &mut head[header::LEN..]);
            if self.spec.offset > 0 {
                swap_header(chunk, self.spec.offset, hs);
            }
        }
    }

    /// A unit completed: remember a finished write, check a finished
    /// read of a read job. Runs the backlog check when one is due.
    #[inline]
    pub fn completed(
        &mut self,
        idx: usize,
        io: &IoUnit,
        st: &mut ThreadStats,
    ) -> Result<(), Mismatch> {
        if io.result <= 0 {
            return Ok(());
        }
        match io.kind {
            IoKind::Write if !self.spec.only => {
                let (seed, numberio, seq) = self.unit_writes.get(idx).copied().unwrap_or_default();
                self.history.push(Written {
                    offset: io.offset,
                    seed,
                    file: io.file as u32,
                    len: io.len as u32,
                    numberio,
                    trimmed: trim::Trimmed::No,
                    seq,
                });
                if let Some(t) = self.trim.as_mut() {
                    t.logged(self.history.len() - 1, io.file as u32, io.offset);
                }
                if self.spec.backlog > 0 && !self.fake && self.trim.is_some() {
                    return self.backlog_and_trim(st);
                }
                if self.spec.backlog > 0
                    && !self.fake
                    && (self.history.len() - self.checked) as u64 >= self.spec.backlog
                {
                    self.backlog(st)?;
                }
                match self.trim.as_mut() {
                    Some(t) => t.run(&mut self.history, self.fds, st, self.backlog_reads.as_mut()),
                    None => Ok(()),
                }
            }
            IoKind::Read if self.check_reads && self.spec.kind != Kind::Null && !self.fake => {
                // SAFETY: the unit's buffer holds `len` bytes; the read is done.
                let buf = unsafe { std::slice::from_raw_parts_mut(io.buf, io.len) };
                let got = (io.result as usize).min(io.len);
                buf[got..].fill(0);
                let expect = Expect {
                    seed: None,
                    numberio: None,
                    flags: 0x8,
                };
                let r = self.check(buf, io.file, io.offset, expect);
                self.judged(r, st)
            }
            _ => Ok(()),
        }
    }

    /// verify_backlog: read back the oldest `verify_backlog_batch` completed
    /// writes now (their writes are complete; others may be in flight).
    #[cold]
    fn backlog(&mut self, st: &mut ThreadStats) -> Result<(), Mismatch> {
        let end = (self.checked + self.spec.backlog_batch.max(1) as usize).min(self.history.len());
        for i in self.checked..end {
            self.read_back(self.history[i], st)?;
        }
        self.checked = end;
        Ok(())
    }

    /// verify_backlog beside trim verify, step by step as fio's get_io_u
    /// asks before each I/O: a backlog read when one is due (fio's
    /// check_get_verify, on the count of logged blocks not yet verified or
    /// dropped), else a trim when one is due, until neither is.
    #[cold]
    fn backlog_and_trim(&mut self, st: &mut ThreadStats) -> Result<(), Mismatch> {
        let Some(mut t) = self.trim.take() else {
            return Ok(());
        };
        let r = loop {
            if t.verify_wanted(self.spec.backlog, self.spec.backlog_batch) {
                let next = (self.checked..self.history.len())
                    .find(|&i| self.history[i].trimmed != trim::Trimmed::Dropped);
                if let Some(i) = next {
                    let w = self.history[i];
                    self.checked = i + 1;
                    t.verified(i, &w);
                    if let Err(m) = self.read_back(w, st) {
                        break Err(m);
                    }
                    continue;
                }
            }
            match t.trim_next(&mut self.history, self.fds, st, self.backlog_reads.as_mut()) {
                Ok(true) => continue,
                Ok(false) => break Ok(()),
                Err(m) => break Err(m),
            }
        };
        self.trim = Some(t);
        r
    }

    /// Read back one written block now (beside the engine) and check it.
    fn read_back(&mut self, w: Written, st: &mut ThreadStats) -> Result<(), Mismatch> {
        let len = w.len as usize;
        if len > self.scratch_len {
            return Ok(());
        }
        // SAFETY: scratch holds `scratch_len` bytes.
        let buf = unsafe { std::slice::from_raw_parts_mut(self.scratch.ptr, len) };
        let fd = self.fds.get(w.file as usize).copied().unwrap_or(-1);
        let t0 = rbench_common::clock::now_ns();
        // SAFETY: reading into our own buffer of `len` bytes.
        let n = unsafe { libc::pread(fd, buf.as_mut_ptr().cast(), len, w.offset as libc::off_t) };
        let ns = rbench_common::clock::now_ns().saturating_sub(t0);
        if n > 0 {
            self.tally.read_bytes += n as u64;
            self.tally.backlog_ios += 1;
            record_read(st, n as u64, ns, ns);
            if let Some(l) = self.backlog_reads.as_mut() {
                l.push((
                    w.file as usize,
                    w.offset,
                    n as u64,
                    t0 + ns,
                    ns,
                    IoKind::Read,
                ));
            }
        }
        let got = n.max(0) as usize;
        buf[got.min(len)..].fill(0);
        let r = self.check_written(buf, &w);
        self.judged(r, st)
    }

    /// continue_on_error=verify (or all): count a failure and go on; its
    /// lines are printed when the job ends, before the report.
    fn judged(&self, r: Result<(), Mismatch>, st: &mut ThreadStats) -> Result<(), Mismatch> {
        match r {
            Err(m) if self.continue_verify => {
                st.total_err += 1;
                if st.total_err == 1 {
                    st.first_error = libc::EILSEQ;
                }
                st.dumped.push(m.into_io_error(true));
                Ok(())
            }
            r => r,
        }
    }

    /// Check a written block read back: a trimmed one must be zeros.
    fn check_written(&self, buf: &mut [u8], w: &Written) -> Result<(), Mismatch> {
        if w.trimmed == trim::Trimmed::Zero {
            // Only a failure names the file: no allocation on the clean path.
            return trim::check_zero(buf, w.offset, w.file as usize, || {
                self.paths
                    .get(w.file as usize)
                    .map(|p| p.display().to_string())
                    .unwrap_or_default()
            });
        }
        self.check(buf, w.file as usize, w.offset, self.expect_of(w))
    }

    fn expect_of(&self, w: &Written) -> Expect {
        Expect {
            seed: (self.check_seed && self.spec.pattern.is_none()).then_some(w.seed),
            numberio: self.spec.check_numberio.then_some(w.numberio),
            flags: 0x88,
        }
    }

    /// verify_only: walk the write workload without writing, to know which
    /// blocks to read back (fio's dry run).
    pub fn dry_run(
        &mut self,
        picker: &mut crate::run::offsets::picker::Picker,
        io_size: u64,
        st: &mut ThreadStats,
    ) {
        let mut io = IoUnit::new(std::ptr::null_mut());
        let mut bytes = 0u64;
        while (io_size == 0 || bytes < io_size) && picker.next(&mut io) {
            if io.kind != IoKind::Write {
                continue;
            }
            bytes += io.len as u64;
            // fio's dry run counts the writes it would have done (JSON
            // write io_bytes/total_ios), with no runtime.
            st.issued[1] += 1;
            st.dir[1].ios += 1;
            st.dir[1].io_bytes += io.len as u64;
            self.history.push(Written {
                offset: io.offset,
                seed: 0,
                file: io.file as u32,
                len: io.len as u32,
                numberio: 0,
                trimmed: trim::Trimmed::No,
                seq: self.history.len() as u32,
            });
        }
        // fio dry-runs and verifies once per loop: the same blocks again.
        // Then, as keep_running, more rounds while io_size is not reached
        // by a whole block, counting the dry run's writes and the reads.
        let (ios, bytes) = (st.dir[1].ios, st.dir[1].io_bytes);
        let mut rounds = self.loops.max(1);
        if io_size > 0 && bytes > 0 && self.spec.do_verify {
            let max_bs = self.scratch_len.max(1) as u64;
            while io_size.saturating_sub(rounds * 2 * bytes) >= max_bs {
                rounds += 1;
            }
        }
        self.loops = rounds;
        let more = rounds - 1;
        st.issued[1] += ios * more;
        st.dir[1].ios += ios * more;
        st.dir[1].io_bytes += bytes * more;
    }

    /// Keep verify_backlog reads and trim verify's trims for the job's
    /// per-I/O logs (fio logs them as reads and trims).
    pub fn log_backlog(&mut self) {
        if self.spec.backlog > 0 || self.trim.is_some() {
            self.backlog_reads = Some(Vec::new());
        }
    }

    /// [`Self::completed`], then the backlog reads that came with it
    /// logged as reads into `logs` (their time 0 from `base_ns`, asked only
    /// when there are some).
    #[inline]
    pub fn completed_and_logged(
        &mut self,
        idx: usize,
        io: &IoUnit,
        st: &mut ThreadStats,
        logs: Option<&mut crate::run::logs::job_logs::Logs>,
        base_ns: impl FnOnce() -> u64,
        per_io_rates: (bool, bool),
    ) -> Result<(), Mismatch> {
        let checked = self.completed(idx, io, st);
        if self.backlog_logged() {
            let mut log = ReadLog {
                logs,
                base_ns: base_ns(),
                per_io_rates,
                iolog: None,
            };
            self.flush_backlog_log(&mut log, st);
        }
        checked
    }

    /// Whether backlog reads wait to be logged.
    #[inline]
    pub fn backlog_logged(&self) -> bool {
        self.backlog_reads.as_ref().is_some_and(|l| !l.is_empty())
    }

    /// Log the waiting backlog reads as reads.
    #[cold]
    pub fn flush_backlog_log(&mut self, log: &mut ReadLog<'_>, st: &mut ThreadStats) {
        let Some(reads) = self.backlog_reads.as_mut() else {
            return;
        };
        for &(file, offset, bytes, end_ns, lat, kind) in reads.iter() {
            let mut io = IoUnit::new(std::ptr::null_mut());
            io.kind = kind;
            io.file = file;
            io.offset = offset;
            io.len = bytes as usize;
            io.result = bytes as i64;
            log.read(st, &io, end_ns, (lat, lat), 0);
        }
        reads.clear();
    }

    /// Time spent in verify phases so far.
    pub fn spent_ns(&self) -> u64 {
        self.spent_ns
    }

    /// Whether a verify phase follows the write pass.
    pub fn wants_pass(&self) -> bool {
        // fio skips it with do_verify=0, verify_only too (no dry-run log).
        self.spec.do_verify && self.checked < self.history.len()
    }

    /// The bytes read back once this round's verify phase is done (those
    /// read so far and, with do_verify, the written blocks not yet
    /// checked), and the I/Os that phase will read. fio's keep_running
    /// weighs them with the job's own I/O against io_size and number_ios
    /// before it starts another round.
    pub fn reads_after_round(&self) -> (u64, u64) {
        if !self.spec.do_verify {
            return (self.tally.read_bytes, 0);
        }
        let checked = self.history.get(..self.checked).unwrap_or_default();
        let checked_bytes: u64 = checked.iter().map(|w| u64::from(w.len)).sum();
        let bytes = self
            .tally
            .sealed_bytes
            .saturating_sub(self.tally.consumed_bytes + checked_bytes);
        let ios = self
            .writes
            .saturating_sub(self.tally.consumed_ios + checked.len() as u64);
        (self.tally.read_bytes + bytes, ios)
    }

    /// Backlog reads done since the last call.
    #[inline]
    pub fn take_backlog_ios(&mut self) -> u64 {
        std::mem::take(&mut self.tally.backlog_ios)
    }

    /// fio's verify phase: read back every remaining written block through
    /// the job's engine, at its depth, and check each as it completes.
    pub fn final_pass(
        &mut self,
        engine: &mut dyn crate::engine::Engine,
        units: &mut [IoUnit],
        sync_engine: bool,
        st: &mut ThreadStats,
        log: &mut ReadLog<'_>,
    ) -> Result<(), pass::PassError> {
        if let Some(note) = self.trim.as_mut().and_then(trim::TrimVerify::pass_ended) {
            // fio's message as its write pass ends, before the report.
            st.dumped
                .push(crate::stats::IoError::at_site(0, "", "", note));
        }
        let mut list = std::mem::take(&mut self.history);
        self.tally.consumed_bytes = self.tally.sealed_bytes;
        self.tally.consumed_ios = self.writes;
        list.drain(..self.checked.min(list.len()));
        // A read-write job's verify expects the seeds again in write order
        // (fio draws them anew from its verify state, read by read): where
        // fio reads its writes back by offset, the k-th read wants the k-th
        // write's seed, and fails when that block holds another.
        let seeds: Option<Vec<u64>> =
            (self.check_seed && self.overlaps).then(|| issue_order_seeds(&list));
        if self.overlaps {
            // Later writes of a block replace earlier ones (fio's rbtree).
            list.sort_by_key(|w| (w.file, w.offset));
            let mut kept: Vec<Written> = Vec::with_capacity(list.len());
            for w in list {
                match kept.last_mut() {
                    Some(k) if k.file == w.file && k.offset == w.offset => *k = w,
                    _ => kept.push(w),
                }
            }
            list = kept;
        }
        // trim_verify_zero=0: trimmed blocks are not read back (nor the
        // writes they replaced).
        list.retain(|w| w.trimmed != trim::Trimmed::Dropped);
        if let Some(seeds) = seeds {
            for (w, seed) in list.iter_mut().zip(seeds) {
                w.seed = seed;
            }
        }
        let t0 = rbench_common::clock::now_ns();
        // verify_only: one verify phase per loop, over the same blocks.
        let rounds = if self.only() { self.loops.max(1) } else { 1 };
        let read0 = st.dir[0].io_bytes;
        let mut r = Ok(());
        for _ in 0..rounds {
            r = pass::run(self, &list, engine, units, sync_engine, st, log);
            if r.is_err() {
                break;
            }
        }
        self.checked = 0;
        self.tally.read_bytes += st.dir[0].io_bytes.saturating_sub(read0);
        self.spent_ns += rbench_common::clock::now_ns().saturating_sub(t0);
        r
    }
}

/// The seeds of `list` (completed writes, in completion order) in the
/// order the writes were issued, the order fio drew them from its verify
/// state: at depth > 1 a write may complete before one issued earlier.
/// Sequence numbers wrap; a pass holds far fewer than 2^31 writes, so
/// their distance from the first one orders them.
fn issue_order_seeds(list: &[Written]) -> Vec<u64> {
    let base = list.first().map_or(0, |w| w.seq);
    let mut by_issue: Vec<(i32, u64)> = list
        .iter()
        .map(|w| (w.seq.wrapping_sub(base) as i32, w.seed))
        .collect();
    by_issue.sort_unstable_by_key(|x| x.0);
    by_issue.into_iter().map(|x| x.1).collect()
}

/// Whether fio keeps the job's writes in a list in write order (its files
/// have a random map: log_io_piece) rather than a tree by offset, where a
/// block written again replaces its older entry (sequential jobs,
/// norandommap, lfsr, a zipf/pareto/normal distribution). Each loop and
/// io_size round is verified before the next, so only writes within one
/// (zones that wrap, norandommap) meet twice: on a list, fio reads the
/// older one back and fails on the newer header.
fn random_map(job: &Job) -> bool {
    use crate::job::distribution::Distribution as D;
    job.pattern.random
        && !job.rand.norandommap
        && matches!(
            job.rand.random_distribution,
            D::Uniform | D::Zoned(_) | D::ZonedAbs(_)
        )
        && job.opts.choice("random_generator").0 != "lfsr"
}

/// Bytes per header: the interval, or the whole block when it is smaller.
fn hdr_inc(interval: usize, len: usize) -> usize {
    if interval > 0 && interval <= len {
        interval
    } else {
        len.max(1)
    }
}

/// fio's memswp of the header and the bytes at verify_offset. Copies in
/// fio's order, so overlapping ranges (offset below the header size) end
/// up as fio leaves them.
fn swap_header(chunk: &mut [u8], at: usize, len: usize) {
    if at + len > chunk.len() || len > 200 {
        return;
    }
    let mut saved = [0u8; 200];
    saved[..len].copy_from_slice(&chunk[..len]);
    chunk.copy_within(at..at + len, 0);
    chunk[at..at + len].copy_from_slice(&saved[..len]);
}

/// A verify read in the job's read statistics (fio reports them there).
fn record_read(st: &mut ThreadStats, bytes: u64, clat_ns: u64, lat_ns: u64) {
    let d = &mut st.dir[0];
    d.ios += 1;
    d.io_bytes += bytes;
    d.clat.record(clat_ns);
    d.lat.record(lat_ns);
    st.issued[0] += 1;
}

impl Mismatch {
    /// The job's error: EILSEQ from fio's completion path, with the
    /// verify lines printed before fio's `err=84` line.
    pub fn into_io_error(self, sync_engine: bool) -> crate::stats::IoError {
        if self.errno != 0 {
            // A trim of trim verify failed: the job's failed trim.
            return crate::stats::IoError {
                errno: self.errno,
                kind: IoKind::Trim,
                offset: self.offset,
                len: self.len,
                file: self.file,
                site: None,
            };
        }
        let (at, func) = if sync_engine {
            ("io_u.c:2152", "io_u_sync_complete")
        } else {
            ("io_u.c:2190", "io_u_queued_complete")
        };
        crate::stats::IoError {
            errno: libc::EILSEQ,
            kind: IoKind::Read,
            offset: self.offset,
            len: self.len,
            file: self.file,
            site: Some(Box::new(crate::stats::Site {
                at,
                func,
                note: self.report,
            })),
        }
    }
}

impl PassError {
    pub fn into_io_error(self, sync_engine: bool) -> crate::stats::IoError {
        match self {
            PassError::Mismatch(m) => m.into_io_error(sync_engine),
            PassError::Io {
                errno,
                file,
                offset,
                len,
            } => crate::stats::IoError {
                errno,
                kind: IoKind::Read,
                offset,
                len,
                file,
                site: None,
            },
        }
    }
}

/// fio's runtimes per direction with a verify phase (backend.c): the
/// write (and trim) runtime is the I/O phase alone, the read runtime adds
/// the verify phase to the job's own reads; verify_only has no write
/// runtime. `total_ns` spans both phases.
pub fn phase_runtimes(st: &mut ThreadStats, job: &Job, total_ns: u64, verify_ns: u64) {
    let main_us = total_ns.saturating_sub(verify_ns).div_ceil(1000);
    let verify_us = verify_ns.div_ceil(1000);
    let only = job.verify.as_ref().is_some_and(|s| s.only);
    for (d, ds) in st.dir.iter_mut().enumerate() {
        if ds.runtime_ms == 0 {
            continue;
        }
        ds.runtime_ms = match d {
            0 if job.pattern.read && ds.ios > 0 => (main_us + verify_us).div_ceil(1000),
            0 => verify_us.div_ceil(1000),
            1 if only => 0,
            _ => main_us.div_ceil(1000),
        };
    }
}

/// Prepare a write's buffer: verifiable contents when verifying, else
/// the buffer options' refill or scramble. Called only when one is on.
#[inline]
pub fn prepare_write(
    idx: usize,
    io: &IoUnit,
    fill: &mut Filler,
    v: Option<&mut Verifier<'_>>,
    now_ns: u64,
) {
    match v {
        Some(v) => v.seal(idx, io, fill),
        None => {
            // SAFETY: the unit's buffer holds at least `len` bytes.
            let buf = unsafe { std::slice::from_raw_parts_mut(io.buf, io.len) };
            fill.on_write(buf, io.offset, now_ns);
        }
    }
}

#[cfg(test)]
mod tests;
