//! Our bundled workload scripts: one for each Lua workload sysbench 1.0.20
//! installs (`oltp_read_write`, ..., `bulk_insert`), plus the module the
//! OLTP ones `require` (`oltp_common`). They are our own Lua, written
//! against the public sysbench 1.0.20 API only, so the same files run
//! under the real sysbench and under rsysbench; the options, their help,
//! the printed messages and the SQL sent to the server are sysbench's.
//!
//! sysbench finds these by bare name (`sysbench oltp_read_write run`) in
//! its data directory, and `require("oltp_common")` finds the module on
//! the same path; [`find`] and [`module`] are what stand in for that path.

/// The workloads, by the name a user types.
pub const NAMES: &[&str] = &[
    "bulk_insert",
    "oltp_delete",
    "oltp_insert",
    "oltp_point_select",
    "oltp_read_only",
    "oltp_read_write",
    "oltp_update_index",
    "oltp_update_non_index",
    "oltp_write_only",
    "select_random_points",
    "select_random_ranges",
];

/// The shared module of the OLTP workloads, by the name they `require`.
#[allow(dead_code)] // (the runtime finds everything through `module`)
pub const MODULES: &[&str] = &["oltp_common"];

/// Every bundled file: the workloads, then the module.
const FILES: &[(&str, &str)] = &[
    ("bulk_insert", include_str!("bulk_insert.lua")),
    ("oltp_delete", include_str!("oltp_delete.lua")),
    ("oltp_insert", include_str!("oltp_insert.lua")),
    ("oltp_point_select", include_str!("oltp_point_select.lua")),
    ("oltp_read_only", include_str!("oltp_read_only.lua")),
    ("oltp_read_write", include_str!("oltp_read_write.lua")),
    ("oltp_update_index", include_str!("oltp_update_index.lua")),
    (
        "oltp_update_non_index",
        include_str!("oltp_update_non_index.lua"),
    ),
    ("oltp_write_only", include_str!("oltp_write_only.lua")),
    (
        "select_random_points",
        include_str!("select_random_points.lua"),
    ),
    (
        "select_random_ranges",
        include_str!("select_random_ranges.lua"),
    ),
    ("oltp_common", include_str!("oltp_common.lua")),
];

fn source(bare: &str) -> Option<&'static str> {
    FILES.iter().find(|(n, _)| *n == bare).map(|(_, s)| *s)
}

/// The source of the bundled script a user names on the command line:
/// `oltp_read_write` or `oltp_read_write.lua`. As with sysbench, whose data
/// directory holds the module too, `oltp_common` names the module (which
/// then refuses to `run` on its own, and prints its options on `help`).
/// (sysbench itself takes no `.lua` suffix on a bare name: it reports
/// `Cannot find benchmark 'oltp_read_write.lua'` when no such file exists.)
#[allow(dead_code)] // (the runtime finds everything through `module`)
pub fn find(name: &str) -> Option<&'static str> {
    source(name.strip_suffix(".lua").unwrap_or(name))
}

