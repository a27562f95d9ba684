//! The page: one HTML file with its CSS inline and its charts as inline SVG,
//! no scripts, and a Content-Security-Policy that forbids fetching anything,
//! so what a browser shows from disk is all there is. Light by default;
//! `prefers-color-scheme: dark` swaps the palette, the charts' text, grid
//! and background following through their classes.

use crate::data::Results;
use crate::section::{views, View};
use rbench_common::chart::{escape, PALETTE};
use std::fmt::Write;

/// Series colors on a dark background: the light palette, brightened.
const DARK: [&str; 10] = [
    "#5aa9e6", "#ffa04d", "#5cc85c", "#f26b6b", "#b592e0", "#c79a8f", "#f29bd4", "#b0b0b0",
    "#d6d74a", "#45d3e3",
];

const CSS: &str = "\
:root{color-scheme:light dark;--bg:#f6f7f9;--fg:#1b1d21;--muted:#5b616b;--panel:#fff;\
--grid:#e3e5e8;--border:#d5d8dc;--warn-bg:#fff4dc;--warn-fg:#5c3b00;--warn-line:#e0a100}
@media (prefers-color-scheme:dark){:root{--bg:#121417;--fg:#e6e8eb;--muted:#a3a9b3;\
--panel:#1b1e23;--grid:#343941;--border:#3a3f47;--warn-bg:#3a2d10;--warn-fg:#ffd98a;\
--warn-line:#c28a00}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);\
font:15px/1.5 system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif}
main{max-width:960px;margin:0 auto;padding:24px 24px 48px}
h1{font-size:26px;margin:8px 0 4px}
h2{font-size:20px;margin:36px 0 12px;padding-bottom:4px;border-bottom:1px solid var(--border)}
.lede{color:var(--muted);margin:0 0 16px}
table.facts{border-collapse:collapse;width:100%;background:var(--panel);\
border:1px solid var(--border);border-radius:6px}
table.facts th,table.facts td{text-align:left;vertical-align:top;padding:6px 12px;\
border-bottom:1px solid var(--border)}
table.facts tr:last-child th,table.facts tr:last-child td{border-bottom:none}
table.facts th{font-weight:600;white-space:nowrap;width:1%;color:var(--muted)}
table.facts td{overflow-wrap:anywhere}
figure.chart{margin:0 0 16px;background:var(--panel);border:1px solid var(--border);\
border-radius:6px;overflow:hidden}
figure.chart svg{display:block;width:100%;height:auto}
svg.chart text{fill:var(--fg)}
svg.chart .muted{fill:var(--muted)}
svg.chart .bg{fill:var(--panel)}
svg.chart .grid{stroke:var(--grid)}
svg.chart .axes{stroke:var(--muted)}
.warning{background:var(--warn-bg);color:var(--warn-fg);border-left:4px solid var(--warn-line);\
padding:8px 12px;margin:0 0 16px;border-radius:4px}
ul.notes{color:var(--muted);margin:0;padding-left:20px}
footer{color:var(--muted);font-size:13px;margin-top:40px}
";

fn palette_css() -> String {
    let mut s = String::new();
    for (i, c) in PALETTE.iter().enumerate() {
        let _ = write!(s, "svg.chart .c{i}{{color:{c}}}");
    }
    s.push_str("\n@media (prefers-color-scheme:dark){");
    for (i, c) in DARK.iter().enumerate() {
        let _ = write!(s, "svg.chart .c{i}{{color:{c}}}");
    }
    s.push_str("}\n");
    s
}

fn section(s: &mut String, v: &View) {
    let _ = writeln!(s, "<section id=\"{}\">\n<h2>{}</h2>", v.id, escape(v.title));
    for w in &v.warnings {
        let _ = writeln!(s, "<p class=\"warning\" role=\"note\">{}</p>", escape(w));
    }
    for f in &v.figures {
        let _ = writeln!(
            s,
            "<figure class=\"chart\" id=\"{0}\" data-chart=\"{0}\">\n{1}</figure>",
            f.id, f.svg
        );
    }
    if !v.notes.is_empty() {
        s.push_str("<ul class=\"notes\">\n");
        for n in &v.notes {
            let _ = writeln!(s, "<li>{}</li>", escape(n));
        }
        s.push_str("</ul>\n");
    }
    s.push_str("</section>\n");
}

/// The whole page.
pub fn render(r: &Results) -> Result<String, String> {
    let date = r
        .facts
        .iter()
        .find(|f| f.0 == "date")
        .map(|f| f.1.clone())
        .unwrap_or_default();
    let views = views(r);
    let mut s = String::with_capacity(64 * 1024);
    let _ = write!(
        s,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"color-scheme\" content=\"light dark\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
         style-src 'unsafe-inline'; img-src data:\">\n\
         <link rel=\"icon\" href=\"data:,\">\n\
         <title>rbench report{}</title>\n<style>\n{CSS}{}</style>\n</head>\n<body>\n<main>\n\
         <h1>rbench: how fast is this machine</h1>\n",
        if date.is_empty() {
            String::new()
        } else {
            format!(": {}", escape(&date))
        },
        palette_css()
    );
    let sections: Vec<&str> = views.iter().map(|v| v.id).collect();
    let _ = writeln!(
        s,
        "<p class=\"lede\">bench-all's results{}: {}.</p>",
        if date.is_empty() {
            String::new()
        } else {
            format!(" of {}", escape(&date))
        },
        sections.join(", ")
    );
    if !r.facts.is_empty() {
        s.push_str("<table class=\"facts\">\n");
        for (k, v) in &r.facts {
            let _ = writeln!(s, "<tr><th>{}</th><td>{}</td></tr>", escape(k), escape(v));
        }
        s.push_str("</table>\n");
    }
    for v in &views {
        section(&mut s, v);
    }
    let files: Vec<String> = sections.iter().map(|s| format!("{s}.csv")).collect();
    let _ = writeln!(
        s,
        "<footer>Drawn by bench-report from {} in this folder; report.md has the numbers \
         as tables, raw/ each tool's own output.</footer>\n</main>\n</body>\n</html>",
        files.join(", ")
    );
    Ok(s)
}
