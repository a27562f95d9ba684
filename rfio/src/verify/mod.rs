//! Data integrity (`verify=`): written blocks carry fio 3.33's header and
//! checksum (see [`header`]), so a block read back from the wrong place,
//! cut short or altered is caught and reported with fio's messages; files
//! written by fio verify in rfio and the other way round.
//!
//! The job loop calls in at three points only, each behind one `Option`
//! check: [`Verifier::seal`] when a write is prepared, [`Verifier::completed`]
//! when an I/O completes (writes enter the history only once complete, so
//! out-of-order completions at any depth never cause false failures), and
//! [`Verifier::final_pass`] after the write pass (fio's verify phase).

pub mod checksum;
pub mod header;
mod pass;
pub mod pattern;

use crate::engine::{IoKind, IoUnit};
use crate::job::Job;
use crate::run::buffers::{Buffers, Content, Filler};
use crate::stats::ThreadStats;
use header::Header;
pub use pass::PassError;
use pattern::Pattern;
use std::fmt::Write as _;
use std::os::fd::RawFd;
use std::path::PathBuf;

/// Verify types, numbered as fio 3.33 numbers them in the header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Meta = 1,
    Md5 = 2,
    Crc64 = 3,
    Crc32 = 4,
    Crc32c = 5,
    Crc16 = 7,
    Crc7 = 8,
    Sha256 = 9,
    Sha512 = 10,
    Sha3_224 = 11,
    Sha3_256 = 12,
    Sha3_384 = 13,
    Sha3_512 = 14,
    Xxhash = 15,
    Sha1 = 16,
    /// Header plus pattern (`verify_pattern` without `verify`).
    Pattern = 17,
    /// `verify=pattern`: the pattern alone, no header.
    PatternNoHdr = 18,
    Null = 19,
}

impl Kind {
    fn from_word(w: &str) -> Option<Kind> {
        Some(match w {
            "md5" => Kind::Md5,
            "crc64" => Kind::Crc64,
            "crc16" => Kind::Crc16,
            "crc7" => Kind::Crc7,
            "sha512" => Kind::Sha512,
            "sha3-224" => Kind::Sha3_224,
            "sha3-256" => Kind::Sha3_256,
            "sha3-384" => Kind::Sha3_384,
            "sha3-512" => Kind::Sha3_512,
            "crc32" => Kind::Crc32,
            "crc32c" | "crc32c-intel" => Kind::Crc32c,
            "sha1" => Kind::Sha1,
            "sha256" => Kind::Sha256,
            "xxhash" => Kind::Xxhash,
            "meta" => Kind::Meta,
            "pattern" => Kind::PatternNoHdr,
            "null" => Kind::Null,
            _ => return None,
        })
    }

    /// fio's name in failure messages.
    fn name(self) -> &'static str {
        match self {
            Kind::Md5 => "md5",
            Kind::Crc64 => "crc64",
            Kind::Crc16 => "crc16",
            Kind::Crc7 => "crc7",
            Kind::Sha512 => "sha512",
            Kind::Sha3_224 => "sha3-224",
            Kind::Sha3_256 => "sha3-256",
            Kind::Sha3_384 => "sha3-384",
            Kind::Sha3_512 => "sha3-512",
            Kind::Crc32 => "crc32",
            Kind::Crc32c => "crc32c",
            Kind::Sha1 => "sha1",
            Kind::Sha256 => "sha256",
            Kind::Xxhash => "xxhash",
            Kind::Meta => "meta",
            Kind::Pattern | Kind::PatternNoHdr => "pattern",
            Kind::Null => "null",
        }
    }

    fn trailer_len(self) -> usize {
        match self {
            Kind::Md5 => 16,
            Kind::Crc64 => 8,
            Kind::Crc16 => 2,
            Kind::Crc7 => 1,
            Kind::Sha512 => 128,
            Kind::Sha3_224 => 28,
            Kind::Sha3_256 => 32,
            Kind::Sha3_384 => 48,
            Kind::Sha3_512 => 64,
            Kind::Crc32 | Kind::Crc32c | Kind::Xxhash => 4,
            Kind::Sha1 => 20,
            Kind::Sha256 => 64,
            Kind::Meta | Kind::Pattern | Kind::PatternNoHdr | Kind::Null => 0,
        }
    }

    /// Header plus trailer (fio's hdr_size); no header for `pattern`.
    fn hdr_size(self) -> usize {
        match self {
            Kind::PatternNoHdr | Kind::Null => 0,
            k => header::LEN + k.trailer_len(),
        }
    }

    fn from_number(n: u16) -> Option<Kind> {
        Some(match n {
            1 => Kind::Meta,
            2 => Kind::Md5,
            3 => Kind::Crc64,
            7 => Kind::Crc16,
            8 => Kind::Crc7,
            10 => Kind::Sha512,
            11 => Kind::Sha3_224,
            12 => Kind::Sha3_256,
            13 => Kind::Sha3_384,
            14 => Kind::Sha3_512,
            4 => Kind::Crc32,
            5 | 6 => Kind::Crc32c,
            9 => Kind::Sha256,
            15 => Kind::Xxhash,
            16 => Kind::Sha1,
            17 => Kind::Pattern,
            _ => return None,
        })
    }
}

