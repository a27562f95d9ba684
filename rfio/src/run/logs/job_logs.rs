//! fio's log files (§10): `write_bw_log`, `write_iops_log`, `write_lat_log`
//! (lat, slat, clat) and `write_hist_log` (clat_hist), plus the trace that
//! `--plot` draws. Rows are kept as numbers during the run (storage
//! reserved up front, histogram counters allocated once) and written as
//! text after the job ends, as fio does.
//!
//! Per-I/O rows carry the transfer's size, offset and priority. With
//! `log_avg_msec` each direction has its own window: a latency window is
//! closed by the first I/O that completes `log_avg_msec` or more after the
//! window began (row time = that I/O's time, window start rounded down to a
//! multiple of the period); bw/iops windows are fed by the bw/iops sampler
//! (`sampler.rs`) and close one millisecond early (fio's LOG_MSEC_SLACK).
//! The job's end closes every window that holds samples.

use crate::job::Job;
use crate::run::logs::trace::Trace;
use crate::stats::ThreadStats;
use rbench_common::histogram::{bucket_index, NR_BUCKETS};
use std::io::Write;

/// The kinds of value logs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Bw,
    Iops,
    Lat,
    Clat,
    Slat,
}

impl Kind {
    fn word(self) -> &'static str {
        match self {
            Kind::Bw => "bw",
            Kind::Iops => "iops",
            Kind::Lat => "lat",
            Kind::Clat => "clat",
            Kind::Slat => "slat",
        }
    }
}

/// One row: time (ms), value, direction, block size, offset, priority
/// (fio's sample record).
type Row = crate::run::logs::logzip::Record;

/// fio's averaging window (`avg_window`): mean rounded half up, or max.
#[derive(Debug, Default, Clone, Copy)]
struct Window {
    sum: u128,
    n: u64,
    max: u64,
}

/// One value log file.
struct ValueLog {
    kind: Kind,
    path: String,
    /// 0: one row per I/O.
    avg_ms: u64,
    /// Fed per I/O (fio's per_unit_log): every latency log, and bw/iops
    /// logs without log_avg_msec or with log compression.
    unit: bool,
    rows: Vec<Row>,
    /// Rows handed to the log_compression packer so far.
    packed: u64,
    win: [Window; 3],
    /// Start of each direction's current window (fio's `avg_last`).
    last: [u64; 3],
}

impl ValueLog {
    /// Add a sample to the direction's window; close the window once it
    /// spans `avg_ms` (less `slack`).
    fn sample(&mut self, t_ms: u64, d: usize, v: u64, slack: u64, log_max: bool) {
        let w = &mut self.win[d];
        w.sum += u128::from(v);
        w.n += 1;
        w.max = w.max.max(v);
        if t_ms < self.last[d] || t_ms - self.last[d] + slack < self.avg_ms {
            return;
        }
        self.close(d, t_ms, log_max);
        self.last[d] = t_ms - t_ms % self.avg_ms;
    }

    fn close(&mut self, d: usize, t_ms: u64, log_max: bool) {
        let w = std::mem::take(&mut self.win[d]);
        if w.n == 0 {
            return;
        }
        let value = if log_max {
            w.max
        } else {
            ((w.sum + u128::from(w.n / 2)) / u128::from(w.n)) as u64
        };
        self.rows.push(Row {
            t_ms,
            value,
            ddir: d as u8,
            bs: 0,
            offset: 0,
            prio: 0,
        });
    }
}

/// One row of the histogram log: its non-zero buckets are
/// `cells[start..start + len]`.
struct HistRow {
    t_ms: u64,
    ddir: u8,
    bs: u64,
    start: usize,
    len: usize,
}

/// `write_hist_log`: clat bucket counts per direction since the previous
/// row of that direction, every `log_hist_msec`.
struct HistLog {
    path: String,
    every_ms: u64,
    coarseness: u32,
    /// Counts since the last row, NR_BUCKETS per direction.
    counts: Vec<u64>,
    /// fio's `hist_last` per direction (0: not started).
    last: [u64; 3],
    /// Count clat buckets (fio fills them only with clat_percentiles).
    counting: bool,
    rows: Vec<HistRow>,
    cells: Vec<(u16, u64)>,
}

