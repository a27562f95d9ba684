//! CPU lists (`0-3,5,8-11`) and thread affinity.

use std::fmt;

/// A CPU list that could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CpuListError(pub String);

impl fmt::Display for CpuListError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CpuListError {}

/// The largest CPU number a list may name (the kernel's CONFIG_NR_CPUS ceiling).
pub const MAX_CPU: usize = 8191;

/// Parse a CPU list such as `0-3,5,8-11` into sorted, de-duplicated CPU numbers.
pub fn parse_cpu_list(s: &str) -> Result<Vec<usize>, CpuListError> {
    let mut cpus = Vec::new();
    if s.trim().is_empty() {
        return Err(CpuListError("empty CPU list".into()));
    }
    for part in s.split(',') {
        let part = part.trim();
        let num = |t: &str| -> Result<usize, CpuListError> {
            let t = t.trim();
            let n: usize = t
                .parse()
                .map_err(|_| CpuListError(format!("invalid CPU number '{t}' in CPU list '{s}'")))?;
            if n > MAX_CPU {
                return Err(CpuListError(format!(
                    "CPU {n} in CPU list '{s}' is larger than {MAX_CPU}"
                )));
            }
            Ok(n)
        };
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b) = (num(a)?, num(b)?);
                if a > b {
                    return Err(CpuListError(format!(
                        "invalid CPU range '{part}' in CPU list '{s}'"
                    )));
                }
                cpus.extend(a..=b);
            }
            None => cpus.push(num(part)?),
        }
    }
    cpus.sort_unstable();
    cpus.dedup();
    Ok(cpus)
}

/// The CPUs this process may run on (its affinity mask).
pub fn available_cpus() -> Vec<usize> {
    let mut ids: Vec<usize> = core_affinity::get_core_ids()
        .unwrap_or_default()
        .into_iter()
        .map(|c| c.id)
        .collect();
    if ids.is_empty() {
        let n = std::thread::available_parallelism().map_or(1, |n| n.get());
        ids = (0..n).collect();
    }
    ids
}

/// Pin the calling thread to one CPU.
pub fn pin_current_thread(cpu: usize) -> Result<(), CpuListError> {
    if core_affinity::set_for_current(core_affinity::CoreId { id: cpu }) {
        Ok(())
    } else {
        Err(CpuListError(format!(
            "unable to set CPU affinity to CPU {cpu}"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_ranges_and_singles() {
        assert_eq!(
            parse_cpu_list("0-3,5,8-11").unwrap(),
            vec![0, 1, 2, 3, 5, 8, 9, 10, 11]
        );
        assert_eq!(parse_cpu_list("3,1,1").unwrap(), vec![1, 3]);
    }

    #[test]
    fn rejects_garbage() {
        for bad in ["", "a", "3-1", "1-", "1,,2", "99999"] {
            assert!(parse_cpu_list(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn pins_to_an_available_cpu() {
        let cpus = available_cpus();
        assert!(!cpus.is_empty());
        pin_current_thread(cpus[0]).unwrap();
    }
}
