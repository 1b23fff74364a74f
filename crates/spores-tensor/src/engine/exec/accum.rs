//! Where a kernel's results accumulate ([`Accumulator`]: cells in key order, a dense array,
//! or a hash map), how workers' private accumulators merge, and how the accumulated cells
//! become the result tensor in its requested formats ([`materialize`]).
//!
//! Separate from the loops because the choice of accumulator depends on the output's
//! formats and loop order only, and the loops write through one function whatever it is
//! ([`write_cell`](super::loops::write_cell)).

use rustc_hash::FxHashMap;
use spores_exec::ExecError;

use crate::engine::budget::{self, Held};
use crate::engine::fibertree::{FiberTensor, MAX_DENSE_POSITIONS};
use crate::plan_ast::{AggOp, LevelFormat, PhysicalQuery};
use crate::TensorError;

/// Where results accumulate: one cell per output coordinate.
pub(super) enum Accumulator {
    /// Cells arrive in key order, each once (outputs in loop order, aggregates innermost), or
    /// a run of writes to one cell at a time; a write out of key order turns it into a
    /// [`Accumulator::Hash`] ([`Accumulator::unorder`]).
    Sequential(Vec<(u64, f64)>),
    Dense {
        vals: Vec<f64>,
        touched: Vec<bool>,
    },
    Hash(FxHashMap<u64, f64>),
}

/// Dense accumulation up to this many cells; hashed beyond.
const DENSE_ACCUMULATOR_CELLS: usize = 1 << 22;

/// Bytes of one entry of a sequential accumulator (key and value).
const SEQUENTIAL_ENTRY_BYTES: usize = 16;

/// Entries a growing accumulator makes room for at least: the budget is asked once per
/// step, not per entry.
const MIN_GROWTH: usize = 1024;

/// Bytes of a hash accumulator with room for `capacity` entries: its buckets (a power of
/// two, at most 7/8 full) of a key, a value and a control byte.
fn hash_bytes(capacity: usize) -> usize {
    (capacity.max(1) * 8 / 7).next_power_of_two() * (SEQUENTIAL_ENTRY_BYTES + 1)
}

impl Accumulator {
    /// The bytes it holds (its capacity, not its length: what was allocated).
    pub(super) fn bytes(&self) -> usize {
        match self {
            Accumulator::Sequential(v) => v.capacity() * SEQUENTIAL_ENTRY_BYTES,
            Accumulator::Dense { vals, touched } => vals.len() * 8 + touched.len(),
            Accumulator::Hash(h) => hash_bytes(h.capacity()),
        }
    }

    /// Its entries: the cells written (every cell of a dense one without a mask).
    pub(super) fn entries(&self) -> usize {
        match self {
            Accumulator::Sequential(v) => v.len(),
            Accumulator::Dense { vals, touched } if touched.is_empty() => vals.len(),
            Accumulator::Dense { touched, .. } => touched.iter().filter(|&&t| t).count(),
            Accumulator::Hash(h) => h.len(),
        }
    }

    /// Makes room for `more` entries beyond its length, asking the budget (through `held`,
    /// which counts what the kernel's accumulators hold) before it grows: at least doubling,
    /// so the question is asked once per growth step. A dense accumulator has room already.
    pub(super) fn reserve(&mut self, more: usize, held: &Held) -> Result<(), ExecError> {
        match self {
            Accumulator::Sequential(v) if v.capacity() - v.len() < more => {
                let want = (v.len() + more).max(2 * v.capacity()).max(MIN_GROWTH);
                let (from, to) = (v.capacity(), want);
                held.grow(
                    from * SEQUENTIAL_ENTRY_BYTES,
                    to * SEQUENTIAL_ENTRY_BYTES,
                    v.len(),
                )?;
                v.reserve_exact(want - v.len());
            }
            Accumulator::Hash(h) if h.capacity() - h.len() < more => {
                let want = (h.len() + more).max(2 * h.capacity()).max(MIN_GROWTH);
                held.grow(hash_bytes(h.capacity()), hash_bytes(want), h.len())?;
                h.reserve(want - h.len());
            }
            _ => {}
        }
        Ok(())
    }

