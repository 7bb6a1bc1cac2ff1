"""``relax-ref memplan``: a function's allocations before and after StaticPlanBlockMemory,
with symbolic sizes, total and peak bytes at chosen values of the symbolic variables, and
the timeline of storage reuse as SVG (paper Fig. 10) (spec/api.md, CLI-memplan-*).

Both sides are measured the same way: an allocation not planned is a storage of its own
bytes (LowerAllocTensor's form), and the plan checker's liveness (verify_memory) gives each
tensor's interval. A storage is live from its allocation to the last use of its tensors.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from html import escape

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir.dtype import INT64
from relax_ref.ir.text import print_prim_expr
from relax_ref.ir.uses import walk_bindings
from relax_ref.passes.rewrite import Rewriter
from relax_ref.passes.static_plan_block_memory import plan_memory
from relax_ref.passes.verify_memory import (PlanProblem, function_analyzer,
                                            function_lifetimes, tensor_bytes)
from relax_ref.semantics import memory
from relax_ref.semantics.normalize import normalize
from relax_ref.solver.evaluate import EvaluationError, evaluate_int

#: CLI-memplan-1: the stages that bring a module to planning (those before
#: StaticPlanBlockMemory in the pipeline; each leaves an already-lowered module as it is).
STAGES = ("LegalizeOps", "AnnotateTIROpPattern", "FuseOps", "FuseTIR", "ToNonDataflow",
          "RemovePurityChecking", "CallTIRRewrite")


@dataclass
class Block:
    """One storage on the timeline, and the tensors placed in it in order."""

    name: str
    size: P.PrimExpr | None
    start: int
    end: int
    tensors: list[tuple[str, int, int]] = field(default_factory=list)  # name, from, to
    planned: bool = True  # False: an allocation of its own (not planned, or before)


@dataclass
class Side:
    blocks: list[Block]
    end: int

    def total(self, env) -> int | None:
        sizes = [evaluate(b.size, env) for b in self.blocks]
        return None if None in sizes else sum(sizes)

    def peak(self, env) -> int | None:
        sizes = [evaluate(b.size, env) for b in self.blocks]
        if None in sizes:
            return None
        return max((sum(s for b, s in zip(self.blocks, sizes) if b.start <= t <= b.end)
                    for t in range(self.end + 1)), default=0)


@dataclass
class FunctionReport:
    name: str
    before: Side
    after: Side
    bounds: dict[str, int]
    problems: list[PlanProblem]


def evaluate(e: P.PrimExpr | None, env: dict[str, int]) -> int | None:
    """``e``'s value with its variables set by name; None where one has no value."""
    if e is None:
        return None
    values = {v: env[v.name] for v in P.free_vars(e) if v.name in env}
    try:
        return int(evaluate_int(e, values))
    except EvaluationError:
        return None


def with_bounds(mod: rx.IRModule, bounds: dict[str, int]) -> rx.IRModule:
    """CLI-memplan-2: ``--bound n=V`` adds ``n <= V`` to ``tir_var_upper_bound`` of each
    Relax function (a bound the function already states is kept)."""
    if not bounds:
        return mod
    funcs = {}
    for name, f in mod.functions.items():
        if isinstance(f, rx.Function):
            old = f.attrs.get("tir_var_upper_bound")
            items = dict(old.items) if isinstance(old, rx.Attrs) else {}
            for k, v in bounds.items():
                items.setdefault(k, v)
            f = rx.Function(f.params, f.body, f.ret_struct_info, f.is_pure,
                            f.attrs.with_item("tir_var_upper_bound", rx.Attrs.of(items)),
                            f.is_private, span=f.span)
        funcs[name] = f
    return normalize(mod.with_functions(funcs))


def prepare(mod: rx.IRModule) -> rx.IRModule:
    from relax_ref.passes.registry import get_pass

    for stage in STAGES:
        mod = get_pass(stage)(mod)
    return mod


def _side(storages, tensors, end: int, simplify, names: dict[int, str]) -> Side:
    blocks: dict[int, Block] = {}
    for key, st in storages.items():
        blocks[key] = Block(st.name, simplify(st.size), st.defined, st.defined)
    for t in tensors:
        b = blocks[t.storage]
        b.tensors.append((names.get(id(t.var), t.name), t.defined, t.last_use))
        b.end = max(b.end, t.last_use)
    return Side(list(blocks.values()), end)


