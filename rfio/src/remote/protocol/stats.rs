//! The report payloads: TS (one job's `thread_stat` and its group's
//! `group_run_stats`), GS (a group's totals) and ETA (`jobs_eta`), laid out
//! as fio 3.33 packs them on x86-64.

use super::wire::{Reader, Writer};
use super::ProtoError;

/// Directions with their own counters: read, write, trim.
pub const DDIRS: usize = 3;
/// Latency histogram buckets (29 groups of 64).
pub const PLAT_NR: usize = 1856;
/// slat, clat, lat.
pub const LAT_KINDS: usize = 3;
/// Percentiles a job may list.
pub const PERCENTILES_MAX: usize = 20;
/// Trim-cycle entries a TS carries at most.
pub const BLOCK_INFOS_MAX: usize = 8192;
/// `ss_state` bit: the steadystate ring buffers follow the TS.
pub const SS_DATA: u32 = 1 << 5;
/// Bytes of one `clat_prio_stat` in TS's trailing data.
const CLAT_PRIO_LEN: usize = PLAT_NR * 8 + 56 + 8;

/// fio's `io_stat`: running min, max, count, mean and sum of squares.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct IoStat {
    pub max: u64,
    pub min: u64,
    pub samples: u64,
    pub mean: f64,
    pub s: f64,
}

impl IoStat {
    fn put(&self, w: &mut Writer) {
        w.u64(self.max);
        w.u64(self.min);
        w.u64(self.samples);
        w.fp64(self.mean);
        w.fp64(self.s);
    }
    fn get(r: &mut Reader) -> Result<IoStat, ProtoError> {
        Ok(IoStat {
            max: r.u64()?,
            min: r.u64()?,
            samples: r.u64()?,
            mean: r.fp64()?,
            s: r.fp64()?,
        })
    }
    fn get3(r: &mut Reader) -> Result<[IoStat; DDIRS], ProtoError> {
        Ok([IoStat::get(r)?, IoStat::get(r)?, IoStat::get(r)?])
    }
}

/// A reporting group's totals (`group_run_stats`, packed: 164 bytes).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GroupRunStats {
    pub max_run: [u64; DDIRS],
    pub min_run: [u64; DDIRS],
    pub max_bw: [u64; DDIRS],
    pub min_bw: [u64; DDIRS],
    pub iobytes: [u64; DDIRS],
    pub agg: [u64; DDIRS],
    pub kb_base: u32,
    pub unit_base: u32,
    pub sig_figs: u32,
    pub groupid: u32,
    pub unified_rw_rep: u32,
}

pub const GS_LEN: usize = 6 * DDIRS * 8 + 5 * 4;

impl GroupRunStats {
    fn put(&self, w: &mut Writer) {
        for a in [
            &self.max_run,
            &self.min_run,
            &self.max_bw,
            &self.min_bw,
            &self.iobytes,
            &self.agg,
        ] {
            w.u64s(a);
        }
        w.u32s(&[
            self.kb_base,
            self.unit_base,
            self.sig_figs,
            self.groupid,
            self.unified_rw_rep,
        ]);
    }
    fn get(r: &mut Reader) -> Result<GroupRunStats, ProtoError> {
        Ok(GroupRunStats {
            max_run: r.u64_array()?,
            min_run: r.u64_array()?,
            max_bw: r.u64_array()?,
            min_bw: r.u64_array()?,
            iobytes: r.u64_array()?,
            agg: r.u64_array()?,
            kb_base: r.u32()?,
            unit_base: r.u32()?,
            sig_figs: r.u32()?,
            groupid: r.u32()?,
            unified_rw_rep: r.u32()?,
        })
    }
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::with_capacity(GS_LEN);
        self.put(&mut w);
        w.buf
    }
    pub fn decode(b: &[u8]) -> Result<GroupRunStats, ProtoError> {
        GroupRunStats::get(&mut Reader::new(b, "GS"))
    }
}

/// Per-priority completion latencies (`clat_prio_stat`).
#[derive(Debug, Clone, PartialEq)]
pub struct ClatPrio {
    pub plat: Vec<u64>,
    pub clat: IoStat,
    pub ioprio: u32,
}

