//! What an engine sees of its job: a few typed settings and the job's own
//! options (for the engines' own options: `cpuload`, `hostname`, `program`,
//! ...), borrowed from the job for as long as the engine is set up. The job
//! layer builds it (`Job::engine_config`); engines know nothing else of jobs.

use crate::options::JobOptions;
use rbench_common::units::fio::SizeOrPercent;
use std::path::PathBuf;

#[derive(Debug, Clone, Copy)]
pub struct Config<'a> {
    /// The job's name and clone number (0 for the job itself).
    pub name: &'a str,
    pub clone: usize,
    /// `ioengine`, as fio names it.
    pub engine: &'a str,
    pub iodepth: usize,
    /// The directions of `rw`, and whether its offsets are random.
    pub reads: bool,
    pub writes: bool,
    pub random: bool,
    pub size: Option<SizeOrPercent>,
    pub offset: SizeOrPercent,
    /// `filesize`'s range.
    pub filesize: Option<(u64, u64)>,
    pub filenames: &'a [PathBuf],
    pub runtime_us: u64,
    pub thinktime_us: u64,
    pub kb_base: u64,
    /// `prioclass`, `prio`.
    pub prioclass: Option<u32>,
    pub prio: Option<u32>,
    pub unlink_each_loop: bool,
    /// io_uring's and pvsync2's settings.
    pub hipri: bool,
    pub fixedbufs: bool,
    pub registerfiles: bool,
    pub sqthread_poll: bool,
    /// Every option of the job, for the options only one engine reads.
    pub opts: &'a JobOptions,
}
