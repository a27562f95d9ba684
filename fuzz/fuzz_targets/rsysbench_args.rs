//! rsysbench's two-pass command line: NUL-separated arguments are read as
//! far as rsysbench reads them before measuring (general settings, every
//! test's options, every typed value), giving a value or sysbench's error
//! text, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let args: Vec<String> = data
        .split(|b| *b == 0)
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect();
    if let Err(text) = rsysbench::check_command_line(&args) {
        assert!(!text.is_empty(), "{args:?}");
    }
});