impl HistLog {
    /// Hot path when on: one increment and a compare per I/O.
    #[inline]
    fn io(&mut self, t_ms: u64, d: usize, bs: u64, clat: u64) {
        if self.counting {
            self.counts[d * NR_BUCKETS + bucket_index(clat)] += 1;
        }
        if self.every_ms == 0 {
            return;
        }
        if self.last[d] == 0 {
            self.last[d] = t_ms;
        }
        let window = t_ms.saturating_sub(self.last[d]);
        if window >= self.every_ms {
            self.row(t_ms, d, bs);
            // Keep the drift: the next window starts where this one should
            // have ended.
            self.last[d] = t_ms - (window - self.every_ms);
        }
    }

    /// Cold: once per log_hist_msec.
    #[cold]
    fn row(&mut self, t_ms: u64, d: usize, bs: u64) {
        let start = self.cells.len();
        let counts = &mut self.counts[d * NR_BUCKETS..(d + 1) * NR_BUCKETS];
        for (i, c) in counts.iter_mut().enumerate() {
            if *c > 0 {
                self.cells.push((i as u16, std::mem::take(c)));
            }
        }
        self.rows.push(HistRow {
            t_ms,
            ddir: d as u8,
            bs,
            start,
            len: self.cells.len() - start,
        });
    }

    /// fio's `flush_hist_samples`: groups of 2^coarseness buckets summed;
    /// the last group always ends at the last bucket (with a coarseness
    /// that does not divide 1856 it overlaps the one before, as in fio).
    fn write(&self, f: &mut impl Write, epoch_ms: u64) -> std::io::Result<()> {
        let stride = 1usize << self.coarseness.min(10);
        let mut dense = vec![0u64; NR_BUCKETS];
        let mut line = String::with_capacity(NR_BUCKETS * 3);
        for r in &self.rows {
            dense.iter_mut().for_each(|c| *c = 0);
            for &(i, c) in &self.cells[r.start..r.start + r.len] {
                dense[usize::from(i)] = c;
            }
            line.clear();
            let sum = |j: usize| -> u64 { dense[j..j + stride].iter().sum() };
            let last = NR_BUCKETS.saturating_sub(stride);
            use std::fmt::Write as _;
            let _ = write!(line, "{}, {}, {}, ", r.t_ms + epoch_ms, r.ddir, r.bs);
            let mut j = 0;
            while j < last {
                let _ = write!(line, "{}, ", sum(j));
                j += stride;
            }
            let _ = writeln!(line, "{}", dense[last..].iter().sum::<u64>());
            f.write_all(line.as_bytes())?;
        }
        Ok(())
    }
}

/// fio's gtod_reduce(): the option, or every measurement disabled.
fn gtod_reduce(job: &Job) -> bool {
    job.opts.flag("gtod_reduce")
        || (job.reporting.disable_clat
            && job.reporting.disable_slat
            && job.opts.flag("disable_bw_measurement"))
}

/// log_compression or log_store_compressed: fio's per_unit_log then
/// holds for every log, averaged or not.
fn compressed(job: &Job) -> bool {
    job.logs.log_gz > 0 || job.logs.log_gz_store
}

/// Whether the job's (bw, iops) logs are fed per I/O (a row per I/O, or
/// per-I/O values averaged with log compression): the bw/iops sampler then
/// leaves those windows out, as fio's helper does.
pub fn per_unit(job: &Job) -> (bool, bool) {
    let unit = job.logs.log_avg_ms == 0 || compressed(job);
    (
        job.logs.write_bw_log.is_some() && unit,
        job.logs.write_iops_log.is_some() && unit,
    )
}

/// Milliseconds of clock `id` (clock_gettime); 0 for a clock the system
/// does not have (fio prints an uninitialised value then).
fn clock_ms(id: i32) -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes into the timespec we own.
    if unsafe { libc::clock_gettime(id as libc::clockid_t, &mut ts) } != 0 {
        return 0;
    }
    ts.tv_sec as u64 * 1000 + ts.tv_nsec as u64 / 1_000_000
}

// --- h1: logs sent to a server's client ---

/// One value log a server sends its client (fio's IOLOG) instead of
/// writing it: its name, fio's log type, its rows as fio's sample records
/// (or, with log_store_compressed, the stored zlib streams).
#[derive(Debug)]
pub struct SentLog {
    pub name: String,
    pub log_type: u32,
    pub rows: u64,
    pub bytes: Vec<u8>,
    pub stored: bool,
}

