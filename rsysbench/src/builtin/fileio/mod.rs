//! `fileio` (spec §6.5, sysbench 1.0.20's sb_fileio.c): files
//! `test_file.0 .. N-1` in the current directory, each --file-total-size/N
//! bytes. `prepare` creates them, `cleanup` removes them, `run` issues
//! sequential or random requests from one shared generator (sysbench's
//! request mutex: the periodic fsync sweep and the sequential cursor are
//! shared state), with sysbench's fsync rules.

mod io;
mod params;
mod request;
mod validate;
mod worker;

use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::Mutex;

use rbench_common::clock::now_ns;
use rbench_common::units::sysbench::format_size;

use crate::aio;
use crate::args::Values;
use crate::builtin::{ModeLine, Test};
use crate::error::{Fail, Result};
use crate::log::{Level, Log};
use crate::result::TestKind;
use crate::rng::Rng;
use crate::settings::Settings;

use io::{errno_text, file_name, open_raw, Buffer, Map};
use params::{IoMode, Mode, Params};
use request::Generator;
use validate::fill_block;
pub use worker::FileioWorker;

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

impl Test for Fileio {
    type Worker<'a> = FileioWorker<'a>;

    fn worker(&self, thread: usize, seed: u64) -> Option<FileioWorker<'_>> {
        Some(FileioWorker {
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
        })
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

#[cfg(test)]
mod tests {
    use super::request::Op;
    use super::validate::{check_block, crc32};
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
