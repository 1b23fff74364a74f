//! End-to-end tests of equality saturation: the paper's examples with the structure of
//! the result asserted, soundness checked numerically with a small dense evaluator, the
//! limits, and optimization time.

mod common;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use common::env_nnz as env;
use spores_opt::cost::la_cost;
use spores_opt::extract::Extractor;
use spores_opt::la::{Dim, LaExpr, ShapeEnv};
use spores_opt::saturate::{optimize, OptError, OptimizeOptions, Optimized, RulesFile, StopReason};

// ---------- a tiny dense evaluator ----------

#[derive(Clone, Debug)]
struct M {
    r: usize,
    c: usize,
    d: Vec<f64>,
}

impl M {
    fn at(&self, i: usize, j: usize) -> f64 {
        let i = if self.r == 1 { 0 } else { i };
        let j = if self.c == 1 { 0 } else { j };
        self.d[i * self.c + j]
    }
    fn scalar(x: f64) -> M {
        M {
            r: 1,
            c: 1,
            d: vec![x],
        }
    }
    fn from_fn(r: usize, c: usize, mut f: impl FnMut(usize, usize) -> f64) -> M {
        let mut d = Vec::with_capacity(r * c);
        for i in 0..r {
            for j in 0..c {
                d.push(f(i, j));
            }
        }
        M { r, c, d }
    }
    fn t(&self) -> M {
        M::from_fn(self.c, self.r, |i, j| self.at(j, i))
    }
    fn mm(&self, o: &M) -> M {
        assert_eq!(self.c, o.r, "matmul shapes");
        M::from_fn(self.r, o.c, |i, j| {
            (0..self.c).map(|k| self.at(i, k) * o.at(k, j)).sum()
        })
    }
    fn zip(&self, o: &M, f: impl Fn(f64, f64) -> f64) -> M {
        let r = self.r.max(o.r);
        let c = self.c.max(o.c);
        M::from_fn(r, c, |i, j| f(self.at(i, j), o.at(i, j)))
    }
    fn map(&self, f: impl Fn(f64) -> f64) -> M {
        M::from_fn(self.r, self.c, |i, j| f(self.at(i, j)))
    }
    fn sum(&self) -> f64 {
        self.d.iter().sum()
    }
}

fn eval(e: &LaExpr, inputs: &HashMap<String, M>) -> M {
    use LaExpr::*;
    let ev = |x: &LaExpr| eval(x, inputs);
    match e {
        Var(v) => inputs[v].clone(),
        Const(c) => M::scalar(*c),
        Add(a, b) => ev(a).zip(&ev(b), |x, y| x + y),
        Sub(a, b) => ev(a).zip(&ev(b), |x, y| x - y),
        Mul(a, b) => ev(a).zip(&ev(b), |x, y| x * y),
        MatMul(a, b) => ev(a).mm(&ev(b)),
        Transpose(a) => ev(a).t(),
        Neg(a) => ev(a).map(|x| -x),
        Sum(a) => M::scalar(ev(a).sum()),
        RowSums(a) => {
            let m = ev(a);
            M::from_fn(m.r, 1, |i, _| (0..m.c).map(|j| m.at(i, j)).sum())
        }
        ColSums(a) => {
            let m = ev(a);
            M::from_fn(1, m.c, |_, j| (0..m.r).map(|i| m.at(i, j)).sum())
        }
        Pow(a, k) => ev(a).map(|x| x.powf(*k)),
        Fill(v, r, c) => {
            let (Dim::Known(r), Dim::Known(c)) = (r, c) else {
                panic!("a symbolic fill in a test");
            };
            let value = ev(v).at(0, 0);
            M::from_fn(*r, *c, |_, _| value)
        }
        Func { name, args } => {
            let a: Vec<M> = args.iter().map(ev).collect();
            match (name.as_str(), a.as_slice()) {
                ("wsloss", [x, u, v]) => {
                    M::scalar(x.zip(&u.mm(&v.t()), |p, q| (p - q) * (p - q)).sum())
                }
                ("wsloss_plus", [x, u, v]) => {
                    M::scalar(x.zip(&u.mm(&v.t()), |p, q| (p + q) * (p + q)).sum())
                }
                ("sddmm_sum", [x, u, v]) => M::scalar(x.zip(&u.mm(&v.t()), |p, q| p * q).sum()),
                ("mmchain", [x, v]) => x.t().mm(&x.mm(v)),
                ("mmchain", [x, v, w]) => x.t().mm(&w.zip(&x.mm(v), |p, q| p * q)),
                ("sprop", [p]) => p.map(|x| x * (1.0 - x)),
                ("tsmm", [x]) => x.t().mm(x),
                ("sddmm", [x, u, v]) => x.zip(&u.mm(&v.t()), |p, q| p * q),
                ("wdivmm_mult", [x, u, v]) => x.zip(&u.mm(&v.t()), |p, q| p * q).mm(v),
                ("nrow", [x]) => M::scalar(x.r as f64),
                ("ncol", [x]) => M::scalar(x.c as f64),
                ("exp", [x]) => x.map(f64::exp),
                ("log", [x]) => x.map(f64::ln),
                ("sum_mm", [a, b]) => M::scalar(a.mm(b).sum()),
                ("wcemm", [x, u, v]) => M::scalar(x.zip(&u.mm(&v.t()), |p, q| p * q.ln()).sum()),
                ("/", [x, y]) => x.zip(y, |p, q| p / q),
                ("abs", [x]) => x.map(f64::abs),
                ("sqrt", [x]) => x.map(f64::sqrt),
                // The tree is not needed where X is zero (cell semantics: zero).
                ("masked_mul", [x, e]) => x.zip(e, |p, q| if p == 0.0 { 0.0 } else { p * q }),
                ("masked_div", [x, e]) => x.zip(e, |p, q| if p == 0.0 { 0.0 } else { p / q }),
                ("wdivmm_left", [x, u, v]) => u.t().mm(&x.zip(&u.mm(&v.t()), |p, q| p / q)),
                ("wdivmm_right", [x, u, v]) => x.zip(&u.mm(&v.t()), |p, q| p / q).mm(v),
                _ => panic!("evaluator lacks {name}"),
            }
        }
    }
}

