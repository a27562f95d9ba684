//! rsysbench's Lua/SQL side under faults, beside sysbench 1.0.20 on the
//! same servers (issue 13): no server at the address, a wrong password,
//! a deadlock the default `--mysql-ignore-errors` list ignores, SIGINT in
//! the middle of an OLTP run, and a script error in the middle of one.
//! The servers come from `RBENCH_MYSQL_ARGS` / `RBENCH_PGSQL_ARGS`
//! (`tests/run` starts them; required under RBENCH_REQUIRE_ORIGINALS=1).

use std::path::{Path, PathBuf};
use std::time::Duration;

use rbench_tests::{
    await_handler, command_in, default_signals, mask_numbers, original, our_bin, run_bounded,
    send_signal, spawn_piped, wait_output_bounded, Finished,
};

const LIMIT: Duration = Duration::from_secs(60);

use rbench_tests::sql::server_args as server;

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("rbench-faults-sql-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).expect("scratch dir");
    d
}

fn run(bin: &Path, dir: &Path, args: &[String]) -> Finished {
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    run_bounded(&mut command_in(bin, dir, &a), LIMIT).into()
}

fn args(base: &[String], extra: &[&str]) -> Vec<String> {
    base.iter()
        .cloned()
        .chain(extra.iter().map(|s| s.to_string()))
        .collect()
}

/// The FATAL/ALERT lines with numbers masked, and the bundled scripts'
/// location (sysbench's data directory; ours are built in) left out.
fn fatal_lines(s: &str) -> Vec<String> {
    s.lines()
        .filter(|l| l.starts_with("FATAL:") || l.starts_with("ALERT:"))
        .map(|l| mask_numbers(&l.replace("/usr/share/sysbench/", "")))
        .collect()
}