static TO_CLIENT: std::sync::Mutex<Option<std::sync::mpsc::Sender<SentLog>>> =
    std::sync::Mutex::new(None);

/// From now on jobs' value logs go to `tx` instead of files (`--server`,
/// as fio's server sends them; histogram logs are still written here).
pub fn send_to_client(tx: std::sync::mpsc::Sender<SentLog>) {
    if let Ok(mut g) = TO_CLIENT.lock() {
        *g = Some(tx);
    }
}

fn client_sink() -> Option<std::sync::mpsc::Sender<SentLog>> {
    TO_CLIENT.lock().ok().and_then(|g| g.clone())
}

impl Kind {
    /// fio's IO_LOG_TYPE_* number.
    fn log_type(self) -> u32 {
        match self {
            Kind::Lat => 1,
            Kind::Clat => 2,
            Kind::Slat => 3,
            Kind::Bw => 4,
            Kind::Iops => 5,
        }
    }
}

/// The logs (and `--plot` trace) of one job thread.
pub struct Logs {
    values: Vec<ValueLog>,
    hist: Option<HistLog>,
    /// Whether the job loop must call [`Logs::io`] for every I/O.
    pub per_io: bool,
    log_max: bool,
    log_offset: bool,
    log_prio: bool,
    /// log_store_compressed: write `.fz` files, first chunk this many rows.
    store: Option<u64>,
    /// log_compression: full chunks of rows go compressed to this packer.
    packer: Option<crate::run::logs::logpack::Packer>,
    /// Rows per packed chunk (usize::MAX: no packing).
    pack_rows: usize,
    /// log_unix_epoch / log_alternate_epoch: the clock of time 0.
    epoch_clock: Option<i32>,
    append: bool,
    /// fio skips per-I/O bw samples with disable_bw_measurement and
    /// per-I/O iops samples under gtod_reduce (account_io_completion).
    bw_off: bool,
    iops_off: bool,
    /// The job's I/O priority value (class << 13 | level), for log_prio.
    ioprio: u16,
    /// The epoch clock's ms at time 0, found at the end.
    epoch_ms: u64,
    pub trace: Option<Trace>,
}

impl Logs {
    pub fn new(job: &Job) -> Option<Logs> {
        // An empty prefix stands for the job name (fio's make_log_name).
        // log_store_compressed: fio's `.log.fz`.
        let suffix = if job.logs.log_gz_store {
            "log.fz"
        } else {
            "log"
        };
        let name = |p: &str, word: &str| {
            let prefix = if p.is_empty() { job.name.as_str() } else { p };
            if job.logs.per_job_logs {
                format!("{prefix}_{word}.{}.{suffix}", job.number)
            } else {
                format!("{prefix}_{word}.{suffix}")
            }
        };
        let compressed = compressed(job);
        let mut values = Vec::new();
        let mut add = |kind: Kind, path: String, avg_ms: u64| {
            let cap = if avg_ms == 0 { 1 << 14 } else { 64 };
            let unit = avg_ms == 0 || compressed || !matches!(kind, Kind::Bw | Kind::Iops);
            values.push(ValueLog {
                kind,
                path,
                avg_ms,
                unit,
                rows: Vec::with_capacity(cap),
                packed: 0,
                win: [Window::default(); 3],
                last: [0; 3],
            });
        };
        // bw/iops average over min(log_avg_msec, bwavgtime/iopsavgtime):
        // job.rs already made the period log_avg_msec unless it was set.
        let avg = job.logs.log_avg_ms;
        if let Some(p) = &job.logs.write_bw_log {
            add(Kind::Bw, name(p, "bw"), avg.min(job.reporting.bwavgtime_ms));
        }
        if let Some(p) = &job.logs.write_iops_log {
            add(
                Kind::Iops,
                name(p, "iops"),
                avg.min(job.reporting.iopsavgtime_ms),
            );
        }
        if let Some(p) = &job.logs.write_lat_log {
            // fio's order: lat, slat, clat, each unless disabled.
            for (k, off) in [
                (Kind::Lat, job.reporting.disable_lat),
                (Kind::Slat, job.reporting.disable_slat),
                (Kind::Clat, job.reporting.disable_clat),
            ] {
                if !off {
                    add(k, name(p, k.word()), avg);
                }
            }
        }
        let hist = job.logs.write_hist_log.as_ref().map(|p| HistLog {
            path: name(p, "clat_hist"),
            every_ms: job.logs.log_hist_ms,
            coarseness: job.logs.log_hist_coarseness,
            counts: vec![0; 3 * NR_BUCKETS],
            last: [0; 3],
            counting: job.reporting.clat_percentiles,
            rows: Vec::with_capacity(64),
            cells: Vec::new(),
        });
        let trace = job.plot.then(|| Trace::new(job));
        if values.is_empty() && hist.is_none() && trace.is_none() {
            return None;
        }
        let per_io = hist.as_ref().is_some_and(|_| !job.reporting.disable_clat)
            || values.iter().any(|l| l.unit);
        let packer = (job.logs.log_gz > 0).then(|| {
            crate::run::logs::logpack::Packer::new(
                job.logs.log_gz,
                job.logs.log_offset,
                job.logs.log_gz_cpus.as_deref(),
            )
        });
        Some(Logs {
            values,
            hist,
            per_io,
            log_max: job.logs.log_max_value,
            log_offset: job.logs.log_offset,
            log_prio: job.logs.log_prio,
            store: job.logs.log_gz_store.then_some(job.logs.log_entries),
            pack_rows: packer.as_ref().map_or(usize::MAX, |p| p.rows),
            packer,
            epoch_clock: job.logs.log_epoch_clock,
            bw_off: job.opts.flag("disable_bw_measurement") || gtod_reduce(job),
            iops_off: gtod_reduce(job),
            append: !job.logs.per_job_logs,
            ioprio: crate::run::placement::ioprio_value(job.prioclass, job.prio)
                .map_or(0, |v| v as u16),
            epoch_ms: 0,
            trace,
        })
    }

