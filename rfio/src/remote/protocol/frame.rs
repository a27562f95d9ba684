//! Frame headers, fragmenting a payload into frames, and reassembling
//! frames from a byte stream.

use super::wire::{crc16, Reader, Writer};
use super::{Op, ProtoError, FLAG_MORE, MAX_FRAGMENT, VERSION};

/// Bytes in a frame header.
pub const HEADER_LEN: usize = 24;
/// Header bytes the header CRC covers (all before the two CRCs).
const HEADER_CRC_LEN: usize = 20;

/// One frame's header, fields as on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    pub version: u16,
    pub opcode: u16,
    pub flags: u32,
    pub tag: u64,
    pub pdu_len: u32,
    pub cmd_crc: u16,
    pub pdu_crc: u16,
}

impl Header {
    /// Reads and checks a header: its CRC, the version, the fragment size.
    pub fn decode(b: &[u8]) -> Result<Header, ProtoError> {
        let mut r = Reader::new(b, "header");
        let h = Header {
            version: r.u16()?,
            opcode: r.u16()?,
            flags: r.u32()?,
            tag: r.u64()?,
            pdu_len: r.u32()?,
            cmd_crc: r.u16()?,
            pdu_crc: r.u16()?,
        };
        let wanted = crc16(&b[..HEADER_CRC_LEN]);
        if wanted != h.cmd_crc {
            return Err(ProtoError::HeaderCrc {
                got: h.cmd_crc,
                wanted,
            });
        }
        if h.version != VERSION {
            return Err(ProtoError::Version(h.version));
        }
        if h.pdu_len as usize > MAX_FRAGMENT {
            return Err(ProtoError::FragmentTooLarge(h.pdu_len));
        }
        Ok(h)
    }
}

fn put_frame(out: &mut Vec<u8>, opcode: u16, flags: u32, tag: u64, pdu: &[u8]) {
    let mut w = Writer::with_capacity(HEADER_LEN);
    w.u16(VERSION);
    w.u16(opcode);
    w.u32(flags);
    w.u64(tag);
    w.u32(pdu.len() as u32);
    let c = crc16(&w.buf);
    w.u16(c);
    w.u16(crc16(pdu));
    out.extend_from_slice(&w.buf);
    out.extend_from_slice(pdu);
}

/// One command as frames: the payload cut into 1 KiB fragments, all but
/// the last flagged MORE; an empty payload is one bare header.
pub fn encode(op: Op, tag: u64, pdu: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(pdu.len() + HEADER_LEN * (1 + pdu.len() / MAX_FRAGMENT));
    if pdu.is_empty() {
        put_frame(&mut out, op as u16, 0, tag, pdu);
        return out;
    }
    let mut chunks = pdu.chunks(MAX_FRAGMENT).peekable();
    while let Some(c) = chunks.next() {
        let flags = if chunks.peek().is_some() {
            FLAG_MORE
        } else {
            0
        };
        put_frame(&mut out, op as u16, flags, tag, c);
    }
    out
}

/// One whole command: the first fragment's header fields, every
/// fragment's payload joined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    pub opcode: u16,
    pub tag: u64,
    pub payload: Vec<u8>,
}

impl Command {
    pub fn op(&self) -> Option<Op> {
        Op::from_u16(self.opcode)
    }
}

/// Reassembles commands from bytes as they arrive. After an error the
/// stream cannot be trusted: the caller drops the connection.
pub struct Decoder {
    buf: Vec<u8>,
    /// Fragments of the command under way.
    partial: Option<Command>,
    max_payload: usize,
}

impl Decoder {
    /// `max_payload` bounds a reassembled command (fio allows 2 GiB; the
    /// largest it sends, a TS with steadystate data, is well under 1 MiB
    /// plus its ring buffers).
    pub fn new(max_payload: usize) -> Self {
        Decoder {
            buf: Vec::new(),
            partial: None,
            max_payload,
        }
    }

    /// Bytes read from the peer.
    pub fn push(&mut self, data: &[u8]) {
        self.buf.extend_from_slice(data);
    }

    /// True when bytes are held that do not make a whole command yet.
    pub fn has_partial(&self) -> bool {
        !self.buf.is_empty() || self.partial.is_some()
    }

    /// The next whole command, `None` until enough bytes are pushed.
    pub fn next_command(&mut self) -> Result<Option<Command>, ProtoError> {
        loop {
            if self.buf.len() < HEADER_LEN {
                return Ok(None);
            }
            let h = Header::decode(&self.buf[..HEADER_LEN])?;
            let len = h.pdu_len as usize;
            if self.buf.len() < HEADER_LEN + len {
                return Ok(None);
            }
            let pdu = &self.buf[HEADER_LEN..HEADER_LEN + len];
            let wanted = crc16(pdu);
            if wanted != h.pdu_crc {
                return Err(ProtoError::PayloadCrc {
                    got: h.pdu_crc,
                    wanted,
                });
            }
            let cmd = match self.partial.take() {
                None => Command {
                    opcode: h.opcode,
                    tag: h.tag,
                    payload: pdu.to_vec(),
                },
                Some(mut c) => {
                    if c.opcode != h.opcode {
                        return Err(ProtoError::OpcodeMismatch {
                            first: c.opcode,
                            got: h.opcode,
                        });
                    }
                    let total = c.payload.len() + len;
                    if total > self.max_payload {
                        return Err(ProtoError::TooLarge(total as u64));
                    }
                    c.payload.extend_from_slice(pdu);
                    c
                }
            };
            self.buf.drain(..HEADER_LEN + len);
            // fio ends a command at an empty fragment even when flagged.
            if h.flags & FLAG_MORE != 0 && len > 0 {
                self.partial = Some(cmd);
                continue;
            }
            return Ok(Some(cmd));
        }
    }
}

/// Every command in `bytes`, all of them whole; an error for anything else
/// (bytes left over are `Truncated`).
pub fn decode_all(bytes: &[u8], max_payload: usize) -> Result<Vec<Command>, ProtoError> {
    let mut d = Decoder::new(max_payload);
    d.push(bytes);
    let mut out = Vec::new();
    while let Some(c) = d.next_command()? {
        out.push(c);
    }
    if d.has_partial() {
        return Err(ProtoError::Truncated {
            what: "frame",
            need: bytes.len() + 1,
            have: bytes.len(),
        });
    }
    Ok(out)
}
