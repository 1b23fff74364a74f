//! SSA checks of a parsed module: every use names a value that is defined, visible and
//! dominates it, and no name is defined twice where it is visible.
//!
//! `mlir-opt` checks this too, but it is not always installed, and the optimizer treats
//! names as values: a module that uses `%x` before defining it, or defines `%x` twice,
//! would be rewritten and printed as invalid MLIR. So the reader checks, always, the rules
//! MLIR applies to the generic form:
//!
//! * Names. The generic form scopes names by region, without isolation (MLIR's generic
//!   parser opens every region as a nested, non-isolated name scope): a name defined in a
//!   region is visible in the regions nested in it, and defining a name that is visible
//!   where it is defined (textually: an enclosing region or this region defined it
//!   earlier) is a redefinition. An operation's results are defined after its regions,
//!   so its regions may reuse its result names.
//! * Dominance. A use in a block must follow the definition in the same block; a value of
//!   another block of the region must be defined in a block that dominates the using block
//!   (blocks no path reaches are dominated by every block, as in MLIR); a use inside a
//!   nested region counts as a use at the operation holding that region, so an operation
//!   cannot use its own results, even from inside its regions. Graph regions (the top level
//!   and `builtin.module`) have no dominance: a use may come before the definition.
//! * Isolation. The well-known operations whose regions are isolated from above
//!   ([`ISOLATED`]) may not use values of enclosing regions. Other dialects' isolated
//!   operations are not known here; `mlir-opt` checks them when it is installed.
//!
//! Positions come from the parser: the byte offset of every definition and use, in the
//! order it read them ([`verify`]).

use std::collections::HashMap;

use crate::ir::{Block, BlockArg, Module, Operation, Value};

/// Operations whose regions are graph regions (no dominance inside a block), as MLIR's
/// `RegionKindInterface` says for the builtin dialect. Unregistered operations have SSA
/// dominance in MLIR, so this list is all the reader needs.
const GRAPH: &[&str] = &["builtin.module"];

/// Operations whose regions are isolated from above: they may not use values defined
/// outside them. Only operations of upstream dialects whose isolation is certain.
const ISOLATED: &[&str] = &[
    "builtin.module",
    "func.func",
    "llvm.func",
    "gpu.module",
    "gpu.func",
];

/// What is wrong, at byte offset `at` of the text; offsets inside name other places.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SsaError {
    pub at: usize,
    pub kind: SsaErrorKind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum SsaErrorKind {
    /// No definition of the name is visible here.
    Undefined { value: String },
    /// Defined later in the same block, at `def`.
    UsedBeforeDefinition { value: String, def: usize },
    /// A result of the operation that uses it (directly or from one of its regions).
    UsesOwnResult { value: String },
    /// Defined at `def`, in block `block`, which does not dominate the use.
    NotDominating {
        value: String,
        def: usize,
        block: String,
    },
    /// The name is visible already, defined at `first`.
    Redefinition { name: String, first: usize },
    /// `%r#index` of a group of `count` results.
    NoSuchResult {
        value: String,
        index: u32,
        count: u32,
    },
    /// Defined outside the isolated operation `op`, at `def`.
    OutsideIsolated {
        value: String,
        op: String,
        def: usize,
    },
    /// A successor names no block of the region.
    UndefinedBlock { label: String },
    /// Two blocks of one region with the same label; the first at `first`.
    DuplicateBlock { label: String, first: usize },
}

/// Checks `module`; `positions` are the byte offsets of its definitions and uses in the
/// order the parser read them (per operation: result groups, operands, successors (label,
/// operands), then its regions' blocks: label, arguments, operations).
pub(crate) fn verify(module: &Module, positions: &[usize]) -> Result<(), SsaError> {
    let mut at = Positions::default();
    let mut next = positions.iter().copied();
    for op in &module.ops {
        at.assign(op, &mut next);
    }
    let top = [BlockRef {
        label: None,
        args: &[],
        ops: &module.ops,
    }];
    let mut checker = Checker {
        at,
        levels: Vec::new(),
    };
    checker.region(&top, true, None)
}

/// The offsets of definitions and uses, by the address of the IR node that holds them.
/// The module is borrowed for the whole check, so addresses are stable keys.
#[derive(Default)]
struct Positions {
    of: HashMap<usize, usize>,
}

