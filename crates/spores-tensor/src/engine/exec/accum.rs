//! Where a kernel's results accumulate ([`Accumulator`]: cells in key order, a dense array,
//! or a hash map), how workers' private accumulators merge, and how the accumulated cells
//! become the result tensor in its requested formats ([`materialize`]).
//!
//! Separate from the loops because the choice of accumulator depends on the output's
//! formats and loop order only, and the loops write through one function whatever it is
//! ([`write_cell`](super::loops::write_cell)).

use rustc_hash::FxHashMap;

use crate::engine::fibertree::{FiberTensor, MAX_DENSE_POSITIONS};
use crate::plan_ast::{AggOp, LevelFormat, PhysicalQuery};
use crate::TensorError;

/// Where results accumulate: one cell per output coordinate.
pub(super) enum Accumulator {
    /// Cells arrive in key order, each once (outputs in loop order, aggregates innermost).
    Sequential(Vec<(u64, f64)>),
    Dense {
        vals: Vec<f64>,
        touched: Vec<bool>,
    },
    Hash(FxHashMap<u64, f64>),
}

/// Dense accumulation up to this many cells; hashed beyond.
const DENSE_ACCUMULATOR_CELLS: usize = 1 << 22;

impl Accumulator {
    /// An empty accumulator of the same kind and size (a worker thread's private output).
    pub(super) fn empty_like(&self, init: f64) -> Accumulator {
        match self {
            Accumulator::Sequential(_) => Accumulator::Sequential(vec![]),
            Accumulator::Dense { vals, touched } => Accumulator::Dense {
                vals: vec![init; vals.len()],
                touched: vec![false; touched.len()],
            },
            Accumulator::Hash(_) => Accumulator::Hash(FxHashMap::default()),
        }
    }

    /// Cells of a dense accumulator (what a private copy costs to allocate and merge).
    pub(super) fn dense_cells(&self) -> usize {
        match self {
            Accumulator::Dense { vals, .. } => vals.len(),
            _ => 0,
        }
    }

    /// Folds `other` (cells written by a worker over a later part of the outermost loop)
    /// into `self`. A cell both wrote is combined with the aggregate; without an aggregate
    /// every cell is written once, by one of them.
    pub(super) fn merge(&mut self, other: Accumulator, agg: Option<AggOp>, init: f64) {
        let combine = |old: f64, new: f64| match agg {
            Some(a) => a.combine(old, new),
            None => new,
        };
        match (self, other) {
            (Accumulator::Sequential(mine), Accumulator::Sequential(theirs)) => {
                for (k, v) in theirs {
                    match mine.last_mut() {
                        Some(last) if last.0 == k => last.1 = combine(last.1, v),
                        _ => mine.push((k, v)),
                    }
                }
            }
            (
                Accumulator::Dense { vals, touched },
                Accumulator::Dense {
                    vals: tv,
                    touched: tt,
                },
            ) => {
                if touched.is_empty() {
                    // No mask: an untouched cell holds `init`, the aggregate's identity (or,
                    // without an aggregate, 0 = the fill).
                    for (m, t) in vals.iter_mut().zip(tv) {
                        if agg.is_some() {
                            *m = combine(*m, t);
                        } else if t.to_bits() != init.to_bits() {
                            *m = t;
                        }
                    }
                } else {
                    for (k, t) in tt.into_iter().enumerate() {
                        if t {
                            vals[k] = if touched[k] {
                                combine(vals[k], tv[k])
                            } else {
                                tv[k]
                            };
                            touched[k] = true;
                        }
                    }
                }
            }
            (Accumulator::Hash(mine), Accumulator::Hash(theirs)) => {
                for (k, v) in theirs {
                    mine.entry(k)
                        .and_modify(|old| *old = combine(*old, v))
                        .or_insert(v);
                }
            }
            _ => unreachable!("workers accumulate in the kind of the main accumulator"),
        }
    }
}

/// The output's cells and the stride of each output mode (row-major keys); errors when the
/// cells do not fit in 64 bits.
pub(super) fn output_strides(
    q: &PhysicalQuery,
    out_dims: &[usize],
) -> Result<(Vec<u64>, u64), TensorError> {
    let mut strides = vec![1u64; out_dims.len()];
    let mut cells: u64 = 1;
    for m in (0..out_dims.len()).rev() {
        strides[m] = cells;
        cells = cells.checked_mul(out_dims[m] as u64).ok_or_else(|| {
            TensorError::Invalid(format!(
                "kernel {}: output of dims {out_dims:?} has more than 2^64 cells",
                q.name
            ))
        })?;
    }
    Ok((strides, cells))
}

