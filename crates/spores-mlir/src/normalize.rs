//! Loading MLIR files of any syntax by normalizing them to the generic form with `mlir-opt`.
//!
//! Every dialect has its own custom syntax, which only MLIR itself can parse; the generic form
//! is the same for all of them. So when `mlir-opt` is available we let it print the file in
//! generic form (`--mlir-print-op-generic`, with `--allow-unregistered-dialect` so that unknown
//! dialects pass), and parse that. Without it, only files already in generic form load.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::ir::Module;
use crate::parser::{parse_module, ParseError, ParseErrorKind, ParseOptions};

/// The environment variable that overrides where `mlir-opt` is looked for.
pub const MLIR_OPT_ENV: &str = "SPORES_MLIR_OPT";

/// When [`load`] runs `mlir-opt` on the input first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Normalize {
    /// Whenever `mlir-opt` is found (it also verifies the input); otherwise parse the file as
    /// it is, which works for files already in generic form.
    #[default]
    Auto,
    /// Always; fail when `mlir-opt` is missing.
    Always,
    /// Never: the file must be in generic form.
    Never,
}

/// Settings of [`load`].
#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    /// Keep source locations (asks `mlir-opt` for `--mlir-print-debuginfo`).
    pub keep_locations: bool,
    /// When to normalize through `mlir-opt`.
    pub normalize: Normalize,
    /// The `mlir-opt` binary to use; found with [`find_mlir_opt`] when `None`.
    pub mlir_opt: Option<PathBuf>,
}

/// Why a file did not load.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The (normalized) text is not valid generic-form MLIR.
    #[error("{0}")]
    Parse(ParseError),
    /// The file is not in generic form and there is no `mlir-opt` to normalize it.
    #[error(
        "{path} is not in MLIR's generic form ({error}) and mlir-opt-19 was not found to \
         normalize it; install it (`apt-get install mlir-19-tools`) or set {MLIR_OPT_ENV}"
    )]
    MlirOptMissing {
        /// The file.
        path: PathBuf,
        /// The error the direct parse gave.
        error: ParseError,
    },
    /// Normalization was required ([`Normalize::Always`]) but `mlir-opt` was not found.
    #[error("mlir-opt-19 was not found; install it (`apt-get install mlir-19-tools`) or set {MLIR_OPT_ENV}")]
    MlirOptNotFound,
    /// `mlir-opt` could not be run or rejected the file.
    #[error("{tool} failed on {path}:\n{stderr}")]
    MlirOptFailed {
        /// The tool.
        tool: PathBuf,
        /// The file.
        path: PathBuf,
        /// What it printed on stderr.
        stderr: String,
    },
}

fn is_file(p: &Path) -> bool {
    p.is_file()
}

/// Finds `mlir-opt`: the path in `$SPORES_MLIR_OPT`, else `mlir-opt-19` on `PATH` (Debian's
/// `mlir-19-tools`), else `/usr/lib/llvm-19/bin/mlir-opt`, else `mlir-opt` on `PATH`.
pub fn find_mlir_opt() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(MLIR_OPT_ENV) {
        let p = PathBuf::from(p);
        return is_file(&p).then_some(p);
    }
    let on_path = |name: &str| {
        std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|d| d.join(name))
                .find(|p| is_file(p))
        })
    };
    on_path("mlir-opt-19")
        .or_else(|| {
            let p = PathBuf::from("/usr/lib/llvm-19/bin/mlir-opt");
            is_file(&p).then_some(p)
        })
        .or_else(|| on_path("mlir-opt"))
}

