//! Self-joins on a key collapse (Galley §8.1's covariance, written as an algebraic rewrite).
//!
//! When a tensor `T` holds at most one non-fill entry per coordinate of some of its modes `K`
//! (a key: the degree statistics say `D(rest | K) <= 1`, as `D(s,p,o,c | i) = 1` for a
//! lineitem tensor `L[i,s,p,o,c]`), two accesses that agree on `K` can only both be non-fill
//! where they agree everywhere:
//!
//! ```text
//! T[k,a] * T[k,b]  =  T[k,a]^2 * δ(a,b)        (fill 0, and `*` annihilated by 0)
//! ```
//!
//! Under a `sum` that binds `b`, the δ collapses the sum: `sum[b](T[k,a] * T[k,b] * f(b)) =
//! T[k,a]^2 * f(a)`. Inlining `X` twice into `G[j,k] = sum[i](X[i,j] * X[i,k])` with
//! `X = sum[s,p,o,c](L * (S + P + O + C))` gives a self-join of `L` on `i` over nine summed
//! indices; after this rewrite it is `sum[i,s,p,o,c](L^2 * (S+P+O+C)[j] * (S+P+O+C)[k])`, whose
//! distributed terms each keep two of `L`'s key columns and aggregate `L` into count tensors
//! (`N[s,p] = sum[i,o,c](L^2)`): the factorized covariance, found by the ordinary search.
//!
//! The rewrite depends on the data (a functional dependency the statistics observed), not
//! only on algebra: the plan is right for inputs that satisfy the dependency, which the
//! statistics guarantee for the inputs it was made for (they are exact counts, or upper
//! bounds). [`super::LogicalOptions::no_key_joins`] turns it off.

use std::collections::HashSet;

use super::normalize::{make_agg, rebuild_map, substitute};
use crate::plan_ast::{AggOp, Expr, Idx, MapOp};
use crate::stats::{Estimator, InputStats};

/// `e` with every self-join on a key under a `sum` collapsed (see the module docs), and how
/// many pairs of accesses were merged.
pub fn unify_key_self_joins(e: &Expr, inputs: &InputStats) -> (Expr, usize) {
    let mut merged = 0;
    let out = rewrite(e, inputs, &mut merged);
    (out, merged)
}

fn rewrite(e: &Expr, inputs: &InputStats, merged: &mut usize) -> Expr {
    match e {
        Expr::Map { op, args } => rebuild_map(
            op,
            args.iter().map(|a| rewrite(a, inputs, merged)).collect(),
        ),
        Expr::Agg { op, idxs, body } => {
            let body = rewrite(body, inputs, merged);
            if *op != AggOp::Sum {
                return make_agg(*op, idxs.clone(), body);
            }
            let mut bound: Vec<Idx> = idxs.clone();
            let mut factors = match body {
                Expr::Map {
                    op: MapOp::Mul,
                    args,
                } => args,
                other => return make_agg(*op, bound, other),
            };
            while let Some((a, b, subst)) = find_pair(&factors, &bound, inputs) {
                // b's non-key indices become a's; the δ removes them from the sum.
                let (ta, ea) = power_access(&factors[a]).expect("a found access");
                let eb = power_access(&factors[b]).expect("a found access").1;
                let merged_factor = Expr::map(
                    MapOp::Pow,
                    vec![ta.clone(), Expr::Literal((ea + eb) as f64)],
                );
                let mut rest: Vec<Expr> = factors
                    .iter()
                    .enumerate()
                    .filter(|(k, _)| *k != a && *k != b)
                    .map(|(_, f)| f.clone())
                    .collect();
                for (from, to) in &subst {
                    rest = rest.iter().map(|f| substitute(f, from, to)).collect();
                    bound.retain(|i| i != from);
                }
                rest.insert(0, merged_factor);
                factors = rest;
                *merged += 1;
            }
            let body = if factors.len() == 1 {
                factors.pop().expect("one factor")
            } else {
                rebuild_map(&MapOp::Mul, factors)
            };
            make_agg(*op, bound, body)
        }
        other => other.clone(),
    }
}

/// The input tensor and indices of a factor that is an input access or a power of one.
fn power_input(e: &Expr) -> Option<(&String, &Vec<Idx>)> {
    match power_access(e)? {
        (Expr::Input { tensor, idxs }, _) => Some((tensor, idxs)),
        _ => None,
    }
}

/// `T[..]` or `T[..]^n` (a literal integer `n >= 1`, from an earlier merge): the access and
/// its exponent.
fn power_access(e: &Expr) -> Option<(&Expr, u32)> {
    match e {
        Expr::Input { .. } => Some((e, 1)),
        Expr::Map {
            op: MapOp::Pow,
            args,
        } => match args.as_slice() {
            [a @ Expr::Input { .. }, Expr::Literal(n)]
                if n.fract() == 0.0 && *n >= 1.0 && *n <= 64.0 =>
            {
                Some((a, *n as u32))
            }
            _ => None,
        },
        _ => None,
    }
}

/// A collapsible pair: the factor kept, the factor dropped, and the renaming (summed index of
/// the dropped copy → index of the kept one).
type Pair = (usize, usize, Vec<(Idx, Idx)>);

