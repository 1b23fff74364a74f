//! The SPORES optimizer behind the DAG seam: a block's LA roots go through the search
//! policy's front door ([`BlockOptimizer::optimize_block`]) in one call; each plan that
//! comes back is checked and put back into the DAG, behind a guard where its rewrites
//! need finite values.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt::Write;
use std::rc::Rc;
use std::sync::Arc;

use spores_opt::canon;
use spores_opt::fused::expand_fused;
use spores_opt::la::LaExpr;
use spores_opt::policy::{BlockOptimizer, Effort, Rewrites, Saturation, DEFAULT_MIN_COST};
use spores_opt::saturate::OptimizeOptions;

use super::convert::{extract, rebuild, Extracted, Replacement};
use super::{DagOptimizer, InputMeta, Optimization};
use crate::dag::finite::may_be_non_finite;
use crate::dag::guard::{guard, GuardedRoot, Verdict};
use crate::dag::input::InputSignature;
use crate::dag::meta::infer;
use crate::dag::{BlockDag, NodeId};

/// A block (by address: the interpreter keeps its lowered blocks for the whole run) and
/// its inputs' signature.
type CacheKey = (usize, InputSignature);

/// A cached plan, how often its block has run since, and how hard it was searched.
struct Cached {
    optimization: Rc<Optimization>,
    runs: u64,
    /// The runs its search was budgeted for (at least `runs`: a `for` loop's trip count).
    budgeted_runs: u64,
    effort: Effort,
}

/// A budgeted plan is searched again, with the budget of all runs so far, when the
/// block's runs reach this and every power of two after it: the budgets of a hot block
/// double, so all its searches together stay within twice [`SEARCH_SHARE`] of its
/// predicted execution.
const RESEARCH_AFTER: u64 = 4;

/// The DAG optimizer `spores run` uses by default.
pub struct SporesOptimizer<E: BlockOptimizer = Saturation> {
    inner: E,
    /// Check every plan against its input with the canonical-form decision procedure and
    /// keep the input when they are not provably equivalent.
    pub verify: bool,
    cache: RefCell<HashMap<CacheKey, Cached>>,
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
            budgeted: true,
        })
    }

    /// Gives every expression predicted to cost at least `min_cost` the full search,
    /// whatever the block can save (no budget).
    pub fn full_search(&mut self) -> &mut Self {
        self.inner.budgeted = false;
        self
    }
}

