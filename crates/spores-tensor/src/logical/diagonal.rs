//! Accesses with a repeated index (`A[i,i]`, `B[i,j,i]`), read as Einstein notation reads
//! them: only the cells whose modes sharing an index agree, a generalized diagonal.
//!
//! They are lowered before planning, so that statistics, elimination orders, loop orders
//! and the engine only ever see accesses with distinct indices:
//! - the diagonal of an input becomes a derived input, extracted from the data once and
//!   named after the pattern of its modes (`A[i,j,i]` reads `A~010[i,j]`); its statistics
//!   are the diagonal's own;
//! - the diagonal of an earlier query becomes a query of its own (`B~00[p] = ..`): the
//!   query's right-hand side with the indices that share a mode renamed to one (its
//!   aggregates' indices renamed apart first), so the diagonal is computed directly rather
//!   than from the whole of `B`.

use std::collections::{BTreeSet, HashMap, HashSet};

use super::normalize::{rename_bound, rename_free};
use crate::plan_ast::{Expr, Idx, Program, Query};
use crate::tensor::{first_modes, CooTensor};
use crate::TensorError;

/// A program without repeated indices and the inputs it reads: those of the given ones it
/// still reads whole (copies) and the diagonals it reads instead of the others.
#[derive(Clone, Debug)]
pub struct Lowered {
    pub program: Program,
    pub inputs: HashMap<String, CooTensor>,
}

/// Whether some access of `program` repeats an index.
pub fn has_repeated_indices(program: &Program) -> bool {
    let mut found = false;
    for q in &program.queries {
        q.expr.for_each_access(&mut |a| {
            if let Expr::Input { idxs, .. } | Expr::Alias { idxs, .. } = a {
                found |= groups(idxs).is_some();
            }
        });
    }
    found
}

/// `program` with every access that repeats an index replaced by an access of the
/// diagonal it reads; `None` when no access repeats an index (nothing to copy).
pub fn lower_repeated_indices(
    program: &Program,
    inputs: &HashMap<String, CooTensor>,
) -> Result<Option<Lowered>, TensorError> {
    if !has_repeated_indices(program) {
        return Ok(None);
    }
    let mut l = Lowering {
        inputs,
        diagonals: HashMap::new(),
        queries: vec![],
    };
    for q in &program.queries {
        let expr = l.expr(&q.expr)?;
        l.queries.push(Query::new(&q.name, q.idxs.clone(), expr));
    }
    // The inputs the lowered program still reads whole (copied), and the diagonals.
    let mut all = l.diagonals;
    for q in &l.queries {
        q.expr.for_each_access(&mut |a| {
            if let Expr::Input { tensor, .. } = a {
                if let (false, Some(t)) = (all.contains_key(tensor), inputs.get(tensor)) {
                    all.insert(tensor.clone(), t.clone());
                }
            }
        });
    }
    Ok(Some(Lowered {
        program: Program {
            queries: l.queries,
            outputs: program.outputs.clone(),
        },
        inputs: all,
    }))
}

/// Per mode, the number of its index in order of first occurrence (`[i,j,i]` gives
/// `[0,1,0]`); `None` when the indices are distinct.
fn groups(idxs: &[Idx]) -> Option<Vec<usize>> {
    let distinct: BTreeSet<&Idx> = idxs.iter().collect();
    if distinct.len() == idxs.len() {
        return None;
    }
    let mut firsts: Vec<&Idx> = vec![];
    Some(
        idxs.iter()
            .map(|i| match firsts.iter().position(|f| *f == i) {
                Some(g) => g,
                None => {
                    firsts.push(i);
                    firsts.len() - 1
                }
            })
            .collect(),
    )
}

/// The name of `name`'s diagonal of pattern `groups`.
fn diagonal_name(name: &str, groups: &[usize]) -> String {
    let sep = if groups.iter().any(|&g| g > 9) {
        "."
    } else {
        ""
    };
    let pattern: Vec<String> = groups.iter().map(usize::to_string).collect();
    format!("{name}~{}", pattern.join(sep))
}

/// The indices of `idxs` without repeats, in order of first occurrence.
fn distinct(idxs: &[Idx]) -> Vec<Idx> {
    let mut out: Vec<Idx> = vec![];
    for i in idxs {
        if !out.contains(i) {
            out.push(i.clone());
        }
    }
    out
}

struct Lowering<'a> {
    inputs: &'a HashMap<String, CooTensor>,
    /// The diagonals of inputs extracted so far, by name.
    diagonals: HashMap<String, CooTensor>,
    /// The queries lowered so far, the diagonals of queries among them.
    queries: Vec<Query>,
}

