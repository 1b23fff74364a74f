//! The builtin table: one row per native DML builtin ([`Builtin`]) with its name and other
//! spellings, its parameters in child order with their defaults, how a call binds its
//! arguments, whether it has an effect, its results, and the shape of its value where a
//! rule says it.
//!
//! Every stage reads the same row: lowering binds a call's arguments by it
//! (`dag/lower.rs`), [`Builtin::name`], [`Builtin::is_pure`] and [`Builtin::outputs`]
//! answer from it, shape inference (`dag/meta.rs`) takes [`ResultShape`] from it, the
//! runtime names a parameter in its errors with [`Builtin::param`], and the optimizer seam
//! (`opt/convert.rs`) names the builtins it hands over with [`Builtin::name`]. What a
//! builtin computes stays with each stage, in a `match` over [`Builtin`] that the compiler
//! checks is complete.
//!
//! ```
//! use spores_dml::dag::builtins::{by_name, CallForm};
//! use spores_dml::dag::Builtin;
//!
//! let spec = by_name("removeEmpty").unwrap();
//! assert_eq!(spec.builtin, Builtin::RemoveEmpty);
//! assert_eq!(spec.call, CallForm::Named);
//! assert_eq!(Builtin::RemoveEmpty.param(2), "empty.return");
//! assert_eq!(by_name("castAsScalar").unwrap().builtin, Builtin::AsScalar);
//! ```

use super::op::Builtin;
use ArgDefault::{Absent, Bool, Double, Int, Str};
use CallForm::{Custom, Named, Positional};
use ResultShape::{ColumnPerRow, Computed, LikeFirst, RowPerColumn, SameAsFirst, Scalar};

/// How lowering turns a call into the builtin's node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallForm {
    /// Arguments bound to the parameters by name or position; a missing optional one
    /// takes its default.
    Named,
    /// Exactly one argument per parameter, by position (a lone argument may be named).
    Positional,
    /// Lowering has a rule of its own (variadic, chained, or several spellings that fill
    /// in parameters); the row still names its parameters.
    Custom,
}

/// The value an omitted argument takes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ArgDefault {
    /// The call must give it.
    Required,
    /// Optional with no value: the node has no child for it, nor for any parameter after.
    Absent,
    Double(f64),
    Int(i64),
    Bool(bool),
    Str(&'static str),
}

/// One parameter: its name and what it is when omitted.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Param {
    pub name: &'static str,
    pub default: ArgDefault,
}

/// The shape of a builtin's value, where one rule of its first argument's shape gives it;
/// [`ResultShape::Computed`] builtins are worked out case by case (`dag/meta.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResultShape {
    /// A scalar.
    Scalar,
    /// The first argument's shape (dense).
    SameAsFirst,
    /// The first argument's shape and non-zeros.
    LikeFirst,
    /// One column with the first argument's rows.
    ColumnPerRow,
    /// One row with the first argument's columns.
    RowPerColumn,
    Computed,
}

/// One builtin's row of the table.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BuiltinSpec {
    pub builtin: Builtin,
    /// The name messages use.
    pub name: &'static str,
    /// Other spellings SystemDS accepts for the same builtin.
    pub aliases: &'static [&'static str],
    /// Parameters in the order of the node's children.
    pub params: &'static [Param],
    pub call: CallForm,
    /// Reads or writes the world (files, output, the clock) or stops the script: never
    /// merged with another call or moved.
    pub effect: bool,
    /// Names of its results; builtins with more than one are read with `Op::Extract`.
    pub results: &'static [&'static str],
    pub shape: ResultShape,
}

impl BuiltinSpec {
    /// How many parameters a call must give.
    pub fn required(&self) -> usize {
        self.params
            .iter()
            .take_while(|p| p.default == ArgDefault::Required)
            .count()
    }

    /// The parameters' names, in order.
    pub fn param_names(&self) -> Vec<&'static str> {
        self.params.iter().map(|p| p.name).collect()
    }
}

const fn req(name: &'static str) -> Param {
    Param {
        name,
        default: ArgDefault::Required,
    }
}

const fn opt(name: &'static str, default: ArgDefault) -> Param {
    Param { name, default }
}

const ONE: &[&str] = &["value"];
const TARGET: &[Param] = &[req("target")];

/// A builtin of one value, no effect and no other spelling.
const fn row(
    builtin: Builtin,
    name: &'static str,
    params: &'static [Param],
    call: CallForm,
    shape: ResultShape,
) -> BuiltinSpec {
    BuiltinSpec {
        builtin,
        name,
        aliases: &[],
        params,
        call,
        effect: false,
        results: ONE,
        shape,
    }
}

