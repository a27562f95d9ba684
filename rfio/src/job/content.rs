//! The buffer options of a job (`zero_buffers`, `refill_buffers`,
//! `scramble_buffers`, `buffer_compress_*`, `dedupe_*`, `buffer_pattern`)
//! after fio's fix-ups; run/buffers.rs fills the buffers from them.

use super::Job;
use crate::options::JobOptions;
use crate::verify::pattern::Pattern;

/// The buffer options of a job, after fio's fix-ups (init.c, options.c).
#[derive(Debug, Clone, Default)]
pub struct Content {
    pub zero: bool,
    pub refill: bool,
    pub scramble: bool,
    /// Share of each chunk left zero (or pattern); 0: off.
    pub compress_pct: u32,
    pub compress_chunk: usize,
    /// Share of write buffers that repeat an earlier one; 0: off.
    pub dedupe_pct: u32,
    /// dedupe_mode=working_set: its size in percent of the job's size.
    pub working_set_pct: Option<u32>,
    pub pattern: Option<Vec<u8>>,
    /// The smallest write block (fio's min_bs[write]).
    pub min_write: usize,
    /// dedupe_global: the working set takes its pages from every job's
    /// stream in turn (dedupe.c), so jobs repeat each other's buffers.
    pub dedupe_global: bool,
    /// The number of jobs in the run (fio's thread_number), set once all
    /// are known ([`count_jobs`]).
    pub run_jobs: usize,
}

/// Tell every job how many jobs the run has (dedupe_global's working set
/// takes pages from all of them).
pub fn count_jobs(jobs: &mut [Job]) {
    let n = jobs.len();
    for j in jobs {
        j.content.run_jobs = n;
    }
}

/// The buffer stream of job number `number` (1-based, fio's thread
impl Content {
    /// Resolve the options; `verify`: a verify type is set (fio turns
    /// refill on for it unless refill_buffers was given).
    pub fn from_options(
        o: &JobOptions,
        reads: bool,
        verify: bool,
        min_write: u64,
    ) -> Result<Content, String> {
        let pattern = match o.text("buffer_pattern") {
            Some(s) => Some(
                Pattern::parse(&s, false)
                    .ok_or_else(|| format!("fio: failed parsing buffer_pattern={s}\n"))?
                    .bytes,
            ),
            None => None,
        };
        let refill_set = o.is_set("refill_buffers");
        let mut c = Content {
            zero: o.flag("zero_buffers"),
            refill: o.flag("refill_buffers"),
            scramble: o.flag("scramble_buffers"),
            compress_pct: o.int("buffer_compress_percentage") as u32,
            compress_chunk: o.int("buffer_compress_chunk") as usize,
            dedupe_pct: o.int("dedupe_percentage") as u32,
            working_set_pct: (o.choice("dedupe_mode").0 == "working_set")
                .then(|| o.int("dedupe_working_set_percentage") as u32),
            pattern: None,
            min_write: min_write.max(1) as usize,
            dedupe_global: o.flag("dedupe_global"),
            run_jobs: 0,
        };
        if pattern.is_some() {
            // buffer_pattern: refill only when reads (or compression) could
            // spoil the pattern; no scramble, no zeroing (options.c).
            if !refill_set {
                c.refill = c.compress_pct != 0 || reads;
            }
            c.scramble = false;
            c.zero = false;
            c.pattern = pattern;
        }
        if verify && !refill_set {
            c.refill = true;
        }
        if c.compress_pct == 100 {
            // Fully compressible: zero once at allocation (init.c).
            c.zero = true;
            c.compress_pct = 0;
        } else if c.compress_pct > 0 && !refill_set {
            c.refill = true;
        }
        if c.dedupe_pct > 0 {
            c.refill = true;
        }
        // Scramble when asked for, or by default unless zero_buffers was
        // asked for (init.c); it is skipped for refilled, compressed or
        // verified writes (get_io_u), and buffer_pattern turns it off.
        let zero_asked = o.is_set("zero_buffers") && o.flag("zero_buffers");
        // buffer_pattern clears scramble when parsed; a scramble_buffers
        // given after it sets it again (fio applies options in order).
        let pos = |n: &str| o.typed.iter().position(|(k, _)| *k == n);
        let after_pattern = match (pos("scramble_buffers"), pos("buffer_pattern")) {
            (Some(a), Some(b)) => a > b,
            _ => c.pattern.is_none(),
        };
        let scramble_asked =
            o.is_set("scramble_buffers") && o.flag("scramble_buffers") && after_pattern;
        // Giving either compress or dedupe option turns fio's TD_F_COMPRESS on.
        let compress_flag = o.is_set("buffer_compress_percentage") || o.is_set("dedupe_percentage");
        c.scramble = (scramble_asked || (c.scramble && !zero_asked))
            && !c.refill
            && !compress_flag
            && !verify;
        Ok(c)
    }

    /// Whether writes touch their buffer before going out.
    pub fn per_write(&self) -> bool {
        self.refill || self.scramble
    }
}
