//! read_iolog: a version 2 or 3 iolog read into the entries a job replays
//! (fio's read_iolog), and the cursor the job's picker walks them with.

use std::io::{BufReader, Read};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::writer::{VERSION2, VERSION3};
use crate::engine::IoKind;
use crate::job::replay::{Entry, Log, Op, Replay};

/// Why a log cannot be replayed: fio's lines for stderr; the job then
/// fails with EINVAL (`failed initializing iolog`).
pub type LoadError = String;

/// Read the log of `r` (`-`: stdin), refusing a blktrace (rfio cannot
/// replay those) and a log without a version 2 or 3 line, as fio does.
pub fn load(r: &Replay, read_only: bool) -> Result<Log, LoadError> {
    let mut log = Log::default();
    let text = read_text(r, &mut log.warnings)?;
    let mut lines = text.split_inclusive('\n');
    let first = lines.next().unwrap_or("");
    let version = if first.starts_with(VERSION2) {
        2
    } else if first.starts_with(VERSION3) {
        3
    } else {
        return Err(log.warnings + "fio: iolog version 1 is no longer supported\n");
    };
    let mut last_time = 0u64;
    for line in lines {
        parse_line(&mut log, line, version, r, read_only, &mut last_time);
    }
    // fio replays nothing without a read, a write or a wait.
    let waits = log.entries.iter().any(|e| matches!(e.op, Op::WaitMs(_)));
    if !waits && !has_rw(&log) {
        return Err(log.warnings);
    }
    Ok(log)
}

/// The log's text; a file is first looked at as a blktrace, as fio
/// does (one shorter than a trace event says so).
fn read_text(r: &Replay, warnings: &mut String) -> Result<String, LoadError> {
    let unreadable = |e: std::io::Error| format!("fio: unable to read iolog\n{}\n", os_text(&e));
    if r.file == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(unreadable)?;
        return Ok(text);
    }
    let f =
        std::fs::File::open(&r.file).map_err(|e| format!("fopen read iolog: {}\n", os_text(&e)))?;
    let mut head = Vec::new();
    BufReader::new(&f)
        .take(48)
        .read_to_end(&mut head)
        .map_err(|e| format!("read blktrace: {}\n", os_text(&e)))?;
    if head.len() < 48 {
        warnings.push_str("fio: short read on blktrace file\n");
    } else if is_blktrace(&head) {
        // rfio replays no blktrace: refused as a fio built without
        // blktrace support refuses one (its first line is no version).
        return Err("fio: iolog version 1 is no longer supported\n".into());
    }
    let bytes = std::fs::read(&r.file).map_err(unreadable)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

fn has_rw(log: &Log) -> bool {
    log.entries
        .iter()
        .any(|e| matches!(e.op, Op::Io(IoKind::Read | IoKind::Write)))
}

/// A blktrace's first event starts with its magic (either byte order).
fn is_blktrace(head: &[u8]) -> bool {
    const MAGIC: u32 = 0x6561_7400;
    if head.len() < 48 {
        return false;
    }
    let m = [head[0], head[1], head[2], head[3]];
    (u32::from_le_bytes(m) & 0xffff_ff00) == MAGIC || (u32::from_be_bytes(m) & 0xffff_ff00) == MAGIC
}

fn os_text(e: &std::io::Error) -> String {
    rbench_common::output::strerror(e.raw_os_error().unwrap_or(libc::EIO))
}

/// fio's `%llu`/`%u` of sscanf: leading blanks, an optional sign, digits.
fn scan_u64(w: &str) -> Option<u64> {
    let d = w.strip_prefix('+').unwrap_or(w);
    let end = d.find(|c: char| !c.is_ascii_digit()).unwrap_or(d.len());
    d[..end].parse().ok()
}

/// The fields sscanf would match in order (it stops at the first that
/// does not): numbers where fio reads numbers.
fn fields<'a>(line: &'a str, numeric: &[bool]) -> Vec<&'a str> {
    let mut out = Vec::new();
    for (w, &num) in line.split_whitespace().zip(numeric) {
        if num && scan_u64(w).is_none() {
            break;
        }
        out.push(w);
    }
    out
}

