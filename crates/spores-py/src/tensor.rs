//! `spores.tensor(program, **inputs)`: Galley-style sparse tensor programs on NumPy arrays
//! and SciPy sparse matrices, through `spores_tensor::run` as `spores tensor` runs them.
//!
//! Inputs arrive as `("coo", dims, coords, values)` (coords an `nnz x order` int64 array,
//! built by the Python layer from a dense array's non-zeros or a sparse matrix's entries);
//! results leave as `("coo", dims, coords, values, fill)` and the Python layer turns them
//! into a float, a NumPy array or a SciPy matrix.

use std::collections::HashMap;

use numpy::{PyArray1, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use spores_tensor::driver::{explain_physical, Optimizer, RunOptions};
use spores_tensor::parse::parse_program;
use spores_tensor::CooTensor;

use crate::errors;

fn coo_from_python(name: &str, parts: &Bound<'_, PyTuple>) -> PyResult<CooTensor> {
    let dims: Vec<usize> = parts.get_item(1)?.extract()?;
    let coords: PyReadonlyArray2<i64> = parts.get_item(2)?.extract()?;
    let values: PyReadonlyArray1<f64> = parts.get_item(3)?.extract()?;
    let coords = coords.as_array();
    let mut entries = Vec::with_capacity(coords.nrows());
    for (row, &v) in coords.rows().into_iter().zip(values.as_array().iter()) {
        let c = row
            .iter()
            .map(|&x| u32::try_from(x))
            .collect::<Result<Vec<u32>, _>>()
            .map_err(|_| {
                PyTypeError::new_err(format!("input `{name}`: coordinate out of range"))
            })?;
        entries.push((c, v));
    }
    CooTensor::from_entries(dims, entries, 0.0)
        .map_err(|e| errors::ShapeError::new_err(format!("input `{name}`: {e}")))
}

fn coo_to_python<'py>(py: Python<'py>, t: &CooTensor) -> PyResult<Bound<'py, PyAny>> {
    let order = t.order();
    let mut coords = Vec::with_capacity(t.nnz() * order);
    for (c, _) in t.iter() {
        coords.extend(c.iter().map(|&x| x as i64));
    }
    let coords = PyArray1::from_vec(py, coords).reshape([t.nnz(), order])?;
    let values = PyArray1::from_vec(py, t.values().to_vec());
    let parts = ("coo", t.dims().to_vec(), coords, values, t.fill());
    Ok(parts.into_pyobject(py)?.into_any())
}

/// Runs a tensor program; returns its outputs in COO parts and, with `explain`, the
/// logical and physical plans as `spores tensor --explain` prints them.
#[pyfunction]
#[pyo3(signature = (program, inputs, optimizer="greedy", explain=false))]
pub fn run_tensor<'py>(
    py: Python<'py>,
    program: String,
    inputs: &Bound<'py, PyDict>,
    optimizer: &str,
    explain: bool,
) -> PyResult<(Bound<'py, PyDict>, String)> {
    let parsed = parse_program(&program).map_err(|e| {
        errors::ParseError::new_err(e.render("<program>", &program).trim_end().to_string())
    })?;
    let optimizer: Optimizer = optimizer
        .parse()
        .map_err(|e: String| pyo3::exceptions::PyValueError::new_err(e))?;
    let mut tensors = HashMap::new();
    for (key, value) in inputs.iter() {
        let name: String = key.extract()?;
        let parts = value.cast::<PyTuple>()?;
        let mut t = coo_from_python(&name, parts)?;
        if let Some(fill) = parsed.fill_of(&name) {
            t = t.with_fill(fill);
        }
        tensors.insert(name, t);
    }
    let options = RunOptions {
        optimizer,
        ..RunOptions::default()
    };
    let names = parsed.program.outputs.clone();
    let (outputs, plan) = crate::engine::submit(py, move |_| {
        parsed.check_integer_inputs(&tensors)?;
        let (outputs, report) = spores_tensor::run(&parsed.to_run(), &tensors, &options)?;
        parsed.check_integer_outputs(&outputs)?;
        let plan = if explain {
            format!(
                "-- logical plan\n{}\n-- physical plan\n{}",
                report.logical,
                explain_physical(&report.physical)
            )
        } else {
            String::new()
        };
        Ok::<_, spores_tensor::TensorError>((outputs, plan))
    })?
    .map_err(|e| errors::ExecutionError::new_err(format!("error: {e}")))?;
    let out = PyDict::new(py);
    for name in &names {
        out.set_item(name, coo_to_python(py, &outputs[name])?)?;
    }
    Ok((out, plan))
}
