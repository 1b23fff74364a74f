//! An optimized LA plan as a DataFusion `LogicalPlan` over COO relations.
//!
//! Each operator becomes its relational meaning (SPORES's R_LR translation), applied to
//! the plan the optimizer extracted, so the query has the optimized plan's shape:
//!
//! | LA | relational plan |
//! |---|---|
//! | `A * B` (with broadcasting) | inner join on the indices both have (a cross join when none), `v = a.v * b.v` |
//! | `A + B`, `A - B` | union all of both (each broadcast over the output's indices it lacks), grouped by the indices, `sum(v)` |
//! | `A %*% B` | join `a.j = b.i`, grouped by `a.i, b.j`, `sum(a.v * b.v)` (a cross join for an inner size of 1) |
//! | `t(A)` | the index columns swapped |
//! | `sum`, `rowSums`, `colSums` | aggregate over the indices that disappear |
//! | `-A`, `A ^ k` (`k > 0`), `abs sqrt sign floor ceil`, `sprop` | a projection of the stored tuples (these keep 0 at 0) |
//! | `exp log sigmoid`, `A ^ k` (`k <= 0`), `/ min max` and comparisons | on the dense relation: the index domains cross-joined, left-joined with the tuples |
//! | `matrix(s, r, c)`, constants | one-row relations, cross-joined with index domains |
//! | `sddmm(X, U, V)` | `X(i,j) ⋈ U(i,k) ⋈ V(j,k)` grouped by `i, j`: only `X`'s non-zeros |
//! | `sddmm_sum(X, U, V)` | `sum(U * (X %*% V))` |
//! | `wsloss(X, U, V)` | `sum(X^2) - 2 sddmm_sum(X, U, V) + sum((t(U) %*% U) * (t(V) %*% V))`, as the local kernel computes it for a sparse `X` |
//! | `mmchain`, `tsmm` | their products (`t(X) %*% (X %*% v)`, ...), never a dense `m x n` intermediate |
//! | `masked_mul(X, E)`, `masked_div(X, E)` | `X * E`, and `X / E` joined on `X`'s tuples (E dense) |
//! | `mean trace nrow ncol length diag as.scalar as.matrix` | aggregates, filters `i = j`, constants, renames |
//!
//!
//! Beside a file input too large to hold, small operands are held in memory instead
//! ([`Lowering::with_holding`], [`crate::broadcast`]): a product with a held vector, an
//! elementwise product with a held operand and `sddmm`/`sddmm_sum` with held factors read
//! them by index in a projection of the streamed relation, and a subexpression over held
//! inputs alone (e.g. the gram matrices of `wsloss`) runs on the local kernels. With a
//! runner at hand, `wsloss` with held factors is one pass over `X` folded into a number.
//!
//! A relation stores only non-zero cells (it may also hold zeros a sum cancelled); a
//! missing tuple is 0. That is the sparse reading of every sum-product operator, and it
//! equals the local engine's cell semantics for finite values: the engine choice keeps
//! blocks whose inputs may hold NaN or infinities on the local kernels.

use std::collections::HashMap;
use std::sync::{Arc, Weak};

use datafusion::arrow::record_batch::RecordBatch;
use datafusion::catalog::TableProvider;
use datafusion::common::Column;
use datafusion::datasource::{provider_as_source, MemTable};
use datafusion::functions::expr_fn::{abs, ceil, coalesce, exp, floor, ln, power, signum, sqrt};
use datafusion::functions_aggregate::expr_fn::sum;
use datafusion::logical_expr::{col, lit, when, Expr, JoinType, LogicalPlan, LogicalPlanBuilder};
use spores_exec::io::parquet_coo;
use spores_exec::kernels::elementwise::{binary_reusing, BinaryOp};
use spores_exec::{CsrMatrix, DenseMatrix, Matrix};
use spores_opt::eval::{apply, eval_in};
use spores_opt::fused::expand_fused;
use spores_opt::la::{Dim, LaExpr, ShapeEnv};

use crate::broadcast::{cell, dense_bytes, row_dot, Cells, Held};
use crate::coo::{self, COL, ROW, VALUE};
use crate::error::DistError;
use crate::fold::DenseFold;
use crate::source::{held_table, FileScan, Leaf, LeafRef};

/// A lowered subexpression: a plan whose output columns are [`coo::schema`]'s for its
/// shape (unqualified `i`, `j`, `v`).
#[derive(Clone, Debug)]
pub struct Rel {
    pub plan: LogicalPlan,
    pub rows: usize,
    pub cols: usize,
    /// The input it scans, when it is one.
    leaf: Option<String>,
    /// Its cells in memory, when held (see [`crate::broadcast`]).
    held: Option<Held>,
}

impl Rel {
    /// Its cells in memory, when they are held (the plan that scans them is dropped).
    pub fn into_held(self) -> Option<Held> {
        self.held
    }

    fn has_row(&self) -> bool {
        self.rows != 1
    }

    fn has_col(&self) -> bool {
        self.cols != 1
    }
}

type Result<T> = std::result::Result<T, DistError>;

/// The rows (or columns) `lo:hi` of `index(X, ...)` select out of `size`, 0-based and end
/// exclusive: all of them for `0, 0`, else DML's 1-based inclusive range.
fn span(lo: &LaExpr, hi: &LaExpr, size: usize) -> Result<(usize, usize)> {
    let bound = |e: &LaExpr| match e {
        LaExpr::Const(c) if *c >= 0.0 => Ok(c.trunc() as usize),
        _ => Err(DistError::Unsupported(format!("the index bound `{e}`"))),
    };
    match (bound(lo)?, bound(hi)?) {
        (0, 0) => Ok((0, size)),
        (a, b) if a >= 1 && b >= a && b <= size => Ok((a - 1, b)),
        (a, b) => Err(DistError::Plan(format!(
            "index {a}:{b} of a dimension of {size}"
        ))),
    }
}

/// Runs subplans while a plan is lowered, so that small results are held in memory for
/// the operators that read them (an engine running here; a cluster holds nothing).
pub trait Runner {
    /// Runs `plan` to its batches within a memory pool of `pool` bytes.
    fn collect(&self, plan: LogicalPlan, pool: usize) -> Result<Vec<RecordBatch>>;

    /// Runs `plan` within a pool of `pool` bytes and folds its tuples into a dense array
    /// ([`crate::fold`]), one array per stream, at most `streams` streams at once.
    fn fold(
        &self,
        plan: LogicalPlan,
        pool: usize,
        fold: &DenseFold,
        streams: usize,
    ) -> Result<DenseMatrix>;
}

/// Small operands held in memory instead of joined ([`crate::broadcast`]), within a
/// share of the memory budget.
struct Holding<'a> {
    /// The whole memory budget; held operands take from it what the plan's pool lacks.
    budget: usize,
    /// Bytes operands may hold in all.
    limit: usize,
    /// What is held: an array counts while a plan, a lookup or the lowering still
    /// references it (an intermediate read by the local kernels is freed after).
    held: Vec<Weak<Cells>>,
    /// Inputs read into memory, by name.
    leaves: HashMap<String, Held>,
    /// Runs subplans, so that a small intermediate (e.g. `X %*% v`) is held for the
    /// product it feeds and small sums are folded into arrays; without it only inputs
    /// and local evaluations are held.
    runner: Option<&'a dyn Runner>,
}

impl Holding<'_> {
    /// Bytes of the arrays held and still referenced.
    fn used(&self) -> usize {
        self.held
            .iter()
            .filter_map(|w| w.upgrade())
            .map(|cells| cells.bytes())
            .sum()
    }

    fn register(&mut self, held: &Held) {
        self.held.retain(|w| w.strong_count() > 0);
        self.held.push(held.weak());
    }

    /// Bytes still free.
    fn left(&self) -> f64 {
        self.limit.saturating_sub(self.used()) as f64
    }

    fn fits(&self, bytes: f64) -> bool {
        bytes <= self.left()
    }
}

/// Lowers LA plans over one set of named inputs (scalars are `1 x 1` matrices). Each input
/// becomes one in-memory table, scanned wherever the plan reads it.
pub struct Lowering<'a, M: Leaf> {
    inputs: &'a HashMap<String, M>,
    tables: HashMap<String, (Arc<dyn TableProvider>, bool)>,
    /// Partitions a file's scan is split into.
    partitions: usize,
    /// How file inputs are scanned.
    scan: FileScan,
    domains: HashMap<usize, Arc<MemTable>>,
    next_alias: usize,
    holding: Option<Holding<'a>>,
    /// What ran before the plan and how operands were held, in order (see [`Self::steps`]).
    steps: Vec<String>,
}