/// Deterministic pseudo-random inputs for `shapes` (`NAME=RxC` with numbers), with
/// about `density` of the cells of `sparse` inputs non-zero.
fn inputs(shapes: &[(&str, usize, usize)], sparse: &[&str], seed: u64) -> HashMap<String, M> {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 11) as f64 / (1u64 << 53) as f64
    };
    shapes
        .iter()
        .map(|(n, r, c)| {
            let is_sparse = sparse.contains(n);
            let m = M::from_fn(*r, *c, |_, _| {
                let v = next() * 2.0 - 1.0;
                if is_sparse && next() > 0.3 {
                    0.0
                } else {
                    v
                }
            });
            (n.to_string(), m)
        })
        .collect()
}

fn assert_close(a: &M, b: &M, what: &str) {
    assert_eq!((a.r, a.c), (b.r, b.c), "{what}: shapes differ");
    for (x, y) in a.d.iter().zip(&b.d) {
        let tol = 1e-9 * (1.0 + x.abs().max(y.abs()));
        assert!((x - y).abs() <= tol, "{what}: {x} vs {y}");
    }
}

/// Aggregates over blocks and `rev`, slices of products and shifts inside `max` are
/// outside the rewrite rules' language; the optimizer plans the input rewritten by those
/// identities too (`canon::rewrite_for_plans`) and keeps it where it is cheaper, and the
/// plan is verified against the input as written.
#[test]
fn aggregates_and_slices_move_to_the_inputs_where_it_pays() {
    let e = env(
        &[
            "A=1000x400",
            "C=1000x300",
            "F=400x300",
            "H=300x300",
            "s=1x1",
        ],
        &[],
    );
    for (text, want) in [
        ("rowSums(cbind(A, C))", "rowSums(A) + rowSums(C)"),
        ("(A %*% F)[1:2, ]", "A[1:2, ] %*% F"),
        ("max(A + s)", "max(A) + s"),
        ("cbind(A, C) %*% rbind(F, H)", "A %*% F + C %*% H"),
        ("sum(rev(A))", "sum(A)"),
    ] {
        let out = run(text, &e);
        assert_eq!(out.expr.to_string(), want, "{text}");
        assert!(out.cost_after < out.cost_before, "{text}");
        let input = LaExpr::parse(text).unwrap();
        assert_eq!(
            spores_opt::canon::provably_equivalent(&input, &out.expr, &e),
            Ok(true),
            "{text}"
        );
    }
    // A slice that is the whole matrix costs nothing to drop; a product of blocks that do
    // not line up stays as written.
    let out = run("cbind(A, C) %*% t(cbind(A, C))", &e);
    assert!(out.expr.to_string().contains("cbind"), "{}", out.expr);
}

// ---------- helpers ----------

fn run_with(text: &str, env: &ShapeEnv, opts: &OptimizeOptions) -> Optimized {
    let e = LaExpr::parse(text).unwrap();
    let out = optimize(&e, env, opts).unwrap();
    println!(
        "{text}\n  => {}\n  cost {:.3e} -> {:.3e}; {} iterations, {} e-nodes, {:?}, {:?}",
        out.expr,
        out.cost_before,
        out.cost_after,
        out.report.iterations,
        out.report.enodes,
        out.report.stop,
        out.report.time
    );
    out
}

fn run(text: &str, env: &ShapeEnv) -> Optimized {
    run_with(text, env, &OptimizeOptions::default())
}