/// One job's (or group's) report: fio's `thread_stat`.
#[derive(Debug, Clone, PartialEq)]
pub struct ThreadStat {
    pub name: String,
    pub verror: String,
    pub error: u32,
    pub thread_number: u32,
    pub groupid: u32,
    pub pid: u32,
    pub description: String,
    pub members: u32,
    pub unified_rw_rep: u32,
    pub disable_prio_stat: u32,
    pub sync_stat: IoStat,
    pub clat: [IoStat; DDIRS],
    pub slat: [IoStat; DDIRS],
    pub lat: [IoStat; DDIRS],
    pub bw: [IoStat; DDIRS],
    pub iops: [IoStat; DDIRS],
    pub usr_time: u64,
    pub sys_time: u64,
    pub ctx: u64,
    pub minf: u64,
    pub majf: u64,
    pub clat_percentiles: u32,
    pub lat_percentiles: u32,
    pub slat_percentiles: u32,
    pub percentile_precision: u64,
    /// Up to 20 percentiles; unused slots 0.
    pub percentile_list: [f64; PERCENTILES_MAX],
    pub io_u_map: [u64; 7],
    pub io_u_submit: [u64; 7],
    pub io_u_complete: [u64; 7],
    pub io_u_lat_n: [u64; 10],
    pub io_u_lat_u: [u64; 10],
    pub io_u_lat_m: [u64; 12],
    /// `[kind][ddir][bucket]` flattened: kind (slat, clat, lat) major.
    pub plat: Vec<u64>,
    pub sync_plat: Vec<u64>,
    pub total_io_u: [u64; 4],
    pub short_io_u: [u64; DDIRS],
    pub drop_io_u: [u64; DDIRS],
    pub total_submit: u64,
    pub total_complete: u64,
    pub io_bytes: [u64; DDIRS],
    pub runtime: [u64; DDIRS],
    pub total_run_time: u64,
    pub continue_on_error: u16,
    pub first_error: u32,
    pub total_err_count: u64,
    pub nr_zone_resets: u64,
    pub block_infos: Vec<u32>,
    pub kb_base: u32,
    pub unit_base: u32,
    pub latency_depth: u32,
    pub latency_target: u64,
    pub latency_percentile: f64,
    pub latency_window: u64,
    pub sig_figs: u32,
    pub ss_dur: u64,
    pub ss_state: u32,
    pub ss_head: u32,
    pub ss_limit: f64,
    pub ss_slope: f64,
    pub ss_deviation: f64,
    pub ss_criterion: f64,
    pub ioprio: u32,
    /// Steadystate ring buffers (sent when `ss_state` has [`SS_DATA`]).
    pub ss_iops: Vec<u64>,
    pub ss_bw: Vec<u64>,
    pub clat_prio: [Vec<ClatPrio>; DDIRS],
    pub cachehit: u64,
    pub cachemiss: u64,
    /// The group's totals sent with it.
    pub rs: GroupRunStats,
}

/// `sizeof(struct cmd_ts_pdu)` without trailing data: the packed
/// thread_stat (8-aligned, 183888 bytes) and the group's 164, padded to 8.
pub const TS_PDU_LEN: usize = 184056;
/// Where the group's stats start in a TS payload.
const TS_RS_OFFSET: usize = 183888;

impl Default for ThreadStat {
    fn default() -> Self {
        ThreadStat {
            name: String::new(),
            verror: String::new(),
            error: 0,
            thread_number: 0,
            groupid: 0,
            pid: 0,
            description: String::new(),
            members: 0,
            unified_rw_rep: 0,
            disable_prio_stat: 0,
            sync_stat: IoStat::default(),
            clat: Default::default(),
            slat: Default::default(),
            lat: Default::default(),
            bw: Default::default(),
            iops: Default::default(),
            usr_time: 0,
            sys_time: 0,
            ctx: 0,
            minf: 0,
            majf: 0,
            clat_percentiles: 0,
            lat_percentiles: 0,
            slat_percentiles: 0,
            percentile_precision: 0,
            percentile_list: [0.0; PERCENTILES_MAX],
            io_u_map: [0; 7],
            io_u_submit: [0; 7],
            io_u_complete: [0; 7],
            io_u_lat_n: [0; 10],
            io_u_lat_u: [0; 10],
            io_u_lat_m: [0; 12],
            plat: vec![0; LAT_KINDS * DDIRS * PLAT_NR],
            sync_plat: vec![0; PLAT_NR],
            total_io_u: [0; 4],
            short_io_u: [0; DDIRS],
            drop_io_u: [0; DDIRS],
            total_submit: 0,
            total_complete: 0,
            io_bytes: [0; DDIRS],
            runtime: [0; DDIRS],
            total_run_time: 0,
            continue_on_error: 0,
            first_error: 0,
            total_err_count: 0,
            nr_zone_resets: 0,
            block_infos: Vec::new(),
            kb_base: 0,
            unit_base: 0,
            latency_depth: 0,
            latency_target: 0,
            latency_percentile: 0.0,
            latency_window: 0,
            sig_figs: 0,
            ss_dur: 0,
            ss_state: 0,
            ss_head: 0,
            ss_limit: 0.0,
            ss_slope: 0.0,
            ss_deviation: 0.0,
            ss_criterion: 0.0,
            ioprio: 0,
            ss_iops: Vec::new(),
            ss_bw: Vec::new(),
            clat_prio: Default::default(),
            cachehit: 0,
            cachemiss: 0,
            rs: GroupRunStats::default(),
        }
    }
}

