//! fio's checks of a job's rate options against each other (exit 1).

use super::Job;

/// fio's checks of the rate options against each other (exit 1).
pub fn validate(job: &Job) -> Result<(), String> {
    let sum = |a: &[u64; 3]| a.iter().fold(0u64, |s, v| s.saturating_add(*v));
    if (sum(&job.throttle.rate) > 0 && sum(&job.throttle.rate_iops) > 0)
        || (sum(&job.throttle.rate_min) > 0 && sum(&job.throttle.rate_iops_min) > 0)
    {
        return Err("fio: rate and rate_iops are mutually exclusive\n".into());
    }
    let mut msg = String::new();
    for d in 0..3 {
        if (job.throttle.rate[d] > 0 && job.throttle.rate[d] < job.throttle.rate_min[d])
            || (job.throttle.rate_iops[d] > 0
                && job.throttle.rate_iops[d] < job.throttle.rate_iops_min[d])
        {
            msg.push_str(&format!("fio: minimum rate exceeds rate, ddir {d}\n"));
        }
    }
    if msg.is_empty() {
        Ok(())
    } else {
        Err(msg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::test_job as job;

    #[test]
    fn rate_checks() {
        let mut j = job(&[]);
        j.throttle.rate = [1 << 20; 3];
        j.throttle.rate_iops = [10; 3];
        assert!(validate(&j).is_err());
        let mut j = job(&[]);
        j.throttle.rate_iops = [10, 20, 20];
        j.throttle.rate_iops_min = [5, 30, 30];
        assert_eq!(
            validate(&j).unwrap_err(),
            "fio: minimum rate exceeds rate, ddir 1\nfio: minimum rate exceeds rate, ddir 2\n"
        );
        assert!(validate(&job(&["--rate=2m", "--rate_min=1m"])).is_ok());
        assert!(crate::job::expand(
            &crate::cli::parse(&[
                "rfio".into(),
                "--name=t".into(),
                "--rate=1m".into(),
                "--rate_min=2m".into()
            ])
            .unwrap()
        )
        .is_err());
    }
}
