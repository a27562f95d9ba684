//! rfio's addition to fio's `All clients` sum: the exact percentiles of
//! every host's I/Os. fio's client sums the servers' TS into one whose
//! percentiles are off; the summed `io_u_plat` buckets still hold every
//! host's samples, so the true cluster-wide percentiles come from them,
//! with the percentile list, precision and kinds (clat, lat, slat) of the
//! first host that reported. fio's own lines stay as fio prints them: the
//! text block follows fio's, the JSON goes under one extra key.

use super::protocol::{ThreadStat, PERCENTILES_MAX};
use super::view;
use crate::report::json::J;
use crate::result::{LatReport, UnitReport};

/// The header line of the text block (also what tests look for).
pub const HEADER: &str = "All clients: exact percentiles over every host's I/Os (rfio):";
/// The extra key of the `All clients` entry in `client_stats`.
pub const JSON_KEY: &str = "rbench_cluster_percentiles";

/// fio's default percentile list, for a host that sent none.
const FIO_DEFAULT: [f64; 17] = [
    1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95,
    99.99,
];

/// What the first host asked for: its percentile list, precision, kinds.
#[derive(Debug, Clone)]
pub struct Spec {
    list: [f64; PERCENTILES_MAX],
    precision: u64,
    clat: u32,
    lat: u32,
    slat: u32,
}

impl Spec {
    /// The spec of one host's TS.
    pub fn of(t: &ThreadStat) -> Spec {
        let mut list = t.percentile_list;
        if list[0] == 0.0 {
            list[..FIO_DEFAULT.len()].copy_from_slice(&FIO_DEFAULT);
        }
        Spec {
            list,
            precision: if t.percentile_precision == 0 {
                3
            } else {
                t.percentile_precision
            },
            // A host with none on asked for none: clat, as fio's default.
            clat: u32::from(t.clat_percentiles != 0 || t.lat_percentiles == 0),
            lat: t.lat_percentiles,
            slat: t.slat_percentiles,
        }
    }
}

/// The sum as a unit whose latency reports carry the exact percentiles.
pub fn unit(sum: &ThreadStat, spec: &Spec, plus: bool) -> UnitReport {
    let mut t = sum.clone();
    t.percentile_list = spec.list;
    t.percentile_precision = spec.precision;
    t.clat_percentiles = spec.clat;
    t.lat_percentiles = spec.lat;
    t.slat_percentiles = spec.slat;
    view::unit(&t, Vec::new(), plus, "")
}

const DIRS: [&str; 3] = ["read", "write", "trim"];

/// Each direction's kinds with percentiles: (direction, [(kind, report)]).
fn kinds(u: &UnitReport) -> Vec<(&'static str, Vec<(&'static str, &LatReport)>)> {
    let mut out = Vec::new();
    for (d, name) in DIRS.iter().enumerate() {
        let r = &u.dirs[d];
        let ks: Vec<(&'static str, &LatReport)> =
            [("slat", &r.slat), ("clat", &r.clat), ("lat", &r.lat)]
                .into_iter()
                .filter(|(_, l)| l.n > 0 && l.percentiles.is_some())
                .collect();
        if !ks.is_empty() {
            out.push((*name, ks));
        }
    }
    out
}

/// The text block printed after fio's `All clients` block: the header,
/// then each direction's percentile blocks as fio prints a job's.
pub fn text(u: &UnitReport) -> String {
    let dirs = kinds(u);
    if dirs.is_empty() {
        return String::new();
    }
    let mut s = format!("{HEADER}\n");
    for (dir, ks) in dirs {
        s.push_str(&format!("  {dir}:\n"));
        for (kind, l) in ks {
            if let Some(p) = &l.percentiles {
                crate::report::normal::percentile_block(&mut s, kind, p, u.pct_precision);
            }
        }
    }
    s
}

/// The extra JSON key's value: `{"read": {"clat_ns": {"N": .., "percentile":
/// {"99.000000": ns, ..}}}, ..}`, shaped as fio's job entries.
pub fn json(u: &UnitReport) -> J {
    let dirs = kinds(u)
        .into_iter()
        .map(|(dir, ks)| {
            let kinds = ks
                .into_iter()
                .map(|(kind, l)| {
                    let pcts = l.percentiles.as_deref().unwrap_or_default();
                    let obj = J::Obj(vec![
                        ("N".into(), J::UInt(l.n)),
                        (
                            "percentile".into(),
                            J::Obj(
                                pcts.iter()
                                    .map(|(p, v)| (format!("{p:.6}"), J::UInt(*v)))
                                    .collect(),
                            ),
                        ),
                    ]);
                    (format!("{kind}_ns"), obj)
                })
                .collect();
            (dir.to_string(), J::Obj(kinds))
        })
        .collect();
    J::Obj(dirs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::remote::protocol::IoStat;

    fn host(clat: &[(u64, u64)]) -> ThreadStat {
        let mut t = ThreadStat {
            clat_percentiles: 1,
            percentile_precision: 3,
            ..ThreadStat::default()
        };
        t.percentile_list[..3].copy_from_slice(&[50.0, 90.0, 99.0]);
        let n = clat.iter().map(|c| c.1).sum();
        t.clat[0] = IoStat {
            max: 1,
            min: 1,
            samples: n,
            mean: 1.0,
            s: 0.0,
        };
        for &(v, c) in clat {
            t.plat_mut(1, 0)[rbench_common::histogram::bucket_index(v)] += c;
        }
        t.io_bytes[0] = n * 4096;
        t.total_io_u[0] = n;
        t.runtime[0] = 1000;
        t
    }

    #[test]
    fn the_sum_of_two_hosts_gets_the_union_percentiles() {
        let (a, b) = (host(&[(10, 50), (20, 50)]), host(&[(30, 100)]));
        let mut sum = ThreadStat::default();
        view::sum_into(&mut sum, &a);
        view::sum_into(&mut sum, &b);
        let u = unit(&sum, &Spec::of(&a), false);
        let p = u.dirs[0].clat.percentiles.clone().unwrap_or_default();
        assert_eq!(p, [(50.0, 20), (90.0, 30), (99.0, 30)]);
        let t = text(&u);
        assert!(
            t.starts_with(&format!(
                "{HEADER}\n  read:\n    clat percentiles (nsec):\n"
            )),
            "{t}"
        );
        assert!(t.contains("50.000th=[   20]"), "{t}");
        let j = json(&u).render();
        assert!(j.contains("\"99.000000\" : 30"), "{j}");
        assert!(!j.contains("write"), "{j}");
    }

    #[test]
    fn a_host_with_no_list_gets_fios_default() {
        let mut t = host(&[(10, 1)]);
        t.percentile_list = [0.0; PERCENTILES_MAX];
        t.clat_percentiles = 0;
        let s = Spec::of(&t);
        assert_eq!(s.list[..17], FIO_DEFAULT);
        assert_eq!(s.clat, 1);
    }
}
