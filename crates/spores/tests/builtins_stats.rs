//! Statistics, distributions and scalar builtins against SystemDS 3.4's printed values:
//! `var`/`sd` and their row/column forms, `median`/`quantile`/`moment` (also weighted),
//! `contains`,
//! `cdf`/`icdf` and the `p*`/`q*` shorthands, `round`, `%%`/`%/%`, casts, `xor`,
//! trigonometry and `isNaN`/`isInf`.

mod common;

use common::{assert_close, assert_fails, run_dml, run_numbers as run};

#[test]
fn variances_quantiles_and_moments() {
    let got = run(
        "stats.dml",
        r#"V = matrix("5 1 4 2 3", rows=5, cols=1)
print(var(V) + " " + sd(V) + " " + moment(V, 2) + " " + mean(V))
print(median(V) + " " + quantile(V, 0.25) + " " + quantile(V, 0.75) + " " + quantile(V, 0.2))
V4 = matrix("5 1 4 2", rows=4, cols=1)
print(median(V4) + " " + quantile(V4, 0.25) + " " + quantile(V4, 0.3) + " " + quantile(V4, 0.0) + " " + quantile(V4, 1.0))
print(toString(t(quantile(V4, matrix("0.25 0.3 0.5 1.0", rows=4, cols=1)))))
print(median(matrix("3 NaN 1", rows=3, cols=1)) + " " + median(matrix(7, rows=1, cols=1)))
A = matrix("4 1 2 1 3 0 2 0 5", rows=3, cols=3)
print(toString(colVars(A)) + toString(t(rowSds(A))))
print(toString(colSds(matrix("3 1 2 1 3 NaN 0 5", rows=4, cols=2))))
print(sd(matrix(4, rows=1, cols=1)) + " " + var(matrix("1 2", rows=1, cols=2)))
"#,
    );
    let nan = f64::NAN;
    assert_close(
        &got,
        &[
            2.5,
            1.5811388300841898,
            2.0,
            3.0, //
            3.0,
            2.0,
            4.0,
            1.0, //
            3.0,
            1.5,
            3.0,
            1.0,
            5.0, //
            1.,
            2.,
            2.,
            5., //
            nan,
            7.0, //
            2.333,
            2.333,
            6.333,
            1.528,
            1.528,
            2.517, //
            1.414,
            nan, //
            0.0,
            0.5,
        ],
        1e-12,
    );
    assert_fails(
        "quantile_p.dml",
        "print(quantile(matrix(\"1 2\", rows=2, cols=1), 1.5))\n",
        &["outside [0, 1]"],
    );
}

/// Weights are frequencies; SystemDS 3.4's values for the same script (its third and
/// fourth moments differ from these in the last digits: it accumulates incrementally).
#[test]
fn weighted_median_quantiles_and_moments() {
    let got = run(
        "weighted.dml",
        r#"A = matrix("3 1 4 1 5 9 2 6", 8, 1)
W = matrix("1 2 1 2 1 3 1 1", 8, 1)
print(moment(A, W, 2) + " " + moment(A, W, 3) + " " + moment(A, W, 4))
print(median(A, W) + " " + quantile(A, W, 0.3) + " " + quantile(A, W, 0) + " " + quantile(A, W, 1))
print(toString(t(quantile(A, W, matrix("0.25 0.5 0.75", 3, 1)))))
print(median(A, matrix(1, 8, 1)) + " " + median(A, matrix("1 1 2 2 1 1 1 1", 8, 1)))
"#,
    );
    assert_close(
        &got,
        &[
            10.020833333333334,
            14.718750000000009,
            167.60286458333337,
            3.5,
            1.5,
            1.0,
            9.0,
            1.0,
            3.0,
            6.0,
            3.5,
            3.5,
        ],
        1e-12,
    );
    assert_fails(
        "weights_whole.dml",
        "print(median(matrix(\"1 2\", 2, 1), matrix(\"0.5 1.5\", 2, 1)))\n",
        &["whole numbers", "0.5"],
    );
}

#[test]
fn contains_finds_values_nan_and_implicit_zeros() {
    let out = run_dml(
        "contains.dml",
        r#"X = matrix("3 1 2 1 3 NaN 0 5", rows=4, cols=2)
print(contains(target=X, pattern=NaN) + " " + contains(target=X, pattern=5) + " " + contains(target=X, pattern=7))
S = matrix(0, rows=10, cols=10)
S[2, 3] = 4
print(contains(target=S, pattern=0) + " " + contains(target=S, pattern=1/0) + " " + contains(target=S, pattern=4))
"#,
    )
    .unwrap();
    assert_eq!(out, "TRUE TRUE FALSE\nTRUE FALSE TRUE\n");
}

