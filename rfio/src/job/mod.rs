//! A job ready to run: typed settings taken from its options, one per clone.

pub mod content;
pub mod cpus;
pub mod distribution;
pub mod errors;
pub mod groups;
pub mod header;
pub mod lockfile;
pub mod rates;
pub mod replay;
pub mod steadystate;
pub mod verify;
pub mod zbd;
pub mod zones;

use crate::cli::{JobDef, Plan};
use crate::failure::Failure;
use crate::job::distribution::Distribution;
use crate::job::groups::{Files, Logs, Order, Queue, Rand, Reporting, Targets, Throttle};
use crate::options::JobOptions;
use rbench_common::units::fio::{parse_size, SizeOrPercent};
use std::path::PathBuf;

/// The I/O pattern of `rw`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pattern {
    pub read: bool,
    pub write: bool,
    pub trim: bool,
    pub random: bool,
}

impl Pattern {
    fn from_word(w: &str) -> Pattern {
        let p = |read, write, trim, random| Pattern {
            read,
            write,
            trim,
            random,
        };
        match w {
            "write" => p(false, true, false, false),
            "trim" => p(false, false, true, false),
            "randread" => p(true, false, false, true),
            "randwrite" => p(false, true, false, true),
            "randtrim" => p(false, false, true, true),
            "rw" | "readwrite" => p(true, true, false, false),
            "randrw" => p(true, true, false, true),
            "trimwrite" => p(false, true, true, false),
            "randtrimwrite" => p(false, true, true, true),
            _ => p(true, false, false, false),
        }
    }

    pub fn mixed(&self) -> bool {
        self.read && self.write
    }
}

#[derive(Debug, Clone)]
pub struct Job {
    pub name: String,
    /// Index among the clones of its definition (file names `name.clone.file`).
    pub clone: usize,
    /// 1-based number over all jobs and clones (log file names).
    pub number: usize,
    pub groupid: u32,
    pub opts: JobOptions,
    pub rw_word: String,
    pub pattern: Pattern,
    /// `rw=randread:8` (random: ios per new offset) or `rw=read:4k` (skip;
    /// `read:-8k` steps back, kept as fio's signed value's u64 bits).
    pub rw_postfix: u64,
    pub rwmixread: u32,
    /// Block size range per direction.
    pub bs: [(u64, u64); 3],
    /// `bssplit` entries per direction: (size, percent).
    pub bssplit: [Vec<(u64, u32)>; 3],
    pub engine: String,
    pub direct: bool,
    pub sync_mode: String,
    pub size: Option<SizeOrPercent>,
    pub io_size: Option<SizeOrPercent>,
    pub offset: SizeOrPercent,
    pub offset_increment: SizeOrPercent,
    pub filenames: Vec<PathBuf>,
    pub runtime_us: u64,
    pub time_based: bool,
    pub ramp_us: u64,
    pub startdelay_us: u64,
    pub loops: u64,
    pub number_ios: u64,
    pub thread: bool,
    /// `submitters=N` (rbench extension): threads sharing the job's depth.
    pub submitters: usize,
    pub cpus_allowed: Option<Vec<usize>>,
    pub nice: i32,
    /// zonemode=strided (None: no zones).
    pub zones: Option<zones::Strided>,
    pub fsync: u64,
    pub fdatasync: u64,
    pub end_fsync: bool,
    /// `--plot=DIR` was given: keep a trace of the run for the charts.
    pub plot: bool,
    pub steadystate: Option<crate::job::steadystate::SteadyState>,
    /// I/O priority class (prioclass), when set.
    pub prioclass: Option<u32>,
    /// continue_on_error, ignore_error, error_dump.
    pub errors: crate::job::errors::ErrorPolicy,
    pub fsync_on_close: bool,
    /// I/O priority level (best-effort class), when set.
    pub prio: Option<u32>,
    pub kb_base: u64,
    pub description: Option<String>,
    pub hipri: bool,
    pub fixedbufs: bool,
    pub registerfiles: bool,
    pub sqthread_poll: bool,
    pub readonly: bool,
    /// verify= and its options (None: verify off).
    pub verify: Option<crate::job::verify::Spec>,
    /// Buffer contents (zero/refill/scramble/compress/dedupe/pattern).
    pub content: content::Content,
    // --- h1: I/O logs, replay, exec_prerun/postrun, numa, fill_device, exit_what ---
    /// write_iolog: the file the job's I/O pattern is appended to.
    pub write_iolog: Option<String>,
    /// read_iolog and the replay_* options (None: no replay).
    pub replay: Option<replay::Replay>,
    /// exec_prerun / exec_postrun: shell commands run around the job.
    pub exec_prerun: Option<String>,
    pub exec_postrun: Option<String>,
    /// numa_cpu_nodes / numa_mem_policy as given (run/numa.rs).
    pub numa_cpu_nodes: Option<String>,
    pub numa_mem_policy: Option<String>,
    /// fill_device: write until ENOSPC, which then is no error.
    pub fill_device: bool,
    // --- h2: flow, serialize_overlap, latency targets, cmdprio ---
    /// serialize_overlap, as fio keeps it (off where it cannot matter).
    pub serialize_overlap: bool,
    /// io_submit_mode=offload.
    pub offload: bool,
    // --- h2: zonemode=zbd, lockfile ---
    /// zonemode=zbd (None: no emulated write pointers; run/offsets/zbd.rs).
    pub zbd: Option<zbd::Settings>,
    /// lockfile: how the job's I/Os lock each file (run/filelock.rs).
    pub lockfile: lockfile::Mode,
    pub queue: Queue,
    pub reporting: Reporting,
    pub throttle: Throttle,
    pub logs: Logs,
    pub files: Files,
    pub order: Order,
    pub rand: Rand,
    pub targets: Targets,
}

