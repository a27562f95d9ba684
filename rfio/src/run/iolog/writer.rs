//! write_iolog: the job's I/O pattern as fio's "fio version 3 iolog"
//! (`usec file action [offset length]` lines after the version line).
//! The file is opened to append, as fio opens it; each line goes through
//! an 8 KiB buffer (fio's), so the job loop makes no system call for it.

use std::fmt::Write as _;
use std::io::{BufWriter, Write};
use std::path::PathBuf;

use crate::engine::{IoKind, IoUnit};

/// The version line fio writes first (and looks for on replay).
pub const VERSION3: &str = "fio version 3 iolog";
pub const VERSION2: &str = "fio version 2 iolog";

/// An open write_iolog.
pub struct IoLogWriter {
    out: BufWriter<std::fs::File>,
    /// rbench's monotonic ns when the log started (for [`Self::io_now`]).
    t0_ns: u64,
    names: Vec<String>,
    /// Files whose `open` line is written (fio opens them on first use).
    opened: Vec<bool>,
    /// Each file's last offset: fio's syncs log the offset their unit
    /// last had.
    last_offset: Vec<u64>,
}

/// fio's word for a direction.
fn action(kind: IoKind) -> &'static str {
    match kind {
        IoKind::Read => "read",
        IoKind::Write => "write",
        IoKind::Trim => "trim",
        IoKind::Fsync => "sync",
        IoKind::Fdatasync => "datasync",
    }
}

impl IoLogWriter {
    /// Open `path` to append, write the version line and an `add` line
    /// per file (at `usec` into the job). Err: fio's perror line.
    pub fn create(path: &str, files: &[PathBuf], usec: u64) -> Result<IoLogWriter, String> {
        let f = std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(path)
            .map_err(|e| format!("fopen write iolog: {}\n", strerror(&e)))?;
        let names: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
        let mut w = IoLogWriter {
            out: BufWriter::with_capacity(8192, f),
            t0_ns: rbench_common::clock::now_ns().saturating_sub(usec * 1000),
            opened: vec![false; names.len()],
            last_offset: vec![0; names.len()],
            names,
        };
        let mut head = format!("{VERSION3}\n");
        for n in &w.names {
            let _ = writeln!(head, "{usec} {n} add");
        }
        let _ = w.out.write_all(head.as_bytes());
        Ok(w)
    }

    /// The line of one I/O as it is queued, `usec` into the job (the
    /// file's `open` line first, the first time). Hot path: buffered.
    #[inline]
    pub fn io(&mut self, usec: u64, io: &IoUnit) {
        let f = io.file.min(self.names.len().saturating_sub(1));
        let Some(name) = self.names.get(f) else {
            return;
        };
        if !self.opened[f] {
            self.opened[f] = true;
            let _ = writeln!(self.out, "{usec} {name} open");
        }
        let (offset, len) = match io.kind {
            IoKind::Fsync | IoKind::Fdatasync => (self.last_offset[f], 0),
            _ => {
                self.last_offset[f] = io.offset;
                (io.offset, io.len)
            }
        };
        let _ = writeln!(self.out, "{usec} {name} {} {offset} {len}", action(io.kind));
    }

    /// [`Self::io`] timed now (the verify phase's reads, issued beside
    /// the job loop's clock).
    pub fn io_now(&mut self, io: &IoUnit) {
        let usec = rbench_common::clock::now_ns().saturating_sub(self.t0_ns) / 1000;
        self.io(usec, io);
    }

    /// fio closes the files between loops and before its verify phase:
    /// `close` lines now, `open` lines again at each file's next I/O.
    pub fn reopen(&mut self, usec: u64) {
        self.close_lines(usec);
        self.opened.fill(false);
    }

    fn close_lines(&mut self, usec: u64) {
        for (n, _) in self.names.iter().zip(&self.opened).filter(|(_, o)| **o) {
            let _ = writeln!(self.out, "{usec} {n} close");
        }
    }

    /// The `close` line of each file opened, then the rest of the buffer
    /// out.
    pub fn close(mut self, usec: u64) {
        self.close_lines(usec);
        let _ = self.out.flush();
    }
}

fn strerror(e: &std::io::Error) -> String {
    rbench_common::output::strerror(e.raw_os_error().unwrap_or(libc::EIO))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_as_fio_writes_them() {
        let dir = std::env::temp_dir().join(format!("rfio-iolog-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("log");
        let _ = std::fs::remove_file(&path);
        let p = path.to_str().unwrap();
        let mut w = IoLogWriter::create(p, &[PathBuf::from("f1")], 11).unwrap();
        let mut u = IoUnit::new(std::ptr::null_mut());
        u.kind = IoKind::Write;
        u.offset = 8192;
        u.len = 4096;
        w.io(20, &u);
        u.kind = IoKind::Fsync;
        u.offset = 0;
        w.io(30, &u);
        w.close(40);
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            text,
            "fio version 3 iolog\n11 f1 add\n20 f1 open\n20 f1 write 8192 4096\n\
             30 f1 sync 8192 0\n40 f1 close\n"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
