//! The control connection: state bytes and length-prefixed JSON over a TCP
//! stream, every read bounded in time (unlike 3.12, CVE-2023-7250).

use crate::protocol::framing::{self, FrameError};
use crate::protocol::State;
use serde_json::Value;
use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::os::fd::AsRawFd;
use std::time::Duration;

/// Why a control exchange failed.
#[derive(Debug)]
pub enum CtrlError {
    /// The peer closed the connection.
    Closed,
    /// Nothing arrived in time.
    Timeout,
    Io(io::Error),
    Frame(FrameError),
    /// A byte that is not a known state.
    UnknownState(u8),
}

impl std::fmt::Display for CtrlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CtrlError::Closed => f.write_str("control socket has closed unexpectedly"),
            CtrlError::Timeout => f.write_str("timeout on the control connection"),
            CtrlError::Io(e) => write!(f, "{e}"),
            CtrlError::Frame(e) => write!(f, "{e}"),
            CtrlError::UnknownState(b) => write!(f, "received an unknown control message ({b})"),
        }
    }
}

pub struct Ctrl {
    pub stream: TcpStream,
}

impl Ctrl {
    pub fn new(stream: TcpStream) -> Ctrl {
        let _ = stream.set_nodelay(true);
        Ctrl { stream }
    }

    pub fn fd(&self) -> i32 {
        self.stream.as_raw_fd()
    }

    pub fn send_state(&mut self, s: State) -> io::Result<()> {
        self.stream.write_all(&[s.to_byte()])
    }

    /// Read exactly `buf.len()` bytes within `timeout` (per read).
    pub fn read_exact(&mut self, buf: &mut [u8], timeout: Duration) -> Result<(), CtrlError> {
        self.stream
            .set_read_timeout(Some(timeout))
            .map_err(CtrlError::Io)?;
        let mut got = 0;
        while got < buf.len() {
            match self.stream.read(&mut buf[got..]) {
                Ok(0) => return Err(CtrlError::Closed),
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e)
                    if e.kind() == io::ErrorKind::WouldBlock
                        || e.kind() == io::ErrorKind::TimedOut =>
                {
                    return Err(CtrlError::Timeout)
                }
                Err(e) if e.kind() == io::ErrorKind::ConnectionReset => {
                    return Err(CtrlError::Closed)
                }
                Err(e) => return Err(CtrlError::Io(e)),
            }
        }
        Ok(())
    }

    /// Read one state byte (raw, so the caller can report unknown values).
    pub fn read_byte(&mut self, timeout: Duration) -> Result<u8, CtrlError> {
        let mut b = [0u8; 1];
        self.read_exact(&mut b, timeout)?;
        Ok(b[0])
    }

    pub fn read_state(&mut self, timeout: Duration) -> Result<State, CtrlError> {
        let b = self.read_byte(timeout)?;
        State::from_byte(b).ok_or(CtrlError::UnknownState(b))
    }

    /// Write one JSON message: the length and the body as two writes, like iperf3.
    pub fn send_json(&mut self, v: &Value) -> io::Result<()> {
        let body = crate::protocol::cjson::to_compact(v);
        self.stream.write_all(&framing::length_prefix(body.len()))?;
        self.stream.write_all(body.as_bytes())
    }

    /// Read one JSON message of at most `max` bytes. The buffer grows with
    /// what actually arrives, so a huge announced length costs nothing.
    pub fn read_json(&mut self, max: u32, timeout: Duration) -> Result<Value, CtrlError> {
        let mut pfx = [0u8; 4];
        self.read_exact(&mut pfx, timeout)?;
        let n = framing::decode_length(pfx, max).map_err(CtrlError::Frame)?;
        let mut body = Vec::with_capacity(n.min(64 * 1024));
        let mut chunk = [0u8; 16 * 1024];
        while body.len() < n {
            let want = (n - body.len()).min(chunk.len());
            self.read_exact(&mut chunk[..want], timeout)?;
            body.extend_from_slice(&chunk[..want]);
        }
        framing::decode_body(&body).map_err(CtrlError::Frame)
    }
}
