//! Guarded plans: the optimizer rewrites as if every value were finite, and each
//! rewritten root checks, when it runs, that what it reads is.
//!
//! The rewrites hold over the real numbers, not over NaN and ±Inf (`Inf * (x - x)` is 0,
//! `Inf * x - Inf * x` is NaN). A root of a block (see [`crate::opt::convert`]) is an LA
//! tree over *inputs*: values it reads (block variables, other roots, results of calls,
//! indexing, scalar arithmetic). For each root the optimizer decides, from
//! [`super::finite`]:
//!
//! * **Free**: nothing the root reads or computes can be non-finite (the block's inputs
//!   are known exactly: each matrix records once whether its cells are finite). The
//!   rewritten root is used as is.
//! * **As written**: it reads a block input known to hold NaN or Inf (the optimizer's
//!   plan cache keys on that fact, so the finite case gets its own plan), or an operator
//!   *inside* its tree can make NaN or Inf from finite operands (`/`, `exp`, `log`, a
//!   non-integer power). Such a value is never materialized by the rewritten plan, so it
//!   could only be checked by computing what the rewrite saves: `sum(X * log(U %*% t(V)))`
//!   would lose its masked evaluation. At the top of the tree such an operator is
//!   harmless: the rewritten plan applies it to values equal to the as-written ones.
//! * **Guarded**: some inputs may be non-finite, and only when the block runs is it known
//!   (`alpha = rr / sum(D * HD)` read by `S + alpha * D`; a matrix returned by a call; a
//!   block input left unchecked, see [`crate::dag::input::Finiteness::Unchecked`]). The
//!   root becomes an [`Op::Guarded`] node whose children are the rewritten value and the
//!   as-written root's inputs. When it runs it asks each input that may be non-finite
//!   whether it is — for a matrix a flag computed once and cached on the matrix, so a
//!   value read by several roots or in several runs is scanned at most once, and a
//!   scalar is one comparison — and uses the rewritten value if all are finite. Otherwise
//!   it evaluates the root as written from the same inputs, planned as `--no-opt` plans
//!   it (`runtime::guard`), so the block prints exactly the unoptimized numbers.
//!
//! A rewritten root that only fuses operators (its expansion is the root as written)
//! drops its guard (`crate::opt::SporesOptimizer` does not add it): a fused kernel computes its operands as
//! written when they are not finite, and `sddmm_sum` and `mmchain` learn that in their
//! own pass over `X`, so `t(X) %*% (X %*% v)` on an unchecked `X` reads it once.
//!
//! The guard is a node of the block's DAG, so the plan caches (the optimizer's per input
//! signature, the interpreter's physical plans) keep it like any other node and the
//! decision is made afresh on every run. The rewritten value is the node's first child
//! and is computed before the check: a fallback costs both plans, which only happens when
//! a NaN or Inf is there. Overflow of finite values to Inf inside a rewritten plan is
//! not covered.

use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::sync::atomic::AtomicBool;

use super::finite::makes_non_finite;
use super::{BlockDag, Dag, NodeId, Op};
use crate::dag::input::InputMeta;

/// What an [`Op::Guarded`] node falls back to, and what it checks.
#[derive(Debug)]
pub struct GuardedRoot {
    /// The root as written: one input per guard child after the first, named by
    /// [`GuardedRoot::input_name`], and one output, the root's value.
    pub as_written: BlockDag,
    /// The inputs (indices among the guard's children after the first) that may hold
    /// NaN or Inf, checked before the rewritten value is used.
    pub checked: Vec<usize>,
    /// The root's node in the block as lowered (named in `--explain`).
    pub root: NodeId,
    /// Whether a fallback was already reported under `--explain`.
    pub reported: AtomicBool,
}

/// Identity: each guard is its own node (never merged with another).
impl PartialEq for GuardedRoot {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
    }
}

impl Eq for GuardedRoot {}

impl Hash for GuardedRoot {
    fn hash<H: Hasher>(&self, state: &mut H) {
        std::ptr::hash(self, state);
    }
}

impl GuardedRoot {
    /// The name of the as-written block's `k`-th input.
    pub fn input_name(k: usize) -> String {
        format!("_in{k}")
    }
}

/// How a rewritten root may be used (see the module documentation).
#[derive(Debug)]
pub enum Verdict {
    Free,
    /// The guard, and the nodes of the block its inputs are (in input order).
    Guarded(GuardedRoot, Vec<NodeId>),
    /// Why the root stays as written.
    AsWritten(String),
}

