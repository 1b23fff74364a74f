//! Prints the IR in MLIR's generic form, which `mlir-opt` reads back for any dialect, and which
//! [`crate::parse`] reads back into an equal [`Module`].

use std::fmt::Write;

use crate::builtin::{Attribute, DenseElements, DenseLit, FloatValue};
use crate::builtin::{FloatKind, Signedness, Type};
use crate::ir::{Block, Module, NamedAttr, Operation, Region, Successor, Value};

/// Printer settings.
#[derive(Clone, Copy, Debug)]
pub struct PrintOptions {
    /// Print the `loc(...)` locations and location aliases that the IR holds.
    pub locations: bool,
    /// Spaces per nesting level.
    pub indent: usize,
}

impl Default for PrintOptions {
    fn default() -> Self {
        PrintOptions {
            locations: true,
            indent: 2,
        }
    }
}

/// Prints a module.
pub fn print_module(m: &Module, opts: PrintOptions) -> String {
    let mut p = Printer {
        out: String::new(),
        opts,
    };
    for op in &m.ops {
        p.op(op, 0);
    }
    if let Some(meta) = &m.metadata {
        let _ = writeln!(p.out, "{{-#{meta}#-}}");
    }
    if opts.locations {
        for (name, loc) in &m.loc_aliases {
            let _ = writeln!(p.out, "#{name} = loc({loc})");
        }
    }
    p.out
}

struct Printer {
    out: String,
    opts: PrintOptions,
}

impl Printer {
    fn pad(&mut self, level: usize) {
        for _ in 0..level * self.opts.indent {
            self.out.push(' ');
        }
    }

    /// Writes each of `items` with `item`, separated by `, ` (see [`write_comma_list`]
    /// for the free functions).
    fn comma_list<T>(&mut self, items: &[T], mut item: impl FnMut(&mut Self, &T)) {
        for (i, x) in items.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            item(self, x);
        }
    }

    fn op(&mut self, op: &Operation, level: usize) {
        self.pad(level);
        self.comma_list(&op.results, |p, g| {
            let _ = write!(p.out, "%{}", g.name);
            if g.count != 1 {
                let _ = write!(p.out, ":{}", g.count);
            }
        });
        if !op.results.is_empty() {
            self.out.push_str(" = ");
        }
        write_string(&mut self.out, op.name.as_bytes());
        self.out.push('(');
        self.comma_list(&op.operands, |p, v| write_value(&mut p.out, v));
        self.out.push(')');
        if !op.successors.is_empty() {
            self.out.push('[');
            self.comma_list(&op.successors, |p, s| p.successor(s));
            self.out.push(']');
        }
        if let Some(p) = &op.properties {
            self.out.push_str(" <");
            write_attr(&mut self.out, p);
            self.out.push('>');
        }
        if !op.regions.is_empty() {
            self.out.push_str(" (");
            self.comma_list(&op.regions, |p, r| p.region(r, level));
            self.out.push(')');
        }
        if !op.attributes.is_empty() {
            self.out.push(' ');
            write_dict(&mut self.out, &op.attributes);
        }
        self.out.push_str(" : ");
        write_function_type(&mut self.out, &op.operand_types, &op.result_types);
        if let (true, Some(loc)) = (self.opts.locations, &op.loc) {
            let _ = write!(self.out, " loc({})", loc.0);
        }
        self.out.push('\n');
    }

    fn successor(&mut self, s: &Successor) {
        let _ = write!(self.out, "^{}", s.label);
        if !s.args.is_empty() {
            self.out.push('(');
            write_comma_list(&mut self.out, &s.args, write_value);
            self.out.push_str(" : ");
            write_type_list(&mut self.out, &s.arg_types);
            self.out.push(')');
        }
    }

    fn region(&mut self, r: &Region, level: usize) {
        self.out.push_str("{\n");
        for (i, b) in r.blocks.iter().enumerate() {
            self.block(b, i, level);
        }
        self.pad(level);
        self.out.push('}');
    }

    fn block(&mut self, b: &Block, index: usize, level: usize) {
        // An unlabeled block is only expressible as the entry block, without arguments, and
        // with at least one operation (an empty `{}` reads back as a region without blocks).
        let needs_label = index > 0 || !b.args.is_empty() || b.ops.is_empty();
        let label = match &b.label {
            Some(l) => Some(l.clone()),
            None if needs_label => Some(format!("bb{index}")),
            None => None,
        };
        if let Some(l) = label {
            self.pad(level);
            let _ = write!(self.out, "^{l}");
            if !b.args.is_empty() {
                self.out.push('(');
                self.comma_list(&b.args, |p, a| {
                    let _ = write!(p.out, "%{}: ", a.name);
                    write_type(&mut p.out, &a.ty);
                    if let (true, Some(loc)) = (p.opts.locations, &a.loc) {
                        let _ = write!(p.out, " loc({})", loc.0);
                    }
                });
                self.out.push(')');
            }
            self.out.push_str(":\n");
        }
        for op in &b.ops {
            self.op(op, level + 1);
        }
    }
}

