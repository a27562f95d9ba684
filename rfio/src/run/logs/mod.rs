//! fio's log files and the samples that feed them.

/// `--bandwidth-log`: the aggregate bandwidth logs.
pub mod agglog;
/// A job's bw, iops, lat and hist logs, kept during the run, written after.
pub mod job_logs;
/// `log_compression=N`: logs kept in memory as compressed chunks.
pub mod logpack;
/// Compressed log files (`.log.fz`) and `--inflate-log`.
pub mod logzip;
/// The bw/iops sample windows.
pub mod sampler;
/// What `--plot` records while a job runs, collected for plot/.
pub mod trace;
