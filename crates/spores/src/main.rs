//! The `spores` command line.

use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand};

mod ballista_cli;
use spores_dml::runtime::{Interpreter, RunOptions};

/// Kernels write every result into a fresh buffer. glibc's allocator hands large buffers
/// back to the OS on free and maps them anew on the next allocation, so each result paid
/// its size in page faults again (70 thousand per run of `examples/als.dml`, against 300
/// with mimalloc, which keeps freed memory for reuse).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "spores",
    version,
    about = "Optimize and run linear-algebra programs"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Log what the optimizers and engines do to stderr: `-v` one line per optimization,
    /// `-vv` saturation steps and kernels, `-vvv` everything. `RUST_LOG` (e.g.
    /// `RUST_LOG=spores_opt=debug`) takes precedence.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    verbose: u8,
}

/// Logs to stderr at the level `-v` asks for, unless `RUST_LOG` says otherwise.
fn init_logging(verbose: u8) {
    let level = match verbose {
        0 => log::LevelFilter::Warn,
        1 => log::LevelFilter::Info,
        2 => log::LevelFilter::Debug,
        _ => log::LevelFilter::Trace,
    };
    let mut builder = env_logger::Builder::new();
    // Only our crates: egglog and the solver log their own internals at debug level.
    for krate in [
        "spores",
        "spores_dml",
        "spores_opt",
        "spores_mlir",
        "spores_tensor",
        "spores_exec",
    ] {
        builder.filter_module(krate, level);
    }
    builder.filter_level(log::LevelFilter::Warn);
    if let Ok(spec) = std::env::var("RUST_LOG") {
        builder.parse_filters(&spec);
    }
    builder.init();
}

