//! The job loop, written once against the [`Engine`] trait: pick, issue,
//! commit, reap, record. Everything it needs (units, buffers, completion
//! list, histograms) is allocated before the loop; the loop itself only
//! reads the clock, calls the engine and updates counters.

use super::buffers::Buffers;
use super::files::layout::JobFiles;
use super::logs::job_logs::Logs;
use super::logs::sampler::Sampler;
use super::offsets::picker::Picker;
use super::pacing::throttle::{Gate, Throttle};
use crate::engine::{Engine, IoKind, IoUnit, Queued, Traits};
use crate::job::Job;
use crate::stats::{batch_bucket, depth_bucket, ThreadStats};
use rbench_common::clock::FastClock;
use rbench_common::stop;
use std::sync::atomic::{AtomicBool, Ordering};

/// How a job ended when it ended with an error.
#[derive(Debug, Clone)]
pub struct IoError {
    pub errno: i32,
    pub kind: IoKind,
    pub offset: u64,
    pub len: usize,
    pub file: usize,
    /// Not an I/O's own error (rate_min, placement): where it came from.
    pub site: Option<Box<super::errors::Site>>,
}

impl IoError {
    /// An error that is not one I/O's (setup, rate_min, a commit, an
    /// engine that cannot start), reported from fio's `at`/`func`, with
    /// `note` printed before it.
    pub fn at_site(errno: i32, at: &'static str, func: &'static str, note: String) -> IoError {
        IoError {
            errno,
            kind: IoKind::Read,
            offset: 0,
            len: 0,
            file: 0,
            site: Some(Box::new(super::errors::Site { at, func, note })),
        }
    }
}

/// Record one completed unit. Hot path.
#[inline]
fn record(st: &mut ThreadStats, io: &IoUnit, done_ns_lat: (u64, u64), job: &Job) -> Option<i32> {
    if io.result < 0 {
        // continue_on_error / ignore_error decide (§3).
        return super::errors::failed(st, io, (-io.result) as i32, done_ns_lat.0, job);
    }
    let (clat, lat) = done_ns_lat;
    match io.kind {
        IoKind::Fsync | IoKind::Fdatasync => {
            st.sync_lat.record(clat);
            st.sync_ios += 1;
        }
        k => {
            let d = match k {
                IoKind::Read => 0,
                IoKind::Write => 1,
                _ => 2,
            };
            let ds = &mut st.dir[d];
            ds.io_bytes += io.result as u64;
            ds.ios += 1;
            // Short: some bytes but not all (fio's `bytes && resid`); a
            // read that found nothing (past the end) is not (checked only
            // when short, so a full transfer costs what it did).
            if (io.result as usize) < io.len && io.result > 0 {
                ds.short_ios += 1;
            }
            if !job.disable_clat {
                ds.clat.record(clat);
            }
            if !job.disable_lat {
                ds.lat.record(lat);
            }
        }
    }
    None
}

