//! Little-endian field readers and writers over byte slices, fio's CRC16
//! and fixed-size C strings. Every read is bounds-checked: a short input is
//! an error, never a panic.

use super::ProtoError;

/// fio's CRC16 (poly 0x8005 reflected, initial 0: CRC-16/ARC).
const CRC16: crc::Crc<u16> = crc::Crc::<u16>::new(&crc::CRC_16_ARC);

pub fn crc16(data: &[u8]) -> u16 {
    CRC16.checksum(data)
}

/// A cursor over a payload; `what` names the payload in errors.
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
    what: &'static str,
}

impl<'a> Reader<'a> {
    pub fn new(buf: &'a [u8], what: &'static str) -> Self {
        Reader { buf, pos: 0, what }
    }

    pub fn pos(&self) -> usize {
        self.pos
    }

    pub fn rest(&self) -> &'a [u8] {
        &self.buf[self.pos..]
    }

    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8], ProtoError> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.buf.len())
            .ok_or(ProtoError::Truncated {
                what: self.what,
                need: self.pos.saturating_add(n),
                have: self.buf.len(),
            })?;
        let s = &self.buf[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    pub fn skip(&mut self, n: usize) -> Result<(), ProtoError> {
        self.bytes(n).map(|_| ())
    }

    pub fn u8(&mut self) -> Result<u8, ProtoError> {
        Ok(self.bytes(1)?[0])
    }

    pub fn u16(&mut self) -> Result<u16, ProtoError> {
        let b = self.bytes(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    pub fn u32(&mut self) -> Result<u32, ProtoError> {
        let mut a = [0u8; 4];
        a.copy_from_slice(self.bytes(4)?);
        Ok(u32::from_le_bytes(a))
    }

    pub fn u64(&mut self) -> Result<u64, ProtoError> {
        let mut a = [0u8; 8];
        a.copy_from_slice(self.bytes(8)?);
        Ok(u64::from_le_bytes(a))
    }

    /// fio's `fio_fp64_t`: an IEEE 754 double in the first 8 of 16 bytes.
    pub fn fp64(&mut self) -> Result<f64, ProtoError> {
        let v = f64::from_bits(self.u64()?);
        self.skip(8)?;
        Ok(v)
    }

    /// A NUL-padded C string field of `n` bytes (the text before the first
    /// NUL, or all of it; invalid UTF-8 replaced).
    pub fn cstr(&mut self, n: usize) -> Result<String, ProtoError> {
        Ok(from_c(self.bytes(n)?))
    }

    pub fn u64s(&mut self, n: usize) -> Result<Vec<u64>, ProtoError> {
        let b = self.bytes(n.checked_mul(8).ok_or(ProtoError::TooLarge(u64::MAX))?)?;
        Ok(b.chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
            .collect())
    }

    pub fn u64_array<const N: usize>(&mut self) -> Result<[u64; N], ProtoError> {
        let mut a = [0u64; N];
        for v in a.iter_mut() {
            *v = self.u64()?;
        }
        Ok(a)
    }

    pub fn u32_array<const N: usize>(&mut self) -> Result<[u32; N], ProtoError> {
        let mut a = [0u32; N];
        for v in a.iter_mut() {
            *v = self.u32()?;
        }
        Ok(a)
    }
}

/// The text of a C string buffer: up to the first NUL.
pub fn from_c(b: &[u8]) -> String {
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    String::from_utf8_lossy(&b[..end]).into_owned()
}

/// Appends little-endian fields to a buffer.
#[derive(Default)]
pub struct Writer {
    pub buf: Vec<u8>,
}

impl Writer {
    pub fn with_capacity(n: usize) -> Self {
        Writer {
            buf: Vec::with_capacity(n),
        }
    }
    pub fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }
    pub fn u16(&mut self, v: u16) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    pub fn u32(&mut self, v: u32) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    pub fn u64(&mut self, v: u64) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    pub fn fp64(&mut self, v: f64) {
        self.u64(v.to_bits());
        self.zeros(8);
    }
    pub fn zeros(&mut self, n: usize) {
        self.buf.resize(self.buf.len() + n, 0);
    }
    pub fn bytes(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
    }
    /// A C string field of `n` bytes: the text cut to `n - 1` bytes, then
    /// NULs (fio's snprintf into a fixed buffer).
    pub fn cstr(&mut self, s: &str, n: usize) {
        let b = s.as_bytes();
        let len = b.len().min(n.saturating_sub(1));
        self.bytes(&b[..len]);
        self.zeros(n - len);
    }
    pub fn u64s(&mut self, v: &[u64]) {
        for &x in v {
            self.u64(x);
        }
    }
    pub fn u32s(&mut self, v: &[u32]) {
        for &x in v {
            self.u32(x);
        }
    }
}
