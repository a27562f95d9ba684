//! The bw/iops sample windows (every bwavgtime/iopsavgtime ms) behind the
//! `bw (...)` and `iops` lines (§4), which also feed averaged bw/iops logs
//! (§10), and the `--plot` trace's windows. Cold path: a few calls per
//! second.

use super::logs::{Kind, Logs};
use crate::job::Job;
use crate::stats::ThreadStats;

/// Measurement windows for the bw/iops lines (every bwavgtime/iopsavgtime).
pub struct Sampler {
    /// Time 0 of the logs (the start of measuring), ns.
    epoch: u64,
    bw_every: u64,
    iops_every: u64,
    bw_last: u64,
    iops_last: u64,
    /// When the next window closes: on multiples of the period since the
    /// epoch, so a late tick does not delay the ones after it (fio's helper
    /// thread keeps to the log_avg_msec boundaries the same way).
    bw_next: u64,
    iops_next: u64,
    bw_bytes: [u64; 3],
    iops_ios: [u64; 3],
    dirs: [bool; 3],
    /// The end of the runtime: fio's helper thread takes no sample once the
    /// job stopped running, so neither do we at or past it.
    end: u64,
    /// The `--plot` trace's window (0: no trace).
    plot_every: u64,
    plot_next: u64,
    /// (bw, iops) sampled per I/O by the logs instead.
    pub per_io: (bool, bool),
}

impl Sampler {
    pub fn new(job: &Job, now_ns: u64) -> Self {
        let plot_every = if job.plot {
            crate::plot::trace::every_ms(job) * 1_000_000
        } else {
            0
        };
        Sampler {
            epoch: now_ns,
            bw_every: job.bwavgtime_ms * 1_000_000,
            iops_every: job.iopsavgtime_ms * 1_000_000,
            bw_last: now_ns,
            iops_last: now_ns,
            bw_next: now_ns + job.bwavgtime_ms * 1_000_000,
            iops_next: now_ns + job.iopsavgtime_ms * 1_000_000,
            bw_bytes: [0; 3],
            iops_ios: [0; 3],
            dirs: [job.pattern.read, job.pattern.write, job.pattern.trim],
            end: match job.runtime_us {
                0 => u64::MAX,
                us => now_ns + us * 1000,
            },
            plot_every,
            plot_next: now_ns + plot_every,
            per_io: (false, false),
        }
    }

    /// Cold path: at most a few times per second.
    #[cold]
    pub fn sample(&mut self, now_ns: u64, st: &mut ThreadStats, mut logs: Option<&mut Logs>) {
        let t_ms = (now_ns - self.epoch) / 1_000_000;
        if now_ns >= self.end {
            return;
        }
        if now_ns >= self.bw_next {
            let ms = (now_ns - self.bw_last) / 1_000_000;
            for d in 0..3 {
                if self.dirs[d] && !self.per_io.0 {
                    let delta = st.dir[d].io_bytes - self.bw_bytes[d];
                    // fio's __add_samples: a window without I/O in a
                    // direction adds no sample there.
                    if delta == 0 {
                        continue;
                    }
                    let rate = delta * 1000 / ms.max(1) / 1024;
                    st.dir[d].bw.push(rate);
                    self.bw_bytes[d] = st.dir[d].io_bytes;
                    if let Some(l) = logs.as_deref_mut() {
                        l.rate(Kind::Bw, t_ms, d, rate);
                    }
                }
            }
            self.bw_last = now_ns;
            self.bw_next = self.next(now_ns, self.bw_every);
        }
        if now_ns >= self.iops_next {
            let ms = (now_ns - self.iops_last) / 1_000_000;
            for d in 0..3 {
                if self.dirs[d] && !self.per_io.1 {
                    let delta = st.dir[d].ios - self.iops_ios[d];
                    if delta == 0 {
                        continue;
                    }
                    let rate = delta * 1000 / ms.max(1);
                    st.dir[d].iops.push(rate);
                    self.iops_ios[d] = st.dir[d].ios;
                    if let Some(l) = logs.as_deref_mut() {
                        l.rate(Kind::Iops, t_ms, d, rate);
                    }
                }
            }
            self.iops_last = now_ns;
            self.iops_next = self.next(now_ns, self.iops_every);
        }
        if self.plot_every > 0 && now_ns >= self.plot_next {
            if let Some(t) = logs.and_then(|l| l.trace.as_mut()) {
                t.tick(t_ms, st);
            }
            self.plot_next = self.next(now_ns, self.plot_every);
        }
    }

    /// The first multiple of `every` since the epoch after `now_ns`.
    fn next(&self, now_ns: u64, every: u64) -> u64 {
        let since = now_ns - self.epoch;
        self.epoch + (since / every + 1) * every
    }

    pub fn next_due(&self) -> u64 {
        let plot = if self.plot_every > 0 {
            self.plot_next
        } else {
            u64::MAX
        };
        self.bw_next.min(self.iops_next).min(plot)
    }
}
