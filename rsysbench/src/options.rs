//! Every option rsysbench knows, defined once: the tables drive the command
//! line parser, the config file reader, `--help`, `<test> help` and the man
//! page (spec §1, §2).

/// How an option's value is read (the `help` column shows its form).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `[=on|off]`: bare, on/true/1, off/false/0.
    Bool,
    /// `=N`: a whole-string integer.
    Int,
    /// `=N` in help, but read as a size (`--file-block-size=16K`).
    IntSize,
    /// `=SIZE`: digits with a K/M/G/T suffix.
    Size,
    /// `=N`: a floating point number.
    Double,
    /// `=STRING`.
    Str,
    /// `=[LIST,...]`: comma separated.
    List,
    /// `=FILENAME`.
    File,
}

impl Kind {
    /// The value form `help` prints after the name.
    pub fn help_form(self) -> &'static str {
        match self {
            Kind::Bool => "[=on|off]",
            Kind::Int | Kind::IntSize | Kind::Double => "=N",
            Kind::Size => "=SIZE",
            Kind::Str => "=STRING",
            Kind::List => "=[LIST,...]",
            Kind::File => "=FILENAME",
        }
    }
}

/// One option: its name as typed (with `-`), value kind, default and help.
#[derive(Debug, Clone, Copy)]
pub struct OptDef {
    pub name: &'static str,
    pub kind: Kind,
    /// The default as sysbench prints it in `[...]`; `None` prints nothing.
    pub default: Option<&'static str>,
    pub help: &'static str,
}

const fn opt(
    name: &'static str,
    kind: Kind,
    default: Option<&'static str>,
    help: &'static str,
) -> OptDef {
    OptDef {
        name,
        kind,
        default,
        help,
    }
}

use Kind::*;

/// A titled table of options as `--help` prints it.
pub struct Table {
    /// The title line (`None` for sysbench's untitled percentile table).
    pub title: Option<&'static str>,
    pub options: &'static [OptDef],
}

pub const GENERAL: &[OptDef] = &[
    opt("threads", Int, Some("1"), "number of threads to use"),
    opt("events", Int, Some("0"), "limit for total number of events"),
    opt("time", Int, Some("10"), "limit for total execution time in seconds"),
    opt("forced-shutdown", Str, Some("off"), "number of seconds to wait after the --time limit before forcing shutdown, or 'off' to disable"),
    opt("thread-stack-size", Size, Some("64K"), "size of stack per thread"),
    opt("rate", Int, Some("0"), "average transactions rate. 0 for unlimited rate"),
    opt("report-interval", Int, Some("0"), "periodically report intermediate statistics with a specified interval in seconds. 0 disables intermediate reports"),
    opt("report-checkpoints", List, Some(""), "dump full statistics and reset all counters at specified points in time. The argument is a list of comma-separated values representing the amount of time in seconds elapsed from start of test when report checkpoint(s) must be performed. Report checkpoints are off by default."),
    opt("debug", Bool, Some("off"), "print more debugging info"),
    opt("validate", Bool, Some("off"), "perform validation checks where possible"),
    opt("help", Bool, Some("off"), "print help and exit"),
    opt("version", Bool, Some("off"), "print version and exit"),
    opt("config-file", File, None, "File containing command line options"),
    opt("tx-rate", Int, Some("0"), "deprecated alias for --rate"),
    opt("max-requests", Int, Some("0"), "deprecated alias for --events"),
    opt("max-time", Int, Some("0"), "deprecated alias for --time"),
    opt("num-threads", Int, Some("1"), "deprecated alias for --threads"),
];

pub const RAND: &[OptDef] = &[
    opt(
        "rand-type",
        Str,
        Some("special"),
        "random numbers distribution {uniform,gaussian,special,pareto}",
    ),
    opt(
        "rand-spec-iter",
        Int,
        Some("12"),
        "number of iterations used for numbers generation",
    ),
    opt(
        "rand-spec-pct",
        Int,
        Some("1"),
        "percentage of values to be treated as 'special' (for special distribution)",
    ),
    opt(
        "rand-spec-res",
        Int,
        Some("75"),
        "percentage of 'special' values to use (for special distribution)",
    ),
    opt(
        "rand-seed",
        Int,
        Some("0"),
        "seed for random number generator. When 0, the current time is used as a RNG seed.",
    ),
    opt(
        "rand-pareto-h",
        Double,
        Some("0.2"),
        "parameter h for pareto distribution",
    ),
];

