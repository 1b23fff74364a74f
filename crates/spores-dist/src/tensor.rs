//! Tensor programs on DataFusion: the logical plan the tensor optimizer chose (Galley's
//! aggregation order, one aggregate per query) lowered query by query.
//!
//! A tensor is the relation of its stored entries plus its fill value (the value of every
//! entry without a tuple): one Int64 column per mode and the value `v`. Inside a query's
//! body the mode columns are named after the indices the accesses bind them to, so a
//! pointwise operator joins its arguments on the indices they share:
//!
//! | tensor plan | relational plan |
//! |---|---|
//! | `A[i,j]`, `A[i,i]` | a scan, its columns renamed to the indices (a filter `m0 = m1` for a repeated index) |
//! | `f(a, b, ..)` where an argument's fill annihilates `f` (`0` for `*` and `and`, `1` for `or`) | inner join of those arguments (a cross join when they share no index), the output indices they lack cross-joined from their domains, the other arguments left-joined with their fill for a missing tuple |
//! | any other `f(a, b, ..)` | the union of the arguments' index tuples (each broadcast to the output's indices), the arguments left-joined with their fills |
//! | `agg[k](body)` | grouped by the other indices; the missing tuples of the group enter as the body's fill (`sum + (n - count) fill`, `max(max, fill)` when `count < n`) |
//! | an order-0 result, a literal | a constant in the later expressions |
//!
//! Each query's result is collected into an in-memory table that the later queries scan
//! (the local engine materializes every query too); the result's fill is the operator
//! applied to the arguments' fills, aggregated as `AggOp::repeat` does. Scalar semantics
//! are the local engine's (`MapOp::apply`): `0 * y = 0` for every `y`, `/` is IEEE 754's.
//! Comparisons follow Arrow's total order, which differs from IEEE only for NaN and `-0`.
//! The `prod` aggregate and user-declared functions and aggregates have no lowering.

use std::collections::HashMap;
use std::sync::Arc;

use datafusion::arrow::array::{Array, Float64Array, Int64Array};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::common::Column;
use datafusion::datasource::{provider_as_source, MemTable};
use datafusion::functions::expr_fn::{abs, ceil, exp, floor, isnan, ln, power, round, sqrt, trunc};
use datafusion::functions_aggregate::expr_fn::{count, max, min, sum};
use datafusion::logical_expr::{
    cast, col, lit, when, Expr, JoinType, LogicalPlan, LogicalPlanBuilder,
};
use spores_tensor::plan_ast::{self, AggOp, Idx, LogicalQuery, MapOp};
use spores_tensor::CooTensor;

use crate::coo::VALUE;
use crate::error::DistError;

type Result<T> = std::result::Result<T, DistError>;

/// A tensor held as a table: mode columns `m0 .. m{n-1}` (Int64) and `v`, with its dims and
/// fill.
#[derive(Clone, Debug)]
pub struct StoredTensor {
    batches: Vec<RecordBatch>,
    schema: SchemaRef,
    dims: Vec<usize>,
    fill: f64,
}

fn mode_column(k: usize) -> String {
    format!("m{k}")
}

/// The column holding index `idx` inside a query's body.
fn idx_column(idx: &Idx) -> String {
    format!("idx_{}", idx.name())
}

fn stored_schema(order: usize) -> SchemaRef {
    let mut fields: Vec<Field> = (0..order)
        .map(|k| Field::new(mode_column(k), DataType::Int64, false))
        .collect();
    fields.push(Field::new(VALUE, DataType::Float64, false));
    Arc::new(Schema::new(fields))
}

impl StoredTensor {
    /// The stored entries of `t` as one record batch.
    pub fn from_coo(t: &CooTensor) -> Result<StoredTensor> {
        let order = t.order();
        let mut modes: Vec<Vec<i64>> = vec![Vec::with_capacity(t.nnz()); order];
        for (coord, _) in t.iter() {
            for (mode, &x) in modes.iter_mut().zip(coord) {
                mode.push(i64::from(x));
            }
        }
        let mut columns: Vec<Arc<dyn Array>> = modes
            .into_iter()
            .map(|m| Arc::new(Int64Array::from(m)) as Arc<dyn Array>)
            .collect();
        columns.push(Arc::new(Float64Array::from(t.values().to_vec())));
        let schema = stored_schema(order);
        let batch = RecordBatch::try_new(schema.clone(), columns)?;
        Ok(StoredTensor {
            batches: vec![batch],
            schema,
            dims: t.dims().to_vec(),
            fill: t.fill(),
        })
    }

