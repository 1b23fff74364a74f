//! Sparsity estimation (Galley §7): statistics about the non-fill pattern of a tensor, carried
//! bottom-up through an expression so the optimizers can price intermediates before computing
//! them.
//!
//! Every estimator implements the five functions of Galley §7.2 on [`TensorStats`]:
//!
//! 1. [`TensorStats::from_tensor`]: statistics of a materialized tensor;
//! 2. [`TensorStats::conjunction`]: an annihilating `Map` (the output is non-fill only where
//!    every annihilating child is non-fill: a join);
//! 3. [`TensorStats::disjunction`]: a non-annihilating `Map` (non-fill where any child is: a
//!    union over the finite index domains);
//! 4. [`TensorStats::aggregate`]: an `Agg` (a projection);
//! 5. [`TensorStats::estimate`]: the estimated number of non-fill entries.
//!
//! [`Estimator::Uniform`] keeps one count and assumes entries are spread uniformly (System R);
//! [`Estimator::Chain`] keeps degree statistics and returns the chain bound, an upper bound on
//! the true count ([`chain`]); [`Estimator::DensityBound`] keeps one density and propagates
//! SPORES' Figure-12 bound (`bound`) — the estimate `spores-opt` prices linear-algebra plans
//! with, so both optimizers share this one implementation. The estimator is an enum rather than a trait object so stats can
//! be cloned, compared and stored in memo tables cheaply.

mod bound;
mod chain;
mod map;
mod uniform;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::OnceLock;

pub use chain::DegreeConstraint;
pub use map::map_stats;

use crate::{AggOp, Idx, StatsError, StoredTensor};

/// Which sparsity estimator the optimizers use for a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Estimator {
    /// Non-fill count only, uniformity assumption (Galley §7.3.1).
    Uniform,
    /// Degree statistics and the chain bound (Galley §7.3.2), Galley's default.
    #[default]
    Chain,
    /// One density per tensor, SPORES' Figure 12 (min for joins, sum for unions, times the
    /// aggregated cells for aggregates): what `spores-opt` uses for linear algebra.
    DensityBound,
}

/// At most this many distinct indices in one statistics object (index sets are bitmasks).
pub const MAX_STATS_IDXS: usize = 64;

/// Statistics about the non-fill pattern of a tensor (an input, an intermediate, or an
/// expression node) over a set of named indices.
#[derive(Clone, Debug)]
pub struct TensorStats {
    /// The indices the tensor ranges over, sorted; bit `k` of every mask is `idxs[k]`.
    idxs: Vec<Idx>,
    /// Dimension of each index (parallel to `idxs`).
    dims: Vec<usize>,
    /// The value of every entry not counted as non-fill.
    fill: f64,
    kind: Kind,
    /// Memo of [`TensorStats::estimate`] (the chain bound runs a shortest-path search).
    estimate: OnceLock<f64>,
}

#[derive(Clone, Debug)]
enum Kind {
    Uniform {
        nnz: f64,
    },
    /// Non-fill entries / cells (an upper bound, see `bound`).
    DensityBound {
        density: f64,
    },
    Chain {
        dcs: Vec<DegreeConstraint>,
        /// A known upper bound on the non-fill count (the count itself for inputs); needed for
        /// order-0 tensors, whose index lattice has a single node.
        cap: f64,
    },
}

impl TensorStats {
    /// Statistics of a materialized tensor accessed as `t[idxs...]` (an index may repeat, as
    /// in a diagonal access `A[i,i]`).
    pub fn from_tensor(
        estimator: Estimator,
        tensor: &impl StoredTensor,
        idxs: &[Idx],
    ) -> Result<TensorStats, StatsError> {
        InputStats::base_stats(estimator, tensor).0.relabel(idxs)
    }

    /// The statistics of a constant (a literal): no index, no non-fill entry, fill `value`.
    pub fn scalar(estimator: Estimator, value: f64) -> TensorStats {
        let kind = match estimator {
            Estimator::Uniform => Kind::Uniform { nnz: 0.0 },
            Estimator::DensityBound => Kind::DensityBound { density: 0.0 },
            Estimator::Chain => Kind::Chain {
                dcs: vec![],
                cap: 0.0,
            },
        };
        TensorStats::new(vec![], vec![], value, kind)
    }

