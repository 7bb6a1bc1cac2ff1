"""Replays the symbolic questions that struct-info deduction and memory planning ask
about an MLP and a transformer layer with dynamic batch and sequence length, and reports
how they were answered (target: >= 95% without Z3).

    python bench/solver.py

The queries are generated programmatically over several model sizes; each model gets a
fresh Analyzer, as a function would, with its ``tir_var_upper_bound`` attribute.
"""
from __future__ import annotations

import statistics
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from relax_ref.ir.dtype import BOOL                                        # noqa: E402
from relax_ref.ir.prim_expr import (                                       # noqa: E402
    GE, LE, FloorMod, IntImm, Max, Min, PrimExpr, Var,
)
from relax_ref.solver.analyzer import Analyzer, AnalyzerStats              # noqa: E402
from relax_ref.solver.constraints import ShapeConstraints                  # noqa: E402


def c(v: int) -> IntImm:
    return IntImm(v)


def prod(dims) -> PrimExpr:
    out: PrimExpr = c(1)
    for d in dims:
        out = out * d
    return out


@dataclass
class Query:
    kind: str          # the row of the report
    run: Callable[[], object]


@dataclass
class Row:
    count: int = 0
    z3: int = 0
    times: list[float] = field(default_factory=list)


# ---------------------------------------------------------------------------
# Query generators (one call per model configuration)
# ---------------------------------------------------------------------------

def mlp_queries(sc: ShapeConstraints, n: Var, widths: list[int], image: int) -> list[Query]:
    """A dynamic-batch MLP: flatten [n, image, image] -> [n, image*image], dense layers,
    then storage planning over the intermediate tensors."""
    an = sc.analyzer
    qs: list[Query] = []
    flat = image * image
    qs.append(Query("reshape/flatten", lambda: sc.same_num_elements([n, image, image], [n, flat])))
    qs.append(Query("reshape/flatten", lambda: an.prove_equal(n * image * image, flat * n)))
    dims = [flat] + widths
    for i, (k_in, k_out) in enumerate(zip(dims, dims[1:])):
        # matmul: x [n, k_in] @ w [k_in, k_out]; bias add broadcast [n, k_out] + [k_out]
        qs.append(Query("dim equality", lambda k=k_in: sc.equal_dims(c(k), c(k))))
        qs.append(Query("dim equality", lambda: sc.same_shape([n, c(k_out)], [n * 1, c(k_out)])))
        size = n * k_out * 4
        qs.append(Query("storage bound", lambda s=size: an.upper_bound(s)))
        if i:
            prev = n * k_in * 4
            # Memory planning: can the output reuse the storage of the layer before?
            qs.append(Query("storage reuse", lambda s=size, p=prev: an.can_prove(LE(s, p, BOOL))))
    return qs


