//! Brute-force dense evaluation: the test oracle every optimized plan is compared against.
//!
//! Each query is evaluated cell by cell over the full index space (every aggregate loops over
//! every coordinate of its indices), directly from the definition of the notation, so it is
//! slow and obviously right. Use it on small tensors only.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

use crate::plan_ast::{Expr, Idx, LogicalPlan, Program};
use crate::tensor::CooTensor;
use crate::TensorError;

/// Sizes of the indices used in `expr`, read off the dims of the tensors they index.
/// Conflicting sizes are an error naming the index, both sizes and the tensors.
pub fn index_sizes(
    expr: &Expr,
    tensors: &dyn Fn(&str) -> Option<Vec<usize>>,
) -> Result<BTreeMap<Idx, (usize, String)>, TensorError> {
    let mut sizes: BTreeMap<Idx, (usize, String)> = BTreeMap::new();
    let mut err = None;
    expr.for_each_access(&mut |access| {
        let (Expr::Input { tensor: name, idxs } | Expr::Alias { name, idxs }) = access else {
            return;
        };
        if err.is_some() {
            return;
        }
        let Some(dims) = tensors(name) else {
            err = Some(TensorError::Unknown(name.clone()));
            return;
        };
        if dims.len() != idxs.len() {
            err = Some(TensorError::Invalid(format!(
                "{name} has {} modes (dims {dims:?}) but is indexed by {} indices",
                dims.len(),
                idxs.len()
            )));
            return;
        }
        for (i, &d) in idxs.iter().zip(&dims) {
            match sizes.get(i) {
                Some((prev, by)) if *prev != d => {
                    err = Some(TensorError::Invalid(format!(
                        "index {i} has size {prev} in {by} but {d} in {name}"
                    )));
                    return;
                }
                Some(_) => {}
                None => {
                    sizes.insert(i.clone(), (d, name.clone()));
                }
            }
        }
    });
    match err {
        Some(e) => Err(e),
        None => Ok(sizes),
    }
}

struct Env<'a> {
    inputs: &'a HashMap<String, CooTensor>,
    results: &'a HashMap<String, CooTensor>,
    sizes: BTreeMap<Idx, usize>,
    binding: HashMap<Idx, u32>,
}

impl Env<'_> {
    fn tensor(&self, name: &str, is_alias: bool) -> &CooTensor {
        let map = if is_alias { self.results } else { self.inputs };
        &map[name]
    }

    fn eval(&mut self, expr: &Expr) -> f64 {
        match expr {
            Expr::Literal(v) => *v,
            Expr::Input { tensor, idxs } => self.access(tensor, idxs, false),
            Expr::Alias { name, idxs } => self.access(name, idxs, true),
            Expr::Map { op, args } => {
                let vals: Vec<f64> = args.iter().map(|a| self.eval(a)).collect();
                op.apply(&vals)
            }
            Expr::Agg { op, idxs, body } => {
                let saved: Vec<Option<u32>> =
                    idxs.iter().map(|i| self.binding.get(i).copied()).collect();
                let dims: Vec<usize> = idxs.iter().map(|i| self.sizes[i]).collect();
                let mut acc = op.init();
                for_each_coord(&dims, |c| {
                    for (i, &x) in idxs.iter().zip(c) {
                        self.binding.insert(i.clone(), x);
                    }
                    let v = self.eval(body);
                    acc = op.combine(acc, v);
                });
                for (i, s) in idxs.iter().zip(saved) {
                    match s {
                        Some(x) => self.binding.insert(i.clone(), x),
                        None => self.binding.remove(i),
                    };
                }
                acc
            }
        }
    }

    fn access(&self, name: &str, idxs: &[Idx], is_alias: bool) -> f64 {
        let coord: Vec<u32> = idxs.iter().map(|i| self.binding[i]).collect();
        self.tensor(name, is_alias).get(&coord)
    }
}

fn for_each_coord(dims: &[usize], mut f: impl FnMut(&[u32])) {
    if dims.contains(&0) {
        return;
    }
    let mut cur = vec![0u32; dims.len()];
    loop {
        f(&cur);
        let mut m = dims.len();
        loop {
            if m == 0 {
                return;
            }
            m -= 1;
            cur[m] += 1;
            if (cur[m] as usize) < dims[m] {
                break;
            }
            cur[m] = 0;
        }
    }
}

/// Evaluates one query (`out_idxs` = the result's mode order) into a dense-valued tensor.
fn eval_query(
    out_idxs: &[Idx],
    expr: &Expr,
    inputs: &HashMap<String, CooTensor>,
    results: &HashMap<String, CooTensor>,
) -> Result<CooTensor, TensorError> {
    let lookup = |name: &str| {
        results
            .get(name)
            .or_else(|| inputs.get(name))
            .map(|t| t.dims().to_vec())
    };
    let sizes: BTreeMap<Idx, usize> = index_sizes(expr, &lookup)?
        .into_iter()
        .map(|(i, (d, _))| (i, d))
        .collect();
    for i in expr.free_idxs() {
        if !out_idxs.contains(&i) {
            return Err(TensorError::Invalid(format!(
                "index {i} is free in the right-hand side but not an output index"
            )));
        }
    }
    let mut dims = Vec::with_capacity(out_idxs.len());
    for i in out_idxs {
        dims.push(*sizes.get(i).ok_or_else(|| {
            TensorError::Invalid(format!("output index {i} does not index any tensor"))
        })?);
    }
    let mut env = Env {
        inputs,
        results,
        sizes,
        binding: HashMap::new(),
    };
    let mut values = Vec::with_capacity(dims.iter().product());
    for_each_coord(&dims, |c| {
        for (i, &x) in out_idxs.iter().zip(c) {
            env.binding.insert(i.clone(), x);
        }
        values.push(env.eval(expr));
    });
    if dims.is_empty() {
        return Ok(CooTensor::scalar(values[0]));
    }
    CooTensor::from_dense(dims, &values)
}

