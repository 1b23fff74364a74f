//! MLIR → egglog: which ops become terms, which stay in place, and the skeleton that
//! [`super::deeggify`] fills back in.
//!
//! Every SSA value of the input gets an id. A value is
//! * a **leaf** `(Value id type)` when it is a block argument or a result of an op that stays
//!   in place (an *anchor*), or
//! * the **term** of a declared, pure, single-result op, joined with the handle `(Ssa id)` so
//!   its class can be found after saturation.
//!
//! Anchors are ops that are not declared, have side effects ([`super::effects`]), have no
//! or several results, have successors, or have regions other than the declared op's shell
//! (see [`Shells`]). They keep their place and order in their block, so side effects are
//! never duplicated, deleted or reordered; their operands are extracted from the e-graph. Their regions are translated the same way,
//! recursively, so the optimizer works inside function bodies, loop bodies and branches.
//! Regions with several blocks (unstructured control flow) keep all their ops in place.

use std::collections::HashMap;

use crate::builtin::Attribute;
use crate::builtin::Type;
use crate::ir::{Block, BlockArg, Module, NamedAttr, Operation, Value};

use super::decls::{Decls, OpDecl};
use super::terms::{Arg, TermBuilder};

/// Attributes that are part of an op's shell, not of its term: derived from the operands
/// (`operandSegmentSizes`) or caches MLIR recomputes (`linalg.memoized_indexing_maps`).
pub const SHELL_ATTRS: &[&str] = &[
    "operandSegmentSizes",
    "resultSegmentSizes",
    "linalg.memoized_indexing_maps",
];

/// The index of an SSA value of the input.
pub type ValId = usize;

/// What the shells are keyed by: op name, operand types and result type (with shapes
/// erased to element types, so one matmul's shell serves matmuls of any shape).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ShellKey {
    pub name: String,
    pub operand_elems: Vec<String>,
    pub result_elem: String,
}

impl ShellKey {
    pub fn new(name: &str, operand_types: &[Type], result_type: &Type) -> ShellKey {
        let elem = |t: &Type| {
            let mut s = String::new();
            crate::printer::write_type(&mut s, t.element_type());
            s
        };
        ShellKey {
            name: name.to_string(),
            operand_elems: operand_types.iter().map(elem).collect(),
            result_elem: elem(result_type),
        }
    }
}

/// The parts of declared ops that are not in their terms: regions (linalg's scalar bodies)
/// and [`SHELL_ATTRS`], taken from the input's ops of the same name and element types.
#[derive(Clone, Debug, Default)]
pub struct Shells {
    /// Shell by key: (regions, shell attributes as (name, value, is_property)).
    pub by_key: HashMap<ShellKey, Shell>,
    /// Op names that had a non-empty shell in the input: such an op can only be printed when
    /// a shell for its exact key exists.
    pub names_with_shell: std::collections::HashSet<String>,
    /// Attribute names each op name stored as properties (`<{...}>`) in the input.
    pub property_names: HashMap<String, std::collections::HashSet<String>>,
}

/// An op's shell.
#[derive(Clone, Debug, PartialEq)]
pub struct Shell {
    pub regions: Vec<crate::ir::Region>,
    /// (attribute, stored as a property).
    pub attrs: Vec<(NamedAttr, bool)>,
}

impl Shell {
    fn is_empty(&self) -> bool {
        self.regions.is_empty() && self.attrs.is_empty()
    }
}

/// A block of the skeleton.
#[derive(Clone, Debug)]
pub struct PBlock {
    pub label: Option<String>,
    pub args: Vec<BlockArg>,
    /// The ids of the block arguments.
    pub arg_ids: Vec<ValId>,
    /// Whether pure ops of this block were turned into terms (single-block regions).
    pub optimized: bool,
    pub anchors: Vec<PAnchor>,
    /// The block's ops as written, for the fallback when an extraction cannot be ordered.
    pub original: Vec<Operation>,
    /// The input's pure values defined in this block, with their names (for the fallback).
    pub pure_defs: Vec<(ValId, Value)>,
    /// Values defined outside this block that it (or anything nested in it) uses.
    pub outer_uses: Vec<ValId>,
}

