//! What all four rbench tools share: clocks, the latency histogram, running
//! statistics, unit dialects, CPU lists and affinity, output helpers, the
//! signal-driven stop flag and the terminal status line.

pub mod aio;
pub mod chart;
pub mod clock;
pub mod completions;
pub mod cpu;
pub mod histogram;
pub mod output;
pub mod stats;
pub mod status;
pub mod stop;
pub mod units;
