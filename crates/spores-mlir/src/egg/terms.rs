//! MLIR types and attributes as egglog terms, both ways.
//!
//! The builtin types and attributes rules look at (integers and floats, ranked tensors, numbers,
//! strings, symbols, dialect attributes such as `#arith.fastmath<fast>`) become structured terms
//! of the prelude's `Type` / `Attr` sorts. Everything else becomes `OpaqueType n` /
//! `OpaqueAttr n`, an index into a table kept here, so any dialect's types and attributes pass
//! through unchanged (equal values share an index, so equal ops still hash-cons).
//!
//! Rule files in the 2024 egglog dialect (DialEgg's) spell types and attributes as DialEgg's
//! `src/base.egg` does ([`Vocabulary::DialEgg`]): shapes are `(vec-of ...)` vectors, other
//! types and attributes `(OpaqueType "text" "kind")` / `(OpaqueAttr "text" "kind")`, and
//! `#arith.fastmath<f>` is `(arith_fastmath (f))` when the rule file declares it.
//!
//! Terms are built as a list of insertions ([`Ins`]) applied later in one `EGraph::update`
//! (generating egglog source instead would cost ~0.1 ms per command), and read back from
//! the e-nodes of the `Type`/`Dims`/`Attr`/`AttrPair` constructors ([`DataNodes`]).

use std::collections::HashMap;

use egglog::sort::{OrderedFloat, VecContainer, F, S};
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
    /// A `(Vec i64)` container (DialEgg's shapes).
    I64Vec(Vec<i64>),
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

/// Which constructors spell types and attributes.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Vocabulary {
    /// The shipped prelude's (`egg/prelude.egg`).
    #[default]
    Spores,
    /// DialEgg's `src/base.egg`, as far as the rule file declares it.
    DialEgg(DialEggWords),
}

/// The data constructors a DialEgg rule file declares.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DialEggWords {
    /// Constructor name → number of inputs, for the names [`DIALEGG_CTORS`] lists.
    pub ctors: HashMap<String, usize>,
    /// The flags of `(arith_fastmath FLAGS)` (the constructors of its input sort), when the
    /// file declares it: DialEgg's driver spells `#arith.fastmath<fast>` `(arith_fastmath (fast))`.
    pub fastmath_flags: Vec<String>,
}

impl DialEggWords {
    fn has(&self, ctor: &str, inputs: usize) -> bool {
        self.ctors.get(ctor) == Some(&inputs)
    }
}

/// The data constructors of DialEgg's `src/base.egg` the translator uses.
pub const DIALEGG_CTORS: &[&str] = &[
    "I1",
    "I8",
    "I16",
    "I32",
    "I64",
    "Index",
    "F16",
    "F32",
    "F64",
    "None",
    "RankedTensor",
    "Vector",
    "OpaqueType",
    "IntegerAttr",
    "FloatAttr",
    "StringAttr",
    "SymbolRefAttr",
    "TypeAttr",
    "UnitAttr",
    "OpaqueAttr",
    "NamedAttr",
    "arith_fastmath",
];

