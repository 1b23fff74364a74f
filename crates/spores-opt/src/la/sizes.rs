//! Sizes written as expressions: index bounds (`A[(k+1):nrow(A), ]`) and `seq`
//! arguments read as whole-number linear forms over size symbols, and the cut points
//! (`spores equiv --size k<m`) that split a symbolic dimension in two.
//!
//! A cut `k` of a dimension `m` stands for every size with `1 <= k < m`; the rest of `m`
//! is the dimension named `m-k` (at least 1). Forms are compared after writing each cut
//! dimension as its two parts (`m = k + (m-k)`), so that every symbol left is free: a
//! plain symbol, a cut or a rest, each at least 1. Two forms are then equal for every
//! size exactly when they are equal as forms, and a form is non-negative for every size
//! exactly when its coefficients are non-negative and its value at all ones is.

use std::collections::BTreeMap;

use super::{Dim, LaExpr, ShapeEnv};

/// `constant + Σ coefficient · symbol`, the value of a size expression.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SizeForm {
    pub constant: i64,
    pub terms: BTreeMap<String, i64>,
}

impl SizeForm {
    pub fn number(n: i64) -> SizeForm {
        SizeForm {
            constant: n,
            terms: BTreeMap::new(),
        }
    }

    pub fn symbol(name: &str) -> SizeForm {
        SizeForm {
            constant: 0,
            terms: BTreeMap::from([(name.to_string(), 1)]),
        }
    }

    /// The number, when the form has no symbol.
    pub fn as_number(&self) -> Option<i64> {
        self.terms.is_empty().then_some(self.constant)
    }

    pub fn plus(&self, other: &SizeForm) -> SizeForm {
        let mut out = self.clone();
        out.constant += other.constant;
        for (s, c) in &other.terms {
            *out.terms.entry(s.clone()).or_default() += c;
        }
        out.terms.retain(|_, c| *c != 0);
        out
    }

    pub fn times(&self, k: i64) -> SizeForm {
        let mut out = SizeForm::number(self.constant * k);
        if k != 0 {
            out.terms = self.terms.iter().map(|(s, c)| (s.clone(), c * k)).collect();
        }
        out
    }

    pub fn minus(&self, other: &SizeForm) -> SizeForm {
        self.plus(&other.times(-1))
    }
}

impl std::fmt::Display for SizeForm {
    /// `m-k+1`, `2*n-1`: read back by [`SizeForm::parse`].
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut text = String::new();
        for (s, c) in &self.terms {
            let sign = if *c < 0 { "-" } else { "+" };
            match c.abs() {
                1 => text.push_str(&format!("{sign}{s}")),
                n => text.push_str(&format!("{sign}{n}*{s}")),
            }
        }
        if self.constant != 0 || text.is_empty() {
            let sign = if self.constant < 0 { "-" } else { "+" };
            text.push_str(&format!("{sign}{}", self.constant.abs()));
        }
        f.write_str(text.strip_prefix('+').unwrap_or(&text))
    }
}

impl SizeForm {
    /// Reads a form as [`SizeForm`]'s `Display` writes it (and `a+b`): signed terms, each
    /// a number, a name or `number*name`.
    pub fn parse(text: &str) -> Option<SizeForm> {
        let mut out = SizeForm::default();
        let mut rest = text.trim();
        let mut sign = 1;
        if let Some(r) = rest.strip_prefix('-') {
            sign = -1;
            rest = r;
        }
        loop {
            let end = rest.find(['+', '-']).unwrap_or(rest.len());
            let token = &rest[..end];
            let term = match token.split_once('*') {
                Some((n, name)) => SizeForm::symbol(name).times(n.parse().ok()?),
                None => match token.parse::<i64>() {
                    Ok(n) => SizeForm::number(n),
                    Err(_) => match Dim::parse(token)? {
                        Dim::Sym(name) => SizeForm::symbol(&name),
                        Dim::Known(n) => SizeForm::number(n as i64),
                    },
                },
            };
            out = out.plus(&term.times(sign));
            if end == rest.len() {
                return Some(out);
            }
            sign = if rest[end..].starts_with('-') { -1 } else { 1 };
            rest = &rest[end + 1..];
        }
    }
}

impl ShapeEnv {
    /// The dimension that holds the rest of cut dimension `base` after its cut `cut`.
    pub fn rest_name(base: &str, cut: &str) -> String {
        format!("{base}-{cut}")
    }

