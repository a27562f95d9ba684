//! rmbw's command-line parser as a library, so the fuzz target in `fuzz/`
//! can drive it; the program is `main.rs`. Under `cfg(test)` this crate is
//! empty: the bin target already runs the unit tests of these modules.

#[cfg(not(test))]
mod arrays;
#[cfg(not(test))]
mod kernels;
#[cfg(not(test))]
pub mod options;

#[cfg(not(test))]
pub use kernels::Method;