/// C's atoi as glibc's: blanks, a sign, digits up to the first other
/// character (strtol's clamp, then the int's low 32 bits).
fn c_atoi(s: &str) -> i32 {
    let s = s.trim_start();
    let (neg, digits) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let mut v: i64 = 0;
    for c in digits.bytes().take_while(u8::is_ascii_digit) {
        v = v.saturating_mul(10).saturating_add(i64::from(c - b'0'));
    }
    (if neg { v.saturating_neg() } else { v }) as i32
}

impl Job {
    /// What the job's engine sees of it.
    pub fn engine_config(&self) -> crate::engine::Config<'_> {
        crate::engine::Config {
            name: &self.name,
            clone: self.clone,
            engine: &self.engine,
            iodepth: self.queue.iodepth,
            reads: self.pattern.read,
            writes: self.pattern.write,
            random: self.pattern.random,
            size: self.size,
            offset: self.offset,
            filesize: self.files.filesize,
            filenames: &self.filenames,
            runtime_us: self.runtime_us,
            thinktime_us: self.throttle.thinktime_us,
            kb_base: self.kb_base,
            prioclass: self.prioclass,
            prio: self.prio,
            unlink_each_loop: self.files.unlink_each_loop,
            hipri: self.hipri,
            fixedbufs: self.fixedbufs,
            registerfiles: self.registerfiles,
            sqthread_poll: self.sqthread_poll,
            opts: &self.opts,
        }
    }

    /// The smallest block of direction `d` (bs, bsrange or bssplit): fio's
    /// `min_bs[d]`, the grain of its offsets and of rate_iops.
    pub fn min_bs(&self, d: usize) -> u64 {
        self.bssplit[d]
            .iter()
            .map(|e| e.0)
            .min()
            .unwrap_or(self.bs[d].0)
    }

    /// The smallest block of the directions the job does (4096 when none):
    /// the grain of its offsets.
    pub fn grain(&self) -> u64 {
        let p = self.pattern;
        let dirs = [p.read, p.write, p.trim];
        (0..3)
            .filter(|&d| dirs[d])
            .map(|d| self.min_bs(d))
            .min()
            .unwrap_or(4096)
    }

    /// The largest block any direction can use (bs, bsrange or bssplit).
    pub fn max_bs(&self) -> u64 {
        (0..3)
            .map(|d| {
                self.bssplit[d]
                    .iter()
                    .map(|e| e.0)
                    .max()
                    .unwrap_or(self.bs[d].1)
            })
            .max()
            .unwrap_or(4096)
    }
}