/// An op that stays in place.
#[derive(Clone, Debug)]
pub struct PAnchor {
    /// The op with its regions removed (they are in `regions`).
    pub op: Operation,
    /// Per operand: the value's id, or `None` when the name does not resolve here (a value
    /// of a sibling block in an unstructured region, which keeps its name).
    pub operands: Vec<Option<ValId>>,
    pub regions: Vec<Vec<PBlock>>,
    /// Values used inside `regions` that are defined outside this op.
    pub captures: Vec<ValId>,
    /// The ids of the results.
    pub results: Vec<ValId>,
}

/// One SSA value.
#[derive(Clone, Debug)]
pub struct ValInfo {
    /// How it is written in the input.
    pub name: Value,
    pub ty: Type,
    /// A leaf (block argument or anchor result) rather than a term.
    pub leaf: bool,
    /// The slot of its term (leaves: of its `Value` node).
    pub slot: usize,
}

/// The translated module.
#[derive(Debug)]
pub struct Eggified {
    pub terms: TermBuilder,
    /// Top-level ops; their regions are in `top_regions`.
    pub top: Vec<PAnchor>,
    pub values: Vec<ValInfo>,
    pub shells: Shells,
    /// Number of ops that became terms, and that stayed in place.
    pub term_ops: usize,
    pub anchor_ops: usize,
    /// Every value name used in the input (fresh names must avoid them).
    pub names: std::collections::HashSet<String>,
    pub loc_aliases: Vec<(String, String)>,
    pub metadata: Option<String>,
}

struct Walker<'d> {
    decls: &'d Decls,
    terms: TermBuilder,
    values: Vec<ValInfo>,
    scopes: Vec<HashMap<Value, ValId>>,
    /// Ids resolved so far, with the scope depth of their definition (for captures).
    used: Vec<(ValId, usize)>,
    def_depth: Vec<usize>,
    shells: Shells,
    term_ops: usize,
    anchor_ops: usize,
    names: std::collections::HashSet<String>,
}

/// Translates a module. Never fails: anything the e-graph cannot represent stays in place.
pub fn eggify(module: &Module, decls: &Decls) -> Eggified {
    let mut w = Walker {
        decls,
        terms: TermBuilder::new(decls.vocabulary.clone()),
        values: Vec::new(),
        scopes: vec![HashMap::new()],
        used: Vec::new(),
        def_depth: Vec::new(),
        shells: Shells::default(),
        term_ops: 0,
        anchor_ops: 0,
        names: Default::default(),
    };
    collect_shells(&module.ops, decls, &mut w.shells);
    let top = module.ops.iter().map(|op| w.anchor(op)).collect();
    Eggified {
        terms: w.terms,
        top,
        values: w.values,
        shells: w.shells,
        term_ops: w.term_ops,
        anchor_ops: w.anchor_ops,
        names: w.names,
        loc_aliases: module.loc_aliases.clone(),
        metadata: module.metadata.clone(),
    }
}

/// The attributes of `op` that go into its term, sorted by name, and its shell.
pub fn split_attrs(op: &Operation) -> (Vec<NamedAttr>, Shell) {
    let mut term = Vec::new();
    let mut shell = Shell {
        regions: canonical_regions(&op.regions),
        attrs: Vec::new(),
    };
    let props: &[NamedAttr] = match &op.properties {
        Some(Attribute::Dict(p)) => p,
        _ => &[],
    };
    for (a, is_prop) in props
        .iter()
        .map(|a| (a, true))
        .chain(op.attributes.iter().map(|a| (a, false)))
    {
        if SHELL_ATTRS.contains(&a.name.as_str()) {
            shell.attrs.push((a.clone(), is_prop));
        } else {
            term.push(a.clone());
        }
    }
    term.sort_by(|a, b| a.name.cmp(&b.name));
    (term, shell)
}