    /// Statistics of a tensor whose every entry is non-fill (the estimators' worst case).
    pub fn dense(
        estimator: Estimator,
        idx_dims: &[(Idx, usize)],
        fill: f64,
    ) -> Result<TensorStats, StatsError> {
        let (idxs, dims) = sorted_idx_dims(idx_dims)?;
        let cells: f64 = dims.iter().map(|&d| d as f64).product();
        let kind = match estimator {
            Estimator::Uniform => Kind::Uniform { nnz: cells },
            Estimator::DensityBound => Kind::DensityBound { density: 1.0 },
            Estimator::Chain => Kind::Chain {
                dcs: vec![],
                cap: cells,
            },
        };
        Ok(TensorStats::new(idxs, dims, fill, kind))
    }

    /// Statistics known only by their density (non-fill entries / cells, clamped to
    /// `[0, 1]`), e.g. a matrix whose non-zero count is all the linear-algebra optimizer knows.
    pub fn with_density(
        estimator: Estimator,
        idx_dims: &[(Idx, usize)],
        density: f64,
        fill: f64,
    ) -> Result<TensorStats, StatsError> {
        let (idxs, dims) = sorted_idx_dims(idx_dims)?;
        let density = density.clamp(0.0, 1.0);
        let cells: f64 = dims.iter().map(|&d| d as f64).product();
        let kind = match estimator {
            Estimator::Uniform => Kind::Uniform {
                nnz: density * cells,
            },
            Estimator::DensityBound => Kind::DensityBound { density },
            Estimator::Chain => Kind::Chain {
                dcs: vec![],
                cap: density * cells,
            },
        };
        Ok(TensorStats::new(idxs, dims, fill, kind))
    }

    fn new(idxs: Vec<Idx>, dims: Vec<usize>, fill: f64, kind: Kind) -> TensorStats {
        TensorStats {
            idxs,
            dims,
            fill,
            kind,
            estimate: OnceLock::new(),
        }
    }

    pub fn estimator(&self) -> Estimator {
        match self.kind {
            Kind::Uniform { .. } => Estimator::Uniform,
            Kind::DensityBound { .. } => Estimator::DensityBound,
            Kind::Chain { .. } => Estimator::Chain,
        }
    }

    /// The indices the statistics range over, sorted.
    pub fn idxs(&self) -> &[Idx] {
        &self.idxs
    }

    /// The dimension of `idx`, if the statistics range over it.
    pub fn dim(&self, idx: &Idx) -> Option<usize> {
        self.position(idx).map(|k| self.dims[k])
    }

    pub fn fill(&self) -> f64 {
        self.fill
    }

    /// Number of cells of the index space (the most non-fill entries there can be).
    pub fn cells(&self) -> f64 {
        self.dims.iter().map(|&d| d as f64).product()
    }

    fn position(&self, idx: &Idx) -> Option<usize> {
        self.idxs.binary_search(idx).ok()
    }

    fn mask_of(&self, idxs: &[Idx]) -> u64 {
        idxs.iter()
            .filter_map(|i| self.position(i))
            .fold(0, |m, k| m | (1 << k))
    }

    /// The degree constraints (chain estimator only; empty for uniform statistics).
    pub fn degree_constraints(&self) -> Vec<(Vec<Idx>, Vec<Idx>, f64)> {
        let Kind::Chain { dcs, .. } = &self.kind else {
            return vec![];
        };
        let names = |m: u64| -> Vec<Idx> {
            (0..self.idxs.len())
                .filter(|k| m & (1 << k) != 0)
                .map(|k| self.idxs[k].clone())
                .collect()
        };
        dcs.iter()
            .map(|dc| (names(dc.x), names(dc.y), dc.d))
            .collect()
    }

