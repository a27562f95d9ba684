//! stdout as C's stdio has it: fully buffered (4 KiB) when it is a pipe or
//! a file, line buffered on a terminal (spec §2), written with write(2) on
//! fd 1 without Rust's own line buffering underneath.

use std::io::{self, BufWriter, Write};

struct Fd1;

impl Write for Fd1 {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        // SAFETY: buf is valid for buf.len() bytes; fd 1 is ours to write.
        let n = unsafe { libc::write(1, buf.as_ptr().cast(), buf.len()) };
        if n < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(n as usize)
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Buffered stdout.
pub struct Out {
    inner: BufWriter<Fd1>,
    line_buffered: bool,
}

impl Out {
    pub fn stdout() -> Out {
        // SAFETY: isatty only inspects the descriptor.
        let tty = unsafe { libc::isatty(1) } == 1;
        Out {
            inner: BufWriter::with_capacity(4096, Fd1),
            line_buffered: tty,
        }
    }

    /// A line (or lines) was written: flush when stdout is a terminal.
    pub fn line_done(&mut self) -> io::Result<()> {
        if self.line_buffered {
            self.inner.flush()?;
        }
        Ok(())
    }
}

impl Write for Out {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}
