//! sysbench's text report, line for line (spec §5, §6): the cumulative
//! report with each test's own lines, intermediate lines and the histogram.

use std::fmt::Write;

use crate::result::{Interval, Summary, TestKind};

/// The general block (starts with an empty line, ends with one).
pub fn general_block(s: &Summary, percentile: u32) -> String {
    let mut o = String::new();
    if let Some(n) = s.unfinished_events.filter(|n| *n > 0) {
        let _ = writeln!(
            o,
            "\nNumber of unfinished transactions on forced shutdown: {n}"
        );
    }
    let l = &s.latency_ms;
    let _ = writeln!(o);
    let _ = writeln!(o, "General statistics:");
    let _ = writeln!(
        o,
        "    total time:                          {:.4}s",
        s.total_time_s
    );
    let _ = writeln!(
        o,
        "    total number of events:              {}",
        s.total_events
    );
    let _ = writeln!(o);
    let _ = writeln!(o, "Latency (ms):");
    let _ = writeln!(o, "         min: {:39.2}", l.min);
    let _ = writeln!(o, "         avg: {:39.2}", l.avg);
    let _ = writeln!(o, "         max: {:39.2}", l.max);
    match l.percentile_value {
        Some(v) if percentile > 0 => {
            let _ = writeln!(o, "        {percentile:3}th percentile: {v:27.2}");
        }
        _ => {
            let _ = writeln!(o, "         percentile stats:               disabled");
        }
    }
    let _ = writeln!(o, "         sum: {:39.2}", l.sum);
    let _ = writeln!(o);
    let f = &s.fairness;
    let _ = writeln!(o, "Threads fairness:");
    let _ = writeln!(
        o,
        "    events (avg/stddev):           {:.4}/{:3.2}",
        f.events_avg, f.events_stddev
    );
    let _ = writeln!(
        o,
        "    execution time (avg/stddev):   {:.4}/{:3.2}",
        f.execution_time_avg_s, f.execution_time_stddev_s
    );
    let _ = writeln!(o);
    o
}

/// `--debug`'s per-thread statistics.
pub fn debug_block(s: &Summary) -> String {
    let mut o = String::from("DEBUG: Verbose per-thread statistics:\n\n");
    for (i, t) in s.threads.iter().enumerate() {
        let _ = writeln!(
            o,
            "DEBUG:     thread #{i:3}: min: {:.4}s  avg: {:.4}s  max: {:.4}s  events: {}",
            t.min_s, t.avg_s, t.max_s, t.events
        );
        let _ = writeln!(
            o,
            "DEBUG:                  total time taken by event execution: {:.4}s",
            t.sum_s
        );
    }
    o.push('\n');
    o
}

/// The cumulative report: the test's own lines, then the general block.
pub fn summary(kind: TestKind, s: &Summary, percentile: u32, debug: bool) -> String {
    let mut o = String::new();
    match kind {
        TestKind::Cpu => {
            let _ = writeln!(o, "CPU speed:");
            let _ = writeln!(o, "    events per second: {:8.2}", s.events_per_second);
        }
        TestKind::Memory { .. } => {
            if let Some(m) = &s.memory {
                let _ = writeln!(
                    o,
                    "Total operations: {} ({:8.2} per second)\n",
                    m.total_operations, m.operations_per_second
                );
                if let (Some(mib), Some(rate)) = (m.transferred_mib, m.mib_per_second) {
                    let _ = writeln!(o, "{mib:4.2} MiB transferred ({rate:4.2} MiB/sec)\n");
                }
            }
        }
        TestKind::Fileio => {
            if let Some(f) = &s.fileio {
                let _ = writeln!(o);
                let _ = writeln!(o, "File operations:");
                let _ = writeln!(
                    o,
                    "    reads/s:                      {:4.2}",
                    f.reads_per_second
                );
                let _ = writeln!(
                    o,
                    "    writes/s:                     {:4.2}",
                    f.writes_per_second
                );
                let _ = writeln!(
                    o,
                    "    fsyncs/s:                     {:4.2}",
                    f.fsyncs_per_second
                );
                let _ = writeln!(o);
                let _ = writeln!(o, "Throughput:");
                let _ = writeln!(
                    o,
                    "    read, MiB/s:                  {:4.2}",
                    f.read_mib_per_second
                );
                let _ = writeln!(
                    o,
                    "    written, MiB/s:               {:4.2}",
                    f.written_mib_per_second
                );
            }
        }
        TestKind::Sql => {
            if let Some(q) = s.sql.as_ref().filter(|q| q.driver_used) {
                o.push_str(&sql_block(q));
            }
        }
        TestKind::General => {}
    }
    o.push_str(&general_block(s, percentile));
    if debug {
        o.push_str(&debug_block(s));
    }
    o
}

