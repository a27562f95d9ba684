//! `cmdprio_percentage`, `cmdprio_class`, `cmdprio` and `cmdprio_bssplit`
//! of the libaio and io_uring engines (fio's engines/cmdprio.c): a share of
//! a direction's I/Os (or of its I/Os of a block size) carries its own I/O
//! priority, and the job's latencies are also kept per priority.
//!
//! Checked where fio checks them, when the engine starts: the messages are
//! fio's, and the job fails as fio's engine init does.

use super::Config;

/// `IOPRIO_CLASS_RT`, fio's class when cmdprio_class is not set.
const CLASS_RT: u16 = 1;
/// fio's BSSPLIT_MAX.
const MAX_ENTRIES: usize = 64;

/// `(class << 13) | level`, the kernel's ioprio value (class 0: best
/// effort, as fio's ioprio_value).
pub fn ioprio_value(class: u16, level: u16) -> u16 {
    let class = if class == 0 { 2 } else { class };
    (class << 13) | level
}

/// One priority a share of I/Os gets: percent, ioprio, its stats index.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Share {
    perc: u32,
    ioprio: u16,
    index: u8,
}

/// A direction's rule.
#[derive(Debug, Clone, PartialEq)]
enum Rule {
    None,
    /// cmdprio_percentage.
    Perc(Share),
    /// cmdprio_bssplit: per block size, its shares (total ≤ 100).
    Split(Vec<(u64, Vec<Share>)>),
}

/// A job's per-I/O priorities, for reads and writes.
#[derive(Debug, Clone, PartialEq)]
pub struct CmdPrio {
    rules: [Rule; 2],
    /// Per direction, the ioprio of each stats index: 0 is the job's own
    /// priority (prio/prioclass), then each cmdprio one once.
    pub prios: [Vec<u16>; 2],
}

/// A cmdprio_bssplit entry as fio parses it: bs, percent, ioprio (None:
/// the implicit cmdprio_class/cmdprio).
type Entry = (u64, u32, Option<u16>);

impl CmdPrio {
    /// The job's cmdprio, None when it uses none; Err: fio's lines (each
    /// ending in a newline) and the engine init fails.
    pub fn from_config(cfg: &Config) -> Result<Option<CmdPrio>, String> {
        if !matches!(cfg.engine, "libaio" | "io_uring") {
            return Ok(None);
        }
        let o = &cfg.opts;
        let perc = o.per_dir("cmdprio_percentage").unwrap_or([0; 3]);
        let split = o.text("cmdprio_bssplit").filter(|s| !s.trim().is_empty());
        let has_perc = perc[0] > 0 || perc[1] > 0;
        if has_perc && split.is_some() {
            return Err(format!(
                "{}: cmdprio_percentage and cmdprio_bssplit options are mutually exclusive\n",
                cfg.name
            ));
        }
        if !has_perc && split.is_none() {
            return Ok(None);
        }
        let class = o.per_dir("cmdprio_class").unwrap_or([0; 3]);
        let level = o.per_dir("cmdprio").unwrap_or([0; 3]);
        let implicit: [u16; 2] = std::array::from_fn(|d| {
            let c = if class[d] == 0 {
                CLASS_RT
            } else {
                class[d] as u16
            };
            ioprio_value(c, level[d] as u16)
        });
        let own = job_ioprio(cfg);
        let enabled = [cfg.reads, cfg.writes];
        let mut prios: [Vec<u16>; 2] = [vec![own], vec![own]];
        let mut rules = [Rule::None, Rule::None];
        let entries = match &split {
            Some(s) => Some(parse_split(s.trim(), cfg.kb_base)?),
            None => None,
        };
        for d in 0..2 {
            if !enabled[d] {
                continue;
            }
            rules[d] = match &entries {
                None if perc[d] == 0 => continue,
                None => Rule::Perc(share(perc[d] as u32, implicit[d], &mut prios[d])),
                Some(e) if e[d].is_empty() => continue,
                Some(e) => Rule::Split(by_size(&e[d], implicit[d], &mut prios[d])?),
            };
        }
        if rules.iter().all(|r| *r == Rule::None) {
            return Ok(None);
        }
        for d in 0..2 {
            if rules[d] == Rule::None {
                prios[d].clear();
            }
        }
        Ok(Some(CmdPrio { rules, prios }))
    }

