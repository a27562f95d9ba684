//! `--output-format=csv` (beyond fio): a header row, then one row per
//! reporting unit and direction that did I/O.

use crate::result::Report;

pub fn render(r: &Report, pct_list: &[f64]) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut header: Vec<String> = [
        "jobname",
        "groupid",
        "direction",
        "io_bytes",
        "bw_bytes",
        "iops",
        "runtime_ms",
        "total_ios",
        "lat_mean_ns",
        "clat_mean_ns",
        "clat_min_ns",
        "clat_max_ns",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let label = |p: f64| {
        let s = format!("{p}");
        format!("clat_p{}_ns", s.replace('.', "_"))
    };
    header.extend(pct_list.iter().map(|&p| label(p)));
    let _ = w.write_record(&header);
    for u in &r.units {
        for (d, name) in ["read", "write", "trim"].iter().enumerate() {
            let x = &u.dirs[d];
            if x.total_ios == 0 && x.io_bytes == 0 {
                continue;
            }
            let mut row = vec![
                u.jobname.clone(),
                u.groupid.to_string(),
                name.to_string(),
                x.io_bytes.to_string(),
                x.bw_bytes.to_string(),
                format!("{:.3}", x.iops),
                x.runtime_ms.to_string(),
                x.total_ios.to_string(),
                format!("{:.1}", x.lat.mean),
                format!("{:.1}", x.clat.mean),
                x.clat.min.to_string(),
                x.clat.max.to_string(),
            ];
            let pcts = x.clat.percentiles.clone().unwrap_or_default();
            for (i, _) in pct_list.iter().enumerate() {
                row.push(pcts.get(i).map_or(String::new(), |v| v.1.to_string()));
            }
            let _ = w.write_record(&row);
        }
    }
    w.into_inner()
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default()
}
