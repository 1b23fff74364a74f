//! Alias inlining (Galley §5): a query that reads an earlier program query `X` may be
//! optimized with `X`'s definition substituted for the alias, so the logical optimizer can push
//! the consumer's aggregates and factors into `X`'s expression (linear regression over a star
//! join: `sum[j](X[i,j] * theta[j])` with `X = sum(L * (S + P + O + C))` becomes one pass over
//! `L` after `theta` meets each dimension table, and `X` is never built).
//!
//! Inlining is not always right: a result read by several consumers, or an expression whose
//! inlined form multiplies a large join by itself (`t(X) %*% X`), may be cheaper to build once.
//! So the choice is made by cost ([`super::optimize_explained`]): each consumer is optimized
//! with and without each alias inlined, and a definition that no consumer reads any more (and
//! that is not a program output) is dropped from the plan together with its cost.

use std::collections::{BTreeSet, HashMap, HashSet};

use super::normalize::{all_idx_names, rename_bound, rename_free};
use crate::plan_ast::{Expr, Idx};

/// Names of the aliases `e` reads that are in `defined`, in first-occurrence order.
pub fn alias_refs(e: &Expr, defined: &dyn Fn(&str) -> bool) -> Vec<String> {
    let mut out: Vec<String> = vec![];
    e.for_each_access(&mut |a| {
        if let Expr::Alias { name, .. } = a {
            if defined(name) && !out.contains(name) {
                out.push(name.clone());
            }
        }
    });
    out
}

/// `e` with every access `name[a..]` replaced by `def` (whose free indices are `def_idxs`),
/// bound indices of each copy renamed apart from every index of `e` and of the other copies,
/// and `def_idxs` renamed to the access's indices.
pub fn inline_alias(e: &Expr, name: &str, def_idxs: &[Idx], def: &Expr) -> Expr {
    let mut used = HashSet::new();
    all_idx_names(e, &mut used);
    all_idx_names(def, &mut used);
    used.extend(def_idxs.iter().cloned());
    inline_rec(e, name, def_idxs, def, &mut used)
}

fn inline_rec(e: &Expr, name: &str, def_idxs: &[Idx], def: &Expr, used: &mut HashSet<Idx>) -> Expr {
    match e {
        Expr::Alias { name: n, idxs } if n == name => {
            // Bound names of this copy: fresh with respect to everything seen so far.
            let fresh = rename_bound(def, used, &mut vec![]);
            rename_free(&fresh, def_idxs, idxs)
        }
        Expr::Input { .. } | Expr::Alias { .. } | Expr::Literal(_) => e.clone(),
        Expr::Map { op, args } => Expr::map(
            op.clone(),
            args.iter()
                .map(|a| inline_rec(a, name, def_idxs, def, used))
                .collect(),
        ),
        Expr::Agg { op, idxs, body } => Expr::agg(
            *op,
            idxs.clone(),
            inline_rec(body, name, def_idxs, def, used),
        ),
    }
}

/// The candidate right-hand sides of a consumer: as written, each single alias inlined, and
/// (with more than one) all of them inlined; only aliases read once are inlined. Each comes
/// with the set of aliases it inlines.
pub fn candidates(
    expr: &Expr,
    refs: &[String],
    defs: &HashMap<String, (Vec<Idx>, Expr)>,
) -> Vec<(Expr, BTreeSet<String>)> {
    let inline_set = |set: &BTreeSet<String>| -> Expr {
        let mut e = expr.clone();
        for a in set {
            let (idxs, def) = &defs[a];
            e = inline_alias(&e, a, idxs, def);
        }
        e
    };
    let mut out = vec![(expr.clone(), BTreeSet::new())];
    // An alias read more than once is shared: inlining it would repeat its join in every copy
    // (`t(X) %*% X` inlined is a self-join of the star join, whose search we measured at
    // 1.7 s for a plan slower than building X once), so it is built once instead.
    let reads = |a: &str| {
        let mut n = 0;
        expr.for_each_access(&mut |e| {
            if matches!(e, Expr::Alias { name, .. } if name == a) {
                n += 1;
            }
        });
        n
    };
    let refs: Vec<String> = refs
        .iter()
        .filter(|a| reads(a) == 1 && !blocked_at_root(&defs[*a].1, expr))
        .cloned()
        .collect();
    let refs = &refs[..];
    for a in refs {
        let set: BTreeSet<String> = [a.clone()].into_iter().collect();
        out.push((inline_set(&set), set));
    }
    if refs.len() > 1 {
        let set: BTreeSet<String> = refs.iter().cloned().collect();
        out.push((inline_set(&set), set));
    }
    out
}

