//! Lowering: a basic block of statements (or one expression) becomes a [`Dag`].

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use spores_exec::kernels::elementwise::BinaryOp;
use spores_exec::kernels::unary::UnaryOp;
use spores_lang::ast::{
    self, Arg, AssignTarget, Expr, ExprKind, FunctionDef, Index, Stmt, StmtKind,
};
use spores_lang::diag::{Diagnostic, Span};

use super::builtins::{self, ArgDefault, BuiltinSpec, CallForm};
use super::{AggFn, Axis, Builtin, Dag, IndexKind, Literal, NodeId, Op};

/// What lowering needs to know besides the statements: the functions the code can call
/// and the command-line arguments (`$name`).
pub struct LowerContext<'a> {
    pub functions: &'a dyn FunctionScope,
    pub args: &'a HashMap<String, String>,
}

/// A DML function a call resolved to: `key` names it in `Op::Call` (unique in the run),
/// `name` as the call wrote it (for messages: `lm`, not `m_lm`).
#[derive(Clone, Debug)]
pub struct ResolvedFunction {
    pub key: String,
    pub name: String,
    pub def: Rc<FunctionDef>,
}

/// The DML functions visible from the code being lowered (see `runtime::library`). A call
/// resolves to a [`FunctionScope::local`] function first, then to a native builtin, then
/// to a [`FunctionScope::builtin`] file.
pub trait FunctionScope {
    /// A function the calling file defines, or `ns::f` from a file it sources.
    fn local(&self, name: &str, span: Span) -> Result<Option<ResolvedFunction>, Diagnostic>;
    /// The DML-bodied builtin `name`; the error says where it was looked for.
    fn builtin(&self, name: &str, span: Span) -> Result<ResolvedFunction, Diagnostic>;
}

/// No functions at all: for lowering lone expressions.
pub struct NoFunctions;

impl FunctionScope for NoFunctions {
    fn local(&self, _: &str, _: Span) -> Result<Option<ResolvedFunction>, Diagnostic> {
        Ok(None)
    }

    fn builtin(&self, name: &str, span: Span) -> Result<ResolvedFunction, Diagnostic> {
        Err(Diagnostic::new(format!("unknown function `{name}`"), span))
    }
}

/// Parses `src` and lowers its statements as one block, with no functions and no
/// command-line arguments: one block's DAG, for tests and tools.
pub fn lower_source(src: &str) -> Result<BlockDag, Diagnostic> {
    let program = spores_lang::parse(src)?;
    let args = HashMap::new();
    let ctx = LowerContext {
        functions: &NoFunctions,
        args: &args,
    };
    lower_block(&program.body, &ctx)
}

/// A lowered basic block.
#[derive(Clone, Debug)]
pub struct BlockDag {
    pub dag: Dag,
    /// Variables the block assigns, with the node holding each one's final value.
    pub outputs: Vec<(String, NodeId)>,
    /// Nodes run for their effect (`print`, `write`, `stop`, calls), in statement order.
    pub effects: Vec<NodeId>,
    /// The source text of the whole block.
    pub span: Span,
}

impl BlockDag {
    /// The same block over a rewritten `dag`, where `remap[old]` is the new id of each of
    /// this block's nodes.
    pub fn remapped(&self, dag: Dag, remap: &[NodeId]) -> BlockDag {
        BlockDag {
            dag,
            outputs: self
                .outputs
                .iter()
                .map(|(n, id)| (n.clone(), remap[*id]))
                .collect(),
            effects: self.effects.iter().map(|id| remap[*id]).collect(),
            span: self.span,
        }
    }

    /// The names of the operators the block's roots reach, in node order (for tests that
    /// check which operators a lowering or a plan uses).
    #[cfg(test)]
    pub(crate) fn live_op_names(&self) -> Vec<String> {
        let needed = self.dag.reachable(self.roots());
        self.dag
            .nodes()
            .iter()
            .enumerate()
            .filter(|(id, _)| needed[*id])
            .map(|(_, n)| n.op.name())
            .collect()
    }

    /// The nodes whose values the block must compute.
    pub fn roots(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.outputs
            .iter()
            .map(|(_, id)| *id)
            .chain(self.effects.iter().copied())
    }

    /// Which nodes the block needs (those its roots reach), and how often each is read:
    /// once per needed node that reads it, and once more per root it is.
    pub fn needed_and_uses(&self) -> (Vec<bool>, Vec<usize>) {
        let needed = self.dag.reachable(self.roots());
        let mut uses = vec![0usize; self.dag.len()];
        for (id, node) in self.dag.nodes().iter().enumerate() {
            if needed[id] {
                for &c in &node.children {
                    uses[c] += 1;
                }
            }
        }
        for root in self.roots() {
            uses[root] += 1;
        }
        (needed, uses)
    }
}

