//! Reports: the measured data rendered as iperf3 text, `-J` JSON,
//! `--json-stream` lines or CSV. Measuring code hands data to [`Report`];
//! each format lives in its own module.

pub mod csv;
pub mod json;
pub mod sum;
pub mod text;

use crate::measure::Interval;
use crate::options::OutputKind;
use serde_json::{Map, Value};
use std::fs::File;
use std::io::Write;

/// What decides the shape of the lines.
#[derive(Debug, Clone)]
pub struct Ctx {
    pub is_client: bool,
    pub udp: bool,
    pub bidir: bool,
    pub reverse: bool,
    pub num_streams: usize,
    pub format: char,
    pub verbose: bool,
    /// This side sends TCP with TCP_INFO (iperf3's `sender_has_retransmits`).
    pub sender_has_retransmits: bool,
}

impl Ctx {
    /// Whether this side's streams send (outside bidir).
    pub fn local_sends(&self) -> bool {
        self.is_client != self.reverse
    }

    /// Which streams print first: client senders first, server receivers first.
    pub fn direction_order(&self) -> Vec<bool> {
        if self.bidir {
            if self.is_client {
                vec![true, false]
            } else {
                vec![false, true]
            }
        } else {
            vec![self.local_sends()]
        }
    }
}

pub struct Connected {
    pub socket: i32,
    pub local_host: String,
    pub local_port: u16,
    pub remote_host: String,
    pub remote_port: u16,
}

/// The test as announced in `start.test_start`.
#[derive(Debug, Clone, Default)]
pub struct TestDesc {
    pub udp: bool,
    pub num_streams: i64,
    pub blksize: i64,
    pub omit: i64,
    pub duration: i64,
    pub bytes: u64,
    pub blocks: u64,
    pub reverse: bool,
    pub tos: i64,
    pub rate: u64,
    pub window: i64,
    pub mss: i64,
}

/// Everything for the `start` object.
#[derive(Default)]
pub struct StartInfo {
    pub connected: Vec<Connected>,
    pub system_info: String,
    pub time: String,
    pub timesecs: i64,
    pub peer_host: String,
    pub peer_port: u16,
    pub cookie: String,
    pub tcp_mss: i64,
    pub sndbuf_actual: i64,
    pub rcvbuf_actual: i64,
    pub test: Option<TestDesc>,
    /// Client: what 3.12 puts in `start` on connecting, before the test is
    /// described (a test the server refuses still shows it).
    pub on_connect: Option<OnConnect>,
}

/// The `start` keys a 3.12 client adds when the control connection is up.
#[derive(Debug, Clone, Default)]
pub struct OnConnect {
    /// TCP (3.12: SOCK_STREAM): the tcp_mss keys are added.
    pub tcp: bool,
    pub mss: i64,
    pub rate: u64,
}

/// One stream's end-of-test view: both directions, as far as known.
#[derive(Debug, Clone, Default)]
pub struct SummaryStream {
    pub socket: i32,
    pub sender: bool,
    pub bytes_sent: u64,
    pub bytes_received: u64,
    pub sender_time: f64,
    pub receiver_time: f64,
    pub retransmits: i64,
    pub max_snd_cwnd: u64,
    pub max_snd_wnd: u64,
    pub max_rtt: u64,
    pub min_rtt: u64,
    pub mean_rtt: u64,
    pub sender_packets: i64,
    pub receiver_packets: i64,
    pub lost: i64,
    pub jitter: f64,
    pub out_of_order: u64,
}

#[derive(Debug, Clone, Default)]
pub struct Summary {
    pub streams: Vec<SummaryStream>,
    pub cpu: (f64, f64, f64),
    pub remote_cpu: (f64, f64, f64),
    pub sender_has_retransmits: bool,
    pub other_side_has_retransmits: bool,
    pub sender_congestion: Option<String>,
    pub receiver_congestion: Option<String>,
    /// `-F`: the file's name and size.
    pub file: Option<(String, u64)>,
}

/// Where lines go: stdout or `--logfile`, with `-T` and `--timestamps`
/// prefixes; optionally kept for `--get-server-output`.
pub struct Out {
    file: Option<File>,
    pub title: Option<String>,
    pub timestamps: Option<String>,
    pub forceflush: bool,
    pub capture: Option<String>,
}

