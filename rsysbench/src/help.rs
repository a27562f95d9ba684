//! `--help` and `<test> help`, generated from the option tables (spec §1).

use crate::builtin::Builtin;
use crate::options::{self, render_table};

/// sysbench's `--help` text; with `extensions`, plus rsysbench's own
/// options table (shown to a person at a terminal: scripts and sysbench's
/// own suite compare the whole text with sysbench's).
pub fn general(extensions: bool) -> String {
    let mut s = String::from(
        "Usage:\n  sysbench [options]... [testname] [command]\n\n\
         Commands implemented by most tests: prepare run cleanup help\n\n",
    );
    for t in options::HELP_TABLES {
        if !extensions && std::ptr::eq(t.options, options::EXTENSION) {
            continue;
        }
        if let Some(title) = t.title {
            s.push_str(title);
            s.push('\n');
        }
        s.push_str(&render_table(t.options));
        s.push('\n');
    }
    s.push_str("General database options:\n\n");
    s.push_str(&render_table(options::DB));
    s.push_str("\n\nCompiled-in database drivers:\n  mysql - MySQL driver\n  pgsql - PostgreSQL driver\n\n");
    s.push_str("mysql options:\n");
    s.push_str(&render_table(options::MYSQL));
    s.push_str("\npgsql options:\n");
    s.push_str(&render_table(options::PGSQL));
    s.push_str("\nCompiled-in tests:\n");
    for b in Builtin::ALL {
        s.push_str(&format!("  {} - {}\n", b.name(), b.description()));
    }
    s.push_str("\nSee 'sysbench <testname> help' for a list of options for each test.\n\n");
    s
}

/// `sysbench <test> help` (after the header).
pub fn test(b: Builtin) -> String {
    format!("{} options:\n{}\n", b.name(), render_table(b.options()))
}
