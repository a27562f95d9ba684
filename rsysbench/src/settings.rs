//! The general options, read and checked in sysbench's order before the
//! header is printed (spec §1, §2). Where sysbench hangs or accepts
//! nonsense (a negative --time, --events or --rate) we stop with a message.

use std::str::FromStr;

use rbench_common::output::OutputFormat;

use crate::args::Values;
use crate::error::{Fail, Result};

/// sysbench keeps at most this many checkpoints.
const MAX_CHECKPOINTS: usize = 256;

#[derive(Debug, Clone)]
pub struct Settings {
    pub threads: u32,
    /// 0 = no limit.
    pub max_events: u64,
    /// Seconds; 0 = no limit.
    pub max_time: u64,
    /// Seconds after `max_time` before a forced shutdown.
    pub forced_shutdown: Option<u64>,
    pub stack_size: usize,
    pub debug: bool,
    /// `--db-debug`: the SQL report adds sysbench's (untimed) query
    /// statistics block at debug verbosity.
    pub db_debug: bool,
    pub validate: bool,
    pub rand_seed: u32,
    pub rate: u32,
    pub report_interval: u64,
    pub checkpoints: Vec<u64>,
    pub verbosity: u8,
    /// 0 = off.
    pub percentile: u32,
    pub histogram: bool,
    pub output: OutputFormat,
}

fn non_negative(v: i64, name: &str) -> Result<u64> {
    u64::try_from(v).map_err(|_| Fail::fatal(format!("Invalid value for --{name}: {v}.")))
}

impl Settings {
    /// Read the general options; `warn` receives the warnings sysbench
    /// prints before its header, as they happen.
    pub fn read(v: &Values, warn: &mut dyn FnMut(&str)) -> Result<Settings> {
        let output = output_format(v)?;
        let threads = renamed(v, "num-threads", "threads", 1, warn)?;
        if threads <= 0 {
            return Err(Fail::fatal(format!(
                "Invalid value for --threads: {threads}.\n"
            )));
        }
        let (max_events, max_time) = limits(v, warn)?;
        let forced_shutdown = forced_shutdown(v, max_time)?;
        let stack = v.size("thread-stack-size")?;
        if stack == 0 || stack > i32::MAX as u64 {
            return Err(Fail::fatal(format!(
                "Invalid value for thread-stack-size: {stack}.\n"
            )));
        }
        let debug = v.flag("debug");
        let rand_seed = v.int("rand-seed")? as u32;
        check_rand_type(v)?;
        check_rand_params(v)?;
        let rate = renamed(v, "tx-rate", "rate", 0, warn)?;
        let rate = non_negative(rate, "rate")? as u32;
        let report_interval = non_negative(v.int("report-interval")?, "report-interval")?;
        let checkpoints = checkpoints(v)?;
        let (verbosity, percentile, histogram) = reporting(v, debug)?;
        Ok(Settings {
            threads: threads as u32,
            max_events,
            max_time,
            forced_shutdown,
            stack_size: stack as usize,
            debug,
            db_debug: v.flag("db-debug"),
            validate: v.flag("validate"),
            rand_seed,
            rate,
            report_interval,
            checkpoints,
            verbosity,
            percentile,
            histogram,
            output,
        })
    }
}

/// `--output-format` (rsysbench's own): text, json or csv.
fn output_format(v: &Values) -> Result<OutputFormat> {
    match v.string("output-format") {
        None => Ok(OutputFormat::Text),
        Some(s) => OutputFormat::from_str(&s).map_err(|_| {
            Fail::fatal(format!(
                "Invalid value for --output-format: '{s}' (expected text, json or csv)"
            ))
        }),
    }
}

/// An option sysbench renamed: the old name wins (with sysbench's
/// deprecation warning) when it is above `unset`, its default.
fn renamed(
    v: &Values,
    old: &str,
    new: &str,
    unset: i64,
    warn: &mut dyn FnMut(&str),
) -> Result<i64> {
    let n = v.int(old)?;
    if n > unset {
        warn(&format!(
            "WARNING: --{old} is deprecated, use --{new} instead"
        ));
        Ok(n)
    } else {
        v.int(new)
    }
}

/// `--events` and `--time` (or their old names), with sysbench's warning
/// when neither limits the run.
fn limits(v: &Values, warn: &mut dyn FnMut(&str)) -> Result<(u64, u64)> {
    let max_events = non_negative(renamed(v, "max-requests", "events", 0, warn)?, "events")?;
    let max_time = non_negative(renamed(v, "max-time", "time", 0, warn)?, "time")?;
    if max_events == 0 && max_time == 0 {
        warn("WARNING: Both event and time limits are disabled, running an endless test");
    }
    Ok((max_events, max_time))
}

