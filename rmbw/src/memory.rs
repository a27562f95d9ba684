//! How much memory the system can give: a size that cannot be backed
//! would pass malloc (overcommit) and then get the process OOM-killed while
//! the arrays are filled; rmbw refuses it up front instead.

/// MemAvailable + SwapFree from /proc/meminfo, in bytes, if readable.
pub fn available_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    parse_meminfo(&text)
}

fn parse_meminfo(text: &str) -> Option<u64> {
    let field = |name: &str| -> Option<u64> {
        let line = text.lines().find(|l| l.starts_with(name))?;
        let kib: u64 = line[name.len()..]
            .trim()
            .trim_end_matches("kB")
            .trim()
            .parse()
            .ok()?;
        Some(kib * 1024)
    };
    Some(field("MemAvailable:")? + field("SwapFree:").unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_available_and_swap() {
        let t = "MemTotal:  100 kB\nMemAvailable:   10 kB\nSwapFree:  5 kB\n";
        assert_eq!(parse_meminfo(t), Some(15 * 1024));
        assert_eq!(parse_meminfo("MemTotal: 1 kB\n"), None);
        assert!(available_bytes().is_some());
    }
}
