//! fio's I/O logs (§ write_iolog, read_iolog): the "fio version 3 iolog"
//! a job writes of what it issues, and the version 2 and 3 logs a job
//! replays instead of picking its own offsets.

pub mod reader;
pub mod writer;

use std::path::PathBuf;
use std::sync::Arc;

use crate::job::Job;
use crate::options::JobOptions;

/// read_iolog and the replay_* options of one job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replay {
    /// This clone's log (read_iolog is a `:`-list, one per clone, reused
    /// round robin as fio's get_name_by_idx).
    pub file: String,
    /// read_iolog_chunked: fio reads the log as it goes; the I/O replayed
    /// is the same, so rfio reads it whole.
    pub chunked: bool,
    /// replay_no_stall: no waits between entries.
    pub no_stall: bool,
    /// replay_redirect: every entry goes to this file.
    pub redirect: Option<String>,
    /// replay_scale: offsets divided by it (0: as logged).
    pub scale: u64,
    /// replay_align: offsets rounded down to it (0: as logged).
    pub align: u64,
    /// replay_time_scale: percent of the logged time between entries.
    pub time_scale: u64,
    /// The log, once read as the run starts ([`prepare`]).
    pub log: Option<Arc<reader::Log>>,
    /// Why it could not be read (fio's lines): the job then fails.
    pub load_error: Option<String>,
}

impl Replay {
    /// The job's replay settings, None without read_iolog.
    pub fn from_options(o: &JobOptions, clone: usize) -> Option<Replay> {
        let list = o.text("read_iolog")?;
        Some(Replay {
            file: nth_name(&list, clone),
            chunked: o.flag("read_iolog_chunked"),
            no_stall: o.flag("replay_no_stall"),
            redirect: o.text("replay_redirect"),
            scale: o.int("replay_scale").max(0) as u64,
            align: o.int("replay_align").max(0) as u64,
            time_scale: o.int("replay_time_scale").max(1) as u64,
            log: None,
            load_error: None,
        })
    }
}

/// A job that replays a log, as it runs: the log read (fio reads it as
/// the job starts; rfio as the run does, before the files are opened),
/// the job's files and directions those of the log, its blocks as large
/// as the log's largest. None for a job that replays nothing.
pub fn prepare(job: &Job) -> Option<Job> {
    let r = job.replay.as_ref()?;
    let mut j = job.clone();
    let loaded = reader::load(r, job.readonly);
    let slot = j.replay.as_mut()?;
    match loaded {
        Ok(log) => {
            j.filenames = log.files.iter().map(PathBuf::from).collect();
            let has = |k| log.entries.iter().any(|e| e.op == reader::Op::Io(k));
            use crate::engine::IoKind;
            j.pattern.read = has(IoKind::Read);
            j.pattern.write = has(IoKind::Write);
            j.pattern.trim = has(IoKind::Trim);
            j.pattern.random = false;
            for d in 0..3 {
                j.bs[d].1 = j.bs[d].1.max(log.max_len[d]);
            }
            // fio opens a replayed file to write with O_CREAT.
            j.create_on_open = j.pattern.write || j.pattern.trim;
            slot.log = Some(Arc::new(log));
        }
        Err(e) => {
            j.filenames.clear();
            slot.load_error = Some(e);
        }
    }
    Some(j)
}

/// The `idx`-th name (modulo their count) of a `:`-separated list, as
/// fio's get_name_by_idx picks a clone's read_iolog.
fn nth_name(list: &str, idx: usize) -> String {
    let names: Vec<&str> = list.split(':').collect();
    names[idx % names.len()].to_string()
}

/// replay_skip: the directions to leave out (`read,write,trim,sync`).
/// fio 3.33 applies it to blktrace replay only, which rfio refuses; the
/// value is still checked as fio's parser checks it.
pub fn check_skip(s: &str) -> Result<(), String> {
    for w in s.trim().split(',') {
        if !matches!(w, "read" | "write" | "trim" | "sync") {
            return Err(format!(
                "Unknown skip type: {w}\nfio: failed parsing replay_skip={s}\n"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clone_names_wrap() {
        assert_eq!(nth_name("a:b", 0), "a");
        assert_eq!(nth_name("a:b", 3), "b");
        assert_eq!(nth_name("a", 5), "a");
    }

    #[test]
    fn skip_words() {
        assert!(check_skip("read,sync").is_ok());
        assert_eq!(
            check_skip("read,bogus").unwrap_err(),
            "Unknown skip type: bogus\nfio: failed parsing replay_skip=read,bogus\n"
        );
    }
}