    /// Parses `k<m`, as `--size` takes it: `k` is a size with `1 <= k < m`, where `m` is a
    /// symbolic dimension of some input. A dimension has at most one cut.
    pub fn add_cut_arg(&mut self, arg: &str) -> Result<(), String> {
        let (cut, base) = arg
            .split_once('<')
            .ok_or_else(|| format!("expected NAME<DIM for --size, got `{arg}`"))?;
        let (cut, base) = (cut.trim(), base.trim());
        let (Some(Dim::Sym(cut)), Some(Dim::Sym(base))) = (Dim::parse(cut), Dim::parse(base))
        else {
            return Err(format!(
                "--size {arg}: both sides must be names, as in `k<m` (k a new size, m a \
                 symbolic dimension of an input)"
            ));
        };
        if !self.has_symbol(&base) || self.cuts.contains_key(&base) {
            return Err(format!(
                "--size {arg}: `{base}` is not a symbolic dimension of any input given with --shape"
            ));
        }
        if self.shapes.contains_key(&cut) || self.cuts.contains_key(&cut) || cut == base {
            return Err(format!("--size {arg}: `{cut}` is already a name"));
        }
        if let Some((other, _)) = self.cuts.iter().find(|(_, b)| **b == base) {
            return Err(format!(
                "--size {arg}: `{base}` is already cut at `{other}` (one cut per dimension)"
            ));
        }
        self.cuts.insert(cut, base);
        Ok(())
    }

    /// The cut of `base` and its rest's name, when `base` is cut.
    pub fn cut_of(&self, base: &str) -> Option<(&str, String)> {
        self.cuts
            .iter()
            .find(|(_, b)| *b == base)
            .map(|(k, _)| (k.as_str(), ShapeEnv::rest_name(base, k)))
    }

    /// Whether `name` is the rest of a cut dimension (`m-k`).
    pub fn is_rest(&self, name: &str) -> bool {
        self.cuts
            .iter()
            .any(|(k, m)| ShapeEnv::rest_name(m, k) == name)
    }

    /// A dimension as a form: a number, a symbol, or a name of a form (`m-k`, `m-1`,
    /// `a+b` from [`super::add_dims`]) read back as that form.
    pub fn dim_form(&self, d: &Dim) -> SizeForm {
        match d {
            Dim::Known(n) => SizeForm::number(*n as i64),
            Dim::Sym(s) => SizeForm::parse(s).unwrap_or_else(|| SizeForm::symbol(s)),
        }
    }

    /// The form of a size expression: whole numbers, size symbols (`m`, a cut `k`),
    /// `nrow(X)`, `ncol(X)` and their resolved spelling `sum(matrix(1, rows=m, cols=1))`,
    /// combined with `+`, `-` and whole-number factors. `None` for anything else.
    pub fn size_form(&self, e: &LaExpr) -> Option<SizeForm> {
        use LaExpr::*;
        let whole = |c: f64| (c.fract() == 0.0 && c.abs() < 1e15).then_some(c as i64);
        Some(match e {
            Const(c) => SizeForm::number(whole(*c)?),
            Var(name) if !self.shapes.contains_key(name) && self.has_symbol(name) => {
                SizeForm::symbol(name)
            }
            Func { name, args } if args.len() == 1 && (name == "nrow" || name == "ncol") => {
                let (r, c) = self.shape_of(&args[0]).ok()?;
                self.dim_form(if name == "nrow" { &r } else { &c })
            }
            Sum(x) => match x.as_ref() {
                Fill(v, r, c) if matches!(v.as_ref(), Const(o) if *o == 1.0) => match (r, c) {
                    (d, Dim::Known(1)) | (Dim::Known(1), d) => self.dim_form(d),
                    _ => return None,
                },
                Add(p, q) => self
                    .size_form(&Sum(p.clone()))?
                    .plus(&self.size_form(&Sum(q.clone()))?),
                _ => return None,
            },
            Add(a, b) => self.size_form(a)?.plus(&self.size_form(b)?),
            Sub(a, b) => self.size_form(a)?.minus(&self.size_form(b)?),
            Neg(a) => self.size_form(a)?.times(-1),
            Mul(a, b) => {
                let (fa, fb) = (self.size_form(a)?, self.size_form(b)?);
                match (fa.as_number(), fb.as_number()) {
                    (Some(k), _) => fb.times(k),
                    (_, Some(k)) => fa.times(k),
                    _ => return None,
                }
            }
            _ => return None,
        })
    }

