//! `sysbench.opt`: every option's value, typed as sysbench exports it
//! (do_export_options): booleans, numbers, strings, lists as tables; file
//! options as nil. Built once on the main thread, installed in each state.

use mlua::{IntoLua, Lua, Value};

use crate::args::Values;
use crate::options::{internal_name, Kind, OptDef};

#[derive(Debug, Clone)]
pub enum OptValue {
    Bool(bool),
    Number(f64),
    Str(String),
    List(Vec<String>),
    Nil,
}

impl OptValue {
    pub fn to_lua(&self, lua: &Lua) -> mlua::Result<Value> {
        match self {
            OptValue::Bool(b) => Ok(Value::Boolean(*b)),
            OptValue::Number(n) => Ok(Value::Number(*n)),
            OptValue::Str(s) => s.as_str().into_lua(lua),
            OptValue::List(l) => {
                let t = lua.create_table()?;
                for (i, s) in l.iter().enumerate() {
                    t.raw_set(i + 1, s.as_str())?;
                }
                Ok(Value::Table(t))
            }
            OptValue::Nil => Ok(Value::Nil),
        }
    }
}

/// C's strtod on the longest numeric prefix (garbage reads 0, as sysbench).
pub fn strtod(s: &str) -> f64 {
    let t = s.trim_start();
    let mut end = 0;
    for i in (1..=t.len()).rev() {
        if t.is_char_boundary(i) && t[..i].parse::<f64>().is_ok() {
            end = i;
            break;
        }
    }
    if end == 0 {
        return 0.0;
    }
    let v: f64 = t[..end].parse().unwrap_or(0.0);
    // "inf"/"nan" words parse in Rust and in C alike; keep them.
    v
}

/// An option's value; an integer that is not one is sysbench's error
/// (`Invalid value for the 'x' option: 'v'`).
fn typed(v: &Values, d: &OptDef) -> crate::error::Result<OptValue> {
    let raw = v.raw(d.name);
    Ok(match d.kind {
        // A boolean declared without a default is on, as sysbench
        // registers it (a bare flag).
        Kind::Bool => OptValue::Bool(raw.as_deref().is_none_or(|r| r == "on")),
        Kind::Int if raw.is_some() => OptValue::Number(v.int(d.name)? as f64),
        Kind::Int => OptValue::Number(0.0),
        Kind::IntSize | Kind::Size => OptValue::Number(
            raw.as_deref()
                .and_then(|r| rbench_common::units::sysbench::parse_size(r).ok())
                .unwrap_or(0) as f64,
        ),
        Kind::Double => OptValue::Number(raw.as_deref().map_or(0.0, strtod)),
        Kind::Str => OptValue::Str(raw.unwrap_or_default()),
        Kind::List => OptValue::List(v.list(d.name)),
        Kind::File => OptValue::Nil,
    })
}

/// Every option of `tables` with its value, under sysbench's internal
/// (`_`) names; later tables win a name clash. `extra` are the options a
/// legacy script was given without declaring them (exported as strings).
pub fn collect(
    v: &Values,
    tables: &[&[OptDef]],
    extra: &[(String, String)],
) -> crate::error::Result<Vec<(String, OptValue)>> {
    let mut out: Vec<(String, OptValue)> = Vec::new();
    for d in tables.iter().flat_map(|t| t.iter()) {
        if d.name == "config-file" {
            continue;
        }
        let name = internal_name(d.name);
        let value = typed(v, d)?;
        match out.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = value,
            None => out.push((name, value)),
        }
    }
    for (name, value) in extra {
        let name = internal_name(name);
        out.retain(|(n, _)| *n != name);
        out.push((name, OptValue::Str(value.clone())));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_number_prefixes() {
        assert_eq!(strtod("1.5x"), 1.5);
        assert_eq!(strtod("abc"), 0.0);
    }
}