/// `regions` with the values they define renamed `s0`, `s1`, ... in order of definition and
/// locations dropped, so that two copies of one body compare equal.
fn canonical_regions(regions: &[crate::ir::Region]) -> Vec<crate::ir::Region> {
    fn walk(r: &mut crate::ir::Region, map: &mut HashMap<String, String>) {
        for b in &mut r.blocks {
            for a in &mut b.args {
                let n = format!("s{}", map.len());
                a.name = map.entry(a.name.clone()).or_insert(n).clone();
                a.loc = None;
            }
            for op in &mut b.ops {
                for v in &mut op.operands {
                    if let Some(n) = map.get(&v.name) {
                        v.name = n.clone();
                    }
                }
                for g in &mut op.results {
                    let n = format!("s{}", map.len());
                    g.name = map.entry(g.name.clone()).or_insert(n).clone();
                }
                op.loc = None;
                for r in &mut op.regions {
                    walk(r, map);
                }
            }
        }
    }
    let mut out = regions.to_vec();
    let mut map = HashMap::new();
    for r in &mut out {
        walk(r, &mut map);
    }
    out
}

/// Whether `op` can be a term: declared with its arity, one result, no successors, a
/// dictionary (or no) properties, and a shell that is the same for all ops of its key.
fn term_decl<'d>(op: &Operation, decls: &'d Decls, shells: &Shells) -> Option<&'d OpDecl> {
    if op.num_results() != 1 || !op.successors.is_empty() || op.result_types.len() != 1 {
        return None;
    }
    if matches!(&op.properties, Some(p) if !matches!(p, Attribute::Dict(_))) {
        return None;
    }
    let (attrs, shell) = split_attrs(op);
    let decl = decls.lookup(&op.name, op.operands.len(), attrs.len())?;
    if !super::effects::may_move(op, &decls.pure_ops) {
        return None;
    }
    if !shell.is_empty() {
        let key = ShellKey::new(&op.name, &op.operand_types, &op.result_types[0]);
        if shells.by_key.get(&key) != Some(&shell) {
            return None;
        }
    }
    Some(decl)
}

/// Records the first shell per key of every declared op (and where attributes are stored).
fn collect_shells(ops: &[Operation], decls: &Decls, shells: &mut Shells) {
    for op in ops {
        if op.num_results() == 1 && op.result_types.len() == 1 {
            let (attrs, shell) = split_attrs(op);
            if decls
                .lookup(&op.name, op.operands.len(), attrs.len())
                .is_some()
            {
                if let Some(Attribute::Dict(p)) = &op.properties {
                    shells
                        .property_names
                        .entry(op.name.clone())
                        .or_default()
                        .extend(p.iter().map(|a| a.name.clone()));
                }
                if !shell.is_empty() {
                    shells.names_with_shell.insert(op.name.clone());
                    let key = ShellKey::new(&op.name, &op.operand_types, &op.result_types[0]);
                    shells.by_key.entry(key).or_insert(shell);
                }
            }
        }
        for r in &op.regions {
            for b in &r.blocks {
                collect_shells(&b.ops, decls, shells);
            }
        }
    }
}

