//! The C ABI of sysbench 1.0.20's database layer, as its Lua `ffi.cdef`
//! declares it: the structs (public fields first, in sysbench's order and
//! types; what follows is ours and opaque to scripts), and the `db_*`
//! functions with sysbench's names, signatures, return values, connection
//! states, counters and messages.
//!
//! Every exported function checks its pointers (null, or not one of ours by
//! its magic word) and returns sysbench's error value instead of touching
//! them, and runs its body under `catch_unwind`, so nothing unwinds into C.
//! `db_query()` and `db_execute()` allocate nothing of their own once a
//! connection's buffers have grown to fit, and take no lock.

use std::ffi::{c_char, c_int, c_ulong, c_void, CStr};
use std::mem::offset_of;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr::{null, null_mut};
use std::sync::Arc;

use super::{alert, config, fatal, Caps, Config, Driver, ENGINES};
use super::{DB_ERROR_FATAL, DB_ERROR_NONE};
use crate::lua::context::{count, thread_id, SbCounter};

/// `sql_value` / `db_value_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SqlValue {
    pub len: u32,
    pub ptr: *const c_char,
}

/// `sql_row` / `db_row_t`.
#[repr(C)]
#[derive(Debug)]
pub struct SqlRow {
    pub ptr: *mut c_void,
    pub values: *mut SqlValue,
}

/// `sql_result` / `db_result_t` (all public).
#[repr(C)]
#[derive(Debug)]
pub struct SqlResult {
    /// An `sb_counter_type`.
    pub counter: c_int,
    pub nrows: u32,
    pub nfields: u32,
    pub statement: *mut SqlStatement,
    pub ptr: *mut c_void,
    pub row: SqlRow,
}

/// `sql_bind` / `db_bind_t` (all public).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SqlBind {
    /// An `sql_bind_type_t`.
    pub type_: c_int,
    pub buffer: *mut c_void,
    pub data_len: *mut c_ulong,
    pub max_len: c_ulong,
    pub is_null: *mut c_char,
}

/// `sql_driver`: `sname`, `lname`, then ours.
#[repr(C)]
pub struct SqlDriver {
    pub sname: *const c_char,
    pub lname: *const c_char,
    engine: usize,
}

// SAFETY: the drivers are immutable statics; the pointers are to static
// NUL-terminated names.
unsafe impl Sync for SqlDriver {}

static DRIVERS: [SqlDriver; 2] = [driver_entry(0), driver_entry(1)];

const fn driver_entry(i: usize) -> SqlDriver {
    SqlDriver {
        sname: NAMES[i].0.as_ptr() as *const c_char,
        lname: NAMES[i].1.as_ptr() as *const c_char,
        engine: i,
    }
}

/// The names again, as consts for the statics (checked against the
/// engines' own in the tests).
const NAMES: [(&[u8], &[u8]); 2] = [
    (b"mysql\0", b"MySQL driver\0"),
    (b"pgsql\0", b"PostgreSQL driver\0"),
];

// The layouts scripts see through sysbench's cdef (x86_64/aarch64 LP64).
const _: () = {
    use std::mem::size_of;
    assert!(size_of::<SqlValue>() == 16 && offset_of!(SqlValue, ptr) == 8);
    assert!(size_of::<SqlRow>() == 16 && offset_of!(SqlRow, values) == 8);
    assert!(size_of::<SqlResult>() == 48);
    assert!(offset_of!(SqlResult, nrows) == 4 && offset_of!(SqlResult, nfields) == 8);
    assert!(offset_of!(SqlResult, statement) == 16 && offset_of!(SqlResult, ptr) == 24);
    assert!(offset_of!(SqlResult, row) == 32);
    assert!(size_of::<SqlBind>() == 40 && offset_of!(SqlBind, buffer) == 8);
    assert!(offset_of!(SqlBind, data_len) == 16 && offset_of!(SqlBind, max_len) == 24);
    assert!(offset_of!(SqlBind, is_null) == 32);
    assert!(offset_of!(SqlDriver, sname) == 0 && offset_of!(SqlDriver, lname) == 8);
    assert!(offset_of!(SqlConnection, error) == 0 && offset_of!(SqlConnection, sql_errno) == 4);
    assert!(offset_of!(SqlConnection, sql_state) == 8);
    assert!(offset_of!(SqlConnection, sql_errmsg) == 16);
    assert!(offset_of!(SqlConnection, driver) == 24);
    assert!(offset_of!(SqlStatement, connection) == 0);
    assert!(size_of::<Caps>() == 6 && size_of::<super::DbTime>() == 24);
};

