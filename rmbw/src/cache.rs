//! The last-level cache size, to warn when the arrays fit in it (then rmbw
//! measures the cache, not memory).

use std::path::Path;

/// Size in bytes of the highest-level cache CPU 0 reports, if any.
pub fn last_level_cache_bytes() -> Option<u64> {
    llc_in(Path::new("/sys/devices/system/cpu/cpu0/cache"))
}

fn llc_in(dir: &Path) -> Option<u64> {
    let mut best: Option<(u32, u64)> = None;
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let name = entry.file_name();
        if !name.to_string_lossy().starts_with("index") {
            continue;
        }
        let read = |f: &str| std::fs::read_to_string(entry.path().join(f)).ok();
        let Some(level) = read("level").and_then(|s| s.trim().parse::<u32>().ok()) else {
            continue;
        };
        let Some(size) = read("size").and_then(|s| parse_cache_size(s.trim())) else {
            continue;
        };
        if !matches!(best, Some(b) if b >= (level, size)) {
            best = Some((level, size));
        }
    }
    best.map(|(_, s)| s)
}

/// sysfs writes sizes as `32768K`, `1024K`, `32M` or plain bytes.
fn parse_cache_size(s: &str) -> Option<u64> {
    let (digits, mult) = match s.chars().last()? {
        'K' | 'k' => (&s[..s.len() - 1], 1 << 10),
        'M' | 'm' => (&s[..s.len() - 1], 1 << 20),
        'G' | 'g' => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    digits.parse::<u64>().ok()?.checked_mul(mult)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_sysfs_sizes() {
        assert_eq!(parse_cache_size("32768K"), Some(32 << 20));
        assert_eq!(parse_cache_size("2M"), Some(2 << 20));
        assert_eq!(parse_cache_size("512"), Some(512));
        assert_eq!(parse_cache_size("x"), None);
    }

    #[test]
    fn picks_the_highest_level() {
        let dir = std::env::temp_dir().join(format!("rmbw-cache-{}", std::process::id()));
        for (i, level, size) in [(0, "1", "32K"), (1, "3", "16M"), (2, "2", "1024K")] {
            let d = dir.join(format!("index{i}"));
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join("level"), level).unwrap();
            std::fs::write(d.join("size"), size).unwrap();
        }
        assert_eq!(llc_in(&dir), Some(16 << 20));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
