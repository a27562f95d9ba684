//! The C functions sysbench 1.0.20 exports to its Lua side, with the same
//! names and signatures, so `ffi.C.<name>` works in scripts as there:
//! the event loop (`sb_more_events`, `sb_event_start`, `sb_event_stop`),
//! `sb_counter_inc`, the generators (`sb_rand_*`), script histograms
//! (`sb_histogram_*`) and the option calls of `sysbench.cmdline`.
//! build.rs exports every `sb_*` symbol from the binary. Nothing here
//! unwinds: a null pointer or bad value from a script is answered, never
//! trusted.

use std::ffi::{c_char, c_double, c_int, CStr};
use std::sync::{Mutex, OnceLock};

use rbench_common::histogram::SysbenchHistogram;

use super::context::{self, SbCounter};
use crate::options::{Kind, OptDef};
use crate::rng::{RandSpec, UniqueSequence};

static RAND_SPEC: OnceLock<RandSpec> = OnceLock::new();
/// Whether the latency histogram is kept (--percentile > 0): sysbench's
/// histogram update draws one number from the thread's generator (to pick
/// a slot), so an event then costs one draw, as there.
static HISTOGRAM_DRAWS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

/// Whether each event's latency goes into the histogram (--percentile > 0).
pub fn configure_histogram(on: bool) {
    HISTOGRAM_DRAWS.store(on, std::sync::atomic::Ordering::Relaxed);
}
static UNIQUE: OnceLock<UniqueSequence> = OnceLock::new();

/// Set the --rand-* parameters and the unique sequence's seed (once, before
/// any script runs).
pub fn configure_rand(spec: RandSpec, seed: u64) {
    let _ = RAND_SPEC.set(spec);
    let _ = UNIQUE.set(UniqueSequence::new(
        seed as u32,
        (seed >> 32) as u32 ^ 0x9e37_79b9,
    ));
}

fn spec() -> &'static RandSpec {
    RAND_SPEC.get_or_init(RandSpec::default)
}

// ---------------------------------------------------------------- events

#[no_mangle]
pub extern "C" fn sb_more_events(_thread_id: c_int) -> bool {
    context::event_loop(|lp| lp.more_events()).unwrap_or(false)
}

#[no_mangle]
pub extern "C" fn sb_event_start(_thread_id: c_int) {
    context::event_loop(|lp| lp.event_start());
}

#[no_mangle]
pub extern "C" fn sb_event_stop(_thread_id: c_int) {
    context::event_loop(|lp| lp.event_stop());
    if HISTOGRAM_DRAWS.load(std::sync::atomic::Ordering::Relaxed) {
        context::with_rng(|r| r.next_u64());
    }
}

#[no_mangle]
pub extern "C" fn sb_counter_inc(_thread_id: c_int, counter: c_int) {
    if let Some(c) = SbCounter::from_raw(counter) {
        context::count(c);
    }
}

// ---------------------------------------------------------------- random

#[no_mangle]
pub extern "C" fn sb_rand_uniform_uint64() -> u64 {
    context::with_rng(|r| r.next_u64())
}

#[no_mangle]
pub extern "C" fn sb_rand_uniform_double() -> c_double {
    context::with_rng(|r| r.uniform_double())
}

#[no_mangle]
pub extern "C" fn sb_rand_default(a: u32, b: u32) -> u32 {
    context::with_rng(|r| r.default_u32(spec(), a, b))
}

#[no_mangle]
pub extern "C" fn sb_rand_uniform(a: u32, b: u32) -> u32 {
    context::with_rng(|r| r.uniform_u32(a, b))
}

#[no_mangle]
pub extern "C" fn sb_rand_gaussian(a: u32, b: u32) -> u32 {
    context::with_rng(|r| r.gaussian_u32(spec(), a, b))
}

#[no_mangle]
pub extern "C" fn sb_rand_special(a: u32, b: u32) -> u32 {
    context::with_rng(|r| r.special_u32(spec(), a, b))
}

#[no_mangle]
pub extern "C" fn sb_rand_pareto(a: u32, b: u32) -> u32 {
    context::with_rng(|r| r.pareto_u32(spec(), a, b))
}

#[no_mangle]
pub extern "C" fn sb_rand_unique() -> u32 {
    UNIQUE.get_or_init(|| UniqueSequence::new(1, 2)).next()
}

/// Copy `fmt` into `buf` with each `#` a random digit and each `@` a random
/// lowercase letter (no terminating NUL, as sysbench).
///
/// # Safety
/// `fmt` is a NUL-terminated string and `buf` holds at least its length.
#[no_mangle]
pub unsafe extern "C" fn sb_rand_str(fmt: *const c_char, buf: *mut c_char) {
    if fmt.is_null() || buf.is_null() {
        return;
    }
    // SAFETY: the caller passes a C string (Lua strings are NUL-terminated).
    let fmt = unsafe { CStr::from_ptr(fmt) }.to_bytes();
    context::with_rng(|r| {
        for (i, &c) in fmt.iter().enumerate() {
            let out = match c {
                b'#' => r.uniform_u32(u32::from(b'0'), u32::from(b'9')) as u8,
                b'@' => r.uniform_u32(u32::from(b'a'), u32::from(b'z')) as u8,
                other => other,
            };
            // SAFETY: `buf` holds at least fmt.len() bytes (caller's contract).
            unsafe { *buf.add(i) = out as c_char };
        }
    });
}