/// `db_conn_state_t`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C)]
pub(crate) enum ConnState {
    Ready,
    ResultSet,
    Invalid,
}

const CONN_MAGIC: u64 = 0x7262_6e63_6f6e_6e31; // "rbnconn1"
const STMT_MAGIC: u64 = 0x7262_6e73_746d_7431; // "rbnstmt1"

/// Query length limit of a bulk insert (sysbench's BULK_PACKET_SIZE).
pub(crate) const BULK_PACKET_SIZE: usize = 512 * 1024;
/// Rows between COMMITs of a bulk insert, for drivers that need them.
const ROWS_BEFORE_COMMIT: u32 = 1000;

/// A multi-row INSERT being built.
#[derive(Debug, Default)]
pub(crate) struct Bulk {
    /// The statement text; `None` outside init..done.
    buf: Option<Vec<u8>>,
    /// Length of the `INSERT ... VALUES` head.
    head: usize,
    rows: u32,
    commit_cnt: u32,
    commit_max: u32,
}

/// `sql_connection`: sysbench's five public fields, then ours.
#[repr(C)]
pub struct SqlConnection {
    pub error: c_int,
    pub sql_errno: c_int,
    pub sql_state: *const c_char,
    pub sql_errmsg: *const c_char,
    pub driver: *mut SqlDriver,

    magic: u64,
    /// The engine's own connection data.
    pub(crate) ptr: *mut c_void,
    pub(crate) rs: SqlResult,
    pub(crate) state: ConnState,
    pub(crate) thread_id: c_int,
    engine: &'static dyn Driver,
    pub(crate) cfg: Arc<Config>,
    /// Storage behind `rs.row.values`.
    values: Vec<SqlValue>,
    bulk: Bulk,
    /// A NUL-terminated copy of the query, for libraries that want one.
    pub(crate) qbuf: Vec<u8>,
    /// Storage behind `sql_state` / `sql_errmsg` for engines whose library
    /// frees its copies (PostgreSQL).
    pub(crate) state_buf: Vec<u8>,
    pub(crate) errmsg_buf: Vec<u8>,
}

/// `sql_statement`: `connection`, then ours.
#[repr(C)]
pub struct SqlStatement {
    pub connection: *mut SqlConnection,

    magic: u64,
    /// The query text as given (without a NUL).
    pub(crate) query: Vec<u8>,
    /// Copies of the bound parameters (emulation, PostgreSQL).
    pub(crate) bound: Vec<SqlBind>,
    pub(crate) emulated: bool,
    /// The `sb_counter_type` of a server-side prepared statement.
    pub(crate) counter: c_int,
    /// The engine's own statement data.
    pub(crate) ptr: *mut c_void,
    /// Reused text of an emulated execution.
    pub(crate) buf: Vec<u8>,
}

impl SqlConnection {
    /// The state, by value (so a match arm may use the connection).
    pub(crate) fn state(&self) -> ConnState {
        self.state
    }

    /// Set `sql_state`/`sql_errmsg` to owned copies of `state`/`msg`.
    pub(crate) fn set_owned_error(&mut self, state: &[u8], msg: &[u8]) {
        self.state_buf.clear();
        self.state_buf.extend_from_slice(state);
        self.state_buf.push(0);
        self.errmsg_buf.clear();
        self.errmsg_buf.extend_from_slice(msg);
        self.errmsg_buf.push(0);
        self.sql_state = self.state_buf.as_ptr() as *const c_char;
        self.sql_errmsg = self.errmsg_buf.as_ptr() as *const c_char;
    }

