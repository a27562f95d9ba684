//! The bw/iops sample windows (every bwavgtime/iopsavgtime ms) behind the
//! `bw (...)` and `iops` lines (§4), which also feed averaged bw/iops logs
//! (§10), and the `--plot` trace's windows. Cold path: a few calls per
//! second.

use crate::job::Job;
use crate::run::logs::job_logs::{Kind, Logs};
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
    /// (bw, iops) logs with a row per I/O: fio's helper then takes no
    /// windows for them (even when the per-I/O samples are off).
    per_unit: (bool, bool),
}

impl Sampler {
    pub fn new(job: &Job, now_ns: u64) -> Self {
        let plot_every = if job.plot {
            crate::run::logs::trace::every_ms(job) * 1_000_000
        } else {
            0
        };
        Sampler {
            epoch: now_ns,
            bw_every: job.reporting.bwavgtime_ms * 1_000_000,
            iops_every: job.reporting.iopsavgtime_ms * 1_000_000,
            bw_last: now_ns,
            iops_last: now_ns,
            bw_next: now_ns + job.reporting.bwavgtime_ms * 1_000_000,
            iops_next: now_ns + job.reporting.iopsavgtime_ms * 1_000_000,
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
            per_unit: crate::run::logs::job_logs::per_unit(job),
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
                if self.dirs[d] && !self.per_io.0 && !self.per_unit.0 {
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
                if self.dirs[d] && !self.per_io.1 && !self.per_unit.1 {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::test_job as job;

    const MS: u64 = 1_000_000;

    #[test]
    fn windows_keep_to_their_boundaries_and_stop_at_the_runtime() {
        let j = job(&["--rw=read", "--runtime=1", "--time_based"]);
        let mut s = Sampler::new(&j, 0);
        let mut st = ThreadStats::default();
        assert_eq!(s.next_due(), 500 * MS);
        st.dir[0].io_bytes = 1 << 20;
        st.dir[0].ios = 256;
        // A late tick: the rate is over the time that passed, the next
        // window still closes at 1000 ms.
        s.sample(700 * MS, &mut st, None);
        assert_eq!(st.dir[0].bw.n, 1);
        assert_eq!(st.dir[0].bw.max, (1 << 20) * 1000 / 700 / 1024);
        assert_eq!(s.next_due(), 1000 * MS);
        // No write I/O: no write sample (fio's __add_samples).
        assert_eq!(st.dir[1].bw.n, 0);
        // The job's runtime is over: no more samples.
        st.dir[0].io_bytes *= 2;
        s.sample(1000 * MS, &mut st, None);
        assert_eq!(st.dir[0].bw.n, 1);
    }

    #[test]
    fn averaged_bw_logs_take_the_sampler_windows() {
        let j = job(&[
            "--rw=read",
            "--write_bw_log=x",
            "--write_iops_log=x",
            "--log_avg_msec=100",
        ]);
        // bwavgtime follows log_avg_msec when it was not given (fio).
        assert_eq!(
            (j.reporting.bwavgtime_ms, j.reporting.iopsavgtime_ms),
            (100, 100)
        );
        let mut logs = Logs::new(&j).expect("logs");
        assert!(!logs.per_io, "averaged bw/iops logs need nothing per I/O");
        assert_eq!(logs.per_io_rates(), (false, false));
        let mut s = Sampler::new(&j, 0);
        let mut st = ThreadStats::default();
        for k in 1..=3 {
            st.dir[0].io_bytes = k * 102_400;
            st.dir[0].ios = k * 25;
            s.sample(k * 100 * MS, &mut st, Some(&mut logs));
        }
        assert_eq!((st.dir[0].bw.n, st.dir[0].iops.n), (3, 3));
        assert_eq!(st.dir[0].bw.max, 1000);
        assert_eq!(st.dir[0].iops.max, 250);
        // One row per window, time = the window's end, bs and offset 0.
        let want: Vec<(u64, u64, u8)> = (1..=3).map(|k| (k * 100, 1000, 0)).collect();
        assert_eq!(logs.rows(Kind::Bw), want);
        assert_eq!(logs.rows(Kind::Iops)[2], (300, 250, 0));
        let j = job(&["--write_bw_log=x", "--log_avg_msec=100", "--bwavgtime=300"]);
        assert_eq!(j.reporting.bwavgtime_ms, 300);
    }
}
