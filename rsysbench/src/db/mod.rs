//! sysbench 1.0.20's database layer: the driver registry, the options the
//! drivers read, and the one trait both engines implement (`mysql.rs` over
//! libmariadb, `pgsql.rs` over libpq). The C ABI scripts reach through
//! LuaJIT's `ffi.C` (`db_create`, `db_query`, ...) is in `ffi.rs`, which
//! keeps sysbench's connection state machine, counters and bulk inserts;
//! the engines only talk to their client library.
//!
//! Messages, counter classification and error handling follow sysbench
//! 1.0.20 (checked against its binary and its cram tests), so a script
//! sees the same results, errors and output under rsysbench.
//!
//! Where sysbench 1.0.20 reads or writes memory it does not own, we do what
//! it evidently means instead (its outputs there are garbage or a crash):
//! - FLOAT/DOUBLE parameters of `sysbench.sql` are set (sysbench writes
//!   past the buffer: the value sent is 0, and the heap is corrupted);
//! - string parameters are `*data_len` bytes long in emulated statements
//!   and PostgreSQL's (sysbench reads up to a NUL: stale tails, overreads),
//!   and are not cut or overflowed at 256 bytes (PostgreSQL);
//!   `set_rand_str` with a template longer than the buffer keeps what fits;
//! - a NULL parameter of a PostgreSQL prepared statement is sent as NULL
//!   (sysbench sends the value set before);
//! - a MySQL reconnect opens a new handle (sysbench reuses the closed one,
//!   which crashes with libmariadb 3.x), and the error it reports stays
//!   readable;
//! - `db_query` forgets the last executed statement (sysbench keeps a
//!   pointer to it, freed or not, and may crash freeing the next result);
//! - a prepared statement keeps its connection from being collected.
//!
//! `--mysql-debug` makes sysbench raise its verbosity to debug for all
//! output; here the driver's trace lines print whatever `--verbosity` is,
//! the rest of the program's debug lines follow `--verbosity`.

pub mod ffi;
mod mysql;
mod pgsql;
#[cfg(test)]
mod tests;

use std::ffi::{c_char, c_int, CString};
use std::io::Write;
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, OnceLock};

use crate::args::Values;
use crate::log::Level;

pub use ffi::{SqlBind, SqlConnection, SqlStatement};

/// `sql_error_t` / `db_error_t`.
pub const DB_ERROR_NONE: c_int = 0;
pub const DB_ERROR_IGNORABLE: c_int = 1;
pub const DB_ERROR_FATAL: c_int = 2;

/// `sql_bind_type_t` / `db_bind_type_t`.
#[allow(dead_code)]
pub mod bind_type {
    use std::ffi::c_int;
    pub const NONE: c_int = 0;
    pub const TINYINT: c_int = 1;
    pub const SMALLINT: c_int = 2;
    pub const INT: c_int = 3;
    pub const BIGINT: c_int = 4;
    pub const FLOAT: c_int = 5;
    pub const DOUBLE: c_int = 6;
    pub const TIME: c_int = 7;
    pub const DATE: c_int = 8;
    pub const DATETIME: c_int = 9;
    pub const TIMESTAMP: c_int = 10;
    pub const CHAR: c_int = 11;
    pub const VARCHAR: c_int = 12;
}

/// `--db-ps-mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PsMode {
    Auto,
    Disable,
}

/// What a driver can do (`drv_caps_t`, same layout).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Caps {
    pub multi_rows_insert: c_char,
    pub prepared_statements: c_char,
    pub auto_increment: c_char,
    pub needs_commit: c_char,
    pub serial: c_char,
    pub unsigned_int: c_char,
}

/// The `--mysql-*` options.
#[derive(Debug, Clone, Default)]
pub struct MysqlArgs {
    pub hosts: Vec<String>,
    pub ports: Vec<String>,
    pub sockets: Vec<String>,
    pub user: Option<String>,
    pub password: Option<String>,
    pub db: Option<String>,
    pub ssl: bool,
    pub ssl_cipher: Option<String>,
    pub compression: bool,
    pub debug: bool,
    pub ignore_errors: Vec<String>,
    pub dry_run: bool,
}

/// The `--pgsql-*` options.
#[derive(Debug, Clone, Default)]
pub struct PgsqlArgs {
    pub host: Option<String>,
    pub port: Option<String>,
    pub user: Option<String>,
    pub password: Option<String>,
    pub db: Option<String>,
}