impl Positions {
    fn assign(&mut self, op: &Operation, next: &mut impl Iterator<Item = usize>) {
        for g in &op.results {
            self.put(g, next);
        }
        for v in &op.operands {
            self.put(v, next);
        }
        for s in &op.successors {
            self.put(s, next);
            for v in &s.args {
                self.put(v, next);
            }
        }
        for r in &op.regions {
            for b in &r.blocks {
                if b.label.is_some() {
                    self.put(b, next);
                }
                for a in &b.args {
                    self.put(a, next);
                }
                for inner in &b.ops {
                    self.assign(inner, next);
                }
            }
        }
    }

    fn put<T>(&mut self, node: &T, next: &mut impl Iterator<Item = usize>) {
        let offset = next.next().unwrap_or(0);
        self.of.insert(node as *const T as usize, offset);
    }

    fn get<T>(&self, node: &T) -> usize {
        self.of
            .get(&(node as *const T as usize))
            .copied()
            .unwrap_or(0)
    }
}

/// A block as the checker sees it; the top level of a file is one block without a label.
struct BlockRef<'m> {
    /// The label and its offset.
    label: Option<(&'m str, usize)>,
    args: &'m [BlockArg],
    ops: &'m [Operation],
}

impl<'m> BlockRef<'m> {
    fn new(b: &'m Block, at: &Positions) -> Self {
        BlockRef {
            label: b.label.as_deref().map(|l| (l, at.get(b))),
            args: &b.args,
            ops: &b.ops,
        }
    }
}

/// Where a value is defined in its region.
#[derive(Clone, Copy)]
struct Def {
    at: usize,
    count: u32,
    block: usize,
    /// The defining operation's index in its block; `None` for a block argument.
    op: Option<usize>,
}

/// A region being checked.
struct Level<'m> {
    /// Every definition directly in the region (the first of a name), for uses that may
    /// come before the definition in the text (other blocks, graph regions).
    defs: HashMap<&'m str, Def>,
    /// The names defined so far in the text, for redefinitions.
    seen: HashMap<&'m str, usize>,
    graph: bool,
    /// The operation holding the region, when it is isolated from above.
    isolated: Option<&'m str>,
    /// The block and operation being checked.
    cursor: (usize, usize),
    labels: Vec<Option<&'m str>>,
    successors: Vec<Vec<usize>>,
    dominators: Option<DomTree>,
}

struct Checker<'m> {
    at: Positions,
    levels: Vec<Level<'m>>,
}

impl<'m> Checker<'m> {
    fn region(
        &mut self,
        blocks: &[BlockRef<'m>],
        graph: bool,
        isolated: Option<&'m str>,
    ) -> Result<(), SsaError> {
        let level = self.collect(blocks, graph, isolated)?;
        self.levels.push(level);
        for (bi, b) in blocks.iter().enumerate() {
            for a in b.args {
                self.define(&a.name, self.at.get(a))?;
            }
            for (oi, op) in b.ops.iter().enumerate() {
                self.top().cursor = (bi, oi);
                self.operation(op)?;
            }
        }
        self.levels.pop();
        Ok(())
    }

    fn top(&mut self) -> &mut Level<'m> {
        self.levels.last_mut().expect("a region is being checked")
    }