/// Decides how the root at `root` may be rewritten. `tree` lists the LA nodes its
/// expression stands for (the root included; see [`crate::opt::convert::Root`]);
/// `non_finite` is [`super::finite::may_be_non_finite`] of the block.
pub fn guard(
    dag: &Dag,
    root: NodeId,
    tree: &[NodeId],
    non_finite: &[bool],
    inputs: &HashMap<String, InputMeta>,
) -> Verdict {
    let in_tree: HashSet<NodeId> = tree.iter().copied().collect();
    let mut order: Vec<NodeId> = in_tree.iter().copied().collect();
    order.sort_unstable();
    let mut as_written = Dag::new();
    let mut remap: HashMap<NodeId, NodeId> = HashMap::new();
    let mut frontier: Vec<NodeId> = Vec::new();
    let mut checked = Vec::new();
    for &id in &order {
        let node = dag.node(id);
        if id != root && makes_non_finite(dag, id) {
            return Verdict::AsWritten(format!(
                "%{id} ({}) may make NaN or Inf inside it",
                node.op.name()
            ));
        }
        for &c in &node.children {
            if remap.contains_key(&c) {
                continue;
            }
            let child = dag.node(c);
            let new = match &child.op {
                Op::Literal(_) if makes_non_finite(dag, c) => {
                    return Verdict::AsWritten(format!("it uses the constant {}", child.op.name()))
                }
                Op::Literal(_) => as_written.add(child.op.clone(), vec![], child.span),
                _ => {
                    if let Op::Input(name) = &child.op {
                        if inputs.get(name).is_some_and(InputMeta::is_known_non_finite) {
                            return Verdict::AsWritten(format!("`{name}` holds NaN or Inf"));
                        }
                    }
                    if non_finite[c] {
                        checked.push(frontier.len());
                    }
                    let name = GuardedRoot::input_name(frontier.len());
                    frontier.push(c);
                    as_written.add(Op::Input(name), vec![], child.span)
                }
            };
            remap.insert(c, new);
        }
        let children = node.children.iter().map(|c| remap[c]).collect();
        let new = as_written.add(node.op.clone(), children, node.span);
        remap.insert(id, new);
    }
    if checked.is_empty() {
        return Verdict::Free;
    }
    let guarded = GuardedRoot {
        as_written: BlockDag {
            outputs: vec![(String::new(), remap[&root])],
            effects: Vec::new(),
            span: dag.node(root).span,
            dag: as_written,
        },
        checked,
        root,
        reported: AtomicBool::new(false),
    };
    Verdict::Guarded(guarded, frontier)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dag::lower_source;
    use crate::opt::convert::extract;
    use spores_exec::Shape;

    /// The verdict for each LA root of the last statement of `src`, with the inputs
    /// `X` (finite unless named in `non_finite`) of shape 4x3.
    fn verdicts(src: &str, non_finite_inputs: &[&str]) -> Vec<(String, String)> {
        let block = lower_source(src).unwrap();
        let inputs: HashMap<String, InputMeta> = ["X", "Y"]
            .iter()
            .map(|name| {
                let meta = InputMeta::Matrix {
                    shape: Shape::new(4, 3),
                    nnz: 12,
                    finite: (!non_finite_inputs.contains(name)).into(),
                };
                (name.to_string(), meta)
            })
            .collect();
        let meta = crate::dag::meta::infer(&block.dag, &inputs);
        let non_finite = crate::dag::finite::may_be_non_finite(&block.dag, &inputs);
        extract(&block, &meta)
            .roots
            .iter()
            .map(|r| {
                let verdict = match guard(&block.dag, r.node, &r.tree, &non_finite, &inputs) {
                    Verdict::Free => "free".to_string(),
                    Verdict::Guarded(g, frontier) => format!(
                        "guarded: checks {:?} of {} inputs",
                        g.checked,
                        frontier.len()
                    ),
                    Verdict::AsWritten(why) => format!("as written: {why}"),
                };
                (r.expr.to_string(), verdict)
            })
            .collect()
    }

    #[test]
    fn finite_inputs_need_no_guard() {
        let v = verdicts("Z = t(X) %*% (X * 2) + 1", &[]);
        assert_eq!(v.len(), 1, "{v:?}");
        assert_eq!(v[0].1, "free", "{v:?}");
    }

    #[test]
    fn a_known_non_finite_input_keeps_the_root_as_written() {
        let v = verdicts("Z = t(X) %*% Y", &["Y"]);
        assert_eq!(v[0].1, "as written: `Y` holds NaN or Inf", "{v:?}");
    }

    /// `s = 1 / sum(X)` may be Inf: the root reading it checks it (one input of two).
    #[test]
    fn a_value_computed_by_division_is_checked() {
        let v = verdicts("s = 1 / sum(X)\nZ = t(X) %*% (X * s)", &[]);
        let z = v
            .iter()
            .find(|(e, _)| e.contains("%*%"))
            .expect("the product");
        assert_eq!(z.1, "guarded: checks [1] of 2 inputs", "{v:?}");
    }

    /// A division inside the tree is never materialized by a rewritten plan: as written.
    /// At the top it is harmless.
    #[test]
    fn a_division_inside_the_tree_keeps_it_as_written_and_at_the_top_does_not() {
        let v = verdicts("Z = t(X) %*% (X / Y)", &[]);
        assert!(v[0].1.starts_with("as written: %"), "{v:?}");
        assert!(
            v[0].1.ends_with("(/) may make NaN or Inf inside it"),
            "{v:?}"
        );
        let v = verdicts("Z = (t(X) %*% X) / (t(Y) %*% Y)", &[]);
        assert_eq!(v[0].1, "free", "{v:?}");
    }
}
