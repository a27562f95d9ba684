//! Output helpers: the shared `--output-format` value, CSV through the `csv`
//! crate and JSON through serde_json.

use std::fmt;
use std::str::FromStr;

/// The `--output-format` choices every tool shares (rfio adds its own on top).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OutputFormat {
    /// The original tool's human-readable text.
    #[default]
    Text,
    /// One JSON document on stdout.
    Json,
    /// One header row, then rows of equal width.
    Csv,
}

impl FromStr for OutputFormat {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "text" | "normal" => Ok(Self::Text),
            "json" => Ok(Self::Json),
            "csv" => Ok(Self::Csv),
            _ => Err(format!(
                "invalid output format '{s}': expected text, json or csv"
            )),
        }
    }
}

impl fmt::Display for OutputFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Text => "text",
            Self::Json => "json",
            Self::Csv => "csv",
        })
    }
}

/// Render rows as CSV: exactly one header row, every row the same width.
pub fn to_csv<R: serde::Serialize>(rows: &[R]) -> Result<String, String> {
    let mut w = csv::WriterBuilder::new()
        .has_headers(true)
        .from_writer(Vec::new());
    for r in rows {
        w.serialize(r)
            .map_err(|e| format!("CSV output failed: {e}"))?;
    }
    let bytes = w
        .into_inner()
        .map_err(|e| format!("CSV output failed: {e}"))?;
    String::from_utf8(bytes).map_err(|e| format!("CSV output failed: {e}"))
}

/// Render one value as a pretty JSON document with a trailing newline.
pub fn to_json<T: serde::Serialize>(value: &T) -> Result<String, String> {
    let mut s =
        serde_json::to_string_pretty(value).map_err(|e| format!("JSON output failed: {e}"))?;
    s.push('\n');
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Serialize)]
    struct Row {
        method: &'static str,
        elapsed_s: f64,
    }

    #[test]
    fn parses_formats() {
        assert_eq!("json".parse::<OutputFormat>().unwrap(), OutputFormat::Json);
        assert_eq!(
            "normal".parse::<OutputFormat>().unwrap(),
            OutputFormat::Text
        );
        assert!("xml".parse::<OutputFormat>().is_err());
    }

    #[test]
    fn csv_has_one_header() {
        let s = to_csv(&[
            Row {
                method: "a",
                elapsed_s: 1.0,
            },
            Row {
                method: "b",
                elapsed_s: 2.5,
            },
        ])
        .unwrap();
        assert_eq!(s, "method,elapsed_s\na,1.0\nb,2.5\n");
    }

    #[test]
    fn json_is_one_document() {
        let s = to_json(&vec![1, 2]).unwrap();
        let v: serde_json::Value = serde_json::from_str(&s).unwrap();
        assert_eq!(v, serde_json::json!([1, 2]));
    }
}
