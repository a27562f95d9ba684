//! Files of a job: names, sizes, layout ("Laying out IO file") and opening,
//! the way fio does it so the same job touches the same bytes.

use crate::job::Job;
use crate::run::offsets::picker::Rng;
use crate::run::Stream;
use rbench_common::units::fio::SizeOrPercent;
use std::ffi::CString;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::fd::{IntoRawFd, RawFd};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

/// A setup failure, reported as fio reports it.
#[derive(Debug, Clone)]
pub struct SetupError {
    pub errno: i32,
    /// Printed to stderr before the `fio: pid=...` line.
    pub message: Option<String>,
    pub func: String,
    /// fio prints the `pid=` line of errors met inside the job on stdout.
    pub in_job: bool,
}

impl SetupError {
    fn os(func: String, e: &std::io::Error) -> Self {
        SetupError {
            errno: e.raw_os_error().unwrap_or(libc::EIO),
            message: None,
            func,
            in_job: true,
        }
    }
}

/// The open files of one job.
#[derive(Debug, Default)]
pub struct JobFiles {
    pub fds: Vec<RawFd>,
    /// Mapped length per file (for mmap).
    pub sizes: Vec<u64>,
    /// (fd, start, length) of each file's I/O region.
    pub regions: Vec<(RawFd, u64, u64)>,
    /// Bytes to transfer per pass of the job.
    pub io_size: u64,
    /// io_size exceeds the regions: revisit them until it is done (§3);
    /// otherwise a pass ends where the regions end.
    pub wrap: bool,
    pub paths: Vec<std::path::PathBuf>,
    /// zonemode=zbd: each file's zones (run/offsets/zbd.rs).
    pub zbd: Vec<std::sync::Arc<crate::run::offsets::zbd::Table>>,
}

impl Drop for JobFiles {
    fn drop(&mut self) {
        for &fd in &self.fds {
            // SAFETY: closing descriptors this struct owns.
            unsafe { libc::close(fd) };
        }
    }
}

fn existing_size(p: &Path) -> Option<(u64, bool)> {
    let m = std::fs::metadata(p).ok()?;
    if m.file_type().is_block_device() {
        let f = File::open(p).ok()?;
        let mut size: u64 = 0;
        // SAFETY: BLKGETSIZE64 writes a u64.
        let r = unsafe {
            libc::ioctl(
                std::os::fd::AsRawFd::as_raw_fd(&f),
                0x8008_1272, // BLKGETSIZE64
                &mut size,
            )
        };
        return (r == 0).then_some((size, true));
    }
    Some((m.len(), false))
}

fn pct_of(v: SizeOrPercent, whole: u64) -> u64 {
    match v {
        SizeOrPercent::Bytes(b) => b,
        SizeOrPercent::Percent(p) => whole / 100 * p + whole % 100 * p / 100,
    }
}

/// Bytes per pass: `io_size` (0 means unset, as in fio), else the size.
fn io_size(job: &Job, size: u64) -> u64 {
    match job.io_size.map(|s| pct_of(s, size)) {
        Some(n) if n > 0 => n,
        _ => size,
    }
}

/// io_size given (not 0): fio's keep_running starts another round when
/// every file ended early (a random offset past the end, a distribution's
/// last range) while a whole block of io_size is left; without it the job
/// ends with its files.
fn explicit_io_size(job: &Job, size: u64) -> bool {
    job.io_size.is_some_and(|s| pct_of(s, size) > 0)
}

/// A job's files once sized and laid out, not opened yet ([`open_files`]).
#[derive(Debug, Default)]
pub struct Planned {
    files: JobFiles,
    /// Per file, as it was before this job's layout: its size and whether
    /// it is a block device (None: it did not exist).
    existing: Vec<Option<(u64, bool)>>,
    diskless: bool,
}

