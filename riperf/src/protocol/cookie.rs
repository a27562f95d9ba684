//! The 37-byte cookie that opens the control connection and every TCP data
//! connection (spec §2.1): 36 characters from a base32 alphabet and a NUL.

use std::fmt;

/// Bytes on the wire, NUL included.
pub const COOKIE_SIZE: usize = 37;

const ALPHABET: &[u8; 32] = b"abcdefghijklmnopqrstuvwxyz234567";

/// A test's cookie. Compared as opaque bytes: pre-3.2 peers used another form.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Cookie([u8; COOKIE_SIZE]);

impl Cookie {
    /// A fresh random cookie.
    pub fn random() -> Self {
        let mut raw = [0u8; COOKIE_SIZE - 1];
        fill_random(&mut raw);
        let mut c = [0u8; COOKIE_SIZE];
        for (dst, r) in c.iter_mut().zip(raw) {
            *dst = ALPHABET[(r % 32) as usize];
        }
        Cookie(c)
    }

    /// The cookie as received: exactly 37 bytes. Anything is accepted (the
    /// server compares cookies, it does not validate them), but the text form
    /// stops at the first NUL.
    pub fn from_wire(b: [u8; COOKIE_SIZE]) -> Self {
        Cookie(b)
    }

    pub fn as_bytes(&self) -> &[u8; COOKIE_SIZE] {
        &self.0
    }

    /// The printable part (up to the first NUL), lossily decoded.
    pub fn text(&self) -> String {
        let end = self.0.iter().position(|&b| b == 0).unwrap_or(COOKIE_SIZE);
        String::from_utf8_lossy(&self.0[..end]).into_owned()
    }
}

impl fmt::Debug for Cookie {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Cookie({})", self.text())
    }
}

/// Fill `buf` with random bytes from the kernel.
pub fn fill_random(buf: &mut [u8]) {
    let mut done = 0;
    while done < buf.len() {
        // SAFETY: the pointer and length describe the unfilled tail of `buf`.
        let n = unsafe {
            libc::getrandom(
                buf[done..].as_mut_ptr() as *mut libc::c_void,
                buf.len() - done,
                0,
            )
        };
        if n <= 0 {
            // getrandom cannot fail on a supported kernel; fall back to a
            // clock-seeded xorshift so a cookie is still produced.
            let mut x = rbench_common::clock::now_ns() | 1;
            for b in &mut buf[done..] {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                *b = x as u8;
            }
            return;
        }
        done += n as usize;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_cookie_has_iperf_shape() {
        let c = Cookie::random();
        let b = c.as_bytes();
        assert_eq!(b[36], 0);
        assert!(b[..36].iter().all(|x| ALPHABET.contains(x)));
        assert_eq!(c.text().len(), 36);
        assert_ne!(c, Cookie::random());
    }

    #[test]
    fn wire_cookie_text_stops_at_nul() {
        let mut b = [b'x'; COOKIE_SIZE];
        b[3] = 0;
        assert_eq!(Cookie::from_wire(b).text(), "xxx");
        assert_eq!(
            Cookie::from_wire([0xff; COOKIE_SIZE])
                .text()
                .chars()
                .count(),
            37
        );
    }
}
