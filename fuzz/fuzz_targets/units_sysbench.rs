//! sysbench's size dialect and `%.5g` printer: every input is a value or an
//! error; a value that prints exactly (n·1024^k, n < 1024) parses back;
//! `%.Ng` output is glibc's.
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
        let prec = usize::from(data[8] % 20);
        let g = format_g(x, prec);
        // sysbench prints with C's %.*g: glibc is the oracle.
        assert_eq!(g, c_printf(c"%.*g", prec, x), "{x:e} at precision {prec}");
        let _ = format_size(u64::from_le_bytes(data[..8].try_into().unwrap_or([0; 8])));
    }
});

fn c_printf(fmt: &std::ffi::CStr, prec: usize, x: f64) -> String {
    let mut buf = [0u8; 512];
    // SAFETY: the format takes one int and one double; snprintf writes at
    // most buf.len() bytes, NUL included.
    let n = unsafe {
        libc::snprintf(
            buf.as_mut_ptr().cast(),
            buf.len(),
            fmt.as_ptr(),
            prec as libc::c_int,
            x,
        )
    };
    String::from_utf8_lossy(&buf[..(n.max(0) as usize).min(buf.len() - 1)]).into_owned()
}