/// Checks `plan` against `text` numerically on small random inputs.
fn check_equivalent(text: &str, plan: &LaExpr, shapes: &[(&str, usize, usize)], sparse: &[&str]) {
    let orig = LaExpr::parse(text).unwrap();
    for seed in 0..3 {
        let ins = inputs(shapes, sparse, seed);
        assert_close(
            &eval(&orig, &ins),
            &eval(plan, &ins),
            &format!("{text} vs {plan}"),
        );
    }
}

/// [`check_equivalent`] on the low-rank shapes with every input made positive (for
/// functions finite only there: `log`, `sqrt`).
fn check_equivalent_on_positive_inputs(text: &str, plan: &LaExpr) {
    let orig = LaExpr::parse(text).unwrap();
    for seed in 0..3 {
        let ins: HashMap<String, M> = inputs(SMALL_LOW_RANK, &["X"], seed)
            .into_iter()
            .map(|(name, m)| (name, m.map(f64::abs)))
            .collect();
        assert_close(&eval(&orig, &ins), &eval(plan, &ins), text);
    }
}

fn contains(e: &LaExpr, pred: &dyn Fn(&LaExpr) -> bool) -> bool {
    use LaExpr::*;
    pred(e)
        || match e {
            Var(_) | Const(_) => false,
            Add(a, b) | Sub(a, b) | Mul(a, b) | MatMul(a, b) => {
                contains(a, pred) || contains(b, pred)
            }
            Transpose(a) | Neg(a) | Sum(a) | RowSums(a) | ColSums(a) | Pow(a, _) | Fill(a, ..) => {
                contains(a, pred)
            }
            Func { args, .. } => args.iter().any(|a| contains(a, pred)),
        }
}

fn calls(e: &LaExpr, f: &str) -> bool {
    contains(e, &|x| matches!(x, LaExpr::Func { name, .. } if name == f))
}

/// Whether some matrix product in `e` has an `m x n`-sized (dense outer) result. A
/// masked operator's tree is evaluated at the mask's non-zeros only: its products are
/// dots per cell, never formed.
fn has_big_product(e: &LaExpr, env: &ShapeEnv) -> bool {
    if let LaExpr::Func { name, args } = e {
        if name.starts_with("masked_") {
            return has_big_product(&args[0], env) || masked_leaves_have_big_product(&args[1], env);
        }
    }
    let big = matches!(e, LaExpr::MatMul(..))
        && spores_opt::cost::LaCost::new(env)
            .dims(e)
            .is_ok_and(|(r, c)| r > 100.0 && c > 100.0);
    big || children(e).into_iter().any(|c| has_big_product(c, env))
}

/// [`has_big_product`] over a masked tree: its products' factors are read as they are.
fn masked_leaves_have_big_product(e: &LaExpr, env: &ShapeEnv) -> bool {
    match e {
        LaExpr::MatMul(a, b) => has_big_product(a, env) || has_big_product(b, env),
        _ => children(e)
            .into_iter()
            .any(|c| masked_leaves_have_big_product(c, env)),
    }
}

fn children(e: &LaExpr) -> Vec<&LaExpr> {
    spores_opt::cost::children(e)
}

const LOW_RANK: &[&str] = &["X=mxn", "U=mx10", "V=nx10"];
const SMALL_LOW_RANK: &[(&str, usize, usize)] = &[("X", 7, 6), ("U", 7, 10), ("V", 6, 10)];

fn sparse_x() -> ShapeEnv {
    // m = n = 1000 (the default for symbols); X has 1% non-zeros.
    env(LOW_RANK, &[("X", 1e4)])
}

fn dense_x() -> ShapeEnv {
    env(LOW_RANK, &[])
}

// ---------- the paper's examples ----------

#[test]
fn squared_loss_exploits_sparse_x() {
    let text = "sum((X - U %*% t(V))^2)";
    let out = run(text, &sparse_x());
    assert!(
        calls(&out.expr, "wsloss") || calls(&out.expr, "sddmm_sum"),
        "{}",
        out.expr
    );
    assert!(!has_big_product(&out.expr, &sparse_x()), "{}", out.expr);
    assert!(out.cost_after * 10.0 < out.cost_before);
    check_equivalent(text, &out.expr, SMALL_LOW_RANK, &["X"]);
}

#[test]
fn squared_loss_with_dense_x_is_not_expanded() {
    let text = "sum((X - U %*% t(V))^2)";
    let out = run(text, &dense_x());
    // Dense-optimal: the unexpanded loss, or the fused operator computing it cell by cell.
    assert!(!calls(&out.expr, "sddmm_sum"), "{}", out.expr);
    assert!(out.cost_after <= out.cost_before);
    check_equivalent(text, &out.expr, SMALL_LOW_RANK, &[]);
}

