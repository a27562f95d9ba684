//! Feed arbitrary bytes to the decoders a riperf server and client run on
//! control-connection input: parameters, results, cookies, state bytes and
//! UDP headers. Any panic is a bug.
#![no_main]

use libfuzzer_sys::fuzz_target;
use riperf::protocol::{framing, udp::UdpHeader, Cookie, State, COOKIE_SIZE};

fuzz_target!(|data: &[u8]| {
    let _ = framing::decode_params_message(data);
    let _ = framing::decode_results_message(data);
    if data.len() >= COOKIE_SIZE {
        let mut c = [0u8; COOKIE_SIZE];
        c.copy_from_slice(&data[..COOKIE_SIZE]);
        let _ = Cookie::from_wire(c).text();
    }
    for &b in data.iter().take(16) {
        let _ = State::from_byte(b);
    }
    let _ = UdpHeader::decode(data, false);
    let _ = UdpHeader::decode(data, true);
});
