//! The catalogue of fused operators: one entry per operator, with its name, its e-graph
//! constructors, its meaning in LA terms, its result shape and its price.
//!
//! Every part of the optimizer reads the operators from here: reading the e-graph
//! ([`crate::extract`]), pricing candidates ([`crate::cost`] and both extractors),
//! writing plans back as [`LaExpr::Func`] calls, and expanding a plan to plain LA to
//! check it ([`expand_fused`]). The engine's DAG holds an operator as its
//! [`Fused`] kind (`spores::dag::Fused::Catalogue`), names it and dispatches its kernel on
//! the kind, and runs its [`FusedOp::meaning`] where the kernel does not apply.
//! The e-graph side of an operator is one section of `rules/fuse.egg`: its two
//! constructors (checked against this table by a test), the invariants of its relational
//! node, its sum-product pattern and its raising rule. Adding an operator is an entry
//! here, a section there, and its kernel in `spores-exec`.
//!
//! ```
//! use spores_opt::fused::{self, Fused};
//! use spores_opt::la::LaExpr;
//!
//! let op = fused::by_name("wsloss", 3).unwrap();
//! assert_eq!(op.kind, Fused::Wsloss);
//! let x = |n: &str| LaExpr::Var(n.into());
//! let meaning = op.meaning(&[x("X"), x("U"), x("V")]);
//! assert_eq!(meaning.to_string(), "sum((X - U %*% t(V))^2)");
//! ```

use crate::cost::prices as cost;
use crate::la::LaExpr;

/// Which fused operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fused {
    /// `wsloss(X, U, V)` = `sum((X - U %*% t(V))^2)`.
    Wsloss,
    /// `wsloss_plus(X, U, V)` = `sum((X + U %*% t(V))^2)`.
    WslossPlus,
    /// `sddmm_sum(X, U, V)` = `sum(X * (U %*% t(V)))`.
    SddmmSum,
    /// `sddmm(X, U, V)` = `X * (U %*% t(V))`.
    Sddmm,
    /// `mmchain(X, v)` = `t(X) %*% (X %*% v)`.
    Mmchain,
    /// `mmchain(X, v, w)` = `t(X) %*% (w * (X %*% v))`.
    MmchainW,
    /// `sprop(P)` = `P * (1 - P)`.
    Sprop,
    /// `tsmm(X)` = `t(X) %*% X`.
    Tsmm,
    /// `wdivmm_mult(X, U, V)` = `(X * (U %*% t(V))) %*% V` (SystemDS's wdivmm, multiply
    /// right).
    WdivmmMult,
    /// `wcemm(X, U, V)` = `sum(X * log(U %*% t(V)))` (SystemDS's weighted cross-entropy).
    Wcemm,
    /// `sum_mm(A, B)` = `sum(A %*% B)`, from `colSums(A)` and `rowSums(B)`.
    SumMm,
    /// `wdivmm_left(X, U, V)` = `t(U) %*% masked_div(X, U %*% t(V))` (SystemDS's wdivmm,
    /// divide left; PNMF's update of `H`).
    WdivmmLeft,
    /// `wdivmm_right(X, U, V)` = `masked_div(X, U %*% t(V)) %*% V` (SystemDS's wdivmm,
    /// divide right; PNMF's update of `W`).
    WdivmmRight,
    /// `masked_mul(X, E)` = `X * E`, the element-wise tree `E` evaluated only at the
    /// non-zeros of a sparse `X` (see [`crate::extract`]'s masked candidates).
    MaskedMul,
    /// `masked_div(X, E)` = `(X != 0) * (X / E)`: the quotient at `X`'s non-zeros only,
    /// SystemDS's weighted division (`0 / 0` is NaN elsewhere, see `spores-dml`'s
    /// `dag/weighted_division.rs`).
    MaskedDiv,
}

impl Fused {
    /// Whether this is a masked operator, whose second operand is an element-wise tree
    /// evaluated at the first one's non-zeros rather than a value computed first.
    pub fn is_masked(self) -> bool {
        matches!(self, Fused::MaskedMul | Fused::MaskedDiv)
    }
}

