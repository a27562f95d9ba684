//! Option kinds (how a value is written) and parsed values.

use std::cell::RefCell;

use rbench_common::units::fio::{
    parse_percentile_list, parse_size_as_fio, parse_size_or_percent, parse_time_as_fio,
    split_size_range, SizeOrPercent, TimeUnit,
};

thread_local! {
    /// What [`size_value`] read as fio reads garbage, for the caller to
    /// warn about (each line once).
    static READ_AS: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// The warnings of the values read since the last call (`rfio: warning:
/// bs=4q read as 4, as fio 3.33 reads it`), each once, in order.
pub fn take_read_as_warnings() -> Vec<String> {
    READ_AS.with(|w| std::mem::take(&mut *w.borrow_mut()))
}

/// A size as fio reads it; garbage fio accepts silently (`4q`, `65536)`)
/// is read as fio reads it, with a warning kept for the caller.
fn size_value(name: &str, s: &str, kb_base: u64) -> Result<u64, ValueError> {
    let (v, note) = parse_size_as_fio(s, kb_base).map_err(|e| ValueError::detail(name, e))?;
    if let Some(note) = note {
        keep_warning(name, s, &note);
    }
    Ok(v)
}

fn keep_warning(name: &str, s: &str, note: &str) {
    let line = format!("rfio: warning: {name}={s} {note}, as fio 3.33 reads it\n");
    READ_AS.with(|w| {
        let mut w = w.borrow_mut();
        if !w.contains(&line) {
            w.push(line);
        }
    });
}

/// A range `lo-hi` or `lo:hi` as fio splits it, each bound a
/// [`size_value`]; reversed bounds are swapped as fio does.
fn range_value(name: &str, s: &str, kb_base: u64) -> Result<(u64, u64), ValueError> {
    let (a, b) = split_size_range(s);
    let lo = size_value(name, a, kb_base)?;
    let hi = size_value(name, b, kb_base)?;
    Ok(if lo <= hi { (lo, hi) } else { (hi, lo) })
}

/// How an option's value is written (fio's FIO_OPT_* types).
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    /// Integer with bounds (`max` < 0: unbounded); size suffixes allowed.
    Int { min: i64, max: i64 },
    /// `0` or `1`; a value is required.
    Bool,
    /// Bare flag, or `=0`/`=1`.
    Flag,
    /// A size, optionally a percentage.
    Size { pct: bool },
    /// Up to three sizes for read,write,trim (`bs=4k,64k`).
    SizeList { min: u64, max: u64, default: u64 },
    /// Up to three `lo-hi` ranges (`bsrange`).
    Ranges,
    /// A time; a bare number is in the given unit.
    Time(TimeUnit),
    /// Up to three times for read,write,trim (`max_latency=10ms,1s`), µs.
    TimeList(TimeUnit),
    /// One of the listed words, optionally with a `:postfix`.
    Choice(&'static [(&'static str, &'static str)]),
    /// Any of the listed words, `,`-separated, optionally with a
    /// `:postfix` (fio's OPT_STR_MULTI: `sync_file_range=write,wait_after:8`).
    Multi(&'static [(&'static str, &'static str)]),
    /// Free text.
    Text,
    /// `:`-separated floats (`percentile_list`).
    FloatList,
    /// fio's one-value float list in [0, 1] (`zone_reset_threshold`).
    Fraction,
}

/// A parsed value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Int(i64),
    Bool(bool),
    Size(SizeOrPercent),
    PerDir([u64; 3]),
    Ranges([(u64, u64); 3]),
    /// Microseconds.
    Time(u64),
    Choice(String, Option<String>),
    Text(String),
    Floats(Vec<f64>, usize),
}

/// Why a value was refused: an optional detail line (printed before fio's
/// `failed parsing k=v`) and whether fio's valid-value list should follow.
#[derive(Debug, Clone)]
pub struct ValueError {
    pub detail: Option<String>,
    pub show_choices: bool,
}

impl ValueError {
    /// A reason line; left out for plain non-numbers, where fio's own
    /// `failed parsing` line says it all.
    fn detail(name: &str, msg: impl std::fmt::Display) -> Self {
        let msg = msg.to_string();
        Self {
            detail: (!msg.ends_with("is not a number")).then(|| format!("{name}: {msg}")),
            show_choices: false,
        }
    }
}

/// fio's FLOAT_LIST of one value between 0 and 1 (its minfp/maxfp and
/// maxlen 1): its range lines; a longer list keeps its first value, as
/// fio 3.33 runs it, with fio's line in the warning.
fn parse_fraction(name: &str, s: &str) -> Result<Value, ValueError> {
    let mut parts = s.split(':');
    let first = parts.next().unwrap_or("").trim();
    let plain = |m: String| ValueError {
        detail: Some(m),
        show_choices: false,
    };
    let v: f64 = first
        .parse()
        .map_err(|_| plain(format!("not a floating point value: {first}")))?;
    if v > 1.0 {
        return Err(plain(format!(
            "value out of range: {v:.6} (range max: 1.000000)"
        )));
    }
    if v < 0.0 {
        return Err(plain(format!(
            "value out of range: {v:.6} (range min: 0.000000)"
        )));
    }
    if parts.next().is_some() {
        keep_warning(
            name,
            s,
            "is read as its first value (fio: the list exceeding max length 1)",
        );
    }
    let prec = first.find('.').map_or(0, |d| first.len() - d - 1);
    Ok(Value::Floats(vec![v], prec))
}

/// `Nz` of size, io_size, offset or offset_increment: N (fio's strtoul,
/// kept to 32 bits), or fio's line for anything else ending in `z`.
pub fn zone_count(name: &str, s: &str) -> Result<u64, String> {
    let n = s.strip_suffix('z').unwrap_or(s);
    let digits = n.trim_start().trim_start_matches('+');
    match digits.parse::<u64>() {
        Ok(v) if !digits.is_empty() => Ok(v & 0xffff_ffff),
        _ => Err(format!("{name}: unexpected zone value '{s}'")),
    }
}

fn parse_int(name: &str, s: &str, kb_base: u64, min: i64, max: i64) -> Result<i64, ValueError> {
    let t = s.trim();
    let (neg, body) = match t.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, t),
    };
    let v = size_value(name, body, kb_base)?;
    let v = i64::try_from(v).map_err(|_| ValueError::detail(name, "value out of range"))?;
    let v = if neg { -v } else { v };
    if max >= 0 && v > max {
        return Err(ValueError::detail(
            name,
            format_args!("max value out of range: {v} ({max} max)"),
        ));
    }
    if v < min {
        return Err(ValueError::detail(
            name,
            format_args!("min value out of range: {v} ({min} min)"),
        ));
    }
    Ok(v)
}

