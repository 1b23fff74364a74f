//! The baseline lowering: each `Agg` node becomes a logical query in place.

use crate::plan_ast::{Expr, LogicalPlan, LogicalQuery, Program, Query};
use crate::TensorError;

/// A query's output indices must be exactly the free indices of its right-hand side.
pub(crate) fn check_output_idxs(q: &Query) -> Result<(), TensorError> {
    let free = q.expr.free_idxs();
    if free.len() != q.idxs.len() || !q.idxs.iter().all(|i| free.contains(i)) {
        return Err(TensorError::Invalid(format!(
            "query {}: output indices {:?} must be exactly the free indices {:?} of its right-hand side",
            q.name, q.idxs, free
        )));
    }
    Ok(())
}

/// Lowers `program` without optimizing: an aggregate nested inside a pointwise expression is
/// hoisted into a query of its own (named `NAME__k`) and replaced by an alias, so each query
/// holds one aggregate. The last query of each program query keeps the program query's name,
/// so aliases between program queries stay valid.
pub fn naive_plan(program: &Program) -> Result<LogicalPlan, TensorError> {
    let mut plan = LogicalPlan::default();
    for q in &program.queries {
        check_output_idxs(q)?;
        let mut lowering = Lowering {
            prefix: &q.name,
            counter: 0,
            queries: &mut plan.queries,
        };
        let last = match &q.expr {
            Expr::Agg { op, idxs, body } => LogicalQuery {
                name: q.name.clone(),
                idxs: q.idxs.clone(),
                agg: Some(*op),
                agg_idxs: idxs.clone(),
                body: lowering.lower(body),
            },
            other => LogicalQuery {
                name: q.name.clone(),
                idxs: q.idxs.clone(),
                agg: None,
                agg_idxs: vec![],
                body: lowering.lower(other),
            },
        };
        plan.queries.push(last);
    }
    plan.outputs = program
        .outputs
        .iter()
        .map(|o| (o.clone(), o.clone()))
        .collect();
    Ok(plan)
}

struct Lowering<'a> {
    prefix: &'a str,
    counter: usize,
    queries: &'a mut Vec<LogicalQuery>,
}

impl Lowering<'_> {
    fn lower(&mut self, expr: &Expr) -> Expr {
        match expr {
            Expr::Input { .. } | Expr::Alias { .. } | Expr::Literal(_) => expr.clone(),
            Expr::Map { op, args } => {
                Expr::map(op.clone(), args.iter().map(|a| self.lower(a)).collect())
            }
            Expr::Agg { op, idxs, body } => {
                let body = self.lower(body);
                let mut free = body.free_idxs();
                for i in idxs {
                    free.remove(i);
                }
                let free: Vec<_> = free.into_iter().collect();
                self.counter += 1;
                let name = format!("{}__{}", self.prefix, self.counter);
                self.queries.push(LogicalQuery {
                    name: name.clone(),
                    idxs: free.clone(),
                    agg: Some(*op),
                    agg_idxs: idxs.clone(),
                    body,
                });
                Expr::alias(&name, free)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan_ast::{Idx, Query};
    use crate::reference::{eval_logical, eval_program};
    use crate::tensor::CooTensor;
    use std::collections::HashMap;

    #[test]
    fn nested_aggregates_become_queries_and_agree_with_the_program() {
        let program = crate::parse::parse_program("V[i] = L[i] * max[j](sum[k](E[i,j] * E[j,k]))")
            .unwrap()
            .program;
        let plan = naive_plan(&program).unwrap();
        assert_eq!(
            plan.to_string(),
            "V__1[i,j] = sum[k](E[i,j] * E[j,k])\nV__2[i] = max[j](V__1[i,j])\nV[i] = L[i] * V__2[i]\n"
        );
        let e = CooTensor::from_dense(vec![3, 3], &[0., 1., 2., 1., 0., 0., 3., 0., 1.]).unwrap();
        let l = CooTensor::from_dense(vec![3], &[1., -2., 0.5]).unwrap();
        let inputs: HashMap<_, _> = [("E".to_string(), e), ("L".to_string(), l)]
            .into_iter()
            .collect();
        let want = eval_program(&program, &inputs).unwrap();
        let got = eval_logical(&plan, &inputs).unwrap();
        assert_eq!(want["V"], got["V"]);
    }

    #[test]
    fn output_indices_must_match_free_indices() {
        let i = Idx::new("i");
        let program = Program {
            queries: vec![Query::new("s", vec![], Expr::input("x", vec![i]))],
            outputs: vec!["s".into()],
        };
        assert!(naive_plan(&program)
            .unwrap_err()
            .to_string()
            .contains("free indices"));
    }
}
