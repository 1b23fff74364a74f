//! MLIR types and attributes as egglog terms, both ways.
//!
//! The builtin types and attributes rules look at (integers and floats, ranked tensors, numbers,
//! strings, symbols, dialect attributes such as `#arith.fastmath<fast>`) become structured terms
//! of the prelude's `Type` / `Attr` sorts. Everything else becomes `OpaqueType n` /
//! `OpaqueAttr n`, an index into a table kept here, so any dialect's types and attributes pass
//! through unchanged (equal values share an index, so equal ops still hash-cons).
//!
//! Terms are built as a list of insertions ([`Ins`]) applied later in one `EGraph::update`
//! (generating egglog source instead would cost ~0.1 ms per command), and read back from
//! the e-nodes of the `Type`/`Dims`/`Attr`/`AttrPair` constructors ([`DataNodes`]).

use std::collections::HashMap;

use egglog::sort::{OrderedFloat, F, S};
use egglog::{EGraph, Value};

use crate::builtin::{Attribute, FloatValue};
use crate::builtin::{FloatKind, Signedness, Type};
use crate::ir::NamedAttr;
use crate::printer::{write_attr, write_type};

/// An argument of an insertion: an earlier insertion's class, or a base value.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    Slot(usize),
    I64(i64),
    F64(f64),
    Str(String),
    Bool(bool),
}

/// One insertion into the e-graph.
#[derive(Clone, Debug)]
pub enum Ins {
    /// Adds the term `ctor(args..)`; its class is the next slot.
    Add(String, Vec<Arg>),
    /// Merges the classes of two slots (also takes a slot, holding the first's class).
    Union(usize, usize),
}

/// Builds insertions, sharing equal terms, and keeps the opaque tables.
#[derive(Debug, Default)]
pub struct TermBuilder {
    pub ins: Vec<Ins>,
    memo: HashMap<String, usize>,
    /// `OpaqueType n` is `opaque_types[n]`.
    pub opaque_types: Vec<Type>,
    opaque_type_ids: HashMap<String, usize>,
    /// `OpaqueAttr n` is `opaque_attrs[n]`.
    pub opaque_attrs: Vec<Attribute>,
    opaque_attr_ids: HashMap<String, usize>,
}

impl TermBuilder {
    /// Adds `ctor(args..)` (once per distinct term) and returns its slot.
    pub fn add(&mut self, ctor: &str, args: Vec<Arg>) -> usize {
        let key = format!("{ctor}{args:?}");
        if let Some(&s) = self.memo.get(&key) {
            return s;
        }
        let slot = self.ins.len();
        self.ins.push(Ins::Add(ctor.to_string(), args));
        self.memo.insert(key, slot);
        slot
    }

    /// Merges two slots' classes; returns a slot for the merged class.
    pub fn union(&mut self, a: usize, b: usize) -> usize {
        self.ins.push(Ins::Union(a, b));
        self.ins.len() - 1
    }

    /// The term of a type.
    pub fn ty(&mut self, t: &Type) -> usize {
        let scalar = match t {
            Type::Integer {
                signedness: Signedness::Signless,
                width,
            } => match width {
                1 => Some("I1"),
                8 => Some("I8"),
                16 => Some("I16"),
                32 => Some("I32"),
                64 => Some("I64"),
                _ => None,
            },
            Type::Index => Some("Index"),
            Type::Float(FloatKind::F16) => Some("F16"),
            Type::Float(FloatKind::BF16) => Some("BF16"),
            Type::Float(FloatKind::F32) => Some("F32"),
            Type::Float(FloatKind::F64) => Some("F64"),
            _ => None,
        };
        if let Some(name) = scalar {
            return self.add(name, vec![]);
        }
        if let Type::Tensor {
            shape,
            elem,
            encoding: None,
        } = t
        {
            let mut dims = self.add("DNil", vec![]);
            for d in shape.iter().rev() {
                let n = d.and_then(|n| i64::try_from(n).ok()).unwrap_or(-1);
                dims = self.add("DCons", vec![Arg::I64(n), Arg::Slot(dims)]);
            }
            let e = self.ty(elem);
            return self.add("RankedTensor", vec![Arg::Slot(dims), Arg::Slot(e)]);
        }
        let mut text = String::new();
        write_type(&mut text, t);
        let n = intern(&mut self.opaque_types, &mut self.opaque_type_ids, text, t);
        self.add("OpaqueType", vec![Arg::I64(n as i64)])
    }

