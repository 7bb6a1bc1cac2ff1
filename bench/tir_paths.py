"""TIR interpreter paths side by side: the scalar (definitional) path against the
vectorized one on the same PrimFunc and inputs (spec/tir_semantics.md, EXEC-tir-vec-1).

Prints each mode's best time over a few rounds and the scalar / vectorized ratio (the
vectorized path is the point of having two; on the 2-core VM it is well over 5x on a
16x16 by 16x32 matmul). Timing lives here and not in the tests: a test must not depend
on how much work fits in a given time.

    python bench/tir_paths.py [--m 16] [--k 16] [--n 32] [--repeat 5]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from relax_ref.ir import tir  # noqa: E402
from relax_ref.parser.builder import parse  # noqa: E402
from relax_ref.semantics.tir_interp import run_prim_func  # noqa: E402

MATMUL = '''
@I.ir_module
class Module:
    @T.prim_func
    def matmul(A: T.Buffer(({m}, {k}), "float32"), B: T.Buffer(({k}, {n}), "float32"),
               C: T.Buffer(({m}, {n}), "float32")):
        for i, j, r in T.grid({m}, {n}, {k}):
            with T.sblock("C"):
                vi, vj, vr = T.axis.remap("SSR", [i, j, r])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vr] * B[vr, vj]
'''


def best_time(func: tir.PrimFunc, a, b, shape, mode: str, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        out = np.zeros(shape, np.float32)
        start = time.perf_counter()
        run_prim_func(func, [a, b, out], mode=mode)
        best = min(best, time.perf_counter() - start)
    np.testing.assert_allclose(out, a @ b, rtol=1e-4, atol=1e-4)
    return best


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--m", type=int, default=16)
    ap.add_argument("--k", type=int, default=16)
    ap.add_argument("--n", type=int, default=32)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    func = parse(MATMUL.format(m=args.m, k=args.k, n=args.n))["matmul"]
    rng = np.random.default_rng(3)
    a = rng.standard_normal((args.m, args.k)).astype(np.float32)
    b = rng.standard_normal((args.k, args.n)).astype(np.float32)
    times = {mode: best_time(func, a, b, (args.m, args.n), mode, args.repeat)
             for mode in ("scalar", "vectorized")}
    print(f"matmul {args.m}x{args.k} by {args.k}x{args.n}, best of {args.repeat}")
    print(f"  scalar      {times['scalar'] * 1e3:9.2f} ms")
    print(f"  vectorized  {times['vectorized'] * 1e3:9.2f} ms")
    print(f"  scalar / vectorized = {times['scalar'] / times['vectorized']:.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
