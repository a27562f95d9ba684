//! `rmbw`: a drop-in replacement for mbw 1.2.2 (memory copy bandwidth),
//! with correct test labels, threads, STREAM kernels, JSON and CSV.

mod app;
mod arrays;
mod cache;
mod completions;
mod kernels;
mod man;
mod memory;
mod options;
mod report;
mod result;
mod run;

fn main() {
    let args: Vec<String> = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    std::process::exit(app::main(&args));
}
