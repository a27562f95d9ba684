//! `--output-format=csv`: exactly one header row (the [`Record`] fields,
//! snake_case), then one row per run and per average.

use crate::result::Record;

pub fn render(records: &[Record]) -> Result<String, String> {
    if records.is_empty() {
        // Still one header row when nothing ran (e.g. stopped at once).
        return Ok("method,run,elapsed_s,mib,mib_per_s,threads\n".to_string());
    }
    rbench_common::output::to_csv(records)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_matches_the_record_fields() {
        let r = Record {
            method: "DUMB",
            run: "AVG".into(),
            elapsed_s: 0.5,
            mib: 8.0,
            mib_per_s: 16.0,
            threads: 1,
        };
        let full = render(&[r]).unwrap();
        let empty = render(&[]).unwrap();
        assert_eq!(full.lines().next(), empty.lines().next());
        assert_eq!(full.lines().nth(1), Some("DUMB,AVG,0.5,8.0,16.0,1"));
    }
}
