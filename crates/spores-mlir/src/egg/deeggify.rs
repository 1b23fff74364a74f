//! egglog → MLIR: per block, extract the cheapest terms for what the block's anchors use and
//! print them as ops before their first use.
//!
//! Each optimized block is one extraction problem on the shared [`CandGraph`] machinery of
//! the LA optimizer: the classes reachable from the block's roots (the operands of its
//! anchors, and the outer values its nested regions use), a synthetic root over them, and
//! per class its e-nodes with their costs. A leaf is a candidate only where it is in scope
//! (defined in the block or before it in an enclosing block); a class already printed in an
//! enclosing block has a free candidate (reuse that value). The selection is priced as a DAG
//! (shared values paid once) and printed as SSA: a class chosen several times is one op.
//!
//! If a selection cannot be put in order (a term uses an anchor's result before that anchor),
//! the block is printed as written instead, so the result is always a valid program.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use egglog::Value as EClass;
use spores_extract::dag::{dag_cost, CandGraph, CandNode, Selection};

use crate::builtin::Attribute;
use crate::ir::{Block, NamedAttr, Operation, Region, ResultGroup, Value};

use super::eggify::{Eggified, PAnchor, PBlock, ShellKey, ValId};
use super::snapshot::{NodeKind, Snapshot};
use super::Extractor;

/// What the emitter did.
#[derive(Clone, Debug, Default)]
pub struct EmitStats {
    /// Blocks whose ops were extracted from the e-graph.
    pub blocks_optimized: usize,
    /// Blocks printed as written because their extraction could not be ordered.
    pub blocks_fallback: usize,
    /// Sum of the DAG costs of the blocks' selections.
    pub cost: f64,
    /// Time spent choosing (building candidate graphs and selecting), within de-eggifying.
    pub selection_time: Duration,
    /// Whether an ILP selection fell back to greedy somewhere.
    pub ilp_fell_back: bool,
}

/// A chosen way to compute a class.
#[derive(Clone, Copy, Debug)]
enum Choice {
    /// The class is already a value in scope.
    Named,
    /// The node at this position in the class.
    Node(usize),
}

struct Frame {
    /// Classes with a value in scope, and that value.
    names: HashMap<EClass, Value>,
    /// Leaves defined so far.
    defined: HashSet<ValId>,
}

/// Rebuilds a module from the skeleton and the saturated e-graph.
pub struct Emitter<'a> {
    egg: &'a Eggified,
    snap: &'a Snapshot<'a>,
    extractor: Extractor,
    frames: Vec<Frame>,
    next_fresh: usize,
    pub stats: EmitStats,
}

/// Why a block could not be emitted from its selection.
struct Unordered;

impl<'a> Emitter<'a> {
    pub fn new(egg: &'a Eggified, snap: &'a Snapshot<'a>, extractor: Extractor) -> Self {
        Emitter {
            egg,
            snap,
            extractor,
            frames: vec![Frame {
                names: HashMap::new(),
                defined: HashSet::new(),
            }],
            next_fresh: 0,
            stats: EmitStats::default(),
        }
    }

    /// Emits the top-level ops.
    pub fn module_ops(&mut self) -> Vec<Operation> {
        let egg = self.egg;
        egg.top.iter().map(|a| self.anchor(a)).collect()
    }

    fn fresh(&mut self) -> String {
        loop {
            let n = format!("x{}", self.next_fresh);
            self.next_fresh += 1;
            if !self.egg.names.contains(&n) {
                return n;
            }
        }
    }

    fn class_of(&self, id: ValId) -> Option<EClass> {
        self.snap.class_of.get(id).copied().flatten()
    }

    fn named(&self, c: EClass) -> Option<&Value> {
        self.frames.iter().rev().find_map(|f| f.names.get(&c))
    }

    fn is_defined(&self, id: ValId) -> bool {
        self.frames.iter().any(|f| f.defined.contains(&id))
    }

