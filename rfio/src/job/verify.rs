//! What a job asks of verify: the type (numbered as fio numbers it in the
//! header) and the verify options after fio's fix-ups (init.c), plus
//! fio's warnings about them.

use super::Job;
use crate::verify::header;
use crate::verify::pattern::Pattern;
pub use crate::verify::Kind;

/// The verify options of a job, after fio's fix-ups (init.c).
#[derive(Debug, Clone)]
pub struct Spec {
    pub kind: Kind,
    /// Bytes each header covers (verify_interval, fixed up as fio does).
    pub interval: usize,
    /// verify_offset: the header is swapped to this offset in its interval.
    pub offset: usize,
    pub pattern: Option<Pattern>,
    /// Read back and check after the write pass (do_verify).
    pub do_verify: bool,
    /// verify_only: no writes, check what an earlier run wrote.
    pub only: bool,
    /// verify_backlog / verify_backlog_batch (0: off).
    pub backlog: u64,
    pub backlog_batch: u64,
    pub fatal: bool,
    pub dump: bool,
    // verify_async is accepted and changes nothing: checks run on the
    // job's own thread, right after each read completes.
    /// Compare numberio (fio: writing job, fixed block size, not
    /// time_based, not verify_only).
    pub check_numberio: bool,
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

impl Spec {
    /// The verify settings of `job`, or `None` when verify is off. `Err`:
    /// fio's parse error lines.
    pub fn from_job(job: &Job) -> Result<Option<Spec>, String> {
        let o = &job.opts;
        let pattern = match o.text("verify_pattern") {
            Some(s) => Some(
                Pattern::parse(&s, true)
                    .ok_or_else(|| format!("fio: failed parsing verify_pattern={s}\n"))?,
            ),
            None => None,
        };
        let word = o.choice("verify").0;
        let kind = match word.as_str() {
            "0" | "" | "none" if pattern.is_some() => Kind::Pattern,
            "0" | "" | "none" => return Ok(None),
            w => match Kind::from_word(w) {
                Some(k) => k,
                None => return Err(format!("fio: failed parsing verify={w}\n")),
            },
        };
        if kind == Kind::PatternNoHdr && pattern.is_none() {
            // fio 3.33 stops on an assertion (verify.c: pattern_size != 0).
            return Err("fio: verify=pattern requires verify_pattern\n".to_string());
        }
        // Block sizes of writes (and reads), as fio's min_bs/max_bs.
        let sizes = |d: usize| {
            let from_split = job.bssplit[d].iter().map(|e| e.0);
            let lo = from_split
                .clone()
                .min()
                .unwrap_or(job.bs[d].0)
                .min(job.bs[d].0);
            let hi = from_split.max().unwrap_or(job.bs[d].1).max(job.bs[d].1);
            if job.bssplit[d].is_empty() {
                job.bs[d]
            } else {
                (lo, hi)
            }
        };
        let (min_w, max_w) = sizes(1);
        let (min_r, _) = sizes(0);
        let mut vi = o.int("verify_interval").max(0) as u64;
        if max_w != min_w && vi == 0 {
            vi = min_w;
        }
        if vi > min_w {
            vi = min_w;
        } else if job.pattern.read && vi > min_r {
            vi = min_r;
        }
        if vi == 0 || min_w % vi != 0 || max_w % vi != 0 {
            vi = gcd(min_w, max_w);
        }
        let offset = o.int("verify_offset").max(0) as usize;
        if offset + kind.hdr_size().max(header::LEN) > vi as usize {
            // fio 3.33 corrupts memory here; later fio refuses (init.c,
            // header only; rfio counts the checksum after it too).
            return Err("fio: cannot offset verify header beyond the verify interval.\n".into());
        }
        let only = o.flag("verify_only");
        let backlog = o.int("verify_backlog").max(0) as u64;
        Ok(Some(Spec {
            kind,
            interval: vi as usize,
            offset,
            pattern,
            do_verify: o.flag("do_verify"),
            only,
            backlog,
            backlog_batch: match o.int("verify_backlog_batch").max(0) as u64 {
                0 => backlog,
                b => b,
            },
            fatal: o.flag("verify_fatal"),
            dump: o.flag("verify_dump"),
            // Two writes of one block in flight at once (norandommap at depth)
            // land in either order: only the checksum can be trusted then.
            check_numberio: job.pattern.write
                && min_w == max_w
                && !job.time_based
                && !only
                && !(job.rand.norandommap && job.queue.iodepth > 1),
        }))
    }
}

/// fio's warnings about verify settings, printed once per job definition
/// before the job lines (init.c fixup_options): (on stdout?, line).
pub fn warnings(jobs: &[Job]) -> Vec<(bool, String)> {
    let mut out = Vec::new();
    for j in jobs.iter().filter(|j| j.clone == 0) {
        let Some(spec) = &j.verify else { continue };
        let o = &j.opts;
        let fixed = j.bssplit.iter().all(Vec::is_empty)
            && j.bs.iter().all(|b| b.0 == b.1 && b.0 == j.bs[0].0);
        if j.rand.norandommap && !fixed {
            out.push((
                false,
                "fio: norandommap given for variable block sizes, verify limited\n".to_string(),
            ));
        }
        let writes = j.pattern.write && spec.do_verify;
        let format = o
            .text("filename_format")
            .unwrap_or_else(|| "$jobname.$jobnum.$filenum".into());
        let shared = o.is_set("filename")
            || !["$jobname", "$jobnum", "$filenum"]
                .iter()
                .all(|k| format.contains(k));
        if writes && o.int("numjobs") > 1 && shared {
            out.push((
                true,
                "fio: multiple writers may overwrite blocks that belong to other jobs. \
                 This can cause verification failures.\n"
                    .to_string(),
            ));
        }
        if writes && j.runtime_us > 0 && j.time_based && !j.pattern.read && spec.backlog == 0 {
            out.push((
                true,
                "fio: verification read phase will never start because write phase uses all \
                 of runtime\n"
                    .to_string(),
            ));
        }
    }
    out
}
