//! Common sub-expression elimination over finished kernels (Galley §6.4): a kernel equal to
//! an earlier one up to index names is dropped and its readers pointed at the earlier one.
//!
//! It runs last, on the physical plan, because two kernels are only interchangeable once
//! their loop orders, formats and protocols are chosen.

use std::collections::HashMap;

use crate::plan_ast::{Idx, PhysExpr, PhysicalPlan, PhysicalQuery};

/// §6.4: a kernel identical to an earlier one up to index names is dropped, and references to
/// it (and program outputs naming it) are pointed at the earlier one.
pub fn eliminate_common_subexpressions(plan: PhysicalPlan) -> PhysicalPlan {
    let mut seen: HashMap<String, String> = HashMap::new();
    let mut replaced: HashMap<String, String> = HashMap::new();
    let mut queries = vec![];
    for mut q in plan.queries {
        rename_accesses(&mut q.body, &replaced);
        let key = canonical_key(&q);
        match seen.get(&key) {
            Some(first) => {
                replaced.insert(q.name.clone(), first.clone());
            }
            None => {
                seen.insert(key, q.name.clone());
                queries.push(q);
            }
        }
    }
    let outputs = plan
        .outputs
        .into_iter()
        .map(|(o, q)| {
            let q = replaced.get(&q).cloned().unwrap_or(q);
            (o, q)
        })
        .collect();
    PhysicalPlan { queries, outputs }
}

fn rename_accesses(e: &mut PhysExpr, map: &HashMap<String, String>) {
    match e {
        PhysExpr::Access(a) => {
            if a.is_alias {
                if let Some(n) = map.get(&a.name) {
                    a.name = n.clone();
                }
            }
        }
        PhysExpr::Literal(_) => {}
        PhysExpr::Map { args, .. } => args.iter_mut().for_each(|a| rename_accesses(a, map)),
    }
}

/// The kernel with index names replaced by their loop position (so `sum[j](A[i,j])` and
/// `sum[k](A[i,k])` hash alike).
fn canonical_key(q: &PhysicalQuery) -> String {
    let canon = |i: &Idx| -> String {
        match q.loop_order.iter().position(|l| l == i) {
            Some(p) => format!("%{p}"),
            None => format!("?{i}"),
        }
    };
    fn body_key(e: &PhysExpr, canon: &dyn Fn(&Idx) -> String) -> String {
        match e {
            PhysExpr::Access(a) => format!(
                "{}{}[{}]{:?}",
                if a.is_alias { "@" } else { "$" },
                a.name,
                a.idxs.iter().map(canon).collect::<Vec<_>>().join(","),
                a.protocols
            ),
            PhysExpr::Literal(v) => format!("{v:?}"),
            PhysExpr::Map { op, args } => format!(
                "{op}({})",
                args.iter()
                    .map(|a| body_key(a, canon))
                    .collect::<Vec<_>>()
                    .join(",")
            ),
        }
    }
    format!(
        "{}|{:?}|{}|{}|{}|{:?}",
        q.loop_order.len(),
        q.agg,
        q.agg_idxs.iter().map(canon).collect::<Vec<_>>().join(","),
        body_key(&q.body, &canon),
        q.output_idxs
            .iter()
            .map(canon)
            .collect::<Vec<_>>()
            .join(","),
        q.output_formats
    )
}
