//! Values between Python and the runtime: NumPy arrays, the CSR parts of SciPy sparse
//! matrices and Python scalars in, the same out.
//!
//! Copies: a C-contiguous, aligned `float64` array is read in place ([`NumpySlice`]);
//! any other array is copied once into a row-major buffer. A CSR input's int32 column
//! indices and float64 values are read in place too (their index checks deferred to the
//! first reader, see `IndexChecks::Deferred`); its row pointers are converted
//! (our CSR keeps `usize` row pointers: one per row), and int64 column indices are
//! converted to our `u32`. Results move into NumPy without a copy (the array owns the Rust
//! buffer); a sparse result's values move, its index arrays are converted to SciPy's
//! integer types.
//!
//! Nothing scans an input for NaN/Inf here: arrays read in place are planned as
//! unchecked (`spores_dml::opt::Finiteness::Unchecked`), and the kernels that read every
//! value (`sddmm_sum`, `mmchain`) find out in their own pass.

use std::collections::HashMap;
use std::sync::Arc;

use numpy::ndarray::Dimension;
use numpy::{
    Element, PyArray, PyArray1, PyArray2, PyArrayDescrMethods, PyArrayMethods, PyReadonlyArray1,
    PyUntypedArrayMethods, ToPyArray,
};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use spores_dml::Value;
use spores_exec::matrix::{CsrMatrix, DenseMatrix, ForeignSlice, IndexChecks, Matrix};

/// Elements of a NumPy array that a matrix reads without copying.
///
/// The array is kept alive by `_owner`; `ptr` points at its `len` elements, contiguous
/// and aligned (checked by [`foreign`]). Nothing writes through `ptr`: a matrix that
/// needs to write copies first (see `spores_exec::matrix::Cells`).
#[derive(Debug)]
struct NumpySlice<T> {
    _owner: Py<PyAny>,
    ptr: *const T,
    len: usize,
}

// SAFETY: the elements are only read, and the NumPy array (held by `_owner`, a reference
// that may be dropped from any thread) keeps them allocated while this value lives.
unsafe impl<T> Send for NumpySlice<T> {}
unsafe impl<T> Sync for NumpySlice<T> {}

