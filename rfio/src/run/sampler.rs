//! The bw/iops sample windows (every bwavgtime/iopsavgtime ms) behind the
//! `bw (...)` and `iops` lines (§4). Cold path: a few calls per second.

use crate::job::Job;
use crate::stats::ThreadStats;

/// Measurement windows for the bw/iops lines (every bwavgtime/iopsavgtime).
pub struct Sampler {
    bw_every: u64,
    iops_every: u64,
    bw_last: u64,
    iops_last: u64,
    bw_bytes: [u64; 3],
    iops_ios: [u64; 3],
    dirs: [bool; 3],
    /// (bw, iops) sampled per I/O by the logs instead.
    pub per_io: (bool, bool),
}

impl Sampler {
    pub fn new(job: &Job, now_ns: u64) -> Self {
        Sampler {
            bw_every: job.bwavgtime_ms * 1_000_000,
            iops_every: job.iopsavgtime_ms * 1_000_000,
            bw_last: now_ns,
            iops_last: now_ns,
            bw_bytes: [0; 3],
            iops_ios: [0; 3],
            dirs: [job.pattern.read, job.pattern.write, job.pattern.trim],
            per_io: (false, false),
        }
    }

    /// Cold path: at most a few times per second.
    #[cold]
    pub fn sample(&mut self, now_ns: u64, st: &mut ThreadStats) {
        if now_ns - self.bw_last >= self.bw_every {
            let ms = (now_ns - self.bw_last) / 1_000_000;
            for d in 0..3 {
                if self.dirs[d] && !self.per_io.0 {
                    let delta = st.dir[d].io_bytes - self.bw_bytes[d];
                    st.dir[d].bw.push(delta * 1000 / ms.max(1) / 1024);
                    self.bw_bytes[d] = st.dir[d].io_bytes;
                }
            }
            self.bw_last = now_ns;
        }
        if now_ns - self.iops_last >= self.iops_every {
            let ms = (now_ns - self.iops_last) / 1_000_000;
            for d in 0..3 {
                if self.dirs[d] && !self.per_io.1 {
                    let delta = st.dir[d].ios - self.iops_ios[d];
                    st.dir[d].iops.push(delta * 1000 / ms.max(1));
                    self.iops_ios[d] = st.dir[d].ios;
                }
            }
            self.iops_last = now_ns;
        }
    }

    pub fn next_due(&self) -> u64 {
        (self.bw_last + self.bw_every).min(self.iops_last + self.iops_every)
    }
}
