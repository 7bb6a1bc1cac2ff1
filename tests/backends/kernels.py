"""Helpers of the backend tests: the PrimFuncs LegalizeOps writes for a module, random
arguments for a PrimFunc (symbolic variables given values), and the check that a
kernel pipeline computes what the TIR interpreter computes (BE-run-1's comparison).

The interpreter is the reference everywhere (DESIGN.md section 2a): the unscheduled
PrimFunc run by ``run_prim_func`` on the same arguments.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

import relax_ref
# BE-run-1's comparison is the device host's, so the tests and the host judge alike.
from relax_ref.backends.runtime_host import ULP_BOUND, difference, uses_inexact_math
from relax_ref.errors import RelaxError
from relax_ref.ir import prim_expr as P
from relax_ref.ir import tir
from relax_ref.passes.legalize_ops import legalize_ops
from relax_ref.semantics.tir_interp import run_prim_func
from relax_ref.solver.evaluate import evaluate_int

ROOT = Path(__file__).resolve().parents[2]
CONFORMANCE_OPS = ROOT / "conformance" / "ops"


def legalized(text: str) -> dict[str, tir.PrimFunc]:
    """The PrimFuncs of ``text`` after LegalizeOps, by name."""
    mod = legalize_ops(relax_ref.check(relax_ref.from_source(text)))
    return {name: f for name, f in mod.items() if isinstance(f, tir.PrimFunc)}


#: A sample of conformance cases for the default test run: elementwise f32, integer
#: wrap-around, broadcasting, float16, a transcendental, row and full reductions,
#: softmax (four kernels, intermediates), a gather with integer indices.
SAMPLE = ("add_broadcast_size1", "add_i32_wrap", "act_leg_silu_f16", "exp_f32",
          "act_leg_softmax_f16_sum", "take_axis0_i64", "floor_divide_i64")


MULTIPLY_ADD = """
@I.ir_module
class Module:
    @T.prim_func
    def f(var_x: T.handle, y: T.Buffer((T.int64(3),), "float32"), var_z: T.handle):
        T.func_attr({"tirx.noalias": True})
        n = T.int64()
        x = T.match_buffer(var_x, (n, T.int64(3)))
        z = T.match_buffer(var_z, (n, T.int64(3)))
        for i, j in T.grid(n, T.int64(3)):
            with T.sblock("z"):
                vi, vj = T.axis.remap("SS", [i, j])
                z[vi, vj] = x[vi, vj] * y[vj] + y[vj]
"""


def multiply_add() -> tir.PrimFunc:
    """``z = x * y + y`` over (n, 3): a symbolic extent, and a multiply-add that a
    contracting compiler would fuse."""
    return relax_ref.from_source(MULTIPLY_ADD)["f"]


def case_prim_funcs(case: str, strict: bool = True) -> list[tuple[str, tir.PrimFunc]]:
    """The PrimFuncs of a conformance case after LegalizeOps; unless ``strict``, none
    for a case that does not check or legalize (a sweep over a tree that other work
    changes at the same time reports kernels, not cases)."""
    try:
        return list(legalized((CONFORMANCE_OPS / f"{case}.py").read_text()).items())
    except RelaxError:
        if strict:
            raise
        return []


def conformance_cases() -> list[str]:
    """The conformance ops cases that run ("expect = ok")."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    out = []
    for path in sorted(CONFORMANCE_OPS.glob("*.py")):
        runs = tomllib.loads(path.with_suffix(".toml").read_text()).get("run", [])
        if any(r.get("expect") == "ok" for r in runs):
            out.append(path.stem)
    return out


def symbolic_vars(func: tir.PrimFunc) -> list[P.Var]:
    found: dict[int, P.Var] = {}
    buffers = dict(func.buffer_map)
    for p in func.params:
        b = buffers.get(p)
        if b is None:
            if not p.dtype.is_handle:
                found.setdefault(id(p), p)
            continue
        for d in b.shape:
            for v in P.free_vars(d):
                found.setdefault(id(v), v)
    return list(found.values())


