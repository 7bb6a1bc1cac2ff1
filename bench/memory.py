"""Activation memory of the Llama-3-8B-shaped decoder stack of bench/pipeline.py without a
plan, with our StaticPlanBlockMemory and with TVM's, on paper Table 2's workload.

Workload: successive prefill at sequence lengths 128, 256, 512, 1024 (upper bound 1024),
and successive decode steps at batch 1, 16, 32, 64 (upper bound 64) with a key/value
cache of ``--context`` tokens (the decode module is the prefill stack with one token per
sequence; each layer writes its new key and value into its cache, a parameter, with an
in-place kernel and attends to the cache). Both
modules go through LegalizeOps, AnnotateTIROpPattern, FuseOps, FuseTIR, ToNonDataflow,
RemovePurityChecking and CallTIRRewrite (memplan.STAGES), then each planner.

"Total allocated" is what a runtime pool that recycles a freed block only for a request of
the same size ends up holding over the whole workload: every storage and every
allocation left unplanned is a request when it is allocated and freed after the last use
of its tensors (the plan checker's liveness, verify_memory). Without a plan each tensor is
a request of its own exact size; with a plan, the storages are requests of their (upper
bound) size and the results stay exact. TVM's plan is TVM 0.27's StaticPlanBlockMemory on
the same module (ours printed, read by TVM, its output read back), measured the same way.
Targets: ours never above TVM's; at least 22% saved in prefill and 40% in decode.

    python bench/memory.py [--layers 4] [--context 1024]
"""
from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from pipeline import llama_stack  # noqa: E402

PREFILL = ("n", 1024, (128, 256, 512, 1024))
DECODE = ("b", 64, (1, 16, 32, 64))
MIB = float(1 << 20)


KV_APPEND = """
    @T.prim_func(private=True)
    def kv_append(var_cache: T.handle, var_new: T.handle):
        b, m = T.int64(), T.int64()
        cache = T.match_buffer(var_cache, (b, m, T.int64({kv}), T.int64(128)), "float16")
        new = T.match_buffer(var_new, (b, T.int64(1), T.int64({kv}), T.int64(128)), "float16")
        for i, h, d in T.grid(b, T.int64({kv}), T.int64(128)):
            with T.block("append"):
                vi, vh, vd = T.axis.remap("SSS", [i, h, d])
                cache[vi, m - T.int64(1), vh, vd] = new[vi, T.int64(0), vh, vd]
"""


def decode_stack(layers: int) -> str:
    """The stack for one decode step: ``b`` sequences of one token. Each layer writes its
    new key and value into the last slot of its cache (``m`` tokens, a parameter) with an
    in-place kernel, as a KV cache is updated, and attends to the cache."""
    text = llama_stack(layers)
    text = text.replace("R.reshape(cos, R.shape([1, n, 1,", "R.reshape(cos, R.shape([1, 1, 1,")
    text = text.replace("R.reshape(sin, R.shape([1, n, 1,", "R.reshape(sin, R.shape([1, 1, 1,")
    text = text.replace("(n, 128)", "(1, 128)").replace("1, n, ", "b, 1, ")
    text = text.replace('n = TypeVar("n")', 'b = TypeVar("b")\nm = TypeVar("m")')
    kv = re.search(r"kh0 = R\.reshape\(kp0, R\.shape\(\[b, 1, (\d+), 128\]\)\)", text).group(1)
    cache = f'R.Tensor((b, m, {kv}, 128), dtype="float16")'
    params = []
    for i in range(layers):
        params.append(f"kcache{i}: {cache}, vcache{i}: {cache}")
        append = (f"kfull{i} = R.call_tir_inplace(cls.kv_append, (kcache{i}, ko{i}), 0, "
                  f"out_ty={cache})\n            vfull{i} = R.call_tir_inplace("
                  f"cls.kv_append, (vcache{i}, vh{i}), 0, out_ty={cache})\n            ")
        text = text.replace(f"att{i} = R.nn.attention(qo{i}, ko{i}, vh{i},",
                            f"{append}att{i} = R.nn.attention(qo{i}, kfull{i}, vfull{i},")
    text = text.replace('sin: R.Tensor((1, 128), dtype="float16")',
                        'sin: R.Tensor((1, 128), dtype="float16"), ' + ", ".join(params))
    text = text.replace("        with R.dataflow():", "        cls = Module\n"
                        "        with R.dataflow():", 1)
    return text.replace("class Module:\n", "class Module:\n" + KV_APPEND.format(kv=kv), 1)


