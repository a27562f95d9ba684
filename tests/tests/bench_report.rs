//! `bench-report`, the page bench-all writes beside report.md: drawn from
//! small CSVs made here (a 2-CPU machine's cpu, disk, mem and net results,
//! with rmbw's cache warning), it is one self-contained file (no scripts,
//! nothing fetched) with every chart; loaded from disk in headless Chromium
//! it logs nothing to the console, every chart is in the DOM with marks
//! drawn, and its screenshots, light and dark, have the page's shape: the
//! charts' panels stacked in the centre column, margins empty, colored
//! marks in every panel, the page ending inside the window. Shape, not
//! pixels: no image is compared with a stored one.
//!
//! Chromium comes from Debian's `chromium` package (tests/run installs it);
//! without it the browser test skips with a note, and fails under
//! RBENCH_REQUIRE_ORIGINALS=1.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use rbench_tests::{on_path, our_bin, run_bounded};

const LIMIT: Duration = Duration::from_secs(120);

/// The charts the page has for the fixture, in page order.
const CHARTS: [&str; 8] = [
    "cpu-events",
    "cpu-efficiency",
    "disk-iops",
    "disk-bandwidth",
    "disk-clat",
    "mem-bandwidth",
    "net-throughput",
    "net-udp-loss",
];

