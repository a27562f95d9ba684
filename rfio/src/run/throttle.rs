//! `rate` and `rate_iops` (§3): when each direction's next I/O may start.

use crate::job::Job;

/// `rate`/`rate_iops`: each direction's I/O may start only once the bytes
/// and ios already issued fit the cap since the job started.
pub struct Throttle {
    pub on: bool,
    rate: [u64; 3],
    iops: [u64; 3],
    pub bytes: [u64; 3],
    pub ios: [u64; 3],
}

impl Throttle {
    pub fn new(job: &Job) -> Self {
        Throttle {
            on: job.rate.iter().chain(&job.rate_iops).any(|&r| r > 0),
            rate: job.rate,
            iops: job.rate_iops,
            bytes: [0; 3],
            ios: [0; 3],
        }
    }

    /// Nanoseconds since the start before which this I/O may not start.
    #[cold]
    pub fn due_ns(&mut self, d: usize, len: u64) -> u64 {
        let mut due = 0u64;
        if self.rate[d] > 0 {
            due = due
                .max((u128::from(self.bytes[d]) * 1_000_000_000 / u128::from(self.rate[d])) as u64);
        }
        if self.iops[d] > 0 {
            due = due
                .max((u128::from(self.ios[d]) * 1_000_000_000 / u128::from(self.iops[d])) as u64);
        }
        self.bytes[d] += len;
        self.ios[d] += 1;
        due
    }
}
