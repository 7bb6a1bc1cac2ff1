"""Parse time: relax_ref vs TVM's ``tvm.script.from_source`` on the same text.

Prints, from one run, our time, TVM's time and the ratio (ours / TVM's; below 1 means we
are faster) for the largest TVMScript sample and for a generated module of at least
10,000 lines. Without the ``tvm`` extra only our times are printed.

    python bench/parse.py [--lines 10000] [--repeat 3]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from relax_ref.parser.builder import parse  # noqa: E402

SAMPLES = REPO.parent / "shared" / "tvmscript-samples"

_PRIM_FUNC = '''\
    @T.prim_func(private=True, s_tir=True)
    def add{i}(A: T.Buffer((n, T.int64(64)), "float32"), B: T.Buffer((T.int64(64),), "float32"), C: T.Buffer((n, T.int64(64)), "float32")):
        T.func_attr({{"tirx.noalias": True}})
        # with T.sblock("root"):
        for i0, i1 in T.grid(n, T.int64(64)):
            with T.sblock("T_add"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(A[v_i0, v_i1], B[v_i1])
                T.writes(C[v_i0, v_i1])
                C[v_i0, v_i1] = A[v_i0, v_i1] + B[v_i1] * T.float32(0.5)

'''


def generated_module(min_lines: int) -> str:
    """A module shaped like TVM's printing of a legalized model: many small prim_funcs
    and a long dataflow block calling them."""
    n_funcs = max(1, min_lines // 40)
    parts = ["# from tvm.script import ir as I\n# from tvm.script import tirx as T\n"
             "# from tvm.script import relax as R\n\n", 'n = TypeVar("n")\n', "@I.ir_module\n",
             "class Module:\n"]
    for i in range(n_funcs):
        parts.append(_PRIM_FUNC.format(i=i))
    parts.append('    @R.function\n    def main(x: R.Tensor((n, 64), dtype="float32"), '
                 'b: R.Tensor((64,), dtype="float32")) -> R.Tensor((n, 64), dtype="float32"):\n'
                 "        cls = Module\n        with R.dataflow():\n            lv0 = x\n")
    lines = sum(p.count("\n") for p in parts)
    i = 0
    while lines < min_lines - 2 or i < n_funcs:
        parts.append(f"            lv{i + 1} = R.call_tir(cls.add{i % n_funcs}, (lv{i}, b), "
                     f'out_ty=R.Tensor((n, 64), dtype="float32"))\n')
        i += 1
        lines += 1
    parts.append(f"            R.output(lv{i})\n        return lv{i}\n")
    return "".join(parts)


def best_time(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--lines", type=int, default=10000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    try:
        from tvm.script import from_source  # type: ignore
    except Exception:  # noqa: BLE001 - any import failure means TVM is unavailable
        from_source = None
    cases = []
    if SAMPLES.is_dir():
        largest = max(SAMPLES.glob("*.py"), key=lambda p: p.stat().st_size)
        cases.append((f"sample {largest.name}", largest.read_text(), True))
    cases.append((f"generated ({args.lines}+ lines)", generated_module(args.lines), True))
    parse(cases[0][1])  # build the grammar once, outside the timings
    print(f"{'text':<36} {'lines':>7} {'relax_ref s':>12} {'TVM s':>10} {'ratio':>7}")
    for name, text, tvm_can in cases:
        ours = best_time(lambda: parse(text), args.repeat)
        theirs = None
        if from_source is not None and tvm_can:
            theirs = best_time(lambda: from_source(text), max(1, args.repeat - 1))
        ratio = f"{ours / theirs:7.2f}" if theirs else "    n/a"
        tvm_s = f"{theirs:10.3f}" if theirs else "       n/a"
        print(f"{name:<36} {text.count(chr(10)):>7} {ours:12.3f} {tvm_s} {ratio}")
    if from_source is None:
        print("(TVM is not installed: pip install -e '.[tvm]' to compare)")


if __name__ == "__main__":
    main()
