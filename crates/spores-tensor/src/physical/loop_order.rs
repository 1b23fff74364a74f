//! Loop order (Galley §6.1): per query, the order of its loops that minimizes the estimated
//! work, searched greedily for a bound and then exactly by a dynamic program over prefixes.
//!
//! It owns the cost of an order ([`OrderCosts`]): entries visited per prefix, transpositions
//! of discordant inputs, cache lines of accesses too large for the cache, and scattered
//! writes of aggregate loops outside output loops. It is decided first because every other
//! decision (output mode order, formats, protocols, transpositions) follows the loops.

use std::collections::{BTreeMap, HashMap};

use super::accesses::Acc;
use super::optimize::PhysicalOptions;
use crate::plan_ast::Idx;
use crate::stats::TensorStats;

/// Whether `acc`'s stored index order follows `order` (indices not yet in `order` last).
pub(super) fn concordant(acc_idxs: &[Idx], order: &[Idx]) -> bool {
    let pos: Vec<usize> = acc_idxs
        .iter()
        .map(|i| order.iter().position(|o| o == i).unwrap_or(usize::MAX))
        .collect();
    pos.windows(2).all(|w| w[0] <= w[1])
}

/// Loop-order search for one query: cost of an order = Σ over prefixes of the estimated
/// non-fill count of the body projected to the prefix, plus the size of every input that is
/// not concordant (it must be transposed first), plus the cache lines of accesses too large
/// for the cache, per entry into their fibers, plus the scattered writes of an aggregate
/// loop placed outside an output loop, plus sorting the result when it is stored in a fixed
/// index order (`stored`: the order and the estimated entries) that the loops do not write
/// it in (see [`OrderCosts`]). Greedy for the bound, then a dynamic program over (set of
/// looped indices, set of discordant accesses), pruned by the bound.
pub(super) fn choose_loop_order(
    loops: &[Idx],
    outputs: &[Idx],
    stored: Option<(&[Idx], f64)>,
    body: &TensorStats,
    accs: &[Acc],
    sizes: &dyn Fn(&Idx) -> f64,
    options: &PhysicalOptions,
) -> Vec<Idx> {
    let n = loops.len();
    if n <= 1 {
        return loops.to_vec();
    }
    let mut costs = OrderCosts::new(loops, outputs, stored, body, accs, sizes, options);
    let (greedy, bound) = costs.greedy();
    let best = if n > options.max_exact_loops || accs.len() >= 64 {
        greedy
    } else {
        costs.exact(bound).unwrap_or(greedy)
    };
    best.iter().map(|&k| loops[k].clone()).collect()
}

/// The cost model of loop orders of one query, over loop positions `0..n` (sets of them
/// as bit masks): what adding one more loop inside a prefix costs.
struct OrderCosts<'a> {
    loops: &'a [Idx],
    body: &'a TensorStats,
    accs: &'a [Acc],
    sizes: &'a dyn Fn(&Idx) -> f64,
    options: &'a PhysicalOptions,
    /// Estimated body entries per prefix (set of loops), memoized.
    prefix_cost: HashMap<u64, f64>,
    /// Per access, the loop positions of its indices in its stored order; after the
    /// accesses, the result's when it is stored in a fixed order.
    access_masks: Vec<Vec<usize>>,
    /// The estimated entries of a result stored in a fixed order (sorted when written out
    /// of it), 0 when its order follows the loops.
    stored_entries: f64,
    /// Per access, cache lines per fiber entered (0 for accesses that fit in cache).
    lines_per_fiber: Vec<f64>,
    /// The loops of output indices.
    output_mask: u64,
    /// Estimated entries of the whole body.
    body_entries: f64,
}

