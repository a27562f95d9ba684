//! Unit parsing and formatting, one module per original's dialect (being written).
