//! `--output-format=json`: one document, the plan's fields and a `results`
//! array with one object per run and per average. A Copy rate that is
//! infinite (elapsed below the microsecond resolution) is written as null.

use serde::Serialize;

use crate::result::{Plan, Record};

#[derive(Serialize)]
struct Document<'a> {
    tool: &'static str,
    version: &'static str,
    #[serde(flatten)]
    plan: &'a Plan,
    results: &'a [Record],
}

pub fn render(plan: &Plan, records: &[Record]) -> Result<String, String> {
    rbench_common::output::to_json(&Document {
        tool: "rmbw",
        version: env!("CARGO_PKG_VERSION"),
        plan,
        results: records,
    })
}
