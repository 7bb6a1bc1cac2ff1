"""Patterns drawn from a program, so that fuzzing FuseOpsByPattern matches something
(spec/passes.md PASS-fuzz-2). The library table's patterns rarely occur in a random
program; these are read off the program itself: a chain of op calls in one dataflow block,
each link kept or cut at random (a cut argument is a wildcard), decorated at random with
a dtype or rank predicate, an alternative, a constant pattern or a check, so that every
construct of the pattern language meets real matches and near misses.
"""
from __future__ import annotations

from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si

from .patterns import Pattern, is_call_tir, is_const, is_op, wildcard

_DEPTH = 3  # the longest chain of calls a drawn pattern spans


def drawn_patterns(mod: rx.IRModule, rng, count: int = 3) -> list[tuple]:
    """Up to ``count`` ``(name, pattern[, check])`` entries rooted at random op calls of
    ``mod``'s dataflow blocks (none when the module has no op call in one)."""
    roots: list[tuple[rx.Expr, dict[int, rx.Expr]]] = []
    for f in mod.functions.values():
        if isinstance(f, rx.Function) and not f.attrs.get("Primitive"):
            _collect(f.body, roots)
    out: list[tuple] = []
    for i in range(min(count, len(roots))):
        value, bound = roots[int(rng.integers(len(roots)))]
        pattern = _draw(value, bound, rng, _DEPTH)
        name = f"fuzz.p{i}"
        if rng.random() < 0.2:  # a check refusing matches by how many bindings they take
            keep = int(rng.integers(2))
            out.append((name, pattern, lambda state, keep=keep: len(state.taken) % 2 == keep))
        else:
            out.append((name, pattern))
    return out


def _collect(seq: rx.SeqExpr, roots: list) -> None:
    for block in seq.blocks:
        bound = {id(b.var): b.value for b in block.bindings if isinstance(b, rx.VarBinding)}
        for b in block.bindings:
            if isinstance(block, rx.DataflowBlock) and _is_op_call(b.value):
                roots.append((b.value, bound))
            if isinstance(b.value, rx.If):
                _collect(b.value.true_branch, roots)
                _collect(b.value.false_branch, roots)


def _is_op_call(e: rx.Expr) -> bool:
    return isinstance(e, rx.Call) and isinstance(e.op, rx.Op)


def _draw(value: rx.Call, bound: dict[int, rx.Expr], rng, depth: int) -> Pattern:
    op = value.op.name
    if op == "relax.call_tir" and rng.random() < 0.7:
        callee = value.args[0]
        name = callee.name_hint if isinstance(callee, rx.GlobalVar) and rng.random() < 0.5 \
            else None
        return is_call_tir(name)
    args = [_draw_arg(a, bound, rng, depth - 1) for a in value.args]
    pattern: Pattern = is_op(op)(*args)
    roll = rng.random()
    sinfo = value.struct_info
    if roll < 0.15 and isinstance(sinfo, si.TensorStructInfo) and sinfo.dtype is not None:
        # the call's own dtype, or another one (a near miss)
        pattern = pattern.has_dtype(str(sinfo.dtype) if rng.random() < 0.7 else "float16")
    elif roll < 0.3 and isinstance(sinfo, si.TensorStructInfo) and sinfo.ndim >= 0:
        pattern = pattern.has_ndim(sinfo.ndim if rng.random() < 0.7 else sinfo.ndim + 1)
    elif roll < 0.4:  # an alternative that never matches first, or one that does
        other = is_op("relax.nn.relu")(wildcard())
        pattern = (other | pattern) if rng.random() < 0.5 else (pattern | other)
    return pattern


def _draw_arg(arg: rx.Expr, bound: dict[int, rx.Expr], rng, depth: int) -> Pattern:
    if isinstance(arg, rx.Var) and depth > 0:
        value = bound.get(id(arg))
        if value is not None and _is_op_call(value) and rng.random() < 0.7:
            return _draw(value, bound, rng, depth)
    if isinstance(arg, rx.Constant) and rng.random() < 0.5:
        return is_const()
    return wildcard()
