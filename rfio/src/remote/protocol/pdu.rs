//! The small payloads: probe and its reply, job files and command lines,
//! text, start/stop, job options, ADD_JOB's header, IOLOG's header and its
//! bounded inflate.

use super::wire::{from_c, Reader, Writer};
use super::ProtoError;
use std::io::Read;

/// PROBE from the client: its flags (zlib) and the server as it named it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    pub flags: u64,
    pub server: String,
}

const PROBE_SERVER_LEN: usize = 128;

impl Probe {
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.u64(self.flags);
        w.cstr(&self.server, PROBE_SERVER_LEN);
        w.buf
    }
    pub fn decode(b: &[u8]) -> Result<Probe, ProtoError> {
        let mut r = Reader::new(b, "PROBE");
        Ok(Probe {
            flags: r.u64()?,
            server: r.cstr(PROBE_SERVER_LEN)?,
        })
    }
}

/// The server's PROBE reply, which the client prints as its `hostname=`
/// line. `os` and `arch` are fio's numbers (1 and 1: Linux, x86-64).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeReply {
    pub hostname: String,
    pub bigendian: u8,
    pub fio_version: String,
    pub os: u8,
    pub arch: u8,
    /// Bytes per pointer (8 on 64-bit).
    pub bpp: u8,
    pub cpus: u32,
    pub flags: u64,
}

/// `sizeof(struct cmd_probe_reply_pdu)`: 100 bytes of fields, the cpus
/// count at 100, the flags aligned at 104.
pub const PROBE_REPLY_LEN: usize = 112;

impl ProbeReply {
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::with_capacity(PROBE_REPLY_LEN);
        w.cstr(&self.hostname, 64);
        w.u8(self.bigendian);
        w.cstr(&self.fio_version, 32);
        w.u8(self.os);
        w.u8(self.arch);
        w.u8(self.bpp);
        w.u32(self.cpus);
        w.u64(self.flags);
        w.buf
    }
    pub fn decode(b: &[u8]) -> Result<ProbeReply, ProtoError> {
        let mut r = Reader::new(b, "PROBE reply");
        let hostname = r.cstr(64)?;
        let bigendian = r.u8()?;
        let fio_version = r.cstr(32)?;
        let (os, arch, bpp) = (r.u8()?, r.u8()?, r.u8()?);
        let cpus = r.u32()?;
        Ok(ProbeReply {
            hostname,
            bigendian,
            fio_version,
            os,
            arch,
            bpp,
            cpus,
            flags: r.u64()?,
        })
    }
}

/// JOB: a job file's text. fio's client sends a buffer larger than the
/// file (room for expansion) with `buf_len` covering it all, NUL-padded;
/// the text is what comes before the first NUL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobFile {
    pub client_type: u32,
    pub text: String,
}

impl JobFile {
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.u32(self.text.len() as u32);
        w.u32(self.client_type);
        w.bytes(self.text.as_bytes());
        w.buf
    }
    pub fn decode(b: &[u8]) -> Result<JobFile, ProtoError> {
        let mut r = Reader::new(b, "JOB");
        let len = r.u32()? as usize;
        let client_type = r.u32()?;
        // The buffer may be shorter than buf_len says only by its final
        // NUL terminator, which the receiver adds.
        let avail = r.rest().len();
        if len > avail {
            return Err(ProtoError::Truncated {
                what: "JOB",
                need: 8 + len,
                have: b.len(),
            });
        }
        Ok(JobFile {
            client_type,
            text: from_c(r.bytes(len)?),
        })
    }
}

/// JOBLINE: the client's command-line arguments (its own program name
/// first), each a u16 length and that many bytes with a NUL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobLine {
    pub client_type: u16,
    pub args: Vec<String>,
}

impl JobLine {
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.u16(self.args.len() as u16);
        w.u16(self.client_type);
        for a in &self.args {
            let b = &a.as_bytes()[..a.len().min(u16::MAX as usize - 1)];
            w.u16(b.len() as u16 + 1);
            w.bytes(b);
            w.u8(0);
        }
        w.buf
    }
    pub fn decode(b: &[u8]) -> Result<JobLine, ProtoError> {
        let mut r = Reader::new(b, "JOBLINE");
        let n = r.u16()?;
        let client_type = r.u16()?;
        let mut args = Vec::new();
        for _ in 0..n {
            let len = r.u16()? as usize;
            args.push(from_c(r.bytes(len)?));
        }
        Ok(JobLine { client_type, args })
    }
}

/// TEXT: output lines from the server, with fio's log level and the time
/// they were logged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Text {
    pub level: u32,
    pub log_sec: u64,
    pub log_usec: u64,
    pub text: String,
}

