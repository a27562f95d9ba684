//! A small, dependency-free SVG line chart: axes with "nice" ticks (linear,
//! or decades for a log x axis), grid, axis labels with units, one
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
    /// Log scale (base 10) on x; points with x <= 0 are left out.
    pub log_x: bool,
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

/// Render the chart as a standalone SVG document.
pub fn render(c: &Chart) -> String {
    let usable = |p: &(f64, f64)| p.0.is_finite() && p.1.is_finite() && (!c.log_x || p.0 > 0.0);
    let all: Vec<(f64, f64)> = c
        .series
        .iter()
        .flat_map(|s| s.points.iter().copied())
        .filter(usable)
        .collect();
    let fold = |f: fn(&(f64, f64)) -> f64, init: f64, pick: fn(f64, f64) -> f64| {
        all.iter().map(f).fold(init, pick)
    };
    let (xmin, xmax) = (
        fold(|p| p.0, f64::INFINITY, f64::min),
        fold(|p| p.0, f64::NEG_INFINITY, f64::max),
    );
    let (ymin, ymax) = (
        fold(|p| p.1, f64::INFINITY, f64::min),
        fold(|p| p.1, f64::NEG_INFINITY, f64::max),
    );
    let (ylo, yhi, yticks) = if all.is_empty() {
        linear_ticks(0.0, 1.0)
    } else {
        linear_ticks(ymin, ymax)
    };
    // x: decades on a log axis, else linear from 0.
    let (xlo, xhi, xticks): (f64, f64, Vec<(f64, String)>) = if c.log_x {
        let (a, b) = if all.is_empty() {
            (0.0, 1.0)
        } else {
            (
                xmin.log10().floor(),
                xmax.log10().ceil().max(xmin.log10().floor() + 1.0),
            )
        };
        let ticks = (a as i32..=b as i32)
            .map(|e| (f64::from(e), tick_label(10f64.powi(e), 10f64.powi(e))))
            .collect();
        (a, b, ticks)
    } else {
        let (lo, hi, t) = if all.is_empty() {
            linear_ticks(0.0, 1.0)
        } else {
            linear_ticks(xmin.min(0.0), xmax)
        };
        let step = t.get(1).map_or(1.0, |s| s - t[0]);
        (
            lo,
            hi,
            t.iter().map(|&v| (v, tick_label(v, step))).collect(),
        )
    };
    let sx = |x: f64| {
        let x = if c.log_x { x.log10() } else { x };
        LEFT + (x - xlo) / (xhi - xlo) * (RIGHT - LEFT)
    };
    let sy = |y: f64| BOTTOM - (y - ylo) / (yhi - ylo) * (BOTTOM - TOP);

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
    // Grid and ticks.
    s.push_str("<g class=\"grid\" stroke=\"#e0e0e0\" stroke-width=\"1\">\n");
    for &y in &yticks {
        let _ = writeln!(
            s,
            "<line x1=\"{LEFT}\" y1=\"{0:.1}\" x2=\"{RIGHT}\" y2=\"{0:.1}\"/>",
            sy(y)
        );
    }
    for (x, _) in &xticks {
        let px = if c.log_x {
            LEFT + (x - xlo) / (xhi - xlo) * (RIGHT - LEFT)
        } else {
            sx(*x)
        };
        let _ = writeln!(
            s,
            "<line x1=\"{px:.1}\" y1=\"{TOP}\" x2=\"{px:.1}\" y2=\"{BOTTOM}\"/>"
        );
    }
    s.push_str("</g>\n<g class=\"axes\" stroke=\"black\" stroke-width=\"1\">\n");
    let _ = writeln!(
        s,
        "<line x1=\"{LEFT}\" y1=\"{BOTTOM}\" x2=\"{RIGHT}\" y2=\"{BOTTOM}\"/>\n\
         <line x1=\"{LEFT}\" y1=\"{TOP}\" x2=\"{LEFT}\" y2=\"{BOTTOM}\"/>"
    );
    s.push_str("</g>\n<g class=\"ticks\">\n");
    let ystep = yticks.get(1).map_or(1.0, |v| v - yticks[0]);
    for &y in &yticks {
        let _ = writeln!(
            s,
            "<text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            LEFT - 6.0,
            sy(y) + 4.0,
            tick_label(y, ystep)
        );
    }
    for (x, label) in &xticks {
        let px = if c.log_x {
            LEFT + (x - xlo) / (xhi - xlo) * (RIGHT - LEFT)
        } else {
            sx(*x)
        };
        let _ = writeln!(
            s,
            "<text x=\"{px:.1}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
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
