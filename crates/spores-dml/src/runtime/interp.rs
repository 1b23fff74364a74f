//! The interpreter: runs control flow and hands each basic block, as one DAG, to the
//! optimizer and then to the evaluator.

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::ops::Range;
use std::rc::Rc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use spores_exec::io::Format;
use spores_exec::{DenseMatrix, Matrix};
use spores_lang::ast::{Expr, Param, Program, Stmt, StmtKind, TypeSpec};
use spores_lang::diag::{Diagnostic, Span};

use super::args::OpResult;
use super::compiler::{BlockCompiler, BlockKey};
use super::env::Env;
use super::error::RuntimeError;
use super::library::{Library, UnitId, MAIN_UNIT};
use super::liveness::{Live, Liveness};
use super::ops::{self, EffectContext, ReadRequest};
use super::options::RunOptions;
use super::relational::run_relational;
use super::stats::{BlockStats, Stats};
use super::value::Value;
use crate::dag::{
    dead, explain, explain_dot, lower_block, lower_expr, BlockDag, Builtin, FunctionScope,
    LowerContext, Node, NodeId, Op,
};

/// The message of the error a run stops with when [`RunOptions::cancel`] is set.
pub const INTERRUPTED: &str = "interrupted";

/// How deep user functions may recurse before the run stops with an error: calls nested
/// in the outermost one, so `f(10000)` recursing down to `f(0)` runs. A level takes about
/// 18 KB of stack in a debug build and 4 KB in a release build (measured on
/// `r = 1 + f(n - 1)`), so 10,000 take about 180 MB of the stack a run gets
/// ([`crate::STACK_BYTES`]).
const MAX_CALL_DEPTH: usize = 10_000;

pub struct Interpreter<'w> {
    /// The script's functions and those of the files it sources or calls as builtins.
    library: Library,
    /// The file whose code is running (its functions and namespaces are in scope).
    unit: UnitId,
    /// Whether a statement calls a DML function, by the statement's address.
    calls_a_function: HashMap<usize, bool>,
    /// What each statement leaves for later statements (and the caller) to read.
    liveness: Liveness,
    options: RunOptions,
    out: &'w mut dyn Write,
    /// Lowered, optimized and planned blocks.
    compiler: BlockCompiler,
    /// Blocks whose plan was printed for `--explain`.
    explained: HashSet<BlockKey>,
    /// Optimizer notes waiting to be printed with the block's `--explain` output.
    pending_notes: HashMap<BlockKey, String>,
    /// Files read ahead of their `read` nodes by [`Interpreter::prefetch_reads`], each
    /// taken (removed) by the first `read` node that asks for the same request.
    prefetched: Vec<(ReadRequest, OpResult)>,
    next_seed: u64,
    call_depth: usize,
    /// How often a block run now will run from here on, as far as known: the product of
    /// the trip counts of the `for` loops running (1 outside them; a `while` loop's is
    /// unknown and counts 1). The optimizer budgets a search by it.
    runs_ahead: u64,
    start: Instant,
    pub stats: Stats,
}

impl<'w> Interpreter<'w> {
    pub fn new(program: &Program, options: RunOptions, out: &'w mut dyn Write) -> Self {
        let library = Library::new(
            program,
            options.script_dir.clone(),
            options.builtins.clone(),
        );
        let start = Instant::now();
        Interpreter {
            library,
            unit: MAIN_UNIT,
            calls_a_function: HashMap::new(),
            liveness: Liveness::default(),
            options,
            out,
            compiler: BlockCompiler::default(),
            explained: HashSet::new(),
            pending_notes: HashMap::new(),
            prefetched: Vec::new(),
            next_seed: super::seed::fresh_seed(),
            runs_ahead: 1,
            call_depth: 0,
            start,
            stats: Stats::default(),
        }
    }

    /// Runs the program's top-level statements; returns the final variables.
    pub fn run(&mut self, program: &Program) -> Result<HashMap<String, Value>, Diagnostic> {
        self.run_with(program, Env::new())
    }

    /// Runs the program with `inputs` bound as variables before its first statement (how
    /// embedders hand in data without files); returns the final variables.
    pub fn run_with(
        &mut self,
        program: &Program,
        inputs: HashMap<String, Value>,
    ) -> Result<HashMap<String, Value>, Diagnostic> {
        self.library.load_main_sources(program)?;
        self.liveness
            .analyse(&program.body, &self.options.read_after);
        let mut env = inputs;
        let result = self.exec_stmts(&program.body, &mut env);
        self.stats.optimize_times = self.options.optimizer.block_times();
        result.map(|()| env)
    }

