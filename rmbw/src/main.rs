//! `rmbw`: a drop-in replacement for mbw 1.2.2 (not yet implemented).

fn main() {
    eprintln!("rmbw: not yet implemented");
    std::process::exit(1);
}
