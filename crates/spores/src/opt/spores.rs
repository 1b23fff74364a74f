//! The SPORES optimizer behind the DAG seam: each LA subgraph of a block is saturated,
//! the cheapest plan extracted, checked, and put back.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt::Write;
use std::rc::Rc;

use spores_opt::canon;
use spores_opt::la::{expand_fused, LaExpr, ShapeEnv};
use spores_opt::saturate::{self, OptimizeOptions};

use super::convert::{extract, rebuild};
use super::{DagOptimizer, InputMeta, Optimization};
use crate::dag::finite::may_be_non_finite;
use crate::dag::meta::infer;
use crate::dag::BlockDag;

/// Rewrites one LA expression; the seam inside the seam, so the DAG plumbing can be
/// tested on its own.
pub trait ExprOptimizer {
    /// A cheaper equivalent of `e` with a note for `--explain`, or `None` to keep `e`.
    fn optimize(&self, e: &LaExpr, env: &ShapeEnv) -> Option<(LaExpr, String)>;

    /// [`ExprOptimizer::optimize`] for all roots of a block at once (an optimizer that can
    /// share work or plans between them overrides this); one answer per root.
    fn optimize_all(&self, es: &[LaExpr], env: &ShapeEnv) -> Vec<Option<(LaExpr, String)>> {
        es.iter().map(|e| self.optimize(e, env)).collect()
    }
}

/// Relational equality saturation (`spores_opt::saturate`).
pub struct Saturation {
    pub options: OptimizeOptions,
    /// Expressions predicted to cost less than this (in the cost model's units,
    /// nanoseconds of kernel time) are left alone: saturating takes milliseconds, more
    /// than such an expression can save.
    pub min_cost: f64,
}

/// Default for [`Saturation::min_cost`]: about a millisecond of kernel work.
pub const DEFAULT_MIN_COST: f64 = 1e6;

impl Saturation {
    /// The answer for one root: its plan if it is a real improvement.
    fn answer(e: &LaExpr, result: &saturate::Optimized, roots: usize) -> Option<(LaExpr, String)> {
        if result.expr == *e || result.cost_after >= result.cost_before * 0.99 {
            return None;
        }
        let r = &result.report;
        let shared = if roots > 1 {
            format!(" (one e-graph for {roots} roots)")
        } else {
            String::new()
        };
        let note = format!(
            "cost {:.3e} -> {:.3e} ns; {:?} after {} iterations, {} e-nodes, {:.1} ms{shared}",
            result.cost_before,
            result.cost_after,
            r.stop,
            r.iterations,
            r.enodes,
            r.time.as_secs_f64() * 1e3
        );
        Some((result.expr.clone(), note))
    }
}

impl ExprOptimizer for Saturation {
    fn optimize(&self, e: &LaExpr, env: &ShapeEnv) -> Option<(LaExpr, String)> {
        self.optimize_all(std::slice::from_ref(e), env)
            .pop()
            .flatten()
    }

    /// The roots worth optimizing (predicted to cost at least `min_cost`) are saturated
    /// in one e-graph and extracted jointly; the node limit grows with their number, so
    /// each root gets about the room it would have alone.
    fn optimize_all(&self, es: &[LaExpr], env: &ShapeEnv) -> Vec<Option<(LaExpr, String)>> {
        let worth: Vec<usize> = (0..es.len())
            .filter(|&k| spores_opt::cost::la_cost(&es[k], env).is_ok_and(|c| c >= self.min_cost))
            .collect();
        let mut out = vec![None; es.len()];
        if worth.is_empty() {
            return out;
        }
        let chosen: Vec<LaExpr> = worth.iter().map(|&k| es[k].clone()).collect();
        let mut options = self.options.clone();
        options.node_limit = options.node_limit.saturating_mul(chosen.len());
        match saturate::optimize_all(&chosen, env, &options) {
            Ok(results) => {
                for (&k, result) in worth.iter().zip(&results) {
                    out[k] = Self::answer(&es[k], result, chosen.len());
                }
            }
            // One root the optimizer cannot take (say, an encoding error) must not cost
            // the others their plans: each is then optimized on its own.
            Err(_) if chosen.len() > 1 => {
                for &k in &worth {
                    if let Ok(result) = saturate::optimize(&es[k], env, &self.options) {
                        out[k] = Self::answer(&es[k], &result, 1);
                    }
                }
            }
            Err(_) => {}
        }
        out
    }
}

/// Rounds what the optimizer depends on: exact shapes, and density to within a factor
/// of about 1.4, so a block is re-optimized when its inputs' sparsity really changes but
/// not on every small drift of an intermediate's non-zero count.
fn signature(inputs: &HashMap<String, InputMeta>) -> Vec<(String, usize, usize, i32, bool)> {
    let mut sig: Vec<_> = inputs
        .iter()
        .map(|(name, meta)| match meta {
            InputMeta::Matrix { shape, nnz, .. } => {
                let density = *nnz as f64 / shape.cells().max(1) as f64;
                let bucket = if density >= 1.0 {
                    i32::MAX
                } else {
                    (density.log2() * 2.0).floor() as i32
                };
                (
                    name.clone(),
                    shape.rows,
                    shape.cols,
                    bucket,
                    meta.is_finite(),
                )
            }
            InputMeta::Scalar { .. } => (name.clone(), 1, 1, i32::MIN, meta.is_finite()),
        })
        .collect();
    sig.sort();
    sig
}

type CacheKey = (usize, Vec<(String, usize, usize, i32, bool)>);