    pub(crate) fn clear_error(&mut self) {
        self.sql_errno = 0;
        self.sql_state = null();
        self.sql_errmsg = null();
    }

    /// `query` with a NUL after it, in the connection's buffer.
    pub(crate) fn nul_terminated(&mut self, query: &[u8]) -> *const c_char {
        self.qbuf.clear();
        self.qbuf.extend_from_slice(query);
        self.qbuf.push(0);
        self.qbuf.as_ptr() as *const c_char
    }
}

/// Run an exported function's body; a panic returns `fallback`.
#[inline(always)]
fn guard<R>(fallback: R, f: impl FnOnce() -> R) -> R {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or(fallback)
}

fn driver_ref<'a>(drv: *const SqlDriver) -> Option<&'a SqlDriver> {
    DRIVERS.iter().find(|d| std::ptr::eq(*d, drv))
}

/// # Safety
/// `con` is null or was returned by `db_connection_create` and not freed.
unsafe fn con_mut<'a>(con: *mut SqlConnection) -> Option<&'a mut SqlConnection> {
    let c = con.as_mut()?;
    (c.magic == CONN_MAGIC).then_some(c)
}

/// # Safety
/// `stmt` is null or was returned by `db_prepare` and not closed.
unsafe fn stmt_mut<'a>(stmt: *mut SqlStatement) -> Option<&'a mut SqlStatement> {
    let s = stmt.as_mut()?;
    (s.magic == STMT_MAGIC).then_some(s)
}

/// The connection a result set is embedded in.
///
/// # Safety
/// `rs` is null or a pointer `db_query`/`db_execute` returned.
unsafe fn con_of_rs<'a>(rs: *mut SqlResult) -> Option<&'a mut SqlConnection> {
    if rs.is_null() {
        return None;
    }
    let con = (rs as *mut u8).wrapping_sub(offset_of!(SqlConnection, rs)) as *mut SqlConnection;
    con_mut(con)
}

/// A (pointer, length) string from C; `len` bytes of it.
///
/// # Safety
/// `p` is null or points to `len` readable bytes.
unsafe fn bytes<'a>(p: *const c_char, len: usize) -> Option<&'a [u8]> {
    (!p.is_null()).then(|| std::slice::from_raw_parts(p as *const u8, len))
}

fn count_raw(c: c_int) {
    if let Some(c) = SbCounter::from_raw(c) {
        count(c);
    }
}

const ALREADY_CLOSED: &str = "attempt to use an already closed connection";

// ---------------------------------------------------------------- drivers

/// Initialise the driver `name` (the `--db-driver` one when null) for the
/// calling thread; null (after a FATAL message) when that fails.
#[no_mangle]
pub extern "C" fn db_create(name: *const c_char) -> *mut SqlDriver {
    guard(null_mut(), || {
        let cfg = config();
        if cfg.global_init().is_none() {
            return null_mut();
        }
        let name: Option<String> = if name.is_null() {
            cfg.driver.clone()
        } else {
            // SAFETY: a NUL-terminated string from the caller.
            Some(
                unsafe { CStr::from_ptr(name) }
                    .to_string_lossy()
                    .into_owned(),
            )
        };
        let Some(name) = name else {
            // sysbench takes the only driver when there is one; we have two.
            fatal("Multiple DB drivers are available. Use --db-driver=name to specify which one to use");
            return null_mut();
        };
        let Some(i) = ENGINES
            .iter()
            .position(|e| e.sname().strip_suffix(b"\0") == Some(name.as_bytes()))
        else {
            fatal(&format!("invalid database driver name: '{name}'"));
            return null_mut();
        };
        let engine = ENGINES[i];
        if !cfg.init_engine(i) {
            return null_mut();
        }
        if !engine.thread_init() {
            fatal("thread-local driver initialization failed.");
            return null_mut();
        }
        &DRIVERS[i] as *const SqlDriver as *mut SqlDriver
    })
}

