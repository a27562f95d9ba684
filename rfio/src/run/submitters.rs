//! `submitters=N`, an rbench extension (fio has no such option): one job
//! spreads its queue depth over N submitter threads, each driving its own
//! engine instance (its own ring or AIO context) through the ordinary job
//! loop, and the job is still reported as one job.
//!
//! Each submitter gets a contiguous share of every file's region, in whole
//! blocks, and the matching share of io_size, number_ios and the rate
//! limits, so a size-bound job moves exactly the bytes it moves with one
//! thread. The threads share nothing while they run (no lock, no shared
//! counter in the job loop); their statistics are merged when all are done:
//! counts, histograms and CPU times add up, the runtime is the longest, and
//! each bw/iops sample statistic adds the threads' (the job's rate in a
//! window is the sum of theirs), keeping one thread's sample count.

use super::eta::Progress;
use super::files::layout::JobFiles;
use super::logs::job_logs::Logs;
use super::worker;
use crate::engine::{self, Engine, Traits};
use crate::job::Job;
use crate::stats::IoError;
use crate::stats::ThreadStats;
use std::mem::ManuallyDrop;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

/// How many submitters a job really gets: never more than it has blocks
/// (in its smallest file) or I/Os (number_ios), and one for jobs whose
/// files are replaced while they run.
pub fn count(job: &Job, files: &JobFiles) -> usize {
    if job.submitters <= 1 || job.files.unlink_each_loop {
        return 1;
    }
    // Every submitter gets at least one block of every file.
    let grain = grain(job);
    let blocks = files.regions.iter().map(|r| r.2 / grain).min().unwrap_or(0);
    let mut n = job.submitters.min(blocks.max(1) as usize);
    if job.number_ios > 0 {
        // number_ios is split too: no thread without an I/O of its own.
        n = n.min(job.number_ios.min(usize::MAX as u64) as usize);
    }
    n
}

