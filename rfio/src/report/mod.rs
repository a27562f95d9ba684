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
