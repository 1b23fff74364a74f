//! MLIR types: the builtin ones structurally (what rewrite rules and cost functions look at:
//! element types and shapes), everything else as verbatim text.

use crate::attr::Attribute;

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
