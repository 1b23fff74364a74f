//! Planning a sum of many terms one term at a time (a bound on the elimination search).
//!
//! Fully distributing a product of sums gives `sum[x..](t1 + t2 + ... + tn)`: the covariance
//! of a star join, `(S+P+O+C)[j] * (S+P+O+C)[k]`, has sixteen terms. The elimination search
//! reaches the per-term plans by splitting the sum over `+` (virtual indices, one aggregate per
//! term), but it re-prices every term's moves at every step: quadratic in the terms, and the
//! greedy search over the sixteen-term covariance took seconds. The terms share no aggregated
//! index once split, so each is planned on its own here (`sum[x..](t_k)` with the indices
//! `t_k` mentions, times the sizes of the others it does not) and the results are added by
//! one pointwise query. Identical term plans become one kernel by the physical optimizer's
//! common sub-expression elimination.
//!
//! The distributivity search meets the same terms again and again (each partially distributed
//! form shares most of its terms with its neighbours), so a term's plan is remembered by the
//! term's text with its bound indices renamed canonically ([`Ctx::term_plans`]).

use super::eliminate::{finish, mentions, repeat_expr, Ctx, State};
use super::normalize::{make_agg, rebuild_map, substitute};
use crate::plan_ast::{AggOp, Expr, Idx, MapOp};
use crate::TensorError;

/// Plans one term as a query of its own: (term, its name, its output indices).
pub type TermSearch<'s> = dyn Fn(&Expr, &str, &[Idx]) -> Result<State, TensorError> + 's;

/// Sums of at least this many terms are planned term by term.
pub const MIN_TERMS: usize = 2;

/// The plan of `expr` term by term when it is `sum[..](t1 + ... + tn)` with at least
/// [`MIN_TERMS`] terms (`None` otherwise); `search` plans one term as a query of its own.
pub fn plan_terms(
    ctx: &Ctx,
    expr: &Expr,
    name: &str,
    idxs: &[Idx],
    tag: &str,
    search: &TermSearch,
) -> Result<Option<State>, TensorError> {
    let Expr::Agg {
        op: AggOp::Sum,
        idxs: agg,
        body,
    } = expr
    else {
        return Ok(None);
    };
    let Expr::Map {
        op: MapOp::Add,
        args: terms,
    } = body.as_ref()
    else {
        return Ok(None);
    };
    if terms.len() < MIN_TERMS {
        return Ok(None);
    }
    let mut state = State {
        expr: Expr::Literal(0.0),
        queries: vec![],
        cost: 0.0,
        done: Default::default(),
    };
    let mut parts = vec![];
    for t in terms {
        let own: Vec<Idx> = agg.iter().filter(|x| mentions(t, x)).cloned().collect();
        let others: usize = agg
            .iter()
            .filter(|x| !mentions(t, x))
            .map(|x| ctx.size(x))
            .product();
        let part = if own.is_empty() && !t.has_agg() {
            t.clone()
        } else {
            let sub = make_agg(AggOp::Sum, own, t.clone());
            let free: Vec<Idx> = sub.free_idxs().into_iter().collect();
            let key = format!("{tag}|{}", canonical(&sub));
            let known = ctx.term_plans.borrow().get(&key).cloned();
            let s = match known {
                Some(s) => s,
                None => {
                    let term_name = ctx.fresh_name();
                    ctx.charge(1); // a term planned on its own counts as a query named
                    let s = search(&sub, &term_name, &free)?;
                    ctx.term_plans.borrow_mut().insert(key, s.clone());
                    s
                }
            };
            let term_name = s.queries.last().expect("a term query").q.name.clone();
            // Identical terms of one sum are one query, counted once.
            if !state.queries.iter().any(|p| p.q.name == term_name) {
                state.cost += s.cost;
                state.done.extend(s.done);
                state.queries.extend(s.queries);
            }
            Expr::alias(&term_name, free)
        };
        parts.push(repeat_expr(AggOp::Sum, part, others));
    }
    state.expr = rebuild_map(&MapOp::Add, parts);
    finish(ctx, state, name, idxs).map(Some)
}

/// `e` as text with its bound indices renamed by order of appearance (free ones kept): equal
/// for terms that differ only in the names distribution gave their bound indices.
fn canonical(e: &Expr) -> String {
    fn walk(e: &Expr, next: &mut usize) -> Expr {
        match e {
            Expr::Agg { op, idxs, body } => {
                let mut body = (**body).clone();
                let mut names = vec![];
                for i in idxs {
                    let n = Idx::new(&format!("%{next}"));
                    *next += 1;
                    body = substitute(&body, i, &n);
                    names.push(n);
                }
                Expr::agg(*op, names, walk(&body, next))
            }
            Expr::Map { op, args } => {
                Expr::map(op.clone(), args.iter().map(|a| walk(a, next)).collect())
            }
            other => other.clone(),
        }
    }
    walk(e, &mut 0).to_string()
}