impl Walker<'_> {
    fn define(&mut self, name: Value, ty: Type, leaf: bool, term: Option<usize>) -> ValId {
        let id = self.values.len();
        self.names.insert(name.name.clone());
        let slot = if leaf {
            let t = self.terms.ty(&ty);
            self.terms
                .add("Value", vec![Arg::I64(id as i64), Arg::Slot(t)])
        } else {
            let h = self.terms.add("Ssa", vec![Arg::I64(id as i64)]);
            self.terms.union(h, term.expect("terms have a slot"))
        };
        self.values.push(ValInfo {
            name: name.clone(),
            ty,
            leaf,
            slot,
        });
        self.def_depth.push(self.scopes.len());
        self.scopes
            .last_mut()
            .expect("a scope is open")
            .insert(name, id);
        id
    }

    fn resolve(&mut self, v: &Value) -> Option<ValId> {
        let id = self.scopes.iter().rev().find_map(|s| s.get(v)).copied()?;
        self.used.push((id, self.def_depth[id]));
        Some(id)
    }

    fn block(&mut self, b: &Block, optimize: bool) -> PBlock {
        self.scopes.push(HashMap::new());
        let depth = self.scopes.len();
        let mark = self.used.len();
        let arg_ids = b
            .args
            .iter()
            .map(|a| self.define(Value::named(a.name.clone()), a.ty.clone(), true, None))
            .collect();
        let mut anchors = Vec::new();
        let mut pure_defs = Vec::new();
        for op in &b.ops {
            if optimize {
                if let Some(decl) = term_decl(op, self.decls, &self.shells) {
                    let decl = decl.clone();
                    if let Some(id) = self.term(op, &decl) {
                        pure_defs.push((id, self.values[id].name.clone()));
                        continue;
                    }
                }
            }
            anchors.push(self.anchor(op));
        }
        let mut outer_uses: Vec<ValId> = self.used[mark..]
            .iter()
            .filter(|(_, d)| *d < depth)
            .map(|(id, _)| *id)
            .collect();
        outer_uses.sort_unstable();
        outer_uses.dedup();
        self.scopes.pop();
        PBlock {
            outer_uses,
            label: b.label.clone(),
            args: b.args.clone(),
            arg_ids,
            optimized: optimize,
            anchors,
            original: b.ops.clone(),
            pure_defs,
        }
    }

    /// Adds a pure op's term; `None` (and nothing added) if an operand does not resolve.
    fn term(&mut self, op: &Operation, decl: &OpDecl) -> Option<ValId> {
        let mut ids = Vec::new();
        for v in &op.operands {
            let id = self.scopes.iter().rev().find_map(|s| s.get(v)).copied()?;
            ids.push(id);
        }
        for v in &op.operands {
            self.resolve(v);
        }
        let (attrs, _) = split_attrs(op);
        let mut args: Vec<Arg> = ids
            .iter()
            .map(|&id| Arg::Slot(self.values[id].slot))
            .collect();
        for a in &attrs {
            args.push(Arg::Slot(self.terms.named(a)));
        }
        let rt = op.result_types[0].clone();
        args.push(Arg::Slot(self.terms.ty(&rt)));
        let slot = self.terms.add(&decl.ctor, args);
        self.term_ops += 1;
        let name = op.result(0).expect("one result");
        Some(self.define(name, rt, false, Some(slot)))
    }

    fn anchor(&mut self, op: &Operation) -> PAnchor {
        self.anchor_ops += 1;
        let operands = op.operands.iter().map(|v| self.resolve(v)).collect();
        let depth = self.scopes.len();
        let mark = self.used.len();
        let regions = op
            .regions
            .iter()
            .map(|r| {
                let single = r.blocks.len() == 1;
                r.blocks.iter().map(|b| self.block(b, single)).collect()
            })
            .collect();
        let mut captures: Vec<ValId> = self.used[mark..]
            .iter()
            .filter(|(_, d)| *d <= depth)
            .map(|(id, _)| *id)
            .collect();
        captures.sort_unstable();
        captures.dedup();
        // The op without its regions (they are rebuilt from `regions`); cloning the regions
        // only to drop them would copy a function's whole body once per nesting level.
        let shell_op = Operation {
            results: op.results.clone(),
            name: op.name.clone(),
            operands: op.operands.clone(),
            successors: op.successors.clone(),
            properties: op.properties.clone(),
            regions: Vec::new(),
            attributes: op.attributes.clone(),
            operand_types: op.operand_types.clone(),
            result_types: op.result_types.clone(),
            loc: op.loc.clone(),
        };
        let n = op.num_results();
        let results = (0..n)
            .map(|i| {
                let name = op.result(i).expect("result in range");
                let ty = op.result_types.get(i).cloned().unwrap_or(Type::None);
                self.define(name, ty, true, None)
            })
            .collect();
        PAnchor {
            op: shell_op,
            operands,
            regions,
            captures,
            results,
        }
    }
}