    /// The region's definitions, labels and control-flow edges.
    fn collect(
        &self,
        blocks: &[BlockRef<'m>],
        graph: bool,
        isolated: Option<&'m str>,
    ) -> Result<Level<'m>, SsaError> {
        let mut defs = HashMap::new();
        let mut label_at: HashMap<&str, usize> = HashMap::new();
        for (bi, b) in blocks.iter().enumerate() {
            if let Some((label, at)) = b.label {
                if let Some(&first) = label_at.get(label) {
                    let kind = SsaErrorKind::DuplicateBlock {
                        label: label.to_string(),
                        first,
                    };
                    return Err(SsaError { at, kind });
                }
                label_at.insert(label, at);
            }
            for a in b.args {
                let def = Def {
                    at: self.at.get(a),
                    count: 1,
                    block: bi,
                    op: None,
                };
                defs.entry(a.name.as_str()).or_insert(def);
            }
            for (oi, op) in b.ops.iter().enumerate() {
                for g in &op.results {
                    let def = Def {
                        at: self.at.get(g),
                        count: g.count,
                        block: bi,
                        op: Some(oi),
                    };
                    defs.entry(g.name.as_str()).or_insert(def);
                }
            }
        }
        let labels: Vec<Option<&str>> = blocks.iter().map(|b| b.label.map(|l| l.0)).collect();
        let index: HashMap<&str, usize> = labels
            .iter()
            .enumerate()
            .filter_map(|(i, l)| l.map(|l| (l, i)))
            .collect();
        let mut successors = vec![Vec::new(); blocks.len()];
        for (bi, b) in blocks.iter().enumerate() {
            for op in b.ops {
                for s in &op.successors {
                    match index.get(s.label.as_str()) {
                        Some(&to) => successors[bi].push(to),
                        None => {
                            let at = self.at.get(s);
                            let kind = SsaErrorKind::UndefinedBlock {
                                label: s.label.clone(),
                            };
                            return Err(SsaError { at, kind });
                        }
                    }
                }
            }
        }
        Ok(Level {
            defs,
            seen: HashMap::new(),
            graph,
            isolated,
            cursor: (0, 0),
            labels,
            successors,
            dominators: None,
        })
    }

    fn operation(&mut self, op: &'m Operation) -> Result<(), SsaError> {
        for v in &op.operands {
            self.use_value(v)?;
        }
        for s in &op.successors {
            for v in &s.args {
                self.use_value(v)?;
            }
        }
        let graph = GRAPH.contains(&op.name.as_str());
        let isolated = ISOLATED
            .contains(&op.name.as_str())
            .then_some(op.name.as_str());
        for r in &op.regions {
            let blocks: Vec<BlockRef<'m>> = r
                .blocks
                .iter()
                .map(|b| BlockRef::new(b, &self.at))
                .collect();
            self.region(&blocks, graph, isolated)?;
        }
        // Results after the regions, as MLIR's parser defines them.
        for g in &op.results {
            self.define(&g.name, self.at.get(g))?;
        }
        Ok(())
    }

    /// Defines `name` at offset `at` in the innermost region, unless it is visible already.
    fn define(&mut self, name: &'m str, at: usize) -> Result<(), SsaError> {
        for level in self.levels.iter().rev() {
            if let Some(&first) = level.seen.get(name) {
                let kind = SsaErrorKind::Redefinition {
                    name: format!("%{name}"),
                    first,
                };
                return Err(SsaError { at, kind });
            }
        }
        self.top().seen.insert(name, at);
        Ok(())
    }

    fn use_value(&mut self, v: &Value) -> Result<(), SsaError> {
        let at = self.at.get(v);
        let value = shown(v);
        let err = |kind| Err(SsaError { at, kind });
        // The innermost region defining the name, and the isolated operation crossed to
        // reach it, if any.
        let mut crossed = None;
        let mut found = None;
        for (li, level) in self.levels.iter().enumerate().rev() {
            if let Some(def) = level.defs.get(v.name.as_str()) {
                found = Some((li, *def));
                break;
            }
            crossed = crossed.or(level.isolated);
        }
        let Some((li, def)) = found else {
            return err(SsaErrorKind::Undefined { value });
        };
        if let Some(op) = crossed {
            let op = op.to_string();
            return err(SsaErrorKind::OutsideIsolated {
                value,
                op,
                def: def.at,
            });
        }
        let index = v.index.unwrap_or(0);
        if index >= def.count {
            let count = def.count;
            return err(SsaErrorKind::NoSuchResult {
                value,
                index,
                count,
            });
        }
        let level = &mut self.levels[li];
        if level.graph {
            return Ok(());
        }
        let (block, op) = level.cursor;
        if def.block == block {
            return match def.op {
                Some(d) if d == op => err(SsaErrorKind::UsesOwnResult { value }),
                Some(d) if d > op => err(SsaErrorKind::UsedBeforeDefinition { value, def: def.at }),
                _ => Ok(()),
            };
        }
        let successors = &level.successors;
        let tree = level
            .dominators
            .get_or_insert_with(|| DomTree::new(successors));
        if tree.dominates(def.block, block) {
            return Ok(());
        }
        let label = level.labels[def.block].unwrap_or("entry");
        err(SsaErrorKind::NotDominating {
            value,
            def: def.at,
            block: format!("^{label}"),
        })
    }
}