impl<'a> OrderCosts<'a> {
    /// The cost model of ordering `loops` (of which `outputs` are output indices).
    fn new(
        loops: &'a [Idx],
        outputs: &[Idx],
        stored: Option<(&[Idx], f64)>,
        body: &'a TensorStats,
        accs: &'a [Acc],
        sizes: &'a dyn Fn(&Idx) -> f64,
        options: &'a PhysicalOptions,
    ) -> OrderCosts<'a> {
        let n = loops.len();
        let positions = |idxs: &[Idx]| -> Vec<usize> {
            idxs.iter()
                .filter_map(|i| loops.iter().position(|l| l == i))
                .collect()
        };
        let mut access_masks: Vec<Vec<usize>> = accs.iter().map(|a| positions(&a.idxs)).collect();
        let mut stored_entries = 0.0;
        if let Some((order, entries)) = stored {
            if accs.len() < 63 {
                access_masks.push(positions(order));
                stored_entries = entries;
            }
        }
        // Locality: an access too large for the cache costs a cache line per line of each
        // fiber it is entered at, once per iteration of the loop binding its first index (its
        // outermost loop). Binding that index early lets one fiber serve the loops inside (the
        // wedge matrix of a 4-cycle entered per vertex rather than per edge).
        let lines_per_fiber: Vec<f64> = accs
            .iter()
            .map(|a| {
                if a.nnz <= options.cached_slots || a.idxs.len() < 2 {
                    return 0.0;
                }
                let first = a.idxs.iter().map(sizes).fold(f64::INFINITY, f64::min);
                (a.nnz / first.max(1.0) * ENTRY_BYTES / CACHE_LINE_BYTES).max(1.0)
            })
            .collect();
        let output_mask: u64 = (0..n)
            .filter(|&k| outputs.contains(&loops[k]))
            .fold(0, |m, k| m | (1 << k));
        let mut costs = OrderCosts {
            loops,
            body,
            accs,
            sizes,
            options,
            prefix_cost: HashMap::new(),
            access_masks,
            stored_entries,
            lines_per_fiber,
            output_mask,
            body_entries: 0.0,
        };
        costs.body_entries = costs.entered((1u64 << n) - 1);
        costs
    }

    fn n(&self) -> usize {
        self.loops.len()
    }

    /// Estimated body entries over the loops in `mask` (at least 1).
    fn entered(&mut self, mask: u64) -> f64 {
        let (n, loops, body) = (self.n(), self.loops, self.body);
        *self.prefix_cost.entry(mask).or_insert_with(|| {
            let keep: Vec<Idx> = (0..n)
                .filter(|k| mask & (1 << k) != 0)
                .map(|k| loops[k].clone())
                .collect();
            body.project(&keep).estimate().max(1.0)
        })
    }

    /// Accesses that become discordant when loop `i` is added after the set `mask`.
    fn breaks(&self, mask: u64, i: usize) -> u64 {
        let mut out = 0u64;
        for (a, pos) in self.access_masks.iter().enumerate() {
            if let Some(at) = pos.iter().position(|&p| p == i) {
                if pos[at + 1..].iter().any(|&p| mask & (1 << p) != 0) {
                    out |= 1 << a;
                }
            }
        }
        out
    }

    /// Cost of transposing the inputs in `set` (aliases are stored in the order read;
    /// symmetric matrices are read swapped), and of sorting a result stored in a fixed order
    /// when it is in `set`.
    fn transpose_cost(&self, set: u64) -> f64 {
        let accs = self.accs;
        let inputs: f64 = (0..accs.len())
            .filter(|a| set & (1 << a) != 0 && !accs[*a].is_alias && !accs[*a].symmetric)
            .map(|a| accs[a].nnz * self.options.transpose_weight)
            .sum();
        let result = if set & (1 << accs.len()) != 0 {
            self.stored_entries * self.options.transpose_weight
        } else {
            0.0
        };
        inputs + result
    }

    /// Cache lines of the large accesses first entered by loop `k` after `mask`, `entered`
    /// times each.
    fn locality(&self, mask: u64, k: usize, entered: f64) -> f64 {
        self.access_masks
            .iter()
            .zip(&self.lines_per_fiber)
            .filter(|(pos, lines)| {
                **lines > 0.0 && pos.contains(&k) && pos.iter().all(|&p| mask & (1 << p) == 0)
            })
            .map(|(_, lines)| entered * lines)
            .sum()
    }

    /// An aggregate loop outside output loops spanning more cells than the cache holds: the
    /// result's cells are no longer finished one after another, so every body entry is added
    /// into a large accumulator by random access (a hash table) instead of a local sum. (A
    /// few output cells inside, `X[i,j]` over a short `j`, stay cached: no charge.)
    fn scattered(&self, mask: u64, k: usize) -> f64 {
        let aggregate = self.output_mask & (1 << k) == 0;
        let cells_left: f64 = (0..self.n())
            .filter(|&o| self.output_mask & !mask & !(1 << k) & (1 << o) != 0)
            .map(|o| (self.sizes)(&self.loops[o]))
            .product();
        if aggregate && cells_left > self.options.cached_slots {
            self.body_entries * self.options.scattered_write_weight
        } else {
            0.0
        }
    }

    /// `cost` plus what placing loop `k` next after `mask` (with discordant set `disc`)
    /// costs, and the discordant set after it.
    fn step(&mut self, cost: f64, mask: u64, disc: u64, k: usize) -> (f64, u64) {
        let mut nd = disc | self.breaks(mask, k);
        let entered = self.entered(mask | (1 << k));
        // A result stored in a fixed order is written in it only if every aggregate loop
        // outside one of its loops takes one value per iteration of the loops outside it
        // (the keys of a join); otherwise its cells arrive out of order and are sorted.
        let stored_bit = 1u64 << self.accs.len();
        let aggregate = self.output_mask & (1 << k) == 0;
        let outputs_left = self.output_mask & !mask & !(1 << k) != 0;
        if self.stored_entries > 0.0 && aggregate && outputs_left {
            let before = self.entered(mask);
            if entered > before * (1.0 + 1e-9) {
                nd |= stored_bit;
            }
        }
        let c = cost
            + entered
            + self.transpose_cost(nd & !disc)
            + self.locality(mask, k, entered)
            + self.scattered(mask, k);
        (c, nd)
    }

    /// The greedy order (cheapest next loop each time) and its cost, the search's bound.
    fn greedy(&mut self) -> (Vec<usize>, f64) {
        let n = self.n();
        let mut mask = 0u64;
        let mut disc = 0u64;
        let mut order = vec![];
        let mut bound = 0.0;
        while order.len() < n {
            // `entered` is at least 1, so `0.0 + entered` is `entered` exactly.
            let (best_i, best_c) = (0..n)
                .filter(|k| mask & (1 << k) == 0)
                .map(|k| (k, self.step(0.0, mask, disc, k).0))
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .expect("an index is left");
            disc |= self.breaks(mask, best_i);
            mask |= 1 << best_i;
            bound += best_c;
            order.push(best_i);
        }
        (order, bound)
    }

    /// The cheapest order costing at most `bound`, by a dynamic program over (looped set,
    /// discordant set) layers pruned by the bound; `None` if none is found within it.
    fn exact(&mut self, bound: f64) -> Option<Vec<usize>> {
        let n = self.n();
        let mut layer: BTreeMap<(u64, u64), (f64, Vec<usize>)> = BTreeMap::new();
        layer.insert((0, 0), (0.0, vec![]));
        for _ in 0..n {
            let mut next: BTreeMap<(u64, u64), (f64, Vec<usize>)> = BTreeMap::new();
            for ((mask, disc), (cost, ord)) in layer {
                for k in 0..n {
                    if mask & (1 << k) != 0 {
                        continue;
                    }
                    let (c, nd) = self.step(cost, mask, disc, k);
                    if c > bound {
                        continue;
                    }
                    let key = (mask | (1 << k), nd);
                    if next.get(&key).is_none_or(|(old, _)| c < *old) {
                        let mut o = ord.clone();
                        o.push(k);
                        next.insert(key, (c, o));
                    }
                }
            }
            layer = next;
        }
        let (c, o) = layer.into_values().min_by(|a, b| a.0.total_cmp(&b.0))?;
        (c <= bound).then_some(o)
    }
}

/// A stored entry's coordinate and value, and the unit the memory system moves.
const ENTRY_BYTES: f64 = 12.0;
const CACHE_LINE_BYTES: f64 = 64.0;
