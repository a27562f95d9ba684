//! How fast a job goes and when it stops: rate, think time, steady state.

/// Sleeps that a signal cuts short.
pub mod pause;
/// `steadystate`: end a job once its IOPS or bandwidth has settled.
pub mod steadystate;
/// `rate*`, `rate_min`, `rate_cycle` and `thinktime*`.
pub mod throttle;
