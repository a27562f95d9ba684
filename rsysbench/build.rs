//! Scripts reach sysbench's C side through LuaJIT's `ffi.C`, which looks
//! symbols up in the running program: export the `sb_*` and `db_*`
//! functions (rsysbench/src/lua/ffi.rs, rsysbench/src/db/ffi.rs) from every
//! binary this package links, and nothing else.
fn main() {
    for pattern in ["sb_*", "db_*"] {
        println!("cargo:rustc-link-arg=-Wl,--export-dynamic-symbol={pattern}");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
