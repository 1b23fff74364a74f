//! Formats (Galley §6.2): the level format of every output mode, from the estimated fill of
//! each level (Galley's cutoffs while it fits in cache, the bytes it moves beyond), and the
//! formats the engine will give each input, which the protocols are priced against.
//!
//! Separate from the loop order because it only reads it (whether writes are sequential),
//! and from the protocols because those consume its answer.

use std::collections::HashMap;

use super::optimize::PhysicalOptions;
use crate::plan_ast::{Idx, LevelFormat};
use crate::stats::TensorStats;

/// Bytes a level moves per slot or per stored entry once it no longer fits in cache:
/// a Dense slot is zeroed and later read whole (8 + 8); a Bytemap slot costs its mask byte
/// twice and the slot it positions below (the next level's pointer or the value, 8 bytes,
/// zeroed: [`FiberTensor::from_sorted`] sizes them by slots, not entries), and each of its
/// entries a coordinate, a value and the mask update (4 + 8 + 4); a sorted entry its
/// coordinate and value, written unordered and moved again when sorted ((4 + 8) * 2).
/// Beyond the cache a Bytemap therefore never beats both others; the 2-byte slot price
/// this replaced counted only the mask, which was cheap only while the allocator handed out
/// fresh zero pages that untouched slots never faulted in.
///
/// [`FiberTensor::from_sorted`]: crate::engine::fibertree::FiberTensor::from_sorted
const DENSE_SLOT_BYTES: f64 = 16.0;
const BYTEMAP_SLOT_BYTES: f64 = 10.0;
const BYTEMAP_ENTRY_BYTES: f64 = 16.0;
const SORTED_ENTRY_BYTES: f64 = 24.0;

/// The format of a level with `slots` positions (more than the cache holds) and `nnz`
/// estimated entries that moves the fewest bytes: Dense above 2/3 full, a sorted list below
/// (a 10^8-slot wedge intermediate holding 4*10^6 entries is 1.6 GB dense, 0.1 GB sorted).
pub fn format_by_memory_traffic(nnz: f64, slots: f64, options: &PhysicalOptions) -> LevelFormat {
    let fits = slots <= options.max_dense_slots;
    let dense = if fits {
        slots * DENSE_SLOT_BYTES
    } else {
        f64::INFINITY
    };
    let bytemap = if fits {
        slots * BYTEMAP_SLOT_BYTES + nnz * BYTEMAP_ENTRY_BYTES
    } else {
        f64::INFINITY
    };
    let sorted = nnz * SORTED_ENTRY_BYTES;
    if dense <= bytemap && dense <= sorted {
        LevelFormat::Dense
    } else if bytemap <= sorted {
        LevelFormat::Bytemap
    } else {
        LevelFormat::SortedList
    }
}

/// Level formats of an output stored in `out_idxs` order, written by loops in `loop_order`.
/// Levels that fit in cache follow Galley's fractions (`dense_cutoff`, `bytemap_cutoff`);
/// larger ones are priced by the memory they move ([`format_by_memory_traffic`]).
pub(super) fn choose_formats(
    out: &TensorStats,
    out_idxs: &[Idx],
    loop_order: &[Idx],
    sizes: &HashMap<Idx, usize>,
    options: &PhysicalOptions,
) -> Vec<LevelFormat> {
    let mut formats = vec![];
    // A level has one fiber per position of the level above: its entries if that level is
    // a sorted list or hash, every slot if it is Dense or a Bytemap.
    let mut outer_positions = 1.0f64;
    for k in 0..out_idxs.len() {
        let prefix = &out_idxs[..=k];
        let nnz = out.project(prefix).estimate();
        let dim = sizes.get(&out_idxs[k]).copied().unwrap_or(1).max(1) as f64;
        let fibers = outer_positions.max(1.0);
        let fraction = nnz / (fibers * dim);
        let slots = fibers * dim;
        // Sequential writes only if the output's modes so far are the outermost loops.
        let sequential = loop_order.len() > k && loop_order[..=k] == *prefix;
        let f = if slots > options.cached_slots {
            format_by_memory_traffic(nnz, slots, options)
        } else if fraction > options.dense_cutoff && slots <= options.max_dense_slots {
            LevelFormat::Dense
        } else if fraction > options.bytemap_cutoff && slots <= options.max_dense_slots {
            LevelFormat::Bytemap
        } else if sequential {
            LevelFormat::SortedList
        } else {
            LevelFormat::Hash
        };
        outer_positions = match f {
            LevelFormat::Dense | LevelFormat::Bytemap => slots,
            LevelFormat::SortedList | LevelFormat::Hash => nnz,
        };
        formats.push(f);
    }
    formats
}

/// The formats the engine gives an input (`engine::fibertree::auto_formats`: a level is
/// Dense when at least half of its positions are stored, else a sorted list), from the
/// statistics of its access in stored order.
pub(super) fn input_formats(
    s: &TensorStats,
    idxs: &[Idx],
    sizes: &HashMap<Idx, usize>,
) -> Vec<LevelFormat> {
    let mut formats = vec![];
    let mut parents = 1.0f64;
    for k in 0..idxs.len() {
        let distinct = s.project(&idxs[..=k]).estimate();
        let dim = sizes.get(&idxs[k]).copied().unwrap_or(1) as f64;
        let (format, positions) =
            crate::engine::fibertree::auto_level_format(parents, dim, distinct);
        formats.push(format);
        parents = positions;
    }
    formats
}
