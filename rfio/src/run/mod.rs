//! Running jobs: stonewall segments one after the other, the jobs of a
//! segment on their own threads, each through the job loop in `worker`.

pub mod buffers;
pub mod errors;
pub mod eta;
pub mod exec;
pub mod filelock;
pub mod files;
pub mod iolog;
pub mod jobenv;
pub mod logs;
pub mod memory;
pub mod numa;
pub mod offsets;
pub mod overlap;
pub mod pacing;
pub mod placement;
pub mod submitters;
pub mod verify;
pub mod worker;

use crate::engine::{self, IoKind};
use crate::job::Job;
use crate::stats::ThreadStats;
use rbench_common::output::strerror;
use std::sync::atomic::AtomicBool;
use std::time::SystemTime;

/// Which stream a notice goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
}

/// One job's outcome.
#[derive(Debug, Clone)]
pub struct JobRun {
    pub stats: ThreadStats,
    pub pid: u32,
    pub finished: SystemTime,
    /// `(file:io_u.c:1876, func=io_u error, error=Invalid argument)` context.
    pub error_context: Option<String>,
    /// The job never ran (setup failed): no report block.
    pub setup_failed: bool,
}

fn kind_word(k: IoKind) -> &'static str {
    match k {
        IoKind::Read => "read",
        IoKind::Write => "write",
        IoKind::Trim => "trim",
        IoKind::Fsync | IoKind::Fdatasync => "sync",
    }
}

