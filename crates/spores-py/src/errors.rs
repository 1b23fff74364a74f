//! The Python exception types and how spores' errors map onto them.
//!
//! `SporesError` is the base; its subclasses say which stage failed. Every message is the
//! CLI's text for the same error (file:line:col, the source line and a caret).

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyKeyboardInterrupt, PyTypeError};
use pyo3::prelude::*;
use spores_dml::ScriptError;

create_exception!(
    spores,
    SporesError,
    PyException,
    "Base class of every error spores raises."
);
create_exception!(
    spores,
    ParseError,
    SporesError,
    "A script, expression or program does not parse."
);
create_exception!(
    spores,
    ShapeError,
    SporesError,
    "Operand shapes do not fit the operation."
);
create_exception!(
    spores,
    UnsupportedError,
    SporesError,
    "A construct spores does not support."
);
create_exception!(
    spores,
    ExecutionError,
    SporesError,
    "A script failed while running (including `stop()`)."
);

/// Registers the exception types on the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("SporesError", py.get_type::<SporesError>())?;
    m.add("ParseError", py.get_type::<ParseError>())?;
    m.add("ShapeError", py.get_type::<ShapeError>())?;
    m.add("UnsupportedError", py.get_type::<UnsupportedError>())?;
    m.add("ExecutionError", py.get_type::<ExecutionError>())?;
    Ok(())
}

/// The exception for a script error, rendered against the script's name and text.
pub fn script_error(e: &ScriptError, name: &str, source: &str) -> PyErr {
    let d = e.diagnostic();
    let text = d.render_in(name, source).trim_end().to_string();
    match e {
        ScriptError::Parse(_) => ParseError::new_err(text),
        ScriptError::Runtime(_) if d.message == spores_dml::runtime::INTERRUPTED => {
            PyKeyboardInterrupt::new_err(text)
        }
        ScriptError::Runtime(_) if d.static_error => UnsupportedError::new_err(text),
        ScriptError::Runtime(_) if d.message.contains("shape mismatch") => {
            ShapeError::new_err(text)
        }
        // Checks of a sparse input deferred to its first reader: the error converting
        // the input raises, whichever operator ran them.
        ScriptError::Runtime(_) if d.message.starts_with("invalid CSR input: ") => {
            PyTypeError::new_err(d.message.clone())
        }
        ScriptError::Runtime(_) => ExecutionError::new_err(text),
    }
}

/// The exception for a command that reported `text` on its error stream and exited with
/// `code` (2: usage or parse error, else a failure while running).
pub fn command_error(code: u8, text: &str) -> PyErr {
    let text = text.trim_end().to_string();
    if code == 2 {
        // Usage errors about shapes (a mismatch, a missing `--shape`) are shape errors.
        if text.contains("shape") {
            ShapeError::new_err(text)
        } else {
            ParseError::new_err(text)
        }
    } else {
        ExecutionError::new_err(text)
    }
}
