//! Latency histograms in the two originals' schemes.
//!
//! * [`LatencyHistogram`]: fio's log-linear histogram (spec fio §4.1), values
//!   in nanoseconds, used by rfio (percentiles, json+ `bins`) and by any tool
//!   that wants mergeable per-thread latency percentiles.
//! * [`SysbenchHistogram`]: sysbench 1.0.20's 1024 logarithmic buckets over
//!   0.001..100000 ms (spec sysbench §4), used by rsysbench.

mod extended;
mod fio;
mod sysbench;

pub use fio::{bucket_index, bucket_value, LatencyHistogram, FIO_DEFAULT_PERCENTILES, NR_BUCKETS};
pub use sysbench::{SysbenchHistogram, SYSBENCH_NR_BUCKETS};
