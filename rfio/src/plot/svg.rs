//! A small, dependency-free SVG line chart: axes with "nice" ticks (linear,
//! or decades on a log axis), grid, axis labels with units, one
//! polyline per series and a legend. The output is a standalone SVG 1.1
//! document (no scripts, no external references).

use std::fmt::Write;

const W: f64 = 900.0;
const H: f64 = 480.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = W - 230.0;
const TOP: f64 = 50.0;
const BOTTOM: f64 = H - 60.0;

/// Colors of the series, in order (repeated past ten).
const PALETTE: [&str; 10] = [
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
    "#bcbd22", "#17becf",
];

/// One line of a chart.
pub struct Series {
    pub label: String,
    pub points: Vec<(f64, f64)>,
}

/// A chart; values are already in the units the labels name.
pub struct Chart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    /// Log scales (base 10); points at or below 0 on them are left out.
    pub log_x: bool,
    pub log_y: bool,
    pub series: Vec<Series>,
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

/// A step of 1, 2 or 5 times a power of ten giving about `n` intervals.
fn nice_step(range: f64, n: f64) -> f64 {
    let raw = (range / n).max(f64::MIN_POSITIVE);
    let mag = 10f64.powf(raw.log10().floor());
    let f = raw / mag;
    let nice = if f <= 1.0 {
        1.0
    } else if f <= 2.0 {
        2.0
    } else if f <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * mag
}

/// A tick label with as many decimals as the step needs.
fn tick_label(v: f64, step: f64) -> String {
    let decimals = (-step.log10().floor()).clamp(0.0, 6.0) as usize;
    format!("{v:.decimals$}")
}

/// Linear ticks from 0 (or the minimum, when negative) to past `max`.
fn linear_ticks(min: f64, max: f64) -> (f64, f64, Vec<f64>) {
    let lo = min.min(0.0);
    let hi = if max > lo { max } else { lo + 1.0 };
    let step = nice_step(hi - lo, 5.0);
    let lo = (lo / step).floor() * step;
    let hi = (hi / step).ceil() * step;
    let n = ((hi - lo) / step).round() as usize;
    let ticks = (0..=n).map(|i| lo + step * i as f64).collect();
    (lo, hi, ticks)
}

/// One axis: its range (powers of ten on a log axis) and labelled ticks.
struct Axis {
    lo: f64,
    hi: f64,
    log: bool,
    ticks: Vec<(f64, String)>,
}

impl Axis {
    /// An axis over the values `v` (none: a unit range).
    fn new(v: impl Iterator<Item = f64>, log: bool) -> Axis {
        let (min, max) = v.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
            (a.min(x), b.max(x))
        });
        if log {
            let (a, b) = if min.is_finite() {
                let a = min.log10().floor();
                (a, max.log10().ceil().max(a + 1.0))
            } else {
                (0.0, 1.0)
            };
            let ticks = (a as i32..=b as i32)
                .map(|e| {
                    let v = 10f64.powi(e);
                    (v, tick_label(v, v))
                })
                .collect();
            return Axis {
                lo: a,
                hi: b,
                log,
                ticks,
            };
        }
        let (lo, hi, t) = if min.is_finite() {
            linear_ticks(min, max)
        } else {
            linear_ticks(0.0, 1.0)
        };
        let step = t.get(1).map_or(1.0, |s| s - t[0]);
        Axis {
            lo,
            hi,
            log,
            ticks: t.iter().map(|&v| (v, tick_label(v, step))).collect(),
        }
    }

    /// Where `v` sits on the axis, 0 to 1.
    fn frac(&self, v: f64) -> f64 {
        let v = if self.log { v.log10() } else { v };
        (v - self.lo) / (self.hi - self.lo)
    }
}

