//! Degree statistics and the chain bound (Galley §7.3.2).
//!
//! A degree constraint `D(X|Y) = d` says: for any fixed coordinates of the indices `Y`, at most
//! `d` distinct coordinates of `X` carry a non-fill entry. `D(X|∅)` bounds the projection onto
//! `X`; `D(I|∅)` is the non-fill count. Constraints compose along chains: fixing `Y`, then
//! extending by `X` at most `d` ways per prefix, so the product of degrees along any path from
//! `∅` to the full index set in the lattice of index sets bounds the count. [`bound`] finds the
//! cheapest such path (a shortest path on log-degrees, as in Galley's BFS over the lattice).

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};

use super::{Kind, TensorStats};
use crate::Idx;

/// `D(x | y) = d` over index bitmasks (bit positions of the owning stats' sorted indices).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DegreeConstraint {
    pub x: u64,
    pub y: u64,
    pub d: f64,
}

/// Keeps the smallest degree for each `(x, y)` pair.
pub(super) fn dedup(mut dcs: Vec<DegreeConstraint>) -> Vec<DegreeConstraint> {
    dcs.sort_by(|a, b| {
        (a.x, a.y)
            .cmp(&(b.x, b.y))
            .then(a.d.partial_cmp(&b.d).unwrap_or(Ordering::Equal))
    });
    dcs.dedup_by(|later, first| later.x == first.x && later.y == first.y);
    dcs
}

/// Packs the coordinates of the modes in `mask` into one key (at most 4 modes).
fn key(coord: &[u32], mask: u64) -> u128 {
    let mut k = 0u128;
    for (m, &c) in coord.iter().enumerate() {
        if mask & (1 << m) != 0 {
            k = (k << 32) | c as u128;
        }
    }
    k
}

fn max_group(coords: &[&[u32]], s: u64, y: u64, distinct_s: bool) -> f64 {
    if y == 0 {
        if distinct_s {
            return coords.len() as f64;
        }
        let mut keys: Vec<u128> = coords.iter().map(|c| key(c, s)).collect();
        keys.sort_unstable();
        keys.dedup();
        return keys.len() as f64;
    }
    let mut pairs: Vec<(u128, u128)> = coords.iter().map(|c| (key(c, y), key(c, s))).collect();
    pairs.sort_unstable();
    if !distinct_s {
        pairs.dedup();
    }
    let mut best = 0usize;
    let mut run = 0usize;
    for k in 0..pairs.len() {
        if k > 0 && pairs[k].0 == pairs[k - 1].0 {
            run += 1;
        } else {
            run = 1;
        }
        best = best.max(run);
    }
    best as f64
}

/// The degree constraints of a materialized non-fill pattern (distinct coordinates of an
/// order-`order` tensor). Up to order 4 every `D(X|Y)` with disjoint `X`, `Y` is kept (at most
/// 65); above, the count, each single mode's projection and `D(rest|m)` for each mode `m`.
pub(super) fn degree_constraints(order: usize, coords: &[&[u32]]) -> Vec<DegreeConstraint> {
    if order == 2 {
        if let Some(dcs) = matrix_degree_constraints(coords) {
            return dcs;
        }
    }
    sorted_degree_constraints(order, coords)
}

/// [`degree_constraints`] by sorting the coordinates per constraint (any order, any input).
fn sorted_degree_constraints(order: usize, coords: &[&[u32]]) -> Vec<DegreeConstraint> {
    let full: u64 = (1u64 << order) - 1;
    let mut out = vec![];
    if order == 0 {
        return out;
    }
    if order <= 4 {
        for s in 1..=full {
            // Every y ⊊ s: x = s \ y.
            let mut y = 0u64;
            loop {
                if y != s {
                    let d = max_group(coords, s, y, s == full);
                    out.push(DegreeConstraint { x: s & !y, y, d });
                }
                if y == s {
                    break;
                }
                y = (y.wrapping_sub(s)) & s; // next subset of s
                if y == 0 {
                    break;
                }
            }
        }
    } else {
        out.push(DegreeConstraint {
            x: full,
            y: 0,
            d: coords.len() as f64,
        });
        for m in 0..order {
            let bit = 1u64 << m;
            out.push(DegreeConstraint {
                x: bit,
                y: 0,
                d: max_group(coords, bit, 0, false),
            });
            out.push(DegreeConstraint {
                x: full & !bit,
                y: bit,
                d: max_group(coords, full, bit, true),
            });
        }
    }
    dedup(out)
}

