//! The saturated e-graph as the extractor sees it: `Op` classes with their e-nodes (declared
//! ops and leaves) and each e-node's cost, plus the data nodes to decode types and attributes.

use std::collections::HashMap;

use egglog::{EGraph, Value};

use super::decls::{Decls, OpDecl};
use super::eggify::ValId;
use super::terms::{DataNodes, ReadError};

/// What an e-node is.
#[derive(Clone, Debug, PartialEq)]
pub enum NodeKind {
    /// A declared op (index into [`Snapshot::decls`]).
    Op(usize),
    /// `(Value id type)`.
    Leaf(ValId),
}

/// One `Op` e-node.
#[derive(Clone, Debug)]
pub struct ONode {
    pub kind: NodeKind,
    /// All children (operands, attributes, type), canonical.
    pub children: Vec<Value>,
    /// Its own cost (fixed, or from the op's cost table).
    pub cost: f64,
}

impl ONode {
    /// The operand classes of an op node (none for leaves).
    pub fn operands<'a>(&'a self, decls: &[OpDecl]) -> &'a [Value] {
        match self.kind {
            NodeKind::Op(d) => &self.children[..decls[d].operands],
            NodeKind::Leaf(_) => &[],
        }
    }

    /// The class of the node's type.
    pub fn type_class(&self) -> Option<Value> {
        self.children.last().copied()
    }
}

/// The e-graph after saturation.
pub struct Snapshot<'e> {
    pub decls: Vec<OpDecl>,
    /// `Op` classes and their nodes, in first-seen order of classes.
    pub classes: HashMap<Value, Vec<ONode>>,
    /// The class of each input value (by id), found through its `Value` or `Ssa` node.
    pub class_of: Vec<Option<Value>>,
    pub data: DataNodes<'e>,
    /// Total e-nodes in op classes.
    pub enodes: usize,
}

impl<'e> Snapshot<'e> {
    /// Reads `eg`; `values` is the number of input values.
    pub fn read(eg: &'e EGraph, decls: &Decls, values: usize) -> Result<Snapshot<'e>, ReadError> {
        let decl_list: Vec<OpDecl> = decls
            .order
            .iter()
            .map(|c| decls.by_ctor[c].clone())
            .collect();
        let mut classes: HashMap<Value, Vec<ONode>> = HashMap::new();
        let mut class_of: Vec<Option<Value>> = vec![None; values];
        let mut enodes = 0;
        eg.constructor_enodes("Value", |en| {
            let id = eg.value_to_base::<i64>(en.children[0]);
            if let Ok(id) = usize::try_from(id) {
                if id < values {
                    class_of[id] = Some(en.eclass);
                }
                classes.entry(en.eclass).or_default().push(ONode {
                    kind: NodeKind::Leaf(id),
                    children: en.children.to_vec(),
                    cost: 0.0,
                });
                enodes += 1;
            }
        })
        .map_err(ReadError::of("Value"))?;
        eg.constructor_enodes("Ssa", |en| {
            let id = eg.value_to_base::<i64>(en.children[0]);
            if let Some(slot) = usize::try_from(id).ok().and_then(|i| class_of.get_mut(i)) {
                *slot = Some(en.eclass);
            }
        })
        .map_err(ReadError::of("Ssa"))?;
        for (i, d) in decl_list.iter().enumerate() {
            let mut table: HashMap<Vec<Value>, i64> = HashMap::new();
            if let Some(t) = &d.cost_table {
                eg.function_entries(t, |fe| {
                    let c = eg.value_to_base::<i64>(fe.output);
                    table
                        .entry(fe.inputs.to_vec())
                        .and_modify(|old| *old = (*old).min(c))
                        .or_insert(c);
                })
                .map_err(ReadError::of(t))?;
            }
            eg.constructor_enodes(&d.ctor, |en| {
                if en.subsumed {
                    return;
                }
                let cost = if d.cost_table.is_some() {
                    // A node whose cost rule has not fired (a limit stopped saturation
                    // first) is not chosen: its fixed cost would be a guess. The 2024
                    // dialect's `unstable-cost` meant the fixed cost, though.
                    let unpriced = if d.unpriced_at_fixed_cost {
                        d.cost
                    } else {
                        f64::INFINITY
                    };
                    table
                        .get(en.children)
                        .map_or(unpriced, |&c| c.max(0) as f64)
                } else {
                    d.cost
                };
                classes.entry(en.eclass).or_default().push(ONode {
                    kind: NodeKind::Op(i),
                    children: en.children.to_vec(),
                    cost,
                });
                enodes += 1;
            })
            .map_err(ReadError::of(&d.ctor))?;
        }
        Ok(Snapshot {
            decls: decl_list,
            classes,
            class_of,
            data: DataNodes::read(eg, &decls.vocabulary)?,
            enodes,
        })
    }

    /// The type class of an `Op` class (every node of a class has the same type).
    pub fn class_type(&self, c: Value) -> Option<Value> {
        self.classes.get(&c)?.first()?.type_class()
    }
}
