//! fio's compressed logs: `log_store_compressed=1` writes `NAME.log.fz`
//! and `--inflate-log=FILE` turns such a file back into log text.
//!
//! fio 3.33 compresses its in-memory sample records, not the text: a
//! `.fz` file is a series of zlib streams, one per chunk of rows (the
//! first `log_entries` rows, then twice as many each time, at most 2^20),
//! each holding fio's `struct io_sample` records in native byte order:
//! time (u64), value (u64), direction (u32, bit 31 set when an offset
//! follows, bit 30 with log_prio), priority (u16), two zero bytes, block
//! size (u64), then the offset (u64) with log_offset. Inflating prints
//! them as fio's log lines. fio stores histogram logs the same way with a
//! pointer in place of the counts, which nothing can read back; rfio
//! stores its histogram log's text instead (one zlib stream), which
//! `rfio --inflate-log` prints as it is.

use crate::failure::Failure;
use flate2::write::ZlibEncoder;
use flate2::{Compression, Decompress, FlushDecompress, Status};
use std::io::Write;

const OFFSET_BIT: u32 = 0x8000_0000;
const PRIO_BIT: u32 = 0x4000_0000;
/// fio's MAX_LOG_ENTRIES: chunks stop doubling there.
const MAX_CHUNK_ROWS: u64 = 1 << 20;

/// One log row as fio keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record {
    pub t_ms: u64,
    pub value: u64,
    pub ddir: u8,
    pub bs: u64,
    pub offset: u64,
    pub prio: u16,
}

/// The record layout of one log: with an offset field, with log_prio.
#[derive(Debug, Clone, Copy)]
pub struct Layout {
    pub offset: bool,
    pub prio: bool,
}

impl Layout {
    fn size(self) -> usize {
        if self.offset {
            40
        } else {
            32
        }
    }

    pub(super) fn put(self, buf: &mut Vec<u8>, r: &Record) {
        let mut ddir = u32::from(r.ddir);
        if self.offset {
            ddir |= OFFSET_BIT;
        }
        if self.prio {
            ddir |= PRIO_BIT;
        }
        buf.extend_from_slice(&r.t_ms.to_ne_bytes());
        buf.extend_from_slice(&r.value.to_ne_bytes());
        buf.extend_from_slice(&ddir.to_ne_bytes());
        buf.extend_from_slice(&r.prio.to_ne_bytes());
        buf.extend_from_slice(&[0, 0]);
        buf.extend_from_slice(&r.bs.to_ne_bytes());
        if self.offset {
            buf.extend_from_slice(&r.offset.to_ne_bytes());
        }
    }
}

/// One zlib stream of `bytes` (fio's deflateInit at the default level).
fn deflate(f: &mut impl Write, bytes: &[u8]) -> std::io::Result<()> {
    let mut z = ZlibEncoder::new(
        Vec::with_capacity(bytes.len() / 4 + 64),
        Compression::default(),
    );
    z.write_all(bytes)?;
    f.write_all(&z.finish()?)
}

/// Write `rows` as fio's stored compressed log: chunks of `first_chunk`
/// rows, doubling, each its own zlib stream. No rows: no bytes, or with
/// `empty_stream` one empty zlib stream (fio's 8-byte `.fz` of a log that
/// got an empty chunk when another log of its job outgrew its first one).
pub fn store(
    f: &mut impl Write,
    rows: impl Iterator<Item = Record>,
    layout: Layout,
    first_chunk: u64,
    empty_stream: bool,
) -> std::io::Result<()> {
    let mut chunk_rows = first_chunk.clamp(1, MAX_CHUNK_ROWS);
    let mut buf = Vec::new();
    let mut n = 0u64;
    for r in rows {
        layout.put(&mut buf, &r);
        n += 1;
        if n == chunk_rows {
            deflate(f, &buf)?;
            buf.clear();
            n = 0;
            chunk_rows = (chunk_rows * 2).min(MAX_CHUNK_ROWS);
        }
    }
    if n > 0 || (empty_stream && chunk_rows == first_chunk.clamp(1, MAX_CHUNK_ROWS)) {
        deflate(f, &buf)?;
    }
    Ok(())
}

