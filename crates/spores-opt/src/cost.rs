//! The cost model: what our kernels will spend on an operator, estimated from shapes and
//! sparsity.
//!
//! A cost is predicted kernel time in nanoseconds: the work an operator does (multiply-adds,
//! non-zeros or cells visited, per the kernel family that will run it) times that family's
//! measured price, plus a fixed cost per operator. The prices live in [`table`], generated
//! by timing the kernels of `spores-exec`
//! (`cargo run --release -p spores-opt --example calibrate -- --write`), so a sparse
//! transpose or a sparse elementwise pass costs what it really costs next to a GEMM or a
//! fused loss. Sparsity estimates follow Figure 12 of the SPORES paper (sparsity = nnz /
//! cells, products take the minimum, sums add, aggregation over `n` cells multiplies by
//! `n`), computed by `spores-tensor`'s estimator ([`sparsity`]); an operand is stored (and processed) sparse when its estimate is below
//! [`SPARSITY_TURN_POINT`], as the executor decides.
//!
//! The same per-operator functions price relational e-nodes during extraction
//! ([`crate::extract`]) and whole [`LaExpr`] DAGs ([`la_cost`]), so the costs reported
//! before and after optimization are comparable.

pub mod prices;
pub mod sparsity;
pub mod table;

use std::collections::HashMap;

pub use self::prices::*;
use crate::fused;
use crate::la::{broadcast, Dim, LaExpr, Shape, ShapeEnv, ShapeError};

/// Size assumed for a symbolic dimension whose size is unknown.
pub const DEFAULT_DIM: f64 = 1000.0;

/// Numeric size of a dimension.
pub fn dim_size(d: &Dim) -> f64 {
    match d {
        Dim::Known(n) => *n as f64,
        Dim::Sym(_) => DEFAULT_DIM,
    }
}

/// The estimated sparsity and cost of [`LaExpr`]s under a [`ShapeEnv`].
pub struct LaCost<'a> {
    env: &'a ShapeEnv,
}

/// Sparsity of an input: `nnz / cells` when `env.nnz` knows it, else dense.
pub fn input_sparsity(env: &ShapeEnv, name: &str) -> f64 {
    let Some((r, c)) = env.shapes.get(name) else {
        return 1.0;
    };
    match env.nnz.get(name) {
        Some(nnz) => {
            let cells = (dim_size(r) * dim_size(c)).max(1.0);
            (nnz / cells).clamp(0.0, 1.0)
        }
        None => 1.0,
    }
}

impl<'a> LaCost<'a> {
    pub fn new(env: &'a ShapeEnv) -> Self {
        LaCost { env }
    }

    /// Numeric shape of `e`.
    pub fn dims(&self, e: &LaExpr) -> Result<(f64, f64), ShapeError> {
        let (r, c) = shape_of(self.env, e)?;
        Ok((dim_size(&r), dim_size(&c)))
    }

    /// Estimated sparsity of `e` (Figure 12), by the estimator shared with the tensor
    /// optimizer ([`sparsity`]).
    pub fn sparsity(&self, e: &LaExpr) -> Result<f64, ShapeError> {
        sparsity::sparsity(self.env, e)
    }

    /// Cost of the operator at the root of `e` alone (its children already computed).
    pub fn op_cost(&self, e: &LaExpr) -> Result<f64, ShapeError> {
        price_op(&mut Direct(self), e)
    }

    /// Total cost of `e` as a DAG: structurally equal subexpressions are computed once.
    pub fn total(&self, e: &LaExpr) -> Result<f64, ShapeError> {
        Pricing::new(self).walk(e)
    }

    /// What pricing needs of the nodes of one expression, each computed once (see
    /// [`NodeFacts`]).
    pub fn node_facts<'e>(&self) -> NodeFacts<'_, 'a, 'e> {
        NodeFacts {
            cost: self,
            stats: HashMap::new(),
            fresh: 0,
            _nodes: std::marker::PhantomData,
        }
    }
}

