//! What the sysbench comparisons share: the header line unified (each
//! tool names its own LuaJIT) and a report's layout with numbers masked.

use crate::mask_numbers;

/// The header line with the LuaJIT flavour and version unified: ours is
/// `using bundled LuaJIT 2.1.<n>`, Debian's `using system LuaJIT 2.1.0-beta3`.
pub fn unify_header(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for l in s.split_inclusive('\n') {
        match (l.find("(using "), l.find("LuaJIT ")) {
            (Some(a), Some(b)) if l.starts_with("sysbench ") && a < b => {
                let close = l[b..].find(')').map_or(l.len(), |i| b + i);
                out.push_str(&l[..a]);
                out.push_str("(using LuaJIT V");
                out.push_str(&l[close..]);
            }
            _ => out.push_str(l),
        }
    }
    out
}

/// The layout of an output: header unified, numbers masked and the padding
/// before a number collapsed (its width depends on the value).
pub fn layout(s: &str) -> String {
    let masked = mask_numbers(&unify_header(s));
    let mut out = String::with_capacity(masked.len());
    let mut spaces = 0;
    for c in masked.chars() {
        if c == ' ' {
            spaces += 1;
            continue;
        }
        if spaces > 0 {
            let n = if c == 'N' { 1 } else { spaces };
            out.extend(std::iter::repeat_n(' ', n));
            spaces = 0;
        }
        out.push(c);
    }
    out
}
