//! `riperf`: an iperf3 3.12 drop-in. The library holds every layer so the
//! protocol decoders can be fuzzed and tested on their own; `main.rs` only
//! parses the command line and hands over to the client or the server.
//!
//! Layers: `protocol` (pure encode/decode), `options` (the option table),
//! `stream` (one thread per data stream; plain TCP senders past one per CPU share one per CPU), `measure` (sampling into plain
//! data), `report` (text, JSON, CSV views), `ctrl`/`net` (sockets),
//! `session`, `client`, `server` (the two control loops).

pub mod client;
pub mod completions;
pub mod ctrl;
pub mod measure;
pub mod net;
pub mod options;
pub mod protocol;
pub mod report;
pub mod server;
pub mod session;
pub mod stream;
