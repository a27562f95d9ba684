//! The option table: every job option rfio knows, defined once.

use super::value::Kind;
use rbench_common::units::fio::TimeUnit;

/// One job option.
#[derive(Debug)]
pub struct OptDef {
    pub name: &'static str,
    pub alias: Option<&'static str>,
    pub kind: Kind,
    /// Default as `--cmdhelp` prints it (`None`: "no default").
    pub default: Option<&'static str>,
    pub help: &'static str,
    pub category: &'static str,
    /// Parse priority inside a job-file section: higher first (§1.3).
    pub prio: i8,
    /// Engines this option belongs to (empty: every job).
    pub engines: &'static [&'static str],
    /// `--cmdhelp` type and range lines where fio's differ from what the
    /// kind implies (fio's own option types are finer grained).
    pub shown: Option<(&'static str, Option<&'static str>)>,
}

impl OptDef {
    /// Engine-private options are known only once `ioengine` names their engine.
    pub fn available_with(&self, engine: Option<&str>) -> bool {
        self.engines.is_empty() || engine.is_some_and(|e| self.engines.contains(&e))
    }
}

const fn opt(
    name: &'static str,
    kind: Kind,
    default: Option<&'static str>,
    category: &'static str,
    help: &'static str,
) -> OptDef {
    OptDef {
        name,
        alias: None,
        kind,
        default,
        help,
        category,
        prio: 0,
        engines: &[],
        shown: None,
    }
}

const fn shown(mut o: OptDef, ty: &'static str, range: Option<&'static str>) -> OptDef {
    o.shown = Some((ty, range));
    o
}

const fn aliased(mut o: OptDef, alias: &'static str) -> OptDef {
    o.alias = Some(alias);
    o
}

const fn prio(mut o: OptDef, p: i8) -> OptDef {
    o.prio = p;
    o
}

const fn engine(mut o: OptDef, engines: &'static [&'static str]) -> OptDef {
    o.engines = engines;
    o
}

const UNBOUNDED: Kind = Kind::Int { min: 0, max: -1 };
const POSITIVE: Kind = Kind::Int { min: 1, max: -1 };
const PERCENT: Kind = Kind::Int { min: 0, max: 100 };
const SECONDS: Kind = Kind::Time(TimeUnit::Seconds);

pub const RW_MODES: &[(&str, &str)] = &[
    ("read", "Sequential read"),
    ("write", "Sequential write"),
    ("trim", "Sequential trim"),
    ("randread", "Random read"),
    ("randwrite", "Random write"),
    ("randtrim", "Random trim"),
    ("rw", "Sequential read and write mix"),
    ("readwrite", "Sequential read and write mix"),
    ("randrw", "Random read and write mix"),
    ("trimwrite", "Trim and write mix, trims preceding writes"),
    (
        "randtrimwrite",
        "Randomly trim and write mix, trims preceding writes",
    ),
];

/// Engines rfio implements (fio lists many more; those are refused as not loadable).
pub const ENGINES: &[(&str, &str)] = &[
    ("sync", "Use read/write"),
    ("psync", "Use pread/pwrite"),
    ("vsync", "Use readv/writev"),
    ("pvsync", "Use preadv/pwritev"),
    ("pvsync2", "Use preadv2/pwritev2"),
    ("libaio", "Linux native asynchronous IO"),
    ("io_uring", "Fast Linux native aio"),
    ("mmap", "Memory mapped IO"),
    ("null", "Testing engine (no data transfer)"),
    // --- h3: engines ---
    ("posixaio", "POSIX asynchronous IO"),
    ("cpuio", "CPU cycle burner engine"),
    ("filecreate", "File creation engine"),
    ("filestat", "File stat engine"),
    ("filedelete", "File delete engine"),
    ("falloc", "fallocate() file based engine"),
    ("ftruncate", "ftruncate() file based engine"),
    ("exec", "Execute a program"),
    ("splice", "splice/vmsplice based IO"),
    ("net", "Network IO"),
    ("netsplice", "Network IO with splice"),
    ("e4defrag", "ext4 online defragmentation"),
    ("sg", "SCSI generic v3 IO"),
    ("io_uring_cmd", "io_uring passthrough commands"),
    // --- main: engines that need an outside service or device ---
    ("gfapi", "Glusterfs libgfapi(sync) based engine"),
    ("gfapi_async", "Glusterfs libgfapi(async) based engine"),
    ("mtd", "MTD (Memory Technology Device) engine"),
    ("nbd", "Network Block Device (NBD) engine"),
    ("rdma", "RDMA IO engine"),
    ("rados", "Rados engine"),
    ("rbd", "Rados Block Device engine"),
    ("pmemblk", "PMDK libpmemblk based IO engine"),
    ("dev-dax", "DAX Device based IO engine"),
    ("libpmem", "PMDK libpmem based IO engine"),
];

/// Engines of fio 3.33 (Debian's build) that need a service or device
/// rfio does not talk to (Gluster, Ceph, NBD, RDMA, MTD, persistent
/// memory): their jobs and options parse (`--parse-only`), and a run is
/// refused as fio refuses an engine it cannot load.
pub const SERVICE_ENGINES: &[&str] = &[
    "gfapi",
    "gfapi_async",
    "mtd",
    "nbd",
    "rdma",
    "rados",
    "rbd",
    "pmemblk",
    "dev-dax",
    "libpmem",
];
const CEPH: &[&str] = &["rbd", "rados"];
const GLUSTER: &[&str] = &["gfapi", "gfapi_async"];

const DISTRIBUTIONS: &[(&str, &str)] = &[
    ("random", "Completely random"),
    ("zipf", "Zipf distribution"),
    ("pareto", "Pareto distribution"),
    ("normal", "Normal (Gaussian) distribution"),
    ("zoned", "Zoned random distribution"),
    ("zoned_abs", "Zoned absolute random distribution"),
];

/// `zonemode` (zbd is refused once the job is built: run/offsets/zones.rs).
const ZONE_MODES: &[(&str, &str)] = &[
    ("none", "no zoning"),
    (
        "strided",
        "strided mode - random I/O is restricted to a single zone",
    ),
    (
        "zbd",
        "zoned block device mode - random I/O selects one of multiple zones randomly",
    ),
];

const UNIFIED: &[(&str, &str)] = &[
    ("none", "Normal statistics reporting"),
    (
        "mixed",
        "Statistics are summed per data direction and reported together",
    ),
    (
        "both",
        "Statistics are reported normally, followed by the mixed statistics",
    ),
    ("0", "Alias for 'none'"),
    ("1", "Alias for 'mixed'"),
    ("2", "Alias for 'both'"),
];

const SUBMIT_MODES: &[(&str, &str)] = &[
    ("inline", "Submit and complete IO inline"),
    ("offload", "Offload submit and complete to threads"),
];

const FILE_SERVICE: &[(&str, &str)] = &[
    ("random", "Choose a file at random (uniform)"),
    ("zipf", "Zipf randomized"),
    ("pareto", "Pareto randomized"),
    ("normal", "Normal (Gaussian) randomized"),
    ("gauss", "Alias for normal"),
    ("roundrobin", "Round robin select files"),
    ("sequential", "Finish one file before moving to the next"),
];

/// Accepted for compatibility: rfio has one generator of its own (§3).
const GENERATORS: &[(&str, &str)] = &[
    ("tausworthe", "Strong Tausworthe generator"),
    ("lfsr", "Variable length LFSR"),
    ("tausworthe64", "64-bit Tausworthe variant"),
];

const CONTINUE_ON_ERROR: &[(&str, &str)] = &[
    ("none", "Exit when an error is encountered"),
    ("read", "Continue on read errors only"),
    ("write", "Continue on write errors only"),
    ("io", "Continue on any IO errors"),
    ("verify", "Continue on verify errors only"),
    ("all", "Continue on all io and verify errors"),
    ("0", "Alias for 'none'"),
    ("1", "Alias for 'all'"),
];

const RATE_PROCESS: &[(&str, &str)] = &[
    ("linear", "Linear rate of IO"),
    ("poisson", "Rate follows Poisson process"),
];

const THINKTIME_BLOCKS_TYPE: &[(&str, &str)] = &[
    (
        "complete",
        "thinktime_blocks takes effect at the completion side",
    ),
    ("issue", "thinktime_blocks takes effect at the issue side"),
];

const STEADYSTATE: &[(&str, &str)] = &[
    ("iops", "maximum mean deviation of IOPS measurements"),
    ("iops_slope", "slope calculated from IOPS measurements"),
    ("bw", "maximum mean deviation of bandwidth measurements"),
    ("bw_slope", "slope calculated from bandwidth measurements"),
];