/// `--forced-shutdown`: off, seconds or a share of --time (5% of it by
/// default); none without a time limit.
fn forced_shutdown(v: &Values, max_time: u64) -> Result<Option<u64>> {
    if max_time == 0 {
        return Ok(None);
    }
    match v.string("forced-shutdown") {
        None => Ok(Some(max_time / 20)),
        Some(s) if s.eq_ignore_ascii_case("off") => Ok(None),
        Some(s) => parse_forced_shutdown(&s, max_time).map(Some),
    }
}

/// `--rand-type`: one of sysbench's four distributions.
fn check_rand_type(v: &Values) -> Result<()> {
    let rand_type = v.string("rand-type").unwrap_or_default();
    if matches!(
        rand_type.as_str(),
        "uniform" | "gaussian" | "special" | "pareto"
    ) {
        Ok(())
    } else {
        Err(Fail::fatal(format!(
            "Invalid random numbers distribution: {rand_type}."
        )))
    }
}

/// `--report-checkpoints`: non-negative numbers, at most
/// MAX_CHECKPOINTS, sorted.
fn checkpoints(v: &Values) -> Result<Vec<u64>> {
    let mut checkpoints = Vec::new();
    for c in v.list("report-checkpoints") {
        let n = crate::args::parse_c_int(&c)
            .filter(|n| *n >= 0 && !c.starts_with([' ', '+']))
            .ok_or_else(|| Fail::fatal(format!("Invalid value for --report-checkpoints: '{c}'")))?;
        checkpoints.push(n as u64);
        if checkpoints.len() > MAX_CHECKPOINTS {
            return Err(Fail::fatal(format!(
                "Too many checkpoints in --report-checkpoints (up to {MAX_CHECKPOINTS} can be defined)"
            )));
        }
    }
    checkpoints.sort_unstable();
    Ok(checkpoints)
}

/// `--verbosity` (5 under --debug), `--percentile`, `--histogram`.
fn reporting(v: &Values, debug: bool) -> Result<(u8, u32, bool)> {
    let verbosity = if debug { 5 } else { v.int("verbosity")? };
    if !(0..=5).contains(&verbosity) {
        // sysbench stores it in an unsigned char: -1 shows as 255.
        return Err(Fail::stdout(format!(
            "Invalid value for verbosity: {}",
            verbosity as u8
        )));
    }
    let percentile = v.int("percentile")?;
    if !(0..=100).contains(&percentile) {
        return Err(Fail::fatal(format!(
            "Invalid value for --percentile: {percentile}"
        )));
    }
    let histogram = v.flag("histogram");
    if histogram && percentile == 0 {
        return Err(Fail::fatal(
            "--histogram cannot be used with --percentile=0",
        ));
    }
    Ok((verbosity as u8, percentile as u32, histogram))
}

/// `N` seconds, `N%` of --time, per sysbench's strtol reading.
fn parse_forced_shutdown(s: &str, max_time: u64) -> Result<u64> {
    let bad = || Fail::fatal(format!("Invalid value for --forced-shutdown: '{s}'"));
    let (num, pct) = match s.strip_suffix('%') {
        Some(n) => (n, true),
        None => (s, false),
    };
    let n = crate::args::parse_c_int(num).ok_or_else(bad)?;
    let n = u64::try_from(n).map_err(|_| bad())?;
    Ok(if pct { n * max_time / 100 } else { n })
}

/// The rand parameters are only read by sysbench; values that would make
/// its formulas divide by zero or take ln of <= 0 are refused here.
fn check_rand_params(v: &Values) -> Result<()> {
    let iter = v.int("rand-spec-iter")?;
    if iter <= 0 {
        return Err(Fail::fatal(format!(
            "Invalid value for --rand-spec-iter: {iter}."
        )));
    }
    let pct = v.int("rand-spec-pct")?;
    if !(0..=100).contains(&pct) {
        return Err(Fail::fatal(format!(
            "Invalid value for --rand-spec-pct: {pct}."
        )));
    }
    let res = v.int("rand-spec-res")?;
    if !(0..100).contains(&res) {
        return Err(Fail::fatal(format!(
            "Invalid value for --rand-spec-res: {res}."
        )));
    }
    let h = v.double("rand-pareto-h")?;
    if !(h > 0.0 && h < 1.0) {
        return Err(Fail::fatal(format!(
            "Invalid value for --rand-pareto-h: {h}."
        )));
    }
    Ok(())
}
