//! Reports are views of the result type (STYLE: hyperfine's exporters):
//! `text.rs` is sysbench's layout, `json.rs` and `csv.rs` the extension.
//! The [`Reporter`] receives intervals and checkpoints while the run goes
//! on and the summary at its end.

pub mod csv;
pub mod json;
pub mod text;

use rbench_common::output::OutputFormat;

use crate::log::{Level, Log};
use crate::result::{Interval, Summary, TestKind};
use crate::runner::Sink;

/// What every format needs to know about the run.
pub struct RunInfo {
    pub test: &'static str,
    pub threads: u32,
    pub kind: TestKind,
    pub percentile: u32,
    pub histogram: bool,
    pub debug: bool,
    /// `--db-debug` (Lua tests).
    pub db_debug: bool,
    pub options: serde_json::Map<String, serde_json::Value>,
}

pub struct Reporter<'a> {
    format: OutputFormat,
    info: RunInfo,
    log: &'a Log,
    intervals: Vec<Interval>,
    checkpoints: Vec<Summary>,
    csv: Option<csv::Stream>,
}

impl<'a> Reporter<'a> {
    pub fn new(format: OutputFormat, info: RunInfo, log: &'a Log) -> Self {
        let csv = (format == OutputFormat::Csv).then(csv::Stream::new);
        Self {
            format,
            info,
            log,
            intervals: Vec::new(),
            checkpoints: Vec::new(),
            csv,
        }
    }

    fn text_summary(&self, s: &Summary) -> String {
        text::summary(self.info.kind, s, self.info.percentile, self.info.debug)
    }

    /// The text summary; with `--db-debug`, sysbench's query statistics
    /// block (debug lines) after the SQL figures.
    fn print_text_summary(&self, s: &Summary) {
        let sql = s.sql.as_ref().filter(|q| q.driver_used);
        let Some(q) = sql.filter(|_| self.info.db_debug && self.info.kind == TestKind::Sql) else {
            self.log.block(Level::Notice, &self.text_summary(s));
            return;
        };
        self.log.block(Level::Notice, &text::sql_block(q));
        for line in text::db_debug_lines() {
            self.log.debug(&line);
        }
        // The rest of the summary: what a test without SQL figures prints.
        let rest = text::summary(TestKind::General, s, self.info.percentile, self.info.debug);
        self.log.block(Level::Notice, &rest);
    }

    /// The final report (`status`: completed, interrupted, forced_shutdown).
    pub fn finish(&mut self, s: &Summary, status: &str) {
        match self.format {
            OutputFormat::Text => {
                if self.info.histogram && status != "forced_shutdown" {
                    self.log
                        .notice("Latency histogram (values are in milliseconds)");
                    self.log.block(Level::Notice, &text::histogram(s));
                    self.log.notice(" ");
                }
                self.print_text_summary(s);
            }
            OutputFormat::Json => {
                let mut s = s.clone();
                if !self.info.histogram {
                    s.histogram.clear();
                }
                let s = &s;
                let doc = json::Document {
                    tool: "rsysbench",
                    sysbench_version: "1.0.20",
                    test: self.info.test,
                    threads: self.info.threads,
                    options: self.info.options.clone(),
                    status,
                    summary: s,
                    checkpoints: &self.checkpoints,
                    intervals: &self.intervals,
                };
                crate::app::out(&json::render(&doc));
            }
            OutputFormat::Csv => {
                let row = csv::summary_row("summary", self.info.test, self.info.threads, s);
                if let Some(w) = &mut self.csv {
                    w.write(&row);
                }
            }
        }
    }
}

impl Sink for Reporter<'_> {
    fn interval(&mut self, iv: &Interval) {
        match self.format {
            OutputFormat::Text => {
                self.log.block(
                    Level::Notice,
                    &text::interval(self.info.kind, iv, self.info.percentile),
                );
            }
            OutputFormat::Json => self.intervals.push(iv.clone()),
            OutputFormat::Csv => {
                let row =
                    csv::interval_row(self.info.test, self.info.threads, self.info.percentile, iv);
                if let Some(w) = &mut self.csv {
                    w.write(&row);
                }
            }
        }
    }

    fn checkpoint(&mut self, s: &Summary) {
        match self.format {
            OutputFormat::Text => {
                self.log
                    .notice(&format!("[ {:.0}s ] Checkpoint report:", s.total_time_s));
                self.print_text_summary(s);
            }
            OutputFormat::Json => {
                let mut s = s.clone();
                s.histogram.clear();
                self.checkpoints.push(s);
            }
            OutputFormat::Csv => {
                let row = csv::summary_row("checkpoint", self.info.test, self.info.threads, s);
                if let Some(w) = &mut self.csv {
                    w.write(&row);
                }
            }
        }
    }

    fn forced_shutdown(&mut self, s: &Summary) -> ! {
        self.log.msg(
            Level::Fatal,
            "The --max-time limit has expired, forcing shutdown...",
        );
        self.finish(s, "forced_shutdown");
        std::process::exit(2);
    }
}