/// Work out sizes and lay out missing or short files (fio's setup_files).
/// fio does this for every job of the run, in job order, before any job
/// starts (create_serialize, on by default): a job that needs a shared
/// file longer lays it out again before the jobs before it have written
/// anything, so none of their data is lost, with or without stonewall.
/// The files are opened as the job starts ([`open_files`]).
/// `notices` receives the lines fio prints while doing so, with their stream.
pub fn plan(
    job: &Job,
    diskless: bool,
    notices: &mut Vec<(Stream, String)>,
) -> Result<Planned, SetupError> {
    if crate::engine::noio(&job.engine) && job.size.is_none() && job.files.filesize.is_none() {
        return Ok(plan_noio(job));
    }
    if job.filenames.is_empty() {
        // A clone whose generated names its siblings took (job::expand):
        // no file, no I/O; without size= fio still asks for one.
        if job.size.is_none() && !diskless {
            return Err(need_size(job));
        }
        return Ok(Planned::default());
    }
    let nfiles = job.filenames.len().max(1);
    let existing: Vec<Option<(u64, bool)>> =
        job.filenames.iter().map(|p| existing_size(p)).collect();
    if !diskless {
        // fio stats each file first: any failure but ENOENT ends the job
        // (EACCES, ENOTDIR...), reported from get_file_sizes.
        crate::run::errors::stat_files(&job.filenames)?;
    }
    // zonemode=zbd: the zones of the files as they are now.
    let zbd = crate::run::offsets::zbd::init_files(job, &existing).map_err(zbd_failed)?;
    let min_bs = job.bs.iter().map(|b| b.0).min().unwrap_or(4096).max(1);
    // Without size=, the job's size is the sum of filesize='s sizes.
    let file_sizes = file_sizes(job, diskless, &existing, min_bs);
    let total = total_size(job, diskless, &existing, &file_sizes)?;
    if total < min_bs {
        // fio's setup_files check: the job fails without an error code.
        return Err(crate::run::errors::quiet_setup_failure(
            "fio: blocksize is larger than data set range\n".into(),
        ));
    }
    let per_file = |i: usize| {
        file_sizes
            .as_ref()
            .map_or(total / nfiles as u64, |v| v.get(i).copied().unwrap_or(0))
    };
    if diskless {
        return Ok(plan_diskless(job, existing, (min_bs, total), per_file));
    }
    let mut files = JobFiles::default();
    let mut io_total = 0;
    refuse_mounted(job, &existing)?;
    make_dirs(job, &existing)?;
    // Lay out what is missing or too short (§3 Files).
    let mut to_layout = Vec::new();
    for (i, p) in job.filenames.iter().enumerate() {
        let sized = file_sizes.is_some();
        let (r, lay) = region(job, i, p, &existing, per_file(i), sized, min_bs, notices)?;
        if lay {
            to_layout.push((i, p.clone(), r.need));
        }
        io_total += r.len;
        files.regions.push((-1, r.offset, r.len));
        files.sizes.push(r.size);
    }
    if job.size.is_none() && file_sizes.is_none() && io_total < min_bs {
        return Err(crate::run::errors::quiet_setup_failure(
            "fio: blocksize is larger than data set range\n".into(),
        ));
    }
    lay_out(job, &to_layout, &existing, notices)?;
    if job.zbd.is_some() {
        let mut info = Vec::new();
        let r = crate::run::offsets::zbd::setup_files(
            job,
            &zbd,
            &existing,
            &mut files.regions,
            &mut info,
        );
        notices.extend(info.into_iter().map(|l| (Stream::Stdout, l)));
        r.map_err(crate::run::errors::quiet_setup_failure)?;
        io_total = files.regions.iter().map(|r| r.2).sum();
        files.zbd = zbd;
    }
    if job.fill_device && !job.pattern.write {
        io_total = fill_device_regions(job, &mut files);
    }
    files.paths = job.filenames.clone();
    // size= caps what filesize= lays out (fio moves `size` bytes).
    if job.size.is_some() && file_sizes.is_some() {
        io_total = io_total.min(total);
    }
    files.io_size = io_size(job, io_total);
    files.wrap = files.io_size > io_total || explicit_io_size(job, io_total);
    Ok(Planned {
        files,
        existing,
        diskless: false,
    })
}

/// zonemode=zbd zones that could not be set up, as fio reports it.
fn zbd_failed(e: crate::run::offsets::zbd::InitError) -> SetupError {
    if e.errno == 0 {
        return crate::run::errors::quiet_setup_failure(e.message);
    }
    SetupError {
        errno: e.errno,
        message: Some(e.message),
        func: "zbd_create_zone_info() failed".into(),
        in_job: false,
    }
}

/// read_iolog: the log's files as they are, none sized or laid out (fio
/// skips both for a replay); one missing is created as the job opens it
/// to write (`create_on_open`, job::prepare). Each region is the whole
/// file: the log says where the I/O goes.
pub fn plan_replay(job: &Job, diskless: bool, io_size: u64) -> Planned {
    let mut files = JobFiles::default();
    let existing: Vec<Option<(u64, bool)>> =
        job.filenames.iter().map(|p| existing_size(p)).collect();
    for e in &existing {
        // fio does not size a replay's files: a read past a file's end is
        // not its end (fio's short read then ends in EIO, full resid);
        // mmap maps what the file holds.
        let size = match job.engine.as_str() {
            "mmap" => e.map_or(0, |e| e.0),
            _ => u64::MAX,
        };
        files.regions.push((-1, 0, u64::MAX / 2));
        files.sizes.push(size);
    }
    files.paths = job.filenames.clone();
    files.io_size = io_size;
    Planned {
        files,
        existing,
        diskless,
    }
}

