//! The relational-engine seam without DataFusion: an engine that evaluates each
//! expression it is handed with the optimizer's reference evaluator, recording what it
//! ran. The script prints what the local engine prints, the optimizer's fused plans reach
//! the engine whole, and subgraphs over non-finite values stay local.

mod common;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use spores_dml::engine::{Placement, RelationError, RelationInput, RelationalEngine};
use spores_dml::RunOptions;
use spores_exec::Matrix;
use spores_opt::fused::expand_fused;
use spores_opt::la::LaExpr;

#[derive(Default)]
struct Recording {
    ran: Mutex<Vec<String>>,
}

impl RelationalEngine for Recording {
    fn name(&self) -> &'static str {
        "recording"
    }

    fn supports(
        &self,
        expr: &LaExpr,
        _: &HashMap<String, (usize, usize)>,
    ) -> Result<(), RelationError> {
        let mut opaque = None;
        expr.visit(&mut |e| {
            if let LaExpr::Func { name, .. } = e {
                if name == "exp" {
                    opaque = Some(name.clone());
                }
            }
        });
        opaque.map_or(Ok(()), |name| Err(format!("no lowering for {name}").into()))
    }

    fn run(
        &self,
        expr: &LaExpr,
        inputs: &HashMap<String, RelationInput>,
    ) -> Result<Matrix, RelationError> {
        self.ran.lock().unwrap().push(expr.to_string());
        let inputs: HashMap<String, Matrix> = inputs
            .iter()
            .map(|(k, v)| match v {
                RelationInput::Matrix(m) => Ok((k.clone(), (**m).clone())),
                RelationInput::File(f) => Err(format!("{} was not read", f.path().display())),
            })
            .collect::<Result<_, String>>()?;
        spores_opt::eval::eval(&expand_fused(expr), &inputs).map_err(RelationError::engine)
    }
}

const SCRIPT: &str = r#"
X = rand(rows=60, cols=40, sparsity=0.1, min=1, max=5, seed=1)
U = rand(rows=60, cols=4, min=0, max=1, seed=2)
V = rand(rows=40, cols=4, min=0, max=1, seed=3)
lambda = 0.1
loss = sum((X - U %*% t(V))^2)
G = (U %*% t(V) - X) %*% V + lambda * U
E = sum(exp(U))
print("v " + loss + " " + sum(G) + " " + as.scalar(G[3, 2]) + " " + E)
Y = X / 0
print("v " + sum(X * Y))
"#;

fn run(engine: Option<Arc<Recording>>) -> String {
    run_placed(SCRIPT, engine, Placement::Everything)
}

fn run_placed(script: &str, engine: Option<Arc<Recording>>, placement: Placement) -> String {
    let options = RunOptions {
        optimizer: common::optimizer(true),
        engine: engine.map(|e| e as Arc<dyn RelationalEngine>),
        placement,
        ..RunOptions::default()
    };
    spores_dml::run_script(script, options).unwrap_or_else(|e| panic!("{:?}", e.diagnostic()))
}

#[test]
fn subgraphs_run_on_the_engine_and_print_what_the_kernels_print() {
    let local = run(None);
    let engine = Arc::new(Recording::default());
    let relational = run(Some(engine.clone()));
    let (want, _) = common::values(&local);
    let (got, _) = common::values(&relational);
    assert_eq!(want.len(), 5, "{local}");
    assert!(want[4].is_infinite(), "{local}");
    common::assert_close(&got, &want, 1e-9);
    let ran = engine.ran.lock().unwrap().clone();
    // The fused loss reached the engine whole (over the block's `rand` nodes as leaves);
    // `exp` (unsupported here) and the product with the infinite `Y` stayed local.
    assert!(ran.iter().any(|e| e.starts_with("wsloss(")), "{ran:?}");
    assert!(
        ran.iter()
            .all(|e| !e.contains("exp") && !e.contains(" / 0")),
        "{ran:?}"
    );
}

/// `Y`'s product is dense locally (2000 x 40 doubles: 640 KB) although `X` holds 200
/// non-zeros; `sum(X^2)` and the sums over `Y` read at most ~110 KB.
const BUDGETED: &str = r#"
X = rand(rows=2000, cols=50, sparsity=0.002, min=1, max=5, seed=7)
V = rand(rows=50, cols=40, min=0, max=1, seed=8)
Y = X %*% V
print("v " + sum(Y) + " " + as.scalar(Y[5, 3]) + " " + sum(X^2))
"#;

#[test]
fn over_budget_placement_sends_only_the_subgraphs_beyond_the_budget() {
    let local = run_placed(BUDGETED, None, Placement::Everything);
    let engine = Arc::new(Recording::default());
    let placed = run_placed(
        BUDGETED,
        Some(engine.clone()),
        Placement::OverBudget { bytes: 300_000 },
    );
    let (want, _) = common::values(&local);
    assert_eq!(want.len(), 3, "{local}");
    common::assert_close(&common::values(&placed).0, &want, 1e-9);
    let ran = engine.ran.lock().unwrap().clone();
    assert_eq!(ran.len(), 1, "{ran:?}");
    assert!(ran[0].contains("%*%") && !ran[0].contains("sum"), "{ran:?}");
    // A budget that holds the product keeps everything local; with none, all goes.
    let roomy = Arc::new(Recording::default());
    run_placed(
        BUDGETED,
        Some(roomy.clone()),
        Placement::OverBudget { bytes: 1_000_000 },
    );
    assert!(roomy.ran.lock().unwrap().is_empty());
    let all = Arc::new(Recording::default());
    run_placed(BUDGETED, Some(all.clone()), Placement::Everything);
    assert!(all.ran.lock().unwrap().len() >= 3);
}