/// [`degree_constraints`] of a matrix in one pass with a counter per row and per column,
/// when its coordinates arrive strictly sorted (so each is distinct) and its dimensions are
/// not much larger than its entry count (the counters are arrays). The general path sorts
/// the coordinates three times; on a 200,000-entry graph that took ~40 ms, this ~1 ms.
fn matrix_degree_constraints(coords: &[&[u32]]) -> Option<Vec<DegreeConstraint>> {
    let strictly_sorted = coords.windows(2).all(|w| w[0] < w[1]);
    if !strictly_sorted {
        return None;
    }
    let limit = 4 * coords.len() + 1024;
    let rows = coords.last().map_or(0, |c| c[0] as usize + 1);
    let cols = coords.iter().map(|c| c[1] as usize + 1).max().unwrap_or(0);
    if rows > limit || cols > limit {
        return None;
    }
    let mut per_col = vec![0u32; cols];
    let (mut distinct_rows, mut max_row, mut run) = (0usize, 0u32, 0u32);
    for (k, c) in coords.iter().enumerate() {
        per_col[c[1] as usize] += 1;
        if k == 0 || coords[k - 1][0] != c[0] {
            distinct_rows += 1;
            run = 0;
        }
        run += 1;
        max_row = max_row.max(run);
    }
    let distinct_cols = per_col.iter().filter(|&&n| n > 0).count();
    let max_col = per_col.iter().copied().max().unwrap_or(0);
    let dc = |x: u64, y: u64, d: f64| DegreeConstraint { x, y, d };
    Some(dedup(vec![
        dc(0b01, 0, distinct_rows as f64),
        dc(0b10, 0, distinct_cols as f64),
        dc(0b11, 0, coords.len() as f64),
        dc(0b10, 0b01, max_row as f64),
        dc(0b01, 0b10, max_col as f64),
    ]))
}

/// Bit positions of `child`'s indices among `out` (sorted, containing them all).
fn positions(child: &TensorStats, out: &[Idx]) -> Vec<u64> {
    child
        .idxs
        .iter()
        .map(|i| 1u64 << out.binary_search(i).expect("child index is in the output"))
        .collect()
}

fn remap(m: u64, pos: &[u64]) -> u64 {
    let mut r = 0;
    let mut rest = m;
    while rest != 0 {
        let k = rest.trailing_zeros() as usize;
        r |= pos[k];
        rest &= rest - 1;
    }
    r
}

fn chain_parts(s: &TensorStats) -> (&[DegreeConstraint], f64) {
    match &s.kind {
        Kind::Chain { dcs, cap } => (dcs, *cap),
        Kind::Uniform { nnz } => (&[], *nnz),
        Kind::DensityBound { .. } => (&[], s.estimate()),
    }
}

/// A join: every child's constraints hold of the output.
pub(super) fn conjunction(children: &[&TensorStats], out: &[Idx], dims: &[usize]) -> Kind {
    let mut dcs = vec![];
    let mut cap = f64::INFINITY;
    for c in children {
        let pos = positions(c, out);
        let (cdcs, ccap) = chain_parts(c);
        dcs.extend(cdcs.iter().map(|dc| DegreeConstraint {
            x: remap(dc.x, &pos),
            y: remap(dc.y, &pos),
            d: dc.d,
        }));
        let own = remap((1u64 << c.idxs.len()) - 1, &pos);
        let missing_cells = cells_of(!own, dims);
        cap = cap.min(ccap.min(c.estimate()) * missing_cells);
        if !c.idxs.is_empty() {
            dcs.push(DegreeConstraint {
                x: own,
                y: 0,
                d: c.estimate(),
            });
        }
    }
    if cap.is_infinite() {
        cap = cells_of(u64::MAX, dims);
    }
    Kind::Chain {
        dcs: dedup(dcs),
        cap,
    }
}

