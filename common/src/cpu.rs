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

/// The CPUs the calling thread may run on (its affinity mask; before any
/// pinning that is the process's set). Never empty: falls back to
/// `0..available_parallelism` if the mask cannot be read.
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

/// Format CPU numbers as a list with ranges (`0-3,5,8-11`), the inverse of
/// [`parse_cpu_list`] for sorted, de-duplicated input.
pub fn format_cpu_list(cpus: &[usize]) -> String {
    let mut sorted = cpus.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut out = String::new();
    let mut i = 0;
    while i < sorted.len() {
        let start = sorted[i];
        let mut end = start;
        while i + 1 < sorted.len() && sorted[i + 1] == end + 1 {
            i += 1;
            end = sorted[i];
        }
        if !out.is_empty() {
            out.push(',');
        }
        if start == end {
            out.push_str(&start.to_string());
        } else {
            out.push_str(&format!("{start}-{end}"));
        }
        i += 1;
    }
    out
}

/// Pin the calling thread to one CPU.
///
/// Fails with a message naming the allowed CPUs when `cpu` is not one this
/// thread may run on (outside the affinity mask or cpuset, offline, or
/// beyond [`MAX_CPU`]); the kernel decides, so cpusets are honoured.
pub fn pin_current_thread(cpu: usize) -> Result<(), CpuListError> {
    let not_allowed = |why: &str| {
        CpuListError(format!(
            "unable to pin to CPU {cpu}: {why} (allowed CPUs: {})",
            format_cpu_list(&available_cpus())
        ))
    };
    if cpu > MAX_CPU {
        return Err(not_allowed("no such CPU"));
    }
    const WORD: usize = u64::BITS as usize;
    let mut mask = vec![0u64; MAX_CPU / WORD + 1];
    mask[cpu / WORD] |= 1 << (cpu % WORD);
    // SAFETY: `mask` is a valid buffer of `size_of_val(mask)` bytes laid out
    // as the kernel's CPU bitmap (array of native-endian longs); pid 0 is the
    // calling thread.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_sched_setaffinity,
            0,
            std::mem::size_of_val(mask.as_slice()),
            mask.as_ptr(),
        )
    };
    if rc == 0 {
        return Ok(());
    }
    let err = std::io::Error::last_os_error();
    if err.raw_os_error() == Some(libc::EINVAL) {
        Err(not_allowed("CPU not available to this process"))
    } else {
        Err(not_allowed(&err.to_string()))
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
        // In a thread of its own so the test harness thread stays unpinned.
        std::thread::spawn(|| {
            let cpus = available_cpus();
            assert!(!cpus.is_empty());
            let last = *cpus.last().unwrap();
            pin_current_thread(last).unwrap();
            assert_eq!(available_cpus(), vec![last]);
        })
        .join()
        .unwrap();
    }

    #[test]
    fn pinning_to_a_cpu_outside_the_set_is_an_error() {
        std::thread::spawn(|| {
            let cpus = available_cpus();
            let missing = (0..=MAX_CPU).find(|c| !cpus.contains(c)).unwrap();
            let err = pin_current_thread(missing).unwrap_err();
            assert!(err.0.contains(&format!("CPU {missing}")), "{err}");
            assert!(err.0.contains("allowed CPUs"), "{err}");
            assert!(pin_current_thread(MAX_CPU + 1).is_err());
            // The failed calls left the mask alone.
            assert_eq!(available_cpus(), cpus);
        })
        .join()
        .unwrap();
    }

    #[test]
    fn formats_ranges() {
        assert_eq!(
            format_cpu_list(&[0, 1, 2, 3, 5, 8, 9, 10, 11]),
            "0-3,5,8-11"
        );
        assert_eq!(format_cpu_list(&[7]), "7");
        assert_eq!(format_cpu_list(&[3, 1, 2, 2]), "1-3");
        assert_eq!(format_cpu_list(&[]), "");
    }

    proptest::proptest! {
        #[test]
        fn format_then_parse_round_trips(
            set in proptest::collection::btree_set(0..=MAX_CPU, 1..64)
        ) {
            let cpus: Vec<usize> = set.into_iter().collect();
            let text = format_cpu_list(&cpus);
            proptest::prop_assert_eq!(parse_cpu_list(&text).unwrap(), cpus);
        }

        #[test]
        fn parses_any_order_and_duplicates(
            v in proptest::collection::vec(0..200usize, 1..40)
        ) {
            let text: Vec<String> = v.iter().map(|c| c.to_string()).collect();
            let mut want = v.clone();
            want.sort_unstable();
            want.dedup();
            proptest::prop_assert_eq!(parse_cpu_list(&text.join(",")).unwrap(), want);
        }
    }
}