    /// The term of an attribute value.
    pub fn attr(&mut self, a: &Attribute) -> usize {
        match a {
            Attribute::Unit => return self.add("UnitAttr", vec![]),
            Attribute::Bool(b) => return self.add("BoolAttr", vec![Arg::Bool(*b)]),
            Attribute::Integer { value, ty } => {
                if let Ok(v) = i64::try_from(*value) {
                    let t = self.ty(ty);
                    return self.add("IntegerAttr", vec![Arg::I64(v), Arg::Slot(t)]);
                }
            }
            Attribute::Float {
                value: FloatValue::Decimal(v),
                ty,
            } if v.is_finite() => {
                let t = self.ty(ty);
                return self.add("FloatAttr", vec![Arg::F64(*v), Arg::Slot(t)]);
            }
            Attribute::String { value, ty: None } => {
                if let Ok(s) = std::str::from_utf8(value) {
                    return self.add("StringAttr", vec![Arg::Str(s.to_string())]);
                }
            }
            Attribute::SymbolRef(path) if path.len() == 1 => {
                return self.add("SymbolRefAttr", vec![Arg::Str(path[0].clone())]);
            }
            Attribute::Type(t) => {
                let t = self.ty(t);
                return self.add("TypeAttr", vec![Arg::Slot(t)]);
            }
            Attribute::Dialect {
                dialect,
                name,
                body: Some(body),
                ty: None,
            } => {
                return self.add(
                    "DialectAttr",
                    vec![
                        Arg::Str(dialect.clone()),
                        Arg::Str(name.clone()),
                        Arg::Str(body.clone()),
                    ],
                );
            }
            _ => {}
        }
        let mut text = String::new();
        write_attr(&mut text, a);
        let n = intern(&mut self.opaque_attrs, &mut self.opaque_attr_ids, text, a);
        self.add("OpaqueAttr", vec![Arg::I64(n as i64)])
    }

    /// The term of a named attribute.
    pub fn named(&mut self, a: &NamedAttr) -> usize {
        let v = self.attr(&a.value);
        self.add("NamedAttr", vec![Arg::Str(a.name.clone()), Arg::Slot(v)])
    }
}

/// Applies insertions; returns each slot's class.
pub fn apply(eg: &mut EGraph, ins: &[Ins]) -> Result<Vec<Value>, egglog::Error> {
    use egglog::{Core, Write};
    eg.update(|mut fs| {
        let mut slots: Vec<Value> = Vec::with_capacity(ins.len());
        for i in ins {
            match i {
                Ins::Add(name, args) => {
                    let mut vals = Vec::with_capacity(args.len());
                    for a in args {
                        vals.push(match a {
                            Arg::Slot(n) => *slots.get(*n).ok_or_else(|| {
                                egglog::Error::BackendError(format!("bad slot {n}"))
                            })?,
                            Arg::I64(x) => fs.base_to_value(*x),
                            Arg::F64(x) => fs.base_to_value(F::new(OrderedFloat(*x))),
                            Arg::Str(x) => fs.base_to_value(S::new(x.clone())),
                            Arg::Bool(x) => fs.base_to_value(*x),
                        });
                    }
                    let v = fs.add(name, egglog::RawValues(vals))?;
                    slots.push(v);
                }
                Ins::Union(a, b) => {
                    let (va, vb) = (slots[*a], slots[*b]);
                    fs.union(va, vb)?;
                    slots.push(va);
                }
            }
        }
        Ok(slots)
    })
}

/// Constructors of the data sorts (`Dims`, `Type`, `Attr`, `AttrPair`).
pub const DATA_CTORS: &[&str] = &[
    "DNil",
    "DCons",
    "I1",
    "I8",
    "I16",
    "I32",
    "I64",
    "Index",
    "F16",
    "BF16",
    "F32",
    "F64",
    "RankedTensor",
    "OpaqueType",
    "IntegerAttr",
    "FloatAttr",
    "BoolAttr",
    "StringAttr",
    "SymbolRefAttr",
    "TypeAttr",
    "UnitAttr",
    "DialectAttr",
    "OpaqueAttr",
    "NamedAttr",
];

/// A table of the saturated e-graph that could not be read.
#[derive(Debug, thiserror::Error)]
#[error("reading {table}: {source}")]
pub struct ReadError {
    pub table: String,
    pub source: egglog::Error,
}

impl ReadError {
    /// The error of reading `table`.
    pub fn of(table: &str) -> impl FnOnce(egglog::Error) -> ReadError + '_ {
        move |source| ReadError {
            table: table.to_string(),
            source,
        }
    }
}

/// The data e-nodes of a saturated e-graph: one node per class (the first seen), enough to
/// decode types and attributes back to MLIR.
pub struct DataNodes<'e> {
    eg: &'e EGraph,
    nodes: HashMap<Value, (&'static str, Vec<Value>)>,
}

