//! The `pgsql` driver over libpq, with sysbench 1.0.20's behaviour:
//! PQsetdbLogin() with the `--pgsql-*` options, server notices silenced,
//! server-side prepared statements (`?` rewritten to `$n`, prepared on the
//! first bind when they take parameters, results in binary format) unless
//! `--db-ps-mode=disable`, and deadlocks, unique violations and
//! serialization failures (SQLSTATE 40P01, 23505, 40001) rolled back and
//! ignorable. It cannot reconnect.

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::io::Write;
use std::ptr::{null, null_mut};

use pq_sys as pq;

use super::ffi::{SqlBind, SqlConnection, SqlStatement};
use super::{alert, bind_bytes, bind_type, cstring, debug, emulate_query, fatal, print_value};
use super::{Caps, Config, Driver, DB_ERROR_FATAL, DB_ERROR_IGNORABLE, DB_ERROR_NONE};
use crate::lua::context::SbCounter;

pub(crate) struct Pgsql;

/// A server-side prepared statement.
struct PgStmt {
    name: CString,
    /// The query with `$1`, `$2`... placeholders.
    sql: CString,
    prepared: bool,
    nparams: usize,
    /// Parameter values as text, NUL-terminated, reused between executions.
    values: Vec<Vec<u8>>,
    ptrs: Vec<*const c_char>,
}

/// Put libpq's socket in blocking mode. libpq keeps it non-blocking and
/// waits for every reply in poll() before its recv(); on a blocking socket
/// [`finish`] waits in the recv() itself: one system call less per query
/// (sysbench's client makes three), the same bytes on the wire.
fn block_on_reads(c: *mut pq::PGconn) {
    // SAFETY: PQsocket() of an open connection is its socket (or -1).
    unsafe {
        let fd = pq::PQsocket(c);
        if fd >= 0 {
            let flags = libc::fcntl(fd, libc::F_GETFL);
            if flags >= 0 {
                libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK);
            }
        }
    }
}

/// Collect the result of what was just sent, as PQexec() does (the last
/// result, or null if nothing was sent), reading the reply with blocking
/// recv() calls (see [`block_on_reads`]) until libpq has a whole result.
///
/// # Safety
/// `c` is an open connection.
unsafe fn finish(c: *mut pq::PGconn, sent: bool) -> *mut pq::PGresult {
    use pq::ExecStatusType::*;
    if !sent {
        return null_mut();
    }
    // A failed read (the server went away) leaves the error to PQgetResult().
    while pq::PQisBusy(c) == 1 && pq::PQconsumeInput(c) == 1 {}
    let mut last: *mut pq::PGresult = null_mut();
    loop {
        let res = pq::PQgetResult(c);
        if res.is_null() {
            return last;
        }
        pq::PQclear(last);
        last = res;
        let status = pq::PQresultStatus(res);
        if matches!(status, PGRES_COPY_IN | PGRES_COPY_OUT | PGRES_COPY_BOTH)
            || pq::PQstatus(c) == pq::ConnStatusType::CONNECTION_BAD
        {
            return last;
        }
    }
}

/// SQLSTATEs sysbench rolls back and ignores.
const IGNORABLE_STATES: [&[u8]; 3] = [b"40P01", b"23505", b"40001"];

unsafe extern "C" fn quiet_notices(_arg: *mut c_void, _msg: *const c_char) {}

fn pgconn(con: &SqlConnection) -> *mut pq::PGconn {
    con.ptr as *mut pq::PGconn
}

/// sysbench's bind types to PostgreSQL type OIDs (0: let the server
/// infer; sysbench's -1 for a type it has no entry for).
fn pg_type(t: c_int) -> pq::Oid {
    match t {
        bind_type::TINYINT => 0,
        bind_type::SMALLINT => 21,
        bind_type::INT => 23,
        bind_type::BIGINT => 20,
        bind_type::FLOAT => 700,
        bind_type::DOUBLE => 701,
        bind_type::DATETIME => 0,
        bind_type::TIMESTAMP => 1114,
        bind_type::CHAR => 18,
        bind_type::VARCHAR => 1043,
        _ => u32::MAX,
    }
}

/// # Safety
/// `p` is null or a NUL-terminated string.
unsafe fn c_text(p: *const c_char) -> String {
    if p.is_null() {
        String::new()
    } else {
        CStr::from_ptr(p).to_string_lossy().into_owned()
    }
}

fn login(cfg: &Config) -> *mut pq::PGconn {
    let a = &cfg.pgsql;
    let host = a.host.as_deref().map(cstring);
    let port = a.port.as_deref().map(cstring);
    let user = a.user.as_deref().map(cstring);
    let password = a.password.as_deref().map(cstring);
    let db = a.db.as_deref().map(cstring);
    let p = |s: &Option<CString>| s.as_ref().map_or(null(), |c| c.as_ptr());
    // SAFETY: NUL-terminated strings or null, as libpq takes them.
    unsafe {
        pq::PQsetdbLogin(
            p(&host),
            p(&port),
            null(),
            null(),
            p(&db),
            p(&user),
            p(&password),
        )
    }
}