/// `bssplit=4k/10:64k/50:32k` per direction (`,`-separated); blank shares
/// take an equal part of the remainder (§3).
fn parse_bssplit(s: &str, kb_base: u64) -> Result<[Vec<(u64, u32)>; 3], String> {
    let mut out: [Vec<(u64, u32)>; 3] = Default::default();
    let parts: Vec<&str> = s.split(',').collect();
    for (d, part) in parts.iter().enumerate().take(3) {
        let mut entries = Vec::new();
        let mut blanks = 0;
        let mut sum = 0u32;
        for e in part.split(':').filter(|e| !e.is_empty()) {
            let (b, p) = match e.split_once('/') {
                Some((b, p)) => (b, Some(p)),
                None => (e, None),
            };
            let b = parse_size(b, kb_base).map_err(|x| x.to_string())?;
            let p = match p.filter(|p| !p.is_empty()) {
                Some(p) => {
                    let v: u32 = p.parse().map_err(|_| format!("bad percentage '{p}'"))?;
                    sum = sum.saturating_add(v);
                    v
                }
                None => {
                    blanks += 1;
                    0
                }
            };
            entries.push((b, p));
        }
        if sum > 100 {
            return Err("bssplit percentages add up to more than 100".into());
        }
        if entries.len() > 64 {
            return Err("bssplit takes at most 64 entries".into());
        }
        if let Some(share) = (100 - sum).checked_div(blanks) {
            for e in entries.iter_mut().filter(|e| e.1 == 0) {
                e.1 = share;
            }
        }
        out[d] = entries;
    }
    if parts.len() < 3 {
        let last = out[parts.len().min(3) - 1].clone();
        for slot in out.iter_mut().skip(parts.len()) {
            *slot = last.clone();
        }
    }
    Ok(out)
}

fn build(
    def: &JobDef,
    number: usize,
    clone: usize,
    groupid: u32,
    readonly: bool,
) -> Result<Job, Failure> {
    let o = &def.opts;
    let kb_base = o.kb_base();
    let (rw_word, postfix) = o.choice("rw");
    let pattern = Pattern::from_word(&rw_word);
    let rw_postfix = rw_postfix(postfix, &rw_word, &pattern, kb_base)?;
    let (bs, bssplit) = block_sizes(o, kb_base)?;
    let cpus_allowed = cpus_allowed(o, number)?;
    let steadystate = steadystate(o, kb_base)?;
    let errors = error_policy(o)?;
    let rand = Rand::from_options(o)?;
    check_file_service(o)?;
    if let Some(s) = o.text("replay_skip") {
        replay::check_skip(&s).map_err(Failure::stderr)?;
    }
    let job = Job {
        name: def.name.clone(),
        clone,
        number,
        groupid,
        opts: def.opts.clone(),
        rw_word,
        pattern,
        rw_postfix,
        rwmixread: o.int("rwmixread") as u32,
        bs,
        bssplit,
        engine: o.engine().unwrap_or("psync").to_string(),
        direct: o.flag("direct"),
        sync_mode: sync_mode(o),
        // fill_device without size= runs until the device is full.
        size: region(o, "size").or_else(|| {
            o.flag("fill_device")
                .then_some(SizeOrPercent::Bytes(u64::MAX))
        }),
        io_size: region(o, "io_size"),
        offset: region(o, "offset").unwrap_or(SizeOrPercent::Bytes(0)),
        offset_increment: region(o, "offset_increment").unwrap_or(SizeOrPercent::Bytes(0)),
        filenames: filenames(def, clone),
        runtime_us: o.time_us("runtime"),
        time_based: o.flag("time_based"),
        ramp_us: o.time_us("ramp_time"),
        startdelay_us: o.time_us("startdelay"),
        loops: o.int("loops").max(1) as u64,
        number_ios: o.int("number_ios") as u64,
        thread: o.flag("thread"),
        submitters: o.int("submitters").max(1) as usize,
        cpus_allowed,
        nice: o.int("nice") as i32,
        zones: zones::from_options(o).map_err(Failure::stderr)?,
        fsync: o.int("fsync") as u64,
        fdatasync: o.int("fdatasync") as u64,
        end_fsync: o.flag("end_fsync"),
        plot: false,
        steadystate,
        prioclass: o.is_set("prioclass").then(|| o.int("prioclass") as u32),
        errors,
        fsync_on_close: o.flag("fsync_on_close"),
        prio: o.is_set("prio").then(|| o.int("prio") as u32),
        kb_base,
        description: o.text("description"),
        hipri: o.flag("hipri"),
        fixedbufs: o.flag("fixedbufs"),
        registerfiles: o.flag("registerfiles"),
        sqthread_poll: o.flag("sqthread_poll"),
        readonly,
        verify: None,
        content: Default::default(),
        // fio: a read iolog overrides write_iolog (app.rs says so).
        write_iolog: o.text("write_iolog").filter(|_| !o.is_set("read_iolog")),
        replay: replay::Replay::from_options(o, clone),
        exec_prerun: o.text("exec_prerun"),
        exec_postrun: o.text("exec_postrun"),
        numa_cpu_nodes: o.text("numa_cpu_nodes"),
        numa_mem_policy: o.text("numa_mem_policy"),
        fill_device: o.flag("fill_device"),
        serialize_overlap: o.flag("serialize_overlap"),
        offload: o.choice("io_submit_mode").0 == "offload",
        queue: Queue::from_options(o),
        reporting: Reporting::from_options(o),
        throttle: Throttle::from_options(o),
        logs: Logs::from_options(o)?,
        files: Files::from_options(o),
        order: Order::from_options(o, def.stonewall),
        rand,
        targets: Targets::from_options(o),
        // --- h2: zonemode=zbd, lockfile ---
        zbd: zones::zbd(o).map_err(Failure::stderr)?,
        lockfile: lockfile::Mode::from_options(o),
    };
    settle(job, o)
}

