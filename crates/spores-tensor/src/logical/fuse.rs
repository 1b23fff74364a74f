//! Fusing a single-term sum into its consumer (after variable elimination).
//!
//! A sum whose body is non-zero for at most one coordinate of its aggregated indices per
//! output cell is not really a reduction: over a star join, `T[h,i] = sum[s,p,o,c](L[i,s,p,o,c]
//! * (..))` adds one term per lineitem `i` because each lineitem has exactly one supplier,
//! part, order and customer (`L`'s degree statistics say so: `D(s,p,o,c | i) = 1`). A consumer
//! that applies zero-preserving maps to `T` can then take the sum outside them,
//!
//! ```text
//! y[i] = sum[h](relu(T[h,i]) * w2[h])   →   y[i] = sum[h,s,p,o,c](relu(L[i,s,p,o,c] * (..)) * w2[h])
//! ```
//!
//! because `g(Σ_x t_x) = Σ_x g(t_x)` when at most one `t_x` is non-zero and `g(0) = 0`. The
//! network's hidden layer is then never materialized: one pass over `L` with an inner loop
//! over `h` computes `y` (before: an `|L| × 8` intermediate written and read back).
//!
//! Exact conditions, checked per producer/consumer pair:
//! - the producer `T = sum[X](B)` has one consumer and is not an output;
//! - `B` is zero wherever its input factors `F` are zero (each reached from `B`'s root through
//!   maps annihilated by 0, or unary maps with `f(0) = 0`, with fill 0), and the factors'
//!   degree statistics `D(X' | Y) <= 1` determine every index of `X` from `T`'s free
//!   indices, each bound's `Y` already determined by `T`'s indices or earlier bounds: at most
//!   one term per cell of `T` (over a star join one factor does it; over a self-join on a
//!   key, each copy of the key's table determines its own summed indices);
//! - the consumer's aggregate is a sum or none, the access `T[a]` (distinct indices) is reached
//!   from its body's root through zero-preserving maps as above, and every index of the
//!   consumer appears in `a` — so the fused loop nest is `T`'s own and `B` is evaluated once
//!   per term, as before (never a larger loop nest than the two kernels it replaces).

use std::collections::{HashMap, HashSet};

use super::normalize::{all_idx_names, fresh_idx, rebuild_map, rename_free, substitute};
use crate::plan_ast::{AggOp, Expr, Idx, LogicalPlan, LogicalQuery};
use crate::stats::{Estimator, InputStats};

/// Fuses single-term sums into their consumers until none is left (see the module docs).
/// Returns the rewritten plan and the number of fusions.
pub fn fuse_single_terms(plan: &LogicalPlan, inputs: &InputStats) -> (LogicalPlan, usize) {
    let mut plan = plan.clone();
    let mut fused = 0;
    while fuse_one(&mut plan, inputs) {
        fused += 1;
    }
    (plan, fused)
}

fn fuse_one(plan: &mut LogicalPlan, inputs: &InputStats) -> bool {
    let readers = readers(plan);
    for p in 0..plan.queries.len() {
        let producer = &plan.queries[p];
        if plan.outputs.iter().any(|(_, q)| q == &producer.name) {
            continue;
        }
        let Some(&[(c, 1)]) = readers.get(producer.name.as_str()).map(Vec::as_slice) else {
            continue;
        };
        if c <= p {
            continue;
        }
        if !single_term(producer, inputs) {
            continue;
        }
        if let Some(q) = fuse_into(producer, &plan.queries[c]) {
            plan.queries[c] = q;
            plan.queries.remove(p);
            return true;
        }
    }
    false
}

/// Per alias name, the queries reading it (positions, first to last) with how many times
/// each does: one pass over the plan (a pass per producer was quadratic in its queries).
fn readers(plan: &LogicalPlan) -> HashMap<String, Vec<(usize, usize)>> {
    let mut out: HashMap<String, Vec<(usize, usize)>> = HashMap::new();
    for (k, q) in plan.queries.iter().enumerate() {
        q.body.for_each_access(&mut |a| {
            let Expr::Alias { name, .. } = a else { return };
            let Some(list) = out.get_mut(name) else {
                out.insert(name.clone(), vec![(k, 1)]);
                return;
            };
            match list.last_mut() {
                Some((c, n)) if *c == k => *n += 1,
                _ => list.push((k, 1)),
            }
        });
    }
    out
}

/// Whether `f` maps 0 to 0 in argument `k` whatever the other arguments are.
fn keeps_zero(op: &crate::plan_ast::MapOp, arity: usize) -> bool {
    op.props().annihilator == Some(0.0) || (arity == 1 && op.apply(&[0.0]) == 0.0)
}