/// Screenshot size: the fixture's page (about 4,400 px tall at 1280 px)
/// fits with room to spare.
const WIDTH: usize = 1280;
const HEIGHT: usize = 6000;

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("bench-report-test-{}-{tag}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(d.join("raw")).expect("create temp dir");
    d
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A results folder as bench-all writes it, for a 2-CPU machine.
fn fixture(dir: &Path) {
    let files = [
        (
            "facts.csv",
            "key,fact,value\n\
             date,date,\"2026-12-02 00:30:00 UTC\"\n\
             cpu_model,CPU model,\"Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz\"\n\
             cpus_online,CPUs online,\"2\"\n\
             physical_cores,physical cores,\"1\"\n\
             memory,memory,\"7.7 GiB\"\n\
             kernel,kernel,\"Linux 6.1.0-27-cloud-amd64 x86_64\"\n\
             disk,disk (--dir),\"/tmp on /dev/nvme0n1p1 (ext4, mounted on /); disk nvme0n1, non-rotational\"\n\
             mode,mode,\"quick (--quick: seconds-long steps, indicative only)\"\n\
             tools,tools,\"sysbench 1.0.20, fio-3.33, rmbw (rmbw 0.1.0), riperf (riperf 0.1.0)\"\n\
             binaries,binaries,\"/work/rbench/target/release\"\n",
        ),
        (
            "cpu.csv",
            "threads,events_per_s,speedup,efficiency_percent,avg_latency_ms,p95_latency_ms\n\
             1,1210.55,1.00,100.0,0.826,0.850\n\
             2,2321.12,1.92,95.9,0.861,0.910\n\
             4,2330.40,1.93,48.1,1.716,2.120\n",
        ),
        (
            "disk.csv",
            "test,pattern,direction,bs_bytes,ioengine,direct,iops,bw_bytes_per_s,mib_per_s,\
             iops_x_bs_bytes_per_s,consistency_percent,consistent,clat_mean_us,clat_p50_us,\
             clat_p95_us,clat_p99_us,limit\n\
             randread-4k,random,read,4096,io_uring,1,3012.5,12339200,11.77,12339200,100.00,yes,10600.1,10420.2,11600.0,12800.0,iops\n\
             randwrite-4k,random,write,4096,io_uring,1,3001.0,12292096,11.72,12292096,100.00,yes,10650.3,10420.2,11600.0,13200.0,iops\n\
             read-4k,sequential,read,4096,io_uring,1,3020.1,12370329,11.80,12370329,100.00,yes,10580.0,10420.2,11200.0,12100.0,iops\n\
             write-4k,sequential,write,4096,io_uring,1,2998.7,12282675,11.71,12282675,100.00,yes,10670.2,10420.2,11800.0,14000.0,iops\n\
             randread-1M,random,read,1048576,io_uring,1,125.1,131176038,125.10,131176038,100.00,yes,255000.0,252000.0,270000.0,290000.0,bandwidth\n\
             randwrite-1M,random,write,1048576,io_uring,1,124.9,130966323,124.90,130966323,100.00,yes,256000.0,252000.0,272000.0,300000.0,bandwidth\n\
             read-1M,sequential,read,1048576,io_uring,1,125.3,131385753,125.30,131385753,100.00,yes,254000.0,252000.0,268000.0,285000.0,bandwidth\n\
             write-1M,sequential,write,1048576,io_uring,1,125.0,131072000,125.00,131072000,100.00,yes,255500.0,252000.0,271000.0,295000.0,bandwidth\n",
        ),
        (
            "mem.csv",
            "test,threads,array_mib,runs,avg_mib_per_s,best_mib_per_s\n\
             memcpy,1,16,2,9850.3,10120.7\n\
             dumb,1,16,2,7420.1,7601.9\n\
             mcblock,1,16,2,11250.8,11502.2\n\
             triad,2,16,2,15120.4,15840.0\n",
        ),
        (
            "net.csv",
            "test,protocol,server,duration_s,sender_bits_per_s,receiver_bits_per_s,retransmits,\
             loss_percent,lost_packets,packets,jitter_ms\n\
             tcp,tcp,127.0.0.1:40123,1,38512345678,38490000000,0,,,,\n\
             udp_unlimited,udp,127.0.0.1:40123,1,4012345678,3210000000,,19.995,69300,346590,0.004\n\
             udp_loss_free,udp,127.0.0.1:40123,1,3200000000,3199000000,,0.120,290,241700,0.003\n",
        ),
        (
            "raw/notes-cpu.txt",
            "peak 2330.40 events/s at 4 threads (1.93x one thread; 2 CPUs online, 1 physical \
             cores); efficiency falls below 75% at 4 threads\n",
        ),
        (
            "raw/notes-disk.txt",
            "ioengine=io_uring, direct=1, iodepth 32, 16 MiB file in /tmp, 1 s runs after 0 s ramp\n",
        ),
        (
            "raw/notes-mem.txt",
            "rmbw: warning: the arrays (32 MiB) fit in the 54 MiB last-level cache: this \
             measures the cache, not memory\n\
             triad: 2 pinned threads, 16 MiB per array per thread, STREAM byte count (3 arrays)\n",
        ),
        (
            "raw/notes-net.txt",
            "server 127.0.0.1:40123 (riperf started on loopback, stopped afterwards)\n",
        ),
    ];
    for (name, body) in files {
        fs::write(dir.join(name), body).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

fn bench_report(args: &[&str]) -> Output {
    run_bounded(Command::new(our_bin("bench-report")).args(args), LIMIT)
}

/// The fixture drawn: (folder, page path, page text).
fn rendered(tag: &str) -> (PathBuf, PathBuf, String) {
    let dir = temp_dir(tag);
    fixture(&dir);
    let out = bench_report(&[dir.to_str().unwrap()]);
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "bench-report failed ({:?}): {}",
        out.status,
        text(&out.stderr)
    );
    let page = dir.join("report.html");
    let html = fs::read_to_string(&page).expect("report.html");
    (dir, page, html)
}

/// The markup of the figure `id`, from its tag to its end.
fn figure<'a>(html: &'a str, id: &str) -> &'a str {
    let start = html
        .find(&format!("id=\"{id}\""))
        .unwrap_or_else(|| panic!("no chart {id}"));
    let rest = &html[start..];
    &rest[..rest
        .find("</figure>")
        .unwrap_or_else(|| panic!("{id} not closed"))]
}

