//! The C ABI called directly, against the throwaway servers of
//! tests/db/servers.sh (`RBENCH_MYSQL_ARGS`, `RBENCH_PGSQL_ARGS`). Without
//! them a test says so and passes, unless RBENCH_REQUIRE_ORIGINALS=1.
//! Each test runs on its own thread with its own configuration, counters,
//! captured messages and tables.

use std::ffi::{c_char, c_int, c_ulong, c_void, CStr};
use std::ptr::{null, null_mut};

use super::ffi::*;
use super::{bind_type as bt, set_test_config, Config, CAPTURED};
use super::{DB_ERROR_FATAL, DB_ERROR_IGNORABLE, DB_ERROR_NONE};
use crate::lua::context::{with_slot, SbCounter};
use crate::stats::Slot;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Server {
    Mysql,
    Pgsql,
}

impl Server {
    fn env(self) -> &'static str {
        match self {
            Server::Mysql => "RBENCH_MYSQL_ARGS",
            Server::Pgsql => "RBENCH_PGSQL_ARGS",
        }
    }
    fn name(self) -> &'static str {
        match self {
            Server::Mysql => "mysql",
            Server::Pgsql => "pgsql",
        }
    }
}

/// The server's options plus `extra`, or None (after a note) without it.
fn setup(server: Server, extra: &[&str]) -> Option<()> {
    let Ok(args) = std::env::var(server.env()) else {
        if std::env::var("RBENCH_REQUIRE_ORIGINALS").as_deref() == Ok("1") {
            panic!("{} is not set (tests/db/servers.sh env)", server.env());
        }
        eprintln!(
            "note: {} not set, skipping this {} test",
            server.env(),
            server.name()
        );
        return None;
    };
    let mut argv: Vec<String> = args.split_whitespace().map(str::to_string).collect();
    argv.push(format!("--db-driver={}", server.name()));
    argv.extend(extra.iter().map(|s| s.to_string()));
    let cl = crate::args::parse(&argv).expect("options");
    set_test_config(Config::from_values(&cl.values));
    CAPTURED.with(|c| c.borrow_mut().clear());
    Some(())
}

/// What was logged since the last call, without DEBUG lines.
fn captured() -> Vec<String> {
    CAPTURED
        .with(|c| std::mem::take(&mut *c.borrow_mut()))
        .into_iter()
        .filter(|m| !m.starts_with("DEBUG: "))
        .collect()
}

/// The SQL counters of `slot`, in sb_counter_type order.
fn counts(slot: &Slot) -> [u64; 6] {
    let s = slot.snapshot();
    std::array::from_fn(|i| s.counters[5 + i])
}

fn c(counter: SbCounter) -> usize {
    counter as usize
}

struct Con {
    drv: *mut SqlDriver,
    con: *mut SqlConnection,
}

impl Con {
    fn open() -> Con {
        let drv = db_create(null());
        assert!(!drv.is_null(), "db_create: {:?}", captured());
        let con = db_connection_create(drv);
        assert!(!con.is_null(), "connect: {:?}", captured());
        Con { drv, con }
    }

    fn query(&self, q: &str) -> *mut SqlResult {
        db_query(self.con, q.as_ptr() as *const c_char, q.len())
    }

    /// Run `q`, expecting success.
    fn ok(&self, q: &str) -> *mut SqlResult {
        let rs = self.query(q);
        assert_eq!(self.error(), DB_ERROR_NONE, "{q}: {:?}", captured());
        rs
    }

    fn error(&self) -> c_int {
        unsafe { (*self.con).error }
    }

    /// Every row of a query as text (None for NULL).
    fn rows(&self, q: &str) -> Vec<Vec<Option<String>>> {
        let rs = self.ok(q);
        assert!(!rs.is_null(), "{q} returned no result set");
        let mut out = Vec::new();
        loop {
            let row = db_fetch_row(rs);
            if row.is_null() {
                break;
            }
            let n = unsafe { (*rs).nfields } as usize;
            let vals = unsafe { std::slice::from_raw_parts((*row).values, n) };
            out.push(
                vals.iter()
                    .map(|v| {
                        (!v.ptr.is_null()).then(|| {
                            let b = unsafe {
                                std::slice::from_raw_parts(v.ptr as *const u8, v.len as usize)
                            };
                            String::from_utf8_lossy(b).into_owned()
                        })
                    })
                    .collect(),
            );
        }
        assert_eq!(db_free_results(rs), 0);
        out
    }