/// One side of an operand's shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Rows(usize),
    Cols(usize),
    /// The dimension 1.
    One,
}

/// The result's shape, in terms of the operands'.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResultShape {
    Scalar,
    /// `(rows, cols)` of the result.
    Of(Side, Side),
}

/// A fused operator and everything the optimizer knows about it.
#[derive(Debug)]
pub struct FusedOp {
    pub kind: Fused,
    /// The name of the call in LA terms (`LaExpr::Func`) and in the engine.
    pub name: &'static str,
    /// Operand count; `mmchain` is two entries (with and without `w`).
    pub operands: usize,
    /// `(LA constructor, relational constructor)` in `rules/fuse.egg`; `None` for an
    /// operator the rules never derive (the engine runs it when a script calls it).
    pub constructors: Option<(&'static str, &'static str)>,
    /// Operand sides that must be equal for the operands to fit.
    pub fits: &'static [(Side, Side)],
    pub result: ResultShape,
    /// The operand whose zeros the result keeps (a masked or elementwise-scaled result),
    /// for the sparsity estimate; `None` for a dense result.
    pub zeros_of: Option<usize>,
    /// Estimated run time in ns from the first operand's shape `m x n` and sparsity
    /// `sx`, and `other`: the second operand's column count (rank of `U` and `V`, columns
    /// of `v`), 1 without one.
    pub cost: fn(m: f64, n: f64, other: f64, sx: f64) -> f64,
    meaning: fn(&[LaExpr]) -> LaExpr,
}

impl FusedOp {
    /// The call as plain LA over `args` (which must be [`FusedOp::operands`] long).
    pub fn meaning(&self, args: &[LaExpr]) -> LaExpr {
        (self.meaning)(args)
    }

    /// The call over `args`.
    pub fn call(&self, args: Vec<LaExpr>) -> LaExpr {
        LaExpr::Func {
            name: self.name.into(),
            args,
        }
    }

    /// The result shape for operands of `shapes`, `None` when they do not fit. Works
    /// for any dimension type (sizes, symbolic dimensions, dimension codes).
    pub fn result_shape<D: Clone + PartialEq>(&self, shapes: &[(D, D)], one: D) -> Option<(D, D)> {
        if shapes.len() != self.operands {
            return None;
        }
        let side = |s: Side| -> Option<D> {
            match s {
                Side::Rows(n) => shapes.get(n).map(|x| x.0.clone()),
                Side::Cols(n) => shapes.get(n).map(|x| x.1.clone()),
                Side::One => Some(one.clone()),
            }
        };
        for &(a, b) in self.fits {
            if side(a)? != side(b)? {
                return None;
            }
        }
        match self.result {
            ResultShape::Scalar => Some((one.clone(), one)),
            ResultShape::Of(r, c) => Some((side(r)?, side(c)?)),
        }
    }
}

use Side::{Cols, One, Rows};

/// `X` `m x n`, `U` `m x k`, `V` `n x k`.
pub const X_U_V: &[(Side, Side)] = &[(Rows(0), Rows(1)), (Cols(0), Rows(2)), (Cols(1), Cols(2))];

fn b(e: LaExpr) -> Box<LaExpr> {
    Box::new(e)
}

fn u_vt(u: &LaExpr, v: &LaExpr) -> LaExpr {
    LaExpr::MatMul(b(u.clone()), b(LaExpr::Transpose(b(v.clone()))))
}

fn xt_times(x: &LaExpr, e: LaExpr) -> LaExpr {
    LaExpr::MatMul(b(LaExpr::Transpose(b(x.clone()))), b(e))
}

fn x_v(x: &LaExpr, v: &LaExpr) -> LaExpr {
    LaExpr::MatMul(b(x.clone()), b(v.clone()))
}