    /// Renames the indices: `map` sends each old index to its new name. Two old indices may
    /// meet in one new name (diagonal access); statistics stay upper bounds.
    pub fn rename(&self, map: &dyn Fn(&Idx) -> Idx) -> Result<TensorStats, StatsError> {
        let pairs: Vec<(Idx, usize)> = self
            .idxs
            .iter()
            .zip(&self.dims)
            .map(|(i, &d)| (map(i), d))
            .collect();
        let (idxs, dims) = sorted_idx_dims(&pairs)?;
        let pos: Vec<u64> = pairs
            .iter()
            .map(|(i, _)| 1u64 << idxs.binary_search(i).expect("renamed index is present"))
            .collect();
        let remap = |m: u64| -> u64 {
            (0..pos.len())
                .filter(|k| m & (1 << k) != 0)
                .fold(0, |acc, k| acc | pos[k])
        };
        let kind = match &self.kind {
            Kind::Uniform { nnz } => Kind::Uniform { nnz: *nnz },
            // Renaming keeps the count; two indices meeting in one (a diagonal) shrink the
            // cells, where the count bounds the density.
            Kind::DensityBound { density } => {
                let cells: f64 = dims.iter().map(|&d| d as f64).product();
                let nnz = density * self.cells();
                Kind::DensityBound {
                    density: if cells <= 0.0 {
                        0.0
                    } else {
                        (nnz / cells).min(1.0)
                    },
                }
            }
            Kind::Chain { dcs, cap } => Kind::Chain {
                dcs: chain::dedup(
                    dcs.iter()
                        .filter_map(|dc| {
                            let y = remap(dc.y);
                            let x = remap(dc.x) & !y;
                            (x != 0).then_some(DegreeConstraint { x, y, d: dc.d })
                        })
                        .collect(),
                ),
                cap: *cap,
            },
        };
        Ok(TensorStats::new(idxs, dims, self.fill, kind))
    }

    /// Statistics of positional base stats (indices `#0`, `#1`, ...) accessed as `t[idxs]`.
    fn relabel(&self, idxs: &[Idx]) -> Result<TensorStats, StatsError> {
        if idxs.len() != self.idxs.len() {
            return Err(StatsError::Invalid(format!(
                "a tensor with {} modes is indexed by {} indices [{}]",
                self.idxs.len(),
                idxs.len(),
                idxs.iter().map(Idx::name).collect::<Vec<_>>().join(",")
            )));
        }
        self.rename(&|i: &Idx| idxs[positional(i)].clone())
    }

    /// Function 2: an annihilating `Map` whose output ranges over `out` and is non-fill only
    /// where every stats in `annihilating` is non-fill. Indices of `out` not covered by any of
    /// them are unconstrained (another child that does not annihilate depends on them).
    pub fn conjunction(
        annihilating: &[&TensorStats],
        out: &[(Idx, usize)],
        fill: f64,
    ) -> Result<TensorStats, StatsError> {
        Self::combine(annihilating, out, fill, |est, idxs, dims| match est {
            Estimator::Uniform => uniform::conjunction(annihilating, dims),
            Estimator::DensityBound => bound::conjunction(annihilating),
            Estimator::Chain => chain::conjunction(annihilating, idxs, dims),
        })
    }

    /// Function 3: a non-annihilating `Map` over `out`: non-fill where any child is.
    pub fn disjunction(
        children: &[&TensorStats],
        out: &[(Idx, usize)],
        fill: f64,
    ) -> Result<TensorStats, StatsError> {
        Self::combine(children, out, fill, |est, idxs, dims| match est {
            Estimator::Uniform => uniform::disjunction(children, idxs, dims),
            Estimator::DensityBound => bound::disjunction(children),
            Estimator::Chain => chain::disjunction(children, idxs, dims),
        })
    }

    /// Stats over `out` (sorted) whose kind `kind_of` derives, under the children's
    /// estimator, from the sorted indices and dimensions.
    fn combine(
        children: &[&TensorStats],
        out: &[(Idx, usize)],
        fill: f64,
        kind_of: impl FnOnce(Estimator, &[Idx], &[usize]) -> Kind,
    ) -> Result<TensorStats, StatsError> {
        let (idxs, dims) = sorted_idx_dims(out)?;
        let est = children.first().map(|s| s.estimator()).unwrap_or_default();
        let kind = kind_of(est, &idxs, &dims);
        Ok(TensorStats::new(idxs, dims, fill, kind))
    }

