//! fio's log files (`write_bw_log`, `write_lat_log`, `write_iops_log`, §10):
//! per-I/O rows, or one row per direction per `log_avg_msec` window. Rows
//! are kept as numbers during the run (storage reserved up front) and
//! written as text after the job ends.

use crate::job::Job;
use std::io::Write;

/// One row: time (ms), value, direction, block size, offset.
#[derive(Debug, Clone, Copy)]
pub struct Row {
    pub t_ms: u64,
    pub value: u64,
    pub ddir: u8,
    pub bs: u64,
    pub offset: u64,
}

/// Which logs a job writes.
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

#[derive(Debug, Default, Clone, Copy)]
struct Window {
    sum: [u128; 3],
    n: [u64; 3],
}

/// The logs of one job thread.
pub struct Logs {
    /// (kind, file prefix, rows).
    logs: Vec<(Kind, String, Vec<Row>)>,
    pub avg_ms: u64,
    windows: [Window; 5],
    bytes: [u64; 3],
    window_start_ms: u64,
}

const KINDS: [Kind; 5] = [Kind::Bw, Kind::Iops, Kind::Lat, Kind::Clat, Kind::Slat];

impl Logs {
    pub fn new(job: &Job) -> Option<Logs> {
        let mut logs = Vec::new();
        let per_io = job.log_avg_ms == 0;
        let cap = if per_io { 1 << 16 } else { 64 };
        let prefix = |p: &String| {
            if p.is_empty() {
                job.name.clone()
            } else {
                p.clone()
            }
        };
        if let Some(p) = &job.write_bw_log {
            logs.push((Kind::Bw, prefix(p), Vec::with_capacity(cap)));
        }
        if let Some(p) = &job.write_iops_log {
            logs.push((Kind::Iops, prefix(p), Vec::with_capacity(cap)));
        }
        if let Some(p) = &job.write_lat_log {
            for k in [Kind::Lat, Kind::Clat, Kind::Slat] {
                logs.push((k, prefix(p), Vec::with_capacity(cap)));
            }
        }
        (!logs.is_empty()).then_some(Logs {
            logs,
            avg_ms: job.log_avg_ms,
            windows: [Window::default(); 5],
            bytes: [0; 3],
            window_start_ms: 0,
        })
    }

    /// Whether per-I/O (bw, iops) rows replace the summary samples.
    pub fn per_io_rates(&self) -> (bool, bool) {
        let has = |k: Kind| self.avg_ms == 0 && self.logs.iter().any(|l| l.0 == k);
        (has(Kind::Bw), has(Kind::Iops))
    }

    fn slot(k: Kind) -> usize {
        KINDS.iter().position(|&x| x == k).unwrap_or(0)
    }

    /// One completed I/O (latencies in ns; slat 0 when there is none).
    pub fn io(&mut self, t_ms: u64, d: usize, bs: u64, offset: u64, lat: (u64, u64, u64)) {
        let (slat, clat, total) = lat;
        if self.avg_ms == 0 {
            for (k, _, rows) in &mut self.logs {
                let value = match k {
                    Kind::Bw => bs * 1_000_000 / clat.max(1),
                    Kind::Iops => 1,
                    Kind::Lat => total,
                    Kind::Clat => clat,
                    Kind::Slat if slat > 0 => slat,
                    Kind::Slat => continue,
                };
                rows.push(Row {
                    t_ms,
                    value,
                    ddir: d as u8,
                    bs,
                    offset,
                });
            }
            return;
        }
        self.bytes[d] += bs;
        for (k, v) in [(Kind::Lat, total), (Kind::Clat, clat), (Kind::Slat, slat)] {
            if v > 0 || k != Kind::Slat {
                let w = &mut self.windows[Self::slot(k)];
                w.sum[d] += u128::from(v);
                w.n[d] += 1;
            }
        }
        self.windows[Self::slot(Kind::Iops)].n[d] += 1;
        if t_ms >= self.window_start_ms + self.avg_ms {
            self.flush(self.window_start_ms + self.avg_ms, false);
        }
    }

    /// Close the current window at `t_ms` (also the final partial one).
    pub fn flush(&mut self, t_ms: u64, last: bool) {
        if self.avg_ms == 0 {
            return;
        }
        let span = (t_ms - self.window_start_ms).max(1);
        for (k, _, rows) in &mut self.logs {
            let w = self.windows[Self::slot(*k)];
            for d in 0..3 {
                let value = match k {
                    Kind::Bw if self.bytes[d] > 0 => self.bytes[d] * 1000 / span / 1024,
                    Kind::Iops if w.n[d] > 0 => w.n[d] * 1000 / span,
                    Kind::Lat | Kind::Clat | Kind::Slat if w.n[d] > 0 => {
                        ((w.sum[d] + u128::from(w.n[d]) / 2) / u128::from(w.n[d])) as u64
                    }
                    _ => continue,
                };
                rows.push(Row {
                    t_ms,
                    value,
                    ddir: d as u8,
                    bs: 0,
                    offset: 0,
                });
            }
        }
        self.windows = [Window::default(); 5];
        self.bytes = [0; 3];
        self.window_start_ms = if last {
            t_ms
        } else {
            t_ms.max(self.window_start_ms + self.avg_ms)
        };
    }

    /// Write every log as fio names it: `PREFIX_TYPE.N.log` (no `.N` with
    /// per_job_logs=0).
    pub fn write(&self, job: &Job) -> std::io::Result<()> {
        for (k, prefix, rows) in &self.logs {
            let name = if job.per_job_logs {
                format!("{prefix}_{}.{}.log", k.word(), job.number)
            } else {
                format!("{prefix}_{}.log", k.word())
            };
            let mut f = std::io::BufWriter::new(std::fs::File::create(&name)?);
            for r in rows {
                if job.log_offset {
                    writeln!(
                        f,
                        "{}, {}, {}, {}, {}, 0",
                        r.t_ms, r.value, r.ddir, r.bs, r.offset
                    )?;
                } else {
                    writeln!(f, "{}, {}, {}, {}, 0", r.t_ms, r.value, r.ddir, r.bs)?;
                }
            }
            f.flush()?;
        }
        Ok(())
    }
}
