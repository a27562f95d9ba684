//! fio's choice of direction (rwmix) and of block size (bsrange, bssplit),
//! drawn from the generators fio seeds for them, so a mixed or
//! variable-block job moves the same bytes per direction in the same number
//! of I/Os as fio 3.33.
//!
//! Direction (fio's `get_rw_ddir`): while the current direction has issued
//! at least `mix_issues` I/Os, a number 1..=100 is drawn from the mix
//! generator (seed slot 4, always 32-bit); at most `rwmixread` means read.
//! On a switch, `mix_issues` becomes the old direction's issue count times
//! the new direction's share / 100, so the new direction keeps going until
//! its own count reaches that. With a rate, the direction the rate settles
//! on (run/pacing/throttle.rs, `Steer::choose`) becomes the current one, before the offset
//! and block size are drawn for it.
//!
//! Block size (fio's `get_next_buflen`), per direction from seed slots 0, 1,
//! 2 (write takes read's seed with verify, trim takes write's with
//! trimwrite): `min + max * r / (rand_max + 1)`, or the first bssplit entry
//! (sorted by percentage) whose cumulative share covers r, rounded down to
//! the minimum block and capped at the maximum; drawn again until it fits
//! before the region's end. Each loop reseeds the generators and restarts
//! the mix cycle, as fio's `clear_io_state` does with randrepeat.

use crate::job::Job;
use crate::run::files::filesize::{slot_seed, Taus};

const MIX_SLOT: u64 = 4;

pub struct Choices {
    wide: bool,
    /// bs_unaligned: drawn sizes are not rounded to the smallest block.
    unaligned: bool,
    mix_seed: u64,
    mix_rng: Taus,
    bs_seeds: [u64; 3],
    bs_rng: [Taus; 3],
    /// rwmix share of read and write, percent.
    share: [u64; 2],
    mix_dir: usize,
    mix_issues: u64,
    issues: [u64; 2],
    /// bssplit entries per direction, sorted by percentage as fio sorts them.
    split: [Vec<(u64, u32)>; 3],
    /// A rate on a mixed job: the rate may turn the drawn direction (the
    /// job's throttle keeps the due times; see [`Choices::attach_steer`]).
    steer: Option<crate::run::pacing::throttle::SteerCell>,
}

impl Choices {
    pub fn new(job: &Job) -> Self {
        let wide = job.opts.choice("random_generator").0 == "tausworthe64";
        let seed = |slot: u64| slot_seed(job, slot).unwrap_or_else(rbench_common::clock::now_ns);
        let read = seed(0);
        let write = if job.verify.is_some() { read } else { seed(1) };
        let trim = if job.pattern.trim && job.pattern.write {
            write
        } else {
            seed(2)
        };
        let bs_seeds = [read, write, trim];
        let mix_seed = seed(MIX_SLOT);
        let read_share = u64::from(job.rwmixread).min(100);
        let split = std::array::from_fn(|d| {
            let mut s = job.bssplit[d].clone();
            s.sort_by_key(|e| e.1);
            s
        });
        Choices {
            wide,
            unaligned: job.opts.flag("bs_unaligned"),
            mix_seed,
            mix_rng: Taus::new(mix_seed, false),
            bs_seeds,
            bs_rng: bs_seeds.map(|s| Taus::new(s, wide)),
            share: [read_share, 100 - read_share],
            mix_dir: 0,
            mix_issues: 0,
            issues: [0; 2],
            split,
            steer: None,
        }
    }

    /// Let the rate turn the drawn directions, on the due times in `steer`
    /// (the job's [`crate::run::pacing::throttle::Throttle::steer_handle`]).
    pub fn attach_steer(&mut self, steer: Option<crate::run::pacing::throttle::SteerCell>) {
        self.steer = steer;
    }

    /// A new loop: fio reseeds its generators and restarts the mix cycle
    /// (the issue counts go on).
    pub fn restart(&mut self) {
        self.mix_rng = Taus::new(self.mix_seed, false);
        self.bs_rng = self.bs_seeds.map(|s| Taus::new(s, self.wide));
        self.mix_issues = 0;
    }