/// What pricing an operator needs of its operands, nodes that live for `'e`.
trait Operands<'e> {
    fn dims(&mut self, e: &'e LaExpr) -> Result<(f64, f64), ShapeError>;
    fn sparsity(&mut self, e: &'e LaExpr) -> Result<f64, ShapeError>;
}

/// Operands whose facts are derived from scratch at each question.
struct Direct<'c, 'a>(&'c LaCost<'a>);

impl<'e> Operands<'e> for Direct<'_, '_> {
    fn dims(&mut self, e: &'e LaExpr) -> Result<(f64, f64), ShapeError> {
        self.0.dims(e)
    }

    fn sparsity(&mut self, e: &'e LaExpr) -> Result<f64, ShapeError> {
        self.0.sparsity(e)
    }
}

/// The shape and estimated sparsity of the nodes of expressions that live for `'e`, each
/// derived once from its operands' and kept by address: pricing every node of a tree is
/// then linear in its size, where deriving each node's facts from scratch walks its whole
/// subtree (a sum of 4,000 terms took seconds).
pub struct NodeFacts<'c, 'a, 'e> {
    cost: &'c LaCost<'a>,
    stats: sparsity::NodeStats,
    fresh: usize,
    _nodes: std::marker::PhantomData<&'e LaExpr>,
}

impl<'e> NodeFacts<'_, '_, 'e> {
    /// Estimated sparsity (non-zeros / cells) of `e`.
    pub fn sparsity_of(&mut self, e: &'e LaExpr) -> Result<f64, ShapeError> {
        Ok(self.facts(e)?.0)
    }

    /// Estimated sparsity and shape of `e`.
    pub fn facts(&mut self, e: &'e LaExpr) -> Result<(f64, Shape), ShapeError> {
        let key: *const LaExpr = e;
        if let Some(known) = self.stats.get(&key) {
            return Ok(known.clone());
        }
        let (row, col) = (
            spores_sparsity::Idx::new("i"),
            spores_sparsity::Idx::new("j"),
        );
        let (stats, shape) = sparsity::la_stats_memo(
            self.cost.env,
            e,
            &row,
            &col,
            &mut self.fresh,
            &mut self.stats,
        )?;
        Ok((stats.density(), shape))
    }
}

impl<'e> Operands<'e> for NodeFacts<'_, '_, 'e> {
    fn dims(&mut self, e: &'e LaExpr) -> Result<(f64, f64), ShapeError> {
        let (_, (r, c)) = self.facts(e)?;
        Ok((dim_size(&r), dim_size(&c)))
    }

    fn sparsity(&mut self, e: &'e LaExpr) -> Result<f64, ShapeError> {
        self.sparsity_of(e)
    }
}

/// Cost of the operator at the root of `e` alone (its children already computed).
fn price_op<'e>(ops: &mut impl Operands<'e>, e: &'e LaExpr) -> Result<f64, ShapeError> {
    use LaExpr::*;
    let (r, c) = ops.dims(e)?;
    let cells = r * c;
    Ok(match e {
        Var(_) | Const(_) => 0.0,
        Mul(a, b) => mul(cells, ops.sparsity(a)?, ops.sparsity(b)?),
        Add(a, b) | Sub(a, b) => add(cells, ops.sparsity(a)?, ops.sparsity(b)?),
        Neg(a) => map_sparse(cells, ops.sparsity(a)?),
        Pow(a, k) if *k > 0.0 => map_sparse(cells, ops.sparsity(a)?),
        Pow(..) => map_dense(cells),
        Transpose(a) => transpose(r, c, ops.sparsity(a)?),
        MatMul(a, b) => {
            let (m, k) = ops.dims(a)?;
            matmul(m, k, c, ops.sparsity(a)?, ops.sparsity(b)?)
        }
        Sum(a) | RowSums(a) | ColSums(a) => {
            let (ar, ac) = ops.dims(a)?;
            aggregate(ar * ac, ops.sparsity(a)?, cells)
        }
        Fill(v, ..) => {
            if matches!(**v, Const(c) if c == 0.0) {
                0.0
            } else {
                map_dense(cells)
            }
        }
        Func { name, args } => {
            if let Some(op) = fused::by_name(name, args.len()) {
                let (m, n) = ops.dims(&args[0])?;
                let other = match args.get(1) {
                    Some(a) => ops.dims(a)?.1,
                    None => 1.0,
                };
                return Ok((op.cost)(m, n, other, ops.sparsity(&args[0])?));
            }
            match name.as_str() {
                "nrow" | "ncol" => 0.0,
                _ => map_dense(cells),
            }
        }
    })
}

