//! The kernel body as the interpreter sees it: a tree over numbered accesses ([`Node`]),
//! folded at fill values to analyse what skipped coordinates contribute ([`simplify`]), and
//! compiled to a flat register program ([`Program`]) that runs once per visited cell.
//!
//! Its own module because both the planning of levels (which folds it) and the loops (which
//! run it) use it, and neither needs the other's details.

use crate::engine::times;
use crate::plan_ast::{AggOp, MapOp};

/// A body node with accesses numbered.
#[derive(Clone, Debug)]
pub(super) enum Node {
    Acc(usize),
    Lit(f64),
    Map(MapOp, Vec<Node>),
}

impl Node {
    pub(super) fn accesses(&self, out: &mut Vec<usize>) {
        match self {
            Node::Acc(a) => out.push(*a),
            Node::Lit(_) => {}
            Node::Map(_, args) => args.iter().for_each(|x| x.accesses(out)),
        }
    }
}

/// Replaces the accesses in `at_fill` by their fill values and folds constants and
/// annihilators.
pub(super) fn simplify(n: &Node, at_fill: &[bool], fills: &[f64]) -> Node {
    match n {
        Node::Acc(a) if at_fill[*a] => Node::Lit(fills[*a]),
        Node::Acc(_) | Node::Lit(_) => n.clone(),
        Node::Map(op, args) => {
            let args: Vec<Node> = args.iter().map(|x| simplify(x, at_fill, fills)).collect();
            let lits: Vec<f64> = args
                .iter()
                .filter_map(|x| match x {
                    Node::Lit(v) => Some(*v),
                    _ => None,
                })
                .collect();
            if lits.len() == args.len() {
                return Node::Lit(op.apply(&lits));
            }
            // A known condition chooses its branch: `ifelse(c, a, 0)` is 0 wherever `c` is.
            if let (MapOp::IfElse, [Node::Lit(c), then, otherwise]) = (op, args.as_slice()) {
                return if *c != 0.0 { then } else { otherwise }.clone();
            }
            if let Some(z) = op.props().annihilator {
                if lits.contains(&z) {
                    return Node::Lit(z);
                }
            }
            Node::Map(op.clone(), args)
        }
    }
}

/// `combine(x, c) == x` for every `x`.
pub(super) fn neutral(agg: AggOp, c: f64) -> bool {
    match agg {
        AggOp::Sum | AggOp::Any => c == 0.0,
        AggOp::Prod => c == 1.0,
        AggOp::Max => c == f64::NEG_INFINITY,
        AggOp::Min => c == f64::INFINITY,
        // The declared identity.
        AggOp::User(_) => c == agg.init(),
    }
}

/// One instruction of the body program; registers hold access values, literals, temporaries.
#[derive(Clone, Debug)]
enum Instr {
    Add(usize, usize, usize),
    Sub(usize, usize, usize),
    Mul(usize, usize, usize),
    Max(usize, usize, usize),
    Min(usize, usize, usize),
    Gen(MapOp, Vec<usize>, usize),
}

pub(super) struct Program {
    instrs: Vec<Instr>,
    /// Initial register file: access slots (overwritten), literals, temporaries.
    pub(super) init_regs: Vec<f64>,
    result: usize,
}

/// The body as a register program over `n_acc` access registers.
pub(super) fn compile(body: &Node, n_acc: usize) -> Program {
    let mut p = Program {
        instrs: vec![],
        init_regs: vec![0.0; n_acc],
        result: 0,
    };
    fn go(n: &Node, p: &mut Program) -> usize {
        match n {
            Node::Acc(a) => *a,
            Node::Lit(v) => {
                p.init_regs.push(*v);
                p.init_regs.len() - 1
            }
            Node::Map(op, args) => {
                let regs: Vec<usize> = args.iter().map(|a| go(a, p)).collect();
                let binary = |mk: fn(usize, usize, usize) -> Instr, p: &mut Program| {
                    // Left fold of an n-ary associative operator as binary steps.
                    let mut acc = regs[0];
                    for &r in &regs[1..] {
                        p.init_regs.push(0.0);
                        let dst = p.init_regs.len() - 1;
                        p.instrs.push(mk(acc, r, dst));
                        acc = dst;
                    }
                    acc
                };
                match op {
                    MapOp::Add if regs.len() >= 2 => binary(Instr::Add, p),
                    MapOp::Mul if regs.len() >= 2 => binary(Instr::Mul, p),
                    MapOp::Max if regs.len() >= 2 => binary(Instr::Max, p),
                    MapOp::Min if regs.len() >= 2 => binary(Instr::Min, p),
                    MapOp::Sub if regs.len() == 2 => binary(Instr::Sub, p),
                    _ => {
                        p.init_regs.push(0.0);
                        let dst = p.init_regs.len() - 1;
                        p.instrs.push(Instr::Gen(op.clone(), regs, dst));
                        dst
                    }
                }
            }
        }
    }
    p.result = go(body, &mut p);
    p
}

impl Program {
    #[inline]
    pub(super) fn run(&self, regs: &mut [f64]) -> f64 {
        let mut scratch: Vec<f64> = Vec::new();
        for ins in &self.instrs {
            match *ins {
                Instr::Add(a, b, d) => regs[d] = regs[a] + regs[b],
                Instr::Sub(a, b, d) => regs[d] = regs[a] - regs[b],
                Instr::Mul(a, b, d) => regs[d] = times(regs[a], regs[b]),
                Instr::Max(a, b, d) => regs[d] = regs[a].max(regs[b]),
                Instr::Min(a, b, d) => regs[d] = regs[a].min(regs[b]),
                Instr::Gen(ref op, ref args, d) => {
                    scratch.clear();
                    scratch.extend(args.iter().map(|&r| regs[r]));
                    regs[d] = op.apply(&scratch);
                }
            }
        }
        regs[self.result]
    }
}
