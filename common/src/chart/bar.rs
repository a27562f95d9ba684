//! The horizontal bar chart: one row of bars per category (a test, a
//! kernel), one bar per series in each row (p50/p95/p99, sender/receiver),
//! the value at each bar's end, an optional note under each category's name
//! (the limit a disk test hit) and a legend under the title. Horizontal, so
//! category names of any length sit on one line beside their bars.

use super::axis::Axis;
use super::{escape, fit, series_group, short_number, text_el, text_width};
use std::fmt::Write;

const W: f64 = 900.0;
const FONT: f64 = 12.0;
const SMALL: f64 = 11.0;
/// Height of one bar's slot, and the space between two categories.
const BAR: f64 = 18.0;
const GAP: f64 = 12.0;

/// One series: a value per category (None: not measured).
pub struct Bars {
    pub label: String,
    pub values: Vec<Option<f64>>,
}

/// A bar chart; values are already in the units `value_label` names.
pub struct BarChart {
    pub title: String,
    /// The value axis' label, with its unit.
    pub value_label: String,
    /// A log value axis (base 10): for values decades apart.
    pub log: bool,
    pub categories: Vec<String>,
    /// A second line under a category's name; empty or missing: none.
    pub notes: Vec<String>,
    pub series: Vec<Bars>,
}

/// Where the chart's parts go: the value axis, the plot's edges, the
/// height of one category's row, and the legend's entries (x, row, label).
struct Layout {
    axis: Axis,
    left: f64,
    right: f64,
    top: f64,
    bottom: f64,
    h: f64,
    group: f64,
    nser: f64,
    legend: Vec<(f64, usize, String)>,
}

impl Layout {
    /// The x of value `v`.
    fn sx(&self, v: f64) -> f64 {
        self.left + self.axis.frac(v) * (self.right - self.left)
    }
}

impl BarChart {
    /// Whether `v` can be drawn (finite; above 0 on a log axis).
    fn usable(&self, v: f64) -> bool {
        v.is_finite() && (!self.log || v > 0.0)
    }

    /// The drawable values of all series.
    fn values(&self) -> impl Iterator<Item = f64> + '_ {
        self.series
            .iter()
            .flat_map(|s| s.values.iter().flatten().copied())
            .filter(|&v| self.usable(v))
    }

    /// Category `i`'s note ("" for none).
    fn note(&self, i: usize) -> &str {
        self.notes.get(i).map_or("", String::as_str)
    }
}

/// The chart as an `<svg>` element, for a file or inline in HTML.
pub fn svg(c: &BarChart) -> String {
    let l = layout(c);
    let mut s = String::with_capacity(8 * 1024);
    head(&mut s, c, l.h);
    legend(&mut s, &l.legend);
    value_axis(&mut s, c, &l);
    // Names (and notes) beside their rows, then the bars.
    categories(&mut s, c, &l);
    s.push_str("</g>\n<g class=\"data\">\n");
    for (si, se) in c.series.iter().enumerate() {
        series_bars(&mut s, c, &l, si, se);
    }
    let (left, right, top, bottom) = (l.left, l.right, l.top, l.bottom);
    let _ = writeln!(
        s,
        "</g>\n<g class=\"axes\" stroke=\"black\" stroke-width=\"1\">\n\
         <line x1=\"{left}\" y1=\"{bottom}\" x2=\"{right}\" y2=\"{bottom}\"/>\n\
         <line x1=\"{left}\" y1=\"{top}\" x2=\"{left}\" y2=\"{bottom}\"/>\n</g>\n</svg>"
    );
    s
}

