"""Writing the table of ``call_templates.py`` from the conformance suite's valid op cases.

Run ``python -m relax_ref.testing.call_templates --regenerate`` (from a checkout holding
only committed cases). For each valid case of ``conformance/ops`` (no ``expect`` key, a
run of ``main`` expected ``ok``), every binding of ``main`` that calls a registered op
on ``main``'s parameters (and literals) becomes a template:

- a parameter of static shape whose random values would trap (an index tensor, a box
  naming a batch) becomes a constant holding the value the case's run passes, integer
  ones first: a valid value by the case;
- the other parameters become operands ``$0, $1, ...``: tensors whose dims are static or
  the symbolic ``n`` and ``m`` that the generator's parameters define (a case's own
  one or two symbolic variables are renamed to those);
- the result is the struct info our deduction gives the call: a tensor, or a tuple of
  tensors, with dims that are polynomials over ``n`` and ``m``, which later bindings may
  use; else (a shape, a scalar, a tensor of unknown shape) an opaque value, annotated
  with its struct info's text, that only the module's results may use.

Cases TVM 0.27 does not read or rejects (verdict ``unsupported``, ``differs: rejected``)
are skipped, so random programs stay readable by TVM (tests compare with TVM on them). Each template is checked before it is written: the one-call module it makes parses, is
well-formed, deduces the recorded result, and runs without a trap on random operands at
several values of ``n`` and ``m`` (the fuzzer's programs stay mostly trap-free). The cases
are read with our parser, never evaluated. Ops with a valid case but no template get the
reason written beside the table.
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si

from .dims import Dim, const, dim_add, dim_mul, dim_text, sym

MAX_PER_OP = 3          # templates kept per op (the first cases in name order)
MAX_CONST_ELEMENTS = 64  # operands up to this size may become constants
SYMBOL_VALUES = ((0, 1), (1, 3), (3, 2), (5, 0))  # (n, m) the check runs at


def _dim(e: P.PrimExpr) -> Dim | None:
    """A dim as a polynomial over n and m, or None."""
    if isinstance(e, P.IntImm):
        return const(int(e.value))
    if isinstance(e, P.Var):
        return sym(e.name) if e.name in ("n", "m") else None
    if isinstance(e, (P.Add, P.Sub, P.Mul)):
        a, b = _dim(e.a), _dim(e.b)
        if a is None or b is None:
            return None
        if isinstance(e, P.Add):
            return dim_add(a, b)
        if isinstance(e, P.Sub):
            return dim_add(a, dim_mul(const(-1), b))
        return dim_mul(a, b)
    return None


def _type(sinfo) -> tuple | None:
    """Our record of a tensor or tuple-of-tensors struct info: ``(dtype, dims)`` with each
    dim as text, or ``("tuple", fields)``; None where the generator cannot track it."""
    if isinstance(sinfo, si.TensorStructInfo):
        if sinfo.shape is None or sinfo.dtype.is_void:
            return None
        dims = [_dim(d) for d in sinfo.shape]
        if any(d is None for d in dims):
            return None
        return (str(sinfo.dtype), tuple(dim_text(d) for d in dims))
    if isinstance(sinfo, si.TupleStructInfo) and sinfo.fields:
        fields = [_type(f) for f in sinfo.fields]
        if any(f is None or f[0] in ("tuple", "opaque") for f in fields):
            return None
        return ("tuple", tuple(fields))
    return None


def _result_type(sinfo) -> tuple:
    """``_type``, or ``("opaque", text)``: a value later bindings do not use (a shape, a
    scalar, a tensor of unknown shape), annotated with its struct info's text."""
    from relax_ref.parser.printer import print_struct_info

    return _type(sinfo) or ("opaque", print_struct_info(sinfo))


def _const_text(arr: np.ndarray, dtype: str) -> str | None:
    if arr.size == 0 or arr.size > MAX_CONST_ELEMENTS or \
            (arr.dtype.kind == "f" and not np.isfinite(arr).all()):
        return None
    data = arr.tolist()
    return f'R.const({data!r}, "{dtype}")'


def _param_leaves(expr, params: dict[int, int], found: list) -> bool:
    """The parameters ``expr`` uses, in order; False when it uses a variable that is no
    parameter (a value computed by an earlier binding)."""
    if isinstance(expr, rx.Var):
        if id(expr) not in params:
            return False
        found.append(expr)
        return True
    if isinstance(expr, rx.Tuple):
        return all(_param_leaves(f, params, found) for f in expr.fields)
    return isinstance(expr, (rx.Constant, rx.ShapeExpr, rx.PrimValue, rx.StringImm,
                             rx.DataTypeImm))