/// One line of the log into `log` (as fio's read_iolog: bad lines are
/// reported and skipped).
fn parse_line(
    log: &mut Log,
    line: &str,
    version: u8,
    r: &Replay,
    read_only: bool,
    last_time: &mut u64,
) {
    let (f, delay) = if version == 3 {
        let f = fields(line, &[true, false, false, true, true]);
        let t = f.first().and_then(|t| scan_u64(t)).unwrap_or(*last_time);
        let delay = delay_since(*last_time, t, r);
        *last_time = t;
        (f.get(1..).map(<[&str]>::to_vec).unwrap_or_default(), delay)
    } else {
        (fields(line, &[false, false, true, true]), 0)
    };
    let name = r.redirect.as_deref().or(f.first().copied()).unwrap_or("");
    let act = f.get(1).copied().unwrap_or("");
    if version == 3 && act == "wait" {
        log.warnings.push_str(&format!(
            "iolog: ignoring wait command with version 3 for file {name}\n"
        ));
        return;
    }
    let entry = match f.len() {
        4 => io_entry(log, name, act, &f, delay),
        2 => file_entry(log, name, act, delay),
        _ => {
            log.warnings
                .push_str(&format!("bad iolog{version}: {line}\n"));
            return;
        }
    };
    let Some(mut e) = entry else { return };
    match e.op {
        Op::Io(IoKind::Write) if read_only => return,
        Op::WaitMs(_) if r.no_stall => return,
        _ => {}
    }
    if let Op::Io(k) = e.op {
        e.offset = e.offset.checked_div(r.scale).unwrap_or(e.offset);
        if r.align > 0 {
            e.offset &= !(r.align - 1);
        }
        let d = match k {
            IoKind::Read => 0,
            IoKind::Write => 1,
            IoKind::Trim => 2,
            _ => 3,
        };
        if d < 3 {
            log.bytes[d] += e.len;
            log.max_len[d] = log.max_len[d].max(e.len);
        }
    }
    log.entries.push(e);
}

/// fio's delay_since_ttime: the logged time since the entry before,
/// scaled; none for the first, going back, or replay_no_stall.
fn delay_since(last: u64, t: u64, r: &Replay) -> u64 {
    if last == 0 || r.no_stall || t < last {
        0
    } else if r.time_scale == 100 {
        t - last
    } else {
        ((t - last) as f64 * (100.0 / r.time_scale as f64)) as u64
    }
}

fn io_entry(log: &mut Log, name: &str, act: &str, f: &[&str], delay: u64) -> Option<Entry> {
    let offset = scan_u64(f[2]).unwrap_or(0);
    let len = scan_u64(f[3]).unwrap_or(0) & 0xffff_ffff;
    let op = match act {
        "wait" => Op::WaitMs(offset),
        "read" => Op::Io(IoKind::Read),
        "write" => Op::Io(IoKind::Write),
        "sync" => Op::Io(IoKind::Fsync),
        "datasync" => Op::Io(IoKind::Fdatasync),
        "trim" => Op::Io(IoKind::Trim),
        _ => {
            log.warnings
                .push_str(&format!("fio: bad iolog file action: {act}\n"));
            return None;
        }
    };
    // An I/O on a file no `add` line named has nowhere to go.
    let file = log.files.iter().position(|n| n == name)?;
    Some(Entry {
        op,
        file,
        offset,
        len,
        delay_us: delay,
    })
}

fn file_entry(log: &mut Log, name: &str, act: &str, delay: u64) -> Option<Entry> {
    let file = match act {
        "add" => match log.files.iter().position(|n| n == name) {
            Some(i) => i,
            None => {
                log.files.push(name.to_string());
                log.files.len() - 1
            }
        },
        "open" | "close" => log.files.iter().position(|n| n == name)?,
        _ => {
            log.warnings
                .push_str(&format!("fio: bad iolog file action: {act}\n"));
            return None;
        }
    };
    Some(Entry {
        op: Op::File,
        file,
        offset: 0,
        len: 0,
        delay_us: delay,
    })
}

/// Walks a log's entries for the picker, waiting out each entry's delay
/// (fio's iolog_delay: the time since the last I/O counts against it).
#[derive(Debug)]
pub struct Cursor {
    log: Arc<Log>,
    at: usize,
    start: Instant,
    last: Instant,
}

impl Cursor {
    pub fn new(log: Arc<Log>) -> Cursor {
        let now = Instant::now();
        Cursor {
            log,
            at: 0,
            start: now,
            last: now,
        }
    }