    fn exec_stmts(&mut self, stmts: &[Stmt], env: &mut Env) -> Result<(), Diagnostic> {
        let mut i = 0;
        while i < stmts.len() {
            match &stmts[i].kind {
                StmtKind::If {
                    cond,
                    then_branch,
                    else_branch,
                } => {
                    if self.condition(cond, env)? {
                        self.exec_stmts(then_branch, env)?;
                    } else {
                        self.exec_stmts(else_branch, env)?;
                    }
                    i += 1;
                }
                StmtKind::While { cond, body } => {
                    while self.condition(cond, env)? {
                        self.exec_stmts(body, env)?;
                    }
                    i += 1;
                }
                StmtKind::For { .. } => {
                    self.exec_for(&stmts[i], env)?;
                    i += 1;
                }
                _ => {
                    let reads = read_run(stmts, i);
                    if reads >= 2 {
                        // Each read statement is a block of its own (see `block_end`).
                        self.prefetch_reads(&stmts[i..i + reads]);
                        let result =
                            (i..i + reads).try_for_each(|k| self.exec_block(stmts, k..k + 1, env));
                        self.prefetched.clear();
                        result?;
                        i += reads;
                        continue;
                    }
                    let end = self.block_end(stmts, i);
                    self.exec_block(stmts, i..end, env)?;
                    i = end;
                }
            }
        }
        Ok(())
    }

    /// A `for` (or `parfor`, run in order) loop `stmt`: its bounds are evaluated once.
    fn exec_for(&mut self, stmt: &Stmt, env: &mut Env) -> Result<(), Diagnostic> {
        let StmtKind::For {
            var,
            from,
            to,
            by,
            body,
            ..
        } = &stmt.kind
        else {
            return Err(Diagnostic::new("internal error: not a for loop", stmt.span));
        };
        let (by, span) = (by.as_ref(), stmt.span);
        let from_v = self.scalar(from, env)?;
        let to_v = self.scalar(to, env)?;
        let by_v = by.map(|b| self.scalar(b, env)).transpose()?;
        let number = |v: &Value, e: &Expr| {
            v.as_f64().ok_or_else(|| {
                Diagnostic::new(
                    format!("loop bound must be a number, got a {}", v.type_name()),
                    e.span,
                )
            })
        };
        let (a, b) = (number(&from_v, from)?, number(&to_v, to)?);
        for (bound, e) in [(a, from), (b, to)] {
            if !bound.is_finite() {
                return Err(Diagnostic::new(
                    format!(
                        "loop bound must be a finite number, got {}",
                        crate::number::format_double(bound)
                    ),
                    e.span,
                ));
            }
        }
        let incr = match (&by_v, by) {
            (Some(v), Some(e)) => number(v, e)?,
            _ if java_long(a) <= java_long(b) => 1.0,
            _ => -1.0,
        };
        // As SystemDS's `ForProgramBlock`: the doubles only decide whether the loop runs
        // at all; it then counts in 64-bit integers from the bounds truncated toward zero
        // (`for (k in 0.5:2)` runs k = 0, 1, 2), so the variable is always an integer,
        // exact at any size.
        if !incr.is_finite() || (a > b && incr > 0.0) || (a < b && incr < 0.0) {
            return Ok(());
        }
        let (first, last) = match (&from_v, &to_v) {
            (Value::Int(f), Value::Int(l)) => (*f, *l),
            _ => (java_long(a), java_long(b)),
        };
        let step = match &by_v {
            Some(Value::Int(s)) => *s,
            _ => java_long(incr),
        };
        if step == 0 {
            return Err(Diagnostic::new(
                format!(
                    "loop increment must be a non-zero integer, got {}",
                    crate::number::format_double(incr)
                ),
                span,
            ));
        }
        let trips = (i128::from(last) - i128::from(first)) / i128::from(step) + 1;
        let outer = self.enter_loop(u64::try_from(trips.max(0)).unwrap_or(u64::MAX));
        let mut x = first;
        let mut result = Ok(());
        while (step > 0 && x <= last) || (step < 0 && x >= last) {
            env.insert(var.to_string(), Value::Int(x));
            result = self.exec_stmts(body, env);
            if result.is_err() {
                break;
            }
            match x.checked_add(step) {
                Some(next) => x = next,
                None => break,
            }
        }
        self.runs_ahead = outer;
        result
    }

    /// Enters a loop of `trips` iterations: blocks run from now on run that many times
    /// more often. Returns the count to restore when the loop ends.
    fn enter_loop(&mut self, trips: u64) -> u64 {
        let outer = self.runs_ahead;
        self.runs_ahead = outer.saturating_mul(trips.max(1));
        outer
    }

