//! `steadystate` (alias `ss`), `ss_dur`, `ss_ramp` (§3): end a job once its
//! IOPS or bandwidth has settled. On each second of the run the job's rate
//! over the last second goes into a window of `ss_dur` seconds; when the
//! window's maximum deviation from its mean (`iops`, `bw`) or its
//! least-squares slope (`iops_slope`, `bw_slope`) falls below the limit, the
//! job ends as if its runtime were over. With group_reporting the window is
//! the reporting group's, of its members' summed rates, and the whole group
//! ends together, as in fio ([`Group`]). Cold path: once a second. The
//! settings are job/steadystate.rs, the report block stats.rs's `SsReport`.

use crate::job::steadystate::{Criterion, SteadyState};
use crate::stats::SsReport;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

const SEC: u64 = 1_000_000_000;
/// While a member's last sample waits for the rest of its group's, the
/// member looks at the group's verdict this often (ns).
const POLL_NS: u64 = 1_000_000;

/// fio's window of `ss_dur` samples and its judge: one per group, kept by
/// the group's leader in fio.
#[derive(Debug)]
struct Window {
    criterion: Criterion,
    iops: Vec<u64>,
    bw: Vec<u64>,
    head: usize,
    tail: usize,
    full: bool,
    sum_y: u64,
    sum_xy: u64,
    oldest_y: u64,
    sum_x: u64,
    sum_x_sq: u64,
    slope: f64,
    deviation: f64,
    value: f64,
    attained: bool,
}

impl Window {
    fn new(ss: SteadyState) -> Window {
        let n = ss.dur_s;
        Window {
            criterion: ss.criterion,
            iops: vec![0; n as usize],
            bw: vec![0; n as usize],
            head: 0,
            tail: 0,
            full: false,
            sum_y: 0,
            sum_xy: 0,
            oldest_y: 0,
            sum_x: n * (n - 1) / 2,
            sum_x_sq: (n - 1) * n * (2 * n - 1) / 6,
            slope: 0.0,
            deviation: 0.0,
            value: 0.0,
            attained: false,
        }
    }

    /// One second's rates (the group's sums); true once steady.
    fn judge(&mut self, iops: u64, bw: u64) -> bool {
        self.attained = if self.criterion.slope {
            self.slope_check(iops, bw)
        } else {
            self.deviation_check(iops, bw)
        };
        self.attained
    }

    fn pick(&self, i: usize) -> u64 {
        if self.criterion.iops {
            self.iops[i]
        } else {
            self.bw[i]
        }
    }

    fn advance(&mut self) {
        let n = self.iops.len();
        self.tail = (self.tail + 1) % n;
        if self.tail <= self.head {
            self.head = (self.head + 1) % n;
        }
    }

    /// fio's window bookkeeping: fill until `dur` samples, then roll.
    fn store(&mut self, iops: u64, bw: u64) -> bool {
        self.iops[self.tail] = iops;
        self.bw[self.tail] = bw;
        self.full || self.tail + 1 == self.head + self.iops.len()
    }

    fn slope_check(&mut self, iops: u64, bw: u64) -> bool {
        let n = self.iops.len();
        let new_val = if self.criterion.iops { iops } else { bw };
        if !self.store(iops, bw) {
            self.advance();
            return false;
        }
        if !self.full {
            self.sum_y = (0..n).map(|i| self.pick(i)).sum();
            self.sum_xy = (0..n)
                .map(|i| i as u64 * self.pick((self.head + i) % n))
                .sum();
            self.full = true;
        } else {
            self.sum_y = self.sum_y - self.oldest_y + new_val;
            self.sum_xy = (self.sum_xy + n as u64 * new_val).wrapping_sub(self.sum_y);
        }
        self.oldest_y = self.pick(self.head);
        let (sx, n_f) = (self.sum_x as f64, n as f64);
        self.slope = (self.sum_xy as f64 - sx * self.sum_y as f64 / n_f)
            / (self.sum_x_sq as f64 - sx * sx / n_f);
        self.value = if self.criterion.pct {
            100.0 * self.slope / (self.sum_y / n as u64) as f64
        } else {
            self.slope
        };
        // An idle window's NaN counts as steady, as in fio 3.33 (built with
        // -ffast-math, its comparison says so).
        if self.value.is_nan() || self.value.abs() < self.criterion.limit {
            return true;
        }
        self.advance();
        false
    }