fn write_value(out: &mut String, v: &Value) {
    let _ = write!(out, "%{}", v.name);
    if let Some(i) = v.index {
        let _ = write!(out, "#{i}");
    }
}

/// Writes a string literal, escaping what MLIR's lexer needs escaped.
pub fn write_string(out: &mut String, bytes: &[u8]) {
    out.push('"');
    for &b in bytes {
        match b {
            b'"' | b'\\' => {
                out.push('\\');
                out.push(b as char);
            }
            0x20..=0x7e => out.push(b as char),
            _ => {
                let _ = write!(out, "\\{b:02X}");
            }
        }
    }
    out.push('"');
}

fn is_bare_id(s: &str) -> bool {
    let mut it = s.bytes();
    it.next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
        && it.all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.'))
}

fn is_symbol_id(s: &str) -> bool {
    let b = s.as_bytes();
    if b.is_empty() {
        return false;
    }
    if b[0].is_ascii_digit() {
        return b.iter().all(u8::is_ascii_digit);
    }
    b.iter()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.' | b'-'))
}

/// Writes each of `items` with `item`, separated by `, `: the lists of types,
/// attributes and dense elements.
fn write_comma_list<T>(out: &mut String, items: &[T], mut item: impl FnMut(&mut String, &T)) {
    for (i, x) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        item(out, x);
    }
}

fn write_type_list(out: &mut String, ts: &[Type]) {
    write_comma_list(out, ts, write_type);
}

fn write_function_type(out: &mut String, inputs: &[Type], results: &[Type]) {
    out.push('(');
    write_type_list(out, inputs);
    out.push_str(") -> ");
    match results {
        [one] if !matches!(one, Type::Function { .. }) => write_type(out, one),
        _ => {
            out.push('(');
            write_type_list(out, results);
            out.push(')');
        }
    }
}

fn write_dims(out: &mut String, shape: &[Option<u64>]) {
    for d in shape {
        match d {
            Some(n) => {
                let _ = write!(out, "{n}x");
            }
            None => out.push_str("?x"),
        }
    }
}