/// fio's `FIO_LOG_INFO`, the level of report text.
pub const LOG_INFO: u32 = 2;

impl Text {
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.u32(self.level);
        w.u32(self.text.len() as u32);
        w.u64(self.log_sec);
        w.u64(self.log_usec);
        w.bytes(self.text.as_bytes());
        w.buf
    }
    pub fn decode(b: &[u8]) -> Result<Text, ProtoError> {
        let mut r = Reader::new(b, "TEXT");
        let level = r.u32()?;
        let len = r.u32()? as usize;
        let log_sec = r.u64()?;
        let log_usec = r.u64()?;
        Ok(Text {
            level,
            log_sec,
            log_usec,
            text: String::from_utf8_lossy(r.bytes(len)?).into_owned(),
        })
    }
}

/// START: jobs parsed, and how many TS reports the client will get.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Start {
    pub jobs: u32,
    pub stat_outputs: u32,
}

impl Start {
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.u32(self.jobs);
        w.u32(self.stat_outputs);
        w.buf
    }
    pub fn decode(b: &[u8]) -> Result<Start, ProtoError> {
        let mut r = Reader::new(b, "START");
        Ok(Start {
            jobs: r.u32()?,
            stat_outputs: r.u32()?,
        })
    }
}

/// STOP: the run's error and the signal that ended it, if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stop {
    pub error: u32,
    pub signal: u32,
}

impl Stop {
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.u32(self.error);
        w.u32(self.signal);
        w.buf
    }
    pub fn decode(b: &[u8]) -> Result<Stop, ProtoError> {
        let mut r = Reader::new(b, "STOP");
        Ok(Stop {
            error: r.u32()?,
            signal: r.u32()?,
        })
    }
}

/// JOB_OPT: one option of a job (or of the global section) for the
/// client's JSON `job options`; `groupid` indexes the job (0-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobOption {
    pub global: bool,
    pub truncated: bool,
    pub groupid: u32,
    pub name: String,
    pub value: String,
}

pub const JOB_OPTION_LEN: usize = 200;

impl JobOption {
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::with_capacity(JOB_OPTION_LEN);
        let cut = self.truncated || self.name.len() >= 64 || self.value.len() >= 128;
        w.u16(self.global as u16);
        w.u16(cut as u16);
        w.u32(self.groupid);
        w.cstr(&self.name, 64);
        w.cstr(&self.value, 128);
        w.buf
    }
    pub fn decode(b: &[u8]) -> Result<JobOption, ProtoError> {
        let mut r = Reader::new(b, "JOB_OPT");
        Ok(JobOption {
            global: r.u16()? != 0,
            truncated: r.u16()? != 0,
            groupid: r.u32()?,
            name: r.cstr(64)?,
            value: r.cstr(128)?,
        })
    }
}

/// LOAD_FILE: a job file to read on the server's side.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadFile {
    pub client_type: u16,
    pub path: String,
}

impl LoadFile {
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.u16(self.path.len() as u16);
        w.u16(self.client_type);
        w.bytes(self.path.as_bytes());
        w.u8(0);
        w.buf
    }
    pub fn decode(b: &[u8]) -> Result<LoadFile, ProtoError> {
        let mut r = Reader::new(b, "LOAD_FILE");
        let len = r.u16()? as usize;
        let client_type = r.u16()?;
        Ok(LoadFile {
            client_type,
            path: from_c(r.bytes(len)?),
        })
    }
}

/// ADD_JOB: the job's number and group. The rest of fio's payload is its
/// packed thread options, which the command-line client does not read;
/// ours sends them zeroed at their size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AddJob {
    pub thread_number: u32,
    pub groupid: u32,
}

/// `sizeof(struct cmd_add_job_pdu)` in fio 3.33 on x86-64.
pub const ADD_JOB_LEN: usize = 25824;

impl AddJob {
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::with_capacity(ADD_JOB_LEN);
        w.u32(self.thread_number);
        w.u32(self.groupid);
        w.zeros(ADD_JOB_LEN - 8);
        w.buf
    }
    pub fn decode(b: &[u8]) -> Result<AddJob, ProtoError> {
        let mut r = Reader::new(b, "ADD_JOB");
        Ok(AddJob {
            thread_number: r.u32()?,
            groupid: r.u32()?,
        })
    }
}

/// IOLOG's header; the samples follow, zlib-compressed when `compressed`
/// is non-zero.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IoLogHeader {
    pub nr_samples: u64,
    pub thread_number: u32,
    pub log_type: u32,
    pub compressed: u32,
    pub log_offset: u32,
    pub log_prio: u32,
    pub log_hist_coarseness: u32,
    pub name: String,
}

