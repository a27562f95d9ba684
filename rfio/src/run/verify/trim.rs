//! Trim verify (`trim_percentage`, `trim_verify_zero`, `trim_backlog`,
//! `trim_backlog_batch`), as fio 3.33 does it (trim.c, io_u.c, verify.c):
//!
//! - each write logged for verify draws once from the trim generator (seed
//!   slot 8, fio's FIO_RAND_TRIM_OFF): at most `rand_max / 100 *
//!   trim_percentage` puts the block on the trim list;
//! - only with `trim_backlog`, before each next I/O (fio's check_get_trim):
//!   while a batch is under way (`trim_backlog_batch`, or `trim_backlog`
//!   when 0), or when the count of logged blocks is a multiple of
//!   `trim_backlog` and the last I/O was no read, the oldest listed block
//!   is trimmed. fio sets the batch on the first trim without counting it,
//!   and with `trim_verify_zero=1` the logged count does not move, so one
//!   trigger trims the whole list;
//! - a trimmed block stays to be verified and must read back as zeros
//!   (`trim: verify failed at file … block offset N`, EILSEQ), or with
//!   `trim_verify_zero=0` leaves the verify list;
//! - blocks still listed when the write pass ends are fio's `N trim
//!   entries leaked?`.
//!
//! The trims go out beside the job's engine (like verify_backlog's reads),
//! right after the write that made them due completes, and count in the
//! job's trim statistics.

use super::{Mismatch, Written};
use crate::engine::{IoKind, IoUnit};
use crate::job::Job;
use crate::run::files::filesize::{slot_seed, Taus};
use crate::stats::{depth_bucket, ThreadStats};
use std::collections::{HashMap, VecDeque};
use std::os::fd::RawFd;

/// fio's FIO_RAND_TRIM_OFF.
const TRIM_SLOT: u64 = 8;

/// Where a logged write stands with trim verify.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) enum Trimmed {
    #[default]
    No,
    /// Trimmed: must read back as zeros.
    Zero,
    /// Trimmed with trim_verify_zero=0: not read back.
    Dropped,
}

/// The trim verify state of one job.
pub(super) struct TrimVerify {
    /// rand_max / 100 * trim_percentage: a draw at most this is listed.
    threshold: u64,
    rng: Taus,
    /// randrepeat: each loop starts the generator again (fio's
    /// clear_io_state reseeds every generator then).
    reseed: Option<(u64, bool)>,
    zero: bool,
    backlog: u64,
    batch: u64,
    /// fio's trim_list: history indices, oldest first.
    list: VecDeque<usize>,
    /// fio's td->trim_batch.
    batch_left: u64,
    /// fio's io_hist_len: logged blocks not verified or dropped yet.
    hist_len: u64,
    /// The last I/O was a read (a verify_backlog read).
    last_read: bool,
    /// The engine moves no data: count the trims, issue nothing.
    fake: bool,
    /// fio's td->verify_batch: backlog reads left in the current batch.
    verify_left: u64,
    /// When a block can be written again (norandommap, io_size past the
    /// end): the logged entry of each (file, offset), so a rewrite replaces
    /// it as in fio's rbtree (the older one leaves the count and the list).
    live: Option<HashMap<(u32, u64), usize>>,
}

impl TrimVerify {
    /// The trim verify of `job`, if it logs writes and trims a share.
    pub(super) fn new(job: &Job, fake: bool, overlaps: bool) -> Option<TrimVerify> {
        let o = &job.opts;
        let spec = job.verify.as_ref()?;
        // fio's unsigned int: -1 is 2^32-1, listing every block.
        let percentage = u64::from(o.int("trim_percentage") as u32);
        // fio lists blocks only for writes it logs (do_verify, not
        // experimental_verify, not verify_only's dry run).
        if percentage == 0
            || !spec.do_verify
            || spec.only
            || !job.pattern.write
            || o.flag("experimental_verify")
        {
            return None;
        }
        let wide = o.choice("random_generator").0 == "tausworthe64";
        let seed = slot_seed(job, TRIM_SLOT).unwrap_or_else(rbench_common::clock::now_ns);
        let rng = Taus::new(seed, wide);
        Some(TrimVerify {
            threshold: (rng.max() / 100).wrapping_mul(percentage),
            rng,
            reseed: job.rand.randrepeat.then_some((seed, wide)),
            zero: o.flag("trim_verify_zero"),
            backlog: o.int("trim_backlog").max(0) as u64,
            batch: o.int("trim_backlog_batch").max(0) as u64,
            list: VecDeque::new(),
            batch_left: 0,
            hist_len: 0,
            last_read: false,
            fake,
            verify_left: 0,
            live: overlaps.then(HashMap::new),
        })
    }

