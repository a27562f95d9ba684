//! fio 3.33's random offsets, for every random job off the picker's short
//! path (which keeps its own permutation: one file, one direction, one
//! fixed block that is every direction's smallest): any block sizes and
//! directions, one or several files, with or without the random map
//! (norandommap, blockalign, `random_generator=lfsr` in run/offsets/lfsr.rs,
//! zipf/pareto/normal in run/offsets/fiodist.rs, zoned/zoned_abs here), the
//! sequential shares of percentage_random and `rw=randread:N`: the same
//! blocks in the same order with the same (possibly shortened) lengths, so
//! such a job ends where fio's ends.
//!
//! How fio picks a random offset (io_u.c, lib/axmap.c):
//! - One generator per job (Tausworthe, 64-bit with tausworthe64), seeded
//!   with `0xb1899bed` times the job's thread number while randrepeat is on
//!   (the default; randseed turns it off after the job, not its clones,
//!   was seeded), else from seed slot 6.
//! - Per direction, `lastb = io_size / ba` (ba is that direction's smallest
//!   block, or blockalign); a draw `r` gives block `b = lastb * r / (max + 1)`.
//! - zoned: a percent drawn from seed slot 16 picks the zone, the block is
//!   drawn inside it.
//! - Each file has its own map (the generator is the job's, shared by the
//!   files); a file's map has one bit per `rw_min_bs` (the smallest block of all
//!   directions) of `min(io_size, file size)`. A set bit `b` moves to the
//!   map's "next free" bit (an axmap: a bitmap with one summary bitmap per
//!   64 words above it; its search has quirks, kept here as they are); no
//!   free bit ends the file.
//! - The offset is `b * ba`; one at or past io_size ends the file.
//! - After the block size is drawn, the I/O marks `ceil(len / min_bs)` bits
//!   from `offset / min_bs` (min_bs of its own direction) and is shortened
//!   to the bits it newly set times min_bs (it stops at the first word whose
//!   bits are all taken). With different sizes per direction the bit and
//!   the offset units disagree: fio then ends early, and so do we.

use crate::job::Job;
use crate::run::files::filesize::{slot_seed, Taus};
use crate::run::offsets::lfsr::Lfsr;

/// fio's `FIO_RANDSEED`: the offset seed's factor under randrepeat.
const RANDSEED: u64 = 0xb189_9bed;
/// Seed slot of `file_service_type=random`'s generator (fio's
/// `FIO_RAND_FILE_OFF`).
const FILE_SLOT: u64 = 5;
/// Seed slot of percentage_random's generators (fio's
/// `FIO_RAND_SEQ_RAND_READ_OFF`: fio 3.33 seeds all three directions' from
/// it, 32-bit whatever random_generator says).
const SEQ_RAND_SLOT: u64 = 10;
/// Seed slot of the zoned distributions' zone draws (fio's
/// `FIO_RAND_ZONE_OFF`).
const ZONE_SLOT: u64 = 16;
/// Seed slot of the offset generator (fio's `FIO_RAND_BLOCK_OFF`).
const BLOCK_SLOT: u64 = 6;
/// "Nothing": fio's -1 for a bit number or an unknown first free bit.
const NONE: u64 = u64::MAX;

/// The low `n` bits set (`n` up to 64).
#[inline]
fn low_bits(n: u64) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

/// fio's real_file_size past the region's start: the file's size, but with
/// no file (`size` bytes of `len` per region, rounded down to the block)
/// fio keeps the unrounded `size / nrfiles`.
pub(super) fn real_size(job: &Job, files: u64, len: u64, size: u64, min_bs: u64) -> u64 {
    match job.size {
        Some(rbench_common::units::fio::SizeOrPercent::Bytes(total))
            if size == len && job.files.filesize.is_none() =>
        {
            let per = total / files.max(1);
            if per >= len && per - len < min_bs {
                per
            } else {
                size
            }
        }
        _ => size,
    }
}