    /// Function 4: aggregating with `op` over `over` (index, dimension); indices the stats do
    /// not range over are aggregated too (they repeat every value, changing the fill only).
    pub fn aggregate(&self, op: AggOp, over: &[(Idx, usize)]) -> TensorStats {
        let repeats: f64 = over.iter().map(|(_, d)| *d as f64).product();
        let fill = op.repeat(self.fill, repeats);
        let gone = self.mask_of(&over.iter().map(|(i, _)| i.clone()).collect::<Vec<_>>());
        let keep: Vec<usize> = (0..self.idxs.len())
            .filter(|k| gone & (1 << k) == 0)
            .collect();
        let idxs: Vec<Idx> = keep.iter().map(|&k| self.idxs[k].clone()).collect();
        let dims: Vec<usize> = keep.iter().map(|&k| self.dims[k]).collect();
        let kind = match &self.kind {
            Kind::Uniform { nnz } => {
                uniform::aggregate(*nnz, self.cells(), &dims, self.reduced_cells(gone))
            }
            Kind::DensityBound { density } => {
                // Indices the stats do not range over repeat each value; they add no
                // entries (Figure 12 aggregates only over the operand's own indices).
                bound::aggregate(*density, self.reduced_cells(gone))
            }
            Kind::Chain { dcs, .. } => chain::aggregate(dcs, gone, &keep, self.estimate()),
        };
        TensorStats::new(idxs, dims, fill, kind)
    }

    /// The non-fill pattern projected onto `keep` (an existential aggregate over the rest):
    /// how many distinct `keep` coordinates carry a non-fill entry.
    pub fn project(&self, keep: &[Idx]) -> TensorStats {
        let over: Vec<(Idx, usize)> = self
            .idxs
            .iter()
            .zip(&self.dims)
            .filter(|(i, _)| !keep.contains(i))
            .map(|(i, &d)| (i.clone(), d))
            .collect();
        let mut p = self.aggregate(AggOp::Any, &over);
        p.fill = self.fill;
        p
    }

    /// Estimated non-fill entries per coordinate of `given`, over `idxs ∪ given` (for
    /// leader/follower choice: how many coordinates of the remaining indices a loop finds
    /// once `given` is fixed).
    pub fn conditional_estimate(&self, idxs: &[Idx], given: &[Idx]) -> f64 {
        let given: Vec<Idx> = given
            .iter()
            .filter(|i| self.position(i).is_some())
            .cloned()
            .collect();
        let mut both = given.clone();
        both.extend(idxs.iter().filter(|i| self.position(i).is_some()).cloned());
        let num = self.project(&both).estimate();
        if given.is_empty() {
            return num;
        }
        let den = self.project(&given).estimate();
        if den <= 0.0 {
            0.0
        } else {
            num / den
        }
    }

    fn reduced_cells(&self, gone: u64) -> f64 {
        (0..self.idxs.len())
            .filter(|k| gone & (1 << k) != 0)
            .map(|k| self.dims[k] as f64)
            .product()
    }

    /// Function 5: the estimated number of non-fill entries (an upper bound for the chain
    /// estimator), never above the number of cells.
    pub fn estimate(&self) -> f64 {
        *self.estimate.get_or_init(|| {
            let e = match &self.kind {
                Kind::Uniform { nnz } => *nnz,
                Kind::DensityBound { density } => density * self.cells(),
                Kind::Chain { dcs, cap } => chain::bound(dcs, &self.dims).min(*cap),
            };
            e.min(self.cells()).max(0.0)
        })
    }

