//! JSON text exactly as iperf3's bundled cJSON prints it (spec §6.1): the
//! compact form on the wire, the tab-indented form for `-J`.
//!
//! Numbers: a value whose double is integral prints as an integer; otherwise
//! the shortest of `%.15g` that reads back equal, else `%.17g`.

use serde_json::{Number, Value};
use std::fmt::Write;

/// Compact text, as `cJSON_PrintUnformatted` (the control-connection form).
pub fn to_compact(v: &Value) -> String {
    let mut s = String::new();
    write_value(&mut s, v, None);
    s
}

/// Pretty text, as `cJSON_Print` (the `-J` form), without trailing newline.
pub fn to_pretty(v: &Value) -> String {
    let mut s = String::new();
    write_value(&mut s, v, Some(0));
    s
}

fn indent(s: &mut String, depth: usize) {
    for _ in 0..depth {
        s.push('\t');
    }
}

fn write_value(s: &mut String, v: &Value, depth: Option<usize>) {
    match v {
        Value::Null => s.push_str("null"),
        Value::Bool(b) => s.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => write_number(s, n),
        Value::String(t) => write_string(s, t),
        Value::Array(a) => {
            s.push('[');
            // cJSON counts an array as a level too (elements indent one deeper).
            let inner = depth.map(|d| d + 1);
            for (i, item) in a.iter().enumerate() {
                if i > 0 {
                    s.push(',');
                    if depth.is_some() {
                        s.push(' ');
                    }
                }
                write_value(s, item, inner);
            }
            s.push(']');
        }
        Value::Object(m) => {
            s.push('{');
            let inner = depth.map(|d| d + 1);
            if let Some(d) = inner {
                s.push('\n');
                for (i, (k, item)) in m.iter().enumerate() {
                    indent(s, d);
                    write_string(s, k);
                    s.push_str(":\t");
                    write_value(s, item, inner);
                    if i + 1 < m.len() {
                        s.push(',');
                    }
                    s.push('\n');
                }
                indent(s, d - 1);
            } else {
                for (i, (k, item)) in m.iter().enumerate() {
                    if i > 0 {
                        s.push(',');
                    }
                    write_string(s, k);
                    s.push(':');
                    write_value(s, item, None);
                }
            }
            s.push('}');
        }
    }
}

fn write_number(s: &mut String, n: &Number) {
    if let Some(i) = n.as_i64() {
        let _ = write!(s, "{i}");
    } else if let Some(u) = n.as_u64() {
        let _ = write!(s, "{u}");
    } else {
        s.push_str(&format_double(n.as_f64().unwrap_or(0.0)));
    }
}

/// A double as cJSON prints it.
pub fn format_double(d: f64) -> String {
    if !d.is_finite() {
        return "null".into();
    }
    if d == d.trunc() && d.abs() < 9.2e18 {
        return format!("{}", d as i64);
    }
    let g15 = format_g(d, 15);
    match g15.parse::<f64>() {
        Ok(back) if back == d => g15,
        _ => format_g(d, 17),
    }
}

/// C's `%.{prec}g`.
pub fn format_g(d: f64, prec: usize) -> String {
    if d == 0.0 {
        return "0".into();
    }
    let prec = prec.max(1);
    let e = format!("{:.*e}", prec - 1, d);
    let (mant, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if exp < -4 || exp >= prec as i32 {
        let mant = strip_zeros(mant);
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mant}e{sign}{:02}", exp.abs())
    } else {
        let decimals = (prec as i32 - 1 - exp).max(0) as usize;
        strip_zeros(&format!("{d:.decimals$}")).to_string()
    }
}

fn strip_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

fn write_string(s: &mut String, t: &str) {
    s.push('"');
    for c in t.chars() {
        match c {
            '"' => s.push_str("\\\""),
            '\\' => s.push_str("\\\\"),
            '\u{8}' => s.push_str("\\b"),
            '\u{c}' => s.push_str("\\f"),
            '\n' => s.push_str("\\n"),
            '\r' => s.push_str("\\r"),
            '\t' => s.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(s, "\\u{:04x}", c as u32);
            }
            c => s.push(c),
        }
    }
    s.push('"');
}

/// A JSON number from a double, kept as a float unless integral (so the
/// printer and `serde_json` agree on what is an integer).
pub fn num(d: f64) -> Value {
    if d == d.trunc() && d.abs() < 9.2e18 {
        Value::from(d as i64)
    } else {
        Number::from_f64(d).map_or(Value::Null, Value::Number)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    // The exact digits 3.12 printed are the point of this test.
    #[allow(clippy::excessive_precision)]
    fn numbers_like_cjson() {
        assert_eq!(format_double(1.000185), "1.000185");
        assert_eq!(format_double(1.0001850128173828), "1.0001850128173828");
        assert_eq!(
            format_double(1.9284093465804341e-05),
            "1.9284093465804341e-05"
        );
        assert_eq!(format_double(15305329341.897484), "15305329341.897484");
        assert_eq!(format_double(0.0), "0");
        assert_eq!(format_double(3988389888.0), "3988389888");
        assert_eq!(format_g(0.5, 15), "0.5");
        assert_eq!(format_g(1e-5, 15), "1e-05");
        assert_eq!(format_g(123456.0, 3), "1.23e+05");
    }

    #[test]
    fn pretty_layout_matches_cjson() {
        let v = json!({"a": [{"x": 1}, {"y": true}], "e": {}, "s": "t", "l": []});
        assert_eq!(
            to_pretty(&v),
            "{\n\t\"a\":\t[{\n\t\t\t\"x\":\t1\n\t\t}, {\n\t\t\t\"y\":\ttrue\n\t\t}],\n\t\"e\":\t{\n\t},\n\t\"s\":\t\"t\",\n\t\"l\":\t[]\n}"
        );
        assert_eq!(
            to_compact(&v),
            r#"{"a":[{"x":1},{"y":true}],"e":{},"s":"t","l":[]}"#
        );
    }
}