/// fio's seed of the job's offsets (seed slot 6 as the job runs): under
/// randrepeat `0xb1899bed` times the thread number; fio turns randrepeat
/// off where randseed is set, after seeding the job: its clones (copied
/// after) keep slot 6's seed.
pub fn offset_seed(job: &Job) -> u64 {
    if job.rand.randrepeat && (job.rand.randseed.is_none() || job.clone == 0) {
        RANDSEED.wrapping_mul(job.number as u64)
    } else {
        slot_seed(job, BLOCK_SLOT).unwrap_or_else(rbench_common::clock::now_ns)
    }
}

/// `random_generator=lfsr`.
pub fn is_lfsr(job: &Job) -> bool {
    job.opts.choice("random_generator").0 == "lfsr"
}

/// fio issues the last I/O of a job whole, past `size`, where only its map
/// may shorten it: the random jobs this module serves (their unmarked
/// sequential I/Os, `:N` or percentage_random, and overlapping ones
/// without a map can go past `size`). The worker cuts other jobs' last I/O.
pub fn whole_last_unit(job: &Job) -> bool {
    serves(job)
}

/// Whether [`FioRandom::for_job`] gives a job fio's offsets: any random
/// job, with the map on or without it (norandommap, lfsr, blockalign, any
/// random_distribution); randtrimwrite's trims (its writes follow them).
fn serves(job: &Job) -> bool {
    let p = job.pattern;
    p.random
}

/// fio's axmap: level 0 has a bit per block; a bit at level i+1 says the
/// word under it at level i is full.
#[derive(Debug, Clone)]
struct Axmap {
    levels: Vec<Vec<u64>>,
    nr_bits: u64,
}

impl Axmap {
    fn new(nr_bits: u64) -> Self {
        let words = |n: u64| n.div_ceil(64);
        let mut count = 1;
        let mut i = words(nr_bits);
        while i > 1 {
            i = words(i);
            count += 1;
        }
        let mut n = nr_bits;
        let levels = (0..count)
            .map(|_| {
                n = words(n);
                vec![0u64; n as usize]
            })
            .collect();
        Axmap { levels, nr_bits }
    }

    fn reset(&mut self) {
        for l in &mut self.levels {
            l.fill(0);
        }
    }

    /// Word and bit of `bit_nr` at `level`.
    #[inline]
    fn place(level: usize, bit_nr: u64) -> (usize, u32) {
        let index = bit_nr >> (6 * level as u32).min(63);
        ((index >> 6) as usize, (index & 63) as u32)
    }

    /// fio's axmap_isset (an upper bit stands for its whole word below).
    #[inline]
    fn isset(&self, bit_nr: u64) -> bool {
        if bit_nr > self.nr_bits {
            return false;
        }
        (0..self.levels.len()).rev().any(|i| {
            let (off, bit) = Self::place(i, bit_nr);
            self.levels[i]
                .get(off)
                .is_some_and(|w| w & (1u64 << bit) != 0)
        })
    }

    /// fio's __axmap_set: up to `want` bits from `bit_nr` inside its
    /// level-0 word, stopping at the first one already set; the upper
    /// levels take a bit for each word that became full. The bits set.
    fn set_run(&mut self, bit_nr: u64, want: u64) -> u64 {
        if bit_nr > self.nr_bits {
            return 0;
        }
        let mut set0 = 0;
        let mut want = want;
        for i in 0..self.levels.len() {
            let (off, bit) = Self::place(i, bit_nr);
            let Some(w) = self.levels[i].get_mut(off) else {
                break;
            };
            let mut n = want.min(64 - u64::from(bit));
            let mut mask = low_bits(n) << bit;
            let overlap = *w & mask;
            if overlap == mask {
                break;
            }
            if overlap != 0 {
                n = u64::from(overlap.trailing_zeros() - bit);
                if n == 0 {
                    break;
                }
                mask = low_bits(n) << bit;
            }
            *w |= mask;
            if i == 0 {
                set0 = n;
            }
            want = 1;
            if *w != u64::MAX {
                break;
            }
        }
        set0
    }