/// A builtin whose arguments bind by name, with a value whose shape is worked out case by
/// case.
const fn named(builtin: Builtin, name: &'static str, params: &'static [Param]) -> BuiltinSpec {
    row(
        builtin,
        name,
        params,
        CallForm::Named,
        ResultShape::Computed,
    )
}

/// A builtin that takes one matrix positionally.
const fn of_target(builtin: Builtin, name: &'static str, shape: ResultShape) -> BuiltinSpec {
    row(builtin, name, TARGET, CallForm::Positional, shape)
}

/// A builtin with an effect.
const fn effect(
    builtin: Builtin,
    name: &'static str,
    params: &'static [Param],
    call: CallForm,
) -> BuiltinSpec {
    BuiltinSpec {
        effect: true,
        ..row(builtin, name, params, call, ResultShape::Computed)
    }
}

/// The operands of the bitwise operators: numbers or matrices.
const BITWISE: &[Param] = &[req("a"), req("b")];

/// The distributions' parameters, the children of `Builtin::Cdf` (`Builtin::Icdf`: all
/// but `lower.tail`); NaN marks a parameter the distribution must get.
const DISTRIBUTION: &[Param] = &[
    opt("target", Double(f64::NAN)),
    opt("dist", Str("")),
    opt("df", Double(f64::NAN)),
    opt("df1", Double(f64::NAN)),
    opt("df2", Double(f64::NAN)),
    opt("mean", Double(0.0)),
    opt("sd", Double(1.0)),
    opt("rate", Double(1.0)),
    opt("lower.tail", Bool(true)),
];

const TRIANGLE: &[Param] = &[
    req("target"),
    opt("diag", Bool(false)),
    opt("values", Bool(false)),
];

