//! Disk statistics for the block devices behind the job files: kernel
//! counters from /proc/diskstats, sampled before and after the run (§6.3).

use serde::Serialize;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::time::Instant;

#[derive(Debug, Clone, Default, Serialize)]
pub struct DiskReport {
    pub name: String,
    pub read_ios: u64,
    pub write_ios: u64,
    pub read_merges: u64,
    pub write_merges: u64,
    pub read_ticks: u64,
    pub write_ticks: u64,
    pub in_queue: u64,
    pub util: f64,
}

/// Counters of one device: [reads, read merges, read ticks, writes, write
/// merges, write ticks, io ticks, time in queue].
fn counters(name: &str) -> Option<[u64; 8]> {
    let text = std::fs::read_to_string("/proc/diskstats").ok()?;
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() >= 14 && f[2] == name {
            let n = |i: usize| f[i].parse::<u64>().unwrap_or(0);
            return Some([n(3), n(4), n(6), n(7), n(8), n(10), n(12), n(13)]);
        }
    }
    None
}

/// The whole-disk name (e.g. `vda`) holding a path.
pub fn device_of(path: &Path) -> Option<String> {
    let m = std::fs::metadata(path).ok().or_else(|| {
        let parent = path.parent().filter(|p| !p.as_os_str().is_empty());
        std::fs::metadata(parent.unwrap_or(Path::new("."))).ok()
    })?;
    let dev = if m.file_type().is_file() || m.is_dir() {
        m.dev()
    } else {
        m.rdev()
    };
    let (maj, min) = (libc::major(dev), libc::minor(dev));
    let sys = std::fs::canonicalize(format!("/sys/dev/block/{maj}:{min}")).ok()?;
    let sys = if sys.join("partition").exists() {
        sys.parent()?.to_path_buf()
    } else {
        sys
    };
    let name = sys.file_name()?.to_string_lossy().into_owned();
    counters(&name).map(|_| name)
}

/// A sample taken before the run.
pub struct Before {
    devices: Vec<(String, [u64; 8])>,
    at: Instant,
}

pub fn before<'a>(paths: impl Iterator<Item = &'a Path>) -> Before {
    let mut devices: Vec<(String, [u64; 8])> = Vec::new();
    for p in paths {
        if let Some(name) = device_of(p) {
            if !devices.iter().any(|d| d.0 == name) {
                if let Some(c) = counters(&name) {
                    devices.push((name, c));
                }
            }
        }
    }
    Before {
        devices,
        at: Instant::now(),
    }
}

pub fn after(b: &Before) -> Vec<DiskReport> {
    let ms = b.at.elapsed().as_millis().max(1) as f64;
    b.devices
        .iter()
        .filter_map(|(name, c0)| {
            let c = counters(name)?;
            let d = |i: usize| c[i].saturating_sub(c0[i]);
            Some(DiskReport {
                name: name.clone(),
                read_ios: d(0),
                read_merges: d(1),
                read_ticks: d(2),
                write_ios: d(3),
                write_merges: d(4),
                write_ticks: d(5),
                in_queue: d(7),
                util: (d(6) as f64 * 100.0 / ms).min(100.0),
            })
        })
        .collect()
}