/// The verify options of a job, after fio's fix-ups (init.c).
#[derive(Debug, Clone)]
pub struct Spec {
    pub kind: Kind,
    /// Bytes each header covers (verify_interval, fixed up as fio does).
    pub interval: usize,
    /// verify_offset: the header is swapped to this offset in its interval.
    pub offset: usize,
    pub pattern: Option<Pattern>,
    /// Read back and check after the write pass (do_verify).
    pub do_verify: bool,
    /// verify_only: no writes, check what an earlier run wrote.
    pub only: bool,
    /// verify_backlog / verify_backlog_batch (0: off).
    pub backlog: u64,
    pub backlog_batch: u64,
    pub fatal: bool,
    pub dump: bool,
    // verify_async is accepted and changes nothing: checks run on the
    // job's own thread, right after each read completes.
    /// Compare numberio (fio: writing job, fixed block size, not
    /// time_based, not verify_only).
    pub check_numberio: bool,
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

impl Spec {
    /// The verify settings of `job`, or `None` when verify is off. `Err`:
    /// fio's parse error lines.
    pub fn from_job(job: &Job) -> Result<Option<Spec>, String> {
        let o = &job.opts;
        let pattern = match o.text("verify_pattern") {
            Some(s) => Some(
                Pattern::parse(&s, true)
                    .ok_or_else(|| format!("fio: failed parsing verify_pattern={s}\n"))?,
            ),
            None => None,
        };
        let word = o.choice("verify").0;
        let kind = match word.as_str() {
            "0" | "" | "none" if pattern.is_some() => Kind::Pattern,
            "0" | "" | "none" => return Ok(None),
            w => match Kind::from_word(w) {
                Some(k) => k,
                None => return Err(format!("fio: failed parsing verify={w}\n")),
            },
        };
        if kind == Kind::PatternNoHdr && pattern.is_none() {
            // fio 3.33 stops on an assertion (verify.c: pattern_size != 0).
            return Err("fio: verify=pattern requires verify_pattern\n".to_string());
        }
        // Block sizes of writes (and reads), as fio's min_bs/max_bs.
        let sizes = |d: usize| {
            let from_split = job.bssplit[d].iter().map(|e| e.0);
            let lo = from_split
                .clone()
                .min()
                .unwrap_or(job.bs[d].0)
                .min(job.bs[d].0);
            let hi = from_split.max().unwrap_or(job.bs[d].1).max(job.bs[d].1);
            if job.bssplit[d].is_empty() {
                job.bs[d]
            } else {
                (lo, hi)
            }
        };
        let (min_w, max_w) = sizes(1);
        let (min_r, _) = sizes(0);
        let mut vi = o.int("verify_interval").max(0) as u64;
        if max_w != min_w && vi == 0 {
            vi = min_w;
        }
        if vi > min_w {
            vi = min_w;
        } else if job.pattern.read && vi > min_r {
            vi = min_r;
        }
        if vi == 0 || min_w % vi != 0 || max_w % vi != 0 {
            vi = gcd(min_w, max_w);
        }
        let offset = o.int("verify_offset").max(0) as usize;
        if offset + kind.hdr_size().max(header::LEN) > vi as usize {
            // fio 3.33 corrupts memory here; later fio refuses (init.c,
            // header only; rfio counts the checksum after it too).
            return Err("fio: cannot offset verify header beyond the verify interval.\n".into());
        }
        let only = o.flag("verify_only");
        let backlog = o.int("verify_backlog").max(0) as u64;
        Ok(Some(Spec {
            kind,
            interval: vi as usize,
            offset,
            pattern,
            do_verify: o.flag("do_verify"),
            only,
            backlog,
            backlog_batch: match o.int("verify_backlog_batch").max(0) as u64 {
                0 => backlog,
                b => b,
            },
            fatal: o.flag("verify_fatal"),
            dump: o.flag("verify_dump"),
            check_numberio: job.pattern.write && min_w == max_w && !job.time_based && !only,
        }))
    }
}

/// A verify failure: fio's message lines, and where.
#[derive(Debug, Clone)]
pub struct Mismatch {
    pub report: String,
    pub file: usize,
    pub offset: u64,
    pub len: usize,
}

/// One completed write, to be read back.
#[derive(Debug, Clone, Copy)]
struct Written {
    offset: u64,
    seed: u64,
    file: u32,
    len: u32,
    numberio: u16,
}

/// What one block is expected to be.
#[derive(Debug, Clone, Copy)]
struct Expect {
    seed: Option<u64>,
    numberio: Option<u16>,
    /// fio's io_u flags in the message: 0x88 in the verify phase, 0x8 for
    /// a verified read of a read job.
    flags: u32,
}

/// The verify state of one running job.
pub struct Verifier<'a> {
    spec: &'a Spec,
    thread: u16,
    paths: &'a [PathBuf],
    fds: &'a [RawFd],
    /// Seed and numberio of the write each unit carries.
    unit_writes: Vec<(u64, u16)>,
    writes: u64,
    history: Vec<Written>,
    /// History entries already checked by verify_backlog.
    checked: usize,
    /// Check reads as they complete (a read-only job with verify=).
    check_reads: bool,
    /// Sort and drop overwritten blocks before the final pass.
    overlaps: bool,
    /// The job writes (rw has a write part).
    job_writes: bool,
    /// A buffer for backlog reads (and regenerated blocks).
    scratch: Buffers,
    scratch_len: usize,
    /// The job's buffer contents (to regenerate a block for verify_dump).
    content: Content,
    /// Compare the header's seed (fio does for read-write jobs only).
    check_seed: bool,
    /// continue_on_error: whether verify failures are continued past.
    continue_verify: bool,
}

