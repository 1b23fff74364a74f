//! Which variables a script still reads after each statement: a basic block's output that
//! nothing reads again is not computed. SystemDS's compiler drops such dead assignments
//! too; its weighted-sigmoid test script, `UV = U %*% t(V); R = X * (1/(1 + exp(-UV)))`,
//! would otherwise materialize a dense `UV` that only `R`'s fused operator reads.
//!
//! A backward analysis of *strong* liveness over the statement tree: an assignment
//! kills its target and, when the target is live after it (or its value calls a
//! function, which runs regardless), makes the variables its value reads live; a dead
//! assignment reads nothing, so what only it reads is dead too. A branch joins both
//! arms; a loop's body is analysed until what is live at its end stops growing (the body
//! runs again after itself). User functions have their own scopes, so a call reads only
//! its arguments; a function body ends with its results live.

use std::collections::{HashMap, HashSet};

use spores_lang::ast::{AssignTarget, Expr, ExprKind, Index, Stmt, StmtKind};

use crate::dag::pure_native;

/// Variables that may still be read at a point of the script.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Live {
    /// Any variable: what the caller of a script reads afterwards is not known (the
    /// Python bindings return every variable a script leaves).
    All,
    These(HashSet<String>),
}

impl Live {
    /// No variable: nothing reads the variables a script leaves (`spores run`).
    pub fn none() -> Live {
        Live::These(HashSet::new())
    }

    /// Exactly `names`.
    pub fn of<S: Into<String>>(names: impl IntoIterator<Item = S>) -> Live {
        Live::These(names.into_iter().map(Into::into).collect())
    }

    pub fn contains(&self, name: &str) -> bool {
        match self {
            Live::All => true,
            Live::These(names) => names.contains(name),
        }
    }

    fn kill(&mut self, name: &str) {
        if let Live::These(names) = self {
            names.remove(name);
        }
    }

    fn add(&mut self, name: &str) {
        if let Live::These(names) = self {
            if !names.contains(name) {
                names.insert(name.to_string());
            }
        }
    }

    fn join(&mut self, other: &Live) {
        match (&mut *self, other) {
            (Live::All, _) => {}
            (_, Live::All) => *self = Live::All,
            (Live::These(a), Live::These(b)) => a.extend(b.iter().cloned()),
        }
    }

    fn reads(&mut self, expr: &Expr) {
        for_each_var(expr, &mut |name| self.add(name));
    }
}

/// What is live after each statement of every statement list the analysis met, keyed by
/// the list's address (the program's statements do not move while it runs).
#[derive(Debug, Default)]
pub struct Liveness {
    after: HashMap<usize, Vec<Live>>,
}

impl Liveness {
    /// Analyses `body` (and the lists nested in it), with `out` live after its last
    /// statement; lists analysed before keep their results.
    pub fn analyse(&mut self, body: &[Stmt], out: &Live) {
        if !self.after.contains_key(&key(body)) {
            self.before(body, out);
        }
    }

    /// What is live after statement `i` of `list`, if the list was analysed.
    pub fn after(&self, list: &[Stmt], i: usize) -> Option<&Live> {
        self.after.get(&key(list))?.get(i)
    }

    /// What is live before `stmts`, recording what is live after each of them.
    fn before(&mut self, stmts: &[Stmt], out: &Live) -> Live {
        let mut live = out.clone();
        let mut after = vec![Live::none(); stmts.len()];
        for (i, stmt) in stmts.iter().enumerate().rev() {
            after[i] = live.clone();
            live = self.through(stmt, live);
        }
        self.after.insert(key(stmts), after);
        live
    }