class _OwnStorages(Rewriter):
    """Each ``R.builtin.alloc_tensor`` becomes a storage of its own bytes holding it, so
    that one liveness walk measures both sides; the storages are marked not planned."""

    def __init__(self) -> None:
        super().__init__()
        self.own: set[int] = set()

    def binding(self, b: rx.Binding) -> list[rx.Binding]:
        v = b.value
        if not (isinstance(v, rx.Call) and isinstance(v.op, rx.Op)
                and v.op.name == "relax.builtin.alloc_tensor" and len(v.args) >= 4
                and isinstance(v.args[0], rx.ShapeExpr) and isinstance(v.args[1], rx.DataTypeImm)):
            return super().binding(b)
        shape, dtype, device, scope = v.args[:4]
        try:
            nbytes = tensor_bytes(shape.values, memory.itemsize(dtype.value))
        except memory.MemoryCheckError:
            return super().binding(b)
        storage = rx.Var(b.var.name_hint)
        self.own.add(id(storage))
        return [rx.VarBinding(storage, rx.Call(rx.Op("relax.memory.alloc_storage"), (
                    rx.ShapeExpr((nbytes,)), device, scope, dtype))),
                rx.VarBinding(b.var, rx.Call(rx.Op("relax.memory.alloc_tensor"), (
                    storage, rx.PrimValue(P.IntImm(0, INT64)), shape, dtype, device)))]


def measure(name: str, func: rx.Function, mod: rx.IRModule, simplify) -> Side:
    lowering = _OwnStorages()
    lowered = lowering.function(func)
    storages, tensors, end = function_lifetimes(name, lowered, mod)
    # CallTIRRewrite names every allocation "alloc"; the variable it is then bound to
    # (``a = alloc``) is the name the source gave the value
    names = {id(b.value): b.var.name_hint for b in walk_bindings(func.body)
             if isinstance(b.value, rx.Var)}
    side = _side(storages, tensors, end, simplify, names)
    for key, blk in zip(storages, side.blocks):
        blk.planned = key not in lowering.own
    return side


def memplan(mod: rx.IRModule, bounds: dict[str, int] | None = None,
            entry: str | None = None) -> list[FunctionReport]:
    """The report of each Relax function with allocations (or of ``entry``)."""
    bounds = dict(bounds or {})
    before = prepare(with_bounds(normalize(mod), bounds))
    after, _, problems = plan_memory(before)
    reports = []
    for name, f in before.functions.items():
        if not isinstance(f, rx.Function) or (entry is not None and name != entry):
            continue
        analyzer = function_analyzer(f)
        simplify = (lambda e: None if e is None else analyzer.simplify(e))
        b_side = measure(name, f, before, simplify)
        a_side = measure(name, after[name], after, simplify)
        if b_side.blocks or entry is not None:
            reports.append(FunctionReport(name, b_side, a_side, _bounds_of(f),
                                          [p for p in problems if p.function == name]))
    if entry is not None and not reports:
        raise KeyError(f"no Relax function named {entry!r}")
    return reports


def _bounds_of(f: rx.Function) -> dict[str, int]:
    ub = f.attrs.get("tir_var_upper_bound")
    return {k: v for k, v in ub.items if isinstance(v, int)} if isinstance(ub, rx.Attrs) else {}


# -- text ------------------------------------------------------------------------------------


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"


def _bytes(n: int | None) -> str:
    if n is None:
        return "symbolic"
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit} ({n} B)"
    return f"{n} B"


def _size_text(e, env) -> str:
    text = "unknown" if e is None else print_prim_expr(e)
    value = evaluate(e, env)
    if value is None or isinstance(e, P.IntImm):
        return f"{text} B" if value is None else _bytes(value)
    return f"{text} B = {_bytes(value)}"