/// The `SQL statistics` block of a Lua test.
pub fn sql_block(q: &crate::result::SqlFigures) -> String {
    let mut o = String::from("SQL statistics:\n    queries performed:\n");
    let _ = writeln!(o, "        read:                            {}", q.reads);
    let _ = writeln!(o, "        write:                           {}", q.writes);
    let _ = writeln!(o, "        other:                           {}", q.other);
    let _ = writeln!(o, "        total:                           {}", q.total);
    let rows = [
        (
            "transactions:        ",
            q.transactions,
            q.transactions_per_second,
        ),
        ("queries:             ", q.queries, q.queries_per_second),
        (
            "ignored errors:      ",
            q.ignored_errors,
            q.ignored_errors_per_second,
        ),
        (
            "reconnects:          ",
            q.reconnects,
            q.reconnects_per_second,
        ),
    ];
    for (label, n, r) in rows {
        let _ = writeln!(o, "    {label}                {n:<6} ({r:.2} per sec.)");
    }
    o
}

/// What `--db-debug` adds after the SQL figures: sysbench 1.0.20's query
/// execution and result fetching statistics, whose timers it never
/// starts (so always zeros); printed the same for scripts that parse it.
pub fn db_debug_lines() -> Vec<String> {
    let mut v = vec![String::new()];
    for what in ["Query execution", "Results fetching"] {
        v.push(format!("{what} statistics:"));
        for label in ["    min:", "    avg:", "    max:", "  total:"] {
            v.push(format!("{label:<40}0.0000s"));
        }
    }
    v
}

/// A Lua test's intermediate line (sysbench's db_report_intermediate).
fn sql_interval(t: &str, iv: &Interval, percentile: u32) -> String {
    let q = iv.sql.as_ref();
    let secs = iv.interval_s;
    let per = |n: u64| if secs > 0.0 { n as f64 / secs } else { 0.0 };
    let (r, w, ot, e, rc) = q.map_or((0, 0, 0, 0, 0), |q| {
        (q.reads, q.writes, q.other, q.ignored_errors, q.reconnects)
    });
    let mut o = format!(
        "{t} thds: {} tps: {:4.2} qps: {:4.2} (r/w/o: {:4.2}/{:4.2}/{:4.2}) lat (ms,{percentile}%): {:4.2} err/s: {:4.2} reconn/s: {:4.2}",
        iv.threads_running,
        iv.events_per_second,
        per(r + w + ot),
        per(r),
        per(w),
        per(ot),
        iv.latency_percentile_ms,
        per(e),
        per(rc)
    );
    o.push('\n');
    o
}

/// One `--report-interval` line (two with --rate), newline-terminated.
pub fn interval(kind: TestKind, iv: &Interval, percentile: u32) -> String {
    let t = format!("[ {:.0}s ]", iv.time_s);
    let mut o = match kind {
        TestKind::Memory { .. } => {
            format!("{t} {:4.2} MiB/sec\n", iv.mib_per_second.unwrap_or(0.0))
        }
        TestKind::Fileio => format!(
            "{t} reads: {:4.2} MiB/s writes: {:4.2} MiB/s fsyncs: {:4.2}/s latency (ms,{percentile}%): {:4.3}\n",
            iv.read_mib_per_second.unwrap_or(0.0),
            iv.written_mib_per_second.unwrap_or(0.0),
            iv.fsyncs_per_second.unwrap_or(0.0),
            iv.latency_percentile_ms
        ),
        TestKind::Sql if iv.sql.as_ref().is_some_and(|q| q.driver_used) => {
            let mut o = sql_interval(&t, iv, percentile);
            if let (Some(q), Some(c)) = (iv.queue_length, iv.concurrency) {
                // Lua tests put both on the same line, comma-separated.
                o.pop();
                let _ = writeln!(o, " queue length: {q}, concurrency: {c}");
            }
            return o;
        }
        TestKind::Cpu | TestKind::General | TestKind::Sql => format!(
            "{t} thds: {} eps: {:4.2} lat (ms,{percentile}%): {:4.2}\n",
            iv.threads_running, iv.events_per_second, iv.latency_percentile_ms
        ),
    };
    if let (Some(q), Some(c)) = (iv.queue_length, iv.concurrency) {
        let _ = writeln!(o, "{t} queue length: {q} concurrency: {c}");
    }
    o
}

/// `--histogram`: header and one line per non-empty bucket (spec §5).
pub fn histogram(s: &Summary) -> String {
    let max = s.histogram.iter().map(|(_, c)| *c).max().unwrap_or(0);
    if max == 0 {
        return String::new();
    }
    let mut o = String::from("       value  ------------- distribution ------------- count\n");
    for (v, c) in &s.histogram {
        let stars = ((*c as f64 * 40.0 / max as f64) + 0.5).floor() as usize;
        let _ = writeln!(o, "{v:12.3} |{:<40} {c}", "*".repeat(stars));
    }
    o
}
