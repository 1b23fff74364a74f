//! Random well-shaped LA expressions over the inputs of a [`ShapeEnv`], for property
//! tests of the optimizer. Subexpressions are often reused, so common subexpressions
//! (and the cycles they make in the e-graph) are frequent.

use spores_opt::la::{Dim, LaExpr, ShapeEnv};

use super::Rng;

pub fn dims() -> [Dim; 4] {
    [Dim::sym("m"), Dim::sym("n"), Dim::Known(1), Dim::Known(10)]
}

fn var(name: &str) -> LaExpr {
    LaExpr::Var(name.to_string())
}

/// An input of shape `(r, c)`, possibly transposed, or a product through `m`.
pub fn leaf(env: &ShapeEnv, r: &Dim, c: &Dim, rng: &mut Rng) -> LaExpr {
    let mut names: Vec<&String> = env.shapes.keys().collect();
    names.sort();
    let mut options = Vec::new();
    for name in names {
        let (sr, sc) = &env.shapes[name];
        if sr == r && sc == c {
            options.push(var(name));
        }
        if sr == c && sc == r && sr != sc {
            options.push(LaExpr::Transpose(Box::new(var(name))));
        }
    }
    if r.is_one() && c.is_one() {
        options.push(LaExpr::Const((1 + rng.below(3)) as f64));
    }
    if options.is_empty() {
        let m = Dim::sym("m");
        return LaExpr::MatMul(
            Box::new(leaf(env, r, &m, rng)),
            Box::new(leaf(env, &m, c, rng)),
        );
    }
    let k = rng.below(options.len());
    options.swap_remove(k)
}

/// A random expression of shape `(r, c)` that often reuses an earlier subexpression of
/// the same shape (`pool`), so common subexpressions are frequent.
pub fn gen(
    env: &ShapeEnv,
    r: &Dim,
    c: &Dim,
    depth: usize,
    rng: &mut Rng,
    pool: &mut Vec<(Dim, Dim, LaExpr)>,
) -> LaExpr {
    let reuse: Vec<&LaExpr> = pool
        .iter()
        .filter(|(pr, pc, _)| pr == r && pc == c)
        .map(|(_, _, e)| e)
        .collect();
    if !reuse.is_empty() && rng.below(3) == 0 {
        return reuse[rng.below(reuse.len())].clone();
    }
    if depth == 0 || rng.below(5) == 0 {
        return leaf(env, r, c, rng);
    }
    let d = depth - 1;
    let b = Box::new;
    let one = Dim::Known(1);
    let func = |name: &str, args: Vec<LaExpr>| LaExpr::Func {
        name: name.into(),
        args,
    };
    let e = match rng.below(11) {
        // DML's other sum-product constructs: fills, means, traces, `as.scalar`.
        9 => {
            let k = dims()[rng.below(2)].clone();
            let size = |d: &Dim| match d {
                Dim::Known(n) => LaExpr::Const(*n as f64),
                Dim::Sym(s) if s == "m" => func("nrow", vec![var("X")]),
                _ => func("ncol", vec![var("X")]),
            };
            match (r.is_one(), c.is_one(), rng.below(2)) {
                (true, true, 0) => func("mean", vec![gen(env, &k, c, d, rng, pool)]),
                (true, true, _) => func("trace", vec![gen(env, &k, &k, d, rng, pool)]),
                (false, true, 0) => func("rowMeans", vec![gen(env, r, &k, d, rng, pool)]),
                (true, false, 0) => func("colMeans", vec![gen(env, &k, c, d, rng, pool)]),
                _ => LaExpr::Mul(
                    b(func("matrix", vec![LaExpr::Const(2.0), size(r), size(c)])),
                    b(gen(env, r, c, d, rng, pool)),
                ),
            }
        }
        // A row or column vector broadcast against a matrix.
        10 if !r.is_one() && !c.is_one() => {
            let v = if rng.below(2) == 0 {
                gen(env, &one, c, d, rng, pool)
            } else {
                gen(env, r, &one, d, rng, pool)
            };
            LaExpr::Add(b(gen(env, r, c, d, rng, pool)), b(v))
        }
        0 => LaExpr::Add(
            b(gen(env, r, c, d, rng, pool)),
            b(gen(env, r, c, d, rng, pool)),
        ),
        1 => LaExpr::Sub(
            b(gen(env, r, c, d, rng, pool)),
            b(gen(env, r, c, d, rng, pool)),
        ),
        2 => LaExpr::Mul(
            b(gen(env, r, c, d, rng, pool)),
            b(gen(env, r, c, d, rng, pool)),
        ),
        3 | 4 => {
            let k = dims()[rng.below(4)].clone();
            LaExpr::MatMul(
                b(gen(env, r, &k, d, rng, pool)),
                b(gen(env, &k, c, d, rng, pool)),
            )
        }
        5 => LaExpr::Transpose(b(gen(env, c, r, d, rng, pool))),
        6 => LaExpr::Pow(b(gen(env, r, c, d, rng, pool)), 2.0),
        _ => {
            let k = dims()[rng.below(2)].clone();
            match (r.is_one(), c.is_one()) {
                (true, true) => {
                    let k2 = dims()[rng.below(2)].clone();
                    LaExpr::Sum(b(gen(env, &k, &k2, d, rng, pool)))
                }
                (false, true) => LaExpr::RowSums(b(gen(env, r, &k, d, rng, pool))),
                (true, false) => LaExpr::ColSums(b(gen(env, &k, c, d, rng, pool))),
                _ => LaExpr::Mul(b(LaExpr::Const(2.0)), b(gen(env, r, c, d, rng, pool))),
            }
        }
    };
    pool.push((r.clone(), c.clone(), e.clone()));
    e
}