/// Run one job, on `count` threads when it asks for submitters.
pub fn run(
    job: &Job,
    traits: Traits,
    engine: Box<dyn Engine>,
    files: &JobFiles,
    exit_all: &AtomicBool,
    progress: &Progress,
) -> (ThreadStats, Option<IoError>, Option<Logs>) {
    let n = count(job, files);
    if n <= 1 {
        return worker::run(job, traits, engine, files, exit_all, progress);
    }
    // Every submitter builds its own engine, sized for its share.
    drop(engine);
    let shares: Vec<(Job, ManuallyDrop<JobFiles>)> = (0..n)
        .map(|k| (share_job(job, traits, k, n), share_files(job, files, k, n)))
        .collect();
    let subs: Vec<Progress> = (0..n)
        .map(|_| {
            let p = Progress::new();
            let want = progress.want_snapshots.load(Ordering::Relaxed);
            p.want_snapshots.store(want, Ordering::Relaxed);
            if let Some(g) = progress.ss_group.get() {
                // The submitters are one job: one member of its group.
                let _ = p.ss_group.set(std::sync::Arc::clone(g));
            }
            p
        })
        .collect();
    let finished = AtomicUsize::new(0);
    let results: Vec<(ThreadStats, Option<IoError>, Option<Logs>)> = std::thread::scope(|s| {
        let handles: Vec<_> = shares
            .iter()
            .zip(&subs)
            .map(|((j, f), p)| {
                let finished = &finished;
                s.spawn(move || {
                    let r = match engine::create(&j.engine_config()) {
                        Ok(eng) => worker::run(j, traits, eng, f, exit_all, p),
                        Err(e) => {
                            let st = ThreadStats {
                                error: e.raw_os_error().unwrap_or(libc::EINVAL),
                                ..ThreadStats::default()
                            };
                            (st, None, None)
                        }
                    };
                    finished.fetch_add(1, Ordering::Release);
                    r
                })
            })
            .collect();
        // `is_finished` too: a thread that panicked never counts itself.
        while finished.load(Ordering::Acquire) < n && !handles.iter().all(|h| h.is_finished()) {
            publish(&subs, progress);
            std::thread::sleep(Duration::from_millis(50));
        }
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    for (_, f) in shares {
        // The descriptors belong to `files`: close none of them here.
        let mut f = ManuallyDrop::into_inner(f);
        f.fds.clear();
    }
    publish(&subs, progress);
    let mut error = None;
    let mut logs = None;
    let mut stats = Vec::with_capacity(n);
    for (k, (st, e, l)) in results.into_iter().enumerate() {
        if error.is_none() {
            error = e;
        }
        if k == 0 {
            logs = l;
        }
        stats.push(st);
    }
    (merge(&stats), error, logs)
}

/// The ETA line and `--status-interval` see the job's sums. Cold: runs
/// every 50 ms on the job's own (otherwise idle) thread.
fn publish(subs: &[Progress], job: &Progress) {
    let sum = |f: &dyn Fn(&Progress) -> u64| subs.iter().map(f).sum::<u64>();
    for d in 0..3 {
        job.bytes[d].store(
            sum(&|p| p.bytes[d].load(Ordering::Relaxed)),
            Ordering::Relaxed,
        );
        job.ios[d].store(
            sum(&|p| p.ios[d].load(Ordering::Relaxed)),
            Ordering::Relaxed,
        );
    }
    job.expected_bytes.store(
        sum(&|p| p.expected_bytes.load(Ordering::Relaxed)),
        Ordering::Relaxed,
    );
    if job.want_snapshots.load(Ordering::Relaxed) {
        let snaps: Option<Vec<ThreadStats>> = subs
            .iter()
            .map(|p| p.snapshot.lock().ok().and_then(|g| g.clone()))
            .collect();
        if let Some(snaps) = snaps {
            job.offer_snapshot(&merge(&snaps));
        }
    }
}

/// One job's statistics from its submitters' (see the module comment).
pub fn merge(parts: &[ThreadStats]) -> ThreadStats {
    let Some((first, rest)) = parts.split_first() else {
        return ThreadStats::default();
    };
    let mut total = first.clone();
    for p in rest {
        total.merge(p);
    }
    total.runtime_ms = parts.iter().map(|p| p.runtime_ms).max().unwrap_or(0);
    for d in 0..3 {
        total.dir[d].bw.n = parts.iter().map(|p| p.dir[d].bw.n).max().unwrap_or(0);
        total.dir[d].iops.n = parts.iter().map(|p| p.dir[d].iops.n).max().unwrap_or(0);
    }
    total
}

/// The unit submitter regions are cut in: the largest block, so every
/// share starts where a block of the whole job would.
fn grain(job: &Job) -> u64 {
    job.max_bs().max(1)
}

/// `[lo, hi)` of part `k` of `n` over `units`.
fn part(units: u64, k: usize, n: usize) -> (u64, u64) {
    let (k, n) = (k as u128, n as u128);
    let at = |i: u128| (u128::from(units) * i / n) as u64;
    (at(k), at(k + 1))
}

/// A count split over `n`: part `k` (the first parts take the remainder).
fn split_count(v: u64, k: usize, n: usize) -> u64 {
    let (k, n) = (k as u64, n as u64);
    v / n + u64::from(k < v % n)
}

/// A rate split over `n`; a set rate stays at least 1.
fn split_rate(v: u64, n: usize) -> u64 {
    if v == 0 {
        0
    } else {
        (v / n as u64).max(1)
    }
}

/// Submitter `k`'s copy of the job: its share of the queue depth, the I/O
/// count and the rate limits. Logs are written by the first submitter.
fn share_job(job: &Job, traits: Traits, k: usize, n: usize) -> Job {
    let mut j = job.clone();
    j.submitters = 1;
    if !traits.sync {
        let depth = split_count(job.queue.iodepth as u64, k, n).max(1) as usize;
        j.queue.iodepth = depth;
        j.queue.iodepth_batch = j.queue.iodepth_batch.clamp(1, depth);
        j.queue.iodepth_low = j.queue.iodepth_low.min(depth);
        j.queue.complete_min = j.queue.complete_min.min(depth);
        j.queue.complete_max = j
            .queue
            .complete_max
            .clamp(j.queue.complete_min.max(1), depth);
    }
    if job.number_ios > 0 {
        j.number_ios = split_count(job.number_ios, k, n).max(1);
    }
    for d in 0..3 {
        j.throttle.rate[d] = split_rate(job.throttle.rate[d], n);
        j.throttle.rate_iops[d] = split_rate(job.throttle.rate_iops[d], n);
        j.throttle.rate_min[d] = split_rate(job.throttle.rate_min[d], n);
        j.throttle.rate_iops_min[d] = split_rate(job.throttle.rate_iops_min[d], n);
    }
    if k > 0 {
        j.logs.write_bw_log = None;
        j.logs.write_iops_log = None;
        j.logs.write_lat_log = None;
        j.logs.write_hist_log = None;
        j.plot = false;
    }
    j
}

/// Submitter `k`'s view of the job's files: the same descriptors (never
/// closed through this copy), its block-aligned part of every region and
/// its part of io_size.
fn share_files(job: &Job, files: &JobFiles, k: usize, n: usize) -> ManuallyDrop<JobFiles> {
    let grain = grain(job);
    let regions: Vec<(i32, u64, u64)> = files
        .regions
        .iter()
        .map(|&(fd, start, len)| {
            let (lo, hi) = part(len / grain, k, n);
            // The last part also takes the tail shorter than a block.
            let end = if k + 1 == n { len } else { hi * grain };
            (fd, start + lo * grain, end - lo * grain)
        })
        .collect();
    let total: u64 = regions.iter().map(|r| r.2).sum();
    let whole: u64 = files.regions.iter().map(|r| r.2).sum();
    let io_size = if files.io_size == whole {
        total
    } else {
        // io_size asks for less (or more) than the regions hold: each
        // share moves its part of it in whole blocks, the last one the
        // tail; less than the regions stays within the share's regions.
        let (lo, hi) = part(files.io_size / grain, k, n);
        let tail = if k + 1 == n { files.io_size % grain } else { 0 };
        let io = (hi - lo) * grain + tail;
        if files.wrap {
            io
        } else {
            io.min(total)
        }
    };
    ManuallyDrop::new(JobFiles {
        fds: files.fds.clone(),
        sizes: files.sizes.clone(),
        regions,
        io_size,
        wrap: io_size > total,
        paths: files.paths.clone(),
        zbd: files.zbd.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_cover_the_whole_once() {
        for units in [0u64, 1, 7, 1000, 1 << 40] {
            for n in 1..6 {
                let mut next = 0;
                for k in 0..n {
                    let (lo, hi) = part(units, k, n);
                    assert_eq!(lo, next);
                    assert!(hi >= lo);
                    next = hi;
                }
                assert_eq!(next, units);
            }
        }
    }

    #[test]
    fn counts_split_exactly() {
        for v in [0u64, 1, 5, 32, 33, 1001] {
            for n in 1..5 {
                assert_eq!((0..n).map(|k| split_count(v, k, n)).sum::<u64>(), v);
            }
        }
    }

    #[test]
    fn merged_runtime_is_the_longest_and_counts_add() {
        let mut a = ThreadStats {
            runtime_ms: 100,
            ..ThreadStats::default()
        };
        a.dir[0].ios = 5;
        a.dir[0].bw.push(10);
        let mut b = a.clone();
        b.runtime_ms = 120;
        let m = merge(&[a, b]);
        assert_eq!(m.runtime_ms, 120);
        assert_eq!(m.dir[0].ios, 10);
        assert_eq!(m.dir[0].bw.n, 1);
        assert_eq!(m.dir[0].bw.mean, 20.0);
    }
}
