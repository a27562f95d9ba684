//! The checksums fio 3.33 stores after a block's verify header, byte for
//! byte as fio writes them on x86-64 (so `fio --verify_only` accepts what
//! rfio wrote and the other way round). Several differ from the textbook
//! algorithm; each difference was checked against files fio wrote:
//! - crc32c: Castagnoli, initial value !0 but no final inversion;
//! - crc32: polynomial 0x04c11db7, not reflected, initial value 0, no
//!   final inversion (fio's own table, not zlib's crc32);
//! - sha1: the five state words stored in host (little-endian) order;
//! - sha256: a 64-byte field holding fio's final padded block (whose bit
//!   count is little-endian), its first 8 bytes replaced by the low byte
//!   of each state word;
//! - sha512: no digest at all (fio never finalizes it): the 128-byte
//!   field is the hash's input buffer, i.e. the data's first 128 bytes
//!   with the last partial block copied over their start;
//! - crc64: CRC-64/REDIS (Jones polynomial, reflected, initial 0);
//!   crc16: CRC-16/ARC; crc7: CRC-7/MMC, one byte;
//! - md5 and sha3-* are the standard digests; xxhash is XXH32 with seed 1.

use md5::Digest;

/// The header crc and the `crc32c` checksum.
pub fn fio_crc32c(data: &[u8]) -> u32 {
    !crc32c::crc32c(data)
}

const FIO_CRC32: crc::Crc<u32> = crc::Crc::<u32>::new(&crc::Algorithm {
    width: 32,
    poly: 0x04c1_1db7,
    init: 0,
    refin: false,
    refout: false,
    xorout: 0,
    check: 0x89a1_897f,
    residue: 0,
});

const FIO_CRC64: crc::Crc<u64> = crc::Crc::<u64>::new(&crc::CRC_64_REDIS);
const FIO_CRC16: crc::Crc<u16> = crc::Crc::<u16>::new(&crc::CRC_16_ARC);
const FIO_CRC7: crc::Crc<u8> = crc::Crc::<u8>::new(&crc::CRC_7_MMC);

/// Compute the trailer for `kind` (its `trailer_len` bytes) over `data`.
pub fn fill(kind: super::Kind, data: &[u8], out: &mut [u8]) {
    use super::Kind::*;
    match kind {
        Md5 => out[..16].copy_from_slice(&md5::Md5::digest(data)),
        Crc32 => out[..4].copy_from_slice(&FIO_CRC32.checksum(data).to_le_bytes()),
        Crc32c => out[..4].copy_from_slice(&fio_crc32c(data).to_le_bytes()),
        Xxhash => out[..4].copy_from_slice(&xxhash_rust::xxh32::xxh32(data, 1).to_le_bytes()),
        Sha1 => {
            let d = sha1::Sha1::digest(data);
            for (o, w) in out[..20].chunks_mut(4).zip(d.chunks(4)) {
                o.copy_from_slice(&[w[3], w[2], w[1], w[0]]);
            }
        }
        Sha256 => fio_sha256(data, &mut out[..64]),
        Crc64 => out[..8].copy_from_slice(&FIO_CRC64.checksum(data).to_le_bytes()),
        Crc16 => out[..2].copy_from_slice(&FIO_CRC16.checksum(data).to_le_bytes()),
        Crc7 => out[0] = FIO_CRC7.checksum(data),
        Sha512 => fio_sha512(data, &mut out[..128]),
        Sha3_224 => out[..28].copy_from_slice(&sha3::Sha3_224::digest(data)),
        Sha3_256 => out[..32].copy_from_slice(&sha3::Sha3_256::digest(data)),
        Sha3_384 => out[..48].copy_from_slice(&sha3::Sha3_384::digest(data)),
        Sha3_512 => out[..64].copy_from_slice(&sha3::Sha3_512::digest(data)),
        Meta | Pattern | PatternNoHdr | Null => {}
    }
}

/// fio's sha512 field (see the module comment). Past data shorter than
/// 128 bytes fio leaves whatever was there; rfio zeroes it.
fn fio_sha512(data: &[u8], out: &mut [u8]) {
    out.fill(0);
    let first = data.len().min(128);
    out[..first].copy_from_slice(&data[..first]);
    if data.len() >= 128 {
        let rem = (data.len() - 128) % 128;
        out[..rem].copy_from_slice(&data[data.len() - rem..]);
    }
}

/// fio's sha256 field (see the module comment).
fn fio_sha256(data: &[u8], out: &mut [u8]) {
    use sha2::digest::generic_array::GenericArray;
    let mut state: [u32; 8] = [
        0x6a09_e667,
        0xbb67_ae85,
        0x3c6e_f372,
        0xa54f_f53a,
        0x510e_527f,
        0x9b05_688c,
        0x1f83_d9ab,
        0x5be0_cd19,
    ];
    let full = data.len() / 64 * 64;
    for c in data[..full].chunks_exact(64) {
        sha2::compress256(
            &mut state,
            std::slice::from_ref(GenericArray::from_slice(c)),
        );
    }
    let rest = &data[full..];
    // fio counts bytes in 32 bits and appends the bit count little-endian.
    let bits = u64::from(data.len() as u32) << 3;
    let mut last = [0u8; 128];
    last[..rest.len()].copy_from_slice(rest);
    last[rest.len()] = 0x80;
    let total = if rest.len() < 56 { 64 } else { 128 };
    last[total - 8..total].copy_from_slice(&bits.to_le_bytes());
    for c in last[..total].chunks_exact(64) {
        sha2::compress256(
            &mut state,
            std::slice::from_ref(GenericArray::from_slice(c)),
        );
    }
    out.copy_from_slice(&last[total - 64..total]);
    for (o, s) in out.iter_mut().zip(state) {
        *o = s as u8;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32c_is_castagnoli_without_final_inversion() {
        // crc32c("123456789") = 0xe3069283; fio keeps it inverted.
        assert_eq!(fio_crc32c(b"123456789"), !0xe306_9283);
    }

    #[test]
    fn sha512_is_the_input_buffer() {
        let data: Vec<u8> = (0..300u32).map(|i| i as u8).collect();
        let mut out = [0u8; 128];
        fio_sha512(&data, &mut out);
        // 300 = 128 + 128 + 44: the last 44 bytes over the first 128.
        assert_eq!(&out[..44], &data[256..]);
        assert_eq!(&out[44..], &data[44..128]);
    }

    #[test]
    fn crc32_is_fio_table() {
        assert_eq!(FIO_CRC32.checksum(b"123456789"), 0x89a1_897f);
    }

    #[test]
    fn sha256_final_block_layout() {
        let mut out = [0u8; 64];
        fio_sha256(b"abc", &mut out);
        // The padded block: data, 0x80, zeros, bit count (24) little-endian.
        assert_eq!(
            &out[8..],
            &{
                let mut b = [0u8; 56];
                b[48] = 24;
                b
            }[..]
        );
        // Only the first 8 bytes depend on the state.
        let mut other = [0u8; 64];
        fio_sha256(b"abd", &mut other);
        assert_ne!(out[..8], other[..8]);
    }
}
