//! `lockfile=` as a setting; the locks are run/filelock.rs.

/// How a job locks its files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    #[default]
    None,
    Exclusive,
    ReadWrite,
}

impl Mode {
    pub fn from_options(o: &crate::options::JobOptions) -> Self {
        match o.choice("lockfile").0.as_str() {
            "exclusive" => Mode::Exclusive,
            "readwrite" => Mode::ReadWrite,
            _ => Mode::None,
        }
    }
}