impl Out {
    pub fn new(logfile: Option<&str>) -> std::io::Result<Out> {
        let file = match logfile {
            Some(p) => Some(
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(p)?,
            ),
            None => None,
        };
        Ok(Out {
            file,
            title: None,
            timestamps: None,
            forceflush: false,
            capture: None,
        })
    }

    /// The `--timestamps` and `-T` prefix of a line.
    fn prefix(&self) -> String {
        let mut l = String::with_capacity(32);
        if let Some(fmt) = &self.timestamps {
            l.push_str(&strftime_now(fmt));
        }
        if let Some(t) = &self.title {
            l.push_str(t);
            l.push_str(":  ");
        }
        l
    }

    /// Print a prefix with no text after it: 3.12's `-V` client prints an
    /// empty string ahead of its system line, whose prefix then comes twice.
    pub fn prefix_only(&mut self) {
        let p = self.prefix();
        self.raw(&p);
    }

    /// Print one line (newline added).
    pub fn line(&mut self, s: &str) {
        let mut l = self.prefix();
        l.push_str(s);
        l.push('\n');
        if let Some(c) = &mut self.capture {
            c.push_str(s);
            c.push('\n');
        }
        self.raw(&l);
    }

    /// Print text as is.
    pub fn raw(&mut self, s: &str) {
        match &mut self.file {
            Some(f) => {
                let _ = f.write_all(s.as_bytes());
            }
            None => {
                let mut o = std::io::stdout().lock();
                let _ = o.write_all(s.as_bytes());
                let _ = o.flush();
            }
        }
    }
}

/// `strftime` of the local time now.
pub fn strftime_now(fmt: &str) -> String {
    let Ok(cfmt) = std::ffi::CString::new(fmt) else {
        return String::new();
    };
    // SAFETY: time/localtime_r/strftime with valid buffers.
    unsafe {
        let t = libc::time(std::ptr::null_mut());
        let mut tm: libc::tm = std::mem::zeroed();
        libc::localtime_r(&t, &mut tm);
        let mut buf = [0u8; 256];
        let n = libc::strftime(
            buf.as_mut_ptr() as *mut libc::c_char,
            buf.len(),
            cfmt.as_ptr(),
            &tm,
        );
        String::from_utf8_lossy(&buf[..n]).into_owned()
    }
}

/// RFC 1123 time in GMT, as iperf3's `Time:` line and JSON timestamp.
pub fn gmt_now() -> (String, i64) {
    // SAFETY: time/gmtime_r/strftime with valid buffers.
    unsafe {
        let t = libc::time(std::ptr::null_mut());
        let mut tm: libc::tm = std::mem::zeroed();
        libc::gmtime_r(&t, &mut tm);
        let mut buf = [0u8; 64];
        let fmt = b"%a, %d %b %Y %H:%M:%S GMT\0";
        let n = libc::strftime(
            buf.as_mut_ptr() as *mut libc::c_char,
            buf.len(),
            fmt.as_ptr() as *const libc::c_char,
            &tm,
        );
        (String::from_utf8_lossy(&buf[..n]).into_owned(), t as i64)
    }
}

/// `uname -a`-like line for `system_info` and `-V`.
pub fn system_info() -> String {
    // SAFETY: uname fills a plain struct.
    unsafe {
        let mut u: libc::utsname = std::mem::zeroed();
        if libc::uname(&mut u) != 0 {
            return String::new();
        }
        let f = |b: &[libc::c_char]| {
            std::ffi::CStr::from_ptr(b.as_ptr())
                .to_string_lossy()
                .into_owned()
        };
        format!(
            "{} {} {} {} {}",
            f(&u.sysname),
            f(&u.nodename),
            f(&u.release),
            f(&u.version),
            f(&u.machine)
        )
    }
}

/// The report for one test, in the chosen format.
pub struct Report {
    pub kind: OutputKind,
    pub ctx: Ctx,
    pub out: Out,
    first_interval: bool,
    pub start: Value,
    intervals: Vec<Value>,
    end: Value,
    /// CSV header printed already (rows are printed as they come).
    csv_header_done: bool,
    pub extra_top: Vec<(String, Value)>,
}