/// fio's per-direction list: a missing trailing value repeats the last one,
/// an empty slot keeps the default (§2.1.5).
fn per_dir<T: Copy>(
    s: &str,
    seps: &[char],
    default: T,
    mut one: impl FnMut(&str) -> Result<T, ValueError>,
) -> Result<[T; 3], ValueError> {
    let mut out = [default; 3];
    let parts: Vec<&str> = s.split(seps).collect();
    if parts.len() > 3 {
        return Err(ValueError {
            detail: Some(format!("'{s}': at most three values (read,write,trim)")),
            show_choices: false,
        });
    }
    let mut last = None;
    for (i, p) in parts.iter().enumerate() {
        if p.trim().is_empty() {
            last = None;
            continue;
        }
        let v = one(p)?;
        out[i] = v;
        last = Some(v);
    }
    if let Some(v) = last {
        for slot in out.iter_mut().skip(parts.len()) {
            *slot = v;
        }
    }
    Ok(out)
}

impl Kind {
    /// Whether the command line must supply a value (getopt
    /// `required_argument`); flags take one only after `=`.
    pub fn needs_value(self) -> bool {
        !matches!(self, Kind::Flag)
    }

    /// The "type:" line of `--cmdhelp`, as fio prints it.
    pub fn type_text(self) -> &'static str {
        match self {
            Kind::Int { .. } | Kind::SizeList { .. } => "integer value (opt=100)",
            Kind::Bool => "boolean value (opt=1)",
            Kind::Flag => "empty or boolean value ([0|1])",
            Kind::Size { .. } => "(null)",
            Kind::Ranges => "one to three ranges (opt=1k-4k[,4k-8k[,1k-8k]])",
            Kind::Time(_) => "string with time postfix (opt=10s)",
            Kind::TimeList(_) => "integer value (opt=100)",
            Kind::Choice(_) | Kind::Text => "string (opt=bla)",
            Kind::Multi(_) => "string with possible k/m/g postfix (opt=4k)",
            Kind::FloatList | Kind::Fraction => {
                "list of floating point values separated by ':' (opt=5.9:7.8)"
            }
        }
    }

    /// Parse `s` for option `name`.
    pub fn parse(self, name: &str, s: &str, kb_base: u64) -> Result<Value, ValueError> {
        if let Some(r) = self.zone_suffix(name, s) {
            return r;
        }
        match self {
            Kind::Int { min, max } => parse_int(name, s, kb_base, min, max).map(Value::Int),
            Kind::Bool | Kind::Flag => self.parse_bool(name, s, kb_base),
            Kind::Size { pct } => {
                if pct && s.trim_end().ends_with('%') {
                    parse_size_or_percent(s, kb_base)
                        .map(Value::Size)
                        .map_err(|e| ValueError::detail(name, e))
                } else {
                    size_value(name, s, kb_base).map(|v| Value::Size(SizeOrPercent::Bytes(v)))
                }
            }
            Kind::SizeList { min, max, default } => {
                parse_size_list(name, s, kb_base, (min, max, default))
            }
            Kind::Ranges => parse_ranges(name, s, kb_base),
            Kind::Time(unit) => {
                let (v, note) =
                    parse_time_as_fio(s, unit).map_err(|e| ValueError::detail(name, e))?;
                if let Some(note) = note {
                    keep_warning(name, s, &note);
                }
                Ok(Value::Time(v))
            }
            Kind::TimeList(unit) => per_dir(s, &[','], 0, |p| {
                let (v, note) =
                    parse_time_as_fio(p, unit).map_err(|e| ValueError::detail(name, e))?;
                if let Some(note) = note {
                    keep_warning(name, p, &note);
                }
                Ok(v)
            })
            .map(Value::PerDir),
            Kind::Choice(words) => parse_choice(words, s),
            Kind::Multi(words) => parse_multi(name, words, s),
            Kind::Text => Ok(Value::Text(s.to_string())),
            Kind::FloatList => parse_percentile_list(s)
                .map(|(v, p)| Value::Floats(v, p))
                .map_err(|e| ValueError::detail(name, e)),
            Kind::Fraction => parse_fraction(name, s),
        }
    }

    /// fio's `Nz` (zones, §2.1.4): size, io_size, offset and
    /// offset_increment take it (N read by zone_count, sized by
    /// run/offsets/zones.rs); other numbers refuse it with fio's line.
    /// None when `s` has no `z` or the kind is no number.
    fn zone_suffix(self, name: &str, s: &str) -> Option<Result<Value, ValueError>> {
        if !s.ends_with('z') {
            return None;
        }
        match self {
            Kind::Size { pct: true } => Some(
                zone_count(name, s)
                    .map(|_| Value::Text(s.to_string()))
                    .map_err(|e| ValueError {
                        detail: Some(e),
                        show_choices: false,
                    }),
            ),
            Kind::Int { .. }
            | Kind::SizeList { .. }
            | Kind::Time(_)
            | Kind::TimeList(_)
            | Kind::Size { .. } => Some(Err(ValueError {
                detail: Some(format!("{name}: 'z' suffix isn't applicable")),
                show_choices: false,
            })),
            _ => None,
        }
    }

    /// A boolean, or a flag (empty: set).
    fn parse_bool(self, name: &str, s: &str, kb_base: u64) -> Result<Value, ValueError> {
        match s.trim() {
            "" if matches!(self, Kind::Flag) => Ok(Value::Bool(true)),
            t => {
                // fio words a boolean's range error without the name.
                let v = parse_int(name, t, kb_base, 0, 1).map_err(|mut e| {
                    e.detail = e
                        .detail
                        .map(|d| d.trim_start_matches(&format!("{name}: ")).to_string());
                    e
                })?;
                Ok(Value::Bool(v == 1))
            }
        }
    }
}

