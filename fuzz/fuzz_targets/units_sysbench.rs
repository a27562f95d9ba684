//! sysbench's size dialect and `%.5g` printer: every input is a value or an
//! error; a value that prints exactly (n·1024^k, n < 1024) parses back.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rbench_common::units::sysbench::{format_g, format_size, parse_size};

fuzz_target!(|data: &[u8]| {
    if let Ok(s) = std::str::from_utf8(data) {
        if let Ok(v) = parse_size(s) {
            assert_eq!(parse_size(&v.to_string()).ok(), Some(v), "{s:?}");
            let exact = (0..5).any(|k| v >> (10 * k) < 1024 && (v >> (10 * k)) << (10 * k) == v);
            if exact {
                assert_eq!(
                    parse_size(&format_size(v)).ok(),
                    Some(v),
                    "{s:?} -> {}",
                    format_size(v)
                );
            }
        }
    }
    if data.len() >= 9 {
        let x = f64::from_le_bytes(data[..8].try_into().unwrap_or([0; 8]));
        let g = format_g(x, usize::from(data[8] % 20));
        if x.is_finite() {
            let back: f64 = g.parse().unwrap_or_else(|_| panic!("{x} prints as {g:?}"));
            assert!(back.is_finite(), "{x} prints as {g:?}");
        }
        let _ = format_size(u64::from_le_bytes(data[..8].try_into().unwrap_or([0; 8])));
    }
});
