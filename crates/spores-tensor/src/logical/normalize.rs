//! Normalization (Galley §5.1), applied before variable elimination so operator boundaries mean
//! something: subtraction and negation become `+` and `* -1` (so `sum` can be pushed through
//! them), bound indices get names unique in the query (so aggregates can move without
//! capturing), nested associative maps and nested equal aggregates are merged, and aggregates
//! are lifted above pointwise operators that distribute over them (variable elimination then
//! pushes them back down exactly as far as pays).

use std::collections::{HashMap, HashSet};

use crate::plan_ast::{Expr, Idx, MapOp};

/// Normalizes one query's right-hand side. `free` are the query's output indices (never
/// renamed).
pub fn normalize(expr: &Expr, free: &[Idx]) -> Expr {
    let mut used: HashSet<Idx> = free.iter().cloned().collect();
    let e = canonical_ops(expr);
    let e = rename_bound(&e, &mut used, &mut vec![]);
    merge(&e)
}

/// `a - b` → `a + (-1 * b)`, `-a` → `-1 * a` (exact in IEEE arithmetic).
fn canonical_ops(expr: &Expr) -> Expr {
    match expr {
        Expr::Map { op, args } => {
            let args: Vec<Expr> = args.iter().map(canonical_ops).collect();
            match (op, args.len()) {
                (MapOp::Sub, 2) => {
                    let mut it = args.into_iter();
                    let a = it.next().expect("two args");
                    let b = it.next().expect("two args");
                    Expr::map(
                        MapOp::Add,
                        vec![a, Expr::map(MapOp::Mul, vec![Expr::Literal(-1.0), b])],
                    )
                }
                (MapOp::Neg, 1) => Expr::map(
                    MapOp::Mul,
                    vec![
                        Expr::Literal(-1.0),
                        args.into_iter().next().expect("one arg"),
                    ],
                ),
                _ => Expr::map(op.clone(), args),
            }
        }
        Expr::Agg { op, idxs, body } => Expr::agg(*op, idxs.clone(), canonical_ops(body)),
        other => other.clone(),
    }
}

/// A name not in `used` derived from `base` (`j`, `j_1`, `j_2`, ...); it is added to `used`.
pub fn fresh_idx(base: &Idx, used: &mut HashSet<Idx>) -> Idx {
    fresh_idx_from(base, used, &mut HashMap::new())
}

/// [`fresh_idx`], trying suffixes of each stem from `next[stem]` on: a caller that only adds
/// to `used` meanwhile skips only names still taken, and renaming the N copies of one index
/// apart tries N names in all, not N² (a sum of 800 equal aggregates spent most of its
/// planning time here).
fn fresh_idx_from(base: &Idx, used: &mut HashSet<Idx>, next: &mut HashMap<String, usize>) -> Idx {
    if used.insert(base.clone()) {
        return base.clone();
    }
    let stem = base.name().split('_').next().unwrap_or(base.name());
    if !next.contains_key(stem) {
        next.insert(stem.to_string(), 1);
    }
    let k = next.get_mut(stem).expect("inserted above");
    loop {
        let cand = Idx::new(&format!("{stem}_{k}"));
        *k += 1;
        if used.insert(cand.clone()) {
            return cand;
        }
    }
}

/// Gives every aggregate's bound indices names not in `used` (and adds them to it); each
/// renaming `(old, new)` is appended to `log`.
pub fn rename_bound(expr: &Expr, used: &mut HashSet<Idx>, log: &mut Vec<(Idx, Idx)>) -> Expr {
    rename_bound_from(expr, used, &mut HashMap::new(), log)
}