const CPUS_ALLOWED_POLICY: &[(&str, &str)] = &[
    ("shared", "Mask shared between threads"),
    ("split", "Mask split between threads"),
];

/// fio's verify types (see verify/mod.rs).
const VERIFY_TYPES: &[(&str, &str)] = &[
    ("0", "Don't do IO verification"),
    ("md5", "Use md5 checksums for verification"),
    ("crc64", "Use crc64 checksums for verification"),
    ("crc32", "Use crc32 checksums for verification"),
    (
        "crc32c-intel",
        "Use crc32c checksums for verification (hw assisted, if available)",
    ),
    (
        "crc32c",
        "Use crc32c checksums for verification (hw assisted, if available)",
    ),
    ("crc16", "Use crc16 checksums for verification"),
    ("crc7", "Use crc7 checksums for verification"),
    ("sha1", "Use sha1 checksums for verification"),
    ("sha256", "Use sha256 checksums for verification"),
    ("sha512", "Use sha512 checksums for verification"),
    ("sha3-224", "Use sha3-224 checksums for verification"),
    ("sha3-256", "Use sha3-256 checksums for verification"),
    ("sha3-384", "Use sha3-384 checksums for verification"),
    ("sha3-512", "Use sha3-512 checksums for verification"),
    ("xxhash", "Use xxhash checksums for verification"),
    (
        "meta",
        "Use io information for verification. Now is implied by default, thus option is obsolete, don't use it",
    ),
    ("pattern", "Verify strict pattern"),
    ("null", "Pretend to verify"),
];

const DEDUPE_MODES: &[(&str, &str)] = &[
    ("repeat", "repeat previous page"),
    (
        "working_set",
        "choose a page randomly from limited working set defined in dedupe_working_set_percentage",
    ),
];

const KB_BASES: &[(&str, &str)] = &[
    (
        "1024",
        "Inputs invert IEC and SI prefixes (for compatibility); outputs prefer binary",
    ),
    ("1000", "Inputs use IEC and SI prefixes; outputs prefer SI"),
];
const UNIT_BASES: &[(&str, &str)] = &[
    ("0", "Auto-detect"),
    ("8", "Normal (byte based)"),
    ("1", "Bit based"),
];
const SYNC_MODES: &[(&str, &str)] = &[
    ("none", ""),
    ("0", ""),
    ("sync", ""),
    ("1", ""),
    ("dsync", ""),
];
const FALLOCATE: &[(&str, &str)] = &[
    ("none", "Do not pre-allocate space"),
    ("native", "Use native pre-allocation if possible"),
    ("posix", "Use posix_fallocate()"),
    ("keep", "Use fallocate(..., FALLOC_FL_KEEP_SIZE, ...)"),
    (
        "truncate",
        "Truncate file to final size instead of allocating",
    ),
    ("0", "Alias for 'none'"),
    ("1", "Alias for 'posix'"),
];

const URING: &[&str] = &["io_uring", "io_uring_cmd"];
const URING_PV2: &[&str] = &["io_uring", "pvsync2", "io_uring_cmd", "sg"];
/// cmdprio_* (h2).
const AIO_URING: &[&str] = &["libaio", "io_uring"];

// --- h3: engines ---
const CPUIO: &[&str] = &["cpuio"];
const EXEC: &[&str] = &["exec"];
const NET: &[&str] = &["net", "netsplice"];
const NET_RDMA: &[&str] = &["net", "netsplice", "rdma"];
const E4DEFRAG: &[&str] = &["e4defrag"];
const SG: &[&str] = &["sg"];
const CPU_MODES: &[(&str, &str)] = &[
    ("noop", "NOOP instructions"),
    ("qsort", "QSORT computation"),
];
const STAT_TYPES: &[(&str, &str)] = &[
    ("stat", "Use stat(2)"),
    ("lstat", "Use lstat(2)"),
    ("statx", "Use statx(2) if exists"),
];
const NET_PROTOCOLS: &[(&str, &str)] = &[
    ("tcp", "Transmission Control Protocol"),
    ("tcpv6", "Transmission Control Protocol V6"),
    ("udp", "User Datagram Protocol"),
    ("udpv6", "User Datagram Protocol V6"),
    ("unix", "UNIX domain socket"),
];
const SG_WRITE_MODES: &[(&str, &str)] = &[
    ("write", "Issue standard SCSI WRITE commands"),
    ("write_and_verify", "Issue SCSI WRITE AND VERIFY commands"),
    ("verify", "Issue SCSI WRITE AND VERIFY commands. This option is deprecated. Use write_and_verify instead."),
    ("write_same", "Issue SCSI WRITE SAME commands"),
    ("same", "Issue SCSI WRITE SAME commands. This option is deprecated. Use write_same instead."),
    ("write_same_ndob", "Issue SCSI WRITE SAME(16) commands with NDOB flag set"),
    ("verify_bytchk_00", "Issue SCSI VERIFY commands with BYTCHK set to 00"),
    ("verify_bytchk_01", "Issue SCSI VERIFY commands with BYTCHK set to 01"),
    ("verify_bytchk_11", "Issue SCSI VERIFY commands with BYTCHK set to 11"),
    ("write_stream", "Issue SCSI WRITE STREAM(16) commands"),
];
const URING_CMD_TYPES: &[(&str, &str)] = &[("nvme", "nvme")];

/// Every job option, in fio's `--cmdhelp=all` order where it matters.
const MEM_TYPES: &[(&str, &str)] = &[
    ("malloc", "Use malloc(3) for IO buffers"),
    ("shm", "Use shared memory segments for IO buffers"),
    ("shmhuge", "Like shm, but use huge pages"),
    ("mmap", "Use mmap(2) (file or anon) for IO buffers"),
    ("mmapshared", "Like mmap, but use the shared flag"),
    ("mmaphuge", "Like mmap, but use huge pages"),
];

const FADVISE_HINTS: &[(&str, &str)] = &[
    ("0", "Don't issue fadvise/madvise"),
    ("1", "Advise using fio IO pattern"),
    ("random", "Advise using FADV_RANDOM"),
    ("sequential", "Advise using FADV_SEQUENTIAL"),
];

const WRITE_HINTS: &[(&str, &str)] = &[
    ("none", ""),
    ("short", ""),
    ("medium", ""),
    ("long", ""),
    ("extreme", ""),
];

const LOCKFILE_MODES: &[(&str, &str)] = &[
    ("none", "No file locking"),
    ("exclusive", "Exclusive file lock"),
    ("readwrite", "Read vs write lock"),
];

const RW_SEQUENCERS: &[(&str, &str)] = &[
    ("sequential", "Generate sequential offsets"),
    ("identical", "Generate identical offsets"),
];

const CLOCKSOURCES: &[(&str, &str)] = &[
    ("gettimeofday", "Use gettimeofday(2) for timing"),
    ("clock_gettime", "Use clock_gettime(2) for timing"),
    ("cpu", "Use CPU private clock"),
];

const SYNC_FILE_RANGE: &[(&str, &str)] = &[
    ("wait_before", "SYNC_FILE_RANGE_WAIT_BEFORE"),
    ("write", "SYNC_FILE_RANGE_WRITE"),
    ("wait_after", "SYNC_FILE_RANGE_WAIT_AFTER"),
];

const PROFILES: &[(&str, &str)] = &[
    ("tiobench", "tiotest/tiobench benchmark"),
    ("act", "ACT Aerospike like benchmark"),
];

