//! `fileio` (spec §6.5, sysbench 1.0.20's sb_fileio.c): files
//! `test_file.0 .. N-1` in the current directory, each --file-total-size/N
//! bytes. `prepare` creates them, `cleanup` removes them, `run` issues
//! sequential or random requests from one shared generator (sysbench's
//! request mutex: the periodic fsync sweep and the sequential cursor are
//! shared state), with sysbench's fsync rules.

use std::ffi::CString;
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::Mutex;

use rbench_common::clock::now_ns;
use rbench_common::units::sysbench::format_size;

use crate::aio;
use crate::args::Values;
use crate::error::{Fail, Result};
use crate::log::{Level, Log};
use crate::options;
use crate::result::TestKind;
use crate::rng::Rng;
use crate::settings::Settings;
use crate::stats::{Counter, Slot};
use crate::tests::{ModeLine, Test, Worker};

/// Bytes at the end of a validated block: CRC32 (4) and offset (8).
const TRAILER: usize = 12;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    SeqWrite,
    SeqRewrite,
    SeqRead,
    RndRead,
    RndWrite,
    RndRw,
}

impl Mode {
    fn parse(s: &str) -> Option<Mode> {
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

    fn description(self) -> &'static str {
        match self {
            Mode::SeqWrite => "sequential write (creation)",
            Mode::SeqRewrite => "sequential rewrite",
            Mode::SeqRead => "sequential read",
            Mode::RndRead => "random read",
            Mode::RndWrite => "random write",
            Mode::RndRw => "random r/w",
        }
    }

    fn sequential(self) -> bool {
        matches!(self, Mode::SeqWrite | Mode::SeqRewrite | Mode::SeqRead)
    }