/// Two factors accessing the same input that collapse (see [`Pair`]).
fn find_pair(factors: &[Expr], bound: &[Idx], inputs: &InputStats) -> Option<Pair> {
    for a in 0..factors.len() {
        let Some((ta, xa)) = power_input(&factors[a]) else {
            continue;
        };
        for b in a + 1..factors.len() {
            let Some((tb, xb)) = power_input(&factors[b]) else {
                continue;
            };
            if ta != tb || xa.len() != xb.len() || !distinct(xa) || !distinct(xb) {
                continue;
            }
            let key: Vec<usize> = (0..xa.len()).filter(|&m| xa[m] == xb[m]).collect();
            let rest: Vec<usize> = (0..xa.len()).filter(|&m| xa[m] != xb[m]).collect();
            if key.is_empty() && rest.is_empty() {
                continue;
            }
            if !is_key(inputs, ta, xa.len(), &key) {
                continue;
            }
            // Rename b's non-key indices to a's, or a's to b's: the renamed ones must be
            // summed here and must not occur in the other access.
            for (keep, drop, to, from) in [(a, b, xa, xb), (b, a, xb, xa)] {
                let ok = rest
                    .iter()
                    .all(|&m| bound.contains(&from[m]) && !to.contains(&from[m]));
                if ok {
                    let subst: Vec<(Idx, Idx)> = rest
                        .iter()
                        .map(|&m| (from[m].clone(), to[m].clone()))
                        .collect();
                    if keeps_accesses_distinct(factors, drop, &subst) {
                        return Some((keep, drop, subst));
                    }
                }
            }
        }
    }
    None
}

/// Whether renaming `subst` in every factor but `drop` leaves each access with distinct
/// indices: a diagonal access such as `E[j,j]` (a triangle's `E[i,j] * E[i,k]` on a graph
/// whose rows have one edge) is not something the physical plans handle.
fn keeps_accesses_distinct(factors: &[Expr], drop: usize, subst: &[(Idx, Idx)]) -> bool {
    let mut ok = true;
    for (k, f) in factors.iter().enumerate() {
        if k == drop {
            continue;
        }
        let renamed = subst
            .iter()
            .fold(f.clone(), |e, (from, to)| substitute(&e, from, to));
        renamed.for_each_access(&mut |a| {
            if let Expr::Input { idxs, .. } | Expr::Alias { idxs, .. } = a {
                ok &= distinct(idxs);
            }
        });
    }
    ok
}

fn distinct(idxs: &[Idx]) -> bool {
    let set: HashSet<&Idx> = idxs.iter().collect();
    set.len() == idxs.len()
}

/// Whether input `name` (of order `order`) has fill 0 and at most one non-fill entry per
/// coordinate of the modes `key` (exact degree statistics, or the whole tensor has at most one
/// entry when `key` is empty).
fn is_key(inputs: &InputStats, name: &str, order: usize, key: &[usize]) -> bool {
    let names: Vec<Idx> = (0..order).map(|m| Idx::new(&format!("m{m}"))).collect();
    let Ok(stats) = inputs.access(name, &names, Estimator::Chain) else {
        return false;
    };
    if stats.fill() != 0.0 {
        return false;
    }
    if key.len() == order {
        return true; // identical accesses: T*T = T^2 always
    }
    let key_names: Vec<&Idx> = key.iter().map(|&m| &names[m]).collect();
    let rest: Vec<&Idx> = (0..order)
        .filter(|m| !key.contains(m))
        .map(|m| &names[m])
        .collect();
    stats.degree_constraints().iter().any(|(x, y, d)| {
        *d <= 1.0
            && y.iter().all(|i| key_names.contains(&i))
            && rest.iter().all(|i| x.contains(i) || y.contains(i))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::CooTensor;
    use std::collections::HashMap;

    fn stats(l: CooTensor) -> InputStats {
        let mut m = HashMap::new();
        m.insert("L".to_string(), l);
        InputStats::from_tensors(&m)
    }

    fn ix(names: &[&str]) -> Vec<Idx> {
        names.iter().map(|n| Idx::new(n)).collect()
    }

    #[test]
    fn a_key_self_join_collapses_and_a_non_key_one_does_not() {
        // L[i,a]: each i has one a (a function); M[i,a]: row 0 has two entries.
        let l = CooTensor::from_entries(
            vec![3, 2],
            vec![(vec![0, 1], 1.0), (vec![1, 0], 2.0), (vec![2, 1], 1.0)],
            0.0,
        )
        .unwrap();
        let e = Expr::agg(
            AggOp::Sum,
            ix(&["i", "a", "b"]),
            Expr::map(
                MapOp::Mul,
                vec![
                    Expr::input("L", ix(&["i", "a"])),
                    Expr::input("L", ix(&["i", "b"])),
                    Expr::input("F", ix(&["b", "j"])),
                ],
            ),
        );
        let (got, n) = unify_key_self_joins(&e, &stats(l));
        assert_eq!(n, 1);
        assert_eq!(got.to_string(), "sum[i,a]((L[i,a] ^ 2) * F[a,j])");
        let m = CooTensor::from_entries(
            vec![3, 2],
            vec![(vec![0, 0], 1.0), (vec![0, 1], 1.0), (vec![2, 1], 1.0)],
            0.0,
        )
        .unwrap();
        let (same, n) = unify_key_self_joins(&e, &stats(m));
        assert_eq!(n, 0);
        assert_eq!(same, e);
    }

    #[test]
    fn free_or_max_bound_copies_are_left_alone() {
        let l = CooTensor::from_entries(vec![2, 2], vec![(vec![0, 1], 1.0)], 0.0).unwrap();
        let body = Expr::map(
            MapOp::Mul,
            vec![
                Expr::input("L", ix(&["i", "a"])),
                Expr::input("L", ix(&["i", "b"])),
            ],
        );
        // b free (an output index): no sum to collapse.
        let e = Expr::agg(AggOp::Sum, ix(&["i"]), body.clone());
        assert_eq!(unify_key_self_joins(&e, &stats(l.clone())).1, 0);
        // max does not collapse a δ.
        let e = Expr::agg(AggOp::Max, ix(&["i", "a", "b"]), body);
        assert_eq!(unify_key_self_joins(&e, &stats(l)).1, 0);
    }
}
