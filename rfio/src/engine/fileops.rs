//! The file operation engines (fio's fileoperations): filecreate,
//! filestat and filedelete move no data; each opens (O_CREAT), stats or
//! unlinks a job's file the first time an I/O comes to it, and that I/O's
//! latency is the operation's. The other I/Os of a file complete at once.

use super::Config;
use super::{Engine, IoUnit, Queued};
use std::ffi::CString;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Create,
    Stat(StatType),
    Delete,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatType {
    Stat,
    Lstat,
    Statx,
}

pub struct FileOps {
    op: Op,
    /// The job's files, as C strings (made once, before the loop).
    paths: Vec<CString>,
    /// Files already operated on.
    done: Vec<bool>,
    /// Descriptors filecreate opened (closed when the job ends).
    fds: Vec<libc::c_int>,
}

impl FileOps {
    pub fn new(cfg: &Config, op: Op) -> Self {
        let paths: Vec<CString> = cfg
            .filenames
            .iter()
            .map(|p| CString::new(p.as_os_str().as_encoded_bytes()).unwrap_or_default())
            .collect();
        FileOps {
            op,
            done: vec![false; paths.len()],
            fds: Vec::with_capacity(paths.len()),
            paths,
        }
    }

    pub fn stat_type(cfg: &Config) -> StatType {
        match cfg.opts.choice("stat_type").0.as_str() {
            "lstat" => StatType::Lstat,
            "statx" => StatType::Statx,
            _ => StatType::Stat,
        }
    }

    /// The operation on file `i`: 0 or -errno.
    fn operate(&mut self, i: usize) -> i64 {
        let Some(p) = self.paths.get(i) else {
            return 0;
        };
        // SAFETY: NUL-terminated paths, buffers of our own.
        let r = unsafe {
            match self.op {
                Op::Create => {
                    let fd = libc::open(p.as_ptr(), libc::O_CREAT | libc::O_RDWR, 0o600);
                    if fd >= 0 {
                        self.fds.push(fd);
                    }
                    fd
                }
                Op::Stat(t) => {
                    let mut st: libc::stat = std::mem::zeroed();
                    match t {
                        StatType::Stat => libc::stat(p.as_ptr(), &mut st),
                        StatType::Lstat => libc::lstat(p.as_ptr(), &mut st),
                        StatType::Statx => {
                            let mut sx: libc::statx = std::mem::zeroed();
                            libc::statx(libc::AT_FDCWD, p.as_ptr(), 0, libc::STATX_ALL, &mut sx)
                        }
                    }
                }
                Op::Delete => libc::unlink(p.as_ptr()),
            }
        };
        if r < 0 {
            super::neg_errno()
        } else {
            0
        }
    }
}

impl Drop for FileOps {
    fn drop(&mut self) {
        for &fd in &self.fds {
            // SAFETY: descriptors this engine opened.
            unsafe { libc::close(fd) };
        }
    }
}

impl Engine for FileOps {
    fn queue(&mut self, _idx: usize, io: &mut IoUnit) -> Queued {
        let first = self.done.get(io.file).is_some_and(|d| !d);
        io.result = io.len as i64;
        if first {
            self.done[io.file] = true;
            let r = self.operate(io.file);
            if r < 0 {
                io.result = r;
            }
        }
        Queued::Completed
    }
}