    fn condition(&mut self, cond: &Expr, env: &mut Env) -> Result<bool, Diagnostic> {
        let v = self.scalar(cond, env)?;
        let v = match &v {
            Value::Matrix(m) => m.as_scalar().map(Value::Double).unwrap_or(v),
            _ => v,
        };
        v.as_bool().ok_or_else(|| {
            Diagnostic::new(
                format!(
                    "condition must be a boolean or a number, got a {}",
                    v.type_name()
                ),
                cond.span,
            )
        })
    }

    /// Evaluates a condition or loop bound.
    fn scalar(&mut self, expr: &Expr, env: &mut Env) -> Result<Value, Diagnostic> {
        let key = BlockKey::of_expression(expr);
        let block = self.compile(key, env, |ctx| lower_expr(expr, ctx))?;
        let mut results = self.eval_block(&block, env, key)?;
        Ok(results.remove(0))
    }

    /// Reads the files of a run of `x = read(...)` statements (see [`read_run`])
    /// concurrently, before their blocks run one after the other: each read is parallel
    /// inside, but its set-up and tail are serial, and three files read in turn leave a
    /// core idle at each of those. Only reads whose arguments lower to constants (string
    /// literals, `$args`) are prefetched; the blocks still run in order, each `read` node
    /// taking its result (or its error, reported at that node as before) from
    /// `self.prefetched`. Nothing else runs between the statements of the run, so no
    /// `write` can change a file between the prefetch and the read it stands for.
    /// Whether a `read` leaves its file unread (a [`Value::File`]): Parquet files, when
    /// a relational engine may scan them.
    fn defers(&self, request: &ReadRequest) -> bool {
        self.options.engine.is_some() && request.format == Format::Parquet
    }

    /// [`Interpreter::defers`] for the arguments of a `read` node.
    fn defers_read(&self, args: &[Value]) -> bool {
        ReadRequest::from_args(args).is_ok_and(|request| self.defers(&request))
    }

    fn prefetch_reads(&mut self, stmts: &[Stmt]) {
        let started = Instant::now();
        let scope = self.library.scope(self.unit);
        let ctx = LowerContext {
            functions: &scope,
            args: &self.options.args,
        };
        let requests: Vec<ReadRequest> = stmts
            .iter()
            .filter_map(|stmt| {
                let StmtKind::Assign { value, .. } = &stmt.kind else {
                    return None;
                };
                let lowered = lower_expr(value, &ctx).ok()?;
                let dag = &lowered.dag;
                let root = &dag.nodes()[lowered.outputs[0].1];
                if root.op != Op::Builtin(Builtin::Read) {
                    return None;
                }
                let args: Vec<Value> = root
                    .children
                    .iter()
                    .map(|&c| match &dag.nodes()[c].op {
                        Op::Literal(l) => Some(ops::literal(l)),
                        _ => None,
                    })
                    .collect::<Option<_>>()?;
                ReadRequest::from_args(&args)
                    .ok()
                    .filter(|request| !self.defers(request))
            })
            .collect();
        if requests.len() < 2 {
            return;
        }
        use rayon::prelude::*;
        let results: Vec<OpResult> = requests.par_iter().map(ReadRequest::run).collect();
        self.prefetched = requests.into_iter().zip(results).collect();
        // The time is the reads' (counted once, not per file); each `read` node then adds
        // its count and the moment it takes to hand over its result.
        self.stats
            .ops
            .entry(Op::Builtin(Builtin::Read).name().to_string())
            .or_default()
            .0 += started.elapsed();
    }

    /// Runs statements `range` of `list` as one basic block. A value nothing reads
    /// afterwards is not an output: it is computed only as far as the block's other
    /// outputs and effects need it, which lets the optimizer fuse it away (`UV = U %*%
    /// t(V); R = X * f(UV)` never forms the dense `UV`). An assignment nothing reads at
    /// all does not run, as in SystemDS, whose scripts rely on it (`steplm` slices column
    /// 0 of a matrix on a path that never reads the slice); it is still lowered, so what
    /// is wrong in it before it runs (an unknown function, shapes that cannot agree) is
    /// still reported.
    fn exec_block(
        &mut self,
        list: &[Stmt],
        range: Range<usize>,
        env: &mut Env,
    ) -> Result<(), Diagnostic> {
        let stmts = &list[range.clone()];
        if let Some(cancel) = &self.options.cancel {
            if cancel.load(Ordering::Relaxed) {
                return Err(Diagnostic::new(INTERRUPTED, stmts[0].span));
            }
        }
        let live = self
            .liveness
            .after(list, range.end - 1)
            .cloned()
            .unwrap_or(Live::All);
        let key = BlockKey::of_statements(stmts);
        let block = self.compile(key, env, |ctx| {
            let mut block = lower_block(stmts, ctx)?;
            let (kept, dropped): (Vec<_>, Vec<_>) = std::mem::take(&mut block.outputs)
                .into_iter()
                .partition(|(name, _)| live.contains(name));
            block.outputs = kept;
            let dropped: Vec<NodeId> = dropped.into_iter().map(|(_, id)| id).collect();
            let inputs = super::env::input_meta(&block, env);
            if let Some((span, e)) = dead::shape_error_in_dropped(&block, &dropped, &inputs) {
                return Err(at(e, span));
            }
            Ok(block)
        })?;
        let results = self.eval_block(&block, env, key)?;
        for ((name, _), value) in block.outputs.iter().zip(results) {
            env.insert(name.clone(), value);
        }
        Ok(())
    }