/// Lowers a run of assignment and expression statements (no control flow) to one DAG.
pub fn lower_block(stmts: &[Stmt], ctx: &LowerContext) -> Result<BlockDag, Diagnostic> {
    let mut lowerer = Lowerer::new(ctx);
    let mut assigned: Vec<String> = Vec::new();
    let mut seen = HashSet::new();
    let mut effects = Vec::new();
    for stmt in stmts {
        let mut note_assigned = |name: &str| {
            if seen.insert(name.to_string()) {
                assigned.push(name.to_string());
            }
        };
        match &stmt.kind {
            StmtKind::Assign { target, value } => match target {
                AssignTarget::Var(name) => {
                    let id = lowerer.expr(value)?;
                    lowerer.env.insert(name.clone(), id);
                    note_assigned(name);
                }
                AssignTarget::Indexed { name, rows, cols } => {
                    let target = lowerer.var(name, stmt.span);
                    let value = lowerer.expr(value)?;
                    let mut children = vec![target, value];
                    let rows = lowerer.index(rows, &mut children)?;
                    let cols = lowerer.index(cols, &mut children)?;
                    let id = lowerer
                        .dag
                        .add(Op::LeftIndex { rows, cols }, children, stmt.span);
                    lowerer.env.insert(name.clone(), id);
                    note_assigned(name);
                }
            },
            StmtKind::MultiAssign { targets, value } => {
                let ExprKind::Call { name, args } = &value.kind else {
                    return Err(Diagnostic::new(
                        "a multi-assignment needs a call of a function with several return values",
                        value.span,
                    ));
                };
                let local = ctx.functions.local(name, value.span)?;
                if local.is_none() {
                    if let Some((node, outputs)) =
                        lowerer.multi_return_builtin(name, args, value.span)?
                    {
                        // Fewer targets take the first results, as in SystemDS.
                        if outputs < targets.len() {
                            return Err(Diagnostic::new(
                                format!(
                                    "`{name}` returns {outputs} values but {} are assigned",
                                    targets.len()
                                ),
                                stmt.span,
                            ));
                        }
                        for (k, target) in targets.iter().enumerate() {
                            let id = lowerer.dag.add(Op::Extract(k), vec![node], value.span);
                            lowerer.env.insert(target.clone(), id);
                            note_assigned(target);
                        }
                        continue;
                    }
                }
                let function = match local {
                    Some(f) => f,
                    None => ctx.functions.builtin(name, value.span)?,
                };
                // Fewer targets take the first results (`[a, b] = pca(...)`, as in SystemDS).
                if function.def.returns.len() < targets.len() {
                    return Err(Diagnostic::new(
                        format!(
                            "`{name}` returns {} values but {} are assigned",
                            function.def.returns.len(),
                            targets.len()
                        ),
                        stmt.span,
                    ));
                }
                let call = lowerer.call(&function, args, value.span)?;
                effects.push(call);
                for (k, target) in targets.iter().enumerate() {
                    let id = lowerer.dag.add(Op::Extract(k), vec![call], value.span);
                    lowerer.env.insert(target.clone(), id);
                    note_assigned(target);
                }
            }
            StmtKind::Expr(expr) => {
                let local = match &expr.kind {
                    ExprKind::Call { name, args } => ctx
                        .functions
                        .local(name, expr.span)?
                        .map(|function| (function, args)),
                    _ => None,
                };
                let id = match local {
                    Some((function, args)) => lowerer.call(&function, args, expr.span)?,
                    None => lowerer.expr(expr)?,
                };
                effects.push(id);
            }
            StmtKind::If { .. } | StmtKind::For { .. } | StmtKind::While { .. } => {
                return Err(Diagnostic::new(
                    "internal error: control flow inside a basic block",
                    stmt.span,
                ));
            }
        }
    }
    let span = match (stmts.first(), stmts.last()) {
        (Some(a), Some(b)) => a.span.to(b.span),
        _ => Span::default(),
    };
    let outputs = assigned
        .into_iter()
        .map(|name| {
            let id = lowerer.env[&name];
            (name, id)
        })
        .collect();
    // A call of a DML function runs even when nothing reads its value, as in SystemDS:
    // it may print or write (`XYZ = sliceLineDebug(...)` is called for its prints).
    let mut is_effect = vec![false; lowerer.dag.len()];
    effects.iter().for_each(|&id| is_effect[id] = true);
    for (id, node) in lowerer.dag.nodes().iter().enumerate() {
        if matches!(node.op, Op::Call { .. }) && !is_effect[id] {
            effects.push(id);
        }
    }
    effects.sort_unstable();
    Ok(BlockDag {
        dag: lowerer.dag,
        outputs,
        effects,
        span,
    })
}

/// Lowers a single expression (a condition or loop bound) to a DAG and its root.
pub fn lower_expr(expr: &Expr, ctx: &LowerContext) -> Result<BlockDag, Diagnostic> {
    let mut lowerer = Lowerer::new(ctx);
    let root = lowerer.expr(expr)?;
    Ok(BlockDag {
        dag: lowerer.dag,
        outputs: vec![(String::new(), root)],
        effects: Vec::new(),
        span: expr.span,
    })
}

struct Lowerer<'a> {
    ctx: &'a LowerContext<'a>,
    dag: Dag,
    /// Variables assigned so far in the block.
    env: HashMap<String, NodeId>,
}

impl<'a> Lowerer<'a> {
    fn new(ctx: &'a LowerContext<'a>) -> Self {
        Lowerer {
            ctx,
            dag: Dag::new(),
            env: HashMap::new(),
        }
    }

    fn var(&mut self, name: &str, span: Span) -> NodeId {
        match self.env.get(name) {
            Some(&id) => id,
            None => self.dag.add(Op::Input(name.to_string()), vec![], span),
        }
    }

    fn lit(&mut self, literal: Literal, span: Span) -> NodeId {
        self.dag.add(Op::Literal(literal), vec![], span)
    }

