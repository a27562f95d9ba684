//! A rate-limited, single-line status display (fio's ETA line, progress
//! counters) that only draws when its stream is a terminal.

use std::io::{self, IsTerminal, Write};
use std::time::{Duration, Instant};

/// Rewrites one line in place (`\r`), at most once per `min_interval`.
///
/// [`StatusLine::new`] writes to stderr and is enabled only when stderr is a
/// terminal, so redirected output never contains status noise. Call
/// [`StatusLine::clear`] before printing results.
#[derive(Debug)]
pub struct StatusLine<W: Write = io::Stderr> {
    out: W,
    enabled: bool,
    min_interval: Duration,
    last: Option<Instant>,
    /// Characters currently shown (to blank them on clear/shorter lines).
    shown: usize,
    /// Terminal columns: longer lines are cut so they never wrap (a wrapped
    /// line cannot be redrawn with `\r`).
    width: Option<usize>,
}

impl StatusLine<io::Stderr> {
    /// A status line on stderr, enabled when stderr is a terminal.
    pub fn new(min_interval: Duration) -> Self {
        let enabled = io::stderr().is_terminal();
        let mut line = Self::with_writer(io::stderr(), enabled, min_interval);
        line.width = terminal_columns(libc::STDERR_FILENO);
        line
    }
}

/// The column count of the terminal on `fd`, if it is one and says.
fn terminal_columns(fd: libc::c_int) -> Option<usize> {
    // SAFETY: an all-zero winsize is a valid value of a plain C struct.
    let mut ws: libc::winsize = unsafe { std::mem::zeroed() };
    // SAFETY: TIOCGWINSZ writes one winsize into the valid, writable `ws`.
    let rc = unsafe { libc::ioctl(fd, libc::TIOCGWINSZ, &mut ws) };
    (rc == 0 && ws.ws_col > 0).then_some(usize::from(ws.ws_col))
}

impl<W: Write> StatusLine<W> {
    /// A status line on any writer with the enable flag forced (tests, or a
    /// tool option such as `--eta=always`).
    pub fn with_writer(out: W, enabled: bool, min_interval: Duration) -> Self {
        Self {
            out,
            enabled,
            min_interval,
            last: None,
            shown: 0,
            width: None,
        }
    }

    /// Cut lines to `columns - 1` characters (so the cursor never wraps).
    pub fn with_width(mut self, columns: usize) -> Self {
        self.width = Some(columns);
        self
    }

    /// Whether anything is ever drawn.
    pub fn is_enabled(&self) -> bool {
        self.enabled
    }

    /// Redraw the line with `f()` if enabled and at least `min_interval` has
    /// passed since the last draw (the first call always draws). `f` is only
    /// called when the line is drawn, so formatting costs nothing otherwise.
    pub fn update(&mut self, f: impl FnOnce() -> String) {
        self.update_at(Instant::now(), f);
    }

    /// [`StatusLine::update`] with the current time given (for callers that
    /// already read the clock, and for tests).
    pub fn update_at(&mut self, now: Instant, f: impl FnOnce() -> String) {
        if !self.enabled {
            return;
        }
        if let Some(last) = self.last {
            if now.saturating_duration_since(last) < self.min_interval {
                return;
            }
        }
        self.last = Some(now);
        let text = f();
        // A status line is one line: never let a newline scroll the terminal.
        let mut text = text.replace(['\n', '\r'], " ");
        if let Some(w) = self.width {
            if let Some((cut, _)) = text.char_indices().nth(w.saturating_sub(1)) {
                text.truncate(cut);
            }
        }
        let len = text.chars().count();
        let pad = self.shown.saturating_sub(len);
        // Errors writing a status line are not worth failing a run for.
        let _ = write!(self.out, "\r{text}{:pad$}", "");
        if pad > 0 {
            let _ = write!(self.out, "\r{text}");
        }
        let _ = self.out.flush();
        self.shown = len;
    }

    /// Erase the line (spaces over it, cursor back to column 0). The next
    /// [`StatusLine::update`] draws immediately.
    pub fn clear(&mut self) {
        self.last = None;
        if !self.enabled || self.shown == 0 {
            return;
        }
        let _ = write!(self.out, "\r{:w$}\r", "", w = self.shown);
        let _ = self.out.flush();
        self.shown = 0;
    }

    /// The writer back (tests inspect what was drawn).
    pub fn into_inner(self) -> W {
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(enabled: bool) -> StatusLine<Vec<u8>> {
        StatusLine::with_writer(Vec::new(), enabled, Duration::from_secs(1))
    }

    fn text(s: StatusLine<Vec<u8>>) -> String {
        String::from_utf8(s.into_inner()).unwrap()
    }

    #[test]
    fn rate_limits_and_skips_formatting() {
        let mut s = line(true);
        let t0 = Instant::now();
        let mut calls = 0;
        s.update_at(t0, || {
            calls += 1;
            "one".into()
        });
        s.update_at(t0 + Duration::from_millis(500), || {
            calls += 1;
            "two".into()
        });
        s.update_at(t0 + Duration::from_millis(1000), || {
            calls += 1;
            "three".into()
        });
        assert_eq!(calls, 2);
        assert_eq!(text(s), "\rone\rthree");
    }

    #[test]
    fn shorter_lines_blank_the_rest() {
        let mut s = line(true);
        let t0 = Instant::now();
        s.update_at(t0, || "longer".into());
        s.update_at(t0 + Duration::from_secs(1), || "ab".into());
        assert_eq!(text(s), "\rlonger\rab    \rab");
    }

    #[test]
    fn clear_erases_and_allows_immediate_redraw() {
        let mut s = line(true);
        let t0 = Instant::now();
        s.update_at(t0, || "abc".into());
        s.clear();
        s.clear(); // nothing shown: nothing written
        s.update_at(t0, || "x\ny".into());
        assert_eq!(text(s), "\rabc\r   \r\rx y");
    }

    #[test]
    fn long_lines_are_cut_to_the_terminal_width() {
        let mut s = line(true).with_width(6);
        s.update_at(Instant::now(), || "abcdefghij".into());
        assert_eq!(text(s), "\rabcde");
        let mut s = line(true).with_width(6);
        s.update_at(Instant::now(), || "äöü".into());
        assert_eq!(text(s), "\räöü");
    }

    #[test]
    fn disabled_writes_nothing_and_never_formats() {
        let mut s = line(false);
        assert!(!s.is_enabled());
        s.update(|| panic!("formatted while disabled"));
        s.clear();
        assert!(text(s).is_empty());
    }
}
