//! The Lua runtime: sysbench 1.0.20's scripting API on LuaJIT.

pub mod context;
