//! `--output-format=json` (rsysbench extension): one document holding the
//! run's settings, the final summary, checkpoints and intervals.

use serde::Serialize;

use crate::result::{Interval, Summary};

#[derive(Serialize)]
pub struct Document<'a> {
    pub tool: &'static str,
    pub sysbench_version: &'static str,
    pub test: &'a str,
    pub threads: u32,
    /// Every option in effect (given or default), sysbench's `_` names.
    pub options: serde_json::Map<String, serde_json::Value>,
    /// "completed", "forced_shutdown" or "interrupted".
    pub status: &'a str,
    #[serde(flatten)]
    pub summary: &'a Summary,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub checkpoints: &'a [Summary],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub intervals: &'a [Interval],
}

pub fn render(doc: &Document) -> String {
    rbench_common::output::to_json(doc).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}\n"))
}