fn qcol(alias: &str, name: &str) -> Expr {
    Expr::Column(Column::new(Some(alias), name))
}

fn ucol(name: &str) -> Expr {
    col(Column::new_unqualified(name))
}

/// `cond ? 1 : 0` as a double.
fn indicator(cond: Expr) -> Result<Expr> {
    Ok(when(cond, lit(1.0)).otherwise(lit(0.0))?)
}

/// The cells of a relation's shape: an upper bound on its tuples.
fn cells(r: &Rel) -> f64 {
    r.rows as f64 * r.cols as f64
}

/// DML's broadcasting of one dimension: equal sizes, or 1 against anything.
fn broadcast_dim(op: &str, a: usize, b: usize) -> Result<usize> {
    match (a, b) {
        _ if a == b => Ok(a),
        (1, n) | (n, 1) => Ok(n),
        _ => Err(DistError::Plan(format!(
            "{op}: sizes {a} and {b} do not broadcast"
        ))),
    }
}

fn known(d: &Dim, what: &str) -> Result<usize> {
    match d {
        Dim::Known(n) => Ok(*n),
        Dim::Sym(s) => Err(DistError::Plan(format!("{what}: size `{s}` is symbolic"))),
    }
}

/// The input `name` of `inputs`.
fn leaf_of<'a, M: Leaf>(inputs: &'a HashMap<String, M>, name: &str) -> Result<LeafRef<'a>> {
    inputs
        .get(name)
        .map(Leaf::leaf)
        .ok_or_else(|| DistError::Plan(format!("no value given for `{name}`")))
}

/// The widest held right operand of a product computed a row at a time
/// ([`Lowering::matmul_held_narrow`]): rank-k factors, not wide matrices.
const NARROW: usize = 16;

fn children(e: &LaExpr) -> Vec<&LaExpr> {
    use LaExpr::*;
    match e {
        Var(_) | Const(_) => vec![],
        Add(a, b) | Sub(a, b) | Mul(a, b) | MatMul(a, b) => vec![a, b],
        Transpose(a) | Neg(a) | Sum(a) | RowSums(a) | ColSums(a) | Pow(a, _) | Fill(a, _, _) => {
            vec![a]
        }
        Func { args, .. } => args.iter().collect(),
    }
}

/// The cellwise operator of `e` and the operand its result may be written over: an
/// intermediate held for this node alone (not an input, not a constant) whose shape is the
/// result's. The left operand is preferred.
fn overwritable_operand(
    e: &LaExpr,
    operands: &[Rel],
    constants: &[Option<Matrix>],
    result: (usize, usize),
) -> Option<(BinaryOp, usize)> {
    let op = match e {
        LaExpr::Add(..) => BinaryOp::Add,
        LaExpr::Sub(..) => BinaryOp::Sub,
        LaExpr::Mul(..) => BinaryOp::Mul,
        _ => return None,
    };
    (0..operands.len().min(2))
        .find(|&k| {
            let rel = &operands[k];
            constants[k].is_none()
                && rel.leaf.is_none()
                && rel.held.is_some()
                && (rel.rows, rel.cols) == result
        })
        .map(|k| (op, k))
}

/// The largest dense size (bytes) of `e` and its subexpressions, if all have a known shape.
fn largest_node(env: &ShapeEnv, e: &LaExpr) -> Option<f64> {
    let (Dim::Known(rows), Dim::Known(cols)) = env.shape_of(e).ok()? else {
        return None;
    };
    let mut largest = dense_bytes(rows, cols);
    for child in children(e) {
        largest = largest.max(largest_node(env, child)?);
    }
    Some(largest)
}

/// Checks that `e` lowers for inputs of these shapes (rows, columns), without data: the
/// plan's shape depends on the inputs' shapes only.
pub fn check(e: &LaExpr, shapes: &HashMap<String, (usize, usize)>) -> Result<()> {
    let empty: HashMap<String, Matrix> = shapes
        .iter()
        .map(|(name, &(rows, cols))| (name.clone(), Matrix::Sparse(CsrMatrix::zeros(rows, cols))))
        .collect();
    Lowering::new(&empty).lower(e).map(|_| ())
}

impl<'a, M: Leaf> Lowering<'a, M> {
    pub fn new(inputs: &'a HashMap<String, M>) -> Self {
        Lowering {
            inputs,
            tables: HashMap::new(),
            partitions: 1,
            scan: FileScan::default(),
            domains: HashMap::new(),
            next_alias: 0,
            holding: None,
            steps: Vec::new(),
        }
    }

    /// Holds small operands in memory, up to `limit` bytes of the memory `budget`, and
    /// reads them by index where a streamed relation would join them
    /// ([`crate::broadcast`]); runs subexpressions whose inputs are all held on the local
    /// kernels. `runner` runs the subplans whose small results are held (none: inputs
    /// and local results only).
    pub fn with_holding(
        mut self,
        budget: usize,
        limit: usize,
        runner: Option<&'a dyn Runner>,
    ) -> Self {
        self.holding = Some(Holding {
            budget,
            limit: limit.min(budget),
            held: Vec::new(),
            leaves: HashMap::new(),
            runner,
        });
        self
    }

    /// Bytes of the arrays held and still read by the plan (or kept as inputs).
    pub fn held_bytes(&self) -> usize {
        self.holding.as_ref().map_or(0, Holding::used)
    }

    /// What the lowering held, folded and evaluated on the local kernels, in order: e.g.
    /// `` holding `v` (800000 bytes) ``, `a sum folded into a 1000000x1 array`.
    pub fn steps(&self) -> &[String] {
        &self.steps
    }

    fn step(&mut self, step: String) {
        log::debug!("{step}");
        self.steps.push(step);
    }

    /// Splits the scan of each file input into `partitions` streams.
    pub fn with_partitions(mut self, partitions: usize) -> Self {
        self.partitions = partitions.max(1);
        self
    }

    /// Scans file inputs this way.
    pub fn with_file_scan(mut self, scan: FileScan) -> Self {
        self.scan = scan;
        self
    }

    fn alias(&mut self, prefix: &str) -> String {
        self.next_alias += 1;
        format!("{prefix}{}", self.next_alias)
    }

    /// Projects to the canonical columns of a `rows x cols` relation.
    fn finish(
        &self,
        builder: LogicalPlanBuilder,
        row: Option<Expr>,
        column: Option<Expr>,
        value: Expr,
        rows: usize,
        cols: usize,
    ) -> Result<Rel> {
        let mut exprs = Vec::with_capacity(3);
        if rows != 1 {
            exprs.push(
                row.ok_or_else(|| DistError::Plan("a row index is missing".into()))?
                    .alias(ROW),
            );
        }
        if cols != 1 {
            exprs.push(
                column
                    .ok_or_else(|| DistError::Plan("a column index is missing".into()))?
                    .alias(COL),
            );
        }
        exprs.push(value.alias(VALUE));
        Ok(Rel {
            plan: builder.project(exprs)?.build()?,
            rows,
            cols,
            leaf: None,
            held: None,
        })
    }

    /// `plan` under a fresh alias, so that a projection over it reads qualified columns:
    /// DataFusion 55 merges stacked projections that reuse the names `i`, `j`, `v` wrongly
    /// when they are unqualified (`(X^2)^2` came out as `X^2`, `t(t(X))` as `t(X)`).
    fn qualified(&mut self, plan: LogicalPlan) -> Result<(LogicalPlanBuilder, String)> {
        let alias = self.alias("q");
        Ok((LogicalPlanBuilder::from(plan).alias(alias.as_str())?, alias))
    }

    /// The scan of an input (summed by cell when the input may repeat one).
    fn input(&mut self, name: &str) -> Result<Rel> {
        let leaf = leaf_of(self.inputs, name)?;
        let (rows, cols) = leaf.shape();
        let (table, repeats) = match self.tables.get(name) {
            Some(t) => t.clone(),
            None => {
                let t = leaf.table(self.partitions, self.scan)?;
                self.tables.insert(name.to_string(), t.clone());
                t
            }
        };
        let rel = self.scan(table, "in", rows, cols)?;
        if !repeats {
            return Ok(Rel {
                leaf: Some(name.to_string()),
                ..rel
            });
        }
        let (builder, q) = self.qualified(rel.plan)?;
        let keys: Vec<Expr> = [(rows != 1, ROW), (cols != 1, COL)]
            .into_iter()
            .filter(|&(has, _)| has)
            .map(|(_, c)| qcol(&q, c))
            .collect();
        let builder = builder.aggregate(keys, [sum(qcol(&q, VALUE)).alias(VALUE)])?;
        let rel = self.finish(
            builder,
            (rows != 1).then(|| ucol(ROW)),
            (cols != 1).then(|| ucol(COL)),
            ucol(VALUE),
            rows,
            cols,
        )?;
        Ok(Rel {
            leaf: Some(name.to_string()),
            ..rel
        })
    }

