//! read_iolog and the replay_* options (§ read_iolog) as settings, and the
//! log a job replays once it is read (run/iolog/reader.rs reads it, the
//! picker walks it).

use std::sync::Arc;

use crate::engine::IoKind;
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
    pub log: Option<Arc<Log>>,
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

/// What one entry does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Io(IoKind),
    /// Version 2's `wait`: until this many ms into the job.
    WaitMs(u64),
    /// add, open or close (the files are opened once, as the job starts).
    File,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    pub op: Op,
    pub file: usize,
    pub offset: u64,
    pub len: u64,
    /// Version 3: microseconds to wait before it (the logged time since
    /// the entry before, scaled by replay_time_scale).
    pub delay_us: u64,
}

/// A log read whole.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Log {
    /// The files its `add` lines name (or replay_redirect), in order.
    pub files: Vec<String>,
    pub entries: Vec<Entry>,
    /// Bytes of reads, writes and trims; the largest length of each.
    pub bytes: [u64; 3],
    pub max_len: [u64; 3],
    /// The lines fio prints to stderr as it reads the log.
    pub warnings: String,
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