    /// `f` with every cut dimension written as its cut plus its rest: a form over free
    /// symbols, each at least 1.
    pub fn free_form(&self, f: &SizeForm) -> SizeForm {
        let mut out = SizeForm::number(f.constant);
        for (s, c) in &f.terms {
            let part = match self.cut_of(s) {
                Some((k, rest)) => SizeForm::symbol(k).plus(&SizeForm::symbol(&rest)),
                None => SizeForm::symbol(s),
            };
            out = out.plus(&part.times(*c));
        }
        out
    }

    /// The least size of a free symbol: 1 for a cut point or a rest, else 2 (a symbolic
    /// dimension stands for a size > 1).
    fn least(&self, name: &str) -> i64 {
        if self.cuts.contains_key(name) || self.is_rest(name) {
            1
        } else {
            2
        }
    }

    /// A free form with each cut and rest of equal coefficient written as the dimension
    /// they cut: one name for each size, and a readable one (`m-1`, not `k+m-k-1`).
    fn joined(&self, mut f: SizeForm) -> SizeForm {
        for (k, m) in &self.cuts {
            let rest = ShapeEnv::rest_name(m, k);
            let (a, b) = (f.terms.get(k).copied(), f.terms.get(&rest).copied());
            if let (Some(a), Some(b)) = (a, b) {
                if a == b {
                    f.terms.remove(k);
                    f.terms.remove(&rest);
                    f = f.plus(&SizeForm::symbol(m).times(a));
                }
            }
        }
        f
    }

    /// Whether `f >= 0` for every size.
    pub fn never_negative(&self, f: &SizeForm) -> bool {
        let f = self.free_form(f);
        let least: i64 = f.terms.iter().map(|(s, c)| c * self.least(s)).sum();
        f.terms.values().all(|c| *c >= 0) && f.constant + least >= 0
    }

    /// The value of `f` at the sizes of its symbols (`None` when one has none).
    pub fn size_value(&self, f: &SizeForm, sizes: &BTreeMap<String, usize>) -> Option<i64> {
        let mut total = f.constant;
        for (s, c) in &f.terms {
            let value = match sizes.get(s) {
                Some(&n) => n as i64,
                None => {
                    let inner = SizeForm::parse(s).filter(|g| *g != SizeForm::symbol(s))?;
                    self.size_value(&inner, sizes)?
                }
            };
            total += c * value;
        }
        Some(total)
    }

    /// Whether `a == b` for every size.
    pub fn same_size(&self, a: &SizeForm, b: &SizeForm) -> bool {
        self.free_form(a) == self.free_form(b)
    }

    /// The dimension of size `f`: a number, a symbol, a cut dimension (`k + (m-k)` is
    /// `m`) or a rest (`m - k`); `None` when `f` is none of these.
    pub fn dim_of_form(&self, f: &SizeForm) -> Option<Dim> {
        let f = self.free_form(f);
        if let Some(n) = f.as_number() {
            return usize::try_from(n).ok().map(Dim::Known);
        }
        for (k, m) in &self.cuts {
            let whole = SizeForm::symbol(k).plus(&SizeForm::symbol(&ShapeEnv::rest_name(m, k)));
            if f == whole {
                return Some(Dim::Sym(m.clone()));
            }
        }
        match (f.constant, f.terms.iter().next(), f.terms.len()) {
            (0, Some((s, 1)), 1) => Some(Dim::Sym(s.clone())),
            // Any other size that is at least 1 is named by its form (`m-1`), which
            // stands for that size: a witness gives it the form's value.
            _ if self.never_negative(&f.minus(&SizeForm::number(1))) => {
                Some(Dim::Sym(self.joined(f).to_string()))
            }
            _ => None,
        }
    }

    /// The written size of a symbolic dimension, as [`LaExpr::resolve`] spells `nrow(X)`.
    pub fn size_expr(d: &Dim) -> LaExpr {
        match d {
            Dim::Known(n) => LaExpr::Const(*n as f64),
            sym => LaExpr::Sum(Box::new(LaExpr::Fill(
                Box::new(LaExpr::Const(1.0)),
                sym.clone(),
                Dim::Known(1),
            ))),
        }
    }

    /// The size of `lo:hi` within a dimension of size `size`, when both bounds are size
    /// expressions provably within it (`1 <= lo <= hi <= size` for every size).
    pub(super) fn symbolic_span(&self, size: &Dim, lo: &LaExpr, hi: &LaExpr) -> Option<Dim> {
        let (lo, hi) = (self.size_form(lo)?, self.size_form(hi)?);
        let one = SizeForm::number(1);
        let length = hi.minus(&lo).plus(&one);
        let within = self.never_negative(&lo.minus(&one))
            && self.never_negative(&self.dim_form(size).minus(&hi))
            && self.never_negative(&length.minus(&one));
        if within {
            self.dim_of_form(&length)
        } else {
            None
        }
    }

