//! A job's files and the devices behind them.

/// Block devices' counters from /proc/diskstats, before and after the run.
pub mod diskstats;
/// `filesize=lo-hi`: each file's size.
pub mod filesize;
/// Names, sizes, layout ("Laying out IO file"), opening, cache hints.
pub mod layout;