    /// The scan of a table of a `rows x cols` relation's tuples, under a fresh alias.
    fn scan(
        &mut self,
        table: Arc<dyn TableProvider>,
        prefix: &str,
        rows: usize,
        cols: usize,
    ) -> Result<Rel> {
        let alias = self.alias(prefix);
        let builder = LogicalPlanBuilder::scan(alias.as_str(), provider_as_source(table), None)?;
        self.finish(
            builder,
            (rows != 1).then(|| qcol(&alias, ROW)),
            (cols != 1).then(|| qcol(&alias, COL)),
            qcol(&alias, VALUE),
            rows,
            cols,
        )
    }

    /// A matrix computed here, held, and scanned from the array where a relation reads it.
    fn local(&mut self, held: Held) -> Result<Rel> {
        if let Some(h) = self.holding.as_mut() {
            h.register(&held);
        }
        let rel = self.scan(
            held_table(&held, self.scan)?,
            "loc",
            held.rows(),
            held.cols(),
        )?;
        Ok(Rel {
            held: Some(held),
            ..rel
        })
    }

    /// The tuples of `plan` folded into a dense array ([`crate::fold`]) and held, when a
    /// runner is at hand and an array per stream, and the result, fit the holding's
    /// share.
    fn fold(&mut self, plan: LogicalPlan, fold: DenseFold) -> Result<Option<Rel>> {
        let streams = self.partitions;
        let Some(holding) = self.holding.as_ref() else {
            return Ok(None);
        };
        let Some(runner) = holding.runner else {
            return Ok(None);
        };
        // Here each stream fills an array of its own; on a cluster those live on the
        // executors, and only the sum is held here.
        let copies = match self.scan {
            FileScan::Parquet => 1,
            _ => streams + 1,
        };
        let arrays = fold.bytes() * copies as f64;
        if !holding.fits(arrays) {
            return Ok(None);
        }
        let pool = (holding.budget.saturating_sub(holding.used()) as f64 - arrays).max(0.0);
        let dense = runner.fold(plan, pool as usize, &fold, streams)?;
        self.step(format!(
            "a sum folded into a {}x{} array",
            fold.rows, fold.cols
        ));
        self.local(Held::new(dense)).map(Some)
    }

    /// The cells of `r` in memory, when they fit the holding's share: an input read once,
    /// or a small intermediate run on its own (by the holding's runner).
    fn hold(&mut self, r: &Rel) -> Result<Option<Held>> {
        if let Some(h) = &r.held {
            return Ok(Some(h.clone()));
        }
        let Some(holding) = self.holding.as_mut() else {
            return Ok(None);
        };
        if let Some(name) = &r.leaf {
            return self.hold_leaf(name);
        }
        let bytes = dense_bytes(r.rows, r.cols);
        let Some(runner) = holding.runner else {
            return Ok(None);
        };
        // Its tuples come back as batches, then fill the array.
        if !holding.fits(4.0 * bytes) {
            return Ok(None);
        }
        let pool = holding.budget.saturating_sub(holding.used());
        let batches = runner.collect(r.plan.clone(), pool)?;
        let held = Held::new(coo::from_batches(&batches, r.rows, r.cols)?.into_dense());
        holding.register(&held);
        self.step(format!("holding a {}x{} intermediate", r.rows, r.cols));
        Ok(Some(held))
    }

    /// The input `name` in memory (read once), when it fits the holding's share.
    fn hold_leaf(&mut self, name: &str) -> Result<Option<Held>> {
        let Some(holding) = self.holding.as_mut() else {
            return Ok(None);
        };
        if let Some(h) = holding.leaves.get(name) {
            return Ok(Some(h.clone()));
        }
        let leaf = leaf_of(self.inputs, name)?;
        let (rows, cols) = leaf.shape();
        let bytes = dense_bytes(rows, cols);
        let held = match leaf {
            LeafRef::Matrix(m) if holding.fits(bytes) => Held::new(m.to_dense()),
            // Read into the array a row group of (row, column, value) cells at a time.
            LeafRef::File(f) if holding.fits(bytes + 24.0 * f.largest_group_cells() as f64) => {
                let dense = parquet_coo::read_dense(f.path())
                    .map_err(|e| DistError::Plan(e.to_string()))?;
                Held::of_file(dense, f.path())
            }
            _ => return Ok(None),
        };
        holding.register(&held);
        holding.leaves.insert(name.to_string(), held.clone());
        self.step(format!("holding `{name}` ({} bytes)", held.bytes()));
        Ok(Some(held))
    }

    /// `e` evaluated on the local kernels, when every input it reads can be held and every
    /// node's result is small beside the holding's share: e.g. `t(U) %*% U` for factors
    /// `U` next to a matrix scanned from a file.
    fn try_local(&mut self, e: &LaExpr) -> Result<Option<Rel>> {
        if self.holding.is_none() || matches!(e, LaExpr::Var(_) | LaExpr::Const(_)) {
            return Ok(None);
        }
        let names = e.vars();
        if names.is_empty() {
            return Ok(None);
        }
        let mut env = ShapeEnv::default();
        for (name, input) in self.inputs.iter() {
            let (rows, cols) = input.leaf().shape();
            env.matrix(name, Dim::Known(rows), Dim::Known(cols));
        }
        // The result and its tuples (24 bytes a cell), and each intermediate, in what is left.
        let expanded = expand_fused(e);
        let Some(largest) = largest_node(&env, &expanded) else {
            return Ok(None);
        };
        let left = self.holding.as_ref().map_or(0.0, Holding::left);
        if 4.0 * largest > left {
            return Ok(None);
        }
        let mut held = HashMap::new();
        for name in names {
            let Some(h) = self.hold_leaf(&name)? else {
                return Ok(None);
            };
            held.insert(name, h);
        }
        let mut values = HashMap::new();
        for (name, h) in &held {
            values.insert(name.as_str(), h.as_matrix()?);
        }
        // The reference evaluator knows the fused operators by their expansions; it
        // reads the held arrays in place.
        let m = match eval_in(&expanded, &|name: &str| values.get(name).copied()) {
            Ok(m) => m.into_owned(),
            Err(err) => {
                log::debug!("{e} stays relational: {err}");
                return Ok(None);
            }
        };
        self.step(format!("{e}: evaluated on the local kernels"));
        self.local(Held::new(m.into_dense())).map(Some)
    }

    /// The relation `{k : 0 <= k < size}` in one column named `column`, aliased.
    fn domain(&mut self, size: usize, column: &str) -> Result<(LogicalPlan, String)> {
        let table = match self.domains.get(&size) {
            Some(t) => t.clone(),
            None => {
                let batch = coo::domain_batch(size, ROW)?;
                let table = Arc::new(MemTable::try_new(batch.schema(), vec![vec![batch]])?);
                self.domains.insert(size, table.clone());
                table
            }
        };
        let alias = self.alias("dom");
        let plan = LogicalPlanBuilder::scan(alias.as_str(), provider_as_source(table), None)?
            .project([qcol(&alias, ROW).alias(column)])?
            .alias(alias.as_str())?
            .build()?;
        Ok((plan, alias))
    }

    fn scalar(&self, value: f64) -> Result<Rel> {
        let builder = LogicalPlanBuilder::empty(value != 0.0);
        self.finish(builder, None, None, lit(value), 1, 1)
    }

    /// `f(v)` on the stored tuples (for functions with `f(0) = 0`).
    fn map(&mut self, a: Rel, f: impl FnOnce(Expr) -> Expr) -> Result<Rel> {
        let (rows, cols) = (a.rows, a.cols);
        let (builder, q) = self.qualified(a.plan)?;
        self.finish(
            builder,
            Some(qcol(&q, ROW)),
            Some(qcol(&q, COL)),
            f(qcol(&q, VALUE)),
            rows,
            cols,
        )
    }

