//! fio's client/server mode (`--server`, `--client`, issue 16).
//!
//! - `protocol/`: the wire format alone (frames, CRC16, command numbers,
//!   payload layouts); no sockets, no running. Uses nothing else in rfio.

// The server and client (next steps) use the rest of the protocol.
#![allow(dead_code, unused_imports)]

pub mod protocol;
