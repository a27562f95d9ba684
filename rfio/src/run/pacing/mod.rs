//! How fast a job goes and when it stops: rate, think time, steady state.

/// `flow_id`, `flow`, `flow_sleep`: jobs sharing I/O by weight.
pub mod flow;
/// `latency_target` and its options: fio's queue depth probing.
pub mod latency;
/// Sleeps that a signal cuts short.
pub mod pause;
/// `steadystate`: end a job once its IOPS or bandwidth has settled.
pub mod steadystate;
/// `rate*`, `rate_min`, `rate_cycle` and `thinktime*`.
pub mod throttle;
