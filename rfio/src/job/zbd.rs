//! `zonemode=zbd`'s settings (the zones themselves run in
//! run/offsets/zbd.rs): zone size, capacity, skip, the open-zone limits,
//! read_beyond_wp and the reset threshold and frequency.

/// fio's ZBD_MAX_OPEN_ZONES.
pub const MAX_OPEN_ZONES: u64 = 4096;

/// A job's zbd settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    pub zone_size: u64,
    /// `zonecapacity` (0: the zone size).
    pub capacity: u64,
    pub zone_skip: u64,
    pub max_open: u32,
    pub job_max_open: u32,
    pub read_beyond_wp: bool,
    pub reset_threshold: f64,
    pub reset_frequency: f64,
}

impl Settings {
    pub fn from_options(o: &crate::options::JobOptions, zone_size: u64, zone_skip: u64) -> Self {
        let first = |name: &'static str| o.floats(name).0.first().copied().unwrap_or(0.0);
        Settings {
            zone_size,
            capacity: super::zones::zone_capacity(o),
            zone_skip,
            max_open: o.int("max_open_zones").max(0) as u32,
            job_max_open: o.int("job_max_open_zones").max(0) as u32,
            read_beyond_wp: o.flag("read_beyond_wp"),
            reset_threshold: first("zone_reset_threshold"),
            reset_frequency: first("zone_reset_frequency"),
        }
    }
}