    fn scalar(&self, q: &str) -> String {
        self.rows(q)[0][0].clone().unwrap_or_default()
    }

    fn errmsg(&self) -> (c_int, String, String) {
        unsafe {
            let c = &*self.con;
            let s = |p: *const c_char| {
                if p.is_null() {
                    "<null>".to_string()
                } else {
                    CStr::from_ptr(p).to_string_lossy().into_owned()
                }
            };
            (c.sql_errno, s(c.sql_state), s(c.sql_errmsg))
        }
    }
}

impl Drop for Con {
    fn drop(&mut self) {
        db_connection_free(self.con);
        db_destroy(self.drv);
    }
}

#[test]
fn driver_names_are_the_engines() {
    assert!(driver_names_match());
    assert!(is_ignorable(DB_ERROR_IGNORABLE));
}

#[test]
fn unknown_driver_and_bad_ps_mode() {
    let cl = crate::args::parse(&["--db-driver=nope".to_string()]).unwrap();
    set_test_config(Config::from_values(&cl.values));
    CAPTURED.with(|c| c.borrow_mut().clear());
    assert!(db_create(null()).is_null());
    assert!(db_create(c"oracle".as_ptr()).is_null());
    assert_eq!(
        captured(),
        [
            "FATAL: invalid database driver name: 'nope'",
            "FATAL: invalid database driver name: 'oracle'"
        ]
    );
    let cl = crate::args::parse(&["--db-ps-mode=sometimes".to_string()]).unwrap();
    set_test_config(Config::from_values(&cl.values));
    assert!(db_create(c"mysql".as_ptr()).is_null());
    assert!(db_create(c"mysql".as_ptr()).is_null());
    // Said once, as sysbench's db_init() runs once.
    assert_eq!(
        captured(),
        ["FATAL: Invalid value for db-ps-mode: sometimes"]
    );
}

#[test]
fn null_and_foreign_pointers_get_error_values() {
    let junk = [0u64; 64];
    let j = junk.as_ptr() as *mut c_void;
    assert_eq!(db_destroy(null_mut()), 1);
    assert_eq!(db_destroy(j as *mut SqlDriver), 1);
    assert!(db_connection_create(j as *mut SqlDriver).is_null());
    assert_eq!(db_connection_close(null_mut()), 1);
    assert_eq!(db_connection_close(j as *mut SqlConnection), 1);
    assert_eq!(db_connection_reconnect(j as *mut SqlConnection), 1);
    db_connection_free(null_mut());
    db_connection_free(j as *mut SqlConnection);
    assert!(db_query(null_mut(), c"x".as_ptr(), 1).is_null());
    assert!(db_query(j as *mut SqlConnection, c"x".as_ptr(), 1).is_null());
    assert!(db_prepare(j as *mut SqlConnection, c"x".as_ptr(), 1).is_null());
    assert_eq!(db_bind_param(j as *mut SqlStatement, null_mut(), 0), 1);
    assert_eq!(db_bind_result(null_mut(), null_mut(), 0), 1);
    assert!(db_execute(j as *mut SqlStatement).is_null());
    assert_eq!(db_close(null_mut()), 0);
    assert!(db_fetch_row(null_mut()).is_null());
    assert!(db_fetch_row(j as *mut SqlResult).is_null());
    assert_eq!(db_free_results(j as *mut SqlResult), 1);
    assert_eq!(db_bulk_insert_init(null_mut(), c"x".as_ptr(), 1), 1);
    assert_eq!(db_bulk_insert_next(null_mut(), c"x".as_ptr(), 1), 1);
    assert_eq!(db_bulk_insert_done(null_mut()), 1);
    assert_eq!(db_print_value(null_mut(), null_mut(), 0), -1);
}

