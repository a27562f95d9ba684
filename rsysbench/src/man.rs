//! `man/rsysbench.1`, generated from the option tables so the page cannot
//! drift from the parser and `--help`. `RSYSBENCH_WRITE_MAN=1 cargo test -p
//! rsysbench man_page` rewrites the file; otherwise the test checks it.

use crate::builtin::Builtin;
use crate::options::{self, OptDef};

fn esc(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('-', "\\-")
        .replace('\'', "\\(aq")
}

fn section(out: &mut String, title: &str, opts: &[OptDef]) {
    out.push_str(&format!(".SS {}\n", esc(title)));
    for o in opts {
        out.push_str(&format!(
            ".TP\n\\fB\\-\\-{}\\fR{}\n{}",
            esc(o.name),
            esc(o.kind.help_form()),
            esc(o.help)
        ));
        if !o.help.ends_with('.') {
            out.push('.');
        }
        if let Some(d) = o.default {
            out.push_str(&format!(
                " Default: {}.",
                if d.is_empty() { "empty".into() } else { esc(d) }
            ));
        }
        out.push('\n');
    }
}

pub fn render() -> String {
    let mut m = String::new();
    m.push_str(
        ".TH RSYSBENCH 1 \"\" \"rsysbench 0.1.0 (sysbench 1.0.20 compatible)\" \"User Commands\"\n",
    );
    m.push_str(".SH NAME\nrsysbench \\- CPU, memory, thread, mutex, file I/O and database (OLTP) benchmarks and Lua scripts, a drop\\-in replacement for sysbench 1.0.20\n");
    m.push_str(
        ".SH SYNOPSIS\n.B rsysbench\n[\\fIoptions\\fR]... [\\fItestname\\fR|\\fIscript\\fR] [\\fIcommand\\fR]\n",
    );
    m.push_str(&esc_par(
        "DESCRIPTION",
        &[
            "rsysbench runs sysbench 1.0.20's built-in tests with the same command lines and prints the same report, line for line, so scripts written for sysbench keep working. Options are --name=value or a bare --name (never --name value) and may appear anywhere; - and _ in names are the same; the last occurrence wins. Sizes are digits with an optional K, M, G or T suffix (binary, any case). Boolean options take on, true, 1, off, false or 0.",
            "Commands: run (all tests), prepare and cleanup (fileio and scripts that define them), help (the test's options), and any command a script declares. Built-in tests: fileio, cpu, memory, threads, mutex. Any other test name is a Lua script (see LUA SCRIPTS).",
            "Each worker thread times its own events into its own counters and latency histogram (sysbench's 1024 logarithmic buckets from 0.001 ms to 100 s); the report merges them at the end. Threads start together and stop at --time, at --events, when the test runs out of work, or on SIGINT/SIGTERM.",
        ],
    ));
    m.push_str(".SH TESTS\n");
    for (b, text) in [
        (Builtin::Cpu, "Each event checks every number from 3 to --cpu-max-prime for primality by trial division up to its square root, with the same instructions as sysbench's build (64-bit division). Report: events per second."),
        (Builtin::Memory, "Each event reads, writes or walks one block of --memory-block-size bytes as 8-byte words, in order or at random word indexes. Each thread does total/block/threads events; --events does not apply. With --memory-scope=global all threads share one block. A note goes to stderr, when it is a terminal, if the block fits in the CPU cache. Report: operations and MiB transferred per second."),
        (Builtin::Threads, "Each event locks one of --thread-locks mutexes (chosen round robin) and, --thread-yields times, locks it, yields the CPU and unlocks it."),
        (Builtin::Mutex, "One event per thread: --mutex-locks times, pick a random mutex of --mutex-num, spin --mutex-loops empty iterations, lock it, increment a shared counter, unlock."),
        (Builtin::Fileio, "prepare creates test_file.0 to test_file.N-1 in the current directory, --file-total-size/N bytes each; run issues sequential or random reads and writes (--file-test-mode) with periodic fsync sweeps over all files; cleanup removes the files. Only files named test_file.N are created or removed."),
    ] {
        m.push_str(&format!(".TP\n\\fB{}\\fR\n{}\n", b.name(), esc(text)));
    }
    m.push_str(".SH OPTIONS\n");
    for t in options::HELP_TABLES {
        section(
            &mut m,
            t.title
                .unwrap_or("Statistics options:")
                .trim_end_matches(':'),
            t.options,
        );
    }
    for b in Builtin::ALL {
        section(&mut m, &format!("{} options", b.name()), b.options());
    }
    section(&mut m, "General database options", options::DB);
    section(&mut m, "mysql options", options::MYSQL);
    section(&mut m, "pgsql options", options::PGSQL);
    m.push_str(&esc_par(
        "LUA SCRIPTS",
        &[
            "A test name that is not a built-in test is a Lua script, run on LuaJIT with sysbench 1.0.20's scripting API: a path or a file in the current directory, else a module name looked up on sysbench's package.path (LUA_PATH honoured, ;; standing for the default), else one of the bundled workloads: oltp_read_write, oltp_read_only, oltp_write_only, oltp_point_select, oltp_insert, oltp_delete, oltp_update_index, oltp_update_non_index, select_random_points, select_random_ranges, bulk_insert (and oltp_common, the module they share). With no test name, or -, the script is read from standard input and run once.",
            "Scripts see sysbench's API: the hooks prepare, cleanup, help, init, done, thread_init, thread_done, event and thread_run; sysbench.cmdline.options and commands (options are checked on the command line and listed by help), sysbench.opt, sysbench.tid, sysbench.rand, sysbench.sql (drivers mysql and pgsql, connections, queries, prepared statements with binds, bulk inserts, errors the script may ignore), sysbench.histogram, sysbench.hooks (report_intermediate, report_cumulative, sql_error_ignorable, before_restart_event), sysbench.report_default/csv/json, and sysbench 1.0's older globals. Each worker thread runs its own Lua state. The C functions sysbench exports to scripts (sb_event_start, sb_event_stop, sb_more_events, sb_counter_inc, sb_rand_*, db_* and the rest) are exported by rsysbench for ffi.C, with the same signatures.",
            "Database tests report an SQL statistics block (reads, writes, other, transactions, queries, ignored errors, reconnects) before the general statistics, and their --report-interval lines show tps, qps, r/w/o, latency, err/s and reconn/s. rsysbench links the same client libraries as sysbench (libpq and MariaDB Connector/C).",
        ],
    ));
    m.push_str(&esc_par(
        "OUTPUT FORMATS",
        &[
            "--output-format=text (default) prints sysbench's report. --output-format=json prints one JSON document on stdout: test, threads, options, status (completed, interrupted or forced_shutdown), total_time_s, total_events, events_per_second, latency_ms (min, avg, max, sum, percentile, percentile_value and percentiles 50, 90, 95, 99, 99.9 and the one asked for), fairness, per_thread (events and time of each thread), memory or fileio figures, intervals and checkpoints. --output-format=csv prints a header row, an interval row per --report-interval as each interval ends, checkpoint rows, and the summary row last; the row column tells them apart. In both formats the log goes to stderr.",
        ],
    ));
    m.push_str(".PP\nA JSON document, shortened (cpu, one thread):\n");
    example(
        &mut m,
        &[
            "{",
            "  \"tool\": \"rsysbench\",",
            "  \"sysbench_version\": \"1.0.20\",",
            "  \"test\": \"cpu\",",
            "  \"threads\": 1,",
            "  \"options\": { \"threads\": \"1\", \"time\": \"10\", ... },",
            "  \"status\": \"completed\",",
            "  \"total_time_s\": 10.000113,",
            "  \"total_events\": 291650,",
            "  \"events_per_second\": 29164.67,",
            "  \"latency_ms\": { \"min\": 0.022, \"avg\": 0.034, \"max\": 8.131,",
            "    \"sum\": 9961.2, \"percentile\": 95, \"percentile_value\": 0.026,",
            "    \"percentiles\": { \"50\": 0.023, \"90\": 0.024, ... } },",
            "  ...",
            "}",
        ],
    );
    m.push_str(&esc_par(
        "VERSION",
        &[
            "--version prints exactly sysbench's line, \"sysbench 1.0.20\", because scripts and sysbench's own test suite compare it whole; --rbench-version prints \"rsysbench VERSION (rbench)\".",
        ],
    ));
    m.push_str(&esc_par(
        "EXIT STATUS",
        &[
            "0 on success; 1 on a usage or option error, a failed test initialisation (FATAL: ...), a failed I/O request or an overflowing --rate queue; 2 when --forced-shutdown ends the run; 128+N after signal N (SIGINT: 130, SIGTERM: 143), once the report for what ran is printed.",
        ],
    ));
    m.push_str(&esc_par(
        "DIFFERENCES FROM SYSBENCH 1.0.20",
        &[
            "Where sysbench hangs or silently accepts nonsense, rsysbench stops with a message: a negative --time, --events, --rate or --report-interval; a memory run whose per-thread share total/block/threads is 0; --thread-locks=0, --mutex-num=0, --mutex-locks=0; a --file-total-size smaller than --file-num (0-byte files); an unparsable --file-rw-ratio or --rand-pareto-h; --rand-spec-iter <= 0, --rand-spec-pct outside 0..100, --rand-spec-res outside 0..99 or --rand-pareto-h outside (0, 1).",
            "Sizes are read as sysbench reads them (1X, 1.5K, -1 or 512B as 0, 1Kfoo as 1K), with a warning on stderr naming the option and the value used when the run goes on with it. --file-io-mode=async uses Linux native AIO directly (the system calls libaio wraps). --memory-hugetlb maps the block with MAP_HUGETLB. SIGINT and SIGTERM end the run with a report. The header names the bundled LuaJIT as upstream builds do.",
            "Measuring costs less: per-thread counters without atomic read-modify-write and the CPU's time stamp counter instead of two clock_gettime() calls per event, so tests with very short events (memory with small blocks) report more events per second than sysbench on the same work.",
        ],
    ));
    m.push_str(".SH EXAMPLES\n");
    for (what, lines) in EXAMPLES {
        m.push_str(&format!(".PP\n{}:\n", esc(what)));
        example(&mut m, lines);
    }
    m.push_str(".SH SEE ALSO\n.BR sysbench (1),\n.BR rmbw (1)\n");
    m
}

