//! Data integrity's building blocks (`verify=`): fio 3.33's block header
//! ([`header`]), its checksums ([`checksum`]) and the verify and buffer
//! patterns ([`pattern`]); plain functions over bytes, so that a block
//! written by fio verifies in rfio and the other way round. The settings
//! are job/verify.rs, the verify pass of a running job run/verify/.

pub mod checksum;
pub mod header;
pub mod pattern;

/// Verify types, numbered as fio 3.33 numbers them in the header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Meta = 1,
    Md5 = 2,
    Crc64 = 3,
    Crc32 = 4,
    Crc32c = 5,
    Crc16 = 7,
    Crc7 = 8,
    Sha256 = 9,
    Sha512 = 10,
    Sha3_224 = 11,
    Sha3_256 = 12,
    Sha3_384 = 13,
    Sha3_512 = 14,
    Xxhash = 15,
    Sha1 = 16,
    /// Header plus pattern (`verify_pattern` without `verify`).
    Pattern = 17,
    /// `verify=pattern`: the pattern alone, no header.
    PatternNoHdr = 18,
    Null = 19,
}

impl Kind {
    pub fn from_word(w: &str) -> Option<Kind> {
        Some(match w {
            "md5" => Kind::Md5,
            "crc64" => Kind::Crc64,
            "crc16" => Kind::Crc16,
            "crc7" => Kind::Crc7,
            "sha512" => Kind::Sha512,
            "sha3-224" => Kind::Sha3_224,
            "sha3-256" => Kind::Sha3_256,
            "sha3-384" => Kind::Sha3_384,
            "sha3-512" => Kind::Sha3_512,
            "crc32" => Kind::Crc32,
            "crc32c" | "crc32c-intel" => Kind::Crc32c,
            "sha1" => Kind::Sha1,
            "sha256" => Kind::Sha256,
            "xxhash" => Kind::Xxhash,
            "meta" => Kind::Meta,
            "pattern" => Kind::PatternNoHdr,
            "null" => Kind::Null,
            _ => return None,
        })
    }

    /// fio's name in failure messages.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Md5 => "md5",
            Kind::Crc64 => "crc64",
            Kind::Crc16 => "crc16",
            Kind::Crc7 => "crc7",
            Kind::Sha512 => "sha512",
            Kind::Sha3_224 => "sha3-224",
            Kind::Sha3_256 => "sha3-256",
            Kind::Sha3_384 => "sha3-384",
            Kind::Sha3_512 => "sha3-512",
            Kind::Crc32 => "crc32",
            Kind::Crc32c => "crc32c",
            Kind::Sha1 => "sha1",
            Kind::Sha256 => "sha256",
            Kind::Xxhash => "xxhash",
            Kind::Meta => "meta",
            Kind::Pattern | Kind::PatternNoHdr => "pattern",
            Kind::Null => "null",
        }
    }

    pub fn trailer_len(self) -> usize {
        match self {
            Kind::Md5 => 16,
            Kind::Crc64 => 8,
            Kind::Crc16 => 2,
            Kind::Crc7 => 1,
            Kind::Sha512 => 128,
            Kind::Sha3_224 => 28,
            Kind::Sha3_256 => 32,
            Kind::Sha3_384 => 48,
            Kind::Sha3_512 => 64,
            Kind::Crc32 | Kind::Crc32c | Kind::Xxhash => 4,
            Kind::Sha1 => 20,
            Kind::Sha256 => 64,
            Kind::Meta | Kind::Pattern | Kind::PatternNoHdr | Kind::Null => 0,
        }
    }

    /// Header plus trailer (fio's hdr_size); no header for `pattern`.
    pub fn hdr_size(self) -> usize {
        match self {
            Kind::PatternNoHdr | Kind::Null => 0,
            k => header::LEN + k.trailer_len(),
        }
    }
}