/// Run one job on the calling thread. `go` is raised when every job of the
/// stonewall segment is ready; `exit_all` stops everyone (`exitall`).
pub fn run(
    job: &Job,
    traits: Traits,
    mut engine: Box<dyn Engine>,
    files: &JobFiles,
    exit_all: &AtomicBool,
    progress: &super::eta::Progress,
) -> (ThreadStats, Option<IoError>, Option<Logs>) {
    let mut st = ThreadStats::default();
    let depth = if traits.sync { 1 } else { job.iodepth };
    let max_bs = job.max_bs() as usize;
    let unit_len = max_bs.checked_next_multiple_of(4096).unwrap_or(usize::MAX);
    let mut filler = super::buffers::Filler::new(job, files.io_size);
    let Some(bufs) = Buffers::new(depth, unit_len, &mut filler) else {
        // iodepth x bs more than memory can hold: fio's iomem allocation
        // failure, not an abort.
        st.error = libc::ENOMEM;
        let e = setup_error(libc::ENOMEM, "memory.c:332", "iomem allocation");
        return (st, Some(e), None);
    };
    let mut units: Vec<IoUnit> = (0..depth)
        // SAFETY: each unit gets its own `unit_len` slice of the allocation.
        .map(|i| {
            let mut u = IoUnit::new(unsafe { bufs.ptr.add(i * unit_len) });
            u.len = unit_len;
            u
        })
        .collect();
    if let Err(e) = engine.init(&units, &files.fds, &files.sizes) {
        st.error = e.raw_os_error().unwrap_or(libc::EIO);
        let e = super::errors::engine_init_error(&job.engine, st.error);
        // fio's job reaps once, finding nothing, on its way out.
        st.complete_map[0] = 1;
        st.complete_calls = 1;
        return (st, Some(e), None);
    }
    // fio 3.33 derives the offset seed before applying randseed, so
    // randseed alone changes nothing; with randrepeat=0 it seeds the
    // offsets, and without it the seed comes from the clock (§12).
    let seed = match (job.randrepeat, job.randseed) {
        (true, _) => 0x89 ^ (job.clone as u64).wrapping_mul(0x9E37_79B9),
        (false, Some(s)) => s ^ (job.clone as u64).wrapping_mul(0x9E37_79B9),
        (false, None) => rbench_common::clock::now_ns(),
    };
    if let Err((errno, func)) = super::placement::apply(job) {
        st.error = errno;
        return (st, Some(setup_error(errno, "backend.c:1716", func)), None);
    }
    let mut picker = Picker::new(job, files.regions.clone(), seed);
    // verify=: None when off, so each hook below is one predictable branch.
    let mut verifier = crate::verify::Verifier::new(
        job,
        depth,
        unit_len,
        &files.paths,
        &files.fds,
        files.wrap,
        files.io_size / job.bs[1].0.max(1),
    );
    let fill_writes = filler.content.per_write() || verifier.is_some();
    // A loop ended: verify it once nothing is in flight (verify= only).
    let mut verify_due = false;
    let mut free: Vec<usize> = (0..depth).rev().collect();
    let mut done: Vec<usize> = Vec::with_capacity(depth);
    let mut to_stamp: Vec<usize> = Vec::with_capacity(depth);

    let clock = FastClock::get();
    let t0 = clock.now();
    let ns = |t: u64| clock.ticks_to_ns(t.saturating_sub(t0));
    let ramp_ns = job.ramp_us * 1000;
    let runtime_ns = job.runtime_us * 1000;
    let mut measuring = ramp_ns == 0;
    let mut measure_start = 0u64;
    let mut sampler = Sampler::new(job, 0);
    let mut next_check = sampler.next_due();
    if job.agg_bw_log {
        next_check = next_check.min(50_000_000);
    }
    let usage0 = rusage();

    let time_based = job.time_based && runtime_ns > 0;
    if !time_based {
        progress
            .expected_bytes
            .store(files.io_size.saturating_mul(job.loops), Ordering::Relaxed);
    }
    let io_per_pass = files.io_size;
    // fio's limit is io_size (or size) times loops, against the bytes issued
    // over all loops (io_bytes_exceeded): a loop of a mixed sequential job
    // runs on until a direction reaches the end of its region.
    let io_limit = io_per_pass.saturating_mul(job.loops.max(1));
    let max_bs = job.bs.iter().map(|b| b.1).max().unwrap_or(1).max(1);
    let mut issued_bytes = 0u64;
    let mut issued_ios = 0u64;
    let mut loops_left = job.loops;
    // number_ios, as fio's exceeds_number_ios: times loops, over the job's
    // I/Os and its verify reads; a time_based job runs past it, as fio's.
    let ios_cap = if time_based {
        0
    } else {
        job.number_ios.saturating_mul(job.loops.max(1))
    };
    // Whether io_size may bring another round after the loops (see below).
    // An async engine's round ends at `size` bytes issued, before fio
    // finds the file done, so its rounds always start over (fio's null
    // engine queues too at a depth above 1).
    let queues = !traits.sync || (traits.diskless && job.iodepth > 1);
    let rounds_restart = job.opts.flag("do_verify") || job.loops > 1 || queues;
    let mut inflight = 0usize;
    let mut writes_since_sync = 0u64;
    let sync_every = if job.fsync > 0 {
        job.fsync
    } else {
        job.fdatasync
    };
    let mut pending_sync: Option<usize> = None;
    let mut exhausted = false;
    let mut error: Option<IoError> = None;
    let count_submits = !traits.diskless;
    let mut throttle = Throttle::new(job, t0);
    picker.attach_steer(throttle.steer_handle());
    let mut min_rate = super::pacing::throttle::MinRate::new(job);
    let mut steady = job.steadystate.map(|ss| {
        let phase_ms = progress.started_ms.load(Ordering::Relaxed);
        super::pacing::steadystate::Monitor::join(
            job,
            ss,
            phase_ms * 1_000_000,
            progress.ss_group.get().cloned(),
        )
    });
    if let Some(ss) = &steady {
        // Its first look may be due at once (a steady group to join).
        next_check = next_check.min(ss.next_ns);
    }
    let mut think = super::pacing::throttle::Think::new(job);
    // A stall is due once what is in flight has completed (fio quiesces).
    let mut think_pending = false;
    let mut last_dir = 0usize;
    let low_mark = if traits.sync {
        0
    } else {
        job.iodepth_low.min(depth - 1)
    };
    let mut filling = true;
    let mut logs = Logs::new(job);
    let per_io_rates = logs.as_ref().map_or((false, false), Logs::per_io_rates);
    sampler.per_io = per_io_rates;
    if logs.as_ref().is_some_and(|l| l.per_io) {
        if let Some(v) = verifier.as_mut() {
            v.log_backlog();
        }
    }
    // A prepared unit waiting for its rate slot.
    let mut held: Option<usize> = None;

    if let Some(v) = verifier.as_mut().filter(|v| v.only()) {
        // verify_only: walk the writes without doing them, then verify.
        v.dry_run(&mut picker, files.io_size, &mut st);
        exhausted = true;
    }
    // A synchronous completion's end reading also opens the next pass (the
    // loop goes straight on): one clock read per I/O saved. Only when no
    // stall (rate, thinktime, verify backlog) can come between the two.
    let carry_end = !throttle.on && !think.on && verifier.is_none();
    let mut carried = 0u64;
    let end_ns = if runtime_ns > 0 {
        ramp_ns + runtime_ns
    } else {
        u64::MAX
    };
    let mut check_at = 0u64;
    'outer: loop {
        // Cold checks once per pass of the loop, cheap compare first. The
        // same clock reading starts the first unit issued below.
        let mut pass_ticks = if carried != 0 {
            std::mem::take(&mut carried)
        } else {
            clock.now()
        };
        // Cold checks in the clock's own ticks: no conversion per pass.
        if pass_ticks >= check_at || !measuring {
            let now = ns(pass_ticks);
            if now >= next_check || !measuring {
                if !measuring && now >= ramp_ns {
                    super::errors::reset_keeping_lines(&mut st);
                    if throttle.on {
                        throttle.restart(now);
                    }
                    measuring = true;
                    measure_start = now;
                    sampler = Sampler::new(job, now);
                    sampler.per_io = per_io_rates;
                } else if measuring {
                    sampler.sample(now, &mut st, logs.as_mut());
                }
                // Nothing during ramp_time: fio's status code (its rates,
                // --bandwidth-log) counts a job only once it runs.
                let shown = |v: u64| if measuring { v } else { 0 };
                progress.publish(
                    std::array::from_fn(|d| shown(st.dir[d].io_bytes)),
                    std::array::from_fn(|d| shown(st.dir[d].ios)),
                );
                if measuring && progress.want_snapshots.load(Ordering::Relaxed) {
                    let ms = (now - measure_start).div_ceil(1_000_000);
                    let mut snap = st.clone();
                    snap.runtime_ms = ms;
                    snap.steadystate = steady.as_ref().map(|m| Box::new(m.report()));
                    for (d, on) in snap.dir.iter_mut().zip([
                        job.pattern.read,
                        job.pattern.write,
                        job.pattern.trim,
                    ]) {
                        if on {
                            d.runtime_ms = ms;
                        }
                    }
                    let u = rusage();
                    snap.usr_ms = (u.0 - usage0.0) * 1000.0;
                    snap.sys_ms = (u.1 - usage0.1) * 1000.0;
                    progress.offer_snapshot(&snap);
                }
                next_check = sampler.next_due();
                if measuring && (min_rate.on || steady.is_some()) {
                    let since = now - measure_start;
                    if let Some(note) = min_rate
                        .on
                        .then(|| min_rate.check(&job.name, since, &st))
                        .flatten()
                    {
                        error.get_or_insert(IoError::at_site(
                            libc::EIO,
                            "backend.c:1131",
                            "check_min_rate",
                            note,
                        ));
                        break;
                    }
                    if let Some(ss) = steady.as_mut() {
                        if since >= ss.next_ns {
                            let ios = st.dir.iter().map(|d| d.ios).sum();
                            let bytes = st.dir.iter().map(|d| d.io_bytes).sum();
                            if ss.tick(since, ios, bytes) {
                                break;
                            }
                        }
                        next_check = next_check.min(measure_start + ss.next_ns);
                    }
                    if min_rate.on {
                        // fio checks after every completion; a tenth of a cycle is close.
                        next_check =
                            next_check.min(now + job.rate_cycle_ms.clamp(1, 1000) * 100_000);
                    }
                }
                if progress.want_snapshots.load(Ordering::Relaxed) {
                    // Fresh snapshots for --status-interval: check every 50 ms.
                    next_check = next_check.min(now + 50_000_000);
                }
                if job.agg_bw_log {
                    // Fresh counts for --bandwidth-log's samples: every 50 ms.
                    next_check = next_check.min(now + 50_000_000);
                }
            }
            if runtime_ns > 0 && now >= ramp_ns + runtime_ns && measuring {
                break;
            }
            // The first tick at which a check or the end may be due (rounded
            // down, so never late; the exact comparisons above decide).
            check_at = t0.saturating_add(clock.ns_to_ticks(next_check.min(end_ns)));
        }
        if stop::should_stop() || exit_all.load(Ordering::Relaxed) {
            break;
        }
        // Issue until the queue is full (one unit per pass for synchronous
        // engines, so the clock and stop checks above run between them).
        // iodepth_low: once full, wait until the queue drains to the low mark.
        if inflight >= depth {
            filling = false;
        } else if inflight <= low_mark {
            filling = true;
        }
        let mut budget = if filling && !think_pending && !verify_due {
            depth - inflight
        } else {
            0
        };
        // A requeued rest (held) still goes out once the offsets ran out.
        while budget > 0 && (!exhausted || held.is_some()) && error.is_none() {
            budget -= 1;
            let (idx, prepared) = match held.take() {
                Some(h) => (h, true),
                None => match free.pop() {
                    Some(i) => (i, false),
                    None => break,
                },
            };
            let io = &mut units[idx];
            if !prepared {
                // One clock read saved per pass: the first unit starts at the
                // pass's reading, later ones (async refills) read anew.
                io.start = if pass_ticks != 0 {
                    std::mem::take(&mut pass_ticks)
                } else {
                    clock.now()
                };
                let ios_left = ios_cap == 0 || issued_ios < ios_cap;
                let bytes_left = io_per_pass == 0 || issued_bytes < io_limit;
                // A due fsync goes out only if more I/O follows, as in fio.
                let sync_file = pending_sync.filter(|_| ios_left && (bytes_left || time_based));
                if let Some(file) = sync_file {
                    pending_sync = None;
                    io.kind = if job.fsync > 0 {
                        IoKind::Fsync
                    } else {
                        IoKind::Fdatasync
                    };
                    io.file = file;
                    io.fd = picker.fd(file);
                    io.len = 0;
                } else {
                    let mut got = (ios_left && (bytes_left || time_based) || picker.has_followup())
                        && picker.next(io);
                    // fio's keep_running: once the loops are done, another
                    // round while io_size is not reached by a whole block,
                    // counting what verify read back (fio's io_bytes). Only
                    // when rounds start over (fio resets its done files for
                    // do_verify=1 or loops > 1).
                    let io_size_left = || {
                        let (read_bytes, read_ios) =
                            verifier.as_ref().map_or((0, 0), |v| v.reads_after_round());
                        loops_left <= 1
                            && files.wrap
                            && rounds_restart
                            && io_per_pass.saturating_sub(issued_bytes + read_bytes) >= max_bs
                            && (ios_cap == 0 || issued_ios + read_ios < ios_cap)
                    };
                    if !got && ios_left && (time_based || io_size_left()) {
                        // fio verifies each round before the next one.
                        verify_due =
                            !time_based && verifier.as_ref().is_some_and(|v| v.wants_pass());
                        // Every block of the region was visited; io_size (or the
                        // clock) asks for more: start a new pass. For io_size
                        // fio runs another round of the job (keep_running),
                        // which reseeds its generators. A zoned job's pass
                        // ends where a file does, a new round for fio too.
                        if time_based && job.zones.is_none() {
                            picker.new_pass();
                        } else {
                            picker.new_loop();
                        }
                        // fio drops each file's cache as it starts over:
                        // one file (or a random map) wraps in place, more
                        // files (and io_size rounds) are closed and opened
                        // again.
                        picker.drop_caches(
                            !time_based || (files.regions.len() > 1 && !job.pattern.random),
                        );
                        got = picker.next(io);
                    }
                    if !got {
                        // One loop of the job is complete.
                        loops_left = loops_left.saturating_sub(1);
                        if ios_left && (time_based || loops_left > 0) {
                            // verify=: fio checks each loop before the next
                            // one writes; this unit waits for that.
                            verify_due =
                                verifier.as_ref().is_some_and(|v| v.wants_pass()) && !time_based;
                            if job.unlink_each_loop && !time_based {
                                let writes = job.pattern.write || job.pattern.trim;
                                if let Err((errno, file)) =
                                    super::files::layout::recreate(files, writes)
                                {
                                    free.push(idx);
                                    error = Some(IoError {
                                        errno,
                                        kind: io.kind,
                                        offset: 0,
                                        len: 0,
                                        file,
                                        site: None,
                                    });
                                    break;
                                }
                            }
                            picker.new_loop();
                            got = time_based || issued_bytes < io_limit;
                            if got {
                                // fio closes the files between loops; its
                                // next I/O opens them again, which drops
                                // their cache.
                                picker.drop_caches(true);
                                got = picker.next(io);
                            }
                        }
                    }
                    if !got {
                        free.push(idx);
                        exhausted = true;
                        break;
                    }
                    if !picker.followup {
                        // The last unit of a pass is cut to what io_size
                        // leaves (fio's io_u trimming), in whole grains; a
                        // mixed job's last unit goes out whole, as in fio.
                        let left = io_limit.saturating_sub(issued_bytes);
                        if !time_based
                            && io_per_pass > 0
                            && (io.len as u64) > left
                            && !job.pattern.mixed()
                            // Zones end a pass anywhere: fio's last I/O
                            // then goes out whole (run/offsets/zones.rs).
                            && job.zones.is_none()
                            && !super::offsets::fiomap::whole_last_unit(job)
                        {
                            let grain = job.bs.iter().map(|b| b.0).min().unwrap_or(1).max(1);
                            let cut = left / grain * grain;
                            if cut > 0 {
                                io.len = cut as usize;
                            }
                        }
                        issued_bytes += io.len as u64;
                    }
                    issued_ios += 1;
                    if sync_every > 0 {
                        // fio (get_rw_ddir) syncs after any I/O while the
                        // write count is a multiple of N: in a mixed job each
                        // read there brings one more sync.
                        if io.kind == IoKind::Write {
                            writes_since_sync += 1;
                        }
                        if writes_since_sync > 0 && writes_since_sync.is_multiple_of(sync_every) {
                            pending_sync = Some(io.file);
                        }
                    }
                }
            }
            if verify_due {
                held = Some(idx);
                break;
            }
            if throttle.on && !matches!(io.kind, IoKind::Fsync | IoKind::Fdatasync) {
                let limit = if runtime_ns > 0 {
                    ramp_ns + runtime_ns
                } else {
                    u64::MAX
                };
                let now = ns(clock.now());
                match throttle.gate(io.kind, now, limit, inflight) {
                    Gate::Go => {}
                    Gate::Hold => {
                        held = Some(idx);
                        break;
                    }
                    Gate::Stop => {
                        free.push(idx);
                        break;
                    }
                }
                let d = match io.kind {
                    IoKind::Read => 0,
                    IoKind::Write => 1,
                    _ => 2,
                };
                throttle.issued(d, io.len as u64);
                io.start = clock.now();
            }
            if think.on {
                last_dir = match io.kind {
                    IoKind::Read => 0,
                    IoKind::Write => 1,
                    _ => last_dir,
                };
            }
            if fill_writes && io.kind == IoKind::Write {
                crate::verify::prepare_write(idx, io, &mut filler, verifier.as_mut(), ns(io.start));
            }
            let slot = match io.kind {
                IoKind::Read => 0,
                IoKind::Write => 1,
                IoKind::Trim => 2,
                _ => 3,
            };
            io.issue = clock.now();
            let queued = engine.queue(idx, io);
            // A busy answer keeps the unit for later: it is counted then.
            if queued != Queued::Busy {
                st.issued[slot] += 1;
            }
            match queued {
                Queued::Completed => {
                    // Short (cold): fio issues the rest again at once.
                    if (io.result as usize) < io.len && io.result > 0 && verifier.is_none() {
                        let real = files.sizes.get(io.file).copied().unwrap_or(u64::MAX);
                        super::errors::resubmit_short(&mut *engine, idx, io, &mut st, real);
                    }
                    let end = clock.now();
                    if carry_end {
                        carried = end;
                    }
                    let resid = io.result == 0
                        && io.len > 0
                        && matches!(io.kind, IoKind::Read | IoKind::Write);
                    if resid {
                        // fio's "full resid": a synchronous transfer that
                        // moved nothing (a read at end of file) is EIO.
                        io.result = -i64::from(libc::EIO);
                    }
                    inflight += 1;
                    st.depth_map[depth_bucket(inflight)] += 1;
                    inflight -= 1;
                    if count_submits {
                        st.submit_map[1] += 1;
                        st.complete_map[1] += 1;
                        st.submit_calls += 1;
                        st.complete_calls += 1;
                    }
                    let lat = (
                        clock.ticks_to_ns(end - io.issue),
                        clock.ticks_to_ns(end - io.start),
                    );
                    if let Some(l) = logs.as_mut().filter(|l| measuring && l.per_io) {
                        log_io(
                            l,
                            &mut st,
                            io,
                            ns(end).saturating_sub(measure_start),
                            lat,
                            0,
                            per_io_rates,
                        );
                    }
                    if let Some(errno) = record(&mut st, io, lat, job) {
                        error = Some(IoError {
                            errno,
                            kind: io.kind,
                            offset: io.offset,
                            len: io.len,
                            file: io.file,
                            // fio reports a full resid from backend.c, with
                            // no `io_u error` line.
                            site: resid.then(|| {
                                Box::new(super::errors::Site {
                                    at: "backend.c:471",
                                    func: "full resid",
                                    note: String::new(),
                                })
                            }),
                        });
                    }
                    if let Some(v) = verifier.as_mut() {
                        if let Err(m) = v.completed_and_logged(
                            idx,
                            io,
                            &mut st,
                            logs.as_mut().filter(|l| measuring && l.per_io),
                            || verify_log_base(ns(clock.now()), measure_start),
                            per_io_rates,
                        ) {
                            error.get_or_insert(m.into_io_error(true));
                        }
                        issued_ios += v.take_backlog_ios();
                    }
                    free.push(idx);
                }
                Queued::Queued => {
                    // Its depth is counted when it is committed.
                    inflight += 1;
                    to_stamp.push(idx);
                    if to_stamp.len() >= job.iodepth_batch {
                        let r = commit(
                            &mut *engine,
                            &mut units,
                            &mut to_stamp,
                            &mut free,
                            &mut st,
                            clock,
                            job,
                            inflight,
                        );
                        if let Err(f) = r {
                            inflight -= f.2;
                            error.get_or_insert(super::errors::commit_error(&job.engine, f.0));
                        }
                    }
                }
                Queued::Busy => {
                    // Keep the prepared unit (an fsync must not be lost):
                    // it goes out once completions make room.
                    held = Some(idx);
                    break;
                }
            }
        }
        if think.on && !think_pending {
            think_pending = think.due(&st, || ns(clock.now()));
        }
        if !to_stamp.is_empty() || inflight > 0 {
            // A submit or a wait follows: the carried reading would be stale.
            carried = 0;
        }
        if !to_stamp.is_empty() {
            let r = commit(
                &mut *engine,
                &mut units,
                &mut to_stamp,
                &mut free,
                &mut st,
                clock,
                job,
                inflight,
            );
            if let Err(f) = r {
                inflight -= f.2;
                error.get_or_insert(super::errors::commit_error(&job.engine, f.0));
            }
        }
        if inflight > 0 {
            let full = inflight >= depth || exhausted || error.is_some();
            let min = if !filling {
                // Draining to iodepth_low: wait for exactly that many.
                inflight - low_mark.min(inflight - 1)
            } else if full || held.is_some() || think_pending {
                // Never more than are in flight (fio caps min_evts at its
                // depth): the last I/Os of a job could never complete it.
                job.complete_min.max(1).min(inflight)
            } else {
                0
            };
            done.clear();
            match engine.getevents(min, job.complete_max.max(1), &mut units, &mut done) {
                Ok(n) => {
                    let end = clock.now();
                    st.complete_map[batch_bucket(n)] += 1;
                    st.complete_calls += 1;
                    for &idx in &done {
                        // Short (cold): fio requeues the rest, which goes
                        // out next as the held unit.
                        let u = &mut units[idx];
                        if (u.result as usize) < u.len
                            && u.result > 0
                            && held.is_none()
                            && verifier.is_none()
                            && super::errors::short_rest(
                                u,
                                &mut st,
                                files.sizes.get(u.file).copied().unwrap_or(u64::MAX),
                                false,
                            )
                        {
                            held = Some(idx);
                            continue;
                        }
                        let io = &units[idx];
                        let lat = (
                            clock.ticks_to_ns(end.saturating_sub(io.issue)),
                            clock.ticks_to_ns(end.saturating_sub(io.start)),
                        );
                        if let Some(l) = logs.as_mut().filter(|l| measuring && l.per_io) {
                            let slat = clock.ticks_to_ns(io.issue.saturating_sub(io.start));
                            log_io(
                                l,
                                &mut st,
                                io,
                                ns(end).saturating_sub(measure_start),
                                lat,
                                slat,
                                per_io_rates,
                            );
                        }
                        if let Some(errno) = record(&mut st, io, lat, job) {
                            error.get_or_insert(io_error(io, errno));
                        }
                        if let Some(v) = verifier.as_mut() {
                            if let Err(m) = v.completed_and_logged(
                                idx,
                                io,
                                &mut st,
                                logs.as_mut().filter(|l| measuring && l.per_io),
                                || verify_log_base(ns(clock.now()), measure_start),
                                per_io_rates,
                            ) {
                                error.get_or_insert(m.into_io_error(traits.sync));
                            }
                            issued_ios += v.take_backlog_ios();
                        }
                        free.push(idx);
                    }
                    inflight -= n;
                }
                Err(e) => {
                    st.error = e.raw_os_error().unwrap_or(libc::EIO);
                    break 'outer;
                }
            }
        } else if exhausted || error.is_some() {
            break;
        }
        if verify_due && inflight == 0 && to_stamp.is_empty() {
            verify_due = false;
            if let Some(v) = verifier.as_mut() {
                progress.state.store(b'V', Ordering::Relaxed);
                // The held unit (next loop's first write) keeps its setup.
                let kept = held.map(|h| (h, units[h]));
                let reads0 = st.dir[0].ios;
                let mut log = crate::verify::ReadLog {
                    logs: logs.as_mut().filter(|l| measuring && l.per_io),
                    base_ns: verify_log_base(ns(clock.now()), measure_start),
                    per_io_rates,
                };
                // fio closes the files before it verifies; reading them
                // back opens them again, which drops their cache.
                picker.drop_caches(true);
                if let Err(e) =
                    v.final_pass(&mut *engine, &mut units, traits.sync, &mut st, &mut log)
                {
                    error = Some(e.into_io_error(traits.sync));
                }
                // fio's number_ios counts the verify reads too.
                issued_ios += st.dir[0].ios.saturating_sub(reads0);
                if let Some((h, u)) = kept {
                    units[h] = u;
                }
                progress
                    .state
                    .store(super::eta::running_letter(job), Ordering::Relaxed);
            }
        }
        if think_pending && inflight == 0 && to_stamp.is_empty() {
            // thinktime: stall with nothing in flight (fio's io_u_quiesce).
            think_pending = false;
            let spent = think.stall(&st, ns(clock.now()));
            throttle.thought(last_dir, spent);
        }
    }
    // Drain what is still in flight (not recorded past the runtime cap).
    while inflight > 0 {
        done.clear();
        match engine.getevents(1, depth, &mut units, &mut done) {
            Ok(n) => inflight -= n,
            Err(_) => break,
        }
    }
    // fio's verify phase: read back and check what the job wrote (not when
    // the runtime ended the job: fio terminates it then).
    if let Some(v) = verifier.as_mut().filter(|v| v.wants_pass()) {
        let timed_out = runtime_ns > 0 && ns(clock.now()) >= ramp_ns + runtime_ns;
        if error.is_none()
            && !timed_out
            && !stop::should_stop()
            && !exit_all.load(Ordering::Relaxed)
        {
            progress.state.store(b'V', Ordering::Relaxed);
            let mut log = crate::verify::ReadLog {
                logs: logs.as_mut().filter(|l| measuring && l.per_io),
                base_ns: verify_log_base(ns(clock.now()), measure_start),
                per_io_rates,
            };
            picker.drop_caches(true);
            if let Err(e) = v.final_pass(&mut *engine, &mut units, traits.sync, &mut st, &mut log) {
                error = Some(e.into_io_error(traits.sync));
            }
        }
    }
    let verify_ns = verifier.as_ref().map_or(0, |v| v.spent_ns());
    let end = ns(clock.now());
    if !measuring {
        super::errors::reset_keeping_lines(&mut st);
        measure_start = end;
    }
    let usec = (end - measure_start).div_ceil(1000);
    let runtime_ms = usec.div_ceil(1000);
    st.runtime_ms = runtime_ms;
    let dirs = [job.pattern.read, job.pattern.write, job.pattern.trim];
    for (ds, on) in st.dir.iter_mut().zip(dirs) {
        if on || ds.ios > 0 {
            ds.runtime_ms = runtime_ms;
        }
    }
    if verifier.is_some() {
        crate::verify::phase_runtimes(&mut st, job, end.saturating_sub(measure_start), verify_ns);
    }
    if job.end_fsync || job.fsync_on_close {
        let last = units.first().map(|u| (u.offset, u.len));
        let depth = units.len();
        super::errors::end_fsync(job, files, traits.sync, last, depth, &mut st, &mut error);
    }
    let usage = rusage();
    st.usr_ms = (usage.0 - usage0.0) * 1000.0;
    st.sys_ms = (usage.1 - usage0.1) * 1000.0;
    st.ctx = usage.2.saturating_sub(usage0.2);
    st.majf = usage.3.saturating_sub(usage0.3);
    st.minf = usage.4.saturating_sub(usage0.4);
    if let Some(e) = &error {
        st.error = e.errno;
    }
    if let Some(l) = logs.as_mut() {
        l.finish(end.saturating_sub(measure_start) / 1_000_000, &st);
    }
    if let Some(ss) = &steady {
        st.steadystate = Some(Box::new(ss.report()));
    }
    drop(engine);
    (st, error, logs)
}