    /// `a` broadcast to a `rows x cols` relation: cross-joined with the domains of the
    /// indices it lacks.
    fn broadcast(&mut self, a: Rel, rows: usize, cols: usize) -> Result<Rel> {
        let need_row = rows != 1 && !a.has_row();
        let need_col = cols != 1 && !a.has_col();
        if !need_row && !need_col {
            return Ok(a);
        }
        let base = self.alias("b");
        let mut builder = LogicalPlanBuilder::from(a.plan.clone()).alias(base.as_str())?;
        let mut row = a.has_row().then(|| qcol(&base, ROW));
        let mut column = a.has_col().then(|| qcol(&base, COL));
        if need_row {
            let (dom, alias) = self.domain(rows, ROW)?;
            builder = builder.cross_join(dom)?;
            row = Some(qcol(&alias, ROW));
        }
        if need_col {
            let (dom, alias) = self.domain(cols, COL)?;
            builder = builder.cross_join(dom)?;
            column = Some(qcol(&alias, COL));
        }
        self.finish(builder, row, column, qcol(&base, VALUE), rows, cols)
    }

    /// Every cell of `a`, zeros included: the index domains left-joined with the tuples.
    fn densify(&mut self, a: Rel) -> Result<Rel> {
        let (rows, cols) = (a.rows, a.cols);
        if !a.has_row() && !a.has_col() {
            // One row whatever the input: an aggregate without groups.
            let plan = LogicalPlanBuilder::from(a.plan)
                .aggregate(Vec::<Expr>::new(), [sum(ucol(VALUE)).alias(VALUE)])?;
            return self.finish(
                plan,
                None,
                None,
                coalesce(vec![ucol(VALUE), lit(0.0)]),
                1,
                1,
            );
        }
        // Every cell once: a one-row relation broadcast over both domains.
        let one = self.finish(LogicalPlanBuilder::empty(true), None, None, lit(0.0), 1, 1)?;
        let cells = self.broadcast(one, rows, cols)?;
        let (l, r) = (self.alias("c"), self.alias("t"));
        let mut keys = (Vec::new(), Vec::new());
        for (present, name) in [(a.has_row(), ROW), (a.has_col(), COL)] {
            if present {
                keys.0.push(Column::new(Some(l.as_str()), name));
                keys.1.push(Column::new(Some(r.as_str()), name));
            }
        }
        let builder = LogicalPlanBuilder::from(cells.plan)
            .alias(l.as_str())?
            .join(
                LogicalPlanBuilder::from(a.plan)
                    .alias(r.as_str())?
                    .build()?,
                JoinType::Left,
                keys,
                None,
            )?;
        self.finish(
            builder,
            Some(qcol(&l, ROW)),
            Some(qcol(&l, COL)),
            coalesce(vec![qcol(&r, VALUE), lit(0.0)]),
            rows,
            cols,
        )
    }

    /// Joins `a` and `b` on the indices both have (broadcasting), giving `f(a.v, b.v)`
    /// over the union of their indices.
    fn join_cells(
        &mut self,
        op: &str,
        a: Rel,
        b: Rel,
        f: impl FnOnce(Expr, Expr) -> Result<Expr>,
    ) -> Result<Rel> {
        let rows = broadcast_dim(op, a.rows, b.rows)?;
        let cols = broadcast_dim(op, a.cols, b.cols)?;
        // A held side whose indices the other has: read by index (its missing cells are
        // 0, as the join's missing tuples are).
        let covers = |big: &Rel, small: &Rel| {
            (big.has_row() || !small.has_row())
                && (big.has_col() || !small.has_col())
                && (big.rows, big.cols) == (rows, cols)
                && cells(big) > cells(small)
        };
        if self.holding.is_some() {
            for held_first in [false, true] {
                let (big, small) = if held_first { (&b, &a) } else { (&a, &b) };
                if !covers(big, small) || (small.held.is_none() && small.leaf.is_none()) {
                    continue;
                }
                let Some(held) = self.hold(small)? else {
                    continue;
                };
                let (builder, q) = self.qualified(big.plan.clone())?;
                let looked_up = cell(&held, Some(qcol(&q, ROW)), Some(qcol(&q, COL)));
                let value = if held_first {
                    f(looked_up, qcol(&q, VALUE))?
                } else {
                    f(qcol(&q, VALUE), looked_up)?
                };
                return self.finish(
                    builder,
                    Some(qcol(&q, ROW)),
                    Some(qcol(&q, COL)),
                    value,
                    rows,
                    cols,
                );
            }
        }
        let (l, r) = (self.alias("l"), self.alias("r"));
        let mut keys = (Vec::new(), Vec::new());
        for (both, name) in [
            (a.has_row() && b.has_row(), ROW),
            (a.has_col() && b.has_col(), COL),
        ] {
            if both {
                keys.0.push(Column::new(Some(l.as_str()), name));
                keys.1.push(Column::new(Some(r.as_str()), name));
            }
        }
        let left = LogicalPlanBuilder::from(a.plan.clone()).alias(l.as_str())?;
        let right = LogicalPlanBuilder::from(b.plan.clone())
            .alias(r.as_str())?
            .build()?;
        let builder = if keys.0.is_empty() {
            left.cross_join(right)?
        } else {
            left.join(right, JoinType::Inner, keys, None)?
        };
        let pick = |name: &str, in_a: bool, in_b: bool| {
            if in_a {
                Some(qcol(&l, name))
            } else if in_b {
                Some(qcol(&r, name))
            } else {
                None
            }
        };
        let row = pick(ROW, a.has_row(), b.has_row());
        let column = pick(COL, a.has_col(), b.has_col());
        let value = f(qcol(&l, VALUE), qcol(&r, VALUE))?;
        self.finish(builder, row, column, value, rows, cols)
    }

    /// `a + b` (with broadcasting): both broadcast to the output's indices, unioned,
    /// and summed per cell.
    fn add(&mut self, a: Rel, b: Rel) -> Result<Rel> {
        let rows = broadcast_dim("+", a.rows, b.rows)?;
        let cols = broadcast_dim("+", a.cols, b.cols)?;
        let a = self.broadcast(a, rows, cols)?;
        let b = self.broadcast(b, rows, cols)?;
        let builder = LogicalPlanBuilder::from(a.plan).union(b.plan)?;
        self.sum_by(builder, rows, cols)
    }

    /// Sums the values of `builder`'s tuples per index of a `rows x cols` result.
    fn sum_by(&mut self, builder: LogicalPlanBuilder, rows: usize, cols: usize) -> Result<Rel> {
        if rows * cols > 1 {
            let plan = builder.build()?;
            if let Some(rel) = self.fold(plan.clone(), DenseFold::cells(rows, cols))? {
                return Ok(rel);
            }
            return self.sum_by_groups(LogicalPlanBuilder::from(plan), rows, cols);
        }
        self.sum_by_groups(builder, rows, cols)
    }

    /// [`Self::sum_by`] as DataFusion's aggregate.
    fn sum_by_groups(&self, builder: LogicalPlanBuilder, rows: usize, cols: usize) -> Result<Rel> {
        let groups: Vec<Expr> = [(rows != 1, ROW), (cols != 1, COL)]
            .into_iter()
            .filter(|(present, _)| *present)
            .map(|(_, name)| ucol(name))
            .collect();
        let mut builder = builder.aggregate(groups, [sum(ucol(VALUE)).alias(VALUE)])?;
        if rows == 1 && cols == 1 {
            // An aggregate without groups gives NULL on no input: that is the value 0.
            builder = builder.filter(ucol(VALUE).is_not_null())?;
        }
        self.finish(
            builder,
            Some(ucol(ROW)),
            Some(ucol(COL)),
            ucol(VALUE),
            rows,
            cols,
        )
    }

    /// Sums `a` over the indices for which `keep_*` is false.
    fn aggregate(&mut self, a: Rel, keep_row: bool, keep_col: bool) -> Result<Rel> {
        let rows = if keep_row { a.rows } else { 1 };
        let cols = if keep_col { a.cols } else { 1 };
        if (rows, cols) == (a.rows, a.cols) {
            return Ok(a);
        }
        self.sum_by(LogicalPlanBuilder::from(a.plan), rows, cols)
    }

