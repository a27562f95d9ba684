//! The one result type every report format renders (text, JSON, CSV).
//! Built from statistics snapshots; nothing here measures or prints.

use serde::Serialize;

use rbench_common::histogram::SysbenchHistogram;

use crate::lua::context::SbCounter;
use crate::stats::{percentile_ms, sum_buckets, Counter, ThreadSnap};

/// Percentiles always given in JSON, besides the one asked for.
pub const JSON_PERCENTILES: [f64; 5] = [50.0, 90.0, 95.0, 99.0, 99.9];

const MIB: f64 = 1024.0 * 1024.0;

/// What a test reports beyond the general block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TestKind {
    /// `CPU speed:` / `events per second`.
    Cpu,
    /// `Total operations` and, unless the operation is none, MiB transferred.
    Memory { block_size: u64, transfers: bool },
    /// `File operations` / `Throughput`.
    Fileio,
    /// Only the general block (threads, mutex).
    General,
    /// A Lua script: the `SQL statistics` block first.
    Sql,
}

/// The `SQL statistics` block of a Lua test (sysbench's db_report_cumulative).
#[derive(Debug, Clone, Serialize)]
pub struct SqlFigures {
    /// A database driver was used (sysbench prints these figures only then).
    pub driver_used: bool,
    pub reads: u64,
    pub writes: u64,
    pub other: u64,
    pub total: u64,
    pub transactions: u64,
    pub transactions_per_second: f64,
    pub queries: u64,
    pub queries_per_second: f64,
    pub ignored_errors: u64,
    pub ignored_errors_per_second: f64,
    pub reconnects: u64,
    pub reconnects_per_second: f64,
}