/// One pricing walk over expressions that live for `'e`: their nodes' facts, and the
/// subexpressions already paid for (structurally equal ones are computed once).
struct Pricing<'c, 'a, 'e> {
    facts: NodeFacts<'c, 'a, 'e>,
    /// Structural hash of each node, by address.
    hashes: HashMap<*const LaExpr, u64>,
    /// The subexpressions paid for, by structural hash.
    paid: HashMap<u64, Vec<&'e LaExpr>>,
}

impl<'c, 'a, 'e> Pricing<'c, 'a, 'e> {
    fn new(cost: &'c LaCost<'a>) -> Self {
        Pricing {
            facts: cost.node_facts(),
            hashes: HashMap::new(),
            paid: HashMap::new(),
        }
    }

    /// A hash of `e`'s structure, from its operands' (kept by address).
    fn hash(&mut self, e: &'e LaExpr) -> u64 {
        use std::hash::{Hash, Hasher};
        let key: *const LaExpr = e;
        if let Some(&h) = self.hashes.get(&key) {
            return h;
        }
        let mut state = std::collections::hash_map::DefaultHasher::new();
        std::mem::discriminant(e).hash(&mut state);
        match e {
            LaExpr::Var(name) => name.hash(&mut state),
            LaExpr::Const(x) | LaExpr::Pow(_, x) => x.to_bits().hash(&mut state),
            LaExpr::Fill(_, r, c) => format!("{r:?}{c:?}").hash(&mut state),
            LaExpr::Func { name, .. } => name.hash(&mut state),
            _ => {}
        }
        for child in children(e) {
            self.hash(child).hash(&mut state);
        }
        let h = state.finish();
        self.hashes.insert(key, h);
        h
    }

    /// Whether a subexpression equal to `e` was paid for already; if not, it is now.
    fn pay(&mut self, e: &'e LaExpr) -> bool {
        let h = self.hash(e);
        let same = self.paid.entry(h).or_default();
        if same.contains(&e) {
            return true;
        }
        same.push(e);
        false
    }

    fn walk(&mut self, e: &'e LaExpr) -> Result<f64, ShapeError> {
        if self.pay(e) {
            return Ok(0.0);
        }
        if let LaExpr::Func { name, args } = e {
            if fused::by_name(name, args.len()).is_some_and(|op| op.kind.is_masked()) {
                return self.walk_masked(&args[0], &args[1]);
            }
        }
        let mut total = price_op(&mut self.facts, e)?;
        for child in children(e) {
            match (e, child) {
                // `t(A) %*% B` and `A %*% t(B)` run as one kernel that reads the
                // transposed operand in place (`matmul_t`): the transpose is free.
                (LaExpr::MatMul(..), LaExpr::Transpose(x)) => total += self.walk(x)?,
                _ => total += self.walk(child)?,
            }
        }
        Ok(total)
    }

    /// `masked_mul(x, e)` or `masked_div(x, e)`: the tree `e` at `x`'s non-zeros (priced as
    /// the extractor's masked candidates are, [`masked`]), then `x` and the tree's leaves.
    fn walk_masked(&mut self, x: &'e LaExpr, e: &'e LaExpr) -> Result<f64, ShapeError> {
        let shape = self.facts.dims(x)?;
        let (mut instrs, mut rank) = (0.0, 0.0);
        let mut leaves = Vec::new();
        let mut stack = vec![e];
        while let Some(n) = stack.pop() {
            if self.facts.dims(n)? != shape {
                leaves.push(n);
                continue;
            }
            match n {
                LaExpr::MatMul(u, v) if self.facts.dims(u)?.1 <= MAX_RANK as f64 => {
                    rank += self.facts.dims(u)?.1;
                    leaves.push(u);
                    leaves.push(match &**v {
                        LaExpr::Transpose(inner) => inner,
                        _ => v,
                    });
                }
                LaExpr::Add(a, b) | LaExpr::Sub(a, b) | LaExpr::Mul(a, b) => {
                    instrs += 1.0;
                    stack.extend([&**a, &**b]);
                }
                LaExpr::Neg(a) | LaExpr::Pow(a, _) => {
                    instrs += 1.0;
                    stack.push(a);
                }
                LaExpr::Func { name, args }
                    if (1..=2).contains(&args.len())
                        && fused::by_name(name, args.len()).is_none() =>
                {
                    instrs += 1.0;
                    stack.extend(args.iter());
                }
                _ => leaves.push(n),
            }
        }
        let (r, c) = shape;
        let mut total = masked(r * c * self.facts.sparsity(x)?.min(1.0), instrs, rank);
        total += self.walk(x)?;
        for leaf in leaves {
            total += self.walk(leaf)?;
        }
        Ok(total)
    }
}

