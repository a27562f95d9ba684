//! iperf3's `%lf%c` size and rate dialect and its four-place unit printer:
//! every input is a value or an error, and a printed value parses back to
//! within the printer's rounding.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rbench_common::units::iperf::{
    format_rate, format_transfer, parse_rate, parse_size, unit_string,
};

fuzz_target!(|data: &[u8]| {
    if let Ok(s) = std::str::from_utf8(data) {
        let _ = parse_size(s);
        let _ = parse_rate(s);
    }
    if data.len() < 9 {
        return;
    }
    let value = f64::from_le_bytes(data[..8].try_into().unwrap_or([0; 8]));
    let format =
        ['a', 'A', 'b', 'B', 'k', 'K', 'm', 'M', 'g', 'G', 't', 'T'][usize::from(data[8] % 12)];
    let printed = unit_string(value, format);
    let _ = format_transfer(value);
    let _ = format_rate(value, format);
    if !(0.0..1e30).contains(&value) {
        return;
    }
    // "12.3 MByte" reads back as "12.3M": bytes for upper-case formats
    // (×1024), bits for lower-case ones (×1000).
    let Some((num, label)) = printed.trim_start().split_once(' ') else {
        panic!("no unit label in {printed:?}");
    };
    let compact = format!("{num}{}", label.chars().next().unwrap_or('?'));
    let (parsed, truth) = if format.is_ascii_uppercase() {
        (parse_size(&compact), value)
    } else {
        (parse_rate(&compact), value * 8.0)
    };
    let parsed = parsed.unwrap_or_else(|e| panic!("{printed:?} does not parse back: {e:?}"));
    let shown: f64 = num.parse().unwrap_or_else(|_| panic!("{printed:?}"));
    // What one printed unit is worth ("1M" is 1024² bytes or 10⁶ bits).
    let one = format!("1{}", label.chars().next().unwrap_or('?'));
    let scale = if format.is_ascii_uppercase() {
        parse_size(&one)
    } else {
        parse_rate(&one)
    }
    .unwrap_or_else(|e| panic!("{one:?}: {e:?}"));
    // Half a unit in the last printed place, in bytes or bits.
    let half = if shown < 9.995 {
        0.005
    } else if shown < 99.95 {
        0.05
    } else {
        0.5
    };
    let slack = half * scale * (1.0 + 1e-9) + truth * 1e-12;
    assert!(
        (parsed - truth).abs() <= slack,
        "{value} as {format}: {printed:?} reads back as {parsed}, expected {truth} within {slack}"
    );
});