    fn frame(&mut self) -> &mut Frame {
        self.frames.last_mut().expect("a frame is open")
    }

    /// Names leaf `id` in the current frame (its class is then this value in scope).
    fn define_leaf(&mut self, id: ValId) {
        let name = self.egg.values[id].name.clone();
        let class = self.class_of(id);
        let f = self.frame();
        f.defined.insert(id);
        if let Some(c) = class {
            f.names.entry(c).or_insert(name);
        }
    }

    /// Re-emits an anchor: operands by their class's value in scope, regions recursively.
    fn anchor(&mut self, a: &PAnchor) -> Operation {
        let mut op = a.op.clone();
        for (slot, id) in op.operands.iter_mut().zip(&a.operands) {
            if let Some(v) = id
                .and_then(|id| self.class_of(id))
                .and_then(|c| self.named(c))
            {
                *slot = v.clone();
            }
        }
        op.regions = a
            .regions
            .iter()
            .map(|blocks| Region {
                blocks: blocks.iter().map(|b| self.block(b)).collect(),
            })
            .collect();
        op
    }

    fn block(&mut self, b: &PBlock) -> Block {
        self.frames.push(Frame {
            names: HashMap::new(),
            defined: HashSet::new(),
        });
        let out = if b.optimized {
            match self.optimized_block(b) {
                Ok(ops) => {
                    self.stats.blocks_optimized += 1;
                    Some(ops)
                }
                Err(Unordered) => {
                    self.stats.blocks_fallback += 1;
                    None
                }
            }
        } else {
            None
        };
        let ops = match out {
            Some(ops) => ops,
            None => {
                // Reset this block's frame and print it as written.
                let frame = self.frame();
                frame.names.clear();
                frame.defined.clear();
                self.as_written(b)
            }
        };
        self.frames.pop();
        Block {
            label: b.label.clone(),
            args: b.args.clone(),
            ops,
        }
    }

    /// A block as written: anchors re-emitted (their regions still optimized), pure ops
    /// re-emitted with their original names.
    fn as_written(&mut self, b: &PBlock) -> Vec<Operation> {
        for &id in &b.arg_ids {
            self.define_leaf(id);
        }
        if b.optimized {
            // Pure ops keep their names: bind their classes, then print the block as written
            // with outer values renamed.
            for (id, name) in &b.pure_defs {
                if let Some(c) = self.class_of(*id) {
                    self.frame().names.insert(c, name.clone());
                }
            }
            let renames = self.outer_renames(b);
            let mut ops = b.original.clone();
            rename_operands(&mut ops, &renames);
            return ops;
        }
        let mut ops = Vec::new();
        for a in &b.anchors {
            ops.push(self.anchor(a));
            for &r in &a.results {
                self.define_leaf(r);
            }
        }
        ops
    }

    /// For a block printed as written: the values it uses from enclosing blocks, by their
    /// name in the input → their name in the output.
    fn outer_renames(&self, b: &PBlock) -> HashMap<Value, Value> {
        let mut out = HashMap::new();
        let mut defined = HashSet::new();
        collect_defined(&b.original, &mut defined);
        {
            for id in &b.outer_uses {
                let v = &self.egg.values[*id];
                if defined.contains(&v.name.name) {
                    continue;
                }
                if let Some(n) = self.class_of(*id).and_then(|c| self.named(c)) {
                    out.insert(v.name.clone(), n.clone());
                }
            }
        }
        out
    }