    /// Compiles a block for the current inputs ([`BlockCompiler::compile`]), with its
    /// statistics and `--explain` notes.
    fn compile(
        &mut self,
        key: BlockKey,
        env: &Env,
        lower: impl FnOnce(&LowerContext) -> Result<BlockDag, Diagnostic>,
    ) -> Result<Rc<BlockDag>, Diagnostic> {
        let started = Instant::now();
        let scope = self.library.scope(self.unit);
        let ctx = LowerContext {
            functions: &scope,
            args: &self.options.args,
        };
        let compiled = self
            .compiler
            .compile(key, env, &self.options, self.runs_ahead, || lower(&ctx))?;
        if compiled.lowered_now {
            self.stats.blocks_compiled += 1;
        }
        let block_stats = self.block_stats(key, compiled.span);
        block_stats.optimize += compiled.optimize_time;
        block_stats.runs += 1;
        if let Some(notes) = compiled.new_notes {
            self.pending_notes.insert(key, notes);
        }
        self.stats.compile += started.elapsed();
        Ok(compiled.plan)
    }

    /// Evaluates the nodes a block needs in id order (which keeps effects in statement
    /// order), dropping each intermediate as soon as its last consumer has run. Returns
    /// the values of `block.outputs`, in order.
    fn eval_block(
        &mut self,
        block: &BlockDag,
        env: &Env,
        key: BlockKey,
    ) -> Result<Vec<Value>, Diagnostic> {
        let started = Instant::now();
        let result = self.eval_block_untimed(block, env, key);
        self.block_stats(key, block.span).execute += started.elapsed();
        result
    }

    /// The `--stats` entry of a block, created (with its `file:line`) on first use.
    fn block_stats(&mut self, key: BlockKey, span: Span) -> &mut BlockStats {
        let unit = self.unit;
        let library = &self.library;
        self.stats.blocks.entry(key).or_insert_with(|| {
            if unit == MAIN_UNIT {
                return BlockStats {
                    main_offset: Some(span.start),
                    ..BlockStats::default()
                };
            }
            let file = library.file(unit);
            let (line, _) = spores_lang::diag::line_col(&file.text, span.start);
            let name = file
                .name
                .rsplit('/')
                .next()
                .unwrap_or(&file.name)
                .to_string();
            BlockStats {
                place: format!("{name}:{line}"),
                ..BlockStats::default()
            }
        })
    }

