//! `--output-format=csv` (rsysbench extension): one header row, then a row
//! per --report-interval (printed when the interval ends) and per
//! checkpoint, and the summary row last; `row` says which is which.

use serde::Serialize;

use crate::result::{Interval, SqlFigures, Summary};

/// One CSV row; interval rows leave the summary-only columns empty.
#[derive(Serialize, Default)]
pub struct Row<'a> {
    pub row: &'a str,
    pub test: &'a str,
    pub threads: u32,
    pub time_s: f64,
    pub interval_s: f64,
    pub threads_running: Option<u32>,
    pub events: u64,
    pub events_per_second: f64,
    pub latency_min_ms: Option<f64>,
    pub latency_avg_ms: Option<f64>,
    pub latency_max_ms: Option<f64>,
    pub latency_percentile: Option<u32>,
    pub latency_percentile_ms: Option<f64>,
    pub latency_sum_ms: Option<f64>,
    pub fairness_events_avg: Option<f64>,
    pub fairness_events_stddev: Option<f64>,
    pub fairness_time_avg_s: Option<f64>,
    pub fairness_time_stddev_s: Option<f64>,
    pub memory_mib_per_second: Option<f64>,
    pub reads_per_second: Option<f64>,
    pub writes_per_second: Option<f64>,
    pub fsyncs_per_second: Option<f64>,
    pub read_mib_per_second: Option<f64>,
    pub written_mib_per_second: Option<f64>,
    /// Lua tests: statements in the row's span, and rates over it.
    pub sql_reads: Option<u64>,
    pub sql_writes: Option<u64>,
    pub sql_other: Option<u64>,
    pub transactions_per_second: Option<f64>,
    pub queries_per_second: Option<f64>,
    pub ignored_errors_per_second: Option<f64>,
    pub reconnects_per_second: Option<f64>,
}

impl<'a> Row<'a> {
    fn with_sql(mut self, q: Option<&SqlFigures>) -> Self {
        if let Some(q) = q {
            self.sql_reads = Some(q.reads);
            self.sql_writes = Some(q.writes);
            self.sql_other = Some(q.other);
            self.transactions_per_second = Some(q.transactions_per_second);
            self.queries_per_second = Some(q.queries_per_second);
            self.ignored_errors_per_second = Some(q.ignored_errors_per_second);
            self.reconnects_per_second = Some(q.reconnects_per_second);
        }
        self
    }
}

pub fn interval_row<'a>(test: &'a str, threads: u32, percentile: u32, iv: &Interval) -> Row<'a> {
    Row {
        row: "interval",
        test,
        threads,
        time_s: iv.time_s,
        interval_s: iv.interval_s,
        threads_running: Some(iv.threads_running),
        events: iv.events,
        events_per_second: iv.events_per_second,
        latency_percentile: (percentile > 0).then_some(percentile),
        latency_percentile_ms: (percentile > 0).then_some(iv.latency_percentile_ms),
        memory_mib_per_second: iv.mib_per_second,
        fsyncs_per_second: iv.fsyncs_per_second,
        read_mib_per_second: iv.read_mib_per_second,
        written_mib_per_second: iv.written_mib_per_second,
        ..Row::default()
    }
    .with_sql(iv.sql.as_ref())
}

pub fn summary_row<'a>(row: &'a str, test: &'a str, threads: u32, s: &Summary) -> Row<'a> {
    let l = &s.latency_ms;
    Row {
        row,
        test,
        threads,
        time_s: s.total_time_s,
        interval_s: s.interval_s,
        threads_running: None,
        events: s.total_events,
        events_per_second: s.events_per_second,
        latency_min_ms: Some(l.min),
        latency_avg_ms: Some(l.avg),
        latency_max_ms: Some(l.max),
        latency_percentile: l.percentile,
        latency_percentile_ms: l.percentile_value,
        latency_sum_ms: Some(l.sum),
        fairness_events_avg: Some(s.fairness.events_avg),
        fairness_events_stddev: Some(s.fairness.events_stddev),
        fairness_time_avg_s: Some(s.fairness.execution_time_avg_s),
        fairness_time_stddev_s: Some(s.fairness.execution_time_stddev_s),
        memory_mib_per_second: s.memory.as_ref().and_then(|m| m.mib_per_second),
        reads_per_second: s.fileio.as_ref().map(|f| f.reads_per_second),
        writes_per_second: s.fileio.as_ref().map(|f| f.writes_per_second),
        fsyncs_per_second: s.fileio.as_ref().map(|f| f.fsyncs_per_second),
        read_mib_per_second: s.fileio.as_ref().map(|f| f.read_mib_per_second),
        written_mib_per_second: s.fileio.as_ref().map(|f| f.written_mib_per_second),
        ..Row::default()
    }
    .with_sql(s.sql.as_ref())
}

/// A streaming CSV writer on stdout: the header comes with the first row.
pub struct Stream {
    w: csv::Writer<std::io::Stdout>,
}

impl Stream {
    pub fn new() -> Self {
        Self {
            w: csv::WriterBuilder::new()
                .has_headers(true)
                .from_writer(std::io::stdout()),
        }
    }

    pub fn write(&mut self, row: &Row) {
        let _ = self.w.serialize(row);
        let _ = self.w.flush();
    }
}