/// One file's region: its offset (size=, offset=, offset_increment=),
/// length and size once laid out, and whether it must be laid out (missing
/// or too short). `per_file`: its share of the job's size.
#[allow(clippy::too_many_arguments)]
fn region(
    job: &Job,
    i: usize,
    p: &std::path::Path,
    existing: &[Option<(u64, bool)>],
    per_file: u64,
    sized_by_filesize: bool,
    min_bs: u64,
    notices: &mut Vec<(Stream, String)>,
) -> Result<(Region, bool), SetupError> {
    let file_size = existing[i].map_or(0, |e| e.0);
    let mut offset =
        pct_of(job.offset, file_size) + pct_of(job.offset_increment, file_size) * job.clone as u64;
    let is_pct = |v: SizeOrPercent| matches!(v, SizeOrPercent::Percent(_));
    // fio aligns a percentage offset up to offset_align, or the minimum
    // block without it (§3).
    if is_pct(job.offset) || is_pct(job.offset_increment) {
        let align = match job.opts.int("offset_align") {
            a if a > 0 && job.opts.is_set("offset_align") => a as u64,
            _ => min_bs,
        };
        offset = offset.div_ceil(align) * align;
    }
    // file_append: I/O starts where a regular file ends (what it held
    // before this run; a new file starts at 0).
    if job.opts.flag("file_append") && std::fs::metadata(p).map_or(true, |m| m.is_file()) {
        offset = file_size;
    }
    // A character device or fifo is never laid out (fio's
    // FIO_TYPE_CHAR/PIPE); a directory is (and fails to unlink).
    let is_dev = existing[i].is_some_and(|e| e.1)
        || (existing[i].is_some()
            && std::fs::metadata(p).is_ok_and(|m| {
                let t = m.file_type();
                t.is_char_device() || t.is_fifo() || t.is_socket()
            }));
    // A size fio knows: a file's or a block device's.
    let is_blk = existing[i].is_some_and(|e| e.1);
    let sized = !is_dev || is_blk;
    // filesize= with the file outside its range: fio's err_offset when
    // the offset lies past the low end.
    if let Some((lo, hi)) = job.files.filesize {
        if (file_size < lo || file_size > hi) && offset > lo && sized {
            return Err(crate::run::errors::err_offset(job));
        }
    }
    let per_file = match job.size {
        // size=N%: N% of the whole file, clipped at its end after the
        // offset and rounded down to the minimum block (§12, #377).
        Some(SizeOrPercent::Percent(p)) if !sized_by_filesize => {
            if offset > file_size && sized {
                return Err(crate::run::errors::err_offset(job));
            }
            let left = file_size.saturating_sub(offset);
            if p == 100 {
                left
            } else {
                let len = (file_size as u128 * p as u128 / 100) as u64;
                let len = len.min(left);
                len - len % min_bs
            }
        }
        // Without size=, what lies past the offset (fio's per-file
        // size is 0 then): the file is never extended.
        None if !sized_by_filesize && sized => {
            crate::run::errors::rest_of_file(job, p, offset, file_size, notices)?
        }
        _ => per_file,
    };
    let need = offset + per_file;
    // create_on_open: a new file is not laid out; the job creates it
    // (empty, mode 0600) when it opens it, and writes make it grow.
    let create_later = create_on_open(job, existing[i]);
    let lay_out = !is_dev && file_size < need && !create_later;
    let len = if is_blk {
        // fio never passes a block device's end: a sequential job stops
        // there, a random one draws inside it (no error either way).
        per_file.min(file_size.saturating_sub(offset))
    } else if is_dev || file_size >= need {
        per_file.min(file_size.max(need).saturating_sub(offset))
    } else {
        per_file
    };
    Ok((
        Region {
            offset,
            len,
            size: need.max(file_size),
            need,
        },
        lay_out,
    ))
}

/// A file's place in a job: where its I/O starts, how much of it, how big
/// the file is (`need`: what its layout makes it).
struct Region {
    offset: u64,
    len: u64,
    size: u64,
    need: u64,
}

/// fio's "you need to specify size=" (no size and nothing to take it from).
fn need_size(job: &Job) -> SetupError {
    SetupError {
        errno: libc::EINVAL,
        message: Some(format!("{}: you need to specify size=\n", job.name)),
        func: "total_file_size".into(),
        in_job: false,
    }
}

/// filesize: each file's size, drawn from the range as fio draws it
/// (run/files/filesize.rs); None without filesize=.
fn file_sizes(
    job: &Job,
    diskless: bool,
    existing: &[Option<(u64, bool)>],
    min_bs: u64,
) -> Option<Vec<u64>> {
    let nfiles = job.filenames.len().max(1);
    if job.files.filesize.is_none() && job.size.is_none() && job.engine == "filecreate" {
        // fio's filecreate sizes each file at the smallest block.
        return Some(vec![min_bs; nfiles]);
    }
    job.files.filesize.map(|(lo, hi)| {
        let sizes: Vec<Option<u64>> = (0..nfiles)
            .map(|i| match job.size {
                // fio's null-engine files are size/nrfiles big: inside the
                // range they keep it, as an existing file would.
                Some(SizeOrPercent::Bytes(total)) if diskless => Some(total / nfiles as u64),
                _ if diskless => None,
                _ => existing.get(i).copied().flatten().map(|e| e.0),
            })
            .collect();
        crate::run::files::filesize::sizes(job, lo, hi, &sizes, min_bs)
    })
}