/// `%x` or `%r#1`, as written.
fn shown(v: &Value) -> String {
    match v.index {
        Some(i) => format!("%{}#{i}", v.name),
        None => format!("%{}", v.name),
    }
}

/// The dominator tree of a region's blocks (block 0 is the entry), numbered so that a
/// dominance query is two comparisons (Cooper, Harvey and Kennedy's iteration).
struct DomTree {
    /// Preorder and postorder numbers in the dominator tree; `None` when no path from the
    /// entry reaches the block.
    pre: Vec<Option<usize>>,
    post: Vec<usize>,
}

impl DomTree {
    fn new(successors: &[Vec<usize>]) -> Self {
        let n = successors.len();
        // Reverse postorder of the blocks reachable from the entry (iterative DFS).
        let mut order = Vec::new();
        let mut visited = vec![false; n];
        let mut stack = vec![(0usize, 0usize)];
        if n > 0 {
            visited[0] = true;
        }
        while let Some((b, i)) = stack.pop() {
            if let Some(&s) = successors[b].get(i) {
                stack.push((b, i + 1));
                if !visited[s] {
                    visited[s] = true;
                    stack.push((s, 0));
                }
            } else {
                order.push(b);
            }
        }
        order.reverse();
        let mut rpo = vec![usize::MAX; n];
        for (i, &b) in order.iter().enumerate() {
            rpo[b] = i;
        }
        let mut preds = vec![Vec::new(); n];
        for (b, ss) in successors.iter().enumerate() {
            for &s in ss {
                if rpo[b] != usize::MAX {
                    preds[s].push(b);
                }
            }
        }
        let mut idom = vec![usize::MAX; n];
        if n > 0 {
            idom[0] = 0;
        }
        let mut changed = true;
        while changed {
            changed = false;
            for &b in order.iter().skip(1) {
                let mut new = usize::MAX;
                for &p in &preds[b] {
                    if idom[p] == usize::MAX {
                        continue;
                    }
                    new = if new == usize::MAX {
                        p
                    } else {
                        intersect(&idom, &rpo, p, new)
                    };
                }
                if new != idom[b] {
                    idom[b] = new;
                    changed = true;
                }
            }
        }
        Self::numbered(&idom, &order)
    }

    /// Pre- and postorder numbers of the tree `idom` describes.
    fn numbered(idom: &[usize], order: &[usize]) -> Self {
        let n = idom.len();
        let mut children = vec![Vec::new(); n];
        for &b in order.iter().skip(1) {
            children[idom[b]].push(b);
        }
        let mut pre = vec![None; n];
        let mut post = vec![0; n];
        let (mut next_pre, mut next_post) = (0, 0);
        let mut stack = Vec::new();
        if n > 0 {
            stack.push((0usize, 0usize));
            pre[0] = Some(0);
            next_pre = 1;
        }
        while let Some((b, i)) = stack.pop() {
            if let Some(&c) = children[b].get(i) {
                stack.push((b, i + 1));
                pre[c] = Some(next_pre);
                next_pre += 1;
                stack.push((c, 0));
            } else {
                post[b] = next_post;
                next_post += 1;
            }
        }
        DomTree { pre, post }
    }

    /// Whether block `a` dominates block `b`; every block dominates an unreachable one.
    fn dominates(&self, a: usize, b: usize) -> bool {
        match (self.pre[a], self.pre[b]) {
            (_, None) => true,
            (None, Some(_)) => false,
            (Some(pa), Some(pb)) => pa <= pb && self.post[b] <= self.post[a],
        }
    }
}

/// The nearest common dominator of `a` and `b` (both reachable, with dominators known).
fn intersect(idom: &[usize], rpo: &[usize], mut a: usize, mut b: usize) -> usize {
    while a != b {
        while rpo[a] > rpo[b] {
            a = idom[a];
        }
        while rpo[b] > rpo[a] {
            b = idom[b];
        }
    }
    a
}