#[test]
fn print_value_formats_as_sysbench() {
    let mut i: i64 = -42;
    let mut d: f64 = 0.25;
    let mut f: f32 = 1.5;
    let mut s = *b"abc\0";
    let mut len: c_ulong = 2;
    let mut t = super::DbTime {
        year: 2024,
        month: 1,
        day: 2,
        hour: 3,
        minute: 4,
        second: 5,
    };
    let mut null_flag: c_char = 1;
    let b = |ty, buf: *mut c_void, data_len: *mut c_ulong, is_null: *mut c_char| SqlBind {
        type_: ty,
        buffer: buf,
        data_len,
        max_len: 0,
        is_null,
    };
    let cases = [
        (
            b(
                bt::BIGINT,
                &mut i as *mut _ as *mut c_void,
                null_mut(),
                null_mut(),
            ),
            "-42",
        ),
        (
            b(
                bt::DOUBLE,
                &mut d as *mut _ as *mut c_void,
                null_mut(),
                null_mut(),
            ),
            "0.250000",
        ),
        (
            b(
                bt::FLOAT,
                &mut f as *mut _ as *mut c_void,
                null_mut(),
                null_mut(),
            ),
            "1.500000",
        ),
        (
            b(
                bt::CHAR,
                s.as_mut_ptr() as *mut c_void,
                null_mut(),
                null_mut(),
            ),
            "'abc'",
        ),
        (
            b(
                bt::VARCHAR,
                s.as_mut_ptr() as *mut c_void,
                &mut len,
                null_mut(),
            ),
            "'ab'",
        ),
        (
            b(
                bt::DATE,
                &mut t as *mut _ as *mut c_void,
                null_mut(),
                null_mut(),
            ),
            "'2024-1-2'",
        ),
        (
            b(
                bt::TIME,
                &mut t as *mut _ as *mut c_void,
                null_mut(),
                null_mut(),
            ),
            "'3:4:5'",
        ),
        (
            b(
                bt::DATETIME,
                &mut t as *mut _ as *mut c_void,
                null_mut(),
                null_mut(),
            ),
            "'2024-1-2 3:4:5'",
        ),
        (
            b(
                bt::INT,
                &mut i as *mut _ as *mut c_void,
                null_mut(),
                &mut null_flag,
            ),
            "NULL",
        ),
    ];
    for (mut bind, want) in cases {
        let mut buf = [0 as c_char; 64];
        let n = db_print_value(&mut bind, buf.as_mut_ptr(), 64);
        let got = unsafe { CStr::from_ptr(buf.as_ptr()) }
            .to_str()
            .unwrap()
            .to_string();
        assert_eq!((n as usize, got.as_str()), (want.len(), want));
    }
    let mut bind = b(
        bt::BIGINT,
        &mut i as *mut _ as *mut c_void,
        null_mut(),
        null_mut(),
    );
    let mut small = [0 as c_char; 3];
    assert_eq!(db_print_value(&mut bind, small.as_mut_ptr(), 3), -1);
}

fn classification(server: Server) {
    if setup(server, &[]).is_none() {
        return;
    }
    let slot = Slot::new();
    with_slot(&slot, || {
        let db = Con::open();
        let t = format!("rbt_class_{}", server.name());
        db.ok(&format!("DROP TABLE IF EXISTS {t}"));
        assert!(db
            .ok(&format!("CREATE TABLE {t}(a INT, b VARCHAR(10))"))
            .is_null());
        assert_eq!(counts(&slot)[c(SbCounter::Other)], 2);
        assert!(db
            .ok(&format!("INSERT INTO {t} VALUES (1, 'x'), (2, NULL)"))
            .is_null());
        assert_eq!(unsafe { (*db.con).rs.nrows }, 2);
        assert_eq!(counts(&slot)[c(SbCounter::Write)], 1);
        // No row changed: "other", as sysbench counts it.
        db.ok(&format!("UPDATE {t} SET a = 3 WHERE a = 99"));
        assert_eq!(counts(&slot)[c(SbCounter::Other)], 3);
        let rs = db.ok(&format!("SELECT a, b FROM {t} ORDER BY a"));
        assert!(!rs.is_null());
        assert_eq!(unsafe { ((*rs).nrows, (*rs).nfields) }, (2, 2));
        // A new query frees the old result set.
        assert_eq!(
            db.rows(&format!("SELECT a, b FROM {t} ORDER BY a")),
            [
                vec![Some("1".into()), Some("x".into())],
                vec![Some("2".into()), None]
            ]
        );
        assert_eq!(counts(&slot)[c(SbCounter::Read)], 2);
        // Result set misuse.
        assert_eq!(db_free_results(rs), 1);
        assert!(db_fetch_row(rs).is_null());
        let empty = db.ok(&format!("SELECT a FROM {t} WHERE a > 100"));
        assert!(db_fetch_row(empty).is_null());
        assert_eq!(
            captured(),
            [
                "ALERT: attempt to free an invalid result set",
                "ALERT: attempt to fetch row from an invalid result set",
                "ALERT: attempt to fetch row from an empty result set"
            ]
        );
        db.ok(&format!("DROP TABLE {t}"));
        // A closed connection.
        assert_eq!(db_connection_close(db.con), 0);
        assert!(db.query("SELECT 1").is_null());
        assert_eq!(db.error(), DB_ERROR_FATAL);
        assert_eq!(db_connection_close(db.con), 0);
        assert_eq!(
            captured(),
            [
                "ALERT: attempt to use an already closed connection",
                "ALERT: attempt to close an already closed connection"
            ]
        );
        assert_eq!(counts(&slot)[c(SbCounter::Error)], 0);
    });
}