    fn deviation_check(&mut self, iops: u64, bw: u64) -> bool {
        let n = self.iops.len();
        if !self.store(iops, bw) {
            self.advance();
            return false;
        }
        if !self.full {
            self.sum_y = (0..n).map(|i| self.pick(i)).sum();
            self.full = true;
        } else {
            self.sum_y = self.sum_y - self.oldest_y + self.pick(self.tail);
        }
        self.oldest_y = self.pick(self.head);
        let mean = self.sum_y as f64 / n as f64;
        self.deviation = (0..n)
            .map(|i| (self.pick(i) as f64 - mean).abs())
            .fold(0.0, f64::max);
        self.value = if self.criterion.pct {
            100.0 * self.deviation / mean
        } else {
            self.deviation
        };
        // NaN (an idle window) counts as steady, as above.
        if self.value.is_nan() || self.value < self.criterion.limit {
            return true;
        }
        self.advance();
        false
    }

    /// The report block: the window oldest first, as fio lists it.
    fn report(&self) -> SsReport {
        let n = self.iops.len();
        let start = if self.attained || !self.full {
            self.head
        } else if self.head == 0 {
            n - 1
        } else {
            self.head - 1
        };
        let order: Vec<usize> = (0..n).map(|l| (start + l) % n).collect();
        SsReport {
            criterion: self.criterion,
            duration: n as u64,
            attained: self.attained,
            value: self.value,
            max_deviation: self.deviation,
            slope: self.slope,
            bw_mean: self.bw.iter().sum::<u64>() / n as u64,
            iops_mean: self.iops.iter().sum::<u64>() / n as u64,
            iops: order.iter().map(|&i| self.iops[i]).collect(),
            bw: order.iter().map(|&i| self.bw[i]).collect(),
        }
    }
}

/// The jobs judged together: with group_reporting a whole reporting group
/// (fio sums its members' rates and judges the sum once a second; when it
/// is steady every member ends), otherwise one job (all its submitter
/// threads). Its members are job threads; each hands in its own rates for
/// every one-second tick of the run, and the tick is judged once every
/// running member has handed in its share. Cold: a lock once a second per
/// member, two atomic loads at each of a member's looks at the verdict.
#[derive(Debug)]
pub struct Group {
    /// The window was steady: every member ends.
    attained: AtomicBool,
    /// Ticks below this one are judged (or passed over).
    done: AtomicU64,
    /// The job (its `number`) that must be running for the group to be
    /// judged: fio keeps the window in the group's last job and judges only
    /// while that job runs (before it starts and once it ended, never).
    leader: usize,
    /// When the run started: its seconds are the ticks (None: the job's
    /// own start, for a job judged on its own outside a run).
    run_start: Option<std::time::Instant>,
    state: Mutex<GroupState>,
}

#[derive(Debug)]
struct GroupState {
    /// Running members (`None`: a member that ended).
    members: Vec<Option<Member>>,
    /// Ticks some member handed in, oldest first, awaiting the others.
    pending: VecDeque<Pending>,
    window: Window,
}

#[derive(Debug, Clone, Copy)]
struct Member {
    /// Its job's `number`.
    job: usize,
    /// The next tick it hands in: ticks from this one on wait for it.
    next: u64,
}

#[derive(Debug, Clone, Copy)]
struct Pending {
    tick: u64,
    iops: u64,
    bw: u64,
    /// A member past ss_ramp handed in (fio judges only then).
    ramped: bool,
}

