//! Kernels whose result needs no loop, computed directly so the loop kernels never see
//! them:
//! - **an empty domain**: an index ranges over zero coordinates (an input with a
//!   zero-length mode: an empty edge list, a 0×0 matrix, a `(0, 3)` array). No loop body
//!   runs; every output cell is the aggregate of nothing — the aggregate's identity (0 for
//!   `sum`, 1 for `prod`, −∞ for `max`, ...) — or the output has no cells at all.
//! - **all-fill inputs**: no input stores an entry (`# dims [100000, 100000] fill 1`).
//!   Every cell of the body is the body at the fills, so every output cell is that value
//!   aggregated over the aggregated indices' cells, in closed form: summing 10^10 cells
//!   takes one multiplication, and domains beyond 2^64 cells stay exact in floating point.

use std::collections::HashMap;

use super::fibertree::FiberTensor;
use crate::plan_ast::{Idx, LevelFormat, PhysExpr, PhysicalQuery};

/// The result of `q` when one of its indices has extent 0 or no input stores an entry;
/// `None` otherwise (or when an access names no tensor: the kernels report that).
pub fn result<'a>(
    q: &PhysicalQuery,
    tensor: &dyn Fn(&str, bool) -> Option<&'a FiberTensor>,
) -> Option<FiberTensor> {
    let mut extents: HashMap<&Idx, usize> = HashMap::new();
    let mut all_fill = true;
    let mut stack = vec![&q.body];
    while let Some(e) = stack.pop() {
        match e {
            PhysExpr::Access(a) => {
                let t = tensor(&a.name, a.is_alias)?;
                all_fill &= t.order() > 0 && t.vals.is_empty();
                for (i, &d) in a.idxs.iter().zip(&t.dims) {
                    extents.insert(i, d);
                }
            }
            PhysExpr::Literal(_) => {}
            PhysExpr::Map { args, .. } => stack.extend(args),
        }
    }
    let empty_domain = extents.values().any(|&d| d == 0);
    if !empty_domain && !all_fill {
        return None;
    }
    let dims: Vec<usize> = q
        .output_idxs
        .iter()
        .map(|i| extents.get(i).copied())
        .collect::<Option<_>>()?;
    let value = if empty_domain {
        q.agg.map_or(0.0, |agg| agg.init())
    } else {
        let body = at_fill(&q.body, tensor)?;
        match q.agg {
            Some(agg) => {
                let cells: f64 = q
                    .agg_idxs
                    .iter()
                    .map(|i| extents.get(i).map(|&d| d as f64))
                    .product::<Option<f64>>()?;
                agg.repeat(body, cells)
            }
            None => body,
        }
    };
    let formats = vec![LevelFormat::SortedList; dims.len()];
    Some(FiberTensor::from_sorted(&dims, &[], &[], value, &formats))
}

/// The body's value where every access reads its tensor's fill.
fn at_fill<'a>(
    e: &PhysExpr,
    tensor: &dyn Fn(&str, bool) -> Option<&'a FiberTensor>,
) -> Option<f64> {
    match e {
        PhysExpr::Literal(v) => Some(*v),
        PhysExpr::Access(a) => tensor(&a.name, a.is_alias).map(|t| t.fill),
        PhysExpr::Map { op, args } => {
            let vals = args
                .iter()
                .map(|a| at_fill(a, tensor))
                .collect::<Option<Vec<f64>>>()?;
            Some(op.apply(&vals))
        }
    }
}
