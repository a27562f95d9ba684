//! `--debug=parse`: fio's parser trace, one `parse    PID  …` line per step
//! as each option is handled (its name, its type in fio's words, the value
//! it came to), on stdout as fio's debug lines go. Only the parser traces;
//! fio's other classes are accepted and say so once (`fio: set debug option
//! io`). Cold: parsing only.

use super::table::OptDef;
use super::value::{Kind, Value};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

static PARSE: AtomicBool = AtomicBool::new(false);

/// fio's debug classes (`--debug=help` lists them).
pub const CLASSES: &[&str] = &[
    "process",
    "file",
    "io",
    "mem",
    "blktrace",
    "verify",
    "random",
    "parse",
    "diskutil",
    "job",
    "mutex",
    "profile",
    "time",
    "net",
    "rate",
    "compress",
    "steadystate",
    "helperthread",
    "zbd",
    "all",
];

/// `--debug=LIST`: fio's lines for each class set (`fio: set debug option
/// X`), and for one it has not (`fio: debug mask X not found`, on
/// stderr); `help` lists them. (stdout, stderr) text.
pub fn set_classes(list: &str) -> (String, String) {
    let (mut out, mut err) = (String::new(), String::new());
    for c in list.split(',').filter(|c| !c.is_empty()) {
        if c == "help" || c == "?" {
            out.push_str(&format!(
                "fio: dumping debug options:{}\n",
                CLASSES.join(",")
            ));
        } else if CLASSES.contains(&c) {
            out.push_str(&format!("fio: set debug option {c}\n"));
            if c == "parse" || c == "all" {
                PARSE.store(true, Ordering::Relaxed);
            }
        } else {
            err.push_str(&format!("fio: debug mask {c} not found\n"));
        }
    }
    (out, err)
}

pub fn parse_on() -> bool {
    PARSE.load(Ordering::Relaxed)
}

/// Job-file sections whose options fio freed as it read them.
static FILE_JOBS: AtomicUsize = AtomicUsize::new(0);

/// One trace line (none for an empty one).
pub fn line(msg: impl AsRef<str>) {
    let msg = msg.as_ref();
    if parse_on() && !msg.is_empty() {
        println!("{:<8} {:<5} {msg}", "parse", std::process::id());
    }
}

/// A job-file job is parsed: fio frees its section's options there.
pub fn file_job_freed() {
    free_jobs(1);
}

/// `n` jobs' options freed now (not again at the end).
pub fn free_jobs(n: usize) {
    if parse_on() {
        FILE_JOBS.fetch_add(n, Ordering::Relaxed);
        for _ in 0..n {
            line("free options");
        }
    }
}

/// The end of parsing: fio frees each command-line job's options and its
/// own two sets (`jobs`: all jobs, those of job files already freed).
pub fn free_all(jobs: usize) {
    for _ in 0..(jobs + 2).saturating_sub(FILE_JOBS.load(Ordering::Relaxed)) {
        line("free options");
    }
}

/// fio's name of the option's type.
fn type_name(o: &OptDef) -> &'static str {
    if o.name == "ioengine" {
        return "OPT_STR_STORE";
    }
    match o.kind {
        Kind::Int { .. } => "OPT_INT",
        Kind::Bool => "OPT_BOOL",
        Kind::Flag => "OPT_STR_SET",
        Kind::Size { pct: true } => "OPT_STR_VAL_ZONE",
        Kind::Size { pct: false } => "OPT_STR_VAL",
        Kind::SizeList { .. } => "OPT_ULL",
        Kind::Ranges => "OPT_RANGE",
        Kind::Time(_) | Kind::TimeList(_) => "OPT_STR_VAL_TIME",
        Kind::Choice(_) => "OPT_STR",
        Kind::Multi(_) => "OPT_STR_MULTI",
        Kind::Text => "OPT_STR_STORE",
        Kind::FloatList | Kind::Fraction => "OPT_FLOAT_LIST",
    }
}

/// The trace of `name=raw` handled into `value`, as fio's handle_option
/// prints it (a list value: one step per element after the first).
pub fn option(o: &OptDef, raw: Option<&str>, value: &Value) {
    if !parse_on() {
        return;
    }
    let ptr = raw.unwrap_or("(null)");
    line(format!("handle_option={}, ptr={ptr}", o.name));
    let ty = type_name(o);
    match value {
        Value::PerDir(v) => {
            let parts: Vec<&str> = ptr.split(',').collect();
            for (k, n) in v.iter().enumerate().take(parts.len().max(1)) {
                let rest = parts[k..].join(",");
                line(format!("__handle_option={}, type={ty}, ptr={rest}", o.name));
                line(format!("  ret=0, out={n}"));
            }
        }
        Value::Floats(v, _) => {
            let parts: Vec<&str> = ptr.split(':').collect();
            for (k, f) in v.iter().enumerate() {
                let rest = parts.get(k..).map_or(String::new(), |p| p.join(":"));
                line(format!("__handle_option={}, type={ty}, ptr={rest}", o.name));
                line(format!("  out={f:.6}"));
            }
        }
        _ => {
            line(format!("__handle_option={}, type={ty}, ptr={ptr}", o.name));
            let out = match value {
                Value::Int(n) => Some(n.to_string()),
                Value::Bool(b) => Some(u8::from(*b).to_string()),
                Value::Time(t) => Some(t.to_string()),
                Value::Size(rbench_common::units::fio::SizeOrPercent::Bytes(b)) => {
                    Some(b.to_string())
                }
                _ => None,
            };
            if let Some(out) = out {
                line(format!("  ret=0, out={out}"));
            }
            if o.name == "steadystate" {
                steadystate(ptr);
            }
        }
    }
}

/// fio's steadystate callback line: the threshold it set.
fn steadystate(ptr: &str) {
    let Some((what, limit)) = ptr.split_once(':') else {
        return;
    };
    if let Some(pct) = limit.strip_suffix('%') {
        if let Ok(p) = pct.parse::<f64>() {
            line(format!("set steady state threshold to {p:.6}%"));
        }
    } else if what.starts_with("iops") {
        if let Ok(v) = limit.parse::<f64>() {
            line(format!("set steady state IOPS threshold to {v:.6}"));
        }
    } else if let Ok((v, _)) = rbench_common::units::fio::parse_size_as_fio(limit, 1024) {
        line(format!("set steady state BW threshold to {v}"));
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn classes_as_fio_says_them() {
        let (out, err) = super::set_classes("io,nosuch");
        assert_eq!(out, "fio: set debug option io\n");
        assert_eq!(err, "fio: debug mask nosuch not found\n");
        assert!(!super::parse_on());
    }
}