pub const IOLOG_HEADER_LEN: usize = 8 + 6 * 4 + 256;

impl IoLogHeader {
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::with_capacity(IOLOG_HEADER_LEN);
        w.u64(self.nr_samples);
        for v in [
            self.thread_number,
            self.log_type,
            self.compressed,
            self.log_offset,
            self.log_prio,
            self.log_hist_coarseness,
        ] {
            w.u32(v);
        }
        w.cstr(&self.name, 256);
        w.buf
    }
    /// The header and the sample bytes after it (still compressed).
    pub fn decode(b: &[u8]) -> Result<(IoLogHeader, &[u8]), ProtoError> {
        let mut r = Reader::new(b, "IOLOG");
        let h = IoLogHeader {
            nr_samples: r.u64()?,
            thread_number: r.u32()?,
            log_type: r.u32()?,
            compressed: r.u32()?,
            log_offset: r.u32()?,
            log_prio: r.u32()?,
            log_hist_coarseness: r.u32()?,
            name: r.cstr(256)?,
        };
        Ok((h, r.rest()))
    }
}

/// zlib-compresses a payload (fio's IOLOG samples).
pub fn deflate(data: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    // Writing to a Vec cannot fail.
    let _ = e.write_all(data);
    e.finish().unwrap_or_default()
}

/// Inflates a zlib stream, refusing one that grows past `limit` bytes (a
/// small frame may claim gigabytes).
pub fn inflate(data: &[u8], limit: usize) -> Result<Vec<u8>, ProtoError> {
    let mut out = Vec::new();
    let d = flate2::read::ZlibDecoder::new(data);
    d.take(limit as u64 + 1)
        .read_to_end(&mut out)
        .map_err(|e| ProtoError::Inflate(e.to_string()))?;
    if out.len() > limit {
        return Err(ProtoError::Inflate(format!(
            "more than {limit} bytes inflated"
        )));
    }
    Ok(out)
}

/// DU: one device's disk statistics (`disk_util_stat` and, for a
/// software RAID, its members' `disk_util_agg`). The client prints
/// util as `100 * io_ticks / msec`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DiskUtil {
    pub name: String,
    pub ios: [u64; 2],
    pub merges: [u64; 2],
    pub sectors: [u64; 2],
    pub ticks: [u64; 2],
    pub io_ticks: u64,
    pub time_in_queue: u64,
    pub msec: u64,
    pub agg_ios: [u64; 2],
    pub agg_merges: [u64; 2],
    pub agg_sectors: [u64; 2],
    pub agg_ticks: [u64; 2],
    pub agg_io_ticks: u64,
    pub agg_time_in_queue: u64,
    pub slavecount: u32,
    pub max_util: f64,
}

/// `sizeof(struct cmd_du_pdu)`: 152 bytes of device, 104 of aggregate.
pub const DU_LEN: usize = 256;

impl DiskUtil {
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::with_capacity(DU_LEN);
        w.cstr(&self.name, 64);
        for a in [&self.ios, &self.merges, &self.sectors, &self.ticks] {
            w.u64s(a);
        }
        w.u64s(&[self.io_ticks, self.time_in_queue, self.msec]);
        for a in [
            &self.agg_ios,
            &self.agg_merges,
            &self.agg_sectors,
            &self.agg_ticks,
        ] {
            w.u64s(a);
        }
        w.u64s(&[self.agg_io_ticks, self.agg_time_in_queue]);
        w.u32(self.slavecount);
        w.u32(0);
        w.fp64(self.max_util);
        w.buf
    }
    pub fn decode(b: &[u8]) -> Result<DiskUtil, ProtoError> {
        let mut r = Reader::new(b, "DU");
        let mut d = DiskUtil {
            name: r.cstr(64)?,
            ios: r.u64_array()?,
            merges: r.u64_array()?,
            sectors: r.u64_array()?,
            ticks: r.u64_array()?,
            io_ticks: r.u64()?,
            time_in_queue: r.u64()?,
            msec: r.u64()?,
            ..DiskUtil::default()
        };
        d.agg_ios = r.u64_array()?;
        d.agg_merges = r.u64_array()?;
        d.agg_sectors = r.u64_array()?;
        d.agg_ticks = r.u64_array()?;
        d.agg_io_ticks = r.u64()?;
        d.agg_time_in_queue = r.u64()?;
        d.slavecount = r.u32()?;
        r.skip(4)?;
        d.max_util = r.fp64()?;
        Ok(d)
    }
}
