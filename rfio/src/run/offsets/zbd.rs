//! `zonemode=zbd` on regular files and non-zoned devices, as fio 3.33
//! emulates it (its zoned model "none", zbd.c as read and measured beside
//! fio):
//! - Zones of `zonesize` cover the file as it was before the run laid it out
//!   (a new file has none: fio's `file/device size 0 is smaller than zone
//!   size`); each has a write pointer at its start and `zonecapacity`
//!   usable bytes. The zones of one file are shared by every job of the run
//!   that uses it (a write job's data is what a later read job may read).
//! - A write goes to its zone's write pointer, cut to the zone's capacity;
//!   a full zone is reset first (its pointer back to the start, counted as a
//!   zone reset); `max_open_zones`/`job_max_open_zones` bound the zones open
//!   for writing, a write to another zone goes to an open one.
//! - A read stays below its zone's write pointer (`read_beyond_wp` lifts
//!   that): a zone without data sends it to the next zone with some (the
//!   nearest either way for random I/O); none left ends the pass. A mixed
//!   job writes first while nothing is written.
//! - `zone_reset_threshold`/`zone_reset_frequency`: past the threshold of
//!   data in the region, one write in 1/frequency resets its zone.
//! - A sequential write at a zone's capacity goes on at the next zone.
//!
//! One lock per file's zones, taken once per I/O and only under zonemode=zbd
//! (fio takes its zone mutex per I/O too). Real zoned block devices (the
//! BLKREPORTZONE ioctls) are not read: a host-managed or host-aware device is
//! refused before any I/O. The settings are job/zbd.rs.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};

pub use crate::job::zbd::{Settings, MAX_OPEN_ZONES};

#[derive(Debug, Clone)]
struct Zone {
    start: u64,
    wp: u64,
    capacity: u64,
    open: bool,
}

impl Zone {
    fn cap_end(&self) -> u64 {
        self.start + self.capacity
    }
    /// fio's zbd_zone_full: fewer than `need` bytes left.
    fn full(&self, need: u64) -> bool {
        self.wp + need > self.cap_end()
    }
}

#[derive(Debug)]
struct State {
    zone_size: u64,
    /// The zones and a sentinel (its start is the end of the last zone).
    zones: Vec<Zone>,
    max_open: u32,
    open: Vec<u32>,
    /// Bytes below the write pointers (fio's sectors_with_data).
    with_data: u64,
    /// Writes left before the next reset under zone_reset_frequency.
    write_cnt: u32,
}

impl State {
    fn nr(&self) -> usize {
        self.zones.len() - 1
    }
    fn index(&self, offset: u64) -> usize {
        ((offset / self.zone_size) as usize).min(self.nr())
    }
    fn close(&mut self, zi: usize, job_open: &mut u32) {
        if !self.zones[zi].open {
            return;
        }
        if let Some(p) = self.open.iter().position(|&z| z as usize == zi) {
            self.open.remove(p);
            *job_open = job_open.saturating_sub(1);
            self.zones[zi].open = false;
        }
    }
}

/// The zones of one file, shared by the jobs of a run that use it.
#[derive(Debug)]
pub struct Table {
    state: Mutex<State>,
}

