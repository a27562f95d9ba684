//! bench-all's results folder read into typed rows: `facts.csv` (key, fact,
//! value), one CSV per section and the notes bench-all printed under each
//! table (`raw/notes-SECTION.txt`). Errors name the file, the row and the
//! column.

use std::path::Path;

pub const SECTIONS: [&str; 4] = ["cpu", "disk", "mem", "net"];

/// A CSV file: its header and rows, read with the file's name kept for
/// messages.
struct Table {
    name: String,
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    fn read(path: &Path) -> Result<Table, String> {
        let name = path.display().to_string();
        let mut r = csv::ReaderBuilder::new()
            .flexible(false)
            .from_path(path)
            .map_err(|e| format!("cannot read '{name}': {e}"))?;
        let header = r
            .headers()
            .map_err(|e| format!("{name}: {e}"))?
            .iter()
            .map(str::to_string)
            .collect();
        let mut rows = Vec::new();
        for rec in r.records() {
            let rec = rec.map_err(|e| format!("{name}: {e}"))?;
            rows.push(rec.iter().map(str::to_string).collect());
        }
        Ok(Table { name, header, rows })
    }

    fn col(&self, want: &str) -> Option<usize> {
        self.header.iter().position(|h| h == want)
    }

    fn text(&self, row: usize, want: &str) -> Result<String, String> {
        let c = self
            .col(want)
            .ok_or_else(|| format!("{}: no column '{want}'", self.name))?;
        Ok(self.rows[row][c].clone())
    }

    /// A cell that may be empty ("does not apply") or absent (an older
    /// bench-all): None then; anything else must be a number.
    fn optional(&self, row: usize, want: &str) -> Result<Option<f64>, String> {
        let Some(c) = self.col(want) else {
            return Ok(None);
        };
        let cell = self.rows[row][c].trim();
        if cell.is_empty() {
            return Ok(None);
        }
        cell.parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .map(Some)
            .ok_or_else(|| {
                format!(
                    "{}: row {}: '{want}' is '{cell}', not a number",
                    self.name,
                    row + 2
                )
            })
    }

    fn number(&self, row: usize, want: &str) -> Result<f64, String> {
        self.optional(row, want)?.ok_or_else(|| {
            if self.col(want).is_none() {
                format!("{}: no column '{want}'", self.name)
            } else {
                format!("{}: row {}: '{want}' is empty", self.name, row + 2)
            }
        })
    }
}

/// One step of rsysbench cpu.
pub struct Cpu {
    pub threads: f64,
    pub events_per_s: f64,
    pub efficiency_percent: f64,
}

/// One rfio run.
pub struct Disk {
    pub test: String,
    pub iops: f64,
    pub mib_per_s: f64,
    pub clat_p50_us: Option<f64>,
    pub clat_p95_us: Option<f64>,
    pub clat_p99_us: Option<f64>,
    /// "iops" or "bandwidth".
    pub limit: String,
}

/// One rmbw method.
pub struct Mem {
    pub test: String,
    pub threads: f64,
    pub array_mib: f64,
    pub avg_mib_per_s: f64,
    pub best_mib_per_s: f64,
}

/// One riperf test.
pub struct Net {
    pub test: String,
    pub protocol: String,
    pub sender_bits_per_s: f64,
    pub receiver_bits_per_s: f64,
    pub loss_percent: Option<f64>,
    pub lost_packets: Option<f64>,
    pub packets: Option<f64>,
}

/// A section's rows and bench-all's notes under its table.
pub struct Section<R> {
    pub rows: Vec<R>,
    pub notes: Vec<String>,
}

/// Everything the page shows.
pub struct Results {
    /// (fact, value) in bench-all's order, for the facts table.
    pub facts: Vec<(String, String)>,
    pub cpus_online: Option<f64>,
    pub cpu: Option<Section<Cpu>>,
    pub disk: Option<Section<Disk>>,
    pub mem: Option<Section<Mem>>,
    pub net: Option<Section<Net>>,
}

