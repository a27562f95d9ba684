//! fio's client/server mode (`--server`, `--client`, issue 16).
//!
//! - `protocol/`: the wire format alone (frames, CRC16, command numbers,
//!   payload layouts); no sockets, no running. Uses nothing else in rfio.
//! - `server.rs`: `--server`: sockets, the job's parse and run, the report
//!   sent as frames. Uses protocol, app, job, run, result, report.
//! - `tsconv.rs`: rfio's measurements as fio's TS and GS payloads.

// Decoders of what only a server sends wait for `--client` (next step).
#![allow(dead_code, unused_imports)]

pub mod protocol;
pub mod server;
mod tsconv;
