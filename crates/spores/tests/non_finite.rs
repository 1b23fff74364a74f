//! NaN and Inf in matrices: the cell semantics (a zero annihilates: `0 * Inf = 0`) hold
//! in every storage format and every product kernel, and the optimizer's rewrites are
//! used only where the values they read are finite (guarded plans, `dag/guard.rs`), so
//! optimized and unoptimized runs print the same numbers.

mod common;

use common::{assert_contains, numbers, same};
use spores_dml::{run_script, RunOptions};

/// The script's output with the optimizer on every expression (`min_cost` 0) or off,
/// with `--explain`.
fn run(src: &str, optimized: bool) -> String {
    let optimizer = common::optimizer(optimized);
    let options = RunOptions {
        optimizer,
        explain: true,
        ..RunOptions::default()
    };
    run_script(src, options).unwrap_or_else(|e| panic!("{}", e.diagnostic().render("t.dml", src)))
}

/// The numbers the script printed (plan lines of `--explain` skipped).
fn printed(out: &str) -> Vec<f64> {
    out.lines()
        .filter(|l| !l.starts_with(' ') && !l.contains('%') && !l.contains(':'))
        .flat_map(numbers)
        .collect()
}

/// The output of `src` under the full search in every block (the masked operators
/// extraction chooses compiled into the masked kernels), with `--explain`.
fn planned(src: &str) -> String {
    let mut spores = spores_dml::opt::SporesOptimizer::new(Default::default());
    spores.full_search().min_cost(0.0);
    let options = RunOptions {
        optimizer: Box::new(spores),
        explain: true,
        ..RunOptions::default()
    };
    run_script(src, options).expect("the script runs")
}

fn rewrites(out: &str) -> usize {
    out.lines()
        .filter(|l| l.trim_start().starts_with("=> "))
        .count()
}

/// The reproducer at a tenth of the size: `rowSums(X * (U %*% t(V)))` is
/// rewritten to `rowSums(U * (X %*% V))` on finite inputs, which is wrong with an Inf in
/// `U` (`Inf * (x - x)` is 0 one way, `Inf - Inf` is NaN the other).
fn low_rank_script(poison: &str) -> String {
    format!(
        "X = rand(rows=300, cols=200, sparsity=0.05, min=-1, max=1, seed=1)
U = rand(rows=300, cols=10, seed=2)
V = rand(rows=200, cols=10, min=-1, max=1, seed=3)
{poison}
while(FALSE){{}}
r = rowSums(X * (U %*% t(V)))
while(FALSE){{}}
print(toString(r[1:4,1]))
print(sum(r[4:300,1]))
"
    )
}

#[test]
fn an_inf_input_keeps_the_rewrite_from_changing_the_result() {
    let finite = low_rank_script("");
    let out = run(&finite, true);
    assert!(rewrites(&out) > 0, "the finite case is rewritten:\n{out}");
    let (a, b) = (printed(&out), printed(&run(&finite, false)));
    assert_eq!(a.len(), 5, "{out}");
    for (x, y) in a.iter().zip(&b) {
        assert!(same(*x, *y, 1e-9), "{a:?} vs {b:?}");
    }

    // With the Inf the root is kept as written but for the fused operator the exact
    // search chooses: the product evaluated at X's non-zeros (`sddmm`), not R_EQ's
    // `U * (X %*% V)`.
    let poisoned = low_rank_script("U[3,1] = 1/0");
    let out = run(&poisoned, true);
    assert_eq!(rewrites(&out), 1, "{out}");
    assert!(out.contains("=> rowSums(sddmm(X, U, V))"), "{out}");
    assert!(
        out.contains("kept as written (may meet NaN or Inf"),
        "{out}"
    );
    let (a, b) = (printed(&out), printed(&run(&poisoned, false)));
    assert_eq!(a.len(), 5, "{out}");
    assert!(a[2].is_nan(), "row 3 mixes +Inf and -Inf terms: {a:?}");
    for (k, (x, y)) in a.iter().zip(&b).enumerate() {
        assert!(same(*x, *y, 1e-9), "value {k}: {a:?} optimized vs {b:?}");
    }
    // The other rows are finite and the same as without the Inf.
    let clean = printed(&run(&finite, false));
    assert!(same(a[0], clean[0], 1e-12) && same(a[4], clean[4], 1e-12));
}

