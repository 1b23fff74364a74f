//! Lowering tensor-level MLIR to LLVM and running it with `mlir-cpu-runner-19`: how tests
//! check that an optimized program computes what the original does, and how the benchmark
//! times both.
//!
//! Programs follow the convention of `bench/mlir/gen.py`: `@main` prints its results and then
//! [`REPS`] lines with the time of each kernel call in seconds (from `rtclock`).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::normalize::{find_mlir_opt, RunError};

/// The passes from tensors and linalg (MLIR 19) down to the LLVM dialect.
pub const LOWERING: &[&str] = &[
    "--one-shot-bufferize=bufferize-function-boundaries",
    "--convert-linalg-to-loops",
    "--convert-scf-to-cf",
    "--expand-strided-metadata",
    "--lower-affine",
    "--finalize-memref-to-llvm",
    "--convert-math-to-llvm",
    "--convert-arith-to-llvm",
    "--convert-func-to-llvm",
    "--convert-cf-to-llvm",
    "--reconcile-unrealized-casts",
];

/// `mlir-opt`, `mlir-cpu-runner` and the runner's support libraries.
#[derive(Clone, Debug)]
pub struct Toolchain {
    pub mlir_opt: PathBuf,
    pub runner: PathBuf,
    /// `libmlir_runner_utils` and `libmlir_c_runner_utils`.
    pub libs: Vec<PathBuf>,
}

fn on_path(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(name))
            .find(|p| p.is_file())
    })
}

/// Finds the library `stem` (e.g. `libmlir_runner_utils.so`) in LLVM 19's library directory,
/// with or without a version suffix.
fn find_lib(stem: &str) -> Option<PathBuf> {
    let dir = Path::new("/usr/lib/llvm-19/lib");
    let exact = dir.join(stem);
    if exact.is_file() {
        return Some(exact);
    }
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(&format!("{stem}.")))
        })
        .collect();
    found.sort();
    found.pop()
}

/// The toolchain, if installed (Debian: `mlir-19-tools`, `libmlir-19`).
pub fn find_toolchain() -> Option<Toolchain> {
    let mlir_opt = find_mlir_opt()?;
    let runner = on_path("mlir-cpu-runner-19").or_else(|| {
        let p = PathBuf::from("/usr/lib/llvm-19/bin/mlir-cpu-runner");
        p.is_file().then_some(p)
    })?;
    let libs = vec![
        find_lib("libmlir_runner_utils.so")?,
        find_lib("libmlir_c_runner_utils.so")?,
    ];
    Some(Toolchain {
        mlir_opt,
        runner,
        libs,
    })
}

/// Why a tool of the toolchain gave no output.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    #[error(transparent)]
    Run(#[from] RunError),
    /// The tool ran and failed; `args` joined by spaces, and what it wrote to stderr.
    #[error("{} {args} failed: {stderr}", tool.display())]
    Failed {
        tool: PathBuf,
        args: String,
        stderr: String,
    },
}

/// Runs `tool args..` with `input` on stdin; returns stdout, or an error with stderr.
fn pipe(tool: &Path, args: &[&str], input: &str) -> Result<String, ToolError> {
    let mut command = Command::new(tool);
    command.args(args).stdout(Stdio::piped());
    let out = crate::normalize::run_with_input(command, tool, input)?;
    if !out.status.success() {
        return Err(ToolError::Failed {
            tool: tool.to_path_buf(),
            args: args.join(" "),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

impl Toolchain {
    /// `mlir-opt --canonicalize`, in generic form.
    pub fn canonicalize(&self, text: &str) -> Result<String, ToolError> {
        pipe(
            &self.mlir_opt,
            &["--canonicalize", "--mlir-print-op-generic", "-"],
            text,
        )
    }

    /// Lowers tensor/linalg/scf/arith/math/func code to the LLVM dialect.
    pub fn lower(&self, text: &str) -> Result<String, ToolError> {
        let mut args: Vec<&str> = LOWERING.to_vec();
        args.push("-");
        pipe(&self.mlir_opt, &args, text)
    }

    /// Runs lowered code's `@main` (JIT at -O3); returns what it prints.
    pub fn run(&self, lowered: &str) -> Result<String, ToolError> {
        let libs = self
            .libs
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(",");
        let shared = format!("-shared-libs={libs}");
        pipe(
            &self.runner,
            &["-e", "main", "-entry-point-result=void", "-O3", &shared],
            lowered,
        )
    }
}

/// How many times `bench/mlir/gen.py`'s programs call their kernel (one time line each).
pub const REPS: usize = 11;

/// Splits a program's output into its result text and the kernel times (the last `reps`
/// lines); `None` if those lines are not numbers.
pub fn split_times(output: &str, reps: usize) -> Option<(String, Vec<f64>)> {
    let lines: Vec<&str> = output.trim_end().lines().collect();
    let cut = lines.len().checked_sub(reps)?;
    let times = lines[cut..]
        .iter()
        .map(|l| l.trim().parse::<f64>().ok())
        .collect::<Option<Vec<f64>>>()?;
    Some((lines[..cut].join("\n"), times))
}

/// The median of some numbers (`NaN` for none).
pub fn median(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// The numbers in a program's printed results (memref headers skipped).
pub fn numbers(text: &str) -> Vec<f64> {
    text.lines()
        .filter(|l| !l.starts_with("Unranked Memref"))
        .flat_map(|l| {
            l.split(|c: char| c.is_whitespace() || "[],".contains(c))
                .filter_map(|w| w.parse::<f64>().ok())
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Where two result lists disagree (see [`agree`]).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum Disagreement {
    #[error("{left} numbers vs {right}")]
    Lengths { left: usize, right: usize },
    /// The first pair too far apart, at position `at`.
    #[error("number {at}: {left} vs {right}")]
    Number { at: usize, left: f64, right: f64 },
}

/// Whether two result lists agree: same length, each pair within `rel` relative error (or
/// both tiny).
pub fn agree(a: &[f64], b: &[f64], rel: f64) -> Result<(), Disagreement> {
    if a.len() != b.len() {
        return Err(Disagreement::Lengths {
            left: a.len(),
            right: b.len(),
        });
    }
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        let scale = x.abs().max(y.abs()).max(1e-30);
        if (x - y).abs() > rel * scale && (x - y).abs() > 1e-12 {
            return Err(Disagreement::Number {
                at: i,
                left: *x,
                right: *y,
            });
        }
    }
    Ok(())
}

/// The fewest multiply-adds a chain of matrix products with dimensions `d` (matrix `k` is
/// `d[k] x d[k+1]`) can be computed in: the textbook dynamic program over split points.
/// `None` for fewer than two dimensions.
pub fn optimal_chain_cost(d: &[u64]) -> Option<u64> {
    let n = d.len().checked_sub(1).filter(|&n| n > 0)?;
    let mut best = vec![vec![0u64; n]; n];
    for len in 2..=n {
        for i in 0..=n - len {
            let j = i + len - 1;
            best[i][j] = (i..j)
                .map(|k| best[i][k] + best[k + 1][j] + d[i] * d[k + 1] * d[j + 1])
                .min()?;
        }
    }
    Some(best[0][n - 1])
}