/// Every native builtin, in the order of [`Builtin`]'s variants.
pub const BUILTINS: &[BuiltinSpec] = &[
    BuiltinSpec {
        // SystemDS matches `rand` in any case (kmeans.dml writes `Rand`), and a size
        // not given is 1 (`rand(min=-1, max=1)` is 1 x 1).
        aliases: &["Rand"],
        ..named(
            Builtin::Rand,
            "rand",
            &[
                opt("rows", Int(1)),
                opt("cols", Int(1)),
                opt("min", Double(0.0)),
                opt("max", Double(1.0)),
                opt("sparsity", Double(1.0)),
                opt("seed", Int(-1)),
                opt("pdf", Str("uniform")),
                opt("lambda", Double(1.0)),
            ],
        )
    },
    // The third argument is either `replace` (a boolean) or the seed (an integer); the
    // runtime tells them apart by type, as SystemDS does.
    named(
        Builtin::Sample,
        "sample",
        &[
            req("range"),
            req("size"),
            opt("replace", Bool(false)),
            opt("seed", Int(-1)),
        ],
    ),
    named(
        Builtin::Matrix,
        "matrix",
        &[
            req("data"),
            req("rows"),
            req("cols"),
            opt("byrow", Bool(true)),
        ],
    ),
    named(
        Builtin::Seq,
        "seq",
        &[req("from"), req("to"), opt("incr", Absent)],
    ),
    of_target(Builtin::Nrow, "nrow", Computed),
    of_target(Builtin::Ncol, "ncol", Computed),
    of_target(Builtin::Length, "length", Computed),
    BuiltinSpec {
        aliases: &["castAsScalar"],
        ..of_target(Builtin::AsScalar, "as.scalar", Scalar)
    },
    of_target(Builtin::AsMatrix, "as.matrix", Computed),
    of_target(Builtin::AsDouble, "as.double", Scalar),
    of_target(Builtin::AsInteger, "as.integer", Scalar),
    BuiltinSpec {
        aliases: &["as.boolean"],
        ..of_target(Builtin::AsLogical, "as.logical", Scalar)
    },
    of_target(Builtin::Exists, "exists", Scalar),
    of_target(Builtin::Diag, "diag", Computed),
    BuiltinSpec {
        aliases: &["tr"],
        ..of_target(Builtin::Trace, "trace", Scalar)
    },
    row(
        Builtin::Cbind,
        "cbind",
        &[req("a"), req("b")],
        Custom,
        Computed,
    ),
    row(
        Builtin::Rbind,
        "rbind",
        &[req("a"), req("b")],
        Custom,
        Computed,
    ),
    named(
        Builtin::IfElse,
        "ifelse",
        &[req("test"), req("yes"), req("no")],
    ),
    named(
        Builtin::Replace,
        "replace",
        &[req("target"), req("pattern"), req("replacement")],
    ),
    named(
        Builtin::ToString,
        "toString",
        &[
            req("target"),
            opt("rows", Int(100)),
            opt("cols", Int(100)),
            opt("decimal", Int(3)),
            opt("sep", Str(" ")),
            opt("linesep", Str("\n")),
            opt("sparse", Bool(false)),
        ],
    ),
    effect(
        Builtin::Read,
        "read",
        &[
            req("file"),
            opt("format", Str("")),
            opt("header", Bool(false)),
            opt("sep", Str(",")),
            // What SystemDS's scripts say of the file (or its `.mtd` file does): the
            // size is checked against it, `nnz` is a hint (a file may store explicit
            // zeros), the types are a matrix of numbers or a scalar.
            opt("rows", Int(-1)),
            opt("cols", Int(-1)),
            opt("nnz", Int(-1)),
            opt("data_type", Str("matrix")),
            opt("value_type", Str("double")),
            // CSV: the fields read as NaN (a list, or one string of `·`-separated ones),
            // and what an empty field is (`fill=FALSE` makes it an error).
            opt("naStrings", Str("")),
            opt("fill", Bool(true)),
            opt("default", Double(0.0)),
            // A frame's column types (`"STRING,FP64"`), over its `.mtd` file's.
            opt("schema", Str("")),
            // SystemDS's block sizes, which the formats here do not need.
            opt("blocksize", Int(-1)),
            opt("rows_in_block", Int(-1)),
            opt("cols_in_block", Int(-1)),
        ],
        Named,
    ),
    effect(
        Builtin::Write,
        "write",
        &[
            req("x"),
            req("file"),
            opt("format", Str("")),
            opt("header", Bool(false)),
            opt("sep", Str(",")),
            // SystemDS's storage hints, which the formats here do not need.
            opt("sparse", Bool(true)),
            opt("description", Str("")),
            opt("data_type", Str("")),
            opt("value_type", Str("")),
            opt("blocksize", Int(-1)),
            opt("rows_in_block", Int(-1)),
            opt("cols_in_block", Int(-1)),
        ],
        Named,
    ),
    effect(Builtin::Print, "print", &[req("value")], Positional),
    // `print(format, values...)` (Java's `String.format`).
    effect(Builtin::Printf, "print", &[req("format")], Custom),
    effect(Builtin::Assert, "assert", &[req("condition")], Positional),
    // The function's name, then its arguments (or one list of them).
    effect(Builtin::Eval, "eval", &[req("function")], Custom),
    effect(Builtin::Stop, "stop", &[req("message")], Positional),
    BuiltinSpec {
        shape: Scalar,
        ..effect(Builtin::Time, "time", &[], Positional)
    },
    // (name, value) pairs, the name `""` for a positional element.
    row(Builtin::List, "list", &[], Custom, Computed),
    row(
        Builtin::Append,
        "append",
        &[req("a"), req("b")],
        Positional,
        Computed,
    ),
    named(
        Builtin::Contains,
        "contains",
        &[req("target"), req("pattern")],
    ),
    of_target(Builtin::CumSum, "cumsum", SameAsFirst),
    of_target(Builtin::CumProd, "cumprod", SameAsFirst),
    of_target(Builtin::CumMin, "cummin", SameAsFirst),
    of_target(Builtin::CumMax, "cummax", SameAsFirst),
    of_target(Builtin::RowCumSum, "rowcumsum", SameAsFirst),
    of_target(Builtin::CumSumProd, "cumsumprod", ColumnPerRow),
    of_target(Builtin::Prod, "prod", Scalar),
    of_target(Builtin::ColProds, "colProds", RowPerColumn),
    of_target(Builtin::RowProds, "rowProds", ColumnPerRow),
    of_target(Builtin::RowIndexMax, "rowIndexMax", ColumnPerRow),
    of_target(Builtin::RowIndexMin, "rowIndexMin", ColumnPerRow),
    // A negative odim: the size is taken from the data.
    BuiltinSpec {
        aliases: &["ctable"],
        ..row(
            Builtin::Table,
            "table",
            &[
                req("A"),
                req("B"),
                opt("weights", Double(1.0)),
                opt("odim1", Int(-1)),
                opt("odim2", Int(-1)),
            ],
            Custom,
            Computed,
        )
    },
    named(
        Builtin::RemoveEmpty,
        "removeEmpty",
        &[
            req("target"),
            req("margin"),
            opt("empty.return", Bool(true)),
            opt("select", Absent),
        ],
    ),
    named(
        Builtin::Order,
        "order",
        &[
            req("target"),
            opt("by", Int(1)),
            opt("decreasing", Bool(false)),
            opt("index.return", Bool(false)),
        ],
    ),
    named(Builtin::Solve, "solve", &[req("A"), req("b")]),
    BuiltinSpec {
        aliases: &["inverse"],
        ..of_target(Builtin::Inv, "inv", SameAsFirst)
    },
    of_target(Builtin::Cholesky, "cholesky", SameAsFirst),
    BuiltinSpec {
        results: &["values", "vectors"],
        ..named(Builtin::Eigen, "eigen", &[req("A")])
    },
    of_target(Builtin::Det, "det", Scalar),
    // SystemDS returns the Householder vectors `H` rather than `Q`.
    BuiltinSpec {
        results: &["H", "R"],
        ..named(Builtin::Qr, "qr", &[req("A")])
    },
    BuiltinSpec {
        results: &["P", "L", "U"],
        ..named(Builtin::Lu, "lu", &[req("A")])
    },
    BuiltinSpec {
        results: &["U", "S", "V"],
        ..named(Builtin::Svd, "svd", &[req("A")])
    },
    BuiltinSpec {
        results: &["rest", "element"],
        ..named(Builtin::Remove, "remove", &[req("target"), req("pos")])
    },
    of_target(Builtin::AsList, "as.list", Computed),
    of_target(Builtin::Var, "var", Scalar),
    of_target(Builtin::Sd, "sd", Scalar),
    of_target(Builtin::RowVars, "rowVars", ColumnPerRow),
    of_target(Builtin::ColVars, "colVars", RowPerColumn),
    of_target(Builtin::RowSds, "rowSds", ColumnPerRow),
    of_target(Builtin::ColSds, "colSds", RowPerColumn),
    // Weights are frequencies (`median(v, w)`); lowering puts SystemDS's positional
    // `quantile(v, w, p)` and `moment(v, w, k)` in this order.
    row(
        Builtin::Median,
        "median",
        &[req("target"), opt("weights", Absent)],
        Named,
        Scalar,
    ),
    row(
        Builtin::InterQuartileMean,
        "interQuartileMean",
        &[req("target"), opt("weights", Absent)],
        Named,
        Scalar,
    ),
    named(
        Builtin::Quantile,
        "quantile",
        &[req("target"), req("p"), opt("weights", Absent)],
    ),
    BuiltinSpec {
        aliases: &["centralMoment"],
        ..row(
            Builtin::Moment,
            "moment",
            &[req("target"), req("order"), opt("weights", Absent)],
            Named,
            Scalar,
        )
    },
    row(
        Builtin::Cov,
        "cov",
        &[req("x"), req("y"), opt("weights", Str(""))],
        Named,
        Scalar,
    ),
    row(Builtin::Cdf, "cdf", DISTRIBUTION, Custom, Scalar),
    row(
        Builtin::Icdf,
        "icdf",
        DISTRIBUTION.split_at(8).0,
        Custom,
        Scalar,
    ),
    of_target(Builtin::Rev, "rev", LikeFirst),
    row(
        Builtin::Roll,
        "roll",
        &[req("target"), req("shift")],
        Named,
        LikeFirst,
    ),
    named(Builtin::Outer, "outer", &[req("a"), req("b"), req("op")]),
    named(Builtin::BitwAnd, "bitwAnd", BITWISE),
    named(Builtin::BitwOr, "bitwOr", BITWISE),
    named(Builtin::BitwXor, "bitwXor", BITWISE),
    named(Builtin::BitwShiftL, "bitwShiftL", BITWISE),
    named(Builtin::BitwShiftR, "bitwShiftR", BITWISE),
    row(Builtin::LowerTri, "lower.tri", TRIANGLE, Named, LikeFirst),
    row(Builtin::UpperTri, "upper.tri", TRIANGLE, Named, LikeFirst),
    // A negative ngroups: the number of groups is taken from the data.
    BuiltinSpec {
        aliases: &["groupedAggregate"],
        ..named(
            Builtin::Aggregate,
            "aggregate",
            &[
                req("target"),
                req("groups"),
                req("fn"),
                opt("ngroups", Int(-1)),
            ],
        )
    },
    of_target(Builtin::Unique, "unique", Computed),
    named(Builtin::Conv2d, "conv2d", CONV),
    named(
        Builtin::Conv2dBackwardFilter,
        "conv2d_backward_filter",
        CONV_BACKWARD_FILTER,
    ),
    named(
        Builtin::Conv2dBackwardData,
        "conv2d_backward_data",
        CONV_BACKWARD_DATA,
    ),
    named(Builtin::MaxPool, "max_pool", POOL),
    named(Builtin::AvgPool, "avg_pool", POOL),
    named(Builtin::MaxPoolBackward, "max_pool_backward", POOL_BACKWARD),
    named(Builtin::AvgPoolBackward, "avg_pool_backward", POOL_BACKWARD),
    row(
        Builtin::BiasAdd,
        "bias_add",
        &[req("input"), req("bias")],
        Positional,
        SameAsFirst,
    ),
    row(
        Builtin::BiasMultiply,
        "bias_multiply",
        &[req("input"), req("bias")],
        Positional,
        SameAsFirst,
    ),
    BuiltinSpec {
        results: &[
            "out",
            "ema_mean_upd",
            "ema_var_upd",
            "cache_mean",
            "cache_inv_var",
        ],
        ..named(
            Builtin::BatchNorm2d,
            "batch_norm2d",
            &[
                req("input"),
                req("scale"),
                req("bias"),
                req("running_mean"),
                req("running_var"),
                req("mode"),
                req("epsilon"),
                req("momentum"),
            ],
        )
    },
    BuiltinSpec {
        results: &["dX", "dScale", "dBias"],
        ..named(
            Builtin::BatchNorm2dBackward,
            "batch_norm2d_backward",
            &[
                req("input"),
                req("dout"),
                req("scale"),
                req("epsilon"),
                req("cache_mean"),
                req("cache_inv_var"),
            ],
        )
    },
    BuiltinSpec {
        results: &["out", "c", "cache_out", "cache_c", "cache_ifog"],
        ..named(
            Builtin::Lstm,
            "lstm",
            &[
                req("X"),
                req("W"),
                req("bias"),
                req("out0"),
                req("c0"),
                req("return_sequences"),
            ],
        )
    },
    // Without the forward pass's caches, `lstm_backward` runs the forward pass again.
    BuiltinSpec {
        results: &["dX", "dW", "db", "dout0", "dc0"],
        ..named(
            Builtin::LstmBackward,
            "lstm_backward",
            &[
                req("X"),
                req("W"),
                req("bias"),
                req("out0"),
                req("c0"),
                req("given_sequences"),
                req("dout"),
                req("dc"),
                opt("cache_out", Absent),
                opt("cache_c", Absent),
                opt("cache_ifog", Absent),
            ],
        )
    },
    effect(Builtin::EvalList, "evalList", &[req("function")], Custom),
    BuiltinSpec {
        results: &["C", "N"],
        aliases: &["rcm"],
        ..named(Builtin::RowClassMeet, "rowClassMeet", &[req("A"), req("B")])
    },
    of_target(Builtin::AsFrame, "as.frame", Computed),
    // Without a schema every column is a string; "" stands for none given.
    named(
        Builtin::Frame,
        "frame",
        &[
            req("data"),
            req("rows"),
            req("cols"),
            opt("schema", Str("")),
        ],
    ),
    of_target(Builtin::DetectSchema, "detectSchema", Computed),
    of_target(Builtin::ColNames, "colnames", Computed),
    row(
        Builtin::DropInvalidType,
        "dropInvalidType",
        &[req("target"), req("schema")],
        CallForm::Positional,
        Computed,
    ),
    row(
        Builtin::FrameReplicate,
        "freplicate",
        &[req("target"), req("row")],
        CallForm::Positional,
        Computed,
    ),
    // `margin` 0: each cell; 1: each row (a `String[]` in and out).
    named(
        Builtin::Map,
        "map",
        &[req("target"), req("func"), opt("margin", Int(0))],
    ),
    named(
        Builtin::Tokenize,
        "tokenize",
        &[req("target"), req("spec"), opt("max_tokens", Int(1000))],
    ),
    BuiltinSpec {
        results: &["X", "M"],
        ..named(
            Builtin::TransformEncode,
            "transformencode",
            &[req("target"), req("spec")],
        )
    },
    named(
        Builtin::TransformApply,
        "transformapply",
        &[req("target"), req("spec"), req("meta")],
    ),
    named(
        Builtin::TransformDecode,
        "transformdecode",
        &[req("target"), req("spec"), req("meta")],
    ),
    named(
        Builtin::TransformColMap,
        "transformcolmap",
        &[req("target"), req("spec")],
    ),
];

