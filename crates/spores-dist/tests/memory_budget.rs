//! The session's memory pool is the budget: a plan whose aggregate holds more than the
//! budget spills to disk and still gives the right value.

use std::collections::HashMap;
use std::path::PathBuf;

use spores_dist::{DataFusionEngine, EngineConfig};
use spores_exec::{CsrMatrix, Matrix};
use spores_opt::la::LaExpr;

#[test]
fn an_aggregate_larger_than_the_budget_spills_and_finishes() {
    // `sum(X + 1)` as written: the union of X with 1 broadcast over all 1.44M cells,
    // grouped by cell (about 100 MB of hash table) before the sum, in a 16 MB pool.
    let n = 1200;
    let triplets: Vec<(usize, usize, f64)> = (0..n).map(|k| (k, (7 * k) % n, 2.0)).collect();
    let x = Matrix::Sparse(CsrMatrix::from_triplets(n, n, &triplets).unwrap());
    let inputs: HashMap<String, Matrix> = [("X".to_string(), x)].into();
    let spill_dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("spores-dist-spill");
    std::fs::create_dir_all(&spill_dir).unwrap();
    let engine = DataFusionEngine::new(EngineConfig {
        memory_bytes: 16 << 20,
        threads: 2,
        temp_dir: Some(spill_dir),
        hold_bytes: 0,
    })
    .unwrap();
    let e = LaExpr::parse("sum(X + 1)").unwrap();
    let got = engine
        .run(&e, &inputs)
        .unwrap_or_else(|err| panic!("{err}"));
    assert_eq!(got.as_scalar(), Some((n * n) as f64 + 2.0 * n as f64));
}