/// The job's size: size= (of the files' whole when a percentage), else
/// filesize='s sum, else the existing files'.
fn total_size(
    job: &Job,
    diskless: bool,
    existing: &[Option<(u64, bool)>],
    file_sizes: &Option<Vec<u64>>,
) -> Result<u64, SetupError> {
    Ok(match job.size {
        None if file_sizes.is_some() => file_sizes.iter().flatten().sum(),
        Some(s) => {
            let whole: u64 = existing.iter().map(|e| e.map_or(0, |x| x.0)).sum();
            pct_of(s, whole)
        }
        // Files that all exist, not all empty (fio: a total of 0 asks for size=).
        None if !diskless
            && existing.iter().all(Option::is_some)
            && existing.iter().any(|e| e.is_some_and(|x| x.0 > 0)) =>
        {
            existing.iter().map(|e| e.map_or(0, |x| x.0)).sum()
        }
        None => return Err(need_size(job)),
    })
}

// --- h3: engines ---
/// An engine without I/O (cpuio, exec) and without a size: one block of
/// region to go round, for the runtime when time_based, else once.
fn plan_noio(job: &Job) -> Planned {
    let bs = job.bs.iter().map(|b| b.1).max().unwrap_or(4096).max(1);
    let mut files = JobFiles::default();
    files.regions.push((-1, 0, bs));
    files.io_size = if job.time_based { u64::MAX >> 2 } else { bs };
    files.wrap = job.time_based;
    Planned {
        files,
        existing: vec![None; job.filenames.len()],
        diskless: true,
    }
}

/// A diskless engine's plan (null): no files, but their regions.
fn plan_diskless(
    job: &Job,
    existing: Vec<Option<(u64, bool)>>,
    (min_bs, total): (u64, u64),
    per_file: impl Fn(usize) -> u64,
) -> Planned {
    let nfiles = job.filenames.len().max(1);
    let mut files = JobFiles::default();
    // No files, but one region per (named) file as fio keeps them:
    // filesize or size/nrfiles each, rounded down to the minimum block.
    // fio's files keep the unrounded size/nrfiles, and the job moves
    // their sum: where the files do not end by themselves (unmarked or
    // overlapping random I/Os) it goes on into the rounded-off tail.
    // Files that all ended start another round only under io_size
    // (fio's keep_running, see `explicit_io_size`).
    // Each starts at the job's offset (a percentage of the file's size,
    // aligned up to the block, as fio's get_start_offset).
    let mut whole = 0;
    for i in 0..nfiles {
        let per = per_file(i);
        let mut start =
            pct_of(job.offset, per) + pct_of(job.offset_increment, per) * job.clone as u64;
        let is_pct = |v: SizeOrPercent| matches!(v, SizeOrPercent::Percent(_));
        if is_pct(job.offset) || is_pct(job.offset_increment) {
            start = start.div_ceil(min_bs) * min_bs;
        }
        // A filesize= file holds its offset: the I/O is what lies past
        // it (fio's io_size = file size - offset).
        let per = if job.files.filesize.is_some() {
            per.saturating_sub(start)
        } else {
            per
        };
        let len = per / min_bs * min_bs;
        files.regions.push((-1, start, len));
        whole += per;
    }
    // size= caps what filesize= lays out (fio moves `size` bytes).
    let whole = if job.size.is_some() {
        whole.min(total)
    } else {
        whole
    };
    files.io_size = io_size(job, whole);
    files.wrap = files.io_size > whole || explicit_io_size(job, whole);
    Planned {
        files,
        existing,
        diskless: true,
    }
}

/// Writing to a mounted block device destroys a file system: refuse
/// unless allow_mounted_write=1, as fio does.
fn refuse_mounted(job: &Job, existing: &[Option<(u64, bool)>]) -> Result<(), SetupError> {
    if (job.pattern.write || job.pattern.trim) && !job.files.allow_mounted_write {
        for (i, p) in job.filenames.iter().enumerate() {
            if existing[i].is_some_and(|e| e.1) && is_mounted(p) {
                return Err(SetupError {
                    errno: libc::EINVAL,
                    message: Some(format!(
                        "fio: {} appears mounted, and 'allow_mounted_write' isn't set. Aborting.\n",
                        p.display()
                    )),
                    func: "is_mounted".into(),
                    in_job: false,
                });
            }
        }
    }
    Ok(())
}