    /// fio's axmap_set_nr: mark `nr` bits from `bit_nr`, word by word,
    /// stopping at the first bit already set; the bits newly set.
    fn set_nr(&mut self, mut bit_nr: u64, mut nr: u64) -> u64 {
        let mut total = 0;
        loop {
            let this = nr.min(64 - (bit_nr & 63));
            let s = self.set_run(bit_nr, this);
            total += s;
            if s != this {
                break;
            }
            nr -= s;
            bit_nr += s;
            if nr == 0 {
                break;
            }
        }
        total
    }

    /// fio's axmap_find_first_free: the first free bit at or after
    /// `bit_nr`, walking down from the top level (NONE if none).
    fn find_first_free(&self, bit_nr: u64) -> u64 {
        let mut index = 0u64;
        for (i, map) in self.levels.iter().enumerate().rev() {
            index <<= 6;
            index = index.max(bit_nr >> (6 * i as u32).min(63));
            let mut off = (index >> 6) as usize;
            let bit = index & 63;
            let Some(&w) = map.get(off) else {
                return NONE;
            };
            let mut free = !low_bits(bit) & !w;
            if free == 0 {
                match (off + 1..map.len()).find(|&j| map[j] != u64::MAX) {
                    Some(j) => {
                        off = j;
                        free = !map[j];
                    }
                    None => return NONE,
                }
            }
            index = ((off as u64) << 6) + u64::from(free.trailing_zeros());
        }
        if index >= self.nr_bits {
            NONE
        } else {
            index
        }
    }

    /// fio's axmap_next_free for a set `bit_nr`: the next free bit after
    /// it, wrapping around to the start (NONE when the map is full).
    fn next_free(&self, bit_nr: u64) -> u64 {
        if bit_nr >= self.nr_bits {
            return NONE;
        }
        let mut next = bit_nr + 1;
        if next == self.nr_bits {
            next = 0;
        }
        let (off, bit) = Self::place(0, next);
        let free = !low_bits(u64::from(bit)) & !self.levels[0][off];
        let mut ret = if free != 0 {
            let b = ((off as u64) << 6) + u64::from(free.trailing_zeros());
            if b >= self.nr_bits {
                NONE
            } else {
                b
            }
        } else {
            self.find_first_free(next)
        };
        if ret == NONE && next != 0 {
            ret = self.find_first_free(0);
        }
        ret
    }
}

/// fio's random offsets over its random map, for one file.
#[derive(Debug, Clone)]
pub struct FioRandom {
    seed: u64,
    wide: bool,
    rng: Taus,
    /// One map per file (fio's f->io_axmap); the generator is the job's.
    /// Empty without a map (norandommap, lfsr, a distribution).
    maps: Vec<Axmap>,
    /// zipf, pareto, normal: fio's generator per file instead (empty
    /// otherwise).
    dist: Vec<crate::run::offsets::fiodist::FioDist>,
    /// `random_generator=lfsr`: one generator per file instead (fio's
    /// f->lfsr, all seeded alike), empty otherwise.
    lfsr: Vec<Lfsr>,
    /// Smallest block per direction (fio's min_bs).
    min_bs: [u64; 3],
    /// Offset unit per direction (fio's ba: blockalign, else min_bs).
    ba: [u64; 3],
    /// Per file: blocks a draw picks from, per direction (fio's
    /// last_block), and the file's io_size.
    lastb: Vec<([u64; 3], u64)>,
    /// `file_service_type=random` over several files: fio's file generator
    /// (next_file_state) and its seed.
    files: Option<(Taus, u64)>,
    /// Per file: fio's real_file_size past the region's start (where the
    /// sequential share of percentage_random stops going on).
    real: Vec<u64>,
    /// fio reseeds its generators at each loop.
    reseed: bool,
    /// A file that runs out of offsets starts over at once (time_based, a
    /// non-uniform file service), as fio's get_next_rand_block.
    restart: bool,
    /// time_based with one file: the sequential share goes back to the
    /// file's start at its end (fio's get_next_seq_offset).
    wrap_seq: bool,
    /// The last offset drawn lay past io_size.
    past_end: bool,
    /// percentage_random's draws per direction (fio's seq_rand_state) and
    /// their seed.
    seq_rand: [Taus; 3],
    seq_seed: u64,
    /// zoned / zoned_abs: fio's zone table and zone generator.
    zones: Option<Zones>,
}