#[test]
fn plus_variant_exploits_sparse_x() {
    let text = "sum((X + U %*% t(V))^2)";
    let out = run(text, &sparse_x());
    assert!(!has_big_product(&out.expr, &sparse_x()), "{}", out.expr);
    assert!(out.cost_after * 10.0 < out.cost_before);
    check_equivalent(text, &out.expr, SMALL_LOW_RANK, &["X"]);
    let dense = run(text, &dense_x());
    assert!(!calls(&dense.expr, "sddmm_sum"), "{}", dense.expr);
    check_equivalent(text, &dense.expr, SMALL_LOW_RANK, &[]);
}

/// `text` with a sparse X is the fused `op` (one pass over X's non-zeros, never the dense
/// `U %*% t(V)`), five times cheaper or more; with a dense X it is not.
fn sparse_x_fuses_into(text: &str, op: &str) {
    let out = run(text, &sparse_x());
    assert!(calls(&out.expr, op), "{}", out.expr);
    assert!(!has_big_product(&out.expr, &sparse_x()), "{}", out.expr);
    assert!(out.cost_after * 5.0 < out.cost_before);
    check_equivalent(text, &out.expr, SMALL_LOW_RANK, &["X"]);
    let dense = run(text, &dense_x());
    assert!(!calls(&dense.expr, op), "{}", dense.expr);
    check_equivalent(text, &dense.expr, SMALL_LOW_RANK, &[]);
}

/// Masked evaluation is an operator of the search: `X * (U %*% t(V))` is `sddmm`, one
/// rank-k dot per non-zero of X, chosen by its price.
#[test]
fn a_sparse_x_times_a_low_rank_product_is_sddmm() {
    sparse_x_fuses_into("X * (U %*% t(V))", "sddmm");
}

/// SystemDS's wdivmm (multiply right): the masked product feeding a product with V.
#[test]
fn masked_product_times_a_factor_is_wdivmm_for_sparse_x() {
    sparse_x_fuses_into("(X * (U %*% t(V))) %*% V", "wdivmm_mult");
}

/// SystemDS's wcemm: the weighted cross-entropy of a sparse X is one pass over X's
/// non-zeros, with `log` named in the rule through the encoding's function names.
#[test]
fn weighted_cross_entropy_is_wcemm_for_sparse_x() {
    let text = "sum(X * log(U %*% t(V)))";
    let out = run(text, &sparse_x());
    assert!(calls(&out.expr, "wcemm"), "{}", out.expr);
    assert!(!has_big_product(&out.expr, &sparse_x()), "{}", out.expr);
    assert!(out.cost_after * 5.0 < out.cost_before);
    // Positive inputs, so that every logarithm is finite.
    check_equivalent_on_positive_inputs(text, &out.expr);
    // exp is another function: no wcemm.
    let other = run("sum(X * exp(U %*% t(V)))", &sparse_x());
    assert!(!calls(&other.expr, "wcemm"), "{}", other.expr);
}

/// Masked evaluation of a tree no catalogue operator names: `X * exp(U %*% t(V))` and
/// `X / (1 + abs(U %*% t(V)))` with a sparse X evaluate the tree at X's non-zeros only
/// (`masked_mul`, `masked_div`, the product a rank-k dot per cell), chosen by price under
/// the full and the exact search; with a dense X the trees stay as written.
#[test]
fn trees_no_operator_names_are_masked_for_sparse_x() {
    let exact = OptimizeOptions {
        exact: true,
        ..OptimizeOptions::default()
    };
    for (text, op, positive) in [
        ("sum(X * exp(U %*% t(V)))", "masked_mul", false),
        ("masked_div(X, 1 + abs(U %*% t(V)))", "masked_div", false),
        ("t(U) %*% (X * exp(-(U %*% t(V))))", "masked_mul", false),
        ("X * sqrt(U %*% t(V)) + X", "masked_mul", true),
    ] {
        for opts in [OptimizeOptions::default(), exact.clone()] {
            let out = run_with(text, &sparse_x(), &opts);
            assert!(calls(&out.expr, op), "{text}: {}", out.expr);
            assert!(!has_big_product(&out.expr, &sparse_x()), "{}", out.expr);
            // A masked division written so is priced at X's non-zeros already.
            let gain = if text.starts_with(op) { 1.0 } else { 5.0 };
            assert!(
                out.cost_after * gain <= out.cost_before,
                "{text}: {}",
                out.expr
            );
            if positive {
                check_equivalent_on_positive_inputs(text, &out.expr);
            } else {
                check_equivalent(text, &out.expr, SMALL_LOW_RANK, &["X"]);
            }
        }
        // A dense X keeps the products (a masked division written so stays one).
        let dense = run(text, &dense_x());
        assert!(
            !calls(&dense.expr, op) || text.contains(op),
            "{text}: {}",
            dense.expr
        );
    }
    // Where a catalogue operator names the tree, it is cheaper for the same work.
    for (text, op) in [
        ("sum(X * log(U %*% t(V)))", "wcemm"),
        ("X * (U %*% t(V))", "sddmm"),
        ("sum(X * (U %*% t(V)))", "sddmm_sum"),
    ] {
        let out = run(text, &sparse_x());
        assert!(
            calls(&out.expr, op) && !calls(&out.expr, "masked_mul"),
            "{}",
            out.expr
        );
    }
}

