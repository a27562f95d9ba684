//! CPU lists of a job's settings, read as fio reads them: `cpumask`,
//! `cpus_allowed_policy=split` and `log_compression_cpus`.

use crate::failure::Failure;
use crate::options::JobOptions;

/// `cpumask=0x3`: the CPUs of the set bits (fio reads an int's 32 bits).
pub fn cpumask_cpus(mask: u64, online: usize) -> Result<Vec<usize>, String> {
    let mut cpus = Vec::new();
    for i in 0..32usize {
        if mask & (1 << i) != 0 {
            if i >= online {
                return Err(format!(
                    "fio: CPU {i} too large (max={})",
                    online.saturating_sub(1)
                ));
            }
            cpus.push(i);
        }
    }
    Ok(cpus)
}

/// `cpus_allowed_policy=split`: job number N (1-based, clones included)
/// keeps only the ((N-1) mod count)-th CPU of the set, as fio does.
pub fn split(cpus: &[usize], number: usize) -> Vec<usize> {
    if cpus.is_empty() {
        return Vec::new();
    }
    vec![cpus[(number - 1) % cpus.len()]]
}

/// `log_compression_cpus` read as fio's set_cpus_allowed reads it: comma
/// separated CPUs or `a-b` ranges, each number as C's atoi takes it (so
/// `abc` is CPU 0), the list ending at an empty entry; a CPU past the last
/// online one is fio's error.
pub fn parse_cpus(list: &str, online: usize) -> Result<Vec<usize>, String> {
    let mut cpus = Vec::new();
    for part in list.trim().split(',') {
        if part.is_empty() {
            break;
        }
        let mut last = None;
        for end in part.split('-') {
            if end.is_empty() {
                break;
            }
            last = Some(atoi(end));
        }
        let first = atoi(part);
        let last = last.unwrap_or(first);
        let mut c = first;
        while c <= last {
            if c >= online as i64 {
                return Err(format!(
                    "fio: CPU {c} too large (max={})",
                    online as i64 - 1
                ));
            }
            if c >= 0 && !cpus.contains(&(c as usize)) {
                cpus.push(c as usize);
            }
            c += 1;
        }
    }
    Ok(cpus)
}

/// The job's `log_compression_cpus`, or fio's parse error.
pub fn log_compression(o: &JobOptions) -> Result<Option<Vec<usize>>, Failure> {
    let Some(list) = o.text("log_compression_cpus") else {
        return Ok(None);
    };
    let online = std::thread::available_parallelism().map_or(1, |n| n.get());
    parse_cpus(&list, online).map(Some).map_err(|e| {
        Failure::stderr(format!(
            "{e}\nfio: failed parsing log_compression_cpus={list}\n"
        ))
    })
}

/// C's atoi: leading blanks, a sign, digits; 0 when there are none.
fn atoi(s: &str) -> i64 {
    let s = s.trim_start();
    let (neg, digits) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let n = digits
        .bytes()
        .take_while(u8::is_ascii_digit)
        .fold(0i64, |n, d| {
            n.saturating_mul(10).saturating_add(i64::from(d - b'0'))
        });
    if neg {
        -n
    } else {
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lists_read_as_fio_reads_them() {
        assert_eq!(parse_cpus("0-1", 2), Ok(vec![0, 1]));
        assert_eq!(parse_cpus("1", 2), Ok(vec![1]));
        assert_eq!(parse_cpus("abc", 2), Ok(vec![0]));
        assert_eq!(parse_cpus("0,,1", 2), Ok(vec![0]));
        assert_eq!(parse_cpus("1-", 2), Ok(vec![1]));
        assert_eq!(
            parse_cpus("5", 2),
            Err("fio: CPU 5 too large (max=1)".to_string())
        );
    }

    #[test]
    fn masks_and_splits() {
        assert_eq!(cpumask_cpus(0x5, 4).unwrap(), vec![0, 2]);
        assert_eq!(
            cpumask_cpus(0x10_0000, 2).unwrap_err(),
            "fio: CPU 20 too large (max=1)"
        );
        assert_eq!(split(&[1, 3], 1), vec![1]);
        assert_eq!(split(&[1, 3], 2), vec![3]);
        assert_eq!(split(&[1, 3], 3), vec![1]);
    }
}
