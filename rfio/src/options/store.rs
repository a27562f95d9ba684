//! The options of one job (or of the global defaults), as parsed values plus
//! the text as typed (for JSON `job options` and `--showcmd`).

use super::table::{find, OptDef};
use super::value::{Kind, Value, ValueError};
use rbench_common::units::fio::SizeOrPercent;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Default)]
pub struct JobOptions {
    values: BTreeMap<&'static str, Value>,
    /// (canonical name, value as typed) in the order given; later settings
    /// of the same option replace the earlier text in place.
    pub typed: Vec<(&'static str, String)>,
}

/// Why an option could not be set.
#[derive(Debug, Clone)]
pub enum SetError {
    Unknown,
    Bad {
        opt: &'static OptDef,
        err: ValueError,
    },
}

impl JobOptions {
    pub fn engine(&self) -> Option<&str> {
        match self.values.get("ioengine") {
            Some(Value::Choice(e, _)) => Some(e),
            _ => None,
        }
    }

    pub fn kb_base(&self) -> u64 {
        match self.values.get("kb_base") {
            Some(Value::Choice(w, _)) if w == "1000" => 1000,
            _ => 1024,
        }
    }

    /// A copy for a new job: every value, but none of the text typed for the
    /// parent (JSON `job options` lists only what the job's own section set).
    pub fn inherit(&self) -> JobOptions {
        super::trace::line("dup options");
        JobOptions {
            values: self.values.clone(),
            typed: Vec::new(),
        }
    }

    pub fn is_set(&self, name: &str) -> bool {
        self.values.contains_key(name)
    }

    /// Parse and store `name=raw` (`raw` None: a bare flag).
    pub fn set(&mut self, name: &str, raw: Option<&str>) -> Result<(), SetError> {
        let opt = find(name)
            .filter(|o| o.available_with(self.engine()))
            .ok_or(SetError::Unknown)?;
        let text = raw.unwrap_or("");
        // fio's log options (FIO_OPT_STR with a callback) take a bare key
        // in a job file: the job name is then the prefix (§10).
        let bare_ok = matches!(
            opt.name,
            "write_bw_log" | "write_lat_log" | "write_iops_log" | "write_hist_log"
        );
        if raw.is_none() && opt.kind.needs_value() && !bare_ok {
            return Err(SetError::Bad {
                opt,
                err: ValueError {
                    detail: Some(format!("{}: a value is required", opt.name)),
                    show_choices: false,
                },
            });
        }
        // fio: a flag takes no value or a number; `norandommap=` (an empty
        // value after `=`) is "failed parsing", not the bare flag.
        if raw.is_some_and(|r| r.trim().is_empty()) && matches!(opt.kind, Kind::Flag) {
            return Err(SetError::Bad {
                opt,
                err: ValueError {
                    detail: None,
                    show_choices: false,
                },
            });
        }
        let value = opt
            .kind
            .parse(opt.name, text, self.kb_base())
            .map_err(|err| SetError::Bad { opt, err })?;
        // Options that set their partner (fio's inverse pairs, §3).
        match (opt.name, &value) {
            ("buffered", Value::Bool(b)) => {
                self.values.insert("direct", Value::Bool(!b));
            }
            ("direct", Value::Bool(b)) => {
                self.values.insert("buffered", Value::Bool(!b));
            }
            ("rwmixwrite", Value::Int(w)) => {
                self.values.insert("rwmixread", Value::Int(100 - w));
            }
            ("rwmixread", Value::Int(r)) => {
                self.values.insert("rwmixwrite", Value::Int(100 - r));
            }
            _ => {}
        }
        super::trace::option(opt, raw, &value);
        self.values.insert(opt.name, value);
        match self.typed.iter_mut().find(|(n, _)| *n == opt.name) {
            Some(slot) => slot.1 = text.to_string(),
            None => self.typed.push((opt.name, text.to_string())),
        }
        Ok(())
    }

    fn get(&self, name: &'static str) -> Option<Value> {
        if let Some(v) = self.values.get(name) {
            return Some(v.clone());
        }
        let opt = find(name)?;
        opt.kind.parse(name, opt.default?, 1024).ok()
    }

    pub fn int(&self, name: &'static str) -> i64 {
        match self.get(name) {
            Some(Value::Int(v)) => v,
            Some(Value::Bool(b)) => i64::from(b),
            _ => 0,
        }
    }

    pub fn flag(&self, name: &'static str) -> bool {
        match self.get(name) {
            Some(Value::Bool(b)) => b,
            Some(Value::Int(v)) => v != 0,
            _ => false,
        }
    }

    pub fn time_us(&self, name: &'static str) -> u64 {
        match self.get(name) {
            Some(Value::Time(t)) => t,
            _ => 0,
        }
    }

    pub fn size(&self, name: &'static str) -> Option<SizeOrPercent> {
        match self.get(name) {
            Some(Value::Size(s)) => Some(s),
            _ => None,
        }
    }

    pub fn text(&self, name: &'static str) -> Option<String> {
        match self.get(name) {
            Some(Value::Text(s)) => Some(s),
            _ => None,
        }
    }

    pub fn choice(&self, name: &'static str) -> (String, Option<String>) {
        match self.get(name) {
            Some(Value::Choice(w, p)) => (w, p),
            _ => (String::new(), None),
        }
    }

    pub fn per_dir(&self, name: &'static str) -> Option<[u64; 3]> {
        match self.get(name) {
            Some(Value::PerDir(v)) => Some(v),
            _ => None,
        }
    }

    pub fn ranges(&self, name: &'static str) -> Option<[(u64, u64); 3]> {
        match self.values.get(name) {
            Some(Value::Ranges(v)) => Some(*v),
            _ => None,
        }
    }

    pub fn floats(&self, name: &'static str) -> (Vec<f64>, usize) {
        match self.get(name) {
            Some(Value::Floats(v, p)) => (v, p),
            _ => (Vec::new(), 0),
        }
    }
}