// The image builtins take their sizes as vectors: `input_shape=[N, C, H, W]`,
// `filter_shape=[F, C, R, S]`, `pool_size=[R, S]`, `stride=[sh, sw]`, `padding=[ph, pw]`.
const CONV: &[Param] = &[
    req("input"),
    req("filter"),
    req("input_shape"),
    req("filter_shape"),
    req("stride"),
    req("padding"),
];
const CONV_BACKWARD_FILTER: &[Param] = &[
    req("input"),
    req("dout"),
    req("input_shape"),
    req("filter_shape"),
    req("stride"),
    req("padding"),
];
const CONV_BACKWARD_DATA: &[Param] = &[
    req("filter"),
    req("dout"),
    req("input_shape"),
    req("filter_shape"),
    req("stride"),
    req("padding"),
];
const POOL: &[Param] = &[
    req("input"),
    req("input_shape"),
    req("pool_size"),
    req("stride"),
    req("padding"),
];
const POOL_BACKWARD: &[Param] = &[
    req("input"),
    req("dout"),
    req("input_shape"),
    req("pool_size"),
    req("stride"),
    req("padding"),
];

/// The row of `builtin`.
pub fn spec(builtin: Builtin) -> &'static BuiltinSpec {
    let row = &BUILTINS[builtin as usize];
    debug_assert_eq!(row.builtin, builtin, "BUILTINS follows Builtin's order");
    row
}