#[derive(Subcommand)]
enum Command {
    /// Run a DML script.
    Run(RunFlags),
    /// Convert a matrix file to another format, each told by its extension (.mtx/.mm,
    /// .csv, .npy, .parquet); the output is written atomically.
    ///
    /// Parquet files are COO tables `(i, j, v)` with 0-based indices (builds with the
    /// `datafusion` feature). Exit code 0, 1 when reading or writing fails, 2 for an
    /// unknown extension.
    Convert {
        /// The matrix file to read.
        input: PathBuf,
        /// The file to write (replaced if it exists).
        output: PathBuf,
    },
    /// Parse DML files and load the files they source, without running anything.
    ///
    /// Prints each file's first error; exit code 0 when all load, 2 otherwise.
    Check {
        /// The files to check.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Print the cheapest equivalent plan of an LA expression, its estimated cost before
    /// and after, and the saturation report.
    Optimize {
        /// The expression, in DML syntax, e.g. `sum((X - U %*% t(V))^2)` (may begin with `-`).
        #[arg(allow_hyphen_values = true)]
        expr: String,
        #[command(flatten)]
        inputs: InputFlags,
        /// User rewrite rules (egglog) added to the shipped ones.
        #[arg(long, value_name = "FILE.egg")]
        rules: Option<PathBuf>,
        /// Stop saturating after this many iterations.
        #[arg(long, default_value_t = 8)]
        iter_limit: usize,
        /// Stop saturating when the e-graph has this many e-nodes.
        #[arg(long, default_value_t = 2000)]
        node_limit: usize,
        /// A safety net: stop saturating after this many milliseconds, even if the work
        /// budget (iterations, e-nodes) is not spent. The work budget decides the search.
        #[arg(long, default_value_t = 5000)]
        time_limit_ms: u64,
        /// Plan extraction: `greedy`, `ilp` (optimal, shared subexpressions paid once,
        /// 500 ms budget then greedy) or `ilp:MS` for another budget.
        #[arg(long, default_value = "greedy")]
        extractor: spores_opt::extract::Extractor,
        /// Only the rewrites that hold when values are NaN or Inf (which operators run
        /// fused), as for a root `spores run` keeps as written.
        #[arg(long)]
        exact: bool,
    },
    /// Decide whether two LA expressions are equal for all inputs of the given shapes.
    ///
    /// Exit code 0: equivalent; 1: not equivalent (a witness input is printed);
    /// 2: usage or parse error; 3: undecided (only opaque functions differ).
    Equiv {
        /// Left-hand side, in DML syntax, e.g. `sum(W %*% H)` (may begin with `-`).
        #[arg(allow_hyphen_values = true)]
        lhs: String,
        /// Right-hand side.
        #[arg(allow_hyphen_values = true)]
        rhs: String,
        #[command(flatten)]
        inputs: InputFlags,
        /// An input positive in every cell, where `log`, `sqrt` and division are defined
        /// (repeatable).
        #[arg(long, value_name = "NAME")]
        positive: Vec<String>,
        /// A cut point `k` of a symbolic dimension `m`, written `k<m`: `k` stands for every
        /// size with 1 <= k < m, and may bound an index or a `seq` (`A[1:k, ]`,
        /// `A[(k+1):nrow(A), ]`) or stand as a number (repeatable, one cut per dimension).
        #[arg(long = "size", value_name = "NAME<DIM")]
        cuts: Vec<String>,
    },
    /// MLIR tools (`spores mlir opt IN.mlir --rules R.egg`).
    #[command(subcommand)]
    Mlir(spores::commands::MlirCommand),
    /// Optimize and run a sparse tensor program (tensor index notation, Galley-style).
    ///
    /// Exit code 0: success; 1: the program failed while running; 2: usage or parse error.
    Tensor(TensorFlags),
    /// Ballista helpers (builds with the `ballista` feature).
    #[command(subcommand)]
    Ballista(ballista_cli::BallistaCommand),
}

/// What is known about the inputs of an expression.
#[derive(clap::Args)]
struct InputFlags {
    /// Shape of an input; sizes are numbers or symbols, e.g. `X=mxn`, `u=mx1` (repeatable).
    #[arg(long = "shape", value_name = "NAME=ROWSxCOLS")]
    shapes: Vec<String>,
    /// Number of non-zeros of an input; `X=0` marks X as all zeros (repeatable).
    #[arg(long = "nnz", value_name = "NAME=N")]
    nnz: Vec<String>,
    /// An input that is a scalar (repeatable).
    #[arg(long = "scalar", value_name = "NAME")]
    scalars: Vec<String>,
}

impl InputFlags {
    fn into_args(self) -> spores::commands::InputArgs {
        spores::commands::InputArgs {
            shapes: self.shapes,
            nnz: self.nnz,
            scalars: self.scalars,
            positive: Vec::new(),
            cuts: Vec::new(),
        }
    }
}

fn parse_key_value(s: &str) -> Result<(String, String), String> {
    let (k, v) = s
        .split_once('=')
        .ok_or_else(|| format!("expected NAME=VALUE, got `{s}`"))?;
    if k.is_empty() {
        return Err(format!("empty argument name in `{s}`"));
    }
    Ok((k.to_string(), v.to_string()))
}

/// The user rule file, if one was given, checked as `spores mlir opt` checks its own
/// (refused commands, includes); an unreadable or refused file is reported (naming the
/// file, and the line) and gives the usage exit code.
fn read_rules(
    path: Option<&std::path::Path>,
) -> Result<Option<spores_opt::saturate::RulesFile>, ExitCode> {
    path.map(|p| {
        spores_opt::saturate::RulesFile::read(p).map_err(|e| {
            eprintln!("error: {e}");
            ExitCode::from(2)
        })
    })
    .transpose()
}

/// Saturation options with the user rule file (see [`read_rules`]) and `extractor`.
fn saturation_options(
    rules: Option<&std::path::Path>,
    extractor: spores_opt::extract::Extractor,
) -> Result<spores_opt::saturate::OptimizeOptions, ExitCode> {
    Ok(spores_opt::saturate::OptimizeOptions {
        extractor,
        extra_rules: read_rules(rules)?,
        ..Default::default()
    })
}

/// More kernel threads than any machine we run on has cores: beyond this, `--threads` is a
/// typo, and honouring it would spend seconds creating threads.
const MAX_THREADS: u64 = 1024;

/// Stack of the thread that runs a command. Deep inputs recurse deeply in the readers,
/// the optimizers and the printers (a straight chain of 10,000 dependent MLIR ops needs
/// more than the 8 MB a main thread gets), and DML scripts need [`spores_dml::STACK_BYTES`]
/// (10,000 nested calls, 50,000-operator expressions); the memory is reserved, not
/// committed, so only what a run really uses is touched.
const STACK_BYTES: usize = 1 << 30;
const _: () = assert!(STACK_BYTES >= spores_dml::STACK_BYTES);

/// Exit codes: 0 success, 1 the script failed while running, 2 usage or parse error.
fn main() -> ExitCode {
    let worker = std::thread::Builder::new()
        .name("spores".into())
        .stack_size(STACK_BYTES)
        .spawn(command);
    match worker.map(std::thread::JoinHandle::join) {
        Ok(Ok(code)) => code,
        Ok(Err(panic)) => std::panic::resume_unwind(panic),
        // No thread with a big stack: run on this one.
        Err(_) => command(),
    }
}

fn command() -> ExitCode {
    let cli = Cli::parse();
    init_logging(cli.verbose);
    match cli.command {
        Command::Run(flags) => run(flags),
        Command::Ballista(command) => ballista_cli::run(command),
        Command::Convert { input, output } => {
            let (mut out, mut err) = (std::io::stdout(), std::io::stderr());
            ExitCode::from(spores::commands::convert(
                &input, &output, &mut out, &mut err,
            ))
        }
        Command::Check { files } => {
            let mut err = std::io::stderr();
            ExitCode::from(spores::commands::check(&files, &mut err))
        }
        Command::Mlir(cmd) => {
            let (mut out, mut err) = (std::io::stdout(), std::io::stderr());
            ExitCode::from(spores::commands::mlir(&cmd, &mut out, &mut err))
        }
        Command::Optimize {
            expr,
            inputs,
            rules,
            iter_limit,
            node_limit,
            time_limit_ms,
            extractor,
            exact,
        } => {
            let options = match saturation_options(rules.as_deref(), extractor) {
                Ok(options) => spores_opt::saturate::OptimizeOptions {
                    iter_limit,
                    node_limit,
                    time_limit: std::time::Duration::from_millis(time_limit_ms),
                    exact,
                    ..options
                },
                Err(code) => return code,
            };
            let (mut out, mut err) = (std::io::stdout(), std::io::stderr());
            ExitCode::from(spores::commands::optimize(
                &expr,
                &inputs.into_args(),
                &options,
                &mut out,
                &mut err,
            ))
        }
        Command::Tensor(flags) => {
            // Before the engine is made: a relational engine's memory pool is the budget.
            if let Some(bytes) = flags.memory {
                spores_exec::memory::set_budget(bytes);
            }
            let args = spores::commands::TensorArgs {
                program: flags.program,
                inputs: flags
                    .inputs
                    .into_iter()
                    .map(|(n, p)| (n, PathBuf::from(p)))
                    .collect(),
                optimizer: flags.optimizer,
                estimator: flags.estimator,
                explain: flags.explain,
                stats: flags.stats,
                out_dir: flags.out_dir,
                engine: None,
            };
            if matches!(flags.engine, EngineChoice::Auto) {
                eprintln!(
                    "error: --engine auto is for `spores run`; tensor programs run on one engine"
                );
                return ExitCode::from(2);
            }
            let args = match relational_engine(flags.engine, None) {
                Ok(engine) => spores::commands::TensorArgs { engine, ..args },
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            };
            let (mut out, mut err) = (std::io::stdout(), std::io::stderr());
            ExitCode::from(spores::commands::tensor(&args, &mut out, &mut err))
        }
        Command::Equiv {
            lhs,
            rhs,
            inputs,
            positive,
            cuts,
        } => {
            let (mut out, mut err) = (std::io::stdout(), std::io::stderr());
            let mut inputs = inputs.into_args();
            inputs.positive = positive;
            inputs.cuts = cuts;
            ExitCode::from(spores::commands::equiv(
                &lhs, &rhs, &inputs, &mut out, &mut err,
            ))
        }
    }
}

/// The flags of `spores tensor`.
#[derive(clap::Args)]
struct TensorFlags {
    /// The program file (tensor index notation).
    program: PathBuf,
    /// An input tensor file: .mtx, .npy, .tns (FROSTT) or an edge list (repeatable).
    #[arg(long = "input", value_name = "NAME=PATH", value_parser = parse_key_value)]
    inputs: Vec<(String, String)>,
    /// Sparsity estimator of the optimizers: `uniform` or `chain`.
    #[arg(long, default_value = "chain")]
    estimator: spores_tensor::driver::EstimatorChoice,
    /// `greedy`, `exact` (branch and bound) or `naive` (no optimization).
    #[arg(long, default_value = "greedy")]
    optimizer: spores_tensor::driver::Optimizer,
    /// Print the logical and physical plans.
    #[arg(long)]
    explain: bool,
    /// Print optimization and execution times.
    #[arg(long)]
    stats: bool,
    /// Write every non-scalar output to DIR (NAME.mtx, or NAME.tns above order 2).
    #[arg(short = 'o', value_name = "DIR")]
    out_dir: Option<PathBuf>,
    /// Which engine runs the program: `local` (the fibertree engine, on the physical plan),
    /// `datafusion` (each query of the optimized logical plan as an Apache DataFusion
    /// query; needs a build with the `datafusion` feature) or `ballista://HOST:PORT` (those
    /// queries on a Ballista cluster; needs the `ballista` feature).
    #[arg(long, value_name = "ENGINE", value_parser = parse_engine, default_value = "local")]
    engine: EngineChoice,
    /// Memory budget (bytes, or with K/M/G/T: `4G`); a kernel whose result would not fit
    /// stops the program with an error naming it and its size (default: the physical
    /// memory).
    #[arg(long, value_name = "SIZE", value_parser = spores_exec::memory::parse_size)]
    memory: Option<u64>,
}

/// The flags of `spores run`.
#[derive(clap::Args)]
struct RunFlags {
    /// The script file.
    script: PathBuf,
    /// A command-line argument for the script, read as `$name` (repeatable).
    #[arg(long = "arg", value_name = "NAME=VALUE", value_parser = parse_key_value)]
    args: Vec<(String, String)>,
    /// Print run statistics: total, compile and execute time and the heaviest operators.
    #[arg(long)]
    stats: bool,
    /// Print each basic block's DAG (with the shapes it produced) the first time it runs.
    #[arg(long)]
    explain: bool,
    /// Number of worker threads for the kernels, 1 to 1024 (default: all cores).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=MAX_THREADS))]
    threads: Option<u64>,
    /// Run each block's DAG as written, without the SPORES optimizer.
    #[arg(long)]
    no_opt: bool,
    /// Optimize every block with the full search, whatever it can save (by default the
    /// search may take a share of the block's predicted execution time, so blocks that
    /// run once on small data are not searched).
    #[arg(long, conflicts_with = "no_opt")]
    full_search: bool,
    /// Memory budget (bytes, or with K/M/G/T: `4G`); a result that would not fit stops
    /// the script with an error naming its size (default: the physical memory).
    #[arg(long, value_name = "SIZE", value_parser = spores_exec::memory::parse_size)]
    memory: Option<u64>,
    /// Plan extraction for the optimizer: `greedy`, `ilp` or `ilp:MS`.
    #[arg(long, default_value = "greedy")]
    extractor: spores_opt::extract::Extractor,
    /// Which engine runs each block's sum-product subgraphs: `local` (the kernels),
    /// `datafusion` (Apache DataFusion on this machine, holding at most --memory and
    /// spilling to disk beyond it; needs a build with the `datafusion` feature), or
    /// `auto` (DataFusion for the subgraphs whose estimated inputs or intermediates
    /// exceed --memory, the kernels for the rest), or `ballista://HOST:PORT` (every one on
    /// the Ballista scheduler there, `df://HOST:PORT` too, `?timeout=SECONDS` to give up
    /// on a result, `&held_dir=DIR` for where large held operands are written for the
    /// executors (default: beside the first Parquet input); needs the `ballista` feature;
    /// Parquet inputs must be readable by the executors at their absolute paths).
    #[arg(long, value_name = "ENGINE", value_parser = parse_engine, default_value = "local")]
    engine: EngineChoice,
    /// User rewrite rules (egglog) added to the optimizer's shipped ones.
    #[arg(long, value_name = "FILE.egg")]
    rules: Option<PathBuf>,
    /// Run the masked operators the optimizer chose (`masked_mul(X, E)`,
    /// `masked_div(X, E)`) as written, `X * E` and `X / E`, instead of compiling their
    /// trees into the masked kernels.
    #[arg(long)]
    no_masked: bool,
    /// Run chains of element-wise operators one operator at a time instead of fusing
    /// them into one pass (for comparison).
    #[arg(long)]
    no_fuse: bool,
    /// Directory of DML-bodied builtins: a call of an unknown `NAME` runs `m_NAME` (`f_NAME`, `s_NAME`) from
    /// DIR/NAME.dml (default: $SYSTEMDS_ROOT/scripts/builtin when SYSTEMDS_ROOT is set).
    #[arg(long, value_name = "DIR")]
    builtins: Option<PathBuf>,
}

/// `spores run --engine` and `spores tensor --engine`.
#[derive(Clone, Debug)]
enum EngineChoice {
    Local,
    Datafusion,
    Auto,
    /// The scheduler's address as given (`ballista://HOST:PORT` or `df://HOST:PORT`).
    Ballista(String),
}

fn parse_engine(text: &str) -> Result<EngineChoice, String> {
    match text {
        "local" => Ok(EngineChoice::Local),
        "datafusion" => Ok(EngineChoice::Datafusion),
        "auto" => Ok(EngineChoice::Auto),
        _ if text.starts_with("ballista://") || text.starts_with("df://") => {
            Ok(EngineChoice::Ballista(text.to_string()))
        }
        _ => Err(format!(
            "`{text}` is not an engine: local, datafusion, auto or ballista://HOST:PORT"
        )),
    }
}

/// The relational engine `--engine` asks for (`None` for the local kernels). Call after
/// the memory budget is set: the engine's memory pool is the budget.
fn relational_engine(
    choice: EngineChoice,
    threads: Option<u64>,
) -> Result<Option<std::sync::Arc<dyn spores_dml::engine::RelationalEngine>>, String> {
    #[cfg(feature = "datafusion")]
    let config = || {
        let mut config = spores_dist::EngineConfig::default();
        if let Some(n) = threads {
            config.threads = n as usize;
        }
        config
    };
    match choice {
        EngineChoice::Local => Ok(None),
        #[cfg(feature = "ballista")]
        EngineChoice::Ballista(url) => {
            let cluster = spores_dist::ballista::Cluster::parse(&url).map_err(|e| e.to_string())?;
            let engine = spores_dist::DataFusionEngine::on_ballista(config(), cluster)
                .map_err(|e| e.to_string())?;
            Ok(Some(std::sync::Arc::new(engine)))
        }
        #[cfg(not(feature = "ballista"))]
        EngineChoice::Ballista(url) => Err(format!(
            "--engine {url}: this spores was built without the `ballista` feature \
             (build it with `cargo build --release -p spores --features ballista`)"
        )),
        #[cfg(feature = "datafusion")]
        EngineChoice::Datafusion | EngineChoice::Auto => {
            let engine = spores_dist::DataFusionEngine::new(config()).map_err(|e| e.to_string())?;
            Ok(Some(std::sync::Arc::new(engine)))
        }
        #[cfg(not(feature = "datafusion"))]
        EngineChoice::Datafusion | EngineChoice::Auto => {
            let _ = threads;
            Err(
                "--engine datafusion/auto: this spores was built without the `datafusion` feature \
                 (build it with `cargo build --release -p spores --features datafusion`)"
                    .into(),
            )
        }
    }
}

fn run(flags: RunFlags) -> ExitCode {
    let RunFlags {
        script,
        args,
        stats,
        explain,
        threads,
        no_opt,
        full_search,
        memory,
        extractor,
        engine,
        rules,
        no_masked,
        no_fuse,
        builtins,
    } = flags;
    let started = Instant::now();
    if let Some(bytes) = memory {
        spores_exec::memory::set_budget(bytes);
    }
    if let Some(n) = threads {
        if let Err(e) = rayon::ThreadPoolBuilder::new()
            .num_threads(n as usize)
            .build_global()
        {
            eprintln!("error: cannot set up {n} threads: {e}");
            return ExitCode::from(2);
        }
    }
    let placement = match engine {
        EngineChoice::Auto => spores_dml::engine::Placement::OverBudget {
            bytes: spores_exec::memory::budget().min(u64::MAX as f64) as u64,
        },
        EngineChoice::Local | EngineChoice::Datafusion | EngineChoice::Ballista(_) => {
            spores_dml::engine::Placement::Everything
        }
    };
    let engine = match relational_engine(engine, threads) {
        Ok(engine) => engine,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let name = script.display().to_string();
    let source = match std::fs::read_to_string(&script) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: cannot read {name}: {e}");
            return ExitCode::from(2);
        }
    };
    let program = match spores_lang::parse(&source) {
        Ok(p) => p,
        Err(d) => {
            eprint!("{}", d.render_in(&name, &source));
            return ExitCode::from(2);
        }
    };
    let parse_time = started.elapsed();
    let optimizer: Box<dyn spores_dml::opt::DagOptimizer> = if no_opt {
        Box::new(spores_dml::opt::NoOptimizer)
    } else {
        let options = match saturation_options(rules.as_deref(), extractor) {
            Ok(options) => options,
            Err(code) => return code,
        };
        // Broken user rules are a usage error, reported before the script runs rather
        // than silently disabling the optimizer block by block.
        if options.extra_rules.is_some() {
            let probe = spores_opt::la::LaExpr::parse("sum(A %*% B)").expect("probe parses");
            let mut env = spores_opt::la::ShapeEnv::default();
            env.add_shape_arg("A=2x2")
                .and_then(|_| env.add_shape_arg("B=2x2"))
                .expect("probe shapes");
            if let Err(e) = spores_opt::saturate::optimize(&probe, &env, &options) {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        }
        let mut spores = spores_dml::opt::SporesOptimizer::new(options);
        if full_search {
            spores.min_cost(0.0).full_search();
        }
        Box::new(spores)
    };
    let options = RunOptions {
        args: args.into_iter().collect::<HashMap<_, _>>(),
        explain,
        explain_dot: false,
        optimizer,
        sized_planning: !no_masked,
        fuse_elementwise: !no_fuse,
        builtins: builtins.or_else(|| {
            std::env::var_os("SYSTEMDS_ROOT")
                .map(|root| PathBuf::from(root).join("scripts").join("builtin"))
        }),
        script_dir: script.parent().map(|d| d.to_path_buf()),
        cancel: None,
        engine,
        placement,
        // Nothing reads the variables a script leaves.
        read_after: spores_dml::runtime::liveness::Live::none(),
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut interp = Interpreter::new(&program, options, &mut out);
    let result = interp.run(&program);
    let mut run_stats = std::mem::take(&mut interp.stats);
    drop(interp);
    let _ = out.flush();
    drop(out);
    let code = match result {
        Ok(_) => ExitCode::SUCCESS,
        Err(d) => {
            eprint!("{}", d.render_in(&name, &source));
            // Syntax errors and unsupported constructs in files loaded mid-run (builtins)
            // are usage errors like those of the script itself.
            ExitCode::from(if d.static_error { 2 } else { 1 })
        }
    };
    if stats {
        run_stats.compile += parse_time;
        run_stats.place_blocks(&name, &source);
        eprint!("{}", run_stats.report(started.elapsed(), 10));
    }
    code
}