    fn eval_block_untimed(
        &mut self,
        block: &BlockDag,
        env: &Env,
        key: BlockKey,
    ) -> Result<Vec<Value>, Diagnostic> {
        let dag = &block.dag;
        let needed = dag.reachable(block.roots());
        let mut uses = vec![0usize; dag.len()];
        for (id, node) in dag.nodes().iter().enumerate() {
            if needed[id] {
                for &c in &node.children {
                    uses[c] += 1;
                }
            }
        }
        for root in block.roots() {
            uses[root] += 1;
        }
        let explain_now = self.options.explain
            && (self.explained.insert(key) || self.pending_notes.contains_key(&key));
        let mut notes = vec![String::new(); if explain_now { dag.len() } else { 0 }];
        let mut values: Vec<Option<Value>> = vec![None; dag.len()];
        let mut call_results: HashMap<usize, Vec<Value>> = HashMap::new();
        let suggest_engine = cfg!(feature = "datafusion") && self.options.engine.is_none();
        for (id, node) in dag.nodes().iter().enumerate() {
            if !needed[id] {
                continue;
            }
            let args: Vec<Value> = node
                .children
                .iter()
                .map(|&c| values[c].clone().expect("children are evaluated first"))
                .collect();
            // A matrix still in its file is read for every operator but the relational
            // engine's subgraphs (which scan it) and calls (whose blocks decide).
            let args = if matches!(node.op, Op::Relational(_) | Op::Call { .. }) {
                args
            } else {
                args.into_iter()
                    .map(Value::loaded)
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|e| runtime_at(e, node.span, suggest_engine))?
            };
            let op_started = Instant::now();
            let value = self.eval_node(id, node, args, env, &mut call_results)?;
            if !matches!(
                node.op,
                Op::Input(_) | Op::Literal(_) | Op::Call { .. } | Op::Extract(_)
            ) {
                self.stats.record(&node.op.name(), op_started.elapsed());
            }
            for &c in &node.children {
                uses[c] -= 1;
                if uses[c] == 0 {
                    values[c] = None;
                    call_results.remove(&c);
                }
            }
            if explain_now {
                notes[id] = describe(&value);
            }
            values[id] = Some(value);
        }
        if explain_now {
            self.print_explanation(block, &notes, key);
        }
        Ok(block
            .outputs
            .iter()
            .map(|(_, id)| values[*id].clone().expect("outputs are evaluated"))
            .collect())
    }

    /// One node's value from its arguments' (a call's or multi-output builtin's results
    /// go to `call_results`, read back by `Op::Extract`).
    fn eval_node(
        &mut self,
        id: NodeId,
        node: &Node,
        args: Vec<Value>,
        env: &Env,
        call_results: &mut HashMap<usize, Vec<Value>>,
    ) -> Result<Value, Diagnostic> {
        let suggest_engine = cfg!(feature = "datafusion") && self.options.engine.is_none();
        Ok(match &node.op {
            Op::Input(name) => env.get(name).cloned().ok_or_else(|| {
                Diagnostic::new(
                    format!("variable `{name}` is used before it is assigned"),
                    node.span,
                )
            })?,
            Op::Call { name, deferred, .. } => {
                let results = self.call(name, args, deferred, node.span)?;
                call_results.insert(id, results);
                Value::Int(0)
            }
            Op::Builtin(Builtin::Eval) => {
                let (name, results, _) = self.eval_by_name(args, node.span)?;
                results.into_iter().next().ok_or_else(|| {
                    Diagnostic::new(format!("eval: `{name}` returns no value"), node.span)
                })?
            }
            // Named by the function's results, as SystemDS names them, so that the
            // list can be passed on to a function taking those names (executePipeline).
            Op::Builtin(Builtin::EvalList) => {
                let (_, results, names) = self.eval_by_name(args, node.span)?;
                Value::List(std::sync::Arc::new(super::value::ListValue {
                    names: names.into_iter().map(Some).collect(),
                    items: results,
                }))
            }
            Op::Builtin(Builtin::Exists) => match args.first() {
                Some(Value::Str(name)) => Value::Bool(env.contains_key(name.as_ref())),
                _ => {
                    return Err(Diagnostic::new(
                        "internal error: `exists` without a name",
                        node.span,
                    ))
                }
            },
            Op::Builtin(Builtin::TransformEncode) => {
                let (x, meta, udf) = super::frame::builtins::transform_encode_then_udf(&args)
                    .map_err(|e| runtime_at(e, node.span, suggest_engine))?;
                let x = self.transform_udf(x, udf, node.span)?;
                call_results.insert(
                    id,
                    vec![Value::matrix(x), Value::Frame(std::sync::Arc::new(meta))],
                );
                Value::Int(0)
            }
            Op::Builtin(Builtin::TransformApply) => {
                let (x, udf) = super::frame::builtins::transform_apply_then_udf(&args)
                    .map_err(|e| runtime_at(e, node.span, suggest_engine))?;
                Value::matrix(self.transform_udf(x, udf, node.span)?)
            }
            Op::Builtin(b) if b.outputs() > 1 => {
                let results = super::native::eval_multi(*b, &args)
                    .map_err(|e| runtime_at(e, node.span, suggest_engine))?;
                call_results.insert(id, results);
                Value::Int(0)
            }
            Op::Extract(k) => call_results[&node.children[0]][*k].clone(),
            Op::Relational(root) => {
                let engine = self.options.engine.as_deref().ok_or_else(|| {
                    Diagnostic::new("internal error: no relational engine", node.span)
                })?;
                run_relational(engine, root, &args).map_err(|e| at(e, node.span))?
            }
            Op::Guarded(guard) => {
                let planning = super::guard::Planning {
                    sized: self.options.sized_planning,
                    fuse: self.options.fuse_elementwise,
                    explain: self.options.explain,
                };
                let mut fx = EffectContext {
                    out: &mut *self.out,
                    next_seed: &mut self.next_seed,
                    start: self.start,
                };
                super::guard::run_guarded(guard, args, &planning, &mut fx)
                    .map_err(|e| runtime_at(e, node.span, suggest_engine))?
            }
            Op::Builtin(Builtin::Read) if self.defers_read(&args) => ReadRequest::from_args(&args)
                .and_then(|request| request.open_file())
                .map_err(|e| at(e, node.span))?,
            Op::Builtin(Builtin::Read) if !self.prefetched.is_empty() => {
                let taken = ReadRequest::from_args(&args).ok().and_then(|request| {
                    let k = self.prefetched.iter().position(|(r, _)| *r == request)?;
                    Some(self.prefetched.swap_remove(k).1)
                });
                match taken {
                    Some(result) => result,
                    None => ops::eval(
                        &node.op,
                        &args,
                        &mut EffectContext {
                            out: &mut *self.out,
                            next_seed: &mut self.next_seed,
                            start: self.start,
                        },
                    ),
                }
                .map_err(|e| at(e, node.span))?
            }
            op => {
                let mut fx = EffectContext {
                    out: &mut *self.out,
                    next_seed: &mut self.next_seed,
                    start: self.start,
                };
                ops::eval(op, &args, &mut fx)
                    .map_err(|e| runtime_at(e, node.span, suggest_engine))?
            }
        })
    }

    /// `--explain`: the block's plan with each node's value, after the optimizer's notes.
    fn print_explanation(&mut self, block: &BlockDag, notes: &[String], key: BlockKey) {
        if self.options.explain_dot {
            let caption = self.pending_notes.remove(&key).unwrap_or_default();
            let _ = write!(self.out, "{}", explain_dot(block, Some(notes), &caption));
        } else {
            let header = format!("--- block ({} nodes) ---", block.dag.len());
            let _ = writeln!(self.out, "{header}");
            if let Some(optimizer_notes) = self.pending_notes.remove(&key) {
                let _ = write!(self.out, "optimized:\n{optimizer_notes}plan:\n");
            }
            let _ = write!(self.out, "{}", explain(block, Some(notes)));
        }
    }

    /// Where the basic block starting at `start` ends: before the next control-flow
    /// statement, or right after a statement that reads a file or calls a DML function.
    /// The splits let the statements after a `read` or a call be compiled, optimized and
    /// planned knowing the shape and sparsity of what was read or returned (SystemDS
    /// recompiles for the same reason).
    fn block_end(&mut self, stmts: &[Stmt], start: usize) -> usize {
        for (k, stmt) in stmts.iter().enumerate().skip(start) {
            match &stmt.kind {
                StmtKind::If { .. } | StmtKind::For { .. } | StmtKind::While { .. } => return k,
                StmtKind::Assign { value, .. }
                | StmtKind::MultiAssign { value, .. }
                | StmtKind::Expr(value)
                    if reads_a_file(value) || self.calls_a_function(stmt) =>
                {
                    return k + 1
                }
                _ => {}
            }
        }
        stmts.len()
    }

    /// Whether the statement calls a DML function (of the script, a sourced file or a
    /// builtin file), found by lowering it alone once: that is how its calls resolve.
    /// A statement that does not lower is left to fail in its block.
    fn calls_a_function(&mut self, stmt: &Stmt) -> bool {
        let key = stmt as *const Stmt as usize;
        if let Some(&calls) = self.calls_a_function.get(&key) {
            return calls;
        }
        let scope = self.library.scope(self.unit);
        let ctx = LowerContext {
            functions: &scope,
            args: &self.options.args,
        };
        let calls = lower_block(std::slice::from_ref(stmt), &ctx).is_ok_and(|block| {
            block
                .dag
                .nodes()
                .iter()
                .any(|n| matches!(n.op, Op::Call { .. }))
        });
        self.calls_a_function.insert(key, calls);
        calls
    }

    /// A transform's encoded matrix after the spec's `udf`: the function called (as `eval`
    /// would, with a one-matrix list) on each listed column's encoded columns, its result
    /// written back in their place, as SystemDS's `ColumnEncoderUDF` does.
    fn transform_udf(
        &mut self,
        x: Matrix,
        udf: Option<super::frame::transform::UdfCall>,
        span: Span,
    ) -> Result<Matrix, Diagnostic> {
        let x = match udf {
            None => x,
            Some(call) => {
                let function = call.function;
                let mut out = x.to_dense();
                for cols in call.columns {
                    spores_exec::memory::ensure_fits(
                        "transform udf",
                        8.0 * (out.rows() * cols.len()) as f64,
                    )
                    .map_err(|e| Diagnostic::new(e.to_string(), span))?;
                    let part = DenseMatrix::from_fn(out.rows(), cols.len(), |i, k| {
                        out.get(i, cols.start + k)
                    });
                    let list = Value::List(std::sync::Arc::new(super::value::ListValue {
                        names: vec![None],
                        items: vec![Value::matrix(Matrix::Dense(part))],
                    }));
                    let (_, results, _) =
                        self.eval_by_name(vec![Value::str(function.as_str()), list], span)?;
                    let result = match results.into_iter().next() {
                        Some(Value::Matrix(m)) => m,
                        other => {
                            return Err(Diagnostic::new(
                                format!(
                                    "transform: the udf `{function}` returned {}, not a matrix",
                                    other.map_or("nothing", |v| v.type_name())
                                ),
                                span,
                            ))
                        }
                    };
                    if result.rows() != out.rows() || result.cols() != cols.len() {
                        return Err(Diagnostic::new(
                            format!(
                                "transform: the udf `{function}` returned a {}x{} matrix for {}x{} encoded cells",
                                result.rows(),
                                result.cols(),
                                out.rows(),
                                cols.len()
                            ),
                            span,
                        ));
                    }
                    for i in 0..out.rows() {
                        for (k, j) in cols.clone().enumerate() {
                            out.set(i, j, result.get(i, k));
                        }
                    }
                }
                Matrix::Dense(out).into_best_format()
            }
        };
        Ok(x)
    }

    /// DML `eval(name, args...)` and `evalList`: calls the function `name` (resolved
    /// from the calling file as a call written there would be) with the values, or with
    /// the elements of one list (named ones bind by name). Parameters left out take
    /// their defaults. Gives the function's name, its results and their names.
    fn eval_by_name(
        &mut self,
        mut args: Vec<Value>,
        span: Span,
    ) -> Result<(String, Vec<Value>, Vec<String>), Diagnostic> {
        let fail = |message: String| Diagnostic::new(message, span);
        let Value::Str(name) = args.remove(0) else {
            return Err(fail(
                "eval: the first argument must be a function name".into(),
            ));
        };
        // The calling file's functions, then the script's (SystemDS looks a name up in
        // the default namespace, so a builtin file's `eval(f)` finds the script's `f`),
        // then the builtins.
        let scope = self.library.scope(self.unit);
        let function = match scope.local(&name, span)? {
            Some(f) => f,
            None => match self.library.scope(MAIN_UNIT).local(&name, span)? {
                Some(f) => f,
                None => scope.builtin(&name, span)?,
            },
        };
        let params = &function.def.params;
        let mut bound: Vec<Option<Value>> = vec![None; params.len()];
        let given: Vec<(Option<String>, Value)> = match args.as_slice() {
            [Value::List(list)] => list
                .names
                .iter()
                .cloned()
                .zip(list.items.iter().cloned())
                .collect(),
            _ => args.into_iter().map(|v| (None, v)).collect(),
        };
        let mut next = 0;
        for (param_name, value) in given {
            let slot = match param_name {
                Some(n) => params
                    .iter()
                    .position(|p| p.name == n)
                    .ok_or_else(|| fail(format!("eval: `{name}` has no parameter `{n}`")))?,
                None => {
                    next += 1;
                    next - 1
                }
            };
            if slot >= params.len() {
                return Err(fail(format!(
                    "eval: `{name}` takes at most {} argument{}",
                    params.len(),
                    if params.len() == 1 { "" } else { "s" }
                )));
            }
            bound[slot] = Some(value);
        }
        let mut deferred = Vec::new();
        let mut values = Vec::with_capacity(params.len());
        for (k, (param, value)) in params.iter().zip(bound).enumerate() {
            match (value, &param.default) {
                (Some(v), _) => values.push(v),
                (None, Some(_)) => {
                    deferred.push(k);
                    values.push(Value::Int(0));
                }
                (None, None) => {
                    return Err(fail(format!(
                        "eval: missing argument `{}` of `{name}`",
                        param.name
                    )))
                }
            }
        }
        let result_names = function
            .def
            .returns
            .iter()
            .map(|r| r.name.clone())
            .collect();
        let results = self.call(&function.key, values, &deferred, span)?;
        Ok((name.to_string(), results, result_names))
    }

    fn call(
        &mut self,
        name: &str,
        args: Vec<Value>,
        deferred: &[usize],
        span: Span,
    ) -> Result<Vec<Value>, Diagnostic> {
        let Some((unit, function)) = self.library.function(name) else {
            return Err(Diagnostic::new(
                format!("internal error: no function `{name}` was loaded"),
                span,
            ));
        };
        let name = &function.name;
        if self.call_depth > MAX_CALL_DEPTH {
            return Err(Diagnostic::new(
                format!("calls nested deeper than {MAX_CALL_DEPTH} levels (runaway recursion in `{name}`?)"),
                span,
            ));
        }
        let mut env = Env::new();
        for (k, (param, value)) in function.params.iter().zip(args).enumerate() {
            if !deferred.contains(&k) {
                env.insert(param.name.clone(), bind_param(param, value, name, span)?);
            }
        }
        self.call_depth += 1;
        let caller = std::mem::replace(&mut self.unit, unit);
        let result = deferred
            .iter()
            .try_for_each(|&k| {
                let param = &function.params[k];
                let default = param
                    .default
                    .as_ref()
                    .expect("deferred parameters have defaults");
                let value = self.scalar(default, &mut env)?;
                env.insert(param.name.clone(), bind_param(param, value, name, span)?);
                Ok(())
            })
            .and_then(|()| {
                let results = function.returns.iter().map(|r| r.name.clone());
                self.liveness.analyse(&function.body, &Live::of(results));
                self.exec_stmts(&function.body, &mut env)
            });
        self.unit = caller;
        self.call_depth -= 1;
        if unit != caller {
            // The error's position is in the callee's file; say where it was called.
            result.map_err(|d| {
                let mut d = d.in_file(&self.library.file(unit));
                let site = (caller != MAIN_UNIT).then(|| self.library.file(caller));
                d.called_from.push((site, span));
                d
            })?;
        } else {
            result?;
        }
        function
            .returns
            .iter()
            .map(|r| {
                env.remove(&r.name).ok_or_else(|| {
                    Diagnostic::new(
                        format!("`{name}` did not assign its return value `{}`", r.name),
                        span,
                    )
                })
            })
            .collect()
    }
}