impl Table {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The tables of the files in use, by file name (fio shares a file's zone
/// information between the jobs that name it).
static TABLES: Mutex<Vec<(PathBuf, Weak<Table>)>> = Mutex::new(Vec::new());

/// Why a file's zones could not be set up: fio's line, and its error code
/// (0: fio fails the job without one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InitError {
    pub message: String,
    pub errno: i32,
}

/// The zones of `path` (of `size` bytes before the run lays it out), shared
/// with any other job of the run that uses it (fio's zbd_init_zone_info).
/// `device`: a block device (fio asks it for its zoned model).
pub fn table_for(
    path: &Path,
    size: u64,
    device: bool,
    s: &Settings,
) -> Result<Arc<Table>, InitError> {
    let mut tables = TABLES.lock().unwrap_or_else(|p| p.into_inner());
    tables.retain(|(_, w)| w.strong_count() > 0);
    if let Some(t) = tables
        .iter()
        .find(|(p, _)| p == path)
        .and_then(|(_, w)| w.upgrade())
    {
        return Ok(t);
    }
    if device {
        refuse_zoned_device(path)?;
    }
    let t = Arc::new(create(path, size, s)?);
    tables.push((path.to_path_buf(), Arc::downgrade(&t)));
    Ok(t)
}

/// A zoned block device: fio would read its zones; rfio does not.
fn refuse_zoned_device(path: &Path) -> Result<(), InitError> {
    let Some(name) = std::fs::canonicalize(path)
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
    else {
        return Ok(());
    };
    let model =
        std::fs::read_to_string(format!("/sys/block/{name}/queue/zoned")).unwrap_or_default();
    match model.trim() {
        "host-managed" | "host-aware" => Err(InitError {
            message: format!(
                "{}: rfio does not read the zones of a {} zoned block device (zonemode=zbd emulates zones on regular files and non-zoned devices only)\n",
                path.display(),
                model.trim()
            ),
            errno: libc::EOPNOTSUPP,
        }),
        _ => Ok(()),
    }
}

/// fio's init_zone_info: emulated zones over the file, all empty.
fn create(path: &Path, size: u64, s: &Settings) -> Result<Table, InitError> {
    let name = path.display();
    let quiet = |message: String| InitError { message, errno: 0 };
    if s.zone_size == 0 {
        return Err(quiet(format!(
            "{name}: Specifying the zone size is mandatory for regular file/block device with --zonemode=zbd\n\n"
        )));
    }
    if s.zone_size < 512 {
        return Err(quiet(format!(
            "{name}: zone size must be at least 512 bytes for --zonemode=zbd\n\n"
        )));
    }
    let capacity = if s.capacity == 0 {
        s.zone_size
    } else {
        s.capacity
    };
    if capacity > s.zone_size {
        return Err(quiet(format!(
            "{name}: job parameter zonecapacity {} is larger than zone size {}\n",
            s.capacity, s.zone_size
        )));
    }
    if size < s.zone_size {
        return Err(InitError {
            message: format!(
                "{name}: file/device size {size} is smaller than zone size {}\n",
                s.zone_size
            ),
            errno: libc::EINVAL,
        });
    }
    if s.max_open as u64 > MAX_OPEN_ZONES {
        return Err(quiet(format!(
            "'max_open_zones' value is larger than {MAX_OPEN_ZONES}\n"
        )));
    }
    let nr = size.div_ceil(s.zone_size);
    let mut zones: Vec<Zone> = (0..=nr)
        .map(|i| Zone {
            start: i * s.zone_size,
            wp: i * s.zone_size,
            capacity,
            open: false,
        })
        .collect();
    zones[nr as usize].capacity = 0;
    Ok(Table {
        state: Mutex::new(State {
            zone_size: s.zone_size,
            zones,
            max_open: s.max_open,
            // Sized once: opening a zone allocates nothing per I/O.
            open: Vec::with_capacity(s.max_open as usize),
            with_data: 0,
            write_cnt: u32::MAX,
        }),
    })
}

/// What a job does with its files' zones.
#[derive(Debug, Clone, Copy)]
pub struct JobShape {
    pub read: bool,
    pub write: bool,
    pub trim: bool,
    pub random: bool,
    pub verify: bool,
    /// The smallest block per direction.
    pub min_bs: [u64; 3],
    /// The block sizes per direction (fixed or the largest).
    pub bs: [u64; 3],
    pub trim_bs_varies: bool,
}

/// fio's zbd_setup_files for one file of a job: its region aligned to the
/// zones (fio's lines for what it rounded, on stdout), the job's checks.
/// `region` is (offset, length) and `file_size` the file's size now.
pub fn setup_file(
    name: &Path,
    t: &Table,
    s: &Settings,
    shape: &JobShape,
    region: &mut (u64, u64),
    file_size: u64,
    info: &mut Vec<String>,
) -> Result<(), String> {
    let st = t.lock();
    let zs = st.zone_size;
    let name = name.display();
    let (off, len) = region;
    if *len > 0 && *off < file_size {
        if !s.zone_skip.is_multiple_of(zs) {
            return Err(format!(
                "{name}: zoneskip {} is not a multiple of the device zone size {zs}.\n",
                s.zone_skip
            ));
        }
        // fio's td_ddir == TD_DDIR_READ: sequential reads only.
        let read_only = shape.read && !shape.write && !shape.trim && !shape.random;
        let z = &st.zones[st.index(*off)];
        if *off != z.start && !read_only {
            let new = st.zones[st.index(*off) + 1].start;
            if new >= *off + *len {
                info.push(format!("{name}: io_size must be at least one zone\n"));
                return Err(String::new());
            }
            info.push(format!("{name}: rounded up offset from {off} to {new}\n"));
            *len -= new - *off;
            *off = new;
        }
        let end = st.zones[st.index(*off + *len)].start;
        if !read_only && *off + *len != end {
            if end <= *off {
                info.push(format!("{name}: io_size must be at least one zone\n"));
                return Err(String::new());
            }
            info.push(format!(
                "{name}: rounded down io_size from {len} to {}\n",
                end - *off
            ));
            *len = end - *off;
        }
    }
    check_bs(&name.to_string(), zs, shape, info)?;
    if s.max_open > 0 && st.max_open != s.max_open {
        return Err("Different 'max_open_zones' values\n".into());
    }
    if s.job_max_open > 0 && st.max_open == 0 {
        return Err(
            "'job_max_open_zones' cannot be used without a global open zones limit\n".into(),
        );
    }
    Ok(())
}

/// fio's zbd_verify_bs (its lines on stdout; Err(empty): already said).
fn check_bs(name: &str, zs: u64, shape: &JobShape, info: &mut Vec<String>) -> Result<(), String> {
    if shape.trim && shape.trim_bs_varies {
        info.push("bsrange and bssplit are not allowed for trim with zonemode=zbd\n".into());
        return Err(String::new());
    }
    if shape.trim && shape.bs[2] != zs {
        info.push(format!(
            "{name}: trim block size {} is not the zone size {zs}\n",
            shape.bs[2]
        ));
        return Err(String::new());
    }
    if shape.verify {
        if let Some(&b) = shape.bs.iter().find(|&&b| b == 0 || !zs.is_multiple_of(b)) {
            info.push(format!(
                "{name}: block size {b} is not a divisor of the zone size {zs}\n"
            ));
            return Err(String::new());
        }
    }
    Ok(())
}

impl JobShape {
    pub fn of(job: &crate::job::Job) -> Self {
        let p = job.pattern;
        JobShape {
            read: p.read,
            write: p.write,
            trim: p.trim,
            random: p.random,
            verify: job.verify.is_some(),
            min_bs: [job.min_bs(0), job.min_bs(1), job.min_bs(2)],
            bs: [job.bs[0].1, job.bs[1].1, job.bs[2].1],
            trim_bs_varies: job.bs[2].0 != job.bs[2].1 || !job.bssplit[2].is_empty(),
        }
    }
}

/// The zones of each of a job's files (fio's zbd_init_files, before the
/// files are laid out); `existing`: per file, its size and whether it is a
/// block device (None: it does not exist yet).
pub fn init_files(
    job: &crate::job::Job,
    existing: &[Option<(u64, bool)>],
) -> Result<Vec<Arc<Table>>, InitError> {
    let Some(s) = &job.zbd else {
        return Ok(Vec::new());
    };
    job.filenames
        .iter()
        .zip(existing)
        .map(|(p, e)| {
            let (size, device) = e.unwrap_or((0, false));
            table_for(p, size, device, s)
        })
        .collect()
}

/// fio's zbd_setup_files for a job's laid-out files: each region (fd,
/// offset, length) aligned to its zones; `info` gets fio's stdout lines.
/// `existing`: as for [`init_files`] (a block device's size is not its
/// metadata's). Err: fio's stderr line (empty when `info` said it).
pub fn setup_files(
    job: &crate::job::Job,
    tables: &[Arc<Table>],
    existing: &[Option<(u64, bool)>],
    regions: &mut [(i32, u64, u64)],
    info: &mut Vec<String>,
) -> Result<(), String> {
    let Some(s) = &job.zbd else {
        return Ok(());
    };
    let shape = JobShape::of(job);
    for (i, ((p, t), r)) in job
        .filenames
        .iter()
        .zip(tables)
        .zip(regions.iter_mut())
        .enumerate()
    {
        let before = existing.get(i).copied().flatten().map_or(0, |e| e.0);
        let size = std::fs::metadata(p).map_or(0, |m| m.len()).max(before);
        let mut region = (r.1, r.2);
        setup_file(p, t, s, &shape, &mut region, size, info)?;
        (r.1, r.2) = region;
    }
    Ok(())
}

/// One file of a running job: its zones and its region.
#[derive(Debug)]
struct FileZones {
    table: Arc<Table>,
    /// fio's file_offset and io_size.
    start: u64,
    len: u64,
    min_zone: usize,
    max_zone: usize,
}

/// How an I/O fares with the zones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Adjusted {
    /// Go ahead at this offset with this length.
    Accept(u64, u64),
    /// Nothing to do: the pass ends (fio's io_u_eof).
    Eof,
    /// fio fails the job: `I/O buflen exceeds zone size` (EINVAL).
    TooLong,
}