/// Writes a type.
pub fn write_type(out: &mut String, t: &Type) {
    match t {
        Type::Integer { signedness, width } => {
            let p = match signedness {
                Signedness::Signless => "i",
                Signedness::Signed => "si",
                Signedness::Unsigned => "ui",
            };
            let _ = write!(out, "{p}{width}");
        }
        Type::Index => out.push_str("index"),
        Type::Float(k) => out.push_str(k.keyword()),
        Type::None => out.push_str("none"),
        Type::Complex(e) => {
            out.push_str("complex<");
            write_type(out, e);
            out.push('>');
        }
        Type::Tuple(ts) => {
            out.push_str("tuple<");
            write_type_list(out, ts);
            out.push('>');
        }
        Type::Function { inputs, results } => write_function_type(out, inputs, results),
        Type::Tensor {
            shape,
            elem,
            encoding,
        } => {
            out.push_str("tensor<");
            write_dims(out, shape);
            write_type(out, elem);
            if let Some(e) = encoding {
                out.push_str(", ");
                write_attr(out, e);
            }
            out.push('>');
        }
        Type::UnrankedTensor(e) => {
            out.push_str("tensor<*x");
            write_type(out, e);
            out.push('>');
        }
        Type::MemRef {
            shape,
            elem,
            layout,
            memory_space,
        } => {
            out.push_str("memref<");
            write_dims(out, shape);
            write_type(out, elem);
            for a in [layout, memory_space].into_iter().flatten() {
                out.push_str(", ");
                write_attr(out, a);
            }
            out.push('>');
        }
        Type::UnrankedMemRef { elem, memory_space } => {
            out.push_str("memref<*x");
            write_type(out, elem);
            if let Some(a) = memory_space {
                out.push_str(", ");
                write_attr(out, a);
            }
            out.push('>');
        }
        Type::Vector { shape, elem } => {
            out.push_str("vector<");
            for d in shape {
                if d.scalable {
                    let _ = write!(out, "[{}]x", d.size);
                } else {
                    let _ = write!(out, "{}x", d.size);
                }
            }
            write_type(out, elem);
            out.push('>');
        }
        Type::Dialect {
            dialect,
            name,
            body,
        } => {
            write_dialect_item(out, '!', dialect, name, body.as_deref());
        }
    }
}

fn write_dialect_item(
    out: &mut String,
    sigil: char,
    dialect: &str,
    name: &str,
    body: Option<&str>,
) {
    out.push(sigil);
    out.push_str(dialect);
    if !name.is_empty() {
        out.push('.');
        out.push_str(name);
    }
    if let Some(b) = body {
        out.push('<');
        out.push_str(b);
        out.push('>');
    }
}

/// Formats a finite `f64` so that MLIR's lexer reads it as a float (it needs a `.`) and Rust
/// reads it back to the same value (Rust's shortest round-trip representation).
fn format_f64(v: f64) -> String {
    let s = format!("{v:?}");
    match s.find('e') {
        Some(i) if !s[..i].contains('.') => format!("{}.0{}", &s[..i], &s[i..]),
        _ => s,
    }
}

/// The bit pattern of a non-finite value in a float format, for printing it in hex.
fn special_bits(v: f64, k: &FloatKind) -> Option<String> {
    Some(match k {
        FloatKind::F64 => format!("0x{:016X}", v.to_bits()),
        FloatKind::F32 => format!("0x{:08X}", (v as f32).to_bits()),
        FloatKind::BF16 => format!("0x{:04X}", (v as f32).to_bits() >> 16),
        FloatKind::F16 => {
            let bits: u16 = if v.is_nan() {
                0x7E00
            } else if v > 0.0 {
                0x7C00
            } else {
                0xFC00
            };
            format!("0x{bits:04X}")
        }
        _ => return None,
    })
}

fn write_dict(out: &mut String, d: &[NamedAttr]) {
    out.push('{');
    write_comma_list(out, d, |out, a| {
        if is_bare_id(&a.name) {
            out.push_str(&a.name);
        } else {
            write_string(out, a.name.as_bytes());
        }
        if a.value != Attribute::Unit {
            out.push_str(" = ");
            write_attr(out, &a.value);
        }
    });
    out.push('}');
}

fn write_symbol(out: &mut String, s: &str) {
    out.push('@');
    if is_symbol_id(s) {
        out.push_str(s);
    } else {
        write_string(out, s.as_bytes());
    }
}