/// An argument as the parameter takes it: a one-element list passed for a matrix or
/// scalar is its element, an integer passed for a double becomes a double.
fn bind_param(
    param: &Param,
    value: Value,
    function: &str,
    span: Span,
) -> Result<Value, Diagnostic> {
    let value = match (param.ty, value) {
        (TypeSpec::List, v) => v,
        (_, Value::List(l)) if l.items.len() == 1 => l.items[0].clone(),
        (_, v) => v,
    };
    match (param.ty, value) {
        (TypeSpec::Double, Value::Int(i)) => Ok(Value::Double(i as f64)),
        (TypeSpec::Matrix, v) if v.is_scalar() => Err(Diagnostic::new(
            format!(
                "argument `{}` of `{function}` must be a matrix, got a {}",
                param.name,
                v.type_name()
            ),
            span,
        )),
        (_, v) => Ok(v),
    }
}

/// SystemDS's `UtilFunctions.toLong`: toward zero after a nudge of 2^-53 away from it,
/// saturating as Java's `(long)` cast.
fn java_long(v: f64) -> i64 {
    (v.signum() * (v.abs() + f64::EPSILON / 2.0).floor()) as i64
}

/// How many statements from `start` on are `name = read(...)` assignments, one after
/// the other: the run [`Interpreter::prefetch_reads`] reads concurrently.
fn read_run(stmts: &[Stmt], start: usize) -> usize {
    use spores_lang::ast::{AssignTarget, ExprKind};
    stmts[start..]
        .iter()
        .take_while(|stmt| {
            matches!(
                &stmt.kind,
                StmtKind::Assign {
                    target: AssignTarget::Var(_),
                    value: Expr {
                        kind: ExprKind::Call { name, .. },
                        ..
                    },
                } if name == "read"
            )
        })
        .count()
}

