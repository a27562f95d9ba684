//! numa_cpu_nodes / numa_mem_policy (fio built with libnuma): the nodes'
//! CPUs as the job's affinity, and the job's memory policy by the
//! set_mempolicy system call (no maintained crate wraps it; libc has the
//! call's number). Node lists are read as libnuma's
//! numa_parse_nodestring reads them, against the nodes in
//! /sys/devices/system/node.

use crate::job::Job;

const NODES: &str = "/sys/devices/system/node";

/// libnuma's MPOL_* modes, in fio's order of names.
const POLICIES: [&str; 5] = ["default", "prefer", "bind", "interleave", "local"];

/// The node numbers of the machine (those /sys lists as online; node 0
/// where /sys says nothing).
fn online_nodes() -> Vec<usize> {
    std::fs::read_to_string(format!("{NODES}/online"))
        .ok()
        .and_then(|s| parse_cpu_list(s.trim()))
        .unwrap_or_else(|| vec![0])
}

/// `0-3,8`: a kernel list of numbers.
fn parse_cpu_list(s: &str) -> Option<Vec<usize>> {
    let mut out = Vec::new();
    for part in s.split(',').filter(|p| !p.is_empty()) {
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        let (a, b): (usize, usize) = (a.trim().parse().ok()?, b.trim().parse().ok()?);
        out.extend(a..=b.max(a));
    }
    Some(out)
}

/// numa_parse_nodestring: `all`, or numbers and ranges separated by
/// commas, each an online node. Err: libnuma's warning line.
fn parse_nodes(s: &str) -> Result<Vec<usize>, String> {
    let online = online_nodes();
    if s == "all" {
        return Ok(online);
    }
    let bad = || format!("libnuma: Warning: unparseable node description `{s}'\n\n");
    let max = online.iter().copied().max().unwrap_or(0);
    let mut out = Vec::new();
    for part in s.split(',') {
        let (a, b) = match part.split_once('-') {
            Some((a, b)) => (a, Some(b)),
            None => (part, None),
        };
        let a: usize = a.parse().map_err(|_| bad())?;
        let Some(b) = b else {
            if !online.contains(&a) {
                return Err(format!(
                    "libnuma: Warning: node argument {a} is out of range\n\n"
                ));
            }
            out.push(a);
            continue;
        };
        let b: usize = b.parse().map_err(|_| bad())?;
        for n in a..=b {
            if n > max || !online.contains(&n) {
                return Err(format!(
                    "libnuma: Warning: node argument {n} out of range\n\n"
                ));
            }
            out.push(n);
        }
    }
    Ok(out)
}

/// A memory policy: its mode (MPOL_*) and nodes.
#[derive(Debug, PartialEq, Eq)]
struct Policy {
    mode: usize,
    nodes: Vec<usize>,
}

/// fio's str_numa_mpol_cb: `mode[:nodes]`. Err: its lines for stderr.
fn parse_policy(s: &str) -> Result<Policy, String> {
    let (mode_word, list) = match s.split_once(':') {
        Some((m, l)) => (m, Some(l)),
        None => (s, None),
    };
    let Some(mode) = POLICIES.iter().position(|p| *p == mode_word) else {
        return Err(
            "fio: memory policy should be: default, prefer, bind, interleave, local\n".into(),
        );
    };
    let nodes = match (POLICIES[mode], list) {
        ("prefer", Some(l)) if l.bytes().all(|c| c.is_ascii_digit()) => {
            vec![l.parse().unwrap_or(0)]
        }
        ("prefer", Some(_)) => return Err("fio: one node only for 'prefer'\n".into()),
        ("prefer", None) => return Err("fio: one node is needed for 'prefer'\n".into()),
        ("interleave", l) => parse_nodes(l.unwrap_or("all"))
            .map_err(|w| w + "fio: numa_parse_nodestring failed\n")?,
        ("bind", Some(l)) => {
            parse_nodes(l).map_err(|w| w + "fio: numa_parse_nodestring failed\n")?
        }
        ("bind", None) => return Err("fio: a nodelist is needed for 'bind'\n".into()),
        (_, Some(_)) => return Err("fio: NO nodelist for 'local'\n".into()),
        (_, None) => Vec::new(),
    };
    Ok(Policy { mode, nodes })
}

/// The checks fio's option parser makes of both options. Err: (stdout,
/// stderr) as fio prints them.
pub fn check(job: &Job) -> Result<(), (String, String)> {
    if let Some(s) = &job.numa_cpu_nodes {
        parse_nodes(s).map_err(|w| {
            (
                "fio: file:options.c:803, func=str_numa_cpunodes_cb, error=Operation not permitted\n"
                    .to_string(),
                format!("{w}fio: numa_parse_nodestring failed\nfio: failed parsing numa_cpu_nodes={s}\n"),
            )
        })?;
    }
    if let Some(s) = &job.numa_mem_policy {
        parse_policy(s).map_err(|e| {
            let stdout = if e.contains("numa_parse_nodestring") {
                "fio: file:options.c:902, func=str_numa_memnodes_cb, error=Operation not permitted\n"
            } else {
                ""
            };
            (stdout.to_string(), format!("{e}fio: failed parsing numa_mem_policy={s}\n"))
        })?;
    }
    Ok(())
}