def _substitute(text: str, names: dict[str, str]) -> str:
    # a name as a whole word, not an attribute keyword (``axis=``) or inside quotes
    def repl(m: re.Match) -> str:
        return names.get(m.group(0), m.group(0))

    pattern = r'(?<![\w."])(' + "|".join(re.escape(n) for n in names) + r')\b(?!\s*=[^=])'
    return re.sub(pattern, repl, text)


def type_text(t: tuple) -> str:
    if t[0] == "opaque":
        return t[1]
    if t[0] == "tuple":
        return "R.Tuple(" + ", ".join(type_text(f) for f in t[1]) + ")"
    dims = ", ".join(t[1]) + ("," if len(t[1]) == 1 else "")
    return f'R.Tensor(({dims}), dtype="{t[0]}")'


def module_text(operands: tuple, call: str, result: tuple | None) -> str:
    """The one-call module a template makes (``result`` None: not annotated)."""
    names = {f"${i}": f"a{i}" for i in range(len(operands))}
    body = re.sub(r"\$\d+", lambda m: names[m.group(0)], call)
    symbols = sorted({s for _, dims in operands for d in dims for s in re.findall(r"[a-z]\w*", d)})
    params = ", ".join(f"a{i}: {type_text(t)}" for i, t in enumerate(operands))
    ann = f": {type_text(result)}" if result is not None else ""
    lines = [f'{s} = TypeVar("{s}")' for s in symbols]
    lines += ["@I.ir_module", "class Module:", "    @R.function",
              f"    def main({params}):", "        with R.dataflow():",
              f"            lv{ann} = {body}", "            R.output(lv)", "        return lv"]
    return "\n".join(lines) + "\n"


def _check(operands: tuple, call: str) -> tuple[tuple | None, str]:
    """(result, "") for a template that builds and runs, else (None, why)."""
    from relax_ref.errors import RelaxError
    from relax_ref.parser.builder import parse
    from relax_ref.semantics.inputs import random_value, symbols_needed
    from relax_ref.semantics.interpreter import Interpreter
    from relax_ref.semantics.normalize import normalize
    from relax_ref.semantics.well_formed import check_well_formed

    try:
        mod = normalize(parse(module_text(operands, call, None), "<template>"))
    except RelaxError as err:
        return None, f"the call does not build alone: {err.message.splitlines()[0]}"
    func = mod["main"]
    binding = func.body.blocks[0].bindings[0]
    result = _result_type(binding.var.struct_info)
    try:
        annotated = normalize(parse(module_text(operands, call, result), "<template>"))
    except RelaxError as err:
        return None, f"the annotated call does not build: {err.message.splitlines()[0]}"
    if check_well_formed(annotated):
        return None, "the one-call module is not well-formed"
    rng = np.random.default_rng(0)
    symbols = symbols_needed(func)
    for n, m in SYMBOL_VALUES * 4:
        env = {v: {"n": n, "m": m}[v.name] for v in symbols}
        try:
            args = [random_value(p.struct_info, env, rng, what=p.name_hint)
                    for p in func.params]
            Interpreter(mod, normalized=True).run("main", args)
        except RelaxError as err:
            return None, f"traps on random operands: {err.message.splitlines()[0]}"
    return result, ""


def _renamed(text: str) -> str:
    """The case's text with its (at most two) symbolic variables named ``n`` and ``m``,
    the names the generator's parameters define, where neither name is used already."""
    names = re.findall(r'^(\w+) = TypeVar\("\w+"\)$', text, flags=re.M)
    if not names or len(names) > 2 or re.search(r"\b[nm]\b", text):
        return text
    for old, new in zip(names, ("n", "m")):
        text = re.sub(rf"\b{old}\b", new, text)
    return text


def _case_ops(text: str) -> set[str]:
    return {"relax." + m for m in re.findall(r"\bR\.([\w.]+)\(", text)}


def covered_ops(root: Path) -> set[str]:
    """The op names (``relax.*``) the valid cases of ``root/ops`` list in ``covers``."""
    import tomllib

    out: set[str] = set()
    for toml in sorted((root / "ops").glob("*.toml")):
        data = tomllib.loads(toml.read_text())
        if "expect" in data or not any(r.get("expect", "ok") == "ok"
                                       for r in data.get("run", [])):
            continue
        out.update(c for c in data.get("covers", []) if c.startswith("relax."))
    return out


