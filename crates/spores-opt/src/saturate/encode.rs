//! [`LaExpr`] to egglog: the input term, its shape facts and the name tables.

use std::collections::HashMap;

use crate::cost::{LaCost, NodeFacts};
use crate::la::{LaExpr, ShapeEnv};

use super::OptError;
use crate::tables::Tables;

/// One value in an [`Op`]: the e-class made by an earlier op, or a base value.
#[derive(Clone, Debug)]
pub enum Arg {
    Slot(usize),
    I64(i64),
    F64(f64),
    Str(String),
}

/// One insertion into the e-graph. Ops are applied in order through egglog's
/// `EGraph::update` (no egglog source is generated or parsed: that cost ~0.1 ms per
/// command, more than saturating a small graph).
#[derive(Clone, Debug)]
pub enum Op {
    /// `slots.push(name(args..))` for a constructor.
    Add(&'static str, Vec<Arg>),
    /// `(set (name key..) value)` for a function.
    Set(&'static str, Vec<Arg>, Arg),
    /// `(union a b)` of two slots' e-classes.
    Union(usize, usize),
}

/// The insertions for one or more input expressions (the roots of one block).
pub struct Encoded {
    pub ops: Vec<Op>,
    pub tables: Tables,
    /// The inputs with opaque calls replaced by their placeholders, one per root.
    pub inputs: Vec<LaExpr>,
    /// Per root, the slots of its bind's row index, column index and LA term: after
    /// saturation, `Bind i j term` looks up the root's relational class.
    pub root_binds: Vec<[usize; 3]>,
}

/// Encodes `e`. `optimize_arg` optimizes the arguments of an opaque call, which the
/// e-graph cannot see into.
pub fn encode(
    e: &LaExpr,
    env: &ShapeEnv,
    optimize_arg: &mut dyn FnMut(&LaExpr, &ShapeEnv) -> Result<LaExpr, OptError>,
) -> Result<Encoded, OptError> {
    encode_all(std::slice::from_ref(e), env, optimize_arg)
}

/// Encodes several roots into one e-graph: shared subterms become one class, and each
/// root is bound to indices of its own (`i`, `j` for the first, `i1`, `j1`, ... after),
/// since roots may have different shapes. The first root is marked `root-mark`.
pub fn encode_all(
    es: &[LaExpr],
    env: &ShapeEnv,
    optimize_arg: &mut dyn FnMut(&LaExpr, &ShapeEnv) -> Result<LaExpr, OptError>,
) -> Result<Encoded, OptError> {
    let mut tables = Tables {
        env: env.clone(),
        ..Tables::default()
    };
    let inputs = es
        .iter()
        .map(|e| hide_opaque(e, env, &mut tables, optimize_arg))
        .collect::<Result<Vec<_>, _>>()?;
    // Each node's shape and sparsity, derived once from its operands' (the environment is
    // final: the placeholders are in it).
    let env = tables.env.clone();
    let cost = LaCost::new(&env);
    let mut facts = cost.node_facts();
    let mut enc = Encoder {
        tables,
        ops: Vec::new(),
        slots: 0,
        known_dims: Vec::new(),
        memo: HashMap::new(),
        leaf_ids: HashMap::new(),
    };
    let mut root_binds = Vec::new();
    for (k, input) in inputs.iter().enumerate() {
        let root = enc.term(input, &mut facts)?;
        let (_, (r, c)) = facts.facts(input)?;
        let (rc, cc) = (enc.tables.dim_code(&r), enc.tables.dim_code(&c));
        let suffix = if k == 0 { String::new() } else { k.to_string() };
        let i = enc.add("I", vec![Arg::Str(format!("i{suffix}"))]);
        let j = enc.add("I", vec![Arg::Str(format!("j{suffix}"))]);
        enc.ops
            .push(Op::Set("idim", vec![Arg::Slot(i)], Arg::I64(rc)));
        enc.ops
            .push(Op::Set("idim", vec![Arg::Slot(j)], Arg::I64(cc)));
        let bind = enc.add("Bind", vec![Arg::Slot(i), Arg::Slot(j), Arg::Slot(root)]);
        if k == 0 {
            enc.ops
                .push(Op::Set("root-mark", vec![Arg::Slot(bind)], Arg::I64(0)));
        }
        root_binds.push([i, j, root]);
        // The demand that starts the way back (rules/raise.egg): root k as an LA term
        // in its own orientation, marked so its LA class is found after merges.
        let unbind = enc.add("Unbind", vec![Arg::Slot(i), Arg::Slot(j), Arg::Slot(bind)]);
        let mark = enc.add("LaRoot", vec![Arg::I64(k as i64)]);
        enc.ops.push(Op::Union(unbind, mark));
    }
    let mut codes: Vec<i64> = (0..enc.tables.syms.len())
        .map(|n| -(n as i64) - 1)
        .collect();
    codes.append(&mut enc.known_dims);
    codes.sort_unstable();
    codes.dedup();
    for code in codes {
        let size = enc.tables.code_size(code);
        enc.ops
            .push(Op::Set("dimsz", vec![Arg::I64(code)], Arg::F64(size)));
    }
    Ok(Encoded {
        ops: enc.ops,
        tables: enc.tables,
        inputs,
        root_binds,
    })
}

/// Replaces each call the rules cannot see into with a fresh input of the same shape,
/// optimizing the call's arguments on their own.
pub(crate) fn hide_opaque(
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
        // A fill is a leaf to the rules: a placeholder of its shape and sparsity.
        Fill(v, r, c) => {
            let placeholder = format!("__opaque{}", tables.placeholders.len());
            tables
                .env
                .shapes
                .insert(placeholder.clone(), (r.clone(), c.clone()));
            if matches!(**v, Const(z) if z == 0.0) {
                tables.env.nnz.insert(placeholder.clone(), 0.0);
            }
            tables.leaves.push(e.clone());
            tables.placeholders.push(placeholder.clone());
            Var(placeholder)
        }
        // `as.scalar` of a 1×1 matrix is that matrix (1×1 values are scalars here).
        Func { name, args }
            if name == "as.scalar"
                && args.len() == 1
                && crate::cost::shape_of(env, &args[0])
                    .is_ok_and(|(r, c)| r.is_one() && c.is_one()) =>
        {
            go(&args[0], tables)?
        }
        // Division by a nonzero constant is multiplication by its reciprocal.
        Func { name, args }
            if name == "/"
                && matches!(args.as_slice(), [_, Const(c)] if *c != 0.0 && c.is_finite()) =>
        {
            let Const(c) = args[1] else { unreachable!() };
            Mul(b(go(&args[0], tables)?), b(Const(1.0 / c)))
        }
        Func { name, args } => {
            let transparent = crate::functions::is_elementwise(name, args.len());
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
    ops: Vec<Op>,
    /// Constructor ops so far: the next one's slot.
    slots: usize,
    /// The known sizes of the encoded terms' dimensions (their codes).
    known_dims: Vec<i64>,
    /// A constructor and its arguments (operands by slot) to its slot, so structurally
    /// equal subexpressions become one e-class from the start.
    memo: HashMap<String, usize>,
    leaf_ids: HashMap<String, usize>,
}

impl Encoder {
    /// Adds a constructor op and returns its slot.
    fn add(&mut self, name: &'static str, args: Vec<Arg>) -> usize {
        self.ops.push(Op::Add(name, args));
        self.slots += 1;
        self.slots - 1
    }

    /// The slots of `xs`, as constructor arguments.
    fn operands<'e>(
        &mut self,
        xs: &[&'e LaExpr],
        facts: &mut NodeFacts<'_, '_, 'e>,
    ) -> Result<Vec<Arg>, OptError> {
        xs.iter()
            .map(|x| Ok(Arg::Slot(self.term(x, facts)?)))
            .collect()
    }

    /// The slot of `e`, its operands encoded first: each node costs its own operator,
    /// whatever its depth (a sum of 4,000 terms is a chain 4,000 deep).
    fn term<'e>(
        &mut self,
        e: &'e LaExpr,
        facts: &mut NodeFacts<'_, '_, 'e>,
    ) -> Result<usize, OptError> {
        use LaExpr::*;
        let (name, args): (&'static str, Vec<Arg>) = match e {
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
                ("LVar", vec![Arg::I64(n as i64)])
            }
            Const(c) => ("LConst", vec![Arg::F64(*c)]),
            Add(a, b) => ("LAdd", self.operands(&[a, b], facts)?),
            Sub(a, b) => ("LSub", self.operands(&[a, b], facts)?),
            Mul(a, b) => ("LMul", self.operands(&[a, b], facts)?),
            MatMul(a, b) => ("LMM", self.operands(&[a, b], facts)?),
            Transpose(a) => ("LT", self.operands(&[a], facts)?),
            Neg(a) => ("LNeg", self.operands(&[a], facts)?),
            Sum(a) => ("LSum", self.operands(&[a], facts)?),
            RowSums(a) => ("LRowSums", self.operands(&[a], facts)?),
            ColSums(a) => ("LColSums", self.operands(&[a], facts)?),
            Pow(a, k) => {
                let mut args = self.operands(&[a], facts)?;
                args.push(Arg::F64(*k));
                ("LPow", args)
            }
            Fill(..) => {
                return Err(OptError::Encode(format!(
                    "`{e}` reached the encoder (fills are placeholders)"
                )))
            }
            Func { name, args } => {
                let f = match self.tables.funcs.iter().position(|g| g == name) {
                    Some(f) => f,
                    None => {
                        self.tables.funcs.push(name.clone());
                        let f = self.tables.funcs.len() - 1;
                        self.ops.push(Op::Set(
                            "fname",
                            vec![Arg::I64(f as i64)],
                            Arg::Str(name.clone()),
                        ));
                        if crate::functions::keeps_zeros(name, args.len()) {
                            self.ops.push(Op::Set(
                                "keeps-zeros",
                                vec![Arg::I64(f as i64)],
                                Arg::I64(args.len() as i64),
                            ));
                        }
                        f
                    }
                } as i64;
                let name = match args.len() {
                    1 => "LF1",
                    2 => "LF2",
                    n => {
                        return Err(OptError::Encode(format!(
                            "`{name}` with {n} arguments reached the encoder"
                        )))
                    }
                };
                let refs: Vec<&LaExpr> = args.iter().collect();
                let mut operands = vec![Arg::I64(f)];
                operands.extend(self.operands(&refs, facts)?);
                (name, operands)
            }
        };
        let key = format!("{name}{args:?}");
        if let Some(slot) = self.memo.get(&key) {
            return Ok(*slot);
        }
        let (sp, (r, c)) = facts.facts(e)?;
        let (rc, cc) = (self.tables.dim_code(&r), self.tables.dim_code(&c));
        self.known_dims
            .extend([rc, cc].into_iter().filter(|&code| code >= 0));
        let slot = self.add(name, args);
        for (f, v) in [
            ("rows", Arg::I64(rc)),
            ("cols", Arg::I64(cc)),
            ("lsp", Arg::F64(sp)),
            ("lid", Arg::I64(slot as i64)),
        ] {
            self.ops.push(Op::Set(f, vec![Arg::Slot(slot)], v));
        }
        self.memo.insert(key, slot);
        Ok(slot)
    }
}