    fn matmul(&mut self, a: Rel, b: Rel) -> Result<Rel> {
        if a.cols != b.rows {
            return Err(DistError::Plan(format!(
                "%*%: {}x{} times {}x{}",
                a.rows, a.cols, b.rows, b.cols
            )));
        }
        let (rows, cols) = (a.rows, b.cols);
        if let Some(rel) = self.matmul_held_vector(&a, &b)? {
            return Ok(rel);
        }
        if let Some(rel) = self.matmul_held_narrow(&a, &b)? {
            return Ok(rel);
        }
        let a_larger = cells(&a) > cells(&b);
        let (l, r) = (self.alias("l"), self.alias("r"));
        let left = LogicalPlanBuilder::from(a.plan).alias(l.as_str())?;
        let right = LogicalPlanBuilder::from(b.plan)
            .alias(r.as_str())?
            .build()?;
        let product = qcol(&l, VALUE) * qcol(&r, VALUE);
        if a.cols == 1 {
            // An outer product: nothing to sum over.
            let builder = left.cross_join(right)?;
            return self.finish(
                builder,
                Some(qcol(&l, ROW)),
                Some(qcol(&r, COL)),
                product,
                rows,
                cols,
            );
        }
        let (left_key, right_key) = (
            Column::new(Some(l.as_str()), COL),
            Column::new(Some(r.as_str()), ROW),
        );
        // DataFusion builds its hash table on the left input and, without statistics
        // (a file's scan has none), keeps the order given: the operand with fewer cells
        // goes left, so a large sparse operand streams through the probe side.
        let joined = if a_larger {
            LogicalPlanBuilder::from(right).join(
                left.build()?,
                JoinType::Inner,
                (vec![right_key], vec![left_key]),
                None,
            )?
        } else {
            left.join(
                right,
                JoinType::Inner,
                (vec![left_key], vec![right_key]),
                None,
            )?
        };
        // One tuple per (i, k, j), summed over k.
        let terms = self.finish(
            joined,
            Some(qcol(&l, ROW)),
            Some(qcol(&r, COL)),
            product,
            rows,
            cols,
        )?;
        self.sum_by(LogicalPlanBuilder::from(terms.plan), rows, cols)
    }

    /// `a %*% v` or `t(v) %*% b` with the vector held: the matrix streams, each tuple
    /// multiplied by the vector's cell at its inner index, and is summed by its outer one.
    fn matmul_held_vector(&mut self, a: &Rel, b: &Rel) -> Result<Option<Rel>> {
        if self.holding.is_none() || a.cols == 1 {
            return Ok(None);
        }
        // The vector's side, the matrix's side, and which index of the matrix is inner.
        let (vector, matrix, inner, outer) = if b.cols == 1 && cells(a) > cells(b) {
            (b, a, COL, ROW)
        } else if a.rows == 1 && cells(b) > cells(a) {
            (a, b, ROW, COL)
        } else {
            return Ok(None);
        };
        let Some(held) = self.hold(vector)? else {
            return Ok(None);
        };
        let (rows, cols) = (a.rows, b.cols);
        let fold = DenseFold::product(
            (rows, cols),
            (matrix.rows, matrix.cols),
            held.clone(),
            Some(outer),
            inner,
        );
        if let Some(rel) = self.fold(matrix.plan.clone(), fold)? {
            return Ok(Some(rel));
        }
        let (builder, q) = self.qualified(matrix.plan.clone())?;
        let (row, col) = if inner == COL {
            (Some(qcol(&q, COL)), None)
        } else {
            (None, Some(qcol(&q, ROW)))
        };
        let value = qcol(&q, VALUE) * cell(&held, row, col);
        let outer_index = Some(qcol(&q, outer));
        let (row, col) = if outer == ROW {
            (outer_index, None)
        } else {
            (None, outer_index)
        };
        let terms = self.finish(builder, row, col, value, rows, cols)?;
        self.sum_by(LogicalPlanBuilder::from(terms.plan), rows, cols)
            .map(Some)
    }

    /// `a %*% B` with `B` held and narrow (`n x k`, `k` at most [`NARROW`]): each tuple of
    /// `a` gives `k` products at once, `x * B[j, 0..k]` as `k` columns, summed by `a`'s
    /// row (one group per row, not per cell of the result), then unpivoted to `(i, k)`
    /// cells by a cross join with the `k` column indices.
    fn matmul_held_narrow(&mut self, a: &Rel, b: &Rel) -> Result<Option<Rel>> {
        let k = b.cols;
        if self.holding.is_none() || !(2..=NARROW).contains(&k) || !a.has_col() {
            return Ok(None);
        }
        if cells(a) <= cells(b) {
            return Ok(None);
        }
        let Some(held) = self.hold(b)? else {
            return Ok(None);
        };
        log::debug!(
            "a product with a held {}x{k} operand, a row at a time",
            b.rows
        );
        let rows = a.rows;
        let fold = DenseFold::product(
            (rows, k),
            (a.rows, a.cols),
            held.clone(),
            a.has_row().then_some(ROW),
            COL,
        );
        if let Some(rel) = self.fold(a.plan.clone(), fold)? {
            return Ok(Some(rel));
        }
        let wide = |c: usize| format!("c{c}");
        let (builder, q) = self.qualified(a.plan.clone())?;
        let mut products = Vec::with_capacity(k + 1);
        if a.has_row() {
            products.push(qcol(&q, ROW).alias(ROW));
        }
        for c in 0..k {
            let entry = cell(&held, Some(qcol(&q, COL)), Some(lit(c as i64)));
            products.push((qcol(&q, VALUE) * entry).alias(wide(c)));
        }
        let groups: Vec<Expr> = if a.has_row() { vec![ucol(ROW)] } else { vec![] };
        let sums: Vec<Expr> = (0..k).map(|c| sum(ucol(&wide(c))).alias(wide(c))).collect();
        let w = self.alias("w");
        let builder = builder
            .project(products)?
            .aggregate(groups, sums)?
            .alias(w.as_str())?;
        let (columns, d) = self.domain(k, COL)?;
        let builder = builder.cross_join(columns)?;
        let mut value = when(qcol(&d, COL).eq(lit(0i64)), qcol(&w, &wide(0)));
        for c in 1..k {
            value = value.when(qcol(&d, COL).eq(lit(c as i64)), qcol(&w, &wide(c)));
        }
        // An aggregate without groups sums nothing to NULL: that is 0.
        let value = coalesce(vec![value.otherwise(lit(0.0))?, lit(0.0)]);
        self.finish(
            builder,
            Some(qcol(&w, ROW)),
            Some(qcol(&d, COL)),
            value,
            rows,
            k,
        )
        .map(Some)
    }

    fn transpose(&mut self, a: Rel) -> Result<Rel> {
        let (rows, cols) = (a.cols, a.rows);
        let (had_row, had_col) = (a.has_row(), a.has_col());
        let (builder, alias) = self.qualified(a.plan)?;
        self.finish(
            builder,
            had_col.then(|| qcol(&alias, COL)),
            had_row.then(|| qcol(&alias, ROW)),
            qcol(&alias, VALUE),
            rows,
            cols,
        )
    }

    /// `x * (u %*% t(v))` at `x`'s non-zeros only: `x(i,j) ⋈ u(i,k) ⋈ v(j,k)`.
    fn sddmm(&mut self, x: Rel, u: Rel, v: Rel) -> Result<Rel> {
        if u.rows != x.rows || v.rows != x.cols || u.cols != v.cols || !x.has_row() || !x.has_col()
        {
            return Err(DistError::Plan(format!(
                "sddmm: X is {}x{}, U {}x{}, V {}x{}",
                x.rows, x.cols, u.rows, u.cols, v.rows, v.cols
            )));
        }
        if let Some(terms) = self.sddmm_held(&x, &u, &v)? {
            return self.sum_by(LogicalPlanBuilder::from(terms.plan), x.rows, x.cols);
        }
        let rank_index = u.has_col();
        let (ax, au, av) = (self.alias("x"), self.alias("u"), self.alias("v"));
        let mut keys_v = (
            vec![Column::new(Some(ax.as_str()), COL)],
            vec![Column::new(Some(av.as_str()), ROW)],
        );
        if rank_index {
            keys_v.0.push(Column::new(Some(au.as_str()), COL));
            keys_v.1.push(Column::new(Some(av.as_str()), COL));
        }
        let x_rows = Column::new(Some(ax.as_str()), ROW);
        let u_rows = Column::new(Some(au.as_str()), ROW);
        let factors_smaller = cells(&x) > cells(&u).max(cells(&v));
        let (x_plan, u_plan, v_plan) = (
            LogicalPlanBuilder::from(x.plan).alias(ax.as_str())?,
            LogicalPlanBuilder::from(u.plan).alias(au.as_str())?,
            LogicalPlanBuilder::from(v.plan).alias(av.as_str())?,
        );
        let builder = if factors_smaller {
            // The factors are the hash tables (left inputs), `X` streams: V ⋈ (U ⋈ X).
            let ux = u_plan.join(
                x_plan.build()?,
                JoinType::Inner,
                (vec![u_rows], vec![x_rows]),
                None,
            )?;
            v_plan.join(ux.build()?, JoinType::Inner, (keys_v.1, keys_v.0), None)?
        } else {
            x_plan
                .join(
                    u_plan.build()?,
                    JoinType::Inner,
                    (vec![x_rows], vec![u_rows]),
                    None,
                )?
                .join(v_plan.build()?, JoinType::Inner, keys_v, None)?
        };
        let terms = self.finish(
            builder,
            Some(qcol(&ax, ROW)),
            Some(qcol(&ax, COL)),
            qcol(&ax, VALUE) * qcol(&au, VALUE) * qcol(&av, VALUE),
            x.rows,
            x.cols,
        )?;
        self.sum_by(LogicalPlanBuilder::from(terms.plan), x.rows, x.cols)
    }