    /// A write of `file` at `offset` entered the history at `idx` (fio's
    /// log_io_piece).
    pub(super) fn logged(&mut self, idx: usize, file: u32, offset: u64) {
        if let Some(prev) = self
            .live
            .as_mut()
            .and_then(|l| l.insert((file, offset), idx))
        {
            // Cold: a block written again replaces its older entry.
            self.hist_len = self.hist_len.saturating_sub(1);
            self.list.retain(|&i| i != prev);
        }
        self.hist_len += 1;
        self.last_read = false;
        if self.rng.next() <= self.threshold {
            self.list.push_back(idx);
        }
    }

    /// fio's check_get_verify (verify_backlog beside trim verify): whether
    /// a backlog read is due now, on fio's count of logged blocks.
    pub(super) fn verify_wanted(&mut self, backlog: u64, batch: u64) -> bool {
        if self.hist_len == 0 {
            return false;
        }
        if self.verify_left > 0 {
            return true;
        }
        if self.hist_len.is_multiple_of(backlog.max(1)) && !self.last_read {
            self.verify_left = batch.max(1);
            return true;
        }
        false
    }

    /// A backlog read of history entry `idx` (`w`) is going out: it leaves
    /// the count and the trim list (fio's get_next_verify).
    pub(super) fn verified(&mut self, idx: usize, w: &Written) {
        self.verify_left = self.verify_left.saturating_sub(1);
        self.hist_len = self.hist_len.saturating_sub(1);
        self.last_read = true;
        self.list.retain(|&i| i != idx);
        if let Some(l) = self.live.as_mut() {
            if l.get(&(w.file, w.offset)) == Some(&idx) {
                l.remove(&(w.file, w.offset));
            }
        }
    }

    /// fio's check_get_trim, asked before each next I/O: the history index
    /// of the block to trim now, if any.
    fn next_due(&mut self) -> Option<usize> {
        if self.list.is_empty() || self.backlog == 0 {
            return None;
        }
        if self.batch_left > 0 {
            self.batch_left -= 1;
        } else if self.hist_len.is_multiple_of(self.backlog) && !self.last_read {
            self.batch_left = if self.batch > 0 {
                self.batch
            } else {
                self.backlog
            };
        } else {
            return None;
        }
        self.list.pop_front()
    }

    /// Trim what is due now (after a write completed); each trim goes to
    /// `log` when the job keeps per-I/O logs. `Err`: a trim that failed
    /// (`errno` set) ends the job as fio's failed I/O does.
    #[cold]
    pub(super) fn run(
        &mut self,
        history: &mut [Written],
        fds: &[RawFd],
        st: &mut ThreadStats,
        mut log: Option<&mut Vec<super::BacklogRead>>,
    ) -> Result<(), Mismatch> {
        while self.trim_next(history, fds, st, log.as_deref_mut())? {}
        Ok(())
    }

    /// One trim, if one is due now: whether there was one.
    pub(super) fn trim_next(
        &mut self,
        history: &mut [Written],
        fds: &[RawFd],
        st: &mut ThreadStats,
        log: Option<&mut Vec<super::BacklogRead>>,
    ) -> Result<bool, Mismatch> {
        let Some(i) = self.next_due() else {
            return Ok(false);
        };
        let Some(w) = history.get_mut(i) else {
            return Ok(true);
        };
        let mut io = IoUnit::new(std::ptr::null_mut());
        io.kind = IoKind::Trim;
        io.file = w.file as usize;
        io.fd = fds.get(io.file).copied().unwrap_or(-1);
        io.offset = w.offset;
        io.len = w.len as usize;
        let t0 = rbench_common::clock::now_ns();
        let r = if self.fake {
            io.len as i64
        } else {
            crate::engine::do_trim(&io)
        };
        let ns = rbench_common::clock::now_ns().saturating_sub(t0);
        st.issued[2] += 1;
        if r < 0 {
            return Err(Mismatch {
                report: String::new(),
                file: io.file,
                offset: io.offset,
                len: io.len,
                errno: (-r) as i32,
            });
        }
        let d = &mut st.dir[2];
        d.ios += 1;
        d.io_bytes += io.len as u64;
        d.clat.record(ns);
        d.lat.record(ns);
        st.depth_map[depth_bucket(1)] += 1;
        if let Some(l) = log {
            l.push((io.file, io.offset, io.len as u64, t0 + ns, ns, IoKind::Trim));
        }
        self.last_read = false;
        if self.zero {
            w.trimmed = Trimmed::Zero;
        } else {
            w.trimmed = Trimmed::Dropped;
            if let Some(l) = self.live.as_mut() {
                if l.get(&(w.file, w.offset)) == Some(&i) {
                    l.remove(&(w.file, w.offset));
                }
            }
            self.hist_len = self.hist_len.saturating_sub(1);
        }
        Ok(true)
    }