#[test]
fn no_server_at_the_address_fails_as_sysbench() {
    let Some(sb) = original("sysbench") else {
        return;
    };
    let d = scratch("noserver");
    let cases: Vec<Vec<String>> = vec![
        [
            "--db-driver=pgsql",
            "--pgsql-host=127.0.0.1",
            "--pgsql-port=1",
            "--pgsql-user=sbtest",
        ]
        .map(String::from)
        .to_vec(),
        [
            "--db-driver=mysql",
            "--mysql-socket=/nonexistent/mysql.sock",
            "--mysql-user=sbtest",
        ]
        .map(String::from)
        .to_vec(),
    ];
    for base in cases {
        for cmd in ["prepare", "run"] {
            let a = args(&base, &["oltp_point_select", "--table-size=10", cmd]);
            let ours = run(&our_bin("rsysbench"), &d, &a);
            let theirs = run(&sb, &d, &a);
            assert_eq!(ours.code, theirs.code, "exit code of {a:?}: {}", ours.out);
            assert_eq!(fatal_lines(&ours.out), fatal_lines(&theirs.out), "{a:?}");
            assert!(!fatal_lines(&ours.out).is_empty(), "{a:?}: {}", ours.out);
        }
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn wrong_password_fails_as_sysbench() {
    let (Some(sb), Some(base)) = (original("sysbench"), server("mysql")) else {
        return;
    };
    let d = scratch("password");
    let a = args(
        &base,
        &["--mysql-password=wrong", "oltp_point_select", "run"],
    );
    let ours = run(&our_bin("rsysbench"), &d, &a);
    let theirs = run(&sb, &d, &a);
    assert_eq!(ours.code, theirs.code);
    assert_eq!(fatal_lines(&ours.out), fatal_lines(&theirs.out));
    assert!(ours.out.contains("Access denied"), "{}", ours.out);
    let _ = std::fs::remove_dir_all(&d);
}

/// Two threads lock two rows in opposite orders: InnoDB kills one
/// transaction with a deadlock (1213, in sysbench's default ignore list),
/// the event restarts and is counted as an ignored error.
const DEADLOCK: &str = r#"
ffi.cdef[[int usleep(unsigned int);]]
local T = "rbench_deadlock"
function prepare()
   local con = sysbench.sql.driver():connect()
   con:query("DROP TABLE IF EXISTS " .. T)
   con:query("CREATE TABLE " .. T .. " (id INT PRIMARY KEY, v INT) ENGINE=InnoDB")
   con:query("INSERT INTO " .. T .. " VALUES (1, 0), (2, 0)")
end
function cleanup()
   sysbench.sql.driver():connect():query("DROP TABLE IF EXISTS " .. T)
end
function thread_init()
   con = sysbench.sql.driver():connect()
end
function event()
   local first, second = 1, 2
   if sysbench.tid == 1 then first, second = 2, 1 end
   con:query("BEGIN")
   con:query("UPDATE " .. T .. " SET v = v + 1 WHERE id = " .. first)
   ffi.C.usleep(200000)
   con:query("UPDATE " .. T .. " SET v = v + 1 WHERE id = " .. second)
   con:query("COMMIT")
end
"#;

#[test]
fn a_deadlock_is_an_ignored_error_as_in_sysbench() {
    let (Some(sb), Some(base)) = (original("sysbench"), server("mysql")) else {
        return;
    };
    let d = scratch("deadlock");
    std::fs::write(d.join("deadlock.lua"), DEADLOCK).expect("script");
    let ignored = |out: &str| -> u64 {
        out.lines()
            .find(|l| l.trim_start().starts_with("ignored errors:"))
            .and_then(|l| l.split_whitespace().nth(2))
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no ignored errors line in:\n{out}"))
    };
    for bin in [our_bin("rsysbench"), sb] {
        let p = run(&bin, &d, &args(&base, &["deadlock.lua", "prepare"]));
        assert_eq!(p.code, Some(0), "{}{}", p.out, p.err);
        let r = run(
            &bin,
            &d,
            &args(
                &base,
                &[
                    "deadlock.lua",
                    "--threads=2",
                    "--events=4",
                    "--time=0",
                    "run",
                ],
            ),
        );
        assert_eq!(r.code, Some(0), "{}: {}{}", bin.display(), r.out, r.err);
        assert!(
            ignored(&r.out) >= 1,
            "{}: no deadlock ignored:\n{}",
            bin.display(),
            r.out
        );
        assert!(r.out.contains("transactions:"), "{}", r.out);
        run(&bin, &d, &args(&base, &["deadlock.lua", "cleanup"]));
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn sigint_mid_oltp_run_prints_the_report_for_what_ran() {
    let Some(base) = server("pgsql") else { return };
    let d = scratch("sigint");
    let ours = our_bin("rsysbench");
    let tables = ["--tables=1", "--table-size=1000"];
    let prep = run(
        &ours,
        &d,
        &args(
            &base,
            &[&["oltp_read_only"][..], &tables, &["prepare"]].concat(),
        ),
    );
    assert_eq!(prep.code, Some(0), "{}{}", prep.out, prep.err);
    for format in ["text", "json"] {
        let a = args(
            &base,
            &[
                &["oltp_read_only"][..],
                &tables,
                &["--time=30", &format!("--output-format={format}"), "run"],
            ]
            .concat(),
        );
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        let child = spawn_piped(default_signals(&mut command_in(&ours, &d, &a)));
        await_handler(child.id(), "INT", LIMIT);
        std::thread::sleep(Duration::from_millis(1500));
        send_signal("INT", &child.id().to_string());
        let f: Finished = wait_output_bounded(child, LIMIT).into();
        assert_eq!(f.code, Some(130), "{format}: {}{}", f.out, f.err);
        if format == "json" {
            let v: serde_json::Value = serde_json::from_str(&f.out).expect("one JSON document");
            assert_eq!(v["status"], "interrupted");
            assert!(
                v["sql"]["transactions"].as_u64().unwrap_or(0) > 0,
                "{}",
                f.out
            );
        } else {
            assert!(f.out.contains("SQL statistics:"), "{}", f.out);
            assert!(f.out.contains("General statistics:"), "{}", f.out);
        }
    }
    run(
        &ours,
        &d,
        &args(
            &base,
            &[&["oltp_read_only"][..], &tables, &["cleanup"]].concat(),
        ),
    );
    let _ = std::fs::remove_dir_all(&d);
}

/// An error raised by the script mid-run (not an SQL error): sysbench's
/// message, no report, exit status as sysbench's, the connection closed.
#[test]
fn a_script_error_mid_run_is_reported_as_sysbench() {
    let (Some(sb), Some(base)) = (original("sysbench"), server("pgsql")) else {
        return;
    };
    let d = scratch("scripterror");
    std::fs::write(
        d.join("boom.lua"),
        "function thread_init() con = sysbench.sql.driver():connect() end\n\
         local n = 0\n\
         function event()\n  con:query('SELECT 1')\n  n = n + 1\n  if n == 50 then error('boom') end\nend\n",
    )
    .expect("script");
    let a = args(&base, &["boom.lua", "--time=0", "--events=1000", "run"]);
    let ours = run(&our_bin("rsysbench"), &d, &a);
    let theirs = run(&sb, &d, &a);
    assert_eq!(ours.code, theirs.code);
    assert_eq!(fatal_lines(&ours.out), fatal_lines(&theirs.out));
    assert_eq!(
        fatal_lines(&ours.out),
        vec!["FATAL: `thread_run' function failed: boom.lua:N: boom"]
    );
    assert!(!ours.out.contains("SQL statistics:"));
    let _ = std::fs::remove_dir_all(&d);
}