/// A text log (rfio's histogram log) as one zlib stream (`empty_stream`
/// as for [`store`]).
pub fn store_text(f: &mut impl Write, text: &[u8], empty_stream: bool) -> std::io::Result<()> {
    if text.is_empty() && !empty_stream {
        return Ok(());
    }
    deflate(f, text)
}

/// The records of one inflated chunk (the first record's direction bits
/// tell the layout; a part record at the end is left out), with that
/// layout.
fn parse(chunk: &[u8]) -> (Layout, Vec<Record>) {
    let u64_at = |b: &[u8], i: usize| u64::from_ne_bytes(b[i..i + 8].try_into().unwrap_or([0; 8]));
    let u32_at = |b: &[u8], i: usize| u32::from_ne_bytes(b[i..i + 4].try_into().unwrap_or([0; 4]));
    let first = if chunk.len() >= 20 {
        u32_at(chunk, 16)
    } else {
        0
    };
    let layout = Layout {
        offset: first & OFFSET_BIT != 0,
        prio: first & PRIO_BIT != 0,
    };
    let records = chunk
        .chunks_exact(layout.size())
        .map(|rec| Record {
            t_ms: u64_at(rec, 0),
            value: u64_at(rec, 8),
            ddir: (u32_at(rec, 16) & !(OFFSET_BIT | PRIO_BIT)) as u8,
            bs: u64_at(rec, 24),
            offset: if layout.offset { u64_at(rec, 32) } else { 0 },
            prio: u16::from_ne_bytes(rec[20..22].try_into().unwrap_or([0; 2])),
        })
        .collect();
    (layout, records)
}

/// fio's `flush_samples` for one inflated chunk: its records as log lines.
/// A chunk of digits and separators without NUL bytes is text (rfio's
/// histogram log; a record's 8-byte time always holds a NUL) and printed
/// as it is, whole lines.
fn render(chunk: &[u8], out: &mut String) {
    use std::fmt::Write as _;
    if chunk.is_empty() {
        return;
    }
    if !chunk.contains(&0) && chunk[0].is_ascii_digit() {
        // Whole lines only: a stream cut short ends inside one.
        let end = chunk.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        out.push_str(&String::from_utf8_lossy(&chunk[..end]));
        return;
    }
    let (layout, records) = parse(chunk);
    for r in records {
        // fio prints the value as signed (PRId64).
        let _ = write!(
            out,
            "{}, {}, {}, {}, ",
            r.t_ms, r.value as i64, r.ddir, r.bs
        );
        if layout.offset {
            let _ = write!(out, "{}, ", r.offset);
        }
        if layout.prio {
            let _ = writeln!(out, "0x{:04x}", r.prio);
        } else {
            // ioprio_value_is_class_rt: class 1 in the top three bits.
            let _ = writeln!(out, "{}", u8::from(r.prio >> 13 == 1));
        }
    }
}

/// Inflate the zlib (or gzip) streams of `data` one after the other,
/// handing each one's bytes to `chunk`. Err: a stream that does not
/// inflate (what came out of it before is handed on); a stream cut short
/// gives what it holds, as fio's reader does.
fn streams(data: &[u8], mut chunk: impl FnMut(&[u8])) -> Result<(), ()> {
    let mut pos = 0usize;
    while pos < data.len() {
        let rest = &data[pos..];
        if rest.starts_with(&[0x1f, 0x8b]) {
            // fio's reader also takes gzip members (inflateInit2 with 32).
            let mut z = flate2::bufread::GzDecoder::new(rest);
            let mut out = Vec::new();
            let r = std::io::Read::read_to_end(&mut z, &mut out);
            chunk(&out);
            r.map_err(|_| ())?;
            let left = z.into_inner().len();
            pos += rest.len() - left;
            continue;
        }
        let mut z = Decompress::new(true);
        let mut out: Vec<u8> = Vec::with_capacity(rest.len().min(1 << 24) * 4 + 1024);
        let failed = loop {
            if out.len() == out.capacity() {
                out.reserve(out.capacity());
            }
            let consumed = z.total_in() as usize;
            let produced = z.total_out();
            match z.decompress_vec(&rest[consumed..], &mut out, FlushDecompress::None) {
                Err(_) => break true,
                Ok(Status::StreamEnd) => break false,
                Ok(_) => {
                    // Output room left and nothing more came out: the
                    // input ran out inside the stream.
                    let stuck = z.total_in() as usize == consumed && z.total_out() == produced;
                    let all_in = z.total_in() as usize == rest.len();
                    if (stuck || all_in) && out.len() < out.capacity() {
                        break false;
                    }
                }
            }
        };
        chunk(&out);
        if failed {
            return Err(());
        }
        let used = z.total_in() as usize;
        if used == 0 {
            break;
        }
        pos += used;
    }
    Ok(())
}