/// Per-direction sizes, each within `min..=max`.
fn parse_size_list(
    name: &str,
    s: &str,
    kb_base: u64,
    (min, max, default): (u64, u64, u64),
) -> Result<Value, ValueError> {
    per_dir(s, &[',', ':', '-'], default, |p| {
        let v = size_value(name, p, kb_base)?;
        if v < min {
            return Err(ValueError::detail(
                name,
                format_args!("min value out of range: {v} ({min} min)"),
            ));
        }
        if v > max {
            return Err(ValueError::detail(
                name,
                format_args!("max value out of range: {v} ({max} max)"),
            ));
        }
        Ok(v)
    })
    .map(Value::PerDir)
}

/// Per-direction size ranges, none starting at 0.
fn parse_ranges(name: &str, s: &str, kb_base: u64) -> Result<Value, ValueError> {
    per_dir(s, &[','], (4096, 4096), |p| {
        let r = range_value(name, p, kb_base)?;
        if r.0 == 0 {
            return Err(ValueError::detail(
                name,
                "min value out of range: 0 (1 min)",
            ));
        }
        Ok(r)
    })
    .map(Value::Ranges)
}

/// Any of `words`, `,`-separated, the words found kept `,`-joined and
/// what follows the first `:` as the postfix. As fio, a value fails only
/// when no word is known; unknown words beside known ones are read past
/// (fio lists the valid values for each and goes on), with a warning.
fn parse_multi(name: &str, words: &[(&str, &str)], s: &str) -> Result<Value, ValueError> {
    let (list, postfix) = match s.split_once(':') {
        Some((l, p)) => (l, Some(p.to_string())),
        None => (s, None),
    };
    let (known, unknown): (Vec<&str>, Vec<&str>) = list
        .split(',')
        .map(str::trim)
        .partition(|t| words.iter().any(|(w, _)| w == t));
    if known.is_empty() {
        return Err(ValueError {
            detail: None,
            show_choices: true,
        });
    }
    let joined = known.join(",");
    if !unknown.is_empty() {
        let note = format!(
            "read as {joined} ({} not one of its values)",
            unknown.join(",")
        );
        keep_warning(name, s, &note);
    }
    Ok(Value::Choice(joined, postfix))
}