/// fio creates the missing directories of a file's path (mode 0700)
/// before it lays the file out.
fn make_dirs(job: &Job, existing: &[Option<(u64, bool)>]) -> Result<(), SetupError> {
    for (i, p) in job.filenames.iter().enumerate() {
        match p.parent() {
            Some(dir) if existing[i].is_none() && !dir.as_os_str().is_empty() && !dir.exists() => {
                use std::os::unix::fs::DirBuilderExt;
                std::fs::DirBuilder::new()
                    .recursive(true)
                    .mode(0o700)
                    .create(dir)
                    .map_err(|e| SetupError::os(format!("mkdir({})", dir.display()), &e))?;
            }
            _ => {}
        }
    }
    Ok(())
}

/// Lay out the files that are missing or too short, with fio's notice
/// (a read-only job refuses each extend and goes on).
fn lay_out(
    job: &Job,
    to_layout: &[(usize, std::path::PathBuf, u64)],
    existing: &[Option<(u64, bool)>],
    notices: &mut Vec<(Stream, String)>,
) -> Result<(), SetupError> {
    if to_layout.is_empty() {
        return Ok(());
    }
    let bytes: u64 = to_layout.iter().map(|x| x.2).sum();
    // fio prints whole MiB, rounded down (64k shows as 0MiB), whatever
    // kb_base.
    let shown = format!("{}MiB", bytes >> 20);
    notices.push((
        Stream::Stdout,
        if to_layout.len() == 1 {
            format!("{}: Laying out IO file (1 file / {shown})\n", job.name)
        } else {
            format!(
                "{}: Laying out IO files ({} files / total {shown})\n",
                job.name,
                to_layout.len()
            )
        },
    ));
    if job.readonly {
        // fio refuses each extend and goes on: a missing file then
        // fails to open, a short one is read past its end.
        let paths: Vec<_> = to_layout.iter().map(|x| (x.1.clone(), x.2)).collect();
        crate::run::errors::refuse_extend(&paths, notices);
    }
    for (i, p, size) in to_layout.iter().filter(|_| !job.readonly) {
        let old = existing[*i].map_or(0, |e| e.0);
        layout(job, p, old, *size).inspect_err(|e| {
            if e.errno == libc::ENOSPC && !e.in_job {
                notices.push((
                    Stream::Stdout,
                    "fio: ENOSPC on laying out file, stopping\n".into(),
                ));
            }
        })?;
    }
    Ok(())
}

/// Open a job's planned files as the job starts (fio's td_io_open_file):
/// create those `create_on_open` leaves to the job, drop what the page
/// cache holds of each file's region (`invalidate`, regular files) and
/// give the kernel the access pattern (fio's default fadvise_hint).
pub fn open_files(job: &Job, planned: Planned) -> Result<JobFiles, SetupError> {
    let Planned {
        mut files,
        existing,
        diskless,
    } = planned;
    if diskless {
        return Ok(files);
    }
    for (i, p) in job.filenames.iter().enumerate() {
        if create_on_open(job, existing[i]) {
            OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(false)
                .mode(0o600)
                .open(p)
                .map_err(|e| SetupError::os(format!("open({})", p.display()), &e))?;
        }
        let fd = open(job, p)?;
        files.fds.push(fd);
        files.regions[i].0 = fd;
        let (_, start, len) = files.regions[i];
        let kind = kind(fd);
        if job.files.invalidate {
            invalidate(kind, fd, start, len);
        }
        hint(advice(job), kind, fd, start, len);
        set_write_hint(job, kind, fd)?;
    }
    Ok(files)
}

/// The file type bits (`S_IFMT`) of `fd`, 0 when fstat fails.
pub fn kind(fd: RawFd) -> libc::mode_t {
    // SAFETY: fstat into a zeroed stat of our own.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    if fd < 0 || unsafe { libc::fstat(fd, &mut st) } != 0 {
        return 0;
    }
    st.st_mode & libc::S_IFMT
}

/// write_hint= on a regular file or block device, as fio sets it when it
/// opens one: on the descriptor under direct=1, on the inode otherwise.
fn set_write_hint(job: &Job, kind: libc::mode_t, fd: RawFd) -> Result<(), SetupError> {
    const F_SET_RW_HINT: libc::c_int = 1024 + 12;
    const F_SET_FILE_RW_HINT: libc::c_int = 1024 + 14;
    if !job.opts.is_set("write_hint") || !(kind == libc::S_IFREG || kind == libc::S_IFBLK) {
        return Ok(());
    }
    let hint: u64 = match job.opts.choice("write_hint").0.as_str() {
        "none" => 1,
        "short" => 2,
        "medium" => 3,
        "long" => 4,
        _ => 5,
    };
    let cmd = if job.direct {
        F_SET_FILE_RW_HINT
    } else {
        F_SET_RW_HINT
    };
    // SAFETY: fcntl reading a u64 of ours, on a descriptor the job owns.
    if unsafe { libc::fcntl(fd, cmd, &hint as *const u64) } < 0 {
        return Err(SetupError::os(
            "fcntl write hint".into(),
            &std::io::Error::last_os_error(),
        ));
    }
    Ok(())
}