/// The calling thread is done with `drv`.
#[no_mangle]
pub extern "C" fn db_destroy(drv: *mut SqlDriver) -> c_int {
    guard(1, || match driver_ref(drv) {
        Some(d) => {
            ENGINES[d.engine].thread_done();
            0
        }
        None => 1,
    })
}

/// The driver's capabilities into `*caps`; 1 when they cannot be had.
#[no_mangle]
pub extern "C" fn db_describe(drv: *mut SqlDriver, caps: *mut Caps) -> c_int {
    guard(1, || {
        let (Some(d), false) = (driver_ref(drv), caps.is_null()) else {
            return 1;
        };
        match ENGINES[d.engine].describe(&config()) {
            Some(c) => {
                // SAFETY: checked non-null; the caller's drv_caps_t.
                unsafe { caps.write(c) };
                0
            }
            None => 1,
        }
    })
}

// ------------------------------------------------------------ connections

/// Connect with the driver's options; null (after the driver's FATAL
/// messages) when that fails.
#[no_mangle]
pub extern "C" fn db_connection_create(drv: *mut SqlDriver) -> *mut SqlConnection {
    guard(null_mut(), || {
        let Some(d) = driver_ref(drv) else {
            return null_mut();
        };
        let mut con = Box::new(SqlConnection {
            error: DB_ERROR_NONE,
            sql_errno: 0,
            sql_state: null(),
            sql_errmsg: null(),
            driver: drv,
            magic: CONN_MAGIC,
            ptr: null_mut(),
            rs: SqlResult {
                counter: SbCounter::Other as c_int,
                nrows: 0,
                nfields: 0,
                statement: null_mut(),
                ptr: null_mut(),
                row: SqlRow {
                    ptr: null_mut(),
                    values: null_mut(),
                },
            },
            state: ConnState::Ready,
            thread_id: thread_id(),
            engine: ENGINES[d.engine],
            cfg: config(),
            values: Vec::new(),
            bulk: Bulk::default(),
            qbuf: Vec::new(),
            state_buf: Vec::new(),
            errmsg_buf: Vec::new(),
        });
        let engine = con.engine;
        if !engine.connect(&mut con) {
            con.magic = 0;
            return null_mut();
        }
        Box::into_raw(con)
    })
}

/// Release the result set's engine data and reset it (db_free_results_int).
fn free_results_int(con: &mut SqlConnection) -> c_int {
    let rc = con.engine.free_results(con);
    con.rs.row.values = null_mut();
    con.rs.nrows = 0;
    con.rs.nfields = 0;
    con.rs.statement = null_mut();
    con.state = ConnState::Ready;
    rc
}

#[no_mangle]
pub extern "C" fn db_connection_close(con: *mut SqlConnection) -> c_int {
    guard(1, || {
        // SAFETY: checked by its magic word.
        let Some(con) = (unsafe { con_mut(con) }) else {
            return 1;
        };
        close_connection(con)
    })
}

fn close_connection(con: &mut SqlConnection) -> c_int {
    match con.state() {
        ConnState::Invalid => {
            alert("attempt to close an already closed connection");
            return 0;
        }
        ConnState::ResultSet => {
            free_results_int(con);
        }
        ConnState::Ready => {}
    }
    let rc = con.engine.disconnect(con);
    con.state = ConnState::Invalid;
    rc
}

/// Reconnect with the same options (counted as a reconnect, or as an
/// error when it fails).
#[no_mangle]
pub extern "C" fn db_connection_reconnect(con: *mut SqlConnection) -> c_int {
    guard(1, || {
        // SAFETY: checked by its magic word.
        let Some(con) = (unsafe { con_mut(con) }) else {
            return 1;
        };
        reconnect(con)
    })
}

