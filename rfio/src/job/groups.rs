//! The groups of a job's settings, each read from its options by its own
//! constructor (job::build puts them together): the queue, what the report
//! shows, rate and think-time limits, logs, file handling, job order,
//! randomness, latency targets and flow control.

use crate::failure::Failure;
use crate::job::distribution::Distribution;
use crate::options::JobOptions;

/// The I/O queue: depth, submit batch, refill low mark, reap batch.
#[derive(Debug, Clone)]
pub struct Queue {
    pub iodepth: usize,
    pub iodepth_batch: usize,
    /// Refill the queue only once it drained to this depth.
    pub iodepth_low: usize,
    pub complete_min: usize,
    pub complete_max: usize,
}

impl Queue {
    pub(super) fn from_options(o: &JobOptions) -> Self {
        let iodepth = o.int("iodepth").max(1) as usize;
        let batch = match o.int("iodepth_batch") as usize {
            0 => iodepth,
            b => b.min(iodepth),
        };
        let complete_min = (o.int("iodepth_batch_complete_min") as usize).min(iodepth);
        // Unset, the maximum equals the minimum (§3): fio reaps one completion
        // per wait by default, which keeps the queue full.
        let complete_max = if o.is_set("iodepth_batch_complete_max") {
            (o.int("iodepth_batch_complete_max") as usize).clamp(complete_min.max(1), iodepth)
        } else {
            complete_min.max(1)
        };
        Self {
            iodepth,
            iodepth_batch: batch,
            iodepth_low: if o.is_set("iodepth_low") {
                (o.int("iodepth_low") as usize).min(iodepth)
            } else {
                iodepth
            },
            complete_min,
            complete_max,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Reporting {
    pub percentiles: Vec<f64>,
    pub pct_precision: usize,
    pub clat_percentiles: bool,
    pub lat_percentiles: bool,
    pub slat_percentiles: bool,
    pub disable_lat: bool,
    pub disable_clat: bool,
    pub disable_slat: bool,
    pub bwavgtime_ms: u64,
    pub iopsavgtime_ms: u64,
    /// unified_rw_reporting: 0 none, 1 mixed, 2 both.
    pub unified: u8,
    pub unit_base: u32,
    pub sig_figs: usize,
}

impl Reporting {
    pub(super) fn from_options(o: &JobOptions) -> Self {
        let (pcts, prec) = o.floats("percentile_list");
        let unit_base = match o.choice("unit_base").0.as_str() {
            "1" => 1,
            _ => 8,
        };
        let gtod = o.flag("gtod_reduce");
        Self {
            percentiles: pcts,
            pct_precision: prec,
            clat_percentiles: o.flag("clat_percentiles") && !(o.flag("disable_clat") || gtod),
            lat_percentiles: o.flag("lat_percentiles") && !(o.flag("disable_lat") || gtod),
            slat_percentiles: o.flag("slat_percentiles") && !(o.flag("disable_slat") || gtod),
            // gtod_reduce turns every latency measurement off (§3).
            disable_lat: o.flag("disable_lat") || gtod,
            disable_clat: o.flag("disable_clat") || gtod,
            disable_slat: o.flag("disable_slat") || gtod,
            // A bw/iops log with log_avg_msec samples at that period unless
            // bwavgtime/iopsavgtime were given (fio's add_job, §10).
            bwavgtime_ms: super::avg_time(o, "bwavgtime", "write_bw_log"),
            iopsavgtime_ms: super::avg_time(o, "iopsavgtime", "write_iops_log"),
            unified: match o.choice("unified_rw_reporting").0.as_str() {
                "mixed" | "1" => 1,
                "both" | "2" => 2,
                _ => 0,
            },
            unit_base,
            sig_figs: o.int("significant_figures") as usize,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Throttle {
    pub thinktime_us: u64,
    pub thinktime_spin_us: u64,
    pub thinktime_blocks: u64,
    /// Per-direction caps, bytes/s and ios/s (0: none).
    pub rate: [u64; 3],
    pub rate_iops: [u64; 3],
    /// rate_min (bytes/s) and rate_iops_min per direction (0: none).
    pub rate_min: [u64; 3],
    pub rate_iops_min: [u64; 3],
    pub rate_cycle_ms: u64,
    pub rate_poisson: bool,
    pub rate_ignore_thinktime: bool,
    /// thinktime_blocks_type=issue.
    pub thinktime_on_issue: bool,
    pub thinktime_iotime_us: u64,
    pub thinktime_blocks_set: bool,
}

impl Throttle {
    pub(super) fn from_options(o: &JobOptions) -> Self {
        Self {
            thinktime_us: o.time_us("thinktime"),
            thinktime_spin_us: o.time_us("thinktime_spin"),
            thinktime_blocks: o.int("thinktime_blocks").max(1) as u64,
            rate: o.per_dir("rate").unwrap_or([0; 3]),
            rate_iops: o.per_dir("rate_iops").unwrap_or([0; 3]),
            rate_min: o.per_dir("rate_min").unwrap_or([0; 3]),
            rate_iops_min: o.per_dir("rate_iops_min").unwrap_or([0; 3]),
            rate_cycle_ms: o.int("rate_cycle") as u64,
            rate_poisson: o.choice("rate_process").0 == "poisson",
            rate_ignore_thinktime: o.flag("rate_ignore_thinktime"),
            thinktime_on_issue: o.choice("thinktime_blocks_type").0 == "issue",
            thinktime_iotime_us: o.time_us("thinktime_iotime"),
            thinktime_blocks_set: o.is_set("thinktime_blocks"),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Logs {
    pub write_bw_log: Option<String>,
    pub write_iops_log: Option<String>,
    pub write_lat_log: Option<String>,
    pub log_avg_ms: u64,
    pub log_offset: bool,
    pub per_job_logs: bool,
    pub write_hist_log: Option<String>,
    pub log_hist_ms: u64,
    pub log_hist_coarseness: u32,
    pub log_max_value: bool,
    /// log_unix_epoch / log_alternate_epoch: the clock whose time the
    /// log rows start from (log_alternate_epoch_clock_id, 0 = realtime).
    pub log_epoch_clock: Option<i32>,
    pub log_prio: bool,
    /// log_compression (bytes, 0: off) and log_store_compressed: with
    /// either, averaged bw/iops logs take per-I/O samples (fio's
    /// per_unit_log); with the second, logs are written as `.log.fz`.
    pub log_gz: u64,
    pub log_gz_store: bool,
    /// log_compression_cpus: the CPUs of the log-packing thread.
    pub log_gz_cpus: Option<Vec<usize>>,
    /// log_entries: the first chunk of a stored compressed log, in rows.
    pub log_entries: u64,
    /// `--bandwidth-log`: publish progress often for the aggregate logs.
    pub agg_bw_log: bool,
}

impl Logs {
    pub(super) fn from_options(o: &JobOptions) -> Result<Self, Failure> {
        Ok(Self {
            write_bw_log: o.text("write_bw_log"),
            write_iops_log: o.text("write_iops_log"),
            write_lat_log: o.text("write_lat_log"),
            log_avg_ms: o.int("log_avg_msec") as u64,
            log_offset: o.flag("log_offset"),
            per_job_logs: o.flag("per_job_logs"),
            write_hist_log: o.text("write_hist_log"),
            log_hist_ms: o.int("log_hist_msec") as u64,
            log_hist_coarseness: o.int("log_hist_coarseness").clamp(0, 63) as u32,
            log_max_value: o.flag("log_max_value"),
            log_epoch_clock: (o.flag("log_unix_epoch") || o.flag("log_alternate_epoch"))
                .then(|| o.int("log_alternate_epoch_clock_id") as i32),
            log_prio: o.flag("log_prio"),
            log_gz: o.int("log_compression").max(0) as u64,
            log_gz_store: o.flag("log_store_compressed"),
            log_gz_cpus: super::cpus::log_compression(o)?,
            log_entries: o.int("log_entries").max(1) as u64,
            agg_bw_log: false,
        })
    }
}

#[derive(Debug, Clone)]
pub struct Files {
    pub filesize: Option<(u64, u64)>,
    pub unlink: bool,
    pub unlink_each_loop: bool,
    pub create_on_open: bool,
    pub allow_mounted_write: bool,
    /// file_service_type: roundrobin, random or sequential.
    pub file_service: String,
    /// The `:value` of file_service_type (a count or a distribution value).
    pub file_service_value: Option<String>,
    pub fallocate: String,
    pub overwrite: bool,
    pub invalidate: bool,
    /// create_serialize=0: the job's files are sized and laid out as its
    /// segment starts (after the jobs before it ran), not before any job.
    pub create_serialize: bool,
}

impl Files {
    pub(super) fn from_options(o: &JobOptions) -> Self {
        Self {
            filesize: o.ranges("filesize").map(|r| r[0]),
            unlink: o.flag("unlink"),
            unlink_each_loop: o.flag("unlink_each_loop"),
            create_on_open: o.flag("create_on_open"),
            allow_mounted_write: o.flag("allow_mounted_write"),
            file_service: o.choice("file_service_type").0,
            file_service_value: o.choice("file_service_type").1,
            fallocate: o.choice("fallocate").0,
            overwrite: o.flag("overwrite"),
            invalidate: o.flag("invalidate"),
            create_serialize: o.flag("create_serialize"),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Order {
    pub group_reporting: bool,
    pub stonewall: bool,
    pub new_group: bool,
    pub exitall: bool,
    /// wait_for: the name of an earlier job to wait for.
    pub wait_for: Option<String>,
    pub exitall_on_error: bool,
    /// exit_what: 0 group, 1 stonewall, 2 all.
    pub exit_what: u8,
}

impl Order {
    /// `stonewall`: the job file's own `stonewall` line for this section.
    pub(super) fn from_options(o: &JobOptions, stonewall: bool) -> Self {
        Self {
            group_reporting: o.flag("group_reporting"),
            stonewall: o.flag("stonewall") || stonewall,
            new_group: o.flag("new_group"),
            exitall: o.flag("exitall"),
            wait_for: o.text("wait_for"),
            exitall_on_error: o.flag("exitall_on_error"),
            exit_what: match o.choice("exit_what").0.as_str() {
                "stonewall" => 1,
                "all" => 2,
                _ => 0,
            },
        }
    }
}

#[derive(Debug, Clone)]
pub struct Rand {
    pub randrepeat: bool,
    /// Set explicitly (seeds the offsets when randrepeat=0).
    pub randseed: Option<u64>,
    pub norandommap: bool,
    /// Random offset alignment (`ba`), when set.
    pub blockalign: Option<u64>,
    pub random_distribution: Distribution,
    pub percentage_random: [u64; 3],
}

impl Rand {
    pub(super) fn from_options(o: &JobOptions) -> Result<Self, Failure> {
        Ok(Self {
            // allrandrepeat: every generator repeatable, randseed aside.
            randrepeat: o.flag("randrepeat") || o.flag("allrandrepeat"),
            randseed: (o.is_set("randseed") && !o.flag("allrandrepeat"))
                .then(|| o.int("randseed") as u64),
            norandommap: o.flag("norandommap"),
            blockalign: o.is_set("ba").then(|| o.int("ba") as u64),
            random_distribution: super::random_distribution(o)?,
            percentage_random: o.per_dir("percentage_random").unwrap_or([100; 3]),
        })
    }
}

#[derive(Debug, Clone)]
pub struct Targets {
    /// flow_id and flow (the job's weight in its flow; 0: no flow control).
    pub flow_id: i32,
    pub flow: u32,
    /// flow_sleep: µs to sleep once held back.
    pub flow_sleep_us: u64,
    /// max_latency per direction, µs (0: none).
    pub max_latency_us: [u64; 3],
    /// latency_target, latency_window (µs), latency_percentile, latency_run.
    pub latency_target_us: u64,
    pub latency_window_us: u64,
    pub latency_percentile: f64,
    pub latency_run: bool,
}

impl Targets {
    pub(super) fn from_options(o: &JobOptions) -> Self {
        Self {
            flow_id: o.int("flow_id") as i32,
            flow: o.int("flow") as u32,
            flow_sleep_us: o.int("flow_sleep").max(0) as u64,
            max_latency_us: o.per_dir("max_latency").unwrap_or([0; 3]),
            latency_target_us: o.time_us("latency_target"),
            latency_window_us: o.time_us("latency_window"),
            latency_percentile: o
                .floats("latency_percentile")
                .0
                .first()
                .copied()
                .unwrap_or(100.0),
            latency_run: o.flag("latency_run"),
        }
    }
}