/// [`ShapeEnv::shape_of`] that also knows the fused operators ([`fused::CATALOGUE`]),
/// checking their operands.
pub fn shape_of(env: &ShapeEnv, e: &LaExpr) -> Result<Shape, ShapeError> {
    use LaExpr::*;
    let one = || Dim::Known(1);
    let bad = |what: &str| Err(ShapeError(format!("{what}: operand shapes do not fit")));
    match e {
        Var(_) | Const(_) | Fill(..) => env.shape_of(e),
        Add(a, b) | Sub(a, b) | Mul(a, b) => {
            let op = match e {
                Add(..) => "+",
                Sub(..) => "-",
                _ => "*",
            };
            broadcast(op, shape_of(env, a)?, shape_of(env, b)?)
        }
        MatMul(a, b) => {
            let (sa, sb) = (shape_of(env, a)?, shape_of(env, b)?);
            if sa.1 != sb.0 {
                return bad("%*%");
            }
            Ok((sa.0, sb.1))
        }
        Transpose(a) => {
            let (r, c) = shape_of(env, a)?;
            Ok((c, r))
        }
        Neg(a) | Pow(a, _) => shape_of(env, a),
        Sum(a) => shape_of(env, a).map(|_| (one(), one())),
        RowSums(a) => Ok((shape_of(env, a)?.0, one())),
        ColSums(a) => Ok((one(), shape_of(env, a)?.1)),
        Func { name, args } => {
            let shapes = args
                .iter()
                .map(|a| shape_of(env, a))
                .collect::<Result<Vec<_>, _>>()?;
            if let Some(op) = fused::by_name(name, shapes.len()) {
                return match op.result_shape(&shapes, one()) {
                    Some(shape) => Ok(shape),
                    None => bad(name),
                };
            }
            let broadcast_all = |shapes: Vec<Shape>| {
                let mut iter = shapes.into_iter();
                let first = iter.next().unwrap_or((one(), one()));
                iter.try_fold(first, |acc, s| broadcast(name, acc, s))
            };
            match (name.as_str(), shapes.as_slice()) {
                ("nrow" | "ncol", [_]) => Ok((one(), one())),
                ("matrix" | "diag", _) => env.shape_of(e),
                // An element-wise function has its operands' shape, computed here: the
                // plain rules do not know a fused operand (`exp(tsmm(X))`).
                _ if crate::functions::is_elementwise(name, shapes.len()) => broadcast_all(shapes),
                // Aggregating builtins (`trace`, `mean`, `rowMeans`, ...) as DML types them,
                // when no fused operator inside keeps the plain rules from applying.
                _ if env.shape_of(e).is_ok() => env.shape_of(e),
                _ => broadcast_all(shapes),
            }
        }
    }
}

/// Total DAG cost of `e` (see [`LaCost::total`]).
pub fn la_cost(e: &LaExpr, env: &ShapeEnv) -> Result<f64, ShapeError> {
    LaCost::new(env).total(e)
}

/// Total DAG cost of several expressions computed together: a subexpression they share
/// is paid once.
pub fn la_cost_all(es: &[LaExpr], env: &ShapeEnv) -> Result<f64, ShapeError> {
    let cost = LaCost::new(env);
    let mut pricing = Pricing::new(&cost);
    es.iter().map(|e| pricing.walk(e)).sum()
}

