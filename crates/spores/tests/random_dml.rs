//! DML `rand` and `sample` with a seed print what SystemDS 3.4 printed for the same
//! script (recorded from `bench/systemds.sh`); unseeded calls stay independent.

use spores_dml::opt::SporesOptimizer;
use spores_dml::{run_script, RunOptions};

const SCRIPT: &str = r#"
f = function(Integer s) return (Matrix[Double] X) {
  X = rand(rows=2, cols=3, min=-1, max=1, seed=s)
}
X = rand(rows=3, cols=4, seed=7)
print(as.scalar(X[1,1]))
print(as.scalar(X[3,4]))
S = rand(rows=1500, cols=1200, sparsity=0.1, seed=7)
print(as.scalar(S[1001,1009]))
print(as.scalar(S[1001,1026]))
N = rand(rows=20, cols=10, pdf="normal", seed=42)
print(as.scalar(N[20,10]))
P = rand(rows=20, cols=10, pdf="poisson", lambda=3, seed=1234567)
print(sum(P))
print(toString(t(sample(100, 10, FALSE, 7))))
print(toString(t(sample(10, 5, 42))))
print(toString(t(sample(100, 10, TRUE, 42))))
Z = f(1234567)
print(as.scalar(Z[2,3]))
for (i in 1:2) {
  Y = rand(rows=1, cols=3, seed=7 + i)
  print(as.scalar(Y[1,2]))
}
A = rand(rows=2, cols=2)
B = rand(rows=2, cols=2)
print(sum(A != B))
C = rand(rows=2, cols=2, seed=-1)
D = rand(rows=2, cols=2, seed=-1)
print(sum(C != D))
W = Rand(rows=2, cols=2, min=3, max=1, seed=7)
print(as.scalar(W[2,2]))
"#;

/// SystemDS 3.4's output for [`SCRIPT`].
const SYSTEMDS_OUTPUT: &str = "0.45324353322292277\n\
0.07199184891923938\n\
0.9849498468553316\n\
0.9857819432011607\n\
-1.073935934123244\n\
640.0\n\
4.000 23.000 18.000 45.000 51.000 25.000 8.000 99.000 94.000 19.000\n\
\n\
6.000 8.000 5.000 3.000 2.000\n\
\n\
76.000 73.000 96.000 98.000 27.000 37.000 73.000 61.000 93.000 68.000\n\
\n\
-0.12640599711501932\n\
0.8254084253013003\n\
0.29598992985029793\n\
4.0\n\
4.0\n\
1.8067278805371962\n\
";

/// The line holding a normal deviate, which may differ from SystemDS's in its last bit.
const NORMAL_LINE: usize = 4;

fn run(options: RunOptions) -> String {
    run_script(SCRIPT, options)
        .unwrap_or_else(|e| panic!("{}", e.diagnostic().render("random.dml", SCRIPT)))
}

fn assert_like_systemds(out: &str) {
    let ours: Vec<&str> = out.lines().collect();
    let theirs: Vec<&str> = SYSTEMDS_OUTPUT.lines().collect();
    assert_eq!(ours.len(), theirs.len(), "spores printed:\n{out}");
    for (k, (a, b)) in ours.iter().zip(&theirs).enumerate() {
        for (x, y) in a.split_whitespace().zip(b.split_whitespace()) {
            let (x, y): (f64, f64) = (x.parse().unwrap(), y.parse().unwrap());
            let tolerance = if k == NORMAL_LINE {
                4.0 * f64::EPSILON * y.abs()
            } else {
                0.0
            };
            assert!(
                (x - y).abs() <= tolerance,
                "line {}: spores {a:?}, SystemDS {b:?}",
                k + 1
            );
        }
    }
}

#[test]
fn seeded_rand_and_sample_print_systemds_numbers() {
    assert_like_systemds(&run(RunOptions::default()));
}

#[test]
fn with_the_spores_optimizer_too() {
    // A zero cost threshold sends every subgraph through saturation.
    let mut spores = SporesOptimizer::new(Default::default());
    spores.min_cost(0.0);
    let options = RunOptions {
        optimizer: Box::new(spores),
        ..RunOptions::default()
    };
    assert_like_systemds(&run(options));
}

#[test]
fn unseeded_calls_differ_between_runs() {
    let src = "X = rand(rows=3, cols=3, pdf=\"normal\")\nprint(toString(X, decimal=17))\n";
    let a = run_script(src, RunOptions::default()).unwrap();
    let b = run_script(src, RunOptions::default()).unwrap();
    assert_ne!(a, b);
}

#[test]
fn bad_rand_arguments_are_located_errors() {
    let src = "X = rand(rows=2, cols=2, pdf=\"cauchy\", seed=1)\nprint(sum(X))\n";
    let message = match run_script(src, RunOptions::default()) {
        Err(e) => e.diagnostic().render("bad.dml", src),
        Ok(out) => panic!("expected an error, got {out:?}"),
    };
    assert!(message.contains("bad.dml:1:5"), "{message}");
    assert!(message.contains("\"cauchy\" is not supported"), "{message}");
    let src = "X = rand(rows=1000000, cols=1000000, seed=1)\nprint(sum(X))\n";
    let message = match run_script(src, RunOptions::default()) {
        Err(e) => e.diagnostic().render("huge.dml", src),
        Ok(out) => panic!("expected an error, got {out:?}"),
    };
    assert!(message.contains("1000000x1000000"), "{message}");
}