    /// Whether the summary gets per-I/O (bw, iops) samples: fio samples
    /// per I/O when their log is not averaged (§4), unless measuring is off.
    pub fn per_io_rates(&self) -> (bool, bool) {
        let has = |k: Kind| self.values.iter().any(|l| l.kind == k && l.unit);
        (
            has(Kind::Bw) && !self.bw_off,
            has(Kind::Iops) && !self.iops_off,
        )
    }

    /// One completed I/O: `since_ns` since the job's start, latencies in
    /// ns (slat 0 when the engine completed it at submission).
    /// [`Logs::io`] for an I/O with its own priority (cmdprio): fio logs
    /// each I/O's priority.
    pub fn io_at_prio(&mut self, prio: u16, at: (u64, usize, u64, u64), lat: (u64, u64, u64)) {
        let job_prio = std::mem::replace(&mut self.ioprio, prio);
        self.io(at.0, at.1, at.2, at.3, lat);
        self.ioprio = job_prio;
    }

    pub fn io(&mut self, since_ns: u64, d: usize, bs: u64, offset: u64, lat: (u64, u64, u64)) {
        let (slat, clat, total) = lat;
        let t_ms = since_ns / 1_000_000;
        let prio = self.ioprio;
        let log_max = self.log_max;
        let (bw_off, iops_off) = (self.bw_off, self.iops_off);
        let pack_rows = self.pack_rows;
        let mut full = false;
        for l in &mut self.values {
            let (value, t_ms) = match l.kind {
                Kind::Lat => (total, t_ms),
                Kind::Clat => (clat, t_ms),
                // fio logs slat at submission time.
                Kind::Slat if slat > 0 => (slat, since_ns.saturating_sub(clat) / 1_000_000),
                Kind::Slat => continue,
                // fio: bytes·10^6/clat, 0 when clat is 0.
                Kind::Bw if l.unit && !bw_off => {
                    ((bs * 1_000_000).checked_div(clat).unwrap_or(0), t_ms)
                }
                Kind::Iops if l.unit && !iops_off => (1, t_ms),
                Kind::Bw | Kind::Iops => continue,
            };
            if l.avg_ms == 0 {
                l.rows.push(Row {
                    t_ms,
                    value,
                    ddir: d as u8,
                    bs,
                    offset,
                    prio,
                });
            } else {
                l.sample(t_ms, d, value, 0, log_max);
            }
            full |= l.rows.len() >= pack_rows;
        }
        if full {
            self.pack();
        }
        if let Some(h) = &mut self.hist {
            h.io(t_ms, d, bs, clat);
        }
    }