/// A row-vector pattern asks for a whole row; SystemDS 3.4 printed the same five values.
#[test]
fn contains_finds_a_row_dense_or_sparse() {
    let out = run_dml(
        "contains_row.dml",
        r#"A = matrix("1 2 3 4 5 6 0 0 0", 3, 3)
print(contains(target=A, pattern=matrix("4 5 6", 1, 3)))
print(contains(target=A, pattern=matrix("4 5 7", 1, 3)))
print(contains(target=A, pattern=matrix(0, 1, 3)))
S = matrix(0, 50, 4)
S[7, 2] = 3
print(contains(target=S, pattern=matrix("0 3 0 0", 1, 4)))
print(contains(target=S, pattern=matrix("0 3 1 0", 1, 4)))
"#,
    )
    .unwrap();
    assert_eq!(out, "TRUE\nFALSE\nTRUE\nTRUE\nFALSE\n");
    assert_fails(
        "contains_shape.dml",
        "print(contains(target=matrix(1, 3, 3), pattern=matrix(1, 1, 2)))\n",
        &["1x2 pattern for a 3x3 target"],
    );
}

#[test]
fn distributions_match_systemds() {
    // One call per statement: SystemDS 3.4 fails on several in one expression.
    let got = run(
        "dist.dml",
        r#"print(pnorm(target=1.5))
print(qnorm(target=0.9))
print(pchisq(target=3.0, df=2))
print(pchisq(target=3.0, df=2, lower.tail=FALSE))
print(pnorm(target=-1.5, mean=2, sd=3))
print(cdf(target=2.0, dist="t", df=5))
print(pf(target=2.0, df1=3, df2=10))
print(pexp(target=1.0, rate=2))
print(qexp(target=0.5, rate=2))
print(qchisq(target=0.95, df=3))
print(qt(target=0.9, df=4))
print(icdf(target=0.95, dist="f", df1=3, df2=10))
"#,
    );
    assert_close(
        &got,
        &[
            0.9331927987311419,
            1.2815515655446008,
            0.7768698398515697,
            0.22313016014843035,
            0.12167250457438139,
            0.9490302605850709,
            0.8219925926248239,
            0.8646647167633873,
            0.34657359027997264,
            7.814727903124902,
            1.533206274060945,
            3.708264819047024,
        ],
        // SystemDS inverts these cdfs with a root finder of absolute accuracy 1e-9.
        1e-9,
    );
    assert_fails(
        "dist_df.dml",
        "print(cdf(target=1, dist=\"chisq\"))\n",
        &["needs df"],
    );
    assert_fails(
        "dist_name.dml",
        "print(cdf(target=1, dist=\"gamma\"))\n",
        &["unknown distribution"],
    );
}

#[test]
fn scalar_semantics_as_systemds() {
    let out = run_dml(
        "scalars.dml",
        r#"a = -7
b = -7.5
print((a %% 3) + " " + (a %/% 2) + " " + (b %% 2) + " " + (b %/% 2) + " " + (7 %% -3))
print(toString(matrix("-5 5 -5 5.5", rows=2, cols=2) %% matrix("3 -3 -3 2", rows=2, cols=2)))
print(toString(round(matrix("-2.5 2.5 -0.5 0.5 1.5 -1.5", rows=2, cols=3))))
print(round(2.5) + " " + round(-2.5) + " " + floor(-1.5) + " " + ceil(-1.5) + " " + sign(-3))
print(as.integer(3.7) + " " + as.integer(-3.7) + " " + as.double(3) + " " + as.logical(2) + " " + as.logical(0))
print(as.integer("12") + " " + as.double("1.5") + " " + as.logical("TRUE") + " " + as.logical("false"))
print(xor(TRUE, FALSE) + " " + xor(TRUE, TRUE))
print(toString(xor(matrix("1 0 1", rows=1, cols=3), matrix("1 1 0", rows=1, cols=3))))
print(max(3, 7, 5) + " " + min(3, 7, 5) + " " + max(2, 3.5) + " " + min(4.0, 2))
"#,
    )
    .unwrap();
    assert_eq!(
        out,
        "-1 -3 -1.5 -3.0 1\n-2.000 2.000\n-2.000 1.500\n\n-2.000 3.000 0.000\n1.000 2.000 -1.000\n\n\
         3.0 -2.0 -2.0 -1.0 -1.0\n3 -3 3.0 TRUE FALSE\n12 1.5 TRUE FALSE\nTRUE FALSE\n0.000 1.000 1.000\n\n\
         7 3 3.5 2.0\n"
    );
}