pub(crate) fn reconnect(con: &mut SqlConnection) -> c_int {
    let engine = con.engine;
    // Whether the driver can, before anything else, as sysbench asks.
    if !engine.can_reconnect() {
        alert("reconnect is not supported by the current driver");
        return 0;
    }
    match con.state() {
        ConnState::Invalid => {
            alert("attempt to close an already closed connection");
            return 0;
        }
        ConnState::ResultSet => {
            free_results_int(con);
        }
        ConnState::Ready => {}
    }
    let rc = engine.reconnect(con);
    if rc == DB_ERROR_FATAL {
        con.state = ConnState::Invalid;
        count(SbCounter::Error);
        rc
    } else {
        con.state = ConnState::Ready;
        count(SbCounter::Reconnect);
        DB_ERROR_NONE
    }
}

/// Close (if still open) and free a connection.
#[no_mangle]
pub extern "C" fn db_connection_free(con: *mut SqlConnection) {
    guard((), || {
        // SAFETY: checked by its magic word; ours from Box::into_raw.
        let Some(c) = (unsafe { con_mut(con) }) else {
            return;
        };
        if c.state != ConnState::Invalid {
            close_connection(c);
        }
        // Closed by a failed reconnect: the engine's data is still there.
        if !c.ptr.is_null() {
            let engine = c.engine;
            engine.disconnect(c);
        }
        c.magic = 0;
        // SAFETY: allocated by db_connection_create, not freed before (the
        // magic word was intact).
        drop(unsafe { Box::from_raw(con) });
    })
}

// ---------------------------------------------------- prepared statements

#[no_mangle]
pub extern "C" fn db_prepare(
    con: *mut SqlConnection,
    query: *const c_char,
    len: usize,
) -> *mut SqlStatement {
    guard(null_mut(), || {
        // SAFETY: checked by its magic word; the caller's query bytes.
        let (Some(con), Some(q)) = (unsafe { con_mut(con) }, unsafe { bytes(query, len) }) else {
            return null_mut();
        };
        if con.state == ConnState::Invalid {
            alert(ALREADY_CLOSED);
            return null_mut();
        }
        let mut stmt = Box::new(SqlStatement {
            connection: con as *mut SqlConnection,
            magic: STMT_MAGIC,
            query: Vec::new(),
            bound: Vec::new(),
            emulated: false,
            counter: SbCounter::Other as c_int,
            ptr: null_mut(),
            buf: Vec::new(),
        });
        let engine = con.engine;
        if !engine.prepare(con, &mut stmt, q) {
            con.error = DB_ERROR_FATAL;
            stmt.magic = 0;
            return null_mut();
        }
        Box::into_raw(stmt)
    })
}

/// # Safety
/// `p` is null or points to `len` binds.
unsafe fn binds<'a>(p: *const SqlBind, len: usize) -> &'a [SqlBind] {
    if p.is_null() || len == 0 {
        &[]
    } else {
        std::slice::from_raw_parts(p, len)
    }
}

/// A statement and its connection, when both are ours and the connection
/// is open (sysbench's ALERT otherwise); what binding parameters and
/// results both check first.
///
/// # Safety
/// `stmt` is null or a pointer a script got from `db_prepare`.
unsafe fn open_statement<'a>(
    stmt: *mut SqlStatement,
) -> Option<(&'a mut SqlStatement, &'a mut SqlConnection)> {
    // SAFETY: checked by magic words.
    let stmt = unsafe { stmt_mut(stmt) }?;
    let con = unsafe { con_mut(stmt.connection) }?;
    if con.state == ConnState::Invalid {
        alert(ALREADY_CLOSED);
        return None;
    }
    Some((stmt, con))
}

#[no_mangle]
pub extern "C" fn db_bind_param(
    stmt: *mut SqlStatement,
    params: *mut SqlBind,
    len: usize,
) -> c_int {
    guard(1, || {
        // SAFETY: the caller's statement and array of `len`.
        let Some((stmt, con)) = (unsafe { open_statement(stmt) }) else {
            return 1;
        };
        let p = unsafe { binds(params, len) };
        let engine = con.engine;
        c_int::from(!engine.bind_param(con, stmt, p))
    })
}