impl<E: BlockOptimizer> SporesOptimizer<E> {
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
        runs: u64,
    ) -> (Optimization, Effort) {
        let meta = infer(&block.dag, inputs);
        let mut extracted = extract(block, &meta);
        let mut notes = String::new();
        // Rewrites hold for real numbers only: each root is rewritten freely, behind a
        // guard that falls back to it as written when a value it reads is not finite, or
        // kept as written (see `crate::dag::guard`).
        // A root kept as written still gets the rewrites that hold with NaN and Inf: the
        // fused operators, chosen by price (`BlockOptimizer::optimize_exact`).
        let non_finite = may_be_non_finite(&block.dag, inputs);
        let mut guards = HashMap::new();
        let (mut searched, mut exact) = (Vec::new(), Vec::new());
        for root in std::mem::take(&mut extracted.roots) {
            match guard(&block.dag, root.node, &root.tree, &non_finite, inputs) {
                Verdict::Free => searched.push(root),
                Verdict::Guarded(guarded, frontier) => {
                    guards.insert(root.node, (Arc::new(guarded), frontier));
                    searched.push(root);
                }
                Verdict::AsWritten(why) => {
                    let _ = writeln!(
                        notes,
                        "  %{}: kept as written (may meet NaN or Inf, where the rewrites do not hold: {why}); only fused operators are chosen",
                        root.node
                    );
                    exact.push(root);
                }
            }
        }
        let roots: Vec<(LaExpr, Rewrites)> = searched
            .iter()
            .map(|r| (r.expr.clone(), Rewrites::Algebraic))
            .chain(exact.iter().map(|r| (r.expr.clone(), Rewrites::FusionOnly)))
            .collect();
        let (answers, effort) = self.inner.optimize_block(&roots, &extracted.env, runs);
        searched.extend(exact);
        extracted.roots = searched;
        (
            self.apply(block, &extracted, answers, guards, notes),
            effort,
        )
    }

    /// Verifies the answers and rebuilds the block with those that pass, each behind its
    /// guard (if in `guards`); `notes` already says which roots were kept as written.
    fn apply(
        &self,
        block: &BlockDag,
        extracted: &Extracted,
        answers: Vec<Option<(LaExpr, String)>>,
        mut guards: HashMap<NodeId, (Arc<GuardedRoot>, Vec<NodeId>)>,
        mut notes: String,
    ) -> Optimization {
        let mut replacements = HashMap::new();
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
            // A plan that only fuses operators (its expansion is the root as written)
            // holds with NaN and Inf: each fused kernel computes its operands as written
            // when they are not finite. It needs no guard, so nothing is checked that
            // the kernels do not check themselves.
            let guard = guards
                .remove(&root.node)
                .filter(|_| expand_fused(&better) != root.expr);
            let checks = match &guard {
                Some((guarded, frontier)) => {
                    let checked: Vec<String> = guarded
                        .checked
                        .iter()
                        .map(|&k| format!("%{}", frontier[k]))
                        .collect();
                    format!(
                        "\n    guarded: as written unless {} finite",
                        checked.join(", ")
                    )
                }
                None => String::new(),
            };
            let _ = writeln!(
                notes,
                "  %{}: {}\n    => {}\n    {note}{checks}",
                root.node, root.expr, better
            );
            replacements.insert(
                root.node,
                Replacement {
                    expr: better,
                    guard,
                },
            );
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

impl<E: BlockOptimizer> DagOptimizer for SporesOptimizer<E> {
    fn optimize(
        &self,
        block: &BlockDag,
        inputs: &HashMap<String, InputMeta>,
        runs_ahead: u64,
    ) -> Rc<Optimization> {
        let key = (
            block as *const BlockDag as usize,
            InputSignature::of(inputs),
        );
        let mut runs = 1;
        if let Some(hit) = self.cache.borrow_mut().get_mut(&key) {
            hit.runs += 1;
            let search_again = match hit.effort {
                Effort::Full => false,
                Effort::Budgeted { searchable_at } => {
                    hit.runs.is_power_of_two()
                        && hit.runs >= RESEARCH_AFTER.max(searchable_at)
                        && hit.runs > hit.budgeted_runs
                }
            };
            if !search_again {
                return hit.optimization.clone();
            }
            runs = hit.runs;
        }
        // The budget is what the runs so far, or the runs known to come, repay.
        let budgeted_runs = runs.max(runs_ahead);
        let started = std::time::Instant::now();
        let (optimization, effort) = self.optimize_uncached(block, inputs, budgeted_runs);
        let optimization = Rc::new(optimization);
        self.times.borrow_mut().push(started.elapsed());
        self.cache.borrow_mut().insert(
            key,
            Cached {
                optimization: optimization.clone(),
                runs,
                budgeted_runs,
                effort,
            },
        );
        optimization
    }

    fn block_times(&self) -> Vec<std::time::Duration> {
        self.times.borrow().clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{run_script, RunOptions};

    /// The last line of `text` that is a number (what the script printed last).
    fn last_number(text: &str) -> f64 {
        text.lines()
            .filter_map(|l| l.trim().parse().ok())
            .next_back()
            .expect("a number")
    }

    /// Runs `src` with the optimizer on every expression and `--explain`, returning the
    /// output and the number of matrix products in the printed plans.
    fn explain(src: &str) -> (String, usize) {
        let out = run_explained(src, true);
        let products = out.lines().filter(|l| l.contains("= %*%(")).count();
        (out, products)
    }

    /// Runs `src` with the optimizer (budgeted, or the full search on every block) and
    /// `--explain`; the output.
    fn run_explained(src: &str, full_search: bool) -> String {
        let mut spores = SporesOptimizer::new(OptimizeOptions::default());
        if full_search {
            spores.min_cost(0.0);
        }
        let options = RunOptions {
            optimizer: Box::new(spores),
            explain: true,
            ..RunOptions::default()
        };
        run_script(src, options).expect("script runs")
    }

    /// The loss on 2000 x 1000 (1% non-zeros) with rank-10 factors, `iters` times, each
    /// time in a block of its own; the output and the number of plans that fused it.
    fn loss_runs(iters: usize) -> (String, usize) {
        let src = format!(
            "X = rand(rows=2000, cols=1000, sparsity=0.01, seed=1)
U = rand(rows=2000, cols=10, seed=2)
V = rand(rows=1000, cols=10, seed=3)
total = 0
for (i in 1:{iters}) {{
  total = total + sum((X - U %*% t(V))^2)
}}
print(total)
"
        );
        let out = run_explained(&src, false);
        let fused = out.matches("=> wsloss(X, U, V)").count();
        (out, fused)
    }

    /// Run once, the loss is predicted at about 4.6 ms: neither a full search (tens of
    /// milliseconds) nor the fusion-only one (5 ms, plus 30 ms to load the rules at the
    /// thread's first search) can pay, so it runs as written, and so does the gradient
    /// `(U %*% t(V) - X) %*% V`, which the full search distributes into
    /// `U %*% tsmm(V) - X %*% V`.
    #[test]
    fn a_block_that_runs_once_on_small_data_is_not_searched() {
        let (out, fused) = loss_runs(1);
        assert_eq!(fused, 0, "{out}");
        let src = "X = rand(rows=2000, cols=1000, sparsity=0.01, seed=1)
U = rand(rows=2000, cols=10, seed=2)
V = rand(rows=1000, cols=10, seed=3)
while(FALSE){}
G = (U %*% t(V) - X) %*% V
while(FALSE){}
print(sum(G))
";
        let once = run_explained(src, false);
        assert!(!once.contains("tsmm("), "{once}");
        let full = run_explained(src, true);
        assert!(full.contains("tsmm("), "{full}");
        let (a, b) = (last_number(&once), last_number(&full));
        assert!((a - b).abs() <= 1e-9 * a.abs(), "{a} vs {b}");
    }

    /// In a loop the same block's runs add up: once they pay for a search (at a power
    /// of two of runs), it is searched and the loss fuses; budgeted searches are repeated
    /// at most once per doubling of the runs; the sum is the same.
    #[test]
    fn a_hot_loop_body_is_searched_when_its_runs_pay_for_it() {
        let (out, fused) = loss_runs(64);
        assert!((1..=5).contains(&fused), "{fused} searches\n{out}");
        let last_plan = out.rsplit("optimized:").next().unwrap_or("");
        assert!(last_plan.contains("= wsloss("), "{out}");
        let (once, _) = loss_runs(1);
        let (a, b) = (last_number(&out), last_number(&once) * 64.0);
        assert!((a - b).abs() <= 1e-9 * b.abs(), "{a} vs {b}");
    }

    /// A `for` loop's trip count is known when it starts: its body is budgeted for all
    /// its runs at the first, so the loss fuses from the first iteration on; the same
    /// body in a `while` loop (trip count unknown) runs as written until its runs so far
    /// pay for the search.
    #[test]
    fn a_for_loop_body_is_budgeted_for_its_trip_count() {
        let body = "  total = total + sum((X - U %*% t(V))^2)\n  print(total)\n";
        let setup = "X = rand(rows=2000, cols=1000, sparsity=0.01, seed=1)
U = rand(rows=2000, cols=10, seed=2)
V = rand(rows=1000, cols=10, seed=3)
total = 0
";
        let first_loss_plan = |out: &str| -> String {
            out.split("--- block")
                .find(|section| section.contains("%*%") || section.contains("wsloss"))
                .unwrap_or_default()
                .to_string()
        };
        let for_loop = run_explained(&format!("{setup}for (i in 1:8) {{\n{body}}}\n"), false);
        assert!(
            first_loss_plan(&for_loop).contains("=> wsloss(X, U, V)"),
            "{for_loop}"
        );
        let while_loop = run_explained(
            &format!("{setup}i = 0\nwhile (i < 8) {{\n  i = i + 1\n{body}}}\n"),
            false,
        );
        assert!(
            !first_loss_plan(&while_loop).contains("wsloss"),
            "{while_loop}"
        );
        assert!(while_loop.contains("=> wsloss(X, U, V)"), "{while_loop}");
        let (a, b) = (last_number(&for_loop), last_number(&while_loop));
        assert!((a - b).abs() <= 1e-9 * a.abs(), "{a} vs {b}");
    }

    /// How many times the optimizer translated and priced a block (cache misses and
    /// re-searches) while running `src`, how many blocks it has, and the output.
    fn optimizations_of(src: &str) -> (usize, usize, String) {
        let program = spores_lang::parse(src).expect("parses");
        let mut out = Vec::new();
        let options = RunOptions {
            optimizer: Box::new(SporesOptimizer::new(OptimizeOptions::default())),
            ..RunOptions::default()
        };
        let mut interp = crate::runtime::Interpreter::new(&program, options, &mut out);
        interp.run(&program).expect("script runs");
        let count = interp.stats.optimize_times.len();
        let blocks = interp.stats.blocks_compiled;
        drop(interp);
        (count, blocks, String::from_utf8_lossy(&out).into_owned())
    }

    /// A loop body predicted to cost microseconds per run would need thousands of runs to
    /// pay for the smallest search: it is translated and priced on its first run only,
    /// not again at the 4th, 8th, 16th, ... (where a search could not happen anyway).
    #[test]
    fn a_block_that_cannot_pay_for_a_search_is_not_priced_again() {
        let src = "x = rand(rows=100, cols=1, seed=1)
s = 0
for (i in 1:300) {
  x = x * 0.5 + 1
  s = s + sum(x * x)
}
print(s)
";
        let (count, blocks, out) = optimizations_of(src);
        // Each block once (five, with the loop's range), not 7 more times for the body's
        // re-search points 4, 8, ..., 256.
        assert_eq!(blocks, 5, "{out}");
        assert_eq!(count, blocks, "{out}");
        let printed: f64 = out.trim().parse().expect("a number");
        assert!(printed > 300.0 * 100.0, "{printed}");
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

    /// GLM's Hessian-vector product on a sparse `X`: the search prices one `mmchain`
    /// pass below the two mat-vecs and extraction chooses it (physical planning would
    /// fuse it too, but here the plan says so).
    #[test]
    fn extraction_chooses_mmchain_for_a_sparse_chain() {
        let src = "X = rand(rows=3000, cols=200, sparsity=0.05, seed=1)
d = rand(rows=200, cols=1, seed=2)
mu = rand(rows=3000, cols=1, seed=3)
while(FALSE){}
H = t(X) %*% (mu * (X %*% d))
while(FALSE){}
print(sum(H))
";
        let (out, _) = explain(src);
        assert!(out.contains("=> mmchain(X, d, mu)"), "{out}");
    }
}