    /// Estimated fraction of non-fill cells. Density-bound statistics return theirs as
    /// stored: Figure 12's arithmetic works on densities and must not round-trip through a
    /// count.
    pub fn density(&self) -> f64 {
        if let Kind::DensityBound { density } = self.kind {
            return density;
        }
        let cells = self.cells();
        if cells <= 0.0 {
            0.0
        } else {
            self.estimate() / cells
        }
    }

    /// The same statistics for a different estimator (chain statistics drop to their estimate
    /// for the uniform one; uniform statistics become a bare count for the chain one).
    pub fn with_estimator(&self, estimator: Estimator) -> TensorStats {
        if self.estimator() == estimator {
            return self.clone();
        }
        let nnz = self.estimate();
        let kind = match estimator {
            Estimator::Uniform => Kind::Uniform { nnz },
            Estimator::DensityBound => Kind::DensityBound {
                density: self.density(),
            },
            Estimator::Chain => Kind::Chain {
                dcs: vec![],
                cap: nnz,
            },
        };
        TensorStats::new(self.idxs.clone(), self.dims.clone(), self.fill, kind)
    }
}

/// Positional index name of mode `k` in base statistics (`#k`, not a legal user index name).
fn positional_name(k: usize) -> Idx {
    Idx::new(&format!("#{k:02}"))
}

fn positional(i: &Idx) -> usize {
    i.name()[1..].parse().expect("a positional index")
}

/// Sorts and de-duplicates (index, dim) pairs; an index given two dims is an error.
fn sorted_idx_dims(pairs: &[(Idx, usize)]) -> Result<(Vec<Idx>, Vec<usize>), StatsError> {
    let mut v: Vec<(Idx, usize)> = pairs.to_vec();
    v.sort();
    v.dedup();
    for w in v.windows(2) {
        if w[0].0 == w[1].0 {
            return Err(StatsError::Invalid(format!(
                "index {} has size {} in one place and {} in another",
                w[0].0, w[0].1, w[1].1
            )));
        }
    }
    if v.len() > MAX_STATS_IDXS {
        return Err(StatsError::Invalid(format!(
            "an expression over {} distinct indices: sparsity statistics support at most {MAX_STATS_IDXS}",
            v.len()
        )));
    }
    Ok(v.into_iter().unzip())
}

/// Statistics of every input tensor, computed once (degree statistics cost a few passes over
/// the entries) and relabelled per access. Always kept in chain form, which also serves the
/// uniform estimator (its count is one of the degree constraints).
///
/// Besides the degree statistics, each input records whether it is a symmetric matrix
/// (`A == t(A)`, values included), found in the same pass: the physical optimizer then reads
/// `A[j,i]` as `A[i,j]` instead of building a transposed copy.
#[derive(Clone, Debug, Default)]
pub struct InputStats {
    base: HashMap<String, TensorStats>,
    symmetric: BTreeSet<String>,
    /// Inputs whose statistics are bounds of the part a program reads: what they store.
    stored: BTreeMap<String, f64>,
}

impl InputStats {
    pub fn from_tensors<T: StoredTensor>(tensors: &HashMap<String, T>) -> InputStats {
        let mut stats = InputStats::default();
        for (n, t) in tensors {
            stats.insert(n, t);
        }
        stats
    }

    /// Adds (or replaces) one tensor's statistics.
    pub fn insert(&mut self, name: &str, tensor: &impl StoredTensor) {
        let (stats, symmetric) = InputStats::base_stats(Estimator::Chain, tensor);
        self.base.insert(name.to_string(), stats);
        self.stored.remove(name);
        if symmetric {
            self.symmetric.insert(name.to_string());
        } else {
            self.symmetric.remove(name);
        }
    }

    /// Whether input `name` is a square matrix equal to its transpose.
    pub fn is_symmetric(&self, name: &str) -> bool {
        self.symmetric.contains(name)
    }

    /// Records how many entries the stored input `name` holds, for statistics given by
    /// bounds of the part of it a program reads ([`InputStats::insert_bounds`]): copying
    /// it (a transposition) costs every stored entry, not the part read. BFS's adjacency
    /// restricted to the frontier's rows prices a transposed copy at the frontier's edges
    /// otherwise, and a level chose to copy 2 M edges to save walking 30,000.
    pub fn set_stored_entries(&mut self, name: &str, entries: f64) {
        self.stored.insert(name.to_string(), entries);
    }