def transformer_queries(sc: ShapeConstraints, b: Var, s: Var, past: Var, hidden: int,
                        heads: int, kv_heads: int, ffn: int) -> list[Query]:
    """One decoder layer: QKV projection, reshape to heads, rotary split, KV-cache concat,
    attention, MLP; plus padding, splitting and storage-planning questions."""
    an = sc.analyzer
    hd = hidden // heads
    tokens = b * s
    qs: list[Query] = []

    def add(kind: str, fn: Callable[[], object]) -> None:
        qs.append(Query(kind, fn))

    # Flatten tokens for the projections, and back.
    add("reshape/flatten", lambda: sc.same_num_elements([b, s, hidden], [tokens, hidden]))
    add("reshape/flatten", lambda: sc.same_num_elements([tokens, hidden], [b, s, heads, hd]))
    add("reshape/flatten", lambda: an.prove_equal(tokens // s, b))      # s >= 1
    add("reshape/flatten", lambda: an.prove_equal(s * b * hidden, b * s * heads * hd))
    add("reshape/flatten", lambda: sc.same_num_elements([b, s, kv_heads, hd], [b * s, kv_heads * hd]))
    # Fused QKV: split [b, s, (heads + 2*kv_heads) * hd] into three.
    qkv = (heads + 2 * kv_heads) * hd
    add("split", lambda: an.prove_equal(c(heads * hd) + kv_heads * hd * 2, c(qkv)))
    # Rotary embedding: split head_dim in halves and concatenate back.
    rot = (c(hd) + 1) // 2
    add("split", lambda: an.prove_equal(rot + (hd - rot), c(hd)))
    # Split along a symbolic axis (sequence parallel / chunked prefill).
    for length in (s, tokens, s + past):
        half = (length + 1) // 2
        add("split", lambda L=length, h=half: an.prove_equal(h + (L - h), L))
        add("split", lambda L=length, h=half: an.can_prove(LE(L - h, h, BOOL)))
    # KV cache concat along the sequence: [b, past, kv, hd] ++ [b, s, kv, hd].
    total = past + s
    add("dim equality", lambda: sc.same_shape([b, total, kv_heads, hd], [b, s + past, kv_heads, hd]))
    # Attention: q [b, heads, s, hd] x k^T [b, heads, hd, total] -> [b, heads, s, total]
    add("dim equality", lambda: sc.same_shape([b, heads, s, hd], [b, heads, s, hd]))
    add("dim equality", lambda: sc.equal_dims(c(hd), c(hd)))
    add("dim equality", lambda: sc.same_shape([b * heads, s, total], [heads * b, s, s + past]))
    # GQA: heads are a multiple of kv_heads; repeat kv along heads.
    add("divisibility", lambda: an.is_divisible(c(heads), kv_heads))
    add("reshape/flatten", lambda: sc.same_num_elements(
        [b, total, kv_heads, heads // kv_heads, hd], [b, total, heads, hd]))
    # Padding the sequence to the tile size, and the padded length's properties.
    for tile in (16, 32, 64, 128):
        padded = (s + (tile - 1)) // tile * tile
        add("padding", lambda p=padded: an.can_prove(GE(p, s, BOOL)))
        add("padding", lambda p=padded, t=tile: an.can_prove(LE(p - s, c(t - 1), BOOL)))
        add("divisibility", lambda p=padded, t=tile: an.is_divisible(p, t))
        add("divisibility", lambda p=padded, t=tile: an.prove_equal(FloorMod(p, c(t), p.dtype), c(0)))
        add("padding", lambda p=padded, t=tile: an.prove_equal(p // t * t, p))
    # The sequence is given in chunks of 8 tokens (divisibility from match_cast).
    add("divisibility", lambda: an.is_divisible(s * b * hidden, 8))
    add("divisibility", lambda: an.is_divisible(s + 8, 8))
    add("divisibility", lambda: an.is_divisible(s + 4, 8))                   # false
    add("reshape/flatten", lambda: an.prove_equal(s // 8 * 8, s))
    # Storage sizes (bytes, float16) and their bounds for static planning.
    tensors = {
        "hidden": [b, s, hidden], "qkv": [b, s, qkv], "q": [b, heads, s, hd],
        "k_cache": [b, kv_heads, total, hd], "scores": [b, heads, s, total],
        "ffn_up": [b, s, ffn], "ffn_gate": [b, s, ffn], "out": [b, s, hidden],
        "logits_chunk": [b, Min(s, c(512), s.dtype), c(hidden)],
    }
    sizes = {name: prod(dims) * 2 for name, dims in tensors.items()}
    for name, size in sizes.items():
        add("storage bound", lambda z=size: an.upper_bound(z))
    names = list(sizes)
    for i, x in enumerate(names):
        for y in names[i + 1:]:
            # Memory planning: can tensor y live in x's storage (and vice versa)?
            add("storage reuse", lambda zx=sizes[x], zy=sizes[y]: an.can_prove(LE(zy, zx, BOOL)))
            add("storage reuse", lambda zx=sizes[x], zy=sizes[y]: an.can_prove(LE(zx, zy, BOOL)))
    # Workspace: the max of two sizes, and sizes that are equal after simplification.
    add("storage bound", lambda: an.upper_bound(Max(sizes["ffn_up"], sizes["scores"], s.dtype)))
    add("storage reuse", lambda: an.prove_equal(sizes["ffn_up"], sizes["ffn_gate"]))
    add("storage reuse", lambda: an.prove_equal(sizes["hidden"], sizes["out"]))
    # The context window bounds past + seq together (a fact from the model config):
    # relational questions, and tight storage bounds for the KV cache and the scores.
    add("relational", lambda: an.can_prove(LE(past + s, c(4096), BOOL)))
    add("relational", lambda: an.can_prove(LE(past, 4096 - s, BOOL)))
    add("relational", lambda: an.can_prove(LE(past * 2 + s * 2, c(8192 + 16), BOOL)))
    add("relational", lambda: an.can_prove(LE(past + s * 2, c(4096), BOOL)))     # false
    add("storage bound", lambda: an.upper_bound(sizes["k_cache"], tighten=True))
    # Dynamic shapes that are not equal (false: must not be proved).
    add("dim equality", lambda: sc.equal_dims(s, b))
    add("dim equality", lambda: sc.equal_dims(total, s))
    add("reshape/flatten", lambda: sc.same_num_elements([b, s], [s, s]))
    return qs


# ---------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------

TRANSFORMERS = [  # hidden, heads, kv_heads, ffn
    (768, 12, 12, 3072), (1024, 16, 16, 4096), (2048, 16, 8, 5632), (2560, 32, 32, 10240),
    (3072, 24, 8, 8192), (4096, 32, 8, 11008), (4096, 32, 32, 14336), (5120, 40, 40, 13824),
]
MLPS = [([512, 256, 10], 28), ([1024, 1024, 512, 10], 32), ([256, 128, 64, 10], 16)]


def build_models() -> list[tuple[str, Analyzer, list[Query]]]:
    models = []
    for widths, image in MLPS:
        an = Analyzer()
        sc = ShapeConstraints(an)
        n = Var("n")
        an.add_upper_bound(n, 128)                      # tir_var_upper_bound {"n": 128}
        an.add_lower_bound(n, 1)
        models.append((f"mlp{image}x{image}-{len(widths)}", an, mlp_queries(sc, n, widths, image)))
    for hidden, heads, kv_heads, ffn in TRANSFORMERS:
        an = Analyzer()
        sc = ShapeConstraints(an)
        b, s, past = Var("batch"), Var("seq_len"), Var("past_len")
        an.add_upper_bound(b, 8)
        an.add_upper_bound(s, 4096)
        an.add_upper_bound(past, 4096)
        an.add_lower_bound(s, 1)
        an.add_fact(LE(past + s, c(4096), BOOL))       # the context window
        sc.add_divisible(s, 8)
        models.append((f"decoder-h{hidden}", an, transformer_queries(
            sc, b, s, past, hidden, heads, kv_heads, ffn)))
    return models


def main() -> None:
    start = time.perf_counter()
    models = build_models()
    rows: dict[str, Row] = defaultdict(Row)
    total = AnalyzerStats()
    all_times: list[float] = []
    for _, an, queries in models:
        for q in queries:
            before = an.stats.by_z3 + an.stats.bound_z3_calls
            t0 = time.perf_counter()
            q.run()
            dt = time.perf_counter() - t0
            row = rows[q.kind]
            row.count += 1
            row.times.append(dt)
            row.z3 += (an.stats.by_z3 + an.stats.bound_z3_calls) > before
            all_times.append(dt)
        for name in vars(total):
            setattr(total, name, getattr(total, name) + getattr(an.stats, name))

    n = sum(r.count for r in rows.values())
    no_z3 = sum(r.count - r.z3 for r in rows.values())
    print(f"{len(models)} models, {n} queries\n")
    header = f"{'query kind':<18}{'count':>7}{'no Z3':>9}{'median':>11}{'max':>11}"
    print(header)
    print("-" * len(header))
    for kind in sorted(rows):
        r = rows[kind]
        print(f"{kind:<18}{r.count:>7}{100 * (r.count - r.z3) / r.count:>8.1f}%"
              f"{1e6 * statistics.median(r.times):>9.0f}us{1e6 * max(r.times):>9.0f}us")
    print("-" * len(header))
    print(f"{'all':<18}{n:>7}{100 * no_z3 / n:>8.1f}%"
          f"{1e6 * statistics.median(all_times):>9.0f}us{1e6 * max(all_times):>9.0f}us\n")
    print("Analyzer statistics (all models):")
    print(total)
    target = "met" if no_z3 / n >= 0.95 else "NOT met"
    print(f"\nanswered without Z3: {100 * no_z3 / n:.1f}% (target >= 95%: {target})")
    print(f"total Z3 time: {1000 * total.z3_time:.1f} ms; "
          f"wall time: {time.perf_counter() - start:.2f} s")


if __name__ == "__main__":
    main()