fn cells_of(mask: u64, dims: &[usize]) -> f64 {
    (0..dims.len())
        .filter(|k| mask & (1 << k) != 0)
        .map(|k| dims[k] as f64)
        .product()
}

/// A union: each child's constraints are widened to the output's indices (a constraint on
/// `A[i,j]` says nothing about `k`, so `D(X|Y)` becomes `D(X∪{k}|Y) = d·n_k`), then a pair
/// `(X, Y)` known for every contributing child bounds the output by the sum.
pub(super) fn disjunction(children: &[&TensorStats], out: &[Idx], dims: &[usize]) -> Kind {
    let full = if out.is_empty() {
        0
    } else {
        u64::MAX >> (64 - out.len())
    };
    let mut cap = 0.0;
    let mut common: Option<HashMap<(u64, u64), f64>> = None;
    for c in children {
        let est = c.estimate();
        if est <= 0.0 {
            continue; // contributes no non-fill entry
        }
        let pos = positions(c, out);
        let own = remap((1u64 << c.idxs.len()) - 1, &pos);
        let missing = full & !own;
        let widen = cells_of(missing, dims);
        cap += est * widen;
        let (cdcs, _) = chain_parts(c);
        let mut mine: HashMap<(u64, u64), f64> = HashMap::new();
        for dc in cdcs {
            let x = remap(dc.x, &pos) | missing;
            let y = remap(dc.y, &pos);
            let e = mine.entry((x, y)).or_insert(f64::INFINITY);
            *e = e.min(dc.d * widen);
        }
        common = Some(match common {
            None => mine,
            Some(prev) => prev
                .into_iter()
                .filter_map(|(k, d)| mine.get(&k).map(|d2| (k, d + d2)))
                .collect(),
        });
    }
    let dcs = common
        .unwrap_or_default()
        .into_iter()
        .map(|((x, y), d)| DegreeConstraint { x, y, d })
        .collect();
    Kind::Chain {
        dcs: dedup(dcs),
        cap: cap.min(cells_of(full, dims)),
    }
}

/// A projection: constraints not conditioned on a removed index survive with the removed
/// indices dropped from `X` (projecting can only merge coordinates). `input_estimate` bounds
/// the output too.
pub(super) fn aggregate(
    dcs: &[DegreeConstraint],
    gone: u64,
    keep: &[usize],
    input_estimate: f64,
) -> Kind {
    let pos: Vec<(usize, u64)> = keep
        .iter()
        .enumerate()
        .map(|(new, &old)| (old, 1u64 << new))
        .collect();
    let squeeze = |m: u64| {
        pos.iter()
            .filter(|(old, _)| m & (1 << old) != 0)
            .fold(0, |a, (_, b)| a | b)
    };
    let out = dcs
        .iter()
        .filter(|dc| dc.y & gone == 0 && dc.x & !gone != 0)
        .map(|dc| DegreeConstraint {
            x: squeeze(dc.x & !gone),
            y: squeeze(dc.y),
            d: dc.d,
        })
        .collect();
    Kind::Chain {
        dcs: dedup(out),
        cap: input_estimate,
    }
}

#[derive(PartialEq)]
struct Node(f64, u64);

impl Eq for Node {}

impl PartialOrd for Node {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Node {
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .0
            .partial_cmp(&self.0)
            .unwrap_or(Ordering::Equal)
            .then(other.1.cmp(&self.1))
    }
}