/// Marks drawn in a chart: series polylines with points, bars with a width.
fn marks(svg: &str) -> usize {
    let attr = |el: &str, name: &str| -> Option<String> {
        let at = el.find(&format!(" {name}=\""))? + name.len() + 3;
        Some(el[at..].split('"').next()?.to_string())
    };
    let lines = svg
        .split("<polyline")
        .skip(1)
        .filter(|el| attr(el, "points").is_some_and(|p| p.split_whitespace().count() >= 1))
        .count();
    let bars = svg
        .split("<rect")
        .skip(1)
        .filter(|el| el.contains("class=\"bar\""))
        .filter(|el| attr(el, "width").and_then(|w| w.parse::<f64>().ok()) > Some(0.0))
        .count();
    lines + bars
}

/// Every chart present with marks, the facts, the notes and the warning:
/// what the page shows, in the markup bench-report wrote or the DOM
/// Chromium built from it.
fn check_page(html: &str) {
    let mut at = 0;
    for id in CHARTS {
        let pos = html
            .find(&format!("data-chart=\"{id}\""))
            .unwrap_or_else(|| panic!("chart {id} missing"));
        assert!(pos > at, "chart {id} out of order");
        at = pos;
        let f = figure(html, id);
        assert!(f.contains("<svg"), "{id}: no svg");
        assert!(marks(f) > 0, "{id}: nothing drawn:\n{f}");
    }
    // Axes with units.
    for unit in [
        "(events/s)",
        "(% of linear scaling)",
        "(IOPS)",
        "(MiB/s)",
        "(ms, log scale)",
        "(GiB/s)",
        "(Gbit/s)",
        "(%)",
    ] {
        assert!(html.contains(unit), "no axis in {unit}");
    }
    // 8 disk tests' IOPS and bandwidth, 3 percentiles each; 3 net tests x 2.
    assert_eq!(marks(figure(html, "disk-iops")), 8);
    assert_eq!(marks(figure(html, "disk-clat")), 24);
    assert_eq!(marks(figure(html, "net-throughput")), 6);
    assert_eq!(marks(figure(html, "net-udp-loss")), 2);
    assert!(figure(html, "disk-iops").contains("limit: bandwidth"));
    for fact in [
        "Intel(R) Xeon(R) Platinum 8375C",
        "ext4, mounted on /",
        "fio-3.33",
    ] {
        assert!(html.contains(fact), "fact {fact:?} missing");
    }
    let warning = html
        .split("class=\"warning\"")
        .nth(1)
        .expect("the cache warning is highlighted");
    assert!(warning.starts_with(['>', ' ']));
    assert!(warning.contains("fit in the 54 MiB last-level cache"));
    assert!(html.contains("efficiency falls below 75% at 4 threads"));
}