    fn writes(self) -> bool {
        !matches!(self, Mode::SeqRead | Mode::RndRead)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum IoMode {
    Sync,
    /// Linux native AIO, as sysbench's libaio mode.
    Async,
    Mmap,
}

/// The options, checked in sysbench's order (parse_arguments()).
#[derive(Debug, Clone)]
struct Params {
    num: u32,
    file_size: u64,
    mode: Option<Mode>,
    io: IoMode,
    /// --file-async-backlog (async mode only).
    backlog: usize,
    block: u64,
    merged: u64,
    request_size: u64,
    flags: libc::c_int,
    flag_names: String,
    fsync_freq: u64,
    fsync_end: bool,
    fsync_all: bool,
    fdatasync: bool,
    rw_ratio: f64,
}

impl Params {
    fn read(v: &Values, run: bool) -> Result<Params> {
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
        let mode = if run {
            let Some(m) = v.string("file-test-mode") else {
                return Err(
                    Fail::fatal("Missing required argument: --file-test-mode\n").then(format!(
                        "fileio options:\n{}\n",
                        options::render_table(options::FILEIO)
                    )),
                );
            };
            Some(
                Mode::parse(&m)
                    .ok_or_else(|| Fail::fatal(format!("Invalid IO operations mode: {m}.")))?,
            )
        } else {
            None
        };
        let io = match v.string("file-io-mode").as_deref().unwrap_or("sync") {
            "sync" => IoMode::Sync,
            "mmap" => IoMode::Mmap,
            "async" => IoMode::Async,
            m => return Err(Fail::fatal(format!("unknown I/O mode: {m}"))),
        };
        let mut backlog = 0;
        if io == IoMode::Async {
            let b = v.int("file-async-backlog")?;
            if b <= 0 {
                return Err(Fail::fatal(format!(
                    "Invalid value of file-async-backlog: {b}"
                )));
            }
            backlog = b as usize;
        }
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
        let mut flags = 0;
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
        let rw_ratio = v.double("file-rw-ratio")?;
        if rw_ratio < 0.0 {
            return Err(Fail::fatal(format!(
                "Invalid value for --file-rw-ratio: {rw_ratio:.6}."
            )));
        }
        Ok(Params {
            num: num as u32,
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

fn file_name(i: u32) -> String {
    format!("test_file.{i}")
}

fn errno_text(e: &std::io::Error) -> String {
    let n = e.raw_os_error().unwrap_or(0);
    format!("errno = {n} ({})", nix::errno::Errno::from_raw(n).desc())
}

fn open_raw(name: &str, flags: libc::c_int) -> std::io::Result<OwnedFd> {
    let c = CString::new(name).map_err(|_| std::io::Error::from_raw_os_error(libc::EINVAL))?;
    // SAFETY: a valid C string; the returned fd is owned below.
    let fd = unsafe { libc::open(c.as_ptr(), flags, 0o600 as libc::c_uint) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `fd` was just opened and is owned by nobody else.
    Ok(unsafe { std::os::fd::FromRawFd::from_raw_fd(fd) })
}

/// A page-aligned, zeroed buffer (O_DIRECT needs the alignment).
struct Buffer {
    ptr: *mut u8,
    len: usize,
}

// SAFETY: each buffer belongs to one thread at a time.
unsafe impl Send for Buffer {}

impl Buffer {
    fn new(len: usize) -> Result<Self> {
        let layout = std::alloc::Layout::from_size_align(len.max(1), 4096)
            .map_err(|_| Fail::fatal("Failed to allocate a memory buffer"))?;
        // SAFETY: non-zero size layout.
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        if ptr.is_null() {
            return Err(Fail::fatal("Failed to allocate a memory buffer"));
        }
        Ok(Self { ptr, len })
    }

    fn as_mut(&mut self) -> &mut [u8] {
        // SAFETY: `len` zero-initialised bytes owned by self.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        if self.ptr.is_null() {
            return;
        }
        if let Ok(layout) = std::alloc::Layout::from_size_align(self.len.max(1), 4096) {
            // SAFETY: allocated in `new` with this layout.
            unsafe { std::alloc::dealloc(self.ptr, layout) };
        }
    }
}

/// A file mapped whole for --file-io-mode=mmap.
struct Map {
    ptr: *mut u8,
    len: usize,
}

// SAFETY: accessed with memcpy by threads working on distinct requests, as
// sysbench does; the mapping lives until the test is dropped.
unsafe impl Send for Map {}
unsafe impl Sync for Map {}

impl Drop for Map {
    fn drop(&mut self) {
        // SAFETY: unmapping what open() mapped.
        unsafe { libc::munmap(self.ptr.cast(), self.len) };
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Read,
    Write,
    Fsync,
}

#[derive(Debug, Clone, Copy)]
pub struct Request {
    op: Op,
    file: u32,
    pos: u64,
    size: u64,
}

/// sysbench's shared request state (file_get_seq/rnd_request).
#[derive(Debug, Default)]
struct Generator {
    position: u64,
    current_file: u32,
    fsynced_file: u32,
    req_performed: u64,
    dirty: bool,
    /// Reads and writes issued, for --file-rw-ratio.
    reads: u64,
    writes: u64,
}

pub struct Fileio {
    p: Params,
    mode: Mode,
    validate: bool,
    max_events: u64,
    files: Vec<OwnedFd>,
    maps: Vec<Map>,
    gen: Mutex<Generator>,
    /// One request-sized buffer per thread, allocated up front.
    buffers: Mutex<Vec<Buffer>>,
    /// One AIO context per thread (async mode), set up by open().
    aio: Mutex<Vec<aio::Context>>,
    threads: u32,
    /// --debug: one DEBUG line per request, as sysbench prints.
    debug: bool,
}

impl Fileio {
    pub fn init(v: &Values, s: &Settings) -> Result<Self> {
        let p = Params::read(v, true)?;
        let mode = p.mode.unwrap_or(Mode::SeqRead);
        let buffers = (0..s.threads)
            .map(|_| Buffer::new(p.request_size as usize))
            .collect::<Result<Vec<_>>>()?;
        Ok(Self {
            buffers: Mutex::new(buffers),
            aio: Mutex::new(Vec::new()),
            threads: s.threads,
            debug: s.debug,
            p,
            mode,
            validate: s.validate,
            max_events: s.max_events,
            files: Vec::new(),
            maps: Vec::new(),
            gen: Mutex::new(Generator::default()),
        })
    }

    /// `prepare`: create or extend the files with zero blocks, fsync each.
    pub fn prepare(v: &Values, log: &Log, validate: bool) -> Result<()> {
        let p = Params::read(v, false)?;
        log.notice(&format!(
            "{} files, {}Kb each, {}Mb total",
            p.num,
            p.file_size / 1024,
            p.file_size * u64::from(p.num) / (1024 * 1024)
        ));
        log.notice("Creating files for the test...");
        log.notice(&format!("Extra file open flags: {}", p.flag_names));
        let mut buf = Buffer::new(p.block as usize)?;
        let mut rng = Rng::for_thread(crate::rng::run_seed(0), 0);
        let start = now_ns();
        let mut written: u64 = 0;
        for i in 0..p.num {
            let name = file_name(i);
            let fd = open_raw(&name, libc::O_CREAT | libc::O_WRONLY | p.flags)
                .map_err(|e| Fail::fatal(format!("Can't open file {}", errno_text(&e))))?;
            let raw = fd.as_raw_fd();
            // SAFETY: a valid open fd.
            let mut offset = unsafe { libc::lseek(raw, 0, libc::SEEK_END) }.max(0) as u64;
            if offset >= p.file_size {
                log.notice(&format!("Reusing existing file {name}"));
            } else if offset > 0 {
                log.notice(&format!("Extending existing file {name}"));
            } else {
                log.notice(&format!("Creating file {name}"));
            }
            while offset < p.file_size {
                if validate {
                    fill_block(buf.as_mut(), offset, &mut rng);
                }
                let b = buf.as_mut();
                // SAFETY: writing `b.len()` bytes from a live buffer.
                let n = unsafe { libc::write(raw, b.as_ptr().cast(), b.len()) };
                if n < 0 {
                    let e = std::io::Error::last_os_error();
                    return Err(Fail::fatal(format!(
                        "Failed to write file! {}",
                        errno_text(&e)
                    )));
                }
                written += p.block;
                offset += p.block;
            }
            // SAFETY: a valid open fd.
            unsafe { libc::fsync(raw) };
        }
        let secs = (now_ns() - start) as f64 / 1e9;
        if written > 0 {
            log.notice(&format!(
                "{written} bytes written in {secs:.2} seconds ({:.2} MiB/sec).",
                written as f64 / (1024.0 * 1024.0) / secs
            ));
        } else {
            log.notice("No bytes written.");
        }
        Ok(())
    }

    /// `cleanup`: remove test_file.0 .. N-1 (missing ones are fine).
    pub fn cleanup(v: &Values, log: &Log) -> Result<()> {
        let p = Params::read(v, false)?;
        log.notice("Removing test files...");
        for i in 0..p.num {
            let _ = std::fs::remove_file(file_name(i));
        }
        Ok(())
    }

    fn next_request(&self, rng: &mut Rng) -> Request {
        let p = &self.p;
        let mut g = self.gen.lock().unwrap_or_else(|e| e.into_inner());
        if self.mode.sequential() {
            let op = if self.mode.writes() {
                Op::Write
            } else {
                Op::Read
            };
            if p.fsync_freq != 0
                && op == Op::Write
                && g.dirty
                && g.req_performed % p.fsync_freq == 0
            {
                return fsync_sweep(&mut g, p.num);
            }
            g.req_performed += 1;
            if op == Op::Write {
                g.dirty = true;
            }
            if g.current_file == p.num {
                g.position = 0;
                g.current_file = 0;
            }
            let size = p.request_size.min(p.file_size - g.position);
            let r = Request {
                op,
                file: g.current_file,
                pos: g.position,
                size,
            };
            g.position += size;
            if g.position == p.file_size {
                g.current_file += 1;
                g.position = 0;
            }
            return r;
        }
        let op = match self.mode {
            Mode::RndWrite => Op::Write,
            Mode::RndRw if (g.reads + 1) as f64 / (g.writes + 1) as f64 >= p.rw_ratio => Op::Write,
            _ => Op::Read,
        };
        if p.fsync_freq != 0 && g.dirty && g.req_performed % p.fsync_freq == 0 {
            return fsync_sweep(&mut g, p.num);
        }
        let total = p.file_size * u64::from(p.num);
        let mut pos = (rng.uniform_double() * total as f64) as u64;
        pos -= pos % p.block;
        let file = ((pos / p.file_size) as u32).min(p.num - 1);
        let pos = pos - u64::from(file) * p.file_size;
        let size = p.block.min(p.file_size - pos);
        g.req_performed += 1;
        match op {
            Op::Write => {
                g.dirty = true;
                g.writes += 1;
            }
            _ => g.reads += 1,
        }
        Request {
            op,
            file,
            pos,
            size,
        }
    }

    fn fsync_file(&self, file: u32) -> std::result::Result<(), String> {
        let rc = match self.p.io {
            IoMode::Mmap => {
                let m = &self.maps[file as usize];
                // SAFETY: a live mapping of `len` bytes.
                unsafe { libc::msync(m.ptr.cast(), m.len, libc::MS_SYNC | libc::MS_INVALIDATE) }
            }
            IoMode::Sync | IoMode::Async => {
                let fd = self.files[file as usize].as_raw_fd();
                // SAFETY: a valid open fd.
                unsafe {
                    if self.p.fdatasync {
                        libc::fdatasync(fd)
                    } else {
                        libc::fsync(fd)
                    }
                }
            }
        };
        if rc != 0 {
            let e = std::io::Error::last_os_error();
            return Err(format!(
                "Failed to fsync file! file: {} {}",
                self.files[file as usize].as_raw_fd(),
                errno_text(&e)
            ));
        }
        Ok(())
    }
}

fn fsync_sweep(g: &mut Generator, num: u32) -> Request {
    let r = Request {
        op: Op::Fsync,
        file: g.fsynced_file,
        pos: 0,
        size: 0,
    };
    g.fsynced_file += 1;
    if g.fsynced_file == num {
        g.fsynced_file = 0;
        g.dirty = false;
    }
    r
}

/// CRC-32 (zlib's polynomial), for --validate blocks.
fn crc32(data: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in data {
        c ^= u32::from(b);
        for _ in 0..8 {
            c = if c & 1 != 0 {
                (c >> 1) ^ 0xEDB8_8320
            } else {
                c >> 1
            };
        }
    }
    !c
}

/// Random bytes, then the CRC32 of them and the block's offset.
fn fill_block(buf: &mut [u8], offset: u64, rng: &mut Rng) {
    if buf.len() < TRAILER {
        return;
    }
    let n = buf.len() - TRAILER;
    for b in &mut buf[..n] {
        *b = rng.next_u64() as u8;
    }
    let crc = crc32(&buf[..n]);
    buf[n..n + 4].copy_from_slice(&crc.to_ne_bytes());
    buf[n + 4..].copy_from_slice(&offset.to_ne_bytes());
}

fn check_block(buf: &[u8], offset: u64) -> std::result::Result<(), String> {
    if buf.len() < TRAILER {
        return Ok(());
    }
    let n = buf.len() - TRAILER;
    let stored = u32::from_ne_bytes(buf[n..n + 4].try_into().unwrap_or([0; 4]));
    let calc = crc32(&buf[..n]);
    if stored != calc {
        return Err(format!(
            "Checksum mismatch in block with offset: {offset}\nFATAL:     Calculated value: 0x{calc:x}    Stored value: 0x{stored:x}"
        ));
    }
    let off = u64::from_ne_bytes(buf[n + 4..].try_into().unwrap_or([0; 8]));
    if off != offset {
        return Err(format!(
            "Offset mismatch in block:\nFATAL:    Actual offset: {offset}    Stored offset: {off}"
        ));
    }
    Ok(())
}

pub struct FileioWorker<'a> {
    t: &'a Fileio,
    buf: Buffer,
    rng: Rng,
    aio: Option<aio::Context>,
}

impl Test for Fileio {
    type Worker<'a> = FileioWorker<'a>;

    fn worker(&self, thread: usize, seed: u64) -> FileioWorker<'_> {
        FileioWorker {
            t: self,
            buf: self
                .buffers
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .pop()
                .unwrap_or(Buffer {
                    ptr: std::ptr::null_mut(),
                    len: 0,
                }),
            rng: Rng::for_thread(seed, thread),
            aio: self.aio.lock().unwrap_or_else(|e| e.into_inner()).pop(),
        }
    }

    fn open(&mut self, log: &Log) -> Result<()> {
        let p = &self.p;
        for i in 0..p.num {
            let name = file_name(i);
            if self.mode == Mode::SeqWrite {
                let _ = std::fs::remove_file(&name);
                open_raw(&name, libc::O_CREAT | libc::O_EXCL | libc::O_WRONLY).map_err(|e| {
                    Fail::fatal(format!("Cannot create file '{name}' {}", errno_text(&e)))
                })?;
            }
            log.debug(&format!("Opening file: {name}"));
            let fd = open_raw(&name, libc::O_RDWR | p.flags).map_err(|e| {
                Fail::fatal(format!("Cannot open file '{name}' {}", errno_text(&e)))
                    .then("WARNING: Did you forget to run the prepare step?\n")
            })?;
            if self.mode != Mode::SeqWrite {
                let len = std::fs::metadata(&name).map(|m| m.len()).unwrap_or(0);
                if len < p.file_size {
                    return Err(Fail::fatal(format!(
                        "Size of file '{name}' is {}B, but at least {}B is expected.",
                        format_size(len),
                        format_size(p.file_size)
                    ))
                    .then("WARNING: Did you run 'prepare' with different --file-total-size or --file-num values?\n"));
                }
            }
            self.files.push(fd);
        }
        if p.io == IoMode::Async {
            let mut ctxs = self.aio.lock().unwrap_or_else(|e| e.into_inner());
            for _ in 0..self.threads {
                ctxs.push(aio::Context::new(p.backlog).map_err(|e| {
                    Fail::fatal(format!("io_queue_init() failed! {}", errno_text(&e)))
                })?);
            }
        }
        if p.io == IoMode::Mmap {
            for (i, fd) in self.files.iter().enumerate() {
                if self.mode == Mode::SeqWrite {
                    // SAFETY: a valid open fd.
                    if unsafe { libc::ftruncate(fd.as_raw_fd(), p.file_size as libc::off_t) } != 0 {
                        let e = std::io::Error::last_os_error();
                        return Err(Fail::fatal(format!(
                            "ftruncate() failed on file {i} {}",
                            errno_text(&e)
                        )));
                    }
                }
                // SAFETY: mapping an open file read/write, shared; checked below.
                let ptr = unsafe {
                    libc::mmap(
                        std::ptr::null_mut(),
                        p.file_size as usize,
                        libc::PROT_READ | libc::PROT_WRITE,
                        libc::MAP_SHARED,
                        fd.as_raw_fd(),
                        0,
                    )
                };
                if ptr == libc::MAP_FAILED {
                    let e = std::io::Error::last_os_error();
                    return Err(Fail::fatal(format!(
                        "mmap() failed on file {i} {}",
                        errno_text(&e)
                    )));
                }
                self.maps.push(Map {
                    ptr: ptr.cast(),
                    len: p.file_size as usize,
                });
            }
        }
        Ok(())
    }

    fn mode_lines(&self) -> Vec<ModeLine> {
        let p = &self.p;
        let mut l = vec![
            format!("Extra file open flags: {}", p.flag_names),
            format!("{} files, {}B each", p.num, format_size(p.file_size)),
            format!(
                "{}B total file size",
                format_size(p.file_size * u64::from(p.num))
            ),
            format!("Block size {}B", format_size(p.block)),
        ];
        if p.merged > 0 {
            l.push(format!(
                "Merging requests up to {}B for sequential IO.",
                format_size(p.request_size)
            ));
        }
        if !self.mode.sequential() {
            l.push(format!("Number of IO requests: {}", self.max_events));
            l.push(format!(
                "Read/Write ratio for combined random IO test: {:2.2}",
                p.rw_ratio
            ));
        }
        if p.fsync_freq > 0 {
            l.push(format!(
                "Periodic FSYNC enabled, calling fsync() each {} requests.",
                p.fsync_freq
            ));
        }
        if p.fsync_end {
            l.push("Calling fsync() at the end of test, Enabled.".into());
        }
        if p.fsync_all {
            l.push("Calling fsync() after each write operation.".into());
        }
        l.push(format!(
            "Using {} I/O mode",
            match p.io {
                IoMode::Sync => "synchronous",
                IoMode::Async => "asynchronous",
                IoMode::Mmap => "fast mmaped",
            }
        ));
        if self.validate {
            l.push("Using checksums validation.".into());
        }
        l.push(format!("Doing {} test", self.mode.description()));
        l.into_iter().map(|x| (Level::Notice, x)).collect()
    }

    fn kind(&self) -> TestKind {
        TestKind::Fileio
    }
}

impl FileioWorker<'_> {
    /// Async mode: queue the request; once --file-async-backlog requests
    /// are in flight, wait for at least one (sysbench's file_submit_or_wait).
    /// Reads and writes are counted when they complete.
    fn submit(&mut self, opcode: u16, r: &Request, slot: &Slot) -> std::result::Result<(), String> {
        let t = self.t;
        let Some(ctx) = self.aio.as_mut() else {
            return Err("no asynchronous I/O context for this thread".into());
        };
        let cb = aio::Iocb {
            opcode,
            fildes: t.files[r.file as usize].as_raw_fd() as u32,
            buf: self.buf.ptr as u64,
            nbytes: r.size,
            offset: r.pos as i64,
            ..aio::Iocb::default()
        };
        ctx.submit(cb)
            .map_err(|e| format!("io_submit() failed! {}", errno_text(&e)))?;
        let in_flight = ctx.in_flight;
        if opcode == aio::CMD_PWRITE && t.p.fsync_all {
            t.fsync_file(r.file)?;
            slot.add(Counter::Fsyncs, 1);
        }
        if in_flight < t.p.backlog {
            return Ok(());
        }
        self.reap(1, slot)
    }

    /// Reap at least `min` completions and count them.
    fn reap(&mut self, min: usize, slot: &Slot) -> std::result::Result<(), String> {
        let Some(ctx) = self.aio.as_mut() else {
            return Ok(());
        };
        let n = ctx
            .reap(min)
            .map_err(|e| format!("io_getevents() failed! {}", errno_text(&e)))?;
        for e in &ctx.events[..n] {
            let cb = ctx.request(e);
            let read = cb.opcode == aio::CMD_PREAD;
            if e.res != cb.nbytes as i64 {
                return Err(format!(
                    "Asynchronous {} failed!\n",
                    if read { "read" } else { "write" }
                ));
            }
            if read {
                slot.add(Counter::Reads, 1);
                slot.add(Counter::BytesRead, cb.nbytes);
            } else {
                slot.add(Counter::Writes, 1);
                slot.add(Counter::BytesWritten, cb.nbytes);
            }
        }
        Ok(())
    }

    fn io_error(&self, what: &str, r: &Request) -> String {
        let e = std::io::Error::last_os_error();
        format!(
            "Failed to {what} file! file: {} pos: {} {}",
            self.t.files[r.file as usize].as_raw_fd(),
            r.pos,
            errno_text(&e)
        )
    }
}

impl Worker for FileioWorker<'_> {
    type Req = Request;

    fn next(&mut self) -> Option<Request> {
        Some(self.t.next_request(&mut self.rng))
    }

    fn execute(&mut self, r: Request, slot: &Slot, log: &Log) -> std::result::Result<(), String> {
        if self.t.debug {
            let op = match r.op {
                Op::Read => 1,
                Op::Write => 2,
                Op::Fsync => 3,
            };
            log.debug(&format!(
                "Executing request, operation: {op}, file_id: {}, pos: {}, size: {}",
                r.file, r.pos as i32, r.size as i32
            ));
        }
        let t = self.t;
        let len = r.size as usize;
        if len > self.buf.len {
            return Err(format!("I/O request exceeds the buffer: {len} bytes"));
        }
        match r.op {
            Op::Write => {
                if t.validate {
                    fill_block(&mut self.buf.as_mut()[..len], r.pos, &mut self.rng);
                }
                let done = match t.p.io {
                    IoMode::Async => return self.submit(aio::CMD_PWRITE, &r, slot),
                    IoMode::Sync => {
                        let fd = t.files[r.file as usize].as_raw_fd();
                        // SAFETY: writing `len` bytes from our buffer.
                        unsafe { libc::pwrite(fd, self.buf.ptr.cast(), len, r.pos as libc::off_t) }
                    }
                    IoMode::Mmap => {
                        let m = &t.maps[r.file as usize];
                        // SAFETY: pos + len <= file_size = the mapping's length.
                        unsafe {
                            std::ptr::copy_nonoverlapping(
                                self.buf.ptr,
                                m.ptr.add(r.pos as usize),
                                len,
                            )
                        };
                        len as isize
                    }
                };
                if done != len as isize {
                    return Err(self.io_error("write", &r));
                }
                if t.p.fsync_all {
                    t.fsync_file(r.file)?;
                    slot.add(Counter::Fsyncs, 1);
                }
                slot.add(Counter::Writes, 1);
                slot.add(Counter::BytesWritten, r.size);
            }
            Op::Read => {
                let done = match t.p.io {
                    IoMode::Async => return self.submit(aio::CMD_PREAD, &r, slot),
                    IoMode::Sync => {
                        let fd = t.files[r.file as usize].as_raw_fd();
                        // SAFETY: reading `len` bytes into our buffer.
                        unsafe { libc::pread(fd, self.buf.ptr.cast(), len, r.pos as libc::off_t) }
                    }
                    IoMode::Mmap => {
                        let m = &t.maps[r.file as usize];
                        // SAFETY: pos + len <= the mapping's length.
                        unsafe {
                            std::ptr::copy_nonoverlapping(
                                m.ptr.add(r.pos as usize),
                                self.buf.ptr,
                                len,
                            )
                        };
                        len as isize
                    }
                };
                if done != len as isize {
                    return Err(self.io_error("read", &r));
                }
                if t.validate {
                    check_block(&self.buf.as_mut()[..len], r.pos).map_err(|e| {
                        format!(
                            "{e}\nFATAL: Validation failed on file {}, block offset {}, exiting...",
                            r.file, r.pos
                        )
                    })?;
                }
                slot.add(Counter::Reads, 1);
                slot.add(Counter::BytesRead, r.size);
            }
            Op::Fsync => {
                if !t.p.fsync_all {
                    t.fsync_file(r.file)?;
                    slot.add(Counter::Fsyncs, 1);
                }
            }
        }
        Ok(())
    }

    fn finish(&mut self, slot: &Slot) {
        let t = self.t;
        if t.p.fsync_end && t.mode.writes() {
            for i in 0..t.p.num {
                if t.fsync_file(i).is_ok() {
                    slot.add(Counter::Fsyncs, 1);
                }
            }
        }
        // Wait for what async mode still has in flight (sysbench's thread_done).
        while self.aio.as_ref().is_some_and(|c| c.in_flight > 0) {
            if self.reap(1, slot).is_err() {
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_matches_zlib() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b""), 0);
    }

    #[test]
    fn validated_blocks_check() {
        let mut rng = Rng::for_thread(3, 0);
        let mut b = vec![0u8; 512];
        fill_block(&mut b, 4096, &mut rng);
        assert!(check_block(&b, 4096).is_ok());
        assert!(check_block(&b, 0).is_err());
        b[0] ^= 1;
        assert!(check_block(&b, 4096).is_err());
    }

    #[test]
    fn sequential_requests_walk_files_and_sweep_fsyncs() {
        let p = Params {
            num: 2,
            file_size: 2 * 16384,
            mode: Some(Mode::SeqWrite),
            io: IoMode::Sync,
            backlog: 0,
            block: 16384,
            merged: 0,
            request_size: 16384,
            flags: 0,
            flag_names: "(none)".into(),
            fsync_freq: 3,
            fsync_end: true,
            fsync_all: false,
            fdatasync: false,
            rw_ratio: 1.5,
        };
        let t = Fileio {
            p,
            mode: Mode::SeqWrite,
            validate: false,
            max_events: 0,
            files: Vec::new(),
            maps: Vec::new(),
            gen: Mutex::new(Generator::default()),
            buffers: Mutex::new(Vec::new()),
            aio: Mutex::new(Vec::new()),
            threads: 1,
            debug: false,
        };
        let mut rng = Rng::for_thread(1, 0);
        let ops: Vec<(Op, u32, u64)> = (0..7)
            .map(|_| {
                let r = t.next_request(&mut rng);
                (r.op, r.file, r.pos)
            })
            .collect();
        assert_eq!(
            ops,
            vec![
                (Op::Write, 0, 0),
                (Op::Write, 0, 16384),
                (Op::Write, 1, 0),
                (Op::Fsync, 0, 0),
                (Op::Fsync, 1, 0),
                (Op::Write, 1, 16384),
                (Op::Write, 0, 0),
            ]
        );
    }
}
