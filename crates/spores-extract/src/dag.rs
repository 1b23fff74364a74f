//! The extraction problem with the e-graph details stripped off: classes, each with
//! candidate operators that have a cost of their own and child classes.
//!
//! Both extractors choose a [`Selection`] (one candidate per class they use) on this
//! graph, and both are judged by the same [`dag_cost`]: the sum over the classes the
//! selection reaches from the root of the chosen candidate's own cost, so a class used by
//! several parents (a common subexpression) is paid once, as the LA plan computes it once.
//! Keeping the problem this small is also what lets the tests state the paper's Figure 10
//! with exact costs.

/// One way to compute a class: an operator with its own cost and its operand classes.
#[derive(Clone, Debug, PartialEq)]
pub struct CandNode {
    /// The operator's own cost; not finite means the candidate cannot be used (its cost
    /// could not be estimated).
    pub cost: f64,
    pub children: Vec<usize>,
}

impl CandNode {
    /// An operator of cost `cost` over the classes `children`.
    pub fn new(cost: f64, children: &[usize]) -> CandNode {
        CandNode {
            cost,
            children: children.to_vec(),
        }
    }
}

/// Classes (by position) and their candidates; `root` is the class to compute.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CandGraph {
    pub classes: Vec<Vec<CandNode>>,
    pub root: usize,
}

/// The chosen candidate (position in its class) per class; `None` for classes not used.
pub type Selection = Vec<Option<usize>>;

impl CandGraph {
    fn node(&self, c: usize, n: usize) -> Option<&CandNode> {
        self.classes.get(c)?.get(n)
    }

