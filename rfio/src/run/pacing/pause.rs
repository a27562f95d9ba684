//! Sleeps that a signal cuts short: a job that thinks (`thinktime`), waits
//! for its rate or its `startdelay` for a long time still ends promptly on
//! SIGINT/SIGTERM and reports, as fio's jobs do (fio sleeps in slices and
//! checks for termination between them).

use std::time::{Duration, Instant};

/// How often a long sleep looks for a stop request.
const SLICE: Duration = Duration::from_millis(50);

/// Sleep `d`, or less once a stop has been requested.
pub fn sleep(d: Duration) {
    if d <= SLICE {
        std::thread::sleep(d);
        return;
    }
    // A sleep too long for an Instant (thinktime=2^64-1) goes on in slices
    // until the stop.
    let end = Instant::now().checked_add(d);
    while !rbench_common::stop::should_stop() {
        let left = end.map_or(SLICE, |e| e.saturating_duration_since(Instant::now()));
        if left.is_zero() {
            return;
        }
        std::thread::sleep(left.min(SLICE));
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn sleeps_the_whole_time_without_a_stop() {
        let t = std::time::Instant::now();
        super::sleep(std::time::Duration::from_millis(120));
        assert!(t.elapsed() >= std::time::Duration::from_millis(120));
    }
}