/// Prints a file in generic form with `mlir-opt`.
pub fn normalize_file(tool: &Path, path: &Path, keep_locations: bool) -> Result<String, LoadError> {
    let mut cmd = Command::new(tool);
    cmd.arg("--allow-unregistered-dialect")
        .arg("--mlir-print-op-generic");
    if keep_locations {
        cmd.arg("--mlir-print-debuginfo");
    }
    cmd.arg(path);
    let out = cmd.output().map_err(|e| LoadError::MlirOptFailed {
        tool: tool.to_path_buf(),
        path: path.to_path_buf(),
        stderr: e.to_string(),
    })?;
    if !out.status.success() {
        return Err(LoadError::MlirOptFailed {
            tool: tool.to_path_buf(),
            path: path.to_path_buf(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// A tool that could not be run on some input (see [`run_with_input`]).
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("cannot run {}: {source}", tool.display())]
    Start {
        tool: PathBuf,
        source: std::io::Error,
    },
    #[error("{} did not finish: {source}", tool.display())]
    Wait {
        tool: PathBuf,
        source: std::io::Error,
    },
}

/// Why [`verify_text`] refused MLIR text.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    /// `mlir-opt` rejected the text; its diagnostics.
    #[error("{0}")]
    Rejected(String),
    #[error(transparent)]
    Run(#[from] RunError),
}

/// Runs `mlir-opt --allow-unregistered-dialect` on MLIR text (parsing and verifying it);
/// `Err` holds its diagnostics. This is the check every file spores writes must pass.
pub fn verify_text(tool: &Path, text: &str) -> Result<(), VerifyError> {
    let mut command = Command::new(tool);
    command
        .arg("--allow-unregistered-dialect")
        .arg("-o")
        .arg(if cfg!(windows) { "NUL" } else { "/dev/null" })
        .arg("-")
        .stdout(Stdio::null());
    let out = run_with_input(command, tool, text)?;
    if out.status.success() {
        Ok(())
    } else {
        Err(VerifyError::Rejected(
            String::from_utf8_lossy(&out.stderr).into_owned(),
        ))
    }
}

/// Runs `command` (the program `tool`) with `input` on its stdin and its stderr captured
/// (stdout as `command` set it up); `Err` when it cannot be started or waited for.
pub(crate) fn run_with_input(
    mut command: Command,
    tool: &Path,
    input: &str,
) -> Result<std::process::Output, RunError> {
    let mut child = command
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|source| RunError::Start {
            tool: tool.to_path_buf(),
            source,
        })?;
    // Feed stdin from another thread so that a tool writing much to stderr before reading
    // all its input cannot deadlock against us.
    let stdin = child.stdin.take();
    std::thread::scope(|s| {
        s.spawn(move || stdin.map(|mut i| i.write_all(input.as_bytes())));
        child.wait_with_output()
    })
    .map_err(|source| RunError::Wait {
        tool: tool.to_path_buf(),
        source,
    })
}

/// Reads an MLIR file, normalizing it through `mlir-opt` as [`LoadOptions::normalize`] says.
pub fn load(path: &Path, opts: &LoadOptions) -> Result<Module, LoadError> {
    let popts = ParseOptions {
        keep_locations: opts.keep_locations,
    };
    let tool = match opts.normalize {
        Normalize::Never => None,
        _ => opts.mlir_opt.clone().or_else(find_mlir_opt),
    };
    let with_file = |mut e: ParseError| {
        e.file = Some(path.display().to_string());
        e
    };
    if let Some(tool) = tool {
        let text = normalize_file(&tool, path, opts.keep_locations)?;
        // A parse error here is ours, not the user's: mlir-opt accepted the file.
        return parse_module(&text, popts).map_err(|mut e| {
            e.file = Some(format!(
                "{} (as normalized by {})",
                path.display(),
                tool.display()
            ));
            LoadError::Parse(e)
        });
    }
    if opts.normalize == Normalize::Always {
        return Err(LoadError::MlirOptNotFound);
    }
    let text = std::fs::read_to_string(path).map_err(|source| LoadError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    match parse_module(&text, popts) {
        Ok(m) => Ok(m),
        // An SSA error is in generic form already: mlir-opt would not help.
        Err(e) if opts.normalize == Normalize::Auto && e.kind == ParseErrorKind::Syntax => {
            Err(LoadError::MlirOptMissing {
                path: path.to_path_buf(),
                error: with_file(e),
            })
        }
        Err(e) => Err(LoadError::Parse(with_file(e))),
    }
}