impl ThreadStat {
    /// The histogram of one latency kind (0 slat, 1 clat, 2 lat) and direction.
    pub fn plat_mut(&mut self, kind: usize, ddir: usize) -> &mut [u64] {
        let at = (kind * DDIRS + ddir) * PLAT_NR;
        &mut self.plat[at..at + PLAT_NR]
    }

    /// The TS payload: the fixed part, then per-priority latencies and the
    /// steadystate ring buffers, which the fixed part points at by offset.
    pub fn encode(&self) -> Vec<u8> {
        let ss_len = if self.ss_state & SS_DATA != 0 {
            self.ss_iops.len().min(self.ss_dur as usize)
        } else {
            0
        };
        let mut w = Writer::with_capacity(TS_PDU_LEN);
        w.cstr(&self.name, 128);
        w.cstr(&self.verror, 128);
        w.u32s(&[self.error, self.thread_number, self.groupid, self.pid]);
        w.cstr(&self.description, 256);
        w.u32s(&[self.members, self.unified_rw_rep, self.disable_prio_stat]);
        w.zeros(4); // sync_stat is 8-aligned
        self.sync_stat.put(&mut w);
        for set in [&self.clat, &self.slat, &self.lat, &self.bw, &self.iops] {
            for s in set {
                s.put(&mut w);
            }
        }
        w.u64s(&[self.usr_time, self.sys_time, self.ctx, self.minf, self.majf]);
        w.u32s(&[
            self.clat_percentiles,
            self.lat_percentiles,
            self.slat_percentiles,
            0,
        ]);
        w.u64(self.percentile_precision);
        for &p in &self.percentile_list {
            w.fp64(p);
        }
        w.u64s(&self.io_u_map);
        w.u64s(&self.io_u_submit);
        w.u64s(&self.io_u_complete);
        w.u64s(&self.io_u_lat_n);
        w.u64s(&self.io_u_lat_u);
        w.u64s(&self.io_u_lat_m);
        let mut plat = self.plat.clone();
        plat.resize(LAT_KINDS * DDIRS * PLAT_NR, 0);
        w.u64s(&plat);
        let mut sync = self.sync_plat.clone();
        sync.resize(PLAT_NR, 0);
        w.u64s(&sync);
        w.u64s(&self.total_io_u);
        w.u64s(&self.short_io_u);
        w.u64s(&self.drop_io_u);
        w.u64s(&[self.total_submit, self.total_complete]);
        w.u64s(&self.io_bytes);
        w.u64s(&self.runtime);
        w.u64(self.total_run_time);
        w.u16(self.continue_on_error);
        w.zeros(2);
        w.u32(self.first_error);
        w.u64(self.total_err_count);
        w.u64(self.nr_zone_resets);
        let nbi = self.block_infos.len().min(BLOCK_INFOS_MAX);
        w.u64(nbi as u64);
        w.u32s(&self.block_infos[..nbi]);
        w.zeros((BLOCK_INFOS_MAX - nbi) * 4);
        w.u32s(&[self.kb_base, self.unit_base, self.latency_depth, 0]);
        w.u64(self.latency_target);
        w.fp64(self.latency_percentile);
        w.u64(self.latency_window);
        w.u32(self.sig_figs);
        w.u64(self.ss_dur);
        w.u32(self.ss_state);
        w.u32(self.ss_head);
        for v in [
            self.ss_limit,
            self.ss_slope,
            self.ss_deviation,
            self.ss_criterion,
        ] {
            w.fp64(v);
        }
        w.u32(self.ioprio);
        // Offsets of the trailing data, patched below.
        let ss_iops_at = w.buf.len();
        w.u64(0);
        w.u64(0);
        let prio_at = w.buf.len();
        w.zeros(3 * 8);
        for p in &self.clat_prio {
            w.u32(p.len() as u32);
        }
        w.u64(self.cachehit);
        w.u64(self.cachemiss);
        w.zeros(TS_RS_OFFSET - w.buf.len());
        self.rs.put(&mut w);
        w.zeros(TS_PDU_LEN - w.buf.len());
        // Trailing data: per-priority stats, then the ring buffers.
        for (d, list) in self.clat_prio.iter().enumerate() {
            if list.is_empty() {
                continue;
            }
            let off = w.buf.len() as u64;
            w.buf[prio_at + d * 8..prio_at + d * 8 + 8].copy_from_slice(&off.to_le_bytes());
            for p in list {
                let mut pl = p.plat.clone();
                pl.resize(PLAT_NR, 0);
                w.u64s(&pl);
                p.clat.put(&mut w);
                w.u32(p.ioprio);
                w.zeros(4);
            }
        }
        if self.ss_state & SS_DATA != 0 {
            let dur = self.ss_dur as usize;
            for (i, ring) in [&self.ss_iops, &self.ss_bw].into_iter().enumerate() {
                let off = w.buf.len() as u64;
                w.buf[ss_iops_at + i * 8..ss_iops_at + i * 8 + 8]
                    .copy_from_slice(&off.to_le_bytes());
                let mut v = ring[..ss_len.min(ring.len())].to_vec();
                v.resize(dur, 0);
                w.u64s(&v);
            }
        }
        w.buf
    }

