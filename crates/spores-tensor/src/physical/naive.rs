//! The baseline physical plan: fixed loop order, transposes where needed, simple formats.

use std::collections::BTreeMap;

use crate::plan_ast::{
    Access, Expr, Idx, LevelFormat, LogicalPlan, PhysExpr, PhysicalPlan, PhysicalQuery, Protocol,
};
use crate::reference::index_sizes;
use crate::TensorError;

/// Outputs with at most this many cells are stored dense in the baseline.
const DENSE_OUTPUT_CELLS: usize = 1 << 20;

/// Turns each logical query into one kernel looping over its output indices then its
/// aggregated ones. An input whose mode order disagrees with that loop order gets a
/// transposition kernel first (`NAME__T<k>`). In each loop, the first access (left to right)
/// that holds the index iterates and the others are looked up. Outputs (and transposes) of at
/// most 2^20 cells are dense, larger ones hash-based at every level.
///
/// `dims_of` gives the dims of the plan's inputs (by tensor name).
pub fn naive_physical(
    plan: &LogicalPlan,
    dims_of: &dyn Fn(&str) -> Option<Vec<usize>>,
) -> Result<PhysicalPlan, TensorError> {
    let mut out = PhysicalPlan {
        queries: vec![],
        outputs: plan.outputs.clone(),
    };
    let mut result_dims: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    let mut transposes = 0usize;
    for q in &plan.queries {
        let lookup = |name: &str| result_dims.get(name).cloned().or_else(|| dims_of(name));
        let sizes = index_sizes(&q.body, &lookup)?;
        let mut loop_order: Vec<Idx> = q.idxs.clone();
        for i in &q.agg_idxs {
            if !loop_order.contains(i) {
                loop_order.push(i.clone());
            }
        }
        let mut prelude = vec![];
        let mut first_seen: Vec<Idx> = vec![];
        let body = physical_body(
            &q.body,
            &loop_order,
            &mut first_seen,
            &mut |name, is_alias, idxs| {
                transposes += 1;
                let t_name = format!("{name}__T{transposes}");
                let mut sorted = idxs.to_vec();
                sorted.sort_by_key(|i| loop_order.iter().position(|l| l == i));
                let cells: usize = idxs.iter().map(|i| sizes[i].0).product();
                prelude.push(PhysicalQuery::transpose(
                    t_name.clone(),
                    name,
                    is_alias,
                    idxs,
                    sorted.clone(),
                    vec![format_for(cells); idxs.len()],
                ));
                (t_name, sorted)
            },
        );
        let dims: Vec<usize> = q
            .idxs
            .iter()
            .map(|i| {
                sizes.get(i).map(|s| s.0).ok_or_else(|| {
                    TensorError::Invalid(format!(
                        "output index {i} of {} indexes no tensor",
                        q.name
                    ))
                })
            })
            .collect::<Result<_, _>>()?;
        let cells: usize = dims.iter().product();
        for p in &prelude {
            let d = p.output_idxs.iter().map(|i| sizes[i].0).collect();
            result_dims.insert(p.name.clone(), d);
        }
        out.queries.extend(prelude);
        out.queries.push(PhysicalQuery {
            name: q.name.clone(),
            loop_order,
            agg: q.agg,
            agg_idxs: q.agg_idxs.clone(),
            body,
            output_idxs: q.idxs.clone(),
            output_formats: vec![format_for(cells); q.idxs.len()],
        });
        result_dims.insert(q.name.clone(), dims);
    }
    Ok(out)
}

fn format_for(cells: usize) -> LevelFormat {
    if cells <= DENSE_OUTPUT_CELLS {
        LevelFormat::Dense
    } else {
        LevelFormat::Hash
    }
}

/// Called for a discordant access (name, is_alias, stored indices); returns the transposed
/// alias's name and its index order.
type TransposeFn<'a> = dyn FnMut(&str, bool, &[Idx]) -> (String, Vec<Idx>) + 'a;

fn physical_body(
    expr: &Expr,
    loop_order: &[Idx],
    first_seen: &mut Vec<Idx>,
    transpose: &mut TransposeFn<'_>,
) -> PhysExpr {
    match expr {
        Expr::Literal(v) => PhysExpr::Literal(*v),
        Expr::Map { op, args } => PhysExpr::Map {
            op: op.clone(),
            args: args
                .iter()
                .map(|a| physical_body(a, loop_order, first_seen, transpose))
                .collect(),
        },
        Expr::Input { tensor: name, idxs } | Expr::Alias { name, idxs } => {
            let is_alias = matches!(expr, Expr::Alias { .. });
            let pos: Vec<usize> = idxs
                .iter()
                .map(|i| {
                    loop_order
                        .iter()
                        .position(|l| l == i)
                        .expect("index is looped over")
                })
                .collect();
            let (name, idxs, is_alias) = if pos.windows(2).all(|w| w[0] < w[1]) {
                (name.clone(), idxs.clone(), is_alias)
            } else {
                let (t, sorted) = transpose(name, is_alias, idxs);
                (t, sorted, true)
            };
            let protocols = idxs
                .iter()
                .map(|i| {
                    if first_seen.contains(i) {
                        Protocol::Lookup
                    } else {
                        first_seen.push(i.clone());
                        Protocol::Iterate
                    }
                })
                .collect();
            PhysExpr::Access(Access {
                is_alias,
                name,
                idxs,
                protocols,
            })
        }
        Expr::Agg { .. } => unreachable!("logical query bodies hold no aggregates"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logical::naive_plan;
    use crate::plan_ast::{AggOp, MapOp, Program, Query};

    #[test]
    fn discordant_inputs_get_a_transpose_kernel() {
        // y[j] = sum[i](A[i,j] * x[i]): loop order j,i; A is stored i,j, so it is transposed.
        let (i, j) = (Idx::new("i"), Idx::new("j"));
        let expr = Expr::agg(
            AggOp::Sum,
            vec![i.clone()],
            Expr::map(
                MapOp::Mul,
                vec![
                    Expr::input("A", vec![i.clone(), j.clone()]),
                    Expr::input("x", vec![i.clone()]),
                ],
            ),
        );
        let program = Program {
            queries: vec![Query::new("y", vec![j.clone()], expr)],
            outputs: vec!["y".into()],
        };
        let logical = naive_plan(&program).unwrap();
        let dims = |n: &str| match n {
            "A" => Some(vec![3, 4]),
            "x" => Some(vec![3]),
            _ => None,
        };
        let plan = naive_physical(&logical, &dims).unwrap();
        assert_eq!(plan.queries.len(), 2);
        let t = &plan.queries[0];
        assert_eq!(t.name, "A__T1");
        assert_eq!(t.output_idxs, vec![j.clone(), i.clone()]);
        let y = &plan.queries[1];
        assert_eq!(y.loop_order, vec![j.clone(), i.clone()]);
        let PhysExpr::Map { args, .. } = &y.body else {
            panic!("a product")
        };
        let PhysExpr::Access(a) = &args[0] else {
            panic!("an access")
        };
        assert_eq!((a.name.as_str(), a.is_alias), ("A__T1", true));
        assert_eq!(a.protocols, vec![Protocol::Iterate, Protocol::Iterate]);
        let PhysExpr::Access(x) = &args[1] else {
            panic!("an access")
        };
        assert_eq!(x.protocols, vec![Protocol::Lookup]);
    }
}
