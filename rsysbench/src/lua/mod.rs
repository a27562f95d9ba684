//! The Lua runtime: sysbench 1.0.20's scripting API on LuaJIT (mlua).
//!
//! - `state.rs`: one Lua state as sysbench makes it (paths, `sysbench`
//!   table, the prelude, the script);
//! - `prelude/*.lua`: our own Lua side of the API (event loop, hooks,
//!   reports, rand, cmdline, sql, histogram, the 1.0 compat globals);
//! - `ffi.rs`: the `sb_*` C functions scripts reach through `ffi.C`;
//! - `context.rs`: what a worker thread's C calls need (its id, its
//!   counters, its event loop, its generator);
//! - `options.rs`: option values as `sysbench.opt` holds them;
//! - `commands.rs`: help/prepare/cleanup/custom commands; `run.rs`: the
//!   `run` command through the shared runner, with the report hooks;
//!   `test.rs`: a script behind the runner's `Test` trait.

pub mod commands;
pub mod context;
pub mod ffi;
pub mod options;
pub mod run;
pub mod state;
pub mod test;

/// An mlua error as sysbench prints a Lua error: the message only (no
/// traceback, no wrapping).
pub fn error_text(e: &mlua::Error) -> String {
    let text = match e {
        mlua::Error::SyntaxError { message, .. } => message.clone(),
        mlua::Error::RuntimeError(m) => m.clone(),
        mlua::Error::CallbackError { cause, .. } => return error_text(cause),
        other => other.to_string(),
    };
    match text.find("\nstack traceback:") {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}

extern "C" {
    static mut stdout: *mut libc::FILE;
}

/// sysbench makes stdout unbuffered: Lua's print and io.write (C stdio)
/// then interleave with our own output in order.
pub fn unbuffer_c_stdout() {
    // SAFETY: glibc's stdout stream, before any other thread writes to it.
    unsafe {
        libc::setvbuf(stdout, std::ptr::null_mut(), libc::_IONBF, 0);
    }
}