    pub fn decode(b: &[u8]) -> Result<ThreadStat, ProtoError> {
        if b.len() < TS_PDU_LEN {
            return Err(ProtoError::Truncated {
                what: "TS",
                need: TS_PDU_LEN,
                have: b.len(),
            });
        }
        let mut r = Reader::new(b, "TS");
        let mut t = ThreadStat {
            name: r.cstr(128)?,
            verror: r.cstr(128)?,
            error: r.u32()?,
            thread_number: r.u32()?,
            groupid: r.u32()?,
            pid: r.u32()?,
            description: r.cstr(256)?,
            members: r.u32()?,
            unified_rw_rep: r.u32()?,
            disable_prio_stat: r.u32()?,
            ..ThreadStat::default()
        };
        r.skip(4)?;
        t.sync_stat = IoStat::get(&mut r)?;
        t.clat = IoStat::get3(&mut r)?;
        t.slat = IoStat::get3(&mut r)?;
        t.lat = IoStat::get3(&mut r)?;
        t.bw = IoStat::get3(&mut r)?;
        t.iops = IoStat::get3(&mut r)?;
        [t.usr_time, t.sys_time, t.ctx, t.minf, t.majf] = r.u64_array()?;
        [t.clat_percentiles, t.lat_percentiles, t.slat_percentiles, _] = r.u32_array()?;
        t.percentile_precision = r.u64()?;
        for p in t.percentile_list.iter_mut() {
            *p = r.fp64()?;
        }
        t.io_u_map = r.u64_array()?;
        t.io_u_submit = r.u64_array()?;
        t.io_u_complete = r.u64_array()?;
        t.io_u_lat_n = r.u64_array()?;
        t.io_u_lat_u = r.u64_array()?;
        t.io_u_lat_m = r.u64_array()?;
        t.plat = r.u64s(LAT_KINDS * DDIRS * PLAT_NR)?;
        t.sync_plat = r.u64s(PLAT_NR)?;
        t.total_io_u = r.u64_array()?;
        t.short_io_u = r.u64_array()?;
        t.drop_io_u = r.u64_array()?;
        t.total_submit = r.u64()?;
        t.total_complete = r.u64()?;
        t.io_bytes = r.u64_array()?;
        t.runtime = r.u64_array()?;
        t.total_run_time = r.u64()?;
        t.continue_on_error = r.u16()?;
        r.skip(2)?;
        t.first_error = r.u32()?;
        t.total_err_count = r.u64()?;
        t.nr_zone_resets = r.u64()?;
        let nbi = r.u64()?;
        if nbi > BLOCK_INFOS_MAX as u64 {
            return Err(ProtoError::BadField {
                what: "nr_block_infos",
                value: nbi,
            });
        }
        let infos: [u32; BLOCK_INFOS_MAX] = r.u32_array()?;
        t.block_infos = infos[..nbi as usize].to_vec();
        [t.kb_base, t.unit_base, t.latency_depth, _] = r.u32_array()?;
        t.latency_target = r.u64()?;
        t.latency_percentile = r.fp64()?;
        t.latency_window = r.u64()?;
        t.sig_figs = r.u32()?;
        t.ss_dur = r.u64()?;
        t.ss_state = r.u32()?;
        t.ss_head = r.u32()?;
        t.ss_limit = r.fp64()?;
        t.ss_slope = r.fp64()?;
        t.ss_deviation = r.fp64()?;
        t.ss_criterion = r.fp64()?;
        t.ioprio = r.u32()?;
        let ss_offsets: [u64; 2] = r.u64_array()?;
        let prio_offsets: [u64; 3] = r.u64_array()?;
        let nr_prio: [u32; 3] = r.u32_array()?;
        t.cachehit = r.u64()?;
        t.cachemiss = r.u64()?;
        t.rs = GroupRunStats::get(&mut Reader::new(&b[TS_RS_OFFSET..], "TS"))?;
        // Trailing data, each piece where its offset says, inside the payload.
        for d in 0..DDIRS {
            if nr_prio[d] == 0 {
                continue;
            }
            let mut pr = trailing(b, prio_offsets[d], nr_prio[d] as u64, CLAT_PRIO_LEN)?;
            for _ in 0..nr_prio[d] {
                let plat = pr.u64s(PLAT_NR)?;
                let clat = IoStat::get(&mut pr)?;
                let ioprio = pr.u32()?;
                pr.skip(4)?;
                t.clat_prio[d].push(ClatPrio { plat, clat, ioprio });
            }
        }
        if t.ss_state & SS_DATA != 0 {
            for (i, off) in ss_offsets.into_iter().enumerate() {
                let mut rr = trailing(b, off, t.ss_dur, 8)?;
                let v = rr.u64s(t.ss_dur as usize)?;
                if i == 0 {
                    t.ss_iops = v;
                } else {
                    t.ss_bw = v;
                }
            }
        }
        Ok(t)
    }
}

