//! Unit parsing and formatting, one module per original's dialect: each
//! tool's numbers read and print exactly as its original's do.

use std::fmt;

pub mod fio;
pub mod iperf;
pub mod mbw;
pub mod sysbench;

/// A value that could not be parsed; the message says what and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnitError(pub String);

impl UnitError {
    pub fn new(msg: impl Into<String>) -> Self {
        Self(msg.into())
    }
}

impl fmt::Display for UnitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UnitError {}