    fn expr(&mut self, expr: &Expr) -> Result<NodeId, Diagnostic> {
        let span = expr.span;
        Ok(match &expr.kind {
            ExprKind::Int(v) => self.lit(Literal::Int(*v), span),
            ExprKind::Double(v) => self.lit(Literal::Double(*v), span),
            ExprKind::Str(s) => self.lit(Literal::Str(s.clone()), span),
            ExprKind::Bool(b) => self.lit(Literal::Bool(*b), span),
            // DML's constants, unless the block assigned a variable of that name.
            ExprKind::Var(name) if name == "NaN" && !self.env.contains_key(name) => {
                self.lit(Literal::Double(f64::NAN), span)
            }
            ExprKind::Var(name) if name == "Inf" && !self.env.contains_key(name) => {
                self.lit(Literal::Double(f64::INFINITY), span)
            }
            ExprKind::Var(name) if name == "pi" && !self.env.contains_key(name) => {
                self.lit(Literal::Double(std::f64::consts::PI), span)
            }
            ExprKind::Var(name) => self.var(name, span),
            ExprKind::CmdArg(name) => match self.ctx.args.get(name) {
                Some(text) => self.lit(parse_cmd_arg(text), span),
                None => {
                    return Err(Diagnostic::new(
                        format!(
                            "command-line argument `${name}` is not given (use --arg {name}=VALUE)"
                        ),
                        span,
                    ))
                }
            },
            ExprKind::Unary { op, expr: inner } => {
                let child = self.expr(inner)?;
                match op {
                    ast::UnaryOp::Plus => child,
                    ast::UnaryOp::Neg => self.dag.add(Op::Unary(UnaryOp::Neg), vec![child], span),
                    ast::UnaryOp::Not => self.dag.add(Op::Unary(UnaryOp::Not), vec![child], span),
                }
            }
            ExprKind::Binary { op, lhs, rhs }
                if complemented_comparison(*op, lhs, rhs).is_some() =>
            {
                let (cmp, a, b) = complemented_comparison(*op, lhs, rhs).expect("checked");
                let l = self.expr(a)?;
                let r = self.expr(b)?;
                self.dag.add(Op::Binary(cmp), vec![l, r], span)
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let l = self.expr(lhs)?;
                let r = self.expr(rhs)?;
                let op = match op {
                    ast::BinaryOp::MatMul => {
                        let (l, r) = super::weighted_division::weighted(&mut self.dag, l, r);
                        return Ok(self.dag.add(Op::MatMul, vec![l, r], span));
                    }
                    other => Op::Binary(binary_op(*other)),
                };
                self.dag.add(op, vec![l, r], span)
            }
            ExprKind::Index { target, rows, cols } => {
                let mut children = vec![self.expr(target)?];
                let rows = self.index(rows, &mut children)?;
                let cols = self.index(cols, &mut children)?;
                self.dag.add(Op::Index { rows, cols }, children, span)
            }
            ExprKind::Vector(items) if items.iter().any(|i| matches!(i.kind, ExprKind::Str(_))) => {
                // Strings make a list, as in SystemDS (`schema=["STRING", "FP64"]`).
                let mut children = Vec::with_capacity(2 * items.len());
                for item in items {
                    children.push(self.lit(Literal::Str(String::new()), item.span));
                    children.push(self.expr(item)?);
                }
                self.dag.add(Op::Builtin(Builtin::List), children, span)
            }
            ExprKind::Vector(items) => {
                // A row vector: the cells side by side.
                let mut cells = Vec::with_capacity(items.len());
                for item in items {
                    let cell = self.expr(item)?;
                    cells.push(
                        self.dag
                            .add(Op::Builtin(Builtin::AsMatrix), vec![cell], item.span),
                    );
                }
                match cells.split_first() {
                    None => {
                        return Err(Diagnostic::new(
                            "an empty list of values `[]` has no cells",
                            span,
                        ))
                    }
                    Some((&first, rest)) => rest.iter().fold(first, |row, &cell| {
                        self.dag
                            .add(Op::Builtin(Builtin::Cbind), vec![row, cell], span)
                    }),
                }
            }
            ExprKind::Call { name, args } => match self.ctx.functions.local(name, span)? {
                Some(function) => self.function_value(&function, args, span)?,
                None => self.builtin(name, args, span)?,
            },
        })
    }

    fn index(
        &mut self,
        index: &Index,
        children: &mut Vec<NodeId>,
    ) -> Result<IndexKind, Diagnostic> {
        Ok(match index {
            Index::All => IndexKind::All,
            Index::Single(e) => {
                children.push(self.expr(e)?);
                IndexKind::Single
            }
            Index::Range(a, b) => {
                children.push(self.expr(a)?);
                children.push(self.expr(b)?);
                IndexKind::Range
            }
        })
    }

    /// A call of a DML function used as a value: its single return value, or the first of
    /// several, as SystemDS gives it (`t(dbscanApply(...))` is the cluster assignment,
    /// `f1 = arima_residuals(...)` the residuals). A function without return values is a
    /// statement of its own, so its call node stands for it.
    fn function_value(
        &mut self,
        function: &ResolvedFunction,
        args: &[Arg],
        span: Span,
    ) -> Result<NodeId, Diagnostic> {
        let call = self.call(function, args, span)?;
        Ok(match function.def.returns.len() {
            0 => call,
            _ => self.dag.add(Op::Extract(0), vec![call], span),
        })
    }

    /// A call of a function that is neither defined in the file nor native: a
    /// DML-bodied builtin (`NAME.dml`).
    fn dml_builtin(&mut self, name: &str, args: &[Arg], span: Span) -> Result<NodeId, Diagnostic> {
        let function = self.ctx.functions.builtin(name, span)?;
        self.function_value(&function, args, span)
    }

    fn call(
        &mut self,
        function: &ResolvedFunction,
        args: &[Arg],
        span: Span,
    ) -> Result<NodeId, Diagnostic> {
        let (key, called, function) = (&function.key, &function.name, &*function.def);
        let names: Vec<&str> = function.params.iter().map(|p| p.name.as_str()).collect();
        let bound = bind_args(called, &names, 0, args, span)?;
        let mut children = Vec::with_capacity(names.len());
        let mut deferred = Vec::new();
        for (k, (param, arg)) in function.params.iter().zip(bound).enumerate() {
            let id = match (arg, &param.default) {
                (Some(e), _) => self.expr(e)?,
                (None, Some(default)) if mentions_variables(default) => {
                    deferred.push(k);
                    self.lit(Literal::Int(0), span)
                }
                (None, Some(default)) => self.expr(default)?,
                (None, None) => {
                    return Err(Diagnostic::new(
                        format!("missing argument `{}` of `{called}`", param.name),
                        span,
                    ))
                }
            };
            children.push(id);
        }
        let op = Op::Call {
            name: key.clone(),
            outputs: function.returns.len(),
            deferred,
        };
        Ok(self.dag.add(op, children, span))
    }