    /// `x(i,j) <U[i,:], V[j,:]>` per tuple of `x`, with both factors held (not summed by
    /// cell: `x` may repeat one).
    fn sddmm_held(&mut self, x: &Rel, u: &Rel, v: &Rel) -> Result<Option<Rel>> {
        if self.holding.is_none() {
            return Ok(None);
        }
        let (Some(hu), Some(hv)) = (self.hold(u)?, self.hold(v)?) else {
            return Ok(None);
        };
        let (builder, q) = self.qualified(x.plan.clone())?;
        let value = qcol(&q, VALUE) * row_dot(&hu, &hv, qcol(&q, ROW), qcol(&q, COL));
        self.finish(
            builder,
            Some(qcol(&q, ROW)),
            Some(qcol(&q, COL)),
            value,
            x.rows,
            x.cols,
        )
        .map(Some)
    }

    /// `sum(X^2) + sign * sddmm_sum(X, U, V) + sum((t(U) %*% U) * (t(V) %*% V))` (`wsloss`
    /// with `sign` -2, `wsloss_plus` with 2) in one pass over `X`, when both factors are
    /// held and a runner folds: each tuple of `X` gives `x*x + sign * (x * <U[i,:],
    /// V[j,:]>)` (the products of the three-term form, so NaN and infinities come out as
    /// there), folded into one number next to the data; the gram term runs on the local
    /// kernels. The three-term form scans `X` twice and sums a union of aggregates, which a
    /// cluster runs as a chain of stages.
    fn wsloss_held(
        &mut self,
        x: &LaExpr,
        u: &LaExpr,
        v: &LaExpr,
        sign: f64,
    ) -> Result<Option<Rel>> {
        if self.holding.as_ref().and_then(|h| h.runner).is_none() {
            return Ok(None);
        }
        let (x, u_rel, v_rel) = (self.lower(x)?, self.lower(u)?, self.lower(v)?);
        let shapes_fit = u_rel.rows == x.rows && v_rel.rows == x.cols && u_rel.cols == v_rel.cols;
        if !(shapes_fit && x.has_row() && x.has_col()) {
            return Ok(None);
        }
        let (Some(hu), Some(hv)) = (self.hold(&u_rel)?, self.hold(&v_rel)?) else {
            return Ok(None);
        };
        let (builder, q) = self.qualified(x.plan.clone())?;
        let value = qcol(&q, VALUE);
        let dot = row_dot(&hu, &hv, qcol(&q, ROW), qcol(&q, COL));
        let terms = value.clone() * value.clone() + lit(sign) * (value * dot);
        let terms = self.finish(builder, None, None, terms, 1, 1)?;
        let Some(pass) = self.fold(terms.plan, DenseFold::cells(1, 1))? else {
            return Ok(None);
        };
        let gram = |a: &LaExpr| {
            LaExpr::MatMul(
                Box::new(LaExpr::Transpose(Box::new(a.clone()))),
                Box::new(a.clone()),
            )
        };
        let low_rank = LaExpr::Sum(Box::new(LaExpr::Mul(Box::new(gram(u)), Box::new(gram(v)))));
        let low_rank = self.lower(&low_rank)?;
        match (&pass.held, &low_rank.held) {
            (Some(a), Some(b)) => {
                let total = a.matrix()?.data()[0] + b.matrix()?.data()[0];
                self.local(Held::new(DenseMatrix::filled(1, 1, total)))
                    .map(Some)
            }
            _ => self.add(pass, low_rank).map(Some),
        }
    }

    /// Lowers `e`.
    pub fn lower(&mut self, e: &LaExpr) -> Result<Rel> {
        use LaExpr::*;
        if let Some(rel) = self.try_local(e)? {
            return Ok(rel);
        }
        match e {
            Var(name) => return self.input(name),
            Const(c) => return self.scalar(*c),
            Fill(v, r, c) => {
                let (rows, cols) = (known(r, "matrix")?, known(c, "matrix")?);
                let v = self.lower(v)?;
                if v.has_row() || v.has_col() {
                    return Err(DistError::Plan(format!("{e}: the value is not a scalar")));
                }
                return self.broadcast(v, rows, cols);
            }
            Func { name, args } => return self.func(e, name, args),
            _ => {}
        }
        let mut operands = children(e)
            .into_iter()
            .map(|c| self.lower(c))
            .collect::<Result<Vec<Rel>>>()?;
        if let Some(rel) = self.local_node(e, &mut operands)? {
            return Ok(rel);
        }
        let b = if operands.len() == 2 {
            operands.pop()
        } else {
            None
        };
        let a = operands
            .pop()
            .ok_or_else(|| DistError::Plan(format!("{e}: no operand")))?;
        let second = |b: Option<Rel>| b.ok_or_else(|| DistError::Plan(format!("{e}: one operand")));
        match e {
            Add(..) => self.add(a, second(b)?),
            Sub(..) => {
                let b = self.map(second(b)?, |v| -v)?;
                self.add(a, b)
            }
            Mul(..) => self.join_cells("*", a, second(b)?, |x, y| Ok(x * y)),
            MatMul(..) => self.matmul(a, second(b)?),
            Transpose(_) => self.transpose(a),
            Neg(_) => self.map(a, |v| -v),
            Sum(_) => self.aggregate(a, false, false),
            RowSums(_) => self.aggregate(a, true, false),
            ColSums(_) => self.aggregate(a, false, true),
            Pow(_, k) => self.pow(a, *k),
            Var(_) | Const(_) | Fill(..) | Func { .. } => unreachable!("lowered above"),
        }
    }

    /// `e` evaluated on the local kernels when each of its operands, already lowered, is
    /// held (or a constant) and its result is small beside the holding's share: e.g.
    /// `U %*% G - X %*% V` once both products are held arrays, instead of a union and a
    /// sum of their 10^7 tuples each.
    fn local_node(&mut self, e: &LaExpr, operands: &mut Vec<Rel>) -> Result<Option<Rel>> {
        let Some(holding) = self.holding.as_ref() else {
            return Ok(None);
        };
        let constants: Vec<Option<Matrix>> = children(e)
            .into_iter()
            .map(|kid| match kid {
                LaExpr::Const(c) => Some(Matrix::Dense(DenseMatrix::filled(1, 1, *c))),
                _ => None,
            })
            .collect();
        let mut values = Vec::with_capacity(operands.len());
        for (rel, constant) in operands.iter().zip(&constants) {
            match (constant, &rel.held) {
                (Some(c), _) => values.push(c),
                (None, Some(held)) => values.push(held.as_matrix()?),
                (None, None) => return Ok(None),
            }
        }
        let (rows, cols) = match e {
            LaExpr::MatMul(..) => (operands[0].rows, operands[1].cols),
            LaExpr::Transpose(_) => (operands[0].cols, operands[0].rows),
            LaExpr::Sum(_) => (1, 1),
            LaExpr::RowSums(_) => (operands[0].rows, 1),
            LaExpr::ColSums(_) => (1, operands[0].cols),
            _ => operands
                .iter()
                .fold((1, 1), |(r, c), o| (r.max(o.rows), c.max(o.cols))),
        };
        // The result, and a temporary as large (a dense result may be made a copy).
        if 2.0 * dense_bytes(rows, cols) > holding.left() {
            return Ok(None);
        }
        if let Some((op, k)) = overwritable_operand(e, operands, &constants, (rows, cols)) {
            let other = match (&constants[1 - k], &operands[1 - k].held) {
                (Some(c), _) => Held::new(c.to_dense()),
                (None, Some(held)) => held.clone(),
                (None, None) => return Ok(None),
            };
            let Some(cells) = operands.swap_remove(k).into_held() else {
                return Ok(None);
            };
            let m = binary_reusing(op, cells.into_matrix()?, other.as_matrix()?, k == 0)
                .map_err(|err| DistError::Plan(format!("{e}: {err}")))?;
            self.step(format!(
                "{e}: evaluated on the local kernels over an operand's array"
            ));
            return self.local(Held::new(m.into_dense())).map(Some);
        }
        let m = match apply(e, &values) {
            Ok(m) => m,
            Err(err) => {
                log::debug!("{e} stays relational: {err}");
                return Ok(None);
            }
        };
        self.step(format!(
            "{e}: evaluated on the local kernels from held operands"
        ));
        self.local(Held::new(m.into_dense())).map(Some)
    }

