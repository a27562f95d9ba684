//! --validate blocks: random bytes, then the CRC32 of them and the block's
//! offset (sysbench's file_fill_buffer / file_validate_buffer).

use crate::rng::Rng;

/// Bytes at the end of a validated block: CRC32 (4) and offset (8).
const TRAILER: usize = 12;

/// CRC-32 (zlib's polynomial), for --validate blocks.
pub(super) fn crc32(data: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in data {
        c ^= u32::from(b);
        for _ in 0..8 {
            c = if c & 1 != 0 {
                (c >> 1) ^ 0xEDB8_8320
            } else {
                c >> 1
            };
        }
    }
    !c
}

/// Random bytes, then the CRC32 of them and the block's offset.
pub(super) fn fill_block(buf: &mut [u8], offset: u64, rng: &mut Rng) {
    if buf.len() < TRAILER {
        return;
    }
    let n = buf.len() - TRAILER;
    for b in &mut buf[..n] {
        *b = rng.next_u64() as u8;
    }
    let crc = crc32(&buf[..n]);
    buf[n..n + 4].copy_from_slice(&crc.to_ne_bytes());
    buf[n + 4..].copy_from_slice(&offset.to_ne_bytes());
}

pub(super) fn check_block(buf: &[u8], offset: u64) -> std::result::Result<(), String> {
    if buf.len() < TRAILER {
        return Ok(());
    }
    let n = buf.len() - TRAILER;
    let stored = u32::from_ne_bytes(buf[n..n + 4].try_into().unwrap_or([0; 4]));
    let calc = crc32(&buf[..n]);
    if stored != calc {
        return Err(format!(
            "Checksum mismatch in block with offset: {offset}\nFATAL:     Calculated value: 0x{calc:x}    Stored value: 0x{stored:x}"
        ));
    }
    let off = u64::from_ne_bytes(buf[n + 4..].try_into().unwrap_or([0; 8]));
    if off != offset {
        return Err(format!(
            "Offset mismatch in block:\nFATAL:    Actual offset: {offset}    Stored offset: {off}"
        ));
    }
    Ok(())
}