/// The sign-flipped loss with a sparse, non-square X: the fused `wsloss_plus` on X as it
/// is, not `wsloss(t(X), -V, U)`, which copies X into its transpose (a sparse transpose
/// costs more per non-zero than negating a dense factor costs per cell).
#[test]
fn plus_variant_does_not_transpose_sparse_x() {
    let mut env = ShapeEnv::with_shapes(&["X=100000x50000", "U=100000x20", "V=50000x20"]).unwrap();
    env.set_nnz("X", 5e6);
    let text = "sum((X + U %*% t(V))^2)";
    let out = run(text, &env);
    assert!(calls(&out.expr, "wsloss_plus"), "{}", out.expr);
    let transposes_x = contains(
        &out.expr,
        &|e| matches!(e, LaExpr::Transpose(a) if **a == LaExpr::Var("X".into())),
    );
    assert!(!transposes_x, "{}", out.expr);
    let x_copy = la_cost(&LaExpr::parse("t(X)").unwrap(), &env).unwrap();
    let neg_v = la_cost(&LaExpr::parse("-V").unwrap(), &env).unwrap();
    assert!(x_copy > neg_v, "{x_copy:e} vs {neg_v:e}");
    check_equivalent(text, &out.expr, SMALL_LOW_RANK, &["X"]);
}

/// Several roots in one e-graph: one saturation, each root's plan as good as alone.
#[test]
fn roots_saturated_together_get_their_own_plans() {
    let texts = [
        "sum((X - U %*% t(V))^2)",
        "sum(X * (U %*% t(V)))",
        "(U %*% t(V) - X) %*% V",
    ];
    let es: Vec<LaExpr> = texts.iter().map(|t| LaExpr::parse(t).unwrap()).collect();
    let env = sparse_x();
    for extractor in [Extractor::Greedy, Extractor::ilp()] {
        let opts = OptimizeOptions {
            node_limit: 6_000,
            extractor,
            ..OptimizeOptions::default()
        };
        let all = spores_opt::saturate::optimize_all(&es, &env, &opts).unwrap();
        check_roots(&texts, &all, &env);
    }
}

fn check_roots(texts: &[&str], all: &[Optimized], env: &ShapeEnv) {
    assert_eq!(all.len(), 3);
    // One saturation: the same report for every root.
    assert!(all.iter().all(|o| o.report.enodes == all[0].report.enodes));
    assert!(calls(&all[0].expr, "wsloss"), "{}", all[0].expr);
    assert!(calls(&all[1].expr, "sddmm_sum"), "{}", all[1].expr);
    assert!(!has_big_product(&all[2].expr, env), "{}", all[2].expr);
    for (text, o) in texts.iter().zip(all) {
        assert!(o.cost_after * 10.0 < o.cost_before, "{text} => {}", o.expr);
        check_equivalent(text, &o.expr, SMALL_LOW_RANK, &["X"]);
    }
}

#[test]
fn als_update_distributes_for_sparse_x() {
    let text = "(U %*% t(V) - X) %*% V";
    let out = run(text, &sparse_x());
    assert!(!has_big_product(&out.expr, &sparse_x()), "{}", out.expr);
    assert!(
        contains(
            &out.expr,
            &|e| matches!(e, LaExpr::MatMul(a, _) if **a == LaExpr::Var("X".into()))
        ),
        "{}",
        out.expr
    );
    check_equivalent(text, &out.expr, SMALL_LOW_RANK, &["X"]);
}

#[test]
fn sum_of_product_becomes_product_of_sums() {
    let env = env(&["W=mxk", "H=kxn"], &[]);
    let text = "sum(W %*% H)";
    let out = run(text, &env);
    assert!(!has_big_product(&out.expr, &env), "{}", out.expr);
    // An aggregate is pushed into the product: `colSums(W) %*% rowSums(H)`, or
    // `sum(W %*% rowSums(H))` when (as measured) a dense matrix-vector product costs less
    // per cell than a column sum; never dearer than the paper's form.
    assert!(
        contains(&out.expr, &|e| matches!(e, LaExpr::ColSums(_)))
            || contains(&out.expr, &|e| matches!(e, LaExpr::RowSums(_))),
        "{}",
        out.expr
    );
    let paper = la_cost(&LaExpr::parse("colSums(W) %*% rowSums(H)").unwrap(), &env).unwrap();
    assert!(out.cost_after <= paper * (1.0 + 1e-9), "{}", out.expr);
    check_equivalent(text, &out.expr, &[("W", 5, 4), ("H", 4, 6)], &[]);
}