    fn builtin(&mut self, name: &str, args: &[Arg], span: Span) -> Result<NodeId, Diagnostic> {
        if name == "ifdef" {
            return self.ifdef(args, span);
        }
        if name == "exists" {
            return self.exists(args, span);
        }
        match name {
            "print" if args.len() > 1 => return self.variadic(Builtin::Printf, name, args, span),
            "eval" => return self.variadic(Builtin::Eval, name, args, span),
            "evalList" => return self.variadic(Builtin::EvalList, name, args, span),
            "min" | "max" => return self.min_max(name, args, span),
            // SystemDS's cellwise spellings, of two or more arguments.
            "pmin" | "pmax" if args.len() >= 2 => return self.min_max(&name[1..], args, span),
            // SystemDS's weighted forms give the weights second, `quantile(v, w, p)`
            // and `moment(v, w, k)`; the builtins take them last.
            "quantile" | "moment" | "centralMoment"
                if args.len() == 3 && args.iter().all(|a| a.name.is_none()) =>
            {
                let spec = builtins::by_name(name).expect("a builtin");
                let reordered = [args[0].clone(), args[2].clone(), args[1].clone()];
                return self.by_signature(spec, &reordered, span);
            }
            // SystemDS's compression changes how a matrix is stored, not its cells.
            "compress" | "decompress" if args.len() == 1 && args[0].name.is_none() => {
                return self.expr(&args[0].value)
            }
            // SystemDS accepts `bias=` on `conv2d` and ignores it (a script adds the bias
            // with `bias_add`; its codegen tests pass both).
            "conv2d" if args.iter().any(|a| a.name.as_deref() == Some("bias")) => {
                let kept: Vec<Arg> = args
                    .iter()
                    .filter(|a| a.name.as_deref() != Some("bias"))
                    .cloned()
                    .collect();
                return self.builtin(name, &kept, span);
            }
            "log" => return self.log(args, span),
            "xor" => return self.xor(args, span),
            "as.scalar" | "castAsScalar" if args.len() == 1 && args[0].name.is_none() => {
                return self.as_scalar(&args[0].value, span)
            }
            _ => {}
        }
        // SystemDS matches `rand` in any case (`Rand`, `RAND`).
        let name = if name.eq_ignore_ascii_case("rand") {
            "rand"
        } else {
            name
        };
        if let Some((op, arity)) = operator_builtin(name) {
            return self.positional(op, name, arity, args, span);
        }
        if distribution_signature(name).is_some() {
            return self.distribution(name, args, span);
        }
        let Some(spec) = builtins::by_name(name) else {
            return self.dml_builtin(name, args, span);
        };
        if spec.results.len() > 1 {
            return Err(Diagnostic::new(
                format!(
                    "`{name}` returns {} values; use `[{}] = {name}({})`",
                    spec.results.len(),
                    spec.results.join(", "),
                    spec.param_names().join(", ")
                ),
                span,
            ));
        }
        match (spec.call, spec.builtin) {
            (CallForm::Positional, b) => {
                self.positional(Op::Builtin(b), name, spec.params.len(), args, span)
            }
            (CallForm::Named, _) => self.by_signature(spec, args, span),
            (CallForm::Custom, Builtin::Cbind | Builtin::Rbind) => {
                self.bind(spec.builtin, args, span)
            }
            (CallForm::Custom, Builtin::List) => self.list(args, span),
            (CallForm::Custom, Builtin::Table) => self.table(args, span),
            (CallForm::Custom, b) => Err(Diagnostic::new(
                format!("internal error: no lowering for `{}`", b.name()),
                span,
            )),
        }
    }

    /// A call of `op` with exactly `arity` arguments by position (a lone one may be named).
    fn positional(
        &mut self,
        op: Op,
        name: &str,
        arity: usize,
        args: &[Arg],
        span: Span,
    ) -> Result<NodeId, Diagnostic> {
        if args.len() != arity || args.iter().any(|a| a.name.is_some() && arity != 1) {
            return Err(Diagnostic::new(
                format!(
                    "`{name}` takes {arity} argument{}",
                    if arity == 1 { "" } else { "s" }
                ),
                span,
            ));
        }
        let children = args
            .iter()
            .map(|a| self.expr(&a.value))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(self.dag.add(op, children, span))
    }

    /// `print(format, values...)` and `eval(name, arguments...)`: positional arguments, as many as given.
    fn variadic(
        &mut self,
        builtin: Builtin,
        name: &str,
        args: &[Arg],
        span: Span,
    ) -> Result<NodeId, Diagnostic> {
        if let Some(named) = args.iter().find(|a| a.name.is_some()) {
            return Err(Diagnostic::new(
                format!("`{name}` takes positional arguments only"),
                named.value.span,
            ));
        }
        if args.is_empty() {
            return Err(Diagnostic::new(
                format!("`{name}` needs at least one argument"),
                span,
            ));
        }
        let children = args
            .iter()
            .map(|a| self.expr(&a.value))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(self.dag.add(Op::Builtin(builtin), children, span))
    }

    /// `min(x)`/`max(x)` aggregate one argument; of several, the cellwise minimum or maximum.
    fn min_max(&mut self, name: &str, args: &[Arg], span: Span) -> Result<NodeId, Diagnostic> {
        let (agg, bin) = if name == "min" {
            (AggFn::Min, BinaryOp::Min)
        } else {
            (AggFn::Max, BinaryOp::Max)
        };
        let children = args
            .iter()
            .map(|a| self.expr(&a.value))
            .collect::<Result<Vec<_>, _>>()?;
        match children.as_slice() {
            [] => Err(Diagnostic::new(
                format!("`{name}` needs at least one argument"),
                span,
            )),
            [one] => Ok(self.dag.add(Op::Agg(agg, Axis::All), vec![*one], span)),
            [first, rest @ ..] => Ok(rest.iter().fold(*first, |acc, &next| {
                self.dag.add(Op::Binary(bin), vec![acc, next], span)
            })),
        }
    }

