//! The `mysql` driver over libmariadb (MySQL's C API), with sysbench
//! 1.0.20's behaviour: host/port (or socket) lists spread round-robin over
//! connections, CLIENT_MULTI_STATEMENTS, server-side prepared statements
//! unless `--db-ps-mode=disable` (or the server cannot prepare one),
//! `--mysql-ignore-errors` (reconnecting on a lost connection when it is
//! ignored), `--mysql-dry-run` and `--mysql-debug` call traces.

use std::ffi::{c_char, c_int, c_ulong, c_void, CStr, CString};
use std::mem::MaybeUninit;
use std::ptr::{addr_of_mut, null, null_mut};
use std::sync::Once;

use mysqlclient_sys as my;

use super::ffi::{SqlBind, SqlConnection, SqlStatement};
use super::{atoi, bind_type, cstring, debug, emulate_query, fatal, info, ptr_str};
use super::{Caps, Config, Driver, DB_ERROR_FATAL, DB_ERROR_IGNORABLE, DB_ERROR_NONE};
use crate::lua::context::SbCounter;

const CLIENT_MULTI_STATEMENTS: c_ulong = 1 << 16;
const ER_UNSUPPORTED_PS: u32 = 1295;
/// Client errors after which sysbench reconnects (when they are ignored).
const CR_SERVER_GONE_ERROR: u32 = 2006;
const CR_TCP_CONNECTION: u32 = 2011;
const CR_SERVER_LOST: u32 = 2013;
const CR_SERVER_LOST_EXTENDED: u32 = 2055;

pub(crate) struct Mysql;

/// What a connection keeps to (re)connect.
struct MyConn {
    mysql: *mut my::MYSQL,
    host: Option<CString>,
    port: u32,
    socket: Option<CString>,
    user: Option<CString>,
    password: Option<CString>,
    db: Option<CString>,
}

fn opt_ptr(s: &Option<CString>) -> *const c_char {
    s.as_ref().map_or(null(), |c| c.as_ptr())
}

fn safestr(s: &Option<CString>) -> String {
    s.as_ref()
        .map_or_else(|| "(null)".into(), |c| c.to_string_lossy().into_owned())
}

/// # Safety
/// `p` is null or a NUL-terminated string.
unsafe fn c_text(p: *const c_char) -> String {
    if p.is_null() {
        "(null)".into()
    } else {
        CStr::from_ptr(p).to_string_lossy().into_owned()
    }
}

fn text(q: &[u8]) -> String {
    let end = q.iter().position(|&b| b == 0).unwrap_or(q.len());
    String::from_utf8_lossy(&q[..end]).into_owned()
}

macro_rules! trace {
    ($cfg:expr, $($arg:tt)*) => {
        if $cfg.mysql.debug {
            super::trace(&format!($($arg)*));
        }
    };
}

/// A connection's MyConn, from its `ptr`.
fn conn<'a>(ptr: *mut c_void) -> Option<&'a mut MyConn> {
    // SAFETY: `ptr` is set by connect() from Box::into_raw and cleared on
    // disconnect; only the connection's own calls reach it.
    unsafe { (ptr as *mut MyConn).as_mut() }
}

static LIBRARY_INIT: Once = Once::new();

/// sysbench's bind types to MySQL's (-1: none).
fn mysql_type(t: c_int) -> i64 {
    use my::enum_field_types::*;
    let m = match t {
        bind_type::TINYINT => MYSQL_TYPE_TINY,
        bind_type::SMALLINT => MYSQL_TYPE_SHORT,
        bind_type::INT => MYSQL_TYPE_LONG,
        bind_type::BIGINT => MYSQL_TYPE_LONGLONG,
        bind_type::FLOAT => MYSQL_TYPE_FLOAT,
        bind_type::DOUBLE => MYSQL_TYPE_DOUBLE,
        bind_type::DATETIME => MYSQL_TYPE_DATETIME,
        bind_type::TIMESTAMP => MYSQL_TYPE_TIMESTAMP,
        bind_type::CHAR => MYSQL_TYPE_STRING,
        bind_type::VARCHAR => MYSQL_TYPE_VAR_STRING,
        _ => return -1,
    };
    m as i64
}

