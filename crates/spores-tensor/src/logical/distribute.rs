//! Pointwise distributivity (Galley §5.1): `a * (b + c)` → `a*b + a*c`, and small integer powers
//! of sums expanded (`(X - U*V)^2`). Distributing makes terms sparser (each term is annihilated
//! by its own sparse factors) but multiplies them, so whether it pays depends on the data: the
//! optimizer prices each candidate with the full elimination search.

use std::collections::HashSet;

use super::normalize::{all_idx_names, merge, rename_bound};
use crate::plan_ast::{Expr, Idx, MapOp};

/// Distributed forms with more terms than this are not generated.
pub const MAX_TERMS: usize = 64;

fn terms(e: &Expr) -> usize {
    match e {
        Expr::Map {
            op: MapOp::Add,
            args,
        } => args.iter().map(terms).sum(),
        Expr::Map { args, .. } => args.iter().map(terms).product::<usize>().max(1),
        Expr::Agg { body, .. } => terms(body),
        _ => 1,
    }
}

/// Copies of `e` after the first get fresh bound-index names (bound names stay unique);
/// renamings are logged so their sizes can be registered.
struct Copier {
    used: HashSet<Idx>,
    log: Vec<(Idx, Idx)>,
}

impl Copier {
    fn copy(&mut self, e: &Expr) -> Expr {
        if e.has_agg() {
            rename_bound(e, &mut self.used, &mut self.log)
        } else {
            e.clone()
        }
    }
}

/// Every expression one distribution step away from `e` (normalized again), with the
/// bound-index renamings each introduced.
pub fn one_step(e: &Expr) -> Vec<(Expr, Vec<(Idx, Idx)>)> {
    let mut used = HashSet::new();
    all_idx_names(e, &mut used);
    let mut out = vec![];
    let mut path = vec![];
    collect(e, e, &mut path, &used, &mut out);
    out.retain(|(x, _)| terms(x) <= MAX_TERMS);
    out
}

fn collect(
    root: &Expr,
    e: &Expr,
    path: &mut Vec<usize>,
    used: &HashSet<Idx>,
    out: &mut Vec<(Expr, Vec<(Idx, Idx)>)>,
) {
    let copier = || Copier {
        used: used.clone(),
        log: vec![],
    };
    match e {
        Expr::Map { op, args } => {
            if *op == MapOp::Mul {
                for (k, a) in args.iter().enumerate() {
                    if let Expr::Map {
                        op: MapOp::Add,
                        args: summands,
                    } = a
                    {
                        let mut c = copier();
                        let others: Vec<Expr> = args
                            .iter()
                            .enumerate()
                            .filter(|(m, _)| *m != k)
                            .map(|(_, x)| x.clone())
                            .collect();
                        let new_terms = summands
                            .iter()
                            .enumerate()
                            .map(|(t, s)| {
                                let mut factors: Vec<Expr> = if t == 0 {
                                    others.clone()
                                } else {
                                    others.iter().map(|o| c.copy(o)).collect()
                                };
                                factors.push(s.clone());
                                Expr::map(MapOp::Mul, factors)
                            })
                            .collect();
                        let new = Expr::map(MapOp::Add, new_terms);
                        out.push((merge(&replace(root, path, new)), c.log));
                        // Partial steps: one factor `f` into the sum, the rest stay outside
                        // (`L * theta * (S + P)` → `L * (theta*S + theta*P)`): `theta` meets
                        // each small table on its own while `L` is joined once.
                        if others.len() >= 2 {
                            for (m, f) in others.iter().enumerate() {
                                let mut c = copier();
                                let inner = summands
                                    .iter()
                                    .enumerate()
                                    .map(|(t, s)| {
                                        let f = if t == 0 { f.clone() } else { c.copy(f) };
                                        Expr::map(MapOp::Mul, vec![f, s.clone()])
                                    })
                                    .collect();
                                let mut factors: Vec<Expr> = others
                                    .iter()
                                    .enumerate()
                                    .filter(|(o, _)| *o != m)
                                    .map(|(_, x)| x.clone())
                                    .collect();
                                factors.push(Expr::map(MapOp::Add, inner));
                                let new = Expr::map(MapOp::Mul, factors);
                                out.push((merge(&replace(root, path, new)), c.log));
                            }
                        }
                    }
                }
            }
            if let (MapOp::Pow, [base @ Expr::Map { op: MapOp::Add, .. }, Expr::Literal(p)]) =
                (op, args.as_slice())
            {
                if p.fract() == 0.0 && (2.0..=3.0).contains(p) {
                    let mut c = copier();
                    let mut factors = vec![base.clone()];
                    for _ in 1..(*p as usize) {
                        factors.push(c.copy(base));
                    }
                    // Expand the power and distribute its first factor at once.
                    let product = Expr::map(MapOp::Mul, factors);
                    let expanded = merge(&replace(root, path, product));
                    let log = c.log;
                    let mut further = one_step(&expanded);
                    match further.is_empty() {
                        true => out.push((expanded, log)),
                        false => {
                            let (x, mut l) = further.swap_remove(0);
                            l.extend(log);
                            out.push((x, l));
                        }
                    }
                }
            }
            for (k, a) in args.iter().enumerate() {
                path.push(k);
                collect(root, a, path, used, out);
                path.pop();
            }
        }
        Expr::Agg { body, .. } => {
            path.push(0);
            collect(root, body, path, used, out);
            path.pop();
        }
        _ => {}
    }
}

fn replace(e: &Expr, path: &[usize], new: Expr) -> Expr {
    match (path.split_first(), e) {
        (None, _) => new,
        (Some((&k, rest)), Expr::Map { op, args }) => {
            let mut args = args.clone();
            args[k] = replace(&args[k], rest, new);
            Expr::map(op.clone(), args)
        }
        (Some((_, rest)), Expr::Agg { op, idxs, body }) => {
            Expr::agg(*op, idxs.clone(), replace(body, rest, new))
        }
        _ => unreachable!("path follows the tree"),
    }
}

/// Distributes until no step applies (or the term limit stops it).
pub fn exhaustive(e: &Expr) -> (Expr, Vec<(Idx, Idx)>) {
    let mut cur = e.clone();
    let mut log = vec![];
    for _ in 0..MAX_TERMS {
        let mut steps = one_step(&cur);
        if steps.is_empty() {
            break;
        }
        let (next, l) = steps.swap_remove(0);
        log.extend(l);
        cur = next;
    }
    (cur, log)
}
