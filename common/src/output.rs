//! Output helpers: the shared `--output-format` value, CSV through the `csv`
//! crate and JSON through serde_json.

use std::fmt;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};

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

/// The C library's text for `errno` (`No such file or directory`), as the
/// originals print it.
pub fn strerror(errno: i32) -> String {
    // SAFETY: strerror returns a valid NUL-terminated static string.
    unsafe { std::ffi::CStr::from_ptr(libc::strerror(errno)) }
        .to_string_lossy()
        .into_owned()
}

/// Render rows as CSV: exactly one header row (from the first row's field
/// names), every row the same width. Column names are the struct's field
/// names: use snake_case with unit suffixes (`_ns`, `_ms`, `_s`, `_bytes`,
/// `_per_s`). Rows must be flat structs (no nested structs or sequences);
/// rows of different shapes are an error. An empty slice renders as an empty
/// string (there is no row to take the header from).
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

/// Write `bytes` to `path` so that readers see either the old content or
/// all of the new, never a half-written file: write a temporary file beside
/// the target, fsync it, rename it over the target, then fsync the directory
/// (best effort).
///
/// A symlink is followed (its target file is replaced). Paths that exist but
/// are not regular files (`/dev/stdout`, a FIFO, a terminal) cannot be
/// replaced and are simply written to.
pub fn write_atomically(path: impl AsRef<Path>, bytes: &[u8]) -> io::Result<()> {
    let path = path.as_ref();
    let ctx = |e: io::Error| io::Error::new(e.kind(), format!("{}: {e}", path.display()));
    let target: PathBuf = match fs::metadata(path) {
        Ok(m) if !m.is_file() => {
            let mut f = fs::OpenOptions::new().write(true).open(path).map_err(ctx)?;
            return f.write_all(bytes).and_then(|_| f.flush()).map_err(ctx);
        }
        Ok(_) => fs::canonicalize(path).map_err(ctx)?,
        Err(e) if e.kind() == io::ErrorKind::NotFound => path.to_path_buf(),
        Err(e) => return Err(ctx(e)),
    };
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = target.file_name().ok_or_else(|| {
        ctx(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a file name",
        ))
    })?;
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let tmp = dir.join(format!(
        ".{}.tmp.{}.{}",
        name.to_string_lossy(),
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    ));
    let result = (|| {
        let mut f = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        fs::rename(&tmp, &target)
    })();
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(ctx(e));
    }
    if let Ok(d) = fs::File::open(&dir) {
        let _ = d.sync_all();
    }
    Ok(())
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
    fn csv_rows_all_have_the_header_width() {
        #[derive(serde::Serialize)]
        struct Wide {
            method: String,
            run: String,
            elapsed_s: f64,
            mib: f64,
            mib_per_s: f64,
        }
        let rows: Vec<Wide> = (0..5)
            .map(|i| Wide {
                method: format!("m,{i}"), // a comma that must be quoted
                run: if i == 4 { "AVG".into() } else { i.to_string() },
                elapsed_s: i as f64 * 0.25,
                mib: 256.0,
                mib_per_s: 1e4 / (i as f64 + 1.0),
            })
            .collect();
        let s = to_csv(&rows).unwrap();
        let mut r = csv::ReaderBuilder::new()
            .has_headers(true)
            .flexible(false)
            .from_reader(s.as_bytes());
        let header = r.headers().unwrap().clone();
        assert_eq!(
            header.iter().collect::<Vec<_>>(),
            ["method", "run", "elapsed_s", "mib", "mib_per_s"]
        );
        let records: Vec<csv::StringRecord> = r.records().map(|x| x.unwrap()).collect();
        assert_eq!(records.len(), 5);
        assert!(records.iter().all(|rec| rec.len() == header.len()));
        assert_eq!(&records[1][0], "m,1");
        assert!(to_csv::<Wide>(&[]).unwrap().is_empty());
    }

    fn scratch_dir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!(
            "rbench-output-{tag}-{}-{}",
            std::process::id(),
            crate::clock::now_ns()
        ));
        fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn write_atomically_replaces_and_leaves_no_temp_files() {
        let dir = scratch_dir("atomic");
        let target = dir.join("out.json");
        write_atomically(&target, b"{\"a\": 1}\n").unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"{\"a\": 1}\n");
        write_atomically(&target, b"[]\n").unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"[]\n");
        let names: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["out.json"]);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn write_atomically_follows_symlinks_and_writes_devices() {
        let dir = scratch_dir("link");
        let real = dir.join("real.csv");
        let link = dir.join("link.csv");
        fs::write(&real, "old").unwrap();
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write_atomically(&link, b"new").unwrap();
        assert!(fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(fs::read(&real).unwrap(), b"new");
        // A character device is written in place, not replaced.
        write_atomically("/dev/null", b"discarded").unwrap();
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn write_atomically_reports_the_path() {
        let err = write_atomically("/nonexistent-dir-rbench/x.json", b"x").unwrap_err();
        assert!(
            err.to_string().contains("/nonexistent-dir-rbench/x.json"),
            "{err}"
        );
    }

    #[test]
    fn json_is_one_document() {
        let s = to_json(&vec![1, 2]).unwrap();
        let v: serde_json::Value = serde_json::from_str(&s).unwrap();
        assert_eq!(v, serde_json::json!([1, 2]));
    }
}