    /// The entries the stored input `name` holds when its statistics describe only part of
    /// it ([`InputStats::set_stored_entries`]); `None` when they describe all of it.
    pub fn stored_entries(&self, name: &str) -> Option<f64> {
        self.stored.get(name).copied()
    }

    /// Adds (or replaces) statistics of an order-`dims.len()` tensor known only by bounds:
    /// at most `nnz` non-fill entries and, for each `(x, y, d)`, at most `d` distinct
    /// coordinates of modes `x` per coordinate of modes `y` (`D(x|y) <= d`). For callers that
    /// know bounds much cheaper than materializing the tensor (BFS: the adjacency restricted to
    /// the frontier's rows, from the row pointer alone).
    pub fn insert_bounds(
        &mut self,
        name: &str,
        dims: Vec<usize>,
        fill: f64,
        nnz: f64,
        bounds: &[(Vec<usize>, Vec<usize>, f64)],
    ) {
        let order = dims.len();
        let mask = |modes: &[usize]| modes.iter().fold(0u64, |m, &k| m | (1u64 << k));
        let mut dcs: Vec<chain::DegreeConstraint> = bounds
            .iter()
            .map(|(x, y, d)| chain::DegreeConstraint {
                x: mask(x),
                y: mask(y),
                d: *d,
            })
            .collect();
        dcs.push(chain::DegreeConstraint {
            x: (1u64 << order) - 1,
            y: 0,
            d: nnz,
        });
        let idxs: Vec<Idx> = (0..order).map(positional_name).collect();
        let kind = Kind::Chain {
            dcs: chain::dedup(dcs),
            cap: nnz,
        };
        self.base
            .insert(name.to_string(), TensorStats::new(idxs, dims, fill, kind));
        self.symmetric.remove(name);
    }

    pub fn contains(&self, name: &str) -> bool {
        self.base.contains_key(name)
    }

    /// Dimensions of input `name` in mode order.
    pub fn dims(&self, name: &str) -> Option<Vec<usize>> {
        let s = self.base.get(name)?;
        // Positional names sort in mode order (`#00`, `#01`, ...).
        Some(s.dims.clone())
    }

    /// Non-fill entries of input `name` (exact: counted at construction).
    pub fn nnz(&self, name: &str) -> Option<f64> {
        self.base.get(name).map(|s| s.estimate())
    }

    /// Statistics of the access `name[idxs]` for `estimator`.
    pub fn access(
        &self,
        name: &str,
        idxs: &[Idx],
        estimator: Estimator,
    ) -> Result<TensorStats, StatsError> {
        let base = self
            .base
            .get(name)
            .ok_or_else(|| StatsError::Unknown(name.to_string()))?;
        let s = base
            .relabel(idxs)
            .map_err(|e| StatsError::Invalid(format!("{name}: {e}")))?;
        Ok(s.with_estimator(estimator))
    }

    /// The statistics of a stored tensor and whether it is a symmetric matrix.
    fn base_stats(estimator: Estimator, tensor: &impl StoredTensor) -> (TensorStats, bool) {
        let dims = tensor.dims().to_vec();
        let order = dims.len();
        let idxs: Vec<Idx> = (0..order).map(positional_name).collect();
        let fill = tensor.fill();
        let (nonfill, values): (Vec<&[u32]>, Vec<f64>) = tensor
            .entries()
            .filter(|(_, v)| !same_value(*v, fill))
            .unzip();
        let symmetric = order == 2 && dims[0] == dims[1] && is_symmetric(&nonfill, &values);
        let nnz = nonfill.len() as f64;
        let kind = match estimator {
            Estimator::Uniform => Kind::Uniform { nnz },
            Estimator::DensityBound => Kind::DensityBound {
                density: if dims.contains(&0) {
                    0.0
                } else {
                    nnz / dims.iter().map(|&d| d as f64).product::<f64>()
                },
            },
            Estimator::Chain => Kind::Chain {
                dcs: chain::degree_constraints(order, &nonfill),
                cap: nnz,
            },
        };
        (TensorStats::new(idxs, dims, fill, kind), symmetric)
    }
}