/// Run every job; `notice` receives fio's progress and error lines in order.
/// `eta`: draw fio's status line on stdout (with a newline every so often
/// for `--eta-newline`).
pub fn run_all(
    jobs: &[Job],
    eta: Option<Option<std::time::Duration>>,
    periodic: Option<(std::time::Duration, &PeriodicReport<'_>)>,
    agg: Option<&logs::agglog::AggLog>,
    notice: &mut dyn FnMut(Stream, &str),
) -> Vec<JobRun> {
    // read_iolog: each replaying job as its log has it.
    let replayed: Vec<Job>;
    let jobs = if jobs.iter().any(|j| j.replay.is_some()) {
        replayed = jobs
            .iter()
            .map(|j| iolog::prepare(j).unwrap_or_else(|| j.clone()))
            .collect();
        &replayed[..]
    } else {
        jobs
    };
    let mut runs: Vec<Option<JobRun>> = vec![None; jobs.len()];
    let progress: Vec<eta::Progress> = jobs.iter().map(|_| eta::Progress::new()).collect();
    let done = AtomicBool::new(false);
    let t0 = std::time::Instant::now();
    std::thread::scope(|s| {
        if let Some(newline) = eta {
            let (progress, done) = (&progress, &done);
            s.spawn(move || eta::draw(jobs, progress, done, newline));
        }
        if let Some((every, report)) = periodic {
            for p in &progress {
                p.want_snapshots
                    .store(true, std::sync::atomic::Ordering::Relaxed);
            }
            let (progress, done) = (&progress, &done);
            s.spawn(move || periodic_reports(progress, done, every, report));
        }
        if let Some(a) = agg {
            a.start(jobs, t0);
            if a.sampling() {
                let (progress, done) = (&progress, &done);
                s.spawn(move || a.run(jobs, progress, done, t0));
            }
        }
        // fio's exitall is program-wide: one job with it makes every job's
        // end stop the others (its exitall_on_terminate).
        let exitall_anywhere = jobs.iter().any(|j| j.order.exitall);
        // exit_what=all: a job's end stops the segments after it too.
        let stop_rest = AtomicBool::new(false);
        // fio sizes and lays out the files of every job, in thread order
        // (clones counting down, job::expand), before any job starts
        // (create_serialize): a later job (or clone) that needs a shared
        // file longer lays it out before an earlier one writes to it.
        let mut planned: Vec<Option<files::layout::Planned>> = jobs
            .iter()
            .enumerate()
            .map(|(i, job)| {
                job.files
                    .create_serialize
                    .then(|| plan_job(job, &mut runs[i], &progress[i], notice))
                    .flatten()
            })
            .collect();
        let mut start = 0;
        while start < jobs.len() {
            let mut end = start + 1;
            while end < jobs.len() && !jobs[end].order.stonewall {
                end += 1;
            }
            run_segment(
                &jobs[start..end],
                &mut planned[start..end],
                &mut runs[start..end],
                &progress[start..end],
                t0,
                notice,
                (exitall_anywhere, &stop_rest),
            );
            start = end;
            if rbench_common::stop::should_stop() {
                break;
            }
        }
        done.store(true, std::sync::atomic::Ordering::Relaxed);
    });
    runs.into_iter()
        .map(|r| {
            r.unwrap_or(JobRun {
                stats: ThreadStats::default(),
                pid: 0,
                finished: SystemTime::now(),
                error_context: None,
                setup_failed: true,
            })
        })
        .collect()
}

/// Renders and prints one periodic report from snapshots.
pub type PeriodicReport<'a> = dyn Fn(&[JobRun]) + Sync + 'a;

/// `--status-interval`: every interval, a report of the snapshots so far.
fn periodic_reports(
    progress: &[eta::Progress],
    done: &AtomicBool,
    every: std::time::Duration,
    report: &PeriodicReport<'_>,
) {
    use std::sync::atomic::Ordering;
    loop {
        let wake = std::time::Instant::now() + every;
        while std::time::Instant::now() < wake {
            if done.load(Ordering::Relaxed) {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let runs: Vec<JobRun> = progress
            .iter()
            .map(|p| {
                let snap = p.snapshot.lock().ok().and_then(|g| g.clone());
                JobRun {
                    setup_failed: snap.is_none(),
                    stats: snap.unwrap_or_default(),
                    pid: std::process::id(),
                    finished: SystemTime::now(),
                    error_context: None,
                }
            })
            .collect();
        report(&runs);
    }
}

/// Size and lay out one job's files ([`files::layout::plan`]); a failure is
/// reported as fio reports it, and the job does not run.
fn plan_job(
    job: &Job,
    out: &mut Option<JobRun>,
    progress: &eta::Progress,
    notice: &mut dyn FnMut(Stream, &str),
) -> Option<files::layout::Planned> {
    let traits = engine::traits(&job.engine);
    if let Some(r) = engine::refuse_files(&job.engine_config()) {
        refused(r, out, progress, notice);
        return None;
    }
    if let Some(r) = &job.replay {
        // A replay lays out nothing: the log's files are used as they are.
        let io_size = r.log.as_ref().map_or(0, |l| l.bytes.iter().sum());
        if let Some(l) = &r.log {
            notice(Stream::Stderr, &l.warnings);
        }
        return Some(files::layout::plan_replay(job, traits.diskless, io_size));
    }
    let mut lines = Vec::new();
    let planned = files::layout::plan(job, traits.diskless, &mut lines);
    for (stream, l) in &lines {
        notice(*stream, l);
    }
    planned
        .map_err(|e| setup_failed(e, out, progress, notice))
        .ok()
}

/// A job whose own setup failed ([`jobenv::enter`]): no I/O, its error
/// (fio's log lines without an error code go to the notices only).
fn jobenv_failed(
    e: crate::stats::IoError,
    notice: &mut String,
) -> (
    ThreadStats,
    Option<crate::stats::IoError>,
    Option<logs::job_logs::Logs>,
) {
    let stats = ThreadStats {
        error: e.errno,
        ..ThreadStats::default()
    };
    if e.errno == 0 {
        if let Some(site) = &e.site {
            notice.push_str(&site.note);
        }
        return (stats, None, None);
    }
    (stats, Some(e), None)
}

/// Report a job's setup failure (layout or open) as fio does and record
/// the job's outcome.
fn setup_failed(
    e: files::layout::SetupError,
    out: &mut Option<JobRun>,
    progress: &eta::Progress,
    notice: &mut dyn FnMut(Stream, &str),
) {
    if let Some(m) = &e.message {
        notice(Stream::Stderr, m);
    }
    let (stream, pid, site) = if e.func == "fcntl write hint" {
        // fio's td_io_open_file, after the open itself.
        (Stream::Stdout, std::process::id(), "ioengines.c:596")
    } else if e.in_job {
        (Stream::Stdout, std::process::id(), "filesetup.c:805")
    } else if e.func == "write" {
        // A failed layout write (fio's extend_file).
        (Stream::Stderr, 0, "filesetup.c:240")
    } else if e.func.starts_with("zbd_") {
        (Stream::Stderr, 0, "zbd.c:985")
    } else if e.func == "fstat" {
        // A file that cannot be looked at (fio's get_file_sizes).
        (Stream::Stderr, 0, "filesetup.c:455")
    } else if e.func == "unlink" {
        // A too-short "file" that cannot be removed (a directory).
        (Stream::Stderr, 0, "filesetup.c:150")
    } else {
        (Stream::Stderr, 0, "filesetup.c:1155")
    };
    // errno 0: a layout a signal stopped, or a failure fio
    // reports without an error code (errors::quiet_setup_failure).
    if e.errno != 0 {
        notice(
            stream,
            &format!(
                "fio: pid={pid}, err={}/file:{site}, func={}, error={}\n",
                e.errno,
                e.func,
                strerror(e.errno)
            ),
        );
    }
    let mut stats = ThreadStats {
        error: e.errno,
        ..ThreadStats::default()
    };
    if e.in_job {
        // fio's job reaps once, finding nothing, on its way out.
        stats.complete_map[0] = 1;
        stats.complete_calls = 1;
    }
    progress
        .setup_failed
        .store(true, std::sync::atomic::Ordering::Relaxed);
    *out = Some(JobRun {
        stats,
        pid: 0,
        finished: SystemTime::now(),
        error_context: None,
        // fio fails an open inside the job, which ran as far as
        // that (its disk stats and JSON latency keys show).
        setup_failed: !e.in_job,
    });
}

fn run_segment(
    jobs: &[Job],
    planned: &mut [Option<files::layout::Planned>],
    out: &mut [Option<JobRun>],
    progress: &[eta::Progress],
    t0: std::time::Instant,
    notice: &mut dyn FnMut(Stream, &str),
    (exitall_anywhere, stop_rest): (bool, &AtomicBool),
) {
    // exitall: one flag per job, raised by the jobs its end stops (all of
    // them already where exit_what=all ended an earlier segment).
    let stop_now = stop_rest.load(std::sync::atomic::Ordering::Relaxed);
    let exits: Vec<AtomicBool> = jobs.iter().map(|_| AtomicBool::new(stop_now)).collect();
    // create_serialize=0: those jobs' files are set up as they start.
    for (i, job) in jobs.iter().enumerate() {
        if !job.files.create_serialize {
            planned[i] = plan_job(job, &mut out[i], &progress[i], notice);
        }
    }
    // steadystate with group_reporting: the group's window, for its jobs.
    pacing::steadystate::register(jobs, progress, t0);
    let prepared = prepare(jobs, planned, out, progress, notice);
    let results: Vec<(usize, JobRun, Option<crate::stats::IoError>)> = std::thread::scope(|s| {
        let handles: Vec<_> = prepared
            .into_iter()
            .map(|(i, job, traits, eng, files)| {
                let exits = (&exits[..], stop_rest);
                let all_progress = progress;
                s.spawn(move || {
                    job_thread(
                        i,
                        job,
                        traits,
                        eng,
                        &files,
                        (exits, exitall_anywhere),
                        (jobs, all_progress, t0),
                    )
                })
            })
            .collect();
        handles
            .into_iter()
            // A job thread that panicked takes the run down with it (as
            // the release build's panic=abort does), never a silent exit 0.
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .map(|(i, r, e, log_error)| {
                if let Some(m) = &log_error {
                    notice(Stream::Stderr, m);
                }
                if let Some((e, p, (logged, first_io))) = &e {
                    report_io_error(&jobs[i], r.pid, e, p.as_deref(), *logged, *first_io, notice);
                }
                (i, r, e.map(|x| x.0))
            })
            .collect()
    });
    for (i, r, _) in results {
        out[i] = Some(r);
    }
}

/// A job ready to run: its index, the job, its engine's traits, the
/// engine and its opened files.
type Prepared<'a> = (
    usize,
    &'a Job,
    engine::Traits,
    Box<dyn engine::Engine>,
    files::layout::JobFiles,
);

/// Open each job's files and create its engine; a job that fails here
/// gets its result now and is not run.
fn prepare<'a>(
    jobs: &'a [Job],
    planned: &mut [Option<files::layout::Planned>],
    out: &mut [Option<JobRun>],
    progress: &[eta::Progress],
    notice: &mut dyn FnMut(Stream, &str),
) -> Vec<Prepared<'a>> {
    let mut prepared = Vec::new();
    for (i, job) in jobs.iter().enumerate() {
        // Laid out before any job ran; a job whose layout failed does not.
        let Some(plan) = planned[i].take() else {
            continue;
        };
        let traits = engine::job_traits(&job.engine_config());
        let files = files::layout::open_files(job, plan);
        if let Some(l) = files
            .as_ref()
            .ok()
            .and_then(|f| crate::job::zones::abs_exceeds(job, &f.regions))
        {
            notice(Stream::Stderr, l);
        }
        let files = match files {
            Ok(f) => f,
            Err(e) => {
                setup_failed(e, &mut out[i], &progress[i], notice);
                continue;
            }
        };
        if traits.sync && job.queue.iodepth > 1 && !traits.diskless {
            notice(
                Stream::Stdout,
                "note: both iodepth >= 1 and synchronous I/O engine are selected, queue depth will be capped at 1\n",
            );
        }
        if let Err(m) = engine::cmdprio::CmdPrio::from_config(&job.engine_config()) {
            cmdprio_failed(job, &m, &mut out[i], &progress[i], notice);
            continue;
        }
        match engine::create(&job.engine_config()) {
            Ok(eng) => {
                if let Some(b) = engine::banner(&job.engine_config()) {
                    notice(Stream::Stdout, &b);
                }
                // Every job of the segment is in its flow before any starts.
                *progress[i].flow.lock().unwrap_or_else(|p| p.into_inner()) =
                    pacing::flow::Flow::join(
                        job.targets.flow_id,
                        job.targets.flow,
                        job.targets.flow_sleep_us,
                        job.startdelay_us == 0,
                    );
                prepared.push((i, job, traits, eng, files));
            }
            Err(e) => {
                let errno = match engine::init_failure(&e) {
                    Some(f) => {
                        init_failed(job, f, notice);
                        f.errno
                    }
                    None => {
                        let errno = e.raw_os_error().unwrap_or(libc::EINVAL);
                        notice(
                            Stream::Stderr,
                            &format!(
                                "fio: pid=0, err={errno}/file:ioengines.c:1, func=io engine init, error={}\n",
                                strerror(errno)
                            ),
                        );
                        errno
                    }
                };
                let stats = ThreadStats {
                    error: errno,
                    ..ThreadStats::default()
                };
                progress[i]
                    .setup_failed
                    .store(true, std::sync::atomic::Ordering::Relaxed);
                out[i] = Some(JobRun {
                    stats,
                    pid: 0,
                    finished: SystemTime::now(),
                    error_context: None,
                    setup_failed: true,
                });
            }
        }
    }
    prepared
}

