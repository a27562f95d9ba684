//! The line chart: grid, axes with labelled ticks, an axis label with units
//! on each side, one polyline per series (a dot on each point of a short one)
//! and a legend on the right.

use super::axis::Axis;
use super::{escape, fit, series_group, text_el, text_width};
use std::fmt::Write;

const W: f64 = 900.0;
const H: f64 = 480.0;
const RIGHT: f64 = W - 230.0;
const TOP: f64 = 50.0;
const BOTTOM: f64 = H - 60.0;
const FONT: f64 = 12.0;
/// Series of at most this many points get a dot on each.
const MARKED: usize = 16;
/// Legend entries shown (as many as fit above the x axis label, 18 px
/// each); the rest are counted on the line after.
const LEGEND_MAX: usize = 22;

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

/// The chart as a standalone SVG document.
pub fn render(c: &Chart) -> String {
    format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n{}", svg(c))
}

/// Where the chart's parts go: the two axes and the plot's left edge
/// (the others are fixed).
struct Layout {
    x: Axis,
    y: Axis,
    left: f64,
}

impl Layout {
    /// The x of value `v`.
    fn sx(&self, v: f64) -> f64 {
        self.left + self.x.frac(v) * (RIGHT - self.left)
    }

    /// The y of value `v`.
    fn sy(&self, v: f64) -> f64 {
        BOTTOM - self.y.frac(v) * (BOTTOM - TOP)
    }
}

impl Chart {
    /// Whether point `p` can be drawn (finite; above 0 on a log axis).
    fn usable(&self, p: &(f64, f64)) -> bool {
        p.0.is_finite()
            && p.1.is_finite()
            && (!self.log_x || p.0 > 0.0)
            && (!self.log_y || p.1 > 0.0)
    }
}

/// The chart as an `<svg>` element, for a file or inline in HTML.
pub fn svg(c: &Chart) -> String {
    let all: Vec<(f64, f64)> = c
        .series
        .iter()
        .flat_map(|s| s.points.iter().copied())
        .filter(|p| c.usable(p))
        .collect();
    let l = layout(c, &all);
    let mut s = String::with_capacity(16 * 1024);
    head(&mut s, c);
    grid_and_axes(&mut s, &l);
    axis_labels(&mut s, c, &l);
    if all.is_empty() {
        let _ = writeln!(
            s,
            "<text class=\"muted\" x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"#888\">no data</text>",
            (l.left + RIGHT) / 2.0,
            (TOP + BOTTOM) / 2.0
        );
    }
    // Series and legend.
    s.push_str("<g class=\"data\" fill=\"none\" stroke-width=\"1.5\">\n");
    for (i, se) in c.series.iter().enumerate() {
        series_line(&mut s, c, &l, i, se);
    }
    legend(&mut s, c);
    s.push_str("</g>\n</svg>\n");
    s
}

/// The axes over the drawable points `all`, and room for the widest y
/// tick label between the y axis label and the axis.
fn layout(c: &Chart, all: &[(f64, f64)]) -> Layout {
    let x = Axis::new(all.iter().map(|p| p.0), c.log_x);
    let y = Axis::new(all.iter().map(|p| p.1), c.log_y);
    let widest = y
        .ticks
        .iter()
        .map(|t| text_width(&t.1, FONT))
        .fold(0.0, f64::max);
    let left = (26.0 + 12.0 + widest).max(80.0).round();
    Layout { x, y, left }
}

/// The `<svg>` opening, title and background.
fn head(s: &mut String, c: &Chart) {
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" version=\"1.1\" \
         width=\"{W}\" height=\"{H}\" viewBox=\"0 0 {W} {H}\" \
         font-family=\"sans-serif\" font-size=\"{FONT}\">"
    );
    let _ = writeln!(s, "<title>{}</title>", escape(&c.title));
    let _ = writeln!(
        s,
        "<rect class=\"bg\" width=\"{W}\" height=\"{H}\" fill=\"white\"/>"
    );
    let title = fit(&c.title, W - 20.0, 16.0);
    let _ = writeln!(
        s,
        "{}",
        text_el(
            &format!(
                "class=\"title\" x=\"{}\" y=\"28\" text-anchor=\"middle\" font-size=\"16\"",
                W / 2.0
            ),
            &c.title,
            &title
        )
    );
}

/// Grid, axes, tick labels.
fn grid_and_axes(s: &mut String, l: &Layout) {
    let left = l.left;
    s.push_str("<g class=\"grid\" stroke=\"#e0e0e0\" stroke-width=\"1\">\n");
    for (v, _) in &l.y.ticks {
        let _ = writeln!(
            s,
            "<line x1=\"{left}\" y1=\"{0:.1}\" x2=\"{RIGHT}\" y2=\"{0:.1}\"/>",
            l.sy(*v)
        );
    }
    for (v, _) in &l.x.ticks {
        let _ = writeln!(
            s,
            "<line x1=\"{0:.1}\" y1=\"{TOP}\" x2=\"{0:.1}\" y2=\"{BOTTOM}\"/>",
            l.sx(*v)
        );
    }
    s.push_str("</g>\n<g class=\"axes\" stroke=\"black\" stroke-width=\"1\">\n");
    let _ = writeln!(
        s,
        "<line x1=\"{left}\" y1=\"{BOTTOM}\" x2=\"{RIGHT}\" y2=\"{BOTTOM}\"/>\n\
         <line x1=\"{left}\" y1=\"{TOP}\" x2=\"{left}\" y2=\"{BOTTOM}\"/>"
    );
    s.push_str("</g>\n<g class=\"ticks\">\n");
    let y_shown = l.y.labelled(BOTTOM - TOP, |_| FONT);
    for (_, (v, label)) in l.y.ticks.iter().enumerate().filter(|(i, _)| y_shown(*i)) {
        let _ = writeln!(
            s,
            "<text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            left - 6.0,
            l.sy(*v) + 4.0,
            escape(label)
        );
    }
    let x_shown = l.x.labelled(RIGHT - left, |t| text_width(t, FONT));
    for (_, (v, label)) in l.x.ticks.iter().enumerate().filter(|(i, _)| x_shown(*i)) {
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
            l.sx(*v),
            BOTTOM + 18.0,
            escape(label)
        );
    }
    s.push_str("</g>\n");
}