    /// The write pass (a loop) ended: fio's message for blocks listed but
    /// never trimmed (none without trim_backlog ever are), then the list is
    /// gone and the next loop starts afresh.
    pub(super) fn pass_ended(&mut self) -> Option<String> {
        let n = self.list.len();
        self.list.clear();
        if let Some(l) = self.live.as_mut() {
            l.clear();
        }
        self.hist_len = 0;
        if let Some((seed, wide)) = self.reseed {
            self.rng = Taus::new(seed, wide);
        }
        (n > 0).then(|| format!("fio: {n} trim entries leaked?\n"))
    }
}

/// fio's verify_trimmed_io_u: a trimmed block must read back as zeros.
/// `path` names file `file` for the message.
pub(super) fn check_zero(
    buf: &[u8],
    offset: u64,
    file: usize,
    path: impl FnOnce() -> String,
) -> Result<(), Mismatch> {
    let Some(at) = buf.iter().position(|&b| b != 0) else {
        return Ok(());
    };
    Err(Mismatch {
        report: format!(
            "trim: verify failed at file {} offset {offset}, length {}, block offset {at}\n",
            path(),
            buf.len()
        ),
        file,
        offset,
        len: buf.len(),
        errno: 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(zero: bool, backlog: u64, batch: u64, listed: &[usize], hist: u64) -> TrimVerify {
        TrimVerify {
            threshold: 0,
            rng: Taus::new(1, false),
            reseed: None,
            zero,
            backlog,
            batch,
            list: listed.iter().copied().collect(),
            batch_left: 0,
            hist_len: hist,
            last_read: false,
            fake: true,
            verify_left: 0,
            live: None,
        }
    }

    #[test]
    fn one_trigger_trims_the_whole_list_when_trimmed_blocks_stay() {
        // io_hist_len stays at 8 (a multiple of 4): each batch is followed
        // by another until the list is empty, as in fio.
        let mut t = state(true, 4, 1, &[1, 3, 5, 6, 7], 8);
        let mut got = Vec::new();
        while let Some(i) = t.next_due() {
            got.push(i);
        }
        assert_eq!(got, vec![1, 3, 5, 6, 7]);
    }

    #[test]
    fn first_trim_of_a_batch_is_not_counted() {
        // hist 7 is no multiple of 4: nothing; at 8 the batch of 2 gives
        // three trims (fio sets trim_batch without counting the first).
        let mut t = state(false, 4, 2, &[0, 1, 2, 3, 4], 7);
        assert_eq!(t.next_due(), None);
        t.hist_len = 8;
        let mut got = Vec::new();
        while let Some(i) = t.next_due() {
            got.push(i);
            t.hist_len -= 1;
        }
        assert_eq!(got, vec![0, 1, 2]);
        assert_eq!(
            t.pass_ended().as_deref(),
            Some("fio: 2 trim entries leaked?\n")
        );
    }

    #[test]
    fn no_backlog_never_trims() {
        let mut t = state(true, 0, 0, &[0, 1], 4);
        assert_eq!(t.next_due(), None);
        assert_eq!(
            t.pass_ended().as_deref(),
            Some("fio: 2 trim entries leaked?\n")
        );
    }

    #[test]
    fn a_read_last_stops_a_new_batch() {
        let mut t = state(true, 2, 0, &[0], 2);
        t.last_read = true;
        assert_eq!(t.next_due(), None);
    }

    #[test]
    fn nonzero_trimmed_block_gives_fios_message() {
        let mut b = vec![0u8; 4096];
        assert!(check_zero(&b, 8192, 0, || "f".into()).is_ok());
        b[100] = 1;
        let m = check_zero(&b, 8192, 0, || "f".into()).unwrap_err();
        assert_eq!(
            m.report,
            "trim: verify failed at file f offset 8192, length 4096, block offset 100\n"
        );
    }
}
