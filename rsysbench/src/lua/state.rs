//! One Lua state as sysbench 1.0.20 makes it (sb_lua_new_state): LuaJIT
//! with every library (ffi included), sysbench's `package.path` (with
//! `LUA_PATH` and `;;` honoured) and our bundled workloads behind it, the
//! `sysbench` table, the prelude (our own Lua in `prelude/`), then the
//! script itself. Each worker thread gets its own state, as in sysbench.

use mlua::{Function, Lua, MultiValue, Table, Value};

use super::options::OptValue;

/// The script as the user named it.
#[derive(Debug, Clone)]
pub struct Script {
    /// What was typed (sysbench's `lname`); `None` for standard input.
    pub testname: Option<String>,
    /// Its base name (sysbench's `sname`), `<stdin>` for standard input.
    pub sname: String,
    /// The source read from standard input (read once, loaded per state).
    pub stdin_source: Option<String>,
    /// sysbench.cmdline.argv and sysbench.cmdline.command.
    pub argv: Vec<String>,
    pub command: Option<String>,
}

impl Script {
    pub fn named(testname: &str, argv: Vec<String>, command: Option<String>) -> Script {
        let sname = std::path::Path::new(testname).file_name().map_or_else(
            || testname.to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        Script {
            testname: Some(testname.to_string()),
            sname,
            stdin_source: None,
            argv,
            command,
        }
    }

    pub fn from_stdin(source: String, argv: Vec<String>) -> Script {
        Script {
            testname: None,
            sname: "<stdin>".into(),
            stdin_source: Some(source),
            argv,
            command: None,
        }
    }
}

/// The prelude, in sysbench's load order.
const PRELUDE: &[(&str, &str)] = &[
    ("sysbench.lua", include_str!("prelude/sysbench.lua")),
    ("sysbench.rand.lua", include_str!("prelude/rand.lua")),
    ("sysbench.cmdline.lua", include_str!("prelude/cmdline.lua")),
    ("sysbench.sql.lua", include_str!("prelude/sql.lua")),
    (
        "sysbench.histogram.lua",
        include_str!("prelude/histogram.lua"),
    ),
    ("sysbench.compat.lua", include_str!("prelude/compat.lua")),
];

/// Why a state could not be made; the text is what sysbench prints after
/// `FATAL: `.
pub type StateError = String;

fn lua_err(e: mlua::Error) -> StateError {
    super::error_text(&e)
}

/// sysbench's package.path: its defaults, then `LUA_PATH` in their place
/// (`;;` standing for them), as plain Lua does.
fn package_path() -> String {
    let mut def = String::from("./?.lua;./?/init.lua;./src/lua/?.lua;");
    if let Ok(home) = std::env::var("HOME") {
        for p in [
            "/.luarocks/share/lua/5.1/?.lua;",
            "/.luarocks/share/lua/5.1/?/init.lua;",
            "/.luarocks/share/lua/?.lua;",
            "/.luarocks/share/lua/?/init.lua;",
        ] {
            def.push_str(&home);
            def.push_str(p);
        }
    }
    // sysbench's data directory came last: the bundled loader stands there.
    def.push_str("/usr/local/share/lua/5.1/?.lua;/usr/share/lua/5.1/?.lua;");
    with_env_path(def, "LUA_PATH")
}

fn package_cpath() -> String {
    let mut def = String::from("./?.so;");
    if let Ok(home) = std::env::var("HOME") {
        def.push_str(&format!(
            "{home}/.luarocks/lib/lua/5.1/?.so;{home}/.luarocks/lib/lua/?.so;"
        ));
    }
    def.push_str("/usr/local/lib/lua/5.1/?.so;/usr/lib/lua/5.1/?.so;");
    with_env_path(def, "LUA_CPATH")
}

fn with_env_path(def: String, var: &str) -> String {
    match std::env::var(var) {
        Ok(p) => p.replace(";;", &format!(";{def};")),
        Err(_) => def,
    }
}

/// The `sysbench` table every state starts with.
fn sysbench_table(lua: &Lua, script: &Script, tid: i32) -> mlua::Result<Table> {
    let sb = lua.create_table()?;
    sb.set("tid", tid)?;
    let error = lua.create_table()?;
    error.set("NONE", 0)?;
    error.set("RESTART_EVENT", 1)?;
    sb.set("error", error)?;
    sb.set("version", "1.0.20")?;
    sb.set("version_string", "sysbench 1.0.20")?;
    let cmdline = lua.create_table()?;
    let argv = lua.create_table()?;
    for (i, a) in script.argv.iter().enumerate() {
        argv.raw_set(i as i64, a.as_str())?;
    }
    cmdline.set("argv", argv)?;
    if let Some(c) = &script.command {
        cmdline.set("command", c.as_str())?;
    }
    if let Some(t) = &script.testname {
        cmdline.set("script_path", t.as_str())?;
    }
    sb.set("cmdline", cmdline)?;
    Ok(sb)
}

/// A loader (in `package.loaders`, after Lua's own) for our bundled
/// workloads: `require "oltp_common"` finds ours when no file of that name
/// is on the path, as sysbench finds its own in its data directory.
fn add_bundled_loader(lua: &Lua) -> mlua::Result<()> {
    let loader = lua.create_function(|lua, name: String| -> mlua::Result<Value> {
        match crate::workloads::module(&name) {
            Some(src) => {
                let f = lua
                    .load(src)
                    .set_name(format!("@{name}.lua"))
                    .into_function()?;
                Ok(Value::Function(f))
            }
            None => Ok(Value::String(
                lua.create_string(format!("\n\tno bundled workload '{name}'"))?,
            )),
        }
    })?;
    let package: Table = lua.globals().get("package")?;
    let loaders: Table = package.get("loaders")?;
    loaders.raw_set(loaders.raw_len() + 1, loader)?;
    package.set("path", package_path())?;
    package.set("cpath", package_cpath())?;
    Ok(())
}

/// What loading the script came to.
pub enum Loaded {
    Ok(Lua),
    /// sysbench's `Cannot find benchmark` case.
    NotFound,
    Failed(StateError),
}

/// Make a state for thread `tid` and run the prelude and the script in it.
pub fn new_state(script: &Script, tid: i32) -> Loaded {
    // SAFETY: scripts get LuaJIT's ffi and debug libraries, as in sysbench;
    // what a script does with them is the script's business.
    let lua = unsafe { Lua::unsafe_new() };
    let setup = (|| -> mlua::Result<()> {
        add_bundled_loader(&lua)?;
        lua.globals()
            .set("sysbench", sysbench_table(&lua, script, tid)?)?;
        for (name, src) in PRELUDE {
            lua.load(*src).set_name(*name).exec()?;
        }
        Ok(())
    })();
    if let Err(e) = setup {
        return Loaded::Failed(format!("failed to load internal module: {}", lua_err(e)));
    }
    match load_script(&lua, script) {
        Ok(()) => Loaded::Ok(lua),
        Err(None) => Loaded::NotFound,
        Err(Some(e)) => Loaded::Failed(e),
    }
}

/// luaL_loadfile, then `require` of the name when there is no such file.
fn load_script(lua: &Lua, script: &Script) -> Result<(), Option<StateError>> {
    let Some(name) = &script.testname else {
        let src = script.stdin_source.as_deref().unwrap_or("");
        return lua
            .load(src)
            .set_name("=stdin")
            .exec()
            .map_err(|e| Some(lua_err(e)));
    };
    match std::fs::read(name) {
        Ok(src) => lua
            .load(&src[..])
            .set_name(format!("@{name}"))
            .exec()
            .map_err(|e| Some(lua_err(e))),
        Err(_) => {
            let require: Function = lua.globals().get("require").map_err(|e| Some(lua_err(e)))?;
            let pcall: Function = lua.globals().get("pcall").map_err(|e| Some(lua_err(e)))?;
            let (ok, msg): (bool, Value) = pcall
                .call((require, name.as_str()))
                .map_err(|e| Some(lua_err(e)))?;
            if ok {
                return Ok(());
            }
            let text = value_text(&msg);
            if text.starts_with("module ") {
                return Err(None);
            }
            Err(Some(text))
        }
    }
}

/// A Lua error value as sysbench prints it (`lua_tostring`, or the
/// placeholder for values that are not strings).
pub fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.to_string_lossy(),
        Value::Integer(i) => i.to_string(),
        Value::Number(n) => mlua::Value::Number(*n).to_string().unwrap_or_default(),
        _ => "(not a string)".into(),
    }
}