/// A reader over `count` records of `size` bytes at `offset` in a TS
/// payload, checked to lie past the fixed part and inside the payload.
fn trailing(b: &[u8], offset: u64, count: u64, size: usize) -> Result<Reader<'_>, ProtoError> {
    let bad = ProtoError::BadField {
        what: "TS trailing data offset",
        value: offset,
    };
    let len = count.checked_mul(size as u64).ok_or(bad.clone())?;
    let end = offset.checked_add(len).ok_or(bad.clone())?;
    if offset < TS_PDU_LEN as u64 || end > b.len() as u64 {
        return Err(bad);
    }
    Ok(Reader::new(&b[offset as usize..end as usize], "TS"))
}

/// ETA: the running jobs' rates and state letters (`jobs_eta`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct JobsEta {
    pub nr_running: u32,
    pub nr_ramp: u32,
    pub nr_pending: u32,
    pub nr_setting_up: u32,
    pub m_rate: [u64; DDIRS],
    pub t_rate: [u64; DDIRS],
    pub rate: [u64; DDIRS],
    pub m_iops: [u32; DDIRS],
    pub t_iops: [u32; DDIRS],
    pub iops: [u32; DDIRS],
    pub elapsed_sec: u64,
    pub eta_sec: u64,
    pub is_pow2: u32,
    pub unit_base: u32,
    pub sig_figs: u32,
    pub files_open: u32,
    pub nr_threads: u32,
    /// One state letter per job (`R`, `_`, ...), without its NUL.
    pub run_str: String,
}

/// Bytes before `run_str`.
pub const ETA_FIXED_LEN: usize = 168;

impl JobsEta {
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.u32s(&[
            self.nr_running,
            self.nr_ramp,
            self.nr_pending,
            self.nr_setting_up,
        ]);
        w.u64s(&self.m_rate);
        w.u64s(&self.t_rate);
        w.u64s(&self.rate);
        w.u32s(&self.m_iops);
        w.u32s(&self.t_iops);
        w.u32s(&self.iops);
        w.u32(0);
        w.u64(self.elapsed_sec);
        w.u64(self.eta_sec);
        w.u32s(&[
            self.is_pow2,
            self.unit_base,
            self.sig_figs,
            self.files_open,
            self.nr_threads,
            0,
        ]);
        w.bytes(self.run_str.as_bytes());
        w.u8(0);
        w.buf
    }
    pub fn decode(b: &[u8]) -> Result<JobsEta, ProtoError> {
        let mut r = Reader::new(b, "ETA");
        let mut e = JobsEta {
            nr_running: r.u32()?,
            nr_ramp: r.u32()?,
            nr_pending: r.u32()?,
            nr_setting_up: r.u32()?,
            m_rate: r.u64_array()?,
            t_rate: r.u64_array()?,
            rate: r.u64_array()?,
            m_iops: r.u32_array()?,
            t_iops: r.u32_array()?,
            iops: r.u32_array()?,
            ..JobsEta::default()
        };
        r.skip(4)?;
        e.elapsed_sec = r.u64()?;
        e.eta_sec = r.u64()?;
        [
            e.is_pow2,
            e.unit_base,
            e.sig_figs,
            e.files_open,
            e.nr_threads,
            _,
        ] = r.u32_array()?;
        e.run_str = super::wire::from_c(r.rest());
        Ok(e)
    }
}