    /// log_compression: hand each full chunk of rows to the packer. Cold.
    #[cold]
    fn pack(&mut self) {
        let Some(p) = self.packer.as_mut() else {
            return;
        };
        for (i, l) in self.values.iter_mut().enumerate() {
            if l.rows.len() >= self.pack_rows {
                let rows = std::mem::replace(&mut l.rows, Vec::with_capacity(self.pack_rows));
                l.packed += rows.len() as u64;
                p.send(i, rows);
            }
        }
    }

    /// An averaged bw (KiB/s) or iops sample from the sampler. Cold.
    pub fn rate(&mut self, kind: Kind, t_ms: u64, d: usize, value: u64) {
        let log_max = self.log_max;
        for l in &mut self.values {
            if l.kind == kind && !l.unit {
                // fio's LOG_MSEC_SLACK for logs fed by its helper thread.
                l.sample(t_ms, d, value, 1, log_max);
            }
        }
    }

    /// The job ended at `t_ms`: close every window, finish the trace.
    pub fn finish(&mut self, t_ms: u64, st: &ThreadStats) {
        let log_max = self.log_max;
        for l in &mut self.values {
            if l.avg_ms > 0 {
                for d in 0..3 {
                    l.close(d, t_ms, log_max);
                }
            }
        }
        if let Some(clock) = self.epoch_clock {
            self.epoch_ms = clock_ms(clock).saturating_sub(t_ms);
        }
        if let Some(t) = &mut self.trace {
            t.finish(t_ms, st);
        }
    }

    /// Write every log as fio names it (`PREFIX_TYPE.N.log`, no `.N` with
    /// per_job_logs=0, which appends as fio does) and hand the trace to
    /// the plot. Logs without rows are written empty, as in fio. A log that
    /// cannot be written is fio's `fopen log: <error>` line (the others are
    /// still written); the lines are returned.
    pub fn write(mut self) -> Option<String> {
        if let Some(t) = self.trace.take() {
            crate::run::logs::trace::collect(t);
        }
        // fio locks each log file while writing: clones that share one
        // (per_job_logs=0) append whole logs, never interleaved rows.
        static WRITING: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let _guard = WRITING.lock().unwrap_or_else(|e| e.into_inner());
        let mut errors = String::new();
        // log_compression: the packed chunks come first, then what is left.
        let packed = match self.packer.as_mut() {
            Some(p) => p.finish(self.values.len()),
            None => Vec::new(),
        };
        let sink = client_sink();
        for (i, l) in self.values.iter().enumerate() {
            let chunks = packed.get(i).map_or(&[][..], Vec::as_slice);
            let rows = || {
                chunks
                    .iter()
                    .flat_map(|c| crate::run::logs::logpack::unpack(c))
                    .chain(l.rows.iter().copied())
            };
            if let Some(tx) = &sink {
                let _ = tx.send(self.sent_log(l, rows()));
                continue;
            }
            let r = self.write_file(&l.path, |f| match self.store {
                Some(first) => self.store_rows(f, rows(), first),
                None => rows().try_for_each(|r| self.write_row(f, &r)),
            });
            errors.extend(r.err());
        }
        if let Some(h) = &self.hist {
            let r = self.write_file(&h.path, |f| match self.store {
                // fio stores pointers here; rfio stores the text.
                Some(first) => {
                    let mut text = Vec::new();
                    h.write(&mut text, self.epoch_ms)?;
                    crate::run::logs::logzip::store_text(f, &text, self.regrown(first))
                }
                None => h.write(f, self.epoch_ms),
            });
            errors.extend(r.err());
        }
        (!errors.is_empty()).then_some(errors)
    }

    /// (time, value, direction) of a log's rows, for tests.
    #[cfg(test)]
    pub fn rows(&self, kind: Kind) -> Vec<(u64, u64, u8)> {
        self.values
            .iter()
            .filter(|l| l.kind == kind)
            .flat_map(|l| l.rows.iter().map(|r| (r.t_ms, r.value, r.ddir)))
            .collect()
    }

    /// One log file: fio's message when it cannot be written.
    fn write_file(
        &self,
        path: &str,
        body: impl FnOnce(&mut std::io::BufWriter<std::fs::File>) -> std::io::Result<()>,
    ) -> Result<(), String> {
        let reason = |e: std::io::Error| {
            let errno = e.raw_os_error().unwrap_or(libc::EIO);
            format!("fopen log: {}\n", rbench_common::output::strerror(errno))
        };
        let mut f = std::io::BufWriter::new(self.open(path).map_err(reason)?);
        body(&mut f)
            .and_then(|()| f.flush())
            .map_err(|e| format!("fio: failed to write log file {path}: {e}\n"))
    }