    fn pow(&mut self, a: Rel, k: f64) -> Result<Rel> {
        if k == 1.0 {
            return Ok(a);
        }
        if k == 2.0 {
            return self.map(a, |v| v.clone() * v);
        }
        if k > 0.0 {
            return self.map(a, |v| power(v, lit(k)));
        }
        // 0^k is 1 or infinite: every cell counts.
        let dense = self.densify(a)?;
        self.map(dense, |v| power(v, lit(k)))
    }

    /// A size argument of `matrix(v, rows, cols)`: a constant or `nrow`/`ncol` of an input.
    fn size_arg(&self, e: &LaExpr) -> Result<usize> {
        match e {
            LaExpr::Const(c) if *c >= 0.0 && c.fract() == 0.0 => Ok(*c as usize),
            LaExpr::Func { name, args }
                if args.len() == 1 && (name == "nrow" || name == "ncol") =>
            {
                let (rows, cols) = self.shape_of(&args[0])?;
                Ok(if name == "nrow" { rows } else { cols })
            }
            _ => Err(DistError::Unsupported(format!("the matrix size `{e}`"))),
        }
    }

    /// The shape of `e` (by lowering it; plans are cheap to build).
    fn shape_of(&self, e: &LaExpr) -> Result<(usize, usize)> {
        let mut probe = Lowering::new(self.inputs)
            .with_partitions(self.partitions)
            .with_file_scan(self.scan);
        let rel = probe.lower(e)?;
        Ok((rel.rows, rel.cols))
    }

    /// A function call: the fused operators, then the structural and aggregating
    /// functions, then the elementwise ones by their number of arguments.
    fn func(&mut self, e: &LaExpr, name: &str, args: &[LaExpr]) -> Result<Rel> {
        if let Some(rel) = self.fused_func(e, name, args)? {
            return Ok(rel);
        }
        if let Some(rel) = self.structural_func(name, args)? {
            return Ok(rel);
        }
        match args {
            [a] => self.elementwise_unary(name, a),
            [x, y] => self.elementwise_binary(name, x, y),
            _ => Err(DistError::Unsupported(format!(
                "`{name}` of {} arguments",
                args.len()
            ))),
        }
    }

    /// The fused operators (`sddmm`, `wsloss`, `mmchain`, the masked ones, ...) as the
    /// joins and aggregates they stand for; `None` for any other call.
    fn fused_func(&mut self, e: &LaExpr, name: &str, args: &[LaExpr]) -> Result<Option<Rel>> {
        use LaExpr::*;
        let b = |x: &LaExpr| Box::new(x.clone());
        let rel = match (name, args) {
            ("sddmm", [x, u, v]) => {
                let (x, u, v) = (self.lower(x)?, self.lower(u)?, self.lower(v)?);
                self.sddmm(x, u, v)?
            }
            // Σ X(i,j) U(i,k) V(j,k) = Σ U(i,k) (X V)(i,k): linear in nnz(X) k.
            ("sddmm_sum", [x, u, v]) => {
                let (x, u, v) = (self.lower(x)?, self.lower(u)?, self.lower(v)?);
                let shapes_fit = u.rows == x.rows && v.rows == x.cols && u.cols == v.cols;
                if shapes_fit && x.has_row() && x.has_col() {
                    if let Some(terms) = self.sddmm_held(&x, &u, &v)? {
                        return self.aggregate(terms, false, false).map(Some);
                    }
                }
                let xv = self.matmul(x, v)?;
                let terms = self.join_cells("*", u, xv, |a, b| Ok(a * b))?;
                self.aggregate(terms, false, false)?
            }
            ("wsloss" | "wsloss_plus", [x, u, v]) => {
                let sign = if name == "wsloss" { -2.0 } else { 2.0 };
                if let Some(rel) = self.wsloss_held(x, u, v, sign)? {
                    return Ok(Some(rel));
                }
                let cross = Mul(
                    Box::new(Const(sign)),
                    Box::new(Func {
                        name: "sddmm_sum".into(),
                        args: args.to_vec(),
                    }),
                );
                let gram = |a: &LaExpr| MatMul(Box::new(Transpose(b(a))), b(a));
                let low_rank = Sum(Box::new(Mul(Box::new(gram(u)), Box::new(gram(v)))));
                let total = Add(
                    Box::new(Add(
                        Box::new(Sum(Box::new(Pow(b(x), 2.0)))),
                        Box::new(cross),
                    )),
                    Box::new(low_rank),
                );
                self.lower(&total)?
            }
            ("mmchain", [_, _]) | ("mmchain", [_, _, _]) | ("tsmm", [_]) => {
                self.lower(&expand_fused(e))?
            }
            // `X * E` joins on X's tuples, which is masked evaluation already.
            ("masked_mul", [_, _]) => self.lower(&expand_fused(e))?,
            // `(X != 0) * (X / E)`: the quotient at X's tuples only, E read densely so
            // that `x / 0` is there.
            ("masked_div", [x, tree]) => {
                let x = self.lower(x)?;
                let tree = self.lower(tree)?;
                let tree = self.densify(tree)?;
                self.join_cells("/", x, tree, |a, b| Ok(a / b))?
            }
            ("sprop", [p]) => {
                let p = self.lower(p)?;
                self.map(p, |v| v.clone() * (lit(1.0) - v))?
            }
            _ => return Ok(None),
        };
        Ok(Some(rel))
    }

    /// Conversions, sizes, means, `trace`, `diag` and `matrix(v, rows, cols)`; `None`
    /// for any other call.
    fn structural_func(&mut self, name: &str, args: &[LaExpr]) -> Result<Option<Rel>> {
        let rel = match (name, args) {
            ("as.matrix", [a]) => self.lower(a)?,
            ("as.scalar", [a]) => {
                let a = self.lower(a)?;
                if a.has_row() || a.has_col() {
                    return Err(DistError::Plan(format!(
                        "as.scalar of a {}x{} matrix",
                        a.rows, a.cols
                    )));
                }
                a
            }
            ("nrow" | "ncol" | "length", [a]) => {
                let (rows, cols) = self.shape_of(a)?;
                let n = match name {
                    "nrow" => rows,
                    "ncol" => cols,
                    _ => rows * cols,
                };
                self.scalar(n as f64)?
            }
            ("mean" | "rowMeans" | "colMeans", [a]) => {
                let a = self.lower(a)?;
                let (rows, cols) = (a.rows, a.cols);
                let (keep_row, keep_col, count) = match name {
                    "mean" => (false, false, rows * cols),
                    "rowMeans" => (true, false, cols),
                    _ => (false, true, rows),
                };
                let total = self.aggregate(a, keep_row, keep_col)?;
                let scale = 1.0 / count as f64;
                self.map(total, |v| v * lit(scale))?
            }
            ("trace", [a]) => self.trace(a)?,
            ("diag", [a]) => self.diag(a)?,
            (spores_opt::la::INDEX, [x, rl, ru, cl, cu]) => {
                let a = self.lower(x)?;
                let rows = span(rl, ru, a.rows)?;
                let cols = span(cl, cu, a.cols)?;
                self.slice(a, rows, cols)?
            }
            ("cbind" | "rbind", [x, y]) => {
                let (a, b) = (self.lower(x)?, self.lower(y)?);
                self.bind(a, b, name == "cbind")?
            }
            ("rev", [a]) => {
                let a = self.lower(a)?;
                self.reverse(a)?
            }
            ("matrix", [v, r, c]) => {
                let fill = LaExpr::Fill(
                    Box::new(v.clone()),
                    Dim::Known(self.size_arg(r)?),
                    Dim::Known(self.size_arg(c)?),
                );
                self.lower(&fill)?
            }
            _ => return Ok(None),
        };
        Ok(Some(rel))
    }