pub static OPTIONS: &[OptDef] = &[
    opt(
        "description",
        Kind::Text,
        None,
        "Description",
        "Text job description",
    ),
    opt("name", Kind::Text, None, "Description", "Name of this job"),
    prio(
        opt(
            "filename",
            Kind::Text,
            None,
            "Files",
            "File(s) to use for the workload",
        ),
        -1,
    ),
    opt(
        "directory",
        Kind::Text,
        None,
        "Files",
        "Directory to store files in",
    ),
    opt(
        "filename_format",
        Kind::Text,
        Some("$jobname.$jobnum.$filenum"),
        "Files",
        "Override default $jobname.$jobnum.$filenum naming",
    ),
    aliased(
        opt(
            "rw",
            Kind::Choice(RW_MODES),
            Some("read"),
            "I/O type",
            "IO direction",
        ),
        "readwrite",
    ),
    aliased(
        opt(
            "bs",
            Kind::SizeList {
                min: 1,
                max: u64::MAX,
                default: 4096,
            },
            Some("4096"),
            "Block size",
            "Block size unit",
        ),
        "blocksize",
    ),
    aliased(
        opt(
            "bsrange",
            Kind::Ranges,
            None,
            "Block size",
            "Set block size range (in more detail than bs)",
        ),
        "blocksize_range",
    ),
    opt(
        "bssplit",
        Kind::Text,
        None,
        "Block size",
        "Set a specific mix of block sizes",
    ),
    opt(
        "randrepeat",
        Kind::Bool,
        Some("1"),
        "Random",
        "Use repeatable random IO pattern",
    ),
    shown(
        opt(
            "randseed",
            Kind::Int { min: 0, max: -1 },
            Some("0x89"),
            "Random",
            "Set the random generator seed value",
        ),
        "string (opt=bla)",
        None,
    ),
    aliased(
        opt(
            "ba",
            Kind::Int { min: 1, max: -1 },
            None,
            "Block size",
            "IO block offset alignment",
        ),
        "blockalign",
    ),
    shown(
        opt(
            "thinktime",
            Kind::Time(TimeUnit::Micros),
            Some("0"),
            "Thinktime",
            "Idle time between IO buffers (usec)",
        ),
        "integer value (opt=100)",
        Some("min=0, max=-1"),
    ),
    shown(
        opt(
            "thinktime_spin",
            Kind::Time(TimeUnit::Micros),
            Some("0"),
            "Thinktime",
            "Start think time by spinning this amount (usec)",
        ),
        "integer value (opt=100)",
        Some("min=0, max=-1"),
    ),
    opt(
        "thinktime_blocks",
        UNBOUNDED,
        Some("1"),
        "Thinktime",
        "IO buffer period between 'thinktime'",
    ),
    opt(
        "thinktime_blocks_type",
        Kind::Choice(THINKTIME_BLOCKS_TYPE),
        Some("complete"),
        "Thinktime",
        "How thinktime_blocks takes effect",
    ),
    shown(
        opt(
            "thinktime_iotime",
            SECONDS,
            Some("0"),
            "Thinktime",
            "IO time interval between 'thinktime'",
        ),
        "integer value (opt=100)",
        Some("min=0, max=-1"),
    ),
    opt("cpus_allowed", Kind::Text, None, "CPU", "Set CPUs allowed"),
    opt(
        "cpus_allowed_policy",
        Kind::Choice(CPUS_ALLOWED_POLICY),
        None,
        "CPU",
        "Distribution policy for cpus_allowed",
    ),
    opt("cpumask", UNBOUNDED, None, "CPU", "CPU affinity mask"),
    opt(
        "nice",
        Kind::Int { min: -20, max: 19 },
        Some("0"),
        "CPU",
        "Set job CPU nice value",
    ),
    opt(
        "random_generator",
        Kind::Choice(GENERATORS),
        Some("tausworthe"),
        "Random",
        "Type of random number generator to use",
    ),
    opt(
        "random_distribution",
        Kind::Choice(DISTRIBUTIONS),
        Some("random"),
        "Random",
        "Random offset distribution generator",
    ),
    opt(
        "percentage_random",
        Kind::SizeList {
            min: 0,
            max: 100,
            default: 100,
        },
        Some("100,100,100"),
        "Random",
        "Percentage of seq/random mix that should be random",
    ),
    opt(
        "norandommap",
        Kind::Flag,
        None,
        "Random",
        "Accept potential duplicate random blocks",
    ),
    opt(
        "ioengine",
        Kind::Choice(ENGINES),
        Some("psync"),
        "I/O engine",
        "IO engine to use",
    ),
    opt(
        "iodepth",
        POSITIVE,
        Some("1"),
        "I/O depth",
        "Number of IO buffers to keep in flight",
    ),
    aliased(
        opt(
            "iodepth_batch",
            UNBOUNDED,
            Some("1"),
            "I/O depth",
            "Number of IO buffers to submit in one go",
        ),
        "iodepth_batch_submit",
    ),
    aliased(
        opt(
            "iodepth_batch_complete_min",
            UNBOUNDED,
            Some("1"),
            "I/O depth",
            "Min number of IO buffers to retrieve in one go",
        ),
        "iodepth_batch_complete",
    ),
    opt(
        "iodepth_batch_complete_max",
        UNBOUNDED,
        None,
        "I/O depth",
        "Max number of IO buffers to retrieve in one go",
    ),
    opt(
        "iodepth_low",
        UNBOUNDED,
        None,
        "I/O depth",
        "Low water mark for queuing depth",
    ),
    // Accepted: offload runs inline (the same I/Os; fio 3.33's offload
    // threads even hang it on some jobs, t/jobs/t0010 among them).
    opt(
        "io_submit_mode",
        Kind::Choice(SUBMIT_MODES),
        Some("inline"),
        "I/O depth",
        "How IO submissions and completions are done",
    ),
    opt(
        "size",
        Kind::Size { pct: true },
        None,
        "I/O size",
        "Total size of device or files",
    ),
    aliased(
        opt(
            "io_size",
            Kind::Size { pct: true },
            None,
            "I/O size",
            "Total size of I/O to be performed",
        ),
        "io_limit",
    ),
    shown(
        opt(
            "filesize",
            Kind::Ranges,
            None,
            "I/O size",
            "Size of individual files",
        ),
        "string (opt=bla)",
        Some("min=1"),
    ),
    aliased(
        opt(
            "offset",
            Kind::Size { pct: true },
            Some("0"),
            "I/O size",
            "Start IO from this offset",
        ),
        "fileoffset",
    ),
    opt(
        "offset_increment",
        Kind::Size { pct: true },
        Some("0"),
        "I/O size",
        "What is the increment from one offset to the next",
    ),
    opt(
        "zonemode",
        Kind::Choice(ZONE_MODES),
        Some("none"),
        "Zone",
        "Mode for the zonesize, zonerange and zoneskip parameters",
    ),
    opt(
        "zonesize",
        Kind::Text,
        Some("0"),
        "Zone",
        "Amount of data to read per zone",
    ),
    opt(
        "zonecapacity",
        Kind::Text,
        Some("0"),
        "Zone",
        "Capacity per zone",
    ),
    opt(
        "zonerange",
        Kind::Text,
        Some("0"),
        "Zone",
        "Give size of an IO zone",
    ),
    shown(
        opt(
            "zoneskip",
            Kind::Text,
            Some("0"),
            "Zone",
            "Space between IO zones",
        ),
        "(null)",
        None,
    ),
    opt(
        "read_beyond_wp",
        Kind::Bool,
        Some("0"),
        "Zone",
        "Allow reads beyond the zone write pointer",
    ),
    opt(
        "max_open_zones",
        Kind::Int { min: 0, max: 4096 },
        Some("0"),
        "Zone",
        "Limit on the number of simultaneously opened sequential write zones with zonemode=zbd",
    ),
    opt(
        "job_max_open_zones",
        Kind::Int { min: 0, max: 4096 },
        Some("0"),
        "Zone",
        "Limit on the number of simultaneously opened sequential write zones with zonemode=zbd by one thread/process",
    ),
    opt(
        "ignore_zone_limits",
        Kind::Bool,
        Some("0"),
        "Zone",
        "Ignore the zone resource limits (max open/active zones) reported by the device",
    ),
    shown(
        opt(
            "zone_reset_threshold",
            Kind::Fraction,
            None,
            "Zone",
            "Zoned block device reset threshold",
        ),
        "list of floating point values separated by ':' (opt=5.9:7.8)",
        Some("min=0.000000, max=1.000000"),
    ),
    shown(
        opt(
            "zone_reset_frequency",
            Kind::Fraction,
            None,
            "Zone",
            "Zoned block device zone reset frequency in HZ",
        ),
        "list of floating point values separated by ':' (opt=5.9:7.8)",
        Some("min=0.000000, max=1.000000"),
    ),
    shown(
        opt(
            "number_ios",
            UNBOUNDED,
            Some("0"),
            "I/O size",
            "Force job completion after this number of IOs",
        ),
        "string (opt=bla)",
        None,
    ),
    aliased(
        opt(
            "nrfiles",
            UNBOUNDED,
            Some("1"),
            "Files",
            "Split job workload between this number of files",
        ),
        "nr_files",
    ),
    opt(
        "direct",
        Kind::Bool,
        Some("0"),
        "I/O type",
        "Use O_DIRECT IO (negates buffered)",
    ),
    opt(
        "buffered",
        Kind::Bool,
        Some("1"),
        "I/O type",
        "Use buffered IO (negates direct)",
    ),
    opt(
        "sync",
        Kind::Choice(SYNC_MODES),
        Some("none"),
        "I/O type",
        "Use synchronous write IO",
    ),
    opt(
        "fallocate",
        Kind::Choice(FALLOCATE),
        Some("native"),
        "Files",
        "Whether pre-allocation is performed when laying out files",
    ),
    opt(
        "allow_mounted_write",
        Kind::Bool,
        Some("0"),
        "Files",
        "Allow writes to a mounted partition",
    ),
    opt(
        "file_service_type",
        Kind::Choice(FILE_SERVICE),
        Some("roundrobin"),
        "Files",
        "How to select which file to service next",
    ),
    opt(
        "zero_buffers",
        Kind::Flag,
        None,
        "Buffers",
        "Init IO buffers to all zeroes",
    ),
    opt(
        "refill_buffers",
        Kind::Flag,
        None,
        "Buffers",
        "Refill IO buffers on every IO submit",
    ),
    shown(
        opt(
            "buffer_compress_percentage",
            PERCENT,
            None,
            "Buffers",
            "How compressible the buffer is (approximately)",
        ),
        "integer value (opt=100)",
        Some("min=0, max=100"),
    ),
    shown(
        opt(
            "buffer_compress_chunk",
            UNBOUNDED,
            Some("512"),
            "Buffers",
            "Size of compressible region in buffer",
        ),
        "integer value (opt=100)",
        Some("min=0, max=-1"),
    ),
    shown(
        opt(
            "dedupe_percentage",
            PERCENT,
            None,
            "Buffers",
            "Percentage of buffers that are dedupable",
        ),
        "integer value (opt=100)",
        Some("min=0, max=100"),
    ),
    opt(
        "dedupe_mode",
        Kind::Choice(DEDUPE_MODES),
        Some("repeat"),
        "Buffers",
        "Mode for the deduplication buffer generation",
    ),
    shown(
        opt(
            "dedupe_working_set_percentage",
            PERCENT,
            Some("5"),
            "Buffers",
            "Dedupe working set size in percentages from file or device size used to generate dedupe patterns from",
        ),
        "integer value (opt=100)",
        Some("min=0, max=100"),
    ),
    // Not run yet (every job draws its own dedupe buffers).
    opt(
        "dedupe_global",
        Kind::Bool,
        Some("0"),
        "Buffers",
        "Share deduplication buffers across jobs",
    ),
    opt(
        "buffer_pattern",
        Kind::Text,
        None,
        "Buffers",
        "Fill pattern for IO buffers",
    ),
    opt(
        "verify",
        Kind::Choice(VERIFY_TYPES),
        Some("0"),
        "Verify",
        "Verify data written",
    ),
    opt(
        "do_verify",
        Kind::Bool,
        Some("1"),
        "Verify",
        "Run verification stage after write",
    ),
    opt(
        "verify_only",
        Kind::Flag,
        None,
        "Verify",
        "Verifies previously written data is still valid",
    ),
    shown(
        opt(
            "verify_backlog",
            UNBOUNDED,
            None,
            "Verify",
            "Verify after this number of blocks are written",
        ),
        "string (opt=bla)",
        None,
    ),
    shown(
        opt(
            "verify_backlog_batch",
            UNBOUNDED,
            None,
            "Verify",
            "Verify this number of IO blocks",
        ),
        "integer value (opt=100)",
        Some("min=0, max=-1"),
    ),
    shown(
        opt(
            "verify_interval",
            Kind::Int { min: 80, max: -1 },
            None,
            "Verify",
            "Store verify buffer header every N bytes",
        ),
        "integer value (opt=100)",
        Some("min=80, max=-1"),
    ),
    shown(
        opt(
            "verify_offset",
            Kind::Int { min: 40, max: -1 },
            None,
            "Verify",
            "Offset verify header location by N bytes",
        ),
        "integer value (opt=100)",
        Some("min=40, max=-1"),
    ),
    opt(
        "verify_pattern",
        Kind::Text,
        None,
        "Verify",
        "Fill pattern for IO buffers",
    ),
    opt(
        "verify_fatal",
        Kind::Bool,
        Some("0"),
        "Verify",
        "Exit on a single verify failure, don't continue",
    ),
    opt(
        "verify_dump",
        Kind::Bool,
        Some("0"),
        "Verify",
        "Dump contents of good and bad blocks on failure",
    ),
    shown(
        opt(
            "verify_async",
            UNBOUNDED,
            Some("0"),
            "Verify",
            "Number of async verifier threads to use",
        ),
        "integer value (opt=100)",
        Some("min=0, max=-1"),
    ),
    // Accepted for fio's job files; rfio writes and reads no verify state
    // files and checks on the job's own thread (README).
    opt(
        "verify_state_save",
        Kind::Bool,
        Some("1"),
        "Verify",
        "Save verify state on termination",
    ),
    opt(
        "verify_state_load",
        Kind::Bool,
        None,
        "Verify",
        "Load verify termination state",
    ),
    opt(
        "verify_async_cpus",
        Kind::Text,
        None,
        "Verify",
        "Set CPUs allowed for async verify threads",
    ),
    opt(
        "experimental_verify",
        Kind::Bool,
        None,
        "Verify",
        "Enable experimental verification",
    ),
    // Trim verify (verify/trim.rs). fio checks no minimum when it is 0:
    // trim_percentage=-1 is taken (as an unsigned 2^32-1).
    shown(
        opt(
            "trim_percentage",
            Kind::Int {
                min: i64::MIN,
                max: 100,
            },
            Some("0"),
            "Verify",
            "Number of verify blocks to trim (i.e., discard)",
        ),
        "integer value (opt=100)",
        Some("min=0, max=100"),
    ),
    opt(
        "trim_verify_zero",
        Kind::Bool,
        Some("1"),
        "Verify",
        "Verify that trimmed (i.e., discarded) blocks are returned as zeroes",
    ),
    shown(
        opt(
            "trim_backlog",
            UNBOUNDED,
            None,
            "Verify",
            "Trim after this number of blocks are written",
        ),
        "string (opt=bla)",
        None,
    ),
    shown(
        opt(
            "trim_backlog_batch",
            UNBOUNDED,
            None,
            "Verify",
            "Trim this number of IO blocks",
        ),
        "integer value (opt=100)",
        Some("min=0, max=-1"),
    ),
    opt(
        "continue_on_error",
        Kind::Choice(CONTINUE_ON_ERROR),
        Some("none"),
        "Error handling",
        "Continue on non-fatal errors during IO",
    ),
    opt(
        "ignore_error",
        Kind::Text,
        None,
        "Error handling",
        "Set a specific list of errors to ignore",
    ),
    opt(
        "error_dump",
        Kind::Bool,
        Some("0"),
        "Error handling",
        "Dump info on each error",
    ),
    opt(
        "unlink",
        Kind::Bool,
        Some("0"),
        "Files",
        "Unlink created files after job has completed",
    ),
    opt(
        "unlink_each_loop",
        Kind::Bool,
        Some("0"),
        "Files",
        "Unlink created files after each loop in a job has completed",
    ),
    opt(
        "create_on_open",
        Kind::Bool,
        Some("0"),
        "Files",
        "Create files when they are opened for IO",
    ),
    opt(
        "overwrite",
        Kind::Bool,
        Some("0"),
        "Files",
        "When writing, set whether to overwrite current data",
    ),
    opt(
        "invalidate",
        Kind::Bool,
        Some("1"),
        "Files",
        "Invalidate buffer/page cache prior to running job",
    ),
    opt(
        "fsync",
        UNBOUNDED,
        Some("0"),
        "I/O type",
        "Issue fsync for writes every given number of blocks",
    ),
    opt(
        "fdatasync",
        UNBOUNDED,
        Some("0"),
        "I/O type",
        "Issue fdatasync for writes every given number of blocks",
    ),
    opt(
        "end_fsync",
        Kind::Bool,
        Some("0"),
        "I/O type",
        "Include fsync at the end of job",
    ),
    opt(
        "fsync_on_close",
        Kind::Bool,
        Some("0"),
        "I/O type",
        "fsync files on close",
    ),
    opt(
        "rwmixread",
        PERCENT,
        Some("50"),
        "I/O type",
        "Percentage of mixed workload that is reads",
    ),
    opt(
        "rwmixwrite",
        PERCENT,
        Some("50"),
        "I/O type",
        "Percentage of mixed workload that is writes",
    ),
    opt(
        "write_bw_log",
        Kind::Text,
        None,
        "Log files",
        "Write log of bandwidth during run",
    ),
    opt(
        "write_lat_log",
        Kind::Text,
        None,
        "Log files",
        "Write log of latency during run",
    ),
    opt(
        "write_iops_log",
        Kind::Text,
        None,
        "Log files",
        "Write log of IOPS during run",
    ),
    opt(
        "log_avg_msec",
        UNBOUNDED,
        Some("0"),
        "Log files",
        "Average bw/iops/lat logs over this period of time",
    ),
    opt(
        "log_offset",
        Kind::Bool,
        Some("0"),
        "Log files",
        "Include offset of IO for each log entry",
    ),
    opt(
        "per_job_logs",
        Kind::Bool,
        Some("1"),
        "Log files",
        "Include job number in generated log files or not",
    ),
    opt(
        "write_hist_log",
        Kind::Text,
        None,
        "Log files",
        "Write log of latency histograms during run",
    ),
    opt(
        "log_hist_msec",
        UNBOUNDED,
        Some("0"),
        "Log files",
        "Dump completion latency histograms at frequency of this time value",
    ),
    opt(
        "log_hist_coarseness",
        UNBOUNDED,
        Some("0"),
        "Log files",
        "Integer in range [0,6]. Higher coarseness outputs fewer histogram bins per sample. The number of bins for these are [1216, 608, 304, 152, 76, 38, 19] respectively.",
    ),
    opt(
        "log_max_value",
        Kind::Bool,
        Some("0"),
        "Log files",
        "Log max sample in a window instead of average",
    ),
    opt(
        "log_unix_epoch",
        Kind::Bool,
        None,
        "Log files",
        "Use Unix time in log files",
    ),
    // Accepted: rfio's log storage grows as needed, like fio's.
    opt(
        "log_entries",
        Kind::Int {
            min: 1024,
            max: 1048576,
        },
        Some("1024"),
        "Log files",
        "Initial number of entries in a job IO log",
    ),
    opt(
        "log_alternate_epoch",
        Kind::Bool,
        None,
        "Log files",
        "Use alternate epoch time in log files. Uses the same epoch as that is used by clock_gettime with specified log_alternate_epoch_clock_id.",
    ),
    opt(
        "log_alternate_epoch_clock_id",
        UNBOUNDED,
        None,
        "Log files",
        "If log_alternate_epoch or log_unix_epoch is true, this option specifies the clock_id from clock_gettime whose epoch should be used. If neither of those is true, this option has no effect. Default value is 0, or CLOCK_REALTIME",
    ),
    opt(
        "log_prio",
        Kind::Bool,
        Some("0"),
        "Log files",
        "Include priority value of IO for each log entry",
    ),
    opt(
        "log_compression",
        Kind::Int {
            min: 1024,
            max: 536870912,
        },
        None,
        "Log files",
        "Log in compressed chunks of this size",
    ),
    // The CPUs of the log-packing thread (run/logs/logpack.rs).
    opt(
        "log_compression_cpus",
        Kind::Text,
        None,
        "Log files",
        "Limit log compression to these CPUs",
    ),
    opt(
        "log_store_compressed",
        Kind::Bool,
        None,
        "Log files",
        "Store logs in a compressed format",
    ),
    opt(
        "rate",
        Kind::SizeList {
            min: 0,
            max: u64::MAX,
            default: 0,
        },
        None,
        "Rate",
        "Set bandwidth rate",
    ),
    opt(
        "rate_iops",
        Kind::SizeList {
            min: 0,
            max: u64::MAX,
            default: 0,
        },
        None,
        "Rate",
        "Limit IO used to this number of IO operations/sec",
    ),
    aliased(
        opt(
            "rate_min",
            Kind::SizeList {
                min: 0,
                max: u64::MAX,
                default: 0,
            },
            None,
            "Rate",
            "Job must meet this rate or it will be shutdown",
        ),
        "ratemin",
    ),
    opt(
        "rate_iops_min",
        Kind::SizeList {
            min: 0,
            max: u64::MAX,
            default: 0,
        },
        None,
        "Rate",
        "Job must meet this rate or it will be shut down",
    ),
    opt(
        "rate_process",
        Kind::Choice(RATE_PROCESS),
        Some("linear"),
        "Rate",
        "What process controls how rated IO is managed",
    ),
    aliased(
        opt(
            "rate_cycle",
            UNBOUNDED,
            Some("1000"),
            "Rate",
            "Window average for rate limits (msec)",
        ),
        "ratecycle",
    ),
    opt(
        "rate_ignore_thinktime",
        Kind::Bool,
        None,
        "Rate",
        "Rated IO ignores thinktime settings",
    ),
    aliased(
        opt(
            "runtime",
            SECONDS,
            Some("0"),
            "Time related",
            "Stop workload when this amount of time has passed",
        ),
        "timeout",
    ),
    opt(
        "time_based",
        Kind::Flag,
        None,
        "Time related",
        "Keep running until runtime/timeout is met",
    ),
    opt(
        "ramp_time",
        SECONDS,
        None,
        "Time related",
        "Ramp up time before measuring performance",
    ),
    aliased(
        opt(
            "steadystate",
            Kind::Choice(STEADYSTATE),
            Some("iops_slope:0.01%"),
            "Time related",
            "Define the criterion and limit to judge when a job has reached steady state",
        ),
        "ss",
    ),
    aliased(
        opt(
            "steadystate_duration",
            SECONDS,
            Some("0"),
            "Time related",
            "Stop workload upon attaining steady state for specified duration",
        ),
        "ss_dur",
    ),
    aliased(
        opt(
            "steadystate_ramp_time",
            SECONDS,
            Some("0"),
            "Time related",
            "Delay before initiation of data collection for steady state job termination testing",
        ),
        "ss_ramp",
    ),
    opt(
        "startdelay",
        SECONDS,
        Some("0"),
        "Time related",
        "Only start job when this period has passed",
    ),
    opt(
        "loops",
        UNBOUNDED,
        Some("1"),
        "Job",
        "Number of times to run the job",
    ),
    opt(
        "numjobs",
        UNBOUNDED,
        Some("1"),
        "Job",
        "Duplicate this job this many times",
    ),
    // rbench extension (no fio option has this name): see run/submitters.rs.
    opt(
        "submitters",
        Kind::Int { min: 1, max: 1024 },
        Some("1"),
        "Job",
        "rbench extension, not in fio: spread this job's iodepth and its region over this many submitter threads, each with its own engine, reported as one job",
    ),
    opt(
        "thread",
        Kind::Flag,
        None,
        "Job",
        "Use threads instead of processes",
    ),
    opt(
        "group_reporting",
        Kind::Flag,
        None,
        "Job",
        "Do reporting on a per-group basis",
    ),
    aliased(
        opt(
            "stonewall",
            Kind::Flag,
            None,
            "Job",
            "Insert a hard barrier between this job and previous",
        ),
        "wait_for_previous",
    ),
    opt(
        "new_group",
        Kind::Flag,
        None,
        "Job",
        "Mark the start of a new group (for reporting)",
    ),
    opt(
        "exitall",
        Kind::Flag,
        None,
        "Job",
        "Terminate all jobs when one exits",
    ),
    opt(
        "wait_for",
        Kind::Text,
        None,
        "Job",
        "Name of the job this one wants to wait for before starting",
    ),
    opt(
        "exitall_on_error",
        Kind::Flag,
        None,
        "Job",
        "Terminate all jobs when one exits in error",
    ),
    opt(
        "prio",
        Kind::Int { min: 0, max: 7 },
        None,
        "Job",
        "Set job IO priority value",
    ),
    opt(
        "prioclass",
        Kind::Int { min: 0, max: 3 },
        None,
        "Job",
        "Set job IO priority class",
    ),
    opt(
        "clat_percentiles",
        Kind::Bool,
        Some("1"),
        "Statistics",
        "Enable the reporting of completion latency percentiles",
    ),
    opt(
        "lat_percentiles",
        Kind::Bool,
        Some("0"),
        "Statistics",
        "Enable the reporting of IO latency percentiles",
    ),
    opt(
        "slat_percentiles",
        Kind::Bool,
        Some("0"),
        "Statistics",
        "Enable the reporting of submission latency percentiles",
    ),
    opt(
        "percentile_list",
        Kind::FloatList,
        Some("1:5:10:20:30:40:50:60:70:80:90:95:99:99.5:99.9:99.95:99.99"),
        "Statistics",
        "Specify a custom list of percentiles to report for completion latency and block errors",
    ),
    opt(
        "bwavgtime",
        UNBOUNDED,
        Some("500"),
        "Statistics",
        "Time window over which to calculate bandwidth (msec)",
    ),
    opt(
        "iopsavgtime",
        UNBOUNDED,
        Some("500"),
        "Statistics",
        "Time window over which to calculate IOPS (msec)",
    ),
    opt(
        "disable_lat",
        Kind::Bool,
        Some("0"),
        "Statistics",
        "Disable latency numbers",
    ),
    opt(
        "disable_clat",
        Kind::Bool,
        Some("0"),
        "Statistics",
        "Disable completion latency numbers",
    ),
    opt(
        "disable_slat",
        Kind::Bool,
        Some("0"),
        "Statistics",
        "Disable submission latency numbers",
    ),
    aliased(
        opt(
            "disable_bw_measurement",
            Kind::Bool,
            Some("0"),
            "Statistics",
            "Disable bandwidth logging",
        ),
        "disable_bw",
    ),
    opt(
        "gtod_reduce",
        Kind::Bool,
        Some("0"),
        "Statistics",
        "Greatly reduce number of gettimeofday() calls",
    ),
    opt(
        "scramble_buffers",
        Kind::Bool,
        Some("1"),
        "Buffers",
        "Slightly scramble buffers on every IO submit",
    ),
    opt(
        "unified_rw_reporting",
        Kind::Choice(UNIFIED),
        Some("none"),
        "Statistics",
        "Unify reporting across data direction",
    ),
    prio(
        opt(
            "kb_base",
            Kind::Choice(KB_BASES),
            Some("1024"),
            "I/O size",
            "Unit prefix interpretation for quantities of data (IEC and SI)",
        ),
        1,
    ),
    prio(
        opt(
            "unit_base",
            Kind::Choice(UNIT_BASES),
            None,
            "I/O size",
            "Bit multiple of result summary data (8 for byte, 1 for bit)",
        ),
        1,
    ),
    opt(
        "significant_figures",
        Kind::Int { min: 1, max: 10 },
        Some("4"),
        "Statistics",
        "Significant figures for output-format set to normal",
    ),
    engine(
        opt(
            "hipri",
            Kind::Flag,
            None,
            "I/O engine",
            "Use polled IO completions",
        ),
        URING_PV2,
    ),
    engine(
        opt(
            "fixedbufs",
            Kind::Flag,
            None,
            "I/O engine",
            "Pre map IO buffers",
        ),
        URING,
    ),
    engine(
        opt(
            "registerfiles",
            Kind::Flag,
            None,
            "I/O engine",
            "Pre-open/register files",
        ),
        URING,
    ),
    engine(
        opt(
            "sqthread_poll",
            Kind::Flag,
            None,
            "I/O engine",
            "Offload submission/completion to kernel thread",
        ),
        URING,
    ),
    // --- main: files, memory, process and accounting options ---
    opt(
        "allow_file_create",
        Kind::Bool,
        Some("1"),
        "Files",
        "Permit fio to create files, if they don't exist",
    ),
    opt(
        "create_only",
        Kind::Bool,
        Some("0"),
        "Files",
        "Only perform file creation phase",
    ),
    opt(
        "create_fsync",
        Kind::Bool,
        Some("1"),
        "Files",
        "fsync file after creation",
    ),
    opt(
        "create_serialize",
        Kind::Bool,
        Some("1"),
        "Files",
        "Serialize creation of job files",
    ),
    opt(
        "file_append",
        Kind::Bool,
        Some("0"),
        "Files",
        "IO will start at the end of the file(s)",
    ),
    opt(
        "pre_read",
        Kind::Bool,
        Some("0"),
        "Files",
        "Pre-read files before starting official testing",
    ),
    opt(
        "unique_filename",
        Kind::Bool,
        Some("1"),
        "Files",
        "For network clients, prefix file with source IP",
    ),
    opt(
        "openfiles",
        UNBOUNDED,
        None,
        "Files",
        "Number of files to keep open at the same time",
    ),
    opt(
        "opendir",
        Kind::Text,
        None,
        "Files",
        "Recursively add files from this directory and down",
    ),
    shown(
        opt(
            "fadvise_hint",
            Kind::Choice(FADVISE_HINTS),
            Some("1"),
            "Files",
            "Use fadvise() to advise the kernel on IO pattern",
        ),
        "string (opt=bla)",
        None,
    ),
    shown(
        opt(
            "sync_file_range",
            Kind::Multi(SYNC_FILE_RANGE),
            None,
            "Files",
            "Use sync_file_range()",
        ),
        "string with possible k/m/g postfix (opt=4k)",
        None,
    ),
    opt(
        "write_hint",
        Kind::Choice(WRITE_HINTS),
        None,
        "Files",
        "Set expected write life time",
    ),
    opt(
        "lockfile",
        Kind::Choice(LOCKFILE_MODES),
        Some("none"),
        "Files",
        "Lock file when doing IO to it",
    ),
    opt(
        "ioscheduler",
        Kind::Text,
        None,
        "Files",
        "Use this IO scheduler on the backing device",
    ),
    opt(
        "atomic",
        Kind::Bool,
        Some("0"),
        "I/O type",
        "Use Atomic IO with O_DIRECT (implies O_DIRECT)",
    ),
    opt(
        "write_barrier",
        UNBOUNDED,
        Some("0"),
        "I/O type",
        "Make every Nth write a barrier write",
    ),
    opt(
        "offset_align",
        UNBOUNDED,
        Some("0"),
        "I/O type",
        "Start IO from this offset alignment",
    ),
    aliased(
        opt(
            "bs_unaligned",
            Kind::Flag,
            None,
            "Block size",
            "Don't sector align IO buffer sizes",
        ),
        "blocksize_unaligned",
    ),
    opt(
        "bs_is_seq_rand",
        Kind::Bool,
        Some("0"),
        "Block size",
        "Consider any blocksize setting to be sequential,random",
    ),
    opt(
        "rw_sequencer",
        Kind::Choice(RW_SEQUENCERS),
        Some("sequential"),
        "I/O type",
        "IO offset generator modifier",
    ),
    opt(
        "allrandrepeat",
        Kind::Bool,
        Some("0"),
        "Random",
        "Use repeatable random numbers for everything",
    ),
    opt(
        "softrandommap",
        Kind::Bool,
        Some("0"),
        "Random",
        "Set norandommap if randommap allocation fails",
    ),
    aliased(
        opt(
            "mem",
            Kind::Choice(MEM_TYPES),
            Some("malloc"),
            "I/O buffers",
            "Backing type for IO buffers",
        ),
        "iomem",
    ),
    aliased(
        opt(
            "iomem_align",
            UNBOUNDED,
            Some("0"),
            "I/O buffers",
            "IO memory buffer offset alignment",
        ),
        "mem_align",
    ),
    opt(
        "hugepage-size",
        UNBOUNDED,
        Some("2097152"),
        "I/O buffers",
        "When using hugepages, specify size of each page",
    ),
    shown(
        opt(
            "lockmem",
            Kind::Size { pct: false },
            Some("0"),
            "I/O buffers",
            "Lock down this amount of memory (per worker)",
        ),
        "string (opt=bla)",
        None,
    ),
    opt(
        "stats",
        Kind::Bool,
        Some("1"),
        "Statistics",
        "Enable collection of stats",
    ),
    opt(
        "disk_util",
        Kind::Bool,
        Some("1"),
        "Statistics",
        "Log disk utilization statistics",
    ),
    opt(
        "block_error_percentiles",
        Kind::Bool,
        Some("0"),
        "Statistics",
        "Record trim block errors and make a histogram",
    ),
    opt(
        "clocksource",
        Kind::Choice(CLOCKSOURCES),
        None,
        "Clock",
        "What type of timing source to use",
    ),
    opt(
        "gtod_cpu",
        UNBOUNDED,
        None,
        "Clock",
        "Set up dedicated gettimeofday() thread on this CPU",
    ),
    opt(
        "uid",
        UNBOUNDED,
        None,
        "Process",
        "Run job with this user ID",
    ),
    opt(
        "gid",
        UNBOUNDED,
        None,
        "Process",
        "Run job with this group ID",
    ),
    opt(
        "cgroup",
        Kind::Text,
        None,
        "Process",
        "Add job to cgroup of this name",
    ),
    opt(
        "cgroup_weight",
        Kind::Int { min: 100, max: 1000 },
        None,
        "Process",
        "Use given weight for cgroup",
    ),
    opt(
        "cgroup_nodelete",
        Kind::Bool,
        Some("0"),
        "Process",
        "Do not delete cgroups after job completion",
    ),
    opt(
        "profile",
        Kind::Choice(PROFILES),
        None,
        "Profiles",
        "Select a specific builtin performance test",
    ),
    opt(
        "merge_blktrace_file",
        Kind::Text,
        None,
        "I/O replay",
        "Merged blktrace output filename",
    ),
    shown(
        opt(
            "merge_blktrace_scalars",
            Kind::FloatList,
            None,
            "I/O replay",
            "Percentage to scale each trace",
        ),
        "list of floating point values separated by ':' (opt=5.9:7.8)",
        None,
    ),
    shown(
        opt(
            "merge_blktrace_iters",
            Kind::FloatList,
            None,
            "I/O replay",
            "Number of iterations to run per trace",
        ),
        "list of floating point values separated by ':' (opt=5.9:7.8)",
        None,
    ),
    // --- h1: I/O logs, replay, exec_prerun/postrun, numa, fill_device, exit_what ---
    opt(
        "write_iolog",
        Kind::Text,
        None,
        "I/O logs",
        "Store IO pattern to file",
    ),
    opt(
        "read_iolog",
        Kind::Text,
        None,
        "I/O logs",
        "Playback IO pattern from file",
    ),
    opt(
        "read_iolog_chunked",
        Kind::Bool,
        Some("0"),
        "I/O logs",
        "Parse IO pattern in chunks",
    ),
    opt(
        "replay_no_stall",
        Kind::Bool,
        Some("0"),
        "I/O logs",
        "Playback IO pattern file as fast as possible without stalls",
    ),
    opt(
        "replay_redirect",
        Kind::Text,
        None,
        "I/O logs",
        "Replay all I/O onto this device, regardless of trace device",
    ),
    // fio 3.33's help lines of replay_scale and replay_align are each
    // other's; --cmdhelp prints them as fio does.
    opt(
        "replay_scale",
        UNBOUNDED,
        Some("1"),
        "I/O logs",
        "Align offsets to this blocksize",
    ),
    opt(
        "replay_align",
        UNBOUNDED,
        None,
        "I/O logs",
        "Scale offset down by this factor",
    ),
    opt(
        "replay_time_scale",
        POSITIVE,
        Some("100"),
        "I/O logs",
        "Scale time for replay events",
    ),
    opt(
        "replay_skip",
        Kind::Text,
        None,
        "I/O logs",
        "Skip certain IO types (read,write,trim,flush)",
    ),
    opt(
        "exec_prerun",
        Kind::Text,
        None,
        "Job",
        "Execute this file prior to running job",
    ),
    opt(
        "exec_postrun",
        Kind::Text,
        None,
        "Job",
        "Execute this file after running job",
    ),
    opt(
        "numa_cpu_nodes",
        Kind::Text,
        None,
        "CPU",
        "NUMA CPU nodes bind",
    ),
    opt(
        "numa_mem_policy",
        Kind::Text,
        None,
        "CPU",
        "NUMA memory policy setup",
    ),
    aliased(
        opt(
            "fill_device",
            Kind::Bool,
            Some("0"),
            "Files",
            "Write until an ENOSPC error occurs",
        ),
        "fill_fs",
    ),
    opt(
        "exit_what",
        Kind::Choice(EXIT_WHAT),
        Some("group"),
        "Job",
        "Fine-grained control for exitall",
    ),
    // --- h2: flow, serialize_overlap, latency targets, cmdprio ---
    // fio reads flow_id as a plain int: a negative one is taken too.
    shown(
        opt(
            "flow_id",
            Kind::Int {
                min: i32::MIN as i64,
                max: i32::MAX as i64,
            },
            Some("0"),
            "I/O flow",
            "The flow index ID to use",
        ),
        "integer value (opt=100)",
        Some("min=0, max=-1"),
    ),
    opt(
        "flow",
        Kind::Int { min: 0, max: 1000 },
        Some("0"),
        "I/O flow",
        "Weight for flow control of this job",
    ),
    // Soft-deprecated in fio: taken and ignored, unknown to --cmdhelp.
    opt("flow_watermark", Kind::Text, None, "I/O flow", ""),
    opt("verifysort", Kind::Text, None, "Verify", ""),
    opt("verifysort_nr", Kind::Text, None, "Verify", ""),
    opt(
        "flow_sleep",
        UNBOUNDED,
        Some("0"),
        "I/O flow",
        "How many microseconds to sleep after being held back by the flow control mechanism",
    ),
    opt(
        "serialize_overlap",
        Kind::Bool,
        Some("0"),
        "I/O depth",
        "Wait for in-flight IOs that collide to complete",
    ),
    shown(
        opt(
            "max_latency",
            Kind::TimeList(TimeUnit::Micros),
            None,
            "Latency profiling",
            "Maximum tolerated IO latency (usec)",
        ),
        "integer value (opt=100)",
        Some("min=0, max=-1"),
    ),
    opt(
        "latency_target",
        Kind::Time(TimeUnit::Micros),
        None,
        "Latency profiling",
        "Ramp to max queue depth supporting this latency",
    ),
    opt(
        "latency_window",
        Kind::Time(TimeUnit::Micros),
        None,
        "Latency profiling",
        "Time to sustain latency_target",
    ),
    opt(
        "latency_percentile",
        Kind::FloatList,
        Some("100"),
        "Latency profiling",
        "Percentile of IOs must be below latency_target",
    ),
    opt(
        "latency_run",
        Kind::Bool,
        Some("0"),
        "Latency profiling",
        "Keep adjusting queue depth to match latency_target",
    ),
    shown(
        engine(
            opt(
                "cmdprio_percentage",
                Kind::SizeList {
                    min: 0,
                    max: 100,
                    default: 0,
                },
                None,
                "I/O engine",
                "Send high priority I/O this percentage of the time",
            ),
            AIO_URING,
        ),
        "integer value (opt=100)",
        Some("min=0, max=100"),
    ),
    shown(
        engine(
            opt(
                "cmdprio_class",
                Kind::SizeList {
                    min: 1,
                    max: 3,
                    default: 0,
                },
                None,
                "I/O engine",
                "Set asynchronous IO priority class",
            ),
            AIO_URING,
        ),
        "integer value (opt=100)",
        Some("min=1, max=3"),
    ),
    shown(
        engine(
            opt(
                "cmdprio",
                Kind::SizeList {
                    min: 0,
                    max: 7,
                    default: 0,
                },
                None,
                "I/O engine",
                "Set asynchronous IO priority level",
            ),
            AIO_URING,
        ),
        "integer value (opt=100)",
        Some("min=0, max=7"),
    ),
    engine(
        opt(
            "cmdprio_bssplit",
            Kind::Text,
            None,
            "I/O engine",
            "Set priority percentages for different block sizes",
        ),
        AIO_URING,
    ),
    // --- h3: engines ---
    engine(
        opt(
            "cpuload",
            UNBOUNDED,
            None,
            "I/O engine",
            "Use this percentage of CPU",
        ),
        CPUIO,
    ),
    engine(
        opt(
            "cpuchunks",
            UNBOUNDED,
            Some("50000"),
            "I/O engine",
            "Length of the CPU burn cycles (usecs)",
        ),
        CPUIO,
    ),
    engine(
        opt(
            "cpumode",
            Kind::Choice(CPU_MODES),
            Some("noop"),
            "I/O engine",
            "Stress mode",
        ),
        CPUIO,
    ),
    engine(
        opt(
            "exit_on_io_done",
            Kind::Bool,
            Some("0"),
            "I/O engine",
            "Exit when IO threads finish",
        ),
        CPUIO,
    ),
    engine(
        opt(
            "stat_type",
            Kind::Choice(STAT_TYPES),
            Some("stat"),
            "I/O engine",
            "Specify stat system call type to measure lookup/getattr performance",
        ),
        &["filestat"],
    ),
    engine(
        opt(
            "program",
            Kind::Text,
            None,
            "I/O engine",
            "Program to execute",
        ),
        EXEC,
    ),
    engine(
        opt(
            "arguments",
            Kind::Text,
            None,
            "I/O engine",
            "Arguments to pass",
        ),
        EXEC,
    ),
    engine(
        opt(
            "grace_time",
            UNBOUNDED,
            Some("1"),
            "I/O engine",
            "Grace time before sending a SIGKILL",
        ),
        EXEC,
    ),
    engine(
        opt(
            "std_redirect",
            Kind::Bool,
            Some("1"),
            "I/O engine",
            "Redirect stdout & stderr to files",
        ),
        EXEC,
    ),
    engine(
        opt(
            "hostname",
            Kind::Text,
            None,
            "I/O engine",
            "Hostname for net IO engine",
        ),
        NET_RDMA,
    ),
    engine(
        opt(
            "port",
            Kind::Int { min: 1, max: 65535 },
            None,
            "I/O engine",
            "Port to use for TCP or UDP net connections",
        ),
        NET_RDMA,
    ),
    engine(
        opt(
            "protocol",
            Kind::Choice(NET_PROTOCOLS),
            Some("tcp"),
            "I/O engine",
            "Network protocol to use",
        ),
        NET,
    ),
    engine(
        opt(
            "nodelay",
            Kind::Bool,
            None,
            "I/O engine",
            "Use TCP_NODELAY on TCP connections",
        ),
        NET,
    ),
    engine(
        opt(
            "listen",
            Kind::Flag,
            None,
            "I/O engine",
            "Listen for incoming TCP connections",
        ),
        NET,
    ),
    engine(
        opt(
            "pingpong",
            Kind::Flag,
            None,
            "I/O engine",
            "Ping-pong IO requests",
        ),
        NET,
    ),
    engine(
        opt(
            "interface",
            Kind::Text,
            None,
            "I/O engine",
            "Network interface to use",
        ),
        NET,
    ),
    engine(
        opt(
            "ttl",
            UNBOUNDED,
            Some("1"),
            "I/O engine",
            "Time-to-live value for outgoing UDP multicast packets",
        ),
        NET,
    ),
    engine(
        opt(
            "window_size",
            UNBOUNDED,
            None,
            "I/O engine",
            "Set socket buffer window size",
        ),
        NET,
    ),
    engine(
        opt(
            "mss",
            UNBOUNDED,
            None,
            "I/O engine",
            "Set TCP maximum segment size",
        ),
        NET,
    ),
    engine(
        opt(
            "donorname",
            Kind::Text,
            None,
            "I/O engine",
            "File used as a block donor",
        ),
        E4DEFRAG,
    ),
    engine(
        opt(
            "inplace",
            Kind::Int { min: 0, max: 1 },
            None,
            "I/O engine",
            "Alloc and free space inside defrag event",
        ),
        E4DEFRAG,
    ),
    engine(
        opt(
            "readfua",
            Kind::Bool,
            Some("0"),
            "I/O engine",
            "Set FUA flag (force unit access) for all Read operations",
        ),
        SG,
    ),
    engine(
        opt(
            "writefua",
            Kind::Bool,
            Some("0"),
            "I/O engine",
            "Set FUA flag (force unit access) for all Write operations",
        ),
        SG,
    ),
    engine(
        opt(
            "sg_write_mode",
            Kind::Choice(SG_WRITE_MODES),
            Some("write"),
            "I/O engine",
            "Specify SCSI WRITE mode",
        ),
        SG,
    ),
    engine(
        opt(
            "stream_id",
            UNBOUNDED,
            Some("0"),
            "I/O engine",
            "Stream ID for WRITE STREAM(16) commands",
        ),
        SG,
    ),
    engine(
        opt(
            "sqthread_poll_cpu",
            UNBOUNDED,
            None,
            "I/O engine",
            "What CPU to run SQ thread polling on",
        ),
        URING,
    ),
    engine(
        opt(
            "nonvectored",
            Kind::Int { min: -1, max: -1 },
            Some("-1"),
            "I/O engine",
            "Use non-vectored read/write commands",
        ),
        URING,
    ),
    engine(
        opt(
            "cmd_type",
            Kind::Choice(URING_CMD_TYPES),
            Some("nvme"),
            "I/O engine",
            "Specify uring-cmd type",
        ),
        &["io_uring_cmd"],
    ),
    // --- main: options of the service engines ---
    engine(
        opt("clientname", Kind::Text, None, "I/O engine", "Ceph client name"),
        CEPH,
    ),
    engine(
        opt("clustername", Kind::Text, None, "I/O engine", "Cluster name for ceph"),
        CEPH,
    ),
    engine(
        opt("pool", Kind::Text, None, "I/O engine", "Name of the pool hosting the RBD for the RBD engine"),
        CEPH,
    ),
    engine(
        opt("rbdname", Kind::Text, None, "I/O engine", "RBD name for RBD engine"),
        &["rbd"],
    ),
    engine(
        opt("busy_poll", Kind::Bool, Some("0"), "I/O engine", "Busy poll for completions instead of sleeping"),
        CEPH,
    ),
    engine(
        opt("conf", Kind::Text, None, "I/O engine", "Path to ceph config file"),
        &["rados"],
    ),
    engine(
        opt("touch_objects", Kind::Bool, Some("1"), "I/O engine", "Touch (create) objects on initialization"),
        &["rados"],
    ),
    engine(
        opt("volume", Kind::Text, None, "I/O engine", "Name of the Gluster volume"),
        GLUSTER,
    ),
    engine(
        opt("brick", Kind::Text, None, "I/O engine", "Glusterfs volfile server hostname"),
        GLUSTER,
    ),
    engine(
        opt("uri", Kind::Text, None, "I/O engine", "NBD URI"),
        &["nbd"],
    ),
    engine(
        opt("skip_bad", Kind::Bool, Some("0"), "I/O engine", "Skip operations against known bad blocks"),
        &["mtd"],
    ),
    engine(
        opt("bindname", Kind::Text, None, "I/O engine", "Local address to bind to for rdma"),
        &["rdma"],
    ),
    engine(
        opt("verb", Kind::Text, None, "I/O engine", "RDMA verb: write, read, send or recv"),
        &["rdma"],
    ),
];

