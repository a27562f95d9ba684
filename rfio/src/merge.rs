//! `rfio --merge A.json B.json ...` (rfio's own): json+ reports of fio or
//! rfio runs, from one machine each or from `--client` (`jobs` or
//! `client_stats`, the `All clients` sum left out), merged into one unit
//! whose latency percentiles come from the union of every unit's bins:
//! exact, in fio's method, where averaging percentiles is not.

use crate::failure::Failure;
use crate::report::json::J;
use rbench_common::histogram::LatencyHistogram;
use serde_json::Value;

const DIRS: [&str; 3] = ["read", "write", "trim"];
const KINDS: [&str; 3] = ["slat_ns", "clat_ns", "lat_ns"];

/// True when the command line asks for a merge.
pub fn wanted(args: &[String]) -> bool {
    args.iter().skip(1).any(|a| a == "--merge" || a == "-merge")
}

/// One latency kind summed over units.
#[derive(Default)]
struct Lat {
    n: u64,
    min: u64,
    max: u64,
    sum: f64,
    /// Σ (n−1)·sd² + n·mean², to fold the standard deviations.
    sq: f64,
    bins: Vec<(u64, u64)>,
    /// The first unit's percentile keys, as printed.
    pct_keys: Vec<String>,
    saw_bins: bool,
}

#[derive(Default)]
struct Dir {
    io_bytes: u64,
    total_ios: u64,
    runtime: u64,
    lat: [Lat; 3],
}

fn u(v: &Value) -> u64 {
    v.as_u64()
        .or_else(|| v.as_f64().map(|f| f as u64))
        .unwrap_or(0)
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or(0.0)
}

impl Lat {
    fn add(&mut self, v: &Value) {
        let n = u(&v["N"]);
        if self.pct_keys.is_empty() {
            if let Some(p) = v["percentile"].as_object() {
                self.pct_keys = p.keys().cloned().collect();
            }
        }
        if let Some(b) = v["bins"].as_object() {
            self.saw_bins = true;
            for (k, c) in b {
                if let Ok(val) = k.parse::<u64>() {
                    self.bins.push((val, u(c)));
                }
            }
        }
        if n == 0 {
            return;
        }
        let (mean, sd) = (f(&v["mean"]), f(&v["stddev"]));
        self.min = if self.n == 0 {
            u(&v["min"])
        } else {
            self.min.min(u(&v["min"]))
        };
        self.max = self.max.max(u(&v["max"]));
        self.sum += mean * n as f64;
        self.sq += (n as f64 - 1.0) * sd * sd + n as f64 * mean * mean;
        self.n += n;
    }

    fn json(&self) -> J {
        let n = self.n as f64;
        let mean = if self.n == 0 { 0.0 } else { self.sum / n };
        let var = if self.n > 1 {
            ((self.sq - n * mean * mean) / (n - 1.0)).max(0.0)
        } else {
            0.0
        };
        let mut e = vec![
            ("min".to_string(), J::UInt(self.min)),
            ("max".to_string(), J::UInt(self.max)),
            ("mean".to_string(), J::Float(mean)),
            ("stddev".to_string(), J::Float(var.sqrt())),
            ("N".to_string(), J::UInt(self.n)),
        ];
        if !self.saw_bins {
            return J::Obj(e);
        }
        let mut h = LatencyHistogram::new();
        for &(v, c) in &self.bins {
            h.record_n(v, c);
        }
        let ps: Vec<f64> = self
            .pct_keys
            .iter()
            .filter_map(|k| k.parse().ok())
            .collect();
        if self.n > 0 && !ps.is_empty() {
            let vals = h.percentiles(&ps);
            e.push((
                "percentile".into(),
                J::Obj(
                    self.pct_keys
                        .iter()
                        .zip(vals)
                        .map(|(k, v)| (k.clone(), J::UInt(v)))
                        .collect(),
                ),
            ));
        }
        e.push((
            "bins".into(),
            J::Obj(h.bins().map(|(v, c)| (v.to_string(), J::UInt(c))).collect()),
        ));
        J::Obj(e)
    }
}

/// The units of one report: fio's `jobs`, or a client's `client_stats`
/// without its sum.
fn units(doc: &Value) -> Vec<&Value> {
    let list = doc["jobs"]
        .as_array()
        .or_else(|| doc["client_stats"].as_array());
    list.map_or(Vec::new(), |l| {
        l.iter().filter(|u| u["jobname"] != "All clients").collect()
    })
}

fn read_report(path: &str) -> Result<Value, Failure> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Failure::stderr(format!("rfio: --merge: {path}: {e}\n")))?;
    // fio's client prints its servers' text before the document.
    let start = text
        .find("\n{")
        .map(|i| i + 1)
        .or_else(|| text.starts_with('{').then_some(0))
        .ok_or_else(|| Failure::stderr(format!("rfio: --merge: {path}: no JSON document\n")))?;
    serde_json::from_str(&text[start..])
        .map_err(|e| Failure::stderr(format!("rfio: --merge: {path}: {e}\n")))
}

/// The merged document for these reports.
pub fn merge(paths: &[String]) -> Result<String, Failure> {
    if paths.is_empty() {
        return Err(Failure::stderr(
            "rfio: --merge needs json+ reports to merge\n",
        ));
    }
    let mut dirs: [Dir; 3] = Default::default();
    let mut count = 0u64;
    for p in paths {
        let doc = read_report(p)?;
        for unit in units(&doc) {
            count += 1;
            for (d, name) in DIRS.iter().enumerate() {
                let v = &unit[*name];
                dirs[d].io_bytes += u(&v["io_bytes"]);
                dirs[d].total_ios += u(&v["total_ios"]);
                dirs[d].runtime = dirs[d].runtime.max(u(&v["runtime"]));
                for (k, kind) in KINDS.iter().enumerate() {
                    dirs[d].lat[k].add(&v[*kind]);
                }
            }
        }
    }
    let mut unit = vec![
        ("jobname".to_string(), J::Str("merged".into())),
        ("units".to_string(), J::UInt(count)),
    ];
    for (d, name) in DIRS.iter().enumerate() {
        let x = &dirs[d];
        let mut e = vec![
            ("io_bytes".to_string(), J::UInt(x.io_bytes)),
            ("total_ios".to_string(), J::UInt(x.total_ios)),
            ("runtime".to_string(), J::UInt(x.runtime)),
        ];
        for (k, kind) in KINDS.iter().enumerate() {
            e.push((kind.to_string(), x.lat[k].json()));
        }
        unit.push((name.to_string(), J::Obj(e)));
    }
    let doc = J::Obj(vec![
        ("fio version".into(), J::Str("fio-3.33".into())),
        (
            "merged".into(),
            J::Arr(paths.iter().map(|p| J::Str(p.clone())).collect()),
        ),
        ("jobs".into(), J::Arr(vec![J::Obj(unit)])),
    ]);
    Ok(format!("{}\n", doc.render()))
}

/// `rfio --merge FILE...`: the exit code.
pub fn main(args: &[String]) -> i32 {
    let paths: Vec<String> = args
        .iter()
        .skip(1)
        .filter(|a| *a != "--merge" && *a != "-merge")
        .cloned()
        .collect();
    match merge(&paths) {
        Ok(s) => {
            print!("{s}");
            0
        }
        Err(f) => {
            eprint!("{}", f.stderr);
            f.code
        }
    }
}