    /// The direction of a mixed job's next I/O (0 read, 1 write).
    #[inline]
    pub fn mixed_dir(&mut self) -> usize {
        if self.issues[self.mix_dir] >= self.mix_issues {
            // fio's rand_between(1, 100) on a 32-bit generator.
            let r = self.mix_rng.next() as f64 / (u64::from(u32::MAX) as f64 + 1.0);
            let v = 1 + (100.0 * r) as u64;
            let d = if v <= self.share[0] { 0 } else { 1 };
            if d != self.mix_dir {
                self.mix_issues = self.issues[self.mix_dir] * self.share[d] / 100;
            }
            self.mix_dir = d;
        }
        if let Some(s) = &self.steer {
            // fio's get_rw_ddir keeps the direction rate_ddir settles on as
            // the cycle's current one.
            self.mix_dir = s.get().choose(self.mix_dir);
        }
        self.mix_dir
    }

    /// An I/O of a mixed job was issued in direction `d`.
    #[inline]
    pub fn issued(&mut self, d: usize) {
        if d < 2 {
            self.issues[d] += 1;
        }
    }

    /// The smallest and largest block of direction `d`.
    #[inline]
    pub fn bounds(&self, d: usize, bs: (u64, u64)) -> (u64, u64) {
        let s = &self.split[d];
        if s.is_empty() {
            bs
        } else {
            let lo = s.iter().map(|e| e.0).min().unwrap_or(bs.0);
            let hi = s.iter().map(|e| e.0).max().unwrap_or(bs.1);
            (lo, hi)
        }
    }

    /// The next block size of direction `d` with `room` bytes left before
    /// the region's end; 0 when not even the smallest block fits.
    #[inline]
    pub fn block_len(&mut self, d: usize, bs: (u64, u64), room: u64) -> u64 {
        let (min, max) = self.bounds(d, bs);
        if min == max {
            return min;
        }
        if min > room {
            return 0;
        }
        let rng = &mut self.bs_rng[d];
        let rand_max = rng.max();
        // fio draws until a size fits; a bssplit whose every fitting entry
        // has no share would never end there, so give up after a while.
        for _ in 0..10_000 {
            let r = rng.next();
            let mut len = if self.split[d].is_empty() {
                min + (max as f64 * (r as f64 / (rand_max as f64 + 1.0))) as u64
            } else {
                let mut len = 0;
                let mut perc = 0u64;
                for &(b, p) in &self.split[d] {
                    if p == 0 {
                        continue;
                    }
                    len = b;
                    perc += u64::from(p);
                    if r / perc <= rand_max / 100 && b <= room {
                        break;
                    }
                }
                len
            };
            len = if self.unaligned {
                len
            } else if min.is_power_of_two() {
                len & !(min - 1)
            } else {
                len - len % min
            };
            len = len.min(max);
            if len <= room {
                return len;
            }
        }
        min
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::test_job as job;
    use crate::run::pacing::throttle::Throttle;

    /// Draw `n` directions, counting each as issued.
    fn draws(c: &mut Choices, n: usize) -> Vec<usize> {
        (0..n)
            .map(|_| {
                let d = c.mixed_dir();
                c.issued(d);
                d
            })
            .collect()
    }

    #[test]
    fn the_rate_turns_the_draw_and_the_cycle_follows() {
        let j = job(&["--rw=randrw", "--rate_iops=1000"]);
        // The clock stands at the origin: only the due times decide.
        let mut t = Throttle::new(&j, u64::MAX);
        let mut c = Choices::new(&j);
        c.attach_steer(t.steer_handle());
        let mut plain = Choices::new(&job(&["--rw=randrw"]));
        // Both due: fio's rwmix draws as without a rate.
        assert_eq!(draws(&mut c, 20), draws(&mut plain, 20));
        // Read ahead, write due: every I/O is a write, and the write is
        // the cycle's current direction (fio keeps rate_ddir's choice).
        t.issued(0, 4096);
        assert_eq!(draws(&mut c, 5), vec![1; 5]);
        assert_eq!(c.mix_dir, 1);
        // Write ahead as well, by more: the read is due sooner.
        t.issued(1, 1 << 20);
        assert_eq!(draws(&mut c, 3), vec![0; 3]);
    }

    #[test]
    fn a_job_without_a_rate_draws_alone() {
        // Without a rate there is nothing to steer by: the throttle hands
        // out no due times, and the draw is fio's rwmix cycle alone.
        let t = Throttle::new(&job(&["--rw=randrw"]), u64::MAX);
        assert!(t.steer_handle().is_none());
        let mut c = Choices::new(&job(&["--rw=randrw"]));
        c.attach_steer(t.steer_handle());
        let d = draws(&mut c, 50);
        assert!(d.contains(&0) && d.contains(&1), "{d:?}");
        assert_eq!(d, draws(&mut Choices::new(&job(&["--rw=randrw"])), 50));
    }
}