def with_bound(text: str, var: str, bound: int, extra: dict[str, int]) -> str:
    bounds = ", ".join(f'"{k}": {v}' for k, v in {var: bound, **extra}.items())
    return text.replace("        with R.dataflow():",
                        f'        R.func_attr({{"tir_var_upper_bound": {{{bounds}}}}})\n'
                        f"        with R.dataflow():", 1)


def requests(mod, env: dict[str, int]) -> list[tuple[int, int, int]]:
    """(start, end, bytes) of every block ``main`` asks the runtime for, at ``env``."""
    from relax_ref.memplan import measure, evaluate

    side = measure("main", mod["main"], mod, lambda e: e)
    out = []
    for b in side.blocks:
        size = evaluate(b.size, env)
        if size is None:
            raise ValueError(f"{b.name}: size {b.size} has a variable without a value")
        out.append((b.start, b.end, size))
    return out


def pooled_total(mod, var: str, values, fixed: dict[str, int]) -> int:
    """Bytes a same-size recycling pool holds after the successive runs at ``values``."""
    free: dict[int, int] = {}
    total = 0
    for value in values:
        blocks = requests(mod, {var: value, **fixed})
        events = sorted([(s, 1, size) for s, _, size in blocks] +
                        [(e, 2, size) for _, e, size in blocks])  # free after the last use
        for _, kind, size in events:
            if kind == 1:
                if free.get(size):
                    free[size] -= 1
                else:
                    total += size
            else:
                free[size] = free.get(size, 0) + 1
    return total


def tvm_plan(mod):
    """TVM 0.27's StaticPlanBlockMemory on ``mod``, read back (None without TVM)."""
    try:
        import tvm
        from tvm import relax
    except ImportError:
        return None
    from relax_ref.parser.builder import parse
    from relax_ref.semantics.normalize import normalize

    theirs = relax.transform.StaticPlanBlockMemory()(tvm.script.from_source(mod.script()))
    return normalize(parse(theirs.script(), "tvm_plan"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--context", type=int, default=1024, help="decode: cached tokens (m)")
    args = ap.parse_args()

    import relax_ref
    from relax_ref.memplan import prepare
    from relax_ref.passes.static_plan_block_memory import plan_memory

    rows = []
    for label, text, (var, bound, values), fixed, target in (
            ("prefill", llama_stack(args.layers), PREFILL, {}, 22.0),
            ("decode", decode_stack(args.layers), DECODE, {"m": args.context}, 40.0)):
        t0 = time.perf_counter()
        mod = relax_ref.check(relax_ref.from_source(with_bound(text, var, bound, fixed),
                                                    f"llama_{label}"))
        before = prepare(mod)
        t1 = time.perf_counter()
        ours, _, problems = plan_memory(before)
        t2 = time.perf_counter()
        theirs = tvm_plan(before)
        sizes = {"no plan": pooled_total(before, var, values, fixed),
                 "ours": pooled_total(ours, var, values, fixed)}
        if theirs is not None:
            sizes["TVM"] = pooled_total(theirs, var, values, fixed)
        rows.append((label, var, values, sizes, target, problems, t1 - t0, t2 - t1))

    print(f"Llama-3-8B-shaped stack, {args.layers} layers, float16; activation memory "
          f"allocated over the workload (MiB)")
    print(f"{'workload':<34} {'no plan':>9} {'ours':>9} {'TVM':>9} {'saved':>7} target")
    for label, var, values, sizes, target, problems, t_prep, t_plan in rows:
        saved = 100 * (1 - sizes["ours"] / sizes["no plan"])
        tvm = f"{sizes['TVM'] / MIB:9.1f}" if "TVM" in sizes else f"{'-':>9}"
        what = f"{label} {var} = {', '.join(map(str, values))}"
        verdict = "ok" if saved >= target and sizes["ours"] <= sizes.get("TVM", sizes["ours"]) \
            else "MISSED"
        print(f"{what:<34} {sizes['no plan'] / MIB:9.1f} {sizes['ours'] / MIB:9.1f} {tvm} "
              f"{saved:6.1f}% >= {target:.0f}% and <= TVM: {verdict}")
        if problems:
            print(f"  {len(problems)} plan problem(s) fell back: {problems[0]}")
        print(f"  (stages before planning {t_prep:.1f} s, our planning {t_plan:.2f} s)")


if __name__ == "__main__":
    main()