/// `masked_div(X, U %*% t(V))`, the quotient `wdivmm` takes at `X`'s non-zeros only.
fn x_over_u_vt(x: &LaExpr, u: &LaExpr, v: &LaExpr) -> LaExpr {
    LaExpr::Func {
        name: "masked_div".into(),
        args: vec![x.clone(), u_vt(u, v)],
    }
}

/// A masked operator's price as a node alone: one value written per non-zero of `X`.
/// Its tree is priced where it is known: [`crate::cost::LaCost`] and the extractor's
/// masked candidates.
fn masked_node_cost(m: f64, n: f64, _: f64, sx: f64) -> f64 {
    cost::masked(m * n * sx.min(1.0), 0.0, 0.0)
}

/// Every fused operator.
pub const CATALOGUE: &[FusedOp] = &[
    FusedOp {
        kind: Fused::Wsloss,
        name: "wsloss",
        operands: 3,
        constructors: Some(("LWsloss", "FWsloss")),
        fits: X_U_V,
        result: ResultShape::Scalar,
        zeros_of: None,
        cost: cost::wsloss,
        meaning: |a| {
            let diff = LaExpr::Sub(b(a[0].clone()), b(u_vt(&a[1], &a[2])));
            LaExpr::Sum(b(LaExpr::Pow(b(diff), 2.0)))
        },
    },
    FusedOp {
        kind: Fused::WslossPlus,
        name: "wsloss_plus",
        operands: 3,
        constructors: Some(("LWslossPlus", "FWslossPlus")),
        fits: X_U_V,
        result: ResultShape::Scalar,
        zeros_of: None,
        cost: cost::wsloss,
        meaning: |a| {
            let sum = LaExpr::Add(b(a[0].clone()), b(u_vt(&a[1], &a[2])));
            LaExpr::Sum(b(LaExpr::Pow(b(sum), 2.0)))
        },
    },
    FusedOp {
        kind: Fused::SddmmSum,
        name: "sddmm_sum",
        operands: 3,
        constructors: Some(("LSddmm", "FSddmm")),
        fits: X_U_V,
        result: ResultShape::Scalar,
        zeros_of: None,
        cost: cost::sddmm_sum,
        meaning: |a| LaExpr::Sum(b(LaExpr::Mul(b(a[0].clone()), b(u_vt(&a[1], &a[2]))))),
    },
    FusedOp {
        kind: Fused::Sddmm,
        name: "sddmm",
        operands: 3,
        constructors: Some(("LSddmmMap", "FSddmmMap")),
        fits: X_U_V,
        result: ResultShape::Of(Rows(0), Cols(0)),
        zeros_of: Some(0),
        cost: cost::sddmm,
        meaning: |a| LaExpr::Mul(b(a[0].clone()), b(u_vt(&a[1], &a[2]))),
    },
    FusedOp {
        kind: Fused::Mmchain,
        name: "mmchain",
        operands: 2,
        constructors: Some(("LMmchain", "FMmchain")),
        fits: &[(Cols(0), Rows(1))],
        result: ResultShape::Of(Cols(0), Cols(1)),
        zeros_of: None,
        cost: cost::mmchain,
        meaning: |a| xt_times(&a[0], x_v(&a[0], &a[1])),
    },
    FusedOp {
        kind: Fused::MmchainW,
        name: "mmchain",
        operands: 3,
        constructors: Some(("LMmchainW", "FMmchainW")),
        fits: &[(Cols(0), Rows(1)), (Rows(2), Rows(0)), (Cols(2), One)],
        result: ResultShape::Of(Cols(0), Cols(1)),
        zeros_of: None,
        cost: cost::mmchain,
        meaning: |a| xt_times(&a[0], LaExpr::Mul(b(a[2].clone()), b(x_v(&a[0], &a[1])))),
    },
    FusedOp {
        kind: Fused::Sprop,
        name: "sprop",
        operands: 1,
        constructors: Some(("LSprop", "FSprop")),
        fits: &[],
        result: ResultShape::Of(Rows(0), Cols(0)),
        zeros_of: Some(0),
        cost: |m, n, _, _| cost::sprop(m * n),
        meaning: |a| {
            let one_minus = LaExpr::Sub(b(LaExpr::Const(1.0)), b(a[0].clone()));
            LaExpr::Mul(b(a[0].clone()), b(one_minus))
        },
    },
    FusedOp {
        kind: Fused::Tsmm,
        name: "tsmm",
        operands: 1,
        constructors: Some(("LTsmm", "FTsmm")),
        fits: &[],
        result: ResultShape::Of(Cols(0), Cols(0)),
        zeros_of: None,
        cost: |m, n, _, sx| cost::tsmm(m, n, sx),
        meaning: |a| xt_times(&a[0], a[0].clone()),
    },
    FusedOp {
        kind: Fused::WdivmmMult,
        name: "wdivmm_mult",
        operands: 3,
        constructors: Some(("LWdivmmMult", "FWdivmmMult")),
        fits: X_U_V,
        result: ResultShape::Of(Rows(0), Cols(2)),
        zeros_of: None,
        cost: cost::wdivmm_mult,
        meaning: |a| {
            let masked = LaExpr::Mul(b(a[0].clone()), b(u_vt(&a[1], &a[2])));
            LaExpr::MatMul(b(masked), b(a[2].clone()))
        },
    },
    FusedOp {
        kind: Fused::Wcemm,
        name: "wcemm",
        operands: 3,
        constructors: Some(("LWcemm", "FWcemm")),
        fits: X_U_V,
        result: ResultShape::Scalar,
        zeros_of: None,
        cost: cost::wcemm,
        meaning: |a| {
            let log = LaExpr::Func {
                name: "log".into(),
                args: vec![u_vt(&a[1], &a[2])],
            };
            LaExpr::Sum(b(LaExpr::Mul(b(a[0].clone()), b(log))))
        },
    },
    FusedOp {
        kind: Fused::SumMm,
        name: "sum_mm",
        operands: 2,
        constructors: Some(("LSumMm", "FSumMm")),
        fits: &[(Cols(0), Rows(1))],
        result: ResultShape::Scalar,
        zeros_of: None,
        cost: cost::sum_mm,
        meaning: |a| LaExpr::Sum(b(x_v(&a[0], &a[1]))),
    },
    FusedOp {
        kind: Fused::WdivmmLeft,
        name: "wdivmm_left",
        operands: 3,
        constructors: Some(("LWdivmmLeft", "FWdivmmLeft")),
        fits: X_U_V,
        result: ResultShape::Of(Cols(1), Cols(0)),
        zeros_of: None,
        cost: cost::wdivmm_mult,
        meaning: |a| xt_times(&a[1], x_over_u_vt(&a[0], &a[1], &a[2])),
    },
    FusedOp {
        kind: Fused::WdivmmRight,
        name: "wdivmm_right",
        operands: 3,
        constructors: Some(("LWdivmmRight", "FWdivmmRight")),
        fits: X_U_V,
        result: ResultShape::Of(Rows(0), Cols(2)),
        zeros_of: None,
        cost: cost::wdivmm_mult,
        meaning: |a| x_v(&x_over_u_vt(&a[0], &a[1], &a[2]), &a[2]),
    },
    FusedOp {
        kind: Fused::MaskedMul,
        name: "masked_mul",
        operands: 2,
        constructors: None,
        fits: &[(Rows(0), Rows(1)), (Cols(0), Cols(1))],
        result: ResultShape::Of(Rows(0), Cols(0)),
        zeros_of: Some(0),
        cost: masked_node_cost,
        meaning: |a| LaExpr::Mul(b(a[0].clone()), b(a[1].clone())),
    },
    FusedOp {
        kind: Fused::MaskedDiv,
        name: "masked_div",
        operands: 2,
        constructors: None,
        fits: &[(Rows(0), Rows(1)), (Cols(0), Cols(1))],
        result: ResultShape::Of(Rows(0), Cols(0)),
        zeros_of: Some(0),
        cost: masked_node_cost,
        meaning: |a| {
            let nonzero = LaExpr::Func {
                name: "!=".into(),
                args: vec![a[0].clone(), LaExpr::Const(0.0)],
            };
            let quotient = LaExpr::Func {
                name: "/".into(),
                args: vec![a[0].clone(), a[1].clone()],
            };
            LaExpr::Mul(b(nonzero), b(quotient))
        },
    },
];

