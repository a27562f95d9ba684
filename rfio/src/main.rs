//! `rfio`: a drop-in replacement for fio 3.33 (not yet implemented).

fn main() {
    eprintln!("rfio: not yet implemented");
    std::process::exit(1);
}