impl Report {
    pub fn new(kind: OutputKind, ctx: Ctx, out: Out) -> Report {
        Report {
            kind,
            ctx,
            out,
            first_interval: true,
            start: Value::Object(Map::new()),
            intervals: Vec::new(),
            end: Value::Object(Map::new()),
            csv_header_done: false,
            extra_top: Vec::new(),
        }
    }

    pub fn is_text(&self) -> bool {
        self.kind == OutputKind::Text
    }

    /// A text-mode line (ignored in other formats).
    pub fn text(&mut self, s: &str) {
        if self.is_text() {
            self.out.line(s);
        }
    }

    pub fn set_start(&mut self, info: &StartInfo) {
        self.start = json::start(info, self.ctx.is_client);
        if self.kind == OutputKind::JsonStream {
            self.stream_event("start", self.start.clone());
        }
    }

    fn stream_event(&mut self, event: &str, data: Value) {
        let mut m = Map::new();
        m.insert("event".into(), event.into());
        m.insert("data".into(), data);
        let line = crate::protocol::cjson::to_compact(&Value::Object(m));
        self.out.raw(&line);
        self.out.raw("\n");
    }

    pub fn interval(&mut self, iv: &Interval) {
        match self.kind {
            OutputKind::Text => {
                for l in text::interval_lines(&self.ctx, iv, self.first_interval) {
                    self.out.line(&l);
                }
            }
            OutputKind::Json => self.intervals.push(json::interval(&self.ctx, iv)),
            OutputKind::JsonStream => {
                let v = json::interval(&self.ctx, iv);
                self.stream_event("interval", v);
            }
            OutputKind::Csv => {
                let rows = csv::interval_rows(&self.ctx, iv);
                self.csv_print(&rows);
            }
        }
        self.first_interval = false;
    }

    pub fn summary(&mut self, s: &Summary) {
        match self.kind {
            OutputKind::Text => {
                for l in text::summary_lines(&self.ctx, s) {
                    self.out.line(&l);
                }
            }
            OutputKind::Json | OutputKind::JsonStream => self.end = json::end(&self.ctx, s),
            OutputKind::Csv => {
                let rows = csv::summary_rows(&self.ctx, s);
                self.csv_print(&rows);
            }
        }
    }

    /// The whole JSON document so far (used for `server_output_json` too).
    pub fn json_document(&self, error: Option<&str>) -> Value {
        let mut m = Map::new();
        m.insert("start".into(), self.start.clone());
        m.insert("intervals".into(), Value::Array(self.intervals.clone()));
        m.insert("end".into(), self.end.clone());
        if let Some(e) = error {
            m.insert("error".into(), e.into());
        }
        for (k, v) in &self.extra_top {
            m.insert(k.clone(), v.clone());
        }
        Value::Object(m)
    }

    /// Print the end of the report (JSON document, CSV table).
    pub fn finish(&mut self, error: Option<&str>) {
        match self.kind {
            OutputKind::Text => {}
            OutputKind::Json => {
                let doc = self.json_document(error);
                let mut s = crate::protocol::cjson::to_pretty(&doc);
                s.push('\n');
                self.out.raw(&s);
            }
            OutputKind::JsonStream => {
                if let Some(e) = error {
                    self.stream_event("error", e.into());
                }
                let extra = std::mem::take(&mut self.extra_top);
                for (k, v) in extra {
                    if k.starts_with("server_output") {
                        self.stream_event(&k, v);
                    }
                }
                let end = self.end.clone();
                self.stream_event("end", end);
            }
            OutputKind::Csv => {
                if let Some(e) = error {
                    eprintln!("iperf3: error - {e}");
                }
            }
        }
    }

    /// Print CSV rows now, the header once before the first.
    fn csv_print(&mut self, rows: &[csv::Row]) {
        if rows.is_empty() {
            return;
        }
        match rbench_common::output::to_csv(rows) {
            Ok(text) => {
                let body = if self.csv_header_done {
                    text.split_once('\n').map_or("", |(_, rest)| rest)
                } else {
                    &text
                };
                self.out.raw(body);
                self.csv_header_done = true;
            }
            Err(e) => eprintln!("iperf3: error - {e}"),
        }
    }
}