/// Connect, or print sysbench's FATAL line and return null.
fn open(cfg: &Config) -> *mut pq::PGconn {
    let c = login(cfg);
    // SAFETY: PQstatus/PQerrorMessage/PQfinish accept what PQsetdbLogin returns.
    unsafe {
        if pq::PQstatus(c) != pq::ConnStatusType::CONNECTION_OK {
            fatal(&format!(
                "Connection to database failed: {}",
                c_text(pq::PQerrorMessage(c))
            ));
            pq::PQfinish(c);
            return null_mut();
        }
    }
    c
}

/// A statement name as sysbench's pgsql driver makes it: two draws from
/// the calling thread's generator, each as a C int (so a seeded run's
/// later draws are sysbench's too). Names are per connection in
/// PostgreSQL; two equal draws in one connection are as unlikely as there.
fn unique_name() -> CString {
    let (a, b) = crate::lua::context::with_rng(|r| (r.next_u64() as i32, r.next_u64() as i32));
    CString::new(format!("sbstmt{a}{b}")).unwrap_or_default()
}

/// Classify a result as sysbench's pgsql_check_status(): fills `con.rs`,
/// keeps errors on `con`, clears the result unless it has rows.
fn check_status(
    con: &mut SqlConnection,
    res: *mut pq::PGresult,
    func: &str,
    query: Option<&[u8]>,
) -> c_int {
    use pq::ExecStatusType::*;
    // SAFETY: `res` is what libpq returned (null reads as a fatal error).
    unsafe {
        let status = pq::PQresultStatus(res);
        match status {
            PGRES_TUPLES_OK => {
                con.rs.nrows = pq::PQntuples(res) as u32;
                con.rs.nfields = pq::PQnfields(res) as u32;
                con.rs.counter = SbCounter::Read as c_int;
                DB_ERROR_NONE
            }
            PGRES_COMMAND_OK => {
                let tuples = CStr::from_ptr(pq::PQcmdTuples(res)).to_bytes();
                con.rs.nrows = strtoul(tuples);
                con.rs.counter = if con.rs.nrows > 0 {
                    SbCounter::Write
                } else {
                    SbCounter::Other
                } as c_int;
                pq::PQclear(res);
                DB_ERROR_NONE
            }
            PGRES_FATAL_ERROR => {
                con.rs.nrows = 0;
                con.rs.counter = SbCounter::Error as c_int;
                let field = |code: u8| {
                    let p = pq::PQresultErrorField(res, c_int::from(code));
                    if p.is_null() {
                        Vec::new()
                    } else {
                        CStr::from_ptr(p).to_bytes().to_vec()
                    }
                };
                let state = field(pq::PG_DIAG_SQLSTATE);
                let msg = field(pq::PG_DIAG_MESSAGE_PRIMARY);
                con.set_owned_error(&state, &msg);
                let rc = if IGNORABLE_STATES.contains(&state.as_slice()) {
                    pq::PQclear(pq::PQexec(pgconn(con), c"ROLLBACK".as_ptr()));
                    DB_ERROR_IGNORABLE
                } else {
                    fatal(&format!(
                        "{func}() failed: {} {}",
                        status as c_int,
                        String::from_utf8_lossy(&msg)
                    ));
                    if let Some(q) = query {
                        fatal(&format!("failed query was: {}", String::from_utf8_lossy(q)));
                    }
                    DB_ERROR_FATAL
                };
                pq::PQclear(res);
                rc
            }
            _ => {
                con.rs.nrows = 0;
                con.rs.counter = SbCounter::Error as c_int;
                pq::PQclear(res);
                DB_ERROR_FATAL
            }
        }
    }
}

/// C's strtoul() over PQcmdTuples() text (digits; anything else is 0).
fn strtoul(s: &[u8]) -> u32 {
    s.iter()
        .take_while(|b| b.is_ascii_digit())
        .fold(0u64, |v, &b| {
            v.wrapping_mul(10).wrapping_add(u64::from(b - b'0'))
        }) as u32
}

impl Pgsql {
    /// A statement's PgStmt, from its `ptr`.
    fn stmt<'a>(ptr: *mut c_void) -> Option<&'a mut PgStmt> {
        // SAFETY: set by prepare() from Box::into_raw, cleared by close().
        unsafe { (ptr as *mut PgStmt).as_mut() }
    }
}

