//! FROSTT `.tns` files: one entry per line, `i1 i2 ... in value` with 1-based coordinates;
//! `#` comment lines. The dims are the largest coordinate of each mode (the format has no
//! header), unless a `# dims [..]` comment (as [`super::write_tensor`] writes) gives them.

use std::path::Path;

use super::{line_error, read_text};
use crate::tensor::CooTensor;
use crate::TensorError;

pub fn read(path: &Path) -> Result<CooTensor, TensorError> {
    parse(&read_text(path)?, path)
}

pub fn parse(text: &str, path: &Path) -> Result<CooTensor, TensorError> {
    let mut order: Option<usize> = None;
    let mut entries: Vec<(Vec<u32>, f64)> = vec![];
    let mut dims: Vec<usize> = vec![];
    let mut declared: Option<(Vec<usize>, f64)> = None;
    for (k, line) in text.lines().enumerate() {
        let lineno = k + 1;
        let line = line.trim();
        if let Some(comment) = line.strip_prefix('#') {
            if let Some(rest) = comment.trim().strip_prefix("dims") {
                declared = parse_dims_comment(rest);
            }
            continue;
        }
        if line.is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        let n = fields.len() - 1;
        match order {
            None => {
                order = Some(n);
                dims = vec![0; n];
            }
            Some(o) if o != n => {
                return Err(line_error(
                    path,
                    lineno,
                    format!("{} coordinates, but earlier lines have {o}", n),
                ))
            }
            _ => {}
        }
        let v: f64 = fields[n]
            .parse()
            .map_err(|_| line_error(path, lineno, format!("malformed value `{}`", fields[n])))?;
        let mut c = Vec::with_capacity(n);
        for (m, f) in fields[..n].iter().enumerate() {
            let x: u64 = f
                .parse()
                .map_err(|_| line_error(path, lineno, format!("malformed coordinate `{f}`")))?;
            if x == 0 || x > u32::MAX as u64 {
                return Err(line_error(
                    path,
                    lineno,
                    format!("coordinate {x} out of range (coordinates are 1-based)"),
                ));
            }
            dims[m] = dims[m].max(x as usize);
            c.push((x - 1) as u32);
        }
        entries.push((c, v));
    }
    let fill = match declared {
        Some((d, fill)) => {
            if order.is_some_and(|o| o != d.len()) || d.iter().zip(&dims).any(|(a, b)| a < b) {
                return Err(TensorError::Invalid(format!(
                    "{}: entries fall outside the declared dims {d:?}",
                    path.display()
                )));
            }
            if order == Some(0) || (order.is_none() && d.is_empty()) {
                let v = entries.first().map_or(fill, |e| e.1);
                return Ok(CooTensor::scalar(v));
            }
            // A tensor with no stored entries (all fill) takes its order from the dims.
            order = Some(d.len());
            dims = d;
            fill
        }
        None => 0.0,
    };
    if order.is_none() {
        return Err(TensorError::Invalid(format!(
            "{}: no entries and no `# dims` line, so the tensor's order is unknown",
            path.display()
        )));
    }
    CooTensor::from_entries(dims, entries, fill)
}

/// `[3, 4] fill 0` → dims and fill.
fn parse_dims_comment(rest: &str) -> Option<(Vec<usize>, f64)> {
    let (dims, fill) = rest.split_once("fill")?;
    let dims = dims.trim().strip_prefix('[')?.strip_suffix(']')?;
    let dims: Option<Vec<usize>> = dims
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().ok())
        .collect();
    Some((dims?, fill.trim().parse().ok()?))
}