/// Size the chart: the axis over the values, the margins for names and
/// values, the legend's rows, and the rows of bars.
fn layout(c: &BarChart) -> Layout {
    // A log axis reaches a decade below the smallest value, so that its bar
    // shows: bars start at the axis' low end.
    let floor = c.values().fold(f64::INFINITY, f64::min) / 10.0;
    let axis = Axis::new(c.values().chain(c.log.then_some(floor)), c.log);
    let has_notes = (0..c.categories.len()).any(|i| !c.note(i).is_empty());

    // Left: the widest name or note; right: the widest value at a bar's end.
    let names = c
        .categories
        .iter()
        .enumerate()
        .map(|(i, n)| text_width(n, FONT).max(text_width(c.note(i), SMALL)))
        .fold(0.0, f64::max);
    let left = (names + 20.0).clamp(80.0, 320.0).round();
    let ends = c
        .values()
        .map(|v| text_width(&short_number(v), SMALL))
        .fold(0.0, f64::max);
    let right = W - (ends + 14.0).max(40.0).round();

    let (legend, rows) = legend_entries(c, left);
    let top = if legend.is_empty() {
        46.0
    } else {
        46.0 + 18.0 * rows as f64 + 4.0
    };
    let nser = c.series.len().max(1) as f64;
    let group = (nser * BAR + GAP).max(if has_notes { 36.0 } else { 0.0 });
    let bottom = top + group * c.categories.len().max(1) as f64;
    Layout {
        axis,
        left,
        right,
        top,
        bottom,
        h: bottom + 56.0,
        group,
        nser,
        legend,
    }
}

/// The legend: entries left to right from `left`, wrapping; none for one
/// series. The entries and the number of rows they take.
fn legend_entries(c: &BarChart, left: f64) -> (Vec<(f64, usize, String)>, usize) {
    let mut legend = Vec::new();
    let (mut lx, mut row) = (left, 0usize);
    if c.series.len() > 1 {
        for se in &c.series {
            let label = fit(&se.label, W - left - 40.0, FONT);
            let w = 16.0 + text_width(&label, FONT) + 20.0;
            if lx + w > W - 10.0 && lx > left {
                lx = left;
                row += 1;
            }
            legend.push((lx, row, label));
            lx += w;
        }
    }
    (legend, row + 1)
}

/// The `<svg>` opening, title and background, `h` high.
fn head(s: &mut String, c: &BarChart, h: f64) {
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" version=\"1.1\" \
         width=\"{W}\" height=\"{h}\" viewBox=\"0 0 {W} {h}\" \
         font-family=\"sans-serif\" font-size=\"{FONT}\">"
    );
    let _ = writeln!(s, "<title>{}</title>", escape(&c.title));
    let _ = writeln!(
        s,
        "<rect class=\"bg\" width=\"{W}\" height=\"{h}\" fill=\"white\"/>"
    );
    let _ = writeln!(
        s,
        "{}",
        text_el(
            &format!(
                "class=\"title\" x=\"{}\" y=\"28\" text-anchor=\"middle\" font-size=\"16\"",
                W / 2.0
            ),
            &c.title,
            &fit(&c.title, W - 20.0, 16.0)
        )
    );
}

/// The legend's swatches and labels.
fn legend(s: &mut String, legend: &[(f64, usize, String)]) {
    s.push_str("<g class=\"legend\">\n");
    for (i, (x, row, label)) in legend.iter().enumerate() {
        let y = 46.0 + 18.0 * *row as f64;
        let _ = writeln!(
            s,
            "{}<rect x=\"{x}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"currentColor\"/></g>\
             <text x=\"{}\" y=\"{}\">{}</text>",
            series_group(i),
            y,
            x + 16.0,
            y + 10.5,
            escape(label)
        );
    }
}

/// The value axis: grid lines, tick labels that fit, and its label.
fn value_axis(s: &mut String, c: &BarChart, l: &Layout) {
    let (top, bottom) = (l.top, l.bottom);
    s.push_str("</g>\n<g class=\"grid\" stroke=\"#e0e0e0\" stroke-width=\"1\">\n");
    for (v, _) in &l.axis.ticks {
        let _ = writeln!(
            s,
            "<line x1=\"{0:.1}\" y1=\"{top}\" x2=\"{0:.1}\" y2=\"{bottom}\"/>",
            l.sx(*v)
        );
    }
    s.push_str("</g>\n<g class=\"ticks\">\n");
    let shown = l.axis.labelled(l.right - l.left, |t| text_width(t, FONT));
    for (_, (v, label)) in l.axis.ticks.iter().enumerate().filter(|(i, _)| shown(*i)) {
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
            l.sx(*v),
            bottom + 18.0,
            escape(label)
        );
    }
    s.push_str("</g>\n");
    let _ = writeln!(
        s,
        "{}",
        text_el(
            &format!(
                "class=\"x-label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\"",
                (l.left + l.right) / 2.0,
                bottom + 40.0
            ),
            &c.value_label,
            &fit(&c.value_label, W - 20.0, FONT)
        )
    );
}