/// `bs`/`bsrange` per direction and `bssplit`'s entries.
fn block_sizes(o: &JobOptions, kb_base: u64) -> Result<BlockSizes, Failure> {
    let bs = match o.ranges("bsrange") {
        Some(r) => r,
        None => o.per_dir("bs").unwrap_or([4096; 3]).map(|b| (b, b)),
    };
    let bssplit = match o.text("bssplit") {
        Some(s) => parse_bssplit(&s, kb_base).map_err(|e| {
            Failure::stderr(format!("bssplit: {e}\nfio: failed parsing bssplit={s}\n"))
        })?,
        None => Default::default(),
    };
    Ok((bs, bssplit))
}

type BlockSizes = ([(u64, u64); 3], [Vec<(u64, u32)>; 3]);

/// `sync=`: fio's words, its old 1/0 read as sync/none.
fn sync_mode(o: &JobOptions) -> String {
    match o.choice("sync").0.as_str() {
        "1" => "sync".to_string(),
        "0" | "" => "none".to_string(),
        s => s.to_string(),
    }
}

/// A size or offset option, `Nz` counted in zones of zonesize
/// (run/offsets/zones.rs).
fn region(o: &JobOptions, name: &'static str) -> Option<SizeOrPercent> {
    zones::in_zones(o, name).unwrap_or_else(|| o.size(name))
}

/// What follows from a job's options once they are all read: blockalign
/// dropped where it changes nothing, rate checks, the verify spec, buffer
/// contents.
fn settle(mut job: Job, o: &JobOptions) -> Result<Job, Failure> {
    if let Some(us) = engine_thinktime(o) {
        job.throttle.thinktime_us = us;
        job.throttle.thinktime_spin_us = 0;
        job.throttle.thinktime_blocks = 1;
        job.throttle.thinktime_on_issue = false;
    }
    // fio keeps the random map where blockalign is every direction's block.
    if job
        .rand
        .blockalign
        .is_some_and(|ba| (0..3).all(|d| job.min_bs(d) == ba))
    {
        job.rand.blockalign = None;
    }
    // pre_read fills the cache on purpose: fio drops no cache then.
    if o.flag("pre_read") {
        job.files.invalidate = false;
    }
    rates::validate(&job).map_err(Failure::stderr)?;
    job.verify = crate::job::verify::Spec::from_job(&job).map_err(Failure::stderr)?;
    let min_write = job.bssplit[1]
        .iter()
        .map(|e| e.0)
        .min()
        .unwrap_or(job.bs[1].0)
        .min(job.bs[1].0);
    job.content =
        content::Content::from_options(o, job.pattern.read, job.verify.is_some(), min_write)
            .map_err(Failure::stderr)?;
    Ok(job)
}