/// Whether the output is all dense and small enough to accumulate in place (its value array
/// becomes the result's).
pub(super) fn all_dense_output(q: &PhysicalQuery, out_dims: &[usize], cells: u64) -> bool {
    !out_dims.is_empty()
        && q.output_formats.len() == out_dims.len()
        && q.output_formats.iter().all(|f| *f == LevelFormat::Dense)
        && cells <= MAX_DENSE_POSITIONS as u64
}

/// The accumulator of a kernel: in place for an all-dense output, in key order when cells
/// arrive in order (`sequential`), a dense scratch array for small dense-shaped outputs,
/// else a hash map.
pub(super) fn new_accumulator(
    q: &PhysicalQuery,
    all_dense: bool,
    sequential: bool,
    cells: u64,
    out_fill: f64,
) -> Accumulator {
    // When an untouched cell's initial value already is the result's fill (sums with fill
    // 0, the common case), no touched mask is kept: a zeroed array costs only the pages
    // actually written.
    let init = q.agg.map_or(out_fill, AggOp::init);
    let needs_mask = !(init == out_fill && (q.agg.is_some() || init == 0.0));
    if all_dense {
        Accumulator::Dense {
            vals: vec![init; cells as usize],
            touched: if needs_mask {
                vec![false; cells as usize]
            } else {
                vec![]
            },
        }
    } else if sequential {
        Accumulator::Sequential(vec![])
    } else if (cells as usize) <= DENSE_ACCUMULATOR_CELLS
        && q.output_formats
            .iter()
            .any(|f| matches!(f, LevelFormat::Dense | LevelFormat::Bytemap))
    {
        // Dense-shaped outputs may pay for a dense scratch array; sparse ones (SortedList,
        // Hash) pay only per written cell, which is what makes them cheap for small results.
        Accumulator::Dense {
            vals: vec![q.agg.map_or(out_fill, AggOp::init); cells as usize],
            touched: vec![false; cells as usize],
        }
    } else {
        Accumulator::Hash(FxHashMap::default())
    }
}

/// The accumulated cells as the result tensor, in the formats `q` requests (cells holding
/// the fill are not stored).
pub(super) fn materialize(
    q: &PhysicalQuery,
    acc: Accumulator,
    strides: &[u64],
    out_dims: &[usize],
    out_fill: f64,
    all_dense: bool,
) -> FiberTensor {
    let order = out_dims.len();
    if all_dense {
        if let Accumulator::Dense { mut vals, touched } = acc {
            if !touched.is_empty() {
                for (v, t) in vals.iter_mut().zip(&touched) {
                    if !t {
                        *v = out_fill;
                    }
                }
            }
            return FiberTensor::dense(out_dims, vals, out_fill);
        }
    }
    let mut coords: Vec<u32> = vec![];
    let mut vals: Vec<f64> = vec![];
    let mut push = |key: u64, v: f64| {
        if v == out_fill || (v.is_nan() && out_fill.is_nan()) {
            return;
        }
        for (&stride, &dim) in strides.iter().zip(out_dims) {
            coords.push(((key / stride) % dim as u64) as u32);
        }
        vals.push(v);
    };
    if order == 0 {
        let v = match acc {
            Accumulator::Sequential(v) => v.first().map_or(out_fill, |x| x.1),
            Accumulator::Dense { vals, touched } => {
                if touched[0] {
                    vals[0]
                } else {
                    out_fill
                }
            }
            Accumulator::Hash(h) => h.get(&0).copied().unwrap_or(out_fill),
        };
        return FiberTensor::from_sorted(&[], &[], &[v], out_fill, &[]);
    }
    match acc {
        Accumulator::Sequential(entries) => {
            for (k, v) in entries {
                push(k, v);
            }
        }
        Accumulator::Dense { vals: dv, touched } => {
            for (k, (&v, &t)) in dv.iter().zip(&touched).enumerate() {
                if t {
                    push(k as u64, v);
                }
            }
        }
        Accumulator::Hash(h) => {
            let mut entries: Vec<(u64, f64)> = h.into_iter().collect();
            entries.sort_unstable_by_key(|e| e.0);
            for (k, v) in entries {
                push(k, v);
            }
        }
    }
    // Levels the plan does not name are sorted lists (`from_sorted`'s default).
    FiberTensor::from_sorted(out_dims, &coords, &vals, out_fill, &q.output_formats)
}