    fn open(&self, path: &str) -> std::io::Result<std::fs::File> {
        std::fs::OpenOptions::new()
            .create(true)
            .write(true)
            .append(self.append)
            .truncate(!self.append)
            .open(path)
    }

    /// Whether fio would have given every log of the job a second chunk:
    /// one log outgrew its first (log_entries rows), so fio's regrow gave
    /// each log without rows an empty one (stored as an empty stream).
    fn regrown(&self, first: u64) -> bool {
        let len = |n: usize| n as u64 > first;
        self.values
            .iter()
            .any(|l| len(l.rows.len() + l.packed as usize))
            || self.hist.as_ref().is_some_and(|h| len(h.rows.len()))
    }

    /// log_store_compressed: fio's binary records in zlib chunks.
    fn store_rows(
        &self,
        f: &mut impl Write,
        rows: impl Iterator<Item = Row>,
        first: u64,
    ) -> std::io::Result<()> {
        let layout = crate::run::logs::logzip::Layout {
            offset: self.log_offset,
            prio: self.log_prio,
        };
        let records = rows.map(|r| crate::run::logs::logzip::Record {
            t_ms: r.t_ms + self.epoch_ms,
            ..r
        });
        crate::run::logs::logzip::store(f, records, layout, first, self.regrown(first))
    }

    /// A log as its client gets it: fio's sample records, or the stored
    /// streams with log_store_compressed.
    fn sent_log(&self, l: &ValueLog, rows: impl Iterator<Item = Row>) -> SentLog {
        let mut bytes = Vec::new();
        let mut n = 0u64;
        if let Some(first) = self.store {
            let _ = self.store_rows(&mut bytes, rows, first);
        } else {
            let layout = crate::run::logs::logzip::Layout {
                offset: self.log_offset,
                prio: self.log_prio,
            };
            for r in rows {
                let r = Row {
                    t_ms: r.t_ms + self.epoch_ms,
                    ..r
                };
                layout.put(&mut bytes, &r);
                n += 1;
            }
        }
        SentLog {
            name: l.path.clone(),
            log_type: l.kind.log_type(),
            rows: n,
            bytes,
            stored: self.store.is_some(),
        }
    }