impl<T: std::fmt::Debug> ForeignSlice<T> for NumpySlice<T> {
    fn slice(&self) -> &[T] {
        if self.len == 0 {
            return &[];
        }
        // SAFETY: see the type's invariants.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

/// The elements of `array` as a `T` slice read in place, when the array is C-contiguous
/// and aligned for `T` (whose size must be the array's item size); `None` otherwise.
fn foreign<E: Element, D: Dimension, T: std::fmt::Debug + 'static>(
    array: &Bound<'_, PyArray<E, D>>,
) -> Option<Arc<dyn ForeignSlice<T>>> {
    let ptr = array.data() as *const T;
    let aligned = (ptr as usize).is_multiple_of(std::mem::align_of::<T>());
    if !array.is_c_contiguous() || !aligned || array.dtype().itemsize() != std::mem::size_of::<T>()
    {
        return None;
    }
    Some(Arc::new(NumpySlice {
        _owner: array.clone().into_any().unbind(),
        ptr,
        len: array.len(),
    }))
}

/// A 2-D `float64` array as a dense matrix: in place when C-contiguous and aligned,
/// otherwise copied.
fn dense_from_numpy(array: &Bound<'_, PyArray2<f64>>) -> PyResult<Matrix> {
    let (rows, cols) = (array.shape()[0], array.shape()[1]);
    let invalid = |e: spores_exec::ExecError| PyTypeError::new_err(e.to_string());
    if let Some(cells) = foreign::<_, _, f64>(array) {
        return Ok(Matrix::Dense(
            DenseMatrix::from_foreign(rows, cols, cells).map_err(invalid)?,
        ));
    }
    let data: Vec<f64> = array.readonly().as_array().iter().copied().collect();
    Ok(Matrix::Dense(
        DenseMatrix::from_vec(rows, cols, data).map_err(invalid)?,
    ))
}

/// The parts of a CSR matrix as the Python layer passes them:
/// `("csr", rows, cols, indptr, indices, data)`, canonical (sorted, no duplicates).
/// int32 column indices and float64 values are read in place (our indices are `u32`,
/// the same bits for the non-negative values validation admits); int64 indices are
/// converted, and the row pointers always are (ours are `usize`; one per row).
fn csr_from_parts(parts: &Bound<'_, PyTuple>) -> PyResult<Matrix> {
    let bad = || {
        PyTypeError::new_err("a sparse input must be (\"csr\", rows, cols, indptr, indices, data)")
    };
    if parts.len() != 6 || parts.get_item(0)?.extract::<String>().ok().as_deref() != Some("csr") {
        return Err(bad());
    }
    let rows: usize = parts.get_item(1)?.extract()?;
    let cols: usize = parts.get_item(2)?.extract()?;
    let indptr: Vec<usize> = index_array(&parts.get_item(3)?, "negative row pointer")?;
    let indices_obj = parts.get_item(4)?;
    let data_obj = parts.get_item(5)?;
    let data = data_obj.cast::<PyArray1<f64>>()?;
    let invalid =
        |e: spores_exec::ExecError| PyTypeError::new_err(format!("invalid CSR input: {e}"));
    let int32 = indices_obj.cast::<PyArray1<i32>>().ok();
    let in_place = int32
        .and_then(|a| foreign::<_, _, u32>(a))
        .zip(foreign::<_, _, f64>(data));
    let csr = match in_place {
        // The index checks run where the matrix is first read: by a kernel that checks
        // them in its own pass (mmchain), else before the first operator that reads it.
        Some((indices, values)) => {
            CsrMatrix::from_foreign((rows, cols), indptr, indices, values, IndexChecks::Deferred)
        }
        None => {
            let indices: Vec<u32> = index_array(&indices_obj, "column index out of range")?;
            let values = data.readonly().as_array().to_vec();
            CsrMatrix::new(rows, cols, indptr, indices, values)
        }
    }
    .map_err(invalid)?;
    // SystemDS's format rule, on the stored count (explicit zeros are rare in SciPy data
    // and harmless to the kernels): counting non-zeros would be one more pass.
    if spores_exec::matrix::prefer_sparse(rows, cols, csr.stored()) {
        Ok(Matrix::Sparse(csr))
    } else {
        csr.check_indices()
            .map_err(|e| PyTypeError::new_err(e.to_string()))?;
        Ok(Matrix::Dense(csr.to_dense()))
    }
}

/// A SciPy index array (int32 or int64) converted to our index type (`usize` row
/// pointers, `u32` column indices). The range is checked on the smallest and largest
/// entry (both found in one branch-free pass), so the conversion itself is a plain cast
/// that vectorizes.
fn index_array<T: TryFrom<i64>>(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<T>>
where
    i64: CastTo<T>,
{
    if let Ok(a) = obj.extract::<PyReadonlyArray1<i32>>() {
        return convert_indices(a.as_array().as_slice(), a.as_array().iter(), what);
    }
    let a: PyReadonlyArray1<i64> = obj.extract()?;
    convert_indices(a.as_array().as_slice(), a.as_array().iter(), what)
}

/// A lossless-where-checked integer cast (`as`, after [`convert_indices`] checked the range).
trait CastTo<T> {
    fn cast(self) -> T;
}

impl CastTo<usize> for i64 {
    #[inline(always)]
    fn cast(self) -> usize {
        self as usize
    }
}

impl CastTo<u32> for i64 {
    #[inline(always)]
    fn cast(self) -> u32 {
        self as u32
    }
}

/// `values` (a contiguous slice when there is one, else the strided iterator) as `T`,
/// or the error "invalid CSR input: {what}" when one does not fit.
fn convert_indices<'a, S, T>(
    contiguous: Option<&'a [S]>,
    strided: impl Iterator<Item = &'a S>,
    what: &str,
) -> PyResult<Vec<T>>
where
    S: Copy + Into<i64> + 'a,
    T: TryFrom<i64>,
    i64: CastTo<T>,
{
    let bad = || PyTypeError::new_err(format!("invalid CSR input: {what}"));
    let fits = |lo: i64, hi: i64| T::try_from(lo).is_ok() && T::try_from(hi).is_ok();
    match contiguous {
        Some(slice) => {
            let (lo, hi) = slice.iter().fold((0i64, 0i64), |(lo, hi), &v| {
                let v: i64 = v.into();
                (lo.min(v), hi.max(v))
            });
            if !fits(lo, hi) {
                return Err(bad());
            }
            Ok(slice.iter().map(|&v| v.into().cast()).collect())
        }
        None => strided
            .map(|&v| {
                let v: i64 = v.into();
                T::try_from(v).map_err(|_| bad())
            })
            .collect(),
    }
}

/// One input: a Python scalar or string, a 2-D `float64` NumPy array, or CSR parts.
pub fn value_from_python(name: &str, obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    if obj.is_instance_of::<PyBool>() {
        return Ok(Value::Bool(obj.extract()?));
    }
    if obj.is_instance_of::<PyInt>() {
        return Ok(Value::Int(obj.extract()?));
    }
    if obj.is_instance_of::<PyFloat>() {
        return Ok(Value::Double(obj.extract()?));
    }
    if obj.is_instance_of::<PyString>() {
        return Ok(Value::str(obj.extract::<String>()?));
    }
    if let Ok(array) = obj.cast::<PyArray2<f64>>() {
        return Ok(Value::matrix(dense_from_numpy(array)?));
    }
    if let Ok(parts) = obj.cast::<PyTuple>() {
        return Ok(Value::matrix(csr_from_parts(parts)?));
    }
    Err(PyTypeError::new_err(format!(
        "input `{name}`: expected a number, a string, a 2-D float64 array or CSR parts, got {}",
        obj.get_type().name()?
    )))
}

/// Converts all inputs of a call.
pub fn inputs_from_python(inputs: &Bound<'_, PyDict>) -> PyResult<HashMap<String, Value>> {
    let mut out = HashMap::with_capacity(inputs.len());
    for (key, value) in inputs.iter() {
        let name: String = key.extract()?;
        let v = value_from_python(&name, &value)?;
        out.insert(name, v);
    }
    Ok(out)
}

/// A matrix for Python: a 2-D NumPy array, or `("csr", rows, cols, indptr, indices, data)`.
pub fn matrix_to_python<'py>(py: Python<'py>, m: Arc<Matrix>) -> PyResult<Bound<'py, PyAny>> {
    let m = Arc::try_unwrap(m).unwrap_or_else(|shared| (*shared).clone());
    match m {
        Matrix::Dense(d) => {
            let (rows, cols) = (d.rows(), d.cols());
            let flat = PyArray1::from_vec(py, d.into_vec());
            Ok(flat.reshape([rows, cols])?.into_any())
        }
        Matrix::Sparse(s) => {
            // An input returned as it came in was never read by an operator.
            s.check_indices()
                .map_err(|e| PyTypeError::new_err(e.to_string()))?;
            let (rows, cols, indptr, indices, values) = s.into_parts();
            let indptr: Vec<i64> = indptr.iter().map(|&p| p as i64).collect();
            let indices = if cols <= i32::MAX as usize {
                let narrow: Vec<i32> = indices.iter().map(|&j| j as i32).collect();
                PyArray1::from_vec(py, narrow).into_any()
            } else {
                let wide: Vec<i64> = indices.iter().map(|&j| j as i64).collect();
                PyArray1::from_vec(py, wide).into_any()
            };
            let parts = (
                "csr",
                rows,
                cols,
                PyArray1::from_vec(py, indptr),
                indices,
                PyArray1::from_vec(py, values),
            );
            Ok(parts.into_pyobject(py)?.into_any())
        }
    }
}

