//! Sorted-list intersection of fibers by galloping (the merge behind
//! [`Protocol::Gallop`](crate::plan_ast::Protocol)): a driver fiber, the shortest, is walked
//! and every other fiber is searched forward from where its last match left off,
//! exponentially then by bisection. A driver entry costs `O(log gap)` per other fiber, so a
//! short fiber against a long one costs what probing would, and two fibers of similar length
//! cost a linear merge, with no hash table or binary search from scratch per coordinate.
//!
//! A fiber that stays the same while an inner loop intersects it with many others (the row
//! `E[v0,:]` of a triangle count, met once per neighbour `v1`) is instead scattered once into
//! a [`Marks`] array, coordinate → position: each other fiber is then one pass of
//! independent array reads, with no compare-and-advance chain between consecutive steps.

/// Most fibers one intersection takes (positions live on the stack).
pub const MAX_FIBERS: usize = 8;

/// The first position `>= from` of sorted `list` whose coordinate is `>= target`
/// (`list.len()` if none).
#[inline]
pub fn gallop(list: &[u32], from: usize, target: u32) -> usize {
    if from >= list.len() || list[from] >= target {
        return from;
    }
    // list[lo] < target; find hi with list[hi] >= target (or the end) by doubling steps.
    let mut lo = from;
    let mut step = 1usize;
    let mut hi = from + 1;
    while hi < list.len() && list[hi] < target {
        lo = hi;
        step *= 2;
        hi = lo + step;
    }
    let hi = hi.min(list.len());
    // Invariant: list[lo] < target, and list[hi] >= target or hi == len.
    lo + 1 + list[lo + 1..hi].partition_point(|&x| x < target)
}

/// Calls `found(c, ks)` for every coordinate `c` in all of `fibers` (each sorted, no
/// duplicates), in increasing order, restricted to the entries `part` of the driver
/// `fibers[driver]`; `ks[f]` is the position of `c` in `fibers[f]`. At most [`MAX_FIBERS`]
/// fibers.
#[inline]
pub fn intersect(
    fibers: &[&[u32]],
    driver: usize,
    part: std::ops::Range<usize>,
    mut found: impl FnMut(u32, &[usize]),
) {
    let n = fibers.len();
    assert!(n <= MAX_FIBERS, "at most {MAX_FIBERS} fibers");
    let mut ks = [0usize; MAX_FIBERS];
    let lead = fibers[driver];
    let end = part.end.min(lead.len());
    if n == 2 && part.start < end {
        let other = fibers[1 - driver];
        if other.len() <= LINEAR_MERGE_RATIO * (end - part.start) {
            merge_two(lead, part.start..end, other, |c, k, j| {
                ks[driver] = k;
                ks[1 - driver] = j;
                found(c, &ks[..2]);
            });
            return;
        }
    }
    'outer: for (k, &c) in lead.iter().enumerate().take(end).skip(part.start) {
        ks[driver] = k;
        for f in 0..n {
            if f == driver {
                continue;
            }
            let list = fibers[f];
            let at = gallop(list, ks[f], c);
            ks[f] = at;
            if at == list.len() {
                // This fiber is exhausted: no later driver coordinate can match.
                break 'outer;
            }
            if list[at] != c {
                continue 'outer;
            }
        }
        found(c, &ks[..n]);
    }
}

/// Two fibers whose lengths differ by at most this factor are merged linearly: a
/// branch-free step per entry beats galloping's search when matches are close together.
const LINEAR_MERGE_RATIO: usize = 8;

/// The linear merge of `lead[part]` with `other` (from the first entry not below
/// `lead[part.start]`): `found(c, position in lead, position in other)`.
#[inline]
fn merge_two(
    lead: &[u32],
    part: std::ops::Range<usize>,
    other: &[u32],
    mut found: impl FnMut(u32, usize, usize),
) {
    let (mut i, end) = (part.start, part.end);
    let mut j = gallop(other, 0, lead[i]);
    while i < end && j < other.len() {
        let (x, y) = (lead[i], other[j]);
        if x == y {
            found(x, i, j);
        }
        i += (x <= y) as usize;
        j += (y <= x) as usize;
    }
}

