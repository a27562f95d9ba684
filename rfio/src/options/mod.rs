//! fio's job options: one declarative table ([`table::OPTIONS`]) drives the
//! command line, job files, `--cmdhelp`, `--showcmd` and the man page.

pub mod help;
pub mod jobfile;
pub mod store;
pub mod table;
pub mod trace;
pub mod value;

pub use store::JobOptions;
pub use table::find;

/// Edit distance used for fio's "Did you mean X?" hints.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The closest known option name, when it is close enough to be a typo.
pub fn closest(name: &str, engine: Option<&str>) -> Option<&'static str> {
    table::OPTIONS
        .iter()
        .filter(|o| o.available_with(engine))
        .map(|o| (distance(name, o.name), o.name))
        .min_by_key(|(d, _)| *d)
        .filter(|(d, _)| *d <= 3 && *d < name.len())
        .map(|(_, n)| n)
}
