//! `flow_id`, `flow`, `flow_sleep`: the jobs of one flow id share two
//! counters, the flow's I/O count and the sum of its jobs' weights. A job
//! whose share of the flow's I/Os is above its share of the weights holds
//! back (fio's flow_threshold_exceeded), so the jobs' I/O counts follow
//! their weights.
//!
//! Jobs run on threads of one process, so the shared counters are plain
//! atomics (fio keeps them in shared memory). The registry's lock is taken
//! only when a job joins or leaves its flow; jobs without `flow` never
//! touch any of it.

use rbench_common::clock::FastClock;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One flow id's shared counters.
#[derive(Debug)]
struct Shared {
    /// I/Os let through, over all the flow's jobs, plus 1 (as fio starts it).
    ios: AtomicU64,
    /// The weights of the jobs in the flow now.
    weight: AtomicU64,
    /// Jobs in the flow, and those of them at their start line.
    members: AtomicUsize,
    ready: AtomicUsize,
    /// The clock reading they all start at, once all are ready (0: not yet).
    go: AtomicU64,
}

/// How long a job waits at the start line for the rest of its flow.
const START_WAIT: Duration = Duration::from_millis(500);

/// The flows of the running jobs, by id, with how many jobs each has.
static FLOWS: Mutex<Option<Registry>> = Mutex::new(None);

/// Flow id: its counters and its number of jobs.
type Registry = HashMap<i32, (Arc<Shared>, usize)>;

/// One job's membership of its flow. Joined when the job is set up (so
/// every job's weight counts from the first I/O, as fio adds them at
/// init); leaves (taking its I/Os and weight out) when dropped.
#[derive(Debug)]
pub struct Flow {
    shared: Arc<Shared>,
    id: i32,
    weight: u64,
    /// This job's I/Os let through.
    mine: u64,
    /// flow_sleep, µs.
    pub sleep_us: u64,
    /// Counted in the flow's start line (`members`, then `ready`): every
    /// job without a startdelay (and that one reaches it when it starts).
    waits: bool,
}

impl Flow {
    /// The job's flow, None without `flow=` (fio's flow_init_job).
    pub fn join(id: i32, weight: u32, sleep_us: u64, waits: bool) -> Option<Flow> {
        if weight == 0 {
            return None;
        }
        let mut flows = FLOWS.lock().unwrap_or_else(|p| p.into_inner());
        let (shared, refs) = flows
            .get_or_insert_with(HashMap::new)
            .entry(id)
            .or_insert_with(|| {
                let s = Shared {
                    ios: AtomicU64::new(1),
                    weight: AtomicU64::new(0),
                    members: AtomicUsize::new(0),
                    ready: AtomicUsize::new(0),
                    go: AtomicU64::new(0),
                };
                (Arc::new(s), 0)
            });
        *refs += 1;
        shared
            .weight
            .fetch_add(u64::from(weight), Ordering::Relaxed);
        if waits {
            shared.members.fetch_add(1, Ordering::Relaxed);
        }
        Some(Flow {
            shared: Arc::clone(shared),
            id,
            weight: u64::from(weight),
            mine: 0,
            sleep_us,
            waits,
        })
    }

    /// Wait (at most [`START_WAIT`]) until every job of the flow is ready
    /// to start: fio starts its jobs together, and a job that starts (and
    /// so ends) after the others has the flow to itself at its end. Jobs
    /// with a startdelay neither wait nor are waited for. Cold: once per
    /// job, before its clock starts.
    ///
    /// Returns the clock reading the job starts its clock at: the same for
    /// every job of the flow (the last one ready takes it), so they end
    /// together too; a job's own reading when the wait ran out.
    pub fn start_line(&self, clock: &FastClock) -> u64 {
        if !self.waits {
            return clock.now();
        }
        if self.shared.ready.fetch_add(1, Ordering::AcqRel) + 1
            >= self.shared.members.load(Ordering::Acquire)
        {
            let _ = self.shared.go.compare_exchange(
                0,
                clock.now().max(1),
                Ordering::AcqRel,
                Ordering::Acquire,
            );
        }
        let until = Instant::now() + START_WAIT;
        loop {
            let go = self.shared.go.load(Ordering::Acquire);
            if go != 0 {
                return go;
            }
            if Instant::now() >= until || rbench_common::stop::should_stop() {
                return clock.now();
            }
            std::thread::sleep(Duration::from_micros(50));
        }
    }

    /// Whether the job must hold back now; when not, its next I/O is
    /// counted (fio's flow_threshold_exceeded, without its sleep).
    #[inline]
    pub fn held(&mut self) -> bool {
        let ios = self.shared.ios.load(Ordering::Relaxed).max(1);
        let weight = self.shared.weight.load(Ordering::Relaxed).max(1);
        let my_share = self.mine as f64 / ios as f64;
        let my_weight = self.weight as f64 / weight as f64;
        if my_share > my_weight {
            return true;
        }
        self.shared.ios.fetch_add(1, Ordering::Relaxed);
        self.mine += 1;
        false
    }
}

impl Drop for Flow {
    /// fio's flow_exit_job: the job's I/Os and weight leave the flow.
    fn drop(&mut self) {
        let mut flows = FLOWS.lock().unwrap_or_else(|p| p.into_inner());
        self.shared.ios.fetch_sub(self.mine, Ordering::Relaxed);
        self.shared.weight.fetch_sub(self.weight, Ordering::Relaxed);
        if self.waits {
            // Its setup may have failed before the start line: a job
            // gone counts as ready, so nobody waits for it.
            self.shared.ready.fetch_add(1, Ordering::AcqRel);
        }
        if let Some(map) = flows.as_mut() {
            if let Some((_, refs)) = map.get_mut(&self.id) {
                *refs -= 1;
                if *refs == 0 {
                    map.remove(&self.id);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two jobs of one flow, let through in turn as they ask: their
    /// counts follow their weights 1:3.
    #[test]
    fn counts_follow_weights() {
        let mut a = Flow::join(-77, 1, 0, false).unwrap();
        let mut b = Flow::join(-77, 3, 0, false).unwrap();
        for _ in 0..4000 {
            a.held();
            b.held();
        }
        let ratio = b.mine as f64 / a.mine as f64;
        assert!((2.9..3.1).contains(&ratio), "ratio {ratio}");
        drop(b);
        // Alone in its flow now, the first job is never held.
        assert!((0..100).all(|_| !a.held()));
    }

    #[test]
    fn no_weight_no_flow() {
        assert!(Flow::join(1, 0, 0, false).is_none());
    }
}