#[test]
fn page_is_one_self_contained_file_with_every_chart() {
    let (dir, _, html) = rendered("page");
    check_page(&html);
    // Nothing to fetch: no scripts, no links but the empty icon, no URLs
    // but the SVG namespace, and a policy that forbids loading anything.
    let lower = html.to_lowercase();
    for bad in [
        "<script", " src=", "@import", "url(", "<iframe", "<object", "<embed",
    ] {
        assert!(!lower.contains(bad), "page has {bad:?}");
    }
    assert_eq!(lower.matches("<link").count(), 1);
    assert!(lower.contains("<link rel=\"icon\" href=\"data:,\">"));
    let urls = lower.matches("http://").count() + lower.matches("https://").count();
    assert_eq!(urls, lower.matches("http://www.w3.org/2000/svg").count());
    assert!(html.contains("Content-Security-Policy") && html.contains("default-src 'none'"));
    // Light and dark.
    assert!(html.contains("@media (prefers-color-scheme:dark)"));
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn only_the_sections_asked_for_and_errors_that_name_the_file() {
    let dir = temp_dir("only");
    fixture(&dir);
    let out_file = dir.join("mem.html");
    let out = bench_report(&[
        "--only",
        "mem",
        "-o",
        out_file.to_str().unwrap(),
        dir.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let html = fs::read_to_string(&out_file).unwrap();
    assert!(html.contains("data-chart=\"mem-bandwidth\""));
    assert!(!html.contains("data-chart=\"cpu-events\""));
    assert!(!dir.join("report.html").exists());

    // Each failure: one line, bench-report's prefix, exit 1.
    let fails = |args: &[&str], says: &str| {
        let out = bench_report(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = text(&out.stderr);
        assert!(
            err.starts_with("bench-report: error: ") && err.contains(says),
            "{args:?}: {err}"
        );
    };
    let d = dir.to_str().unwrap();
    fails(&["--only", "gpu", d], "unknown section 'gpu'");
    fs::remove_file(dir.join("net.csv")).unwrap();
    fails(&["--only", "net", d], "net.csv' not found");
    fs::write(
        dir.join("cpu.csv"),
        "threads,events_per_s,efficiency_percent\n1,,100\n",
    )
    .unwrap();
    fails(&[d], "cpu.csv: row 2: 'events_per_s' is empty");
    let empty = temp_dir("empty");
    fails(&[empty.to_str().unwrap()], "no section CSV");
    let _ = fs::remove_dir_all(&dir);
    let _ = fs::remove_dir_all(&empty);
}

// ------------------------------------------------------------- the browser

/// Debian's Chromium, or None (with a note; a failure when the suite's
/// tools are required).
fn chromium() -> Option<PathBuf> {
    let found = on_path("chromium").or_else(|| on_path("chromium-browser"));
    if found.is_none() {
        if std::env::var("RBENCH_REQUIRE_ORIGINALS").as_deref() == Ok("1") {
            panic!("chromium is required (RBENCH_REQUIRE_ORIGINALS=1) but is not installed: apt-get install -y chromium");
        }
        eprintln!("note: chromium is not installed (apt-get install -y chromium); skipping the browser test");
    }
    found
}

/// Run headless Chromium on `page` with `args`, console messages logged to
/// stderr; its own profile in `dir`, so parallel runs do not share one.
fn browse(chromium: &Path, dir: &Path, page: &Path, args: &[&str]) -> Output {
    let out = run_bounded(
        Command::new(chromium)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--no-first-run",
                "--hide-scrollbars",
                "--enable-logging=stderr",
                "--v=0",
            ])
            .arg(format!("--user-data-dir={}", dir.join("profile").display()))
            .args(args)
            .arg(format!("file://{}", page.display())),
        LIMIT,
    );
    assert!(
        out.status.success(),
        "chromium failed ({:?}):\n{}",
        out.status,
        text(&out.stderr)
    );
    out
}

/// The page's console messages (errors, warnings, a policy violation) as
/// Chromium logs them: `INFO:CONSOLE:N] "message", source: ...`.
fn console(out: &Output) -> Vec<String> {
    text(&out.stderr)
        .lines()
        .filter(|l| l.contains(":CONSOLE"))
        .map(str::to_string)
        .collect()
}

/// A decoded PNG: width, height and RGB pixels.
struct Image {
    width: usize,
    height: usize,
    rgb: Vec<[u8; 3]>,
}

impl Image {
    fn at(&self, x: usize, y: usize) -> [u8; 3] {
        self.rgb[y * self.width + x]
    }
}

/// PNG (8-bit RGB or RGBA, not interlaced: what Chromium writes) decoded
/// with the zlib inflater the tests already use.
fn decode_png(bytes: &[u8]) -> Image {
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
    let be = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize;
    let (mut pos, mut idat) = (8, Vec::new());
    let (mut width, mut height, mut channels) = (0, 0, 0);
    while pos + 8 <= bytes.len() {
        let len = be(&bytes[pos..]);
        let kind = &bytes[pos + 4..pos + 8];
        let data = &bytes[pos + 8..pos + 8 + len];
        match kind {
            b"IHDR" => {
                width = be(data);
                height = be(&data[4..]);
                assert_eq!(data[8], 8, "bit depth");
                channels = match data[9] {
                    2 => 3,
                    6 => 4,
                    t => panic!("PNG color type {t}"),
                };
                assert_eq!(data[12], 0, "interlaced PNG");
            }
            b"IDAT" => idat.extend_from_slice(data),
            b"IEND" => break,
            _ => {}
        }
        pos += 12 + len;
    }
    let mut raw = Vec::new();
    flate2::read::ZlibDecoder::new(&idat[..])
        .read_to_end(&mut raw)
        .expect("inflate IDAT");
    let stride = width * channels;
    assert_eq!(raw.len(), height * (stride + 1), "PNG data size");
    let mut px = vec![0u8; height * stride];
    for y in 0..height {
        let filter = raw[y * (stride + 1)];
        let line = &raw[y * (stride + 1) + 1..(y + 1) * (stride + 1)];
        for i in 0..stride {
            let a = if i >= channels {
                px[y * stride + i - channels]
            } else {
                0
            };
            let b = if y > 0 { px[(y - 1) * stride + i] } else { 0 };
            let c = if y > 0 && i >= channels {
                px[(y - 1) * stride + i - channels]
            } else {
                0
            };
            let pred = match filter {
                0 => 0,
                1 => a,
                2 => b,
                3 => ((a as u16 + b as u16) / 2) as u8,
                4 => {
                    let p = a as i16 + b as i16 - c as i16;
                    let (pa, pb, pc) = (
                        (p - a as i16).abs(),
                        (p - b as i16).abs(),
                        (p - c as i16).abs(),
                    );
                    if pa <= pb && pa <= pc {
                        a
                    } else if pb <= pc {
                        b
                    } else {
                        c
                    }
                }
                f => panic!("PNG filter {f}"),
            };
            px[y * stride + i] = line[i].wrapping_add(pred);
        }
    }
    let rgb = px.chunks(channels).map(|p| [p[0], p[1], p[2]]).collect();
    Image { width, height, rgb }
}

fn luminance(p: [u8; 3]) -> f64 {
    0.2126 * p[0] as f64 + 0.7152 * p[1] as f64 + 0.0722 * p[2] as f64
}

/// A series color, not a shade of grey: the charts' marks.
fn colored(p: [u8; 3]) -> bool {
    let (max, min) = (*p.iter().max().unwrap(), *p.iter().min().unwrap());
    max - min > 80
}

/// The screenshot has the page's shape; `dark`: the dark palette.
fn check_screenshot(png: &Path, dark: bool) {
    let img = decode_png(&fs::read(png).expect("screenshot written"));
    let what = if dark { "dark" } else { "light" };
    assert_eq!(
        (img.width, img.height),
        (WIDTH, HEIGHT),
        "{what}: image size"
    );
    let bg = img.at(2, 2);
    if dark {
        assert!(luminance(bg) < 50.0, "dark: background {bg:?}");
    } else {
        assert!(luminance(bg) > 200.0, "light: background {bg:?}");
    }
    // The page is 960 px wide, centred: nothing in the margins (a chart
    // wider than the page would spill there).
    let column = (WIDTH - 960) / 2;
    for y in 0..HEIGHT {
        for x in (0..column - 20).chain(WIDTH - column + 20..WIDTH) {
            assert_eq!(
                img.at(x, y),
                bg,
                "{what}: something at ({x}, {y}) in the margin"
            );
        }
    }
    // Content from the top; the page ends inside the window, with no hole
    // taller than the space between two sections.
    let busy: Vec<bool> = (0..HEIGHT)
        .map(|y| (column..WIDTH - column).any(|x| img.at(x, y) != bg))
        .collect();
    let first = busy.iter().position(|&b| b).expect("a blank screenshot");
    let last = busy.iter().rposition(|&b| b).unwrap();
    assert!(first < 60, "{what}: the page starts at {first}");
    assert!(
        last > 3000 && last < HEIGHT - 200,
        "{what}: the page ends at {last}"
    );
    let mut gap = 0;
    for (y, &b) in busy[first..last].iter().enumerate() {
        gap = if b { 0 } else { gap + 1 };
        assert!(gap < 120, "{what}: {gap} blank rows at {}", first + y);
    }
    // The chart panels: runs of rows where the panel's color shows just
    // inside the column's left edge; one per chart, each with colored marks.
    let x = column + 24 + 3;
    // The panel's color: the commonest one there besides the background.
    let mut seen: Vec<([u8; 3], usize)> = Vec::new();
    for y in 0..HEIGHT {
        let p = img.at(x, y);
        match seen.iter_mut().find(|s| s.0 == p) {
            Some(s) => s.1 += 1,
            None => seen.push((p, 1)),
        }
    }
    let panel = seen
        .iter()
        .filter(|s| s.0 != bg)
        .max_by_key(|s| s.1)
        .expect("no chart panel")
        .0;
    let mut panels = Vec::new();
    let mut run_start = None;
    for y in 0..=HEIGHT {
        let inside = y < HEIGHT && img.at(x, y) == panel && img.at(x + 3, y) == panel;
        match (inside, run_start) {
            (true, None) => run_start = Some(y),
            (false, Some(s)) => {
                if y - s >= 120 {
                    panels.push((s, y));
                }
                run_start = None;
            }
            _ => {}
        }
    }
    assert_eq!(
        panels.len(),
        CHARTS.len(),
        "{what}: chart panels at {panels:?}"
    );
    for (i, &(top, bottom)) in panels.iter().enumerate() {
        let marks = (top..bottom)
            .flat_map(|y| (column..WIDTH - column).map(move |x| (x, y)))
            .filter(|&(x, y)| colored(img.at(x, y)))
            .count();
        assert!(
            marks > 300,
            "{what}: chart {} ({top}..{bottom}) has {marks} colored pixels",
            CHARTS[i]
        );
        // Text in the panel reads against it: some pixels far from the
        // panel's own luminance (dark text on light, light on dark).
        let contrast = (top..bottom)
            .flat_map(|y| (column..WIDTH - column).map(move |x| (x, y)))
            .filter(|&(x, y)| (luminance(img.at(x, y)) - luminance(panel)).abs() > 120.0)
            .count();
        assert!(
            contrast > 200,
            "{what}: chart {} has no text that stands out",
            CHARTS[i]
        );
    }
    if dark {
        assert!(luminance(panel) < 60.0, "dark: panel {panel:?}");
    }
}

#[test]
fn page_in_headless_chromium_logs_nothing_and_has_the_page_shape() {
    let Some(chromium) = chromium() else {
        return;
    };
    let (dir, page, _) = rendered("browser");

    // The console check sees a console message (so it would see ours).
    let noisy = dir.join("noisy.html");
    fs::write(
        &noisy,
        "<!DOCTYPE html><p>x</p><script>console.error('planted')</script>",
    )
    .unwrap();
    let out = browse(&chromium, &dir, &noisy, &["--dump-dom"]);
    assert!(
        console(&out).iter().any(|l| l.contains("planted")),
        "chromium's console log not found; stderr:\n{}",
        text(&out.stderr)
    );

    // The DOM Chromium built: every chart, with marks; no console message
    // (a script error or a blocked fetch would log one).
    let out = browse(&chromium, &dir, &page, &["--dump-dom"]);
    assert_eq!(console(&out), Vec::<String>::new(), "console messages");
    let dom = text(&out.stdout);
    assert!(dom.contains("</html>"), "no DOM dumped:\n{dom}");
    check_page(&dom);

    // Screenshots, light then dark (prefers-color-scheme: dark).
    let size = format!("--window-size={WIDTH},{HEIGHT}");
    for (dark, name) in [(false, "light.png"), (true, "dark.png")] {
        let png = dir.join(name);
        let shot = format!("--screenshot={}", png.display());
        let mut args = vec![shot.as_str(), size.as_str()];
        if dark {
            args.push("--force-dark-mode");
        }
        let out = browse(&chromium, &dir, &page, &args);
        assert_eq!(
            console(&out),
            Vec::<String>::new(),
            "console messages ({name})"
        );
        check_screenshot(&png, dark);
    }
    let _ = fs::remove_dir_all(&dir);
}
