//! A run that ends early: text for each stream and the exit status, printed
//! once by `main`.

#[derive(Debug, Clone, Default)]
pub struct Failure {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

impl Failure {
    pub fn stderr(msg: impl Into<String>) -> Self {
        Self {
            stdout: String::new(),
            stderr: msg.into(),
            code: 1,
        }
    }

    /// An early end that is not an error (`--version`, `--cmdhelp`).
    pub fn done(stdout: impl Into<String>) -> Self {
        Self {
            stdout: stdout.into(),
            stderr: String::new(),
            code: 0,
        }
    }
}