/// Fused kernels compete with every other plan on their measured cost: the plan found is
/// never dearer than the fused one, and uses the fused kernel unless something is cheaper.
/// With the calibrated table both win here: a sparse mat-vec is priced per non-zero
/// (`SPMV_NS_PER_NNZ`), and one `mmchain` pass costs less than two of them.
#[test]
fn mmchain_and_sprop_compete_on_measured_cost() {
    let env = env(&["X=mxn", "v=nx1", "w=mx1", "P=mx1"], &[("X", 1e4)]);
    let shapes = &[("X", 7, 6), ("v", 6, 1), ("w", 7, 1), ("P", 7, 1)];
    for (text, fused, f) in [
        ("t(X) %*% (X %*% v)", "mmchain(X, v)", "mmchain"),
        ("t(X) %*% (w * (X %*% v))", "mmchain(X, v, w)", "mmchain"),
        ("P * (1 - P)", "sprop(P)", "sprop"),
    ] {
        let out = run(text, &env);
        let fused_cost = la_cost(&LaExpr::parse(fused).unwrap(), &env).unwrap();
        assert!(
            out.cost_after <= fused_cost * (1.0 + 1e-9),
            "{text} => {} ({:e}), {fused} costs {fused_cost:e}",
            out.expr,
            out.cost_after
        );
        assert!(calls(&out.expr, f), "{text} => {}", out.expr);
        check_equivalent(text, &out.expr, shapes, &["X"]);
    }
}

/// The search limited to the rules exact under NaN and Inf (`OptimizeOptions::exact`)
/// chooses fused operators by price, and nothing else: PNMF's objective gets `wcemm`
/// for its masked part and `sum_mm` for `sum(W %*% H)` (whose kernel runs the product as
/// written when W or H holds NaN or Inf), not R_EQ's `sum(W %*% rowSums(H))` (which
/// reassociates the sums, changing `Inf - Inf` into `Inf * 0`), and the low-rank
/// product under `rowSums(X * .)` runs as `sddmm`, not as R_EQ's `U * (X %*% V)`.
#[test]
fn the_exact_search_fuses_and_does_not_rewrite_the_algebra() {
    let exact = OptimizeOptions {
        exact: true,
        ..OptimizeOptions::default()
    };
    let env = env(
        &[
            "X=mxn", "W=mx10", "H=10xn", "U=mx10", "V=nx10", "v=nx1", "w=mx1",
        ],
        &[("X", 1e4)],
    );
    let shapes = &[
        ("X", 7, 6),
        ("W", 7, 10),
        ("H", 10, 6),
        ("U", 7, 10),
        ("V", 6, 10),
        ("v", 6, 1),
        ("w", 7, 1),
    ];
    let objective = "sum(W %*% H) - sum(X * log(W %*% H))";
    let out = run_with(objective, &env, &exact);
    assert_eq!(out.expr.to_string(), "sum_mm(W, H) - wcemm(X, W, t(H))");
    // (The objective itself is NaN on these inputs: `log` of negative cells.)
    let sum = run_with("sum(W %*% H)", &env, &exact);
    assert_eq!(sum.expr.to_string(), "sum_mm(W, H)");
    check_equivalent("sum(W %*% H)", &sum.expr, shapes, &[]);
    assert_eq!(out.report.iterations, 0);
    let full = run(objective, &env);
    assert!(
        contains(&full.expr, &|e| matches!(
            e,
            LaExpr::RowSums(_) | LaExpr::ColSums(_)
        )),
        "the full search sums the factors: {}",
        full.expr
    );
    for (text, fused) in [
        ("rowSums(X * (U %*% t(V)))", "sddmm"),
        ("t(X) %*% (w * (X %*% v))", "mmchain"),
    ] {
        let out = run_with(text, &env, &exact);
        assert!(calls(&out.expr, fused), "{text} => {}", out.expr);
        check_equivalent(text, &out.expr, shapes, &["X"]);
    }
    // Nor the identities planned beside the input (`canon::rewrite_for_plans`): a shift
    // out of `rowMaxs` turns `max(-Inf + Inf, ...)` (NaN) into `max(-Inf, ...) + Inf`.
    let shifted = run_with("rowMaxs(X + w) + rowSums(X %*% diag(v))", &env, &exact);
    assert_eq!(
        shifted.expr.to_string(),
        "rowMaxs(X + w) + rowSums(X %*% diag(v))"
    );
    // Nothing to fuse: the expression comes back as written.
    let plain = "t(X) %*% (X %*% v) + 2 * (v - v)";
    let out = run_with(plain, &env, &exact);
    assert!(
        out.expr.to_string().contains("v - v"),
        "no algebra: {}",
        out.expr
    );
}

