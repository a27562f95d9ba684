//! Where the next I/O goes: the picker and what it draws from.

/// Direction (rwmix) and block size (bs, bsrange, bssplit) draws.
pub mod choices;
/// Zoned `random_distribution` samplers and the distribution spec.
pub mod distribution;
/// fio 3.33's zipf, pareto and normal generators.
pub mod fiodist;
/// fio 3.33's random offsets (its random map, any block sizes).
pub mod fiomap;
/// `random_generator=lfsr`.
pub mod lfsr;
/// The picker: direction, block size, file and offset of the next I/O.
pub mod picker;
/// `zonemode=zbd`: emulated zone write pointers.
pub mod zbd;
/// `zonemode=strided`.
pub mod zones;