    /// fio's `flush_samples` line: `time, value, ddir, bs[, offset], prio`;
    /// prio is 0/1 (real-time class) or `0x%04x` with log_prio.
    fn write_row(&self, f: &mut impl Write, r: &Row) -> std::io::Result<()> {
        write!(
            f,
            "{}, {}, {}, {}, ",
            r.t_ms + self.epoch_ms,
            r.value,
            r.ddir,
            r.bs
        )?;
        if self.log_offset {
            write!(f, "{}, ", r.offset)?;
        }
        if self.log_prio {
            writeln!(f, "0x{:04x}", r.prio)
        } else {
            writeln!(f, "{}", u8::from(r.prio >> 13 == 1))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::test_job as job;

    fn value_log(avg_ms: u64) -> ValueLog {
        ValueLog {
            kind: Kind::Clat,
            path: String::new(),
            avg_ms,
            unit: avg_ms == 0,
            rows: Vec::new(),
            packed: 0,
            win: [Window::default(); 3],
            last: [0; 3],
        }
    }

    #[test]
    fn windows_close_per_direction_at_the_io_that_ends_them() {
        let mut l = value_log(100);
        l.sample(10, 0, 3, 0, false);
        l.sample(50, 1, 7, 0, false);
        l.sample(99, 0, 4, 0, false);
        assert!(l.rows.is_empty());
        l.sample(103, 0, 5, 0, false);
        assert_eq!(l.rows.len(), 1);
        assert_eq!(
            (l.rows[0].t_ms, l.rows[0].value, l.rows[0].ddir),
            (103, 4, 0)
        );
        // The window restarts at 100, so 199 does not close it, 200 does.
        l.sample(199, 0, 1, 0, false);
        assert_eq!(l.rows.len(), 1);
        l.sample(200, 0, 1, 0, false);
        assert_eq!(l.rows.len(), 2);
        for d in 0..3 {
            l.close(d, 250, false);
        }
        assert_eq!(
            (l.rows[2].t_ms, l.rows[2].value, l.rows[2].ddir),
            (250, 7, 1)
        );
    }

    /// The lat, clat and iops logs of 1000 I/Os, written with `extra`.
    fn written(dir: &std::path::Path, tag: &str, extra: &[&str]) -> Vec<Vec<u8>> {
        let prefix = dir.join(tag).display().to_string();
        let (lat, iops) = (
            format!("--write_lat_log={prefix}"),
            format!("--write_iops_log={prefix}"),
        );
        let mut args = vec![lat.as_str(), iops.as_str(), "--log_offset=1"];
        args.extend_from_slice(extra);
        let mut logs = Logs::new(&job(&args)).expect("logs");
        for k in 0..1000u64 {
            let lat = (0, 1000 + k, 1000 + k);
            logs.io(k * 1_000_000, (k % 2) as usize, 4096, k * 4096, lat);
        }
        if extra.contains(&"--log_compression=1024") {
            // Every row went to the packer, in chunks of 25.
            let rows: Vec<(u64, usize)> = logs
                .values
                .iter()
                .filter(|l| l.kind != Kind::Slat)
                .map(|l| (l.packed, l.rows.len()))
                .collect();
            assert_eq!(rows, [(1000, 0); 3]);
        }
        logs.finish(1000, &ThreadStats::default());
        assert!(logs.write().is_none());
        let suffix = if extra.contains(&"--log_store_compressed=1") {
            "log.fz"
        } else {
            "log"
        };
        ["lat", "clat", "iops"]
            .iter()
            .map(|w| std::fs::read(format!("{prefix}_{w}.1.{suffix}")).expect("log"))
            .collect()
    }

    #[test]
    fn log_compression_packs_chunks_and_writes_the_same_text() {
        let dir = std::env::temp_dir().join(format!("rfio-logpack-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let plain = written(&dir, "a", &[]);
        assert_eq!(plain[0].iter().filter(|&&b| b == b'\n').count(), 1000);
        // 1024 bytes of 40-byte records: chunks of 25 rows.
        let packed = written(&dir, "b", &["--log_compression=1024"]);
        assert_eq!(plain, packed);
        let stored = written(
            &dir,
            "c",
            &["--log_compression=1024", "--log_store_compressed=1"],
        );
        for (p, s) in plain.iter().zip(&stored) {
            let (text, err) = crate::run::logs::logzip::inflate(s);
            assert!(err.is_none());
            assert_eq!(text.as_bytes(), &p[..]);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn log_max_value_keeps_the_largest_sample() {
        let mut l = value_log(10);
        l.sample(1, 0, 3, 0, true);
        l.sample(11, 0, 2, 0, true);
        assert_eq!(l.rows[0].value, 3);
    }

    #[test]
    fn hist_rows_hold_counts_since_the_previous_row() {
        let mut h = HistLog {
            path: String::new(),
            every_ms: 100,
            coarseness: 0,
            counts: vec![0; 3 * NR_BUCKETS],
            last: [0; 3],
            counting: true,
            rows: Vec::new(),
            cells: Vec::new(),
        };
        h.io(5, 0, 4096, 50);
        h.io(60, 0, 4096, 50);
        h.io(105, 0, 4096, 1000);
        h.io(150, 0, 4096, 50);
        h.io(210, 0, 4096, 50);
        assert_eq!(h.rows.len(), 2);
        let mut out = Vec::new();
        h.write(&mut out, 0).unwrap();
        let text = String::from_utf8(out).unwrap();
        let rows: Vec<Vec<u64>> = text
            .lines()
            .map(|l| l.split(", ").map(|v| v.parse().unwrap()).collect())
            .collect();
        assert_eq!(rows[0].len(), 3 + NR_BUCKETS);
        assert_eq!(rows[0][..3], [105, 0, 4096]);
        assert_eq!(rows[0][3..].iter().sum::<u64>(), 3);
        assert_eq!(rows[0][3 + 50], 2);
        assert_eq!(rows[1][3..].iter().sum::<u64>(), 2);
        h.coarseness = 7;
        let mut out = Vec::new();
        h.write(&mut out, 0).unwrap();
        let first = String::from_utf8(out).unwrap();
        let first = first.lines().next().unwrap();
        // fio 3.33 with log_hist_coarseness=7: 14 full groups plus the
        // overlapping last one.
        assert_eq!(first.split(", ").count(), 3 + 15);
    }
}