// ---------------------------------------------------------------- histograms

/// A script's histogram (`sysbench.histogram.new`): sysbench's bucket
/// scheme over the range it asks for, shared by all threads.
pub struct ScriptHistogram(Mutex<SysbenchHistogram>);

#[no_mangle]
pub extern "C" fn sb_histogram_new(
    size: usize,
    range_min: c_double,
    range_max: c_double,
) -> *mut ScriptHistogram {
    let ok = size > 0 && size <= 1 << 24 && range_min > 0.0 && range_max > range_min;
    if !ok {
        return std::ptr::null_mut();
    }
    let h = SysbenchHistogram::with_range(size, range_min, range_max);
    Box::into_raw(Box::new(ScriptHistogram(Mutex::new(h))))
}

/// # Safety
/// `h` comes from `sb_histogram_new` and is deleted once.
#[no_mangle]
pub unsafe extern "C" fn sb_histogram_delete(h: *mut ScriptHistogram) {
    if !h.is_null() {
        // SAFETY: allocated by sb_histogram_new, freed once (ffi.gc).
        drop(unsafe { Box::from_raw(h) });
    }
}

/// # Safety
/// `h` is null or a live histogram.
#[no_mangle]
pub unsafe extern "C" fn sb_histogram_update(h: *mut ScriptHistogram, value: c_double) {
    // SAFETY: null or live (caller's contract).
    if let Some(h) = unsafe { h.as_ref() } {
        h.0.lock()
            .unwrap_or_else(|p| p.into_inner())
            .record_ms(value);
    }
}

/// # Safety
/// `h` is null or a live histogram.
#[no_mangle]
pub unsafe extern "C" fn sb_histogram_print(h: *mut ScriptHistogram) {
    // SAFETY: null or live (caller's contract).
    if let Some(h) = unsafe { h.as_ref() } {
        let text = h.0.lock().unwrap_or_else(|p| p.into_inner()).render();
        crate::app::out(&text);
    }
}

// ---------------------------------------------------------------- options

/// sysbench's `sb_arg_t`.
#[repr(C)]
pub struct SbArg {
    name: *const c_char,
    desc: *const c_char,
    value: *const c_char,
    kind: c_int,
    validate: *const std::ffi::c_void,
}

static TEST_ARGS: Mutex<Option<&'static [OptDef]>> = Mutex::new(None);

/// The options the script declared (`sysbench.cmdline.options`), if any.
pub fn test_args() -> Option<&'static [OptDef]> {
    *TEST_ARGS.lock().unwrap_or_else(|p| p.into_inner())
}

fn arg_kind(t: c_int) -> Option<Kind> {
    Some(match t {
        1 => Kind::Bool,
        2 => Kind::Int,
        3 => Kind::Size,
        4 => Kind::Double,
        5 => Kind::Str,
        6 => Kind::List,
        7 => Kind::File,
        _ => return None,
    })
}

/// A C string as a `'static` str: option tables live as long as the
/// program (one script, declared once).
///
/// # Safety
/// `p` is null or a NUL-terminated string.
unsafe fn leak(p: *const c_char) -> Option<&'static str> {
    if p.is_null() {
        return None;
    }
    // SAFETY: the caller's contract.
    let s = unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned();
    Some(Box::leak(s.into_boxed_str()))
}

/// Keep the script's option declarations. Only the first call (the main
/// Lua state's) counts; each worker state declares the same again.
///
/// # Safety
/// `args` points to `len` entries whose strings are NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn sb_lua_set_test_args(args: *const SbArg, len: usize) -> c_int {
    let mut slot = TEST_ARGS.lock().unwrap_or_else(|p| p.into_inner());
    if slot.is_some() {
        return 0;
    }
    if args.is_null() && len > 0 {
        return 1;
    }
    let mut defs = Vec::with_capacity(len);
    for i in 0..len {
        // SAFETY: `args` holds `len` entries (caller's contract).
        let a = unsafe { &*args.add(i) };
        // SAFETY: the strings are NUL-terminated or null.
        let (name, desc, value) = unsafe { (leak(a.name), leak(a.desc), leak(a.value)) };
        let (Some(name), Some(kind)) = (name, arg_kind(a.kind)) else {
            return 1;
        };
        defs.push(OptDef {
            name,
            kind,
            default: value,
            help: desc.unwrap_or(""),
        });
    }
    *slot = Some(Box::leak(defs.into_boxed_slice()));
    0
}

#[no_mangle]
pub extern "C" fn sb_print_test_options() {
    if let Some(defs) = test_args() {
        crate::app::out(&format!("{}\n", crate::options::render_table(defs)));
    }
}
