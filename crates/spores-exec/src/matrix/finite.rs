//! A matrix's "every stored value is finite" fact, computed once on first use.
//!
//! Kernels whose fast paths are only right on finite values (a dense product computes
//! `0 * Inf` as NaN where the cell semantics say 0) and the optimizer (whose real-number
//! rewrites do not hold with Inf or NaN) ask [`FiniteCache::get_or_scan`]; the scan runs
//! once per matrix, and a mutable borrow of the values forgets the answer.

use std::sync::OnceLock;

/// The cached answer; equal to any other cache, so it never affects matrix equality.
#[derive(Clone, Default)]
pub(crate) struct FiniteCache(OnceLock<bool>);

impl FiniteCache {
    /// A cache that already knows the answer (for constructors that know it for free).
    pub(crate) fn known(all_finite: bool) -> Self {
        let cell = OnceLock::new();
        let _ = cell.set(all_finite);
        FiniteCache(cell)
    }

    /// Whether every value of `values` is finite, scanning them on the first call only.
    pub(crate) fn get_or_scan(&self, values: &[f64]) -> bool {
        *self.0.get_or_init(|| values.iter().all(|v| v.is_finite()))
    }

    /// Forgets the answer (the values are about to change).
    pub(crate) fn forget(&mut self) {
        self.0.take();
    }
}

impl PartialEq for FiniteCache {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl std::fmt::Debug for FiniteCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("_")
    }
}