/// Whether the matrix with these non-fill entries equals its transpose. Only decided for
/// strictly sorted coordinates (how stored tensors arrive); otherwise `false`, which costs
/// a transposed copy, never a wrong answer. One counting pass builds the transpose's
/// column-major order, which must equal the row-major one entry by entry.
fn is_symmetric(coords: &[&[u32]], values: &[f64]) -> bool {
    if !coords.windows(2).all(|w| w[0] < w[1]) {
        return false;
    }
    let n = coords
        .iter()
        .map(|c| c[0].max(c[1]) as usize + 1)
        .max()
        .unwrap_or(0);
    if n > 4 * coords.len() + 1024 {
        return false;
    }
    let mut start = vec![0usize; n + 1];
    for c in coords {
        start[c[1] as usize + 1] += 1;
    }
    for k in 0..n {
        start[k + 1] += start[k];
    }
    // Entry k of the transpose in row-major order: (column, row) pairs, rows ascending
    // within a column because the input is row-major.
    let mut transposed: Vec<(u32, f64)> = vec![(0, 0.0); coords.len()];
    let mut next = start.clone();
    for (c, &v) in coords.iter().zip(values) {
        let slot = &mut next[c[1] as usize];
        transposed[*slot] = (c[0], v);
        *slot += 1;
    }
    let mut row_start = 0usize;
    for (k, c) in coords.iter().enumerate() {
        if k > 0 && coords[k - 1][0] != c[0] {
            row_start = k;
        }
        // Entry (i, j) is the (k - row_start)-th of row i; the transpose's row i is column
        // i of the input, whose entries sit at start[i]..start[i+1].
        let i = c[0] as usize;
        let at = start[i] + (k - row_start);
        if at >= start[i + 1] {
            return false;
        }
        let (j, v) = transposed[at];
        if j != c[1] || !same_value(v, values[k]) {
            return false;
        }
    }
    // Each row fit into its column (r_i <= c_i for all i) and both sum to the entry count:
    // every row equals its column.
    true
}

/// Value equality where NaN equals NaN (a NaN fill value is still the fill).
pub(crate) fn same_value(a: f64, b: f64) -> bool {
    a == b || (a.is_nan() && b.is_nan())
}

/// Collects the distinct indices of `stats` into (index, dim) pairs.
pub(crate) fn union_idx_dims<'a>(
    stats: impl IntoIterator<Item = &'a TensorStats>,
) -> Vec<(Idx, usize)> {
    let mut set: BTreeSet<(Idx, usize)> = BTreeSet::new();
    for s in stats {
        set.extend(s.idxs.iter().cloned().zip(s.dims.iter().copied()));
    }
    set.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::is_symmetric;

    fn check(entries: &[([u32; 2], f64)]) -> bool {
        let coords: Vec<&[u32]> = entries.iter().map(|(c, _)| &c[..]).collect();
        let values: Vec<f64> = entries.iter().map(|(_, v)| *v).collect();
        is_symmetric(&coords, &values)
    }

    #[test]
    fn symmetry_is_found_in_the_pattern_and_the_values() {
        let sym = [
            ([0, 1], 1.0),
            ([0, 2], 2.0),
            ([1, 0], 1.0),
            ([1, 1], 5.0),
            ([2, 0], 2.0),
        ];
        assert!(check(&sym));
        assert!(check(&[]));
        // A missing mirror entry, a different mirror value, an extra entry in a column.
        assert!(!check(&sym[..4]));
        let mut other_value = sym;
        other_value[4].1 = 3.0;
        assert!(!check(&other_value));
        assert!(!check(&[([0, 1], 1.0), ([1, 0], 1.0), ([2, 1], 1.0)]));
        assert!(
            !check(&[([1, 0], 1.0), ([0, 1], 1.0)]),
            "unsorted input is not decided"
        );
    }
}
