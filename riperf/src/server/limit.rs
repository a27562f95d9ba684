//! `--server-bitrate-limit`.

use crate::options::Config;

/// `--server-bitrate-limit`: the average over the last intervals (3.12:
/// the interval count is the averaging time over `-i`, at least one).
pub struct RateLimit {
    limit: u64,
    window: Vec<u64>,
    next: usize,
    seen: usize,
    seconds: f64,
}

impl RateLimit {
    pub fn new(cfg: &Config) -> RateLimit {
        let per = if cfg.bitrate_limit_interval <= cfg.interval || cfg.interval <= 0.0 {
            1
        } else {
            (cfg.bitrate_limit_interval / cfg.interval).round() as usize
        };
        RateLimit {
            limit: cfg.server_bitrate_limit,
            window: vec![0; per.max(1)],
            next: 0,
            seen: 0,
            seconds: cfg.interval.max(0.1) * per.max(1) as f64,
        }
    }

    /// Add one interval's bytes; true when the average is over the limit.
    pub fn exceeded(&mut self, bytes: u64) -> bool {
        if self.limit == 0 {
            return false;
        }
        self.window[self.next] = bytes;
        self.next = (self.next + 1) % self.window.len();
        self.seen += 1;
        if self.seen < self.window.len() {
            return false;
        }
        let total: u64 = self.window.iter().sum();
        (total as f64 * 8.0 / self.seconds) as u64 > self.limit
    }
}
