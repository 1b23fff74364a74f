//! Searching elimination orders (Galley §5.6): greedy (cheapest next query), and exact
//! branch-and-bound (greedy gives the bound; a dynamic program over sets of eliminated indices
//! keeps the cheapest partial plan per set and prunes any above the bound — costs only grow as
//! indices are eliminated).

use std::collections::{BTreeMap, BTreeSet};

use super::eliminate::{finish, Ctx, State};
use super::moves::{moves, Frontier, PricedMoves};
use crate::plan_ast::{Expr, Idx};
use crate::TensorError;

/// Exact search is skipped (greedy result kept) past this many partial plans in one layer.
const MAX_LAYER_STATES: usize = 20_000;

/// The greedy elimination of `expr`: repeatedly the move whose new queries cost least.
pub fn greedy(ctx: &Ctx, expr: &Expr, name: &str, idxs: &[Idx]) -> Result<State, TensorError> {
    greedy_with(ctx, &mut PricedMoves::default(), expr, name, idxs)
}

/// [`greedy`], pricing moves into `priced`.
fn greedy_with(
    ctx: &Ctx,
    priced: &mut PricedMoves,
    expr: &Expr,
    name: &str,
    idxs: &[Idx],
) -> Result<State, TensorError> {
    let mut state = State {
        expr: expr.clone(),
        queries: vec![],
        cost: 0.0,
        done: BTreeSet::new(),
    };
    let mut frontier = Frontier::new(ctx, priced, &state)?;
    while !frontier.is_empty() {
        ctx.check_budget()?;
        let step = frontier.cheapest(ctx, &state).ok_or_else(|| {
            TensorError::Invalid(format!(
                "query {name}: no aggregate can be eliminated from {}",
                state.expr
            ))
        })?;
        frontier.take(ctx, priced, &mut state, &step)?;
    }
    finish(ctx, state, name, idxs)
}

/// Branch-and-bound over elimination orders; falls back to the greedy plan if the memo table
/// grows past [`MAX_LAYER_STATES`], and returns the best plan found so far once the program's
/// [`super::SearchBudget`] is spent (checked before every expanded partial plan, so a stop
/// comes within one state's pricing of the deadline).
pub fn exact(ctx: &Ctx, expr: &Expr, name: &str, idxs: &[Idx]) -> Result<State, TensorError> {
    // One search: the partial plans reuse the moves greedy priced.
    let mut priced = PricedMoves::default();
    let mut best = greedy_with(ctx, &mut priced, expr, name, idxs)?;
    if ctx.budget_stopped() {
        return Ok(best);
    }
    let mut layer: BTreeMap<BTreeSet<Idx>, State> = BTreeMap::new();
    layer.insert(
        BTreeSet::new(),
        State {
            expr: expr.clone(),
            queries: vec![],
            cost: 0.0,
            done: BTreeSet::new(),
        },
    );
    while !layer.is_empty() {
        let mut next: BTreeMap<BTreeSet<Idx>, State> = BTreeMap::new();
        for state in layer.into_values() {
            if !ctx.exact_step() {
                return Ok(best);
            }
            if !state.expr.has_agg() {
                let done = finish(ctx, state, name, idxs)?;
                if done.cost < best.cost {
                    best = done;
                }
                continue;
            }
            for step in moves(ctx, &mut priced, &state)? {
                if step.cost >= best.cost {
                    continue; // bound: costs never decrease along a path
                }
                let done = step.done(&state);
                if next.get(&done).is_some_and(|old| old.cost <= step.cost) {
                    continue;
                }
                let mut s = state.clone();
                step.apply(&mut s);
                next.insert(done, s);
            }
        }
        if next.len() > MAX_LAYER_STATES {
            return Ok(best);
        }
        layer = next;
    }
    Ok(best)
}