/// Everything the database layer reads from the command line, plus the
/// once-only initialisation sysbench does on the first `db_create()`.
#[derive(Debug, Default)]
pub struct Config {
    pub driver: Option<String>,
    pub ps_mode: Option<String>,
    pub mysql: MysqlArgs,
    pub pgsql: PgsqlArgs,
    /// db_init(): the parsed --db-ps-mode, or None when it was invalid.
    init: OnceLock<Option<PsMode>>,
    /// Whether each engine's init() succeeded; a failed one is tried
    /// again by the next db_create(), as sysbench does.
    engine_init: [std::sync::Mutex<bool>; ENGINES.len()],
    /// How many MySQL connections were made so far: picks the next
    /// host/port or socket round-robin, as sysbench's list positions do.
    pub(crate) mysql_next: AtomicUsize,
}

impl Config {
    /// Read the options (tables `options::DB`, `MYSQL`, `PGSQL`).
    pub fn from_values(v: &Values) -> Config {
        Config {
            driver: v.string("db-driver"),
            ps_mode: v.string("db-ps-mode"),
            mysql: MysqlArgs {
                hosts: v.list("mysql-host"),
                ports: v.list("mysql-port"),
                sockets: v.list("mysql-socket"),
                user: v.string("mysql-user"),
                password: v.string("mysql-password"),
                db: v.string("mysql-db"),
                ssl: v.flag("mysql-ssl"),
                ssl_cipher: v.string("mysql-ssl-cipher"),
                compression: v.flag("mysql-compression"),
                debug: v.flag("mysql-debug"),
                ignore_errors: v.list("mysql-ignore-errors"),
                dry_run: v.flag("mysql-dry-run"),
            },
            pgsql: PgsqlArgs {
                host: v.string("pgsql-host"),
                port: v.string("pgsql-port"),
                user: v.string("pgsql-user"),
                password: v.string("pgsql-password"),
                db: v.string("pgsql-db"),
            },
            ..Config::default()
        }
    }

    /// sysbench's defaults (no option given).
    pub fn defaults() -> Config {
        let mut v = Values::default();
        for t in [
            crate::options::DB,
            crate::options::MYSQL,
            crate::options::PGSQL,
        ] {
            v.register(t, false);
        }
        Config::from_values(&v)
    }

    /// db_init(): once per run. Parses --db-ps-mode; None when invalid.
    fn global_init(&self) -> Option<PsMode> {
        *self.init.get_or_init(|| {
            let mode = match self.ps_mode.as_deref() {
                Some("auto") => Some(PsMode::Auto),
                Some("disable") => Some(PsMode::Disable),
                other => {
                    fatal(&format!(
                        "Invalid value for db-ps-mode: {}",
                        other.unwrap_or("(null)")
                    ));
                    None
                }
            };
            if mode.is_some() {
                crate::lua::context::enable_sql_stats();
            }
            mode
        })
    }

    /// Run engine `i`'s init() unless it already succeeded.
    fn init_engine(&self, i: usize) -> bool {
        let mut done = self.engine_init[i]
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if !*done {
            *done = ENGINES[i].init(self);
        }
        *done
    }

    /// Whether server-side prepared statements are used (after db_init).
    pub fn use_ps(&self) -> bool {
        self.init.get().copied().flatten() == Some(PsMode::Auto)
    }
}

static CONFIG: OnceLock<Arc<Config>> = OnceLock::new();

#[cfg(test)]
thread_local! {
    /// Unit tests run one configuration per test thread.
    static TEST_CONFIG: std::cell::RefCell<Option<Arc<Config>>> = const { std::cell::RefCell::new(None) };
}

/// Take the database options. Called once, before any Lua runs.
pub fn configure(values: &Values) -> crate::error::Result<()> {
    let _ = CONFIG.set(Arc::new(Config::from_values(values)));
    Ok(())
}

/// The configuration in effect (sysbench's defaults if never configured).
pub(crate) fn config() -> Arc<Config> {
    #[cfg(test)]
    if let Some(c) = TEST_CONFIG.with(|c| c.borrow().clone()) {
        return c;
    }
    CONFIG.get_or_init(|| Arc::new(Config::defaults())).clone()
}

#[cfg(test)]
pub(crate) fn set_test_config(c: Config) {
    TEST_CONFIG.with(|t| *t.borrow_mut() = Some(Arc::new(c)));
}

/// The drivers compiled in, in sysbench's order (mysql first).
pub(crate) static ENGINES: [&dyn Driver; 2] = [&mysql::Mysql, &pgsql::Pgsql];

