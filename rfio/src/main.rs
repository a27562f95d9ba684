// `rfio`: a drop-in replacement for fio 3.33. This module list is also the
// library's: `lib.rs` includes this file (hence `//`, not `//!`, above).

mod app;
mod cli;
mod completions;
mod engine;
mod failure;
mod job;
mod man;
mod merge;
mod options;
mod parse_check;
mod plan;
mod plot;
mod remote;
mod report;
mod result;
mod run;
mod stats;
mod verify;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    std::process::exit(app::main(&args));
}