/// [`rename_bound`] with [`fresh_idx_from`]'s suffix cursors.
fn rename_bound_from(
    expr: &Expr,
    used: &mut HashSet<Idx>,
    next: &mut HashMap<String, usize>,
    log: &mut Vec<(Idx, Idx)>,
) -> Expr {
    match expr {
        Expr::Agg { op, idxs, body } => {
            let mut body = (**body).clone();
            let mut new_idxs = vec![];
            for i in idxs {
                let n = fresh_idx_from(i, used, next);
                if &n != i {
                    body = substitute(&body, i, &n);
                    log.push((i.clone(), n.clone()));
                }
                if !new_idxs.contains(&n) {
                    new_idxs.push(n);
                }
            }
            Expr::agg(*op, new_idxs, rename_bound_from(&body, used, next, log))
        }
        Expr::Map { op, args } => Expr::map(
            op.clone(),
            args.iter()
                .map(|a| rename_bound_from(a, used, next, log))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Replaces free occurrences of `from` by `to` (an inner aggregate rebinding `from` shadows it).
pub fn substitute(expr: &Expr, from: &Idx, to: &Idx) -> Expr {
    rename_free(expr, std::slice::from_ref(from), std::slice::from_ref(to))
}

/// `e` with its free indices renamed `from[k]` → `to[k]` simultaneously (also used when an
/// alias is accessed under other index names than its query declared). The caller makes sure
/// no bound index of `e` is named like a target (bound indices were renamed apart first).
pub(crate) fn rename_free(e: &Expr, from: &[Idx], to: &[Idx]) -> Expr {
    if from.is_empty() || from == to {
        return e.clone();
    }
    let swap = |idxs: &[Idx]| -> Vec<Idx> {
        idxs.iter()
            .map(|i| match from.iter().position(|f| f == i) {
                Some(k) => to[k].clone(),
                None => i.clone(),
            })
            .collect()
    };
    match e {
        Expr::Input { tensor, idxs } => Expr::input(tensor, swap(idxs)),
        Expr::Alias { name, idxs } => Expr::alias(name, swap(idxs)),
        Expr::Literal(_) => e.clone(),
        Expr::Map { op, args } => Expr::map(
            op.clone(),
            args.iter().map(|a| rename_free(a, from, to)).collect(),
        ),
        Expr::Agg { op, idxs, body } if !from.iter().any(|f| idxs.contains(f)) => {
            Expr::agg(*op, idxs.clone(), rename_free(body, from, to))
        }
        Expr::Agg { op, idxs, body } => {
            // A bound index shadows a free one of the same name: leave it and its body alone
            // for that name (cannot happen after renaming apart, kept for safety).
            let keep: Vec<usize> = (0..from.len())
                .filter(|&k| !idxs.contains(&from[k]))
                .collect();
            let f: Vec<Idx> = keep.iter().map(|&k| from[k].clone()).collect();
            let t: Vec<Idx> = keep.iter().map(|&k| to[k].clone()).collect();
            Expr::agg(*op, idxs.clone(), rename_free(body, &f, &t))
        }
    }
}

/// Every index name occurring in `e`, free or bound.
pub(crate) fn all_idx_names(e: &Expr, out: &mut HashSet<Idx>) {
    match e {
        Expr::Input { idxs, .. } | Expr::Alias { idxs, .. } => out.extend(idxs.iter().cloned()),
        Expr::Literal(_) => {}
        Expr::Map { args, .. } => args.iter().for_each(|a| all_idx_names(a, out)),
        Expr::Agg { idxs, body, .. } => {
            out.extend(idxs.iter().cloned());
            all_idx_names(body, out);
        }
    }
}

/// Whether `op` may be flattened when nested in itself (n-ary associative built-ins).
pub fn flattens(op: &MapOp) -> bool {
    op.arity().is_none() && op.props().associative
}

/// Bottom-up: flatten nested associative maps, merge nested equal aggregates, lift aggregates
/// above distributing maps, drop empty aggregates.
pub fn merge(expr: &Expr) -> Expr {
    match expr {
        Expr::Map { op, args } => {
            let args: Vec<Expr> = args.iter().map(merge).collect();
            rebuild_map(op, args)
        }
        Expr::Agg { op, idxs, body } => make_agg(*op, idxs.clone(), merge(body)),
        other => other.clone(),
    }
}

/// Whether [`rebuild_map`] would return `op(args)` as it is: no child to flatten into it, no
/// aggregate child to lift above it.
pub fn is_rebuilt(op: &MapOp, args: &[Expr]) -> bool {
    args.iter().all(|a| match a {
        Expr::Map { op: inner, .. } => !(flattens(op) && inner == op),
        Expr::Agg { op: g, .. } => !op.distributes_over(*g),
        _ => true,
    })
}

/// `op(args)` with nested `op`s flattened and, if `op` distributes over an aggregate child,
/// that aggregate lifted above it.
pub fn rebuild_map(op: &MapOp, args: Vec<Expr>) -> Expr {
    let mut flat = Vec::with_capacity(args.len());
    for a in args {
        match a {
            Expr::Map {
                op: inner,
                args: inner_args,
            } if flattens(op) && &inner == op => flat.extend(inner_args),
            other => flat.push(other),
        }
    }
    let lift = flat.iter().position(|a| match a {
        Expr::Agg { op: g, .. } => op.distributes_over(*g),
        _ => false,
    });
    match lift {
        Some(k) => {
            let Expr::Agg { op: g, idxs, body } = flat[k].clone() else {
                unreachable!("position found an aggregate")
            };
            flat[k] = *body;
            make_agg(g, idxs, rebuild_map(op, flat))
        }
        None => Expr::map(op.clone(), flat),
    }
}

/// `g[idxs](body)`, merged with a directly nested aggregate of the same operator, or `body`
/// itself when `idxs` is empty.
pub fn make_agg(g: crate::plan_ast::AggOp, mut idxs: Vec<Idx>, body: Expr) -> Expr {
    if idxs.is_empty() {
        return body;
    }
    match body {
        Expr::Agg {
            op,
            idxs: inner,
            body,
        } if op == g => {
            for i in inner {
                if !idxs.contains(&i) {
                    idxs.push(i);
                }
            }
            Expr::Agg { op, idxs, body }
        }
        body => Expr::agg(g, idxs, body),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan_ast::AggOp;

    #[test]
    fn lifts_renames_and_merges() {
        // x[i] * sum[j](A[i,j] * sum[j](B[j]))  →  sum[j, j_1](x[i] * A[i,j] * B[j_1])
        let (i, j) = (Idx::new("i"), Idx::new("j"));
        let access =
            |name: &str, ix: &[&Idx]| Expr::input(name, ix.iter().map(|&x| x.clone()).collect());
        let sum_j = |body| Expr::agg(AggOp::Sum, vec![j.clone()], body);
        let product = |args| Expr::map(MapOp::Mul, args);
        let e = product(vec![
            access("x", &[&i]),
            sum_j(product(vec![
                access("A", &[&i, &j]),
                sum_j(access("B", &[&j])),
            ])),
        ]);
        let n = normalize(&e, &[i]);
        assert_eq!(n.to_string(), "sum[j,j_1](x[i] * A[i,j] * B[j_1])");
    }

    #[test]
    fn subtraction_becomes_addition() {
        let i = Idx::new("i");
        let e = Expr::map(
            MapOp::Sub,
            vec![
                Expr::input("a", vec![i.clone()]),
                Expr::input("b", vec![i.clone()]),
            ],
        );
        assert_eq!(normalize(&e, &[i]).to_string(), "a[i] + (-1 * b[i])");
    }
}