/// MYSQL_BINDs over sysbench's binds: the caller's buffers, lengths and
/// NULL flags are used as they are (sysbench's `char` is_null is MySQL's
/// one-byte my_bool). Kept as raw memory: an unknown type goes to the
/// library as the out-of-range value sysbench passes, for it to refuse.
fn mysql_binds(p: &[SqlBind]) -> Vec<MaybeUninit<my::MYSQL_BIND>> {
    let mut v = vec![MaybeUninit::<my::MYSQL_BIND>::zeroed(); p.len()];
    for (m, b) in v.iter_mut().zip(p) {
        let m = m.as_mut_ptr();
        // SAFETY: writes to fields of zeroed memory of the right size.
        unsafe {
            (addr_of_mut!((*m).buffer_type) as *mut u32).write(mysql_type(b.type_) as u32);
            addr_of_mut!((*m).buffer).write(b.buffer);
            addr_of_mut!((*m).buffer_length).write(b.max_len);
            addr_of_mut!((*m).length).write(b.data_len);
            addr_of_mut!((*m).is_null).write(b.is_null as *mut my::my_bool);
        }
    }
    v
}

impl Mysql {
    /// mysql_real_connect() with the options: the handle, or the error.
    fn real_connect(cfg: &Config, mc: &MyConn) -> Result<*mut my::MYSQL, (u32, String)> {
        let a = &cfg.mysql;
        // SAFETY: plain libmariadb calls on a handle we own.
        unsafe {
            let m = my::mysql_init(null_mut());
            if m.is_null() {
                return Err((0, "out of memory".into()));
            }
            if a.ssl {
                let cipher = a.ssl_cipher.as_deref().map(cstring);
                trace!(
                    cfg,
                    "mysql_ssl_set({}, \"client-key.pem\", \"client-cert.pem\", \"cacert.pem\", NULL, \"{}\")",
                    ptr_str(m),
                    safestr(&cipher)
                );
                my::mysql_ssl_set(
                    m,
                    c"client-key.pem".as_ptr(),
                    c"client-cert.pem".as_ptr(),
                    c"cacert.pem".as_ptr(),
                    null(),
                    opt_ptr(&cipher),
                );
            }
            if a.compression {
                trace!(
                    cfg,
                    "mysql_options({}, MYSQL_OPT_COMPRESS, NULL)",
                    ptr_str(m)
                );
                my::mysql_options(m, my::mysql_option::MYSQL_OPT_COMPRESS, null::<c_void>());
            }
            trace!(
                cfg,
                "mysql_real_connect({}, \"{}\", \"{}\", \"{}\", \"{}\", {}, \"{}\", CLIENT_MULTI_STATEMENTS)",
                ptr_str(m),
                safestr(&mc.host),
                safestr(&mc.user),
                safestr(&mc.password),
                safestr(&mc.db),
                mc.port,
                safestr(&mc.socket)
            );
            let r = my::mysql_real_connect(
                m,
                opt_ptr(&mc.host),
                opt_ptr(&mc.user),
                opt_ptr(&mc.password),
                opt_ptr(&mc.db),
                mc.port,
                opt_ptr(&mc.socket),
                CLIENT_MULTI_STATEMENTS,
            );
            if r.is_null() {
                let e = (my::mysql_errno(m), c_text(my::mysql_error(m)));
                my::mysql_close(m);
                return Err(e);
            }
            Ok(m)
        }
    }

    /// Classify the connection's last error (`--mysql-ignore-errors`),
    /// keeping copies of its errno, SQL state and message on `con`.
    fn check_error(con: &mut SqlConnection, func: &str, query: Option<&[u8]>) -> c_int {
        let Some(mc) = conn(con.ptr) else {
            con.rs.counter = SbCounter::Error as c_int;
            return DB_ERROR_FATAL;
        };
        let m = mc.mysql;
        let cfg = con.cfg.clone();
        // SAFETY: an open handle.
        let (error, state, msg) = unsafe {
            let e = my::mysql_errno(m);
            trace!(
                cfg,
                "mysql_errno({}) = {}",
                ptr_str(m),
                con.sql_errno as u32
            );
            let state = CStr::from_ptr(my::mysql_sqlstate(m)).to_bytes().to_vec();
            let msg = CStr::from_ptr(my::mysql_error(m)).to_bytes().to_vec();
            (e, state, msg)
        };
        con.sql_errno = error as c_int;
        con.set_owned_error(&state, &msg);
        trace!(cfg, "mysql_state({}) = {}", ptr_str(m), text(&state));
        trace!(cfg, "mysql_error({}) = {}", ptr_str(m), text(&msg));
        let msg = text(&msg);
        let ignored = cfg
            .mysql
            .ignore_errors
            .iter()
            .any(|v| atoi(v) as u32 == error || v == "all");
        if ignored {
            debug(&format!("Ignoring error {error} {msg}, "));
            if matches!(
                error,
                CR_SERVER_LOST | CR_SERVER_GONE_ERROR | CR_TCP_CONNECTION | CR_SERVER_LOST_EXTENDED
            ) {
                con.rs.counter = SbCounter::Reconnect as c_int;
                return Mysql.reconnect(con);
            }
            con.rs.counter = SbCounter::Error as c_int;
            return DB_ERROR_IGNORABLE;
        }
        match query {
            Some(q) => fatal(&format!(
                "{func} returned error {error} ({msg}) for query '{}'",
                text(q)
            )),
            None => fatal(&format!("{func} returned error {error} ({msg})")),
        }
        con.rs.counter = SbCounter::Error as c_int;
        DB_ERROR_FATAL
    }
}

