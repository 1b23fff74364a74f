//! The optimizer-facing subcommands, as library functions so tests can call them:
//! each writes to the given streams and returns the process exit code.

mod check;
mod convert;
mod equiv;
mod mlir;
mod optimize;
mod tensor;

pub use check::check;
pub use convert::convert;
pub use equiv::equiv;
pub use mlir::{mlir, mlir_opt, MlirCommand, MlirOptArgs};
pub use optimize::optimize;
pub use tensor::{tensor, TensorArgs};

use spores_opt::la::ShapeEnv;

/// Exit code for usage and parse errors, shared by every subcommand.
pub const EXIT_USAGE: u8 = 2;

/// The input description shared by `optimize` and `equiv`: `--shape NAME=ROWSxCOLS`,
/// `--nnz NAME=N` and `--scalar NAME`.
#[derive(Clone, Debug, Default)]
pub struct InputArgs {
    pub shapes: Vec<String>,
    pub nnz: Vec<String>,
    pub scalars: Vec<String>,
    /// Inputs positive in every cell (`spores equiv --positive`).
    pub positive: Vec<String>,
    /// Cut points `k<m` of symbolic dimensions (`spores equiv --size`).
    pub cuts: Vec<String>,
}

impl InputArgs {
    /// [`InputArgs::to_env`], with an error written to `err` as the usage exit code.
    pub(crate) fn env_or_usage(&self, err: &mut dyn std::io::Write) -> Result<ShapeEnv, u8> {
        self.to_env().map_err(|e| {
            let _ = writeln!(err, "error: {e}");
            EXIT_USAGE
        })
    }

    pub fn to_env(&self) -> Result<ShapeEnv, String> {
        let mut env = ShapeEnv::default();
        for arg in &self.shapes {
            env.add_shape_arg(arg).map_err(|e| e.to_string())?;
        }
        for name in &self.scalars {
            env.scalar(name);
        }
        for arg in &self.nnz {
            env.add_nnz_arg(arg).map_err(|e| e.to_string())?;
        }
        for name in &self.positive {
            if !env.shapes.contains_key(name) {
                return Err(format!(
                    "--positive {name}: no input `{name}` (give its shape with --shape or --scalar)"
                ));
            }
            env.positive.insert(name.clone());
        }
        for arg in &self.cuts {
            env.add_cut_arg(arg)?;
        }
        Ok(env)
    }
}
