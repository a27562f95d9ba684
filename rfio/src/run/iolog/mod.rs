//! fio's I/O logs (§ write_iolog, read_iolog): the "fio version 3 iolog"
//! a job writes of what it issues, and the version 2 and 3 logs a job
//! replays instead of picking its own offsets.

pub mod reader;
pub mod writer;

use std::path::PathBuf;
use std::sync::Arc;

use crate::job::Job;

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
            let has = |k| {
                log.entries
                    .iter()
                    .any(|e| e.op == crate::job::replay::Op::Io(k))
            };
            use crate::engine::IoKind;
            j.pattern.read = has(IoKind::Read);
            j.pattern.write = has(IoKind::Write);
            j.pattern.trim = has(IoKind::Trim);
            j.pattern.random = false;
            for d in 0..3 {
                j.bs[d].1 = j.bs[d].1.max(log.max_len[d]);
            }
            // fio opens a replayed file to write with O_CREAT.
            j.files.create_on_open = j.pattern.write || j.pattern.trim;
            slot.log = Some(Arc::new(log));
        }
        Err(e) => {
            j.filenames.clear();
            slot.load_error = Some(e);
        }
    }
    Some(j)
}
