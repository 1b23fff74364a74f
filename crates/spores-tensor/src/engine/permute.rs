//! A kernel that stores one tensor's entries in another mode order: `T[p,b,s] = L[b,s,p]`,
//! the copy of the line items by part that a self-join reads (Galley §8.1).
//!
//! The interpreter walks the input and writes every entry out of order, so its accumulator
//! turns into a hash map that is drained and sorted at the end: 1.5 M line items took 0.8 s.
//! Here each entry's coordinates in the new order are packed into one integer key, the
//! (key, value) pairs are sorted by the bits of the modes that move (a radix sort), and the
//! result's levels are built from the sorted list.

use super::fibertree::FiberTensor;
use crate::plan_ast::{PhysExpr, PhysicalQuery, Protocol};
use crate::TensorError;

/// Runs `q` when it is a transposition (the body one access iterated in full, no aggregate,
/// the output a reordering of the access's distinct indices whose coordinates fit in 64
/// bits): the input's entries other than its fill, in the output's mode order and formats,
/// the fill kept. `None` for any other kernel.
pub fn transposition<'a>(
    q: &PhysicalQuery,
    tensor: &dyn Fn(&str, bool) -> Option<&'a FiberTensor>,
) -> Option<Result<FiberTensor, TensorError>> {
    let PhysExpr::Access(a) = &q.body else {
        return None;
    };
    if q.agg.is_some()
        || a.protocols.iter().any(|p| *p != Protocol::Iterate)
        || a.idxs.len() != q.output_idxs.len()
    {
        return None;
    }
    let t = tensor(&a.name, a.is_alias)?;
    // Output mode m reads input mode `from[m]`; repeated indices (a diagonal) are not a
    // reordering.
    let from: Vec<usize> = q
        .output_idxs
        .iter()
        .map(|i| a.idxs.iter().position(|j| j == i))
        .collect::<Option<_>>()?;
    let mut seen = vec![false; from.len()];
    for &m in &from {
        if std::mem::replace(&mut seen[m], true) {
            return None;
        }
    }
    if t.order() != from.len() || from.iter().enumerate().all(|(m, &f)| m == f) {
        return None;
    }
    let dims: Vec<usize> = from.iter().map(|&m| t.dims[m]).collect();
    let bits: Vec<u32> = dims.iter().map(|&d| bits_for(d)).collect();
    if bits.iter().sum::<u32>() > 64 {
        return None;
    }
    // Output mode m's coordinate sits above the bits of the modes after it.
    let mut shift = vec![0u32; dims.len()];
    for m in (0..dims.len().saturating_sub(1)).rev() {
        shift[m] = shift[m + 1] + bits[m + 1];
    }
    let stored = t.vals.len();
    if let Err(e) = super::budget::ensure_fits(
        &format!("kernel {}: reordering {stored} entries", q.name),
        // (key, value) pairs and the radix passes' second buffer, then coordinates and values.
        (stored * (2 * 16 + 4 * dims.len() + 8)) as f64
            + super::budget::sparse_bytes(stored, &dims, &q.output_formats),
    ) {
        return Some(Err(e));
    }
    let fill = t.fill;
    let is_fill = |v: f64| v == fill || (v.is_nan() && fill.is_nan());
    let mut entries: Vec<(u64, f64)> = Vec::with_capacity(stored);
    t.for_each_stored(|c, v| {
        if !is_fill(v) {
            let key = from
                .iter()
                .zip(&shift)
                .fold(0u64, |k, (&m, &s)| k | (c[m] as u64) << s);
            entries.push((key, v));
        }
    });
    // The walk lists entries in the input's order. Past the first output mode `k` from which
    // the output reads input modes in increasing order, that order is the output's among
    // entries agreeing on the modes before `k`: only the bits of those need sorting (one
    // pass for `T[p,b,s] = L[b,s,p]`).
    let k = (0..from.len())
        .find(|&k| from[k..].windows(2).all(|w| w[0] < w[1]))
        .unwrap_or(0);
    let total_bits: u32 = bits.iter().sum();
    let sorted_from = if k == 0 { total_bits } else { shift[k - 1] };
    let entries = radix_sort(entries, sorted_from..total_bits);
    let order = dims.len();
    let mut coords = vec![0u32; entries.len() * order];
    let mut vals = Vec::with_capacity(entries.len());
    for (cell, &(key, v)) in coords.chunks_mut(order.max(1)).zip(&entries) {
        for m in 0..order {
            cell[m] = ((key >> shift[m]) & ((1u64 << bits[m]) - 1)) as u32;
        }
        vals.push(v);
    }
    drop(entries);
    Some(Ok(FiberTensor::from_sorted_owned(
        &dims,
        &coords,
        vals,
        fill,
        &q.output_formats,
    )))
}