    /// The tensor back in coordinate form (tuples in any order; none repeats a coordinate).
    pub fn to_coo(&self) -> Result<CooTensor> {
        let order = self.dims.len();
        let mut entries = Vec::new();
        for batch in &self.batches {
            let int = |k: usize| {
                batch
                    .column(k)
                    .as_any()
                    .downcast_ref::<Int64Array>()
                    .ok_or_else(|| DistError::Result(format!("column {k} is not Int64")))
            };
            let modes: Vec<&Int64Array> = (0..order).map(int).collect::<Result<_>>()?;
            let values = batch
                .column(order)
                .as_any()
                .downcast_ref::<Float64Array>()
                .ok_or_else(|| DistError::Result("the value column is not Float64".into()))?;
            for r in 0..batch.num_rows() {
                let coord = modes
                    .iter()
                    .zip(&self.dims)
                    .map(|(m, &d)| {
                        let x = m.value(r);
                        u32::try_from(x)
                            .ok()
                            .filter(|&x| (x as usize) < d)
                            .ok_or_else(|| DistError::Result(format!("index {x} outside 0..{d}")))
                    })
                    .collect::<Result<Vec<u32>>>()?;
                entries.push((coord, values.value(r)));
            }
        }
        CooTensor::from_entries(self.dims.clone(), entries, self.fill)
            .map_err(|e| DistError::Result(e.to_string()))
    }

    /// The value of an order-0 tensor (its one tuple, else its fill).
    fn scalar(&self) -> Result<f64> {
        let mut value = self.fill;
        for batch in &self.batches {
            if batch.num_rows() > 1 {
                return Err(DistError::Result(
                    "an order-0 result has several tuples".into(),
                ));
            }
            if batch.num_rows() == 1 {
                let v = batch.column(0).as_any().downcast_ref::<Float64Array>();
                value = v
                    .ok_or_else(|| DistError::Result("the value column is not Float64".into()))?
                    .value(0);
            }
        }
        Ok(value)
    }
}

/// A lowered body expression: a constant, or a relation over `idxs` (columns named by
/// [`idx_column`], then `v`) with a fill.
enum Term {
    Const(f64),
    Rel {
        plan: LogicalPlan,
        idxs: Vec<Idx>,
        fill: f64,
    },
}

impl Term {
    fn fill(&self) -> f64 {
        match self {
            Term::Const(c) => *c,
            Term::Rel { fill, .. } => *fill,
        }
    }
}

fn qcol(alias: &str, name: &str) -> Expr {
    Expr::Column(Column::new(Some(alias), name))
}

fn indicator(cond: Expr) -> Result<Expr> {
    Ok(when(cond, lit(1.0)).otherwise(lit(0.0))?)
}

fn is_zero(e: Expr) -> Expr {
    // `abs`: Arrow compares floats in total order, where -0 is not 0.
    abs(e).eq(lit(0.0))
}

fn is_nonzero(e: Expr) -> Expr {
    abs(e).not_eq(lit(0.0))
}

