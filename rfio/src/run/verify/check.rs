//! Checking a block read back: fio's verify_header checks and checksum,
//! pattern and dump handling (verify.c), with fio's messages.

use super::{hdr_inc, swap_header, Expect, Kind, Mismatch, Verifier};
use crate::verify::checksum;
use crate::verify::header::{self, Header};
use crate::verify::pattern::Pattern;
use std::fmt::Write as _;

/// Where the block being checked lies, for the messages: the file (by
/// index and shown path), the block's offset and length, and the verify
/// interval.
#[derive(Clone, Copy)]
struct Block<'p> {
    file: usize,
    offset: u64,
    total: usize,
    inc: usize,
    path: &'p dyn std::fmt::Display,
    expect: Expect,
}

impl Block<'_> {
    /// The failure carrying `report`.
    fn mismatch(&self, report: String) -> Mismatch {
        Mismatch {
            report,
            file: self.file,
            offset: self.offset,
            len: self.total,
            errno: 0,
        }
    }
}

impl Verifier<'_> {
    /// Check one block read back at `offset` of file `file`.
    pub(super) fn check(
        &self,
        buf: &mut [u8],
        file: usize,
        offset: u64,
        expect: Expect,
    ) -> Result<(), Mismatch> {
        let mut report = String::new();
        let spec = self.spec;
        let inc = hdr_inc(spec.interval, buf.len());
        // Only a failure names the file: no allocation on the clean path.
        let shown = self.paths.get(file).map(|p| p.display());
        let path: &dyn std::fmt::Display = match &shown {
            Some(p) => p,
            None => &"",
        };
        let block = Block {
            file,
            offset,
            total: buf.len(),
            inc,
            path,
            expect,
        };
        let mut failed = false;
        for (i, chunk) in buf.chunks_mut(inc).enumerate() {
            if failed && spec.fatal {
                break;
            }
            let at = offset + (i * inc) as u64;
            self.check_header(chunk, i, at, &block, &mut report)?;
            if self.data_problem(chunk, i, at, &block, &mut report) {
                self.report_bad_data(chunk, i, at, &block, &mut report);
                failed = true;
            }
        }
        if failed {
            return Err(block.mismatch(report));
        }
        Ok(())
    }

    /// The header checks of interval `i` (none for verify=pattern or
    /// null): a bad header fails the whole block at once, with its dump.
    fn check_header(
        &self,
        chunk: &mut [u8],
        i: usize,
        at: u64,
        block: &Block<'_>,
        report: &mut String,
    ) -> Result<(), Mismatch> {
        let spec = self.spec;
        let kind = spec.kind;
        if kind == Kind::PatternNoHdr || kind == Kind::Null {
            return Ok(());
        }
        let hs = kind.hdr_size();
        if spec.offset > 0 && spec.offset + hs <= chunk.len() {
            swap_header(chunk, spec.offset, hs);
        }
        let Block {
            offset,
            total,
            inc,
            path,
            expect,
            ..
        } = *block;
        let Some(why) = self.header_problem(chunk, i, inc, offset, expect) else {
            return Ok(());
        };
        let _ = writeln!(
            report,
            "{why} at file {path} offset {at}, length {inc} (requested block: offset={offset}, length={total})"
        );
        self.dump(report, chunk, &path.to_string(), at, "hdr_fail");
        Err(block.mismatch(std::mem::take(report)))
    }

    /// Whether interval `i`'s data is wrong: against the pattern for
    /// verify=pattern and meta, else against the checksum in its header
    /// (with fio's CRC lines in `report`).
    fn data_problem(
        &self,
        chunk: &[u8],
        i: usize,
        at: u64,
        block: &Block<'_>,
        report: &mut String,
    ) -> bool {
        let kind = self.spec.kind;
        let hs = kind.hdr_size();
        let Block {
            offset,
            total,
            inc,
            path,
            expect,
            ..
        } = *block;
        if kind == Kind::Meta || kind == Kind::Pattern || kind == Kind::PatternNoHdr {
            return match &self.spec.pattern {
                Some(p) => self.pattern_problem(chunk, p, i, inc, offset, report),
                None => false,
            };
        }
        if chunk.len() <= hs {
            return false;
        }
        let (head, data) = chunk.split_at(hs);
        let mut want = [0u8; 128];
        let n = kind.trailer_len();
        checksum::fill(kind, data, &mut want[..n]);
        if want[..n] == head[header::LEN..header::LEN + n] {
            return false;
        }
        let _ = writeln!(
            report,
            "{}: verify failed at file {path} offset {at}, length {inc} (requested block: offset={offset}, length={}, flags={:x})",
            kind.name(),
            total,
            expect.flags
        );
        let _ = writeln!(
            report,
            "       Expected CRC: {}",
            hex(&head[header::LEN..header::LEN + n])
        );
        let _ = writeln!(report, "       Received CRC: {}", hex(&want[..n]));
        true
    }

    /// fio's lines for a bad interval `i`: the pattern failure, a verify
    /// type that differs from the one given, and the dumps.
    #[cold]
    fn report_bad_data(
        &self,
        chunk: &[u8],
        i: usize,
        at: u64,
        block: &Block<'_>,
        report: &mut String,
    ) {
        let kind = self.spec.kind;
        let Block {
            offset,
            total,
            inc,
            path,
            expect,
            ..
        } = *block;
        let stored =
            (kind.hdr_size() > 0 && chunk.len() >= header::LEN).then(|| Header::read(chunk));
        // Without a header (verify=pattern) fio still reads its
        // fields from the block's first bytes: the length and
        // type it prints come from the data.
        let raw = |a: usize, b: usize| chunk.get(a..b).map(|x| x.to_vec());
        let raw_type = raw(2, 4).map(|x| u16::from_le_bytes([x[0], x[1]]));
        if kind == Kind::Pattern || kind == Kind::PatternNoHdr || kind == Kind::Meta {
            let (shown_at, shown_len) = match raw(4, 8) {
                Some(x) if kind == Kind::PatternNoHdr => {
                    let l = u32::from_le_bytes([x[0], x[1], x[2], x[3]]);
                    (offset + i as u64 * u64::from(l), u64::from(l))
                }
                _ => (at, inc as u64),
            };
            let _ = writeln!(
                report,
                "pattern: verify failed at file {path} offset {shown_at}, length {shown_len} (requested block: offset={offset}, length={total}, flags={:x})",
                expect.flags
            );
        }
        if let Some(m) = raw_type.filter(|&m| m != kind as u16) {
            let _ = writeln!(
                report,
                "fio: verify type mismatch ({m} media, {} given)",
                kind as u16
            );
        }
        let seed = stored.map_or(0, |h| h.rand_seed);
        self.dump_pair(
            report,
            chunk,
            &path.to_string(),
            at,
            seed,
            expect,
            i,
            inc,
            offset,
        );
    }
    /// fio's verify_header checks, in fio's order and words.
    fn header_problem(
        &self,
        chunk: &[u8],
        i: usize,
        inc: usize,
        offset: u64,
        expect: Expect,
    ) -> Option<String> {
        if chunk.len() < header::LEN {
            return Some(format!(
                "verify: bad header length {}, wanted {inc}",
                chunk.len()
            ));
        }
        let h = Header::read(chunk);
        if h.magic != header::MAGIC {
            return Some(format!(
                "verify: bad magic header {:x}, wanted {:x}",
                h.magic,
                header::MAGIC
            ));
        }
        if h.len as usize != inc {
            return Some(format!("verify: bad header length {}, wanted {inc}", h.len));
        }
        if let Some(seed) = expect.seed {
            if h.rand_seed != seed {
                return Some(format!(
                    "verify: bad header rand_seed {}, wanted {seed}",
                    h.rand_seed
                ));
            }
        }
        if h.offset != offset + (i * self.spec.interval) as u64 {
            // fio prints the block's offset as the wanted one.
            return Some(format!(
                "verify: bad header offset {}, wanted {offset}",
                h.offset
            ));
        }
        if let Some(n) = expect.numberio {
            if h.numberio != n {
                return Some(format!(
                    "verify: bad header numberio {}, wanted {n}",
                    h.numberio
                ));
            }
        }
        let crc = Header::expected_crc(chunk);
        if crc != h.crc32 {
            return Some(format!(
                "verify: bad header crc {:x}, calculated {crc:x}",
                h.crc32
            ));
        }
        None
    }

    fn pattern_problem(
        &self,
        chunk: &[u8],
        p: &Pattern,
        i: usize,
        inc: usize,
        offset: u64,
        report: &mut String,
    ) -> bool {
        let hs = self.spec.kind.hdr_size();
        // At most 512 bytes (pattern.rs): no allocation per check.
        let mut buf = [0u8; 512];
        let pat = &mut buf[..p.bytes.len()];
        pat.copy_from_slice(&p.bytes);
        p.paste(pat, offset);
        let mut m = (inc * i + hs) % pat.len();
        for (k, &b) in chunk.iter().enumerate().skip(hs) {
            if b != pat[m] {
                let _ = writeln!(
                    report,
                    "fio: got pattern '{b:02x}', wanted '{:02x}'. Bad bits {}",
                    pat[m],
                    (b ^ pat[m]).count_ones()
                );
                let _ = writeln!(report, "fio: bad pattern block offset {}", k - hs);
                return true;
            }
            m = (m + 1) % pat.len();
        }
        false
    }

    /// verify_dump: the block as read, and as it should be.
    #[allow(clippy::too_many_arguments)]
    #[cold]
    fn dump_pair(
        &self,
        report: &mut String,
        chunk: &[u8],
        path: &str,
        at: u64,
        seed: u64,
        expect: Expect,
        i: usize,
        inc: usize,
        offset: u64,
    ) {
        if !self.spec.dump {
            return;
        }
        self.dump(report, chunk, path, at, "received");
        let mut good = vec![0u8; chunk.len()];
        match &self.spec.pattern {
            Some(p) => {
                let mut whole = vec![0u8; inc * (i + 1)];
                p.fill(&mut whole, offset);
                good.copy_from_slice(&whole[inc * i..inc * i + chunk.len()]);
            }
            None => crate::run::buffers::fill_seeded(&self.content, &mut good, seed),
        }
        if self.spec.kind.hdr_size() > 0 && good.len() > self.spec.kind.hdr_size() {
            let got = Header::read(chunk);
            let n = expect.numberio.unwrap_or(got.numberio);
            let mut block = good;
            let now = (u64::from(got.time_sec)) * 1_000_000_000 + u64::from(got.time_nsec);
            // Regenerate this interval's header as the writer made it.
            let h = Header {
                verify_type: self.spec.kind as u16,
                len: inc as u32,
                rand_seed: seed,
                offset: offset + (i * self.spec.interval) as u64,
                time_sec: (now / 1_000_000_000) as u32,
                time_nsec: (now % 1_000_000_000) as u32,
                thread: got.thread,
                numberio: n,
                ..Header::default()
            };
            h.write(&mut block);
            let hs = self.spec.kind.hdr_size();
            let (head, data) = block.split_at_mut(hs);
            checksum::fill(self.spec.kind, data, &mut head[header::LEN..]);
            self.dump(report, &block, path, at, "expected");
        } else {
            self.dump(report, &good, path, at, "expected");
        }
    }

    /// Write `data` to `<file name>.<offset>.<what>` in the working
    /// directory, as fio's dump_buf does.
    #[cold]
    fn dump(&self, report: &mut String, data: &[u8], path: &str, at: u64, what: &str) {
        if !self.spec.dump {
            return;
        }
        let base = std::path::Path::new(path)
            .file_name()
            .map_or_else(|| path.to_string(), |b| b.to_string_lossy().into_owned());
        let name = format!("{base}.{at}.{what}");
        match std::fs::write(&name, data) {
            Ok(()) => {
                let _ = writeln!(report, "       {what} data dumped as {name}");
            }
            Err(e) => {
                let _ = writeln!(report, "open verify buf file: {e}");
            }
        }
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().fold(String::new(), |mut s, x| {
        let _ = write!(s, "{x:02x}");
        s
    })
}