/// The entry of `kind`.
pub fn op(kind: Fused) -> &'static FusedOp {
    CATALOGUE
        .iter()
        .find(|op| op.kind == kind)
        .expect("every Fused has a catalogue entry")
}

/// The operator a call `name(...)` with `operands` arguments names, if it is fused.
pub fn by_name(name: &str, operands: usize) -> Option<&'static FusedOp> {
    CATALOGUE
        .iter()
        .find(|op| op.name == name && op.operands == operands)
}

/// The operator whose LA e-graph constructor is `constructor`.
pub fn by_la_constructor(constructor: &str) -> Option<&'static FusedOp> {
    CATALOGUE
        .iter()
        .find(|op| op.constructors.is_some_and(|(la, _)| la == constructor))
}

/// The operator whose relational e-graph constructor is `constructor`.
pub fn by_rel_constructor(constructor: &str) -> Option<&'static FusedOp> {
    CATALOGUE
        .iter()
        .find(|op| op.constructors.is_some_and(|(_, rel)| rel == constructor))
}

/// Replaces the fused operators ([`CATALOGUE`]) by their sum-product
/// meaning, so that a plan using them can be checked against its input with
/// [`crate::canon::equiv`]: `wsloss(X, U, V)` becomes `sum((X - U %*% t(V))^2)`, and so on.
pub fn expand_fused(e: &LaExpr) -> LaExpr {
    e.map(&|node| {
        let LaExpr::Func { name, args } = node else {
            return None;
        };
        let args: Vec<LaExpr> = args.iter().map(expand_fused).collect();
        Some(match by_name(name, args.len()) {
            Some(op) => op.meaning(&args),
            None => LaExpr::Func {
                name: name.clone(),
                args,
            },
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn var(n: &str) -> LaExpr {
        LaExpr::Var(n.into())
    }

    #[test]
    fn every_kind_has_one_entry_and_names_are_unique_per_arity() {
        for (n, a) in CATALOGUE.iter().enumerate() {
            assert_eq!(op(a.kind).name, a.name);
            for b in &CATALOGUE[n + 1..] {
                assert_ne!(a.kind, b.kind);
                assert!(a.name != b.name || a.operands != b.operands, "{}", a.name);
            }
        }
    }

    #[test]
    fn meanings_print_as_the_la_they_stand_for() {
        let (x, u, v, w) = (var("X"), var("U"), var("V"), var("w"));
        let cases = [
            ("wsloss", vec![&x, &u, &v], "sum((X - U %*% t(V))^2)"),
            ("wsloss_plus", vec![&x, &u, &v], "sum((X + U %*% t(V))^2)"),
            ("sddmm_sum", vec![&x, &u, &v], "sum(X * U %*% t(V))"),
            ("sddmm", vec![&x, &u, &v], "X * U %*% t(V)"),
            ("mmchain", vec![&x, &v], "t(X) %*% (X %*% V)"),
            ("mmchain", vec![&x, &v, &w], "t(X) %*% (w * X %*% V)"),
            ("sprop", vec![&x], "X * (1 - X)"),
            ("tsmm", vec![&x], "t(X) %*% X"),
            ("wdivmm_mult", vec![&x, &u, &v], "(X * U %*% t(V)) %*% V"),
            ("wcemm", vec![&x, &u, &v], "sum(X * log(U %*% t(V)))"),
            (
                "wdivmm_left",
                vec![&x, &u, &v],
                "t(U) %*% masked_div(X, U %*% t(V))",
            ),
            (
                "wdivmm_right",
                vec![&x, &u, &v],
                "masked_div(X, U %*% t(V)) %*% V",
            ),
        ];
        for (name, args, want) in cases {
            let args: Vec<LaExpr> = args.into_iter().cloned().collect();
            let op = by_name(name, args.len()).unwrap();
            let meaning = op.meaning(&args);
            assert_eq!(meaning, LaExpr::parse(want).unwrap(), "{name}: {meaning}");
        }
    }

    #[test]
    fn shapes_check_operands_and_give_the_result() {
        let wsloss = op(Fused::Wsloss);
        assert_eq!(
            wsloss.result_shape(&[(100, 50), (100, 5), (50, 5)], 1),
            Some((1, 1))
        );
        assert_eq!(
            wsloss.result_shape(&[(100, 50), (100, 5), (50, 4)], 1),
            None
        );
        let chain = op(Fused::MmchainW);
        assert_eq!(
            chain.result_shape(&[(100, 50), (50, 2), (100, 1)], 1),
            Some((50, 2))
        );
        assert_eq!(chain.result_shape(&[(100, 50), (50, 2), (100, 2)], 1), None);
        assert_eq!(
            op(Fused::Tsmm).result_shape(&[(100, 50)], 1),
            Some((50, 50))
        );
        assert_eq!(op(Fused::Sprop).result_shape(&[(3, 4), (3, 4)], 1), None);
        assert_eq!(
            op(Fused::WdivmmMult).result_shape(&[(100, 50), (100, 5), (50, 5)], 1),
            Some((100, 5))
        );
        assert_eq!(
            op(Fused::WdivmmLeft).result_shape(&[(100, 50), (100, 5), (50, 5)], 1),
            Some((5, 50))
        );
        assert_eq!(
            op(Fused::WdivmmRight).result_shape(&[(100, 50), (100, 5), (50, 4)], 1),
            None
        );
    }

    /// The `(constructor NAME (ARGS) SORT)` declarations of the language and of the
    /// fused operators.
    fn declared_constructors() -> Vec<(String, Vec<String>, String)> {
        [
            include_str!("../rules/lang.egg"),
            include_str!("../rules/fuse.egg"),
        ]
        .iter()
        .flat_map(|text| text.lines())
        .filter_map(|line| {
            let rest = line.trim().strip_prefix("(constructor ")?;
            let (name, rest) = rest.split_once(' ')?;
            let (args, rest) = rest.strip_prefix('(')?.split_once(')')?;
            let sort = rest.split_whitespace().next()?.trim_end_matches(')');
            let args = args.split_whitespace().map(String::from).collect();
            Some((name.to_string(), args, sort.to_string()))
        })
        .collect()
    }

    #[test]
    fn constructors_match_their_declarations_in_the_rules() {
        let declared = declared_constructors();
        let find = |name: &str| declared.iter().find(|(n, ..)| n == name);
        let mut checked = 0;
        for op in CATALOGUE {
            let Some((la, rel)) = op.constructors else {
                continue;
            };
            let (_, args, sort) = find(la).unwrap_or_else(|| panic!("{la} not declared"));
            assert_eq!((args.len(), sort.as_str()), (op.operands, "M"), "{la}");
            assert!(args.iter().all(|a| a == "M"), "{la}: {args:?}");
            let (_, args, sort) = find(rel).unwrap_or_else(|| panic!("{rel} not declared"));
            assert_eq!(sort, "R", "{rel}");
            let operands = args.iter().filter(|a| *a == "R").count();
            assert_eq!(operands, op.operands, "{rel}: {args:?}");
            checked += 1;
        }
        assert_eq!(checked, 13);
    }

    #[test]
    fn the_extractor_reads_every_declared_constructor_of_matrices_and_relations() {
        let declared: Vec<String> = declared_constructors()
            .into_iter()
            .filter(|(_, _, sort)| sort == "M" || sort == "R")
            .map(|d| d.0)
            .collect();
        assert!(declared.len() > 30, "{declared:?}");
        for name in &declared {
            assert!(
                crate::extract::constructors().any(|c| c == name),
                "{name} is declared but not read by the extractor"
            );
        }
        for name in crate::extract::constructors() {
            assert!(declared.iter().any(|d| d == name), "{name} is not declared");
        }
    }
}
