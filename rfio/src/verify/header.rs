//! fio 3.33's `struct verify_header` (verify.h), little-endian as fio
//! writes it on x86-64, 40 bytes, followed by the checksum trailer:
//!
//! | offset | field | |
//! | --- | --- | --- |
//! | 0 | magic u16 | 0xacca |
//! | 2 | verify_type u16 | fio's enum number |
//! | 4 | len u32 | bytes this header covers (the verify interval) |
//! | 8 | rand_seed u64 | seed of the random data |
//! | 16 | offset u64 | where this interval belongs in the file |
//! | 24 | time_sec u32, 28 time_nsec u32 | when the write was prepared |
//! | 32 | thread u16 | job number |
//! | 34 | numberio u16 | the write's sequence number |
//! | 36 | crc32 u32 | fio's crc32c of bytes 0..36 |

use super::checksum::fio_crc32c;

pub const MAGIC: u16 = 0xacca;
pub const LEN: usize = 40;

/// The fields of one header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Header {
    pub magic: u16,
    pub verify_type: u16,
    pub len: u32,
    pub rand_seed: u64,
    pub offset: u64,
    pub time_sec: u32,
    pub time_nsec: u32,
    pub thread: u16,
    pub numberio: u16,
    pub crc32: u32,
}

impl Header {
    /// Write the header (computing its crc) into `out[..40]`.
    pub fn write(&self, out: &mut [u8]) {
        out[0..2].copy_from_slice(&MAGIC.to_le_bytes());
        out[2..4].copy_from_slice(&self.verify_type.to_le_bytes());
        out[4..8].copy_from_slice(&self.len.to_le_bytes());
        out[8..16].copy_from_slice(&self.rand_seed.to_le_bytes());
        out[16..24].copy_from_slice(&self.offset.to_le_bytes());
        out[24..28].copy_from_slice(&self.time_sec.to_le_bytes());
        out[28..32].copy_from_slice(&self.time_nsec.to_le_bytes());
        out[32..34].copy_from_slice(&self.thread.to_le_bytes());
        out[34..36].copy_from_slice(&self.numberio.to_le_bytes());
        let crc = fio_crc32c(&out[..36]);
        out[36..40].copy_from_slice(&crc.to_le_bytes());
    }

    /// Read a header from `b[..40]`.
    pub fn read(b: &[u8]) -> Header {
        let u16_at = |i: usize| u16::from_le_bytes([b[i], b[i + 1]]);
        let u32_at = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        let u64_at = |i: usize| {
            let mut a = [0u8; 8];
            a.copy_from_slice(&b[i..i + 8]);
            u64::from_le_bytes(a)
        };
        Header {
            magic: u16_at(0),
            verify_type: u16_at(2),
            len: u32_at(4),
            rand_seed: u64_at(8),
            offset: u64_at(16),
            time_sec: u32_at(24),
            time_nsec: u32_at(28),
            thread: u16_at(32),
            numberio: u16_at(34),
            crc32: u32_at(36),
        }
    }

    /// The crc the header's first 36 bytes call for.
    pub fn expected_crc(b: &[u8]) -> u32 {
        fio_crc32c(&b[..36])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let h = Header {
            magic: MAGIC,
            verify_type: 5,
            len: 4096,
            rand_seed: 0x1234_5678_9abc,
            offset: 8192,
            time_sec: 1,
            time_nsec: 2,
            thread: 1,
            numberio: 7,
            crc32: 0,
        };
        let mut b = [0u8; 40];
        h.write(&mut b);
        assert_eq!(&b[..2], &[0xca, 0xac]);
        let r = Header::read(&b);
        assert_eq!(r.crc32, Header::expected_crc(&b));
        assert_eq!(Header { crc32: 0, ..r }, h);
    }
}