/// Render the chart as a standalone SVG document.
pub fn render(c: &Chart) -> String {
    let usable = |p: &(f64, f64)| {
        p.0.is_finite() && p.1.is_finite() && (!c.log_x || p.0 > 0.0) && (!c.log_y || p.1 > 0.0)
    };
    let all: Vec<(f64, f64)> = c
        .series
        .iter()
        .flat_map(|s| s.points.iter().copied())
        .filter(usable)
        .collect();
    let x = Axis::new(all.iter().map(|p| p.0), c.log_x);
    let y = Axis::new(all.iter().map(|p| p.1), c.log_y);
    let sx = |v: f64| LEFT + x.frac(v) * (RIGHT - LEFT);
    let sy = |v: f64| BOTTOM - y.frac(v) * (BOTTOM - TOP);

    let mut s = String::with_capacity(16 * 1024);
    let _ = writeln!(
        s,
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" \
         version=\"1.1\" width=\"{W}\" height=\"{H}\" viewBox=\"0 0 {W} {H}\" \
         font-family=\"sans-serif\" font-size=\"12\">"
    );
    let _ = writeln!(s, "<title>{}</title>", escape(&c.title));
    let _ = writeln!(s, "<rect width=\"{W}\" height=\"{H}\" fill=\"white\"/>");
    let _ = writeln!(
        s,
        "<text x=\"{}\" y=\"28\" text-anchor=\"middle\" font-size=\"16\">{}</text>",
        (LEFT + RIGHT) / 2.0,
        escape(&c.title)
    );
    // Grid, axes, tick labels.
    s.push_str("<g class=\"grid\" stroke=\"#e0e0e0\" stroke-width=\"1\">\n");
    for (v, _) in &y.ticks {
        let _ = writeln!(
            s,
            "<line x1=\"{LEFT}\" y1=\"{0:.1}\" x2=\"{RIGHT}\" y2=\"{0:.1}\"/>",
            sy(*v)
        );
    }
    for (v, _) in &x.ticks {
        let _ = writeln!(
            s,
            "<line x1=\"{0:.1}\" y1=\"{TOP}\" x2=\"{0:.1}\" y2=\"{BOTTOM}\"/>",
            sx(*v)
        );
    }
    s.push_str("</g>\n<g class=\"axes\" stroke=\"black\" stroke-width=\"1\">\n");
    let _ = writeln!(
        s,
        "<line x1=\"{LEFT}\" y1=\"{BOTTOM}\" x2=\"{RIGHT}\" y2=\"{BOTTOM}\"/>\n\
         <line x1=\"{LEFT}\" y1=\"{TOP}\" x2=\"{LEFT}\" y2=\"{BOTTOM}\"/>"
    );
    s.push_str("</g>\n<g class=\"ticks\">\n");
    for (v, label) in &y.ticks {
        let _ = writeln!(
            s,
            "<text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            LEFT - 6.0,
            sy(*v) + 4.0,
            escape(label)
        );
    }
    for (v, label) in &x.ticks {
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
            sx(*v),
            BOTTOM + 18.0,
            escape(label)
        );
    }
    s.push_str("</g>\n");
    let _ = writeln!(
        s,
        "<text class=\"x-label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
        (LEFT + RIGHT) / 2.0,
        H - 18.0,
        escape(&c.x_label)
    );
    let _ = writeln!(
        s,
        "<text class=\"y-label\" x=\"0\" y=\"0\" text-anchor=\"middle\" \
         transform=\"translate(20 {}) rotate(-90)\">{}</text>",
        (TOP + BOTTOM) / 2.0,
        escape(&c.y_label)
    );
    if all.is_empty() {
        let _ = writeln!(
            s,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"#888\">no data</text>",
            (LEFT + RIGHT) / 2.0,
            (TOP + BOTTOM) / 2.0
        );
    }
    // Series and legend.
    s.push_str("<g class=\"data\" fill=\"none\" stroke-width=\"1.5\">\n");
    for (i, se) in c.series.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        let mut pts = String::new();
        for p in se.points.iter().filter(|p| usable(p)) {
            let _ = write!(pts, "{:.1},{:.1} ", sx(p.0), sy(p.1));
        }
        let _ = writeln!(
            s,
            "<polyline class=\"series\" stroke=\"{color}\" points=\"{}\"><title>{}</title></polyline>",
            pts.trim_end(),
            escape(&se.label)
        );
        if se.points.len() == 1 && usable(&se.points[0]) {
            let _ = writeln!(
                s,
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"{color}\" stroke=\"none\"/>",
                sx(se.points[0].0),
                sy(se.points[0].1)
            );
        }
    }
    s.push_str("</g>\n<g class=\"legend\">\n");
    for (i, se) in c.series.iter().enumerate().take(24) {
        let y = TOP + 8.0 + 18.0 * i as f64;
        let color = PALETTE[i % PALETTE.len()];
        let _ = writeln!(
            s,
            "<line x1=\"{0}\" y1=\"{y}\" x2=\"{1}\" y2=\"{y}\" stroke=\"{color}\" stroke-width=\"3\"/>\
             <text x=\"{2}\" y=\"{3}\">{4}</text>",
            RIGHT + 15.0,
            RIGHT + 35.0,
            RIGHT + 40.0,
            y + 4.0,
            escape(&se.label)
        );
    }
    if c.series.len() > 24 {
        let _ = writeln!(
            s,
            "<text x=\"{}\" y=\"{}\">… {} more</text>",
            RIGHT + 15.0,
            TOP + 8.0 + 18.0 * 24.0,
            c.series.len() - 24
        );
    }
    s.push_str("</g>\n</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_are_one_two_or_five_times_a_power_of_ten() {
        assert_eq!(nice_step(100.0, 5.0), 20.0);
        assert_eq!(nice_step(7.0, 5.0), 2.0);
        assert_eq!(nice_step(0.3, 5.0), 0.1);
        let (lo, hi, t) = linear_ticks(0.0, 93.0);
        assert_eq!((lo, hi, t.len()), (0.0, 100.0, 6));
    }

    #[test]
    fn labels_are_escaped_and_every_point_is_drawn() {
        let c = Chart {
            title: "a <b> & \"c\"".into(),
            x_label: "time (s)".into(),
            y_label: "MiB/s".into(),
            log_x: false,
            log_y: false,
            series: vec![Series {
                label: "job<1>".into(),
                points: vec![(0.1, 1.0), (0.2, 2.0), (0.3, f64::NAN)],
            }],
        };
        let svg = render(&c);
        assert!(svg.contains("a &lt;b&gt; &amp; &quot;c&quot;"));
        assert!(!svg.contains("job<1>"));
        let pts = svg
            .split("points=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap();
        assert_eq!(pts.split(' ').count(), 2);
    }
}