fn rows<R>(t: &Table, row: impl Fn(&Table, usize) -> Result<R, String>) -> Result<Vec<R>, String> {
    if t.rows.is_empty() {
        return Err(format!("{}: no rows", t.name));
    }
    (0..t.rows.len()).map(|i| row(t, i)).collect()
}

fn cpu(t: &Table, i: usize) -> Result<Cpu, String> {
    Ok(Cpu {
        threads: t.number(i, "threads")?,
        events_per_s: t.number(i, "events_per_s")?,
        efficiency_percent: t.number(i, "efficiency_percent")?,
    })
}

fn disk(t: &Table, i: usize) -> Result<Disk, String> {
    Ok(Disk {
        test: t.text(i, "test")?,
        iops: t.number(i, "iops")?,
        mib_per_s: t.number(i, "mib_per_s")?,
        clat_p50_us: t.optional(i, "clat_p50_us")?,
        clat_p95_us: t.optional(i, "clat_p95_us")?,
        clat_p99_us: t.optional(i, "clat_p99_us")?,
        limit: t.text(i, "limit")?,
    })
}

fn mem(t: &Table, i: usize) -> Result<Mem, String> {
    Ok(Mem {
        test: t.text(i, "test")?,
        threads: t.number(i, "threads")?,
        array_mib: t.number(i, "array_mib")?,
        avg_mib_per_s: t.number(i, "avg_mib_per_s")?,
        best_mib_per_s: t.number(i, "best_mib_per_s")?,
    })
}

fn net(t: &Table, i: usize) -> Result<Net, String> {
    Ok(Net {
        test: t.text(i, "test")?,
        protocol: t.text(i, "protocol")?,
        sender_bits_per_s: t.number(i, "sender_bits_per_s")?,
        receiver_bits_per_s: t.number(i, "receiver_bits_per_s")?,
        loss_percent: t.optional(i, "loss_percent")?,
        lost_packets: t.optional(i, "lost_packets")?,
        packets: t.optional(i, "packets")?,
    })
}

/// bench-all's notes for a section, one per line (none: empty).
fn notes(dir: &Path, s: &str) -> Vec<String> {
    std::fs::read_to_string(dir.join("raw").join(format!("notes-{s}.txt")))
        .unwrap_or_default()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

/// Read the sections in `only` from `dir`. A section named with --only
/// (`named`) must be there; otherwise a missing CSV means bench-all did not
/// run that section.
pub fn read(dir: &Path, only: &[&str], named: bool) -> Result<Results, String> {
    let table = |s: &str| -> Result<Option<Table>, String> {
        if !only.contains(&s) {
            return Ok(None);
        }
        let path = dir.join(format!("{s}.csv"));
        if !path.exists() {
            return if named {
                Err(format!("'{}' not found", path.display()))
            } else {
                Ok(None)
            };
        }
        Table::read(&path).map(Some)
    };
    fn section<R>(
        dir: &Path,
        s: &str,
        t: Option<Table>,
        row: impl Fn(&Table, usize) -> Result<R, String>,
    ) -> Result<Option<Section<R>>, String> {
        t.map(|t| {
            Ok(Section {
                rows: rows(&t, row)?,
                notes: notes(dir, s),
            })
        })
        .transpose()
    }
    let mut r = Results {
        facts: Vec::new(),
        cpus_online: None,
        cpu: section(dir, "cpu", table("cpu")?, cpu)?,
        disk: section(dir, "disk", table("disk")?, disk)?,
        mem: section(dir, "mem", table("mem")?, mem)?,
        net: section(dir, "net", table("net")?, net)?,
    };
    if r.cpu.is_none() && r.disk.is_none() && r.mem.is_none() && r.net.is_none() {
        return Err(format!(
            "no section CSV (cpu.csv, disk.csv, mem.csv, net.csv) in '{}'",
            dir.display()
        ));
    }
    let facts = dir.join("facts.csv");
    if facts.exists() {
        let t = Table::read(&facts)?;
        for i in 0..t.rows.len() {
            let (key, value) = (t.text(i, "key")?, t.text(i, "value")?);
            if key == "cpus_online" {
                r.cpus_online = value.parse().ok();
            }
            r.facts.push((t.text(i, "fact")?, value));
        }
    }
    Ok(r)
}