/// The zones of a running job (fio's per-thread zbd state).
#[derive(Debug)]
pub struct Zbd {
    s: Settings,
    shape: JobShape,
    files: Vec<FileZones>,
    /// Zones this job holds open (fio's td->num_open_zones).
    open: u32,
    /// Zone resets done by this job (fio's nr_zone_resets).
    pub resets: u64,
    /// Bytes of I/O since the last zone skip (fio's td->zone_bytes).
    zone_bytes: u64,
}

impl Zbd {
    /// `files`: per region, its table and its (offset, length).
    pub fn new(s: Settings, shape: JobShape, files: Vec<(Arc<Table>, u64, u64)>) -> Self {
        let files = files
            .into_iter()
            .map(|(table, start, len)| {
                let (min_zone, max_zone) = {
                    let st = table.lock();
                    (st.index(start), st.index(start + len))
                };
                FileZones {
                    table,
                    start,
                    len,
                    min_zone,
                    max_zone,
                }
            })
            .collect();
        let mut z = Zbd {
            s,
            shape,
            files,
            open: 0,
            resets: 0,
            zone_bytes: 0,
        };
        z.file_reset(false);
        z
    }

    /// A pass over the files starts (fio's zbd_file_reset): with verify,
    /// the zones are emptied before any write; the reset count restarts.
    pub fn file_reset(&mut self, verifying: bool) {
        if !self.shape.write {
            return;
        }
        let freq = self.s.reset_frequency;
        for fi in 0..self.files.len() {
            let f = &self.files[fi];
            let mut st = f.table.lock();
            if self.shape.verify && !verifying {
                for zi in f.min_zone..f.max_zone {
                    st.close(zi, &mut self.open);
                    self.resets += reset(&mut st, zi);
                }
            }
            st.write_cnt = write_cnt(freq);
        }
    }