/// Builds insertions, sharing equal terms, and keeps the opaque tables.
#[derive(Debug, Default)]
pub struct TermBuilder {
    pub vocabulary: Vocabulary,
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
    pub fn new(vocabulary: Vocabulary) -> TermBuilder {
        TermBuilder {
            vocabulary,
            ..TermBuilder::default()
        }
    }

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
        if let Vocabulary::DialEgg(words) = &self.vocabulary {
            let words = words.clone();
            return self.dialegg_ty(t, &words);
        }
        let scalar = match t {
            Type::Integer {
                signedness: Signedness::Signless,
                width,
            } => signless_integer(*width),
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

    /// A type as DialEgg's driver spells it (`Egglog::eggifyType`).
    fn dialegg_ty(&mut self, t: &Type, words: &DialEggWords) -> usize {
        let scalar = match t {
            Type::Integer {
                signedness: Signedness::Signless,
                width,
            } => signless_integer(*width),
            Type::Index => Some("Index"),
            Type::None => Some("None"),
            Type::Float(FloatKind::F16) => Some("F16"),
            Type::Float(FloatKind::F32) => Some("F32"),
            Type::Float(FloatKind::F64) => Some("F64"),
            _ => None,
        };
        if let Some(name) = scalar.filter(|n| words.has(n, 0)) {
            return self.add(name, vec![]);
        }
        let shaped = match t {
            Type::Tensor {
                shape,
                elem,
                encoding: None,
            } if words.has("RankedTensor", 2) => Some(("RankedTensor", dims_vec(shape), elem)),
            Type::Vector { shape, elem } if words.has("Vector", 2) => {
                let fixed: Option<Vec<i64>> = shape
                    .iter()
                    .map(|d| i64::try_from(d.size).ok().filter(|_| !d.scalable))
                    .collect();
                fixed.map(|dims| ("Vector", dims, elem))
            }
            _ => None,
        };
        if let Some((name, dims, elem)) = shaped {
            let e = self.dialegg_ty(elem, words);
            return self.add(name, vec![Arg::I64Vec(dims), Arg::Slot(e)]);
        }
        let mut text = String::new();
        write_type(&mut text, t);
        intern(
            &mut self.opaque_types,
            &mut self.opaque_type_ids,
            text.clone(),
            t,
        );
        let kind = kind_of(&text);
        self.add("OpaqueType", vec![Arg::Str(text), Arg::Str(kind)])
    }

    /// An attribute as DialEgg's driver spells it (`Egglog::eggifyAttribute`).
    fn dialegg_attr(&mut self, a: &Attribute, words: &DialEggWords) -> usize {
        let int = |value: i128| i64::try_from(value).ok();
        match a {
            Attribute::Unit if words.has("UnitAttr", 0) => return self.add("UnitAttr", vec![]),
            Attribute::Bool(b) if words.has("IntegerAttr", 2) => {
                let t = self.dialegg_ty(&Type::int(1), words);
                return self.add("IntegerAttr", vec![Arg::I64(*b as i64), Arg::Slot(t)]);
            }
            Attribute::Integer { value, ty } if words.has("IntegerAttr", 2) => {
                if let Some(v) = int(*value) {
                    let t = self.dialegg_ty(ty, words);
                    return self.add("IntegerAttr", vec![Arg::I64(v), Arg::Slot(t)]);
                }
            }
            Attribute::Float {
                value: FloatValue::Decimal(v),
                ty,
            } if v.is_finite() && words.has("FloatAttr", 2) => {
                let t = self.dialegg_ty(ty, words);
                return self.add("FloatAttr", vec![Arg::F64(*v), Arg::Slot(t)]);
            }
            Attribute::String { value, ty: None } if words.has("StringAttr", 1) => {
                if let Ok(s) = std::str::from_utf8(value) {
                    return self.add("StringAttr", vec![Arg::Str(s.to_string())]);
                }
            }
            Attribute::SymbolRef(path) if path.len() == 1 && words.has("SymbolRefAttr", 1) => {
                return self.add("SymbolRefAttr", vec![Arg::Str(path[0].clone())]);
            }
            Attribute::Type(t) if words.has("TypeAttr", 1) => {
                let t = self.dialegg_ty(t, words);
                return self.add("TypeAttr", vec![Arg::Slot(t)]);
            }
            Attribute::Dialect {
                dialect,
                name,
                body: Some(flag),
                ty: None,
            } if dialect == "arith"
                && name == "fastmath"
                && words.has("arith_fastmath", 1)
                && words.fastmath_flags.contains(flag) =>
            {
                let f = self.add(flag, vec![]);
                return self.add("arith_fastmath", vec![Arg::Slot(f)]);
            }
            _ => {}
        }
        let mut text = String::new();
        write_attr(&mut text, a);
        intern(
            &mut self.opaque_attrs,
            &mut self.opaque_attr_ids,
            text.clone(),
            a,
        );
        let kind = kind_of(&text);
        self.add("OpaqueAttr", vec![Arg::Str(text), Arg::Str(kind)])
    }

    /// The term of an attribute value.
    pub fn attr(&mut self, a: &Attribute) -> usize {
        if let Vocabulary::DialEgg(words) = &self.vocabulary {
            let words = words.clone();
            return self.dialegg_attr(a, &words);
        }
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

/// A shape as a DialEgg vector: a dynamic `?` is MLIR's `ShapedType::kDynamic`, as DialEgg's
/// driver prints it.
fn dims_vec(shape: &[Option<u64>]) -> Vec<i64> {
    shape
        .iter()
        .map(|d| d.and_then(|n| i64::try_from(n).ok()).unwrap_or(i64::MIN))
        .collect()
}

/// The second string of DialEgg's `OpaqueType`/`OpaqueAttr`: the dialect and name of a type or
/// attribute printed as `text` (`!llvm.ptr` → `llvm.ptr`, `memref<4xf32>` → `builtin.memref`).
fn kind_of(text: &str) -> String {
    let word = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '.')
            .collect()
    };
    match text.strip_prefix('!').or_else(|| text.strip_prefix('#')) {
        Some(rest) => word(rest),
        None => format!("builtin.{}", word(text)),
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
                            Arg::I64Vec(xs) => {
                                let data = xs.iter().map(|x| fs.base_to_value(*x)).collect();
                                fs.container_to_value(VecContainer {
                                    do_rebuild: false,
                                    data,
                                })
                            }
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
    dialegg: bool,
    nodes: HashMap<Value, (String, Vec<Value>)>,
}

impl<'e> DataNodes<'e> {
    /// Reads the data constructors' tables.
    pub fn read(eg: &'e EGraph, vocabulary: &Vocabulary) -> Result<DataNodes<'e>, ReadError> {
        let names: Vec<&str> = match vocabulary {
            Vocabulary::Spores => DATA_CTORS.to_vec(),
            Vocabulary::DialEgg(words) => DIALEGG_CTORS
                .iter()
                .copied()
                .filter(|n| words.ctors.contains_key(*n))
                .chain(words.fastmath_flags.iter().map(String::as_str))
                .collect(),
        };
        let mut nodes = HashMap::new();
        for name in names {
            eg.constructor_enodes(name, |en| {
                nodes
                    .entry(en.eclass)
                    .or_insert_with(|| (name.to_string(), en.children.to_vec()));
            })
            .map_err(ReadError::of(name))?;
        }
        Ok(DataNodes {
            eg,
            dialegg: matches!(vocabulary, Vocabulary::DialEgg(_)),
            nodes,
        })
    }

    fn node(&self, v: Value) -> Option<(&str, &[Value])> {
        self.nodes
            .get(&v)
            .map(|(name, ch)| (name.as_str(), ch.as_slice()))
    }

    fn int(&self, v: Value) -> i64 {
        self.eg.value_to_base::<i64>(v)
    }

    fn string(&self, v: Value) -> String {
        self.eg.value_to_base::<S>(v).0.clone()
    }

    /// The element type class of a `RankedTensor` (or DialEgg `Vector`) class, or the class
    /// itself.
    pub fn elem_class(&self, v: Value) -> Value {
        match self.node(v) {
            Some(("RankedTensor" | "Vector", ch)) => ch[1],
            _ => v,
        }
    }

    /// Decodes a `Type` class.
    pub fn ty(&self, v: Value, b: &TermBuilder) -> Option<Type> {
        let (name, ch) = self.node(v)?;
        Some(match name {
            "I1" => Type::int(1),
            "I8" => Type::int(8),
            "I16" => Type::int(16),
            "I32" => Type::int(32),
            "I64" => Type::int(64),
            "Index" => Type::Index,
            "None" => Type::None,
            "F16" => Type::Float(FloatKind::F16),
            "BF16" => Type::Float(FloatKind::BF16),
            "F32" => Type::f32(),
            "F64" => Type::f64(),
            "RankedTensor" => Type::Tensor {
                shape: if self.dialegg {
                    self.dims_vec(ch[0])?
                } else {
                    self.dims(ch[0])?
                },
                elem: Box::new(self.ty(ch[1], b)?),
                encoding: None,
            },
            "Vector" => Type::Vector {
                shape: self
                    .dims_vec(ch[0])?
                    .into_iter()
                    .map(|d| {
                        d.map(|size| crate::builtin::VectorDim {
                            size,
                            scalable: false,
                        })
                    })
                    .collect::<Option<_>>()?,
                elem: Box::new(self.ty(ch[1], b)?),
            },
            "OpaqueType" if self.dialegg => {
                let id = *b.opaque_type_ids.get(&self.string(ch[0]))?;
                b.opaque_types[id].clone()
            }
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
            let (name, ch) = self.node(v)?;
            match name {
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

    /// A DialEgg shape, `(vec-of ...)`: a negative size is dynamic.
    fn dims_vec(&self, v: Value) -> Option<Vec<Option<u64>>> {
        let vec = self.eg.value_to_container::<VecContainer>(v)?;
        Some(
            vec.data
                .iter()
                .map(|&d| u64::try_from(self.int(d)).ok())
                .collect(),
        )
    }

    /// Decodes an `Attr` class.
    pub fn attr(&self, v: Value, b: &TermBuilder) -> Option<Attribute> {
        let (name, ch) = self.node(v)?;
        Some(match name {
            "UnitAttr" => Attribute::Unit,
            "BoolAttr" => Attribute::Bool(self.eg.value_to_base::<bool>(ch[0])),
            // DialEgg spells `true` as a one-bit integer.
            "IntegerAttr" if self.dialegg && self.ty(ch[1], b) == Some(Type::int(1)) => {
                Attribute::Bool(self.int(ch[0]) != 0)
            }
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
            "arith_fastmath" => Attribute::Dialect {
                dialect: "arith".into(),
                name: "fastmath".into(),
                body: Some(self.node(ch[0])?.0.to_string()),
                ty: None,
            },
            "OpaqueAttr" if self.dialegg => {
                let id = *b.opaque_attr_ids.get(&self.string(ch[0]))?;
                b.opaque_attrs[id].clone()
            }
            "OpaqueAttr" => b
                .opaque_attrs
                .get(usize::try_from(self.int(ch[0])).ok()?)?
                .clone(),
            _ => return None,
        })
    }

    /// Decodes an `AttrPair` class.
    pub fn named(&self, v: Value, b: &TermBuilder) -> Option<NamedAttr> {
        let (name, ch) = self.node(v)?;
        if name != "NamedAttr" {
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

/// The sort name of a signless integer type of `width` bits, in both vocabularies.
fn signless_integer(width: u32) -> Option<&'static str> {
    match width {
        1 => Some("I1"),
        8 => Some("I8"),
        16 => Some("I16"),
        32 => Some("I32"),
        64 => Some("I64"),
        _ => None,
    }
}