/// The CPUs of the nodes (their /sys cpulist).
fn node_cpus(nodes: &[usize]) -> Vec<usize> {
    let mut cpus = Vec::new();
    for n in nodes {
        let list = std::fs::read_to_string(format!("{NODES}/node{n}/cpulist")).unwrap_or_default();
        cpus.extend(parse_cpu_list(list.trim()).unwrap_or_default());
    }
    cpus
}

/// Apply both to the calling thread, as the job starts. A failed
/// affinity fails the job (fio's numa_run_on_node_mask); a memory policy
/// the kernel refuses is fio's perror line only: the job runs on.
pub fn apply(job: &Job) -> Result<(), (i32, &'static str)> {
    if let Some(s) = &job.numa_cpu_nodes {
        let cpus = node_cpus(&parse_nodes(s).unwrap_or_default());
        // SAFETY: a zeroed cpu_set_t is valid; CPU_SET of /sys's CPUs.
        let r = unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            for c in cpus.into_iter().filter(|&c| c < libc::CPU_SETSIZE as usize) {
                libc::CPU_SET(c, &mut set);
            }
            libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set)
        };
        if r == -1 {
            let errno = std::io::Error::last_os_error().raw_os_error().unwrap_or(0);
            return Err((errno, "numa_run_on_node_mask failed\n"));
        }
    }
    if let Some(p) = job
        .numa_mem_policy
        .as_deref()
        .and_then(|s| parse_policy(s).ok())
    {
        set_policy(&p);
    }
    Ok(())
}

/// set_mempolicy(2) for the thread (libnuma's numa_set_* calls it).
fn set_policy(p: &Policy) {
    const WORDS: usize = 16;
    let mut mask = [0 as libc::c_ulong; WORDS];
    let bits = libc::c_ulong::BITS as usize;
    for &n in p.nodes.iter().filter(|&&n| n < WORDS * bits) {
        mask[n / bits] |= 1 << (n % bits);
    }
    // libnuma's local allocation is MPOL_LOCAL (4) only on kernels that
    // know it; MPOL_PREFERRED with no nodes means the same.
    let (mode, ptr) = match p.mode {
        0 => (0, std::ptr::null()),
        4 => (1, std::ptr::null()),
        m => (m as libc::c_long, mask.as_ptr()),
    };
    let maxnode = (WORDS * bits + 1) as libc::c_ulong;
    // SAFETY: set_mempolicy reads `maxnode` bits from our mask (or none).
    let r = unsafe { libc::syscall(libc::SYS_set_mempolicy, mode, ptr, maxnode) };
    if r != 0 {
        eprintln!(
            "set_mempolicy: {}",
            rbench_common::output::strerror(
                std::io::Error::last_os_error()
                    .raw_os_error()
                    .unwrap_or(libc::EINVAL),
            )
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_lists_as_libnuma() {
        assert_eq!(parse_nodes("0"), Ok(vec![0]));
        assert_eq!(
            parse_nodes("abc").unwrap_err(),
            "libnuma: Warning: unparseable node description `abc'\n\n"
        );
        let past = online_nodes().iter().max().unwrap() + 1;
        assert_eq!(
            parse_nodes(&past.to_string()).unwrap_err(),
            format!("libnuma: Warning: node argument {past} is out of range\n\n")
        );
        assert_eq!(
            parse_nodes(&format!("0-{past}")).unwrap_err(),
            format!("libnuma: Warning: node argument {past} out of range\n\n")
        );
    }

    #[test]
    fn policies_as_fio_reads_them() {
        assert_eq!(
            parse_policy("bind:0").unwrap(),
            Policy {
                mode: 2,
                nodes: vec![0]
            }
        );
        assert_eq!(parse_policy("prefer:3").unwrap().nodes, vec![3]);
        assert_eq!(parse_policy("local").unwrap().mode, 4);
        assert_eq!(
            parse_policy("bogus").unwrap_err(),
            "fio: memory policy should be: default, prefer, bind, interleave, local\n"
        );
        assert_eq!(
            parse_policy("local:0").unwrap_err(),
            "fio: NO nodelist for 'local'\n"
        );
        assert_eq!(
            parse_policy("default:0").unwrap_err(),
            "fio: NO nodelist for 'local'\n"
        );
        assert_eq!(
            parse_policy("bind").unwrap_err(),
            "fio: a nodelist is needed for 'bind'\n"
        );
        assert_eq!(
            parse_policy("prefer").unwrap_err(),
            "fio: one node is needed for 'prefer'\n"
        );
        assert_eq!(
            parse_policy("prefer:0-1").unwrap_err(),
            "fio: one node only for 'prefer'\n"
        );
    }
}