#[test]
fn mysql_classification() {
    classification(Server::Mysql);
}

#[test]
fn pgsql_classification() {
    classification(Server::Pgsql);
}

#[test]
fn mysql_connection_failures() {
    if setup(Server::Mysql, &["--mysql-password=wrong"]).is_none() {
        return;
    }
    let drv = db_create(null());
    assert!(db_connection_create(drv).is_null());
    let msgs = captured();
    let sock = std::env::var("RBENCH_MYSQL_ARGS").unwrap();
    let sock = sock
        .split_whitespace()
        .find_map(|a| a.strip_prefix("--mysql-socket="))
        .unwrap()
        .to_string();
    assert_eq!(
        msgs,
        [
            format!("FATAL: unable to connect to MySQL server on socket '{sock}', aborting..."),
            "FATAL: error 1045: Access denied for user 'sbtest'@'localhost' (using password: YES)"
                .to_string()
        ]
    );
    setup(
        Server::Mysql,
        &[
            "--mysql-socket=",
            "--mysql-host=127.0.0.1",
            "--mysql-port=1",
        ],
    )
    .unwrap();
    assert!(db_connection_create(db_create(null())).is_null());
    let msgs = captured();
    assert_eq!(
        msgs[0],
        "FATAL: unable to connect to MySQL server on host '127.0.0.1', port 1, aborting..."
    );
    assert!(
        msgs[1].starts_with("FATAL: error 2002: Can't connect to server on '127.0.0.1'"),
        "{msgs:?}"
    );
}

#[test]
fn pgsql_connection_failures() {
    // The test server trusts loopback: a database that is not there.
    if setup(Server::Pgsql, &["--pgsql-db=rbt_nope"]).is_none() {
        return;
    }
    assert!(db_connection_create(db_create(null())).is_null());
    assert_eq!(
        captured(),
        ["FATAL: Connection to database failed: connection to server at \"127.0.0.1\", port 15432 failed: FATAL:  database \"rbt_nope\" does not exist\n"]
            .iter()
            .map(|s| s.replace("15432", &pg_port()))
            .collect::<Vec<_>>()
    );
    setup(Server::Pgsql, &["--pgsql-port=1"]).unwrap();
    assert!(db_connection_create(db_create(null())).is_null());
    let msgs = captured();
    assert!(
        msgs[0].starts_with("FATAL: Connection to database failed: connection to server at \"127.0.0.1\", port 1 failed: Connection refused"),
        "{msgs:?}"
    );
}

fn pg_port() -> String {
    std::env::var("RBENCH_PGSQL_ARGS")
        .unwrap()
        .split_whitespace()
        .find_map(|a| a.strip_prefix("--pgsql-port=").map(str::to_string))
        .unwrap()
}

/// Buffers for one parameter of each type.
struct Params {
    id: i32,
    id_null: c_char,
    tiny: i8,
    small: i16,
    int: i32,
    big: i64,
    float: f32,
    double: f64,
    chr: [u8; 16],
    chr_len: c_ulong,
    vchr: [u8; 16],
    vchr_len: c_ulong,
    nul: [c_char; 8],
}