    fn optimized_block(&mut self, b: &PBlock) -> Result<Vec<Operation>, Unordered> {
        for &id in &b.arg_ids {
            self.define_leaf(id);
        }
        // Leaves of this block: candidates anywhere in it (order is checked when printing).
        let mut own: HashSet<ValId> = b.arg_ids.iter().copied().collect();
        for a in &b.anchors {
            own.extend(&a.results);
        }
        let mut roots = Vec::new();
        for a in &b.anchors {
            for id in a.operands.iter().flatten().chain(&a.captures) {
                roots.push(self.class_of(*id).ok_or(Unordered)?);
            }
        }
        let t0 = Instant::now();
        let choice = self.select(&roots, &own);
        self.stats.selection_time += t0.elapsed();
        let choice = choice.ok_or(Unordered)?;
        let mut ops = Vec::new();
        for a in &b.anchors {
            for id in a.operands.iter().flatten().chain(&a.captures) {
                let c = self.class_of(*id).ok_or(Unordered)?;
                self.emit(c, &choice, &mut ops)?;
            }
            ops.push(self.anchor(a));
            for &r in &a.results {
                self.define_leaf(r);
            }
        }
        Ok(ops)
    }

    /// Chooses a node per class reachable from `roots`.
    fn select(
        &mut self,
        roots: &[EClass],
        own: &HashSet<ValId>,
    ) -> Option<HashMap<EClass, Choice>> {
        let snap = self.snap;
        let started = Instant::now();
        // Classes in post-order (operands before users), so that the bottom-up cost
        // fixpoint of `CandGraph::tree_costs` settles in a few sweeps instead of one sweep
        // per level of a deep expression.
        let mut index: HashMap<EClass, usize> = HashMap::new();
        let mut order: Vec<EClass> = Vec::new();
        let mut seen: HashSet<EClass> = HashSet::new();
        for &root in roots {
            if !seen.insert(root) {
                continue;
            }
            // (class, its operand classes not yet visited)
            let mut stack: Vec<(EClass, Vec<EClass>)> = vec![(root, self.operand_classes(root))];
            while let Some((c, pending)) = stack.last_mut() {
                if let Some(ch) = pending.pop() {
                    if seen.insert(ch) {
                        let next = self.operand_classes(ch);
                        stack.push((ch, next));
                    }
                } else {
                    let c = *c;
                    index.insert(c, order.len());
                    order.push(c);
                    stack.pop();
                }
            }
        }
        let mut g = CandGraph {
            classes: Vec::with_capacity(order.len() + 1),
            root: order.len(),
        };
        let mut printable: HashMap<(usize, Vec<EClass>), bool> = HashMap::new();
        // Candidate position → choice, per class.
        let mut meaning: Vec<Vec<Choice>> = Vec::with_capacity(order.len());
        for &c in &order {
            let mut cands = Vec::new();
            let mut means = Vec::new();
            if self.named(c).is_some() {
                cands.push(CandNode {
                    cost: 0.0,
                    children: vec![],
                });
                means.push(Choice::Named);
            } else {
                for (i, n) in snap
                    .classes
                    .get(&c)
                    .map_or(&[][..], |v| v)
                    .iter()
                    .enumerate()
                {
                    let cost = match n.kind {
                        NodeKind::Leaf(id) if own.contains(&id) || self.is_defined(id) => 0.0,
                        NodeKind::Leaf(_) => f64::INFINITY,
                        NodeKind::Op(d) => {
                            // Printability depends only on the op and its element types
                            // (the shell key).
                            let key: Vec<EClass> = std::iter::once(n.type_class())
                                .chain(n.operands(&snap.decls).iter().map(|c| snap.class_type(*c)))
                                .map(|t| t.map_or(c, |t| snap.data.elem_class(t)))
                                .collect();
                            let ok = *printable
                                .entry((d, key))
                                .or_insert_with(|| self.printable(n));
                            if ok {
                                n.cost
                            } else {
                                f64::INFINITY
                            }
                        }
                    };
                    let children = n.operands(&snap.decls).iter().map(|ch| index[ch]).collect();
                    cands.push(CandNode { cost, children });
                    means.push(Choice::Node(i));
                }
            }
            g.classes.push(cands);
            meaning.push(means);
        }
        let mut root_children: Vec<usize> = roots.iter().map(|c| index[c]).collect();
        root_children.sort_unstable();
        root_children.dedup();
        g.classes.push(vec![CandNode {
            cost: 0.0,
            children: root_children,
        }]);
        let built = Instant::now();
        let greedy = g.greedy_selection();
        if g.classes.len() > 1000 {
            log::debug!(
                "block graph {} classes, greedy {:?}",
                g.classes.len(),
                built.elapsed()
            );
        }
        let sel: Selection = match self.extractor {
            Extractor::Greedy => greedy,
            Extractor::Ilp(budget) => match spores_extract::ilp::solve(&g, &greedy, budget) {
                Ok(s) => s.selection,
                Err(_) => {
                    self.stats.ilp_fell_back = true;
                    greedy
                }
            },
        };
        let cost = dag_cost(&g, &sel).ok()?;
        if g.classes.len() > 1000 {
            log::debug!("block selection {:?} in all", started.elapsed());
        }
        self.stats.cost += cost;
        let mut out = HashMap::new();
        for (i, &c) in order.iter().enumerate() {
            if let Some(k) = sel[i] {
                out.insert(c, meaning[i][k]);
            }
        }
        Some(out)
    }