/// One database engine. sysbench's `drv_ops_t`, minus what the common
/// layer in `ffi.rs` does itself. The connection and statement objects are
/// the ABI structs; an engine keeps its own data behind their `ptr` fields.
/// `bool` results are "succeeded"; `c_int` ones are sysbench's codes.
pub(crate) trait Driver: Sync {
    /// Short name (`--db-driver`), NUL-terminated.
    fn sname(&self) -> &'static [u8];
    /// Long name, NUL-terminated.
    #[cfg_attr(not(test), allow(dead_code))]
    fn lname(&self) -> &'static [u8];
    /// Once per run, on the first db_create() for this driver.
    fn init(&self, cfg: &Config) -> bool;
    /// On every db_create() (and its db_destroy()).
    fn thread_init(&self) -> bool {
        true
    }
    fn thread_done(&self) {}
    fn describe(&self, cfg: &Config) -> Option<Caps>;
    fn connect(&self, con: &mut SqlConnection) -> bool;
    fn disconnect(&self, con: &mut SqlConnection) -> c_int;
    /// Whether [`Driver::reconnect`] is there (sysbench: only MySQL's).
    fn can_reconnect(&self) -> bool {
        false
    }
    /// Reconnect with the same options: DB_ERROR_IGNORABLE when done,
    /// DB_ERROR_FATAL when it gave up.
    fn reconnect(&self, _con: &mut SqlConnection) -> c_int {
        DB_ERROR_FATAL
    }
    fn prepare(&self, con: &mut SqlConnection, stmt: &mut SqlStatement, query: &[u8]) -> bool;
    fn bind_param(&self, con: &mut SqlConnection, stmt: &mut SqlStatement, p: &[SqlBind]) -> bool;
    fn bind_result(&self, con: &mut SqlConnection, stmt: &mut SqlStatement, p: &[SqlBind]) -> bool;
    /// Run a prepared statement; fills `con.rs`. Returns an error code.
    fn execute(&self, con: &mut SqlConnection, stmt: &mut SqlStatement) -> c_int;
    /// Run a query; fills `con.rs`. Returns an error code.
    fn query(&self, con: &mut SqlConnection, query: &[u8]) -> c_int;
    /// Fill `con.rs.row` with the next row; false at the end.
    fn fetch_row(&self, con: &mut SqlConnection) -> bool;
    fn free_results(&self, con: &mut SqlConnection) -> c_int;
    fn close(&self, con: &mut SqlConnection, stmt: &mut SqlStatement) -> c_int;
}

// ---- logging, as sysbench's log_text() levels ----

#[cfg(test)]
thread_local! {
    /// What this thread's test logged, as printed.
    pub(crate) static CAPTURED: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}

fn log_at(level: Level, prefix: &str, msg: &str) {
    #[cfg(test)]
    CAPTURED.with(|c| c.borrow_mut().push(format!("{prefix}{msg}")));
    #[cfg(not(test))]
    let _ = prefix;
    let log = crate::log::global();
    if log.enabled(level) {
        log.msg(level, msg);
    }
}

pub(crate) fn fatal(msg: &str) {
    log_at(Level::Fatal, "FATAL: ", msg);
}

pub(crate) fn alert(msg: &str) {
    log_at(Level::Alert, "ALERT: ", msg);
}

pub(crate) fn info(msg: &str) {
    log_at(Level::Info, "", msg);
}

pub(crate) fn debug(msg: &str) {
    log_at(Level::Debug, "DEBUG: ", msg);
}

/// A client library trace line (`--mysql-debug`): sysbench raises its
/// verbosity to debug for these, so they show whatever --verbosity says.
pub(crate) fn trace(msg: &str) {
    #[cfg(test)]
    CAPTURED.with(|c| c.borrow_mut().push(format!("DEBUG: {msg}")));
    let log = crate::log::global();
    if log.enabled(Level::Debug) {
        log.msg(Level::Debug, msg);
    } else {
        log.block(Level::Fatal, &format!("DEBUG: {msg}\n"));
    }
}

/// A C string for the client libraries (cut at an embedded NUL, as C sees it).
pub(crate) fn cstring(s: &str) -> CString {
    let bytes = s.as_bytes();
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    CString::new(&bytes[..end]).unwrap_or_default()
}

/// `printf("%p")` as glibc prints it.
pub(crate) fn ptr_str<T>(p: *const T) -> String {
    if p.is_null() {
        "(nil)".to_string()
    } else {
        format!("{p:p}")
    }
}