/// Set `sysbench.opt` (and, for scripts that declare no options, the old
/// global variables) from the option values (sysbench's export_options).
pub fn export_options(
    lua: &Lua,
    values: &[(String, OptValue)],
    legacy_globals: bool,
) -> mlua::Result<()> {
    let opt = lua.create_table()?;
    for (name, v) in values {
        opt.set(name.as_str(), v.to_lua(lua)?)?;
    }
    let sb: Table = lua.globals().get("sysbench")?;
    sb.set("opt", opt)?;
    if legacy_globals {
        let g = lua.globals();
        for (name, v) in values {
            if matches!(g.get::<Value>(name.as_str())?, Value::Function(_)) {
                continue;
            }
            g.set(name.as_str(), v.to_lua(lua)?)?;
        }
    }
    Ok(())
}

/// Whether the global `name` is a function.
pub fn has_function(lua: &Lua, name: &str) -> bool {
    matches!(lua.globals().get::<Value>(name), Ok(Value::Function(_)))
}

/// Call global `name` (if defined) through `rsysbench_call` so an error
/// comes back as its bare text; `Ok(values)` on success.
pub fn call_global(
    lua: &Lua,
    name: &str,
    args: impl mlua::IntoLuaMulti,
) -> Result<MultiValue, String> {
    let caller: Function = lua.globals().get("rsysbench_call").map_err(lua_err)?;
    let mut args = args.into_lua_multi(lua).map_err(lua_err)?;
    args.push_front(Value::String(lua.create_string(name).map_err(lua_err)?));
    let mut ret: MultiValue = caller.call(args).map_err(lua_err)?;
    let ok = matches!(ret.pop_front(), Some(Value::Boolean(true)));
    if ok {
        Ok(ret)
    } else {
        Err(ret
            .front()
            .map_or_else(|| "(not a string)".into(), value_text))
    }
}

/// Call a function in `sysbench.cmdline` (with pcall semantics).
pub fn call_cmdline(lua: &Lua, name: &str, args: impl mlua::IntoLuaMulti) -> Result<Value, String> {
    let f = (|| -> mlua::Result<Function> {
        let sb: Table = lua.globals().get("sysbench")?;
        let cmdline: Table = sb.get("cmdline")?;
        cmdline.get(name)
    })()
    .map_err(lua_err)?;
    call_protected(lua, f, args)
}

/// Call `f` through the script's `pcall` (so an error is the value Lua
/// raised, as text, with no traceback added).
pub fn call_protected(
    lua: &Lua,
    f: Function,
    args: impl mlua::IntoLuaMulti,
) -> Result<Value, String> {
    let pcall: Function = lua.globals().get("pcall").map_err(lua_err)?;
    let mut a = args.into_lua_multi(lua).map_err(lua_err)?;
    a.push_front(Value::Function(f));
    let mut ret: MultiValue = pcall.call(a).map_err(lua_err)?;
    let ok = matches!(ret.pop_front(), Some(Value::Boolean(true)));
    let first = ret.pop_front().unwrap_or(Value::Nil);
    if ok {
        Ok(first)
    } else {
        Err(value_text(&first))
    }
}
