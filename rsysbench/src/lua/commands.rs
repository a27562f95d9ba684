//! What rsysbench does with a Lua script after the header (sysbench
//! 1.0.20's main for a script): load it, take the options it declares,
//! then run the command: one the script declares in
//! `sysbench.cmdline.commands` (in parallel over --threads when marked so),
//! `help`, `prepare`/`cleanup` as global functions, or `run`.

use std::io::{IsTerminal, Read};
use std::sync::Arc;

use mlua::{Function, Lua, Value};

use super::state::{self, Loaded, Script};
use super::test::{call_failed, LuaTest};
use crate::args::{self, CommandLine};
use crate::error::{Fail, Result};
use crate::log::{Level, Log};
use crate::options::{self, OptDef};
use crate::rng::{RandSpec, RandType};
use crate::settings::Settings;

/// The --rand-* options as the generators want them.
fn rand_spec(cl: &CommandLine) -> RandSpec {
    let v = &cl.values;
    let kind = match v.string("rand-type").as_deref() {
        Some("uniform") => RandType::Uniform,
        Some("gaussian") => RandType::Gaussian,
        Some("pareto") => RandType::Pareto,
        _ => RandType::Special,
    };
    let int = |n: &str| v.int(n).ok().and_then(|x| u32::try_from(x).ok());
    RandSpec::new(
        kind,
        int("rand-spec-iter").unwrap_or(12).max(1),
        int("rand-spec-pct").unwrap_or(1),
        int("rand-spec-res").unwrap_or(75).min(99),
        v.double("rand-pareto-h").unwrap_or(0.2),
    )
}

/// Load the main state; `Err` is the exit (the message is printed).
fn main_state(script: &Script, log: &Log) -> Result<Lua> {
    match state::new_state(script, 0) {
        Loaded::Ok(l) => Ok(l),
        Loaded::NotFound => Err(Fail::fatal(format!(
            "Cannot find benchmark '{}': no such built-in test, file or module",
            script.testname.as_deref().unwrap_or("")
        ))),
        Loaded::Failed(e) => {
            log.msg(Level::Fatal, &e);
            Err(Fail::silent(1))
        }
    }
}

/// sysbench.cmdline.read_cmdline_options() in the main state.
fn read_declared_options(lua: &Lua, log: &Log) -> Result<()> {
    match state::call_cmdline(lua, "read_cmdline_options", ()) {
        Ok(v) if truthy(&v) => Ok(()),
        Ok(_) => Err(Fail::silent(1)),
        Err(e) => {
            log.msg(
                Level::Fatal,
                &call_failed("sysbench.cmdline.read_cmdline_options", &e),
            );
            Err(Fail::silent(1))
        }
    }
}

fn truthy(v: &Value) -> bool {
    !matches!(v, Value::Nil | Value::Boolean(false))
}

/// The second pass over the command line: the script's declared options,
/// or, for a script that declares none, every leftover taken as a string.
fn take_script_options(
    lua: &Lua,
    cl: &mut CommandLine,
    declared: Option<&'static [OptDef]>,
) -> Result<Vec<(String, String)>> {
    if let Some(table) = declared {
        args::take_validated_options(cl, table, &mut |name, value| {
            validate_option(lua, name, value)
        })?;
        return Ok(Vec::new());
    }
    let mut extra = Vec::new();
    for arg in &cl.leftovers {
        let body = arg.strip_prefix("--").unwrap_or(arg);
        let (n, v) = body.split_once('=').unwrap_or((body, ""));
        extra.push((n.to_string(), v.to_string()));
    }
    Ok(extra)
}

/// Ask the script's validator (the prelude keeps the one sysbench calls:
/// the 4th field of the first option by name, for every option) whether
/// to accept `--name[=value]`. A Lua error in it ends the run as an error
/// outside any protected call ends sysbench's.
fn validate_option(lua: &Lua, name: &str, value: Option<&str>) -> Result<bool> {
    let f: Function = lua
        .named_registry_value(VALIDATE_KEY)
        .map_err(|e| Fail::stderr(format!("PANIC: unprotected error in call to Lua API ({e})")))?;
    match state::call_protected(lua, f, (name, value)) {
        Ok(v) => Ok(truthy(&v)),
        Err(e) => Err(Fail::stderr(format!(
            "PANIC: unprotected error in call to Lua API ({e})"
        ))),
    }
}

/// Where the prelude's cmdline.lua leaves the option validator.
const VALIDATE_KEY: &str = "rsysbench.validate";