/// `op` applied to value expressions, as `MapOp::apply` computes it.
fn map_expr(op: &MapOp, args: Vec<Expr>) -> Result<Expr> {
    let unary = |args: &[Expr]| -> Result<Expr> {
        match args {
            [a] => Ok(a.clone()),
            _ => Err(DistError::Plan(format!(
                "`{op}` takes one argument, not {}",
                args.len()
            ))),
        }
    };
    let binary = |args: &[Expr]| -> Result<(Expr, Expr)> {
        match args {
            [a, b] => Ok((a.clone(), b.clone())),
            _ => Err(DistError::Plan(format!(
                "`{op}` takes two arguments, not {}",
                args.len()
            ))),
        }
    };
    let fold = |args: Vec<Expr>, f: &dyn Fn(Expr, Expr) -> Result<Expr>| -> Result<Expr> {
        let mut it = args.into_iter();
        let first = it
            .next()
            .ok_or_else(|| DistError::Plan(format!("`{op}` without arguments")))?;
        it.try_fold(first, f)
    };
    Ok(match op {
        MapOp::Add => fold(args, &|a, b| Ok(a + b))?,
        MapOp::Mul => fold(args, &|a, b| {
            Ok(when(is_zero(a.clone()).or(is_zero(b.clone())), lit(0.0)).otherwise(a * b)?)
        })?,
        // f64::max and f64::min: a NaN operand gives the other one.
        MapOp::Max => fold(args, &|a, b| {
            Ok(when(a.clone().gt_eq(b.clone()).or(isnan(b.clone())), a).otherwise(b)?)
        })?,
        MapOp::Min => fold(args, &|a, b| {
            Ok(when(a.clone().lt_eq(b.clone()).or(isnan(b.clone())), a).otherwise(b)?)
        })?,
        MapOp::Or => indicator(fold(
            args.into_iter().map(is_nonzero).collect(),
            &|a, b| Ok(a.or(b)),
        )?)?,
        MapOp::And => indicator(fold(
            args.into_iter().map(is_nonzero).collect(),
            &|a, b| Ok(a.and(b)),
        )?)?,
        MapOp::Sub => {
            let (a, b) = binary(&args)?;
            a - b
        }
        // Arrow divides floats as IEEE 754 does (0/0 is NaN, x/0 is ±Inf), like `MapOp::apply`.
        MapOp::Div => {
            let (a, b) = binary(&args)?;
            a / b
        }
        MapOp::Pow => {
            let (a, b) = binary(&args)?;
            power(a, b)
        }
        MapOp::Lt | MapOp::Le | MapOp::Gt | MapOp::Ge | MapOp::Eq | MapOp::Ne => {
            let (a, b) = binary(&args)?;
            indicator(match op {
                MapOp::Lt => a.lt(b),
                MapOp::Le => a.lt_eq(b),
                MapOp::Gt => a.gt(b),
                MapOp::Ge => a.gt_eq(b),
                MapOp::Eq => a.eq(b),
                _ => a.not_eq(b),
            })?
        }
        MapOp::Neg => -unary(&args)?,
        MapOp::Sqrt => sqrt(unary(&args)?),
        MapOp::Exp => exp(unary(&args)?),
        MapOp::Log => ln(unary(&args)?),
        MapOp::Abs => abs(unary(&args)?),
        MapOp::Sigmoid => lit(1.0) / (lit(1.0) + exp(-unary(&args)?)),
        MapOp::Relu => {
            let a = unary(&args)?;
            when(a.clone().gt(lit(0.0)), a).otherwise(lit(0.0))?
        }
        MapOp::Not => indicator(is_zero(unary(&args)?))?,
        MapOp::Floor => floor(unary(&args)?),
        MapOp::Ceil => ceil(unary(&args)?),
        MapOp::Trunc => trunc(vec![unary(&args)?]),
        MapOp::IfElse => match args.as_slice() {
            [c, a, b] => when(is_nonzero(c.clone()), a.clone()).otherwise(b.clone())?,
            _ => {
                return Err(DistError::Plan(format!(
                    "`ifelse` takes three arguments, not {}",
                    args.len()
                )))
            }
        },
        // Arrow's float remainder is C's `fmod` (NaN for a zero divisor), as `rem` is.
        MapOp::Rem => {
            let (a, b) = binary(&args)?;
            a % b
        }
        MapOp::Mod => {
            let (a, b) = binary(&args)?;
            floored_mod(a, b)?
        }
        // `floor(a / b)` from the floored remainder, snapped to the integer it is up to
        // rounding; a zero or non-finite operand as `floor(a / b)` itself (`MapOp::apply`).
        MapOp::Fld => {
            let (a, b) = binary(&args)?;
            let special = is_zero(b.clone())
                .or(isnan(a.clone() - a.clone()))
                .or(isnan(b.clone() - b.clone()));
            let exact = round(vec![
                (a.clone() - floored_mod(a.clone(), b.clone())?) / b.clone(),
            ]);
            when(special, floor(a / b)).otherwise(exact)?
        }
        MapOp::User(f) => {
            return Err(DistError::Unsupported(format!(
                "the user function `{}`",
                f.name
            )))
        }
    })
}

/// `a mod b` with the sign of `b` (Julia's `mod`): the C remainder, moved by `b` when its
/// sign differs from `b`'s; NaN for a zero `b`, as the remainder is.
fn floored_mod(a: Expr, b: Expr) -> Result<Expr> {
    let r = a % b.clone();
    let moved = is_nonzero(r.clone()).and(r.clone().lt(lit(0.0)).not_eq(b.clone().lt(lit(0.0))));
    Ok(when(moved, r.clone() + b).otherwise(r)?)
}

/// Whether `op`'s result is its annihilator when an argument holds `value`: then only that
/// argument's stored tuples can differ from the result's fill.
fn annihilates(op: &MapOp, value: f64) -> bool {
    match op {
        MapOp::User(_) => false,
        _ => op.props().annihilator == Some(value),
    }
}