/// SystemDS's wdivmm, divide left and right: PNMF's multiplicative updates divide a
/// sparse X by the low-rank product with SystemDS's weighted (masked) division, and the
/// exact search (they are kept as written: `/` may make NaN or Inf) evaluates the
/// quotient at X's non-zeros only. A plain `/` (IEEE's `0 / 0` is NaN) is not masked.
#[test]
fn pnmf_updates_are_wdivmm_for_sparse_x_under_the_exact_search() {
    let exact = OptimizeOptions {
        exact: true,
        ..OptimizeOptions::default()
    };
    let sparse = env(&["X=mxn", "W=mx10", "H=10xn"], &[("X", 1e4)]);
    let shapes = &[("X", 7, 6), ("W", 7, 10), ("H", 10, 6)];
    for (text, plan) in [
        ("t(W) %*% masked_div(X, W %*% H)", "wdivmm_left(X, W, t(H))"),
        (
            "masked_div(X, W %*% H) %*% t(H)",
            "wdivmm_right(X, W, t(H))",
        ),
        (
            "H * (t(W) %*% masked_div(X, W %*% H)) / t(colSums(W))",
            "H * wdivmm_left(X, W, t(H)) / t(colSums(W))",
        ),
    ] {
        let out = run_with(text, &sparse, &exact);
        assert_eq!(out.expr.to_string(), plan, "{text}");
        // The masked division is priced at X's non-zeros as written already.
        assert!(out.cost_after <= out.cost_before, "{text}");
        check_equivalent(text, &out.expr, shapes, &["X"]);
    }
    let plain = run_with("t(W) %*% (X / (W %*% H))", &sparse, &exact);
    assert!(!calls(&plain.expr, "wdivmm_left"), "{}", plain.expr);
    // A dense X gains nothing from masking: the products stay.
    let dense = env(&["X=mxn", "W=mx10", "H=10xn"], &[]);
    let out = run_with("t(W) %*% masked_div(X, W %*% H)", &dense, &exact);
    assert!(!calls(&out.expr, "wdivmm_left"), "{}", out.expr);
}

/// `tsmm` (one triangle of `t(X) %*% X`) is chosen where its price is lower: a tall dense
/// `X`; a wide sparse `X` keeps the sparse product, whose result is not `n x n` dense.
#[test]
fn tsmm_is_chosen_where_its_price_is_lower() {
    let tall = env(&["X=10000x100"], &[]);
    let out = run("t(X) %*% X", &tall);
    assert_eq!(out.expr.to_string(), "tsmm(X)");
    check_equivalent("t(X) %*% X", &out.expr, &[("X", 7, 3)], &[]);
    let wide_sparse = env(&["X=20000x5000"], &[("X", 1e5)]);
    let out = run("t(X) %*% X", &wide_sparse);
    assert!(!calls(&out.expr, "tsmm"), "{}", out.expr);
}

// ---------- limits and errors ----------

#[test]
fn node_limit_stops_early_and_stays_equivalent() {
    let opts = OptimizeOptions {
        node_limit: 30,
        ..OptimizeOptions::default()
    };
    for text in ["sum((X - U %*% t(V))^2)", "(U %*% t(V) - X) %*% V"] {
        let out = run_with(text, &sparse_x(), &opts);
        assert_eq!(out.report.stop, StopReason::NodeLimit);
        check_equivalent(text, &out.expr, SMALL_LOW_RANK, &["X"]);
    }
}

#[test]
fn iteration_and_time_limits_are_reported() {
    let text = "sum((X - U %*% t(V))^2)";
    let iters = OptimizeOptions {
        iter_limit: 1,
        ..OptimizeOptions::default()
    };
    assert_eq!(
        run_with(text, &sparse_x(), &iters).report.stop,
        StopReason::IterLimit
    );
    let time = OptimizeOptions {
        time_limit: Duration::ZERO,
        ..OptimizeOptions::default()
    };
    let out = run_with(text, &sparse_x(), &time);
    assert_eq!(out.report.stop, StopReason::TimeLimit);
    check_equivalent(text, &out.expr, SMALL_LOW_RANK, &["X"]);
}

#[test]
fn an_unsound_user_rule_fails_loudly() {
    let opts = OptimizeOptions {
        extra_rules: Some(
            RulesFile::from_text(
                "(rule ((= e (Agg i a))) ((union e a)) :ruleset user)",
                "unsound.egg",
            )
            .unwrap(),
        ),
        ..OptimizeOptions::default()
    };
    let e = LaExpr::parse("sum(X)").unwrap();
    let err = optimize(&e, &sparse_x(), &opts).unwrap_err();
    assert!(
        matches!(&err, OptError::Unsound(what) if what == "free indices (schema)"),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        "unsound rule: it merged classes with different free indices (schema)"
    );
}