    /// fio's zbd_adjust_ddir: a mixed job writes while nothing is written.
    #[inline]
    pub fn direction(&self, fi: usize, d: usize) -> usize {
        if d != 0 || !(self.shape.read && self.shape.write) || self.s.read_beyond_wp {
            return d;
        }
        match self.files.get(fi) {
            Some(f) if f.table.lock().with_data == 0 => 1,
            _ => d,
        }
    }

    /// fio's setup_zbd_zone_mode for sequential I/O of direction `d` at
    /// `pos`: a write at the zone's capacity goes on at the zone's end;
    /// with zoneskip, once a zone's worth is done (or the zone's end, or
    /// for reads its write pointer, is reached) the region's start `base`
    /// moves on by zonesize + zoneskip (back to `start` past the file's
    /// `file_size`) and the position with it.
    #[inline]
    pub fn sequential_position(
        &mut self,
        fi: usize,
        d: usize,
        pos: &mut u64,
        base: &mut u64,
        (start, file_size): (u64, u64),
    ) {
        if self.shape.random || d > 1 {
            return;
        }
        let Some(f) = self.files.get(fi) else {
            return;
        };
        let st = f.table.lock();
        let zi = st.index(*pos);
        let z = &st.zones[zi];
        if zi < st.nr() && d == 1 && z.capacity < st.zone_size && *pos >= z.cap_end() {
            *pos = st.zones[zi + 1].start;
        }
        if self.s.zone_skip == 0 {
            return;
        }
        // Past the last zone (fio's sentinel) counts as its end.
        let zi = st.index(*pos);
        let z = &st.zones[zi];
        let past = zi >= st.nr() || *pos >= st.zones[zi + 1].start;
        let at_wp = d == 0 && !self.s.read_beyond_wp && *pos >= z.wp;
        if self.zone_bytes >= st.zone_size || past || at_wp {
            self.zone_bytes = 0;
            *base += st.zone_size + self.s.zone_skip;
            if *base >= file_size {
                *base = start;
            }
            *pos = *base;
        }
    }