/// cmdprio_* the engine refuses at its init: fio's lines, and the job
/// fails with EINVAL there (fio_libaio_init / fio_ioring_init).
fn cmdprio_failed(
    job: &Job,
    lines: &str,
    out: &mut Option<JobRun>,
    progress: &eta::Progress,
    notice: &mut dyn FnMut(Stream, &str),
) {
    notice(Stream::Stderr, lines);
    notice(
        Stream::Stderr,
        &format!("fio: io engine {} init failed.\n", job.engine),
    );
    let at = if job.engine == "libaio" {
        "engines/libaio.c:510, func=fio_libaio_init"
    } else {
        "engines/io_uring.c:1096, func=fio_ioring_init"
    };
    notice(
        Stream::Stdout,
        &format!(
            "fio: pid={}, err=22/file:{at}, error={}\n",
            std::process::id(),
            strerror(libc::EINVAL)
        ),
    );
    progress
        .setup_failed
        .store(true, std::sync::atomic::Ordering::Relaxed);
    *out = Some(JobRun {
        stats: ThreadStats {
            error: libc::EINVAL,
            ..ThreadStats::default()
        },
        pid: std::process::id(),
        finished: SystemTime::now(),
        error_context: None,
        setup_failed: true,
    });
}

// --- h3: engines ---
/// An engine's init failure, in fio's words and streams.
fn init_failed(job: &Job, f: &engine::InitFailure, notice: &mut dyn FnMut(Stream, &str)) {
    if !f.before.is_empty() {
        notice(Stream::Stderr, &f.before);
    }
    notice(
        Stream::Stderr,
        &format!("fio: io engine {} init failed.\n", job.engine),
    );
    let site = f.site.as_ref().map_or(String::new(), |s| {
        let text = s.error.map_or_else(|| strerror(f.errno), str::to_string);
        format!("file:{}, func={}, error={text}", s.at, s.func)
    });
    notice(
        Stream::Stdout,
        &format!("fio: pid={}, err={}/{site}\n", std::process::id(), f.errno),
    );
}