/// The `now_ns` instant of the logs' time 0, for the verify phase's reads
/// (`since` is now on the job clock, in ns after its start).
fn verify_log_base(since: u64, measure_start: u64) -> u64 {
    rbench_common::clock::now_ns().saturating_sub(since.saturating_sub(measure_start))
}

/// Log one completed I/O; with per-I/O bw/iops logs the summary samples
/// become per-I/O too, as in fio (§4). Cold unless logs are on.
#[cold]
pub(crate) fn log_io(
    l: &mut Logs,
    st: &mut ThreadStats,
    io: &IoUnit,
    since_ns: u64,
    lat: (u64, u64),
    slat: u64,
    per_io_rates: (bool, bool),
) {
    let d = match io.kind {
        IoKind::Read => 0,
        IoKind::Write => 1,
        IoKind::Trim => 2,
        _ => return,
    };
    if io.result < 0 {
        return;
    }
    let bs = io.result as u64;
    l.io(since_ns, d, bs, io.offset, (slat, lat.0, lat.1));
    if per_io_rates.0 {
        st.dir[d].bw.push(bs * 1_000_000 / lat.0.max(1));
    }
    if per_io_rates.1 {
        st.dir[d].iops.push(1);
    }
}

/// The error record of a unit.
pub(super) fn io_error(io: &IoUnit, errno: i32) -> IoError {
    IoError {
        errno,
        kind: io.kind,
        offset: io.offset,
        len: io.len,
        file: io.file,
        site: None,
    }
}

