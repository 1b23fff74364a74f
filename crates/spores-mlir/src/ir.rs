//! The operation structure of an MLIR file: modules, operations, regions, blocks and SSA values.
//!
//! The IR mirrors MLIR's generic form one to one, so that printing a parsed file gives back the
//! same program and re-parsing the print gives back the same value (structural equality,
//! `PartialEq`). SSA values are kept by *name*, as written (`%0`, `%arg3`, `%x`): MLIR scopes
//! names per isolated region, and keeping them avoids a renumbering pass that would make the
//! output harder to compare with the input. Later stages that create values choose fresh names.

use crate::builtin::Attribute;
pub use crate::builtin::NamedAttr;
use crate::builtin::Type;

/// A parsed MLIR file: its top-level operations (normally one `builtin.module`), plus the parts
/// of the file that are not operations but must survive a round trip.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Module {
    /// Top-level operations in file order. MLIR wraps several top-level operations in an
    /// implicit `builtin.module`; we keep them as written and let `mlir-opt` do the wrapping.
    pub ops: Vec<Operation>,
    /// Location aliases (`#loc3 = loc("f.mlir":1:2)`), in file order, as `(name, text inside
    /// loc(...))`. Locations may refer to them before their definition, so they are kept as
    /// text and printed at the end of the file. Empty when locations are dropped.
    pub loc_aliases: Vec<(String, String)>,
    /// The raw body of a `{-# ... #-}` file-metadata section (dialect resources such as the blobs
    /// behind `dense_resource<...>`), kept verbatim.
    pub metadata: Option<String>,
}

/// One operation in generic form:
/// `%r:2 = "dialect.op"(%a, %b)[^bb1] <{props}> ({regions}) {attrs} : (types) -> types loc(...)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Operation {
    /// The result groups on the left of `=`; `%a, %b:2 = ...` gives two groups.
    pub results: Vec<ResultGroup>,
    /// The full operation name, e.g. `arith.addf`.
    pub name: String,
    /// The operands, in order.
    pub operands: Vec<Value>,
    /// Successor blocks of a terminator (`[^bb1, ^bb2]`).
    pub successors: Vec<Successor>,
    /// Inherent attributes (`<{...}>`), normally a dictionary.
    pub properties: Option<Attribute>,
    /// Nested regions, in order.
    pub regions: Vec<Region>,
    /// Discardable attributes (`{...}`), in written order.
    pub attributes: Vec<NamedAttr>,
    /// Types of the operands (the left side of the function type).
    pub operand_types: Vec<Type>,
    /// Types of the results (the right side of the function type).
    pub result_types: Vec<Type>,
    /// The trailing `loc(...)`, when locations are kept.
    pub loc: Option<Location>,
}

impl Operation {
    /// An operation with a name and nothing else; fill in the fields you need.
    pub fn new(name: impl Into<String>) -> Self {
        Operation {
            results: Vec::new(),
            name: name.into(),
            operands: Vec::new(),
            successors: Vec::new(),
            properties: None,
            regions: Vec::new(),
            attributes: Vec::new(),
            operand_types: Vec::new(),
            result_types: Vec::new(),
            loc: None,
        }
    }

    /// The dialect prefix of the name (`arith` for `arith.addf`).
    pub fn dialect(&self) -> &str {
        self.name.split_once('.').map_or("", |(d, _)| d)
    }

    /// Looks an attribute up by name, first among the properties, then among the discardable
    /// attributes: rules match attributes by name and should not care where MLIR stores them.
    pub fn attr(&self, name: &str) -> Option<&Attribute> {
        if let Some(Attribute::Dict(props)) = &self.properties {
            if let Some(a) = props.iter().find(|a| a.name == name) {
                return Some(&a.value);
            }
        }
        self.attributes
            .iter()
            .find(|a| a.name == name)
            .map(|a| &a.value)
    }

    /// The number of results over all result groups.
    pub fn num_results(&self) -> usize {
        self.results.iter().map(|g| g.count as usize).sum()
    }

    /// The value of result `i` (counting over all groups), as operands refer to it.
    pub fn result(&self, i: usize) -> Option<Value> {
        let mut base = 0usize;
        for g in &self.results {
            let n = g.count as usize;
            if i < base + n {
                let index = if g.count == 1 {
                    None
                } else {
                    Some((i - base) as u32)
                };
                return Some(Value {
                    name: g.name.clone(),
                    index,
                });
            }
            base += n;
        }
        None
    }
}

/// A group of results named together: `%r` (count 1) or `%r:3` (used as `%r#0`..`%r#2`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ResultGroup {
    /// The name without `%`.
    pub name: String,
    /// How many results the group holds (at least 1).
    pub count: u32,
}

/// A use of an SSA value: `%x` or `%r#1`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Value {
    /// The name without `%`.
    pub name: String,
    /// The result number within a multi-result group (`#1`), if written.
    pub index: Option<u32>,
}

impl Value {
    /// A plain `%name` use.
    pub fn named(name: impl Into<String>) -> Self {
        Value {
            name: name.into(),
            index: None,
        }
    }
}

/// A successor of a terminator: a block label, with operands in the older LangRef form
/// `^bb1(%v : i32)`. MLIR 19 itself passes successor operands in the operand list and prints
/// bare labels; the argument form is parsed and kept so that no input is lost.
#[derive(Clone, Debug, PartialEq)]
pub struct Successor {
    /// The label without `^`.
    pub label: String,
    /// Operands passed to the block.
    pub args: Vec<Value>,
    /// Their types.
    pub arg_types: Vec<Type>,
}

/// A region: a list of blocks; the first is the entry block.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Region {
    /// The blocks in order.
    pub blocks: Vec<Block>,
}

/// A block: an optional label, arguments and operations.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Block {
    /// The label without `^`; `None` for an unlabeled entry block.
    pub label: Option<String>,
    /// Block arguments `^bb0(%x: i32, ...)`.
    pub args: Vec<BlockArg>,
    /// The operations in order.
    pub ops: Vec<Operation>,
}

/// A block argument: a name, a type and optionally a location.
#[derive(Clone, Debug, PartialEq)]
pub struct BlockArg {
    /// The name without `%`.
    pub name: String,
    /// Its type.
    pub ty: Type,
    /// `loc(...)` after the type, when locations are kept.
    pub loc: Option<Location>,
}

/// A source location, kept as the text inside `loc(...)`: locations matter only for messages,
/// so there is no reason to model `fused`, `callsite` and friends structurally.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location(pub String);
