//! `steadystate` (alias `ss`), `ss_dur`, `ss_ramp` as settings (§3): the
//! criterion and its limit, the window, and fio's rule that a reporting
//! group's jobs share them. The judging is run/pacing/steadystate.rs.

use rbench_common::units::fio::parse_size;
use serde::Serialize;

/// What is judged and against which limit (`iops_slope:0.01%`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Criterion {
    pub iops: bool,
    pub slope: bool,
    /// The limit is a percentage of the window's mean.
    pub pct: bool,
    pub limit: f64,
}

impl Criterion {
    /// Parse `word` and its `:postfix` with fio's messages (§3).
    pub fn parse(word: &str, postfix: Option<&str>, kb_base: u64) -> Result<Criterion, String> {
        let (iops, slope) = match word {
            "iops" => (true, false),
            "iops_slope" => (true, true),
            "bw" => (false, false),
            _ => (false, true),
        };
        let Some(nr) = postfix else {
            return Err(
                "fio: steadystate threshold must be specified in addition to criterion".into(),
            );
        };
        let mut c = Criterion {
            iops,
            slope,
            pct: false,
            limit: 0.0,
        };
        if let Some(i) = nr.find('%') {
            c.pct = true;
            c.limit = nr[..i]
                .trim_end()
                .parse()
                .map_err(|_| "fio: could not parse steadystate threshold percentage")?;
        } else if iops {
            c.limit = nr
                .trim()
                .parse()
                .map_err(|_| "fio: steadystate IOPS threshold postfix parsing failed")?;
        } else {
            // fio's str_to_decimal: a size, or failing that its leading
            // integer (`0.5` is 0, `1x` is 1).
            let lead: String = nr.trim().chars().take_while(char::is_ascii_digit).collect();
            c.limit = match parse_size(nr, kb_base) {
                Ok(v) => v as f64,
                Err(_) => lead
                    .parse::<u64>()
                    .map_err(|_| "fio: steadystate BW threshold postfix parsing failed")?
                    as f64,
            };
        }
        Ok(c)
    }
}

/// A job's steady-state settings; only when `ss_dur` is at least a second
/// (fio keeps whole seconds; below one the feature is off).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SteadyState {
    pub criterion: Criterion,
    pub dur_s: u64,
    pub ramp_us: u64,
}

impl SteadyState {
    pub fn new(criterion: Criterion, dur_us: u64, ramp_us: u64) -> Option<SteadyState> {
        let dur_s = dur_us / 1_000_000;
        (dur_s > 0).then_some(SteadyState {
            criterion,
            dur_s,
            ramp_us,
        })
    }
}

/// fio checks each job's steadystate settings as it adds the job: they must
/// be those of every earlier job of its group (its `g=`, with or without
/// group_reporting; a job without steadystate counts as all zero). A job
/// that differs is rejected: the header lines so far, its own included,
/// then fio's message, exit 1. `jobs`: the jobs added so far, the new one
/// last.
pub fn check_added(jobs: &[super::Job], normal: bool) -> Result<(), crate::failure::Failure> {
    let Some((new, before)) = jobs.split_last() else {
        return Ok(());
    };
    let differs = |j: &super::Job| j.groupid == new.groupid && j.steadystate != new.steadystate;
    if !before.iter().any(differs) {
        return Ok(());
    }
    let mut stdout = if normal {
        super::header::job_lines(jobs)
    } else {
        String::new()
    };
    // fio's error text is cut to its buffer: `Invalid argume`.
    stdout.push_str(
        "fio: file:steadystate.c:338, func=job rejected: steadystate options must be \
         consistent within reporting groups, error=Invalid argume\n",
    );
    Err(crate::failure::Failure {
        stdout,
        stderr: String::new(),
        code: 1,
    })
}

impl Serialize for Criterion {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.text())
    }
}

impl Criterion {
    /// fio's `ss` text: `iops_slope:0.010000%`.
    pub fn text(&self) -> String {
        format!(
            "{}{}:{:.6}{}",
            if self.iops { "iops" } else { "bw" },
            if self.slope { "_slope" } else { "" },
            self.limit as f32,
            if self.pct { "%" } else { "" }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_like_fio() {
        let c = Criterion::parse("iops_slope", Some("0.01%"), 1024).unwrap();
        assert!(c.iops && c.slope && c.pct);
        assert_eq!(c.text(), "iops_slope:0.010000%");
        assert_eq!(
            Criterion::parse("bw", Some("1m"), 1024).unwrap().limit,
            1048576.0
        );
        assert!(Criterion::parse("iops", None, 1024).is_err());
        assert!(Criterion::parse("iops", Some("abc"), 1024).is_err());
        assert_eq!(
            Criterion::parse("bw", Some("0.5"), 1024).unwrap().limit,
            0.0
        );
        assert!(Criterion::parse("bw", Some("x"), 1024).is_err());
        assert!(
            SteadyState::new(Criterion::parse("bw", Some("1"), 1024).unwrap(), 999_999, 0)
                .is_none()
        );
    }
}
