//! Running a subgraph the relational engine holds ([`crate::dag::Op::Relational`]) on
//! its leaves' values.

use std::collections::HashMap;
use std::sync::Arc;

use spores_exec::{DenseMatrix, Matrix};

use super::Value;
use crate::dag::RelationalRoot;
use crate::engine::{RelationError, RelationInput, RelationalEngine};

/// Runs an [`crate::dag::Op::Relational`] node on its leaves' values.
pub fn run_relational(
    engine: &dyn RelationalEngine,
    root: &RelationalRoot,
    args: &[Value],
) -> Result<Value, RelationError> {
    let mut inputs = HashMap::with_capacity(args.len());
    for (name, value) in root.leaves.iter().zip(args) {
        let input = match value {
            Value::Matrix(m) => RelationInput::Matrix(m.clone()),
            Value::File(f) => RelationInput::File(f.clone()),
            scalar => {
                let v = scalar.as_f64().ok_or_else(|| RelationError::NotANumber {
                    leaf: name.clone(),
                    found: scalar.type_name(),
                })?;
                RelationInput::Matrix(Arc::new(Matrix::Dense(DenseMatrix::filled(1, 1, v))))
            }
        };
        inputs.insert(name.clone(), input);
    }
    engine.run(&root.expr, &inputs).map(Value::matrix)
}