    /// `cbind`/`rbind` of two or more arguments, as a chain of pairs; of one argument (a
    /// list, whose elements it binds), one node.
    fn bind(&mut self, builtin: Builtin, args: &[Arg], span: Span) -> Result<NodeId, Diagnostic> {
        let name = builtin.name();
        let children = args
            .iter()
            .map(|a| self.expr(&a.value))
            .collect::<Result<Vec<_>, _>>()?;
        match children.len() {
            0 => {
                return Err(Diagnostic::new(
                    format!("`{name}` needs a list or at least two arguments"),
                    span,
                ))
            }
            1 => return Ok(self.dag.add(Op::Builtin(builtin), children, span)),
            _ => {}
        }
        Ok(children[1..].iter().fold(children[0], |acc, &next| {
            self.dag.add(Op::Builtin(builtin), vec![acc, next], span)
        }))
    }

    /// `list(...)`: each element after its name (empty when positional).
    ///
    /// A list whose elements are all named takes them in SystemDS's order, which is not
    /// the written one: SystemDS passes named arguments through a Java `HashMap`, so
    /// `list(X=X, y=y, icpt=0, reg=r, tol=t)[1]` is `t`. Its builtins index such lists by
    /// position (hyperband's `args[1]` is `tol`), so the order is part of the language.
    fn list(&mut self, args: &[Arg], span: Span) -> Result<NodeId, Diagnostic> {
        let names: Option<Vec<&str>> = args.iter().map(|a| a.name.as_deref()).collect();
        let order = match names {
            Some(names) => crate::java::hash_map_order(&names),
            None => (0..args.len()).collect(),
        };
        let mut children = Vec::with_capacity(2 * args.len());
        for arg in order.into_iter().map(|i| &args[i]) {
            let name = arg.name.clone().unwrap_or_default();
            children.push(self.lit(Literal::Str(name), arg.value.span));
            children.push(self.expr(&arg.value)?);
        }
        Ok(self.dag.add(Op::Builtin(Builtin::List), children, span))
    }

    /// `as.scalar(x)`. SystemDS keeps the value type of `x`, and a comparison's is
    /// boolean even between matrices: `as.scalar(l1 < l2)` is TRUE or FALSE (and is
    /// written as `true`), also through `t` and through a variable assigned in the same
    /// statement block. A comparison from an earlier block has lost that type (SystemDS
    /// prints 1.0 then), as it has here: the variable is then no comparison node.
    fn as_scalar(&mut self, arg: &Expr, span: Span) -> Result<NodeId, Diagnostic> {
        let x = self.expr(arg)?;
        let cell = self.dag.add(Op::Builtin(Builtin::AsScalar), vec![x], span);
        let mut source = x;
        while self.dag.node(source).op == Op::Transpose {
            source = self.dag.node(source).children[0];
        }
        let comparison = matches!(
            self.dag.node(source).op,
            Op::Binary(
                BinaryOp::Lt
                    | BinaryOp::Le
                    | BinaryOp::Gt
                    | BinaryOp::Ge
                    | BinaryOp::Eq
                    | BinaryOp::Ne
            )
        );
        Ok(if comparison {
            self.dag
                .add(Op::Builtin(Builtin::AsLogical), vec![cell], span)
        } else {
            cell
        })
    }

    /// `log(x)` and `log(x, base)` = `log(x) / log(base)`.
    fn log(&mut self, args: &[Arg], span: Span) -> Result<NodeId, Diagnostic> {
        let bound = bind_args("log", &["x", "base"], 1, args, span)?;
        let x = self.expr(bound[0].expect("required"))?;
        let ln_x = self.dag.add(Op::Unary(UnaryOp::Log), vec![x], span);
        match bound[1] {
            None => Ok(ln_x),
            Some(base) => {
                let base = self.expr(base)?;
                let ln_base = self.dag.add(Op::Unary(UnaryOp::Log), vec![base], span);
                Ok(self
                    .dag
                    .add(Op::Binary(BinaryOp::Div), vec![ln_x, ln_base], span))
            }
        }
    }

    /// `xor(a, b)` = `(a != 0) != (b != 0)`.
    fn xor(&mut self, args: &[Arg], span: Span) -> Result<NodeId, Diagnostic> {
        let bound = bind_args("xor", &["a", "b"], 2, args, span)?;
        let zero = self.lit(Literal::Int(0), span);
        let mut truth = |e: &Expr| -> Result<NodeId, Diagnostic> {
            let v = self.expr(e)?;
            Ok(self.dag.add(Op::Binary(BinaryOp::Ne), vec![v, zero], span))
        };
        let a = truth(bound[0].expect("required"))?;
        let b = truth(bound[1].expect("required"))?;
        Ok(self.dag.add(Op::Binary(BinaryOp::Ne), vec![a, b], span))
    }

    /// A builtin whose arguments bind to its parameters by name or position, an omitted
    /// one taking its default ([`builtins::ArgDefault`]).
    fn by_signature(
        &mut self,
        spec: &BuiltinSpec,
        args: &[Arg],
        span: Span,
    ) -> Result<NodeId, Diagnostic> {
        // SystemDS reads `ifelse`'s arguments by their place once one is unnamed, whatever
        // the names say (`bandit.dml` writes `ifelse(c, a, n = ceil(...))`).
        let by_place: Vec<Arg>;
        let args = if spec.builtin == Builtin::IfElse && args.iter().any(|a| a.name.is_none()) {
            by_place = args
                .iter()
                .map(|a| Arg {
                    name: None,
                    ..a.clone()
                })
                .collect();
            &by_place
        } else {
            args
        };
        let names = spec.param_names();
        let bound = bind_args(spec.name, &names, spec.required(), args, span)?;
        let mut children = Vec::with_capacity(bound.len());
        for (arg, param) in bound.into_iter().zip(spec.params) {
            match (arg, default_literal(param.default)) {
                (Some(e), _) => children.push(self.expr(e)?),
                (None, Some(lit)) => children.push(self.lit(lit, span)),
                // An optional parameter without a default (seq's incr) ends the list.
                (None, None) => break,
            }
        }
        // `Dag::add` keeps unseeded random calls apart.
        Ok(self.dag.add(Op::Builtin(spec.builtin), children, span))
    }