    /// The priority an I/O of direction `d` (0 read, 1 write) and `len`
    /// bytes gets for a draw `rand` in 0..100: (ioprio, stats index), or
    /// None for the job's own (fio's fio_cmdprio_set_ioprio).
    #[inline]
    pub fn pick(&self, d: usize, len: u64, rand: u32) -> Option<(u16, u8)> {
        let shares: &[Share] = match self.rules.get(d)? {
            Rule::None => return None,
            Rule::Perc(s) => std::slice::from_ref(s),
            Rule::Split(sizes) => &sizes.iter().find(|(bs, _)| *bs == len)?.1,
        };
        let mut upto = 0;
        for s in shares {
            upto += s.perc;
            if rand < upto {
                return Some((s.ioprio, s.index));
            }
        }
        None
    }
}

/// The job's own ioprio (prio/prioclass, fio's td->ioprio; 0 when unset).
fn job_ioprio(cfg: &Config) -> u16 {
    match (cfg.prioclass, cfg.prio) {
        (None, None) => 0,
        (c, p) => ioprio_value(c.unwrap_or(0) as u16, p.unwrap_or(0) as u16),
    }
}

/// A share with its stats index (a new one for a priority not seen yet).
fn share(perc: u32, ioprio: u16, prios: &mut Vec<u16>) -> Share {
    let index = match prios.iter().position(|&p| p == ioprio) {
        Some(i) => i,
        None => {
            prios.push(ioprio);
            prios.len() - 1
        }
    };
    Share {
        perc,
        ioprio,
        index: index as u8,
    }
}

/// Entries (sorted by size) grouped by size; a size's total over 100% is
/// fio's error.
fn by_size(
    entries: &[Entry],
    implicit: u16,
    prios: &mut Vec<u16>,
) -> Result<Vec<(u64, Vec<Share>)>, String> {
    let mut out: Vec<(u64, Vec<Share>)> = Vec::new();
    for &(bs, perc, ioprio) in entries {
        let s = share(perc, ioprio.unwrap_or(implicit), prios);
        match out.last_mut() {
            Some((b, shares)) if *b == bs => shares.push(s),
            _ => out.push((bs, vec![s])),
        }
        let total: u32 = out
            .last()
            .map_or(0, |(_, v)| v.iter().map(|s| s.perc).sum());
        if total > 100 {
            return Err(format!(
                "fio: cmdprio_bssplit total percentage for bs: {bs} exceeds 100\n"
            ));
        }
    }
    Ok(out)
}

/// cmdprio_bssplit: `READS[,WRITES[,TRIMS]]` (one list: reads and writes
/// both), each `bs/perc[/class/level]:…`; zero entries dropped, the rest
/// sorted by size.
fn parse_split(s: &str, kb_base: u64) -> Result<[Vec<Entry>; 2], String> {
    let mut parts = s.split(',');
    let reads = parts.next().unwrap_or("");
    let writes = parts.next().unwrap_or(reads);
    Ok([parse_list(reads, kb_base)?, parse_list(writes, kb_base)?])
}

fn parse_list(s: &str, kb_base: u64) -> Result<Vec<Entry>, String> {
    let items: Vec<&str> = s.split(':').take_while(|i| !i.is_empty()).collect();
    if items.len() > MAX_ENTRIES {
        return Err("fio: too many cmdprio_bssplit entries\n".into());
    }
    let mut out = Vec::new();
    for item in items {
        let e = parse_entry(item, kb_base)
            .map_err(|m| format!("{m}fio: failed to parse cmdprio_bssplit entry\n"))?;
        if e.1 > 0 {
            out.push(e);
        }
    }
    out.sort_by_key(|e| e.0);
    Ok(out)
}