    /// The operand classes of all nodes of `c` (none if `c` is already a value in scope).
    fn operand_classes(&self, c: EClass) -> Vec<EClass> {
        if self.named(c).is_some() {
            return Vec::new();
        }
        let snap = self.snap;
        snap.classes
            .get(&c)
            .map_or(&[][..], |v| v)
            .iter()
            .flat_map(|n| n.operands(&snap.decls).iter().copied())
            .collect()
    }

    /// Whether an op node can be printed: its shell (regions, structural attributes) is known.
    fn printable(&self, n: &super::snapshot::ONode) -> bool {
        let NodeKind::Op(d) = n.kind else {
            return true;
        };
        let decl = &self.snap.decls[d];
        if !self.egg.shells.names_with_shell.contains(&decl.mlir_name) {
            return true;
        }
        match self.shell_key(n) {
            Some(k) => self.egg.shells.by_key.contains_key(&k),
            None => false,
        }
    }

    fn shell_key(&self, n: &super::snapshot::ONode) -> Option<ShellKey> {
        let NodeKind::Op(d) = n.kind else {
            return None;
        };
        let snap = self.snap;
        let b = &self.egg.terms;
        let operand_types = n
            .operands(&snap.decls)
            .iter()
            .map(|c| snap.class_type(*c).and_then(|t| snap.data.ty(t, b)))
            .collect::<Option<Vec<_>>>()?;
        let rt = snap.data.ty(n.type_class()?, b)?;
        Some(ShellKey::new(&snap.decls[d].mlir_name, &operand_types, &rt))
    }