/// Writes an attribute.
pub fn write_attr(out: &mut String, a: &Attribute) {
    match a {
        Attribute::Unit => out.push_str("unit"),
        Attribute::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Attribute::Integer { value, ty } => {
            let _ = write!(out, "{value} : ");
            write_type(out, ty);
        }
        Attribute::Float { value, ty } => {
            match value {
                FloatValue::Decimal(v) if v.is_finite() => out.push_str(&format_f64(*v)),
                FloatValue::Decimal(v) => {
                    let bits = match ty {
                        Type::Float(k) => special_bits(*v, k),
                        _ => None,
                    };
                    // A non-finite value in a format we cannot encode has no valid spelling;
                    // print the largest-magnitude decimal so the output at least parses.
                    out.push_str(&bits.unwrap_or_else(|| {
                        if *v < 0.0 {
                            "-1.0e308".into()
                        } else {
                            "1.0e308".into()
                        }
                    }));
                }
                FloatValue::Bits(b) => {
                    // Pad to the format's width, as MLIR prints bit patterns.
                    let digits = match ty {
                        Type::Float(k) => k.width().map_or(1, |w| w.div_ceil(4) as usize),
                        _ => 1,
                    };
                    let _ = write!(out, "0x{b:0digits$X}");
                }
            }
            out.push_str(" : ");
            write_type(out, ty);
        }
        Attribute::String { value, ty } => {
            write_string(out, value);
            if let Some(t) = ty {
                out.push_str(" : ");
                write_type(out, t);
            }
        }
        Attribute::Type(t) => write_type(out, t),
        Attribute::Array(v) => {
            out.push('[');
            write_comma_list(out, v, write_attr);
            out.push(']');
        }
        Attribute::Dict(d) => write_dict(out, d),
        Attribute::SymbolRef(path) => {
            for (i, s) in path.iter().enumerate() {
                if i > 0 {
                    out.push_str("::");
                }
                write_symbol(out, s);
            }
        }
        Attribute::Dense { elements, ty } => {
            out.push_str("dense<");
            match elements {
                DenseElements::Empty => {}
                DenseElements::Hex(h) => {
                    let _ = write!(out, "\"{h}\"");
                }
                e => write_dense(out, e),
            }
            out.push_str("> : ");
            write_type(out, ty);
        }
        Attribute::DenseArray { elem, values } => {
            out.push_str("array<");
            write_type(out, elem);
            for (i, v) in values.iter().enumerate() {
                out.push_str(if i == 0 { ": " } else { ", " });
                write_dense_lit(out, v);
            }
            out.push('>');
        }
        Attribute::AffineMap(body) => {
            let _ = write!(out, "affine_map<{body}>");
        }
        Attribute::Dialect {
            dialect,
            name,
            body,
            ty,
        } => {
            write_dialect_item(out, '#', dialect, name, body.as_deref());
            if let Some(t) = ty {
                out.push_str(" : ");
                write_type(out, t);
            }
        }
        Attribute::Opaque(text) => out.push_str(text),
    }
}

fn write_dense(out: &mut String, e: &DenseElements) {
    match e {
        DenseElements::Empty => {}
        DenseElements::Hex(h) => {
            let _ = write!(out, "\"{h}\"");
        }
        DenseElements::Splat(l) => write_dense_lit(out, l),
        DenseElements::List(v) => {
            out.push('[');
            write_comma_list(out, v, write_dense);
            out.push(']');
        }
    }
}

fn write_dense_lit(out: &mut String, l: &DenseLit) {
    match l {
        DenseLit::Int(v) => {
            let _ = write!(out, "{v}");
        }
        DenseLit::Float(v) if v.is_finite() => out.push_str(&format_f64(*v)),
        DenseLit::Float(v) => out.push_str(if *v < 0.0 { "-1.0e308" } else { "1.0e308" }),
        DenseLit::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        DenseLit::Str(s) => write_string(out, s),
        DenseLit::Complex(re, im) => {
            out.push('(');
            write_dense_lit(out, re);
            out.push_str(", ");
            write_dense_lit(out, im);
            out.push(')');
        }
        DenseLit::Raw(t) => out.push_str(t),
    }
}