/// fio's zone_state_index for `zoned` (percent of the range) or
/// `zoned_abs` (bytes): per percent of the I/O drawn, where its zone starts
/// and ends; zones are drawn from seed slot 16 (32-bit).
#[derive(Debug, Clone)]
struct Zones {
    abs: bool,
    index: Vec<(u64, u64)>,
    rng: Taus,
    seed: u64,
}

impl Zones {
    fn new(job: &Job) -> Option<Self> {
        use crate::job::distribution::Distribution;
        let (abs, split): (bool, Vec<(u32, u64)>) = match &job.rand.random_distribution {
            Distribution::Zoned(z) => (false, z.iter().map(|&(p, r)| (p, u64::from(r))).collect()),
            Distribution::ZonedAbs(z) => (true, z.clone()),
            _ => return None,
        };
        let mut index = vec![(0, 0); 100];
        let (mut at, mut prev) = (0usize, 0u64);
        for (access, size) in split {
            for e in index.iter_mut().skip(at).take(access as usize) {
                *e = (prev, prev + size);
            }
            at += access as usize;
            prev += size;
        }
        let seed = slot_seed(job, ZONE_SLOT).unwrap_or_else(rbench_common::clock::now_ns);
        Some(Zones {
            abs,
            index,
            rng: Taus::new(seed, false),
            seed,
        })
    }
}

impl FioRandom {
    /// For the random jobs this module serves (`regions` holds each
    /// file's region length and the file's size past the region's start;
    /// `norandommap` as the picker decided it): see [`serves`]. None for
    /// every other job.
    pub fn for_job(job: &Job, regions: &[(u64, u64)], norandommap: bool) -> Option<Self> {
        let min_bs: [u64; 3] = std::array::from_fn(|d| job.min_bs(d));
        if !serves(job) || regions.is_empty() {
            return None;
        }
        Self::new(job, regions, min_bs, norandommap)
    }

    /// Over files of `regions` bytes each (and the file sizes); `min_bs` is
    /// each direction's smallest block. None where fio refuses the LFSR's
    /// seed (rfio then keeps its own offsets).
    fn new(job: &Job, regions: &[(u64, u64)], min_bs: [u64; 3], nomap: bool) -> Option<Self> {
        let gen = job.opts.choice("random_generator").0;
        let wide = gen == "tausworthe64";
        let seed = offset_seed(job);
        let seq_seed = slot_seed(job, SEQ_RAND_SLOT).unwrap_or_else(rbench_common::clock::now_ns);
        let min_bs = min_bs.map(|b| b.max(1));
        let ba = min_bs.map(|b| job.rand.blockalign.unwrap_or(b).max(1));
        let rw_min = min_bs.iter().copied().min().unwrap_or(1);
        // fio's map and generator cover min(io_size, file size) per file.
        let blocks = |&(n, _): &(u64, u64)| n / rw_min;
        let lfsr = if is_lfsr(job) {
            // fio seeds it from seed slot 6, which randrepeat sets to the
            // offset generator's seed.
            regions
                .iter()
                .map(|r| Lfsr::new(blocks(r).max(1), seed))
                .collect::<Option<Vec<_>>>()?
        } else {
            Vec::new()
        };
        let files = regions.len() as u64;
        let dist = regions
            .iter()
            .enumerate()
            .filter_map(|(i, &(n, _))| crate::run::offsets::fiodist::for_file(job, i, n, files))
            .collect();
        Some(FioRandom {
            seed,
            wide,
            rng: Taus::new(seed, wide),
            maps: if lfsr.is_empty() && !nomap {
                regions.iter().map(|r| Axmap::new(blocks(r))).collect()
            } else {
                Vec::new()
            },
            dist,
            lfsr,
            min_bs,
            ba,
            // fio's last_block: a block smaller than the alignment leaves
            // room for the block at the end.
            lastb: regions
                .iter()
                .map(|&(n, _)| {
                    let last = std::array::from_fn(|d| {
                        n.saturating_sub(min_bs[d].saturating_sub(ba[d])) / ba[d]
                    });
                    (last, n)
                })
                .collect(),
            real: regions
                .iter()
                .map(|&(n, size)| real_size(job, regions.len() as u64, n, size, rw_min))
                .collect(),
            reseed: job.rand.randrepeat && job.rand.randseed.is_none(),
            wrap_seq: job.time_based && regions.len() == 1,
            past_end: false,
            restart: job.time_based
                || matches!(
                    job.files.file_service.as_str(),
                    "zipf" | "pareto" | "normal" | "gauss"
                ),
            seq_rand: std::array::from_fn(|_| Taus::new(seq_seed, false)),
            seq_seed,
            zones: Zones::new(job),
            files: (job.files.file_service == "random" && regions.len() > 1).then(|| {
                let seed = slot_seed(job, FILE_SLOT).unwrap_or_else(rbench_common::clock::now_ns);
                (Taus::new(seed, wide), seed)
            }),
        })
    }