/// rw='s postfix (`randread:8`, `read:4k`): I/Os per random offset, or
/// the sequential hole between I/Os.
fn rw_postfix(
    postfix: Option<String>,
    rw_word: &str,
    pattern: &Pattern,
    kb_base: u64,
) -> Result<u64, Failure> {
    let v = match postfix {
        // A random job's postfix is fio's atoi: I/Os per random offset
        // (`4k` is 4, a word 0: never a random one, -3 wraps).
        Some(p) if pattern.random => u64::from(c_atoi(&p) as u32),
        // fio reads the postfix as a signed 64-bit size: `-8k` steps
        // back (kept as the two's complement, as fio adds it).
        Some(p) if p.starts_with('-') && parse_size(&p[1..], kb_base).is_ok() => {
            let back = parse_size(&p[1..], kb_base).unwrap_or(0);
            if back > i64::MAX as u64 {
                return Err(Failure::stderr(format!(
                    "fio: rw postfix parsing failed\nfio: failed parsing rw={rw_word}:{p}\n"
                )));
            }
            back.wrapping_neg()
        }
        Some(p) if parse_size(&p, kb_base).is_ok_and(|v| v > i64::MAX as u64) => {
            return Err(Failure::stderr(format!(
                "fio: rw postfix parsing failed\nfio: failed parsing rw={rw_word}:{p}\n"
            )))
        }
        Some(p) => parse_size(&p, kb_base).map_err(|e| {
            Failure::stderr(format!("rw: {e}\nfio: failed parsing rw={rw_word}:{p}\n"))
        })?,
        None => {
            if pattern.random {
                1
            } else {
                0
            }
        }
    };
    Ok(v)
}

