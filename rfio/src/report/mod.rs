//! Views of the one [`crate::result::Report`]: normal text, JSON/JSON+,
//! terse and CSV. Measuring code never formats; these files never measure.

pub mod csv;
pub mod json;
pub mod normal;
pub mod terse;

use crate::run::files::diskstats::DiskReport;
use json::J;

/// Normal-output disk lines.
pub fn disk_lines(disks: &[DiskReport]) -> String {
    disks
        .iter()
        .map(|d| {
            format!(
                "  {}: ios={}/{}, merge={}/{}, ticks={}/{}, in_queue={}, util={:3.2}%\n",
                d.name,
                d.read_ios,
                d.write_ios,
                d.read_merges,
                d.write_merges,
                d.read_ticks,
                d.write_ticks,
                d.in_queue,
                d.util
            )
        })
        .collect()
}

/// JSON `disk_util` array (absent when no disk is tracked).
pub fn disk_json(disks: &[DiskReport]) -> Option<J> {
    if disks.is_empty() {
        return None;
    }
    Some(J::Arr(
        disks
            .iter()
            .map(|d| {
                J::Obj(vec![
                    ("name".into(), J::Str(d.name.clone())),
                    ("read_ios".into(), J::UInt(d.read_ios)),
                    ("write_ios".into(), J::UInt(d.write_ios)),
                    ("read_merges".into(), J::UInt(d.read_merges)),
                    ("write_merges".into(), J::UInt(d.write_merges)),
                    ("read_ticks".into(), J::UInt(d.read_ticks)),
                    ("write_ticks".into(), J::UInt(d.write_ticks)),
                    ("in_queue".into(), J::UInt(d.in_queue)),
                    ("util".into(), J::Float(d.util)),
                ])
            })
            .collect(),
    ))
}
/// C's `%.Nf`: NaN and infinities as glibc prints them (`-nan`, `inf`),
/// which a criterion over an idle window (0/0) becomes.
pub fn c_float(v: f64, prec: usize) -> String {
    let sign = if v.is_sign_negative() { "-" } else { "" };
    if v.is_nan() {
        format!("{sign}nan")
    } else if v.is_infinite() {
        format!("{sign}inf")
    } else {
        format!("{v:.prec$}")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn c_float_prints_as_glibc() {
        assert_eq!(super::c_float(f64::from(0.01f32), 6), "0.010000");
        assert_eq!(super::c_float(-f64::NAN, 3), "-nan");
        assert_eq!(super::c_float(f64::INFINITY, 3), "inf");
    }
}