impl<'a> Verifier<'a> {
    /// The verifier of `job`, if it verifies. `units`: queue depth;
    /// `unit_len`: the largest block.
    pub fn new(
        job: &'a Job,
        units: usize,
        unit_len: usize,
        paths: &'a [PathBuf],
        fds: &'a [RawFd],
        wrap: bool,
        expected_writes: u64,
    ) -> Option<Verifier<'a>> {
        let spec = job.verify.as_ref()?;
        let mut quiet = Filler::from_content(Content {
            zero: true,
            ..Content::default()
        });
        let scratch = Buffers::new(1, unit_len, &mut quiet)?;
        let writes = job.pattern.write && !spec.only;
        Some(Verifier {
            spec,
            thread: job.number as u16,
            paths,
            fds,
            unit_writes: vec![(0, 0); units],
            writes: 0,
            history: Vec::with_capacity(if writes {
                expected_writes.min(1 << 20) as usize
            } else {
                0
            }),
            checked: 0,
            check_reads: job.pattern.read && !job.pattern.write,
            overlaps: job.norandommap || job.loops > 1 || wrap,
            job_writes: job.pattern.write,
            scratch,
            scratch_len: unit_len,
            content: job.content.clone(),
            check_seed: job.pattern.read && job.pattern.write && spec.backlog == 0,
            continue_verify: matches!(
                job.errors.judge(IoKind::Read, libc::EILSEQ),
                crate::run::errors::Verdict::Continue
            ),
        })
    }

    /// verify_only on a writing job: a dry run replaces the writes (fio's
    /// do_dry_run); a read job with verify_only reads and checks as usual.
    pub fn only(&self) -> bool {
        self.spec.only && self.job_writes
    }

    /// Fill a write's buffer with verifiable contents: seeded random data
    /// (or the verify pattern) and a header per interval.
    #[inline]
    pub fn seal(&mut self, idx: usize, io: &IoUnit, fill: &mut Filler) {
        // SAFETY: the unit's buffer holds at least `len` bytes.
        let buf = unsafe { std::slice::from_raw_parts_mut(io.buf, io.len) };
        let numberio = self.writes as u16;
        self.writes += 1;
        let seed = match &self.spec.pattern {
            Some(p) => {
                p.fill(buf, io.offset);
                0
            }
            None => {
                let s = fill.next_seed();
                crate::run::buffers::fill_seeded(&fill.content, buf, s);
                s
            }
        };
        if let Some(slot) = self.unit_writes.get_mut(idx) {
            *slot = (seed, numberio);
        }
        let now = rbench_common::clock::now_ns();
        self.write_headers(buf, io.offset, seed, numberio, now);
    }

    fn write_headers(&self, buf: &mut [u8], offset: u64, seed: u64, numberio: u16, now: u64) {
        let kind = self.spec.kind;
        let hs = kind.hdr_size();
        if hs == 0 {
            return;
        }
        let inc = hdr_inc(self.spec.interval, buf.len());
        for (i, chunk) in buf.chunks_mut(inc).enumerate() {
            if chunk.len() <= hs || self.spec.offset + hs > chunk.len() {
                continue;
            }
            let h = Header {
                verify_type: kind as u16,
                len: inc as u32,
                rand_seed: seed,
                offset: offset + (i * self.spec.interval) as u64,
                time_sec: (now / 1_000_000_000) as u32,
                time_nsec: (now % 1_000_000_000) as u32,
                thread: self.thread,
                numberio,
                ..Header::default()
            };
            h.write(chunk);
            let (head, data) = chunk.split_at_mut(hs);
            checksum::fill(kind, data, &mut head[header::LEN..]);
            if self.spec.offset > 0 {
                swap_header(chunk, self.spec.offset, hs);
            }
        }
    }

    /// A unit completed: remember a finished write, check a finished
    /// read of a read job. Runs the backlog check when one is due.
    #[inline]
    pub fn completed(
        &mut self,
        idx: usize,
        io: &IoUnit,
        st: &mut ThreadStats,
    ) -> Result<(), Mismatch> {
        if io.result <= 0 {
            return Ok(());
        }
        match io.kind {
            IoKind::Write if !self.spec.only => {
                let (seed, numberio) = self.unit_writes.get(idx).copied().unwrap_or_default();
                self.history.push(Written {
                    offset: io.offset,
                    seed,
                    file: io.file as u32,
                    len: io.len as u32,
                    numberio,
                });
                if self.spec.backlog > 0
                    && (self.history.len() - self.checked) as u64 >= self.spec.backlog
                {
                    return self.backlog(st);
                }
                Ok(())
            }
            IoKind::Read if self.check_reads && self.spec.kind != Kind::Null => {
                // SAFETY: the unit's buffer holds `len` bytes; the read is done.
                let buf = unsafe { std::slice::from_raw_parts_mut(io.buf, io.len) };
                let got = (io.result as usize).min(io.len);
                buf[got..].fill(0);
                let expect = Expect {
                    seed: None,
                    numberio: None,
                    flags: 0x8,
                };
                let r = self.check(buf, io.file, io.offset, expect);
                self.judged(r, st)
            }
            _ => Ok(()),
        }
    }

    /// verify_backlog: read back the oldest `verify_backlog_batch` completed
    /// writes now (their writes are complete; others may be in flight).
    #[cold]
    fn backlog(&mut self, st: &mut ThreadStats) -> Result<(), Mismatch> {
        let end = (self.checked + self.spec.backlog_batch.max(1) as usize).min(self.history.len());
        for i in self.checked..end {
            let w = self.history[i];
            let len = w.len as usize;
            if len > self.scratch_len {
                continue;
            }
            // SAFETY: scratch holds `scratch_len` bytes.
            let buf = unsafe { std::slice::from_raw_parts_mut(self.scratch.ptr, len) };
            let fd = self.fds.get(w.file as usize).copied().unwrap_or(-1);
            let t0 = rbench_common::clock::now_ns();
            // SAFETY: reading into our own buffer of `len` bytes.
            let n =
                unsafe { libc::pread(fd, buf.as_mut_ptr().cast(), len, w.offset as libc::off_t) };
            let ns = rbench_common::clock::now_ns().saturating_sub(t0);
            if n > 0 {
                record_read(st, n as u64, ns);
            }
            let got = n.max(0) as usize;
            buf[got.min(len)..].fill(0);
            let expect = self.expect_of(&w);
            let r = self.check(buf, w.file as usize, w.offset, expect);
            self.judged(r, st)?;
        }
        self.checked = end;
        Ok(())
    }

    /// continue_on_error=verify (or all): count a failure and go on; its
    /// lines are printed when the job ends, before the report.
    fn judged(&self, r: Result<(), Mismatch>, st: &mut ThreadStats) -> Result<(), Mismatch> {
        match r {
            Err(m) if self.continue_verify => {
                st.total_err += 1;
                if st.total_err == 1 {
                    st.first_error = libc::EILSEQ;
                }
                st.dumped.push(m.into_io_error(true));
                Ok(())
            }
            r => r,
        }
    }

    fn expect_of(&self, w: &Written) -> Expect {
        Expect {
            seed: (self.check_seed && self.spec.pattern.is_none()).then_some(w.seed),
            numberio: self.spec.check_numberio.then_some(w.numberio),
            flags: 0x88,
        }
    }

    /// Check one block read back at `offset` of file `file`.
    fn check(
        &self,
        buf: &mut [u8],
        file: usize,
        offset: u64,
        expect: Expect,
    ) -> Result<(), Mismatch> {
        let mut report = String::new();
        let spec = self.spec;
        let kind = spec.kind;
        let hs = kind.hdr_size();
        let inc = hdr_inc(spec.interval, buf.len());
        // Only a failure names the file: no allocation on the clean path.
        let shown = self.paths.get(file).map(|p| p.display());
        let path: &dyn std::fmt::Display = match &shown {
            Some(p) => p,
            None => &"",
        };
        let mut failed = false;
        let total = buf.len();
        for (i, chunk) in buf.chunks_mut(inc).enumerate() {
            if failed && spec.fatal {
                break;
            }
            let at = offset + (i * inc) as u64;
            if kind != Kind::PatternNoHdr && kind != Kind::Null {
                if spec.offset > 0 && spec.offset + hs <= chunk.len() {
                    swap_header(chunk, spec.offset, hs);
                }
                if let Some(why) = self.header_problem(chunk, i, inc, offset, expect) {
                    let _ = writeln!(
                        report,
                        "{why} at file {path} offset {at}, length {inc} (requested block: offset={offset}, length={total})"
                    );
                    self.dump(&mut report, chunk, &path.to_string(), at, "hdr_fail");
                    return Err(Mismatch {
                        report,
                        file,
                        offset,
                        len: total,
                    });
                }
            }
            let stored = (hs > 0 && chunk.len() >= header::LEN).then(|| Header::read(chunk));
            let media = stored.and_then(|h| Kind::from_number(h.verify_type));
            let bad = if kind == Kind::Meta || kind == Kind::Pattern || kind == Kind::PatternNoHdr {
                match &spec.pattern {
                    Some(p) => self.pattern_problem(chunk, p, i, inc, offset, &mut report),
                    None => false,
                }
            } else if chunk.len() > hs {
                let (head, data) = chunk.split_at(hs);
                let mut want = [0u8; 128];
                let n = kind.trailer_len();
                checksum::fill(kind, data, &mut want[..n]);
                if want[..n] != head[header::LEN..header::LEN + n] {
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
                } else {
                    false
                }
            } else {
                false
            };
            if bad {
                if kind == Kind::Pattern || kind == Kind::PatternNoHdr || kind == Kind::Meta {
                    let _ = writeln!(
                        report,
                        "pattern: verify failed at file {path} offset {at}, length {inc} (requested block: offset={offset}, length={total}, flags={:x})",
                        expect.flags
                    );
                }
                if kind != Kind::PatternNoHdr {
                    if let Some(m) = media.filter(|&m| m != kind) {
                        let _ = writeln!(
                            report,
                            "fio: verify type mismatch ({} media, {} given)",
                            m as u16, kind as u16
                        );
                    }
                }
                let seed = stored.map_or(0, |h| h.rand_seed);
                self.dump_pair(
                    &mut report,
                    chunk,
                    &path.to_string(),
                    at,
                    seed,
                    expect,
                    i,
                    inc,
                    offset,
                );
                failed = true;
            }
        }
        if failed {
            return Err(Mismatch {
                report,
                file,
                offset,
                len: buf.len(),
            });
        }
        Ok(())
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

    /// verify_only: walk the write workload without writing, to know which
    /// blocks to read back (fio's dry run).
    pub fn dry_run(
        &mut self,
        picker: &mut crate::run::offsets::Picker,
        io_size: u64,
        st: &mut ThreadStats,
    ) {
        let mut io = IoUnit::new(std::ptr::null_mut());
        let mut bytes = 0u64;
        while (io_size == 0 || bytes < io_size) && picker.next(&mut io) {
            if io.kind != IoKind::Write {
                continue;
            }
            bytes += io.len as u64;
            // fio's dry run counts the writes it would have done (JSON
            // write io_bytes/total_ios), with no runtime.
            st.issued[1] += 1;
            st.dir[1].ios += 1;
            st.dir[1].io_bytes += io.len as u64;
            self.history.push(Written {
                offset: io.offset,
                seed: 0,
                file: io.file as u32,
                len: io.len as u32,
                numberio: 0,
            });
        }
    }

    /// Whether a verify phase follows the write pass.
    pub fn wants_pass(&self) -> bool {
        (self.spec.do_verify || self.spec.only) && self.checked < self.history.len()
    }

    /// fio's verify phase: read back every remaining written block through
    /// the job's engine, at its depth, and check each as it completes.
    pub fn final_pass(
        &mut self,
        engine: &mut dyn crate::engine::Engine,
        units: &mut [IoUnit],
        sync_engine: bool,
        st: &mut ThreadStats,
    ) -> Result<(), pass::PassError> {
        let mut list = std::mem::take(&mut self.history);
        list.drain(..self.checked.min(list.len()));
        if self.overlaps {
            // Later writes of a block replace earlier ones (fio's rbtree).
            list.sort_by_key(|w| (w.file, w.offset));
            let mut kept: Vec<Written> = Vec::with_capacity(list.len());
            for w in list {
                match kept.last_mut() {
                    Some(k) if k.file == w.file && k.offset == w.offset => *k = w,
                    _ => kept.push(w),
                }
            }
            list = kept;
        }
        let r = pass::run(self, &list, engine, units, sync_engine, st);
        self.checked = 0;
        r
    }
}

