//! sysbench's log: levels with prefixes, a verbosity filter, and the
//! "(last message repeated N times)" folding of identical lines (spec §2).
//! Text goes to stdout as sysbench's does; with --output-format=json|csv it
//! goes to stderr so stdout holds only the document.

use std::io::Write;
use std::sync::Mutex;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Fatal = 0,
    Alert = 1,
    Warning = 2,
    Notice = 3,
    Info = 4,
    Debug = 5,
}

impl Level {
    fn prefix(self) -> &'static str {
        match self {
            Level::Fatal => "FATAL: ",
            Level::Alert => "ALERT: ",
            Level::Warning => "WARNING: ",
            Level::Debug => "DEBUG: ",
            Level::Notice | Level::Info => "",
        }
    }
}

struct State {
    last: Option<String>,
    repeats: u64,
}

pub struct Log {
    verbosity: u8,
    to_stderr: bool,
    state: Mutex<State>,
}

impl Log {
    pub fn new(verbosity: u8, to_stderr: bool) -> Self {
        Self {
            verbosity,
            to_stderr,
            state: Mutex::new(State {
                last: None,
                repeats: 0,
            }),
        }
    }

    pub fn enabled(&self, level: Level) -> bool {
        (level as u8) <= self.verbosity
    }

    fn write(&self, text: &str) {
        if self.to_stderr {
            let mut e = std::io::stderr().lock();
            let _ = e.write_all(text.as_bytes());
        } else {
            let mut o = std::io::stdout().lock();
            let _ = o.write_all(text.as_bytes());
            let _ = o.flush();
        }
    }

    /// Print one message (without its newline) at `level`.
    pub fn msg(&self, level: Level, text: &str) {
        if !self.enabled(level) {
            return;
        }
        let line = format!("{}{text}", level.prefix());
        let mut st = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let foldable = !text.starts_with("[ ");
        if foldable && st.last.as_deref() == Some(line.as_str()) {
            st.repeats += 1;
            return;
        }
        let mut out = String::new();
        if st.repeats > 0 {
            out.push_str(&format!("(last message repeated {} times)\n", st.repeats));
            st.repeats = 0;
        }
        out.push_str(&line);
        out.push('\n');
        st.last = foldable.then_some(line);
        self.write(&out);
    }

    /// Print a block of text as-is (reports), if NOTICE is shown.
    pub fn block(&self, level: Level, text: &str) {
        if !self.enabled(level) || text.is_empty() {
            return;
        }
        let mut st = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let mut out = String::new();
        if st.repeats > 0 {
            out.push_str(&format!("(last message repeated {} times)\n", st.repeats));
            st.repeats = 0;
        }
        st.last = None;
        out.push_str(text);
        self.write(&out);
    }

    pub fn notice(&self, text: &str) {
        self.msg(Level::Notice, text);
    }
    pub fn info(&self, text: &str) {
        self.msg(Level::Info, text);
    }
    pub fn debug(&self, text: &str) {
        self.msg(Level::Debug, text);
    }
}

static GLOBAL: std::sync::OnceLock<Log> = std::sync::OnceLock::new();

/// Make `log` the program's log, reachable from code that C or Lua calls
/// (the database drivers, the `sb_*` exports). The first call wins.
pub fn set_global(log: Log) -> &'static Log {
    let _ = GLOBAL.set(log);
    global()
}

/// The program's log (sysbench's defaults until [`set_global`] ran).
pub fn global() -> &'static Log {
    GLOBAL.get_or_init(|| Log::new(3, false))
}