/// C's `atoi` (leading blanks, sign, digits; anything else stops it).
pub(crate) fn atoi(s: &str) -> i64 {
    let t = s.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let (neg, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let mut v: i64 = 0;
    for b in digits.bytes().take_while(u8::is_ascii_digit) {
        v = v.wrapping_mul(10).wrapping_add(i64::from(b - b'0'));
    }
    if neg {
        -v
    } else {
        v
    }
}

/// `db_time_t`: the buffer of DATE/TIME/DATETIME/TIMESTAMP binds.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct DbTime {
    pub year: u32,
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
    pub second: u32,
}

/// C's `%f`.
fn write_f(out: &mut Vec<u8>, x: f64) {
    let _ = if x.is_nan() {
        write!(out, "{}", if x.is_sign_negative() { "-nan" } else { "nan" })
    } else if x.is_infinite() {
        write!(out, "{}", if x < 0.0 { "-inf" } else { "inf" })
    } else {
        write!(out, "{x:.6}")
    };
}

/// Append an integer's decimal digits. Hot path: no formatter.
fn int(out: &mut Vec<u8>, v: impl itoa::Integer) -> std::io::Result<()> {
    out.extend_from_slice(itoa::Buffer::new().format(v).as_bytes());
    Ok(())
}

/// Append a bound value as SQL text (sysbench's db_print_value(): NULL,
/// numbers, quoted strings and times, no escaping), for emulated prepared
/// statements and PostgreSQL's text parameters.
///
/// # Safety
/// `b`'s pointers must be null or point to buffers of its type.
pub(crate) unsafe fn print_value(b: &SqlBind, out: &mut Vec<u8>) {
    use bind_type::*;
    if !b.is_null.is_null() && *b.is_null != 0 {
        out.extend_from_slice(b"NULL");
        return;
    }
    let p = b.buffer;
    if p.is_null() {
        if matches!(b.type_, CHAR | VARCHAR) {
            out.extend_from_slice(b"''");
        }
        return;
    }
    let time = || std::ptr::read_unaligned(p as *const DbTime);
    let _ = match b.type_ {
        // itoa: integers are the common bind (ids), formatted per query.
        TINYINT => int(out, std::ptr::read_unaligned(p as *const i8)),
        SMALLINT => int(out, std::ptr::read_unaligned(p as *const i16)),
        INT => int(out, std::ptr::read_unaligned(p as *const i32)),
        BIGINT => int(out, std::ptr::read_unaligned(p as *const i64)),
        FLOAT => {
            write_f(out, f64::from(std::ptr::read_unaligned(p as *const f32)));
            Ok(())
        }
        DOUBLE => {
            write_f(out, std::ptr::read_unaligned(p as *const f64));
            Ok(())
        }
        CHAR | VARCHAR => {
            out.push(b'\'');
            out.extend_from_slice(bind_bytes(b));
            out.push(b'\'');
            Ok(())
        }
        DATE => {
            let t = time();
            write!(
                out,
                "'{}-{}-{}'",
                t.year as i32, t.month as i32, t.day as i32
            )
        }
        TIME => {
            let t = time();
            write!(
                out,
                "'{}:{}:{}'",
                t.hour as i32, t.minute as i32, t.second as i32
            )
        }
        DATETIME | TIMESTAMP => {
            let t = time();
            write!(
                out,
                "'{}-{}-{} {}:{}:{}'",
                t.year as i32,
                t.month as i32,
                t.day as i32,
                t.hour as i32,
                t.minute as i32,
                t.second as i32
            )
        }
        _ => Ok(()),
    };
}

/// The bytes of a CHAR/VARCHAR bind: `*data_len` of them when given
/// (sysbench's Lua API always sets it), else up to the first NUL.
///
/// # Safety
/// As [`print_value`]; `b.buffer` is not null.
pub(crate) unsafe fn bind_bytes(b: &SqlBind) -> &[u8] {
    let p = b.buffer as *const u8;
    let len = if !b.data_len.is_null() {
        *b.data_len as usize
    } else if b.max_len > 0 {
        let max = b.max_len as usize;
        (0..max).find(|&i| *p.add(i) == 0).unwrap_or(max)
    } else {
        libc::strlen(p as *const c_char)
    };
    std::slice::from_raw_parts(p, len)
}

/// Build the text of an emulated prepared statement into `out`: each `?`
/// of `query` replaced by the next bound value (a `?` past the bound
/// values stays as it is).
///
/// # Safety
/// As [`print_value`] for each bind.
pub(crate) unsafe fn emulate_query(query: &[u8], binds: &[SqlBind], out: &mut Vec<u8>) {
    out.clear();
    let mut next = binds.iter();
    for &c in query {
        if c == b'?' {
            if let Some(b) = next.next() {
                print_value(b, out);
                continue;
            }
        }
        out.push(c);
    }
}