/// `bs/`, `bs/perc` or `bs/perc/class/level` (class and level capped at
/// 3 and 7, perc at 100, as fio's sscanf reading does).
fn parse_entry(item: &str, kb_base: u64) -> Result<Entry, String> {
    let mut f = item.split('/');
    let bs_text = f.next().filter(|b| !b.is_empty());
    let Some(bs_text) = bs_text else {
        return Err("fio: invalid cmdprio_bssplit format\n".into());
    };
    let bs = rbench_common::units::fio::parse_size(bs_text, kb_base)
        .map_err(|_| "fio: split conversion failed\n".to_string())?;
    let nums: Vec<Option<u32>> = f.map(leading_uint).collect();
    // sscanf stops at the first field it cannot read.
    let read: Vec<u32> = nums.iter().map_while(|n| *n).collect();
    match read.len() {
        0 | 1 => Ok((bs, read.first().copied().unwrap_or(0).min(100), None)),
        2 => Err("fio: invalid cmdprio_bssplit format\n".into()),
        _ => {
            let (class, level) = (read[1].min(3) as u16, read[2].min(7) as u16);
            Ok((bs, read[0].min(100), Some(ioprio_value(class, level))))
        }
    }
}

/// `%u` of sscanf: leading digits (after blanks), None without any.
fn leading_uint(s: &str) -> Option<u32> {
    let t = s.trim_start();
    let digits: String = t.chars().take_while(char::is_ascii_digit).collect();
    digits.parse::<u64>().ok().map(|v| v as u32)
}

/// The draws of one job loop: fio's rand_between(0, 99) over a generator
/// of its own (the draws are not fio's sequence).
#[derive(Debug, Clone)]
pub struct Draws(u64);

impl Draws {
    pub fn new(seed: u64) -> Draws {
        Draws(seed | 1)
    }

    /// 0..100.
    #[inline]
    pub fn next(&mut self) -> u32 {
        // xorshift64*
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        ((x.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 32) % 100) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(args: &[&str]) -> crate::job::Job {
        crate::job::test_job(args)
    }

    #[test]
    fn percentage_gives_the_rt_class_by_default() {
        let j = job(&[
            "--ioengine=libaio",
            "--rw=randread",
            "--cmdprio_percentage=50",
        ]);
        let c = CmdPrio::from_config(&j.engine_config()).unwrap().unwrap();
        assert_eq!(c.prios[0], vec![0, 1 << 13]);
        assert!(c.prios[1].is_empty(), "no writes, no write priorities");
        assert_eq!(c.pick(0, 4096, 49), Some((1 << 13, 1)));
        assert_eq!(c.pick(0, 4096, 50), None);
        assert_eq!(c.pick(1, 4096, 0), None);
    }

    #[test]
    fn bssplit_entries_by_size_with_their_own_priorities() {
        let j = job(&[
            "--ioengine=libaio",
            "--rw=randrw",
            "--cmdprio_bssplit=64k/25/1/1:64k/75/3/2:1024k/0",
        ]);
        let c = CmdPrio::from_config(&j.engine_config()).unwrap().unwrap();
        let (p1, p2) = (ioprio_value(1, 1), ioprio_value(3, 2));
        assert_eq!(c.prios[0], vec![0, p1, p2]);
        assert_eq!(c.prios[1], vec![0, p1, p2]);
        assert_eq!(c.pick(0, 65536, 24), Some((p1, 1)));
        assert_eq!(c.pick(1, 65536, 99), Some((p2, 2)));
        assert_eq!(c.pick(0, 1 << 20, 0), None);
    }

    #[test]
    fn fios_errors() {
        let e = |args: &[&str]| CmdPrio::from_config(&job(args).engine_config()).unwrap_err();
        assert_eq!(
            e(&[
                "--ioengine=libaio",
                "--cmdprio_percentage=5",
                "--cmdprio_bssplit=4k/5"
            ]),
            "t: cmdprio_percentage and cmdprio_bssplit options are mutually exclusive\n"
        );
        assert_eq!(
            e(&["--ioengine=io_uring", "--cmdprio_bssplit=4k/60:4k/50"]),
            "fio: cmdprio_bssplit total percentage for bs: 4096 exceeds 100\n"
        );
        assert_eq!(
            e(&["--ioengine=libaio", "--cmdprio_bssplit=abc/60"]),
            "fio: split conversion failed\nfio: failed to parse cmdprio_bssplit entry\n"
        );
    }

    #[test]
    fn draws_cover_0_to_99_evenly() {
        let mut d = Draws::new(7);
        let mut counts = [0u32; 100];
        for _ in 0..100_000 {
            counts[d.next() as usize] += 1;
        }
        assert!(
            counts.iter().all(|&c| (800..1200).contains(&c)),
            "{counts:?}"
        );
    }
}
