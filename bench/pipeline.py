"""LegalizeOps time and the whole default pipeline's, ours vs TVM's, on a
Llama-3-8B-shaped decoder stack.

The module (written by ``llama_stack``) has 4 decoder layers of hidden size 4096, 32 query
heads and 8 key/value heads of 128, an MLP of width 14336, float16, and a dynamic
sequence length ``n``: RMSNorm, the q/k/v projections, rotary embedding, grouped-query
causal attention (``R.nn.attention``), the output projection, a SwiGLU MLP and the
residual adds. The weights are parameters, as a frontend imports them.

Both sides start from a parsed and normalized module (parsing excluded) and run their
LegalizeOps on it, in alternating rounds; the table shows each one's best time and the
ratio is the median over rounds of the ratio within a round (a slow spell of the shared
machine hits both sides of a round alike). Target: ours / TVM's <= 1.0.

The second measurement is our whole default pipeline (``PIPELINES["default"]``) against
the passes ``tvm.compile`` runs before code generation
(``relax.pipeline.default_build_pipeline()``), same rounds, same ratio.

    python bench/pipeline.py [--layers 4] [--repeat 10] [--print] [--profile]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def llama_stack(layers: int = 4, hidden: int = 4096, heads: int = 32, kv_heads: int = 8,
                ffn: int = 14336, dtype: str = "float16") -> str:
    """The TVMScript text of a Llama-style decoder stack with a dynamic sequence length."""
    head_dim = hidden // heads
    kv = kv_heads * head_dim
    half = head_dim // 2
    def t(shape) -> str:
        dims = ", ".join(d if isinstance(d, str) and not d.isdigit() and d != "n" else str(d)
                         for d in shape)
        return f'R.Tensor(({dims}{"," if len(shape) == 1 else ""}), dtype="{dtype}")'

    params = [f"x: {t((1, 'n', hidden))}", f"cos: {t(('n', head_dim))}",
              f"sin: {t(('n', head_dim))}"]
    for i in range(layers):
        params += [f"g_attn{i}: {t((hidden,))}", f"wq{i}: {t((hidden, hidden))}",
                   f"wk{i}: {t((hidden, kv))}", f"wv{i}: {t((hidden, kv))}",
                   f"wo{i}: {t((hidden, hidden))}", f"g_mlp{i}: {t((hidden,))}",
                   f"w_gate{i}: {t((hidden, ffn))}", f"w_up{i}: {t((hidden, ffn))}",
                   f"w_down{i}: {t((ffn, hidden))}"]
    body = []
    emit = body.append
    h = "x"
    for i in range(layers):
        emit(f"a{i} = R.nn.rms_norm({h}, g_attn{i}, axes=[-1], epsilon=1e-05)")
        for name, w, nh in (("q", f"wq{i}", heads), ("k", f"wk{i}", kv_heads),
                            ("v", f"wv{i}", kv_heads)):
            emit(f"{name}p{i} = R.matmul(a{i}, {w})")
            emit(f"{name}h{i} = R.reshape({name}p{i}, R.shape([1, n, {nh}, {head_dim}]))")
        for name, nh in (("q", heads), ("k", kv_heads)):
            emit(f"{name}s{i} = R.split({name}h{i}, indices_or_sections=2, axis=-1)")
            emit(f"{name}r{i} = R.concat((R.negative({name}s{i}[1]), {name}s{i}[0]), axis=-1)")
            emit(f"{name}c{i} = R.multiply({name}h{i}, R.reshape(cos, R.shape([1, n, 1, {head_dim}])))")
            emit(f"{name}d{i} = R.multiply({name}r{i}, R.reshape(sin, R.shape([1, n, 1, {head_dim}])))")
            emit(f"{name}o{i} = R.add({name}c{i}, {name}d{i})")
        emit(f"att{i} = R.nn.attention(qo{i}, ko{i}, vh{i}, causal_mask=\"BottomRight\")")
        emit(f"m{i} = R.reshape(att{i}, R.shape([1, n, {hidden}]))")
        emit(f"r{i} = R.add({h}, R.matmul(m{i}, wo{i}))")
        emit(f"b{i} = R.nn.rms_norm(r{i}, g_mlp{i}, axes=[-1], epsilon=1e-05)")
        emit(f"gate{i} = R.nn.silu(R.matmul(b{i}, w_gate{i}))")
        emit(f"up{i} = R.matmul(b{i}, w_up{i})")
        emit(f"down{i} = R.matmul(R.multiply(gate{i}, up{i}), w_down{i})")
        emit(f"h{i} = R.add(r{i}, down{i})")
        h = f"h{i}"
    lines = "\n".join(f"            {b}" for b in body)
    sig = ", ".join(params)
    return f'''# A Llama-3-8B-shaped decoder stack ({layers} layers), written by bench/pipeline.py.
n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main({sig}) -> {t((1, 'n', hidden))}:
        with R.dataflow():
{lines}
            R.output({h})
        return {h}
'''


def rounds(fns: dict, repeat: int) -> dict:
    times: dict = {k: [] for k in fns}
    for _ in range(repeat):
        for k, fn in fns.items():
            t0 = time.perf_counter()
            fn()
            times[k].append(time.perf_counter() - t0)
    return {k: np.array(v) for k, v in times.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--print", action="store_true", help="print our lowered module")
    ap.add_argument("--profile", action="store_true",
                    help="profile our default pipeline once and print its top costs")
    args = ap.parse_args()
    text = llama_stack(args.layers)

    import relax_ref
    from relax_ref.passes.legalize_ops import legalize_ops

    mod = relax_ref.check(relax_ref.from_source(text, "llama_stack"))
    out = legalize_ops(mod)
    if args.print:
        print(out.script())
    from relax_ref.ir import relax as rx
    left = sorted({b.value.op.name for f in out.functions.values() if isinstance(f, rx.Function)
                   for blk in f.body.blocks for b in blk.bindings
                   if isinstance(b.value, rx.Call) and isinstance(b.value.op, rx.Op)
                   and b.value.op.name != "relax.call_tir"})
    prims = sum(1 for f in out.functions.values() if not isinstance(f, rx.Function))
    print(f"llama stack: {args.layers} layers; ours lowered it to {prims} PrimFuncs; "
          f"ops left: {', '.join(left) or 'none'}")
    fns = {"ours": lambda: legalize_ops(mod)}
    try:
        import tvm
        from tvm import relax
        from tvm.script import from_source

        tmod = relax.transform.Normalize()(from_source(text))
        fns["tvm"] = lambda: relax.transform.LegalizeOps()(tmod)
    except Exception as err:  # noqa: BLE001 - TVM absent or failing
        print(f"(TVM not measured: {type(err).__name__}: {err})")
    for fn in fns.values():
        fn()  # warm up
    times = rounds(fns, args.repeat)
    print(f"best of {args.repeat} rounds:")
    for k, v in times.items():
        print(f"  {k:<5} LegalizeOps {v.min() * 1000:9.1f} ms")
    if "tvm" in times:
        med = float(np.median(times["ours"] / times["tvm"]))
        print(f"ours / TVM's = {med:.2f} (median of per-round ratios; ratio of best times "
              f"{times['ours'].min() / times['tvm'].min():.2f})  target <= 1.0")
    default_pipeline(text, mod, args.repeat, args.profile)


def default_pipeline(text: str, mod, repeat: int, profile: bool) -> None:
    """Our whole default pipeline (PIPELINES["default"]) vs the passes tvm.compile runs
    before code generation (``relax.pipeline.default_build_pipeline()``, under an llvm
    target) on the same module, in alternating rounds as above."""
    from relax_ref.passes.pipeline import PIPELINES, Pipeline

    ours = Pipeline(PIPELINES["default"])
    fns = {"ours": lambda: ours(mod)}
    try:
        import tvm
        from tvm import relax
        from tvm.script import from_source

        tmod = relax.transform.Normalize()(from_source(text))
        target = tvm.target.Target("llvm")
        build = relax.pipeline.default_build_pipeline()

        def theirs():
            with target:
                build(tmod)
        fns["tvm"] = theirs
    except Exception as err:  # noqa: BLE001 - TVM absent or failing
        print(f"(TVM's default pipeline not measured: {type(err).__name__}: {err})")
    for fn in fns.values():
        fn()  # warm up
    times = rounds(fns, repeat)
    for k, v in times.items():
        print(f"  {k:<5} default pipeline {v.min() * 1000:9.1f} ms")
    if "tvm" in times:
        med = float(np.median(times["ours"] / times["tvm"]))
        print(f"default pipeline: ours / TVM's = {med:.2f} (median of per-round ratios; "
              f"ratio of best times {times['ours'].min() / times['tvm'].min():.2f})  "
              f"target <= 1.0")
    if profile:
        import cProfile
        import pstats

        steps: dict[str, float] = {}
        for _ in range(3):  # best of 3 per pass
            m = mod
            for p in ours.passes:
                t0 = time.perf_counter()
                m = p(m)
                t = time.perf_counter() - t0
                steps[p.name] = min(steps.get(p.name, t), t)
        print("our default pipeline per pass (best of 3):")
        for name, t in sorted(steps.items(), key=lambda kv: -kv[1]):
            print(f"  {name:<24} {t * 1000:8.1f} ms")
        prof = cProfile.Profile()
        prof.runcall(fns["ours"])
        print("our default pipeline's top costs (own time):")
        pstats.Stats(prof).sort_stats("tottime").print_stats(12)


if __name__ == "__main__":
    main()