    /// fio's zbd_adjust_block (and the write pointer's move as the I/O is
    /// queued) for an I/O of direction `d` at `off` of `len` bytes.
    /// `mark` marks the length taken in the random map (fio's
    /// mark_random_map, after the zone's adjustment) and gives what it
    /// kept; a length of 0 leaves the zone as it was.
    pub fn adjust(
        &mut self,
        fi: usize,
        d: usize,
        off: u64,
        len: u64,
        mark: &mut dyn FnMut(u64) -> u64,
    ) -> Adjusted {
        let Some(f) = self.files.get(fi) else {
            return Adjusted::Accept(off, mark(len));
        };
        let min_bs = self.shape.min_bs[d].max(1);
        if d == 0 && self.s.read_beyond_wp {
            let len = mark(len);
            self.zone_bytes += len;
            return Adjusted::Accept(off, len);
        }
        let table = f.table.clone();
        let mut st = table.lock();
        let got = match d {
            0 => self.adjust_read(&st, fi, off, len, min_bs),
            1 => self.adjust_write(&mut st, fi, off, len, min_bs),
            _ => self.adjust_trim(&mut st, fi, off, len),
        };
        let Adjusted::Accept(off, len) = got else {
            return got;
        };
        let len = mark(len);
        self.zone_bytes += len;
        if d == 1 && len > 0 {
            self.queued(&mut st, off, len);
        }
        Adjusted::Accept(off, len)
    }

    /// A write queued: its zone's write pointer moves (fio's
    /// zbd_queue_io), a zone written to its capacity closes
    /// (zbd_end_zone_io).
    fn queued(&mut self, st: &mut State, off: u64, len: u64) {
        let zi = st.index(off);
        let z = &st.zones[zi];
        let end = (off + len).min(z.cap_end());
        if z.wp <= end {
            st.with_data += end - z.wp;
        }
        st.zones[zi].wp = end;
        if off + len >= st.zones[zi].cap_end() {
            st.close(zi, &mut self.open);
        }
    }