/// exit_what: which jobs an exitall stops.
const EXIT_WHAT: &[(&str, &str)] = &[
    ("group", "exit_all=1 default behaviour"),
    (
        "stonewall",
        "quit all currently running jobs; continue with next stonewall",
    ),
    ("all", "Quit everything"),
];

/// The options of fio's built-in profiles (tiobench, act): fio takes them
/// in any job and on the command line, where they change nothing unless
/// `--profile=` names their profile; `--cmdhelp` does not list them.
pub static PROFILE_OPTIONS: &[OptDef] = &[
    opt("threads", UNBOUNDED, None, "Profiles", "Number of Threads"),
    opt("block", UNBOUNDED, None, "Profiles", "Block size to use"),
    opt("numruns", UNBOUNDED, None, "Profiles", "Number of runs"),
    opt("dir", Kind::Text, None, "Profiles", "Test directory"),
    opt(
        "device-names",
        Kind::Text,
        None,
        "Profiles",
        "Devices to use",
    ),
    opt(
        "load",
        UNBOUNDED,
        None,
        "Profiles",
        "ACT load multiplier (default 1x)",
    ),
    opt(
        "test-duration",
        Kind::Time(TimeUnit::Seconds),
        None,
        "Profiles",
        "How long the entire test takes to run",
    ),
    opt(
        "threads-per-queue",
        UNBOUNDED,
        None,
        "Profiles",
        "Number of read I/O threads per device",
    ),
    opt(
        "read-req-num-512-blocks",
        UNBOUNDED,
        None,
        "Profiles",
        "Number of 512B blocks to read at the time",
    ),
    opt(
        "large-block-op-kbytes",
        UNBOUNDED,
        None,
        "Profiles",
        "Size of large block ops in KiB (writes)",
    ),
    opt(
        "prep",
        Kind::Flag,
        None,
        "Profiles",
        "Set to run ACT prep phase",
    ),
];

/// The option named (or aliased) `name`.
pub fn find(name: &str) -> Option<&'static OptDef> {
    find_listed(name).or_else(|| PROFILE_OPTIONS.iter().find(|o| o.name == name))
}

/// The option named (or aliased) `name` among those `--cmdhelp` lists.
pub fn find_listed(name: &str) -> Option<&'static OptDef> {
    OPTIONS
        .iter()
        .find(|o| o.name == name || o.alias == Some(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_defaults_parse() {
        for (i, o) in OPTIONS.iter().enumerate() {
            for p in &OPTIONS[i + 1..] {
                assert_ne!(o.name, p.name);
                assert_ne!(Some(o.name), p.alias);
            }
            if let Some(d) = o.default {
                if o.name != "filename_format" {
                    o.kind
                        .parse(o.name, d, 1024)
                        .unwrap_or_else(|_| panic!("default of {} must parse", o.name));
                }
            }
        }
    }
}
