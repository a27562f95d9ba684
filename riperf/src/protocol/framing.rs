//! Length-prefixed JSON messages (spec §2.3): `u32be length` then exactly
//! `length` bytes of JSON. 3.12 trusted the length (CVE-2023-38403); we
//! reject 0 and anything over the caller's cap before allocating.

use serde_json::Value;
use std::fmt;

/// Cap for the parameter JSON, as iperf3 3.18+.
pub const MAX_PARAMS_LEN: u32 = 8 * 1024;
/// Cap for results JSON (it carries the server's whole output with
/// `--get-server-output`, so it is larger, but still bounded).
pub const MAX_RESULTS_LEN: u32 = 64 * 1024 * 1024;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FrameError {
    /// The announced length is 0 or above the cap.
    BadLength(u32),
    /// The body is not JSON, or not a JSON object.
    BadJson(String),
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FrameError::BadLength(n) => write!(f, "invalid JSON message length {n}"),
            FrameError::BadJson(e) => write!(f, "invalid JSON message: {e}"),
        }
    }
}

impl std::error::Error for FrameError {}

/// The 4-byte prefix for a body of `len` bytes.
pub fn length_prefix(len: usize) -> [u8; 4] {
    (len as u32).to_be_bytes()
}

/// The body length announced by a prefix, checked against `max`.
pub fn decode_length(prefix: [u8; 4], max: u32) -> Result<usize, FrameError> {
    let n = u32::from_be_bytes(prefix);
    if n == 0 || n > max {
        return Err(FrameError::BadLength(n));
    }
    Ok(n as usize)
}

/// Parse a body into a JSON object.
pub fn decode_body(body: &[u8]) -> Result<Value, FrameError> {
    let v: Value = serde_json::from_slice(body).map_err(|e| FrameError::BadJson(e.to_string()))?;
    if !v.is_object() {
        return Err(FrameError::BadJson("not a JSON object".into()));
    }
    Ok(v)
}

/// A whole message (prefix and body) for a JSON value, in cJSON's compact form.
pub fn encode(v: &Value) -> Vec<u8> {
    let body = super::cjson::to_compact(v);
    let mut out = Vec::with_capacity(4 + body.len());
    out.extend_from_slice(&length_prefix(body.len()));
    out.extend_from_slice(body.as_bytes());
    out
}

/// Decode one whole message from a buffer: `Ok(None)` when more bytes are
/// needed, else the value and the bytes consumed.
pub fn decode(buf: &[u8], max: u32) -> Result<Option<(Value, usize)>, FrameError> {
    if buf.len() < 4 {
        return Ok(None);
    }
    let n = decode_length([buf[0], buf[1], buf[2], buf[3]], max)?;
    if buf.len() < 4 + n {
        return Ok(None);
    }
    Ok(Some((decode_body(&buf[4..4 + n])?, 4 + n)))
}

/// The server's whole reading of a client's parameter message from raw
/// bytes: length, JSON, parameter types. `Ok(None)` when more bytes are
/// needed. This is what the fuzz target drives.
pub fn decode_params_message(buf: &[u8]) -> Result<Option<(super::TestParams, usize)>, FrameError> {
    Ok(decode(buf, MAX_PARAMS_LEN)?.map(|(v, n)| (super::TestParams::from_json(&v), n)))
}

/// The client's reading of a server's results message from raw bytes.
pub fn decode_results_message(
    buf: &[u8],
) -> Result<Option<(super::PeerResults, usize)>, FrameError> {
    match decode(buf, MAX_RESULTS_LEN)? {
        None => Ok(None),
        Some((v, n)) => super::PeerResults::from_json(&v)
            .map(|r| Some((r, n)))
            .map_err(|e| FrameError::BadJson(e.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn round_trip() {
        let v = json!({"tcp": true, "omit": 0});
        let bytes = encode(&v);
        assert_eq!(&bytes[..4], &[0, 0, 0, 21]);
        assert_eq!(decode(&bytes, MAX_PARAMS_LEN).unwrap(), Some((v, 25)));
        assert_eq!(decode(&bytes[..10], MAX_PARAMS_LEN).unwrap(), None);
    }

    #[test]
    fn hostile_lengths_and_bodies() {
        assert_eq!(
            decode_length([0, 0, 0, 0], 8192),
            Err(FrameError::BadLength(0))
        );
        assert_eq!(
            decode_length([0xff; 4], 8192),
            Err(FrameError::BadLength(u32::MAX))
        );
        assert!(decode_body(b"not json").is_err());
        assert!(decode_body(b"[1,2]").is_err());
        let deep = "[".repeat(100_000);
        assert!(decode_body(deep.as_bytes()).is_err());
    }

    proptest! {
        #[test]
        fn never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
            let _ = decode(&bytes, MAX_PARAMS_LEN);
            let _ = decode_params_message(&bytes);
            let _ = decode_results_message(&bytes);
        }

        #[test]
        fn never_panics_on_framed_json_like_text(s in "[{}\\[\\]\":,a-z0-9 .eE+-]{0,300}") {
            let mut b = (s.len() as u32).to_be_bytes().to_vec();
            b.extend_from_slice(s.as_bytes());
            let _ = decode_params_message(&b);
            let _ = decode_results_message(&b);
        }
    }
}