    /// The bottom-up fixpoint of *tree* costs (a child's cost is counted once per use):
    /// each class's cheapest candidate and that tree cost, `None` where no finite plan
    /// exists. Updates only on strict improvement, so with non-negative costs the chosen
    /// candidates never form a cycle.
    pub fn tree_costs(&self) -> Vec<Option<(f64, usize)>> {
        let n = self.classes.len();
        let mut best: Vec<Option<(f64, usize)>> = vec![None; n];
        // Each round settles at least one more class's final value (Bellman-Ford-like),
        // so `n + 1` rounds always reach the fixpoint.
        for _ in 0..=n {
            let mut changed = false;
            for c in 0..n {
                for (idx, cand) in self.classes[c].iter().enumerate() {
                    if !cand.cost.is_finite() {
                        continue;
                    }
                    let mut total = cand.cost;
                    let mut ok = true;
                    for &ch in &cand.children {
                        match best.get(ch).copied().flatten() {
                            Some((cc, _)) => total += cc,
                            None => {
                                ok = false;
                                break;
                            }
                        }
                    }
                    if ok && best[c].is_none_or(|(b, _)| total < b) {
                        best[c] = Some((total, idx));
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
        best
    }

    /// A lower bound on the DAG cost of any plan for each class (infinite where there is
    /// none): a plan pays its root candidate plus a plan for each child, and those may
    /// overlap, so `lb(c) = min_n cost(n) + max_{d child of n} lb(d)`.
    pub fn lower_bounds(&self) -> Vec<f64> {
        let n = self.classes.len();
        let mut lb = vec![f64::INFINITY; n];
        for _ in 0..=n {
            let mut changed = false;
            for c in 0..n {
                for cand in &self.classes[c] {
                    if !cand.cost.is_finite() {
                        continue;
                    }
                    let mut below: f64 = 0.0;
                    for &d in &cand.children {
                        below = below.max(lb.get(d).copied().unwrap_or(f64::INFINITY));
                    }
                    let v = cand.cost + below;
                    if v < lb[c] {
                        lb[c] = v;
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
        lb
    }

    /// The greedy selection: every class's cheapest candidate by tree cost.
    pub fn greedy_selection(&self) -> Selection {
        self.tree_costs()
            .into_iter()
            .map(|b| b.map(|(_, idx)| idx))
            .collect()
    }
}

/// Why a selection has no DAG cost (see [`dag_cost`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DagCostError {
    #[error("root class out of range")]
    RootOutOfRange,
    /// A class the selection reaches has no choice.
    #[error("class {class} is used but has no chosen candidate")]
    NoChoice { class: usize },
    /// The choice names a candidate the class does not have.
    #[error("class {class} has no candidate {candidate}")]
    NoCandidate { class: usize, candidate: usize },
    /// The chosen candidate's cost is not finite.
    #[error("class {class}: candidate {candidate} has no cost")]
    NoCost { class: usize, candidate: usize },
    /// A chosen candidate names a class the graph does not have.
    #[error("class {class} refers to missing class {child}")]
    MissingClass { class: usize, child: usize },
    /// The choices form a cycle: no evaluation order exists.
    #[error("the selection is cyclic at {class}")]
    Cyclic { class: usize },
}

/// The DAG cost of `sel`: each class reachable from the root through chosen candidates
/// is paid once. Errors if a reachable class has no (valid) choice, a cost is not finite,
/// or the choices form a cycle (no evaluation order exists).
pub fn dag_cost(g: &CandGraph, sel: &Selection) -> Result<f64, DagCostError> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Open,
        Done,
    }
    let mut mark = vec![Mark::New; g.classes.len()];
    let mut total = 0.0;
    // Iterative DFS (deep plans must not overflow the stack): (class, next child).
    let mut stack: Vec<(usize, usize)> = Vec::new();
    let enter = |c: usize, mark: &mut [Mark], total: &mut f64| -> Result<(), DagCostError> {
        let n = sel
            .get(c)
            .copied()
            .flatten()
            .ok_or(DagCostError::NoChoice { class: c })?;
        let node = g.node(c, n).ok_or(DagCostError::NoCandidate {
            class: c,
            candidate: n,
        })?;
        if !node.cost.is_finite() {
            return Err(DagCostError::NoCost {
                class: c,
                candidate: n,
            });
        }
        *total += node.cost;
        mark[c] = Mark::Open;
        Ok(())
    };
    if g.root >= g.classes.len() {
        return Err(DagCostError::RootOutOfRange);
    }
    enter(g.root, &mut mark, &mut total)?;
    stack.push((g.root, 0));
    while let Some(&mut (c, ref mut next)) = stack.last_mut() {
        // `enter` checked that the selection is present.
        let node = &g.classes[c][sel[c].unwrap_or(0)];
        if let Some(&child) = node.children.get(*next) {
            *next += 1;
            match mark.get(child) {
                None => return Err(DagCostError::MissingClass { class: c, child }),
                Some(Mark::Open) => return Err(DagCostError::Cyclic { class: child }),
                Some(Mark::Done) => {}
                Some(Mark::New) => {
                    enter(child, &mut mark, &mut total)?;
                    stack.push((child, 0));
                }
            }
        } else {
            mark[c] = Mark::Done;
            stack.pop();
        }
    }
    Ok(total)
}

/// Strongly connected components of a graph given as adjacency lists (Tarjan,
/// iterative, so deep graphs cannot overflow the stack). Returns each node's component.
pub fn sccs(n: usize, edges: &[Vec<usize>]) -> Vec<usize> {
    const NONE: usize = usize::MAX;
    let mut index = vec![NONE; n];
    let mut low = vec![0usize; n];
    let mut on_stack = vec![false; n];
    let mut comp = vec![NONE; n];
    let mut stack: Vec<usize> = Vec::new();
    let mut next_index = 0;
    let mut next_comp = 0;
    for start in 0..n {
        if index[start] != NONE {
            continue;
        }
        let mut work: Vec<(usize, usize)> = vec![(start, 0)];
        index[start] = next_index;
        low[start] = next_index;
        next_index += 1;
        stack.push(start);
        on_stack[start] = true;
        while let Some(&mut (v, ref mut i)) = work.last_mut() {
            if let Some(&w) = edges[v].get(*i) {
                *i += 1;
                if w >= n {
                    continue;
                }
                if index[w] == NONE {
                    index[w] = next_index;
                    low[w] = next_index;
                    next_index += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
            } else {
                work.pop();
                if let Some(&(parent, _)) = work.last() {
                    low[parent] = low[parent].min(low[v]);
                }
                if low[v] == index[v] {
                    while let Some(w) = stack.pop() {
                        on_stack[w] = false;
                        comp[w] = next_comp;
                        if w == v {
                            break;
                        }
                    }
                    next_comp += 1;
                }
            }
        }
    }
    comp
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_classes_are_paid_once() {
        // root = f(a, a) with a = g(leaf).
        let g = CandGraph {
            classes: vec![
                vec![CandNode::new(1.0, &[1, 1])],
                vec![CandNode::new(10.0, &[2])],
                vec![CandNode::new(100.0, &[])],
            ],
            root: 0,
        };
        let sel = g.greedy_selection();
        assert_eq!(dag_cost(&g, &sel), Ok(111.0));
        assert_eq!(g.tree_costs()[0], Some((221.0, 0)));
    }

    #[test]
    fn cyclic_and_incomplete_selections_are_errors() {
        let g = CandGraph {
            classes: vec![
                vec![CandNode::new(1.0, &[1])],
                vec![CandNode::new(0.0, &[0]), CandNode::new(5.0, &[])],
            ],
            root: 0,
        };
        assert_eq!(
            dag_cost(&g, &vec![Some(0), Some(0)]),
            Err(DagCostError::Cyclic { class: 0 })
        );
        assert_eq!(
            DagCostError::Cyclic { class: 0 }.to_string(),
            "the selection is cyclic at 0"
        );
        assert!(dag_cost(&g, &vec![Some(0), None]).is_err());
        assert_eq!(dag_cost(&g, &vec![Some(0), Some(1)]), Ok(6.0));
        assert_eq!(g.greedy_selection(), vec![Some(0), Some(1)]);
    }

    #[test]
    fn components() {
        let edges = vec![vec![1], vec![2], vec![1, 3], vec![]];
        let c = sccs(4, &edges);
        assert_eq!(c[1], c[2]);
        assert_ne!(c[0], c[1]);
        assert_ne!(c[3], c[1]);
        assert_ne!(c[0], c[3]);
    }
}
