//! Merge protocols (Galley §6.3): per loop, which access leads (is iterated) and which are
//! looked up, or which are intersected by galloping, priced by the fiber lengths the
//! statistics estimate and the lookup cost of each level format.
//!
//! The last decision of a kernel: it needs the loop order and the formats every access is
//! read in (after any transposition), and changes neither.

use super::accesses::{access_expr, Acc, Stats};
use super::reads::Read;
use crate::plan_ast::{Idx, LevelFormat, Protocol};
use crate::stats::TensorStats;

/// Cost of looking one coordinate up in a level of `format` whose fibers hold about `len`
/// coordinates, in units of one loop iteration: Dense and Bytemap index an array, Hash
/// hashes and probes a table, SortedList bisects (each step a dependent load and an
/// unpredictable branch).
fn lookup_cost(format: LevelFormat, len: f64) -> f64 {
    match format {
        LevelFormat::Dense | LevelFormat::Bytemap => 1.0,
        LevelFormat::Hash => 3.0,
        LevelFormat::SortedList => 1.0 + len.max(1.0).log2(),
    }
}

/// Protocols of every access (Galley §6.3's leader/follower merge, plus galloping
/// intersection): at each loop, of the covering accesses that bind its index, either the
/// one with the fewest coordinates leads and the others are looked up, or all those with
/// sorted levels are intersected ([`Protocol::Gallop`]), whichever the cost model prices
/// lower. Per coordinate of the walk, a lookup costs [`lookup_cost`]; an intersection
/// walks the shortest fiber and gallops in each other, `1 + log2(1 + ratio)` per step.
pub(super) fn choose_protocols(
    loop_order: &[Idx],
    accs: &[Acc],
    reads: &[Read],
    st: &Stats,
) -> Vec<Vec<Protocol>> {
    let mut protocols: Vec<Vec<Protocol>> = reads
        .iter()
        .map(|r| vec![Protocol::Lookup; r.idxs.len()])
        .collect();
    let stats: Vec<TensorStats> = accs
        .iter()
        .map(|a| st.leaf(&access_expr(a)).expect("stats computed in pass 1"))
        .collect();
    for (depth, i) in loop_order.iter().enumerate() {
        let outer = &loop_order[..depth];
        // (access, mode, estimated fiber length, format) of every read binding `i`.
        let binds: Vec<(usize, usize, f64, LevelFormat)> = reads
            .iter()
            .enumerate()
            .filter_map(|(k, r)| {
                let m = r.idxs.iter().position(|x| x == i)?;
                let len = stats[k]
                    .conditional_estimate(std::slice::from_ref(i), outer)
                    .max(1.0);
                Some((k, m, len, r.formats[m]))
            })
            .collect();
        let lookups = |skip: &dyn Fn(usize) -> bool| -> f64 {
            binds
                .iter()
                .filter(|b| !skip(b.0))
                .map(|b| lookup_cost(b.3, b.2))
                .sum()
        };
        // The leader: the covering access with the fewest coordinates given the outer loops.
        let Some(leader) = binds
            .iter()
            .filter(|b| accs[b.0].covers)
            .min_by(|a, b| a.2.total_cmp(&b.2))
        else {
            continue;
        };
        let leader_cost = leader.2 * (1.0 + lookups(&|k| k == leader.0));
        let sorted: Vec<&(usize, usize, f64, LevelFormat)> = binds
            .iter()
            .filter(|b| accs[b.0].covers && b.3 != LevelFormat::Dense)
            .collect();
        let gallop_cost = if sorted.len() >= 2 && sorted.len() <= MAX_GALLOP_FIBERS {
            let shortest = sorted.iter().map(|b| b.2).fold(f64::INFINITY, f64::min);
            let steps: f64 = sorted
                .iter()
                .map(|b| 1.0 + (1.0 + b.2 / shortest).log2())
                .sum();
            // The shortest fiber's own walk counts once, not as a gallop.
            let walk = steps - 1.0;
            shortest * (walk + lookups(&|k| sorted.iter().any(|b| b.0 == k)))
        } else {
            f64::INFINITY
        };
        if gallop_cost < leader_cost {
            for b in &sorted {
                protocols[b.0][b.1] = Protocol::Gallop;
            }
        } else {
            protocols[leader.0][leader.1] = Protocol::Iterate;
        }
    }
    protocols
}

/// Most accesses one intersection takes (the engine keeps their positions on the stack).
const MAX_GALLOP_FIBERS: usize = crate::engine::intersect::MAX_FIBERS;