/// The alias of the first joined argument (`aliases`: argument position and alias) that
/// has index `i`.
fn owner_of<'a>(args: &[Term], aliases: &'a [(usize, String)], i: &Idx) -> &'a str {
    aliases
        .iter()
        .find(|(j, _)| matches!(&args[*j], Term::Rel { idxs, .. } if idxs.contains(i)))
        .map(|(_, alias)| alias.as_str())
        .expect("a joined argument has the index")
}

/// The tuples a map is computed at: a plan over the columns of `idxs`, plus, for each
/// argument it already joined (`joined`: position and column), that argument's value.
struct MapBase {
    plan: LogicalPlan,
    idxs: Vec<Idx>,
    joined: Vec<(usize, String)>,
}

/// Lowers the queries of one tensor logical plan, in order, over named inputs.
pub struct TensorLowering {
    tensors: HashMap<String, StoredTensor>,
    sizes: HashMap<Idx, usize>,
    next_alias: usize,
}

impl TensorLowering {
    /// `inputs` are the program's input tensors (their fills included).
    pub fn new(inputs: &HashMap<String, CooTensor>) -> Result<TensorLowering> {
        let tensors = inputs
            .iter()
            .map(|(name, t)| Ok((name.clone(), StoredTensor::from_coo(t)?)))
            .collect::<Result<_>>()?;
        Ok(TensorLowering {
            tensors,
            sizes: HashMap::new(),
            next_alias: 0,
        })
    }

    fn alias(&mut self, prefix: &str) -> String {
        self.next_alias += 1;
        format!("{prefix}{}", self.next_alias)
    }

    /// A stored tensor (input or earlier result) by name.
    pub fn tensor(&self, name: &str) -> Result<&StoredTensor> {
        self.tensors
            .get(name)
            .ok_or_else(|| DistError::Plan(format!("no tensor named `{name}`")))
    }

    /// Records the result of query `name`.
    pub fn store(&mut self, name: &str, t: StoredTensor) {
        self.tensors.insert(name.to_string(), t);
    }

    fn size(&self, idx: &Idx) -> Result<usize> {
        self.sizes
            .get(idx)
            .copied()
            .ok_or_else(|| DistError::Plan(format!("the size of index `{idx}` is unknown")))
    }

    /// Learns each index's size from the accesses of `body`.
    fn learn_sizes(&mut self, body: &plan_ast::Expr) -> Result<()> {
        let mut accesses = Vec::new();
        body.for_each_access(&mut |a| accesses.push(a.clone()));
        for a in accesses {
            if let plan_ast::Expr::Input { tensor: name, idxs }
            | plan_ast::Expr::Alias { name, idxs } = &a
            {
                let dims = self.tensor(name)?.dims.clone();
                if dims.len() != idxs.len() {
                    return Err(DistError::Plan(format!(
                        "`{name}` has {} modes, accessed with {}",
                        dims.len(),
                        idxs.len()
                    )));
                }
                for (idx, d) in idxs.iter().zip(dims) {
                    if let Some(&known) = self.sizes.get(idx) {
                        if known != d {
                            return Err(DistError::Plan(format!(
                                "index `{idx}` ranges over {known} and {d} (in `{name}`)"
                            )));
                        }
                    }
                    self.sizes.insert(idx.clone(), d);
                }
            }
        }
        Ok(())
    }