/// filename= (split at its colons), or the names filename_format makes
/// in directory= (one directory per clone, round robin).
/// opendir=DIR: every regular file under DIR, in readdir order, depth
/// first (fio's add_dir_files); fio's parse error for a directory it
/// cannot read.
pub fn opendir_files(dir: &str) -> Result<Vec<PathBuf>, Failure> {
    fn walk(dir: &std::path::Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
        let entries = std::fs::read_dir(dir).map_err(|e| {
            format!(
                "fio: file:filesetup.c:1977, func=opendir({}), error={}\n",
                dir.display(),
                rbench_common::output::strerror(e.raw_os_error().unwrap_or(libc::EIO))
            )
        })?;
        for e in entries.flatten() {
            let p = dir.join(e.file_name());
            match std::fs::symlink_metadata(&p) {
                Ok(m) if m.is_file() => out.push(p),
                Ok(m) if m.is_dir() => walk(&p, out)?,
                _ => {}
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(std::path::Path::new(dir), &mut out).map_err(|m| Failure {
        stdout: m,
        stderr: format!("fio: failed parsing opendir={dir}\n"),
        code: 1,
    })?;
    Ok(out)
}

fn filenames(def: &JobDef, clone: usize) -> Vec<PathBuf> {
    let mut names = named_files(def, clone);
    if let Some(dir) = def.opts.text("opendir") {
        // Checked (and its failure reported) when the job was read.
        let found = opendir_files(&dir).unwrap_or_default();
        if def.opts.text("filename").is_none() {
            names = found;
        } else {
            names.extend(found);
        }
    }
    names
}

fn named_files(def: &JobDef, clone: usize) -> Vec<PathBuf> {
    let o = &def.opts;
    let nrfiles = o.int("nrfiles").max(1) as usize;
    match o.text("filename") {
        Some(f) => split_filenames(&f).into_iter().map(PathBuf::from).collect(),
        None => {
            let dirs: Vec<String> = o
                .text("directory")
                .map(|d| d.split(':').map(str::to_string).collect())
                .unwrap_or_default();
            let format = o
                .text("filename_format")
                .unwrap_or_else(|| "$jobname.$jobnum.$filenum".to_string());
            (0..nrfiles)
                .map(|f| {
                    let name = format
                        .replace("$jobname", &def.name)
                        .replace("$jobnum", &clone.to_string())
                        .replace("$filenum", &f.to_string());
                    match dirs.get(clone % dirs.len().max(1)) {
                        Some(d) => PathBuf::from(d).join(name),
                        None => PathBuf::from(name),
                    }
                })
                .collect()
        }
    }
}

/// cpus_allowed= or cpumask= (cpus_allowed_policy=split: this job's one).
fn cpus_allowed(o: &JobOptions, number: usize) -> Result<Option<Vec<usize>>, Failure> {
    let cpus_allowed = match o.text("cpus_allowed") {
        None => None,
        Some(list) => {
            let cpus = rbench_common::cpu::parse_cpu_list(&list).map_err(|e| {
                Failure::stderr(format!(
                    "cpus_allowed: {e}\nfio: failed parsing cpus_allowed={list}\n"
                ))
            })?;
            let online = std::thread::available_parallelism().map_or(1, |n| n.get());
            if let Some(&c) = cpus.iter().find(|&&c| c >= online) {
                return Err(Failure::stderr(format!(
                    "fio: CPU {c} too large (max={})\nfio: failed parsing cpus_allowed={list}\n",
                    online - 1
                )));
            }
            Some(cpus)
        }
    };
    let cpus_allowed = if o.is_set("cpumask") {
        let online = std::thread::available_parallelism().map_or(1, |n| n.get());
        let cpus = cpus::cpumask_cpus(o.int("cpumask") as u64, online).map_err(|e| {
            let raw = o
                .typed
                .iter()
                .find(|(k, _)| *k == "cpumask")
                .map_or("", |t| &t.1);
            Failure::stderr(format!("{e}\nfio: failed parsing cpumask={raw}\n"))
        })?;
        Some(cpus)
    } else {
        cpus_allowed
    };
    Ok(match cpus_allowed {
        Some(c) if o.choice("cpus_allowed_policy").0 == "split" => Some(cpus::split(&c, number)),
        c => c,
    })
}

/// steadystate= with its duration and ramp (None when off).
fn steadystate(
    o: &JobOptions,
    kb_base: u64,
) -> Result<Option<crate::job::steadystate::SteadyState>, Failure> {
    let (ss_word, ss_post) = o.choice("steadystate");
    let steadystate =
        crate::job::steadystate::Criterion::parse(&ss_word, ss_post.as_deref(), kb_base).map_err(
            |e| {
                let raw = o
                    .typed
                    .iter()
                    .find(|(k, _)| *k == "steadystate")
                    .map_or("", |t| &t.1);
                Failure::stderr(format!("{e}\nfio: failed parsing ss={raw}\n"))
            },
        )?;
    Ok(crate::job::steadystate::SteadyState::new(
        steadystate,
        o.time_us("steadystate_duration"),
        o.time_us("steadystate_ramp_time"),
    ))
}

/// continue_on_error=, ignore_error=, error_dump=.
fn error_policy(o: &JobOptions) -> Result<crate::job::errors::ErrorPolicy, Failure> {
    let ignore = match o.text("ignore_error") {
        Some(s) => crate::job::errors::parse_ignore(&s)
            .map_err(|e| Failure::stderr(format!("{e}\nfio: failed parsing ignore_error={s}\n")))?,
        None => Default::default(),
    };
    let cont = o
        .is_set("continue_on_error")
        .then(|| o.choice("continue_on_error").0);
    Ok(crate::job::errors::ErrorPolicy::new(
        cont.as_deref(),
        ignore,
        o.flag("error_dump"),
    ))
}

/// random_distribution= (fio's valid values when given a per-direction list).
fn random_distribution(o: &JobOptions) -> Result<Distribution, Failure> {
    let (dist_word, dist_post) = o.choice("random_distribution");
    let dist_raw = match &dist_post {
        Some(p) => format!("{dist_word}:{p}"),
        None => dist_word.clone(),
    };
    if dist_post.as_deref().is_some_and(|p| p.contains(',')) {
        // fio takes no per-direction list here: its valid values instead.
        let mut f = Failure::stderr(format!(
            "fio: failed parsing random_distribution={dist_raw}\n"
        ));
        if let Some(opt) = crate::options::find("random_distribution") {
            f.stdout = crate::options::help::valid_values(opt) + "\n";
        }
        return Err(f);
    }
    Distribution::parse(&dist_word, dist_post.as_deref()).map_err(|e| {
        // fio's own lines (zoned, zoned_abs) go out as they are.
        let e = if e.starts_with("fio: ") {
            e
        } else {
            format!("random_distribution: {e}")
        };
        Failure::stderr(format!(
            "{e}\nfio: failed parsing random_distribution={dist_raw}\n"
        ))
    })
}

/// file_service_type='s postfix, checked as fio checks a distribution's.
fn check_file_service(o: &JobOptions) -> Result<(), Failure> {
    let (fst_word, fst_post) = o.choice("file_service_type");
    if let Some(post) = fst_post.as_deref() {
        // fio's checks of a distribution's value (a count after random,
        // roundrobin or sequential is not checked).
        let v = crate::job::distribution::split_distr(post).ok_or(());
        let why = match (fst_word.as_str(), v) {
            ("zipf" | "pareto" | "normal" | "gauss", Err(_)) => {
                Some("file service type random postfix parsing failed")
            }
            ("zipf" | "pareto" | "normal" | "gauss", Ok((_, Some(c))))
                if !(0.0..=1.0).contains(&c) =>
            {
                Some("distribution center out of range (0 <= center <= 1.0)")
            }
            ("zipf", Ok((1.0, _))) => Some("zipf theta must be different than 1.0"),
            ("pareto", Ok((h, _))) if !(h > 0.0 && h < 1.0) => {
                Some("pareto input out of range (0 < input < 1.0)")
            }
            ("normal" | "gauss", Ok((d, _))) if !(0.0..100.0).contains(&d) => {
                Some("normal deviation out of range (0 <= input < 100.0)")
            }
            _ => None,
        };
        if let Some(why) = why {
            return Err(Failure::stderr(format!(
                "fio: {why}\nfio: failed parsing file_service_type={fst_word}:{post}\n"
            )));
        }
    }
    Ok(())
}

/// `a:b\:c` → [`a`, `b:c`].
fn split_filenames(s: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&':') => {
                if let Some(l) = out.last_mut() {
                    l.push(':');
                }
                chars.next();
            }
            ':' => out.push(String::new()),
            c => {
                if let Some(l) = out.last_mut() {
                    l.push(c);
                }
            }
        }
    }
    out.retain(|s| !s.is_empty());
    out
}