/// The man page's examples: what each shows, then its lines. The pipelines
/// run in tests/tests/packaging.rs (with a shorter --time).
pub const EXAMPLES: &[(&str, &[&str])] = &[
    ("Ten seconds of the CPU test on two threads", &["rsysbench cpu --threads=2 --time=10 run"]),
    ("Memory bandwidth with 1 MiB blocks", &["rsysbench memory --memory-block-size=1M --memory-total-size=10G run"]),
    (
        "Random read/write on 2 GiB of files: create, run, remove",
        &[
            "rsysbench fileio --file-total-size=2G prepare",
            "rsysbench fileio --file-total-size=2G --file-test-mode=rndrw --time=30 run",
            "rsysbench fileio --file-total-size=2G cleanup",
        ],
    ),
    (
        "Events per second and 95th percentile latency at 1, 2 and 4 threads, from JSON with jq",
        &[
            "for t in 1 2 4; do",
            "  rsysbench cpu --threads=$t --time=5 --output-format=json run",
            "done | jq -r '[.threads, .events_per_second, .latency_ms.percentile_value] | @tsv'",
        ],
    ),
    (
        "Events per second each second, from CSV with awk (column 4 is time_s, 8 events_per_second)",
        &[
            "rsysbench cpu --report-interval=1 --time=10 --output-format=csv run |",
            "  awk -F, '$1 == \"interval\" { print $4, $8 }'",
        ],
    ),
    (
        "The same figure from the text report, as from sysbench",
        &["rsysbench cpu --time=10 run | grep 'events per second'"],
    ),
];

/// Lines shown as typed, indented.
fn example(m: &mut String, lines: &[&str]) {
    m.push_str(".RS 4\n.nf\n");
    for l in lines {
        m.push_str(&esc(l));
        m.push('\n');
    }
    m.push_str(".fi\n.RE\n");
}

fn esc_par(title: &str, pars: &[&str]) -> String {
    let mut s = format!(".SH {title}\n");
    for (i, p) in pars.iter().enumerate() {
        if i > 0 {
            s.push_str(".PP\n");
        }
        s.push_str(&esc(p));
        s.push('\n');
    }
    s
}

#[test]
fn man_page_is_current() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../man/rsysbench.1");
    let page = render();
    if std::env::var("RSYSBENCH_WRITE_MAN").as_deref() == Ok("1") {
        std::fs::write(&path, &page).expect("write man/rsysbench.1");
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        on_disk == page,
        "man/rsysbench.1 is out of date: run RSYSBENCH_WRITE_MAN=1 cargo test -p rsysbench man_page"
    );
}
