//! Errors are values: the exact text sysbench would print, the stream it
//! goes to and the exit status. `main` prints them once.

use std::fmt;

/// Where sysbench prints a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
}

/// A failure that ends the run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fail {
    pub stream: Stream,
    /// The full text, newline-terminated lines.
    pub text: String,
    pub code: i32,
}

impl Fail {
    /// `FATAL: <msg>` on stdout, exit 1 (sysbench's log_text(LOG_FATAL)).
    pub fn fatal(msg: impl fmt::Display) -> Self {
        Self {
            stream: Stream::Stdout,
            text: format!("FATAL: {msg}\n"),
            code: 1,
        }
    }

    /// A plain line on stderr, exit 1 (sysbench's fprintf(stderr)).
    pub fn stderr(msg: impl fmt::Display) -> Self {
        Self {
            stream: Stream::Stderr,
            text: format!("{msg}\n"),
            code: 1,
        }
    }

    /// A plain line on stdout, exit 1.
    pub fn stdout(msg: impl fmt::Display) -> Self {
        Self {
            stream: Stream::Stdout,
            text: format!("{msg}\n"),
            code: 1,
        }
    }

    /// Append more lines after the message.
    pub fn then(mut self, more: impl fmt::Display) -> Self {
        self.text.push_str(&more.to_string());
        self
    }
}

pub type Result<T> = std::result::Result<T, Fail>;

impl Fail {
    /// Exit with `code`, nothing more to print (the message went out as it
    /// happened).
    pub fn silent(code: i32) -> Self {
        Self {
            stream: Stream::Stdout,
            text: String::new(),
            code,
        }
    }
}

/// sysbench's log_errno tail: `errno = N (strerror text)`.
pub fn errno_text(e: &std::io::Error) -> String {
    let n = e.raw_os_error().unwrap_or(0);
    // A short read or write sets no errno: strerror(0) is glibc's "Success".
    format!("errno = {n} ({})", rbench_common::output::strerror(n))
}