def collect(root: Path, lookup) -> tuple[dict[str, list[tuple]], dict[str, str]]:
    """Templates by op name (``(operands, call, result, case)``), and the reason for each
    op that has a valid case but no template."""
    from relax_ref.conformance import load_case
    from relax_ref.errors import RelaxError
    from relax_ref.parser.builder import parse
    from relax_ref.parser.printer import print_expr
    from relax_ref.semantics.normalize import normalize

    templates: dict[str, list[tuple]] = {}
    reasons: dict[str, str] = {}
    seen_calls: set[str] = set()
    for toml in sorted((root / "ops").glob("*.toml")):
        case = load_case(toml, root)
        runs = [r for r in case.runs if r.expect == "ok" and r.entry == "main"]
        if case.expect != "ok" or not runs:
            continue
        if case.tvm.startswith("unsupported") or "rejected" in case.tvm:
            # random programs stay readable by TVM (tests compare with it on them)
            for name in _case_ops(case.text):
                if lookup(name) is not None:
                    reasons.setdefault(name, f"{case.name}: TVM 0.27 does not read or deduce "
                                             f"it ({case.tvm.split(':')[0]})")
            continue
        try:
            mod = normalize(parse(_renamed(case.text), str(toml)))
        except RelaxError:
            continue
        func = mod.functions.get("main")
        if not isinstance(func, rx.Function) or len(runs[0].args) != len(func.params):
            continue
        index = {id(p): i for i, p in enumerate(func.params)}
        for block in func.body.blocks:
            for b in block.bindings:
                call = b.value
                if not (isinstance(call, rx.Call) and isinstance(call.op, rx.Op)):
                    continue
                name = call.op.name
                op = lookup(name)
                if op is None:
                    continue
                if len(templates.get(name, ())) >= MAX_PER_OP:
                    continue
                why = _template(call, op, func, index, runs[0].args, templates, seen_calls,
                                print_expr, case.name)
                if why:
                    reasons.setdefault(name, f"{case.name}: {why}")
    for name in covered_ops(root):
        if lookup(name) is not None:
            reasons.setdefault(name, "no valid case calls it on main's parameters alone")
    for name in templates:
        reasons.pop(name, None)
    return templates, reasons


def _template(call, op, func, index, args, templates, seen_calls, print_expr,
              case_name: str) -> str:
    """Adds the template of ``call`` to ``templates``; returns why not, or ""."""
    if not op.pure:
        return "the op has effects (not allowed in a dataflow block)"
    leaves: list = []
    if not all(_param_leaves(a, index, leaves) for a in call.args):
        return "an operand is computed by another binding"
    params = list(dict.fromkeys(leaves))
    types = []
    for p in params:
        t = _type(p.struct_info)
        if t is None or t[0] == "tuple":
            return "an operand is not a tensor over static dims, n and m"
        types.append(t)
    # Operands of static shape may hold the case's own values instead (indices in range,
    # boxes naming a batch): first none, then the last integer one, the last two, ...,
    # then float ones too, until random values for the rest never trap.
    def fixes(i: int) -> bool:
        dtype, dims = types[i]
        arr = np.asarray(args[index[id(params[i])]])
        return all(d.isdigit() for d in dims) and _const_text(arr, dtype) is not None

    def is_int(i: int) -> bool:
        return types[i][0].startswith(("int", "uint")) or types[i][0] == "bool"

    order = [i for i in reversed(range(len(params))) if is_int(i) and fixes(i)]
    order += [i for i in reversed(range(len(params))) if not is_int(i) and fixes(i)]
    fixable = order
    why = ""
    for k in range(len(fixable) + 1):
        fixed = set(fixable[:k])
        names: dict[str, str] = {}
        operands: list[tuple] = []
        for i, p in enumerate(params):
            if i in fixed:
                names[p.name_hint] = _const_text(np.asarray(args[index[id(p)]]), types[i][0])
            else:
                names[p.name_hint] = f"${len(operands)}"
                operands.append(types[i])
        text = print_expr(call)
        if names:
            text = _substitute(text, names)
        if text in seen_calls:
            return ""
        result, why = _check(tuple(operands), text)
        if result is not None:
            seen_calls.add(text)
            templates.setdefault(op.name, []).append((tuple(operands), text, result,
                                                      case_name))
            return ""
        if not why.startswith("traps"):
            break
    return why


def render_table(templates: dict[str, list[tuple]], reasons: dict[str, str]) -> str:
    lines = ["TEMPLATES: dict[str, tuple[Template, ...]] = {"]
    for name in sorted(templates):
        lines.append(f"    {name!r}: (")
        for operands, call, result, case in templates[name]:
            lines.append(f"        Template({operands!r},")
            lines.append(f"                 {call!r},")
            lines.append(f"                 {result!r}, {case!r}),")
        lines.append("    ),")
    lines.append("}")
    lines.append("")
    lines.append("# Ops with a valid conformance case but no template, and why (the first case's).")
    lines.append("NO_TEMPLATE: dict[str, str] = {")
    for name in sorted(reasons):
        lines.append(f"    {name!r}:")
        lines.append(f"        {reasons[name]!r},")
    lines.append("}")
    return "\n".join(lines) + "\n"
