//! fileio's options, read and checked in sysbench's order (parse_arguments()).

use crate::args::Values;
use crate::error::{Fail, Result};
use crate::options;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    SeqWrite,
    SeqRewrite,
    SeqRead,
    RndRead,
    RndWrite,
    RndRw,
}

impl Mode {
    pub(super) fn parse(s: &str) -> Option<Mode> {
        Some(match s {
            "seqwr" => Mode::SeqWrite,
            "seqrewr" => Mode::SeqRewrite,
            "seqrd" => Mode::SeqRead,
            "rndrd" => Mode::RndRead,
            "rndwr" => Mode::RndWrite,
            "rndrw" => Mode::RndRw,
            _ => return None,
        })
    }

    pub(super) fn description(self) -> &'static str {
        match self {
            Mode::SeqWrite => "sequential write (creation)",
            Mode::SeqRewrite => "sequential rewrite",
            Mode::SeqRead => "sequential read",
            Mode::RndRead => "random read",
            Mode::RndWrite => "random write",
            Mode::RndRw => "random r/w",
        }
    }

    pub(super) fn sequential(self) -> bool {
        matches!(self, Mode::SeqWrite | Mode::SeqRewrite | Mode::SeqRead)
    }

    pub(super) fn writes(self) -> bool {
        !matches!(self, Mode::SeqRead | Mode::RndRead)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum IoMode {
    Sync,
    /// Linux native AIO, as sysbench's libaio mode.
    Async,
    Mmap,
}

/// The options, checked in sysbench's order (parse_arguments()).
#[derive(Debug, Clone)]
pub(super) struct Params {
    pub(super) num: u32,
    pub(super) file_size: u64,
    pub(super) mode: Option<Mode>,
    pub(super) io: IoMode,
    /// --file-async-backlog (async mode only).
    pub(super) backlog: usize,
    pub(super) block: u64,
    pub(super) merged: u64,
    pub(super) request_size: u64,
    pub(super) flags: libc::c_int,
    pub(super) flag_names: String,
    pub(super) fsync_freq: u64,
    pub(super) fsync_end: bool,
    pub(super) fsync_all: bool,
    pub(super) fdatasync: bool,
    pub(super) rw_ratio: f64,
}

impl Params {
    pub(super) fn read(v: &Values, run: bool) -> Result<Params> {
        let (num, file_size) = files(v)?;
        let mode = if run { Some(test_mode(v)?) } else { None };
        let (io, backlog) = io_mode(v)?;
        let (block, merged, request_size) = request(v)?;
        let (flags, flag_names) = extra_flags(v)?;
        let (fsync_freq, fsync_end, fsync_all, fdatasync) = syncs(v)?;
        let rw_ratio = v.double("file-rw-ratio")?;
        if rw_ratio < 0.0 {
            return Err(Fail::fatal(format!(
                "Invalid value for --file-rw-ratio: {rw_ratio:.6}."
            )));
        }
        Ok(Params {
            num,
            file_size,
            mode,
            io,
            backlog,
            block,
            merged,
            request_size,
            flags,
            flag_names,
            fsync_freq,
            fsync_end,
            fsync_all,
            fdatasync,
            rw_ratio,
        })
    }
}

/// `--file-num` and `--file-total-size`: the count and each file's size.
fn files(v: &Values) -> Result<(u32, u64)> {
    let num = v.int("file-num")?;
    if num <= 0 {
        return Err(Fail::fatal(format!("Invalid value for file-num: {num}")));
    }
    let total = v.size("file-total-size")?;
    if total == 0 || total > i64::MAX as u64 {
        return Err(Fail::fatal(format!(
            "Invalid value for file-total-size: {total}"
        )));
    }
    let file_size = total / num as u64;
    if file_size == 0 {
        // sysbench divides by the file size and dies of SIGFPE.
        return Err(Fail::fatal(format!(
            "--file-total-size={total} is smaller than --file-num={num}: each file would be 0 bytes"
        )));
    }
    Ok((num as u32, file_size))
}

/// `--file-test-mode`, which `run` requires (sysbench prints the fileio
/// options with the error).
fn test_mode(v: &Values) -> Result<Mode> {
    let Some(m) = v.string("file-test-mode") else {
        return Err(
            Fail::fatal("Missing required argument: --file-test-mode\n").then(format!(
                "fileio options:\n{}\n",
                options::render_table(options::FILEIO)
            )),
        );
    };
    Mode::parse(&m).ok_or_else(|| Fail::fatal(format!("Invalid IO operations mode: {m}.")))
}

/// `--file-io-mode` and, for async, `--file-async-backlog`.
fn io_mode(v: &Values) -> Result<(IoMode, usize)> {
    let io = match v.string("file-io-mode").as_deref().unwrap_or("sync") {
        "sync" => IoMode::Sync,
        "mmap" => IoMode::Mmap,
        "async" => IoMode::Async,
        m => return Err(Fail::fatal(format!("unknown I/O mode: {m}"))),
    };
    if io != IoMode::Async {
        return Ok((io, 0));
    }
    let b = v.int("file-async-backlog")?;
    if b <= 0 {
        return Err(Fail::fatal(format!(
            "Invalid value of file-async-backlog: {b}"
        )));
    }
    Ok((io, b as usize))
}

/// `--file-block-size` and `--file-merged-requests`: the block, the merge
/// count and the size of one request.
fn request(v: &Values) -> Result<(u64, u64, u64)> {
    let merged = v.int("file-merged-requests")?;
    if merged < 0 {
        return Err(Fail::fatal(format!(
            "Invalid value for file-merged-requests: {merged}."
        )));
    }
    let block = v.int("file-block-size")?;
    if block <= 0 {
        return Err(Fail::fatal(format!(
            "Invalid value for file-block-size: {block}."
        )));
    }
    let (block, merged) = (block as u64, merged as u64);
    let request_size = if merged > 0 { block * merged } else { block };
    Ok((block, merged, request_size))
}

/// `--file-extra-flags`: the open flags and their names as sysbench
/// prints them (`(none)` without any).
fn extra_flags(v: &Values) -> Result<(libc::c_int, String)> {
    let (mut sync, mut dsync, mut direct) = (false, false, false);
    for f in v.list("file-extra-flags") {
        match f.as_str() {
            "sync" => sync = true,
            "dsync" => dsync = true,
            "direct" => direct = true,
            _ => {
                return Err(Fail::fatal(format!(
                    "Invalid value for file-extra-flags: {}",
                    v.string("file-extra-flags").unwrap_or_default()
                )))
            }
        }
    }
    let mut flags = 0;
    let mut flag_names = String::new();
    if sync {
        flags |= libc::O_SYNC;
        flag_names.push_str("sync ");
    }
    if dsync {
        flags |= libc::O_DSYNC;
        flag_names.push_str("dsync ");
    }
    if direct {
        flags |= libc::O_DIRECT;
        flag_names.push_str("directio");
    }
    if flag_names.is_empty() {
        flag_names.push_str("(none)");
    }
    Ok((flags, flag_names))
}

/// `--file-fsync-freq`, `-end`, `-all` (which turns the other two off)
/// and `--file-fsync-mode`.
fn syncs(v: &Values) -> Result<(u64, bool, bool, bool)> {
    let freq = v.int("file-fsync-freq")?;
    if freq < 0 {
        return Err(Fail::fatal(format!(
            "Invalid value for file-fsync-freq: {freq}."
        )));
    }
    let mut fsync_freq = freq as u64;
    let mut fsync_end = v.flag("file-fsync-end");
    let fsync_all = v.flag("file-fsync-all");
    if fsync_all {
        fsync_end = false;
        fsync_freq = 0;
    }
    let fdatasync = match v.string("file-fsync-mode").as_deref().unwrap_or("") {
        "fsync" => false,
        "fdatasync" => true,
        m => return Err(Fail::fatal(format!("Invalid fsync mode: {m}."))),
    };
    Ok((fsync_freq, fsync_end, fsync_all, fdatasync))
}
