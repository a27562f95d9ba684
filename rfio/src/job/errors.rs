//! `continue_on_error`, `ignore_error`, `error_dump` (§3): which I/O errors
//! a job continues past. fio sorts an error into a type (read, write, or
//! verify for EILSEQ); a job continues past an error when its type is in
//! `continue_on_error` and the error is in that type's list (`ignore_error`,
//! by default EIO and EILSEQ). Cold path: runs only when an I/O failed.
//! How fio reports the errors is run/errors.rs.

use crate::engine::IoKind;

/// Error types, fio's `error_type_bit`.
pub const READ: u8 = 1;
pub const WRITE: u8 = 2;
pub const VERIFY: u8 = 4;

/// fio's default list of non-fatal errors.
const NON_FATAL: [i32; 2] = [libc::EIO, libc::EILSEQ];

/// The names `ignore_error` knows, errno 1..=34 in order (as fio).
const NAMES: [&str; 34] = [
    "EPERM", "ENOENT", "ESRCH", "EINTR", "EIO", "ENXIO", "E2BIG", "ENOEXEC", "EBADF", "ECHILD",
    "EAGAIN", "ENOMEM", "EACCES", "EFAULT", "ENOTBLK", "EBUSY", "EEXIST", "EXDEV", "ENODEV",
    "ENOTDIR", "EISDIR", "EINVAL", "ENFILE", "EMFILE", "ENOTTY", "ETXTBSY", "EFBIG", "ENOSPC",
    "ESPIPE", "EROFS", "EMLINK", "EPIPE", "EDOM", "ERANGE",
];

/// A job's error policy.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ErrorPolicy {
    /// Types continued past (READ | WRITE | VERIFY).
    pub cont: u8,
    /// `ignore_error` lists per type (None: fio's default list).
    pub lists: [Option<Vec<i32>>; 3],
    /// `error_dump`: print every error, non-fatal ones too.
    pub dump: bool,
    /// continue_on_error or ignore_error was given: the `errors` line shows.
    pub shown: bool,
}

/// `continue_on_error` words as a type mask.
pub fn continue_mask(word: &str) -> u8 {
    match word {
        "read" => READ,
        "write" => WRITE,
        "io" => READ | WRITE,
        "verify" => VERIFY,
        "all" | "1" => READ | WRITE | VERIFY,
        _ => 0,
    }
}

/// `ignore_error=READLIST,WRITELIST,VERIFYLIST`, entries `:`-separated,
/// names (`ENOSPC`) or numbers; an empty list keeps the default.
pub fn parse_ignore(s: &str) -> Result<[Option<Vec<i32>>; 3], String> {
    let mut out: [Option<Vec<i32>>; 3] = Default::default();
    for (t, part) in s.trim().split(',').enumerate() {
        if t >= 3 {
            return Err("Illegal error type".into());
        }
        let mut list = Vec::new();
        for name in part.split(':') {
            if name.is_empty() {
                break;
            }
            let n = if name.starts_with('E') {
                NAMES
                    .iter()
                    .position(|n| *n == name)
                    .map_or(0, |i| i as i32 + 1)
            } else {
                atoi(name).unsigned_abs() as i32
            };
            if n == 0 {
                return Err(format!("Unknown error {name}, please use number value"));
            }
            list.push(n);
        }
        if !list.is_empty() {
            out[t] = Some(list);
        }
    }
    Ok(out)
}

/// C's atoi: leading digits (after an optional sign), else 0.
fn atoi(s: &str) -> i64 {
    let t = s.trim_start();
    let (neg, body) = match t.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let digits: String = body.chars().take_while(|c| c.is_ascii_digit()).collect();
    let v: i64 = digits.parse().unwrap_or(0);
    if neg {
        -v
    } else {
        v
    }
}

/// What to do with a failed I/O.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The job stops; `counted`: the error joins the `errors` count.
    Stop { counted: bool },
    /// Counted and continued past.
    Continue,
}

impl ErrorPolicy {
    pub fn new(cont: Option<&str>, ignore: [Option<Vec<i32>>; 3], dump: bool) -> ErrorPolicy {
        let mut mask = cont.map_or(0, continue_mask);
        // An ignore_error list turns on continuing for its type (as fio).
        for (t, l) in ignore.iter().enumerate() {
            if l.is_some() {
                mask |= 1 << t;
            }
        }
        ErrorPolicy {
            cont: mask,
            shown: mask != 0,
            lists: ignore,
            dump,
        }
    }

    /// fio's `td_error_type`.
    fn type_bit(kind: IoKind, errno: i32) -> u8 {
        if errno == libc::EILSEQ {
            VERIFY
        } else if kind == IoKind::Read {
            READ
        } else {
            WRITE
        }
    }

    /// Non-fatal: the type is continued past and the error is on its list.
    pub fn non_fatal(&self, kind: IoKind, errno: i32) -> bool {
        let bit = Self::type_bit(kind, errno);
        if self.cont & bit == 0 {
            return false;
        }
        let t = bit.trailing_zeros() as usize;
        match &self.lists[t] {
            Some(l) => l.contains(&errno),
            None => NON_FATAL.contains(&errno),
        }
    }

    #[cold]
    pub fn judge(&self, kind: IoKind, errno: i32) -> Verdict {
        if self.cont & Self::type_bit(kind, errno) == 0 {
            Verdict::Stop { counted: false }
        } else if self.non_fatal(kind, errno) {
            Verdict::Continue
        } else {
            Verdict::Stop { counted: true }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_parse_like_fio() {
        let l = parse_ignore(",ENOSPC:5").unwrap();
        assert_eq!(l[0], None);
        assert_eq!(l[1], Some(vec![libc::ENOSPC, libc::EIO]));
        assert_eq!(parse_ignore("-28").unwrap()[0], Some(vec![28]));
        assert!(parse_ignore("EFOO").is_err());
        assert!(parse_ignore("0").is_err());
    }

    #[test]
    fn verdicts() {
        let p = ErrorPolicy::new(Some("write"), Default::default(), false);
        assert_eq!(
            p.judge(IoKind::Write, libc::EIO),
            Verdict::Continue,
            "EIO is non-fatal by default"
        );
        assert_eq!(
            p.judge(IoKind::Write, libc::ENOSPC),
            Verdict::Stop { counted: true }
        );
        assert_eq!(
            p.judge(IoKind::Read, libc::EIO),
            Verdict::Stop { counted: false }
        );
        let p = ErrorPolicy::new(None, parse_ignore(",ENOSPC").unwrap(), false);
        assert!(p.shown);
        assert_eq!(p.judge(IoKind::Write, libc::ENOSPC), Verdict::Continue);
        assert_eq!(
            p.judge(IoKind::Write, libc::EIO),
            Verdict::Stop { counted: true },
            "a list replaces the default"
        );
    }
}