/// A job whose engine refused its files before the layout (sg,
/// io_uring_cmd): fio's lines, and the job fails with the refusal's error.
fn refused(
    r: engine::Refusal,
    out: &mut Option<JobRun>,
    progress: &eta::Progress,
    notice: &mut dyn FnMut(Stream, &str),
) {
    let e = files::layout::SetupError {
        errno: 0,
        message: Some(r.stderr),
        func: String::new(),
        in_job: false,
    };
    setup_failed(e, out, progress, notice);
    if let Some(run) = out.as_mut() {
        run.stats.error = r.errno;
    }
}

/// What a job's thread hands back: its index, its result, its error
/// (with the file's path, and whether its line was logged / is the first
/// of its direction), and the log lines to print.
type Finished = (
    usize,
    JobRun,
    Option<(
        crate::stats::IoError,
        Option<std::path::PathBuf>,
        (bool, bool),
    )>,
    Option<String>,
);

/// One job's thread: wait_for and startdelay, the job itself, then what
/// it leaves (logs, exitall, unlink, its error's context and lines).
fn job_thread(
    i: usize,
    job: &Job,
    traits: engine::Traits,
    eng: Box<dyn engine::Engine>,
    files: &files::layout::JobFiles,
    ((exits, stop_rest), exitall_anywhere): ((&[AtomicBool], &AtomicBool), bool),
    (jobs, all_progress, t0): (&[Job], &[eta::Progress], std::time::Instant),
) -> Finished {
    let progress = &all_progress[i];
    // wait_for: until every job of that name in this segment
    // is done (earlier segments have finished already).
    if let Some(w) = &job.order.wait_for {
        let waits: Vec<&eta::Progress> = jobs
            .iter()
            .zip(all_progress)
            .filter(|(j, _)| &j.name == w)
            .map(|(_, p)| p)
            .collect();
        while !waits.iter().all(|p| {
            let s = p.state.load(std::sync::atomic::Ordering::Relaxed);
            s == b'_' || (s == b'P' && p.setup_failed.load(std::sync::atomic::Ordering::Relaxed))
        }) {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }
    if job.startdelay_us > 0 {
        pacing::pause::sleep(std::time::Duration::from_micros(job.startdelay_us));
    }
    // SAFETY: gettid has no preconditions.
    let pid = unsafe { libc::syscall(libc::SYS_gettid) } as u32;
    progress.started_ms.store(
        t0.elapsed().as_millis() as u64,
        std::sync::atomic::Ordering::Relaxed,
    );
    progress.state.store(
        eta::running_letter(job),
        std::sync::atomic::Ordering::Relaxed,
    );
    let mut env_notice = String::new();
    let (stats, err, logs) = match jobenv::enter(job, files, &mut env_notice) {
        // create_only: the files are laid out, the job is done.
        Ok(_env) if job.opts.flag("create_only") => Default::default(),
        // exec_prerun: a command that fails ends the job before its I/O.
        Ok(_env) if !exec::prerun(job) => Default::default(),
        Ok(_env) => submitters::run(job, traits, eng, files, &exits[i], progress),
        Err(e) => jobenv_failed(e, &mut env_notice),
    };
    let err = err.map(|e| errors::queue_site(e, &job.engine));
    // The final counts, for --bandwidth-log's next sample.
    progress.publish(
        std::array::from_fn(|d| stats.dir[d].io_bytes),
        std::array::from_fn(|d| stats.dir[d].ios),
    );
    progress
        .state
        .store(b'_', std::sync::atomic::Ordering::Relaxed);
    // fio's perror line for each log it cannot write.
    let log_error = logs.and_then(|l| l.write());
    exec::postrun(job);
    let log_error = match (env_notice.is_empty(), log_error) {
        (true, l) => l,
        (false, l) => Some(env_notice + l.as_deref().unwrap_or("")),
    };
    if exitall_anywhere || (job.order.exitall_on_error && stats.error != 0) {
        stop_others(jobs, i, exits, stop_rest);
    }
    if job.files.unlink {
        files::layout::unlink(&files.paths);
    }
    let ctx = err
        .as_ref()
        .filter(|e| errors::has_block(e))
        .map(|e| match &e.site {
            Some(s) => format!(
                "file:{}, func={}, error={}",
                s.at,
                s.func,
                strerror(e.errno)
            ),
            None => format!(
                "file:io_u.c:1876, func=io_u error, error={}",
                strerror(e.errno)
            ),
        })
        .or_else(|| errors::continued(job, &stats));
    // Each failed I/O's `io_u error` line (the job's own
    // error among them), before the rest.
    let (io_lines, logged) =
        errors::dump_lines(&stats.dumped, &files.paths, &job.name, err.as_ref());
    let log_error = io_lines.into_iter().chain(log_error).reduce(|a, b| a + &b);
    let first_io = err
        .as_ref()
        .is_some_and(|e| errors::first_of_its_direction(&stats, e));
    let mut err_paths = err;
    if let Some(e) = err_paths.as_mut() {
        e.file = e.file.min(files.paths.len().saturating_sub(1));
    }
    let path = err_paths
        .as_ref()
        .and_then(|e| files.paths.get(e.file).cloned());
    (
        i,
        JobRun {
            stats,
            pid,
            finished: SystemTime::now(),
            error_context: ctx,
            setup_failed: false,
        },
        err_paths.map(|e| (e, path, (logged, first_io))),
        log_error,
    )
}

/// exitall: what a job's end stops, by its exit_what (fio's
/// fio_terminate_threads): its group's jobs, every job of its stonewall
/// segment, or those and every later job too.
fn stop_others(jobs: &[Job], i: usize, exits: &[AtomicBool], stop_rest: &AtomicBool) {
    use std::sync::atomic::Ordering::Relaxed;
    let me = &jobs[i];
    for (j, e) in jobs.iter().zip(exits) {
        if me.order.exit_what != 0 || j.groupid == me.groupid {
            e.store(true, Relaxed);
        }
    }
    if me.order.exit_what == 2 {
        stop_rest.store(true, Relaxed);
    }
}

fn report_io_error(
    job: &Job,
    pid: u32,
    e: &crate::stats::IoError,
    path: Option<&std::path::Path>,
    logged: bool,
    first_io: bool,
    notice: &mut dyn FnMut(Stream, &str),
) {
    let msg = strerror(e.errno);
    if let Some(site) = &e.site {
        // Not an I/O's error (rate_min, placement): fio's td_verror lines.
        if !site.note.is_empty() {
            notice(Stream::Stderr, &site.note);
        }
        notice(
            Stream::Stdout,
            &format!(
                "fio: pid={pid}, err={}/file:{}, func={}, error={msg}\n",
                e.errno, site.at, site.func
            ),
        );
        return;
    }
    let name = path.map_or_else(|| job.name.clone(), |p| p.display().to_string());
    if !logged {
        notice(
            Stream::Stderr,
            &format!(
                "fio: io_u error on file {name}: {msg}: {} offset={}, buflen={}\n",
                kind_word(e.kind),
                e.offset,
                e.len
            ),
        );
    }
    // fio notes it where the queue call itself failed (sync engines only),
    // and only for the first I/O of its direction.
    if job.direct && e.errno == libc::EINVAL && first_io && engine::traits(&job.engine).sync {
        notice(Stream::Stdout, "fio: first direct IO errored. File system may not support direct IO, or iomem_align= is bad, or invalid block size. Try setting direct=0.\n");
    }
    notice(
        Stream::Stdout,
        &format!(
            "fio: pid={pid}, err={}/file:io_u.c:1876, func=io_u error, error={msg}\n",
            e.errno
        ),
    );
}