/// Bits that hold every coordinate below `dim` (at least one).
fn bits_for(dim: usize) -> u32 {
    (usize::BITS - dim.saturating_sub(1).leading_zeros()).max(1)
}

/// The widest digit of [`radix_sort`]'s passes (256 counters, whose targets stay in cache).
const MAX_DIGIT_BITS: u32 = 8;

/// `entries` sorted stably by the bits `bits` of their keys (lower bits keep the order they
/// had), one counting pass per digit of at most [`MAX_DIGIT_BITS`] bits.
fn radix_sort(mut entries: Vec<(u64, f64)>, bits: std::ops::Range<u32>) -> Vec<(u64, f64)> {
    let width = bits.end.saturating_sub(bits.start);
    if width == 0 {
        return entries;
    }
    let mask = |k: u64| (k >> bits.start) & (u64::MAX >> (64 - width));
    if entries.len() < 1 << 12 {
        entries.sort_by_key(|e| mask(e.0));
        return entries;
    }
    let passes = width.div_ceil(MAX_DIGIT_BITS);
    let digit_bits = width.div_ceil(passes);
    let radix = 1usize << digit_bits;
    let mut other = vec![(0u64, 0.0f64); entries.len()];
    for pass in 0..passes {
        let low = pass * digit_bits;
        let digit = |k: u64| ((mask(k) >> low) as usize) & (radix - 1);
        let mut start = vec![0usize; radix + 1];
        for e in &entries {
            start[digit(e.0) + 1] += 1;
        }
        for d in 0..radix {
            start[d + 1] += start[d];
        }
        for &e in &entries {
            let d = digit(e.0);
            other[start[d]] = e;
            start[d] += 1;
        }
        std::mem::swap(&mut entries, &mut other);
    }
    entries
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_cover_every_coordinate() {
        assert_eq!(
            [1, 2, 3, 4, 5, 1024, 1025].map(bits_for),
            [1, 1, 2, 2, 3, 10, 11]
        );
    }

    #[test]
    fn radix_sort_orders_keys_of_any_width() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for bits in [3u32, 11, 12, 33, 64] {
            let keys: Vec<(u64, f64)> = (0..10_000)
                .map(|i| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    let k = if bits == 64 {
                        state
                    } else {
                        state & ((1 << bits) - 1)
                    };
                    (k, i as f64)
                })
                .collect();
            let mut want = keys.clone();
            want.sort_by_key(|e| e.0);
            let got = radix_sort(keys.clone(), 0..bits);
            assert_eq!(
                got.iter().map(|e| e.0).collect::<Vec<_>>(),
                want.iter().map(|e| e.0).collect::<Vec<_>>(),
                "{bits} bits"
            );
            // Sorted by the upper bits only: stable, so ties keep their input order.
            let low = bits / 2;
            let mut want = keys.clone();
            want.sort_by_key(|e| e.0 >> low);
            let got = radix_sort(keys, low..bits);
            assert_eq!(got, want, "bits {low}..{bits}");
        }
    }
}