    /// A sequential accumulator as a hash map, for a write out of key order: asks the
    /// budget for the map (and releases the list) first.
    pub(super) fn unorder(&mut self, held: &Held) -> Result<(), ExecError> {
        let Accumulator::Sequential(entries) = self else {
            return Ok(());
        };
        let want = (2 * entries.len()).max(MIN_GROWTH);
        held.grow(0, hash_bytes(want), entries.len())?;
        held.release(entries.capacity() * SEQUENTIAL_ENTRY_BYTES);
        let mut h = FxHashMap::default();
        h.reserve(want);
        h.extend(std::mem::take(entries));
        *self = Accumulator::Hash(h);
        Ok(())
    }

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
    ///
    /// A worker's sequential cells that do not all follow ours, or either side turned into a
    /// hash map by a write out of order: both merge as hash maps (which asks the budget).
    pub(super) fn merge(
        &mut self,
        mut other: Accumulator,
        agg: Option<AggOp>,
        init: f64,
        held: &Held,
    ) -> Result<(), ExecError> {
        let combine = |old: f64, new: f64| match agg {
            Some(a) => a.combine(old, new),
            None => new,
        };
        let follows = match (&*self, &other) {
            (Accumulator::Sequential(mine), Accumulator::Sequential(theirs)) => {
                match (mine.last(), theirs.first()) {
                    (Some(l), Some(f)) => l.0 <= f.0,
                    _ => true,
                }
            }
            (Accumulator::Sequential(_), Accumulator::Hash(_))
            | (Accumulator::Hash(_), Accumulator::Sequential(_)) => false,
            _ => true,
        };
        if !follows {
            self.unorder(held)?;
            other.unorder(held)?;
        }
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
        Ok(())
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
/// else in key order when they may arrive in order (`maybe_sequential`, turned into a hash
/// map at the first that does not), else a hash map. A dense one is asked of the budget
/// first and counted in `held`; the others ask as they grow ([`Accumulator::reserve`]).
pub(super) fn new_accumulator(
    q: &PhysicalQuery,
    out_dims: &[usize],
    (all_dense, sequential): (bool, bool),
    maybe_sequential: bool,
    out_fill: f64,
    held: &Held,
) -> Result<Accumulator, TensorError> {
    let cells: usize = out_dims.iter().product();
    // When an untouched cell's initial value already is the result's fill (sums with fill
    // 0, the common case), no touched mask is kept: a zeroed array costs only the pages
    // actually written.
    let init = q.agg.map_or(out_fill, AggOp::init);
    let needs_mask = !(init == out_fill && (q.agg.is_some() || init == 0.0));
    let dense = |mask: bool| -> Result<Accumulator, TensorError> {
        budget::ensure_dense(&q.name, out_dims, if mask { 9.0 } else { 8.0 })?;
        let acc = Accumulator::Dense {
            vals: vec![init; cells],
            touched: if mask { vec![false; cells] } else { vec![] },
        };
        held.charge(acc.bytes());
        Ok(acc)
    };
    if all_dense {
        dense(needs_mask)
    } else if sequential {
        Ok(Accumulator::Sequential(vec![]))
    } else if cells <= DENSE_ACCUMULATOR_CELLS
        && q.output_formats
            .iter()
            .any(|f| matches!(f, LevelFormat::Dense | LevelFormat::Bytemap))
    {
        // Dense-shaped outputs may pay for a dense scratch array; sparse ones (SortedList,
        // Hash) pay only per written cell, which is what makes them cheap for small results.
        dense(true)
    } else if maybe_sequential {
        Ok(Accumulator::Sequential(vec![]))
    } else {
        Ok(Accumulator::Hash(FxHashMap::default()))
    }
}

/// The accumulated cells as the result tensor, in the formats `q` requests (cells holding
/// the fill are not stored). A sparse result is built beside the accumulator: both are
/// asked of the budget together (`held` counts the accumulator).
pub(super) fn materialize(
    q: &PhysicalQuery,
    acc: Accumulator,
    strides: &[u64],
    out_dims: &[usize],
    out_fill: f64,
    (all_dense, held): (bool, &Held),
) -> Result<FiberTensor, TensorError> {
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
            return Ok(FiberTensor::dense(out_dims, vals, out_fill));
        }
    }
    let entries = acc.entries();
    budget::ensure_fits(
        &format!(
            "kernel {}: a sparse result of {entries} entries",
            held.kernel()
        ),
        held.bytes() + budget::sparse_bytes(entries, out_dims, &q.output_formats),
    )?;
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
        return Ok(FiberTensor::from_sorted(&[], &[], &[v], out_fill, &[]));
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
    Ok(FiberTensor::from_sorted(
        out_dims,
        &coords,
        &vals,
        out_fill,
        &q.output_formats,
    ))
}