impl Group {
    fn new(ss: SteadyState, leader: usize, run_start: Option<std::time::Instant>) -> Group {
        Group {
            attained: AtomicBool::new(false),
            done: AtomicU64::new(0),
            leader,
            run_start,
            state: Mutex::new(GroupState {
                members: Vec::new(),
                pending: VecDeque::new(),
                window: Window::new(ss),
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, GroupState> {
        // A member that panicked takes the run down anyway (run_segment
        // re-raises); the state itself is never left half-updated.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn join(&self, job: usize, first_tick: u64) -> usize {
        let mut st = self.lock();
        st.members.push(Some(Member {
            job,
            next: first_tick,
        }));
        st.members.len() - 1
    }

    fn leave(&self, slot: usize) {
        let mut st = self.lock();
        st.members[slot] = None;
        self.drain(&mut st);
    }

    /// Member `slot`'s rates for `tick`.
    fn hand_in(&self, slot: usize, tick: u64, iops: u64, bw: u64, ramped: bool) {
        let mut st = self.lock();
        if let Some(m) = st.members[slot].as_mut() {
            m.next = tick + 1;
        }
        if tick < self.done.load(Ordering::Relaxed) {
            return;
        }
        let at = st.pending.partition_point(|p| p.tick < tick);
        if st.pending.get(at).is_none_or(|p| p.tick != tick) {
            st.pending.insert(
                at,
                Pending {
                    tick,
                    iops: 0,
                    bw: 0,
                    ramped: false,
                },
            );
        }
        if ramped {
            let p = &mut st.pending[at];
            p.iops += iops;
            p.bw += bw;
            p.ramped = true;
        }
        self.drain(&mut st);
    }

    /// Judge every tick no running member still owes a share of.
    fn drain(&self, st: &mut GroupState) {
        while let Some(&p) = st.pending.front() {
            if st.members.iter().flatten().any(|m| m.next <= p.tick) {
                break;
            }
            st.pending.pop_front();
            let leader_runs = st.members.iter().flatten().any(|m| m.job == self.leader);
            if leader_runs && p.ramped && !st.window.attained && st.window.judge(p.iops, p.bw) {
                self.attained.store(true, Ordering::Relaxed);
            }
            self.done.store(p.tick + 1, Ordering::Release);
        }
    }

    fn attained(&self) -> bool {
        self.attained.load(Ordering::Relaxed)
    }
}

/// Group a segment's jobs as fio does: consecutive steadystate jobs with
/// group_reporting in one reporting group share a window, the last of them
/// leads; every other steadystate job is a group of its own. Each job's
/// group goes into its progress record (`progress[i]` for `jobs[i]`),
/// where its thread, and any submitter threads of it, find it.
/// `run_start`: when the run (its first segment) started.
pub fn register(
    jobs: &[crate::job::Job],
    progress: &[crate::run::eta::Progress],
    run_start: std::time::Instant,
) {
    // (group id, group_reporting, the leader's settings, members by index)
    let mut runs: Vec<(u32, bool, SteadyState, Vec<usize>)> = Vec::new();
    for (i, j) in jobs.iter().enumerate() {
        let Some(ss) = j.steadystate else {
            continue;
        };
        match runs.last_mut() {
            Some((gid, true, lead, members)) if j.order.group_reporting && *gid == j.groupid => {
                *lead = ss;
                members.push(i);
            }
            _ => runs.push((j.groupid, j.order.group_reporting, ss, vec![i])),
        }
    }
    for (_, _, ss, members) in runs {
        let leader = members.last().map_or(0, |&i| jobs[i].number);
        let g = Arc::new(Group::new(ss, leader, Some(run_start)));
        for i in members {
            if let Some(p) = progress.get(i) {
                // Set once: a job runs in one segment.
                let _ = p.ss_group.set(Arc::clone(&g));
            }
        }
    }
}

/// One job thread's part: its rate over each second of the run, handed to
/// its group. Cold path: one call per second, and every millisecond while
/// its group has not judged its last second yet.
#[derive(Debug)]
pub struct Monitor {
    group: Arc<Group>,
    slot: usize,
    /// The run's clock at the job's start (ns): ticks are the run's seconds.
    phase_ns: u64,
    /// When `tick` is next due, ns since the job started: the next second,
    /// or sooner, a look at the group's verdict.
    pub next_ns: u64,
    /// The next second's tick, ns since the job started.
    tick_ns: u64,
    /// Recording begins a second after ss_ramp, as in fio.
    ramp_end_ns: u64,
    ramp_over: bool,
    prev_ns: u64,
    prev_ios: u64,
    prev_bytes: u64,
    /// The run's second this member handed in last.
    last_tick: Option<u64>,
}

impl Monitor {
    /// A job judged on its own (tests). `phase_ns`: how long after the run's start
    /// this job started. fio samples on its helper thread's one-second
    /// ticks, counted from the run's start, so the first sample covers less
    /// than a second.
    #[cfg(test)]
    fn new(ss: SteadyState, phase_ns: u64) -> Monitor {
        Monitor::with_group(ss, phase_ns, Arc::new(Group::new(ss, 0, None)), 0)
    }

    /// Job `job`'s thread joins `group`, the one [`register`] made for it
    /// (on its own without one).
    pub fn join(
        job: &crate::job::Job,
        ss: SteadyState,
        phase_ns: u64,
        group: Option<Arc<Group>>,
    ) -> Monitor {
        let group = group.unwrap_or_else(|| Arc::new(Group::new(ss, job.number, None)));
        // The run's clock now, at the job's start, where there is a run:
        // submitter threads (no start time of their own) tick with the rest.
        let phase_ns = group
            .run_start
            .map_or(phase_ns, |t| t.elapsed().as_nanos() as u64);
        Monitor::with_group(ss, phase_ns, group, job.number)
    }

    fn with_group(ss: SteadyState, phase_ns: u64, group: Arc<Group>, job: usize) -> Monitor {
        let first = SEC - phase_ns % SEC;
        let slot = group.join(job, (phase_ns + first) / SEC);
        // A job starting late (startdelay) into a steady group ends at
        // once: fio ends every member, started or not.
        let next_ns = if group.attained() { 0 } else { first };
        Monitor {
            group,
            slot,
            phase_ns,
            next_ns,
            tick_ns: first,
            ramp_end_ns: (ss.ramp_us + 1_000_000) * 1000,
            ramp_over: ss.ramp_us == 0,
            prev_ns: 0,
            prev_ios: 0,
            prev_bytes: 0,
            last_tick: None,
        }
    }

    /// Hand in the seconds past from the job's totals so far; true once
    /// its group is steady (the job ends as if its runtime were over).
    #[cold]
    pub fn tick(&mut self, now_ns: u64, ios: u64, bytes: u64) -> bool {
        // Ticks passed while the job slept (a long thinktime): fio's helper
        // thread samples them; the job's I/O came before the sleep, so the
        // first missed tick gets it all and the later ones none. The last
        // due tick is taken now.
        while self.tick_ns <= now_ns && !self.group.attained() {
            let at = self.tick_ns;
            self.tick_ns += SEC;
            let t = if self.tick_ns > now_ns { now_ns } else { at };
            self.sample(t, (self.phase_ns + at) / SEC, ios, bytes);
        }
        let waiting = self
            .last_tick
            .is_some_and(|t| self.group.done.load(Ordering::Acquire) <= t);
        self.next_ns = if waiting {
            self.tick_ns.min(now_ns + POLL_NS)
        } else {
            self.tick_ns
        };
        self.group.attained()
    }

    fn sample(&mut self, now_ns: u64, tick: u64, ios: u64, bytes: u64) {
        if !self.ramp_over && now_ns >= self.ramp_end_ns {
            self.ramp_over = true;
        }
        // Totals restart at the end of ramp_time: count from there.
        let (pi, pb) = if ios < self.prev_ios || bytes < self.prev_bytes {
            (0, 0)
        } else {
            (self.prev_ios, self.prev_bytes)
        };
        let ms = ((now_ns - self.prev_ns) / 1_000_000).max(1);
        self.prev_ns = now_ns;
        self.prev_ios = ios;
        self.prev_bytes = bytes;
        let iops = 1000 * (ios - pi) / ms;
        let bw = 1000 * (bytes - pb) / ms;
        self.last_tick = Some(tick);
        self.group
            .hand_in(self.slot, tick, iops, bw, self.ramp_over);
    }

    /// The group's block (its window oldest first, as fio lists it).
    pub fn report(&self) -> SsReport {
        self.group.lock().window.report()
    }
}

impl Drop for Monitor {
    fn drop(&mut self) {
        self.group.leave(self.slot);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ss(word: &str, post: &str, dur: u64) -> SteadyState {
        SteadyState::new(
            Criterion::parse(word, Some(post), 1024).unwrap(),
            dur * 1_000_000,
            0,
        )
        .unwrap()
    }

    #[test]
    fn deviation_attains_on_a_flat_window() {
        let mut m = Monitor::new(ss("iops", "10%", 3), 0);
        let mut ios = 0;
        let mut done = None;
        for s in 1..=10u64 {
            // 1000 ios a second, a little jitter.
            ios += 1000 + s % 2;
            if m.tick(s * 1_000_000_000, ios, ios * 4096) {
                done = Some(s);
                break;
            }
        }
        assert_eq!(done, Some(3));
        let r = m.report();
        assert!(r.attained && r.iops.len() == 3 && r.iops_mean >= 1000);
        assert!(r.max_deviation > 0.0 && r.max_deviation < 1.0);
    }

    /// Two members of one group: the window holds their summed rates,
    /// each tick is judged once both handed in, and both see the verdict.
    #[test]
    fn a_group_judges_its_summed_rates() {
        let g = Arc::new(Group::new(ss("iops", "10%", 2), 2, None));
        let mut a = Monitor::with_group(ss("iops", "10%", 2), 0, Arc::clone(&g), 1);
        let mut b = Monitor::with_group(ss("iops", "10%", 2), 0, Arc::clone(&g), 2);
        // a alone is flat (steady at 2 s on its own); b starts late, so the
        // sum settles only at 3 s.
        let (mut ai, mut bi) = (0, 0);
        let mut ends = Vec::new();
        for s in 1..=4u64 {
            ai += 1000;
            bi += [0, 1000, 1000, 1000][s as usize - 1];
            let now = s * SEC;
            let ra = a.tick(now, ai, 0);
            // a handed in first: it waits for b, looking again soon.
            assert!(ra || a.next_ns < (s + 1) * SEC, "{s}");
            let rb = b.tick(now, bi, 0);
            ends.push((ra, rb, a.tick(now + POLL_NS, ai, 0)));
        }
        assert_eq!(
            ends,
            vec![
                (false, false, false),
                (false, false, false),
                (false, true, true),
                (true, true, true)
            ]
        );
        let r = a.report();
        assert_eq!(r.iops, vec![2000, 2000]);
        assert!(r.attained && r.max_deviation == 0.0);
        assert_eq!(r, b.report());
    }

    /// fio judges only while the group's last job runs: a group whose
    /// leader has ended is never steady.
    #[test]
    fn no_verdict_without_the_leader() {
        let g = Arc::new(Group::new(ss("iops", "10%", 2), 2, None));
        let mut a = Monitor::with_group(ss("iops", "10%", 2), 0, Arc::clone(&g), 1);
        let b = Monitor::with_group(ss("iops", "10%", 2), 0, Arc::clone(&g), 2);
        drop(b);
        for s in 1..=5u64 {
            assert!(!a.tick(s * SEC, s * 1000, 0));
        }
        let r = a.report();
        assert!(!r.attained && r.iops == vec![0, 0]);
    }

    /// A member that has not started (startdelay) is not waited for, and
    /// one that ended stops holding the others' seconds back.
    #[test]
    fn members_come_and_go() {
        let g = Arc::new(Group::new(ss("iops", "10%", 2), 2, None));
        let mut a = Monitor::with_group(ss("iops", "10%", 2), 0, Arc::clone(&g), 1);
        let mut b = Monitor::with_group(ss("iops", "10%", 2), 0, Arc::clone(&g), 2);
        assert!(!b.tick(SEC, 500, 0));
        // b's second 1 waits for a's.
        assert_eq!(g.done.load(Ordering::Relaxed), 0);
        assert!(!a.tick(SEC, 500, 0));
        assert_eq!(g.done.load(Ordering::Relaxed), 2);
        // A third member starting at 1.5 s owes seconds from 2 on.
        let mut c = Monitor::with_group(ss("iops", "10%", 2), 1_500_000_000, Arc::clone(&g), 3);
        assert!(!b.tick(2 * SEC, 1500, 0));
        assert!(!a.tick(2 * SEC, 1000, 0));
        assert_eq!(g.done.load(Ordering::Relaxed), 2);
        assert!(!c.tick(SEC / 2, 100, 0));
        assert_eq!(g.done.load(Ordering::Relaxed), 3);
        // c ends before its next second: the others' third second is judged.
        assert!(!b.tick(3 * SEC, 2500, 0));
        assert!(!a.tick(3 * SEC, 1500, 0));
        assert_eq!(g.done.load(Ordering::Relaxed), 3);
        drop(c);
        assert_eq!(g.done.load(Ordering::Relaxed), 4);
        assert_eq!(a.report().iops, vec![1500 + 200, 1500]);
    }

    #[test]
    fn merge_takes_the_last_members_block() {
        let mut m = Monitor::new(ss("iops", "10%", 2), 0);
        m.tick(SEC, 10, 0);
        let first = Some(Box::new(m.report()));
        m.tick(2 * SEC, 30, 0);
        let last = Some(Box::new(m.report()));
        let mut into = first.clone();
        crate::stats::merge_steadystate(&mut into, &last);
        assert_eq!(into, last);
        crate::stats::merge_steadystate(&mut into, &None);
        assert_eq!(into, last);
    }

    #[test]
    fn missed_ticks_are_empty_samples() {
        let mut m = Monitor::new(ss("iops", "10%", 3), 0);
        // 100 ios, then a 3.5 s sleep: samples 100, 0, 0 (not steady).
        assert!(!m.tick(3_500_000_000, 100, 0));
        let r = m.report();
        assert_eq!(r.iops, vec![100, 0, 0]);
        assert!(!r.attained);
    }

    #[test]
    fn slope_sees_a_ramp() {
        let mut m = Monitor::new(ss("iops_slope", "1%", 4), 0);
        let mut ios = 0;
        for s in 1..=10u64 {
            // Rising by 10% every second: never steady.
            ios += 1000 * (10 + s) / 10;
            assert!(!m.tick(s * 1_000_000_000, ios, 0));
        }
        let r = m.report();
        assert!(!r.attained && r.slope > 90.0);
        // Oldest first.
        assert!(r.iops.windows(2).all(|w| w[0] < w[1]), "{:?}", r.iops);
    }
}