impl<'e> DataNodes<'e> {
    /// Reads the data constructors' tables.
    pub fn read(eg: &'e EGraph) -> Result<DataNodes<'e>, ReadError> {
        let mut nodes = HashMap::new();
        for &name in DATA_CTORS {
            eg.constructor_enodes(name, |en| {
                nodes
                    .entry(en.eclass)
                    .or_insert_with(|| (name, en.children.to_vec()));
            })
            .map_err(ReadError::of(name))?;
        }
        Ok(DataNodes { eg, nodes })
    }

    fn int(&self, v: Value) -> i64 {
        self.eg.value_to_base::<i64>(v)
    }

    fn string(&self, v: Value) -> String {
        self.eg.value_to_base::<S>(v).0.clone()
    }

    /// The element type class of a `RankedTensor` class, or the class itself.
    pub fn elem_class(&self, v: Value) -> Value {
        match self.nodes.get(&v) {
            Some(("RankedTensor", ch)) => ch[1],
            _ => v,
        }
    }

    /// Decodes a `Type` class.
    pub fn ty(&self, v: Value, b: &TermBuilder) -> Option<Type> {
        let (name, ch) = self.nodes.get(&v)?;
        Some(match *name {
            "I1" => Type::int(1),
            "I8" => Type::int(8),
            "I16" => Type::int(16),
            "I32" => Type::int(32),
            "I64" => Type::int(64),
            "Index" => Type::Index,
            "F16" => Type::Float(FloatKind::F16),
            "BF16" => Type::Float(FloatKind::BF16),
            "F32" => Type::f32(),
            "F64" => Type::f64(),
            "RankedTensor" => Type::Tensor {
                shape: self.dims(ch[0])?,
                elem: Box::new(self.ty(ch[1], b)?),
                encoding: None,
            },
            "OpaqueType" => b
                .opaque_types
                .get(usize::try_from(self.int(ch[0])).ok()?)?
                .clone(),
            _ => return None,
        })
    }

    fn dims(&self, mut v: Value) -> Option<Vec<Option<u64>>> {
        let mut out = Vec::new();
        loop {
            let (name, ch) = self.nodes.get(&v)?;
            match *name {
                "DNil" => return Some(out),
                "DCons" => {
                    let n = self.int(ch[0]);
                    out.push(u64::try_from(n).ok());
                    v = ch[1];
                }
                _ => return None,
            }
            if out.len() > 64 {
                return None;
            }
        }
    }

    /// Decodes an `Attr` class.
    pub fn attr(&self, v: Value, b: &TermBuilder) -> Option<Attribute> {
        let (name, ch) = self.nodes.get(&v)?;
        Some(match *name {
            "UnitAttr" => Attribute::Unit,
            "BoolAttr" => Attribute::Bool(self.eg.value_to_base::<bool>(ch[0])),
            "IntegerAttr" => Attribute::Integer {
                value: self.int(ch[0]) as i128,
                ty: self.ty(ch[1], b)?,
            },
            "FloatAttr" => Attribute::Float {
                value: FloatValue::Decimal(self.eg.value_to_base::<F>(ch[0]).0.into_inner()),
                ty: self.ty(ch[1], b)?,
            },
            "StringAttr" => Attribute::string(&self.string(ch[0])),
            "SymbolRefAttr" => Attribute::SymbolRef(vec![self.string(ch[0])]),
            "TypeAttr" => Attribute::Type(self.ty(ch[0], b)?),
            "DialectAttr" => Attribute::Dialect {
                dialect: self.string(ch[0]),
                name: self.string(ch[1]),
                body: Some(self.string(ch[2])),
                ty: None,
            },
            "OpaqueAttr" => b
                .opaque_attrs
                .get(usize::try_from(self.int(ch[0])).ok()?)?
                .clone(),
            _ => return None,
        })
    }

    /// Decodes an `AttrPair` class.
    pub fn named(&self, v: Value, b: &TermBuilder) -> Option<NamedAttr> {
        let (name, ch) = self.nodes.get(&v)?;
        if *name != "NamedAttr" {
            return None;
        }
        Some(NamedAttr::new(self.string(ch[0]), self.attr(ch[1], b)?))
    }
}

/// The index of the value printed as `text` in `values`, added on first sight.
fn intern<T: Clone>(
    values: &mut Vec<T>,
    ids: &mut HashMap<String, usize>,
    text: String,
    value: &T,
) -> usize {
    *ids.entry(text).or_insert_with(|| {
        values.push(value.clone());
        values.len() - 1
    })
}
