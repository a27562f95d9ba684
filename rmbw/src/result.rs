//! What a measurement produced: one record per run and per average, plus
//! what was measured. Reports render these; nothing here prints.

use serde::Serialize;

/// One run, or the average of a test's runs (`run` = "AVG").
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Record {
    /// The label: MEMCPY, DUMB, MCBLOCK, COPY, SCALE, ADD or TRIAD.
    pub method: &'static str,
    /// The run index from 0, or "AVG".
    pub run: String,
    /// Seconds, at microsecond resolution as mbw measures; for an average,
    /// the mean of the runs' elapsed times.
    pub elapsed_s: f64,
    /// MiB counted: the array size (times 2 or 3 for STREAM kernels), summed
    /// over threads.
    pub mib: f64,
    /// mib / elapsed_s (for AVG: MiB over the mean elapsed, as mbw does).
    pub mib_per_s: f64,
    /// Threads that copied at once.
    pub threads: usize,
}

impl Record {
    pub fn is_average(&self) -> bool {
        self.run == "AVG"
    }
}

/// What was asked for, for the header lines and the JSON document.
#[derive(Debug, Clone, Serialize)]
pub struct Plan {
    /// MiB of one array.
    pub array_size_mib: u64,
    /// 8-byte elements per array.
    pub elements: u64,
    /// Arrays per thread (2, or 3 with add/triad).
    pub arrays: usize,
    /// Bytes allocated per thread.
    pub bytes_per_thread: u64,
    pub block_size_bytes: u64,
    pub runs_per_test: u32,
    pub threads: usize,
    /// The CPUs the threads are pinned to (empty for one unpinned thread).
    pub cpus: Vec<usize>,
    /// Test labels in run order.
    pub methods: Vec<&'static str>,
    #[serde(skip)]
    pub show_avg: bool,
    #[serde(skip)]
    pub quiet: bool,
}

/// The average over a test's completed runs (spec §2): elapsed is the
/// mean, Copy is MiB over that mean (not the mean of the Copy values).
/// Accumulated run by run, so any number of runs costs no memory.
#[derive(Debug, Default)]
pub struct Average {
    sum_elapsed_s: f64,
    count: u32,
    first: Option<Record>,
}

impl Average {
    pub fn add(&mut self, run: &Record) {
        self.sum_elapsed_s += run.elapsed_s;
        self.count += 1;
        if self.first.is_none() {
            self.first = Some(run.clone());
        }
    }

    /// The AVG record, or None when no run completed.
    pub fn record(&self) -> Option<Record> {
        let first = self.first.as_ref()?;
        let elapsed_s = self.sum_elapsed_s / f64::from(self.count);
        Some(Record {
            method: first.method,
            run: "AVG".to_string(),
            elapsed_s,
            mib: first.mib,
            mib_per_s: first.mib / elapsed_s,
            threads: first.threads,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(e: f64) -> Record {
        Record {
            method: "DUMB",
            run: "0".into(),
            elapsed_s: e,
            mib: 64.0,
            mib_per_s: 64.0 / e,
            threads: 1,
        }
    }

    #[test]
    fn average_is_mib_over_mean_elapsed() {
        let mut avg = Average::default();
        assert!(avg.record().is_none());
        avg.add(&rec(0.01));
        avg.add(&rec(0.03));
        let a = avg.record().unwrap();
        assert!(a.is_average());
        assert!((a.elapsed_s - 0.02).abs() < 1e-12);
        assert!((a.mib_per_s - 3200.0).abs() < 1e-6);
    }
}