#[no_mangle]
pub extern "C" fn db_bind_result(
    stmt: *mut SqlStatement,
    results: *mut SqlBind,
    len: usize,
) -> c_int {
    guard(1, || {
        // SAFETY: the caller's statement and array of `len`.
        let Some((stmt, con)) = (unsafe { open_statement(stmt) }) else {
            return 1;
        };
        let p = unsafe { binds(results, len) };
        let engine = con.engine;
        c_int::from(!engine.bind_result(con, stmt, p))
    })
}

/// Run a prepared statement: its result set when it returned rows, else
/// null (`connection.error` tells an error from a statement without rows).
#[no_mangle]
pub extern "C" fn db_execute(stmt: *mut SqlStatement) -> *mut SqlResult {
    guard(null_mut(), || {
        // SAFETY: checked by magic words.
        let Some(stmt) = (unsafe { stmt_mut(stmt) }) else {
            return null_mut();
        };
        let Some(con) = (unsafe { con_mut(stmt.connection) }) else {
            return null_mut();
        };
        match con.state() {
            ConnState::Invalid => {
                alert(ALREADY_CLOSED);
                return null_mut();
            }
            ConnState::ResultSet if free_results_int(con) != 0 => return null_mut(),
            _ => {}
        }
        con.rs.statement = stmt as *mut SqlStatement;
        let engine = con.engine;
        con.error = engine.execute(con, stmt);
        finish(con)
    })
}

/// Count the statement and move to the state its result calls for.
#[inline]
fn finish(con: &mut SqlConnection) -> *mut SqlResult {
    count_raw(con.rs.counter);
    if con.error == DB_ERROR_NONE {
        if con.rs.counter == SbCounter::Read as c_int {
            con.state = ConnState::ResultSet;
            return &mut con.rs;
        }
        con.state = ConnState::Ready;
    }
    null_mut()
}

/// Close a prepared statement and free it.
#[no_mangle]
pub extern "C" fn db_close(stmt: *mut SqlStatement) -> c_int {
    guard(0, || {
        // SAFETY: checked by magic words.
        let Some(s) = (unsafe { stmt_mut(stmt) }) else {
            return 0;
        };
        let Some(con) = (unsafe { con_mut(s.connection) }) else {
            return 0;
        };
        match con.state() {
            ConnState::Invalid => {
                // sysbench leaves the statement allocated here.
                alert(ALREADY_CLOSED);
                return 0;
            }
            ConnState::ResultSet if free_results_int(con) != 0 => return DB_ERROR_FATAL,
            _ => {}
        }
        if con.rs.statement == stmt {
            con.rs.statement = null_mut();
        }
        let engine = con.engine;
        let rc = engine.close(con, s);
        s.magic = 0;
        // SAFETY: allocated by db_prepare, not freed before (magic intact).
        drop(unsafe { Box::from_raw(stmt) });
        rc
    })
}

// ------------------------------------------------------ queries and rows

/// Run a query: its result set when it returned rows, else null.
#[no_mangle]
pub extern "C" fn db_query(
    con: *mut SqlConnection,
    query: *const c_char,
    len: usize,
) -> *mut SqlResult {
    guard(null_mut(), || {
        // SAFETY: checked by its magic word; the caller's query bytes.
        let Some(con) = (unsafe { con_mut(con) }) else {
            return null_mut();
        };
        let Some(q) = (unsafe { bytes(query, len) }) else {
            con.error = DB_ERROR_FATAL;
            return null_mut();
        };
        query_int(con, q)
    })
}

fn query_int(con: &mut SqlConnection, q: &[u8]) -> *mut SqlResult {
    match con.state() {
        ConnState::Invalid => {
            alert(ALREADY_CLOSED);
            con.error = DB_ERROR_FATAL;
            return null_mut();
        }
        ConnState::ResultSet if free_results_int(con) != 0 => {
            con.error = DB_ERROR_FATAL;
            return null_mut();
        }
        _ => {}
    }
    // sysbench leaves the last executed statement here; it may be gone.
    con.rs.statement = null_mut();
    let engine = con.engine;
    con.error = engine.query(con, q);
    finish(con)
}