impl Params {
    fn binds(&mut self) -> Vec<SqlBind> {
        let b = |ty, buf: *mut c_void, len: *mut c_ulong, max: c_ulong, nul: *mut c_char| SqlBind {
            type_: ty,
            buffer: buf,
            data_len: len,
            max_len: max,
            is_null: nul,
        };
        let n = self.nul.as_mut_ptr();
        vec![
            b(
                bt::INT,
                &mut self.id as *mut _ as *mut c_void,
                null_mut(),
                4,
                &mut self.id_null,
            ),
            b(
                bt::TINYINT,
                &mut self.tiny as *mut _ as *mut c_void,
                null_mut(),
                1,
                n,
            ),
            b(
                bt::SMALLINT,
                &mut self.small as *mut _ as *mut c_void,
                null_mut(),
                2,
                unsafe { n.add(1) },
            ),
            b(
                bt::INT,
                &mut self.int as *mut _ as *mut c_void,
                null_mut(),
                4,
                unsafe { n.add(2) },
            ),
            b(
                bt::BIGINT,
                &mut self.big as *mut _ as *mut c_void,
                null_mut(),
                8,
                unsafe { n.add(3) },
            ),
            b(
                bt::FLOAT,
                &mut self.float as *mut _ as *mut c_void,
                null_mut(),
                4,
                unsafe { n.add(4) },
            ),
            b(
                bt::DOUBLE,
                &mut self.double as *mut _ as *mut c_void,
                null_mut(),
                8,
                unsafe { n.add(5) },
            ),
            b(
                bt::CHAR,
                self.chr.as_mut_ptr() as *mut c_void,
                &mut self.chr_len,
                16,
                unsafe { n.add(6) },
            ),
            b(
                bt::VARCHAR,
                self.vchr.as_mut_ptr() as *mut c_void,
                &mut self.vchr_len,
                16,
                unsafe { n.add(7) },
            ),
        ]
    }
}