pub const LOG: &[OptDef] = &[opt(
    "verbosity",
    Int,
    Some("3"),
    "verbosity level {5 - debug, 0 - only critical messages}",
)];

pub const STATS: &[OptDef] = &[
    opt("percentile", Int, Some("95"), "percentile to calculate in latency statistics (1-100). Use the special value of 0 to disable percentile calculations"),
    opt("histogram", Bool, Some("off"), "print latency histogram in report"),
];

/// rsysbench's own options (not in sysbench).
pub const EXTENSION: &[OptDef] = &[
    opt("output-format", Str, Some("text"), "report format {text,json,csv} (rsysbench extension)"),
    opt("rbench-version", Bool, Some("off"), "print rsysbench's own version and exit (--version prints sysbench's line, as scripts expect)"),
];

pub const DB: &[OptDef] = &[
    opt(
        "db-driver",
        Str,
        Some("mysql"),
        "specifies database driver to use ('help' to get list of available drivers)",
    ),
    opt(
        "db-ps-mode",
        Str,
        Some("auto"),
        "prepared statements usage mode {auto, disable}",
    ),
    opt(
        "db-debug",
        Bool,
        Some("off"),
        "print database-specific debug information",
    ),
];

pub const MYSQL: &[OptDef] = &[
    opt("mysql-host", List, Some("localhost"), "MySQL server host"),
    opt("mysql-port", List, Some("3306"), "MySQL server port"),
    opt("mysql-socket", List, None, "MySQL socket"),
    opt("mysql-user", Str, Some("sbtest"), "MySQL user"),
    opt("mysql-password", Str, Some(""), "MySQL password"),
    opt("mysql-db", Str, Some("sbtest"), "MySQL database name"),
    opt(
        "mysql-ssl",
        Bool,
        Some("off"),
        "use SSL connections, if available in the client library",
    ),
    opt(
        "mysql-ssl-cipher",
        Str,
        Some(""),
        "use specific cipher for SSL connections",
    ),
    opt(
        "mysql-compression",
        Bool,
        Some("off"),
        "use compression, if available in the client library",
    ),
    opt(
        "mysql-debug",
        Bool,
        Some("off"),
        "trace all client library calls",
    ),
    opt(
        "mysql-ignore-errors",
        List,
        Some("1213,1020,1205"),
        "list of errors to ignore, or \"all\"",
    ),
    opt(
        "mysql-dry-run",
        Bool,
        Some("off"),
        "Dry run, pretend that all MySQL client API calls are successful without executing them",
    ),
];

pub const PGSQL: &[OptDef] = &[
    opt(
        "pgsql-host",
        Str,
        Some("localhost"),
        "PostgreSQL server host",
    ),
    opt("pgsql-port", Int, Some("5432"), "PostgreSQL server port"),
    opt("pgsql-user", Str, Some("sbtest"), "PostgreSQL user"),
    opt("pgsql-password", Str, Some(""), "PostgreSQL password"),
    opt("pgsql-db", Str, Some("sbtest"), "PostgreSQL database name"),
];

/// The options matched in the first pass, before the test is known.
pub const FIRST_PASS: &[&[OptDef]] = &[GENERAL, RAND, LOG, STATS, EXTENSION, DB, MYSQL, PGSQL];

pub const CPU: &[OptDef] = &[opt(
    "cpu-max-prime",
    Int,
    Some("10000"),
    "upper limit for primes generator",
)];

pub const MEMORY: &[OptDef] = &[
    opt(
        "memory-block-size",
        Size,
        Some("1K"),
        "size of memory block for test",
    ),
    opt(
        "memory-total-size",
        Size,
        Some("100G"),
        "total size of data to transfer",
    ),
    opt(
        "memory-scope",
        Str,
        Some("global"),
        "memory access scope {global,local}",
    ),
    opt(
        "memory-hugetlb",
        Bool,
        Some("off"),
        "allocate memory from HugeTLB pool",
    ),
    opt(
        "memory-oper",
        Str,
        Some("write"),
        "type of memory operations {read, write, none}",
    ),
    opt(
        "memory-access-mode",
        Str,
        Some("seq"),
        "memory access mode {seq,rnd}",
    ),
];

pub const THREADS: &[OptDef] = &[
    opt(
        "thread-yields",
        Int,
        Some("1000"),
        "number of yields to do per request",
    ),
    opt("thread-locks", Int, Some("8"), "number of locks per thread"),
];