/// fio 3.33 runs at most 4088 jobs (its shared memory segment holds no
/// more; measured: 4088 run, 4089 fail with these two lines).
const MAX_JOBS: usize = 4088;

/// More files than this in all (`nrfiles` x clones) and fio runs out of its
/// smalloc pool and aborts; rfio refuses them before building any.
const MAX_FILES: usize = 1 << 20;

/// Count the clones and files of one definition into `counts` (jobs, files
/// so far) and refuse them past fio's limits, or a definition without
/// files, before any is built.
fn check_job_count(
    counts: &mut (usize, usize),
    o: &JobOptions,
    numjobs: usize,
) -> Result<(), Failure> {
    counts.0 = counts.0.saturating_add(numjobs);
    if counts.0 > MAX_JOBS {
        return Err(Failure::stderr(
            "error: maximum number of jobs reached.\nerror: failed to setup shm segment\n",
        ));
    }
    if o.int("nrfiles") == 0 {
        // fio 3.33 takes it and runs a job without files (no I/O, exit
        // 0): refused here (README).
        return Err(Failure::stderr(
            "fio: nrfiles=0: a job needs at least one file\n",
        ));
    }
    if o.text("filename").is_none() {
        let nrfiles = o.int("nrfiles").max(1) as usize;
        counts.1 = counts.1.saturating_add(numjobs.saturating_mul(nrfiles));
        if counts.1 > MAX_FILES {
            return Err(Failure::stderr(format!(
                "fio: nrfiles={nrfiles}: too many files ({} in all, at most {MAX_FILES})\n",
                counts.1
            )));
        }
    }
    Ok(())
}

