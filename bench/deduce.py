"""Deduction is linear: normalize generated modules of 1k, 10k and 100k bindings and
print the time per binding for each size (it must stay flat), next to TVM's
``relax.transform.Normalize`` on the same module where TVM is installed.

    python bench/deduce.py [--sizes 1000 10000 100000]

The module is one dataflow block over a tensor of symbolic shape (n, 64): a chain of
elementwise ops, reshapes that keep symbolic relations (n, 64) -> (n * 64,) -> (n, 64),
reductions with keepdims and broadcasting back, so every binding's deduction involves a
symbolic shape.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from relax_ref.ir import prim_expr as P  # noqa: E402
from relax_ref.ir import relax as rx  # noqa: E402
from relax_ref.ir import struct_info as si  # noqa: E402
from relax_ref.ir.dtype import parse_dtype  # noqa: E402
from relax_ref.semantics.normalize import normalize  # noqa: E402

F32 = parse_dtype("float32")


def _op(name, *args, **attrs):
    return rx.Call(rx.Op(f"relax.{name}"), tuple(args), rx.Attrs(tuple(attrs.items())))


def build_ours(size: int) -> rx.IRModule:
    n = P.Var("n")
    x = rx.Var("x", si.TensorStructInfo((n, P.IntImm(64)), F32))
    bindings = []
    cur = x
    for i in range(size):
        kind = i % 5
        if kind == 0:
            value = _op("add", cur, x)
        elif kind == 1:
            value = _op("exp", cur)
        elif kind == 2:
            value = _op("reshape", cur, rx.ShapeExpr((n * 64,)))
        elif kind == 3:
            value = _op("reshape", cur, rx.ShapeExpr((n, P.IntImm(64))))
        else:
            value = _op("multiply", cur, _op("sum", cur, axis=(1,), keepdims=True))
        var = rx.DataflowVar(f"v{i}") if i < size - 1 else rx.Var(f"v{i}")
        bindings.append(rx.VarBinding(var, value))
        cur = var
    body = rx.SeqExpr((rx.DataflowBlock(tuple(bindings)),), cur)
    func = rx.Function((x,), body, None)
    return rx.IRModule({"main": func})


def build_tvm(size: int):
    import tvm
    from tvm import relax

    n = tvm.tirx.Var("n", "int64")
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((n, 64), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            cur = x
            for i in range(size):
                kind = i % 5
                if kind == 0:
                    expr = relax.op.add(cur, x)
                elif kind == 1:
                    expr = relax.op.exp(cur)
                elif kind == 2:
                    expr = relax.op.reshape(cur, relax.ShapeExpr([n * 64]))
                elif kind == 3:
                    expr = relax.op.reshape(cur, relax.ShapeExpr([n, 64]))
                else:
                    expr = relax.op.multiply(cur, relax.op.sum(cur, axis=[1], keepdims=True))
                cur = bb.emit(expr) if i < size - 1 else bb.emit_output(expr)
        bb.emit_func_output(cur)
    return bb.get()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sizes", type=int, nargs="*", default=[1000, 10000, 100000])
    args = ap.parse_args()
    try:
        import tvm  # noqa: F401
        from tvm import relax
        have_tvm = True
    except Exception:  # noqa: BLE001 - TVM absent or broken
        have_tvm = False
    print(f"{'bindings':>9} {'relax_ref s':>12} {'us/binding':>11} {'TVM build s':>12} "
          f"{'TVM Normalize s':>16} {'TVM us/binding':>15}")
    for size in args.sizes:
        mod = build_ours(size)
        t0 = time.perf_counter()
        normalize(mod)
        ours = time.perf_counter() - t0
        build_s = tvm_s = tvm_per = "n/a"
        if have_tvm:
            t0 = time.perf_counter()
            tmod = build_tvm(size)  # TVM's BlockBuilder deduces as it emits
            build = time.perf_counter() - t0
            t0 = time.perf_counter()
            relax.transform.Normalize()(tmod)
            t = time.perf_counter() - t0
            build_s, tvm_s = f"{build:.3f}", f"{t:.3f}"
            tvm_per = f"{(build + t) / size * 1e6:.1f}"
        print(f"{size:>9} {ours:>12.3f} {ours / size * 1e6:>11.1f} {build_s:>12} {tvm_s:>16} "
              f"{tvm_per:>15}", flush=True)
    print("(relax_ref's time per binding should stay flat as the module grows: deduction is "
          "linear. TVM deduces while its BlockBuilder emits, so its build time is the "
          "comparable figure; Normalize on the result finds little left to do.)")


if __name__ == "__main__":
    main()
