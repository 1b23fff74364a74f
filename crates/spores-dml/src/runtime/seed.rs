//! Seeds for what a script draws without a seed of its own.

/// The first seed of an interpreter's unseeded `rand` calls: the wall clock, the process
/// and a count of interpreters made in this process, so that two runs never share their
/// random draws (the time since the interpreter started, used before, was a few hundred
/// nanoseconds every time, and two runs in one process drew the same matrices).
pub(crate) fn fresh_seed() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static MADE: AtomicU64 = AtomicU64::new(0);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let count = MADE.fetch_add(1, Ordering::Relaxed);
    now ^ (u64::from(std::process::id()) << 32) ^ count.wrapping_mul(0x9E37_79B9_7F4A_7C15)
}
