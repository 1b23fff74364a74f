//! Optimized plans run on the engine: random programs agree with the reference, and every
//! yeast-lite subgraph query counts what the benchmark's true counts say.

mod opt_support;

use opt_support::*;
use spores_tensor::engine::execute_plan;
use spores_tensor::io::subgraph::{read_data_graph, read_query_graph};
use spores_tensor::logical::{optimize_explained, LogicalOptions, Search};
use spores_tensor::physical::{optimize, PhysicalOptions};
use spores_tensor::reference::eval_program;
use spores_tensor::stats::{Estimator, InputStats};

#[test]
fn optimized_plans_on_the_engine_agree_with_the_reference() {
    for seed in 0..120u64 {
        let (p, inputs) = random_program(seed);
        let stats = InputStats::from_tensors(&inputs);
        let want = eval_program(&p, &inputs).unwrap();
        for estimator in [Estimator::Chain, Estimator::Uniform] {
            let (logical, plan) = optimize_with(&p, &stats, Search::Exact, estimator);
            let (got, _) = execute_plan(&plan, &inputs)
                .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{logical}\n{plan:?}"));
            assert_outputs_close(&want, &got, &format!("seed {seed}\n{logical}\n{plan:?}"));
        }
    }
}

/// The 60 dense 4-vertex yeast-lite queries: optimized (exact search, chain bound), run on the
/// engine, and compared with the true counts. (All 120, with timings, in
/// `opt_subgraph_time::yeast_end_to_end`: some 8-vertex queries take seconds each.)
#[test]
fn yeast_lite_counts_match_the_true_counts() {
    let dir = data_dir();
    let data = read_data_graph(&dir.join("graphs/yeast.graph")).unwrap();
    let mut checked = 0;
    for (name, _) in yeast_queries()
        .into_iter()
        .filter(|(n, _)| n.contains("_4_"))
    {
        let q = read_query_graph(&dir.join("queries/yeast-lite").join(&name)).unwrap();
        let inputs = data.inputs_for(&q);
        let stats = InputStats::from_tensors(&inputs);
        let p = q.program().unwrap();
        let opts = LogicalOptions {
            search: Search::Exact,
            ..Default::default()
        };
        let logical = optimize_explained(&p, &stats, &opts).unwrap().plan;
        let plan = optimize(&logical, &stats, &PhysicalOptions::default()).unwrap();
        let (out, _) = execute_plan(&plan, &inputs).unwrap();
        let got = out["count"].to_dense()[0];
        let truth: f64 = std::fs::read_to_string(dir.join("true_counts/yeast").join(&name))
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert_eq!(got, truth, "{name}\n{logical}");
        checked += 1;
    }
    assert_eq!(checked, 60);
}
