//! End-to-end tests of equality saturation: the paper's examples, limits, and timing.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use spores_opt::la::{Dim, LaExpr, ShapeEnv};
use spores_opt::saturate::{optimize, OptimizeOptions, Optimized, StopReason};

fn env(shapes: &[&str], nnz: &[(&str, f64)]) -> ShapeEnv {
    let mut env = ShapeEnv::default();
    for s in shapes {
        env.add_shape_arg(s).unwrap();
    }
    for (n, z) in nnz {
        env.set_nnz(n, *z);
    }
    env
}

fn run(text: &str, env: &ShapeEnv) -> Optimized {
    let e = LaExpr::parse(text).unwrap();
    let out = optimize(&e, env, &OptimizeOptions::default()).unwrap();
    println!(
        "{text}\n  => {}\n  cost {:.3e} -> {:.3e}, {:?}",
        out.expr, out.cost_before, out.cost_after, out.report
    );
    out
}

#[test]
fn smoke() {
    let env = env(&["X=100x200", "U=100x10", "V=200x10"], &[("X", 200.0)]);
    run("sum((X - U %*% t(V))^2)", &env);
}
