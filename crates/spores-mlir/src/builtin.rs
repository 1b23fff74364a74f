//! MLIR's builtin types and attributes, one module because each contains the other (a
//! tensor type may carry an encoding attribute, a type attribute holds a type).
//!
//! Types: the builtin ones structurally (what rewrite rules and cost functions look at:
//! element types and shapes), everything else as verbatim text. Attributes: the builtin ones
//! rewrite rules match on (numbers, strings, arrays, dictionaries, symbols, dense elements,
//! fastmath flags) structurally; everything else verbatim.

/// An MLIR type.
#[derive(Clone, Debug, PartialEq)]
pub enum Type {
    /// `i32`, `si8`, `ui64`.
    Integer {
        /// Signless (`i`), signed (`si`) or unsigned (`ui`).
        signedness: Signedness,
        /// Bit width.
        width: u32,
    },
    /// `index`.
    Index,
    /// A floating-point type.
    Float(FloatKind),
    /// `none`.
    None,
    /// `complex<f32>`.
    Complex(Box<Type>),
    /// `tuple<i32, f32>`.
    Tuple(Vec<Type>),
    /// `(i32, f32) -> (f32)`.
    Function {
        /// Argument types.
        inputs: Vec<Type>,
        /// Result types.
        results: Vec<Type>,
    },
    /// `tensor<4x?xf32>` or `tensor<4xf32, #encoding>`.
    Tensor {
        /// Dimensions; `None` is a dynamic `?`.
        shape: Vec<Option<u64>>,
        /// Element type.
        elem: Box<Type>,
        /// The optional encoding attribute.
        encoding: Option<Box<Attribute>>,
    },
    /// `tensor<*xf32>`.
    UnrankedTensor(Box<Type>),
    /// `memref<4x4xf32, strided<[4, 1]>, 1>`.
    MemRef {
        /// Dimensions; `None` is a dynamic `?`.
        shape: Vec<Option<u64>>,
        /// Element type.
        elem: Box<Type>,
        /// The layout (`affine_map<...>`, `strided<...>`), if written.
        layout: Option<Box<Attribute>>,
        /// The memory space, if written.
        memory_space: Option<Box<Attribute>>,
    },
    /// `memref<*xf32, 1>`.
    UnrankedMemRef {
        /// Element type.
        elem: Box<Type>,
        /// The memory space, if written.
        memory_space: Option<Box<Attribute>>,
    },
    /// `vector<4xf32>`, `vector<[4]x8xf32>`.
    Vector {
        /// Dimensions.
        shape: Vec<VectorDim>,
        /// Element type.
        elem: Box<Type>,
    },
    /// A dialect type `!dialect.name<body>` (or `!dialect<body>` in the opaque form, where
    /// `name` is empty). The body is kept verbatim: spores cannot know every dialect's syntax,
    /// and must still carry such types through unchanged.
    Dialect {
        /// The dialect namespace (`llvm` in `!llvm.ptr`).
        dialect: String,
        /// The type name after the dot, possibly empty.
        name: String,
        /// The text between the outer `<` and `>`, if present.
        body: Option<String>,
    },
}

/// Integer signedness semantics.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Signedness {
    /// `iN`.
    Signless,
    /// `siN`.
    Signed,
    /// `uiN`.
    Unsigned,
}

/// Floating-point formats.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum FloatKind {
    /// `f16`.
    F16,
    /// `bf16`.
    BF16,
    /// `f32`.
    F32,
    /// `f64`.
    F64,
    /// `f80`.
    F80,
    /// `f128`.
    F128,
    /// `tf32`.
    TF32,
    /// Other builtin float formats (`f8E4M3FN`, ...), by keyword.
    Other(String),
}

impl FloatKind {
    /// The type keyword.
    pub fn keyword(&self) -> &str {
        match self {
            FloatKind::F16 => "f16",
            FloatKind::BF16 => "bf16",
            FloatKind::F32 => "f32",
            FloatKind::F64 => "f64",
            FloatKind::F80 => "f80",
            FloatKind::F128 => "f128",
            FloatKind::TF32 => "tf32",
            FloatKind::Other(s) => s,
        }
    }

    /// The float format for a keyword, if it is one.
    pub fn from_keyword(s: &str) -> Option<FloatKind> {
        Some(match s {
            "f16" => FloatKind::F16,
            "bf16" => FloatKind::BF16,
            "f32" => FloatKind::F32,
            "f64" => FloatKind::F64,
            "f80" => FloatKind::F80,
            "f128" => FloatKind::F128,
            "tf32" => FloatKind::TF32,
            _ if s.starts_with("f8E")
                || s.starts_with("f6E")
                || s.starts_with("f4E")
                || s == "f8E8M0FNU" =>
            {
                FloatKind::Other(s.to_string())
            }
            _ => return None,
        })
    }

    /// The storage width in bits, used to print special values as hex bit patterns.
    pub fn width(&self) -> Option<u32> {
        match self {
            FloatKind::F16 | FloatKind::BF16 => Some(16),
            FloatKind::F32 | FloatKind::TF32 => Some(32),
            FloatKind::F64 => Some(64),
            FloatKind::F80 => Some(80),
            FloatKind::F128 => Some(128),
            FloatKind::Other(s) if s.starts_with("f8") => Some(8),
            FloatKind::Other(_) => None,
        }
    }
}

/// A vector dimension: fixed or scalable (`[4]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VectorDim {
    /// The size (the minimum size when scalable).
    pub size: u64,
    /// Whether it was written `[size]`.
    pub scalable: bool,
}

impl Type {
    /// `iN`.
    pub fn int(width: u32) -> Type {
        Type::Integer {
            signedness: Signedness::Signless,
            width,
        }
    }

    /// `f32`.
    pub fn f32() -> Type {
        Type::Float(FloatKind::F32)
    }

    /// `f64`.
    pub fn f64() -> Type {
        Type::Float(FloatKind::F64)
    }

    /// The element type of a shaped type (tensor, memref, vector), or the type itself.
    pub fn element_type(&self) -> &Type {
        match self {
            Type::Tensor { elem, .. }
            | Type::UnrankedTensor(elem)
            | Type::MemRef { elem, .. }
            | Type::UnrankedMemRef { elem, .. }
            | Type::Vector { elem, .. } => elem,
            other => other,
        }
    }

    /// The static shape of a ranked tensor or memref, or of a vector (`None` for `?`); `None`
    /// for unranked and non-shaped types.
    pub fn shape(&self) -> Option<Vec<Option<u64>>> {
        match self {
            Type::Tensor { shape, .. } | Type::MemRef { shape, .. } => Some(shape.clone()),
            Type::Vector { shape, .. } => Some(shape.iter().map(|d| Some(d.size)).collect()),
            _ => None,
        }
    }

    /// Whether this is a builtin integer type (any signedness).
    pub fn is_integer(&self) -> bool {
        matches!(self, Type::Integer { .. })
    }

    /// Whether this is a builtin float type.
    pub fn is_float(&self) -> bool {
        matches!(self, Type::Float(_))
    }
}

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

/// A named attribute `name = value` (or a bare `name`, which means `name = unit`).
#[derive(Clone, Debug, PartialEq)]
pub struct NamedAttr {
    /// The name (decoded when it was written as a string).
    pub name: String,
    /// The value.
    pub value: Attribute,
}

impl NamedAttr {
    /// Builds a named attribute.
    pub fn new(name: impl Into<String>, value: Attribute) -> Self {
        NamedAttr {
            name: name.into(),
            value,
        }
    }
}
