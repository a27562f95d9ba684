//! `rsysbench`: a drop-in replacement for sysbench 1.0.20's built-in tests.

mod aio;
mod app;
mod args;
mod builtin;
mod completions;
mod db;
mod error;
mod help;
mod log;
mod lua;
#[cfg(test)]
mod man;
mod options;
mod pmutex;
mod report;
mod result;
mod rng;
mod runner;
mod settings;
mod stats;
mod workloads;

fn main() {
    rbench_common::stop::install();
    lua::unbuffer_c_stdout();
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    std::process::exit(app::main(&args));
}