/// An Inf made inside the block (not read from a finite input) is caught as well, and a
/// hand-checked case: row 1 of `X * (U %*% t(V))` is `[Inf, -Inf, 0]` (NaN summed), the
/// rewrite would give `Inf * 0 + 1 = 1`.
#[test]
fn an_inf_made_in_the_block_keeps_it_as_written() {
    let src = "X = matrix(\"1 1 0 0 0 1\", rows=2, cols=3)
U = matrix(\"1 1 1 1\", rows=2, cols=2)
V = matrix(\"1 0 -1 1 2 1\", rows=3, cols=2)
while(FALSE){}
W = U
W[1,1] = 1/0
r = rowSums(X * (W %*% t(V)))
print(toString(r))
";
    for optimized in [false, true] {
        let got = printed(&run(src, optimized));
        assert_eq!(got.len(), 2, "{got:?}");
        assert!(got[0].is_nan(), "optimized={optimized}: {got:?}");
        assert_eq!(got[1], 3.0, "optimized={optimized}: {got:?}");
    }
}

/// The low-rank product scaled by `s = 1 / d`, computed in the block: `s` may be Inf,
/// so the root reading it is rewritten behind a guard that checks `s` when it runs.
fn scaled_script(divisor: &str) -> String {
    format!(
        "X = rand(rows=300, cols=200, sparsity=0.05, min=-1, max=1, seed=1)
X[5,] = matrix(0, rows=1, cols=200)
U = rand(rows=300, cols=10, seed=2)
V = rand(rows=200, cols=10, min=-1, max=1, seed=3)
d = {divisor}
while(FALSE){{}}
s = 1 / d
r = rowSums(X * ((s * U) %*% t(V)))
while(FALSE){{}}
print(toString(r[1:5,1]))
print(sum(r[6:300,1]))
"
    )
}

/// A division in the block no longer keeps the roots reading it as written: with a
/// finite `s` the rewrite is used (and the guard passes), with `s = Inf` the guard
/// evaluates the root as written. Both print the `--no-opt` numbers; row 5 of `X` is
/// all zeros, so its sum stays 0 even when `s` is Inf (`0 * Inf = 0`).
#[test]
fn a_value_divided_in_the_block_is_checked_when_the_rewrite_runs() {
    for (divisor, finite) in [("2", true), ("0", false)] {
        let src = scaled_script(divisor);
        let out = run(&src, true);
        assert!(rewrites(&out) > 0, "d = {divisor}: rewritten\n{out}");
        assert!(out.contains("guarded: as written unless %"), "{out}");
        // (The block after it slices `r`, which holds NaN when `s` is Inf: those roots
        // are kept as written, rightly.)
        let scaled_block = out
            .split("--- block")
            .find(|b| b.contains("rowSums(X"))
            .expect("the block of the division");
        assert!(!scaled_block.contains("kept as written"), "{out}");
        let fell_back = out.contains("a value it reads is NaN or Inf; evaluated as written");
        assert_eq!(fell_back, !finite, "d = {divisor}\n{out}");
        let (a, b) = (printed(&out), printed(&run(&src, false)));
        assert_eq!(a.len(), 6, "{out}");
        for (k, (x, y)) in a.iter().zip(&b).enumerate() {
            assert!(
                same(*x, *y, 1e-9),
                "d = {divisor}, value {k}: {a:?} vs {b:?}"
            );
        }
        assert_eq!(a[4], 0.0, "the all-zero row: {a:?}");
        if !finite {
            assert!(a[..4].iter().all(|x| x.is_nan()), "{a:?}");
        }
    }
}

/// In a loop the guarded plan is searched and planned once and decided afresh on every
/// run: `s = 1 / d` alternates between finite and Inf, each iteration prints the
/// `--no-opt` numbers, and only the Inf iterations fall back.
#[test]
fn a_guarded_plan_is_cached_and_checked_on_every_run() {
    let src = "X = rand(rows=300, cols=200, sparsity=0.05, min=-1, max=1, seed=1)
U = rand(rows=300, cols=10, seed=2)
V = rand(rows=200, cols=10, min=-1, max=1, seed=3)
for (i in 1:6) {
  d = i %% 2
  s = 1 / d
  r = rowSums(X * ((s * U) %*% t(V)))
  print(sum(r))
}
";
    let run_counting = |optimized: bool| {
        let program = spores_lang::parse(src).expect("parses");
        let options = RunOptions {
            optimizer: common::optimizer(optimized),
            ..RunOptions::default()
        };
        let mut out = Vec::new();
        let mut interp = spores_dml::Interpreter::new(&program, options, &mut out);
        interp.run(&program).expect("runs");
        let searches = interp.stats.optimize_times.len();
        drop(interp);
        (numbers(&String::from_utf8_lossy(&out)), searches)
    };
    let (got, searches) = run_counting(true);
    let (want, _) = run_counting(false);
    assert_eq!(got.len(), 6, "{got:?}");
    // Four blocks are optimized once each (the first block, the loop's two bounds and
    // its body), not the body once per iteration.
    assert_eq!(searches, 4, "{searches} searches");
    for (k, (a, b)) in got.iter().zip(&want).enumerate() {
        assert!(
            same(*a, *b, 1e-9),
            "iteration {}: {got:?} vs {want:?}",
            k + 1
        );
        assert_eq!(a.is_nan(), k % 2 == 1, "iteration {}: {got:?}", k + 1);
    }
}

/// A division inside the rewritten tree is never materialized by the rewrite, so it
/// cannot be checked: that root stays as written (and `--explain` says why).
#[test]
fn a_division_inside_a_root_keeps_that_root_as_written() {
    let src = "X = rand(rows=300, cols=200, sparsity=0.05, min=-1, max=1, seed=1)
U = rand(rows=300, cols=10, seed=2)
V = rand(rows=200, cols=10, min=-1, max=1, seed=3)
V[1,1] = 0
while(FALSE){}
r = rowSums(X * ((U / U[1,1]) %*% t(V / V)))
print(sum(r))
";
    let out = run(src, true);
    assert!(out.contains("(/) may make NaN or Inf inside it"), "{out}");
    let (a, b) = (printed(&out), printed(&run(src, false)));
    assert_eq!(a.len(), 1, "{out}");
    assert!(same(a[0], b[0], 1e-12), "{a:?} vs {b:?}");
}

/// `0 * Inf` inside `%*%`: 0 whatever the formats of the operands (the README's cell
/// semantics), where a plain dense product computes NaN.
#[test]
fn zero_times_inf_in_a_product_does_not_depend_on_storage() {
    let src = "A = matrix(\"0 1\", rows=1, cols=2)
B = matrix(\"1 1\", rows=2, cols=1)
B[1,1] = 1/0
print(as.scalar(A %*% B))
S = matrix(\"0 0 1\", rows=1, cols=3)
C = matrix(\"1 1 1\", rows=3, cols=1)
C[1,1] = 1/0
print(as.scalar(S %*% C))
C[1,1] = 0/0
print(as.scalar(S %*% C))
Z = matrix(0, rows=40, cols=40)
Z[1,1] = 1
D = matrix(1, rows=40, cols=40)
D[2,3] = 0/0
print(sum(Z %*% D))
print(sum(D %*% Z))
print(sum(t(Z) %*% D))
E = matrix(1, rows=40, cols=40)
E[2,1] = 1/0
print(sum(t(Z) %*% E))
print(sum(E %*% Z))
I = matrix(0, rows=3, cols=2)
I[1,1] = 1/0
print(toString(t(I) %*% I))
";
    for optimized in [false, true] {
        let got = printed(&run(src, optimized));
        let want = [1.0, 1.0, 1.0, 40.0, 40.0, 40.0, 40.0, f64::INFINITY];
        assert!(got.len() >= want.len(), "{got:?}");
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!(same(*g, *w, 1e-12), "value {k}: {got:?}");
        }
        // t(I) %*% I = [Inf 0; 0 0]: the zeros of I never meet its Inf.
        assert_eq!(&got[8..], &[f64::INFINITY, 0.0, 0.0, 0.0], "{got:?}");
    }
}

/// The fused kernels the optimizer's extraction picks agree with the operators they
/// replace, one at a time, on non-finite values: the masked kernels (trees no catalogue
/// operator names, `masked_mul` and `masked_div` with their consumers) and the
/// catalogue's (`sum_mm`, `mmchain`, `wdivmm_left`, `wdivmm_right`, which meet V's Inf
/// and run as written). Each statement is a block of its own so that no product is
/// shared (a shared one is not fused).
#[test]
fn fused_kernels_follow_the_operators_on_non_finite_values() {
    let src = "X = rand(rows=600, cols=500, sparsity=0.05, min=1, max=2, seed=4)
U = rand(rows=600, cols=3, min=-1, max=1, seed=5)
V = rand(rows=500, cols=3, min=-1, max=1, seed=6)
U[1,1] = 0
V[1,1] = 1/0
while(FALSE){}
print(sum(X * abs(U %*% t(V))))
while(FALSE){}
print(sum(t(U) %*% (X * (1 / abs(U %*% t(V))))))
while(FALSE){}
print(sum((X * (1 / abs(U %*% t(V)))) %*% V))
while(FALSE){}
A = matrix(1, rows=30, cols=3)
A[1,1] = 1/0
B = matrix(1, rows=3, cols=30)
B[1,2] = -1
while(FALSE){}
print(sum(A %*% B))
v = rand(rows=500, cols=1, seed=7)
v[2,1] = 1/0
while(FALSE){}
print(sum(t(X) %*% (X %*% v)))
";
    let planned = planned(src);
    assert!(planned.contains("masked_sum["), "{planned}");
    // A product of a quotient runs masked, with its consumer or before it.
    assert!(
        planned.matches("masked_left_mm[").count() + planned.matches("masked[").count() >= 1,
        "{planned}"
    );
    let one_by_one = run_script(
        src,
        RunOptions {
            sized_planning: false,
            fuse_elementwise: false,
            ..RunOptions::default()
        },
    )
    .expect("runs");
    let (a, b) = (printed(&planned), numbers(&one_by_one));
    assert_eq!(a.len(), 5, "{planned}");
    // `1 / ±Inf` is a zero, and a zero annihilates the Inf of `V`: a finite sum.
    assert!(a[2].is_finite(), "{a:?}");
    assert!(a[3].is_nan(), "sum(A %*% B) holds Inf - Inf: {a:?}");
    for (k, (x, y)) in a.iter().zip(&b).enumerate() {
        assert!(same(*x, *y, 1e-9), "value {k}: {a:?} fused vs {b:?}");
    }
    // The same products as SystemDS's weighted divisions, and without `abs`: the
    // catalogue's operators.
    let src = src
        .replace("X * (1 / abs(U %*% t(V)))", "X / (U %*% t(V))")
        .replace("abs(U %*% t(V))", "(U %*% t(V))");
    let one_by_one = run_script(
        &src,
        RunOptions {
            sized_planning: false,
            fuse_elementwise: false,
            ..RunOptions::default()
        },
    )
    .expect("runs");
    let a = numbers(&one_by_one);
    assert!(a[2].is_finite(), "{a:?}");
    let optimized_out = run(&src, true);
    assert_contains(
        &optimized_out,
        &[
            "= mmchain(",
            "= sum_mm(",
            "= wdivmm_left(",
            "= wdivmm_right(",
        ],
    );
    let optimized = printed(&optimized_out);
    for (k, (x, y)) in a.iter().zip(&optimized).enumerate() {
        assert!(
            same(*x, *y, 1e-9),
            "value {k}: {a:?} vs {optimized:?} optimized"
        );
    }
}

/// Loops count in 64-bit integers, exactly above 2^53, whatever the type of the bounds.
#[test]
fn loops_count_exactly_beyond_two_to_the_fifty_three() {
    let printed = |src: &str| -> Vec<String> {
        let out = run_script(src, RunOptions::default()).expect("the loops run");
        out.lines().map(str::to_string).collect()
    };
    let big = ["9007199254740992", "9007199254740993", "9007199254740994"];
    let src = "for (i in 9007199254740992:9007199254740994) print(i)\nfor (i in 9223372036854775806:9223372036854775807) print(i)\n";
    assert_eq!(
        printed(src),
        [&big[..], &["9223372036854775806", "9223372036854775807"]].concat()
    );
    // Double bounds count in integers too, from the bounds truncated toward zero, as
    // SystemDS's loops do (the variable is an integer: `0.5:2` runs 0, 1, 2).
    let src = "for (i in 9007199254740992.0:9007199254740994.0) print(i)\n\
               for (k in 0.5:2) print(k)\nfor (k in -1.5:-0.5) print(k)\n";
    assert_eq!(
        printed(src),
        [&big[..], &["0", "1", "2", "-1", "0"]].concat()
    );
    let src = "for (k in seq(1, 3, 0.5)) print(k)\n";
    let err = run_script(src, RunOptions::default()).unwrap_err();
    let text = err.diagnostic().render("t.dml", src);
    assert!(
        text.contains("loop increment must be a non-zero integer, got 0.5"),
        "{text}"
    );
}

/// A NaN or infinite loop bound is an error naming it, as `seq` with one is, not a loop
/// that runs once.
#[test]
fn a_loop_bound_that_is_not_finite_is_an_error() {
    for (src, bound) in [
        ("for (i in seq(1, 0/0)) print(i)\n", "NaN"),
        ("for (i in 1:(1/0)) print(i)\n", "Infinity"),
        ("for (i in (0/0):3) print(i)\n", "NaN"),
    ] {
        let err = run_script(src, RunOptions::default()).unwrap_err();
        let text = err.diagnostic().render("t.dml", src);
        assert!(
            text.contains(&format!("loop bound must be a finite number, got {bound}")),
            "{src}: {text}"
        );
    }
}

/// A masked product whose cells become Inf inside the kernel (`X / 0` where a row of `W`
/// is zero): `t(W) %*% E` must skip the zeros of `W` as the product does (`0 * Inf = 0`).
/// (`abs` keeps the tree from being a weighted division, `wdivmm_left`.)
#[test]
fn a_masked_product_with_inf_cells_skips_zero_factors() {
    let src = "X = rand(rows=600, cols=500, sparsity=0.05, min=1, max=2, seed=4)
W = rand(rows=600, cols=3, min=-1, max=1, seed=5)
V = rand(rows=500, cols=3, min=-1, max=1, seed=6)
W[2,] = matrix(0, rows=1, cols=3)
while(FALSE){}
R = t(W) %*% (X * (1 / abs(W %*% t(V))))
while(FALSE){}
print(sum(R))
";
    let planned = planned(src);
    assert!(
        planned.contains("masked_left_mm[") || planned.contains("masked["),
        "{planned}"
    );
    let unfused = run_script(
        src,
        RunOptions {
            sized_planning: false,
            ..RunOptions::default()
        },
    )
    .expect("runs");
    let (a, b) = (printed(&planned), numbers(&unfused));
    assert_eq!(a.len(), 1, "{planned}");
    assert!(a[0].is_finite() && same(a[0], b[0], 1e-9), "{a:?} vs {b:?}");
}

/// A masked product the planner cannot compile (a scalar factor beside a `1 x 1`
/// matrix) runs as the product it stands for: a scalar 0 times a NaN matrix cell is 0
/// (the cell skips the zero), with and without the optimizer. Two scalars still multiply
/// as IEEE numbers.
#[test]
fn a_masked_product_of_a_scalar_and_a_one_by_one_matrix_skips_the_zero() {
    let src = "u = matrix(\"-2\", rows=1, cols=1)
while(FALSE){}
print(as.scalar(0 * log(u)))
print(as.scalar(0 * (1 / (u + 2))))
print(0 * as.scalar(log(u)))
";
    let (optimized, as_written) = (run(src, true), run(src, false));
    for out in [&optimized, &as_written] {
        let values = printed(out);
        assert_eq!(values.len(), 3, "{out}");
        assert_eq!(&values[..2], &[0.0, 0.0], "{out}");
        assert!(values[2].is_nan(), "{out}");
    }
}

/// `exp` inside `2 * exp(t(X) %*% X)` keeps the root as written; physical planning would
/// run the Gram matrix as a product, and the search limited to the exact rules chooses
/// `tsmm` (one triangle) by price for a tall dense `X`. It prints the `--no-opt` numbers,
/// also when `X` holds an Inf or a NaN (the kernel then evaluates its meaning as written).
#[test]
fn a_root_kept_as_written_is_fused_by_the_exact_search() {
    for (poison, finite) in [("", true), ("X[3,1] = 1/0", false), ("X[5,2] = 0/0", false)] {
        let src = format!(
            "X = rand(rows=2000, cols=40, min=-0.1, max=0.1, seed=1)
{poison}
while(FALSE){{}}
G = 2 * exp(t(X) %*% X)
while(FALSE){{}}
print(sum(G))
print(as.scalar(G[2,2]))
print(as.scalar(G[1,3]))
"
        );
        let out = run(&src, true);
        assert!(out.contains("kept as written"), "{poison}\n{out}");
        assert!(
            out.lines()
                .any(|l| l.trim_start().starts_with("=> ") && l.contains("tsmm(X)")),
            "{poison}\n{out}"
        );
        let (a, b) = (printed(&out), printed(&run(&src, false)));
        assert_eq!(a.len(), 3, "{out}");
        for (x, y) in a.iter().zip(&b) {
            assert!(same(*x, *y, 1e-9), "{poison}: {a:?} vs {b:?}");
        }
        assert_eq!(a.iter().all(|x| x.is_finite()), finite, "{poison}: {a:?}");
    }
}

/// Division is IEEE's in every cell, as SystemDS's: `0 / 0` is NaN. The texts are what
/// SystemDS 3.4 prints for the same script.
#[test]
fn zero_over_zero_is_nan_in_matrix_cells_as_in_systemds() {
    let src = "C = matrix(\"1 0 2 0 0 0 3 0 0\", 3, 3)
print(toString(C / rowSums(C)))
X = matrix(seq(1, 4), 2, 2)
print(toString((0 / (X - 2)) + 1))
print(toString(0 / C))
";
    let want = "0.333 0.000 0.667\nNaN NaN NaN\n1.000 0.000 0.000\n\n\
                1.000 NaN\n1.000 1.000\n\n\
                0.000 NaN 0.000\nNaN NaN NaN\n0.000 NaN NaN\n\n";
    for optimized in [false, true] {
        let out = run(src, optimized);
        let text: String = out
            .lines()
            .take_while(|l| !l.starts_with("--- block"))
            .map(|l| format!("{l}\n"))
            .collect();
        assert_eq!(text, want, "optimized {optimized}:\n{out}");
    }
}

/// SystemDS's weighted division: `t(W) %*% (X / (W %*% H))` divides at X's non-zeros
/// only, also without the optimizer, so a zero row of `W` (a zero row of `W %*% H`)
/// leaves the product finite, while the same quotient summed alone is a plain division
/// and shows the NaN of `0 / 0`, as SystemDS 3.4 prints.
#[test]
fn a_weighted_division_skips_zeros_and_a_plain_one_gives_nan() {
    let src = "X = rand(rows=60, cols=40, sparsity=0.1, min=1, max=2, seed=4)
W = rand(rows=60, cols=3, min=0.5, max=1, seed=5)
H = rand(rows=3, cols=40, min=0.5, max=1, seed=6)
W[7,] = matrix(0, 1, 3)
while(FALSE){}
G = t(W) %*% (X / (W %*% H))
s = sum(X / (W %*% H))
while(FALSE){}
print(sum(G))
print(s)
";
    let fused = planned(src);
    assert!(
        fused.contains("wdivmm_left") || fused.contains("masked_left_mm"),
        "{fused}"
    );
    for out in [fused, run(src, false)] {
        let values = printed(&out);
        assert_eq!(values.len(), 2, "{out}");
        assert!(
            values[0].is_finite() && values[1].is_nan(),
            "{values:?}\n{out}"
        );
    }
}