#[test]
fn round_is_a_java_long_as_in_systemds() {
    // The numbers SystemDS 3.4 printed: NaN rounds to 0 and +-Inf saturates at +-2^63, so a loop
    // halving `round(x)` until it is 0 ends (SystemDS's `glm` prints with such a loop, and
    // meets NaN when a Newton step is exactly zero).
    let out = run_dml(
        "round.dml",
        r#"x = 0 / 0
print(round(x) + " " + round(1 / 0) + " " + round(-1 / 0) + " " + round(1e300))
print(toString(t(round(matrix("-1 1 0 1e300", rows=4, cols=1) / 0))))
res = abs(round(log(abs(x)) / log(10.0) - 0.5))
steps = 0
while (res != 0 & steps < 100) {
  res = round(res / 2.0 - 0.3)
  steps = steps + 1
}
print("steps " + steps)
"#,
    )
    .unwrap();
    assert_eq!(
        out,
        "0.0 9.223372036854776E18 -9.223372036854776E18 9.223372036854776E18\n\
         -9223372036854775808.000 9223372036854775808.000 0.000 9223372036854775808.000\n\n\
         steps 0\n"
    );
}

#[test]
fn trigonometry_and_special_values() {
    let got = run(
        "trig.dml",
        r#"print(atan(1) + " " + tan(1) + " " + asin(0.5) + " " + acos(0.5) + " " + sinh(1) + " " + cosh(1) + " " + tanh(1) + " " + sin(1) + " " + cos(1))
print(toString(isNaN(matrix("1 NaN 0 3", rows=2, cols=2))) + toString(is.na(matrix("NaN", rows=1, cols=1))))
print(toString(isInf(matrix("1 Infinity -Infinity NaN", rows=2, cols=2))))
print(sum(-Inf == matrix("-Infinity 0", rows=1, cols=2)))
"#,
    );
    assert_close(
        &got,
        &[
            // What SystemDS printed: pi/4, tan(1), pi/6, pi/3, ...
            std::f64::consts::FRAC_PI_4,
            1.5574077246549023,
            std::f64::consts::FRAC_PI_6,
            std::f64::consts::FRAC_PI_3,
            1.1752011936438014,
            1.5430806348152437,
            0.7615941559557649,
            0.8414709848078965,
            0.5403023058681398,
            0.,
            1.,
            0.,
            0.,
            1.,
            0.,
            1.,
            1.,
            0.,
            1.,
        ],
        1e-15,
    );
}

#[test]
fn covariance_of_two_vectors_with_and_without_weights() {
    // Worked by hand: deviations from the means 5 and 2.8 give 13 / (5 - 1); with the
    // weights as frequencies, means 41/8 and 17/8 give 11.875 / (8 - 1); cov(x, x) = var(x).
    let got = run(
        "cov.dml",
        r#"x = matrix("1 2 4 7 11", rows=5, cols=1)
y = matrix("3 1 4 1 5", rows=5, cols=1)
w = matrix("1 2 1 3 1", rows=5, cols=1)
print(cov(x, y) + " " + cov(x, y, w) + " " + cov(x=x, y=x))
"#,
    );
    assert_close(&got, &[3.25, 11.875 / 7.0, 16.5], 1e-12);
    assert_fails(
        "cov_bad.dml",
        "print(cov(matrix(1, rows=3, cols=1), matrix(1, rows=4, cols=1)))\n",
        &["3 and 4 rows"],
    );
}

#[test]
fn products_recurrences_and_inter_quartile_means() {
    // Values printed by SystemDS 3.4.
    let got = run(
        "prod.dml",
        r#"print(prod(matrix("1 2 3 4", rows=2, cols=2)) + " " + prod(matrix("1 2 3 4 0 7", rows=3, cols=2)))
print(toString(t(cumsumprod(matrix("1 2 3 4 5 6 7 8", rows=4, cols=2)))))
x = matrix("3 1 4 1 5 9 2 6 5 3", rows=10, cols=1)
w = matrix("1 2 1 1 3 1 2 1 1 1", rows=10, cols=1)
print(interQuartileMean(x) + " " + interQuartileMean(rbind(x, matrix(7, rows=1, cols=1))) + " " + interQuartileMean(x, w))
print(toString(t(table(matrix("1.6 2.2 2.9 1.4 3.999 1.0 NaN", rows=7, cols=1), 1))))
"#,
    );
    assert_close(
        &got,
        &[
            24.0,
            0.0,
            1.0,
            7.0,
            47.0,
            383.0,
            3.7,
            4.0,
            3.642857142857143,
            3.0,
            2.0,
            1.0,
        ],
        1e-12,
    );
}

#[test]
fn a_comparison_compared_to_zero_is_its_complement() {
    // SystemDS rewrites `(X < 1) == 0` into `X >= 1`, so NaN cells give 0 (it printed
    // these); `!(X < 1)` keeps IEEE semantics.
    let got = run(
        "complement.dml",
        r#"X = matrix("1 NaN 2 0.5", rows=4, cols=1)
print(toString(t((X < 1) == 0)))
print(toString(t((X > 1) == 0)))
print(toString(t((X == 1) == 0)))
print(toString(t(!(X < 1))))
s = as.scalar(X[2, 1])
print(as.double((s < 1) == 0))
"#,
    );
    assert_close(
        &got,
        &[
            1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0,
        ],
        0.0,
    );
}
