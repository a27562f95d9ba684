//! UDP data (spec §3.2): the 4-byte hello and its reply, and the datagram
//! header: seconds, microseconds (sender's CLOCK_MONOTONIC) and a 32- or
//! 64-bit sequence number, all big-endian.

/// What the client sends to open a UDP stream ("9876").
pub const HELLO: [u8; 4] = *b"9876";
/// What the server answers ("6789").
pub const REPLY: [u8; 4] = *b"6789";
/// The legacy reply of old servers (0xb168de3a as a native int).
pub const LEGACY_REPLY: [u8; 4] = [0xb1, 0x68, 0xde, 0x3a];

/// A datagram header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UdpHeader {
    pub sec: u32,
    pub usec: u32,
    pub seq: u64,
}

/// Header size for the counter width.
pub const fn header_len(counters_64bit: bool) -> usize {
    if counters_64bit {
        16
    } else {
        12
    }
}

impl UdpHeader {
    /// Write the header into the front of `buf` (at least `header_len` bytes).
    /// Returns `false` (writing nothing) when `buf` is too short.
    #[inline]
    pub fn encode(&self, buf: &mut [u8], counters_64bit: bool) -> bool {
        if buf.len() < header_len(counters_64bit) {
            return false;
        }
        buf[0..4].copy_from_slice(&self.sec.to_be_bytes());
        buf[4..8].copy_from_slice(&self.usec.to_be_bytes());
        if counters_64bit {
            buf[8..16].copy_from_slice(&self.seq.to_be_bytes());
        } else {
            buf[8..12].copy_from_slice(&(self.seq as u32).to_be_bytes());
        }
        true
    }

    /// Read a header, or `None` when the datagram is too short to hold one.
    #[inline]
    pub fn decode(buf: &[u8], counters_64bit: bool) -> Option<UdpHeader> {
        if buf.len() < header_len(counters_64bit) {
            return None;
        }
        let u32_at = |i: usize| u32::from_be_bytes([buf[i], buf[i + 1], buf[i + 2], buf[i + 3]]);
        let seq = if counters_64bit {
            let mut b = [0u8; 8];
            b.copy_from_slice(&buf[8..16]);
            u64::from_be_bytes(b)
        } else {
            u32_at(8) as u64
        };
        Some(UdpHeader {
            sec: u32_at(0),
            usec: u32_at(4),
            seq,
        })
    }

    /// The send time in seconds.
    pub fn time_secs(&self) -> f64 {
        self.sec as f64 + self.usec as f64 / 1e6
    }
}

/// Whether a reply datagram is a server's UDP hello answer.
pub fn is_reply(b: &[u8]) -> bool {
    b == REPLY || b == LEGACY_REPLY
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn decodes_captured_datagram() {
        // reference/iperf3/hexdump_udp.txt, datagram #2
        let b = [
            0x00, 0x00, 0x02, 0x47, 0x00, 0x08, 0x3e, 0x0d, 0x00, 0x00, 0x00, 0x01, 0x01,
        ];
        let h = UdpHeader::decode(&b, false).unwrap();
        assert_eq!(
            h,
            UdpHeader {
                sec: 583,
                usec: 540173,
                seq: 1
            }
        );
        let mut out = [0u8; 12];
        assert!(h.encode(&mut out, false));
        assert_eq!(out, b[..12]);
        assert!(UdpHeader::decode(&b[..11], false).is_none());
        assert!(UdpHeader::decode(&b, true).is_none());
    }

    proptest! {
        #[test]
        fn round_trip(sec: u32, usec: u32, seq: u64, wide: bool) {
            let h = UdpHeader { sec, usec, seq: if wide { seq } else { seq as u32 as u64 } };
            let mut buf = [0u8; 64];
            prop_assert!(h.encode(&mut buf, wide));
            prop_assert_eq!(UdpHeader::decode(&buf, wide), Some(h));
        }

        #[test]
        fn never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..40), wide: bool) {
            let _ = UdpHeader::decode(&bytes, wide);
            let _ = is_reply(&bytes);
        }
    }
}
