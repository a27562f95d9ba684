//! mbw 1.2.2's text lines (spec §2), number formats as C's printf.

use crate::result::{Plan, Record};
use rbench_common::units::mbw::format_c_fixed;

/// Lines printed before allocation (unless -q).
pub fn header(plan: &Plan) -> String {
    let mut s = format!(
        "Long uses 8 bytes. Allocating {}*{} elements = {} bytes of memory.\n",
        plan.arrays, plan.elements, plan.bytes_per_thread
    );
    if plan.threads > 1 {
        let cpus: Vec<String> = plan.cpus.iter().map(|c| c.to_string()).collect();
        s.push_str(&format!(
            "Using {} threads on CPUs {}, each with its own arrays: {} bytes in all.\n",
            plan.threads,
            cpus.join(","),
            plan.bytes_per_thread * plan.threads as u64
        ));
    }
    if plan.methods.contains(&"MCBLOCK") {
        s.push_str(&format!(
            "Using {} bytes as blocks for memcpy block copy test.\n",
            plan.block_size_bytes
        ));
    }
    s
}

/// The line printed once the arrays are ready (unless -q).
pub fn ready(plan: &Plan) -> String {
    format!(
        "Getting down to business... Doing {} runs per test.\n",
        plan.runs_per_test
    )
}

/// One result line: `%d\tMethod: %s\tElapsed: %.5f\tMiB: %.5f\tCopy: %.3f MiB/s`.
pub fn line(r: &Record) -> String {
    format!(
        "{}\tMethod: {}\tElapsed: {}\tMiB: {}\tCopy: {} MiB/s\n",
        r.run,
        r.method,
        format_c_fixed(r.elapsed_s, 5),
        format_c_fixed(r.mib, 5),
        format_c_fixed(r.mib_per_s, 3)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_line_is_mbws() {
        let r = Record {
            method: "MEMCPY",
            run: "0".into(),
            elapsed_s: 0.00057,
            mib: 8.0,
            mib_per_s: 8.0 / 0.00057,
            threads: 1,
        };
        assert_eq!(
            line(&r),
            "0\tMethod: MEMCPY\tElapsed: 0.00057\tMiB: 8.00000\tCopy: 14035.088 MiB/s\n"
        );
        let z = Record {
            elapsed_s: 0.0,
            mib_per_s: 8.0 / 0.0,
            run: "AVG".into(),
            ..r
        };
        assert_eq!(
            line(&z),
            "AVG\tMethod: MEMCPY\tElapsed: 0.00000\tMiB: 8.00000\tCopy: inf MiB/s\n"
        );
    }
}