/// fadvise_hint as the advice [`hint`] gives: None (`0`), or whether it
/// is POSIX_FADV_RANDOM (`random`, or `1` for a random job).
pub fn advice(job: &Job) -> Option<bool> {
    match job.opts.choice("fadvise_hint").0.as_str() {
        "0" => None,
        "random" => Some(true),
        "sequential" => Some(false),
        _ => Some(job.pattern.random),
    }
}

/// fio's fadvise_hint, given each time it opens a file: tell the kernel
/// the access pattern of the region (random I/O gets no readahead), for
/// regular files and block devices; `None`: fadvise_hint=0.
#[cold]
pub fn hint(advice: Option<bool>, kind: libc::mode_t, fd: RawFd, start: u64, len: u64) {
    let Some(random) = advice else { return };
    if kind == libc::S_IFREG || kind == libc::S_IFBLK {
        let advice = if random {
            libc::POSIX_FADV_RANDOM
        } else {
            libc::POSIX_FADV_SEQUENTIAL
        };
        // SAFETY: advisory call on our own descriptor.
        unsafe { libc::posix_fadvise(fd, start as libc::off_t, len as libc::off_t, advice) };
    }
}

/// fio's file_invalidate_cache, at each pass over a file: a regular
/// file's cached pages of its region dropped ([`drop_cache`]), a block
/// device's buffer cache flushed ([`flush_device`]); character devices
/// and pipes have none. Cold: once per file and pass, never per I/O.
#[cold]
pub fn invalidate(kind: libc::mode_t, fd: RawFd, start: u64, len: u64) {
    if kind == libc::S_IFREG {
        drop_cache(fd, start, len);
    } else if kind == libc::S_IFBLK {
        flush_device(fd);
    }
}

/// BLKFLSBUF, `_IO(0x12, 97)`: write back and drop a block device's
/// buffer cache (root only).
const BLKFLSBUF: libc::c_ulong = 0x1261;

/// Flush a block device's buffer cache as fio does: BLKFLSBUF, tried again
/// for a quarter of a second while the device answers EAGAIN (multipath
/// maps being updated); without root, fio's warning once and no flush.
#[cold]
pub fn flush_device(fd: RawFd) {
    static WARNED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    for _ in 0..=25 {
        // SAFETY: an ioctl without argument on a descriptor the job owns.
        if unsafe { libc::ioctl(fd, BLKFLSBUF as _, 0) } == 0 {
            return;
        }
        match std::io::Error::last_os_error().raw_os_error() {
            Some(libc::EAGAIN) => std::thread::sleep(std::time::Duration::from_millis(10)),
            // SAFETY: geteuid has no preconditions.
            Some(libc::EACCES) if unsafe { libc::geteuid() } != 0 => {
                if !WARNED.swap(true, std::sync::atomic::Ordering::Relaxed) {
                    eprintln!("fio: only root may flush block devices. Cache flush bypassed!");
                }
                return;
            }
            _ => return,
        }
    }
}

/// Tell the kernel to drop the cached pages of `len` bytes at `start` (0:
/// to the end) of a regular file.
#[cold]
pub fn drop_cache(fd: RawFd, start: u64, len: u64) {
    // SAFETY: advisory call on a descriptor the job owns; a failure only
    // leaves the cache as it was (fio goes on too).
    unsafe {
        libc::posix_fadvise(
            fd,
            start as libc::off_t,
            len as libc::off_t,
            libc::POSIX_FADV_DONTNEED,
        )
    };
}

/// `create_on_open` applies to a file that does not exist yet (mmap needs
/// its file laid out to map it).
fn create_on_open(job: &Job, existing: Option<(u64, bool)>) -> bool {
    job.files.create_on_open && existing.is_none() && job.engine != "mmap"
}

/// Lay out `p` to `size` bytes; `old_len` is its size before (0: new).
fn layout(job: &Job, p: &Path, old_len: u64, size: u64) -> Result<(), SetupError> {
    remove_for_layout(job, p)?;
    let mut f = open_for_layout(job, p)?;
    let fd = std::os::fd::AsRawFd::as_raw_fd(&f);
    let old = f.metadata().map(|m| m.len()).unwrap_or(0);
    allocate(job, fd, size)?;
    // Reads (and overwrite=1) need real data in the file, as fio writes it.
    if job.pattern.read || job.files.overwrite || job.engine == "mmap" {
        f = write_data(job, f, p, old, size)?;
    }
    if job.opts.flag("create_fsync") {
        f.sync_all()
            .map_err(|e| SetupError::os("fsync".into(), &e))?;
    }
    // fio drops the cache of what the layout added (its size before to the
    // end), whatever the job's invalidate= says.
    drop_cache(fd, old_len, size.saturating_sub(old_len));
    Ok(())
}