/// A fiber scattered over its dimension: bit `c` of `bits` is set when coordinate `c` is
/// stored (a bit per coordinate stays in the first-level cache for 10^5 coordinates, where
/// most probes of a sparse intersection miss), and `slot[c]` is then its position.
#[derive(Clone, Debug, Default)]
pub struct Marks {
    bits: Vec<u64>,
    slot: Vec<u32>,
    /// The parent position of the fiber now scattered (`None`: nothing is).
    parent: Option<usize>,
    /// Its coordinates' range in the level's `idx` (to clear them again).
    span: std::ops::Range<usize>,
}

/// Most coordinates a [`Marks`] array covers (4 bytes each, per worker and level).
pub const MAX_MARKED_DIM: usize = 1 << 26;

/// An intersection uses the marks when the other fiber is at most this many times as long
/// as the marked one: each of its entries costs one independent array read, where galloping
/// from the marked fiber's entries costs a search of `log(ratio)` dependent steps each.
pub const SCATTER_RATIO: usize = 16;

impl Marks {
    /// Holds `fiber` (the coordinates `idx[span]` of parent `parent`, in a dimension of
    /// `dim` coordinates), clearing the fiber held before unless it is the same one.
    pub fn hold(&mut self, idx: &[u32], parent: usize, span: std::ops::Range<usize>, dim: usize) {
        if self.parent == Some(parent) && self.span == span {
            return;
        }
        if self.slot.len() < dim {
            self.slot = vec![0; dim];
            self.bits = vec![0; dim.div_ceil(64)];
        } else {
            for &c in &idx[self.span.clone()] {
                self.bits[c as usize / 64] = 0;
            }
        }
        for (k, &c) in idx[span.clone()].iter().enumerate() {
            // Positions within one fiber fit: a fiber holds at most `dim` <= 2^26 entries.
            self.slot[c as usize] = k as u32;
            self.bits[c as usize / 64] |= 1 << (c % 64);
        }
        self.parent = Some(parent);
        self.span = span;
    }

    /// Calls `found(c, k, j)` for every coordinate `c` at position `j` of `other` that the
    /// held fiber stores at position `k`, in increasing order.
    #[inline]
    pub fn intersect(&self, other: &[u32], mut found: impl FnMut(u32, usize, usize)) {
        for (j, &c) in other.iter().enumerate() {
            if self.bits[c as usize / 64] >> (c % 64) & 1 != 0 {
                found(c, self.slot[c as usize] as usize, j);
            }
        }
    }
}

/// Hints the processor to fetch `list[at]` into the cache (nothing when `at` is out of range
/// or the target has no prefetch instruction): a fiber an upcoming loop iteration will read,
/// requested while the current one runs.
#[inline(always)]
pub fn prefetch<T>(list: &[T], at: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(x) = list.get(at) {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: SSE is part of the x86_64 baseline, and a prefetch of a valid reference's
        // address neither faults nor changes anything the program can observe.
        unsafe { _mm_prefetch::<_MM_HINT_T0>((x as *const T).cast()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (list, at);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gallop_finds_the_first_coordinate_not_below_the_target() {
        let list = [1u32, 3, 5, 7, 9, 11, 13, 15, 17];
        for from in 0..=list.len() {
            for target in 0..20 {
                let want = (from..list.len())
                    .find(|&k| list[k] >= target)
                    .unwrap_or(list.len());
                assert_eq!(
                    gallop(&list, from, target),
                    want,
                    "from {from} target {target}"
                );
            }
        }
    }

    #[test]
    fn a_three_way_intersection_reports_positions_in_every_fiber() {
        let (a, b, c) = ([1u32, 2, 4, 8, 9], [0u32, 2, 8, 9, 10], [2u32, 3, 9]);
        let mut seen = vec![];
        intersect(&[&a, &b, &c], 2, 0..3, |x, ks| seen.push((x, ks.to_vec())));
        assert_eq!(seen, vec![(2, vec![1, 1, 0]), (9, vec![4, 3, 2])]);
        let mut part = vec![];
        intersect(&[&a, &b], 0, 3..5, |x, _| part.push(x));
        assert_eq!(part, vec![8, 9]);
    }
}