/// The bytes of the zlib streams in `data`, as far as they inflate.
pub fn inflate_raw(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let _ = streams(data, |c| out.extend_from_slice(c));
    out
}

/// fio's `flush_samples` over raw records (a server's IOLOG payload, as
/// fio's client writes it).
pub fn samples_text(records: &[u8]) -> String {
    let mut out = String::new();
    render(records, &mut out);
    out
}

/// Inflate every stream of a `.fz` file into log text; a stream that
/// fails is fio's `failed inflating log: -3` (what came out before it is
/// kept).
pub fn inflate(data: &[u8]) -> (String, Option<String>) {
    let mut out = String::new();
    let r = streams(data, |c| render(c, &mut out));
    let err = r
        .err()
        .map(|()| "fio: failed inflating log: -3\n".to_string());
    (out, err)
}

/// The records of stored streams (rfio's own, known to be whole).
pub fn records(data: &[u8]) -> Vec<Record> {
    let mut out = Vec::new();
    let _ = streams(data, |c| out.extend(parse(c).1));
    out
}

/// `--inflate-log=FILE`: the log text on stdout, fio's messages and exit
/// status (1 when the file cannot be read, 253 for a stream that does not
/// inflate: fio exits with zlib's -3).
pub fn inflate_file(path: &str) -> Failure {
    let fail = |msg: String, code: i32| Failure {
        stdout: String::new(),
        stderr: msg,
        code,
    };
    let errno =
        |e: &std::io::Error| rbench_common::output::strerror(e.raw_os_error().unwrap_or(libc::EIO));
    let mut f = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) => return fail(format!("fopen: {}\n", errno(&e)), 1),
    };
    let mut data = Vec::new();
    if let Err(e) = std::io::Read::read_to_end(&mut f, &mut data) {
        return fail(format!("fread: {}\n", errno(&e)), 1);
    }
    if data.is_empty() {
        return fail("fio: short read on reading log\n".into(), 1);
    }
    let (text, err) = inflate(&data);
    Failure {
        stdout: text,
        code: if err.is_some() { 253 } else { 0 },
        stderr: err.unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(t: u64, v: u64) -> Record {
        Record {
            t_ms: t,
            value: v,
            ddir: (t % 2) as u8,
            bs: 4096,
            offset: t * 4096,
            prio: 0,
        }
    }

    #[test]
    fn stored_rows_inflate_to_fio_log_lines() {
        let layout = Layout {
            offset: true,
            prio: false,
        };
        let mut fz = Vec::new();
        store(&mut fz, (1..=5).map(|t| rec(t, t * 10)), layout, 2, false).unwrap();
        let (text, err) = inflate(&fz);
        assert!(err.is_none());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 5);
        assert_eq!(lines[0], "1, 10, 1, 4096, 4096, 0");
        assert_eq!(lines[4], "5, 50, 1, 4096, 20480, 0");
        // Chunks of 2 then 4 rows: two zlib streams.
        let mut d = Decompress::new(true);
        let mut first = Vec::with_capacity(1024);
        let s = d.decompress_vec(&fz, &mut first, FlushDecompress::None);
        assert!(matches!(s, Ok(Status::StreamEnd)));
        assert_eq!(first.len(), 2 * 40);
        assert!((d.total_in() as usize) < fz.len());
    }

    #[test]
    fn prio_layout_and_text_chunks() {
        let layout = Layout {
            offset: false,
            prio: true,
        };
        let mut fz = Vec::new();
        let mut r = rec(2, 7);
        r.prio = 0x2004;
        store(&mut fz, std::iter::once(r), layout, 1024, false).unwrap();
        store_text(&mut fz, b"9, 0, 4096, 1, 2\n", false).unwrap();
        let (text, err) = inflate(&fz);
        assert!(err.is_none());
        assert_eq!(text, "2, 7, 0, 4096, 0x2004\n9, 0, 4096, 1, 2\n");
    }

    #[test]
    fn an_empty_log_is_no_bytes_or_fios_empty_stream() {
        let layout = Layout {
            offset: false,
            prio: false,
        };
        let mut fz = Vec::new();
        store(&mut fz, std::iter::empty(), layout, 1024, false).unwrap();
        assert!(fz.is_empty());
        store(&mut fz, std::iter::empty(), layout, 1024, true).unwrap();
        assert_eq!(fz, [0x78, 0x9c, 0x03, 0, 0, 0, 0, 1]);
        assert_eq!(inflate(&fz), (String::new(), None));
        // Rows: no empty stream after them.
        let mut fz = Vec::new();
        store(&mut fz, (0..4).map(|t| rec(t, 1)), layout, 2, true).unwrap();
        let mut d = Decompress::new(true);
        let mut out = Vec::with_capacity(256);
        d.decompress_vec(&fz, &mut out, FlushDecompress::None)
            .unwrap();
        assert_eq!(out.len(), 2 * 32);
        let rest = &fz[d.total_in() as usize..];
        let mut d = Decompress::new(true);
        let mut out = Vec::with_capacity(256);
        let s = d.decompress_vec(rest, &mut out, FlushDecompress::None);
        assert!(matches!(s, Ok(Status::StreamEnd)));
        assert_eq!((out.len(), d.total_in() as usize), (2 * 32, rest.len()));
    }

    #[test]
    fn every_cut_and_flipped_byte_inflates_without_panic() {
        let layout = Layout {
            offset: true,
            prio: false,
        };
        let mut fz = Vec::new();
        store(&mut fz, (0..300).map(|t| rec(t, t)), layout, 100, false).unwrap();
        let (whole, _) = inflate(&fz);
        for cut in 0..fz.len() {
            let (text, _) = inflate(&fz[..cut]);
            // What comes out is whole lines of the log, in order.
            assert!(whole.starts_with(&text), "cut at {cut}");
        }
        // A stored text log: whole lines of it.
        let text: String = (0..200)
            .map(|t| format!("{t}, 0, 4096, 1, 2, 3\n"))
            .collect();
        let mut tz = Vec::new();
        store_text(&mut tz, text.as_bytes(), false).unwrap();
        for cut in 0..tz.len() {
            let (part, _) = inflate(&tz[..cut]);
            assert!(text.starts_with(&part) && (part.is_empty() || part.ends_with('\n')));
        }
        assert_eq!(inflate(&tz), (text, None));
        for i in 0..fz.len() {
            let mut bad = fz.clone();
            bad[i] ^= 0x5a;
            let _ = inflate(&bad);
        }
    }

    #[test]
    fn garbage_and_truncation() {
        let (text, err) = inflate(b"not a zlib stream");
        assert!(text.is_empty());
        assert_eq!(err.as_deref(), Some("fio: failed inflating log: -3\n"));
        let mut fz = Vec::new();
        let layout = Layout {
            offset: false,
            prio: false,
        };
        store(&mut fz, (0..100).map(|t| rec(t, 1)), layout, 1024, false).unwrap();
        fz.truncate(fz.len() - 6);
        let (text, err) = inflate(&fz);
        assert!(err.is_none());
        assert!(text.lines().count() > 0 && text.lines().count() <= 100);
    }
}