    fn adjust_read(&self, st: &State, fi: usize, off: u64, len: u64, min_bs: u64) -> Adjusted {
        let f = &self.files[fi];
        let orig = st.index(off);
        let mut zi = orig;
        let mut off = off;
        let mut range = st.zones[zi].wp - st.zones[zi].start;
        if range < min_bs || (!self.shape.random && off + min_bs > st.zones[zi].wp) {
            match self.find_zone(st, f, zi, min_bs) {
                Some(z) => zi = z,
                None => return Adjusted::Eof,
            }
            range = st.zones[zi].wp - st.zones[zi].start;
            if !self.shape.random {
                off = st.zones[zi].start;
            }
        }
        let z = &st.zones[zi];
        if range <= len {
            off = z.start;
        } else if self.shape.random {
            off = z.start + ((off - st.zones[orig].start) % (range - len)) / min_bs * min_bs;
        }
        let new_len = len.min(z.wp.saturating_sub(off)) / min_bs * min_bs;
        Adjusted::Accept(off, new_len.min(len))
    }

    /// fio's zbd_find_zone: the next zone with `min` bytes written (the
    /// nearest either way for random I/O).
    fn find_zone(&self, st: &State, f: &FileZones, zb: usize, min: u64) -> Option<usize> {
        let has = |zi: usize| st.zones[zi].start + min <= st.zones[zi].wp;
        let (mut up, mut down) = (zb + 1, zb as i64 - 1);
        while up < f.max_zone || down >= f.min_zone as i64 {
            if up < f.max_zone {
                if has(up) {
                    return Some(up);
                }
            } else if !self.shape.random {
                break;
            }
            if self.shape.random && down >= f.min_zone as i64 && has(down as usize) {
                return Some(down as usize);
            }
            up += 1;
            down -= 1;
        }
        None
    }

    fn adjust_write(
        &mut self,
        st: &mut State,
        fi: usize,
        off: u64,
        len: u64,
        min_bs: u64,
    ) -> Adjusted {
        if len > st.zone_size {
            return Adjusted::TooLong;
        }
        let mut zi = st.index(off);
        if !self.open_zone(st, zi) {
            match self.convert_to_open_zone(st, fi, off, min_bs) {
                Some(z) => zi = z,
                None => return Adjusted::Eof,
            }
        }
        let f = &self.files[fi];
        let mut reset_now = false;
        if self.s.reset_frequency != 0.0
            && st.with_data as f64 >= f.len as f64 * self.s.reset_threshold
        {
            st.write_cnt = st.write_cnt.saturating_sub(1);
            if st.write_cnt == 0 {
                st.write_cnt = write_cnt(self.s.reset_frequency);
                reset_now = true;
            }
        }
        if reset_now || st.zones[zi].full(min_bs) {
            self.resets += reset(st, zi);
            if st.zones[zi].capacity < min_bs {
                return Adjusted::Eof;
            }
        }
        let z = &st.zones[zi];
        let off = z.wp;
        if off.wrapping_sub(f.start) >= f.len {
            return Adjusted::Eof;
        }
        let new_len = len.min(z.cap_end() - off) / min_bs * min_bs;
        if new_len < min_bs {
            return Adjusted::Eof;
        }
        Adjusted::Accept(off, new_len)
    }

    /// fio's zbd_open_zone.
    fn open_zone(&mut self, st: &mut State, zi: usize) -> bool {
        let min_bs = self.shape.min_bs[1].max(1);
        if self.shape.verify && st.zones[zi].full(min_bs) {
            return false;
        }
        if st.max_open == 0 {
            return true;
        }
        let z = &st.zones[zi];
        if z.open {
            return z.wp < z.cap_end();
        }
        if self.s.job_max_open > 0 && self.open >= self.s.job_max_open {
            return false;
        }
        if st.open.len() as u32 >= st.max_open {
            return false;
        }
        st.open.push(zi as u32);
        self.open += 1;
        st.zones[zi].open = true;
        true
    }

