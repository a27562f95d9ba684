//! Each section's rows as charts: what a person looks for first in that
//! section (the scaling curve, the limit a disk hit, the cache warning, the
//! loss), with the section's notes from bench-all beside them.

mod cpu;
mod disk;
mod mem;
mod net;

use crate::data::Results;

/// One chart on the page: `id` names it for the page's anchors and tests.
pub struct Figure {
    pub id: &'static str,
    pub svg: String,
}

/// One section of the page.
pub struct View {
    pub id: &'static str,
    pub title: &'static str,
    /// Shown above the charts, highlighted (e.g. arrays that fit in cache).
    pub warnings: Vec<String>,
    pub figures: Vec<Figure>,
    pub notes: Vec<String>,
}

/// The sections bench-all ran, in its order.
pub fn views(r: &Results) -> Vec<View> {
    let mut v = Vec::new();
    if let Some(s) = &r.cpu {
        v.push(cpu::view(s, r.cpus_online));
    }
    if let Some(s) = &r.disk {
        v.push(disk::view(s));
    }
    if let Some(s) = &r.mem {
        v.push(mem::view(s));
    }
    if let Some(s) = &r.net {
        v.push(net::view(s));
    }
    v
}

/// The unit (name, size) of `units` for `values`: the largest in which
/// their maximum is still 10 or more, so ticks keep two digits.
fn unit_for(
    values: impl IntoIterator<Item = f64>,
    units: &[(&'static str, f64)],
) -> (&'static str, f64) {
    let max = values.into_iter().fold(0.0, f64::max);
    rbench_common::chart::unit(max / 10.0, units)
}