/// The next row of a result set; null at its end.
#[no_mangle]
pub extern "C" fn db_fetch_row(rs: *mut SqlResult) -> *mut SqlRow {
    guard(null_mut(), || {
        // SAFETY: a result set is found from its connection's magic word.
        let Some(con) = (unsafe { con_of_rs(rs) }) else {
            return null_mut();
        };
        match con.state() {
            ConnState::Invalid => {
                alert(ALREADY_CLOSED);
                return null_mut();
            }
            ConnState::Ready => {
                alert("attempt to fetch row from an invalid result set");
                return null_mut();
            }
            ConnState::ResultSet => {}
        }
        if con.rs.nrows == 0 || con.rs.nfields == 0 {
            alert("attempt to fetch row from an empty result set");
            return null_mut();
        }
        if con.rs.row.values.is_null() {
            con.values.clear();
            con.values.resize(
                con.rs.nfields as usize,
                SqlValue {
                    len: 0,
                    ptr: null(),
                },
            );
            con.rs.row.values = con.values.as_mut_ptr();
        }
        let engine = con.engine;
        if !engine.fetch_row(con) {
            return null_mut();
        }
        &mut con.rs.row
    })
}

#[no_mangle]
pub extern "C" fn db_free_results(rs: *mut SqlResult) -> c_int {
    guard(1, || {
        // SAFETY: a result set is found from its connection's magic word.
        let Some(con) = (unsafe { con_of_rs(rs) }) else {
            return 1;
        };
        match con.state() {
            ConnState::Invalid => {
                alert(ALREADY_CLOSED);
                1
            }
            ConnState::Ready => {
                alert("attempt to free an invalid result set");
                1
            }
            ConnState::ResultSet => free_results_int(con),
        }
    })
}

/// sysbench's db_print_value(): a bound value as SQL text into `buf`
/// (NUL-terminated); its length, or -1 when it does not fit.
#[no_mangle]
pub extern "C" fn db_print_value(var: *mut SqlBind, buf: *mut c_char, buflen: c_int) -> c_int {
    guard(-1, || {
        // SAFETY: the caller's bind and buffer of `buflen` bytes.
        let Some(var) = (unsafe { var.as_ref() }) else {
            return -1;
        };
        let mut out = Vec::new();
        unsafe { super::print_value(var, &mut out) };
        let n = out.len();
        if buf.is_null() || buflen <= 0 {
            return -1;
        }
        let cap = buflen as usize;
        let copy = n.min(cap - 1);
        unsafe {
            std::ptr::copy_nonoverlapping(out.as_ptr(), buf as *mut u8, copy);
            *buf.add(copy) = 0;
        }
        if n < cap {
            n as c_int
        } else {
            -1
        }
    })
}

// ----------------------------------------------------------- bulk insert

/// Start a multi-row INSERT whose head (`INSERT INTO t VALUES`) is `query`.
#[no_mangle]
pub extern "C" fn db_bulk_insert_init(
    con: *mut SqlConnection,
    query: *const c_char,
    len: usize,
) -> c_int {
    guard(1, || {
        // SAFETY: checked by its magic word; the caller's query bytes.
        let (Some(con), Some(q)) = (unsafe { con_mut(con) }, unsafe { bytes(query, len) }) else {
            return 1;
        };
        match con.state() {
            ConnState::Invalid => {
                alert(ALREADY_CLOSED);
                return 0;
            }
            ConnState::ResultSet if free_results_int(con) != 0 => return 0,
            _ => {}
        }
        let Some(caps) = con.engine.describe(&con.cfg) else {
            fatal("failed to get database capabilities!");
            return 1;
        };
        if q.len() + 1 > BULK_PACKET_SIZE {
            fatal(&format!(
                "Query length exceeds the maximum value ({BULK_PACKET_SIZE}), aborting"
            ));
            return 1;
        }
        let mut buf = con.bulk.buf.take().unwrap_or_default();
        buf.clear();
        buf.reserve(BULK_PACKET_SIZE);
        buf.extend_from_slice(q);
        con.bulk = Bulk {
            buf: Some(buf),
            head: q.len(),
            rows: 0,
            commit_cnt: 0,
            commit_max: if caps.needs_commit != 0 {
                ROWS_BEFORE_COMMIT
            } else {
                0
            },
        };
        0
    })
}