#[test]
fn opaque_calls_are_kept_and_their_arguments_optimized() {
    let env = env(&["W=mxk", "H=kxn", "X=mxn"], &[]);
    let text = "exp(X) + foo(sum(W %*% H))";
    let out = run(text, &env);
    assert!(
        calls(&out.expr, "foo") && calls(&out.expr, "exp"),
        "{}",
        out.expr
    );
}

// ---------- optimization time ----------

#[test]
fn optimization_time() {
    let cases: Vec<(&str, ShapeEnv)> =
        vec![
        ("sum((X - U %*% t(V))^2)", sparse_x()),
        ("sum((X - U %*% t(V))^2)", dense_x()),
        ("sum((X + U %*% t(V))^2)", sparse_x()),
        ("(U %*% t(V) - X) %*% V", sparse_x()),
        ("sum(W %*% H)", env(&["W=mxk", "H=kxn"], &[])),
        ("t(X) %*% (w * (X %*% v))", env(&["X=mxn", "v=nx1", "w=mx1"], &[("X", 1e4)])),
        ("P * (1 - P) * X", env(&["X=mxn", "P=mx1"], &[])),
        (
            "t(X) %*% (X %*% v) + sum((X - U %*% t(V))^2) * v - colSums(X) %*% V %*% t(V) %*% v",
            env(&["X=mxn", "U=mx10", "V=nx10", "v=nx1"], &[("X", 1e4)]),
        ),
    ];
    let opts = OptimizeOptions::default();
    // Warm the per-thread rule cache, as a long-running compiler would.
    let _ = optimize(&LaExpr::parse("sum(X)").unwrap(), &sparse_x(), &opts);
    let mut times = Vec::new();
    for (text, env) in &cases {
        let e = LaExpr::parse(text).unwrap();
        let t = Instant::now();
        let out = optimize(&e, env, &opts).unwrap();
        let dt = t.elapsed();
        println!(
            "{dt:>10.2?}  {:>3} it {:>6} nodes {:?}  {text}  =>  {}",
            out.report.iterations, out.report.enodes, out.report.stop, out.expr
        );
        times.push(dt);
    }
    times.sort();
    println!(
        "median {:?}, max {:?}",
        times[times.len() / 2],
        times[times.len() - 1]
    );
}

/// The way back is rules: every paper example's plan is a term the raising rules
/// (`raise.egg`) derived, extracted over LA classes, not read off relational classes by
/// the fallback table.
#[test]
fn plans_come_from_the_raising_rules() {
    let cases: &[(&str, &[&str])] = &[
        ("sum((X - U %*% t(V))^2)", &["X=mxn", "U=mxk", "V=nxk"]),
        ("(U %*% t(V) - X) %*% V", &["X=mxn", "U=mxk", "V=nxk"]),
        ("sum(W %*% H)", &["W=mxk", "H=kxn"]),
        ("colSums(X * y)", &["X=mxn", "y=mx1"]),
        ("P * X - P * rowSums(P) * X", &["P=mx1", "X=mxk"]),
        ("t(X) %*% (w * (X %*% v))", &["X=mxn", "v=nx1", "w=mx1"]),
    ];
    for (text, shapes) in cases {
        let env = env(shapes, &[("X", 1e4)]);
        for extractor in [Extractor::Greedy, Extractor::ilp()] {
            let opts = OptimizeOptions {
                extractor,
                ..OptimizeOptions::default()
            };
            let out = optimize(&LaExpr::parse(text).unwrap(), &env, &opts).unwrap();
            let x = out.report.extraction.expect("a plan was extracted");
            assert_eq!(x.table_fallback, None, "{text} ({extractor})");
        }
    }
}

/// Raising equates LA terms, and LA classes carry their shape (`rows`/`cols`, whose merge
/// records a conflict) as relations carry their schema: a raising rule that makes a
/// column vector equal to a row vector is caught as unsound, not extracted.
#[test]
fn an_unsound_raising_rule_fails_loudly() {
    let opts = OptimizeOptions {
        extra_rules: Some(
            RulesFile::from_text(
                "(rule ((= e (Unbind i (NoIx) r)) (= s (schema r)) (set-contains s i)) \
                 ((union e (Unbind (NoIx) i r))) :ruleset raise)",
                "raising.egg",
            )
            .unwrap(),
        ),
        ..OptimizeOptions::default()
    };
    let e = LaExpr::parse("X %*% v").unwrap();
    let err = optimize(&e, &env(&["X=mxn", "v=nx1"], &[]), &opts).unwrap_err();
    assert!(
        matches!(&err, OptError::Unsound(what) if what.contains("row counts")),
        "{err}"
    );
}