/// The direct subexpressions of `e`.
pub fn children(e: &LaExpr) -> Vec<&LaExpr> {
    use LaExpr::*;
    match e {
        Var(_) | Const(_) => vec![],
        Add(a, b) | Sub(a, b) | Mul(a, b) | MatMul(a, b) => vec![a, b],
        Transpose(a) | Neg(a) | Sum(a) | RowSums(a) | ColSums(a) | Pow(a, _) | Fill(a, ..) => {
            vec![a]
        }
        Func { args, .. } => args.iter().collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::table::*;
    use super::*;

    fn env(sparse: bool) -> ShapeEnv {
        let mut env =
            ShapeEnv::with_shapes(&["X=10000x10000", "U=10000x10", "V=10000x10"]).unwrap();
        if sparse {
            env.set_nnz("X", 1e6);
        }
        env
    }

    #[test]
    fn fused_loss_wins_by_orders_of_magnitude_on_sparse_input() {
        let env = env(true);
        let plain = la_cost(&LaExpr::parse("sum((X - U %*% t(V))^2)").unwrap(), &env).unwrap();
        let fused = la_cost(&LaExpr::parse("wsloss(X, U, V)").unwrap(), &env).unwrap();
        assert!(fused * 50.0 < plain, "{fused} vs {plain}");
    }

    #[test]
    fn shared_subexpressions_are_paid_once() {
        let env = env(false);
        let once = la_cost(&LaExpr::parse("U %*% t(V)").unwrap(), &env).unwrap();
        let twice = la_cost(&LaExpr::parse("U %*% t(V) * (U %*% t(V))").unwrap(), &env).unwrap();
        let product = mul(1e8, 1.0, 1.0);
        assert!(
            (twice - (once + product)).abs() <= 1e-9 * twice,
            "{twice} vs {once}"
        );
    }

    /// An element-wise function of a fused operator has the operator's shape
    /// (`exp(tsmm(X))` is `n x n`, not `X`'s `m x n`).
    #[test]
    fn an_elementwise_function_of_a_fused_operator_has_its_shape() {
        let mut env = ShapeEnv::default();
        env.add_shape_arg("X=2000x40").unwrap();
        let e = LaExpr::parse("2 * exp(tsmm(X))").unwrap();
        assert_eq!(
            shape_of(&env, &e).unwrap(),
            (Dim::Known(40), Dim::Known(40))
        );
    }

    /// A sparse matrix times a vector, on either side, is priced per non-zero at the
    /// mat-vec price, not at SpMM's per-column share; so one `mmchain` pass is priced
    /// below the two mat-vecs it replaces (as measured), and a product with many columns
    /// still pays SpMM's price per column.
    #[test]
    fn sparse_mat_vecs_are_priced_per_non_zero() {
        let (m, n, s) = (1e5, 1e3, 0.01);
        let nnz = m * n * s;
        let column = matmul(m, n, 1.0, s, 1.0);
        let row = matmul(1.0, m, n, 1.0, s);
        for price in [column, row] {
            assert!((price - (OP_OVERHEAD_NS + SPMV_NS_PER_NNZ * nnz)).abs() <= 1e-9 * price);
        }
        let transposed = matmul(n, m, 1.0, s, 1.0);
        assert!(mmchain(m, n, 1.0, s) < column + transposed);
        let wide = matmul(m, n, 20.0, s, 1.0);
        assert!((wide - (OP_OVERHEAD_NS + SPMM_NS_PER_FLOP * nnz * 20.0)).abs() <= 1e-9 * wide);
    }

    #[test]
    fn a_transposed_matmul_operand_is_read_in_place_but_a_fused_one_is_copied() {
        let mut env = env(true);
        env.add_shape_arg("W=10000x10").unwrap();
        let plain = la_cost(&LaExpr::parse("X %*% W").unwrap(), &env).unwrap();
        let t = la_cost(&LaExpr::parse("t(X) %*% W").unwrap(), &env).unwrap();
        assert_eq!(plain, t);
        let wsloss = la_cost(&LaExpr::parse("wsloss(X, U, V)").unwrap(), &env).unwrap();
        let wsloss_t = la_cost(&LaExpr::parse("wsloss(t(X), V, U)").unwrap(), &env).unwrap();
        let copy = transpose(1e4, 1e4, 0.01);
        assert!((wsloss_t - (wsloss + copy)).abs() <= 1e-9 * wsloss_t);
        // Copying a sparse X costs more than negating a dense factor.
        assert!(copy > map_sparse(1e4 * 10.0, 1.0));
    }
}
