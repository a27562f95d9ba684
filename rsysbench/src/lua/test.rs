//! A Lua script as a benchmark behind the runner's [`Test`] trait: each
//! worker thread makes its own state, runs `thread_init`, then the
//! script's `thread_run` (the prelude's event loop unless the script has
//! its own), then `thread_done` (sysbench's lua_ops).

use std::sync::Arc;

use mlua::Lua;

use super::options::OptValue;
use super::state::{self, Loaded, Script};
use crate::builtin::{ModeLine, Test, Worker};
use crate::log::{self, Level};
use crate::result::TestKind;
use crate::stats::Slot;

pub struct LuaTest {
    pub script: Arc<Script>,
    pub options: Arc<Vec<(String, OptValue)>>,
    pub legacy_globals: bool,
    /// Each worker's generator, drawn as sysbench draws them at the start
    /// of `run` (see [`crate::rng::GlibcRandom`]); set by the run.
    pub worker_rngs: std::sync::OnceLock<Vec<crate::rng::Rng>>,
}

pub struct LuaWorker {
    lua: Lua,
    tid: i32,
}

/// sysbench's message for a global function that raised an error.
pub fn call_failed(name: &str, err: &str) -> String {
    format!("`{name}' function failed: {err}")
}

impl LuaTest {
    /// A state for thread `tid` with the options exported; the error is
    /// logged (FATAL) when it cannot be made.
    pub fn state_for(&self, tid: i32) -> Option<Lua> {
        let lua = match state::new_state(&self.script, tid) {
            Loaded::Ok(l) => l,
            Loaded::NotFound => {
                log::global().msg(
                    Level::Fatal,
                    &format!(
                        "Cannot find benchmark '{}': no such built-in test, file or module",
                        self.script.testname.as_deref().unwrap_or("")
                    ),
                );
                return None;
            }
            Loaded::Failed(e) => {
                log::global().msg(Level::Fatal, &e);
                return None;
            }
        };
        if let Err(e) = state::export_options(&lua, &self.options, self.legacy_globals) {
            log::global().msg(Level::Fatal, &super::error_text(&e));
            return None;
        }
        Some(lua)
    }
}

impl Test for LuaTest {
    type Worker<'a> = LuaWorker;

    fn worker(&self, thread: usize, seed: u64) -> Option<LuaWorker> {
        match self.worker_rngs.get().and_then(|r| r.get(thread)) {
            Some(rng) => super::context::set_rng(rng.clone()),
            None => super::context::seed_rng(seed, thread),
        }
        let tid = thread as i32;
        let lua = self.state_for(tid)?;
        if state::has_function(&lua, "thread_init") {
            if let Err(e) = state::call_global(&lua, "thread_init", tid) {
                log::global().msg(Level::Fatal, &call_failed("thread_init", &e));
                return None;
            }
        }
        Some(LuaWorker { lua, tid })
    }

    fn mode_lines(&self) -> Vec<ModeLine> {
        Vec::new()
    }

    fn kind(&self) -> TestKind {
        TestKind::Sql
    }

    fn min_stack_size(&self) -> usize {
        4 << 20
    }
}

impl Worker for LuaWorker {
    type Req = ();

    fn next(&mut self) -> Option<()> {
        None
    }

    fn execute(&mut self, _req: (), _slot: &Slot, _log: &crate::log::Log) -> Result<(), String> {
        Ok(())
    }

    fn drive(&mut self, _lp: &dyn super::context::EventLoop) -> Option<Result<(), String>> {
        Some(
            state::call_global(&self.lua, "thread_run", self.tid)
                .map(|_| ())
                .map_err(|e| call_failed("thread_run", &e)),
        )
    }

    fn finish(&mut self, _slot: &Slot) {
        if state::has_function(&self.lua, "thread_done") {
            if let Err(e) = state::call_global(&self.lua, "thread_done", self.tid) {
                log::global().msg(Level::Fatal, &call_failed("thread_done", &e));
            }
        }
    }
}
