//! [`LaExpr`] to egglog: the input term, its shape facts and the name tables.

use std::collections::HashMap;
use std::fmt::Write;

use crate::cost::{dim_size, LaCost};
use crate::la::{Dim, LaExpr, ShapeEnv};

use super::OptError;

/// Functions of one argument applied cell by cell (zero need not map to zero).
const ELEMENTWISE_1: &[&str] = &[
    "exp", "log", "sqrt", "abs", "sigmoid", "sign", "round", "floor", "ceil", "ceiling", "!",
    "sin", "cos", "tan", "tanh",
];

/// Functions of two arguments applied cell by cell, with DML broadcasting.
const ELEMENTWISE_2: &[&str] = &[
    "/", "^", "<", ">", "<=", ">=", "==", "!=", "&", "|", "min", "max", "%%", "%/%",
];

/// What the Rust side must remember to read the e-graph back.
#[derive(Debug, Default, Clone)]
pub struct Tables {
    /// `LVar n` stands for `leaves[n]`: an input, or an opaque call (already optimized
    /// inside) that the e-graph treats as an input named `placeholders[n]`.
    pub leaves: Vec<LaExpr>,
    /// The name each leaf has in [`Tables::env`].
    pub placeholders: Vec<String>,
    /// `LF1 n` / `LF2 n` call `funcs[n]`.
    pub funcs: Vec<String>,
    /// Dimension code `-(n + 1)` is `syms[n]`; a code `>= 0` is a known size.
    pub syms: Vec<Dim>,
    /// The caller's environment plus the shapes of opaque placeholders.
    pub env: ShapeEnv,
}

impl Tables {
    pub fn dim_code(&mut self, d: &Dim) -> i64 {
        match d {
            Dim::Known(n) => i64::try_from(*n).unwrap_or(i64::MAX),
            Dim::Sym(_) => {
                let pos = match self.syms.iter().position(|s| s == d) {
                    Some(p) => p,
                    None => {
                        self.syms.push(d.clone());
                        self.syms.len() - 1
                    }
                };
                -(pos as i64) - 1
            }
        }
    }

    pub fn dim_of_code(&self, code: i64) -> Option<Dim> {
        if code >= 0 {
            Some(Dim::Known(code as usize))
        } else {
            self.syms.get((-code - 1) as usize).cloned()
        }
    }

    /// Numeric size of a dimension code, as the cost model sees it.
    pub fn code_size(&self, code: i64) -> f64 {
        self.dim_of_code(code)
            .map_or(crate::cost::DEFAULT_DIM, |d| dim_size(&d))
    }

    /// The expression an `LVar` stands for in the final result.
    pub fn leaf(&self, n: usize) -> Option<&LaExpr> {
        self.leaves.get(n)
    }
}

/// The egglog program for one input expression.
pub struct Encoded {
    pub program: String,
    pub tables: Tables,
    /// The input with opaque calls replaced by their placeholders.
    pub input: LaExpr,
}

/// Encodes `e`. `optimize_arg` optimizes the arguments of an opaque call, which the
/// e-graph cannot see into.
pub fn encode(
    e: &LaExpr,
    env: &ShapeEnv,
    optimize_arg: &mut dyn FnMut(&LaExpr, &ShapeEnv) -> Result<LaExpr, OptError>,
) -> Result<Encoded, OptError> {
    let mut tables = Tables {
        env: env.clone(),
        ..Tables::default()
    };
    let input = hide_opaque(e, env, &mut tables, optimize_arg)?;
    let mut enc = Encoder {
        tables,
        program: String::new(),
        memo: HashMap::new(),
        leaf_ids: HashMap::new(),
    };
    let root = enc.term(&input)?;
    let (r, c) = crate::cost::shape_of(&enc.tables.env, &input)?;
    let (rc, cc) = (enc.tables.dim_code(&r), enc.tables.dim_code(&c));
    let _ = writeln!(
        enc.program,
        "(set (idim (I \"i\")) {rc})\n(set (idim (I \"j\")) {cc})\n(let $root (Bind (I \"i\") (I \"j\") {root}))\n(set (root-mark $root) 0)"
    );
    for n in 0..enc.tables.syms.len() {
        let code = -(n as i64) - 1;
        let _ = writeln!(
            enc.program,
            "(set (dimsz {code}) {:?})",
            enc.tables.code_size(code)
        );
    }
    let mut known: Vec<i64> = Vec::new();
    collect_known_dims(&input, &enc.tables.env, &mut known);
    known.sort_unstable();
    known.dedup();
    for code in known {
        let _ = writeln!(enc.program, "(set (dimsz {code}) {:?})", code as f64);
    }
    Ok(Encoded {
        program: enc.program,
        tables: enc.tables,
        input,
    })
}

fn collect_known_dims(e: &LaExpr, env: &ShapeEnv, out: &mut Vec<i64>) {
    if let Ok((r, c)) = crate::cost::shape_of(env, e) {
        for d in [r, c] {
            if let Dim::Known(n) = d {
                out.push(i64::try_from(n).unwrap_or(i64::MAX));
            }
        }
    }
    for child in crate::cost::children(e) {
        collect_known_dims(child, env, out);
    }
}