/// Bytes per header: the interval, or the whole block when it is smaller.
fn hdr_inc(interval: usize, len: usize) -> usize {
    if interval > 0 && interval <= len {
        interval
    } else {
        len.max(1)
    }
}

/// fio's memswp of the header and the bytes at verify_offset. Copies in
/// fio's order, so overlapping ranges (offset below the header size) end
/// up as fio leaves them.
fn swap_header(chunk: &mut [u8], at: usize, len: usize) {
    if at + len > chunk.len() || len > 200 {
        return;
    }
    let mut saved = [0u8; 200];
    saved[..len].copy_from_slice(&chunk[..len]);
    chunk.copy_within(at..at + len, 0);
    chunk[at..at + len].copy_from_slice(&saved[..len]);
}

fn hex(b: &[u8]) -> String {
    b.iter().fold(String::new(), |mut s, x| {
        let _ = write!(s, "{x:02x}");
        s
    })
}

/// A verify read in the job's read statistics (fio reports them there).
fn record_read(st: &mut ThreadStats, bytes: u64, ns: u64) {
    let d = &mut st.dir[0];
    d.ios += 1;
    d.io_bytes += bytes;
    d.clat.record(ns);
    d.lat.record(ns);
    st.issued[0] += 1;
}

impl Mismatch {
    /// The job's error: EILSEQ from fio's completion path, with the
    /// verify lines printed before fio's `err=84` line.
    pub fn into_io_error(self, sync_engine: bool) -> crate::run::worker::IoError {
        let (at, func) = if sync_engine {
            ("io_u.c:2152", "io_u_sync_complete")
        } else {
            ("io_u.c:2190", "io_u_queued_complete")
        };
        crate::run::worker::IoError {
            errno: libc::EILSEQ,
            kind: IoKind::Read,
            offset: self.offset,
            len: self.len,
            file: self.file,
            site: Some(Box::new(crate::run::errors::Site {
                at,
                func,
                note: self.report,
            })),
        }
    }
}

