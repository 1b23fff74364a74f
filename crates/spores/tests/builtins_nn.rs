//! The image builtins of SystemDS's `nn` library where the conformance driver `nn_layers`
//! (`tests/systemds_builtins`) cannot compare with SystemDS: the moving average of the
//! variance, which SystemDS 3.4 moves by the batch mean (its defect), and bad arguments.

mod common;

use common::{assert_close, assert_fails, run_numbers as run};

#[test]
fn batch_norm_moves_the_variance_average_by_the_batch_variance() {
    // SystemDS 3.4 prints 1.0743 and 0.8186 for `v_upd` here: 0.9 * ema_var + 0.1 * mean.
    let got = run(
        "bn.dml",
        r#"X = rand(rows=3, cols=12, min=-2, max=3, seed=5)
g = matrix("1.5 0.5", rows=2, cols=1)
b = matrix("0.25 -1", rows=2, cols=1)
m = matrix("0.1 -0.2", rows=2, cols=1)
v = matrix("1.2 0.8", rows=2, cols=1)
[out, m_upd, v_upd, cm, civ] = batch_norm2d(X, g, b, m, v, "train", 1e-5, 0.9)
means = rbind(as.matrix(mean(X[, 1:6])), as.matrix(mean(X[, 7:12])))
print(toString(t(v_upd), decimal=12))
print(toString(t(0.9 * v + 0.1 * (1 / civ^2 - 1e-5)), decimal=12))
print(toString(t(cm - means), decimal=12))
"#,
    );
    assert_close(&got[..2], &[1.221425525515686, 0.979844879675876], 1e-12);
    assert_close(&got[2..4], &got[..2], 1e-12);
    assert_close(&got[4..], &[0.0, 0.0], 1e-12);
}

#[test]
fn bad_sizes_and_modes_are_errors_that_say_what_is_wrong() {
    let images = "X = matrix(1, rows=2, cols=18)\n";
    assert_fails(
        "conv_filter.dml",
        &format!(
            "{images}W = matrix(1, rows=3, cols=9)\n\
             Y = conv2d(X, W, input_shape=[2,2,3,3], filter_shape=[3,2,2,2], stride=[1,1], padding=[0,0])\n\
             print(sum(Y))\n"
        ),
        &["conv2d", "3x9", "3x8"],
    );
    assert_fails(
        "pool_stride.dml",
        &format!(
            "{images}Y = max_pool(X, input_shape=[2,2,3,3], pool_size=[2,2], stride=[0,1], padding=[0,0])\n\
             print(sum(Y))\n"
        ),
        &["stride must be positive"],
    );
    assert_fails(
        "pool_window.dml",
        &format!(
            "{images}Y = avg_pool(X, input_shape=[2,2,3,3], pool_size=[4,4], stride=[1,1], padding=[0,0])\n\
             print(sum(Y))\n"
        ),
        &["4x4 window", "3x3 image"],
    );
    assert_fails(
        "pool_shape.dml",
        &format!(
            "{images}Y = max_pool(X, input_shape=[2,2,3], pool_size=[2,2], stride=[1,1], padding=[0,0])\n\
             print(sum(Y))\n"
        ),
        &["input_shape", "4 sizes", "1x3"],
    );
    assert_fails(
        "bn_mode.dml",
        &format!(
            "{images}g = matrix(1, rows=2, cols=1)\n\
             [o, a, b, c, d] = batch_norm2d(X, g, g, g, g, \"eval\", 1e-5, 0.9)\n\
             print(sum(o))\n"
        ),
        &["mode", "\"eval\""],
    );
}

/// SystemDS 3.4 fails on both calls its own `lstm_staging` layer makes (two results of
/// `lstm`, `lstm_backward` without the caches); spores takes the first results, and runs
/// the forward pass again for the caches.
#[test]
fn lstm_gives_its_first_results_and_a_backward_pass_without_caches() {
    let got = run(
        "lstm.dml",
        r#"X = rand(rows=3, cols=20, min=-1, max=1, seed=11)
W = rand(rows=6, cols=8, min=-0.5, max=0.5, seed=12)
b = rand(rows=1, cols=8, min=-0.1, max=0.1, seed=13)
h = rand(rows=3, cols=2, min=-0.3, max=0.3, seed=14)
c = rand(rows=3, cols=2, min=-0.3, max=0.3, seed=15)
[out, last, co, cc, ci] = lstm(X, W, b, h, c, TRUE)
[out2, last2] = lstm(X, W, b, h, c, TRUE)
dout = rand(rows=3, cols=10, min=-1, max=1, seed=16)
dc = rand(rows=3, cols=2, min=-1, max=1, seed=17)
[dX, dW, db, dh, dc0] = lstm_backward(X, W, b, h, c, TRUE, dout, dc, co, cc, ci)
[dX2, dW2, db2, dh2, dc02] = lstm_backward(X, W, b, h, c, TRUE, dout, dc)
print(sum(abs(out - out2)) + sum(abs(last - last2)))
print(sum(abs(dX - dX2)) + sum(abs(dW - dW2)) + sum(abs(db - db2)) + sum(abs(dh - dh2)) + sum(abs(dc0 - dc02)))
print(sum(out) + " " + sum(dW^2))
"#,
    );
    // The sums SystemDS printed for the same call with caches (driver `nn_layers`).
    assert_close(
        &got,
        &[0.0, 0.0, 0.3553883137863837, 1.3088191438363224],
        1e-12,
    );
}

/// Sizes past what memory or `usize` holds, and caches given in part, are errors that say
/// so, never a panic or a silently dropped argument.
#[test]
fn absurd_sizes_and_partial_caches_are_errors() {
    assert_fails(
        "huge_padding.dml",
        "X = matrix(1, rows=1, cols=4)\n\
         Y = max_pool(X, input_shape=[1,1,2,2], pool_size=[2,2], stride=[1,1], padding=[1e300,0])\n\
         print(sum(Y))\n",
        &["max_pool", "too large"],
    );
    let budget = common::run_dml_with(
        "over_budget.dml",
        "X = matrix(1, rows=1, cols=4)\n\
         Y = avg_pool(X, input_shape=[1,1,2,2], pool_size=[1,1], stride=[1,1], padding=[2000,2000])\n\
         print(sum(Y))\n",
        &["--memory", "1M"],
    )
    .unwrap_err();
    assert!(
        budget.contains("avg_pool") && budget.contains("memory budget"),
        "{budget}"
    );
    let lstm = "X = matrix(1, rows=2, cols=6)\nW = matrix(0.1, rows=5, cols=8)\n\
                b = matrix(0, rows=1, cols=8)\nh = matrix(0, rows=2, cols=2)\n\
                [o, c, co, cc, ci] = lstm(X, W, b, h, h, TRUE)\nd = matrix(1, rows=2, cols=6)\n";
    assert_fails(
        "lstm_gap.dml",
        &format!("{lstm}[dX, dW, db, dh, dc] = lstm_backward(X, W, b, h, h, TRUE, d, h, cache_c=cc)\nprint(sum(dX))\n"),
        &["lstm_backward", "cache_c", "cache_out"],
    );
    assert_fails(
        "lstm_part.dml",
        &format!("{lstm}[dX, dW, db, dh, dc] = lstm_backward(X, W, b, h, h, TRUE, d, h, co)\nprint(sum(dX))\n"),
        &["cache_out, cache_c and cache_ifog together"],
    );
}