/// The axis labels, with their units: under the x axis, up the y axis.
fn axis_labels(s: &mut String, c: &Chart, l: &Layout) {
    let x_label = fit(&c.x_label, RIGHT - l.left, FONT);
    let _ = writeln!(
        s,
        "{}",
        text_el(
            &format!(
                "class=\"x-label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\"",
                (l.left + RIGHT) / 2.0,
                H - 18.0
            ),
            &c.x_label,
            &x_label
        )
    );
    let y_label = fit(&c.y_label, BOTTOM - TOP + 40.0, FONT);
    let _ = writeln!(
        s,
        "{}",
        text_el(
            &format!(
                "class=\"y-label\" x=\"0\" y=\"0\" text-anchor=\"middle\" \
                 transform=\"translate(20 {}) rotate(-90)\"",
                (TOP + BOTTOM) / 2.0
            ),
            &c.y_label,
            &y_label
        )
    );
}

/// Series `i`'s polyline over its drawable points.
fn series_line(s: &mut String, c: &Chart, l: &Layout, i: usize, se: &Series) {
    let mut pts = String::new();
    for p in se.points.iter().filter(|p| c.usable(p)) {
        let _ = write!(pts, "{:.1},{:.1} ", l.sx(p.0), l.sy(p.1));
    }
    let _ = write!(
        s,
        "{}<polyline class=\"series\" stroke=\"currentColor\" points=\"{}\"><title>{}</title></polyline>",
        series_group(i),
        pts.trim_end(),
        escape(&se.label)
    );
    // A dot on each point of a short series (a lone point, the steps of
    // a scaling curve): where the measurements are.
    if se.points.len() <= MARKED {
        for p in se.points.iter().filter(|p| c.usable(p)) {
            let _ = write!(
                s,
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"currentColor\" stroke=\"none\"/>",
                l.sx(p.0),
                l.sy(p.1)
            );
        }
    }
    s.push_str("</g>\n");
}

/// The legend on the right: the first LEGEND_MAX series, then how many
/// more there are.
fn legend(s: &mut String, c: &Chart) {
    s.push_str("</g>\n<g class=\"legend\">\n");
    let room = W - (RIGHT + 40.0) - 6.0;
    for (i, se) in c.series.iter().enumerate().take(LEGEND_MAX) {
        let y = TOP + 8.0 + 18.0 * i as f64;
        // The swatch in the series' color; the label in the text color.
        let _ = writeln!(
            s,
            "{}<line x1=\"{}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\" stroke=\"currentColor\" \
             stroke-width=\"3\"/></g>{}",
            series_group(i),
            RIGHT + 15.0,
            RIGHT + 35.0,
            text_el(
                &format!("x=\"{}\" y=\"{}\"", RIGHT + 40.0, y + 4.0),
                &se.label,
                &fit(&se.label, room, FONT)
            )
        );
    }
    if c.series.len() > LEGEND_MAX {
        let _ = writeln!(
            s,
            "<text x=\"{}\" y=\"{}\">… {} more</text>",
            RIGHT + 15.0,
            TOP + 8.0 + 18.0 * LEGEND_MAX as f64,
            c.series.len() - LEGEND_MAX
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart(series: Vec<Series>) -> Chart {
        Chart {
            title: "a <b> & \"c\"".into(),
            x_label: "time (s)".into(),
            y_label: "MiB/s".into(),
            log_x: false,
            log_y: false,
            series,
        }
    }

    #[test]
    fn labels_are_escaped_and_every_point_is_drawn() {
        let svg = render(&chart(vec![Series {
            label: "job<1>".into(),
            points: vec![(0.1, 1.0), (0.2, 2.0), (0.3, f64::NAN)],
        }]));
        assert!(svg.starts_with("<?xml"));
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

    #[test]
    fn wide_tick_labels_widen_the_margin_and_long_names_are_shortened() {
        let long = "a series name far too long for the legend column".to_string();
        let svg = svg(&chart(vec![Series {
            label: long.clone(),
            points: vec![(0.0, 0.0), (1.0, 123_456_789.0)],
        }]));
        assert!(!svg.starts_with("<?xml"));
        // The y axis moved right of the default 80 px for "120000000".
        let axis = svg.split("<g class=\"axes\"").nth(1).unwrap();
        let x1: f64 = axis
            .split("x1=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!(x1 > 80.0, "{x1}");
        // The legend shows a shortened name, the full one as its tooltip.
        let legend = svg.split("<g class=\"legend\">").nth(1).unwrap();
        assert!(legend.contains(&format!("<title>{long}</title>")));
        assert!(legend.contains('…'));
    }
}