impl SqlFigures {
    fn build(deltas: &[ThreadSnap], events: u64, secs: f64) -> Self {
        let c = |k: SbCounter| deltas.iter().map(|d| d.sql(k)).sum::<u64>();
        let (reads, writes, other) = (c(SbCounter::Read), c(SbCounter::Write), c(SbCounter::Other));
        let total = reads + writes + other;
        let (errors, reconnects) = (c(SbCounter::Error), c(SbCounter::Reconnect));
        SqlFigures {
            driver_used: crate::lua::context::sql_stats_enabled(),
            reads,
            writes,
            other,
            total,
            transactions: events,
            transactions_per_second: rate(events as f64, secs),
            queries: total,
            queries_per_second: rate(total as f64, secs),
            ignored_errors: errors,
            ignored_errors_per_second: rate(errors as f64, secs),
            reconnects,
            reconnects_per_second: rate(reconnects as f64, secs),
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Latency {
    pub min: f64,
    pub avg: f64,
    pub max: f64,
    pub sum: f64,
    /// The --percentile value (`None` when 0: disabled).
    pub percentile: Option<u32>,
    /// Its value (ms).
    pub percentile_value: Option<f64>,
    /// 50, 90, 95, 99, 99.9 and the asked-for percentile, keyed by the percentile.
    pub percentiles: serde_json::Map<String, serde_json::Value>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Fairness {
    pub events_avg: f64,
    pub events_stddev: f64,
    pub execution_time_avg_s: f64,
    pub execution_time_stddev_s: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct MemoryFigures {
    pub total_operations: u64,
    pub operations_per_second: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transferred_mib: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mib_per_second: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct FileioFigures {
    pub reads_per_second: f64,
    pub writes_per_second: f64,
    pub fsyncs_per_second: f64,
    pub read_mib_per_second: f64,
    pub written_mib_per_second: f64,
}

/// One thread's own figures (`--debug` prints them).
#[derive(Debug, Clone, Serialize)]
pub struct ThreadFigures {
    pub events: u64,
    pub min_s: f64,
    pub avg_s: f64,
    pub max_s: f64,
    pub sum_s: f64,
}

/// A cumulative report: the final one or a checkpoint.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    /// Seconds since the threads started.
    pub total_time_s: f64,
    /// The span rates divide by: since start or the last checkpoint.
    pub interval_s: f64,
    pub total_events: u64,
    pub events_per_second: f64,
    pub latency_ms: Latency,
    pub fairness: Fairness,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory: Option<MemoryFigures>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fileio: Option<FileioFigures>,
    /// Lua tests: the SQL statistics.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sql: Option<SqlFigures>,
    /// Per thread; not "threads", which the JSON document's top level
    /// (this is flattened into it) uses for the thread count.
    #[serde(rename = "per_thread")]
    pub threads: Vec<ThreadFigures>,
    /// Events still running at a forced shutdown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unfinished_events: Option<u32>,
    /// Non-empty histogram buckets `(value ms, count)`; in JSON only with
    /// --histogram.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub histogram: Vec<(f64, u64)>,
}

/// One `--report-interval` line.
#[derive(Debug, Clone, Serialize)]
pub struct Interval {
    /// Seconds since start (printed `%.0f`).
    pub time_s: f64,
    pub interval_s: f64,
    pub threads_running: u32,
    pub events: u64,
    pub events_per_second: f64,
    pub latency_percentile_ms: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mib_per_second: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_mib_per_second: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub written_mib_per_second: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fsyncs_per_second: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queue_length: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub concurrency: Option<u64>,
    /// Lua tests: the statement counts in the interval (per-second rates
    /// are these over `interval_s`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sql: Option<SqlFigures>,
}

/// What the reports need to know about the run besides the numbers.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    pub kind: TestKind,
    pub percentile: u32,
    pub scale: &'a SysbenchHistogram,
}

fn rate(n: f64, secs: f64) -> f64 {
    if secs > 0.0 {
        n / secs
    } else {
        0.0
    }
}

fn pop_stddev(xs: impl Iterator<Item = f64> + Clone, avg: f64, n: f64) -> f64 {
    (xs.map(|x| (avg - x).powi(2)).sum::<f64>() / n).sqrt()
}

impl Summary {
    /// Build a cumulative report from per-thread deltas.
    pub fn build(ctx: Context, deltas: &[ThreadSnap], total_time_s: f64, interval_s: f64) -> Self {
        let events: u64 = deltas.iter().map(|d| d.events).sum();
        let buckets = sum_buckets(deltas.iter());
        Summary {
            total_time_s,
            interval_s,
            total_events: events,
            events_per_second: rate(events as f64, interval_s),
            latency_ms: Latency::build(ctx, deltas, &buckets),
            fairness: Fairness::build(deltas),
            memory: MemoryFigures::build(ctx, events, interval_s),
            fileio: FileioFigures::build(ctx, deltas, interval_s),
            sql: (ctx.kind == TestKind::Sql).then(|| SqlFigures::build(deltas, events, interval_s)),
            threads: deltas.iter().map(ThreadFigures::build).collect(),
            unfinished_events: None,
            histogram: histogram(ctx, &buckets),
        }
    }
}

impl Latency {
    /// The run's latencies in ms: min, avg, max and sum over the threads,
    /// and the percentiles of the summed histogram `buckets`.
    fn build(ctx: Context, deltas: &[ThreadSnap], buckets: &[u64]) -> Self {
        let events: u64 = deltas.iter().map(|d| d.events).sum();
        let sum_ns: u64 = deltas.iter().map(|d| d.sum_ns).sum();
        let with_events = deltas.iter().filter(|d| d.events > 0);
        let min_ns = with_events.clone().map(|d| d.min_ns).min().unwrap_or(0);
        let max_ns = with_events.map(|d| d.max_ns).max().unwrap_or(0);
        let avg_ns = sum_ns.checked_div(events).unwrap_or(0);
        let ms = |ns: u64| ns as f64 / 1e6;
        let mut percentiles = serde_json::Map::new();
        let mut points: Vec<f64> = JSON_PERCENTILES.to_vec();
        if ctx.percentile > 0 && !points.contains(&f64::from(ctx.percentile)) {
            points.push(f64::from(ctx.percentile));
            points.sort_by(f64::total_cmp);
        }
        if ctx.percentile > 0 {
            for p in points {
                percentiles.insert(format!("{p}"), percentile_ms(ctx.scale, buckets, p).into());
            }
        }
        let percentile_value = (ctx.percentile > 0)
            .then(|| percentile_ms(ctx.scale, buckets, f64::from(ctx.percentile)));
        Latency {
            min: ms(min_ns),
            avg: ms(avg_ns),
            max: ms(max_ns),
            sum: ms(sum_ns),
            percentile: (ctx.percentile > 0).then_some(ctx.percentile),
            percentile_value,
            percentiles,
        }
    }
}

impl Fairness {
    /// Events and execution time per thread: average and population
    /// standard deviation.
    fn build(deltas: &[ThreadSnap]) -> Self {
        let events: u64 = deltas.iter().map(|d| d.events).sum();
        let sum_ns: u64 = deltas.iter().map(|d| d.sum_ns).sum();
        let n = deltas.len().max(1) as f64;
        let events_avg = events as f64 / n;
        let time_avg = sum_ns as f64 / 1e9 / n;
        Fairness {
            events_avg,
            events_stddev: pop_stddev(deltas.iter().map(|d| d.events as f64), events_avg, n),
            execution_time_avg_s: time_avg,
            execution_time_stddev_s: pop_stddev(
                deltas.iter().map(|d| d.sum_ns as f64 / 1e9),
                time_avg,
                n,
            ),
        }
    }
}

impl MemoryFigures {
    /// The memory test's operations and transfer (None for other tests).
    fn build(ctx: Context, events: u64, interval_s: f64) -> Option<Self> {
        match ctx.kind {
            TestKind::Memory {
                block_size,
                transfers,
            } => {
                let mib = events as f64 * block_size as f64 / MIB;
                Some(MemoryFigures {
                    total_operations: events,
                    operations_per_second: rate(events as f64, interval_s),
                    transferred_mib: transfers.then_some(mib),
                    mib_per_second: transfers.then(|| rate(mib, interval_s)),
                })
            }
            _ => None,
        }
    }
}

impl FileioFigures {
    /// The fileio test's operation and throughput rates (None for other
    /// tests).
    fn build(ctx: Context, deltas: &[ThreadSnap], interval_s: f64) -> Option<Self> {
        let counter = |c: Counter| deltas.iter().map(|d| d.counter(c)).sum::<u64>() as f64;
        (ctx.kind == TestKind::Fileio).then(|| FileioFigures {
            reads_per_second: rate(counter(Counter::Reads), interval_s),
            writes_per_second: rate(counter(Counter::Writes), interval_s),
            fsyncs_per_second: rate(counter(Counter::Fsyncs), interval_s),
            read_mib_per_second: rate(counter(Counter::BytesRead) / MIB, interval_s),
            written_mib_per_second: rate(counter(Counter::BytesWritten) / MIB, interval_s),
        })
    }
}

impl ThreadFigures {
    /// One thread's events and latencies, in s.
    fn build(d: &ThreadSnap) -> Self {
        ThreadFigures {
            events: d.events,
            min_s: if d.events > 0 {
                d.min_ns as f64 / 1e9
            } else {
                0.0
            },
            avg_s: d.sum_ns.checked_div(d.events).unwrap_or(0) as f64 / 1e9,
            max_s: d.max_ns as f64 / 1e9,
            sum_s: d.sum_ns as f64 / 1e9,
        }
    }
}

/// The histogram's non-empty buckets: (bucket value in ms, count).
fn histogram(ctx: Context, buckets: &[u64]) -> Vec<(f64, u64)> {
    buckets
        .iter()
        .enumerate()
        .filter(|(_, c)| **c > 0)
        .map(|(i, c)| (ctx.scale.bucket_value_ms(i), *c))
        .collect()
}

impl Interval {
    /// Build an intermediate report from per-thread deltas over `interval_s`.
    pub fn build(
        ctx: Context,
        deltas: &[ThreadSnap],
        time_s: f64,
        interval_s: f64,
        threads_running: u32,
    ) -> Self {
        let events: u64 = deltas.iter().map(|d| d.events).sum();
        let buckets = sum_buckets(deltas.iter());
        let counter = |c: Counter| deltas.iter().map(|d| d.counter(c)).sum::<u64>() as f64;
        let mut iv = Interval {
            time_s,
            interval_s,
            threads_running,
            events,
            events_per_second: rate(events as f64, interval_s),
            latency_percentile_ms: percentile_ms(ctx.scale, &buckets, f64::from(ctx.percentile)),
            mib_per_second: None,
            read_mib_per_second: None,
            written_mib_per_second: None,
            fsyncs_per_second: None,
            queue_length: None,
            concurrency: None,
            sql: None,
        };
        match ctx.kind {
            TestKind::Memory { block_size, .. } => {
                iv.mib_per_second = Some(rate(events as f64 * block_size as f64 / MIB, interval_s));
            }
            TestKind::Fileio => {
                iv.read_mib_per_second = Some(rate(counter(Counter::BytesRead) / MIB, interval_s));
                iv.written_mib_per_second =
                    Some(rate(counter(Counter::BytesWritten) / MIB, interval_s));
                iv.fsyncs_per_second = Some(rate(counter(Counter::Fsyncs), interval_s));
            }
            TestKind::Sql => {
                iv.sql = Some(SqlFigures::build(deltas, events, interval_s));
            }
            _ => {}
        }
        iv
    }
}