/// fio (filesetup.c extend_file) removes a file that is too short before
/// laying it out again for a job that reads or writes: nothing of its
/// old content survives (a cut verify file reads back zeros at offset 0).
/// file_append keeps what a write-only job appends to.
fn remove_for_layout(job: &Job, p: &Path) -> Result<(), SetupError> {
    let append = job.opts.flag("file_append") && !job.pattern.read;
    if (job.pattern.read || job.pattern.write) && !append {
        match std::fs::remove_file(p) {
            // fio fails before the job starts (pid=0, filesetup.c:150).
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(SetupError {
                    in_job: false,
                    ..SetupError::os("unlink".into(), &e)
                });
            }
            _ => {}
        }
    }
    Ok(())
}

/// Open `p` for writing, created unless allow_file_create=0.
fn open_for_layout(job: &Job, p: &Path) -> Result<std::fs::File, SetupError> {
    let func = format!("open({})", p.display());
    let allow_create = job.opts.flag("allow_file_create");
    OpenOptions::new()
        .create(allow_create)
        .write(true)
        .truncate(false)
        .open(p)
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound if !allow_create => {
                crate::run::errors::quiet_setup_failure(
                    "fio: file creation disallowed by allow_file_create=0\n".into(),
                )
            }
            _ => SetupError::os(func.clone(), &e),
        })
}

/// Preallocate the file as `fallocate=` says, and size it for a new
/// layout.
fn allocate(job: &Job, fd: RawFd, size: u64) -> Result<(), SetupError> {
    // SAFETY: plain syscalls on a descriptor we own.
    unsafe {
        // fill_device: the file is written until the device is full,
        // never truncated or preallocated (fio's extend_file).
        match job.files.fallocate.as_str() {
            _ if job.fill_device => {}
            "none" | "0" | "truncate" => {}
            "keep" => {
                libc::fallocate(fd, libc::FALLOC_FL_KEEP_SIZE, 0, size as libc::off_t);
            }
            "posix" | "1" => {
                libc::posix_fallocate(fd, 0, size as libc::off_t);
            }
            _ => {
                libc::fallocate(fd, 0, 0, size as libc::off_t);
            }
        }
        // fio sizes the file only for a new layout (reads, overwrite=1,
        // mmap); a write-only job's file is what fallocate made of it and
        // grows as it is written (a full file system leaves it short).
        let new_layout = job.pattern.read || job.files.overwrite || job.engine == "mmap";
        if new_layout && !job.fill_device && libc::ftruncate(fd, size as libc::off_t) < 0 {
            return Err(SetupError::os(
                "ftruncate".into(),
                &std::io::Error::last_os_error(),
            ));
        }
    }
    Ok(())
}

/// Write fio's layout data into `f` (at `p`) from `old` bytes to `size`;
/// the file back, to finish the layout.
fn write_data(
    job: &Job,
    mut f: std::fs::File,
    p: &Path,
    old: u64,
    size: u64,
) -> Result<std::fs::File, SetupError> {
    let mut rng = Rng::new(0x89);
    let mut chunk = vec![0u8; 1 << 20];
    for w in chunk.chunks_mut(8) {
        w.copy_from_slice(&rng.next().to_le_bytes()[..w.len()]);
    }
    use std::io::Seek;
    f.seek(std::io::SeekFrom::Start(old))
        .map_err(|e| SetupError::os("lseek".into(), &e))?;
    let mut left = size.saturating_sub(old);
    while left > 0 {
        if rbench_common::stop::should_stop() {
            // Ctrl-C while laying out: stop now and remove the partial
            // file, as fio does; the job ends without an error (errno 0).
            drop(f);
            let _ = std::fs::remove_file(p);
            return Err(SetupError {
                errno: 0,
                message: None,
                func: "layout".into(),
                in_job: false,
            });
        }
        let n = left.min(chunk.len() as u64) as usize;
        // fio fails the layout before the job starts (pid=0,
        // filesetup.c:240); a full device is where fill_device ends.
        match f.write_all(&chunk[..n]) {
            Err(e) if job.fill_device && is_full(&e) => break,
            r => r.map_err(|e| SetupError {
                in_job: false,
                ..SetupError::os("write".into(), &e)
            })?,
        }
        left -= n as u64;
    }
    Ok(f)
}

/// ENOSPC or EDQUOT: the device (or the quota) is full.
fn is_full(e: &std::io::Error) -> bool {
    matches!(e.raw_os_error(), Some(libc::ENOSPC | libc::EDQUOT))
}

/// fill_device for a job that does not write: its regions end where the
/// layout filled the device (fio sizes the files again after it).
fn fill_device_regions(job: &Job, files: &mut JobFiles) -> u64 {
    let mut total = 0;
    for (i, p) in job.filenames.iter().enumerate() {
        let size = existing_size(p).map_or(0, |e| e.0);
        let r = &mut files.regions[i];
        r.2 = r.2.min(size.saturating_sub(r.1));
        files.sizes[i] = size;
        total += r.2;
    }
    total
}