    /// A new pass (time_based): the map empties, the generator goes on.
    pub fn reset(&mut self) {
        self.maps.iter_mut().for_each(Axmap::reset);
        // fio resets a file's LFSR to its seed as it resets its map.
        self.lfsr.iter_mut().for_each(Lfsr::reset);
    }

    /// File `f` starts over (fio's fio_file_reset: zonemode=strided starts
    /// each zone so): its map empties, its LFSR goes back to its seed.
    pub fn reset_file(&mut self, f: usize) {
        if let Some(m) = self.maps.get_mut(f) {
            m.reset();
        }
        if let Some(l) = self.lfsr.get_mut(f) {
            l.reset();
        }
    }

    /// A new loop: the map empties and the generators start over, where
    /// fio reseeds (randrepeat on and no randseed: fio turns randrepeat
    /// off when randseed is set, after the first seeding).
    pub fn restart(&mut self) {
        self.reset();
        if !self.reseed {
            return;
        }
        self.rng = Taus::new(self.seed, self.wide);
        if let Some((rng, seed)) = &mut self.files {
            *rng = Taus::new(*seed, self.wide);
        }
        self.seq_rand = std::array::from_fn(|_| Taus::new(self.seq_seed, false));
        if let Some(z) = &mut self.zones {
            z.rng = Taus::new(z.seed, false);
        }
    }

    /// Whether the sequential share wraps to the file's start at its end.
    #[inline]
    pub fn wraps_sequential(&self) -> bool {
        self.wrap_seq
    }

    /// Whether a file that runs out of offsets starts over at once.
    #[inline]
    pub fn restarts(&self) -> bool {
        self.restart
    }

    /// File `f`'s size past its region's start, as fio's real_file_size.
    #[inline]
    pub fn real_size(&self, f: usize) -> u64 {
        self.real[f]
    }

    /// percentage_random below 100: whether the next I/O of direction `d`
    /// is random (fio's should_do_random, `rand_between(1, 100) <= pct`).
    #[inline]
    pub fn do_random(&mut self, d: usize, pct: u64) -> bool {
        let rng = &mut self.seq_rand[d];
        let r = rng.next() as f64 / (rng.max() as f64 + 1.0);
        ((100.0 * r) as u64) < pct
    }

    /// `file_service_type=random`: fio's draw of the next file among `n`
    /// (None where the job does not draw its files this way).
    #[inline]
    pub fn file(&mut self, n: usize) -> Option<usize> {
        let (rng, _) = self.files.as_mut()?;
        let r = rng.next() as f64 / (rng.max() as f64 + 1.0);
        Some(((n as f64 * r) as usize).min(n - 1))
    }

