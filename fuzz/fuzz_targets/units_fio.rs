//! fio's size, percent, range, time and percentile dialect: every input is
//! a value or an error; a parsed size prints back to the same value; sizes
//! and times with a suffix scale exactly; `num2str` never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rbench_common::units::fio::{
    dual, num2str, parse_percentile_list, parse_size, parse_size_or_percent, parse_size_range,
    parse_time_us, N2sUnit, TimeUnit,
};

fuzz_target!(|data: &[u8]| {
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    for kb_base in [1000, 1024] {
        if let Ok(v) = parse_size(s, kb_base) {
            assert_eq!(parse_size(&v.to_string(), kb_base).ok(), Some(v), "{s:?}");
            // A kilo suffix multiplies by kb_base exactly, or overflows.
            if let Ok(k) = parse_size(&format!("{v}k"), kb_base) {
                assert_eq!(Some(k), v.checked_mul(kb_base), "{s:?}");
            }
        }
        let _ = parse_size_or_percent(s, kb_base);
        if let Ok((lo, hi)) = parse_size_range(s, kb_base) {
            assert!(lo <= hi, "{s:?}");
        }
    }
    for unit in [TimeUnit::Seconds, TimeUnit::Millis, TimeUnit::Micros] {
        if let Ok(us) = parse_time_us(s, unit) {
            assert_eq!(
                parse_time_us(&format!("{us}us"), unit).ok(),
                Some(us),
                "{s:?}"
            );
        }
    }
    if let Ok((list, _prec)) = parse_percentile_list(s) {
        assert!(!list.is_empty() && list.len() <= 20, "{s:?}");
        assert!(list.iter().all(|p| *p > 0.0 && *p <= 100.0), "{s:?}");
        assert!(list.windows(2).all(|w| w[0] <= w[1]), "{s:?}");
    }
    // The formatter over raw numbers taken from the input.
    if data.len() >= 10 {
        let num = u64::from_le_bytes(data[..8].try_into().unwrap_or([0; 8]));
        let maxlen = usize::from(data[8] % 12) + 1;
        let base = [1, 1000, 1024, 1_000_000][usize::from(data[9] % 4)];
        let units = [
            N2sUnit::None,
            N2sUnit::PerSec,
            N2sUnit::Byte,
            N2sUnit::Bit,
            N2sUnit::BytePerSec,
            N2sUnit::BitPerSec,
        ];
        let unit = units[usize::from(data[9] / 4) % units.len()];
        let _ = num2str(num, maxlen, base, data[9] & 0x80 != 0, unit);
        let _ = dual(num, maxlen, [1000, 1024][usize::from(data[8] & 1)], unit);
    }
});