/// The builtin a call of `name` means, by its name or another spelling (`print` is
/// [`Builtin::Print`]; lowering turns a call with several arguments into
/// [`Builtin::Printf`]).
pub fn by_name(name: &str) -> Option<&'static BuiltinSpec> {
    BUILTINS
        .iter()
        .find(|row| row.name == name || row.aliases.contains(&name))
}

impl Builtin {
    /// Whether the builtin neither has an effect nor a non-deterministic result, so
    /// two calls with the same arguments may be merged.
    pub fn is_pure(self) -> bool {
        !spec(self).effect
    }

    /// The name a script calls it by.
    pub fn name(self) -> &'static str {
        spec(self).name
    }

    /// How many values the builtin returns; those with more than one are read with
    /// `Op::Extract`.
    pub fn outputs(self) -> usize {
        spec(self).results.len()
    }

    /// The name of parameter `k` (child `k` of its node).
    pub fn param(self, k: usize) -> &'static str {
        spec(self).params[k].name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_follows_the_enum_and_names_are_unique() {
        for (k, row) in BUILTINS.iter().enumerate() {
            assert_eq!(row.builtin as usize, k, "{}", row.name);
        }
        assert_eq!(BUILTINS.len(), Builtin::TransformColMap as usize + 1);
        let mut names: Vec<&str> = BUILTINS
            .iter()
            .filter(|row| row.builtin != Builtin::Printf)
            .flat_map(|row| std::iter::once(row.name).chain(row.aliases.iter().copied()))
            .collect();
        names.sort_unstable();
        let count = names.len();
        names.dedup();
        assert_eq!(names.len(), count, "a name of two builtins");
    }

    #[test]
    fn required_parameters_come_first_and_absent_ones_last() {
        for row in BUILTINS {
            let required = row.required();
            assert!(
                row.params[required..]
                    .iter()
                    .all(|p| p.default != ArgDefault::Required),
                "{}",
                row.name
            );
            if let Some(k) = row.params.iter().position(|p| p.default == Absent) {
                assert!(
                    row.params[k..].iter().all(|p| p.default == Absent),
                    "{}",
                    row.name
                );
            }
        }
        // `rand`'s sizes default to 1, as in SystemDS.
        assert_eq!(spec(Builtin::Rand).required(), 0);
        assert_eq!(spec(Builtin::Seq).required(), 2);
        assert_eq!(Builtin::Eigen.outputs(), 2);
        assert_eq!(Builtin::Lu.outputs(), 3);
        assert_eq!(spec(Builtin::Det).shape, Scalar);
        assert!(!Builtin::Read.is_pure() && Builtin::Rand.is_pure());
        assert_eq!(by_name("Rand").map(|r| r.builtin), Some(Builtin::Rand));
        assert_eq!(by_name("print").map(|r| r.builtin), Some(Builtin::Print));
    }
}