impl Lowering<'_> {
    fn expr(&mut self, e: &Expr) -> Result<Expr, TensorError> {
        Ok(match e {
            Expr::Literal(_) => e.clone(),
            Expr::Map { op, args } => Expr::map(
                op.clone(),
                args.iter()
                    .map(|a| self.expr(a))
                    .collect::<Result<_, _>>()?,
            ),
            Expr::Agg { op, idxs, body } => Expr::agg(*op, idxs.clone(), self.expr(body)?),
            Expr::Input { tensor, idxs } => match groups(idxs) {
                None => e.clone(),
                Some(g) => Expr::input(&self.input_diagonal(tensor, idxs, &g)?, distinct(idxs)),
            },
            Expr::Alias { name, idxs } => match groups(idxs) {
                None => e.clone(),
                Some(g) => Expr::alias(&self.query_diagonal(name, idxs, &g)?, distinct(idxs)),
            },
        })
    }

    fn input_diagonal(
        &mut self,
        tensor: &str,
        idxs: &[Idx],
        groups: &[usize],
    ) -> Result<String, TensorError> {
        let name = diagonal_name(tensor, groups);
        if self.diagonals.contains_key(&name) {
            return Ok(name);
        }
        let t = self
            .inputs
            .get(tensor)
            .ok_or_else(|| TensorError::Unknown(tensor.to_string()))?;
        if t.order() != idxs.len() {
            return Err(TensorError::Invalid(format!(
                "{tensor} has {} modes (dims {:?}) but is indexed by {} indices",
                t.order(),
                t.dims(),
                idxs.len()
            )));
        }
        // The diagonal holds at most the input's entries, each with fewer coordinates.
        let entry_bytes = 8.0 * (1 + t.order()) as f64;
        crate::engine::budget::ensure_fits(
            &format!("the diagonal {name} of {tensor}"),
            t.nnz() as f64 * entry_bytes,
        )?;
        let d = t
            .diagonal(groups)
            .map_err(|e| TensorError::Invalid(format!("{tensor}{idxs:?}: {e}")))?;
        self.diagonals.insert(name.clone(), d);
        Ok(name)
    }

    fn query_diagonal(
        &mut self,
        alias: &str,
        idxs: &[Idx],
        groups: &[usize],
    ) -> Result<String, TensorError> {
        let name = diagonal_name(alias, groups);
        if self.queries.iter().any(|q| q.name == name) {
            return Ok(name);
        }
        let q = self
            .queries
            .iter()
            .find(|q| q.name == alias)
            .ok_or_else(|| TensorError::Unknown(alias.to_string()))?;
        if q.idxs.len() != idxs.len() {
            return Err(TensorError::Invalid(format!(
                "{alias} has {} modes but is indexed by {} indices",
                q.idxs.len(),
                idxs.len()
            )));
        }
        // Each mode's index becomes the index of its group's first mode, once the
        // aggregates binding a name of the left-hand side are renamed apart (no capture).
        let firsts = first_modes(groups);
        let to: Vec<Idx> = groups.iter().map(|&g| q.idxs[firsts[g]].clone()).collect();
        let mut used: HashSet<Idx> = q.idxs.iter().cloned().collect();
        let apart = rename_bound(&q.expr, &mut used, &mut vec![]);
        let renamed = rename_free(&apart, &q.idxs, &to);
        let new_idxs: Vec<Idx> = firsts.iter().map(|&f| q.idxs[f].clone()).collect();
        let expr = self.expr(&renamed)?;
        self.queries.push(Query::new(&name, new_idxs, expr));
        Ok(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse_program;

    fn lowered(src: &str, inputs: &[(&str, CooTensor)]) -> Lowered {
        let p = parse_program(src).unwrap().program;
        let inputs = inputs
            .iter()
            .map(|(n, t)| (n.to_string(), t.clone()))
            .collect();
        lower_repeated_indices(&p, &inputs).unwrap().unwrap()
    }

    #[test]
    fn an_inputs_diagonal_is_a_derived_input() {
        let a = CooTensor::from_dense(vec![2, 2], &[1., 2., 3., 4.]).unwrap();
        let l = lowered("d[i,j] = A[i,i] * A[i,j]", &[("A", a)]);
        assert_eq!(l.program.to_string(), "d[i,j] = A~00[i] * A[i,j]\n");
        assert_eq!(l.inputs["A~00"].to_dense(), vec![1., 4.]);
        // An input read only through its diagonal is not copied.
        let b = CooTensor::from_dense(vec![2, 2], &[1., 2., 3., 4.]).unwrap();
        let l = lowered("d[i] = A[i,i]", &[("A", b)]);
        assert_eq!(l.inputs.keys().collect::<Vec<_>>(), vec!["A~00"]);
    }

    #[test]
    fn a_querys_diagonal_is_its_right_hand_side_renamed_without_capture() {
        let a = CooTensor::from_dense(vec![2, 2], &[1., 2., 3., 4.]).unwrap();
        let l = lowered(
            "B[p,q] = A[p,q] + sum[p](A[p,q] * A[q,p])\nt = sum[i](B[i,i])\noutput t",
            &[("A", a)],
        );
        assert_eq!(
            l.program.to_string(),
            "B[p,q] = A[p,q] + sum[p](A[p,q] * A[q,p])\n\
             B~00[p] = A~00[p] + sum[p_1](A[p_1,p] * A[p,p_1])\n\
             t = sum[i](B~00[i])\n"
        );
        assert_eq!(l.program.outputs, vec!["t"]);
    }

    #[test]
    fn programs_without_repeats_are_left_alone() {
        let p = parse_program("y[i] = sum[j](A[i,j])").unwrap().program;
        assert!(lower_repeated_indices(&p, &HashMap::new())
            .unwrap()
            .is_none());
    }
}
