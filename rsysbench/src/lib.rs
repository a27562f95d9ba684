//! rsysbench's command-line grammar as a library, so the fuzz target in
//! `fuzz/` can drive it; the program is `main.rs`. Under `cfg(test)` this
//! crate is empty: the bin target already runs the unit tests of these
//! modules.

// The program uses the rest of these modules (help tables, settings'
// fields); the library only parses.
#[cfg(not(test))]
#[allow(dead_code)]
mod args;
#[cfg(not(test))]
#[allow(dead_code)]
mod error;
#[cfg(not(test))]
#[allow(dead_code)]
mod options;
#[cfg(not(test))]
#[allow(dead_code)]
mod settings;

/// Read a command line (without the program name) as far as rsysbench does
/// before it measures: both passes, the general settings, each built-in
/// test's option table and every typed value in it. Returns sysbench's error
/// text or `Ok`; must never panic, whatever `args` holds.
#[cfg(not(test))]
pub fn check_command_line(args: &[String]) -> Result<(), String> {
    let mut cl = args::parse(args).map_err(|f| f.text)?;
    settings::Settings::read(&cl.values, &mut |_| {}).map_err(|f| f.text)?;
    let tables = [
        options::FILEIO,
        options::CPU,
        options::MEMORY,
        options::THREADS,
        options::MUTEX,
    ];
    for table in tables {
        args::take_test_options(&mut cl, table).map_err(|f| f.text)?;
        for d in table {
            let _ = cl.values.int(d.name);
            let _ = cl.values.size(d.name);
            let _ = cl.values.double(d.name);
            let _ = cl.values.list(d.name);
        }
    }
    Ok(())
}
