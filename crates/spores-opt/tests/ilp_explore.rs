use spores_opt::extract::Extractor;
use spores_opt::la::{LaExpr, ShapeEnv};
use spores_opt::saturate::{optimize, OptimizeOptions};
use std::time::Duration;

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

#[test]
fn explore() {
    let uv = env(
        &[
            "X=mxn", "U=mx10", "V=nx10", "W=mxk", "H=kxn", "A=mxm", "v=nx1", "u=mx1",
        ],
        &[("X", 1e4)],
    );
    let cases = [
        "sum(U %*% t(V)) + sum((U %*% t(V))^2)",
        "(U %*% t(V)) * (U %*% t(V)) + U %*% t(V)",
        "sum(X %*% V) + rowSums(X %*% V) %*% t(rowSums(X %*% V))",
        "rowSums(U %*% t(V)) + (U %*% t(V)) %*% v",
        "t(X) %*% (X %*% v) + t(X) %*% u",
        "(X %*% V) %*% t(X %*% V)",
        "sum((X - U %*% t(V))^2) + sum(X * (U %*% t(V)))",
        "A %*% A %*% A %*% A",
        "rowSums(A %*% A) + (A %*% A) %*% u",
        "sum(W %*% H) + sum((W %*% H) * (W %*% H))",
    ];
    for text in cases {
        let e = LaExpr::parse(text).unwrap();
        for ex in [
            Extractor::Greedy,
            Extractor::Ilp {
                time_limit: Duration::from_secs(5),
            },
        ] {
            let opts = OptimizeOptions {
                extractor: ex,
                ..Default::default()
            };
            let out = optimize(&e, &uv, &opts).unwrap();
            let r = out.report.extraction.clone().unwrap();
            println!("{ex:<8} {text}\n   => {}\n   after {:.4e} dag {:.4e} greedy {:.4e} bin {} {:?} fb {:?} opt {} nodes {}", out.expr, out.cost_after, r.dag_cost, r.greedy_dag_cost, r.binaries, r.time, r.fell_back, r.proven_optimal, out.report.enodes);
        }
    }
}