    /// The next offset (from the region's start) in file `f` for
    /// direction `d`; None where fio finds none and ends the file.
    #[inline]
    pub fn offset(&mut self, f: usize, d: usize) -> Option<u64> {
        self.past_end = false;
        let (lastb, io_size) = self.lastb[f];
        if let Some(g) = self.dist.get_mut(f) {
            // fio's distribution, no map; past io_size the file ends.
            let off = g.offset(d);
            return self.inside(off, io_size);
        }
        let lastb = lastb[d];
        if lastb == 0 {
            return None;
        }
        if let Some(z) = &mut self.zones {
            // fio draws the percent (1 to 100), then a block inside its
            // zone; a zoned_abs zone past the file ends the file.
            let r = z.rng.next() as f64 / (z.rng.max() as f64 + 1.0);
            let v = (100.0 * r) as usize;
            let (prev, end) = z.index.get(v).copied().unwrap_or_default();
            let ba = self.ba[d];
            let (start, span) = if z.abs {
                let (first, last) = (prev / ba, end / ba);
                if last > lastb {
                    return None;
                }
                (first, last - first)
            } else {
                (prev * lastb / 100, lastb * end.saturating_sub(prev) / 100)
            };
            let b = match self.lfsr.get_mut(f) {
                Some(l) => l.next()?,
                None => {
                    let r = self.rng.next() as f64 / (self.rng.max() as f64 + 1.0);
                    (span as f64 * r) as u64
                }
            };
            let off = (b + start).checked_mul(ba)?;
            return self.inside(off, io_size);
        }
        if let Some(l) = self.lfsr.get_mut(f) {
            // No map: the LFSR never repeats a block before it runs out.
            let off = l.next()?.checked_mul(self.ba[d])?;
            return self.inside(off, io_size);
        }
        let r = self.rng.next() as f64 / (self.rng.max() as f64 + 1.0);
        let mut b = (lastb as f64 * r) as u64;
        match self.maps.get(f) {
            Some(map) if map.isset(b) => {
                b = map.next_free(b);
                if b == NONE {
                    return None;
                }
            }
            _ => {}
        }
        let off = b.checked_mul(self.ba[d])?;
        self.inside(off, io_size)
    }

    /// `off` where it lies inside io_size; past it None, remembered (fio
    /// then fails the try rather than starting the file over).
    #[inline]
    fn inside(&mut self, off: u64, io_size: u64) -> Option<u64> {
        self.past_end = off >= io_size;
        (!self.past_end).then_some(off)
    }

    /// The last [`FioRandom::offset`] gave None for an offset past io_size
    /// (not for a file out of blocks).
    #[inline]
    pub fn past_end(&self) -> bool {
        self.past_end
    }

    /// Mark an I/O of direction `d` at `off` (from the region's start) in
    /// file `f`; its length, shortened where it ran into blocks already
    /// done (0 when none was free: fio stops there).
    #[inline]
    pub fn mark(&mut self, f: usize, d: usize, off: u64, len: u64) -> u64 {
        let bs = self.min_bs[d];
        match self.maps.get_mut(f) {
            Some(map) => len.min(map.set_nr(off / bs, len.div_ceil(bs)) * bs),
            // lfsr: no map, the I/O stays whole.
            None => len,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axmap_finds_every_free_bit_then_none() {
        for n in [1u64, 63, 64, 65, 4097, 300_000] {
            let mut m = Axmap::new(n);
            let mut count = 0;
            let mut b = 0;
            loop {
                if m.isset(b) {
                    b = m.next_free(b);
                    if b == NONE {
                        break;
                    }
                }
                assert!(b < n && !m.isset(b), "n={n} b={b}");
                assert_eq!(m.set_nr(b, 1), 1);
                count += 1;
                b = (b * 7919 + 13) % n;
            }
            assert_eq!(count, n, "n={n}");
        }
    }

    #[test]
    fn marking_stops_at_taken_blocks() {
        let mut m = Axmap::new(256);
        assert_eq!(m.set_nr(10, 4), 4);
        // 8..16 runs into 10: two bits, the I/O is shortened to them.
        assert_eq!(m.set_nr(8, 8), 2);
        // Across a word: the first word's part is free, the next one too.
        assert_eq!(m.set_nr(60, 8), 8);
        // Taken at its start: nothing.
        assert_eq!(m.set_nr(60, 8), 0);
        assert!(m.isset(67) && !m.isset(68));
        // The next free bit after a set one, wrapping at the end.
        assert_eq!(m.next_free(10), 14);
        m.set_nr(255, 1);
        assert_eq!(m.next_free(255), 0);
    }
}