pub const MUTEX: &[OptDef] = &[
    opt("mutex-num", Int, Some("4096"), "total size of mutex array"),
    opt(
        "mutex-locks",
        Int,
        Some("50000"),
        "number of mutex locks to do per thread",
    ),
    opt(
        "mutex-loops",
        Int,
        Some("10000"),
        "number of empty loops to do outside mutex lock",
    ),
];

pub const FILEIO: &[OptDef] = &[
    opt("file-num", Int, Some("128"), "number of files to create"),
    opt(
        "file-block-size",
        IntSize,
        Some("16384"),
        "block size to use in all IO operations",
    ),
    opt(
        "file-total-size",
        Size,
        Some("2G"),
        "total size of files to create",
    ),
    opt(
        "file-test-mode",
        Str,
        None,
        "test mode {seqwr, seqrewr, seqrd, rndrd, rndwr, rndrw}",
    ),
    opt(
        "file-io-mode",
        Str,
        Some("sync"),
        "file operations mode {sync,async,mmap}",
    ),
    opt(
        "file-async-backlog",
        Int,
        Some("128"),
        "number of asynchronous operatons to queue per thread",
    ),
    opt(
        "file-extra-flags",
        List,
        Some(""),
        "list of additional flags to use to open files {sync,dsync,direct}",
    ),
    opt(
        "file-fsync-freq",
        Int,
        Some("100"),
        "do fsync() after this number of requests (0 - don't use fsync())",
    ),
    opt(
        "file-fsync-all",
        Bool,
        Some("off"),
        "do fsync() after each write operation",
    ),
    opt(
        "file-fsync-end",
        Bool,
        Some("on"),
        "do fsync() at the end of test",
    ),
    opt(
        "file-fsync-mode",
        Str,
        Some("fsync"),
        "which method to use for synchronization {fsync, fdatasync}",
    ),
    opt(
        "file-merged-requests",
        Int,
        Some("0"),
        "merge at most this number of IO requests if possible (0 - don't merge)",
    ),
    opt(
        "file-rw-ratio",
        Double,
        Some("1.5"),
        "reads/writes ratio for combined test",
    ),
];

/// The `--help` tables, in sysbench's order (spec: help_general.out).
pub const HELP_TABLES: &[Table] = &[
    Table {
        title: Some("General options:"),
        options: GENERAL,
    },
    Table {
        title: Some("Pseudo-Random Numbers Generator options:"),
        options: RAND,
    },
    Table {
        title: Some("Log options:"),
        options: LOG,
    },
    Table {
        title: None,
        options: STATS,
    },
    Table {
        title: Some("rsysbench options (not in sysbench):"),
        options: EXTENSION,
    },
];

/// Find `name` (in `_` form) in the given tables.
pub fn find<'a>(tables: &[&'a [OptDef]], name: &str) -> Option<&'a OptDef> {
    tables
        .iter()
        .flat_map(|t| t.iter())
        .find(|d| same_name(d.name, name))
}

/// sysbench treats `-` and `_` in names as the same character.
pub fn same_name(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .all(|(x, y)| x == y || (matches!(x, b'-' | b'_') && matches!(y, b'-' | b'_')))
}

/// The name as sysbench spells it internally (`report_interval`).
pub fn internal_name(name: &str) -> String {
    name.replace('-', "_")
}

/// Render one option table as sysbench does: two spaces, `--NAME` + form
/// left-justified to the widest entry + 1, the help, then ` [default]`.
pub fn render_table(options: &[OptDef]) -> String {
    let width = options
        .iter()
        .map(|o| o.name.len() + o.kind.help_form().len())
        .max()
        .unwrap_or(0)
        + 1;
    let mut s = String::new();
    for o in options {
        let head = format!("{}{}", o.name, o.kind.help_form());
        s.push_str(&format!("  --{head:<width$}{}", o.help));
        if let Some(d) = o.default {
            s.push_str(&format!(" [{d}]"));
        }
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_with_dash_or_underscore() {
        assert!(same_name("memory-block-size", "memory_block_size"));
        assert!(same_name("memory-block-size", "memory-block_size"));
        assert!(!same_name("memory-block-size", "memory-block-sizes"));
        assert!(find(&[MEMORY], "memory_scope").is_some());
    }

    #[test]
    fn renders_like_sysbench() {
        assert_eq!(
            render_table(THREADS),
            "  --thread-yields=N number of yields to do per request [1000]\n  \
             --thread-locks=N  number of locks per thread [8]\n"
        );
    }
}