    /// `seq(from, to)` or `seq(from, to, by)` with size-expression bounds and a whole
    /// number `by`: its length and step, when `to - from` is a whole number of steps of
    /// the step's sign for every size (`by` is 1, or -1 when `from > to`, if not given).
    pub fn symbolic_seq(&self, args: &[LaExpr]) -> Option<(Dim, i64)> {
        let (from, to, by) = match args {
            [from, to] => (self.size_form(from)?, self.size_form(to)?, None),
            [from, to, by] => (
                self.size_form(from)?,
                self.size_form(to)?,
                Some(self.size_form(by)?.as_number()?),
            ),
            _ => return None,
        };
        let span = to.minus(&from);
        let by = match by {
            Some(by) => by,
            None if self.never_negative(&span) => 1,
            None => -1,
        };
        let divides =
            by != 0 && span.constant % by == 0 && span.terms.values().all(|c| c % by == 0);
        if !divides {
            return None;
        }
        let steps = SizeForm {
            constant: span.constant / by,
            terms: span
                .terms
                .iter()
                .map(|(s, c)| (s.clone(), c / by))
                .collect(),
        };
        if !self.never_negative(&steps) {
            return None;
        }
        Some((self.dim_of_form(&steps.plus(&SizeForm::number(1)))?, by))
    }

    /// `seq(1, n)` for a symbolic `n`: the column `1, 2, ..., n`, which every symbolic
    /// `seq` is written with ([`LaExpr::resolve`]).
    pub fn counting(d: &Dim) -> LaExpr {
        LaExpr::Func {
            name: "seq".into(),
            args: vec![LaExpr::Const(1.0), ShapeEnv::size_expr(d)],
        }
    }

    /// The length of `e` when it is `seq(1, n)` of a symbolic `n` ([`ShapeEnv::counting`]).
    pub fn counting_length(&self, e: &LaExpr) -> Option<Dim> {
        let LaExpr::Func { name, args } = e else {
            return None;
        };
        let [from, to] = args.as_slice() else {
            return None;
        };
        if name != "seq" || self.size_form(from)? != SizeForm::number(1) {
            return None;
        }
        let d = self.dim_of_form(&self.size_form(to)?)?;
        matches!(d, Dim::Sym(_)).then_some(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env() -> ShapeEnv {
        let mut env = ShapeEnv::with_shapes(&["A=mxn", "B=nxp"]).unwrap();
        env.add_cut_arg("k<m").unwrap();
        env
    }

    #[test]
    fn bounds_are_read_as_forms_over_free_symbols() {
        let env = env();
        let form = |t: &str| env.size_form(&LaExpr::parse(t).unwrap()).unwrap();
        assert!(env.same_size(&form("nrow(A) - k"), &SizeForm::symbol("m-k")));
        assert!(env.same_size(&form("k + 1 + (m - k - 1)"), &form("nrow(A)")));
        let rest = |t: &str| env.dim_of_form(&form(t));
        assert_eq!(rest("nrow(A) - k"), Some(Dim::sym("m-k")));
        assert_eq!(rest("2 * ncol(A) - ncol(A)"), Some(Dim::sym("n")));
        assert_eq!(rest("m - 1"), Some(Dim::sym("m-1")));
        assert_eq!(rest("m - k + 1"), Some(Dim::sym("m-k+1")));
        assert_eq!(rest("1 - k"), None);
        assert_eq!(env.dim_form(&Dim::sym("m-k+1")), form("m - k + 1"));
        assert_eq!(SizeForm::parse("2*n-3").unwrap(), form("2 * n - 3"));
        assert!(env.never_negative(&form("m - k - 1")));
        assert!(!env.never_negative(&form("m - k - 2")));
        assert!(!env.never_negative(&form("k - n")));
    }

    #[test]
    fn cuts_are_checked() {
        let mut env = env();
        assert!(env.add_cut_arg("l<m").unwrap_err().contains("already cut"));
        assert!(env.add_cut_arg("l<q").unwrap_err().contains("`q`"));
        assert!(env.add_cut_arg("A<n").unwrap_err().contains("already"));
        assert!(env.add_cut_arg("3<n").is_err());
        assert!(env.add_cut_arg("l<n").is_ok());
    }
}