    /// The relation `{k : 0 <= k < n}` as column `idx_column(idx)`, aliased.
    fn domain(&mut self, idx: &Idx) -> Result<(LogicalPlan, String)> {
        let n = self.size(idx)?;
        let name = idx_column(idx);
        let schema = Arc::new(Schema::new(vec![Field::new(
            name.as_str(),
            DataType::Int64,
            false,
        )]));
        let values = Int64Array::from_iter_values(0..n as i64);
        let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(values)])?;
        let table = Arc::new(MemTable::try_new(schema, vec![vec![batch]])?);
        let alias = self.alias("dom");
        let plan =
            LogicalPlanBuilder::scan(alias.as_str(), provider_as_source(table), None)?.build()?;
        Ok((plan, alias))
    }

    /// The scan of a stored tensor's table under a fresh alias.
    fn scan(&mut self, name: &str) -> Result<(LogicalPlanBuilder, String)> {
        let t = self.tensor(name)?;
        let table = MemTable::try_new(t.schema.clone(), vec![t.batches.clone()])?;
        let alias = self.alias("t");
        let builder =
            LogicalPlanBuilder::scan(alias.as_str(), provider_as_source(Arc::new(table)), None)?;
        Ok((builder, alias))
    }

    /// An access `name[idxs]`: the scan with its modes renamed to the indices.
    fn access(&mut self, name: &str, idxs: &[Idx]) -> Result<Term> {
        let t = self.tensor(name)?;
        if idxs.is_empty() {
            return Ok(Term::Const(t.scalar()?));
        }
        let fill = t.fill;
        let (mut builder, alias) = self.scan(name)?;
        let mut seen: Vec<(Idx, usize)> = Vec::new();
        for (k, idx) in idxs.iter().enumerate() {
            match seen.iter().find(|(i, _)| i == idx) {
                Some(&(_, first)) => {
                    let same = qcol(&alias, &mode_column(first)).eq(qcol(&alias, &mode_column(k)));
                    builder = builder.filter(same)?;
                }
                None => seen.push((idx.clone(), k)),
            }
        }
        let mut exprs: Vec<Expr> = seen
            .iter()
            .map(|(idx, k)| qcol(&alias, &mode_column(*k)).alias(idx_column(idx)))
            .collect();
        exprs.push(qcol(&alias, VALUE).alias(VALUE));
        Ok(Term::Rel {
            plan: builder.project(exprs)?.build()?,
            idxs: seen.into_iter().map(|(idx, _)| idx).collect(),
            fill,
        })
    }

    /// Lowers a query body (no aggregates inside).
    fn body(&mut self, e: &plan_ast::Expr) -> Result<Term> {
        match e {
            plan_ast::Expr::Input { tensor: name, idxs } | plan_ast::Expr::Alias { name, idxs } => {
                self.access(name, idxs)
            }
            plan_ast::Expr::Literal(c) => Ok(Term::Const(*c)),
            plan_ast::Expr::Map { op, args } => {
                let args = args
                    .iter()
                    .map(|a| self.body(a))
                    .collect::<Result<Vec<_>>>()?;
                self.map(op, args)
            }
            plan_ast::Expr::Agg { .. } => Err(DistError::Plan(format!(
                "an aggregate inside a logical query's body: {e}"
            ))),
        }
    }

    /// `plan` (columns of `idxs`) cross-joined with the domains of `want`'s indices it
    /// lacks; returns the builder (under a fresh alias) and where each index of `want` is.
    fn cover(
        &mut self,
        plan: LogicalPlan,
        idxs: &[Idx],
        want: &[Idx],
    ) -> Result<(LogicalPlanBuilder, HashMap<Idx, Expr>, String)> {
        let alias = self.alias("b");
        let mut builder = LogicalPlanBuilder::from(plan).alias(alias.as_str())?;
        let mut at: HashMap<Idx, Expr> = idxs
            .iter()
            .map(|i| (i.clone(), qcol(&alias, &idx_column(i))))
            .collect();
        for idx in want {
            if !at.contains_key(idx) {
                let (dom, dom_alias) = self.domain(idx)?;
                builder = builder.cross_join(dom)?;
                at.insert(idx.clone(), qcol(&dom_alias, &idx_column(idx)));
            }
        }
        Ok((builder, at, alias))
    }

    /// `op` over lowered arguments.
    fn map(&mut self, op: &MapOp, args: Vec<Term>) -> Result<Term> {
        let fills: Vec<f64> = args.iter().map(Term::fill).collect();
        let fill = op.apply(&fills);
        if args.iter().all(|a| matches!(a, Term::Const(_))) {
            return Ok(Term::Const(fill));
        }
        // A constant annihilator makes the result that constant everywhere.
        if args
            .iter()
            .any(|a| matches!(a, Term::Const(c) if annihilates(op, *c)))
        {
            return Ok(Term::Const(fill));
        }
        let mut out: Vec<Idx> = Vec::new();
        for a in &args {
            if let Term::Rel { idxs, .. } = a {
                for i in idxs {
                    if !out.contains(i) {
                        out.push(i.clone());
                    }
                }
            }
        }
        let relations = args
            .iter()
            .filter(|a| matches!(a, Term::Rel { .. }))
            .count();
        let driving: Vec<usize> = args
            .iter()
            .enumerate()
            .filter(|(_, a)| matches!(a, Term::Rel { fill, .. } if annihilates(op, *fill)))
            .map(|(k, _)| k)
            .collect();
        if relations == 1 {
            return self.map_one_relation(op, &args, fill);
        }
        // The tuples that may differ from the fill: the join of the annihilating
        // arguments, else the union of every argument's index tuples.
        let base = if driving.is_empty() {
            MapBase {
                plan: self.union_of_tuples(&args, &out)?,
                idxs: out.clone(),
                joined: Vec::new(),
            }
        } else {
            self.join_driving(&args, &driving)?
        };
        self.map_over_base(op, &args, base, out, fill)
    }

    /// `op` over one relation among constants: a projection of its tuples.
    fn map_one_relation(&mut self, op: &MapOp, args: &[Term], fill: f64) -> Result<Term> {
        let (plan, idxs) = args
            .iter()
            .find_map(|a| match a {
                Term::Rel { plan, idxs, .. } => Some((plan.clone(), idxs.clone())),
                Term::Const(_) => None,
            })
            .expect("one relation");
        let alias = self.alias("q");
        let builder = LogicalPlanBuilder::from(plan).alias(alias.as_str())?;
        let values = args
            .iter()
            .map(|a| match a {
                Term::Const(c) => lit(*c),
                Term::Rel { .. } => qcol(&alias, VALUE),
            })
            .collect();
        let mut exprs: Vec<Expr> = idxs
            .iter()
            .map(|i| qcol(&alias, &idx_column(i)).alias(idx_column(i)))
            .collect();
        exprs.push(map_expr(op, values)?.alias(VALUE));
        Ok(Term::Rel {
            plan: builder.project(exprs)?.build()?,
            idxs,
            fill,
        })
    }

    /// The distinct index tuples (over `out`) of all relation arguments: where a map
    /// without an annihilating argument may differ from its fill.
    fn union_of_tuples(&mut self, args: &[Term], out: &[Idx]) -> Result<LogicalPlan> {
        let mut keys: Option<LogicalPlanBuilder> = None;
        for a in args {
            if let Term::Rel { plan, idxs, .. } = a {
                let (builder, at, _) = self.cover(plan.clone(), idxs, out)?;
                let projected = builder
                    .project(out.iter().map(|i| at[i].clone().alias(idx_column(i))))?
                    .build()?;
                keys = Some(match keys {
                    None => LogicalPlanBuilder::from(projected),
                    Some(k) => k.union(projected)?,
                });
            }
        }
        Ok(keys.expect("two relations").distinct()?.build()?)
    }

    /// The join of the annihilating arguments `driving` (the only tuples where the map
    /// may differ from its fill), with one column per index and each one's value.
    fn join_driving(&mut self, args: &[Term], driving: &[usize]) -> Result<MapBase> {
        let mut joined_idxs: Vec<Idx> = Vec::new();
        let mut builder: Option<(LogicalPlanBuilder, Vec<(usize, String)>)> = None;
        for &k in driving {
            let Term::Rel { plan, idxs, .. } = &args[k] else {
                unreachable!("driving arguments are relations")
            };
            let alias = self.alias("d");
            let right = LogicalPlanBuilder::from(plan.clone())
                .alias(alias.as_str())?
                .build()?;
            builder = Some(match builder {
                None => (LogicalPlanBuilder::from(right), vec![(k, alias.clone())]),
                Some((b, mut aliases)) => {
                    let shared: Vec<&Idx> =
                        idxs.iter().filter(|i| joined_idxs.contains(i)).collect();
                    let b = if shared.is_empty() {
                        b.cross_join(right)?
                    } else {
                        let left_keys = shared
                            .iter()
                            .map(|i| Column::new(Some(owner_of(args, &aliases, i)), idx_column(i)))
                            .collect::<Vec<_>>();
                        let right_keys = shared
                            .iter()
                            .map(|i| Column::new(Some(alias.as_str()), idx_column(i)))
                            .collect::<Vec<_>>();
                        b.join(right, JoinType::Inner, (left_keys, right_keys), None)?
                    };
                    aliases.push((k, alias.clone()));
                    (b, aliases)
                }
            });
            for i in idxs {
                if !joined_idxs.contains(i) {
                    joined_idxs.push(i.clone());
                }
            }
        }
        let (builder, aliases) = builder.expect("an annihilating argument");
        // One column per index and one value per driving argument, renamed.
        let mut exprs: Vec<Expr> = joined_idxs
            .iter()
            .map(|i| qcol(owner_of(args, &aliases, i), &idx_column(i)).alias(idx_column(i)))
            .collect();
        let joined: Vec<(usize, String)> = aliases
            .iter()
            .map(|(k, _)| (*k, format!("{VALUE}{k}")))
            .collect();
        exprs.extend(
            aliases
                .iter()
                .zip(&joined)
                .map(|((_, owner), (_, name))| qcol(owner, VALUE).alias(name.as_str())),
        );
        Ok(MapBase {
            plan: builder.project(exprs)?.build()?,
            idxs: joined_idxs,
            joined,
        })
    }

    /// `op` at the tuples of `base` covered to `out`: the arguments `base` did not join
    /// are left-joined (their fill where they have no tuple).
    fn map_over_base(
        &mut self,
        op: &MapOp,
        args: &[Term],
        base: MapBase,
        out: Vec<Idx>,
        fill: f64,
    ) -> Result<Term> {
        let MapBase { plan, idxs, joined } = base;
        let (mut builder, at, base_alias) = self.cover(plan, &idxs, &out)?;
        let mut values: Vec<Expr> = Vec::with_capacity(args.len());
        for (k, a) in args.iter().enumerate() {
            let value = match a {
                Term::Const(c) => lit(*c),
                Term::Rel { .. } if joined.iter().any(|(j, _)| *j == k) => {
                    let (_, name) = joined.iter().find(|(j, _)| *j == k).expect("joined");
                    qcol(&base_alias, name)
                }
                Term::Rel { plan, idxs, fill } => {
                    let alias = self.alias("a");
                    let right = LogicalPlanBuilder::from(plan.clone())
                        .alias(alias.as_str())?
                        .build()?;
                    let on: Vec<Expr> = idxs
                        .iter()
                        .map(|i| at[i].clone().eq(qcol(&alias, &idx_column(i))))
                        .collect();
                    builder = builder.join_on(right, JoinType::Left, on)?;
                    datafusion::functions::expr_fn::coalesce(vec![qcol(&alias, VALUE), lit(*fill)])
                }
            };
            values.push(value);
        }
        let mut exprs: Vec<Expr> = out
            .iter()
            .map(|i| at[i].clone().alias(idx_column(i)))
            .collect();
        exprs.push(map_expr(op, values)?.alias(VALUE));
        Ok(Term::Rel {
            plan: builder.project(exprs)?.build()?,
            idxs: out,
            fill,
        })
    }

    /// `body` broadcast over the output indices it lacks: a constant factor may have
    /// annihilated the terms that had them, and the value does not depend on them.
    fn broadcast_to_outputs(&mut self, q: &LogicalQuery, body: Term) -> Result<Term> {
        let Term::Rel { plan, idxs, fill } = body else {
            return Ok(body);
        };
        if q.idxs.iter().all(|i| idxs.contains(i)) {
            return Ok(Term::Rel { plan, idxs, fill });
        }
        let mut want = idxs.clone();
        want.extend(q.idxs.iter().filter(|i| !idxs.contains(i)).cloned());
        let (builder, at, alias) = self.cover(plan, &idxs, &want)?;
        let mut exprs: Vec<Expr> = want
            .iter()
            .map(|i| at[i].clone().alias(idx_column(i)))
            .collect();
        exprs.push(qcol(&alias, VALUE).alias(VALUE));
        Ok(Term::Rel {
            plan: builder.project(exprs)?.build()?,
            idxs: want,
            fill,
        })
    }

    /// The plan of one logical query, its columns `m0 ..` in `q.idxs` order then `v`,
    /// with the result's dims and fill.
    pub fn query(&mut self, q: &LogicalQuery) -> Result<(LogicalPlan, Vec<usize>, f64)> {
        self.learn_sizes(&q.body)?;
        let body = self.body(&q.body)?;
        let body = self.broadcast_to_outputs(q, body)?;
        let dims = q
            .idxs
            .iter()
            .map(|i| self.size(i))
            .collect::<Result<Vec<_>>>()?;
        let (body_idxs, body_fill) = match &body {
            Term::Const(c) => (Vec::new(), *c),
            Term::Rel { idxs, fill, .. } => (idxs.clone(), *fill),
        };
        // Aggregated indices the body does not have multiply each group `absent` times.
        let mut present = 1.0f64;
        let mut absent = 1.0f64;
        if q.agg.is_some() {
            for i in &q.agg_idxs {
                let n = self.size(i)? as f64;
                if body_idxs.contains(i) {
                    present *= n;
                } else {
                    absent *= n;
                }
            }
        }
        if let (Term::Const(c), false) = (&body, q.idxs.is_empty()) {
            // The same value everywhere: no tuples, all fill.
            let fill = match q.agg {
                Some(agg) => agg.repeat(*c, absent),
                None => *c,
            };
            let mut exprs: Vec<Expr> = (0..q.idxs.len())
                .map(|k| lit(0i64).alias(mode_column(k)))
                .collect();
            exprs.push(lit(fill).alias(VALUE));
            let plan = LogicalPlanBuilder::empty(false).project(exprs)?.build()?;
            return Ok((plan, dims, fill));
        }
        // Each branch gives the plan, the alias its index columns are under, the value and
        // the result's fill.
        let (plan, alias, value, fill) = match (q.agg, body) {
            (None, Term::Const(c)) => (LogicalPlanBuilder::empty(true).build()?, None, lit(c), c),
            (None, Term::Rel { plan, .. }) => {
                let alias = self.alias("r");
                let plan = LogicalPlanBuilder::from(plan)
                    .alias(alias.as_str())?
                    .build()?;
                let value = qcol(&alias, VALUE);
                (plan, Some(alias), value, body_fill)
            }
            (Some(agg), Term::Const(c)) => {
                let v = agg.repeat(agg.repeat(c, present), absent);
                (LogicalPlanBuilder::empty(true).build()?, None, lit(v), v)
            }
            (Some(agg), Term::Rel { plan, idxs, fill }) => {
                let groups: Vec<Expr> = idxs
                    .iter()
                    .filter(|i| !q.agg_idxs.contains(i))
                    .map(|i| col(Column::new_unqualified(idx_column(i))))
                    .collect();
                let v = || col(Column::new_unqualified(VALUE));
                let (aggregate, init) = match agg {
                    AggOp::Sum => (sum(v()), 0.0),
                    AggOp::Max => (max(v()), f64::NEG_INFINITY),
                    AggOp::Min => (min(v()), f64::INFINITY),
                    AggOp::Any => (max(indicator(is_nonzero(v()))?), 0.0),
                    AggOp::Prod => {
                        return Err(DistError::Unsupported("the `prod` aggregate".into()))
                    }
                    AggOp::User(u) => {
                        return Err(DistError::Unsupported(format!(
                            "the user-declared aggregate `{}`",
                            u.function().name
                        )))
                    }
                };
                let builder = LogicalPlanBuilder::from(plan)
                    .aggregate(groups, [aggregate.alias("agg"), count(v()).alias("n")])?;
                let alias = self.alias("g");
                let plan = builder.alias(alias.as_str())?.build()?;
                let stored =
                    datafusion::functions::expr_fn::coalesce(vec![qcol(&alias, "agg"), lit(init)]);
                let count = cast(qcol(&alias, "n"), DataType::Float64);
                // The group's tuples combined with its missing entries (the body's fill).
                let combined = match agg {
                    AggOp::Sum if fill == 0.0 => stored,
                    AggOp::Sum => stored + (lit(present) - count) * lit(fill),
                    _ => when(
                        count.lt(lit(present)),
                        map_expr(&agg.combine_op(), vec![stored.clone(), lit(fill)])?,
                    )
                    .otherwise(stored)?,
                };
                // Then repeated over the aggregated indices the body lacks.
                let value = match agg {
                    _ if absent == 1.0 => combined,
                    AggOp::Sum => combined * lit(absent),
                    AggOp::Any => indicator(is_nonzero(combined))?,
                    _ => combined,
                };
                let fill = agg.repeat(agg.repeat(fill, present), absent);
                (plan, Some(alias), value, fill)
            }
        };
        let mut exprs: Vec<Expr> = Vec::with_capacity(q.idxs.len() + 1);
        for (k, i) in q.idxs.iter().enumerate() {
            let alias = alias.as_deref().ok_or_else(|| {
                DistError::Plan(format!("`{}`: index `{i}` is not in the body", q.name))
            })?;
            exprs.push(qcol(alias, &idx_column(i)).alias(mode_column(k)));
        }
        exprs.push(value.alias(VALUE));
        let plan = LogicalPlanBuilder::from(plan).project(exprs)?.build()?;
        Ok((plan, dims, fill))
    }
}

/// A query's result batches (of `schema`, the plan's output) as a stored tensor.
pub fn stored(
    batches: Vec<RecordBatch>,
    schema: SchemaRef,
    dims: Vec<usize>,
    fill: f64,
) -> StoredTensor {
    StoredTensor {
        batches,
        schema,
        dims,
        fill,
    }
}
