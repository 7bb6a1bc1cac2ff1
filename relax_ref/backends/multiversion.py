"""Multi-versioning of kernels with symbolic extents (spec/backends.md BE-mv-*; the idea
of BladeDISC's speculation, with a proof).

A kernel whose work `E` is symbolic checks `f < E` in every thread (BE-sched-3): the
grid of `P = grid * block` threads covers `E` in whole rounds only when `P` divides `E`.
``specialize`` writes, next to such a kernel, a variant without the checks that hold
for every thread whenever the guard `E % P == 0` holds, and Z3 proves it: under the
guard, the ranges of the enclosing loops (thread indices, the serial round loop) and
the values of the enclosing lets, the check is true. The variant then runs exactly the
statements the original runs, so its accesses are the original's, in bounds wherever
the original's are (the interpreter checks those, BE-run-1). A check Z3 does not prove
within its time limit stays. The host evaluates the guard on the call's variables and
launches the variant when it holds (``pick``).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from relax_ref.ir import prim_expr as P
from relax_ref.ir import tir
from relax_ref.solver.evaluate import evaluate_int
from relax_ref.solver.z3_bridge import Z3Translator, prove

from .lower import DeviceProgram, Kernel

__all__ = ["Variant", "specialize", "specialize_program", "pick", "SUFFIX"]

SUFFIX = "_divisible"
#: Each proof's time limit (milliseconds): an unproved check stays.
TIMEOUT_MS = 2000


@dataclass(frozen=True)
class Variant:
    """``kernel`` (named ``<name>_divisible``, the same parameters) may replace the
    original when ``guard`` (an expression of the host's variables) holds; ``removed``
    counts the checks dropped."""

    kernel: Kernel
    guard: P.PrimExpr
    removed: int


def _conjuncts(e: P.PrimExpr) -> list[P.PrimExpr]:
    if isinstance(e, P.And):
        return _conjuncts(e.a) + _conjuncts(e.b)
    return [e]


def _join(parts: list[P.PrimExpr]) -> P.PrimExpr | None:
    out = None
    for p in parts:
        out = p if out is None else P.And(out, p, dtype=p.dtype)
    return out


def specialize(k: Kernel, host_vars: set) -> Variant | None:
    """BE-mv-1: the variant of ``k`` under ``E % (grid * block) == 0``, or None when
    the launch is not of constant size, no check `a < E` with `E` of host variables is
    found, or Z3 proves none."""
    if not (isinstance(k.grid, P.IntImm) and isinstance(k.block, P.IntImm)):
        return None
    threads = int(k.grid.value) * int(k.block.value)
    z3t = Z3Translator()
    guards: dict[tuple, P.PrimExpr] = {}  # one guard per extent E (by structure)
    removed = 0

    def guard_for(extent: P.PrimExpr) -> P.PrimExpr:
        key = repr(extent)
        if key not in guards:
            p = P.IntImm(threads, extent.dtype)
            guards[key] = P.EQ(P.FloorMod(extent, p, dtype=extent.dtype),
                               P.IntImm(0, extent.dtype), dtype=P.BOOL)
        return guards[key]

    def walk(s, facts: list):
        nonlocal removed
        if isinstance(s, tir.For):
            v = z3t.var(s.loop_var)
            lo, ext = z3t.to_int(s.min), z3t.to_int(s.extent)
            return dataclasses.replace(s, body=walk(s.body, facts + [lo <= v, v < lo + ext]))
        if isinstance(s, tir.LetStmt):
            fact = z3t.var(s.var) == z3t.translate(s.value)
            return dataclasses.replace(s, body=walk(s.body, facts + [fact]))
        if isinstance(s, tir.IfThenElse) and s.else_case is None:
            kept = []
            for c in _conjuncts(s.condition):
                if isinstance(c, P.LT) and P.free_vars(c.b) and \
                        all(any(v is h for h in host_vars) for v in P.free_vars(c.b)):
                    guard = guard_for(c.b)
                    if prove(z3t.to_bool(c), facts + [z3t.to_bool(guard)],
                             TIMEOUT_MS).status == "proved":
                        removed += 1
                        continue
                kept.append(c)
            body = walk(s.then_case, facts)
            cond = _join(kept)
            return body if cond is None else dataclasses.replace(s, condition=cond,
                                                                 then_case=body)
        if isinstance(s, tir.SeqStmt):
            return dataclasses.replace(s, seq=tuple(walk(x, facts) for x in s.seq))
        if hasattr(s, "body") and isinstance(s.body, tir.Stmt):
            return dataclasses.replace(s, body=walk(s.body, facts))
        return s

    body = walk(k.func.body, [])
    if not removed or len(guards) != 1:  # one guard per kernel keeps the host's pick simple
        return None
    func = dataclasses.replace(k.func, body=body)
    return Variant(Kernel(k.name + SUFFIX, func, k.grid, k.block),
                   next(iter(guards.values())), removed)


def specialize_program(prog: DeviceProgram) -> dict[str, Variant]:
    """BE-mv-1 for every kernel of ``prog``: kernel name -> its variant."""
    out = {}
    for k in prog.kernels:
        host_vars = {p for p in k.func.params if not p.dtype.is_handle}
        v = specialize(k, host_vars)
        if v is not None:
            out[k.name] = v
    return out


def pick(k: Kernel, variants: dict[str, Variant], env) -> Kernel:
    """BE-mv-2: the variant when its guard holds on the call's variables, else ``k``."""
    v = variants.get(k.name)
    return v.kernel if v is not None and bool(evaluate_int(v.guard, env)) else k
