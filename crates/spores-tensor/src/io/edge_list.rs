//! Edge lists: `u v [w]` per line (0-based vertex ids, weight 1 when absent), `#` or `%`
//! comment lines. The result is the `n x n` adjacency matrix, `n` = largest id + 1;
//! repeated edges add up.

use std::path::Path;

use super::{line_error, read_text};
use crate::tensor::CooTensor;
use crate::TensorError;

pub fn read(path: &Path) -> Result<CooTensor, TensorError> {
    parse(&read_text(path)?, path)
}

pub fn parse(text: &str, path: &Path) -> Result<CooTensor, TensorError> {
    let mut entries = vec![];
    let mut n = 0usize;
    for (k, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with('%') {
            continue;
        }
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() < 2 || f.len() > 3 {
            return Err(line_error(path, k + 1, "expected `u v` or `u v w`"));
        }
        let id = |s: &str| -> Result<u32, TensorError> {
            s.parse::<u32>()
                .map_err(|_| line_error(path, k + 1, format!("malformed vertex id `{s}`")))
        };
        let (u, v) = (id(f[0])?, id(f[1])?);
        let w = match f.get(2) {
            Some(s) => s
                .parse::<f64>()
                .map_err(|_| line_error(path, k + 1, format!("malformed weight `{s}`")))?,
            None => 1.0,
        };
        n = n.max(u as usize + 1).max(v as usize + 1);
        entries.push((vec![u, v], w));
    }
    CooTensor::from_entries(vec![n, n], entries, 0.0)
}
