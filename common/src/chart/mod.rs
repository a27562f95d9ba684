//! Small, dependency-free SVG charts: a line chart (rfio's `--plot`, the
//! CPU scaling curve of bench-all's page) and a horizontal bar chart
//! (bench-all's disk, memory and network results). Axes have "nice" ticks
//! (linear, or decades on a log axis), labels carry the units the caller
//! names, and no two labels overlap: tick labels are thinned when they would
//! touch, long names are shortened with "…" (the full text stays in a
//! `<title>` tooltip), and margins grow to fit the widest label.
//!
//! Output is plain SVG 1.1 (no scripts, no external references), usable as a
//! standalone file ([`render`]) or inline in HTML ([`line::svg`],
//! [`bar::svg`]). Colors are presentation attributes (light theme), and
//! every themable part carries a class (`bg`, `grid`, `axes`, `muted`,
//! `c0`..`c9` on each series) so a page's CSS can restyle them, e.g. for
//! `prefers-color-scheme: dark`. Series draw in `currentColor`, set per
//! series by its `cN` group's `color`.

mod axis;
pub mod bar;
pub mod line;

pub use bar::{BarChart, Bars};
pub use line::{render, Chart, Series};

/// Colors of the series, in order (repeated past ten).
pub const PALETTE: [&str; 10] = [
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
    "#bcbd22", "#17becf",
];

/// The `<g>` opening tag that colors series `i`: its class (for a page's
/// CSS) and its light-theme color.
fn series_group(i: usize) -> String {
    format!(
        "<g class=\"c{}\" color=\"{}\">",
        i % PALETTE.len(),
        PALETTE[i % PALETTE.len()]
    )
}

/// Text for an SVG text node or attribute.
pub fn escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&apos;"),
            // Control characters are not allowed in XML 1.0.
            c if (c as u32) < 0x20 && c != '\n' && c != '\t' => o.push(' '),
            c => o.push(c),
        }
    }
    o
}

/// A generous estimate of the width of `s` in a sans-serif font of `size`
/// px: wide enough that labels laid out with it never touch.
pub fn text_width(s: &str, size: f64) -> f64 {
    s.chars()
        .map(|c| match c {
            'i' | 'j' | 'l' | '.' | ',' | ':' | ';' | '\'' | '|' | '!' | ' ' => 0.33,
            'm' | 'w' | 'M' | 'W' | '%' | '@' => 0.92,
            c if c.is_ascii_uppercase() => 0.72,
            _ => 0.6,
        })
        .sum::<f64>()
        * size
}

/// `s`, shortened with "…" to fit `width` px at `size` px.
pub fn fit(s: &str, width: f64, size: f64) -> String {
    if text_width(s, size) <= width {
        return s.to_string();
    }
    let mut out = String::new();
    for c in s.chars() {
        out.push(c);
        if text_width(&out, size) + 0.6 * size > width {
            out.pop();
            break;
        }
    }
    out.truncate(out.trim_end().len());
    out.push('…');
    out
}

/// A `<text>` element: `fitted` shown, the full `full` as its tooltip when
/// it had to be shortened.
fn text_el(attrs: &str, full: &str, fitted: &str) -> String {
    if full == fitted {
        format!("<text {attrs}>{}</text>", escape(full))
    } else {
        format!(
            "<text {attrs}><title>{}</title>{}</text>",
            escape(full),
            escape(fitted)
        )
    }
}

/// The unit (name, size) to show values up to `max` in: the largest of
/// `units` (ascending) that `max` reaches, else the first.
pub fn unit(max: f64, units: &[(&'static str, f64)]) -> (&'static str, f64) {
    let mut pick = units[0];
    for &u in units {
        if max >= u.1 {
            pick = u;
        }
    }
    pick
}

/// A number for a bar's end or a tooltip: three significant digits, no
/// exponent.
pub fn short_number(v: f64) -> String {
    let a = v.abs();
    if a >= 100.0 || a == 0.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else {
        let decimals = (2.0 - a.log10().floor()).clamp(2.0, 9.0) as usize;
        format!("{v:.decimals$}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_text_is_shortened_to_fit() {
        assert_eq!(fit("read-4k", 200.0, 12.0), "read-4k");
        let f = fit("a very long series name that cannot fit", 100.0, 12.0);
        assert!(f.ends_with('…') && text_width(&f, 12.0) <= 100.0, "{f}");
    }

    #[test]
    fn the_unit_is_the_largest_the_maximum_reaches() {
        let units = [("B/s", 1.0), ("KiB/s", 1024.0), ("MiB/s", 1048576.0)];
        assert_eq!(unit(10.0, &units).0, "B/s");
        assert_eq!(unit(2048.0, &units).0, "KiB/s");
        assert_eq!(unit(0.0, &units).0, "B/s");
    }

    #[test]
    fn short_numbers_keep_three_digits() {
        assert_eq!(short_number(123456.7), "123457");
        assert_eq!(short_number(12.345), "12.3");
        assert_eq!(short_number(1.2345), "1.23");
        assert_eq!(short_number(0.012345), "0.0123");
        assert_eq!(short_number(0.0), "0");
    }
}