/// Replaces each call the rules cannot see into with a fresh input of the same shape,
/// optimizing the call's arguments on their own.
fn hide_opaque(
    e: &LaExpr,
    env: &ShapeEnv,
    tables: &mut Tables,
    optimize_arg: &mut dyn FnMut(&LaExpr, &ShapeEnv) -> Result<LaExpr, OptError>,
) -> Result<LaExpr, OptError> {
    use LaExpr::*;
    let b = Box::new;
    let mut go = |x: &LaExpr, t: &mut Tables| hide_opaque(x, env, t, optimize_arg);
    Ok(match e {
        Var(_) | Const(_) => e.clone(),
        Add(x, y) => Add(b(go(x, tables)?), b(go(y, tables)?)),
        Sub(x, y) => Sub(b(go(x, tables)?), b(go(y, tables)?)),
        Mul(x, y) => Mul(b(go(x, tables)?), b(go(y, tables)?)),
        MatMul(x, y) => MatMul(b(go(x, tables)?), b(go(y, tables)?)),
        Transpose(x) => Transpose(b(go(x, tables)?)),
        Neg(x) => Neg(b(go(x, tables)?)),
        Sum(x) => Sum(b(go(x, tables)?)),
        RowSums(x) => RowSums(b(go(x, tables)?)),
        ColSums(x) => ColSums(b(go(x, tables)?)),
        Pow(x, k) => Pow(b(go(x, tables)?), *k),
        Func { name, args } => {
            let transparent = (args.len() == 1 && ELEMENTWISE_1.contains(&name.as_str()))
                || (args.len() == 2 && ELEMENTWISE_2.contains(&name.as_str()));
            if transparent {
                let args = args
                    .iter()
                    .map(|a| go(a, tables))
                    .collect::<Result<Vec<_>, _>>()?;
                Func {
                    name: name.clone(),
                    args,
                }
            } else {
                let shape = crate::cost::shape_of(env, e)?;
                let args = args
                    .iter()
                    .map(|a| optimize_arg(a, env))
                    .collect::<Result<Vec<_>, _>>()?;
                let placeholder = format!("__opaque{}", tables.placeholders.len());
                tables.env.shapes.insert(placeholder.clone(), shape);
                tables.leaves.push(Func {
                    name: name.clone(),
                    args,
                });
                tables.placeholders.push(placeholder.clone());
                Var(placeholder)
            }
        }
    })
}

struct Encoder {
    tables: Tables,
    program: String,
    /// Structural key of a subexpression to its egglog global, so shared
    /// subexpressions become one e-class from the start.
    memo: HashMap<String, String>,
    leaf_ids: HashMap<String, usize>,
}

impl Encoder {
    fn term(&mut self, e: &LaExpr) -> Result<String, OptError> {
        use LaExpr::*;
        let key = format!("{e:?}");
        if let Some(name) = self.memo.get(&key) {
            return Ok(name.clone());
        }
        let body = match e {
            Var(v) => {
                let n = match self.leaf_ids.get(v) {
                    Some(n) => *n,
                    None => {
                        let n = match self.tables.placeholders.iter().position(|p| p == v) {
                            Some(p) => p,
                            None => {
                                self.tables.leaves.push(e.clone());
                                self.tables.placeholders.push(v.clone());
                                self.tables.leaves.len() - 1
                            }
                        };
                        self.leaf_ids.insert(v.clone(), n);
                        n
                    }
                };
                format!("(LVar {n})")
            }
            Const(c) => format!("(LConst {})", float(*c)),
            Add(a, b) => format!("(LAdd {} {})", self.term(a)?, self.term(b)?),
            Sub(a, b) => format!("(LSub {} {})", self.term(a)?, self.term(b)?),
            Mul(a, b) => format!("(LMul {} {})", self.term(a)?, self.term(b)?),
            MatMul(a, b) => format!("(LMM {} {})", self.term(a)?, self.term(b)?),
            Transpose(a) => format!("(LT {})", self.term(a)?),
            Neg(a) => format!("(LNeg {})", self.term(a)?),
            Sum(a) => format!("(LSum {})", self.term(a)?),
            RowSums(a) => format!("(LRowSums {})", self.term(a)?),
            ColSums(a) => format!("(LColSums {})", self.term(a)?),
            Pow(a, k) => format!("(LPow {} {})", self.term(a)?, float(*k)),
            Func { name, args } => {
                let f = match self.tables.funcs.iter().position(|g| g == name) {
                    Some(f) => f,
                    None => {
                        self.tables.funcs.push(name.clone());
                        self.tables.funcs.len() - 1
                    }
                };
                match args.as_slice() {
                    [a] => format!("(LF1 {f} {})", self.term(a)?),
                    [a, b] => format!("(LF2 {f} {} {})", self.term(a)?, self.term(b)?),
                    _ => {
                        return Err(OptError::Encode(format!(
                            "`{name}` with {} arguments reached the encoder",
                            args.len()
                        )))
                    }
                }
            }
        };
        let (r, c) = crate::cost::shape_of(&self.tables.env, e)?;
        let (rc, cc) = (self.tables.dim_code(&r), self.tables.dim_code(&c));
        let sp = LaCost::new(&self.tables.env).sparsity(e)?;
        let name = format!("$n{}", self.memo.len());
        let _ = writeln!(
            self.program,
            "(let {name} {body})\n(set (rows {name}) {rc})\n(set (cols {name}) {cc})\n(set (lsp {name}) {})",
            float(sp)
        );
        self.memo.insert(key, name.clone());
        Ok(name)
    }
}

/// An f64 literal egglog parses as f64 (never as an integer).
pub fn float(x: f64) -> String {
    if x.is_nan() {
        "NaN".into()
    } else {
        format!("{x:?}")
    }
}
