//! mbw's `strtoul` reading and rmbw's stricter array size: every input is
//! a value or an error; an accepted size prints back to itself and fits in
//! bytes; `%.Nf` output is glibc's and reads back within half a unit in the
//! last place.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rbench_common::units::mbw::{elements, format_c_fixed, mib_to_bytes, parse_size_mib, strtoul};

fuzz_target!(|data: &[u8]| {
    if let Ok(s) = std::str::from_utf8(data) {
        let p = strtoul(s);
        assert!(s.ends_with(p.rest), "{s:?}");
        if let Ok(mib) = parse_size_mib(s) {
            assert!(mib >= 1, "{s:?}");
            assert_eq!(parse_size_mib(&mib.to_string()).ok(), Some(mib), "{s:?}");
            assert!(mib_to_bytes(mib).is_ok() && elements(mib).is_ok(), "{s:?}");
        }
    }
    if data.len() >= 9 {
        let x = f64::from_le_bytes(data[..8].try_into().unwrap_or([0; 8]));
        let prec = usize::from(data[8] % 18);
        let s = format_c_fixed(x, prec);
        // mbw prints with C's %.*f: glibc is the oracle, NaN signs included.
        assert_eq!(s, c_printf(prec, x), "{x:e} at precision {prec}");
        if x.is_finite() {
            let back: f64 = s.parse().unwrap_or_else(|_| panic!("{x} prints as {s:?}"));
            let half = 0.5 * 10f64.powi(-(prec as i32));
            assert!(
                (back - x).abs() <= half * (1.0 + 1e-9) + x.abs() * 1e-15,
                "{x} prints as {s:?}"
            );
        }
    }
});

fn c_printf(prec: usize, x: f64) -> String {
    // %.17f of 1e308 is 326 characters.
    let mut buf = [0u8; 400];
    // SAFETY: the format takes one int and one double; snprintf writes at
    // most buf.len() bytes, NUL included.
    let n = unsafe {
        libc::snprintf(
            buf.as_mut_ptr().cast(),
            buf.len(),
            c"%.*f".as_ptr(),
            prec as libc::c_int,
            x,
        )
    };
    String::from_utf8_lossy(&buf[..(n.max(0) as usize).min(buf.len() - 1)]).into_owned()
}