/// The chain bound: the cheapest product of degrees along a path `∅ → all indices`, where a
/// constraint `D(X|Y)` leads from any set containing `Y` to its union with `X`, and each index
/// alone may be added at the cost of its dimension (the domain constraint).
pub(super) fn bound(dcs: &[DegreeConstraint], dims: &[usize]) -> f64 {
    let n = dims.len();
    if n == 0 {
        return 1.0;
    }
    if dcs.iter().any(|dc| dc.d <= 0.0) {
        return 0.0;
    }
    let full = u64::MAX >> (64 - n);
    if n <= SMALL_ORDER {
        return small_cheapest_path(dcs, dims, full).unwrap_or_else(|| cells_of(full, dims));
    }
    let mut edges: Vec<(u64, u64, f64)> = Vec::with_capacity(dcs.len() + n);
    edges.extend(dcs.iter().map(|dc| (dc.x, dc.y, dc.d.max(1.0))));
    edges.extend((0..n).map(|k| (1 << k, 0, dims[k].max(1) as f64)));
    // Up to 16 indices the distances live in an array over all index sets (this search runs
    // for every query the logical optimizer prices: with a hash map it was a fifth of the
    // star-join programs' optimization time); above, Fx hashing.
    let reached = if n <= 16 {
        cheapest_path(&edges, full, vec![f64::INFINITY; 1usize << n])
    } else {
        cheapest_path(&edges, full, rustc_hash::FxHashMap::default())
    };
    reached.unwrap_or_else(|| cells_of(full, dims))
}

/// Up to this many indices the bound runs without allocating: the optimizers price hundreds
/// of small intermediates per query (one or two indices for most), where building the edge
/// list and the heap cost more than the search.
const SMALL_ORDER: usize = 4;

/// [`cheapest_path`] over at most 16 index sets on the stack: Dijkstra picking the nearest
/// unsettled set by a scan, with the constraints and each index's domain as the edges.
fn small_cheapest_path(dcs: &[DegreeConstraint], dims: &[usize], full: u64) -> Option<f64> {
    let mut dist = [f64::INFINITY; 1 << SMALL_ORDER];
    let mut settled = 0u32;
    dist[0] = 1.0;
    loop {
        let set = (0..=full)
            .filter(|&s| settled & (1 << s) == 0 && dist[s as usize].is_finite())
            .min_by(|&a, &b| dist[a as usize].total_cmp(&dist[b as usize]))?;
        let cost = dist[set as usize];
        if set == full {
            return Some(cost);
        }
        settled |= 1 << set;
        let domains = dims
            .iter()
            .enumerate()
            .map(|(k, &d)| (1u64 << k, 0u64, d.max(1) as f64));
        let constraints = dcs.iter().map(|dc| (dc.x, dc.y, dc.d.max(1.0)));
        for (x, y, w) in constraints.chain(domains) {
            if y & !set != 0 || x & !set == 0 {
                continue;
            }
            let next = (set | x) as usize;
            dist[next] = dist[next].min(cost * w);
        }
    }
}

/// Best distances found so far, by index set (infinite until reached).
trait Distances {
    fn get(&self, set: u64) -> f64;
    fn set(&mut self, set: u64, d: f64);
}

impl Distances for Vec<f64> {
    fn get(&self, set: u64) -> f64 {
        self[set as usize]
    }
    fn set(&mut self, set: u64, d: f64) {
        self[set as usize] = d;
    }
}

impl Distances for rustc_hash::FxHashMap<u64, f64> {
    fn get(&self, set: u64) -> f64 {
        self.get(&set).copied().unwrap_or(f64::INFINITY)
    }
    fn set(&mut self, set: u64, d: f64) {
        self.insert(set, d);
    }
}

