//! The iperf3 control and data protocol, pure: encode and decode only, no
//! sockets, so every decoder can be fed arbitrary bytes (spec §2, §3.2).

pub mod cjson;
pub mod cookie;
pub mod errors;
pub mod framing;
pub mod params;
pub mod results;
pub mod state;
pub mod udp;

pub use cookie::{Cookie, COOKIE_SIZE};
pub use params::{Protocol, TestParams};
pub use results::{PeerResults, StreamResults};
pub use state::State;