    /// What is live before `stmt`, given what is live after it.
    fn through(&mut self, stmt: &Stmt, mut live: Live) -> Live {
        match &stmt.kind {
            StmtKind::Assign { target, value } => {
                // An assignment to a variable nothing reads afterwards does not run, so
                // it reads nothing either (the variables only it reads are dead too, as
                // in SystemDS: `cox` inverts a singular matrix only for such a chain).
                // A call of a function still runs, and reads its arguments.
                let (AssignTarget::Var(name) | AssignTarget::Indexed { name, .. }) = target;
                if !live.contains(name) && !calls_a_function(value) {
                    return live;
                }
                match target {
                    AssignTarget::Var(name) => live.kill(name),
                    // Left indexing reads the rest of the matrix it writes into.
                    AssignTarget::Indexed { name, rows, cols } => {
                        live.add(name);
                        for index in [rows, cols] {
                            for_each_index_var(index, &mut |name| live.add(name));
                        }
                    }
                }
                live.reads(value);
                live
            }
            StmtKind::MultiAssign { targets, value } => {
                for target in targets {
                    live.kill(target);
                }
                live.reads(value);
                live
            }
            StmtKind::Expr(expr) => {
                live.reads(expr);
                live
            }
            StmtKind::If {
                cond,
                then_branch,
                else_branch,
            } => {
                let mut before = self.before(then_branch, &live);
                before.join(&self.before(else_branch, &live));
                before.reads(cond);
                before
            }
            StmtKind::While { cond, body } => self.loop_head(body, live, None, Some(cond)),
            StmtKind::For {
                var,
                from,
                to,
                by,
                body,
                ..
            } => {
                let mut entry = self.loop_head(body, live, Some(var), None);
                for bound in [Some(from), Some(to), by.as_ref()].into_iter().flatten() {
                    entry.reads(bound);
                }
                entry
            }
        }
    }

    /// What is live at a loop's head, where each iteration starts and the body's end
    /// leads back: what follows the loop, what the `test` reads, and what the body reads
    /// before writing it, except the loop variable `var`, which the loop assigns before
    /// each iteration (it is not killed on the way out: after the loop it keeps its last
    /// value, or its old one when the loop did not run). Grown until it stops changing.
    fn loop_head(
        &mut self,
        body: &[Stmt],
        after: Live,
        var: Option<&str>,
        test: Option<&Expr>,
    ) -> Live {
        let mut head = after.clone();
        test.into_iter().for_each(|t| head.reads(t));
        loop {
            let mut next = self.before(body, &head);
            var.into_iter().for_each(|v| next.kill(v));
            next.join(&after);
            test.into_iter().for_each(|t| next.reads(t));
            if next == head {
                return head;
            }
            head = next;
        }
    }
}

fn key(list: &[Stmt]) -> usize {
    list.as_ptr() as usize
}

/// Calls `f` with the name of every variable the bounds of `index` read.
fn for_each_index_var(index: &Index, f: &mut dyn FnMut(&str)) {
    match index {
        Index::All => {}
        Index::Single(a) => for_each_var(a, f),
        Index::Range(a, b) => {
            for_each_var(a, f);
            for_each_var(b, f);
        }
    }
}

/// Calls `f` with the name of every variable `expr` reads.
/// Whether `expr` calls a DML function or a builtin with an effect (it runs whether or
/// not its value is read). A script's function named like a builtin is taken for the
/// builtin here.
fn calls_a_function(expr: &Expr) -> bool {
    expr.any(&|e| matches!(&e.kind, ExprKind::Call { name, .. } if !pure_native(name)))
}

