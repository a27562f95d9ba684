//! `rsysbench`: a drop-in replacement for sysbench 1.0.20 (not yet implemented).

fn main() {
    eprintln!("rsysbench: not yet implemented");
    std::process::exit(1);
}