fn reads_a_file(e: &Expr) -> bool {
    use spores_lang::ast::ExprKind;
    e.any(&|x| matches!(&x.kind, ExprKind::Call { name, .. } if name == "read"))
}

/// An operator's error as a diagnostic at `span`. With `suggest_engine` (the DataFusion
/// engine is built in and the run uses none), a result over the memory budget says how
/// the script could run anyway.
fn runtime_at(e: impl Into<RuntimeError>, span: Span, suggest_engine: bool) -> Diagnostic {
    let e = e.into();
    let mut diagnostic = at(&e, span);
    if suggest_engine && e.is_over_budget() {
        diagnostic.message.push_str(
            "; with `--engine auto`, the subgraphs too large for memory run on DataFusion",
        );
    }
    diagnostic
}

/// A runtime error as a diagnostic at `span`.
fn at(e: impl std::error::Error, span: Span) -> Diagnostic {
    Diagnostic::new(e.to_string(), span)
}

/// One-line description of a value for `--explain`.
fn describe(v: &Value) -> String {
    match v {
        Value::Matrix(m) => format!(
            "{} {} nnz={}",
            m.shape(),
            if m.is_sparse() { "sparse" } else { "dense" },
            m.nnz()
        ),
        Value::File(f) => format!(
            "{} in {} cells={}",
            f.shape(),
            f.path().display(),
            f.cells()
        ),
        s => s.type_name().to_string(),
    }
}