fn for_each_var(expr: &Expr, f: &mut dyn FnMut(&str)) {
    match &expr.kind {
        ExprKind::Var(name) => f(name),
        ExprKind::Unary { expr, .. } => for_each_var(expr, f),
        ExprKind::Binary { lhs, rhs, .. } => {
            for_each_var(lhs, f);
            for_each_var(rhs, f);
        }
        ExprKind::Call { name, args } => {
            for arg in args {
                // `exists("X")` asks for `X` by name: it must stay bound.
                match (name.as_str(), &arg.value.kind) {
                    ("exists", ExprKind::Str(var)) => f(var),
                    _ => for_each_var(&arg.value, f),
                }
            }
        }
        ExprKind::Index { target, rows, cols } => {
            for_each_var(target, f);
            for_each_index_var(rows, f);
            for_each_index_var(cols, f);
        }
        ExprKind::Vector(items) => {
            for item in items {
                for_each_var(item, f);
            }
        }
        ExprKind::Int(_)
        | ExprKind::Double(_)
        | ExprKind::Str(_)
        | ExprKind::Bool(_)
        | ExprKind::CmdArg(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program(src: &str) -> spores_lang::ast::Program {
        spores_lang::parse(src).expect("a valid script")
    }

    fn names(live: &Live) -> Vec<String> {
        match live {
            Live::All => vec!["*".into()],
            Live::These(set) => {
                let mut v: Vec<String> = set.iter().cloned().collect();
                v.sort();
                v
            }
        }
    }

    /// What is live after each top-level statement, nothing read after the script.
    fn after_each(src: &str) -> Vec<Vec<String>> {
        let p = program(src);
        let mut liveness = Liveness::default();
        liveness.analyse(&p.body, &Live::none());
        (0..p.body.len())
            .map(|i| names(liveness.after(&p.body, i).unwrap()))
            .collect()
    }

    #[test]
    fn an_assignment_nothing_reads_again_is_dead() {
        let live = after_each(
            "X = read($1)\nU = read($2)\nV = read($3)\nUV = U %*% t(V)\nR = X * (1/(1 + exp(-UV)))\nwrite(R, $5)\n",
        );
        assert_eq!(live[3], ["UV", "X"]);
        assert_eq!(live[4], ["R"]);
        assert!(live[5].is_empty());
        assert_eq!(live[2], ["U", "V", "X"]);
    }

    #[test]
    fn loops_keep_alive_what_the_next_iteration_reads() {
        let live = after_each(
            "s = 0\nA = 1\nfor (i in 1:3) {\n  B = A + s\n  s = B * 2\n  A = i\n}\nprint(s)\n",
        );
        // Before the loop: `A` and `s` are read by its first iteration.
        assert_eq!(live[1], ["A", "s"]);
        assert_eq!(live[2], ["s"]);
        let p = program("x = 1\nwhile (x < 10) {\n  y = x * 2\n  x = y\n}\nz = 3\n");
        let mut liveness = Liveness::default();
        liveness.analyse(&p.body, &Live::none());
        let StmtKind::While { body, .. } = &p.body[1].kind else {
            panic!("a while loop");
        };
        // After the body's last statement, the test reads `x` again.
        assert_eq!(names(liveness.after(body, 1).unwrap()), ["x"]);
        assert_eq!(names(liveness.after(body, 0).unwrap()), ["y"]);
        // `z` is dead: nothing reads it after the script.
        assert!(names(liveness.after(&p.body, 2).unwrap()).is_empty());
    }

    #[test]
    fn branches_join_and_left_indexing_reads_its_target() {
        let live = after_each(
            "A = matrix(0, 2, 2)\nB = 1\nif (B > 0) {\n  A[1, 1] = 5\n} else {\n  C = 2\n}\nprint(sum(A))\n",
        );
        // `B` is assigned before anything reads it.
        assert_eq!(live[0], ["A"]);
        assert_eq!(live[1], ["A", "B"]);
        // With every variable read afterwards, nothing is dead.
        let p = program("A = 1\nB = 2\n");
        let mut liveness = Liveness::default();
        liveness.analyse(&p.body, &Live::All);
        assert_eq!(liveness.after(&p.body, 0), Some(&Live::All));
        let mut results = Liveness::default();
        results.analyse(&p.body, &Live::of(["B"]));
        assert_eq!(names(results.after(&p.body, 1).unwrap()), ["B"]);
        assert!(names(results.after(&p.body, 0).unwrap()).is_empty());
    }
}
