//! fio's client/server protocol as rfio decodes it: the input is a byte
//! stream from a peer (frames with CRC16s, fragments) and, the same bytes,
//! each payload layout (probe, job file, command line, text, TS with its
//! trailing offsets, GS, ETA, IOLOG and its zlib data); every decoder gives
//! a value or an error, never a panic, and never inflates past its bound.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    rfio::decode_remote(data);
});
