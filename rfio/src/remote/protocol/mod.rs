//! fio 3.33's client/server wire format, as data: frame headers with their
//! CRC16s, fragmenting and reassembling, command numbers, and the payload
//! layouts both sides exchange. Nothing here opens a socket or runs a job;
//! `remote/` wires this to the network and the runner.
//!
//! Every multi-byte field is little-endian. A frame is a 24-byte header
//! (version, opcode, flags, tag, payload length, then the CRC16 of the
//! first 20 header bytes and the CRC16 of the payload) and at most 1 KiB of
//! payload; a longer payload goes as several frames of one opcode, all but
//! the last flagged `MORE`. Only IOLOG payloads are zlib-compressed.

mod frame;
mod pdu;
mod stats;
mod wire;

#[cfg(test)]
mod tests;

pub use frame::{decode_all, encode, Command, Decoder, Header, HEADER_LEN};
pub use pdu::*;
pub use stats::{
    GroupRunStats, IoStat, JobsEta, ThreadStat, DDIRS, PERCENTILES_MAX, PLAT_NR, TS_PDU_LEN,
};
pub use wire::crc16;

/// `FIO_SERVER_VER` in fio 3.33: both sides must agree.
pub const VERSION: u16 = 97;
/// fio's default TCP port for `--server` and `--client`.
pub const DEFAULT_PORT: u16 = 8765;
/// The largest payload one frame carries.
pub const MAX_FRAGMENT: usize = 1024;
/// Flag on every fragment of a payload but its last.
pub const FLAG_MORE: u32 = 1;
/// PROBE flag: the sender understands zlib-compressed IOLOG payloads.
pub const PROBE_FLAG_ZLIB: u64 = 1;
/// `FIO_CLIENT_TYPE_CLI` (the command-line client; 2 is gfio).
pub const CLIENT_TYPE_CLI: u32 = 1;

/// Command numbers (`FIO_NET_CMD_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u16)]
pub enum Op {
    Quit = 1,
    Exit = 2,
    Job = 3,
    JobLine = 4,
    Text = 5,
    Ts = 6,
    Gs = 7,
    SendEta = 8,
    Eta = 9,
    Probe = 10,
    Start = 11,
    Stop = 12,
    Du = 13,
    ServerStart = 14,
    AddJob = 15,
    Run = 16,
    IoLog = 17,
    UpdateJob = 18,
    LoadFile = 19,
    VTrigger = 20,
    SendFile = 21,
    JobOpt = 22,
}

impl Op {
    pub fn from_u16(v: u16) -> Option<Op> {
        use Op::*;
        Some(match v {
            1 => Quit,
            2 => Exit,
            3 => Job,
            4 => JobLine,
            5 => Text,
            6 => Ts,
            7 => Gs,
            8 => SendEta,
            9 => Eta,
            10 => Probe,
            11 => Start,
            12 => Stop,
            13 => Du,
            14 => ServerStart,
            15 => AddJob,
            16 => Run,
            17 => IoLog,
            18 => UpdateJob,
            19 => LoadFile,
            20 => VTrigger,
            21 => SendFile,
            22 => JobOpt,
            _ => return None,
        })
    }

    /// fio's name for the command, as its debug and error lines print it.
    pub fn name(self) -> &'static str {
        use Op::*;
        match self {
            Quit => "QUIT",
            Exit => "EXIT",
            Job => "JOB",
            JobLine => "JOBLINE",
            Text => "TEXT",
            Ts => "TS",
            Gs => "GS",
            SendEta => "SEND_ETA",
            Eta => "ETA",
            Probe => "PROBE",
            Start => "START",
            Stop => "STOP",
            Du => "DISK_UTIL",
            ServerStart => "SERVER_START",
            AddJob => "ADD_JOB",
            Run => "RUN",
            IoLog => "IOLOG",
            UpdateJob => "UPDATE_JOB",
            LoadFile => "LOAD_FILE",
            VTrigger => "VTRIGGER",
            SendFile => "SENDFILE",
            JobOpt => "JOB_OPT",
        }
    }
}

/// Why bytes from the peer were refused. The text is fio's where it has one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProtoError {
    /// The header's own CRC16 is wrong.
    HeaderCrc { got: u16, wanted: u16 },
    /// The payload's CRC16 is wrong.
    PayloadCrc { got: u16, wanted: u16 },
    /// Another protocol version.
    Version(u16),
    /// A fragment longer than 1 KiB.
    FragmentTooLarge(u32),
    /// A reassembled payload past the decoder's limit.
    TooLarge(u64),
    /// A later fragment with another opcode than the first.
    OpcodeMismatch { first: u16, got: u16 },
    /// A payload shorter than its layout (or than a length inside it).
    Truncated {
        what: &'static str,
        need: usize,
        have: usize,
    },
    /// A field's value that the layout cannot hold (a count past its array).
    BadField { what: &'static str, value: u64 },
    /// A compressed payload that does not inflate, or inflates past its limit.
    Inflate(String),
}

impl std::fmt::Display for ProtoError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ProtoError::HeaderCrc { got, wanted } => {
                write!(
                    f,
                    "fio: server bad crc on command (got {got:x}, wanted {wanted:x})"
                )
            }
            ProtoError::PayloadCrc { got, wanted } => {
                write!(
                    f,
                    "fio: server bad crc on payload (got {got:x}, wanted {wanted:x})"
                )
            }
            ProtoError::Version(v) => {
                write!(f, "fio: client/server version mismatch ({v} != {VERSION})")
            }
            ProtoError::FragmentTooLarge(n) => write!(f, "fio: command payload too large: {n}"),
            ProtoError::TooLarge(n) => write!(f, "fio: cmd+pdu too large ({n})"),
            ProtoError::OpcodeMismatch { first, got } => {
                write!(f, "fio: fragment opcode mismatch ({first} != {got})")
            }
            ProtoError::Truncated { what, need, have } => {
                write!(f, "fio: {what} payload truncated ({have} of {need} bytes)")
            }
            ProtoError::BadField { what, value } => {
                write!(f, "fio: bad {what} in payload ({value})")
            }
            ProtoError::Inflate(m) => write!(f, "fio: failed to inflate payload: {m}"),
        }
    }
}

impl std::error::Error for ProtoError {}

/// Every decoder over the same bytes, as a stream of frames and as each
/// payload; for the fuzz target and the unit tests. Errors are fine,
/// panics are not.
pub fn decode_everything(data: &[u8]) {
    let mut d = Decoder::new(64 << 10);
    d.push(data);
    while let Ok(Some(_)) = d.next_command() {}
    let _ = Probe::decode(data);
    let _ = ProbeReply::decode(data);
    let _ = JobFile::decode(data);
    let _ = JobLine::decode(data);
    let _ = Text::decode(data);
    let _ = Start::decode(data);
    let _ = Stop::decode(data);
    let _ = JobOption::decode(data);
    let _ = LoadFile::decode(data);
    let _ = AddJob::decode(data);
    let _ = IoLogHeader::decode(data);
    let _ = GroupRunStats::decode(data);
    let _ = JobsEta::decode(data);
    let _ = DiskUtil::decode(data);
    let _ = inflate(data, 1 << 16);
    // A TS is 180 KiB: the input overlays a valid one from its start.
    let mut ts = ThreadStat::default().encode();
    let n = data.len().min(ts.len());
    ts[..n].copy_from_slice(&data[..n]);
    ts.extend_from_slice(&data[n..]);
    let _ = ThreadStat::decode(&ts);
}
