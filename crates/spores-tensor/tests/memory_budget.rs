//! Kernels under the process's memory budget (`spores_exec::memory`, `--memory`): a result
//! past it is refused with an error naming the kernel and its size, on one thread or
//! split across workers, before the allocator would abort; results within it are exact.
//! One test, because the budget and the parallel split are settings of the process.

use std::collections::HashMap;
use std::time::Duration;

use spores_tensor::driver::Optimizer;
use spores_tensor::engine::exec::set_parallel_after;
use spores_tensor::parse::parse_program;
use spores_tensor::{run, CooTensor, RunOptions, TensorError};

/// The budget of this test process: 16 MiB.
const BUDGET: u64 = 16 << 20;

/// A vector of `n` entries `1, 2, 3, 1, 2, 3, ...`.
fn vector(n: usize) -> CooTensor {
    let entries = (0..n as u32)
        .map(|i| (vec![i], 1.0 + (i % 3) as f64))
        .collect();
    CooTensor::from_entries(vec![n], entries, 0.0).unwrap()
}

fn run_program(
    src: &str,
    n: usize,
    optimizer: Optimizer,
) -> Result<HashMap<String, CooTensor>, TensorError> {
    let parsed = parse_program(src).unwrap();
    let inputs: HashMap<String, CooTensor> =
        [("A".to_string(), vector(n)), ("B".to_string(), vector(n))].into();
    let options = RunOptions {
        optimizer,
        ..Default::default()
    };
    run(&parsed.program, &inputs, &options).map(|(out, _)| out)
}

fn refusal(src: &str, n: usize, optimizer: Optimizer) -> String {
    match run_program(src, n, optimizer) {
        Ok(_) => panic!("{src} over {n} entries fits in {BUDGET} bytes"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn kernels_stop_at_the_memory_budget_and_stay_exact_below_it() {
    spores_exec::memory::set_budget(BUDGET);
    for split in [Duration::MAX, Duration::ZERO] {
        set_parallel_after(split);
        // 4 * 10^8 cells stored sparse (beyond a dense level's size): refused as the output
        // grows, in loop order or not.
        for (src, optimizer) in [
            ("T[i,j] = A[i] * B[j]", Optimizer::Greedy),
            ("T[j,i] = A[i] * B[j]", Optimizer::Naive),
        ] {
            let e = refusal(src, 20_000, optimizer);
            assert!(
                e.starts_with("kernel T: a sparse result of more than ")
                    && e.ends_with("more than the memory budget of 16.8 MB (set with --memory)"),
                "{src} ({split:?}): {e}"
            );
        }
        // 4 * 10^6 cells stored dense: refused before the output is allocated.
        let e = refusal("T[i,j] = A[i] * B[j]", 2000, Optimizer::Greedy);
        assert_eq!(
            e,
            "kernel T: a dense 2000x2000 result needs about 32.0 MB, more than the memory \
             budget of 16.8 MB (set with --memory)"
        );
        // Within the budget: every cell, and the sum, exact.
        let out = run_program(
            "T[j,i] = A[i] * B[j]\ns = sum[i,j](A[i] * B[j])",
            100,
            Optimizer::Naive,
        )
        .unwrap();
        let t = &out["T"];
        assert_eq!(t.dims(), &[100, 100]);
        assert_eq!(t.nnz(), 10_000);
        for j in 0..100u32 {
            for i in 0..100u32 {
                let want = (1.0 + (i % 3) as f64) * (1.0 + (j % 3) as f64);
                assert_eq!(t.get(&[j, i]), want, "T[{j},{i}]");
            }
        }
        // sum(A) = sum(B) = 33 * 6 + 1 = 199.
        assert_eq!(out["s"].get(&[]), 199.0 * 199.0);
    }
}