    /// `table(A, B)`, `table(A, B, W)`, `table(A, B, odim1, odim2)`,
    /// `table(A, B, W, odim1, odim2)` and `table(A, B, W, odim1, odim2, outputEmptyBlocks)`,
    /// the dimensions also as `odim1=`/`odim2=`: a `Builtin::Table` node with children A,
    /// B, W, odim1, odim2 (weights 1 and dimensions -1, taken from the data, when not
    /// given). `outputEmptyBlocks` only shapes SystemDS's distributed blocks, so it is
    /// accepted and has no effect here.
    fn table(&mut self, args: &[Arg], span: Span) -> Result<NodeId, Diagnostic> {
        let spec = builtins::spec(Builtin::Table);
        let mut params = spec.param_names();
        params.push("outputEmptyBlocks");
        let positional: Vec<&Expr> = args
            .iter()
            .filter(|a| a.name.is_none())
            .map(|a| &a.value)
            .collect();
        let mut slots: [Option<&Expr>; 6] = [None; 6];
        let order: &[usize] = match positional.len() {
            2 => &[0, 1],
            3 => &[0, 1, 2],
            4 => &[0, 1, 3, 4],
            5 => &[0, 1, 2, 3, 4],
            6 => &[0, 1, 2, 3, 4, 5],
            n => {
                return Err(Diagnostic::new(
                    format!("`table` takes 2 to 6 positional arguments (A, B[, weights][, odim1, odim2][, outputEmptyBlocks]), got {n}"),
                    span,
                ))
            }
        };
        for (&slot, e) in order.iter().zip(&positional) {
            slots[slot] = Some(e);
        }
        for arg in args {
            let Some(name) = &arg.name else { continue };
            let Some(k) = params.iter().position(|p| p == name) else {
                return Err(Diagnostic::new(
                    format!(
                        "`table` has no parameter `{name}` (it has: {})",
                        params.join(", ")
                    ),
                    arg.value.span,
                ));
            };
            if slots[k].replace(&arg.value).is_some() {
                return Err(Diagnostic::new(
                    format!("parameter `{name}` of `table` is given twice"),
                    arg.value.span,
                ));
            }
        }
        let mut children = Vec::with_capacity(spec.params.len());
        for (slot, param) in slots.iter().zip(spec.params) {
            children.push(match (slot, default_literal(param.default)) {
                (Some(e), _) => self.expr(e)?,
                (None, Some(lit)) => self.lit(lit, span),
                (None, None) => {
                    return Err(Diagnostic::new(
                        format!("missing argument `{}` of `table`", param.name),
                        span,
                    ))
                }
            });
        }
        Ok(self.dag.add(Op::Builtin(Builtin::Table), children, span))
    }

    /// `cdf`/`icdf` and their shorthands (`pnorm`, `qchisq`, ...): a `Builtin::Cdf` or
    /// `Builtin::Icdf` node whose children are the builtin's parameters in order, with the
    /// shorthand's distribution and the defaults filled in.
    fn distribution(&mut self, name: &str, args: &[Arg], span: Span) -> Result<NodeId, Diagnostic> {
        let (builtin, dist, params) = distribution_signature(name).expect("checked by caller");
        let required = if dist.is_none() { 2 } else { 1 };
        let bound = bind_args(name, &params, required, args, span)?;
        let slots = builtins::spec(builtin).params;
        let mut children = Vec::with_capacity(slots.len());
        for slot in slots {
            let given = params
                .iter()
                .position(|p| *p == slot.name)
                .and_then(|k| bound[k]);
            children.push(match (given, slot.name, dist) {
                (Some(e), _, _) => self.expr(e)?,
                (None, "dist", Some(d)) => self.lit(Literal::Str(d.to_string()), span),
                (None, _, _) => {
                    let default = default_literal(slot.default).expect("every slot has one");
                    self.lit(default, span)
                }
            });
        }
        Ok(self.dag.add(Op::Builtin(builtin), children, span))
    }

    /// `[a, b] = NAME(...)` for a builtin returning several values (`eigen`, `remove`): the
    /// builtin's node, whose results `Op::Extract` nodes read.
    fn multi_return_builtin(
        &mut self,
        name: &str,
        args: &[Arg],
        span: Span,
    ) -> Result<Option<(NodeId, usize)>, Diagnostic> {
        let Some(spec) = builtins::by_name(name).filter(|spec| spec.results.len() > 1) else {
            return Ok(None);
        };
        let builtin = spec.builtin;
        let bound = bind_args(name, &spec.param_names(), spec.required(), args, span)?;
        // An omitted optional parameter ends the list (`lstm_backward` without caches), so
        // one given after it would be lost: that is an error.
        let params = spec.param_names();
        if let Some(gap) = bound.iter().position(Option::is_none) {
            if let Some(later) = (gap..bound.len()).find(|&k| bound[k].is_some()) {
                return Err(Diagnostic::new(
                    format!(
                        "`{name}`: `{}` is given but `{}` is not; give both or neither",
                        params[later], params[gap]
                    ),
                    span,
                ));
            }
        }
        let children = bound
            .into_iter()
            .map_while(|e| e.map(|e| self.expr(e)))
            .collect::<Result<Vec<_>, _>>()?;
        let node = self.dag.add(Op::Builtin(builtin), children, span);
        Ok(Some((node, builtin.outputs())))
    }