/// Evaluates every query of `program`; returns the requested outputs by name.
pub fn eval_program(
    program: &Program,
    inputs: &HashMap<String, CooTensor>,
) -> Result<HashMap<String, CooTensor>, TensorError> {
    let queries = program
        .queries
        .iter()
        .map(|q| (&q.name, &q.idxs, Cow::Borrowed(&q.expr)));
    let outputs = program.outputs.iter().map(|n| (n, n));
    eval_queries(queries, outputs, inputs)
}

/// Evaluates a logical plan; returns the program outputs it maps.
pub fn eval_logical(
    plan: &LogicalPlan,
    inputs: &HashMap<String, CooTensor>,
) -> Result<HashMap<String, CooTensor>, TensorError> {
    let queries = plan.queries.iter().map(|q| {
        let expr = match q.agg {
            Some(op) => Cow::Owned(Expr::agg(op, q.agg_idxs.clone(), q.body.clone())),
            None => Cow::Borrowed(&q.body),
        };
        (&q.name, &q.idxs, expr)
    });
    let outputs = plan.outputs.iter().map(|(out, q)| (out, q));
    eval_queries(queries, outputs, inputs)
}

/// Evaluates `(name, indices, expression)` queries in order (each may read the earlier
/// ones); returns each `(output, query)` pair's query result under the output's name.
fn eval_queries<'a>(
    queries: impl Iterator<Item = (&'a String, &'a Vec<Idx>, Cow<'a, Expr>)>,
    outputs: impl Iterator<Item = (&'a String, &'a String)>,
    inputs: &HashMap<String, CooTensor>,
) -> Result<HashMap<String, CooTensor>, TensorError> {
    let mut results = HashMap::new();
    for (name, idxs, expr) in queries {
        let t = eval_query(idxs, &expr, inputs, &results)?;
        results.insert(name.clone(), t);
    }
    Ok(outputs
        .filter_map(|(out, q)| results.get(q).map(|t| (out.clone(), t.clone())))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan_ast::{MapOp, Query};

    fn idx(s: &str) -> Idx {
        Idx::new(s)
    }

    #[test]
    fn matrix_vector_product_and_triangle_count() {
        let a = CooTensor::from_dense(vec![2, 2], &[1., 2., 3., 4.]).unwrap();
        let x = CooTensor::from_dense(vec![2], &[10., 100.]).unwrap();
        // Triangle: edges 0-1, 1-2, 0-2 both directions.
        let e = CooTensor::from_entries(
            vec![3, 3],
            [(0, 1), (1, 0), (1, 2), (2, 1), (0, 2), (2, 0)]
                .iter()
                .map(|&(i, j)| (vec![i, j], 1.0))
                .collect(),
            0.0,
        )
        .unwrap();
        let inputs: HashMap<String, CooTensor> =
            [("A".into(), a), ("x".into(), x), ("E".into(), e)]
                .into_iter()
                .collect();
        let program = crate::parse::parse_program(
            "y[i] = sum[j](A[i,j] * x[j])\nt = sum[i,j,k](E[i,j] * E[j,k] * E[i,k])",
        )
        .unwrap()
        .program;
        let out = eval_program(&program, &inputs).unwrap();
        assert_eq!(out["y"].to_dense(), vec![210.0, 430.0]);
        // 6 ordered triangles (homomorphisms of a triangle into a triangle).
        assert_eq!(out["t"].to_dense(), vec![6.0]);
    }

    #[test]
    fn size_conflicts_name_both_tensors() {
        let inputs: HashMap<String, CooTensor> = [
            (
                "A".to_string(),
                CooTensor::from_dense(vec![2], &[1., 2.]).unwrap(),
            ),
            (
                "B".to_string(),
                CooTensor::from_dense(vec![3], &[1., 2., 3.]).unwrap(),
            ),
        ]
        .into_iter()
        .collect();
        let i = idx("i");
        let q = Query::new(
            "C",
            vec![i.clone()],
            Expr::map(
                MapOp::Add,
                vec![Expr::input("A", vec![i.clone()]), Expr::input("B", vec![i])],
            ),
        );
        let program = Program {
            queries: vec![q],
            outputs: vec!["C".into()],
        };
        let err = eval_program(&program, &inputs).unwrap_err().to_string();
        assert!(err.contains("size 2 in A but 3 in B"), "{err}");
    }
}