/// Expand definitions into jobs (clones included) and number the groups:
/// a job with `stonewall` or `new_group` opens a new group when the current
/// one already has jobs (§4).
/// bwavgtime/iopsavgtime in ms: log_avg_msec when that log is written
/// with averaging and the period was not set explicitly.
fn avg_time(o: &JobOptions, period: &'static str, log: &'static str) -> u64 {
    let log_avg = o.int("log_avg_msec");
    let v = if o.text(log).is_some() && log_avg > 0 && !o.is_set(period) {
        log_avg
    } else {
        o.int(period)
    };
    v.max(1) as u64
}

pub fn expand(plan: &Plan) -> Result<Vec<Job>, Failure> {
    let mut jobs: Vec<Job> = Vec::new();
    let mut counts = (0usize, 0usize);
    let mut group = 0u32;
    // Generated file names of jobs with clones: a later clone whose
    // generated name is taken (filename_format without $jobnum) gets no
    // such file, as fio's add_file skips it; with none left it does no I/O.
    let mut allocated: std::collections::HashSet<PathBuf> = Default::default();
    for def in &plan.jobs {
        let o = &def.opts;
        let numjobs = o.int("numjobs").max(0) as usize;
        let opens = o.flag("stonewall") || o.flag("new_group") || def.stonewall;
        if opens && !jobs.is_empty() && jobs.last().is_some_and(|j| j.groupid == group) {
            group += 1;
        }
        if let Some(w) = o.text("wait_for") {
            if !jobs.iter().any(|j| j.name == w) {
                return Err(Failure::stderr(format!(
                    "{}: waitee job {w} unknown.\n",
                    def.name
                )));
            }
        }
        check_job_count(&mut counts, o, numjobs)?;
        // fio creates the clones counting down (the job, then clone n-1,
        // ..., clone 1): its job order, numbers, log names and seeds follow.
        let order = (0..numjobs.min(1)).chain((1..numjobs).rev());
        for c in order {
            let mut j = build(def, jobs.len() + 1, c, group, plan.program.readonly)?;
            j.plot = plan.program.plot.is_some();
            j.logs.agg_bw_log = plan.program.bandwidth_log;
            if c > 0 {
                j.order.stonewall = false;
                j.order.new_group = false;
            }
            if o.text("filename").is_none() && numjobs > 1 {
                if c > 0 {
                    j.filenames.retain(|f| {
                        let special = std::fs::metadata(f).is_ok_and(|m| !m.is_file());
                        special || !allocated.contains(f)
                    });
                }
                allocated.extend(j.filenames.iter().cloned());
            }
            jobs.push(j);
            crate::job::steadystate::check_added(&jobs, plan.program.normal)?;
        }
    }
    content::count_jobs(&mut jobs);
    Ok(jobs)
}

/// The first job of `rfio --name=t ARGS`, for unit tests of the modules
/// that take a [`Job`].
#[cfg(test)]
pub(crate) fn test_job(args: &[&str]) -> Job {
    let argv: Vec<String> = ["rfio", "--name=t"]
        .iter()
        .chain(args)
        .map(|s| s.to_string())
        .collect();
    let plan = crate::cli::parse(&argv).expect("command line");
    expand(&plan).expect("job").remove(0)
}

// --- h3: engines ---
/// The thinktime an engine imposes on its job, as fio's engines set it in
/// their init: cpuio idles `cpuchunks * (100 - cpuload) / cpuload` us after
/// each burn; exec checks on its program every 50 ms.
fn engine_thinktime(o: &JobOptions) -> Option<u64> {
    match o.engine()? {
        "cpuio" => {
            let load = o.int("cpuload").clamp(0, 100) as u64;
            let cycle = o.int("cpuchunks").max(0) as u64;
            (load > 0).then(|| cycle * (100 - load) / load)
        }
        "exec" => Some(50_000),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bssplit_shares() {
        let s = parse_bssplit("4k/10:64k/50:32k", 1024).unwrap();
        assert_eq!(s[0], vec![(4096, 10), (65536, 50), (32768, 40)]);
        assert_eq!(s[2], s[0]);
        assert!(parse_bssplit("4k/60:8k/60", 1024).is_err());
    }

    #[test]
    fn filename_lists() {
        assert_eq!(split_filenames("a:b\\:c"), vec!["a", "b:c"]);
    }
}