    /// `ifdef($name, default)`: the command-line argument when given, else the default.
    /// `exists(X)` or `exists("X")`: true for a variable assigned earlier in the block;
    /// else asked of the variables bound when the block runs (SystemDS probes its symbol
    /// table the same way, without reading the variable).
    fn exists(&mut self, args: &[Arg], span: Span) -> Result<NodeId, Diagnostic> {
        let [arg] = args else {
            return Err(Diagnostic::new(
                "`exists` takes one variable name (`exists(X)` or `exists(\"X\")`)",
                span,
            ));
        };
        let name = match &arg.value.kind {
            ExprKind::Var(name) | ExprKind::Str(name) => name.clone(),
            _ => {
                return Err(Diagnostic::new(
                    "the argument of `exists` must be a variable or its name as a string",
                    arg.value.span,
                ))
            }
        };
        if self.env.contains_key(&name) {
            return Ok(self.lit(Literal::Bool(true), span));
        }
        let name = self.lit(Literal::Str(name), arg.value.span);
        Ok(self.dag.add(Op::Builtin(Builtin::Exists), vec![name], span))
    }

    fn ifdef(&mut self, args: &[Arg], span: Span) -> Result<NodeId, Diagnostic> {
        let [arg, default] = args else {
            return Err(Diagnostic::new(
                "`ifdef` takes a `$name` and a default value",
                span,
            ));
        };
        let ExprKind::CmdArg(name) = &arg.value.kind else {
            return Err(Diagnostic::new(
                "the first argument of `ifdef` must be a `$name`",
                arg.value.span,
            ));
        };
        match self.ctx.args.get(name) {
            Some(text) => Ok(self.lit(parse_cmd_arg(text), arg.value.span)),
            None => self.expr(&default.value),
        }
    }
}

/// Whether a call of `name` is a native builtin without an effect (so a statement whose
/// value nothing reads need not run it). Names it does not know count as function calls.
pub fn pure_native(name: &str) -> bool {
    builtins::by_name(name).is_some_and(|spec| !spec.effect)
        || operator_builtin(name).is_some()
        || matches!(
            name,
            "min"
                | "max"
                | "pmin"
                | "pmax"
                | "log"
                | "xor"
                | "as.scalar"
                | "castAsScalar"
                | "compress"
                | "decompress"
                | "ifdef"
                | "exists"
        )
}

/// The builtins that are one operator of the DAG (a transpose, an element-wise function
/// or an aggregate) over one argument.
fn operator_builtin(name: &str) -> Option<(Op, usize)> {
    let unary = |op| Some((Op::Unary(op), 1));
    let agg = |f, axis| Some((Op::Agg(f, axis), 1));
    match name {
        "t" => Some((Op::Transpose, 1)),
        "exp" => unary(UnaryOp::Exp),
        "sqrt" => unary(UnaryOp::Sqrt),
        "abs" => unary(UnaryOp::Abs),
        "sigmoid" => unary(UnaryOp::Sigmoid),
        "round" => unary(UnaryOp::Round),
        "floor" => unary(UnaryOp::Floor),
        "ceil" | "ceiling" => unary(UnaryOp::Ceil),
        "sign" => unary(UnaryOp::Sign),
        "sin" => unary(UnaryOp::Sin),
        "cos" => unary(UnaryOp::Cos),
        "tan" => unary(UnaryOp::Tan),
        "asin" => unary(UnaryOp::Asin),
        "acos" => unary(UnaryOp::Acos),
        "atan" => unary(UnaryOp::Atan),
        "sinh" => unary(UnaryOp::Sinh),
        "cosh" => unary(UnaryOp::Cosh),
        "tanh" => unary(UnaryOp::Tanh),
        "isNaN" | "isNA" | "is.na" | "is.nan" => unary(UnaryOp::IsNaN),
        "isInf" | "is.infinite" => unary(UnaryOp::IsInf),
        "sum" => agg(AggFn::Sum, Axis::All),
        "mean" | "avg" => agg(AggFn::Mean, Axis::All),
        "rowSums" => agg(AggFn::Sum, Axis::Row),
        "colSums" => agg(AggFn::Sum, Axis::Col),
        "rowMeans" => agg(AggFn::Mean, Axis::Row),
        "colMeans" => agg(AggFn::Mean, Axis::Col),
        "rowMaxs" => agg(AggFn::Max, Axis::Row),
        "colMaxs" => agg(AggFn::Max, Axis::Col),
        "rowMins" => agg(AggFn::Min, Axis::Row),
        "colMins" => agg(AggFn::Min, Axis::Col),
        _ => None,
    }
}