/// One of `words`, with what follows a `:` or `,` kept as its postfix.
fn parse_choice(words: &[(&str, &str)], s: &str) -> Result<Value, ValueError> {
    let t = s.trim();
    let (word, postfix) = match t.find([':', ',']) {
        Some(i) => (&t[..i], Some(t[i + 1..].to_string())),
        None => (t, None),
    };
    if words.iter().any(|(w, _)| *w == word) {
        Ok(Value::Choice(word.to_string(), postfix))
    } else {
        Err(ValueError {
            detail: None,
            show_choices: true,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multi_words_read_as_fio_reads_them() {
        const W: &[(&str, &str)] = &[("wait_before", ""), ("write", ""), ("wait_after", "")];
        let v = parse_multi("sfr", W, "wait_before,write:4").unwrap();
        assert_eq!(
            v,
            Value::Choice("wait_before,write".into(), Some("4".into()))
        );
        // An unknown word beside a known one is read past; alone it fails.
        let v = parse_multi("sfr", W, "write,bogus").unwrap();
        assert_eq!(v, Value::Choice("write".into(), None));
        assert!(take_read_as_warnings()[0].contains("sfr=write,bogus read as write"));
        assert!(parse_multi("sfr", W, "bogus,bogus2:3").is_err());
    }
}