    /// Prints class `c` (and what it needs) unless it is in scope; returns its value.
    fn emit(
        &mut self,
        c: EClass,
        choice: &HashMap<EClass, Choice>,
        ops: &mut Vec<Operation>,
    ) -> Result<Value, Unordered> {
        if let Some(v) = self.named(c) {
            return Ok(v.clone());
        }
        let snap = self.snap;
        let node = match choice.get(&c) {
            Some(Choice::Node(i)) => &snap.classes[&c][*i],
            _ => return Err(Unordered),
        };
        let d = match node.kind {
            NodeKind::Leaf(id) => {
                if !self.is_defined(id) {
                    return Err(Unordered);
                }
                let name = self.egg.values[id].name.clone();
                self.frame().names.insert(c, name.clone());
                return Ok(name);
            }
            NodeKind::Op(d) => d,
        };
        let decl = &snap.decls[d];
        let b = &self.egg.terms;
        let mut operands = Vec::new();
        let mut operand_types = Vec::new();
        for &ch in node.operands(&snap.decls) {
            operands.push(self.emit(ch, choice, ops)?);
            let t = snap
                .class_type(ch)
                .and_then(|t| snap.data.ty(t, b))
                .ok_or(Unordered)?;
            operand_types.push(t);
        }
        let rt = snap
            .data
            .ty(node.type_class().ok_or(Unordered)?, b)
            .ok_or(Unordered)?;
        let mut op = Operation::new(decl.mlir_name.clone());
        let props = self.egg.shells.property_names.get(&decl.mlir_name);
        let mut properties: Vec<NamedAttr> = Vec::new();
        for &a in &node.children[decl.operands..decl.operands + decl.attrs] {
            let na = snap.data.named(a, b).ok_or(Unordered)?;
            if props.is_some_and(|p| p.contains(&na.name)) {
                properties.push(na);
            } else {
                op.attributes.push(na);
            }
        }
        if self.egg.shells.names_with_shell.contains(&decl.mlir_name) {
            let key = ShellKey::new(&decl.mlir_name, &operand_types, &rt);
            let shell = self.egg.shells.by_key.get(&key).ok_or(Unordered)?.clone();
            for (a, is_prop) in shell.attrs {
                if is_prop {
                    properties.push(a);
                } else {
                    op.attributes.push(a);
                }
            }
            let mut regions = shell.regions;
            self.freshen(&mut regions);
            op.regions = regions;
        }
        properties.sort_by(|x, y| x.name.cmp(&y.name));
        if !properties.is_empty() {
            op.properties = Some(Attribute::Dict(properties));
        }
        let name = self.fresh();
        op.results = vec![ResultGroup {
            name: name.clone(),
            count: 1,
        }];
        op.operands = operands;
        op.operand_types = operand_types;
        op.result_types = vec![rt];
        ops.push(op);
        let v = Value::named(name);
        self.frame().names.insert(c, v.clone());
        Ok(v)
    }

    /// Gives every value defined inside copied regions a fresh name, so that a shell can be
    /// printed many times in one function.
    fn freshen(&mut self, regions: &mut [Region]) {
        let mut defined = HashSet::new();
        for r in regions.iter() {
            for b in &r.blocks {
                for a in &b.args {
                    defined.insert(a.name.clone());
                }
                collect_defined(&b.ops, &mut defined);
            }
        }
        let mut map: HashMap<String, String> = HashMap::new();
        let mut sorted: Vec<String> = defined.into_iter().collect();
        sorted.sort();
        for n in sorted {
            let f = self.fresh();
            map.insert(n, f);
        }
        for r in regions.iter_mut() {
            rename_region(r, &map);
        }
    }
}

/// Names defined by ops (results) and block arguments in `ops`, recursively.
fn collect_defined(ops: &[Operation], out: &mut HashSet<String>) {
    for op in ops {
        for g in &op.results {
            out.insert(g.name.clone());
        }
        for r in &op.regions {
            for b in &r.blocks {
                for a in &b.args {
                    out.insert(a.name.clone());
                }
                collect_defined(&b.ops, out);
            }
        }
    }
}

fn rename_region(r: &mut Region, map: &HashMap<String, String>) {
    for b in &mut r.blocks {
        for a in &mut b.args {
            if let Some(n) = map.get(&a.name) {
                a.name = n.clone();
            }
        }
        for op in &mut b.ops {
            for g in &mut op.results {
                if let Some(n) = map.get(&g.name) {
                    g.name = n.clone();
                }
            }
            for v in &mut op.operands {
                if let Some(n) = map.get(&v.name) {
                    v.name = n.clone();
                }
            }
            for r in &mut op.regions {
                rename_region(r, map);
            }
        }
    }
}

/// Replaces operands by `map`, recursively.
fn rename_operands(ops: &mut [Operation], map: &HashMap<Value, Value>) {
    if map.is_empty() {
        return;
    }
    for op in ops {
        for v in &mut op.operands {
            if let Some(n) = map.get(v) {
                *v = n.clone();
            }
        }
        for r in &mut op.regions {
            for b in &mut r.blocks {
                rename_operands(&mut b.ops, map);
            }
        }
    }
}