/// `cdf`, `icdf` and their shorthands: the node's builtin, the distribution a shorthand
/// fixes, and the parameters the call accepts.
fn distribution_signature(
    name: &str,
) -> Option<(Builtin, Option<&'static str>, Vec<&'static str>)> {
    let named = |builtin, dist, params: &[&'static str]| (builtin, Some(dist), params.to_vec());
    Some(match name {
        "cdf" | "icdf" => {
            let spec = builtins::by_name(name)?;
            (spec.builtin, None, spec.param_names())
        }
        "pnorm" => named(
            Builtin::Cdf,
            "normal",
            &["target", "mean", "sd", "lower.tail"],
        ),
        "qnorm" => named(Builtin::Icdf, "normal", &["target", "mean", "sd"]),
        "pt" => named(Builtin::Cdf, "t", &["target", "df", "lower.tail"]),
        "qt" => named(Builtin::Icdf, "t", &["target", "df"]),
        "pf" => named(Builtin::Cdf, "f", &["target", "df1", "df2", "lower.tail"]),
        "qf" => named(Builtin::Icdf, "f", &["target", "df1", "df2"]),
        "pchisq" => named(Builtin::Cdf, "chisq", &["target", "df", "lower.tail"]),
        "qchisq" => named(Builtin::Icdf, "chisq", &["target", "df"]),
        "pexp" => named(Builtin::Cdf, "exp", &["target", "rate", "lower.tail"]),
        "qexp" => named(Builtin::Icdf, "exp", &["target", "rate"]),
        _ => return None,
    })
}

/// The literal an omitted argument with `default` takes; `None` when it takes none.
fn default_literal(default: ArgDefault) -> Option<Literal> {
    Some(match default {
        ArgDefault::Required | ArgDefault::Absent => return None,
        ArgDefault::Double(v) => Literal::Double(v),
        ArgDefault::Int(v) => Literal::Int(v),
        ArgDefault::Bool(v) => Literal::Bool(v),
        ArgDefault::Str(v) => Literal::Str(v.to_string()),
    })
}

/// Matches call arguments to parameter names: a positional one to the parameter at its
/// place in the call, a named one by its name.
fn bind_args<'e>(
    function: &str,
    params: &[&str],
    required: usize,
    args: &'e [Arg],
    span: Span,
) -> Result<Vec<Option<&'e Expr>>, Diagnostic> {
    let mut bound: Vec<Option<&Expr>> = vec![None; params.len()];
    // A positional argument binds the parameter at its own place in the call, also after
    // named ones (SystemDS: `f(1, 2, C=3, D=4, 5)` gives the fifth parameter 5).
    for (slot, arg) in args.iter().enumerate() {
        let slot = match &arg.name {
            None => {
                if slot >= params.len() {
                    return Err(Diagnostic::new(
                        format!("`{function}` takes at most {} arguments", params.len()),
                        arg.value.span,
                    ));
                }
                slot
            }
            Some(name) => params.iter().position(|p| p == name).ok_or_else(|| {
                Diagnostic::new(
                    format!(
                        "`{function}` has no parameter `{name}` (it has: {})",
                        params.join(", ")
                    ),
                    arg.value.span,
                )
            })?,
        };
        if bound[slot].replace(&arg.value).is_some() {
            return Err(Diagnostic::new(
                format!(
                    "parameter `{}` of `{function}` is given twice",
                    params[slot]
                ),
                arg.value.span,
            ));
        }
    }
    if let Some(missing) = (0..required).find(|&k| bound[k].is_none()) {
        return Err(Diagnostic::new(
            format!("missing argument `{}` of `{function}`", params[missing]),
            span,
        ));
    }
    Ok(bound)
}

/// Whether an expression reads a variable (a parameter default such as `ncol(X)` must
/// then be evaluated in the callee; `NaN`, `Inf` and `pi` are constants).
fn mentions_variables(e: &Expr) -> bool {
    e.any(&|x| matches!(&x.kind, ExprKind::Var(name) if !matches!(name.as_str(), "NaN" | "Inf" | "pi")))
}

/// Types a command-line value as SystemDS does: integer, double, boolean, else string.
fn parse_cmd_arg(text: &str) -> Literal {
    // SystemDS reads `max= 5` (a space after the `=`, as its own tests pass it) as 5.
    let word = text.trim();
    if let Ok(v) = word.parse::<i64>() {
        Literal::Int(v)
    } else if let Ok(v) = word.parse::<f64>() {
        Literal::Double(v)
    } else if word == "TRUE" || word == "FALSE" {
        Literal::Bool(word == "TRUE")
    } else {
        Literal::Str(text.to_string())
    }
}

/// `(a < b) == 0` and the like: SystemDS rewrites a comparison compared equal to 0 into
/// the complementary comparison (`a >= b`) before it runs anything, for scalars and
/// matrices alike, so a NaN cell then compares false where the written form gives true.
/// Scripts rely on it (imputeByMode's `(X < 1) == 0` drops NaN rows), so the lowering
/// does the same: the complementary operator and the comparison's operands.
fn complemented_comparison<'e>(
    op: ast::BinaryOp,
    lhs: &'e Expr,
    rhs: &'e Expr,
) -> Option<(BinaryOp, &'e Expr, &'e Expr)> {
    use ast::BinaryOp as B;
    let is_zero =
        matches!(rhs.kind, ExprKind::Int(0)) || matches!(rhs.kind, ExprKind::Double(v) if v == 0.0);
    if op != B::Eq || !is_zero {
        return None;
    }
    let ExprKind::Binary {
        op: inner,
        lhs: a,
        rhs: b,
    } = &lhs.kind
    else {
        return None;
    };
    let complement = match inner {
        B::Lt => BinaryOp::Ge,
        B::Le => BinaryOp::Gt,
        B::Gt => BinaryOp::Le,
        B::Ge => BinaryOp::Lt,
        B::Eq => BinaryOp::Ne,
        B::Ne => BinaryOp::Eq,
        _ => return None,
    };
    Some((complement, a, b))
}

fn binary_op(op: ast::BinaryOp) -> BinaryOp {
    match op {
        ast::BinaryOp::Add => BinaryOp::Add,
        ast::BinaryOp::Sub => BinaryOp::Sub,
        ast::BinaryOp::Mul => BinaryOp::Mul,
        ast::BinaryOp::Div => BinaryOp::Div,
        ast::BinaryOp::Pow => BinaryOp::Pow,
        ast::BinaryOp::Mod => BinaryOp::Mod,
        ast::BinaryOp::IntDiv => BinaryOp::IntDiv,
        ast::BinaryOp::Eq => BinaryOp::Eq,
        ast::BinaryOp::Ne => BinaryOp::Ne,
        ast::BinaryOp::Lt => BinaryOp::Lt,
        ast::BinaryOp::Le => BinaryOp::Le,
        ast::BinaryOp::Gt => BinaryOp::Gt,
        ast::BinaryOp::Ge => BinaryOp::Ge,
        ast::BinaryOp::And => BinaryOp::And,
        ast::BinaryOp::Or => BinaryOp::Or,
        ast::BinaryOp::MatMul => unreachable!("%*% is lowered to Op::MatMul"),
    }
}
