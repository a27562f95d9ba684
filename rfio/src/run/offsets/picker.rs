//! Where the next I/O goes: direction (rwmix), block size (bs, bsrange,
//! bssplit), file (round robin...) and offset (sequential, or random: fio's
//! own offsets in run/offsets/fiomap.rs, or on the short path (one file, one
//! direction, one block) a full-cycle permutation that hits every block
//! once per pass).

use crate::engine::{IoKind, IoUnit};
use crate::job::Job;
use crate::run::offsets::distribution::Sampler;
use std::os::fd::RawFd;

/// xorshift64*: small, fast, good enough for picking offsets.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        // splitmix64 step so that small seeds give well-mixed states.
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        Rng((z ^ (z >> 31)) | 1)
    }

    #[inline]
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..n` (n > 0).
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next()) * u128::from(n)) >> 64) as u64
    }
}

/// A bijection on `0..2^bits`, walked with a counter and skipping values
/// `>= n` (cycle walking): every block exactly once per pass, no memory.
#[derive(Debug, Clone)]
struct Permutation {
    n: u64,
    mask: u64,
    shift: u32,
    key: u64,
    counter: u64,
}

impl Permutation {
    fn new(n: u64, key: u64) -> Self {
        let bits = 64 - n.saturating_sub(1).leading_zeros();
        let mask = if bits >= 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        Permutation {
            n,
            mask,
            shift: bits / 2 + 1,
            key: key & mask,
            counter: 0,
        }
    }

    #[inline]
    fn mix(&self, i: u64) -> u64 {
        let m = self.mask;
        // Each step is a bijection on the masked bits.
        let mut x = (i ^ self.key) & m;
        x = x.wrapping_mul(0x9E37_79B9_7F4A_7C15) & m;
        x ^= x >> self.shift;
        x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9) & m;
        x ^= x >> self.shift;
        x = (x.wrapping_add(self.key)) & m;
        x
    }

    #[inline]
    fn next(&mut self) -> Option<u64> {
        while self.counter <= self.mask {
            let v = self.mix(self.counter);
            self.counter += 1;
            if v < self.n {
                return Some(v);
            }
            if self.counter == 0 {
                break;
            }
        }
        None
    }
}

/// One file's region [start, start+len).
#[derive(Debug, Clone)]
pub struct Region {
    pub fd: RawFd,
    pub start: u64,
    pub len: u64,
    /// The file's size when the job started (fio's real_file_size), for
    /// where `rw=read:N` holes wrap.
    file_size: u64,
    /// Where random offsets start from: `start`, or the current zone's
    /// start under zonemode=strided (fio's file_offset).
    base: u64,
    /// The length random offsets are drawn over: `len`, or `zonerange`.
    span: u64,
    pos: [u64; 3],
    /// rw_sequencer=identical: where the last I/O of each direction
    /// started (None: none yet, the region's start).
    last_start: [Option<u64>; 3],
    perm: Permutation,
    exhausted: bool,
    /// Non-uniform `random_distribution` over this region's blocks.
    sampler: Option<Sampler>,
    /// The file's type bits (S_IFMT): fio drops the page cache of
    /// regular files and flushes block devices at each pass.
    kind: libc::mode_t,
}

impl Region {
    /// The file starts over within a run (fio's fio_file_reset, then its
    /// loop_cache_invalidate when `drop`: time_based, a non-uniform file
    /// service). Cold: once per pass over the file.
    #[cold]
    fn wrapped(&self, drop: bool) {
        if drop {
            crate::run::files::layout::invalidate(self.kind, self.fd, self.base, self.len);
        }
    }

    /// The file starts over where fio closes it and opens it again (a new
    /// loop or io_size round, the verify phase, a non-uniform file
    /// service): the cache dropped (`invalidate`, even under direct=1)
    /// and the access pattern hinted again, as fio's td_io_open_file.
    #[cold]
    fn reopened(&self, job_invalidate: bool, advice: Option<bool>) {
        if job_invalidate {
            crate::run::files::layout::invalidate(self.kind, self.fd, self.base, self.len);
        }
        crate::run::files::layout::hint(advice, self.kind, self.fd, self.base, self.len);
    }
}

pub struct Picker {
    /// fadvise_hint: the advice given at each reopen (Some(random)).
    advice: Option<bool>,
    bs_is_seq_rand: bool,
    /// rw_sequencer=identical (`randread:N` repeats each random block).
    identical: bool,
    regions: Vec<Region>,
    next_region: usize,
    rng: Rng,
    random: bool,
    norandommap: bool,
    /// `percentage_random` per direction.
    pct_random: [u64; 3],
    dirs: [bool; 3],
    mixed: bool,
    bs: [(u64, u64); 3],
    /// trimwrite: the block trimmed last, to be written next.
    write_after_trim: Option<(usize, u64, usize)>,
    /// The last unit was such a follow-up write (it does not count toward
    /// the job's size: fio trims and writes every block once).
    pub followup: bool,
    /// file_service_type: 0 roundrobin, 1 random, 2 sequential, 3 a
    /// non-uniform distribution over the files (`file_sampler`).
    file_service: u8,
    file_sampler: Option<crate::run::offsets::fiodist::FileDist>,
    /// `random:N` / `roundrobin:N`: I/Os per file before switching, and
    /// how many the current file has left.
    switch_every: u64,
    switch_left: u64,
    /// Smallest block: offset granularity.
    grain: u64,
    /// `rw=read:N`: bytes skipped after each sequential I/O.
    skip: u64,
    /// `rw=randread:N`: one random offset every N I/Os, the others go on
    /// sequentially (fio's ddir_seq_nr); `same_left` counts down to the
    /// next random one (0 or 1: this one), once per file tried, as fio's.
    ios_per_offset: u64,
    same_left: u64,
    last: (usize, u64, usize),
    key: u64,
    /// fio's direction and block-size draws (run/offsets/choices.rs).
    choices: crate::run::offsets::choices::Choices,
    /// The plain random case (one file, one direction, one block size,
    /// uniform over a random map, no `:N`, no percentage_random): the
    /// direction and the block size, for [`Picker::next`]'s short path.
    plain: Option<(usize, u64)>,
    /// fio's own random offsets over its random maps, for a random job off
    /// the short path (run/offsets/fiomap.rs).
    fiomap: Option<crate::run::offsets::fiomap::FioRandom>,
    /// fio reseeds its generators at each loop (randrepeat on and no
    /// randseed: fio turns randrepeat off when randseed is set).
    reseed: bool,
    /// zonemode=strided (run/offsets/zones.rs).
    zones: Option<crate::run::offsets::zones::Zones>,
    /// `invalidate` (fio's invalidate_cache): drop a file's page cache as
    /// a pass over it starts; `direct` leaves out the drops fio makes
    /// within a run (its loop_cache_invalidate), not those of a reopen.
    invalidate: bool,
    direct: bool,
    /// read_iolog: the log's entries in place of any offsets of its own.
    replay: Option<crate::run::iolog::reader::Cursor>,
    /// zonemode=zbd: the files' write pointers (run/offsets/zbd.rs).
    zbd: Option<crate::run::offsets::zbd::Zbd>,
    /// zonemode=zbd failed the job (a write longer than a zone).
    zbd_failed: bool,
    /// zonemode=zbd ended the pass (no zone to read from or write to).
    zbd_end: bool,
}

/// `rw=read:N` and `rw=read:-N` as fio's get_next_seq_offset: the hole
/// (or the step back, `add` being fio's signed ddir_seq_add kept as its
/// u64 bits) follows the end of the last I/O `p`. Positions count from
/// the region's or zone's start; one past the file's size wraps to the
/// start going forward, to the end less the step going back (where a
/// job at an offset starts too, as fio's); None: past the region, the
/// pass ends.
#[inline]
fn hole(r: &Region, p: u64, add: u64) -> Option<u64> {
    let back = (add as i64) < 0;
    // fio's end is io_size where the file is larger (not offset+io_size).
    let end = r.file_size.min(r.len);
    let last = if back && p == r.base && r.base != 0 {
        end
    } else {
        p
    };
    let mut rel = last.wrapping_sub(r.base);
    if rel != 0 {
        rel = rel.wrapping_add(add);
        if rel >= r.file_size {
            rel = if back { end.wrapping_add(add) } else { 0 };
        }
    }
    (rel < r.len).then(|| r.base + rel)
}

/// The size of an open file (None for the null engine's -1 or a device
/// fstat cannot size).
fn file_size(fd: RawFd) -> Option<u64> {
    if fd < 0 {
        return None;
    }
    // SAFETY: fstat into a zeroed stat of our own; fd is the job's.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstat(fd, &mut st) } != 0 || st.st_mode & libc::S_IFMT != libc::S_IFREG {
        return None;
    }
    Some(st.st_size as u64)
}

/// `file_service_type=zipf|pareto|normal|gauss[:value]`: files drawn as
/// fio draws them (run/offsets/fiodist.rs).
fn file_sampler(job: &Job, files: u64) -> Option<crate::run::offsets::fiodist::FileDist> {
    crate::run::offsets::fiodist::for_files(job, files as usize).filter(|_| files > 1)
}

/// The regions of a job's files as the picker walks them: each with its
/// span (zonerange under zonemode=strided), permutation and sampler.
fn regions_of(
    job: &Job,
    regions: Vec<(RawFd, u64, u64)>,
    zones: Option<&crate::run::offsets::zones::Zones>,
    grain: u64,
    key: u64,
) -> Vec<Region> {
    regions
        .into_iter()
        .map(|(fd, start, len)| {
            let span = zones.map_or(len, |z| z.range());
            Region {
                fd,
                start,
                len,
                kind: crate::run::files::layout::kind(fd),
                file_size: file_size(fd).unwrap_or(start + len),
                base: start,
                span,
                pos: [start; 3],
                last_start: [None; 3],
                perm: Permutation::new(span / grain, key),
                exhausted: false,
                // zipf, pareto, normal: fio's generators (run/offsets/fiomap.rs).
                sampler: (!job.rand.random_distribution.is_uniform()
                    && !crate::run::offsets::fiodist::is_fio(job))
                .then(|| Sampler::new(job.rand.random_distribution.in_blocks(grain), span / grain)),
            }
        })
        .collect()
}

/// The one direction whose random offsets take the short path (a plain
/// permutation, no map): a single-direction, fully random job over one
/// file, fixed block size, none of the options that need fio's map.
fn plain_dir(
    job: &Job,
    dirs: [bool; 3],
    grain: u64,
    norandommap: bool,
    n_regions: usize,
    zoned: bool,
) -> Option<usize> {
    let single_dir = match dirs {
        [true, false, false] => Some(0),
        [false, true, false] => Some(1),
        [false, false, true] => Some(2),
        _ => None,
    };
    single_dir.filter(|&d| {
        job.pattern.random
            && !norandommap
            && n_regions == 1
            && job.rand.percentage_random[d] >= 100
            && job.rw_postfix == 1
            // fio's map counts blocks of the smallest size of any
            // direction (rw_min_bs): `bs=4k,8k` randwrite ends early.
            && (0..3).all(|x| job.min_bs(x) >= grain)
            && job.bs[d].0 == job.bs[d].1
            && job.bs[d].0 == grain
            && job.bssplit[d].is_empty()
            && !zoned
            && !crate::run::offsets::fiomap::is_lfsr(job)
    })
}

/// Per region, the length fio's map and generators cover and what lies
/// past its start: zones' maps and uniform draws cover zonerange, fio's
/// zipf, pareto and normal generators the whole region (its io_size).
fn map_lens(job: &Job, regions: &[Region]) -> Vec<(u64, u64)> {
    let whole = matches!(
        job.rand.random_distribution,
        crate::job::distribution::Distribution::Zipf(_)
            | crate::job::distribution::Distribution::Pareto(_)
            | crate::job::distribution::Distribution::Normal(_)
    );
    regions
        .iter()
        .map(|r| {
            let n = if whole { r.len } else { r.span };
            (n, r.file_size.saturating_sub(r.start))
        })
        .collect()
}

/// `file_service_type` as the picker's number: 0 roundrobin, 1 random,
/// 2 sequential, 3 a distribution.
fn file_service_kind(job: &Job) -> u8 {
    match job.files.file_service.as_str() {
        "random" => 1,
        "sequential" => 2,
        "zipf" | "pareto" | "normal" | "gauss" => 3,
        _ => 0,
    }
}

/// How many I/Os go to a file before the next is chosen
/// (`file_service_type=random:N`, `roundrobin:N`).
fn switch_every(job: &Job) -> u64 {
    match job.files.file_service.as_str() {
        "random" | "roundrobin" => job
            .files
            .file_service_value
            .as_deref()
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(1)
            .max(1),
        _ => 1,
    }
}

impl Picker {
    pub fn new(job: &Job, regions: Vec<(RawFd, u64, u64)>, seed: u64) -> Self {
        let p = job.pattern;
        let dirs = [p.read, p.write, p.trim];
        let grain = job.grain().max(1);
        // `ba` sets the offset alignment of random I/O (and disables the map).
        let grain = if p.random {
            job.rand.blockalign.unwrap_or(grain).max(1)
        } else {
            grain
        };
        let mut rng = Rng::new(seed);
        let key = rng.next();
        let n_regions = regions.len() as u64;
        let zones = job.zones.map(crate::run::offsets::zones::Zones::new);
        let regions = regions_of(job, regions, zones.as_ref(), grain, key);
        let norandommap = job.rand.norandommap
            || !job.rand.random_distribution.is_uniform()
            || job.rand.blockalign.is_some();
        let plain = plain_dir(
            job,
            dirs,
            grain,
            norandommap,
            regions.len(),
            zones.is_some() || job.zbd.is_some(),
        );
        let lens = map_lens(job, &regions);
        Picker {
            // The short path keeps its own permutation (no map to build).
            fiomap: plain
                .is_none()
                .then(|| crate::run::offsets::fiomap::FioRandom::for_job(job, &lens, norandommap))
                .flatten(),
            plain: plain.map(|d| (d, grain)),
            reseed: job.rand.randrepeat && job.rand.randseed.is_none(),
            invalidate: job.files.invalidate,
            direct: job.direct,
            zones,
            regions,
            next_region: 0,
            rng,
            random: p.random,
            advice: crate::run::files::layout::advice(job),
            bs_is_seq_rand: job.opts.flag("bs_is_seq_rand"),
            identical: job.opts.choice("rw_sequencer").0 == "identical",
            // A non-uniform distribution implies norandommap (§3).
            norandommap,
            pct_random: job.rand.percentage_random,
            write_after_trim: None,
            followup: false,
            file_service: file_service_kind(job),
            file_sampler: file_sampler(job, n_regions),
            switch_every: switch_every(job),
            switch_left: 0,
            dirs,
            mixed: p.mixed(),
            bs: job.bs,
            grain,
            skip: if p.random { 0 } else { job.rw_postfix },
            ios_per_offset: if p.random { job.rw_postfix } else { 1 },
            same_left: 0,
            last: (0, 0, 0),
            key,
            choices: crate::run::offsets::choices::Choices::new(job),
            replay: job
                .replay
                .as_ref()
                .and_then(|r| r.log.clone())
                .map(crate::run::iolog::reader::Cursor::new),
            zbd: None,
            zbd_failed: false,
            zbd_end: false,
        }
    }

    /// zonemode=zbd: the job's files' zones (`tables`, one per region).
    pub fn attach_zbd(
        &mut self,
        job: &Job,
        tables: &[std::sync::Arc<crate::run::offsets::zbd::Table>],
    ) {
        let Some(s) = job.zbd.filter(|_| tables.len() == self.regions.len()) else {
            return;
        };
        let files = tables
            .iter()
            .zip(&self.regions)
            .map(|(t, r)| (t.clone(), r.start, r.len))
            .collect();
        let shape = crate::run::offsets::zbd::JobShape::of(job);
        self.zbd = Some(crate::run::offsets::zbd::Zbd::new(s, shape, files));
    }

    /// zonemode=zbd: the zone resets this job did, and whether a write
    /// longer than a zone failed it.
    pub fn zbd_state(&self) -> (u64, bool) {
        (self.zbd.as_ref().map_or(0, |z| z.resets), self.zbd_failed)
    }

    /// Start a new pass over every region (time_based, loops, io_size > size).
    pub fn new_pass(&mut self) {
        self.key = self.rng.next();
        for r in &mut self.regions {
            r.pos = [r.start; 3];
            r.base = r.start;
            r.perm = Permutation::new(r.span / self.grain, self.key);
            r.exhausted = false;
        }
        if let Some(z) = &mut self.zones {
            z.reset();
        }
        if let Some(m) = &mut self.fiomap {
            m.reset();
        }
        if let Some(z) = &mut self.zbd {
            z.file_reset(false);
        }
    }

    /// A pass over every file starts (time_based, loops, io_size rounds,
    /// verify): drop what the page cache holds of each file's region, as
    /// fio does. `reopened`: where fio closes and reopens the files (a new
    /// loop or round, the verify phase), which drops the cache even under
    /// direct=1; otherwise fio's loop_cache_invalidate, which does not.
    /// Cold: once per pass.
    #[cold]
    pub fn drop_caches(&self, reopened: bool) {
        for r in &self.regions {
            if reopened {
                r.reopened(self.invalidate, self.advice);
            } else {
                r.wrapped(self.invalidate && !self.direct);
            }
        }
    }

    /// A new loop of the job: a new pass, with fio's generators reseeded.
    pub fn new_loop(&mut self) {
        self.new_pass();
        if self.reseed {
            self.choices.restart();
        }
        if let Some(m) = &mut self.fiomap {
            m.restart();
            // fio closes the files: the first I/O picks a file anew.
            self.switch_left = 0;
        }
    }

    #[inline]
    fn pick_dir(&mut self) -> usize {
        if self.mixed {
            self.choices.mixed_dir()
        } else if self.dirs[1] && self.dirs[2] {
            // trimwrite: new offsets are trimmed first (the write follows).
            2
        } else if self.dirs[0] {
            0
        } else if self.dirs[1] {
            1
        } else {
            2
        }
    }

    /// The smallest block of direction `d` (the size is drawn once the
    /// offset is known, as fio draws it).
    #[inline]
    fn pick_len(&mut self, d: usize) -> u64 {
        self.choices.bounds(d, self.bs[d]).0
    }

    /// The short path: the next block of the permutation, whole (every
    /// block fits: the region holds len / grain of them and grain is the
    /// block).
    #[inline(always)]
    fn next_plain(&mut self, io: &mut IoUnit, d: usize, len: u64) -> bool {
        let r = &mut self.regions[0];
        match r.perm.next() {
            Some(b) => {
                let off = r.start + b * len;
                self.last = (0, off, len as usize);
                self.fill(io, d, 0, off, len as usize)
            }
            None => {
                r.exhausted = true;
                false
            }
        }
    }

    /// read_iolog: the log says what comes next.
    #[inline]
    fn next_replayed(&mut self, io: &mut IoUnit) -> bool {
        let Some((kind, file, off, len)) = self.replay.as_mut().and_then(|c| c.next()) else {
            return false;
        };
        let file = file.min(self.regions.len().saturating_sub(1));
        io.kind = kind;
        io.file = file;
        io.fd = self.regions.get(file).map_or(-1, |r| r.fd);
        io.offset = off;
        io.len = len as usize;
        !self.regions.is_empty()
    }

    /// file_service_type=random with fio's offsets: fio draws a file again
    /// after one ends, and again while the one drawn is done. False when
    /// every file is done.
    #[inline]
    fn redraw_random_file(&mut self, retry: bool, n: usize) -> bool {
        let Some(m) = self.fiomap.as_mut().filter(|_| self.file_service == 1) else {
            return true;
        };
        let mut redraw = retry || self.regions[self.next_region].exhausted;
        while redraw {
            if self.regions.iter().all(|r| r.exhausted) {
                return false;
            }
            match m.file(n) {
                Some(f) => self.next_region = f,
                None => break,
            }
            redraw = self.regions[self.next_region].exhausted;
        }
        true
    }

    /// Fill `io` with the next I/O; `false` when this pass has nothing left.
    /// Hot path: no allocation.
    #[inline]
    pub fn next(&mut self, io: &mut IoUnit) -> bool {
        // trimwrite: the write of the block just trimmed.
        self.followup = false;
        self.zbd_end = false;
        if let Some((d, len)) = self.plain {
            return self.next_plain(io, d, len);
        }
        if self.replay.is_some() {
            return self.next_replayed(io);
        }
        if let Some((f, off, l)) = self.write_after_trim.take() {
            self.followup = true;
            if let Some(z) = &mut self.zones {
                z.count(l as u64);
            }
            return self.fill(io, 1, f, off, l);
        }
        let mut d = self.pick_dir();
        if let Some(z) = &self.zbd {
            d = z.direction(self.next_region, d);
        }
        let mut len = self.pick_len(d);
        let n = self.regions.len();
        self.choose_file(n);
        // A file was tried and ended (fio then picks again).
        let mut tried = false;
        let mut busy_ok = false;
        // A non-uniform file service never ends a file with fio's offsets:
        // fio starts it over and draws a file again (fio tries on and on).
        let restart_files = self.file_service == 3 && self.fiomap.is_some();
        let tries = if restart_files { n * 64 } else { n };
        for _ in 0..tries {
            let retry = std::mem::take(&mut tried);
            if let Some(s) = self
                .file_sampler
                .as_mut()
                .filter(|_| retry && restart_files)
            {
                self.next_region = s.next();
            }
            if retry && self.fiomap.is_some() {
                // fio picks the direction again for the next file, which
                // starts its own `:N` run.
                self.switch_left = self.switch_every - 1;
                d = self.pick_dir();
                len = self.pick_len(d);
            }
            if !self.redraw_random_file(retry, n) {
                return false;
            }
            let fi = self.next_region;
            let advance = if fi + 1 == n { 0 } else { fi + 1 };
            // Sequential service stays on a file until it is used up.
            if self.file_service != 2 || self.regions[fi].exhausted {
                self.next_region = advance;
            }
            if self.regions[fi].exhausted {
                self.next_region = advance;
                continue;
            }
            tried = true;
            let Some((mut off, fio_random, fio_seq)) =
                self.offset(fi, d, len, retry, advance, restart_files, &mut busy_ok)
            else {
                continue;
            };
            let flags = (fio_random, fio_seq);
            len = match self.fit(fi, d, &mut off, flags, busy_ok, restart_files, advance) {
                Ok(len) => len,
                // zonemode=zbd ended the pass (or failed the job).
                Err(_) if self.zbd_end => return false,
                Err(left) => {
                    len = left;
                    continue;
                }
            };
            let r = &mut self.regions[fi];
            r.pos[d] = off + len;
            if self.identical {
                r.last_start[d] = Some(off);
            }
            self.last = (fi, off, len as usize);
            if d == 2 && self.dirs[1] {
                self.write_after_trim = Some((fi, off, len as usize));
            }
            if self.mixed {
                self.choices.issued(d);
            }
            return self.fill(io, d, fi, off, len as usize);
        }
        false
    }

    /// The file the next I/O goes to, by file_service_type (a run of
    /// `:N` stays on the last one).
    #[inline]
    fn choose_file(&mut self, n: usize) {
        // fio picks a new file once the last one is done.
        let last_done = self.fiomap.is_some() && self.regions[self.last.0].exhausted;
        if self.switch_left > 0 && n > 1 && !last_done {
            // Stay on the last file for its remaining I/Os.
            self.switch_left -= 1;
            self.next_region = self.last.0;
        } else {
            self.switch_left = self.switch_every - 1;
            if self.file_service == 1 && n > 1 {
                self.next_region = match self.fiomap.as_mut().and_then(|m| m.file(n)) {
                    Some(f) => f,
                    None => self.rng.below(n as u64) as usize,
                };
            } else if let Some(s) = &mut self.file_sampler {
                self.next_region = s.next();
            }
        }
    }

    /// The offset of the next I/O of direction `d` in file `fi` (the
    /// zone set up, the random or sequential draw, as fio's), with whether
    /// it came from fio's random map or its sequential share; None when the
    /// file ended or started over (the caller tries again).
    #[inline]
    #[allow(clippy::too_many_arguments)]
    fn offset(
        &mut self,
        fi: usize,
        d: usize,
        len: u64,
        retry: bool,
        advance: usize,
        restart_files: bool,
        busy_ok: &mut bool,
    ) -> Option<(u64, bool, bool)> {
        let r = &mut self.regions[fi];
        if let Some(z) = &mut self.zones {
            // The I/O before counts once, on the first file tried.
            let prev = (!retry).then_some(self.last.2 as u64);
            let setup = z.setup(prev, fi, d, r.start, &mut r.base, &mut r.pos, r.file_size);
            if setup == crate::run::offsets::zones::Setup::Restart {
                r.perm = Permutation::new(r.span / self.grain, self.key);
                if let Some(m) = self.fiomap.as_mut() {
                    m.reset_file(fi);
                }
            }
        }
        // `:0` (fio's ddir_seq_nr 0): never a random offset.
        let seq_hit = self.ios_per_offset != 0 && self.same_left <= 1;
        self.same_left = if seq_hit {
            self.ios_per_offset
        } else {
            self.same_left.saturating_sub(1)
        };
        let random = self.random
            && seq_hit
            && (self.pct_random[d] >= 100
                || match self.fiomap.as_mut() {
                    // fio's draw from its seq_rand generators.
                    Some(m) => m.do_random(d, self.pct_random[d]),
                    None => self.rng.below(100) < self.pct_random[d],
                });
        if !seq_hit && self.identical {
            // rw_sequencer=identical: the same block again.
            let r = &self.regions[fi];
            return Some((r.last_start[d].unwrap_or(r.start), false, true));
        }
        let fio_random = random && self.fiomap.is_some();
        // The sequential share of percentage_random, as fio's.
        let fio_seq = self.random && !random && self.fiomap.is_some();
        // fio's IO_U_F_BUSY_OK: set by a sequential try, it stays on
        // for the tries on other files that follow (no marking then).
        *busy_ok |= fio_seq;
        let off = if fio_random {
            self.fio_random_offset(fi, d, advance, restart_files)?
        } else if random {
            self.random_offset(fi, advance)?
        } else if fio_seq && self.fiomap.is_some() {
            self.fio_seq_offset(fi, d, advance, restart_files)?
        } else {
            if let Some(z) = &mut self.zbd {
                let r = &mut self.regions[fi];
                z.sequential_position(fi, d, &mut r.pos[d], &mut r.base, (r.start, r.file_size));
            }
            self.seq_offset(fi, d, len, advance)?
        };
        Some((off, fio_random, fio_seq))
    }

    /// fio's random map: its next free block (a file past its io_size ends;
    /// time_based or a non-uniform file service start it over).
    #[inline]
    fn fio_random_offset(
        &mut self,
        fi: usize,
        d: usize,
        advance: usize,
        restart_files: bool,
    ) -> Option<u64> {
        let r = &mut self.regions[fi];
        // fio ends the file at an offset past its io_size.
        let mut got = self.fiomap.as_mut().and_then(|m| m.offset(fi, d));
        if let Some(m) = self
            .fiomap
            .as_mut()
            .filter(|m| got.is_none() && m.restarts() && !m.past_end())
        {
            // time_based or a non-uniform file service: fio starts
            // a full file over.
            m.reset_file(fi);
            got = m.offset(fi, d);
            r.pos = [r.start; 3];
            r.wrapped(self.invalidate && !self.direct);
        }
        match got {
            Some(o) if o < r.len => Some(r.base + o),
            _ if restart_files => {
                if let Some(m) = self.fiomap.as_mut() {
                    m.reset_file(fi);
                }
                r.pos = [r.start; 3];
                // fio closes the file and opens it again.
                r.reopened(self.invalidate, self.advice);
                None
            }
            _ => {
                // fio ends the file where its map gives no offset.
                r.exhausted = true;
                self.next_region = advance;
                None
            }
        }
    }

    /// A random block: the file's sampler (random_distribution), any block
    /// (norandommap) or the next of the permutation.
    #[inline]
    fn random_offset(&mut self, fi: usize, advance: usize) -> Option<u64> {
        let r = &mut self.regions[fi];
        let block = if let Some(s) = &r.sampler {
            // u64::MAX: a zoned_abs zone past the file ends it.
            Some(s.next(&mut self.rng)).filter(|&b| b != u64::MAX)
        } else if self.norandommap {
            let blocks = r.span / self.grain;
            if blocks == 0 {
                None
            } else {
                Some(self.rng.below(blocks))
            }
        } else {
            r.perm.next()
        };
        match block {
            Some(b) => Some(r.base + b * self.grain),
            None => {
                r.exhausted = true;
                // Sequential service moves on to the next file.
                self.next_region = advance;
                None
            }
        }
    }

    /// The sequential share of a random job with fio's map.
    #[inline]
    fn fio_seq_offset(
        &mut self,
        fi: usize,
        d: usize,
        advance: usize,
        restart_files: bool,
    ) -> Option<u64> {
        let r = &mut self.regions[fi];
        let m = self.fiomap.as_mut()?;
        // fio goes on from the end of the last I/O of this
        // direction in this file (random ones too); past the file's
        // end it draws a block at random (not marked); one at or
        // past io_size ends the file.
        if m.wraps_sequential() && r.pos[d] >= r.start + r.len {
            // time_based with one file: back to its start.
            r.pos[d] = r.start;
            r.wrapped(self.invalidate && !self.direct);
        }
        let mut rel = if r.pos[d] - r.start < m.real_size(fi) {
            Some(r.pos[d] - r.base)
        } else {
            m.offset(fi, d)
        };
        if rel.is_none() && m.restarts() && !m.past_end() {
            // time_based or a non-uniform file service: the file
            // starts over (its random draw is tried again).
            m.reset_file(fi);
            r.pos = [r.start; 3];
            r.wrapped(self.invalidate && !self.direct);
            rel = m.offset(fi, d);
        }
        match rel.filter(|&o| o < r.len) {
            Some(o) => Some(r.base + o),
            None if restart_files => {
                m.reset_file(fi);
                r.pos = [r.start; 3];
                r.reopened(self.invalidate, self.advice);
                None
            }
            None => {
                r.exhausted = true;
                self.next_region = advance;
                None
            }
        }
    }

    /// The next sequential offset (with `rw=read:N`'s holes).
    #[inline]
    fn seq_offset(&mut self, fi: usize, d: usize, len: u64, advance: usize) -> Option<u64> {
        let r = &mut self.regions[fi];
        let end = r.start + r.len;
        let mut p = r.pos[d];
        if self.random && p + len > end {
            // The sequential share of a random job wraps around.
            p = r.start;
        }
        if p + self.grain.min(len) > end {
            r.exhausted = true;
            // Sequential service moves on to the next file.
            self.next_region = advance;
            return None;
        }
        if self.skip != 0 {
            match hole(r, p, self.skip) {
                Some(next) => p = next,
                None => {
                    r.exhausted = true;
                    self.next_region = advance;
                    return None;
                }
            }
        }
        Some(p)
    }

    /// The length of the I/O at `off`: its block, cut to what the region
    /// leaves (or the file ends there), marked in fio's random map; Err
    /// (with the length the next try starts from, as fio's loop keeps it)
    /// when the file ended or started over (the caller tries again).
    #[inline]
    #[allow(clippy::too_many_arguments)]
    fn fit(
        &mut self,
        fi: usize,
        d: usize,
        off_at: &mut u64,
        (fio_random, fio_seq): (bool, bool),
        busy_ok: bool,
        restart_files: bool,
        advance: usize,
    ) -> Result<u64, u64> {
        let off = *off_at;
        let r = &mut self.regions[fi];
        let end = r.start + r.len;
        // bs_is_seq_rand: the read sizes are the sequential ones, the
        // write sizes the random ones, whatever the direction.
        let bd = if self.bs_is_seq_rand {
            usize::from(fio_random || (self.random && self.fiomap.is_none()))
        } else {
            d
        };
        // A zone's offsets may lie past the region's end.
        let mut len = self
            .choices
            .block_len(bd, self.bs[bd], end.saturating_sub(off));
        if len == 0 || off + len > end {
            // fio ends the file where the block does not fit.
            len = if fio_random || fio_seq {
                0
            } else {
                (end - off) / self.grain * self.grain
            };
            if len == 0 {
                if let Some(m) = self.fiomap.as_mut().filter(|_| restart_files) {
                    m.reset_file(fi);
                    r.pos = [r.start; 3];
                    r.reopened(self.invalidate, self.advice);
                    return Err(len);
                }
                r.exhausted = true;
                // Sequential service moves on to the next file.
                self.next_region = advance;
                return Err(len);
            }
        }
        // zonemode=zbd: the zone's offset and length, marked in fio's map
        // (at the offset drawn) before the write pointer moves, as fio's.
        let marking = fio_random && !busy_ok;
        if let Some(z) = self.zbd.as_mut() {
            use crate::run::offsets::zbd::Adjusted;
            let (fiomap, rel) = (&mut self.fiomap, off - r.base);
            let mut mark = |l: u64| match fiomap.as_mut().filter(|_| marking) {
                Some(m) => m.mark(fi, d, rel, l),
                None => l,
            };
            match z.adjust(fi, d, off, len, &mut mark) {
                Adjusted::Accept(o, l) => (*off_at, len) = (o, l),
                Adjusted::Eof => {
                    self.zbd_end = true;
                    return Err(0);
                }
                Adjusted::TooLong => {
                    (self.zbd_end, self.zbd_failed) = (true, true);
                    return Err(0);
                }
            }
        }
        if let Some(m) = self.fiomap.as_mut().filter(|_| marking) {
            if self.zbd.is_none() {
                len = m.mark(fi, d, off - r.base, len);
            }
            if len == 0 {
                if restart_files {
                    m.reset_file(fi);
                    r.pos = [r.start; 3];
                    r.reopened(self.invalidate, self.advice);
                    return Err(len);
                }
                r.exhausted = true;
                self.next_region = advance;
                return Err(len);
            }
        }
        Ok(len)
    }

    #[inline]
    fn fill(&self, io: &mut IoUnit, d: usize, file: usize, off: u64, len: usize) -> bool {
        io.kind = match d {
            0 => IoKind::Read,
            1 => IoKind::Write,
            _ => IoKind::Trim,
        };
        io.file = file;
        io.fd = self.regions[file].fd;
        io.offset = off;
        io.len = len;
        true
    }

    /// Let a rate turn a mixed job's directions (the job's throttle's
    /// shared due times).
    pub fn attach_steer(&mut self, steer: Option<crate::run::pacing::throttle::SteerCell>) {
        self.choices.attach_steer(steer);
    }

    /// A trimwrite write is due (it completes the block just trimmed).
    pub fn has_followup(&self) -> bool {
        self.write_after_trim.is_some()
    }

    /// Descriptor of a file (for sync units).
    pub fn fd(&self, file: usize) -> RawFd {
        self.regions[file].fd
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::test_job as job;

    #[test]
    fn permutation_hits_every_block_once() {
        for n in [1u64, 2, 3, 7, 64, 1000, 4097] {
            let mut p = Permutation::new(n, 0x1234_5678);
            let mut seen = vec![false; n as usize];
            let mut count = 0;
            while let Some(v) = p.next() {
                assert!(!seen[v as usize], "n={n} v={v} twice");
                seen[v as usize] = true;
                count += 1;
            }
            assert_eq!(count, n);
        }
    }

    fn offsets(p: &mut Picker) -> Vec<(IoKind, u64, usize)> {
        let mut io = IoUnit::new(std::ptr::null_mut());
        let mut out = Vec::new();
        while p.next(&mut io) {
            out.push((io.kind, io.offset, io.len));
        }
        out
    }

    #[test]
    fn plain_random_path_is_the_general_one() {
        for rw in ["randread", "randwrite", "randtrim"] {
            let j = job(&[&format!("--rw={rw}"), "--bs=4k", "--size=1M"]);
            let mut fast = Picker::new(&j, vec![(-1, 8192, 1 << 20)], 7);
            assert!(fast.plain.is_some(), "{rw}: short path not taken");
            let mut general = Picker::new(&j, vec![(-1, 8192, 1 << 20)], 7);
            general.plain = None;
            let a = offsets(&mut fast);
            assert_eq!(a, offsets(&mut general), "{rw}");
            // Every block once, whole, inside the region.
            let mut blocks: Vec<u64> = a.iter().map(|&(_, off, _)| (off - 8192) / 4096).collect();
            blocks.sort_unstable();
            assert_eq!(blocks, (0..256).collect::<Vec<_>>(), "{rw}");
            assert!(a.iter().all(|&(_, _, len)| len == 4096));
            // A new pass goes on the same way.
            fast.new_pass();
            general.new_pass();
            assert_eq!(
                offsets(&mut fast),
                offsets(&mut general),
                "{rw} second pass"
            );
        }
        // Anything else takes the general path.
        for extra in [
            "--bsrange=4k-8k",
            "--norandommap",
            "--percentage_random=50",
            "--rw=randread:4",
        ] {
            let j = job(&["--rw=randread", "--bs=4k", "--size=1M", extra]);
            assert!(
                Picker::new(&j, vec![(-1, 0, 1 << 20)], 7).plain.is_none(),
                "{extra}"
            );
        }
        let j = job(&["--rw=randrw", "--bs=4k", "--size=1M"]);
        assert!(Picker::new(&j, vec![(-1, 0, 1 << 20)], 7).plain.is_none());
        let j = job(&["--rw=randread", "--bs=4k", "--size=1M"]);
        let two = vec![(-1, 0, 1 << 19), (-1, 0, 1 << 19)];
        assert!(Picker::new(&j, two, 7).plain.is_none());
    }

    #[test]
    fn rng_below_in_range() {
        let mut r = Rng::new(1);
        for _ in 0..1000 {
            assert!(r.below(7) < 7);
        }
    }
}
