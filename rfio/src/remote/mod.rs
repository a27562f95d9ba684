//! fio's client/server mode (`--server`, `--client`, issue 16).
//!
//! - `protocol/`: the wire format alone (frames, CRC16, command numbers,
//!   payload layouts); no sockets, no running. Uses nothing else in rfio.
//! - `server.rs`: `--server`: sockets, the job's parse and run, the report
//!   sent as frames. Uses protocol, app, job, run, result, report.
//! - `client.rs`: `--client`: connects, sends jobs, prints what servers send.
//! - `hosts.rs`: the `--client` command line: hosts, their job files, options.
//! - `policy.rs`: what `--server-allow-*`/`--server-no-exec` let a client do.
//! - `daemon.rs`: `--daemonize=PIDFILE`: fio's backgrounded server.
//! - `cluster.rs`: rfio's exact cluster-wide percentiles of `All clients`.
//! - `view.rs`: a server's TS and GS payloads as rfio's report types.
//! - `tsconv.rs`: rfio's measurements as fio's TS and GS payloads.

// Some decoders (IOLOG, ADD_JOB) serve only the fuzz target and tests.
#![allow(dead_code, unused_imports)]

pub mod client;
mod cluster;
pub mod daemon;
pub mod hosts;
pub mod policy;
pub mod protocol;
pub mod server;
mod tsconv;
mod view;
