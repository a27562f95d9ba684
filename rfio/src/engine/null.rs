//! `ioengine=null`: completes every unit at once, moving no data. It exists
//! to measure the cost of the job loop itself.
//!
//! At iodepth 1 it completes inside `queue`, like a synchronous engine. Above
//! that it queues as fio's null engine does: `queue` collects units, `commit`
//! turns what was collected into completions (stamping the issue time, so
//! submission latency is recorded), `getevents` hands them all back once it
//! is asked for at least one, and `queue` answers busy while completions are
//! waiting to be reaped.

use super::{Engine, IoUnit, Queued};

pub struct Null {
    /// Queues (iodepth above 1) instead of completing at once.
    queues: bool,
    /// Collected since the last commit.
    queued: Vec<usize>,
    /// Committed, not yet reaped.
    events: Vec<usize>,
}

impl Null {
    pub fn new(iodepth: usize) -> Self {
        Null {
            queues: iodepth > 1,
            queued: Vec::with_capacity(if iodepth > 1 { iodepth } else { 0 }),
            events: Vec::with_capacity(if iodepth > 1 { iodepth } else { 0 }),
        }
    }

    /// Whether a job with this iodepth runs it as a queuing engine.
    pub fn queues(iodepth: usize) -> bool {
        iodepth > 1
    }
}

impl Engine for Null {
    #[inline]
    fn queue(&mut self, idx: usize, io: &mut IoUnit) -> Queued {
        io.result = io.len as i64;
        if !self.queues {
            return Queued::Completed;
        }
        if !self.events.is_empty() {
            return Queued::Busy;
        }
        self.queued.push(idx);
        Queued::Queued
    }

    fn commit(&mut self) -> std::io::Result<usize> {
        if !self.events.is_empty() {
            return Ok(0);
        }
        std::mem::swap(&mut self.queued, &mut self.events);
        Ok(self.events.len())
    }

    fn getevents(
        &mut self,
        min: usize,
        max: usize,
        _units: &mut [IoUnit],
        done: &mut Vec<usize>,
    ) -> std::io::Result<usize> {
        if min == 0 {
            return Ok(0);
        }
        let n = self.events.len().min(max.max(1));
        done.extend(self.events.drain(..n));
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit() -> IoUnit {
        let mut u = IoUnit::new(std::ptr::null_mut());
        u.len = 4096;
        u
    }

    #[test]
    fn depth_one_completes_in_queue() {
        let mut e = Null::new(1);
        let mut u = unit();
        assert_eq!(e.queue(0, &mut u), Queued::Completed);
        assert_eq!(u.result, 4096);
    }

    #[test]
    fn deeper_queues_commits_and_reaps() {
        let mut e = Null::new(4);
        let mut units = [unit(), unit(), unit()];
        for (i, u) in units.iter_mut().enumerate().take(2) {
            assert_eq!(e.queue(i, u), Queued::Queued);
        }
        assert_eq!(e.commit().unwrap(), 2);
        // Completions not yet reaped: no room.
        assert_eq!(e.queue(2, &mut units[2]), Queued::Busy);
        let mut done = Vec::new();
        assert_eq!(e.getevents(0, 4, &mut units, &mut done).unwrap(), 0);
        assert_eq!(e.getevents(1, 4, &mut units, &mut done).unwrap(), 2);
        assert_eq!(done, [0, 1]);
        assert_eq!(e.queue(2, &mut units[2]), Queued::Queued);
    }
}