impl Driver for Pgsql {
    fn sname(&self) -> &'static [u8] {
        b"pgsql\0"
    }

    fn lname(&self) -> &'static [u8] {
        b"PostgreSQL driver\0"
    }

    fn init(&self, _cfg: &Config) -> bool {
        true
    }

    fn describe(&self, cfg: &Config) -> Option<Caps> {
        let mut caps = Caps {
            multi_rows_insert: 1,
            prepared_statements: 1,
            auto_increment: 0,
            needs_commit: 0,
            serial: 1,
            unsigned_int: 0,
        };
        // sysbench asks the server its version on a connection of its own.
        let c = open(cfg);
        if c.is_null() {
            return None;
        }
        // SAFETY: an open connection, finished once.
        unsafe {
            if pq::PQserverVersion(c) < 80200 {
                caps.multi_rows_insert = 0;
            }
            pq::PQfinish(c);
        }
        Some(caps)
    }

    fn connect(&self, con: &mut SqlConnection) -> bool {
        let c = open(&con.cfg);
        if c.is_null() {
            return false;
        }
        // SAFETY: an open connection.
        unsafe { pq::PQsetNoticeProcessor(c, Some(quiet_notices), null_mut()) };
        block_on_reads(c);
        con.ptr = c as *mut c_void;
        true
    }

    fn disconnect(&self, con: &mut SqlConnection) -> c_int {
        con.sql_state = null();
        con.sql_errmsg = null();
        let c = pgconn(con);
        if !c.is_null() {
            // SAFETY: our connection, finished once.
            unsafe { pq::PQfinish(c) };
            con.ptr = null_mut();
        }
        0
    }

    fn prepare(&self, con: &mut SqlConnection, stmt: &mut SqlStatement, q: &[u8]) -> bool {
        let c = pgconn(con);
        if c.is_null() {
            return false;
        }
        // sysbench reads the query up to its NUL.
        let q = &q[..q.iter().position(|&b| b == 0).unwrap_or(q.len())];
        if !con.cfg.use_ps() {
            stmt.emulated = true;
            stmt.query = q.to_vec();
            return true;
        }
        let mut sql = Vec::with_capacity(q.len() + 16);
        let mut n = 0usize;
        for &b in q {
            if b == b'?' {
                n += 1;
                let _ = write!(sql, "${n}");
            } else {
                sql.push(b);
            }
        }
        stmt.query = q.to_vec();
        let mut ps = Box::new(PgStmt {
            name: unique_name(),
            sql: CString::new(sql).unwrap_or_default(),
            prepared: false,
            nparams: n,
            values: Vec::new(),
            ptrs: Vec::new(),
        });
        // Without parameters there are no types to learn from a bind.
        if n == 0 {
            // SAFETY: an open connection; NUL-terminated strings.
            unsafe {
                let res = pq::PQprepare(c, ps.name.as_ptr(), ps.sql.as_ptr(), 0, null());
                if pq::PQresultStatus(res) != pq::ExecStatusType::PGRES_COMMAND_OK {
                    fatal(&format!(
                        "PQprepare() failed: {}",
                        c_text(pq::PQerrorMessage(c))
                    ));
                    pq::PQclear(res);
                    return false;
                }
                pq::PQclear(res);
            }
            ps.prepared = true;
        }
        stmt.ptr = Box::into_raw(ps) as *mut c_void;
        true
    }

    fn bind_param(&self, con: &mut SqlConnection, stmt: &mut SqlStatement, p: &[SqlBind]) -> bool {
        let c = pgconn(con);
        if c.is_null() {
            return false;
        }
        stmt.bound.clear();
        stmt.bound.extend_from_slice(p);
        if stmt.emulated {
            return true;
        }
        let Some(ps) = Pgsql::stmt(stmt.ptr) else {
            return false;
        };
        if ps.prepared {
            return true;
        }
        if ps.nparams != p.len() {
            alert("wrong number of parameters in prepared statement");
            debug(&format!(
                "counted: {}, passed to bind_param(): {}",
                ps.nparams,
                p.len()
            ));
            return false;
        }
        let types: Vec<pq::Oid> = p.iter().map(|b| pg_type(b.type_)).collect();
        // SAFETY: an open connection; `types` has `nparams` entries.
        unsafe {
            let res = pq::PQprepare(
                c,
                ps.name.as_ptr(),
                ps.sql.as_ptr(),
                ps.nparams as c_int,
                types.as_ptr(),
            );
            if pq::PQresultStatus(res) != pq::ExecStatusType::PGRES_COMMAND_OK {
                fatal(&format!(
                    "PQprepare() failed: {}",
                    c_text(pq::PQerrorMessage(c))
                ));
                pq::PQclear(res);
                return false;
            }
            pq::PQclear(res);
        }
        ps.values = (0..ps.nparams).map(|_| Vec::with_capacity(256)).collect();
        ps.prepared = true;
        true
    }

    fn bind_result(
        &self,
        _con: &mut SqlConnection,
        _stmt: &mut SqlStatement,
        _p: &[SqlBind],
    ) -> bool {
        true
    }

    fn execute(&self, con: &mut SqlConnection, stmt: &mut SqlStatement) -> c_int {
        con.clear_error();
        if stmt.emulated {
            let SqlStatement {
                query, bound, buf, ..
            } = stmt;
            // SAFETY: the binds' buffers are the caller's, alive while bound.
            unsafe { emulate_query(query, bound, buf) };
            return self.query(con, buf);
        }
        let Some(ps) = Pgsql::stmt(stmt.ptr) else {
            debug("ERROR: exiting mysql_drv_execute(), uninitialized statement");
            return DB_ERROR_FATAL;
        };
        ps.values.resize_with(ps.nparams, Vec::new);
        ps.ptrs.clear();
        for i in 0..ps.nparams {
            let v = &mut ps.values[i];
            v.clear();
            let ptr = match stmt.bound.get(i) {
                // SAFETY: the caller's bind buffers, alive while bound.
                Some(b) if b.is_null.is_null() || unsafe { *b.is_null } == 0 => {
                    if matches!(b.type_, bind_type::CHAR | bind_type::VARCHAR) {
                        if !b.buffer.is_null() {
                            v.extend_from_slice(unsafe { bind_bytes(b) });
                        }
                    } else {
                        unsafe { print_value(b, v) };
                    }
                    v.push(0);
                    v.as_ptr() as *const c_char
                }
                // A NULL value (sysbench sends the previous one), or none bound.
                _ => null(),
            };
            ps.ptrs.push(ptr);
        }
        let c = pgconn(con);
        // SAFETY: an open connection; `ptrs` has `nparams` entries.
        let res = unsafe {
            let sent = pq::PQsendQueryPrepared(
                c,
                ps.name.as_ptr(),
                ps.nparams as c_int,
                ps.ptrs.as_ptr(),
                null(),
                null(),
                1,
            );
            finish(c, sent == 1)
        };
        let rc = check_status(con, res, "PQexecPrepared", None);
        con.rs.ptr = if con.rs.counter == SbCounter::Read as c_int {
            res as *mut c_void
        } else {
            null_mut()
        };
        rc
    }

    #[inline]
    fn query(&self, con: &mut SqlConnection, q: &[u8]) -> c_int {
        con.clear_error();
        let c = pgconn(con);
        if c.is_null() {
            return DB_ERROR_FATAL;
        }
        let text = con.nul_terminated(q);
        // SAFETY: an open connection; a NUL-terminated query.
        let res = unsafe { finish(c, pq::PQsendQuery(c, text) == 1) };
        let end = q.iter().position(|&b| b == 0).unwrap_or(q.len());
        let rc = check_status(con, res, "PQexec", Some(&q[..end]));
        con.rs.ptr = if con.rs.counter == SbCounter::Read as c_int {
            res as *mut c_void
        } else {
            null_mut()
        };
        rc
    }

    fn fetch_row(&self, con: &mut SqlConnection) -> bool {
        let res = con.rs.ptr as *const pq::PGresult;
        let row = con.rs.row.ptr as usize;
        if res.is_null() || con.rs.row.values.is_null() || row >= con.rs.nrows as usize {
            return false;
        }
        // SAFETY: a result with `nrows` x `nfields`; `values` has `nfields`.
        unsafe {
            for i in 0..con.rs.nfields as usize {
                let v = &mut *con.rs.row.values.add(i);
                if pq::PQgetisnull(res, row as c_int, i as c_int) != 0 {
                    v.ptr = null();
                } else {
                    v.len = pq::PQgetlength(res, row as c_int, i as c_int) as u32;
                    v.ptr = pq::PQgetvalue(res, row as c_int, i as c_int);
                }
            }
        }
        con.rs.row.ptr = (row + 1) as *mut c_void;
        true
    }

    fn free_results(&self, con: &mut SqlConnection) -> c_int {
        if con.rs.ptr.is_null() {
            return 1;
        }
        // SAFETY: the result we kept, cleared once.
        unsafe { pq::PQclear(con.rs.ptr as *mut pq::PGresult) };
        con.rs.ptr = null_mut();
        con.rs.row.ptr = null_mut();
        0
    }

    fn close(&self, _con: &mut SqlConnection, stmt: &mut SqlStatement) -> c_int {
        if stmt.ptr.is_null() {
            return 1;
        }
        // SAFETY: ours from Box::into_raw in prepare(), freed once.
        drop(unsafe { Box::from_raw(stmt.ptr as *mut PgStmt) });
        stmt.ptr = null_mut();
        0
    }
}