/// Run the script named `testname` (or read from standard input).
pub fn run_script(
    testname: Option<&str>,
    cl: &mut CommandLine,
    s: &Settings,
    log: &Log,
) -> Result<i32> {
    let seed = crate::rng::run_seed(s.rand_seed);
    super::ffi::configure_rand(rand_spec(cl), seed);
    super::ffi::configure_histogram(s.percentile > 0);
    crate::db::configure(&cl.values)?;
    super::context::seed_rng(seed, s.threads as usize);
    let argv: Vec<String> = std::env::args().collect();
    let script = match testname {
        Some(name) => Script::named(name, argv, cl.command.clone()),
        None => {
            if std::io::stdin().is_terminal() {
                log.notice("Reading the script from the standard input:\n");
            }
            let mut src = String::new();
            let _ = std::io::stdin().read_to_string(&mut src);
            let script = Script::from_stdin(src, argv);
            let lua = main_state(&script, log)?;
            read_declared_options(&lua, log)?;
            return Ok(0);
        }
    };
    let gstate = main_state(&script, log)?;
    read_declared_options(&gstate, log)?;
    let Some(command) = cl.command.clone() else {
        return Ok(0);
    };
    let declared = super::ffi::test_args();
    let extra = take_script_options(&gstate, cl, declared)?;
    let mut tables: Vec<&[OptDef]> = options::FIRST_PASS.to_vec();
    if let Some(t) = declared {
        tables.push(t);
    }
    let test = LuaTest {
        script: Arc::new(script),
        options: Arc::new(super::options::collect(&cl.values, &tables, &extra)?),
        legacy_globals: declared.is_none(),
        worker_rngs: std::sync::OnceLock::new(),
    };
    dispatch(&command, &test, &gstate, s, log)
}

fn dispatch(command: &str, test: &LuaTest, gstate: &Lua, s: &Settings, log: &Log) -> Result<i32> {
    let sname = test.script.sname.as_str();
    let declared_command = state::call_cmdline(gstate, "command_defined", command)
        .map(|v| truthy(&v))
        .unwrap_or(false);
    if declared_command {
        return custom_command(command, test, gstate, s, log);
    }
    match command {
        "help" if state::has_function(gstate, "help") => execute_command(test, gstate, "help", log),
        "help" => match super::ffi::test_args() {
            Some(defs) => {
                crate::app::out(&format!(
                    "{sname} options:\n{}\n",
                    options::render_table(defs)
                ));
                Ok(0)
            }
            None => Err(Fail::stderr(format!(
                "'{sname}' test does not implement the 'help' command."
            ))),
        },
        "prepare" | "cleanup" if state::has_function(gstate, command) => {
            execute_command(test, gstate, command, log)
        }
        "prepare" | "cleanup" => Err(Fail::stderr(format!(
            "'{sname}' test does not implement the '{command}' command."
        ))),
        "run" => super::run::run(test, gstate, s, log),
        _ => Err(Fail::stderr(format!("Unknown command: {command}"))),
    }
}

/// A global function as a command (prepare, cleanup, help) in the main
/// state; its return value does not matter, an error does.
fn execute_command(test: &LuaTest, gstate: &Lua, name: &str, log: &Log) -> Result<i32> {
    export(test, gstate, log)?;
    match state::call_global(gstate, name, ()) {
        Ok(_) => Ok(0),
        Err(e) => {
            log.msg(Level::Fatal, &call_failed(name, &e));
            Ok(1)
        }
    }
}

fn export(test: &LuaTest, lua: &Lua, log: &Log) -> Result<()> {
    state::export_options(lua, &test.options, test.legacy_globals).map_err(|e| {
        log.msg(Level::Fatal, &super::error_text(&e));
        Fail::silent(1)
    })
}

/// Call a declared command in `lua`: 0 when it succeeded.
fn call_command(lua: &Lua, name: &str, log: &Log) -> i32 {
    match state::call_cmdline(lua, "call_command", name) {
        Ok(v) if truthy(&v) => 0,
        Ok(_) => 1,
        Err(e) => {
            log.msg(
                Level::Fatal,
                &call_failed("sysbench.cmdline.call_command", &e),
            );
            1
        }
    }
}

/// A command from sysbench.cmdline.commands. A parallel one runs on
/// --threads threads, each in its own state with its own sysbench.tid; as
/// in sysbench 1.0.20 its exit status is then that of the threads' join,
/// not of the command.
fn custom_command(
    name: &str,
    test: &LuaTest,
    gstate: &Lua,
    s: &Settings,
    log: &Log,
) -> Result<i32> {
    let parallel = state::call_cmdline(gstate, "command_parallel", name)
        .map(|v| truthy(&v))
        .unwrap_or(false);
    if !parallel || s.threads <= 1 {
        export(test, gstate, log)?;
        return Ok(call_command(gstate, name, log));
    }
    log.notice("Initializing worker threads...\n");
    let seed = crate::rng::run_seed(s.rand_seed);
    std::thread::scope(|scope| {
        for tid in 0..s.threads as usize {
            let builder = std::thread::Builder::new().stack_size(s.stack_size.max(1 << 20));
            let spawned = builder.spawn_scoped(scope, move || {
                super::context::set_thread_id(tid as i32);
                super::context::seed_rng(seed, tid);
                match test.state_for(tid as i32) {
                    Some(lua) => {
                        call_command(&lua, name, log);
                    }
                    None => log.msg(Level::Fatal, "failed to create a thread to execute command"),
                }
            });
            if spawned.is_err() {
                log.msg(Level::Fatal, "failed to create a thread to execute command");
            }
        }
    });
    Ok(0)
}