    /// The cells of `a` in rows `rows` and columns `cols` (0-based, end exclusive),
    /// renumbered from 0.
    fn slice(&mut self, a: Rel, rows: (usize, usize), cols: (usize, usize)) -> Result<Rel> {
        let (had_row, had_col) = (a.has_row(), a.has_col());
        let (all_rows, all_cols) = ((0, a.rows), (0, a.cols));
        let (mut builder, q) = self.qualified(a.plan)?;
        let within = |column: &str, (lo, hi): (usize, usize)| {
            qcol(&q, column)
                .gt_eq(lit(lo as i64))
                .and(qcol(&q, column).lt(lit(hi as i64)))
        };
        if had_row && rows != all_rows {
            builder = builder.filter(within(ROW, rows))?;
        }
        if had_col && cols != all_cols {
            builder = builder.filter(within(COL, cols))?;
        }
        self.finish(
            builder,
            had_row.then(|| qcol(&q, ROW) - lit(rows.0 as i64)),
            had_col.then(|| qcol(&q, COL) - lit(cols.0 as i64)),
            qcol(&q, VALUE),
            rows.1 - rows.0,
            cols.1 - cols.0,
        )
    }

    /// `cbind(a, b)` (`side_by_side`) or `rbind(a, b)`: the cells of both, `b`'s moved
    /// past `a`'s.
    fn bind(&mut self, a: Rel, b: Rel, side_by_side: bool) -> Result<Rel> {
        let (rows, cols) = if side_by_side {
            if a.rows != b.rows {
                return Err(DistError::Plan(format!(
                    "cbind of {}x{} and {}x{}",
                    a.rows, a.cols, b.rows, b.cols
                )));
            }
            (a.rows, a.cols + b.cols)
        } else {
            if a.cols != b.cols {
                return Err(DistError::Plan(format!(
                    "rbind of {}x{} and {}x{}",
                    a.rows, a.cols, b.rows, b.cols
                )));
            }
            (a.rows + b.rows, a.cols)
        };
        // `b`'s cells come after `a`'s along the joined side.
        let (row_shift, col_shift) = if side_by_side {
            (0, a.cols)
        } else {
            (a.rows, 0)
        };
        let first = self.placed(a, 0, 0, rows, cols)?;
        let second = self.placed(b, row_shift, col_shift, rows, cols)?;
        Ok(Rel {
            plan: LogicalPlanBuilder::from(first.plan)
                .union(second.plan)?
                .build()?,
            rows,
            cols,
            leaf: None,
            held: None,
        })
    }

    /// The cells of `a` with their indices moved by `rows_by` and `cols_by`, as cells of
    /// a `rows x cols` result (an index `a` lacks is 0).
    fn placed(
        &mut self,
        a: Rel,
        rows_by: usize,
        cols_by: usize,
        rows: usize,
        cols: usize,
    ) -> Result<Rel> {
        let (had_row, had_col) = (a.has_row(), a.has_col());
        let (builder, q) = self.qualified(a.plan)?;
        let index = |has: bool, column: &str, by: usize| {
            let base = if has { qcol(&q, column) } else { lit(0i64) };
            base + lit(by as i64)
        };
        self.finish(
            builder,
            Some(index(had_row, ROW, rows_by)),
            Some(index(had_col, COL, cols_by)),
            qcol(&q, VALUE),
            rows,
            cols,
        )
    }

    /// `rev(a)`: row `i` of `rows` is row `rows - 1 - i`.
    fn reverse(&mut self, a: Rel) -> Result<Rel> {
        if !a.has_row() {
            return Ok(a);
        }
        let (rows, cols, had_col) = (a.rows, a.cols, a.has_col());
        let (builder, q) = self.qualified(a.plan)?;
        self.finish(
            builder,
            Some(lit(rows as i64 - 1) - qcol(&q, ROW)),
            had_col.then(|| qcol(&q, COL)),
            qcol(&q, VALUE),
            rows,
            cols,
        )
    }

    /// `trace(a)`: the sum of a square matrix's diagonal.
    fn trace(&mut self, a: &LaExpr) -> Result<Rel> {
        let a = self.lower(a)?;
        if a.rows != a.cols {
            return Err(DistError::Plan(format!(
                "trace of a {}x{} matrix",
                a.rows, a.cols
            )));
        }
        if !a.has_row() {
            return Ok(a);
        }
        let diagonal = self.diagonal(a)?;
        self.aggregate(diagonal, false, false)
    }

    /// `diag(a)`: a column vector becomes the diagonal matrix, a square matrix its
    /// diagonal as a column vector.
    fn diag(&mut self, a: &LaExpr) -> Result<Rel> {
        let a = self.lower(a)?;
        if a.cols == 1 {
            let n = a.rows;
            let (builder, q) = self.qualified(a.plan)?;
            return self.finish(
                builder,
                Some(qcol(&q, ROW)),
                Some(qcol(&q, ROW)),
                qcol(&q, VALUE),
                n,
                n,
            );
        }
        if a.rows != a.cols {
            return Err(DistError::Plan(format!(
                "diag of a {}x{} matrix",
                a.rows, a.cols
            )));
        }
        self.diagonal(a)
    }

    /// An elementwise function of one argument: on the stored cells when it keeps zeros
    /// zero, else on the densified matrix.
    fn elementwise_unary(&mut self, name: &str, a: &LaExpr) -> Result<Rel> {
        let a = self.lower(a)?;
        let zero_preserving: Option<fn(Expr) -> Expr> = match name {
            "abs" => Some(abs),
            "sqrt" => Some(sqrt),
            "sign" => Some(signum),
            "floor" => Some(floor),
            "ceil" => Some(ceil),
            _ => None,
        };
        if let Some(f) = zero_preserving {
            return self.map(a, f);
        }
        let dense_fn: fn(Expr) -> Expr = match name {
            "exp" => exp,
            "log" => ln,
            "sigmoid" => |v| lit(1.0) / (lit(1.0) + exp(-v)),
            _ => return Err(DistError::Unsupported(format!("`{name}` of one argument"))),
        };
        let dense = self.densify(a)?;
        self.map(dense, dense_fn)
    }

    /// An elementwise function of two arguments (`/`, `min`, `max`, comparisons), on
    /// both operands densified.
    fn elementwise_binary(&mut self, name: &str, x: &LaExpr, y: &LaExpr) -> Result<Rel> {
        let op: fn(Expr, Expr) -> Result<Expr> = match name {
            "/" => |a, b| Ok(a / b),
            "min" => |a: Expr, b: Expr| Ok(when(a.clone().lt_eq(b.clone()), a).otherwise(b)?),
            "max" => |a: Expr, b: Expr| Ok(when(a.clone().gt_eq(b.clone()), a).otherwise(b)?),
            "==" => |a: Expr, b| indicator(a.eq(b)),
            "!=" => |a: Expr, b| indicator(a.not_eq(b)),
            "<" => |a: Expr, b| indicator(a.lt(b)),
            "<=" => |a: Expr, b| indicator(a.lt_eq(b)),
            ">" => |a: Expr, b| indicator(a.gt(b)),
            ">=" => |a: Expr, b| indicator(a.gt_eq(b)),
            _ => return Err(DistError::Unsupported(format!("`{name}` of two arguments"))),
        };
        let (x, y) = (self.lower(x)?, self.lower(y)?);
        let (x, y) = (self.densify(x)?, self.densify(y)?);
        self.join_cells(name, x, y, op)
    }

    /// The tuples of a square matrix with `i = j`, as a column vector over `i`.
    fn diagonal(&mut self, a: Rel) -> Result<Rel> {
        let n = a.rows;
        let (builder, q) = self.qualified(a.plan)?;
        let builder = builder.filter(qcol(&q, ROW).eq(qcol(&q, COL)))?;
        self.finish(builder, Some(qcol(&q, ROW)), None, qcol(&q, VALUE), n, 1)
    }
}