impl Driver for Mysql {
    fn sname(&self) -> &'static [u8] {
        b"mysql\0"
    }

    fn lname(&self) -> &'static [u8] {
        b"MySQL driver\0"
    }

    fn init(&self, cfg: &Config) -> bool {
        if cfg.mysql.hosts.is_empty() {
            fatal("No MySQL hosts specified, aborting");
            return false;
        }
        if cfg.mysql.ports.is_empty() {
            fatal("No MySQL ports specified, aborting");
            return false;
        }
        trace!(cfg, "mysql_library_init(0, (nil), (nil))");
        // SAFETY: once per process, before any other libmariadb call.
        LIBRARY_INIT.call_once(|| unsafe {
            my::mysql_server_init(0, null_mut(), null_mut());
        });
        true
    }

    fn thread_init(&self) -> bool {
        // SAFETY: per-thread library state.
        let rc = unsafe { my::mysql_thread_init() };
        trace!(super::config(), "mysql_thread_init() = {}", rc as c_int);
        rc == 0
    }

    fn thread_done(&self) {
        trace!(super::config(), "mysql_thread_end()");
        // SAFETY: per-thread library state.
        unsafe { my::mysql_thread_end() };
    }

    fn describe(&self, _cfg: &Config) -> Option<Caps> {
        Some(Caps {
            multi_rows_insert: 1,
            prepared_statements: 1,
            auto_increment: 1,
            needs_commit: 0,
            serial: 0,
            unsigned_int: 1,
        })
    }

    fn connect(&self, con: &mut SqlConnection) -> bool {
        let cfg = con.cfg.clone();
        let a = &cfg.mysql;
        if a.dry_run {
            return true;
        }
        let n = cfg
            .mysql_next
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let (host, port, socket) = if a.sockets.is_empty() {
            let host = &a.hosts[(n / a.ports.len()) % a.hosts.len()];
            let port = atoi(&a.ports[n % a.ports.len()]) as u32;
            (cstring(host), port, None)
        } else {
            (
                c"localhost".to_owned(),
                0,
                Some(cstring(&a.sockets[n % a.sockets.len()])),
            )
        };
        let mut mc = MyConn {
            mysql: null_mut(),
            host: Some(host),
            port,
            socket,
            user: a.user.as_deref().map(cstring),
            password: a.password.as_deref().map(cstring),
            db: a.db.as_deref().map(cstring),
        };
        trace!(cfg, "mysql_init({})", ptr_str(null::<u8>()));
        match Mysql::real_connect(&cfg, &mc) {
            Ok(m) => mc.mysql = m,
            Err((errno, msg)) => {
                match &mc.socket {
                    Some(s) => fatal(&format!(
                        "unable to connect to MySQL server on socket '{}', aborting...",
                        s.to_string_lossy()
                    )),
                    None => fatal(&format!(
                        "unable to connect to MySQL server on host '{}', port {}, aborting...",
                        safestr(&mc.host),
                        mc.port
                    )),
                }
                fatal(&format!("error {errno}: {msg}"));
                return false;
            }
        }
        if a.ssl {
            // SAFETY: an open handle.
            let cipher = unsafe { c_text(my::mysql_get_ssl_cipher(mc.mysql)) };
            trace!(cfg, "mysql_get_ssl_cipher(con): \"{cipher}\"");
        }
        con.ptr = Box::into_raw(Box::new(mc)) as *mut c_void;
        true
    }

    fn disconnect(&self, con: &mut SqlConnection) -> c_int {
        if con.cfg.mysql.dry_run || con.ptr.is_null() {
            return 0;
        }
        // SAFETY: ours from Box::into_raw in connect().
        let mc = unsafe { Box::from_raw(con.ptr as *mut MyConn) };
        con.ptr = null_mut();
        if !mc.mysql.is_null() {
            trace!(con.cfg, "mysql_close({})", ptr_str(mc.mysql));
            // SAFETY: an open handle, closed once.
            unsafe { my::mysql_close(mc.mysql) };
        }
        // The error strings pointed into the handle; ours are copies.
        0
    }

    fn can_reconnect(&self) -> bool {
        true
    }

    fn reconnect(&self, con: &mut SqlConnection) -> c_int {
        let cfg = con.cfg.clone();
        let Some(mc) = conn(con.ptr) else {
            // Dry run: nothing to reconnect.
            return DB_ERROR_IGNORABLE;
        };
        debug("Reconnecting");
        trace!(cfg, "mysql_close({})", ptr_str(mc.mysql));
        // SAFETY: an open handle, replaced below.
        unsafe { my::mysql_close(mc.mysql) };
        mc.mysql = null_mut();
        loop {
            match Mysql::real_connect(&cfg, mc) {
                Ok(m) => {
                    mc.mysql = m;
                    break;
                }
                Err(_) => {
                    if rbench_common::stop::should_stop() {
                        return DB_ERROR_FATAL;
                    }
                    std::thread::sleep(std::time::Duration::from_micros(1000));
                }
            }
        }
        debug("Reconnected");
        DB_ERROR_IGNORABLE
    }

    fn prepare(&self, con: &mut SqlConnection, stmt: &mut SqlStatement, q: &[u8]) -> bool {
        let cfg = con.cfg.clone();
        if cfg.mysql.dry_run {
            return true;
        }
        let Some(mc) = conn(con.ptr) else {
            return false;
        };
        let m = mc.mysql;
        if m.is_null() {
            return false;
        }
        if cfg.use_ps() {
            // SAFETY: an open handle; the statement is ours until close.
            unsafe {
                let ms = my::mysql_stmt_init(m);
                trace!(cfg, "mysql_stmt_init({}) = {}", ptr_str(m), ptr_str(ms));
                if ms.is_null() {
                    fatal("mysql_stmt_init() failed");
                    return false;
                }
                stmt.ptr = ms as *mut c_void;
                trace!(
                    cfg,
                    "mysql_stmt_prepare({}, \"{}\", {}) = {}",
                    ptr_str(ms),
                    text(q),
                    q.len() as u32,
                    ptr_str(ms)
                );
                if my::mysql_stmt_prepare(ms, q.as_ptr() as *const c_char, q.len() as c_ulong) != 0
                {
                    let rc = my::mysql_errno(m);
                    trace!(cfg, "mysql_errno({}) = {}", ptr_str(m), rc);
                    let msg = c_text(my::mysql_error(m));
                    if rc == ER_UNSUPPORTED_PS {
                        info(&format!(
                            "Failed to prepare query \"{}\" ({rc}: {msg}), using emulation",
                            text(q)
                        ));
                        stmt.emulated = true;
                        stmt.query = q.to_vec();
                        return true;
                    }
                    fatal("mysql_stmt_prepare() failed");
                    fatal(&format!("MySQL error: {rc} \"{msg}\""));
                    trace!(cfg, "mysql_stmt_close({})", ptr_str(ms));
                    my::mysql_stmt_close(ms);
                    stmt.ptr = null_mut();
                    return false;
                }
                stmt.query = q.to_vec();
                stmt.counter = if my::mysql_stmt_field_count(ms) > 0 {
                    SbCounter::Read as c_int
                } else {
                    SbCounter::Write as c_int
                };
            }
            return true;
        }
        stmt.emulated = true;
        stmt.query = q.to_vec();
        true
    }

    fn bind_param(&self, con: &mut SqlConnection, stmt: &mut SqlStatement, p: &[SqlBind]) -> bool {
        let cfg = con.cfg.clone();
        if cfg.mysql.dry_run {
            return true;
        }
        let Some(mc) = conn(con.ptr) else {
            return false;
        };
        let m = mc.mysql;
        if stmt.emulated {
            stmt.bound.clear();
            stmt.bound.extend_from_slice(p);
            return true;
        }
        let ms = stmt.ptr as *mut my::MYSQL_STMT;
        if ms.is_null() {
            return false;
        }
        // SAFETY: a prepared statement; the binds are copied by the library.
        unsafe {
            let count = my::mysql_stmt_param_count(ms);
            trace!(cfg, "mysql_stmt_param_count({}) = {}", ptr_str(ms), count);
            if count as usize != p.len() {
                fatal("Wrong number of parameters to mysql_stmt_bind_param");
                return false;
            }
            let mut binds = mysql_binds(p);
            let bp = binds.as_mut_ptr() as *mut my::MYSQL_BIND;
            let rc = my::mysql_stmt_bind_param(ms, bp);
            trace!(
                cfg,
                "mysql_stmt_bind_param({}, {}) = {}",
                ptr_str(ms),
                ptr_str(bp),
                rc as c_int
            );
            if rc != 0 {
                fatal("mysql_stmt_bind_param() failed");
                fatal(&format!(
                    "MySQL error: {} \"{}\"",
                    my::mysql_errno(m),
                    c_text(my::mysql_error(m))
                ));
                return false;
            }
        }
        true
    }

    fn bind_result(&self, con: &mut SqlConnection, stmt: &mut SqlStatement, p: &[SqlBind]) -> bool {
        let cfg = con.cfg.clone();
        if cfg.mysql.dry_run {
            return true;
        }
        let ms = stmt.ptr as *mut my::MYSQL_STMT;
        if conn(con.ptr).is_none() || ms.is_null() {
            return false;
        }
        let mut binds = mysql_binds(p);
        let bp = binds.as_mut_ptr() as *mut my::MYSQL_BIND;
        // SAFETY: a prepared statement; the binds are copied by the library.
        let rc = unsafe { my::mysql_stmt_bind_result(ms, bp) };
        trace!(
            cfg,
            "mysql_stmt_bind_result({}, {}) = {}",
            ptr_str(ms),
            ptr_str(bp),
            rc as c_int
        );
        rc == 0
    }

    fn execute(&self, con: &mut SqlConnection, stmt: &mut SqlStatement) -> c_int {
        if con.cfg.mysql.dry_run {
            return DB_ERROR_NONE;
        }
        con.clear_error();
        if stmt.emulated {
            let SqlStatement {
                query, bound, buf, ..
            } = stmt;
            // SAFETY: the binds' buffers are the caller's, alive while bound.
            unsafe { emulate_query(query, bound, buf) };
            return self.query(con, buf);
        }
        let ms = stmt.ptr as *mut my::MYSQL_STMT;
        if ms.is_null() {
            debug("ERROR: exiting mysql_drv_execute(), uninitialized statement");
            return DB_ERROR_FATAL;
        }
        let cfg = &con.cfg;
        // SAFETY: a prepared statement of this connection.
        unsafe {
            let err = my::mysql_stmt_execute(ms);
            trace!(cfg, "mysql_stmt_execute({}) = {}", ptr_str(ms), err);
            if err != 0 {
                return Mysql::check_error(con, "mysql_stmt_execute()", Some(&stmt.query));
            }
            if stmt.counter != SbCounter::Read as c_int {
                con.rs.nrows = my::mysql_stmt_affected_rows(ms) as u32;
                trace!(
                    cfg,
                    "mysql_stmt_affected_rows({}) = {}",
                    ptr_str(ms),
                    con.rs.nrows
                );
                con.rs.counter = if con.rs.nrows > 0 {
                    SbCounter::Write
                } else {
                    SbCounter::Other
                } as c_int;
                return DB_ERROR_NONE;
            }
            let err = my::mysql_stmt_store_result(ms);
            trace!(cfg, "mysql_stmt_store_result({}) = {}", ptr_str(ms), err);
            if err != 0 {
                return Mysql::check_error(con, "mysql_stmt_store_result()", None);
            }
            con.rs.counter = stmt.counter;
            con.rs.nrows = my::mysql_stmt_num_rows(ms) as u32;
            trace!(
                cfg,
                "mysql_stmt_num_rows({}) = {}",
                ptr_str(ms),
                con.rs.nrows
            );
        }
        DB_ERROR_NONE
    }

    #[inline]
    fn query(&self, con: &mut SqlConnection, q: &[u8]) -> c_int {
        if con.cfg.mysql.dry_run {
            return DB_ERROR_NONE;
        }
        con.clear_error();
        let Some(mc) = conn(con.ptr) else {
            return DB_ERROR_FATAL;
        };
        let m = mc.mysql;
        let cfg = &con.cfg;
        // SAFETY: an open handle; the query is the caller's bytes.
        unsafe {
            let err = my::mysql_real_query(m, q.as_ptr() as *const c_char, q.len() as c_ulong);
            trace!(
                cfg,
                "mysql_real_query({}, \"{}\", {}) = {}",
                ptr_str(m),
                text(q),
                q.len(),
                err
            );
            if err != 0 {
                return Mysql::check_error(con, "mysql_drv_query()", Some(q));
            }
            let res = my::mysql_store_result(m);
            trace!(cfg, "mysql_store_result({}) = {}", ptr_str(m), ptr_str(res));
            if res.is_null() {
                if my::mysql_errno(m) == 0 && my::mysql_field_count(m) == 0 {
                    let n = my::mysql_affected_rows(m) as u32;
                    if n > 0 {
                        con.rs.counter = SbCounter::Write as c_int;
                        con.rs.nrows = n;
                    } else {
                        con.rs.counter = SbCounter::Other as c_int;
                    }
                    return DB_ERROR_NONE;
                }
                return Mysql::check_error(con, "mysql_store_result()", None);
            }
            con.rs.counter = SbCounter::Read as c_int;
            con.rs.ptr = res as *mut c_void;
            con.rs.nrows = my::mysql_num_rows(res) as u32;
            trace!(cfg, "mysql_num_rows({}) = {}", ptr_str(res), con.rs.nrows);
            con.rs.nfields = my::mysql_num_fields(res);
            trace!(
                cfg,
                "mysql_num_fields({}) = {}",
                ptr_str(res),
                con.rs.nfields
            );
        }
        DB_ERROR_NONE
    }

    fn fetch_row(&self, con: &mut SqlConnection) -> bool {
        if con.cfg.mysql.dry_run {
            return false;
        }
        let res = con.rs.ptr as *mut my::MYSQL_RES;
        if res.is_null() || con.rs.row.values.is_null() {
            return false;
        }
        let cfg = &con.cfg;
        // SAFETY: a stored result set; `values` holds `nfields` entries.
        unsafe {
            let row = my::mysql_fetch_row(res);
            trace!(cfg, "mysql_fetch_row({}) = {}", ptr_str(res), ptr_str(row));
            let lengths = my::mysql_fetch_lengths(res);
            trace!(
                cfg,
                "mysql_fetch_lengths({}) = {}",
                ptr_str(res),
                ptr_str(lengths)
            );
            if row.is_null() || lengths.is_null() {
                return false;
            }
            for i in 0..con.rs.nfields as usize {
                let v = &mut *con.rs.row.values.add(i);
                v.len = *lengths.add(i) as u32;
                v.ptr = *row.add(i);
            }
        }
        true
    }

    fn free_results(&self, con: &mut SqlConnection) -> c_int {
        if con.cfg.mysql.dry_run {
            return 0;
        }
        let cfg = &con.cfg;
        // SAFETY: `statement` is the statement whose result this is (the
        // common layer clears it when the statement goes); `ptr` a result.
        unsafe {
            if let Some(s) = con.rs.statement.as_ref() {
                if !s.emulated && !s.ptr.is_null() {
                    trace!(cfg, "mysql_stmt_free_result({})", ptr_str(s.ptr));
                    my::mysql_stmt_free_result(s.ptr as *mut my::MYSQL_STMT);
                    con.rs.ptr = null_mut();
                }
            }
            if !con.rs.ptr.is_null() {
                trace!(cfg, "mysql_free_result({})", ptr_str(con.rs.ptr));
                my::mysql_free_result(con.rs.ptr as *mut my::MYSQL_RES);
                con.rs.ptr = null_mut();
            }
        }
        0
    }

    fn close(&self, con: &mut SqlConnection, stmt: &mut SqlStatement) -> c_int {
        if con.cfg.mysql.dry_run {
            return 0;
        }
        stmt.query.clear();
        if stmt.ptr.is_null() {
            return 1;
        }
        // SAFETY: our statement, closed once.
        let rc = unsafe { my::mysql_stmt_close(stmt.ptr as *mut my::MYSQL_STMT) };
        trace!(
            con.cfg,
            "mysql_stmt_close({}) = {}",
            ptr_str(stmt.ptr),
            rc as c_int
        );
        stmt.ptr = null_mut();
        c_int::from(rc)
    }
}
