//! Integer element types. Every value is an `f64`, which holds the integers up to 2^53
//! exactly, so a tensor of integers is a tensor of floats whose values happen to be whole.
//! What an integer type adds is NumPy's int64 arithmetic where it differs from float
//! arithmetic, and a check that the numbers stay exact:
//!
//! - an input declared `input A int` must hold integers (and an integer fill) of at most
//!   2^53 in magnitude;
//! - a query is of integers when everything it combines is (integer inputs and queries,
//!   whole literals) under `+ - * max min neg abs relu floor ceil trunc % rem mod fld`,
//!   `ifelse` (of integer branches), `^` to a whole non-negative literal, and the aggregates
//!   `sum prod max min`; comparisons, `&& || !` and `any` give integers (0 or 1) whatever
//!   they compare; `/` and the other functions give floats;
//! - `rem`, `mod` and `fld` of integers by 0 give 0, as NumPy's integer arrays do (floats
//!   give NaN, or ±Inf for `fld`);
//! - an integer result beyond 2^53 in magnitude is an error (int64 would keep more digits,
//!   and wrap past 2^63; `f64` has already rounded).

use std::collections::BTreeSet;

use super::{AggOp, Expr, MapOp, Program, Query};
use crate::tensor::CooTensor;
use crate::TensorError;

/// The largest magnitude up to which every integer is an `f64`.
const EXACT: f64 = 9_007_199_254_740_992.0;

fn is_integer(v: f64) -> bool {
    v.fract() == 0.0 && v.abs() <= EXACT
}

/// The queries of `program` whose results are integers, given the integer inputs.
pub fn integer_queries(program: &Program, int_inputs: &[String]) -> BTreeSet<String> {
    let mut ints = BTreeSet::new();
    for q in &program.queries {
        if is_int(&q.expr, int_inputs, &ints) {
            ints.insert(q.name.clone());
        }
    }
    ints
}

fn is_int(e: &Expr, inputs: &[String], queries: &BTreeSet<String>) -> bool {
    let int = |a: &Expr| is_int(a, inputs, queries);
    match e {
        Expr::Literal(v) => is_integer(*v),
        Expr::Input { tensor, .. } => inputs.contains(tensor),
        Expr::Alias { name, .. } => queries.contains(name),
        Expr::Agg { op, body, .. } => match op {
            AggOp::Any => true,
            AggOp::Sum | AggOp::Prod | AggOp::Max | AggOp::Min => int(body),
            AggOp::User(_) => false,
        },
        Expr::Map { op, args } => match op {
            MapOp::Lt | MapOp::Le | MapOp::Gt | MapOp::Ge | MapOp::Eq | MapOp::Ne => true,
            MapOp::And | MapOp::Or | MapOp::Not => true,
            MapOp::Add | MapOp::Sub | MapOp::Mul | MapOp::Max | MapOp::Min => args.iter().all(int),
            MapOp::Neg | MapOp::Abs | MapOp::Relu => args.iter().all(int),
            MapOp::Floor | MapOp::Ceil | MapOp::Trunc => args.iter().all(int),
            MapOp::Rem | MapOp::Mod | MapOp::Fld => args.iter().all(int),
            MapOp::IfElse => args.iter().skip(1).all(int),
            MapOp::Pow => match args.as_slice() {
                [base, Expr::Literal(p)] => int(base) && *p >= 0.0 && is_integer(*p),
                _ => false,
            },
            MapOp::Div | MapOp::Sqrt | MapOp::Exp | MapOp::Log | MapOp::Sigmoid => false,
            MapOp::User(_) => false,
        },
    }
}

/// `program` with NumPy's integer semantics where they differ from float semantics: `rem`,
/// `mod` and `fld` of integers by 0 are 0.
pub fn with_integer_semantics(program: &Program, int_inputs: &[String]) -> Program {
    let mut ints = BTreeSet::new();
    let mut queries = vec![];
    for q in &program.queries {
        let expr = rewrite(&q.expr, int_inputs, &ints);
        if is_int(&q.expr, int_inputs, &ints) {
            ints.insert(q.name.clone());
        }
        queries.push(Query::new(&q.name, q.idxs.clone(), expr));
    }
    Program {
        queries,
        outputs: program.outputs.clone(),
    }
}

fn rewrite(e: &Expr, inputs: &[String], queries: &BTreeSet<String>) -> Expr {
    match e {
        Expr::Literal(_) | Expr::Input { .. } | Expr::Alias { .. } => e.clone(),
        Expr::Agg { op, idxs, body } => {
            Expr::agg(*op, idxs.clone(), rewrite(body, inputs, queries))
        }
        Expr::Map { op, args } => {
            let new_args: Vec<Expr> = args.iter().map(|a| rewrite(a, inputs, queries)).collect();
            let by_integer = matches!(op, MapOp::Rem | MapOp::Mod | MapOp::Fld)
                && args.iter().all(|a| is_int(a, inputs, queries));
            let divisor = match new_args.get(1) {
                Some(d) if by_integer => d.clone(),
                _ => return Expr::map(op.clone(), new_args),
            };
            let call = Expr::map(op.clone(), new_args);
            let zero = Expr::map(MapOp::Eq, vec![divisor, Expr::Literal(0.0)]);
            Expr::map(MapOp::IfElse, vec![zero, Expr::Literal(0.0), call])
        }
    }
}

/// An error unless `t`, the input `name` declared `int`, holds integers within 2^53.
pub fn check_integer_input(name: &str, t: &CooTensor) -> Result<(), TensorError> {
    check(t, |what| {
        format!("input {name} is declared `int` but {what} (integers up to 2^53 only)")
    })
}

/// An error unless `t`, the integer result `name`, is exact (within 2^53).
pub fn check_integer_result(name: &str, t: &CooTensor) -> Result<(), TensorError> {
    check(t, |what| {
        format!("{name} is a result of integers but {what}, beyond the integers an f64 holds exactly (2^53)")
    })
}

fn check(t: &CooTensor, message: impl Fn(String) -> String) -> Result<(), TensorError> {
    if t.order() == 0 {
        let v = t.get(&[]);
        if is_integer(v) {
            return Ok(());
        }
        return Err(TensorError::Invalid(message(format!("holds {v}"))));
    }
    if !is_integer(t.fill()) {
        return Err(TensorError::Invalid(message(format!(
            "its fill is {}",
            t.fill()
        ))));
    }
    match t.iter().find(|(_, v)| !is_integer(*v)) {
        Some((c, v)) => Err(TensorError::Invalid(message(format!("holds {v} at {c:?}")))),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use crate::parse::parse_program;

    #[test]
    fn integer_results_are_inferred_query_by_query() {
        let p = parse_program(
            "input A int\nx[i] = abs(A[i] + 1) ^ 2\ny[i] = A[i] / 2\nz = sum[i](y[i] > 0.5)\n\
             w = max[i](x[i] * 0.5)\nv[i] = ifelse(y[i] > 1, x[i], -3)",
        )
        .unwrap();
        let ints = super::integer_queries(&p.program, &p.integers);
        assert_eq!(ints.into_iter().collect::<Vec<_>>(), vec!["v", "x", "z"]);
    }

    #[test]
    fn only_remainders_of_integers_are_guarded_against_a_zero_divisor() {
        let p = parse_program("input A int\nr[i] = A[i] % (A[i] - 1) + mod(A[i], 0.5)").unwrap();
        assert_eq!(
            p.to_run().queries[0].expr.to_string(),
            "ifelse((A[i] - 1) == 0, 0, A[i] % (A[i] - 1)) + mod(A[i], 0.5)"
        );
    }
}
