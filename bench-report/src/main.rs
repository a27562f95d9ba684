//! `bench-report DIR`: bench-all's results folder drawn as one page,
//! `DIR/report.html`. It reads what bench-all wrote there (facts.csv, the
//! section CSVs, raw/notes-*.txt) and writes a single self-contained HTML
//! file: inline CSS and SVG, no scripts, nothing fetched, so it opens from
//! disk, mailed or archived, as it was written.
//!
//! Layers: `data` reads the CSVs into typed rows, `section/` turns each
//! section's rows into charts (`rbench_common::chart`), `page` lays out the
//! HTML. No measuring here; bench-all calls it once the tables are written.

mod data;
mod page;
mod section;

use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "\
Usage: bench-report [--only LIST] [-o FILE] DIR

Draw bench-all's results in DIR (facts.csv, cpu.csv, disk.csv, mem.csv,
net.csv, raw/notes-*.txt) as one self-contained HTML page.

Options:
  --only LIST      sections to draw, comma-separated (cpu,disk,mem,net);
                   default: every section whose CSV is in DIR
  -o, --output FILE  where to write the page (default: DIR/report.html)
  -h, --help       show this help
  -V, --version    show the version
";

struct Args {
    only: Option<String>,
    output: Option<PathBuf>,
    dir: PathBuf,
}

/// The command line; Err: the message for stderr, or Ok(None) when --help
/// or --version answered.
fn parse(argv: impl Iterator<Item = String>) -> Result<Option<Args>, String> {
    let (mut only, mut output, mut dir) = (None, None, None);
    let mut argv = argv.peekable();
    while let Some(a) = argv.next() {
        let mut value = |name: &str| {
            argv.next()
                .ok_or_else(|| format!("option '{name}' needs a value (see --help)"))
        };
        match a.as_str() {
            "-h" | "--help" => {
                print!("{USAGE}");
                return Ok(None);
            }
            "-V" | "--version" => {
                println!("bench-report {}", env!("CARGO_PKG_VERSION"));
                return Ok(None);
            }
            "--only" => only = Some(value("--only")?),
            "-o" | "--output" => output = Some(PathBuf::from(value(&a)?)),
            _ if a.starts_with("--only=") => only = Some(a["--only=".len()..].to_string()),
            _ if a.starts_with("--output=") => {
                output = Some(PathBuf::from(&a["--output=".len()..]))
            }
            _ if a.starts_with('-') && a.len() > 1 => {
                return Err(format!("unknown option '{a}' (see --help)"))
            }
            _ if dir.is_none() => dir = Some(PathBuf::from(a)),
            _ => return Err(format!("one folder only: '{a}' is a second (see --help)")),
        }
    }
    let dir = dir.ok_or("which folder? (bench-report DIR; see --help)")?;
    Ok(Some(Args { only, output, dir }))
}

fn run(args: &Args) -> Result<PathBuf, String> {
    let only: Vec<&str> = match &args.only {
        Some(list) => list.split(',').filter(|s| !s.is_empty()).collect(),
        None => data::SECTIONS.to_vec(),
    };
    if let Some(bad) = only.iter().find(|s| !data::SECTIONS.contains(s)) {
        return Err(format!(
            "--only: unknown section '{bad}' (cpu, disk, mem, net)"
        ));
    }
    let results = data::read(&args.dir, &only, args.only.is_some())?;
    let html = page::render(&results)?;
    let out = args
        .output
        .clone()
        .unwrap_or_else(|| args.dir.join("report.html"));
    std::fs::write(&out, html).map_err(|e| format!("cannot write '{}': {e}", out.display()))?;
    Ok(out)
}

fn main() -> ExitCode {
    let result = parse(std::env::args().skip(1)).and_then(|args| match args {
        Some(args) => run(&args).map(|_| ()),
        None => Ok(()),
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench-report: error: {e}");
            ExitCode::FAILURE
        }
    }
}
