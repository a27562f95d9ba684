//! The option table: every rmbw option is defined once here. The getopt
//! parser, mbw's `-h` usage text, `--help` and the man page are all
//! generated from it, so they cannot drift apart.

/// What an option sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    Runs,
    NoAverage,
    Test,
    Block,
    Quiet,
    Usage,
    Threads,
    Tests,
    OutputFormat,
    Help,
    Version,
    GenerateMan,
    GenerateCompletions,
}

/// One option: its names, argument, default and help texts.
#[derive(Debug, Clone, Copy)]
pub struct OptDef {
    pub key: Key,
    /// The short (mbw) name, if any.
    pub short: Option<char>,
    /// The long (rmbw-only) name, if any.
    pub long: Option<&'static str>,
    /// The argument's name when the option takes one.
    pub arg: Option<&'static str>,
    /// The default, as shown in `--help` and the man page.
    pub default: Option<&'static str>,
    /// The lines mbw 1.2.2's `-h` text shows for it, verbatim (spec §4).
    pub mbw_usage: &'static [&'static str],
    /// One paragraph for `--help` and the man page.
    pub help: &'static str,
    /// Left out of `--help` and the man page (developer use).
    pub hidden: bool,
}

impl OptDef {
    /// How a user writes it, e.g. `-n N` or `--threads=N`.
    pub fn synopsis(&self) -> String {
        match (self.short, self.long, self.arg) {
            (Some(s), _, Some(a)) => format!("-{s} {a}"),
            (Some(s), _, None) => format!("-{s}"),
            (None, Some(l), Some(a)) => format!("--{l}={a}"),
            (None, Some(l), None) => format!("--{l}"),
            (None, None, _) => String::new(),
        }
    }
}

/// mbw 1.2.2's default number of runs per test.
pub const DEFAULT_RUNS: u32 = 10;
/// mbw 1.2.2's default MCBLOCK block size in bytes.
pub const DEFAULT_BLOCK: u64 = 262_144;

/// Every option, in the order mbw's `-h` text lists the short ones.
pub const OPTIONS: &[OptDef] = &[
    OptDef {
        key: Key::Runs,
        short: Some('n'),
        long: None,
        arg: Some("N"),
        default: Some("10"),
        mbw_usage: &["-n: number of runs per test"],
        help: "Number of runs per test, at least 1. Each run is one timed copy of the whole array.",
        hidden: false,
    },
    OptDef {
        key: Key::NoAverage,
        short: Some('a'),
        long: None,
        arg: None,
        default: None,
        mbw_usage: &["-a: Don't display average"],
        help: "Do not print the AVG line (or row) after each test's runs.",
        hidden: false,
    },
    OptDef {
        key: Key::Test,
        short: Some('t'),
        long: None,
        arg: Some("T"),
        default: Some("all three"),
        mbw_usage: &[
            "-t0: memcpy test",
            "-t1: dumb (b[i]=a[i] style) test",
            "-t2 : memcpy test with fixed block size",
        ],
        help:
            "Select a test; repeat to select several. 0: MEMCPY, one memcpy() of the whole array. \
               1: DUMB, a loop copying one 8-byte element at a time. 2: MCBLOCK, memcpy() of one \
               block at a time through both arrays. Tests run in this order whatever the order \
               given. Without -t and --test all three run.",
        hidden: false,
    },
    OptDef {
        key: Key::Block,
        short: Some('b'),
        long: None,
        arg: Some("BYTES"),
        default: Some("262144"),
        mbw_usage: &["-b <size>: block size in bytes for -t2 (default: 262144)"],
        help: "Block size in bytes for the MCBLOCK test. It may not exceed the array size; when \
               the array is not a multiple of it, the last block is shorter.",
        hidden: false,
    },
    OptDef {
        key: Key::Quiet,
        short: Some('q'),
        long: None,
        arg: None,
        default: None,
        mbw_usage: &["-q: quiet (print statistics only)"],
        help: "Print only the result lines, not the header lines.",
        hidden: false,
    },
    OptDef {
        key: Key::Usage,
        short: Some('h'),
        long: None,
        arg: None,
        default: None,
        mbw_usage: &[],
        help: "Print mbw's usage text and exit with status 1, as mbw does.",
        hidden: false,
    },
    OptDef {
        key: Key::Threads,
        short: None,
        long: Some("threads"),
        arg: Some("N"),
        default: Some("1"),
        mbw_usage: &[],
        help: "Run N threads, each pinned to its own CPU and copying its own pair of arrays of \
               the given size (allocated and first touched by that thread). All threads start \
               each run together; a run's Elapsed is from the first thread's start to the last \
               thread's end, MiB is the sum over threads, so Copy is the aggregate bandwidth. \
               N may not exceed the CPUs this process may use.",
        hidden: false,
    },
    OptDef {
        key: Key::Tests,
        short: None,
        long: Some("test"),
        arg: Some("LIST"),
        default: None,
        mbw_usage: &[],
        help: "Select tests by name, comma-separated, in addition to -t: memcpy, dumb, mcblock \
               (mbw's three), copy, scale, add, triad (the STREAM kernels on 8-byte doubles), \
               stream (all four STREAM kernels), all (all seven). STREAM kernels count bytes as \
               STREAM does: copy and scale move 2 arrays per run, add and triad 3 (a third array \
               is allocated only for add and triad).",
        hidden: false,
    },
    OptDef {
        key: Key::OutputFormat,
        short: None,
        long: Some("output-format"),
        arg: Some("FORMAT"),
        default: Some("text"),
        mbw_usage: &[],
        help: "text: mbw's lines. json: one JSON document with a results array. csv: one header \
               row, then one row per run and per average. Both have the columns method, run \
               (\"AVG\" for averages), elapsed_s, mib, mib_per_s, threads. With json and csv, \
               errors go to stderr so that stdout stays parseable.",
        hidden: false,
    },
    OptDef {
        key: Key::Help,
        short: None,
        long: Some("help"),
        arg: None,
        default: None,
        mbw_usage: &[],
        help: "Print this help, with the long options, and exit with status 0.",
        hidden: false,
    },
    OptDef {
        key: Key::Version,
        short: None,
        long: Some("version"),
        arg: None,
        default: None,
        mbw_usage: &[],
        help: "Print the version and exit.",
        hidden: false,
    },
    OptDef {
        key: Key::GenerateMan,
        short: None,
        long: Some("generate-man"),
        arg: None,
        default: None,
        mbw_usage: &[],
        help: "Print the man page (roff) generated from this table.",
        hidden: true,
    },
    OptDef {
        key: Key::GenerateCompletions,
        short: None,
        long: Some("generate-completions"),
        arg: Some("SHELL"),
        default: None,
        mbw_usage: &[],
        help: "Print the bash, zsh or fish completion script generated from this table.",
        hidden: true,
    },
];

/// Look up a short option.
pub fn by_short(c: char) -> Option<&'static OptDef> {
    OPTIONS.iter().find(|o| o.short == Some(c))
}