/// A runtime value for Python: numbers, booleans and strings as themselves, matrices as
/// in [`matrix_to_python`], lists as lists, frames as dicts of columns.
pub fn value_to_python<'py>(py: Python<'py>, v: Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Matrix(m) => matrix_to_python(py, m)?,
        Value::File(f) => matrix_to_python(
            py,
            f.load()
                .map_err(|e| crate::errors::SporesError::new_err(e.to_string()))?,
        )?,
        Value::Double(x) => x.into_pyobject(py)?.into_any(),
        Value::Int(x) => x.into_pyobject(py)?.into_any(),
        Value::Bool(b) => PyBool::new(py, b).to_owned().into_any(),
        Value::Str(s) => PyString::new(py, &s).into_any(),
        Value::List(l) => {
            let items = l
                .items
                .iter()
                .map(|item| value_to_python(py, item.clone()))
                .collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, items)?.into_any()
        }
        // A frame as a dict of its columns (name to list), as `pandas.DataFrame` takes.
        Value::Frame(f) => {
            use spores_dml::runtime::frame::{Column, ValueType};
            let dict = pyo3::types::PyDict::new(py);
            for (name, column) in f.names().iter().zip(f.columns()) {
                let cells: Vec<Bound<'py, PyAny>> = match column {
                    Column::Text(v) => v
                        .iter()
                        .map(|c| match c.as_deref() {
                            Some(text) => PyString::new(py, text).into_any(),
                            None => py.None().into_bound(py),
                        })
                        .collect(),
                    Column::Number { ty, values } => values
                        .iter()
                        .map(|&x| match ty {
                            ValueType::Boolean => {
                                Ok(PyBool::new(py, x != 0.0).to_owned().into_any())
                            }
                            ValueType::Int32 | ValueType::Int64 => {
                                Ok((x as i64).into_pyobject(py)?.into_any())
                            }
                            _ => Ok(x.into_pyobject(py)?.into_any()),
                        })
                        .collect::<PyResult<_>>()?,
                };
                dict.set_item(name, PyList::new(py, cells)?)?;
            }
            dict.into_any()
        }
    })
}

/// A dense witness or tensor for Python (copied: these are small).
pub fn dense_to_python<'py>(py: Python<'py>, d: &DenseMatrix) -> PyResult<Bound<'py, PyAny>> {
    let flat = d.data().to_pyarray(py);
    Ok(flat.reshape([d.rows(), d.cols()])?.into_any())
}
