//! The database servers the SQL tests use: `tests/run` starts throwaway
//! PostgreSQL and MariaDB servers and exports how to reach them in
//! `RBENCH_PGSQL_ARGS` / `RBENCH_MYSQL_ARGS` (sysbench's own options).

/// `--db-driver=NAME` and the server's options for `driver` ("mysql" or
/// "pgsql"), or `None` after a note when no server is set up; under
/// RBENCH_REQUIRE_ORIGINALS=1 a missing server fails the test.
pub fn server_args(driver: &str) -> Option<Vec<String>> {
    let var = if driver == "mysql" {
        "RBENCH_MYSQL_ARGS"
    } else {
        "RBENCH_PGSQL_ARGS"
    };
    match std::env::var(var) {
        Ok(a) if !a.trim().is_empty() => Some(
            std::iter::once(format!("--db-driver={driver}"))
                .chain(a.split_whitespace().map(str::to_string))
                .collect(),
        ),
        _ => {
            assert!(
                std::env::var("RBENCH_REQUIRE_ORIGINALS").as_deref() != Ok("1"),
                "{var} is required (RBENCH_REQUIRE_ORIGINALS=1): eval \"$(tests/db/servers.sh env DIR)\""
            );
            eprintln!("note: {var} not set (eval \"$(tests/db/servers.sh env DIR)\"); skipping");
            None
        }
    }
}