/// A job that failed before its first I/O, reported from fio's `at`/`func`.
fn setup_error(errno: i32, at: &'static str, func: &'static str) -> IoError {
    IoError::at_site(errno, at, func, String::new())
}

/// Submit what was queued and stamp its issue time (slat = issue - start).
/// A failed submission fails its units: they go back to `free` and the
/// error (errno, first unit) is returned; nothing is left in flight.
/// As in fio, the units committed are counted in the IO depths at the depth
/// reached with them (`inflight`, those queued included), before the call.
#[inline]
#[allow(clippy::too_many_arguments)]
fn commit(
    engine: &mut dyn Engine,
    units: &mut [IoUnit],
    to_stamp: &mut Vec<usize>,
    free: &mut Vec<usize>,
    st: &mut ThreadStats,
    clock: &FastClock,
    job: &Job,
    inflight: usize,
) -> Result<(), (i32, usize, usize)> {
    st.depth_map[depth_bucket(inflight)] += to_stamp.len() as u64;
    let n = match engine.commit() {
        Ok(n) => n,
        Err(e) => {
            let errno = e.raw_os_error().unwrap_or(libc::EIO);
            let failed = to_stamp.len();
            let first = to_stamp.first().copied().unwrap_or(0);
            free.extend_from_slice(to_stamp);
            to_stamp.clear();
            return Err((errno, first, failed));
        }
    };
    let now = clock.now();
    st.submit_map[batch_bucket(n.max(to_stamp.len()))] += 1;
    st.submit_calls += 1;
    for &idx in to_stamp.iter() {
        let io = &mut units[idx];
        io.issue = now;
        if !job.disable_slat {
            let d = match io.kind {
                IoKind::Read => 0,
                IoKind::Write => 1,
                IoKind::Trim => 2,
                _ => continue,
            };
            st.dir[d]
                .slat
                .record(clock.ticks_to_ns(now.saturating_sub(io.start)));
        }
    }
    to_stamp.clear();
    Ok(())
}

/// (user s, system s, context switches, major faults, minor faults) of this thread.
fn rusage() -> (f64, f64, u64, u64, u64) {
    // SAFETY: zeroed rusage is valid; RUSAGE_THREAD is supported on Linux.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut ru) };
    let s = |tv: libc::timeval| tv.tv_sec as f64 + tv.tv_usec as f64 / 1e6;
    (
        s(ru.ru_utime),
        s(ru.ru_stime),
        (ru.ru_nvcsw + ru.ru_nivcsw) as u64,
        ru.ru_majflt as u64,
        ru.ru_minflt as u64,
    )
}