/// The DAG optimizer `spores run` uses by default.
pub struct SporesOptimizer<E: ExprOptimizer = Saturation> {
    inner: E,
    /// Check every plan against its input with the canonical-form decision procedure and
    /// keep the input when they are not provably equivalent.
    pub verify: bool,
    cache: RefCell<HashMap<CacheKey, Rc<Optimization>>>,
    times: RefCell<Vec<std::time::Duration>>,
}

impl SporesOptimizer<Saturation> {
    /// Sets the predicted cost below which expressions are not optimized (see
    /// [`Saturation::min_cost`]).
    pub fn min_cost(&mut self, min_cost: f64) -> &mut Self {
        self.inner.min_cost = min_cost;
        self
    }

    pub fn new(options: OptimizeOptions) -> Self {
        SporesOptimizer::with(Saturation {
            options,
            min_cost: DEFAULT_MIN_COST,
        })
    }
}

impl<E: ExprOptimizer> SporesOptimizer<E> {
    pub fn with(inner: E) -> Self {
        SporesOptimizer {
            inner,
            verify: true,
            cache: RefCell::new(HashMap::new()),
            times: RefCell::new(Vec::new()),
        }
    }

    fn optimize_uncached(
        &self,
        block: &BlockDag,
        inputs: &HashMap<String, InputMeta>,
    ) -> Optimization {
        let meta = infer(&block.dag, inputs);
        let mut extracted = extract(block, &meta);
        let mut replacements = HashMap::new();
        let mut notes = String::new();
        // Rewrites hold for real numbers only: a subgraph that may meet NaN or Inf runs as
        // written, so optimized and unoptimized runs print the same numbers.
        let non_finite = may_be_non_finite(&block.dag, inputs);
        extracted.roots.retain(|root| {
            let reads = block.dag.reachable([root.node]);
            let finite = reads.iter().zip(&non_finite).all(|(&r, &nf)| !(r && nf));
            if !finite {
                let _ = writeln!(
                    notes,
                    "  %{}: kept as written (may meet NaN or Inf, where the rewrites do not hold)",
                    root.node
                );
            }
            finite
        });
        let exprs: Vec<LaExpr> = extracted.roots.iter().map(|r| r.expr.clone()).collect();
        let answers = self.inner.optimize_all(&exprs, &extracted.env);
        for (root, answer) in extracted.roots.iter().zip(answers) {
            let Some((better, note)) = answer else {
                continue;
            };
            if self.verify {
                let verdict =
                    canon::provably_equivalent(&root.expr, &expand_fused(&better), &extracted.env);
                if !matches!(verdict, Ok(true)) {
                    let why = match verdict {
                        Err(e) => e.to_string(),
                        _ => "not provably equivalent".to_string(),
                    };
                    let _ = writeln!(notes, "  %{}: plan rejected ({why}): {better}", root.node);
                    continue;
                }
            }
            let _ = writeln!(
                notes,
                "  %{}: {}\n    => {}\n    {note}",
                root.node, root.expr, better
            );
            replacements.insert(root.node, better);
        }
        if replacements.is_empty() {
            return Optimization { block: None, notes };
        }
        match rebuild(block, &replacements, &extracted.leaves) {
            Ok(better) => Optimization {
                block: Some(better),
                notes,
            },
            Err(e) => Optimization {
                block: None,
                notes: format!("{notes}  plan not used: {e}\n"),
            },
        }
    }
}

impl<E: ExprOptimizer> DagOptimizer for SporesOptimizer<E> {
    fn optimize(&self, block: &BlockDag, inputs: &HashMap<String, InputMeta>) -> Rc<Optimization> {
        let key = (block as *const BlockDag as usize, signature(inputs));
        if let Some(hit) = self.cache.borrow().get(&key) {
            return hit.clone();
        }
        let started = std::time::Instant::now();
        let result = Rc::new(self.optimize_uncached(block, inputs));
        self.times.borrow_mut().push(started.elapsed());
        self.cache.borrow_mut().insert(key, result.clone());
        result
    }

    fn block_times(&self) -> Vec<std::time::Duration> {
        self.times.borrow().clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{run_script, RunOptions};

    /// Runs `src` with the optimizer on every expression and `--explain`, returning the
    /// output and the number of matrix products in the printed plans.
    fn explain(src: &str) -> (String, usize) {
        let mut spores = SporesOptimizer::new(OptimizeOptions::default());
        spores.min_cost(0.0);
        let options = RunOptions {
            optimizer: Box::new(spores),
            explain: true,
            ..RunOptions::default()
        };
        let out = run_script(src, options).expect("script runs");
        let products = out.lines().filter(|l| l.contains("= %*%(")).count();
        (out, products)
    }

    /// Two roots of one block read `X %*% W`: the sum reads the product's value (180000
    /// cells) instead of computing its own `sum(rowSums(W) * t(colSums(X)))`, which is
    /// cheaper than `sum(X %*% W)` alone but not once `X %*% W` is computed anyway.
    #[test]
    fn a_root_inside_another_root_is_computed_once() {
        let src = "X = rand(rows=600, cols=400, min=-1, max=1, seed=1)
W = rand(rows=400, cols=300, min=-1, max=1, seed=2)
while(FALSE){}
A = X %*% W
s = sum(X %*% W)
while(FALSE){}
print(sum(A))
print(s)
";
        let (out, products) = explain(src);
        assert_eq!(products, 1, "{out}");
        assert!(
            !out.contains("colsum(") && !out.contains("rowsum("),
            "{out}"
        );
        let numbers: Vec<f64> = out.lines().filter_map(|l| l.trim().parse().ok()).collect();
        assert_eq!(numbers.len(), 2, "{out}");
        assert!((numbers[0] - numbers[1]).abs() <= 1e-9 * numbers[0].abs().max(1.0));
    }
}