/// The consumer with every alias it reads inlined, including those read more than once (a
/// self-product such as `t(X) %*% X`), when some alias is read more than once; `None`
/// otherwise. The optimizer keeps this candidate only if the copies collapse
/// ([`super::keyjoin`]): a product of uncollapsed copies repeats the definition's join.
pub fn shared_candidate(
    expr: &Expr,
    refs: &[String],
    defs: &HashMap<String, (Vec<Idx>, Expr)>,
) -> Option<(Expr, BTreeSet<String>)> {
    let reads = |a: &str| {
        let mut n = 0;
        expr.for_each_access(&mut |e| {
            if matches!(e, Expr::Alias { name, .. } if name == a) {
                n += 1;
            }
        });
        n
    };
    if !refs.iter().any(|a| reads(a) > 1) {
        return None;
    }
    let mut e = expr.clone();
    for a in refs {
        let (idxs, def) = &defs[a];
        e = inline_alias(&e, a, idxs, def);
    }
    Some((e, refs.iter().cloned().collect()))
}

/// Whether inlining `def` into `consumer` cannot give the consumer's search anything: `def`
/// is a unary map (`relu(..)`, `sigmoid(..)`) that distributes over none of the consumer's
/// aggregates, so no aggregate or factor of the consumer can move into its argument and the
/// inlined search would only repeat `def`'s own (the network's `H = relu(X W1)` read by
/// `sum[h](H * w2)`: that repeat was a third of its optimization time). A pointwise pass this
/// leaves between the two is fused afterwards where exact ([`super::fuse`]).
fn blocked_at_root(def: &Expr, consumer: &Expr) -> bool {
    let Expr::Map { op, args } = def else {
        return false;
    };
    if args.len() != 1 {
        return false;
    }
    let mut aggs = vec![];
    collect_aggs(consumer, &mut aggs);
    aggs.iter().all(|g| !op.distributes_over(*g))
}

fn collect_aggs(e: &Expr, out: &mut Vec<crate::plan_ast::AggOp>) {
    match e {
        Expr::Agg { op, body, .. } => {
            out.push(*op);
            collect_aggs(body, out);
        }
        Expr::Map { args, .. } => args.iter().for_each(|a| collect_aggs(a, out)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::query_exprs;

    #[test]
    fn inlined_copies_get_fresh_bound_indices_and_the_access_indices() {
        // X[i,j] = sum[k](A[i,k] * B[k,j]);  G = X[k,j] * X[j,k] must not capture k.
        let [def, e]: [Expr; 2] =
            query_exprs("X[i,j] = sum[k](A[i,k] * B[k,j])\nG[j,k] = X[k,j] * X[j,k]")
                .try_into()
                .unwrap();
        let (i, j) = (Idx::new("i"), Idx::new("j"));
        let got = inline_alias(&e, "X", &[i, j], &def);
        assert_eq!(
            got.to_string(),
            "sum[k_1](A[k,k_1] * B[k_1,j]) * sum[k_2](A[j,k_2] * B[k_2,k])"
        );
        assert_eq!(got.free_idxs(), e.free_idxs());
    }
}