    /// fio's zbd_convert_to_open_zone: a zone open for this write (another
    /// open one, or the next one that opens), or None.
    fn convert_to_open_zone(
        &mut self,
        st: &mut State,
        fi: usize,
        off: u64,
        min_bs: u64,
    ) -> Option<usize> {
        let (start, len, min_zone, max_zone) = {
            let f = &self.files[fi];
            (f.start, f.len, f.min_zone, f.max_zone)
        };
        let limited = st.max_open > 0 || self.s.job_max_open > 0;
        let pick = |n: usize| ((off - start) as u128 * n as u128 / len.max(1) as u128) as usize;
        let mut zi = if limited {
            st.open.get(pick(st.open.len())).map_or(0, |&z| z as usize)
        } else {
            st.index(off)
        };
        zi = zi.clamp(min_zone, max_zone.saturating_sub(1));
        // With limits, an open zone of this job's range, from the picked
        // one on (none open: open another).
        let examine = !limited || {
            let n = st.open.len();
            let first = pick(n);
            let found = (0..n)
                .map(|i| st.open[(first + i) % n] as usize)
                .find(|&z| (min_zone..max_zone).contains(&z));
            match found {
                Some(z) => zi = z,
                None if n > 0 => return None,
                None => {}
            }
            n > 0
        };
        if examine && !st.zones[zi].full(min_bs) {
            return Some(zi);
        }
        let valid = |s: u64| s.wrapping_sub(start) < len;
        for _ in 0..(len / st.zone_size) {
            zi += 1;
            if !valid(st.zones[zi].start) {
                zi = min_zone;
            }
            if st.zones[zi].open {
                continue;
            }
            if self.open_zone(st, zi) {
                return Some(zi);
            }
        }
        st.open
            .iter()
            .map(|&z| z as usize)
            .find(|&z| (min_zone..max_zone).contains(&z) && !st.zones[z].full(min_bs))
    }

    /// A trim resets its zone (fio's zbd_do_io_u_trim): the write pointer
    /// back to the start.
    fn adjust_trim(&mut self, st: &mut State, _fi: usize, off: u64, len: u64) -> Adjusted {
        let zi = st.index(off);
        self.resets += reset(st, zi);
        Adjusted::Accept(off, len)
    }
}

/// fio's write count to the next reset under zone_reset_frequency.
fn write_cnt(freq: f64) -> u32 {
    if freq > 0.0 {
        (1.0 / freq).min(u32::MAX as f64) as u32
    } else {
        u32::MAX
    }
}

