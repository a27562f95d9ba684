//! `serialize_overlap`: an I/O that overlaps one in flight waits until
//! that one has completed (fio's in_flight_overlap). fio compares offsets
//! only, never files.
//!
//! fio keeps the option only where it can matter: a job that writes or
//! trims with more than one I/O in flight, or any job in
//! `io_submit_mode=offload`, where fio's offload threads check the I/Os in
//! flight of every such job. rfio runs offload inline; its offload jobs
//! share one table of what they have in flight (a lock per I/O, taken by
//! those jobs only, as fio's offload threads take theirs).

use crate::job::Job;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// What a job's I/Os are checked against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// No check (the option is off, or fio turns it off).
    Off,
    /// The job's own I/Os in flight.
    Own,
    /// Every offload job's I/Os in flight.
    Shared,
}

impl Scope {
    /// The scope fio gives the job's serialize_overlap.
    pub fn of(job: &Job, queues: bool) -> Scope {
        if !job.serialize_overlap {
            Scope::Off
        } else if job.offload {
            Scope::Shared
        } else if (job.pattern.write || job.pattern.trim) && job.queue.iodepth > 1 && queues {
            Scope::Own
        } else {
            Scope::Off
        }
    }
}

/// The offload jobs' I/Os in flight: (owner, unit, start, end).
static SHARED: Mutex<Vec<(u64, usize, u64, u64)>> = Mutex::new(Vec::new());
/// Owners of entries in [`SHARED`], one per job loop.
static OWNERS: AtomicU64 = AtomicU64::new(0);

/// One job loop's overlap checks.
#[derive(Debug)]
pub struct Overlaps {
    scope: Scope,
    /// Own: each unit's range in flight (start == end: none).
    own: Vec<(u64, u64)>,
    owner: u64,
}

/// Whether `[a, b)` and `[c, d)` share a byte.
fn overlaps(a: u64, b: u64, c: u64, d: u64) -> bool {
    a < d && c < b
}

impl Overlaps {
    pub fn new(scope: Scope, depth: usize) -> Overlaps {
        let own = if scope == Scope::Own {
            vec![(0, 0); depth]
        } else {
            Vec::new()
        };
        Overlaps {
            scope,
            own,
            owner: OWNERS.fetch_add(1, Ordering::Relaxed),
        }
    }

    /// The checks of a job loop with `depth` units.
    pub fn for_job(job: &Job, depth: usize) -> Overlaps {
        Overlaps::new(Scope::of(job, depth > 1), depth)
    }

    pub fn on(&self) -> bool {
        self.scope != Scope::Off
    }

    /// Claim `[offset, offset+len)` for unit `idx` if nothing in flight
    /// overlaps it; false: it must wait. `inflight`: the job's own I/Os in
    /// flight. A shared claim with none of its own in flight (nothing of
    /// its own to wait for) waits here until the range is free.
    pub fn claim(&mut self, idx: usize, offset: u64, len: u64, inflight: usize) -> bool {
        let end = offset.saturating_add(len);
        match self.scope {
            Scope::Off => true,
            Scope::Own => {
                let busy = inflight > 0
                    && self
                        .own
                        .iter()
                        .enumerate()
                        .any(|(i, r)| i != idx && overlaps(offset, end, r.0, r.1));
                if !busy {
                    self.own[idx] = (offset, end);
                }
                !busy
            }
            Scope::Shared => loop {
                let mut t = SHARED.lock().unwrap_or_else(|p| p.into_inner());
                let me = (self.owner, idx);
                let busy = t
                    .iter()
                    .any(|e| (e.0, e.1) != me && overlaps(offset, end, e.2, e.3));
                if !busy {
                    t.retain(|e| (e.0, e.1) != me);
                    t.push((self.owner, idx, offset, end));
                    return true;
                }
                drop(t);
                if inflight > 0 || rbench_common::stop::should_stop() {
                    return false;
                }
                std::thread::yield_now();
            },
        }
    }

    /// Unit `idx` is no longer in flight.
    pub fn release(&mut self, idx: usize) {
        match self.scope {
            Scope::Off => {}
            Scope::Own => self.own[idx] = (0, 0),
            Scope::Shared => {
                let mut t = SHARED.lock().unwrap_or_else(|p| p.into_inner());
                t.retain(|e| (e.0, e.1) != (self.owner, idx));
            }
        }
    }
}

impl Drop for Overlaps {
    /// What the job leaves in the shared table goes with it.
    fn drop(&mut self) {
        if self.scope == Scope::Shared {
            let mut t = SHARED.lock().unwrap_or_else(|p| p.into_inner());
            t.retain(|e| e.0 != self.owner);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_overlap_waits_until_released() {
        let mut o = Overlaps::new(Scope::Own, 2);
        assert!(o.claim(0, 0, 4096, 0));
        assert!(!o.claim(1, 2048, 4096, 1));
        assert!(o.claim(1, 4096, 4096, 1), "touching is not overlapping");
        o.release(1);
        o.release(0);
        assert!(o.claim(1, 2048, 4096, 1));
    }

    #[test]
    fn shared_overlap_is_seen_by_other_jobs() {
        let mut a = Overlaps::new(Scope::Shared, 1);
        let mut b = Overlaps::new(Scope::Shared, 1);
        assert!(a.claim(0, 1 << 50, 4096, 0));
        assert!(!b.claim(0, 1 << 50, 4096, 1));
        drop(a);
        assert!(b.claim(0, 1 << 50, 4096, 1));
        b.release(0);
    }
}
