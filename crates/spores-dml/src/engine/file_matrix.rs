//! A matrix that stays in its file until a local operator needs its cells.
//!
//! With a relational engine (`spores run --engine datafusion|auto`), `read` of a Parquet
//! COO file returns a [`FileMatrix`]: the file's shape and cell count from its footer, no
//! cells. A subgraph that runs on the relational engine scans the file itself, row group
//! by row group, so an input larger than memory is never held whole; any other operator
//! reads the file once, on first use, and keeps the matrix.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use spores_exec::io::{self as mio, Format, ReadOptions};
use spores_exec::{ExecError, Matrix, Shape};

/// A Parquet COO file standing for the matrix it holds (see the module documentation).
#[derive(Debug)]
pub struct FileMatrix {
    path: PathBuf,
    shape: Shape,
    cells: u64,
    loaded: OnceLock<Result<Arc<Matrix>, Arc<ExecError>>>,
    finite: OnceLock<bool>,
}

impl FileMatrix {
    /// Opens the Parquet COO file at `path` by its footer; errors name the path.
    pub fn open_parquet(path: &Path) -> Result<FileMatrix, FileError> {
        #[cfg(feature = "datafusion")]
        {
            let file =
                mio::parquet_coo::CooFile::open(path).map_err(|e| FileError::Read(Arc::new(e)))?;
            Ok(FileMatrix {
                path: path.to_path_buf(),
                shape: Shape::new(file.rows(), file.cols()),
                cells: file.cells(),
                loaded: OnceLock::new(),
                finite: OnceLock::new(),
            })
        }
        #[cfg(not(feature = "datafusion"))]
        {
            Err(FileError::ParquetNeedsFeature {
                path: path.to_path_buf(),
            })
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// Cells stored in the file (an upper bound on the non-zeros).
    pub fn cells(&self) -> u64 {
        self.cells
    }

    /// The matrix, read from the file the first time.
    pub fn load(&self) -> Result<Arc<Matrix>, FileError> {
        self.loaded
            .get_or_init(|| {
                mio::read_matrix(&self.path, Format::Parquet, &ReadOptions::default())
                    .map(Arc::new)
                    .map_err(Arc::new)
            })
            .clone()
            .map_err(FileError::Read)
    }

    /// Whether every value is finite (the optimizer's rewrites apply to finite values
    /// only): what the file promises in its metadata (`finite`, which spores' writer
    /// records), else a scan of its values, row group by row group, the first time. The
    /// scan would otherwise run on this process before any plan is sent to a cluster, a
    /// pass over the whole file that no executor shares. An unreadable file counts as not
    /// finite; reading it reports why.
    pub fn all_finite(&self) -> bool {
        *self.finite.get_or_init(|| {
            if let Some(Ok(m)) = self.loaded.get() {
                return m.all_finite();
            }
            #[cfg(feature = "datafusion")]
            {
                let Ok(file) = mio::parquet_coo::CooFile::open(&self.path) else {
                    return false;
                };
                if file.declared_finite() {
                    return true;
                }
                // The value column alone, row groups in parallel.
                use rayon::prelude::*;
                (0..file.row_groups()).into_par_iter().all(|g| {
                    file.read_group_values(g)
                        .is_ok_and(|v| v.iter().all(|v| v.is_finite()))
                })
            }
            #[cfg(not(feature = "datafusion"))]
            false
        })
    }
}

/// A file `read` or `write` cannot handle.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    #[error(
        "unsupported format \"{name}\" (use \"text\", \"mm\", \"csv\", \"binary\", \"npy\" or \"parquet\")"
    )]
    UnsupportedFormat { name: String },
    /// The `read` call and the file's `.mtd` metadata disagree on its size.
    #[error("{}: the call says {param}={given}, its metadata file says {metadata}", path.display())]
    MetadataDiffers {
        path: PathBuf,
        param: &'static str,
        given: usize,
        metadata: usize,
    },
    /// A scalar's file whose text is not a value of its type.
    #[error("{}: `{text}` is not a {value_type}", path.display())]
    BadScalar {
        path: PathBuf,
        value_type: &'static str,
        text: String,
    },
    #[error("{}: Parquet files need a build with the `datafusion` feature", path.display())]
    ParquetNeedsFeature { path: PathBuf },
    /// The file's size is not the one the `read` call (`rows=`, `cols=`) or its `.mtd`
    /// file gives.
    #[error("{}: the file has {found} {noun}, {said_by} {param}={expected}", path.display())]
    SizeDiffers {
        path: PathBuf,
        noun: &'static str,
        /// `the call says` or `its metadata file says`.
        said_by: &'static str,
        param: &'static str,
        found: usize,
        expected: usize,
    },
    /// A `data_type` or `value_type` this reader does not give.
    #[error("read: {param}=\"{value}\" is not supported (data_type=\"matrix\", \"frame\" or \"scalar\"; value_type=\"double\", \"int\", \"boolean\", or \"string\" for a scalar)")]
    UnsupportedType { param: &'static str, value: String },
    /// A file read once for every operator that needs it (the error names the path).
    #[error(transparent)]
    Read(Arc<ExecError>),
}