/// The source `require(name)` loads when no file on the Lua path matches:
/// `oltp_common`, or one of the workloads (all of them sit on sysbench's
/// own `package.path`, so a script may require any of them).
pub fn module(name: &str) -> Option<&'static str> {
    source(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Global functions each script must define, as `function NAME(` or
    /// `NAME = ...`.
    fn defines(src: &str, name: &str) -> bool {
        src.contains(&format!("function {name}("))
            || src
                .lines()
                .any(|l| l.trim_start().starts_with(&format!("{name} = ")))
    }

    #[test]
    fn every_name_resolves_bare_and_with_lua_suffix() {
        assert_eq!(NAMES.len(), 11);
        for name in NAMES {
            let src = find(name).unwrap_or_else(|| panic!("{name} not bundled"));
            assert_eq!(find(&format!("{name}.lua")), Some(src), "{name}.lua");
            assert_eq!(module(name), Some(src), "require {name}");
        }
        for name in MODULES {
            assert!(module(name).is_some(), "{name}");
            assert!(find(name).is_some(), "{name}");
        }
        assert!(std::ptr::eq(
            module("oltp_common").unwrap(),
            find("oltp_common.lua").unwrap()
        ));
        for bad in [
            "",
            "oltp",
            "oltp_read_write.lua.lua",
            "OLTP_READ_WRITE",
            "./oltp_read_write",
            "sysbench",
        ] {
            assert_eq!(find(bad), None, "{bad:?}");
        }
        assert_eq!(module("oltp_common.lua"), None);
        assert_eq!(FILES.len(), NAMES.len() + MODULES.len());
    }

    #[test]
    fn oltp_workloads_require_the_module_and_define_their_callbacks() {
        for name in NAMES.iter().filter(|n| !n.starts_with("bulk")) {
            let src = find(name).unwrap();
            assert!(src.contains("require(\"oltp_common\")"), "{name}");
            assert!(defines(src, "event"), "{name}: event");
            if name.starts_with("select_random") {
                for f in ["thread_init", "thread_done", "cleanup"] {
                    assert!(defines(src, f), "{name}: {f}");
                }
            } else {
                assert!(
                    defines(src, "prepare_statements"),
                    "{name}: prepare_statements"
                );
            }
        }
        let insert = find("oltp_insert").unwrap();
        assert!(insert.contains("sysbench.cmdline.commands.prepare"));
        let points = find("select_random_points").unwrap();
        assert!(points.contains("sysbench.cmdline.options.random_points"));
        let ranges = find("select_random_ranges").unwrap();
        assert!(ranges.contains("sysbench.cmdline.options.number_of_ranges"));
        assert!(ranges.contains("sysbench.cmdline.options.delta"));
    }

    #[test]
    fn bulk_insert_defines_its_commands_and_callbacks() {
        let src = find("bulk_insert").unwrap();
        assert!(!src.contains("require("));
        for f in ["prepare", "cleanup", "thread_init", "event", "thread_done"] {
            assert!(defines(src, f), "bulk_insert: {f}");
        }
    }

    #[test]
    fn the_module_defines_the_api_scripts_written_for_sysbench_use() {
        let src = module("oltp_common").unwrap();
        for f in [
            "init",
            "cmd_prepare",
            "cmd_prewarm",
            "cleanup",
            "create_table",
            "get_c_value",
            "get_pad_value",
            "thread_init",
            "thread_done",
            "close_statements",
            "prepare_begin",
            "prepare_commit",
            "prepare_for_each_table",
            "prepare_point_selects",
            "prepare_simple_ranges",
            "prepare_sum_ranges",
            "prepare_order_ranges",
            "prepare_distinct_ranges",
            "prepare_index_updates",
            "prepare_non_index_updates",
            "prepare_delete_inserts",
            "begin",
            "commit",
            "execute_point_selects",
            "execute_simple_ranges",
            "execute_sum_ranges",
            "execute_order_ranges",
            "execute_distinct_ranges",
            "execute_index_updates",
            "execute_non_index_updates",
            "execute_delete_inserts",
            "sysbench.hooks.before_restart_event",
        ] {
            assert!(defines(src, f), "oltp_common: {f}");
        }
        assert!(src.contains("sysbench.cmdline.options = {"));
        assert!(src.contains("sysbench.cmdline.commands = {"));
        for opt in [
            "tables",
            "table_size",
            "range_size",
            "point_selects",
            "simple_ranges",
            "sum_ranges",
            "order_ranges",
            "distinct_ranges",
            "index_updates",
            "non_index_updates",
            "delete_inserts",
            "range_selects",
            "auto_inc",
            "skip_trx",
            "secondary",
            "create_secondary",
            "mysql_storage_engine",
            "pgsql_variant",
        ] {
            assert!(src.contains(&format!("\n   {opt} =")), "option {opt}");
        }
    }

    #[test]
    fn every_file_is_our_own_mit_lua() {
        for (name, src) in FILES {
            assert!(
                src.contains("rbench") && src.contains("MIT"),
                "{name}: header"
            );
            for gpl in ["General Public License", "Copyright (C)", "Kopytov"] {
                assert!(!src.contains(gpl), "{name}: {gpl}");
            }
        }
    }

    #[test]
    fn every_file_compiles_as_lua() {
        let lua = mlua::Lua::new();
        for (name, src) in FILES {
            // No #! line: luaL_loadfile skips one, but load() of a string
            // (how an embedded script is run) does not.
            assert!(!src.starts_with('#'), "{name}");
            if let Err(e) = lua.load(*src).set_name(*name).into_function() {
                panic!("{name}: {e}");
            }
        }
    }
}
