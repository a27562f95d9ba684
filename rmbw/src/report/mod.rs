//! Reports: the measurement hands records to a [`Sink`], which renders
//! them in the chosen format. Text streams mbw's lines as runs finish;
//! JSON and CSV collect the records and render one document at the end.

pub mod csv;
pub mod json;
pub mod out;
pub mod text;

use std::io::{self, Write};

use crate::result::{Plan, Record};
use crate::run::Observer;
use out::Out;
use rbench_common::output::OutputFormat;

/// Renders one measurement to stdout.
pub struct Sink {
    format: OutputFormat,
    plan: Plan,
    out: Out,
    records: Vec<Record>,
}

impl Sink {
    pub fn new(format: OutputFormat, plan: Plan, out: Out) -> Sink {
        // JSON and CSV keep every record; text keeps none.
        let cap = match format {
            OutputFormat::Text => 0,
            _ => (plan.methods.len() * (plan.runs_per_test as usize + 1)).min(4096),
        };
        Sink {
            format,
            plan,
            out,
            records: Vec::with_capacity(cap),
        }
    }

    /// Before allocation: mbw's first header lines (text, unless -q).
    pub fn header(&mut self) -> io::Result<()> {
        if self.format == OutputFormat::Text && !self.plan.quiet {
            self.out.write_all(text::header(&self.plan).as_bytes())?;
            self.out.line_done()?;
        }
        Ok(())
    }

    /// After the run: the JSON or CSV document; flush.
    pub fn finish(&mut self) -> io::Result<()> {
        match self.format {
            OutputFormat::Text => {}
            OutputFormat::Json => {
                let doc = json::render(&self.plan, &self.records).map_err(io::Error::other)?;
                self.out.write_all(doc.as_bytes())?;
            }
            OutputFormat::Csv => {
                let doc = csv::render(&self.records).map_err(io::Error::other)?;
                self.out.write_all(doc.as_bytes())?;
            }
        }
        self.out.flush()
    }
}

impl Observer for Sink {
    fn ready(&mut self) -> io::Result<()> {
        if self.format == OutputFormat::Text && !self.plan.quiet {
            self.out.write_all(text::ready(&self.plan).as_bytes())?;
            self.out.line_done()?;
        }
        Ok(())
    }

    fn record(&mut self, rec: &Record) -> io::Result<()> {
        if rec.is_average() && !self.plan.show_avg {
            return Ok(());
        }
        match self.format {
            OutputFormat::Text => {
                self.out.write_all(text::line(rec).as_bytes())?;
                self.out.line_done()
            }
            _ => {
                self.records.push(rec.clone());
                Ok(())
            }
        }
    }
}
