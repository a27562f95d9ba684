//! fio's pattern syntax (`verify_pattern`, `buffer_pattern`): a
//! concatenation of `0x` hex bytes (written order), `"strings"`, decimal
//! numbers (their bytes, least significant first), `'file'` contents and,
//! for verify_pattern only, `%o` (the block's offset, 8 bytes
//! little-endian). At most 512 bytes, as in fio.

const MAX: usize = 512;

/// A parsed pattern: its bytes and where `%o` is pasted.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Pattern {
    pub bytes: Vec<u8>,
    pub offsets_at: Vec<usize>,
}

impl Pattern {
    /// Parse `s`; `formats`: whether `%o` is allowed. `None`: fio refuses it
    /// (`failed parsing`).
    pub fn parse(s: &str, formats: bool) -> Option<Pattern> {
        let mut p = Pattern::default();
        let mut rest = s.trim();
        if rest.is_empty() {
            return None;
        }
        while !rest.is_empty() {
            let room = MAX - p.bytes.len();
            if room == 0 {
                return None;
            }
            if let Some(r) = rest.strip_prefix('"') {
                let end = r.find('"')?;
                if end > room {
                    return None;
                }
                p.bytes.extend_from_slice(&r.as_bytes()[..end]);
                rest = &r[end + 1..];
            } else if let Some(r) = rest.strip_prefix('\'') {
                let end = r.find('\'')?;
                // At most what fits, as fio's read(fd, out, out_len).
                let mut data = Vec::with_capacity(room);
                let file = std::fs::File::open(&r[..end]).ok()?;
                std::io::Read::read_to_end(&mut std::io::Read::take(file, room as u64), &mut data)
                    .ok()?;
                p.bytes.extend_from_slice(&data);
                rest = &r[end + 1..];
            } else if let Some(r) = rest.strip_prefix("%o") {
                if !formats || room < 8 {
                    return None;
                }
                p.offsets_at.push(p.bytes.len());
                p.bytes.extend_from_slice(&[0; 8]);
                rest = r;
            } else if rest.len() > 2
                && (rest.starts_with("0x") || rest.starts_with("0X"))
                && rest.as_bytes()[2].is_ascii_hexdigit()
            {
                let body = &rest[2..];
                let mut n = body.bytes().take_while(u8::is_ascii_hexdigit).count();
                // `0xff0x14`: the 0 of the next `0x` is not a digit of this one.
                if body[n..].starts_with(['x', 'X']) {
                    n -= 1;
                }
                let digits = &body[..n];
                // An odd count reads its first digit alone, as fio does.
                let (first, pairs) = digits.split_at(n % 2);
                if !first.is_empty() {
                    p.bytes.push(u8::from_str_radix(first, 16).ok()?);
                }
                for i in (0..pairs.len()).step_by(2) {
                    p.bytes.push(u8::from_str_radix(&pairs[i..i + 2], 16).ok()?);
                }
                if p.bytes.len() > MAX {
                    return None;
                }
                rest = &body[n..];
            } else {
                let n = rest
                    .char_indices()
                    .take_while(|&(i, c)| c.is_ascii_digit() || (i == 0 && c == '-'))
                    .count();
                let mut end = n;
                // `12340x55`: the decimal stops where the next `0x` starts.
                if end > 1 && rest[end..].starts_with(['x', 'X']) {
                    end -= 1;
                }
                let v: i64 = rest[..end].parse().ok()?;
                if v > i64::from(i32::MAX) || v < i64::from(i32::MIN) {
                    return None;
                }
                let mut v = v as i32 as u32;
                if v == 0 {
                    p.bytes.push(0);
                }
                while v != 0 {
                    p.bytes.push(v as u8);
                    v >>= 8;
                }
                if p.bytes.len() > MAX {
                    return None;
                }
                rest = &rest[end..];
            }
        }
        (!p.bytes.is_empty()).then_some(p)
    }

    /// Copy the pattern over `out`, repeated, with `%o` = `offset` in every
    /// repetition (fio pastes once, then duplicates). No allocation: this
    /// runs for every verified write.
    pub fn fill(&self, out: &mut [u8], offset: u64) {
        let le = offset.to_le_bytes();
        for chunk in out.chunks_mut(self.bytes.len()) {
            let n = chunk.len();
            chunk.copy_from_slice(&self.bytes[..n]);
            for &at in &self.offsets_at {
                if at < n {
                    let m = (n - at).min(8);
                    chunk[at..at + m].copy_from_slice(&le[..m]);
                }
            }
        }
    }

    /// The pattern with `%o` = `offset` pasted in place.
    pub fn paste(&self, bytes: &mut [u8], offset: u64) {
        for &at in &self.offsets_at {
            bytes[at..at + 8].copy_from_slice(&offset.to_le_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Any text: a pattern or a refusal, never a panic, never past 512.
        #[test]
        fn any_text_parses_or_is_refused(s in "\\PC{0,40}", t in "[0-9a-fA-Fx\"%o-]{0,40}") {
            for text in [&s, &t] {
                if let Some(p) = Pattern::parse(text, true) {
                    prop_assert!(!p.bytes.is_empty() && p.bytes.len() <= MAX);
                }
            }
        }
    }

    #[test]
    fn file_contents_are_capped() {
        let p = Pattern::parse("'/dev/zero'", false).unwrap();
        assert_eq!(p.bytes.len(), MAX);
    }

    fn bytes(s: &str) -> Vec<u8> {
        Pattern::parse(s, true).unwrap().bytes
    }

    #[test]
    fn fio_syntax() {
        assert_eq!(bytes("0xdeadbeef"), [0xde, 0xad, 0xbe, 0xef]);
        assert_eq!(bytes("0xabc"), [0x0a, 0xbc]);
        assert_eq!(bytes("0xff0x14"), [0xff, 0x14]);
        assert_eq!(bytes("\"abc\""), b"abc");
        assert_eq!(bytes("258"), [2, 1]);
        assert_eq!(bytes("0"), [0]);
        assert_eq!(bytes("\"ab\"0x01"), [b'a', b'b', 1]);
        assert_eq!(bytes("10x01"), [1, 1]);
        let p = Pattern::parse("0x01%o", true).unwrap();
        assert_eq!(p.offsets_at, [1]);
        let mut out = [0u8; 12];
        p.fill(&mut out, 0x0102);
        assert_eq!(out, [1, 2, 1, 0, 0, 0, 0, 0, 0, 1, 2, 1]);
        assert!(Pattern::parse("%o", false).is_none());
        assert!(Pattern::parse("zz", true).is_none());
        assert!(Pattern::parse("\"abc", true).is_none());
        // 511 bytes of string, then a 2-byte number: past 512.
        let long = format!("\"{}\"258", "a".repeat(511));
        assert!(Pattern::parse(&long, true).is_none());
    }
}