fn prepared(server: Server, ps_mode: &str) {
    if setup(server, &[&format!("--db-ps-mode={ps_mode}")]).is_none() {
        return;
    }
    let slot = Slot::new();
    with_slot(&slot, || {
        let db = Con::open();
        let t = format!("rbt_ps_{}_{ps_mode}", server.name());
        db.ok(&format!("DROP TABLE IF EXISTS {t}"));
        let chr = if server == Server::Pgsql {
            "VARCHAR(16)"
        } else {
            "CHAR(16)"
        };
        db.ok(&format!(
            "CREATE TABLE {t}(id INT, ti SMALLINT, si SMALLINT, i INT, bi BIGINT, f REAL, d DOUBLE PRECISION, c {chr}, v VARCHAR(16))"
        ));
        let q = format!("INSERT INTO {t} VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
        let stmt = db_prepare(db.con, q.as_ptr() as *const c_char, q.len());
        assert!(!stmt.is_null(), "{:?}", captured());
        // Changed through `pp` only: the statement reads them behind our back.
        let mut params = Box::new(Params {
            id: 0,
            id_null: 0,
            tiny: -5,
            small: 300,
            int: 70000,
            big: 5_000_000_000,
            float: 1.5,
            double: 2.25,
            chr: *b"hello\0\0\0\0\0\0\0\0\0\0\0",
            chr_len: 5,
            vchr: *b"worldXXXXXXXXXXX",
            vchr_len: 5,
            nul: [0; 8],
        });
        let pp: *mut Params = &mut *params;
        let mut binds = unsafe { (*pp).binds() };
        // PostgreSQL infers "char" from CHAR; sysbench's Lua API binds
        // strings as VARCHAR, so do the same there.
        if server == Server::Pgsql {
            binds[7].type_ = bt::VARCHAR;
        }
        assert_eq!(
            db_bind_param(stmt, binds.as_mut_ptr(), binds.len()),
            0,
            "{:?}",
            captured()
        );
        unsafe { (*pp).id = 1 };
        assert!(db_execute(stmt).is_null());
        assert_eq!(db.error(), DB_ERROR_NONE, "{:?}", captured());
        // Same binds, new values, some NULL.
        unsafe {
            (*pp).id = 2;
            (*pp).vchr_len = 3;
            (*pp).nul = [1, 0, 1, 0, 1, 0, 1, 0];
        }
        assert!(db_execute(stmt).is_null());
        assert_eq!(db.error(), DB_ERROR_NONE, "{:?}", captured());
        assert_eq!(counts(&slot)[c(SbCounter::Write)], 2);
        assert_eq!(db_close(stmt), c_int::from(ps_mode == "disable"));
        let rows = db.rows(&format!(
            "SELECT id, ti, si, i, bi, f, d, c, v FROM {t} ORDER BY id"
        ));
        let s = |v: &str| Some(v.to_string());
        assert_eq!(
            rows,
            [
                vec![
                    s("1"),
                    s("-5"),
                    s("300"),
                    s("70000"),
                    s("5000000000"),
                    s("1.5"),
                    s("2.25"),
                    s("hello"),
                    s("world")
                ],
                vec![
                    s("2"),
                    None,
                    s("300"),
                    None,
                    s("5000000000"),
                    None,
                    s("2.25"),
                    None,
                    s("wor")
                ],
            ]
        );
        // A SELECT prepared statement returns a result set.
        let q = format!("SELECT id FROM {t} WHERE id = ?");
        let stmt = db_prepare(db.con, q.as_ptr() as *const c_char, q.len());
        assert_eq!(db_bind_param(stmt, binds.as_mut_ptr(), 1), 0);
        let rs = db_execute(stmt);
        assert!(!rs.is_null(), "{:?}", captured());
        assert_eq!(unsafe { (*rs).nrows }, 1);
        assert_eq!(db_free_results(rs), 0);
        db_close(stmt);
        // Preparing a query on a table that does not exist.
        let q = "SELECT * FROM rbt_nonexisting";
        let bad = db_prepare(db.con, q.as_ptr() as *const c_char, q.len());
        if ps_mode == "auto" {
            assert!(bad.is_null());
            assert_eq!(db.error(), DB_ERROR_FATAL);
            let msgs = captured();
            match server {
                Server::Mysql => assert_eq!(
                    msgs,
                    ["FATAL: mysql_stmt_prepare() failed", "FATAL: MySQL error: 1146 \"Table 'sbtest.rbt_nonexisting' doesn't exist\""]
                ),
                Server::Pgsql => assert!(
                    msgs[0].starts_with("FATAL: PQprepare() failed: ERROR:  relation \"rbt_nonexisting\" does not exist"),
                    "{msgs:?}"
                ),
            }
        } else {
            assert!(!bad.is_null());
            db_close(bad);
        }
        db.ok(&format!("DROP TABLE {t}"));
    });
}

#[test]
fn mysql_prepared_statements() {
    prepared(Server::Mysql, "auto");
}

#[test]
fn mysql_emulated_prepared_statements() {
    prepared(Server::Mysql, "disable");
}

#[test]
fn pgsql_prepared_statements() {
    prepared(Server::Pgsql, "auto");
}

#[test]
fn pgsql_emulated_prepared_statements() {
    prepared(Server::Pgsql, "disable");
}

fn bulk(server: Server) {
    if setup(server, &[]).is_none() {
        return;
    }
    let slot = Slot::new();
    with_slot(&slot, || {
        let db = Con::open();
        let t = format!("rbt_bulk_{}", server.name());
        db.ok(&format!("DROP TABLE IF EXISTS {t}"));
        db.ok(&format!("CREATE TABLE {t}(a INT, b VARCHAR(64))"));
        let writes0 = counts(&slot)[c(SbCounter::Write)];
        // Misuse first.
        assert_eq!(db_bulk_insert_next(db.con, c"(1)".as_ptr(), 3), 1);
        assert_eq!(
            captured(),
            ["ALERT: attempt to call bulk_insert_next() before bulk_insert_init()"]
        );
        let head = format!("INSERT INTO {t} VALUES");
        assert_eq!(
            db_bulk_insert_init(db.con, head.as_ptr() as *const c_char, head.len()),
            0
        );
        // ~900 KB of rows: more than one 512 KB statement.
        let pad = "x".repeat(40);
        for i in 0..20000 {
            let row = format!("({i},'{pad}')");
            assert_eq!(
                db_bulk_insert_next(db.con, row.as_ptr() as *const c_char, row.len()),
                0
            );
        }
        assert_eq!(db_bulk_insert_done(db.con), 0);
        assert_eq!(counts(&slot)[c(SbCounter::Write)] - writes0, 2);
        assert_eq!(
            db.scalar(&format!("SELECT COUNT(DISTINCT a) FROM {t}")),
            "20000"
        );
        assert_eq!(db_bulk_insert_done(db.con), 0);
        // A row too long for any statement.
        assert_eq!(
            db_bulk_insert_init(db.con, head.as_ptr() as *const c_char, head.len()),
            0
        );
        let huge = "y".repeat(BULK_PACKET_SIZE);
        assert_eq!(
            db_bulk_insert_next(db.con, huge.as_ptr() as *const c_char, huge.len()),
            1
        );
        assert_eq!(
            captured(),
            ["FATAL: Query length exceeds the maximum value (524288), aborting"]
        );
        assert_eq!(db_bulk_insert_done(db.con), 0);
        db.ok(&format!("DROP TABLE {t}"));
    });
}

#[test]
fn mysql_bulk_insert() {
    bulk(Server::Mysql);
}

#[test]
fn pgsql_bulk_insert() {
    bulk(Server::Pgsql);
}

#[test]
fn mysql_ignorable_and_fatal_errors() {
    if setup(Server::Mysql, &[]).is_none() {
        return;
    }
    let slot = Slot::new();
    with_slot(&slot, || {
        let db = Con::open();
        db.ok("DROP TABLE IF EXISTS rbt_err_mysql");
        db.ok("CREATE TABLE rbt_err_mysql(a INT PRIMARY KEY)");
        db.ok("INSERT INTO rbt_err_mysql VALUES (1)");
        let q = "INSERT INTO rbt_err_mysql VALUES (1)";
        assert!(db.query(q).is_null());
        assert_eq!(db.error(), DB_ERROR_FATAL);
        assert_eq!(
            db.errmsg(),
            (
                1062,
                "23000".into(),
                "Duplicate entry '1' for key 'PRIMARY'".into()
            )
        );
        assert_eq!(
            captured(),
            ["FATAL: mysql_drv_query() returned error 1062 (Duplicate entry '1' for key 'PRIMARY') for query 'INSERT INTO rbt_err_mysql VALUES (1)'"]
        );
        assert!(db.query("select * from rbt_x").is_null());
        assert_eq!(
            captured(),
            ["FATAL: mysql_drv_query() returned error 1146 (Table 'sbtest.rbt_x' doesn't exist) for query 'select * from rbt_x'"]
        );
        assert_eq!(counts(&slot)[c(SbCounter::Error)], 2);
        // A successful query clears the error fields.
        db.ok("SELECT 1");
        assert_eq!(db.errmsg(), (0, "<null>".into(), "<null>".into()));
        drop(db);

        setup(Server::Mysql, &["--mysql-ignore-errors=1062,1146"]).unwrap();
        let db = Con::open();
        assert!(db.query(q).is_null());
        assert_eq!(db.error(), DB_ERROR_IGNORABLE);
        assert_eq!(db.errmsg().0, 1062);
        assert!(db.query("select * from rbt_x").is_null());
        assert_eq!(db.error(), DB_ERROR_IGNORABLE);
        assert_eq!(captured(), Vec::<String>::new());
        assert_eq!(counts(&slot)[c(SbCounter::Error)], 4);
        drop(db);

        setup(Server::Mysql, &["--mysql-ignore-errors=all"]).unwrap();
        let db = Con::open();
        assert!(db.query("SELEC 1").is_null());
        assert_eq!(db.error(), DB_ERROR_IGNORABLE);
        assert_eq!(db.errmsg().0, 1064);
        db.ok("DROP TABLE rbt_err_mysql");
    });
}

#[test]
fn pgsql_ignorable_and_fatal_errors() {
    if setup(Server::Pgsql, &[]).is_none() {
        return;
    }
    let slot = Slot::new();
    with_slot(&slot, || {
        let db = Con::open();
        db.ok("DROP TABLE IF EXISTS rbt_err_pgsql");
        db.ok("CREATE TABLE rbt_err_pgsql(a INT PRIMARY KEY)");
        db.ok("INSERT INTO rbt_err_pgsql VALUES (1)");
        db.ok("BEGIN");
        // A unique violation is ignorable, and rolled back.
        assert!(db.query("INSERT INTO rbt_err_pgsql VALUES (1)").is_null());
        assert_eq!(db.error(), DB_ERROR_IGNORABLE);
        let (errno, state, msg) = db.errmsg();
        assert_eq!((errno, state.as_str()), (0, "23505"));
        assert!(
            msg.starts_with("duplicate key value violates unique constraint"),
            "{msg}"
        );
        assert_eq!(captured(), Vec::<String>::new());
        // Not in a failed transaction any more: the driver rolled it back.
        db.ok("SELECT 1");
        assert!(db.query("select * from rbt_x").is_null());
        assert_eq!(db.error(), DB_ERROR_FATAL);
        assert_eq!(db.errmsg().1, "42P01");
        assert_eq!(
            captured(),
            [
                "FATAL: PQexec() failed: 7 relation \"rbt_x\" does not exist",
                "FATAL: failed query was: select * from rbt_x"
            ]
        );
        assert_eq!(counts(&slot)[c(SbCounter::Error)], 2);
        db.ok("DROP TABLE rbt_err_pgsql");
    });
}

#[test]
fn mysql_reconnect() {
    if setup(Server::Mysql, &["--mysql-ignore-errors=2013,2006"]).is_none() {
        return;
    }
    let slot = Slot::new();
    with_slot(&slot, || {
        let db = Con::open();
        let id1 = db.scalar("SELECT CONNECTION_ID()");
        assert_eq!(db_connection_reconnect(db.con), 0);
        assert_eq!(counts(&slot)[c(SbCounter::Reconnect)], 1);
        let id2 = db.scalar("SELECT CONNECTION_ID()");
        assert_ne!(id1, id2);
        // The server drops the connection: the next query reconnects
        // (counted as a reconnect) and asks for the event to be restarted.
        let killer = Con::open();
        killer.ok(&format!("KILL {id2}"));
        let rs = db.query("SELECT 1");
        assert!(rs.is_null());
        assert_eq!(db.error(), DB_ERROR_IGNORABLE);
        assert!(matches!(db.errmsg().0, 2006 | 2013), "{:?}", db.errmsg());
        assert_eq!(counts(&slot)[c(SbCounter::Reconnect)], 2);
        assert_eq!(db.scalar("SELECT 2"), "2");
        assert_ne!(db.scalar("SELECT CONNECTION_ID()"), id2);
        drop(killer);

        // Not ignored: fatal.
        setup(Server::Mysql, &[]).unwrap();
        let db = Con::open();
        let id = db.scalar("SELECT CONNECTION_ID()");
        Con::open().ok(&format!("KILL {id}"));
        assert!(db.query("SELECT 1").is_null());
        assert_eq!(db.error(), DB_ERROR_FATAL);
        let msgs = captured();
        assert!(
            msgs.last()
                .unwrap()
                .starts_with("FATAL: mysql_drv_query() returned error 20"),
            "{msgs:?}"
        );
    });
}

#[test]
fn pgsql_cannot_reconnect() {
    if setup(Server::Pgsql, &[]).is_none() {
        return;
    }
    let slot = Slot::new();
    with_slot(&slot, || {
        let db = Con::open();
        assert_eq!(db_connection_reconnect(db.con), 0);
        assert_eq!(
            captured(),
            ["ALERT: reconnect is not supported by the current driver"]
        );
        assert_eq!(counts(&slot)[c(SbCounter::Reconnect)], 0);
        assert_eq!(db.scalar("SELECT 2"), "2");
    });
}

#[test]
fn mysql_dry_run() {
    if setup(
        Server::Mysql,
        &["--mysql-dry-run", "--mysql-socket=/nonexistent"],
    )
    .is_none()
    {
        return;
    }
    let slot = Slot::new();
    with_slot(&slot, || {
        let db = Con::open();
        assert!(db.ok("SELECT 1").is_null());
        assert!(db.ok("INSERT INTO nothing VALUES (1)").is_null());
        let q = "UPDATE x SET a = ?";
        let stmt = db_prepare(db.con, q.as_ptr() as *const c_char, q.len());
        assert!(!stmt.is_null());
        assert!(db_execute(stmt).is_null());
        assert_eq!(db.error(), DB_ERROR_NONE);
        assert_eq!(db_close(stmt), 0);
        assert_eq!(counts(&slot)[c(SbCounter::Other)], 3);
    });
}

#[test]
fn mysql_host_port_lists_round_robin() {
    if setup(
        Server::Mysql,
        &[
            "--mysql-socket=",
            "--mysql-host=127.0.0.1,localhost",
            "--mysql-port=1,2",
        ],
    )
    .is_none()
    {
        return;
    }
    let drv = db_create(null());
    for _ in 0..5 {
        assert!(db_connection_create(drv).is_null());
    }
    let targets: Vec<String> = captured()
        .into_iter()
        .filter(|m| m.contains("unable to connect"))
        .collect();
    let want = [
        ("127.0.0.1", 1),
        ("127.0.0.1", 2),
        ("localhost", 1),
        ("localhost", 2),
        ("127.0.0.1", 1),
    ];
    assert_eq!(
        targets,
        want.iter()
            .map(|(h, p)| format!(
                "FATAL: unable to connect to MySQL server on host '{h}', port {p}, aborting..."
            ))
            .collect::<Vec<_>>()
    );
}