impl PassError {
    pub fn into_io_error(self, sync_engine: bool) -> crate::run::worker::IoError {
        match self {
            PassError::Mismatch(m) => m.into_io_error(sync_engine),
            PassError::Io {
                errno,
                file,
                offset,
                len,
            } => crate::run::worker::IoError {
                errno,
                kind: IoKind::Read,
                offset,
                len,
                file,
                site: None,
            },
        }
    }
}

/// fio's warnings about verify settings, printed once per job definition
/// before the job lines (init.c fixup_options): (on stdout?, line).
pub fn warnings(jobs: &[Job]) -> Vec<(bool, String)> {
    let mut out = Vec::new();
    for j in jobs.iter().filter(|j| j.clone == 0) {
        let Some(spec) = &j.verify else { continue };
        let o = &j.opts;
        let fixed = j.bssplit.iter().all(Vec::is_empty)
            && j.bs.iter().all(|b| b.0 == b.1 && b.0 == j.bs[0].0);
        if j.norandommap && !fixed {
            out.push((
                false,
                "fio: norandommap given for variable block sizes, verify limited\n".to_string(),
            ));
        }
        let writes = j.pattern.write && spec.do_verify;
        let format = o
            .text("filename_format")
            .unwrap_or_else(|| "$jobname.$jobnum.$filenum".into());
        let shared = o.is_set("filename")
            || !["$jobname", "$jobnum", "$filenum"]
                .iter()
                .all(|k| format.contains(k));
        if writes && o.int("numjobs") > 1 && shared {
            out.push((
                true,
                "fio: multiple writers may overwrite blocks that belong to other jobs. \
                 This can cause verification failures.\n"
                    .to_string(),
            ));
        }
        if writes && j.runtime_us > 0 && j.time_based && !j.pattern.read && spec.backlog == 0 {
            out.push((
                true,
                "fio: verification read phase will never start because write phase uses all \
                 of runtime\n"
                    .to_string(),
            ));
        }
    }
    out
}