/// fio's OS_O_ATOMIC where the C library has no O_ATOMIC (Linux).
const ATOMIC_FLAG: libc::c_int = 0o40000000;

pub(crate) fn open(job: &Job, p: &Path) -> Result<RawFd, SetupError> {
    // falloc opens read-write whatever the job does (fio's O_CREAT|O_RDWR).
    let writes =
        job.pattern.write || job.pattern.trim || matches!(job.engine.as_str(), "mmap" | "falloc");
    let mut flags = 0;
    if job.direct {
        flags |= libc::O_DIRECT;
    }
    if job.opts.flag("atomic") {
        // fio's O_ATOMIC on Linux: O_DIRECT and a flag bit the kernel
        // ignores.
        flags |= libc::O_DIRECT | ATOMIC_FLAG;
    }
    match job.sync_mode.as_str() {
        "sync" => flags |= libc::O_SYNC,
        "dsync" => flags |= libc::O_DSYNC,
        _ => {}
    }
    let f = OpenOptions::new()
        .read(true)
        .write(writes)
        .custom_flags(flags)
        .open(p)
        .map_err(|e| {
            let mut err = SetupError::os(format!("open({})", p.display()), &e);
            // A file system without O_DIRECT (ramfs; tmpfs before Linux
            // 6.6) refuses the open with EINVAL: fio says why first.
            if job.direct && err.errno == libc::EINVAL {
                err.message = Some(
                    "fio: looks like your file system does not support direct=1/buffered=0\n\
                     fio: destination does not support O_DIRECT\n"
                        .into(),
                );
            }
            err
        })?;
    Ok(f.into_raw_fd())
}

/// Whether a block device (or a partition of it) is mounted or is swap.
fn is_mounted(dev: &Path) -> bool {
    let Ok(real) = std::fs::canonicalize(dev) else {
        return false;
    };
    let real = real.to_string_lossy().into_owned();
    let mounted = std::fs::read_to_string("/proc/mounts").unwrap_or_default();
    let swaps = std::fs::read_to_string("/proc/swaps").unwrap_or_default();
    mounted
        .lines()
        .chain(swaps.lines())
        .filter_map(|l| l.split_whitespace().next())
        .filter_map(|src| std::fs::canonicalize(src).ok())
        .any(|src| src.to_string_lossy().starts_with(&real))
}

/// `unlink_each_loop`: between loops, unlink every file and open it anew
/// (created empty, mode 0600, when the job writes; a read job fails with
/// ENOENT as fio's does). The new file takes the old descriptor's number
/// (dup2), so everything holding that number keeps working. Cold path.
/// Returns (errno, file index) of the first failure.
pub fn recreate(files: &JobFiles, create: bool) -> Result<(), (i32, usize)> {
    for (i, (p, &fd)) in files.paths.iter().zip(&files.fds).enumerate() {
        let errno = || {
            std::io::Error::last_os_error()
                .raw_os_error()
                .unwrap_or(libc::EIO)
        };
        let Ok(c) = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()) else {
            return Err((libc::EINVAL, i));
        };
        // SAFETY: fcntl/unlink/open/dup2/close on our own descriptor and a
        // NUL-terminated path.
        unsafe {
            let flags = libc::fcntl(fd, libc::F_GETFL);
            if flags < 0 {
                return Err((errno(), i));
            }
            libc::unlink(c.as_ptr());
            let extra = if create { libc::O_CREAT } else { 0 };
            let new = libc::open(c.as_ptr(), flags | extra, 0o600);
            if new < 0 {
                return Err((errno(), i));
            }
            let r = libc::dup2(new, fd);
            libc::close(new);
            if r < 0 {
                return Err((errno(), i));
            }
        }
    }
    Ok(())
}

/// Remove a job's files (`unlink=1`).
pub fn unlink(paths: &[std::path::PathBuf]) {
    for p in paths {
        if let Ok(c) = CString::new(p.as_os_str().as_encoded_bytes()) {
            // SAFETY: unlinking a path we created.
            unsafe { libc::unlink(c.as_ptr()) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Any device /proc/mounts lists as mounted is seen as mounted (no I/O).
    #[test]
    fn mounted_devices_are_detected() {
        let mounts = std::fs::read_to_string("/proc/mounts").unwrap_or_default();
        let dev = mounts
            .lines()
            .filter_map(|l| l.split_whitespace().next())
            .find(|s| s.starts_with("/dev/") && Path::new(s).exists());
        if let Some(dev) = dev {
            assert!(is_mounted(Path::new(dev)), "{dev}");
        }
        assert!(!is_mounted(Path::new("/nonexistent-device")));
    }
}
