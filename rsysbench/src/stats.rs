//! Per-thread live statistics (spec §4). Each worker owns one [`Slot`] and
//! is its only writer: plain relaxed load+store, no lock, no read-modify-
//! write instruction, no allocation per event. The reporting thread reads
//! the slots at any time and works with differences between snapshots, so
//! intervals and checkpoints never reset what a worker writes (except
//! min/max, which a checkpoint swaps back to their start values).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

use rbench_common::histogram::{SysbenchHistogram, SYSBENCH_NR_BUCKETS};

/// Test-specific counters a worker may bump (fileio uses them all).
#[derive(Debug, Clone, Copy)]
pub enum Counter {
    Reads = 0,
    Writes = 1,
    Fsyncs = 2,
    BytesRead = 3,
    BytesWritten = 4,
}
/// Test counters, then the SQL counters ([`SbCounter`] order).
const NR_COUNTERS: usize = 5 + SbCounter::COUNT;

use crate::lua::context::SbCounter;

/// One worker's statistics, on its own cache lines.
#[repr(align(128))]
pub struct Slot {
    events: AtomicU64,
    sum_ns: AtomicU64,
    min_ns: AtomicU64,
    max_ns: AtomicU64,
    counters: [AtomicU64; NR_COUNTERS],
    buckets: Box<[AtomicU64]>,
    /// The worker left its event loop (one still running past the forced
    /// shutdown deadline is inside an event).
    pub done: AtomicBool,
}

#[inline(always)]
fn bump(a: &AtomicU64, n: u64) {
    // Single writer: a plain add, visible to the reporter without a lock.
    a.store(a.load(Relaxed).wrapping_add(n), Relaxed);
}

impl Slot {
    pub fn new() -> Self {
        Self {
            events: AtomicU64::new(0),
            sum_ns: AtomicU64::new(0),
            min_ns: AtomicU64::new(u64::MAX),
            max_ns: AtomicU64::new(0),
            counters: Default::default(),
            buckets: (0..SYSBENCH_NR_BUCKETS)
                .map(|_| AtomicU64::new(0))
                .collect(),
            done: AtomicBool::new(false),
        }
    }

    /// Record one finished event: `ns` of latency, histogram bucket `bucket`
    /// (`None` when percentiles are off). Hot path.
    #[inline(always)]
    pub fn record_event(&self, ns: u64, bucket: Option<usize>) {
        bump(&self.events, 1);
        bump(&self.sum_ns, ns);
        if ns < self.min_ns.load(Relaxed) {
            self.min_ns.store(ns, Relaxed);
        }
        if ns > self.max_ns.load(Relaxed) {
            self.max_ns.store(ns, Relaxed);
        }
        if let Some(b) = bucket {
            bump(&self.buckets[b], 1);
        }
    }

    /// Count one SQL statement, error or reconnect. Hot path.
    #[inline(always)]
    pub fn add_sql(&self, c: SbCounter) {
        bump(&self.counters[5 + c as usize], 1);
    }

    /// Bump a test counter. Hot path.
    #[inline(always)]
    pub fn add(&self, c: Counter, n: u64) {
        bump(&self.counters[c as usize], n);
    }

    /// A consistent-enough copy for reporting.
    pub fn snapshot(&self) -> ThreadSnap {
        ThreadSnap {
            events: self.events.load(Relaxed),
            sum_ns: self.sum_ns.load(Relaxed),
            min_ns: self.min_ns.load(Relaxed),
            max_ns: self.max_ns.load(Relaxed),
            counters: std::array::from_fn(|i| self.counters[i].load(Relaxed)),
            buckets: self.buckets.iter().map(|b| b.load(Relaxed)).collect(),
        }
    }

    /// A checkpoint: min/max start over (the rest is handled by snapshots).
    pub fn reset_min_max(&self) {
        self.min_ns.store(u64::MAX, Relaxed);
        self.max_ns.store(0, Relaxed);
    }
}

/// One thread's counters at one moment.
#[derive(Debug, Clone, Default)]
pub struct ThreadSnap {
    pub events: u64,
    pub sum_ns: u64,
    pub min_ns: u64,
    pub max_ns: u64,
    pub counters: [u64; NR_COUNTERS],
    pub buckets: Vec<u64>,
}

impl ThreadSnap {
    /// What happened since `base` (min/max are taken as they are now).
    pub fn since(&self, base: &ThreadSnap) -> ThreadSnap {
        ThreadSnap {
            events: self.events - base.events.min(self.events),
            sum_ns: self.sum_ns - base.sum_ns.min(self.sum_ns),
            min_ns: self.min_ns,
            max_ns: self.max_ns,
            counters: std::array::from_fn(|i| {
                self.counters[i] - base.counters[i].min(self.counters[i])
            }),
            buckets: if base.buckets.is_empty() {
                self.buckets.clone()
            } else {
                self.buckets
                    .iter()
                    .zip(&base.buckets)
                    .map(|(a, b)| a - b.min(a))
                    .collect()
            },
        }
    }

    pub fn counter(&self, c: Counter) -> u64 {
        self.counters[c as usize]
    }

    pub fn sql(&self, c: SbCounter) -> u64 {
        self.counters[5 + c as usize]
    }
}

/// Summed histogram buckets of several threads.
pub fn sum_buckets<'a>(snaps: impl Iterator<Item = &'a ThreadSnap>) -> Vec<u64> {
    let mut b = vec![0u64; SYSBENCH_NR_BUCKETS];
    for s in snaps {
        for (d, x) in b.iter_mut().zip(&s.buckets) {
            *d += x;
        }
    }
    b
}

/// sysbench's percentile over bucket counts (spec §4): the value of the
/// first bucket whose running count reaches floor(N·p/100 + 0.5). Bucket
/// values come from the common histogram; with no samples it is 0.001 ms.
pub fn percentile_ms(scale: &SysbenchHistogram, buckets: &[u64], p: f64) -> f64 {
    let n: u64 = buckets.iter().sum();
    let target = (n as f64 * p / 100.0 + 0.5).floor() as u64;
    let mut running = 0;
    let mut idx = 0;
    while idx < buckets.len() {
        running += buckets[idx];
        if running >= target {
            break;
        }
        idx += 1;
    }
    scale.bucket_value_ms(idx)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentile_matches_the_common_histogram() {
        let scale = SysbenchHistogram::new();
        let mut h = SysbenchHistogram::new();
        let slot = Slot::new();
        for i in 1..=1000u64 {
            let ms = i as f64 * 0.01;
            h.record_ms(ms);
            slot.record_event(i * 10_000, Some(scale.bucket_index(ms)));
        }
        let snap = slot.snapshot();
        for p in [1.0, 50.0, 95.0, 99.0, 100.0] {
            assert_eq!(percentile_ms(&scale, &snap.buckets, p), h.percentile(p));
        }
        assert_eq!(snap.events, 1000);
        assert_eq!(snap.min_ns, 10_000);
        assert_eq!(snap.max_ns, 10_000_000);
        let empty = vec![0; SYSBENCH_NR_BUCKETS];
        assert!((percentile_ms(&scale, &empty, 95.0) - 0.001).abs() < 1e-9);
    }

    #[test]
    fn since_subtracts() {
        let slot = Slot::new();
        slot.record_event(5, None);
        let a = slot.snapshot();
        slot.record_event(7, None);
        slot.add(Counter::Reads, 3);
        let d = slot.snapshot().since(&a);
        assert_eq!((d.events, d.sum_ns, d.counter(Counter::Reads)), (1, 7, 3));
    }
}