/// Add one row (`(1, 'a')`) to the INSERT, sending it first when full.
#[no_mangle]
pub extern "C" fn db_bulk_insert_next(
    con: *mut SqlConnection,
    query: *const c_char,
    len: usize,
) -> c_int {
    guard(1, || {
        // SAFETY: checked by its magic word; the caller's row bytes.
        let (Some(con), Some(q)) = (unsafe { con_mut(con) }, unsafe { bytes(query, len) }) else {
            return 1;
        };
        match con.state() {
            ConnState::Invalid => {
                alert(ALREADY_CLOSED);
                return 0;
            }
            ConnState::ResultSet if free_results_int(con) != 0 => return 0,
            _ => {}
        }
        let Some(used) = con.bulk.buf.as_ref().map(Vec::len) else {
            alert("attempt to call bulk_insert_next() before bulk_insert_init()");
            return 1;
        };
        let comma = usize::from(con.bulk.rows > 0);
        if used + q.len() + 1 + comma > BULK_PACKET_SIZE {
            if con.bulk.rows == 0 {
                fatal(&format!(
                    "Query length exceeds the maximum value ({BULK_PACKET_SIZE}), aborting"
                ));
                return 1;
            }
            if bulk_flush(con, false) != 0 {
                return 1;
            }
        }
        let rows = con.bulk.rows;
        if let Some(buf) = con.bulk.buf.as_mut() {
            if rows > 0 {
                buf.push(b',');
            }
            buf.extend_from_slice(q);
        }
        con.bulk.rows += 1;
        0
    })
}

/// Send the rows gathered so far (and COMMIT where the driver needs it).
fn bulk_flush(con: &mut SqlConnection, last: bool) -> c_int {
    if con.bulk.rows == 0 {
        return 0;
    }
    let Some(buf) = con.bulk.buf.take() else {
        return 0;
    };
    let rs = query_int(con, &buf);
    let failed = rs.is_null() && con.error != DB_ERROR_NONE;
    let head = con.bulk.head;
    con.bulk.buf = Some(buf);
    if failed {
        return 1;
    }
    if con.bulk.commit_max != 0 {
        con.bulk.commit_cnt += con.bulk.rows;
        if last || con.bulk.commit_cnt >= con.bulk.commit_max {
            if query_int(con, b"COMMIT").is_null() && con.error != DB_ERROR_NONE {
                return 1;
            }
            con.bulk.commit_cnt = 0;
        }
    }
    if let Some(b) = con.bulk.buf.as_mut() {
        b.truncate(head);
    }
    con.bulk.rows = 0;
    0
}

/// Send what is left and end the INSERT.
#[no_mangle]
pub extern "C" fn db_bulk_insert_done(con: *mut SqlConnection) -> c_int {
    guard(1, || {
        // SAFETY: checked by its magic word.
        let Some(con) = (unsafe { con_mut(con) }) else {
            return 1;
        };
        if bulk_flush(con, true) != 0 {
            return 1;
        }
        con.bulk.buf = None;
        0
    })
}

#[cfg(test)]
pub(crate) fn driver_names_match() -> bool {
    ENGINES
        .iter()
        .zip(NAMES.iter())
        .all(|(e, n)| e.sname() == n.0 && e.lname() == n.1)
}

#[cfg(test)]
pub(crate) fn is_ignorable(c: c_int) -> bool {
    use super::DB_ERROR_IGNORABLE;
    c == DB_ERROR_IGNORABLE
}