/// The accesses `e` is zero wherever they are zero (reached through zero-keeping maps).
fn zero_with<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
    match e {
        Expr::Input { .. } | Expr::Alias { .. } => out.push(e),
        Expr::Map { op, args } if keeps_zero(op, args.len()) => {
            if op.props().annihilator == Some(0.0) {
                args.iter().for_each(|a| zero_with(a, out));
            } else {
                zero_with(&args[0], out);
            }
        }
        _ => {}
    }
}

/// Whether `q = sum[X](B)` has at most one non-zero term per output cell (module docs):
/// the output's indices determine every summed index through the zero factors' degree
/// bounds, chased one factor at a time. Over a self-join on a key,
/// `sum[s1,s2,p](L[a,s1,p] * L[b,s2,p] * ..)`, `a` determines `s1` and `p` through the
/// first copy of `L` and `b` determines `s2` through the second.
fn single_term(q: &LogicalQuery, inputs: &InputStats) -> bool {
    if q.agg != Some(AggOp::Sum) || q.agg_idxs.is_empty() {
        return false;
    }
    let mut factors = vec![];
    zero_with(&q.body, &mut factors);
    // Per zero factor of fill 0, its degree bounds of at most one entry, as (the indices
    // determined, the indices that determine them).
    let mut bounds: Vec<(Vec<Idx>, Vec<Idx>)> = vec![];
    for f in factors {
        let Expr::Input { tensor, idxs } = f else {
            continue;
        };
        let distinct: HashSet<&Idx> = idxs.iter().collect();
        if distinct.len() != idxs.len() {
            continue;
        }
        let Ok(stats) = inputs.access(tensor, idxs, Estimator::Chain) else {
            continue;
        };
        if stats.fill() != 0.0 {
            continue;
        }
        for (x, y, d) in stats.degree_constraints() {
            if d <= 1.0 {
                bounds.push((x, y));
            }
        }
    }
    let mut known: HashSet<Idx> = q.idxs.iter().cloned().collect();
    loop {
        let before = known.len();
        for (x, y) in &bounds {
            if y.iter().all(|i| known.contains(i)) {
                known.extend(x.iter().cloned());
            }
        }
        if q.agg_idxs.iter().all(|i| known.contains(i)) {
            return true;
        }
        if known.len() == before {
            return false;
        }
    }
}

/// The consumer with the producer's sum taken outside its zero-keeping maps; `None` when the
/// consumer does not qualify (module docs).
fn fuse_into(producer: &LogicalQuery, consumer: &LogicalQuery) -> Option<LogicalQuery> {
    if !matches!(consumer.agg, None | Some(AggOp::Sum)) {
        return None;
    }
    let access = find_access(&consumer.body, &producer.name)?;
    let Expr::Alias { idxs: at, .. } = access else {
        return None;
    };
    let distinct: HashSet<&Idx> = at.iter().collect();
    if distinct.len() != at.len() || at.len() != producer.idxs.len() {
        return None;
    }
    if !consumer
        .idxs
        .iter()
        .chain(&consumer.agg_idxs)
        .all(|i| at.contains(i))
    {
        return None;
    }
    // The producer's summed indices, renamed apart from everything in the consumer.
    let mut used: HashSet<Idx> = HashSet::new();
    all_idx_names(&consumer.body, &mut used);
    used.extend(consumer.idxs.iter().cloned());
    used.extend(consumer.agg_idxs.iter().cloned());
    used.extend(producer.idxs.iter().cloned());
    let mut body = producer.body.clone();
    let mut summed = vec![];
    for x in &producer.agg_idxs {
        let fresh = fresh_idx(x, &mut used);
        if &fresh != x {
            body = substitute(&body, x, &fresh);
        }
        summed.push(fresh);
    }
    let term = rename_free(&body, &producer.idxs, at);
    let new_body = replace_access(&consumer.body, &producer.name, &term)?;
    let mut agg_idxs = consumer.agg_idxs.clone();
    agg_idxs.extend(summed);
    Some(LogicalQuery {
        name: consumer.name.clone(),
        idxs: consumer.idxs.clone(),
        agg: Some(AggOp::Sum),
        agg_idxs,
        body: new_body,
    })
}

/// The access to `name` if it is reached from `e`'s root through zero-keeping maps.
fn find_access<'e>(e: &'e Expr, name: &str) -> Option<&'e Expr> {
    let mut found = vec![];
    zero_with(e, &mut found);
    found
        .into_iter()
        .find(|a| matches!(a, Expr::Alias { name: m, .. } if m == name))
}

fn replace_access(e: &Expr, name: &str, with: &Expr) -> Option<Expr> {
    match e {
        Expr::Alias { name: m, .. } if m == name => Some(with.clone()),
        Expr::Map { op, args } => {
            let args: Vec<Expr> = args
                .iter()
                .map(|a| replace_access(a, name, with).unwrap_or_else(|| a.clone()))
                .collect();
            Some(rebuild_map(op, args))
        }
        _ => None,
    }
}