/// fio's runtimes per direction with a verify phase (backend.c): the
/// write (and trim) runtime is the I/O phase alone, the read runtime adds
/// the verify phase to the job's own reads; verify_only has no write
/// runtime. `total_ns` spans both phases.
pub fn phase_runtimes(st: &mut ThreadStats, job: &Job, total_ns: u64, verify_ns: u64) {
    let main_us = total_ns.saturating_sub(verify_ns).div_ceil(1000);
    let verify_us = verify_ns.div_ceil(1000);
    let only = job.verify.as_ref().is_some_and(|s| s.only);
    for (d, ds) in st.dir.iter_mut().enumerate() {
        if ds.runtime_ms == 0 {
            continue;
        }
        ds.runtime_ms = match d {
            0 if job.pattern.read && ds.ios > 0 => (main_us + verify_us).div_ceil(1000),
            0 => verify_us.div_ceil(1000),
            1 if only => 0,
            _ => main_us.div_ceil(1000),
        };
    }
}

/// Prepare a write's buffer: verifiable contents when verifying, else
/// the buffer options' refill or scramble. Called only when one is on.
#[inline]
pub fn prepare_write(
    idx: usize,
    io: &IoUnit,
    fill: &mut Filler,
    v: Option<&mut Verifier<'_>>,
    now_ns: u64,
) {
    match v {
        Some(v) => v.seal(idx, io, fill),
        None => {
            // SAFETY: the unit's buffer holds at least `len` bytes.
            let buf = unsafe { std::slice::from_raw_parts_mut(io.buf, io.len) };
            fill.on_write(buf, io.offset, now_ns);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn spec(kind: Kind, interval: usize, offset: usize, pattern: Option<&str>) -> Spec {
        Spec {
            kind,
            interval,
            offset,
            pattern: pattern.map(|p| Pattern::parse(p, true).unwrap()),
            do_verify: true,
            only: false,
            backlog: 0,
            backlog_batch: 0,
            fatal: false,
            dump: false,
            check_numberio: true,
        }
    }

    fn verifier<'a>(spec: &'a Spec, paths: &'a [PathBuf]) -> Verifier<'a> {
        let mut quiet = Filler::from_content(Content::default());
        Verifier {
            spec,
            thread: 1,
            paths,
            fds: &[],
            unit_writes: vec![(0, 0); 1],
            writes: 0,
            history: Vec::new(),
            checked: 0,
            check_reads: false,
            overlaps: false,
            job_writes: true,
            scratch: Buffers::new(1, 4096, &mut quiet).unwrap(),
            scratch_len: 4096,
            content: Content::default(),
            check_seed: true,
            continue_verify: false,
        }
    }

    /// Seal a block as a write would, then check it as the verify phase does.
    fn sealed(v: &mut Verifier<'_>, len: usize, offset: u64) -> (Vec<u8>, Expect) {
        let mut buf = vec![0u8; len];
        let mut io = IoUnit::new(buf.as_mut_ptr());
        io.kind = IoKind::Write;
        io.len = len;
        io.offset = offset;
        let mut fill = Filler::from_content(Content::default());
        v.seal(0, &io, &mut fill);
        let (seed, numberio) = v.unit_writes[0];
        let w = Written {
            offset,
            seed,
            file: 0,
            len: len as u32,
            numberio,
        };
        (buf, v.expect_of(&w))
    }

    const KINDS: &[Kind] = &[
        Kind::Md5,
        Kind::Crc64,
        Kind::Crc16,
        Kind::Crc7,
        Kind::Sha3_224,
        Kind::Sha3_512,
        Kind::Crc32,
        Kind::Crc32c,
        Kind::Sha1,
        Kind::Sha256,
        Kind::Xxhash,
    ];

    #[test]
    fn messages_name_the_block_like_fio() {
        let s = spec(Kind::Md5, 4096, 0, None);
        let paths = [PathBuf::from("data")];
        let mut v = verifier(&s, &paths);
        let (mut buf, e) = sealed(&mut v, 8192, 65536);
        buf[5000] ^= 1;
        let m = v.check(&mut buf, 0, 65536, e).unwrap_err();
        assert!(m.report.starts_with(
            "md5: verify failed at file data offset 69632, length 4096 (requested block: offset=65536, length=8192, flags=88)\n       Expected CRC: "
        ), "{}", m.report);
        let (mut buf, e) = sealed(&mut v, 8192, 65536);
        let m = v.check(&mut buf, 0, 4096, e).unwrap_err();
        assert!(m.report.starts_with("verify: bad header offset 65536, wanted 4096 at file data offset 4096, length 4096 (requested block: offset=4096, length=8192)"), "{}", m.report);
        let mut zeros = vec![0u8; 4096];
        let m = v.check(&mut zeros, 0, 0, e).unwrap_err();
        assert!(
            m.report
                .starts_with("verify: bad magic header 0, wanted acca"),
            "{}",
            m.report
        );
    }

    #[test]
    fn pattern_failures_give_the_byte() {
        let s = spec(Kind::PatternNoHdr, 4096, 0, Some("0xdeadbeef"));
        let paths = [PathBuf::from("data")];
        let mut v = verifier(&s, &paths);
        let (mut buf, e) = sealed(&mut v, 4096, 0);
        assert_eq!(&buf[..4], &[0xde, 0xad, 0xbe, 0xef]);
        buf[10] = 0xbf;
        let m = v.check(&mut buf, 0, 0, e).unwrap_err();
        assert!(m.report.starts_with("fio: got pattern 'bf', wanted 'be'. Bad bits 1\nfio: bad pattern block offset 10\npattern: verify failed at file data offset 0"), "{}", m.report);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        /// Any sealed block checks clean; any single flipped byte is caught
        /// (for every checksum type, interval and header offset).
        #[test]
        fn every_flip_is_caught(
            k in 0..KINDS.len(),
            blocks in 1usize..4,
            per in prop::sample::select(vec![512usize, 1024, 4096]),
            swap in any::<bool>(),
            flip in any::<prop::sample::Index>(),
            offset in 0u64..1000,
        ) {
            let kind = KINDS[k];
            let voff = if swap { 256 } else { 0 };
            let s = spec(kind, per, voff, None);
            let paths = [PathBuf::from("f")];
            let mut v = verifier(&s, &paths);
            let len = per * blocks;
            let at = offset * 512;
            let (buf, e) = sealed(&mut v, len, at);
            let mut clean = buf.clone();
            prop_assert!(v.check(&mut clean, 0, at, e).is_ok());
            let mut bad = buf;
            let i = flip.index(len);
            bad[i] ^= 0x5a;
            prop_assert!(v.check(&mut bad, 0, at, e).is_err());
        }
    }
}