def random_args(func: tir.PrimFunc, rng, sizes: dict[str, int] | None = None,
                ints: tuple[int, int] = (-5, 5), unit_floats: bool = False) -> list:
    """Arrays (and scalars) for ``func``: each symbolic variable takes ``sizes[name]``
    (default 3); floats standard normal (or, ``unit_floats``, in [0, 1)), integers in
    ``ints`` (unsigned ones in [max(lo, 0), hi) at least 0..1)."""
    env = {v: (sizes or {}).get(v.name, 3) for v in symbolic_vars(func)}
    buffers = dict(func.buffer_map)
    args: list = []
    for p in func.params:
        b = buffers.get(p)
        if b is None:
            args.append(env[p])
            continue
        shape = tuple(int(evaluate_int(d, env)) for d in b.shape)
        if any(d < 0 for d in shape):  # as a trap at these sizes: callers try others
            raise AssertionError(f"{b.name} has shape {shape} at {sizes}")
        dt = str(b.dtype)
        if dt.startswith(("float", "bfloat")):
            values = rng.random(shape) if unit_floats else rng.standard_normal(shape)
            args.append(values.astype(dt))
        elif dt == "bool":
            args.append(rng.integers(0, 2, shape).astype(bool))
        else:
            lo, hi = ints
            if dt.startswith("uint"):
                lo, hi = max(lo, 0), max(hi, 2)
            args.append(rng.integers(lo, hi, shape).astype(dt))
    return args


def copy_args(args: list) -> list:
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


def reference(func: tir.PrimFunc, args: list) -> list | None:
    """The interpreter's result (the arrays after the run), or None when it traps."""
    out = copy_args(args)
    try:
        run_prim_func(func, out, mode="ordered")
    except RelaxError:
        return None
    return out


#: Integer ranges tried in turn until the interpreter runs without a trap: any small
#: value; no zero divisor, negative index or out-of-range shift; only index 0; only 1;
#: then index 0 with floats in [0, 1) (a float used as an index, e.g. a batch number).
INT_RANGES = ((-5, 5), (1, 4), (0, 1), (1, 2), (0, 1, "unit floats"))


def args_and_reference(func: tir.PrimFunc, rng, sizes=None):
    """Random arguments the interpreter runs without a trap, and its result."""
    for ints in INT_RANGES:
        args = random_args(func, rng, sizes, ints[:2], unit_floats=len(ints) > 2)
        ref = reference(func, args)
        if ref is not None:
            return args, ref
    raise AssertionError("the interpreter traps on every input drawn (integers in "
                         f"{', '.join(map(str, INT_RANGES))})")


def assert_same(ref: list, got: list, func: tir.PrimFunc, what: str) -> float:
    """Exact equality, or within ULP_BOUND for a kernel with transcendental math
    (``difference``: of the element or of the output's largest magnitude; equal
    infinities and NaN against NaN are no difference); returns the largest ULP
    distance seen."""
    inexact = uses_inexact_math(func)
    worst = 0.0
    for k, (x, y) in enumerate(zip(ref, got)):
        if not isinstance(x, np.ndarray):
            continue
        if np.array_equal(x, y, equal_nan=True):
            continue
        assert inexact and x.dtype.kind == "f", (
            f"{what}: argument {k} differs from the interpreter (exact expected):\n"
            f"interpreter {x.reshape(-1)[:8]}\ndevice      {y.reshape(-1)[:8]}")
        _, ulps, within = difference(x, y)
        worst = max(worst, ulps)
        assert within, (f"{what}: argument {k} is {ulps:.1f} ULP from the interpreter "
                        f"(bound {ULP_BOUND})")
    return worst


#: A scatter whose kernel asserts each index in range (BE-lower-5's device flag).
SCATTER = """
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32"), i: R.Tensor((4,), "int64"), u: R.Tensor((4,), "float32")):
        y = R.scatter_elements(x, i, u, reduction="update")
        return y
"""