/// Dijkstra from the empty index set to `full` over `edges` `(x, y, w)`: from a set holding
/// `y` to its union with `x`, multiplying by `w`. Degrees multiply along a path and none is
/// below 1, so Dijkstra on products is exact (and keeps integer bounds integral, unlike
/// summing logarithms). `None` when `full` is unreachable.
fn cheapest_path(edges: &[(u64, u64, f64)], full: u64, mut dist: impl Distances) -> Option<f64> {
    let mut heap = BinaryHeap::new();
    dist.set(0, 1.0);
    heap.push(Node(1.0, 0));
    while let Some(Node(cost, set)) = heap.pop() {
        if set == full {
            return Some(cost);
        }
        if dist.get(set) < cost {
            continue;
        }
        for &(x, y, w) in edges {
            if y & !set != 0 || x & !set == 0 {
                continue;
            }
            let next = set | x;
            let c = cost * w;
            if c < dist.get(next) {
                dist.set(next, c);
                heap.push(Node(c, next));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A seeded generator of numbers below its argument (a linear congruential step).
    fn below(seed: u64) -> impl FnMut(u64) -> u64 {
        let mut state = seed;
        move |m| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % m
        }
    }

    /// The array and the hash-map distances find the same bound (the map serves above 16
    /// indices; a path of degree constraints over 10 indices exercises both).
    #[test]
    fn both_distance_stores_find_the_same_bound() {
        let n = 10;
        let full = (1u64 << n) - 1;
        let mut edges: Vec<(u64, u64, f64)> = (0..n).map(|k| (1 << k, 0, 50.0)).collect();
        // D(i_{k+1} | i_k) = k + 2, and D(i_0) = 3: the chain bound is 3 * 2 * 3 * ... * 10.
        edges.extend((0..n - 1).map(|k| (1u64 << (k + 1), 1u64 << k, k as f64 + 2.0)));
        edges.push((1, 0, 3.0));
        let want: f64 = 3.0 * (2..=10).map(f64::from).product::<f64>();
        let array = cheapest_path(&edges, full, vec![f64::INFINITY; 1 << n]);
        let map = cheapest_path(&edges, full, rustc_hash::FxHashMap::default());
        assert_eq!(array, Some(want));
        assert_eq!(map, Some(want));
        assert_eq!(
            cheapest_path(&edges[..n], full | 1 << n, vec![f64::INFINITY; 2 << n]),
            None
        );
    }

    /// The allocation-free search for few indices finds the bound the general one finds, on
    /// pseudo-random constraints over 1 to 4 indices (some unreachable without domains).
    #[test]
    fn the_small_search_agrees_with_the_general_one() {
        let mut next = below(11);
        for trial in 0..500 {
            let n = 1 + trial % SMALL_ORDER;
            let full = (1u64 << n) - 1;
            let dims: Vec<usize> = (0..n).map(|_| 1 + next(40) as usize).collect();
            let dcs: Vec<DegreeConstraint> = (0..next(8))
                .map(|_| DegreeConstraint {
                    x: 1 + next(full),
                    y: next(full + 1),
                    d: 1.0 + next(30) as f64,
                })
                .map(|dc| DegreeConstraint {
                    y: dc.y & !dc.x,
                    ..dc
                })
                .collect();
            let mut edges: Vec<(u64, u64, f64)> = dcs.iter().map(|dc| (dc.x, dc.y, dc.d)).collect();
            edges.extend((0..n).map(|k| (1u64 << k, 0, dims[k] as f64)));
            let general = cheapest_path(&edges, full, vec![f64::INFINITY; 1 << n]);
            assert_eq!(
                small_cheapest_path(&dcs, &dims, full),
                general,
                "{dcs:?} {dims:?}"
            );
        }
    }

    /// The one-pass matrix statistics equal the sorting ones on pseudo-random patterns
    /// (skewed rows, empty rows and columns, a single entry, none).
    #[test]
    fn matrix_degrees_in_one_pass_equal_the_sorted_ones() {
        let mut next = below(7);
        for (rows, cols, entries) in [
            (50, 40, 300),
            (5, 1000, 900),
            (1000, 3, 800),
            (9, 9, 1),
            (4, 4, 0),
        ] {
            let mut coords: Vec<[u32; 2]> = (0..entries)
                .map(|k| {
                    let skewed = if k % 3 == 0 { 0 } else { next(rows) };
                    [skewed as u32, next(cols) as u32]
                })
                .collect();
            coords.sort_unstable();
            coords.dedup();
            let refs: Vec<&[u32]> = coords.iter().map(|c| &c[..]).collect();
            let fast = matrix_degree_constraints(&refs).expect("sorted, small dims");
            assert_eq!(fast, sorted_degree_constraints(2, &refs), "{rows}x{cols}");
        }
        let unsorted: Vec<&[u32]> = vec![&[2, 0], &[1, 0]];
        assert!(matrix_degree_constraints(&unsorted).is_none());
    }
}
