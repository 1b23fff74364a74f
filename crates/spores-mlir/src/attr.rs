//! MLIR attributes: the builtin ones rewrite rules match on (numbers, strings, arrays,
//! dictionaries, symbols, dense elements, fastmath flags) structurally; everything else verbatim.

use crate::ir::NamedAttr;
use crate::types::Type;

/// An MLIR attribute value.
#[derive(Clone, Debug, PartialEq)]
pub enum Attribute {
    /// `unit` (or a bare name in a dictionary).
    Unit,
    /// `true` / `false`.
    Bool(bool),
    /// `42 : i32`; an integer written without a type is an `i64`.
    Integer {
        /// The value. Literals that do not fit an `i128` are kept as [`Attribute::Opaque`].
        value: i128,
        /// Its type (an integer type or `index`).
        ty: Type,
    },
    /// `1.5 : f32` or `0x7FC00000 : f32`; a float written without a type is an `f64`.
    Float {
        /// The value: a decimal number, or an exact bit pattern when written in hex.
        value: FloatValue,
        /// Its float type.
        ty: Type,
    },
    /// `"text"` (bytes, since MLIR strings may hold any byte through `\XX` escapes), with an
    /// optional type (`"s" : i32`).
    String {
        /// The decoded bytes.
        value: Vec<u8>,
        /// The type, if written.
        ty: Option<Type>,
    },
    /// A type used as an attribute (`function_type = (i32) -> i32`).
    Type(Type),
    /// `[a, b, c]`.
    Array(Vec<Attribute>),
    /// `{a = 1, b}`, in written order.
    Dict(Vec<NamedAttr>),
    /// `@f` or `@a::@b` (root first).
    SymbolRef(Vec<String>),
    /// `dense<...> : type`.
    Dense {
        /// The elements.
        elements: DenseElements,
        /// The shaped type (tensor or vector).
        ty: Type,
    },
    /// `array<i64: 1, 2>`.
    DenseArray {
        /// The element type.
        elem: Type,
        /// The elements.
        values: Vec<DenseLit>,
    },
    /// `affine_map<(d0) -> (d0)>`: the text between the angle brackets.
    AffineMap(String),
    /// A dialect attribute `#dialect.name<body>` (or `#dialect<body>` in the opaque form, where
    /// `name` is empty), with an optional trailing type. `#arith.fastmath<fast>` is one; see
    /// [`Attribute::fastmath_flags`].
    Dialect {
        /// The dialect namespace.
        dialect: String,
        /// The attribute name after the dot, possibly empty.
        name: String,
        /// The text between the outer `<` and `>`, if present.
        body: Option<String>,
        /// The trailing `: type`, if written.
        ty: Option<Type>,
    },
    /// Anything else, as its full source text (`strided<[4, 1]>`, `affine_set<...>`,
    /// `dense_resource<blob> : tensor<4xf32>`, integers beyond 128 bits, ...). Keeping the text
    /// is what lets spores carry attributes it does not understand through unchanged.
    Opaque(String),
}

/// A float literal's value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FloatValue {
    /// A value written in decimal (or built by a rewrite).
    Decimal(f64),
    /// A bit pattern written in hex (`0x7FC00000`), kept exactly: it is how MLIR writes NaN and
    /// infinity, and NaN payloads must survive.
    Bits(u128),
}

impl FloatValue {
    /// The value as an `f64`, decoding bit patterns of `f16`, `bf16`, `f32` and `f64`.
    pub fn to_f64(self, ty: &Type) -> Option<f64> {
        use crate::types::FloatKind;
        match self {
            FloatValue::Decimal(v) => Some(v),
            FloatValue::Bits(b) => match ty {
                Type::Float(FloatKind::F64) => u64::try_from(b).ok().map(f64::from_bits),
                Type::Float(FloatKind::F32) => {
                    u32::try_from(b).ok().map(|b| f32::from_bits(b) as f64)
                }
                Type::Float(FloatKind::BF16) => u16::try_from(b)
                    .ok()
                    .map(|b| f32::from_bits((b as u32) << 16) as f64),
                Type::Float(FloatKind::F16) => u16::try_from(b).ok().map(half_to_f64),
                _ => None,
            },
        }
    }
}

/// Decodes an IEEE binary16 bit pattern.
fn half_to_f64(b: u16) -> f64 {
    let sign = if b & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = ((b >> 10) & 0x1f) as i32;
    let frac = (b & 0x3ff) as f64;
    match exp {
        0 => sign * frac * 2f64.powi(-24),
        31 if frac == 0.0 => sign * f64::INFINITY,
        31 => f64::NAN,
        e => sign * (1.0 + frac / 1024.0) * 2f64.powi(e - 15),
    }
}

/// The contents of `dense<...>`.
#[derive(Clone, Debug, PartialEq)]
pub enum DenseElements {
    /// `dense<>`: no elements (a zero-sized shape).
    Empty,
    /// `dense<1.0>`: one value for every element.
    Splat(DenseLit),
    /// `dense<[[1, 2], [3, 4]]>`: nested lists, outermost first.
    List(Vec<DenseElements>),
    /// `dense<"0xDEADBEEF">`: the raw hex blob, as text (with the `0x`).
    Hex(String),
}

/// One element literal inside `dense<...>` or `array<...>`.
#[derive(Clone, Debug, PartialEq)]
pub enum DenseLit {
    /// A decimal integer.
    Int(i128),
    /// A decimal float.
    Float(f64),
    /// `true` / `false`.
    Bool(bool),
    /// A string element.
    Str(Vec<u8>),
    /// `(re, im)` for complex elements.
    Complex(Box<DenseLit>, Box<DenseLit>),
    /// Literals kept verbatim: hex bit patterns (`0x7F800000`) and out-of-range integers.
    Raw(String),
}

impl Attribute {
    /// An `i64` integer attribute.
    pub fn i64(value: i64) -> Attribute {
        Attribute::Integer {
            value: value as i128,
            ty: Type::int(64),
        }
    }

    /// A string attribute.
    pub fn string(s: &str) -> Attribute {
        Attribute::String {
            value: s.as_bytes().to_vec(),
            ty: None,
        }
    }

    /// The flags of an `#arith.fastmath<...>` (or `#llvm.fastmath<...>`) attribute, e.g.
    /// `["fast"]` or `["nnan", "ninf"]`; `None` for other attributes.
    pub fn fastmath_flags(&self) -> Option<Vec<&str>> {
        match self {
            Attribute::Dialect {
                name,
                body: Some(b),
                ..
            } if name == "fastmath" => Some(
                b.split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .collect(),
            ),
            _ => None,
        }
    }

    /// The integer value of an integer or bool attribute.
    pub fn as_int(&self) -> Option<i128> {
        match self {
            Attribute::Integer { value, .. } => Some(*value),
            Attribute::Bool(b) => Some(*b as i128),
            _ => None,
        }
    }

    /// The string value, when it is valid UTF-8.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Attribute::String { value, .. } => std::str::from_utf8(value).ok(),
            _ => None,
        }
    }
}