    /// The next I/O: its kind, file, offset and length; None at the end.
    pub fn next(&mut self) -> Option<(IoKind, usize, u64, u64)> {
        while let Some(e) = self.log.entries.get(self.at).copied() {
            self.at += 1;
            if e.delay_us > 0 {
                self.wait_for(Duration::from_micros(e.delay_us));
            }
            match e.op {
                Op::Io(k) => {
                    if e.delay_us > 0 {
                        self.last = Instant::now();
                    }
                    return Some((k, e.file, e.offset, e.len));
                }
                Op::WaitMs(ms) => {
                    let due = self.start + Duration::from_millis(ms);
                    crate::run::pacing::pause::sleep(due.saturating_duration_since(Instant::now()));
                }
                Op::File => {}
            }
        }
        None
    }

    /// Sleep what of `d` has not passed since the last I/O (cold: only
    /// logs with times wait).
    #[cold]
    fn wait_for(&mut self, d: Duration) {
        let passed = self.last.elapsed();
        if d > passed {
            crate::run::pacing::pause::sleep(d - passed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn replay(file: &str) -> Replay {
        Replay {
            file: file.into(),
            chunked: false,
            no_stall: true,
            redirect: None,
            scale: 1,
            align: 0,
            time_scale: 100,
            log: None,
            load_error: None,
        }
    }

    fn load_text(text: &str, r: &mut Replay) -> Result<Log, LoadError> {
        let dir = std::env::temp_dir().join(format!("rfio-ioread-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(format!("log{}", text.len()));
        std::fs::write(&p, text).unwrap();
        r.file = p.display().to_string();
        let l = load(r, false);
        let _ = std::fs::remove_dir_all(&dir);
        l
    }

    #[test]
    fn version2_and_3_read_alike() {
        let v2 = "fio version 2 iolog\nf add\nf open\nf write 0 4096\nf read 8192 8192\nf close\n";
        let v3 = "fio version 3 iolog\n1 f add\n2 f open\n3 f write 0 4096\n9 f read 8192 8192\n10 f close\n";
        let (a, b) = (
            load_text(v2, &mut replay("")),
            load_text(v3, &mut replay("")),
        );
        let (a, b) = (a.unwrap(), b.unwrap());
        assert_eq!(a.files, vec!["f"]);
        assert_eq!(a.bytes, [8192, 4096, 0]);
        assert_eq!(a.entries.len(), 5);
        assert_eq!(a.entries, b.entries);
    }

    #[test]
    fn bad_lines_are_reported_and_skipped() {
        let t = "fio version 2 iolog\nf add\nf jump 0 1\nnonsense\nf read 4096 512\n";
        let l = load_text(t, &mut replay("")).unwrap();
        assert_eq!(
            l.warnings,
            "fio: bad iolog file action: jump\nbad iolog2: nonsense\n\n"
        );
        assert_eq!(l.bytes[0], 512);
    }

    #[test]
    fn a_log_shorter_than_a_trace_event_says_so() {
        let l = load_text("fio version 2 iolog\nf add\nf read 0 1\n", &mut replay("")).unwrap();
        assert_eq!(l.warnings, "fio: short read on blktrace file\n");
    }

    #[test]
    fn scale_align_and_time_scale() {
        let mut r = replay("");
        r.scale = 2;
        r.align = 4096;
        r.no_stall = false;
        r.time_scale = 50;
        let t = "fio version 3 iolog\n10 f add\n20 f read 20480 4096\n120 f read 0 4096 and more text\n";
        let l = load_text(t, &mut r).unwrap();
        assert_eq!(l.entries[1].offset, 8192);
        assert_eq!(l.entries[1].delay_us, 20);
        assert_eq!(l.entries[2].delay_us, 200);
    }

    #[test]
    fn refusals() {
        let e = load_text(
            "garbage that is long enough to not be a short read of 48\n",
            &mut replay(""),
        );
        assert_eq!(
            e.unwrap_err(),
            "fio: iolog version 1 is no longer supported\n"
        );
        let mut trace = vec![0u8; 64];
        trace[..4].copy_from_slice(&0x6561_7407u32.to_le_bytes());
        let dir = std::env::temp_dir().join(format!("rfio-blk-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("trace");
        std::fs::write(&p, &trace).unwrap();
        let e = load(&replay(p.to_str().unwrap()), false).unwrap_err();
        assert_eq!(e, "fio: iolog version 1 is no longer supported\n");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