/// fio's zbd_reset_zone: 1 when the zone held data (a reset counted).
fn reset(st: &mut State, zi: usize) -> u64 {
    let z = &mut st.zones[zi];
    let data = z.wp - z.start;
    if data == 0 {
        return 0;
    }
    z.wp = z.start;
    st.with_data -= data;
    1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(zone_size: u64) -> Settings {
        Settings {
            zone_size,
            capacity: 0,
            zone_skip: 0,
            max_open: 0,
            job_max_open: 0,
            read_beyond_wp: false,
            reset_threshold: 0.0,
            reset_frequency: 0.0,
        }
    }

    fn shape(read: bool, write: bool, random: bool) -> JobShape {
        JobShape {
            read,
            write,
            trim: false,
            random,
            verify: false,
            min_bs: [65536; 3],
            bs: [65536; 3],
            trim_bs_varies: false,
        }
    }

    impl Zbd {
        fn adjust_plain(&mut self, fi: usize, d: usize, off: u64, len: u64) -> Adjusted {
            self.adjust(fi, d, off, len, &mut |l| l)
        }
    }

    #[test]
    fn fio_errors() {
        let p = Path::new("z1");
        let e = |s: &Settings, size| create(p, size, s).unwrap_err();
        assert_eq!(
            e(&settings(0), 1 << 22).message,
            "z1: Specifying the zone size is mandatory for regular file/block device with --zonemode=zbd\n\n"
        );
        assert_eq!(
            e(&settings(100), 1 << 22).message,
            "z1: zone size must be at least 512 bytes for --zonemode=zbd\n\n"
        );
        let big = Settings {
            capacity: 2 << 20,
            ..settings(1 << 20)
        };
        assert_eq!(
            e(&big, 1 << 22).message,
            "z1: job parameter zonecapacity 2097152 is larger than zone size 1048576\n"
        );
        let small = e(&settings(1 << 20), 0);
        assert_eq!(
            (small.message.as_str(), small.errno),
            (
                "z1: file/device size 0 is smaller than zone size 1048576\n",
                libc::EINVAL
            )
        );
    }

    #[test]
    fn writes_at_the_write_pointer_and_reset_full_zones() {
        let t = Arc::new(create(Path::new("z"), 4 << 20, &settings(1 << 20)).unwrap());
        let mut z = Zbd::new(
            settings(1 << 20),
            shape(false, true, true),
            vec![(t, 0, 4 << 20)],
        );
        // A random offset in zone 2 goes to its write pointer.
        assert_eq!(
            z.adjust_plain(0, 1, (2 << 20) + 65536 * 5, 65536),
            Adjusted::Accept(2 << 20, 65536)
        );
        assert_eq!(
            z.adjust_plain(0, 1, (2 << 20) + 65536 * 9, 65536),
            Adjusted::Accept((2 << 20) + 65536, 65536)
        );
        for _ in 2..16 {
            z.adjust_plain(0, 1, 2 << 20, 65536);
        }
        assert_eq!(z.resets, 0);
        // Full: reset, and the write goes to the zone's start.
        assert_eq!(
            z.adjust_plain(0, 1, 2 << 20, 65536),
            Adjusted::Accept(2 << 20, 65536)
        );
        assert_eq!(z.resets, 1);
        assert_eq!(z.adjust_plain(0, 1, 0, 2 << 20), Adjusted::TooLong);
    }

    #[test]
    fn reads_stay_below_the_write_pointer() {
        let t = Arc::new(create(Path::new("z"), 4 << 20, &settings(1 << 20)).unwrap());
        let files = || vec![(t.clone(), 0, 4 << 20)];
        let mut r = Zbd::new(settings(1 << 20), shape(true, false, false), files());
        assert_eq!(r.adjust_plain(0, 0, 0, 65536), Adjusted::Eof);
        let mut w = Zbd::new(settings(1 << 20), shape(false, true, false), files());
        assert_eq!(
            w.adjust_plain(0, 1, 1 << 20, 65536),
            Adjusted::Accept(1 << 20, 65536)
        );
        // A sequential read goes on at the next zone with data.
        assert_eq!(
            r.adjust_plain(0, 0, 0, 65536),
            Adjusted::Accept(1 << 20, 65536)
        );
        assert_eq!(
            r.adjust_plain(0, 0, (1 << 20) + 65536, 65536),
            Adjusted::Eof
        );
        let mixed = Zbd::new(settings(1 << 20), shape(true, true, true), files());
        assert_eq!(mixed.direction(0, 0), 0);
        let fresh = Arc::new(create(Path::new("y"), 4 << 20, &settings(1 << 20)).unwrap());
        let mixed = Zbd::new(
            settings(1 << 20),
            shape(true, true, true),
            vec![(fresh, 0, 4 << 20)],
        );
        assert_eq!(mixed.direction(0, 0), 1);
    }

    #[test]
    fn sizes_round_to_zones_as_fio() {
        let t = create(Path::new("z1"), 4 << 20, &settings(1 << 20)).unwrap();
        let mut region = (102400, 3 << 20);
        let mut info = Vec::new();
        let sh = shape(false, true, false);
        setup_file(
            Path::new("z1"),
            &t,
            &settings(1 << 20),
            &sh,
            &mut region,
            4 << 20,
            &mut info,
        )
        .unwrap();
        assert_eq!(region, (1 << 20, 2 << 20));
        assert_eq!(
            info,
            [
                "z1: rounded up offset from 102400 to 1048576\n",
                "z1: rounded down io_size from 2199552 to 2097152\n"
            ]
        );
        let skip = Settings {
            zone_skip: 102400,
            ..settings(1 << 20)
        };
        let mut region = (0, 4 << 20);
        assert_eq!(
            setup_file(
                Path::new("z1"),
                &t,
                &skip,
                &sh,
                &mut region,
                4 << 20,
                &mut info
            ),
            Err("z1: zoneskip 102400 is not a multiple of the device zone size 1048576.\n".into())
        );
    }
}