def render_text(reports: list[FunctionReport], values: dict[str, int]) -> str:
    """CLI-memplan-3: the report as text."""
    lines: list[str] = []
    for r in reports:
        env = {**r.bounds, **values}
        shown = ", ".join(f"{k} = {v}" for k, v in sorted(env.items())) or "none needed"
        bounds = ", ".join(f"{k} <= {v}" for k, v in sorted(r.bounds.items())) or "none"
        lines.append(f"function {r.name}  (upper bounds: {bounds}; sizes at: {shown})")
        for title, side in (("before planning", r.before), ("after planning", r.after)):
            own = sum(1 for b in side.blocks if not b.planned)
            shared = len(side.blocks) - own
            what = (_count(own, "allocation") if title.startswith("before")
                    else f"{_count(shared, 'storage')}, {_count(own, 'allocation')} of "
                         f"{'its' if own == 1 else 'their'} own")
            lines.append(f"  {title}: {what}; total {_bytes(side.total(env))}, "
                         f"peak {_bytes(side.peak(env))}")
            for b in side.blocks:
                names = ", ".join(n for n, _, _ in b.tensors) or "(no tensor)"
                label = b.name if b.planned else (b.tensors[0][0] if b.tensors else b.name)
                kind = "storage" if b.planned else "alloc  "
                lines.append(f"    {kind} {label:<14} {_size_text(b.size, env):<40} "
                             f"{names if b.planned else ''}".rstrip())
        t0, t1 = r.before.total(env), r.after.total(env)
        if t0 and t1 is not None:
            change = 100 * (t0 - t1) / t0
            lines.append(f"  planning saves {change:.1f}% of the total" if change >= 0 else
                         f"  planning costs {-change:.1f}% more in total (storages sized at "
                         f"the upper bounds)")
        if r.problems:
            lines.append("  plans the checker rejected (each fell back to fresh allocations):")
            lines.extend(f"    {p}" for p in r.problems)
        else:
            lines.append("  plan proved safe for every value within the bounds "
                         "(PASS-plan-check-1..5)")
    return "\n".join(lines) + "\n"


# -- SVG -------------------------------------------------------------------------------------

_ROW, _LEFT, _TOP, _WIDTH = 26, 150, 40, 900
_COLORS = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1",
           "#ff9da7", "#9c755f", "#bab0ac")


def render_svg(report: FunctionReport, values: dict[str, int]) -> str:
    """CLI-memplan-4: the timeline after planning, one row per storage, each tensor a bar
    from its allocation to its last use (paper Fig. 10); plain SVG text."""
    env = {**report.bounds, **values}
    side = report.after
    scale = _WIDTH / max(side.end, 1)
    height = _TOP + _ROW * len(side.blocks) + 30
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{_LEFT + _WIDTH + 20}" '
           f'height="{height}" font-family="sans-serif" font-size="11">',
           f'<text x="10" y="20" font-size="14">{escape(report.name)}: storage reuse after '
           f'StaticPlanBlockMemory (time = binding order)</text>']
    for row, b in enumerate(side.blocks):
        y = _TOP + row * _ROW
        label = b.name if b.planned else f"{b.tensors[0][0] if b.tensors else b.name} (own)"
        size = evaluate(b.size, env)
        out.append(f'<text x="10" y="{y + 16}">{escape(label)} '
                   f'{escape(_bytes(size).split(" (")[0])}</text>')
        for k, (name, start, end) in enumerate(b.tensors):
            x = _LEFT + start * scale
            w = max((end - start) * scale, 2)
            color = _COLORS[(row + k) % len(_COLORS)] if b.planned else "#cccccc"
            out.append(f'<rect x="{x:.1f}" y="{y + 3}" width="{w:.1f}" height="{_ROW - 6}" '
                       f'fill="{color}" stroke="#333" stroke-width="0.5">'
                       f'<title>{escape(name)}: bindings {start}..{end}</title></rect>')
            if w > 7 * len(name):
                out.append(f'<text x="{x + 3:.1f}" y="{y + 16}" fill="white">'
                           f'{escape(name)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


# -- the command -----------------------------------------------------------------------------


def assignments(specs: list[str] | None, option: str) -> dict[str, int]:
    """``["n=1024", ...]`` as a dict; ValueError (for the CLI) on a malformed one."""
    out: dict[str, int] = {}
    for spec in specs or []:
        name, sep, value = spec.partition("=")
        name = name.strip()
        if not sep or not name:
            raise ValueError(f"{option} takes NAME=INT, got {spec!r}")
        try:
            out[name] = int(value)
        except ValueError:
            raise ValueError(f"{option} {name}: {value!r} is not an integer") from None
        if out[name] < 0:
            raise ValueError(f"{option} {name}: a size is not negative, got {value}")
    return out


def run_command(mod: rx.IRModule, bound_specs, at_specs, entry: str | None,
                svg: bool) -> tuple[str, str | None]:
    """CLI-memplan-1..4: the text report, and the SVG of the first function reported."""
    bounds, values = assignments(bound_specs, "--bound"), assignments(at_specs, "--at")
    try:
        reports = memplan(mod, bounds, entry)
    except KeyError as err:
        raise ValueError(err.args[0]) from None
    if not reports:
        return "no function allocates anything to plan\n", None
    return render_text(reports, values), render_svg(reports[0], values) if svg else None
