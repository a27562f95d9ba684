//! `riperf`: a drop-in replacement for iperf3 3.12.

mod protocol;

fn main() {
    eprintln!("riperf: not yet implemented");
    std::process::exit(1);
}