/// Each category's name, and its note under it, beside its row.
fn categories(s: &mut String, c: &BarChart, l: &Layout) {
    let left = l.left;
    s.push_str("<g class=\"categories\" text-anchor=\"end\">\n");
    for (i, name) in c.categories.iter().enumerate() {
        let mid = l.top + l.group * (i as f64 + 0.5);
        let n = c.note(i);
        let y = if n.is_empty() { mid + 4.0 } else { mid - 2.0 };
        let _ = writeln!(
            s,
            "{}",
            text_el(
                &format!("x=\"{}\" y=\"{y:.1}\"", left - 8.0),
                name,
                &fit(name, left - 16.0, FONT)
            )
        );
        if !n.is_empty() {
            let _ = writeln!(
                s,
                "{}",
                text_el(
                    &format!(
                        "class=\"muted\" x=\"{}\" y=\"{:.1}\" font-size=\"{SMALL}\" fill=\"#555\"",
                        left - 8.0,
                        mid + 12.0
                    ),
                    n,
                    &fit(n, left - 16.0, SMALL)
                )
            );
        }
    }
}

/// Series `si`'s bar in each category, its value at its end (`n/a` for
/// none).
fn series_bars(s: &mut String, c: &BarChart, l: &Layout, si: usize, se: &Bars) {
    let (top, group, nser) = (l.top, l.group, l.nser);
    let start = l.axis.start();
    s.push_str(&series_group(si));
    for (i, name) in c.categories.iter().enumerate() {
        let y = top + group * i as f64 + (group - nser * BAR) / 2.0 + BAR * si as f64;
        let v = se.values.get(i).copied().flatten();
        let Some(v) = v.filter(|&v| c.usable(v)) else {
            let _ = write!(
                s,
                "<text class=\"muted\" x=\"{}\" y=\"{:.1}\" font-size=\"{SMALL}\" fill=\"#555\">n/a</text>",
                l.left + 4.0,
                y + BAR / 2.0 + 2.5
            );
            continue;
        };
        let (x0, x1) = (l.sx(start), l.sx(v.max(start)));
        let _ = write!(
            s,
            "<rect class=\"bar\" x=\"{x0:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{}\" \
             fill=\"currentColor\"><title>{}</title></rect>\
             <text class=\"value\" x=\"{:.1}\" y=\"{:.1}\" font-size=\"{SMALL}\">{}</text>",
            y + 1.5,
            (x1 - x0).max(1.0),
            BAR - 3.0,
            escape(&format!("{name}, {}: {}", se.label, short_number(v))),
            x1 + 4.0,
            y + BAR / 2.0 + 2.5,
            short_number(v)
        );
    }
    s.push_str("</g>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart(log: bool) -> BarChart {
        BarChart {
            title: "clat".into(),
            value_label: "completion latency (µs)".into(),
            log,
            categories: vec!["randread-4k".into(), "read-1M & more".into()],
            notes: vec!["limit: IOPS".into()],
            series: vec![
                Bars {
                    label: "p50".into(),
                    values: vec![Some(40.0), Some(2000.0)],
                },
                Bars {
                    label: "p99".into(),
                    values: vec![Some(90.0), None],
                },
            ],
        }
    }

    #[test]
    fn a_bar_per_value_and_its_number_at_the_end() {
        let svg = svg(&chart(false));
        assert_eq!(svg.matches("<rect class=\"bar\"").count(), 3);
        assert!(svg.contains(">2000</text>") && svg.contains(">n/a</text>"));
        assert!(svg.contains("read-1M &amp; more") && svg.contains("limit: IOPS"));
        // A legend entry per series.
        let legend = svg.split("<g class=\"legend\">").nth(1).unwrap();
        assert_eq!(
            legend
                .split("</g>\n")
                .next()
                .unwrap()
                .matches("<text")
                .count(),
            2
        );
    }

    #[test]
    fn a_log_axis_starts_at_a_decade_below_the_smallest_value() {
        let svg = svg(&chart(true));
        let ticks = svg.split("<g class=\"ticks\">").nth(1).unwrap();
        // 40 to 2000: from 1 (a decade below 10) to 10000.
        assert!(ticks.contains(">1</text>") && ticks.contains(">10000</text>"));
        assert!(!ticks.contains(">0</text>") && !ticks.contains(">0.1</text>"));
    }
}
