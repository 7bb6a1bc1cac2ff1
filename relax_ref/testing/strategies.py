"""Random well-formed Relax modules, for property tests and the fuzzer (DESIGN.md
sections 7 and 8).

One generator builds TVMScript text from a stream of small integer choices. Who makes
the choices decides what the generator is used for:

- ``modules()`` / ``module_texts()``: Hypothesis strategies. Every choice is a
  Hypothesis draw of a bounded integer, so Hypothesis shrinks a failing module by
  shrinking the choices: fewer bindings, smaller indices, the simplest op of a list.
- ``RandomChoices(rng)``: a NumPy Generator makes the choices and records them, so the
  fuzzer (``relax_ref.testing.fuzz``) is deterministic for a seed without Hypothesis.
- ``ReplayChoices(record)``: replays a recorded (and possibly edited) stream; values out
  of range are clamped and a stream that runs out continues with the smallest choice.
  Any stream of integers therefore yields a well-formed module, which is what the
  fuzzer's shrinker relies on.

The choice of least value is always the simplest: stop adding bindings, the first op of
a family, the first candidate operand, no annotation. Each binding, parameter and the
if/else is one group of choices (``Choices.group``; a nested draw for Hypothesis), and
every group starts with its own "one more?" choice, so a shrinker can delete a whole
group without shifting the choices after it. Hypothesis is imported only by the
strategies, so the fuzzer runs without it.

What the generated modules cover:

- ``main`` with 1-3 tensor parameters whose dims are static (1-4) or the symbolic ``n``
  and ``m`` (module-level ``TypeVar``), dtypes float32 mostly, also int32, float16, bool;
  more parameters are added where an op needs a fresh operand (a matmul weight, a
  broadcast operand, a concat part);
- a dataflow block (sometimes a plain binding block) of op calls from the registry:
  unary and binary elementwise ops with broadcasting and scalar constants, comparisons
  and ``where``, ``matmul``, ``reshape`` that keeps symbolic relations
  (``(n, 4) -> (n * 4,) -> (n, 4)``), ``permute_dims``, ``sum``/``mean``/``max``/``min``
  with ``keepdims``, ``softmax``/``log_softmax``, ``concat``/``split``, ``astype``;
- a call of any op with a call template (``call_templates.py``, taken from the
  conformance suite's valid cases: conv2d, take, stack, resize2d, topk, ...), its
  attributes as the case writes them, on values in scope of exactly the template's
  operand types or on new parameters of those types, a tuple result possibly followed
  by a ``TupleGetItem``;
- tuples and ``TupleGetItem``; ``match_cast`` to fresh symbolic variables (``k0``...)
  that later bindings use;
- calls of private helper functions (elementwise bodies over their own symbolic dims);
- ``call_tir`` of generated PrimFuncs: elementwise (unary, binary) and row-sum loop nests
  over the argument's shape, the PrimFunc with its own symbolic variables;
- an ``if``/``else`` on a bool parameter (``R.Tensor((), "bool")``, sometimes
  ``R.Prim("bool")``) whose branches compute values of the same struct info (calling
  helpers and PrimFuncs too), then possibly a second block using its result.

Generated programs run without error for every value of the symbolic variables, with
one exception on purpose: ``max``/``min`` over a zero-sized dim trap (EXEC-reduce-6),
which checks that passes keep traps. A template's integer operands (indices) are the
case's own values as constants where random ones would trap, and its check runs it on
random operands (``template_source.py``), so template calls rarely trap.

Dims are tracked as canonical polynomials over the symbolic variables, so the generator
knows which operands fit an op (equal dims, or a static 1 for broadcasting) without
asking the deducer; the tests check that its annotations agree with deduction.

Beside this module: ``choices.py`` (the sources of choices), ``dims.py`` (the dim
polynomials), ``program.py`` (types, values, bindings, options), ``op_tables.py`` (the
elementwise ops, drawn from the registry's facts) and ``call_templates.py`` (a valid call
of every op with a valid conformance case).
"""
from __future__ import annotations

import re
from typing import Callable, Sequence

import numpy as np

from relax_ref.ir import relax as rx

from .choices import Choices, DrawChoices, RandomChoices, ReplayChoices
from .dims import (
    Dim, broadcast, const, dim_add, dim_mul, dim_text, factorizations, product, static_value,
    sym,
)
from .call_templates import generator_type
from .call_templates import usable as usable_templates
from .op_tables import elementwise_ops
from .program import (
    FLOATS, NUMERIC, Binding, Block, GenOptions, IfStmt, TensorType, TupleType, Value,
)

__all__ = [
    "Choices", "RandomChoices", "ReplayChoices", "GenOptions", "generate_text",
    "build_module", "random_module", "modules", "module_texts", "generated_texts",
    "module_arguments",
]


# -- the generator ----------------------------------------------------------------------------

# Elementwise calls come from the op registry (op_tables.py); constants are written here.
UNARY_FLOAT = elementwise_ops(1, "float32")
UNARY_INT = elementwise_ops(1, "int32")
BINARY_FLOAT = elementwise_ops(2, "float32")
BINARY_INT = elementwise_ops(2, "int32")
COMPARE = elementwise_ops(2, "float32", "bool")
FLOAT_CONSTS = ("1.0", "0.5", "-2.0", "0.0")
INT_CONSTS = ("1", "2", "-3", "0")
DIM_POOL = (4, "n", 2, 1, "m", 3)   # dims of new parameters (least choice first)
# Calls through templates: every op with one but those the elementwise actions call.
_PLAIN = {f"relax.{op}" for op in UNARY_FLOAT + UNARY_INT + BINARY_FLOAT + BINARY_INT + COMPARE}
TEMPLATE_OPS = tuple((op, ts) for op, ts in usable_templates() if op not in _PLAIN)


class _Generator:
    def __init__(self, choices: Choices, options: GenOptions):
        self.c = choices
        self.opt = options
        self.params: list[Value] = []
        self.helpers: list[str] = []       # function texts
        self.prim_funcs: dict[str, str] = {}  # text -> name
        self.typevars: set[str] = set()
        self.match_syms = 0
        self.counter = 0
        self.uses_cls = False
        self.cond: str | None = None
        self.annotate = False
        self.reshaped_from: dict[str, tuple] = {}  # reshape results: their source shape

    # -- names and values --------------------------------------------------------------------
    def fresh(self, prefix: str = "lv") -> str:
        name = f"{prefix}{self.counter}"
        self.counter += 1
        return name

    def pick(self, scope: list[Value], pred: Callable[[Value], bool]) -> Value | None:
        cands = [v for v in scope if pred(v)]
        return cands[self.c.index(len(cands))] if cands else None

    def new_param(self, ttype: TensorType, scope: list[Value] | None,
                  extra: int = 2) -> Value | None:
        """A new parameter of ``main`` (only dims over n, m, which parameters define), up
        to ``extra`` more than the first ones."""
        if len(self.params) >= self.opt.max_params + extra or \
                not ttype.symbols() <= {"n", "m"}:
            return None
        v = Value(f"x{len(self.params)}", ttype)
        self.params.append(v)
        if scope is not None:
            scope.insert(len([p for p in scope if p.name.startswith("x")]), v)
        return v

    def random_dim(self) -> Dim:
        d = self.c.pick(DIM_POOL)
        return sym(d) if isinstance(d, str) else const(d)

    def random_type(self) -> TensorType:
        rank = self.c.integer(1, 3)
        k = self.c.integer(0, 9)
        dtype = "float32" if k < 7 else ("int32", "float16", "bool")[k - 7]
        return TensorType(tuple(self.random_dim() for _ in range(rank)), dtype)

    def binding(self, rhs: str, ttype, uses: Sequence[str], prefix: str = "lv") -> Binding:
        return Binding(self.fresh(prefix), ttype, rhs, tuple(uses))

    # -- the module ----------------------------------------------------------------------------
    def module(self) -> str:
        self.repeat(1, self.opt.max_params, 40,
                    lambda: self.new_param(self.random_type(), None))
        self.annotate = self.c.boolean(50)
        scope = list(self.params)
        stmts: list = []
        first = Block(dataflow=not self.c.boolean(15))
        self.fill(first, scope, 1, self.opt.max_bindings)
        stmts.append(first)

        def tail() -> None:  # an if/else, then maybe a second block
            if self.c.boolean(35):
                stmts.append(self.if_stmt(scope, first))
                if self.c.boolean(40):
                    second = Block(dataflow=True)
                    self.fill(second, scope, 1, self.opt.max_second_block)
                    stmts.append(second)

        self.c.group(tail)
        results = [self.last_value(stmts, scope)]

        def another_result() -> None:
            v = self.pick(scope, lambda v: v.name not in {r.name for r in results})
            if v is not None:
                results.append(v)

        self.repeat(0, 2, 25, another_result)
        return self.render(stmts, results)

    def last_value(self, stmts: list, scope: list[Value]) -> Value:
        last = stmts[-1]
        name = last.result if isinstance(last, IfStmt) else last.bindings[-1].var
        return next(v for v in scope if v.name == name)

    def repeat(self, least: int, most: int, percent: int, body: Callable[[], None]) -> None:
        """Run ``body`` at least ``least`` and at most ``most`` times, each further time
        with ``percent``% probability; each time is one group of choices."""
        def step(required: bool) -> bool:
            # Every group starts with this choice, even the required ones, so that a
            # shrinker can delete any group without shifting the choices after it.
            if not self.c.boolean(percent) and not required:
                return False
            body()
            return True

        n = 0
        while n < most and self.c.group(lambda: step(n < least)):
            n += 1

    def fill(self, block: Block, scope: list[Value], least: int, most: int) -> None:
        def one() -> None:
            for b in self.action(scope):
                block.bindings.append(b)
                scope.append(Value(b.var, b.type))

        self.repeat(least, most, 80, one)

    # -- actions: each returns the bindings it adds, or [] when it does not apply --------------
    def action(self, scope: list[Value]) -> list[Binding]:
        actions = (self.unary, self.binary, self.where, self.matmul, self.reshape,
                   self.permute, self.reduce, self.softmax, self.concat, self.split,
                   self.astype, self.make_tuple, self.get_item, self.match_cast,
                   self.call_helper, self.call_tir, self.binary, self.reshape,
                   self.op_call, self.op_call, self.op_call)
        out = actions[self.c.index(len(actions))](scope)
        if not out:
            out = self.unary(scope) or self.astype(scope, force="float32")
        return out

    def op_call(self, scope: list[Value]) -> list[Binding]:
        """A call of any op with a call template (``call_templates.py``): operands of
        exactly the template's types from scope, else new parameters of those types."""
        if not TEMPLATE_OPS:
            return []
        _, templates = TEMPLATE_OPS[self.c.index(len(TEMPLATE_OPS))]
        tpl = templates[self.c.index(len(templates))]
        names: list[str] = []
        for t in tpl.operands:
            want = generator_type(t)
            v = None if self.c.boolean(30) else self.pick(scope, lambda v: v.type == want)
            v = v or self.new_param(want, scope, extra=4)  # an op may take several
            if v is None:
                return []
            names.append(v.name)
        rhs = re.sub(r"\$(\d+)", lambda m: names[int(m.group(1))], tpl.call)
        out = [self.binding(rhs, generator_type(tpl.result), names)]
        fields = getattr(out[0].type, "fields", None)
        if fields and self.c.boolean(70):
            i = self.c.index(len(fields))
            out.append(self.binding(f"{out[0].var}[{i}]", fields[i], [out[0].var]))
        return out

    def unary(self, scope: list[Value]) -> list[Binding]:
        x = self.pick(scope, lambda v: v.is_tensor and v.type.dtype in NUMERIC)
        if x is None:
            return []
        ops = UNARY_FLOAT if x.type.dtype in FLOATS else UNARY_INT
        op = self.c.pick(ops)
        return [self.binding(f"R.{op}({x.name})", x.type, [x.name])]

    def operand_like(self, scope: list[Value], x: Value) -> tuple[str, TensorType, list[str]]:
        """A second operand for ``x`` (text, type, variables used): an existing value of
        the same type, a broadcast-compatible one, a scalar constant, or a new parameter
        of a broadcast-compatible shape."""
        t = x.type
        mode = self.c.integer(0, 3)
        if mode == 1:
            y = self.pick(scope, lambda v: v.is_tensor and v.type.dtype == t.dtype
                          and broadcast(t.shape, v.type.shape) is not None)
            if y is not None:
                return y.name, y.type, [y.name]
        if mode == 2:
            lits = FLOAT_CONSTS if t.dtype in FLOATS else INT_CONSTS
            return f'R.const({self.c.pick(lits)}, "{t.dtype}")', TensorType((), t.dtype), []
        if mode == 3:
            shape = t.shape
            if shape:
                # drop leading dims and turn some dims into 1: broadcasts against x
                shape = shape[self.c.integer(0, len(shape) - 1):]
                shape = tuple(const(1) if self.c.boolean(25) else d for d in shape)
            p = self.new_param(TensorType(shape, t.dtype), scope)
            if p is not None:
                return p.name, p.type, [p.name]
        y = self.pick(scope, lambda v: v.is_tensor and v.type == t)
        return y.name, y.type, [y.name]

    def binary(self, scope: list[Value]) -> list[Binding]:
        x = self.pick(scope, lambda v: v.is_tensor and v.type.dtype in NUMERIC)
        if x is None:
            return []
        op = self.c.pick(BINARY_FLOAT if x.type.dtype in FLOATS else BINARY_INT)
        y_text, y_type, uses = self.operand_like(scope, x)
        shape = broadcast(x.type.shape, y_type.shape)
        args = f"{x.name}, {y_text}" if not self.c.boolean(20) else f"{y_text}, {x.name}"
        return [self.binding(f"R.{op}({args})", TensorType(shape, x.type.dtype),
                             [x.name, *uses])]

    def compare(self, scope: list[Value], x: Value) -> Binding:
        op = self.c.pick(COMPARE)
        y_text, y_type, uses = self.operand_like(scope, x)
        shape = broadcast(x.type.shape, y_type.shape)
        return self.binding(f"R.{op}({x.name}, {y_text})", TensorType(shape, "bool"),
                            [x.name, *uses])

    def where(self, scope: list[Value]) -> list[Binding]:
        x = self.pick(scope, lambda v: v.is_tensor and v.type.dtype in NUMERIC)
        if x is None:
            return []
        out = []
        cond = self.pick(scope, lambda v: v.is_tensor and v.type.dtype == "bool"
                         and broadcast(v.type.shape, x.type.shape) is not None)
        if cond is None or self.c.boolean(30):
            b = self.compare(scope, x)
            out.append(b)
            cond = Value(b.var, b.type)
        y_text, y_type, uses = self.operand_like(scope, x)
        shape = broadcast(broadcast(cond.type.shape, x.type.shape), y_type.shape)
        if shape is None:  # y broadcasts with x but not with the condition
            y_text, y_type, uses = x.name, x.type, [x.name]
            shape = broadcast(cond.type.shape, x.type.shape)
        out.append(self.binding(f"R.where({cond.name}, {x.name}, {y_text})",
                                TensorType(shape, x.type.dtype), [cond.name, x.name, *uses]))
        return out

    def matmul(self, scope: list[Value]) -> list[Binding]:
        a = self.pick(scope, lambda v: v.is_tensor and v.type.dtype in NUMERIC and v.type.rank)
        if a is None:
            return []
        ta = a.type
        k = ta.shape[-1]

        def fits(v: Value) -> bool:
            t = v.type
            if not (v.is_tensor and t.dtype == ta.dtype and t.rank):
                return False
            if t.rank == 1:
                return t.shape[0] == k
            return t.shape[-2] == k and broadcast(ta.shape[:-2], t.shape[:-2]) is not None

        b = self.pick(scope, fits) if self.c.boolean(60) else None
        if b is None:
            shape = (k,) if self.c.boolean(15) else (k, self.random_dim())
            b = self.new_param(TensorType(shape, ta.dtype), scope)
            if b is None:
                return []
        tb = b.type
        if ta.rank == 1 and tb.rank == 1:
            shape = ()
        elif ta.rank == 1:
            shape = tb.shape[:-2] + tb.shape[-1:]
        elif tb.rank == 1:
            shape = ta.shape[:-1]
        else:
            shape = broadcast(ta.shape[:-2], tb.shape[:-2]) + (ta.shape[-2], tb.shape[-1])
        return [self.binding(f"R.matmul({a.name}, {b.name})", TensorType(shape, ta.dtype),
                             [a.name, b.name])]

    def reshape(self, scope: list[Value]) -> list[Binding]:
        x = None
        if self.c.boolean(40):  # reshape a reshape: (n, 4) -> (n * 4,) -> (n, 4)
            x = self.pick(scope, lambda v: v.name in self.reshaped_from)
        # (a static 0 would read as "copy this dim" in a reshape target: SI-manip-reshape-4)
        x = x or self.pick(scope, lambda v: v.is_tensor and v.type.rank
                           and const(0) not in v.type.shape)
        if x is None:
            return []
        shape = list(x.type.shape)
        mode = self.c.integer(0, 2)
        splittable = [i for i, d in enumerate(shape) if factorizations(d)]
        if x.name in self.reshaped_from and self.c.boolean(50):  # back to the source
            shape = list(self.reshaped_from[x.name])
        elif mode >= 2 and splittable:  # split one dim into two factors: (n * 4,) -> (n, 4)
            i = splittable[self.c.index(len(splittable))]
            f, rest = self.c.pick(factorizations(shape[i]))
            shape[i:i + 1] = [f, rest] if self.c.boolean(50) else [rest, f]
        elif mode == 1 and len(shape) >= 2:  # merge two neighbours
            i = self.c.integer(0, len(shape) - 2)
            shape[i:i + 2] = [dim_mul(shape[i], shape[i + 1])]
        elif mode == 1:  # add a unit dim
            shape.insert(self.c.integer(0, len(shape)), const(1))
        else:  # flatten
            shape = [product(shape)]
        target = ", ".join(dim_text(d) for d in shape)
        b = self.binding(f"R.reshape({x.name}, R.shape([{target}]))",
                         TensorType(tuple(shape), x.type.dtype), [x.name])
        self.reshaped_from[b.var] = x.type.shape
        return [b]

    def permute(self, scope: list[Value]) -> list[Binding]:
        x = self.pick(scope, lambda v: v.is_tensor and v.type.rank >= 2)
        if x is None:
            return []
        r = x.type.rank
        if self.c.boolean(20):
            axes = list(reversed(range(r)))
            text = f"R.permute_dims({x.name}, axes=None)"
        else:
            axes = list(range(r))
            for i in range(r - 1, 0, -1):
                j = self.c.integer(0, i)
                axes[i], axes[j] = axes[j], axes[i]
            text = f"R.permute_dims({x.name}, axes={axes})"
        shape = tuple(x.type.shape[a] for a in axes)
        return [self.binding(text, TensorType(shape, x.type.dtype), [x.name])]

    def reduce(self, scope: list[Value]) -> list[Binding]:
        x = self.pick(scope, lambda v: v.is_tensor and v.type.rank and v.type.dtype in NUMERIC)
        if x is None:
            return []
        ops = ("sum", "mean", "max", "min") if x.type.dtype in FLOATS else ("sum", "max", "min")
        op = self.c.pick(ops)
        r = x.type.rank
        keepdims = self.c.boolean(50)
        if self.c.boolean(15):
            axes = list(range(r))
            axis_text = "None"
        else:
            axes = [i for i in range(r) if self.c.boolean(40)] or [r - 1]
            written = [a - r if self.c.boolean(20) else a for a in axes]
            axis_text = str(written)
        shape = tuple(const(1) if i in axes else d for i, d in enumerate(x.type.shape)
                      if keepdims or i not in axes)
        return [self.binding(f"R.{op}({x.name}, axis={axis_text}, keepdims={keepdims})",
                             TensorType(shape, x.type.dtype), [x.name])]

    def softmax(self, scope: list[Value]) -> list[Binding]:
        x = self.pick(scope, lambda v: v.is_tensor and v.type.rank and v.type.dtype in FLOATS)
        if x is None:
            return []
        op = self.c.pick(("softmax", "log_softmax"))
        r = x.type.rank
        axis = self.c.integer(-r, r - 1)
        return [self.binding(f"R.nn.{op}({x.name}, axis={axis})", x.type, [x.name])]

    def concat(self, scope: list[Value]) -> list[Binding]:
        x = self.pick(scope, lambda v: v.is_tensor and v.type.rank)
        if x is None:
            return []
        t = x.type
        axis = self.c.integer(0, t.rank - 1)

        def fits(v: Value) -> bool:
            u = v.type
            return (v.is_tensor and u.dtype == t.dtype and u.rank == t.rank
                    and all(a == b for i, (a, b) in enumerate(zip(t.shape, u.shape))
                            if i != axis))

        parts = [x]
        while len(parts) < 3 and (len(parts) < 2 or self.c.boolean(20)):
            y = None
            if self.c.boolean(30):
                shape = t.shape[:axis] + (self.random_dim(),) + t.shape[axis + 1:]
                y = self.new_param(TensorType(shape, t.dtype), scope)
            parts.append(y or self.pick(scope, fits))
        total = const(0)
        for p in parts:
            total = dim_add(total, p.type.shape[axis])
        shape = t.shape[:axis] + (total,) + t.shape[axis + 1:]
        names = ", ".join(p.name for p in parts)
        return [self.binding(f"R.concat(({names}), axis={axis})", TensorType(shape, t.dtype),
                             [p.name for p in parts])]

    def split(self, scope: list[Value]) -> list[Binding]:
        x = self.pick(scope, lambda v: v.is_tensor and v.type.rank)
        if x is None:
            return []
        t = x.type
        axis = self.c.integer(0, t.rank - 1)
        d = t.shape[axis]
        c = static_value(d)
        if c is not None and c >= 2 and self.c.boolean(40):
            cuts = sorted({self.c.integer(1, c - 1) for _ in range(self.c.integer(1, 2))})
            bounds = [0, *cuts, c]
            sizes = [const(b - a) for a, b in zip(bounds, bounds[1:])]
            how = str(cuts)
        else:
            # (one section would give a tensor, not a tuple: SI-split)
            coeff = d[0][1] if len(d) == 1 else 1
            sections = [k for k in (2, 3, 4) if coeff % k == 0]
            if not sections:
                return []
            k = self.c.pick(sections)
            part = tuple((m, cf // k) for m, cf in d)
            sizes = [part] * k
            how = str(k)
        fields = tuple(TensorType(t.shape[:axis] + (s,) + t.shape[axis + 1:], t.dtype)
                       for s in sizes)
        out = [self.binding(f"R.split({x.name}, indices_or_sections={how}, axis={axis})",
                            TupleType(fields), [x.name])]
        if self.c.boolean(70):
            i = self.c.index(len(fields))
            out.append(self.binding(f"{out[0].var}[{i}]", fields[i], [out[0].var]))
        return out

    def astype(self, scope: list[Value], force: str | None = None) -> list[Binding]:
        x = self.pick(scope, lambda v: v.is_tensor)
        if x is None:
            return []
        src = x.type.dtype
        targets = {"float32": ("float16", "float32"), "float16": ("float32", "float16"),
                   "int32": ("float32", "float16", "int32"),
                   "bool": ("float32", "int32")}.get(src, ("float32",))
        dtype = force or self.c.pick(targets)
        return [self.binding(f'R.astype({x.name}, dtype="{dtype}")',
                             TensorType(x.type.shape, dtype), [x.name])]

    def make_tuple(self, scope: list[Value]) -> list[Binding]:
        fields = [self.pick(scope, lambda v: v.is_tensor)
                  for _ in range(self.c.integer(1, 3))]
        names = ", ".join(f.name for f in fields) + ("," if len(fields) == 1 else "")
        return [self.binding(f"({names})", TupleType(tuple(f.type for f in fields)),
                             [f.name for f in fields])]

    def get_item(self, scope: list[Value]) -> list[Binding]:
        t = self.pick(scope, lambda v: isinstance(v.type, TupleType) and v.type.fields)
        if t is None:
            return []
        i = self.c.index(len(t.type.fields))
        return [self.binding(f"{t.name}[{i}]", t.type.fields[i], [t.name])]

    def match_cast(self, scope: list[Value]) -> list[Binding]:
        x = self.pick(scope, lambda v: v.is_tensor and v.type.rank)
        if x is None:
            return []
        shape = []
        for d in x.type.shape:
            if self.c.boolean(60):
                name = f"k{self.match_syms}"
                self.match_syms += 1
                self.typevars.add(name)
                shape.append(sym(name))
            else:
                shape.append(d)
        t = TensorType(tuple(shape), x.type.dtype)
        return [self.binding(f"R.match_cast({x.name}, {t.text()})", t, [x.name])]

    # -- calls of generated functions --------------------------------------------------------
    def local_dims(self, t: TensorType, prefix: str) -> dict:
        """Fresh symbolic names (one per distinct non-static dim of ``t``) for a function
        taking ``t``, so that its parameters define them."""
        mapping: dict = {}
        for d in t.shape:
            if static_value(d) is None and d not in mapping:
                mapping[d] = f"{prefix}{len(mapping)}"
        self.typevars.update(mapping.values())
        return mapping

    def call_helper(self, scope: list[Value]) -> list[Binding]:
        x = self.pick(scope, lambda v: v.is_tensor and v.type.dtype in NUMERIC)
        if x is None or len(self.helpers) >= self.opt.max_helpers:
            return []
        name = f"helper{len(self.helpers)}"
        mapping = self.local_dims(x.type, f"h{len(self.helpers)}_")
        local = TensorType(tuple(sym(mapping[d]) if d in mapping else d
                                 for d in x.type.shape), x.type.dtype)
        args = [x]
        if self.c.boolean(40):
            args.append(self.pick(scope, lambda v: v.is_tensor and v.type == x.type))
        params = [Value(f"a{i}", local) for i in range(len(args))]
        inner = list(params)
        body = Block(dataflow=self.c.boolean(50))
        saved = self.counter
        self.counter = 0

        def one() -> None:
            b = self.same_type_op(inner, inner[-1], prefix="t")
            body.bindings.append(b)
            inner.append(Value(b.var, b.type))

        self.repeat(1, 3, 50, one)
        self.counter = saved
        result = body.bindings[-1].var
        lines = ["    @R.function(private=True)",
                 f"    def {name}(" + ", ".join(f"{p.name}: {p.type.text()}" for p in params)
                 + f") -> {local.text()}:"]
        lines += self.block_lines(body, {result}, 2)
        lines.append(f"        return {result}")
        self.helpers.append("\n".join(lines))
        self.uses_cls = True
        argnames = ", ".join(a.name for a in args)
        return [self.binding(f"cls.{name}({argnames})", x.type, [a.name for a in args])]

    def same_type_op(self, scope: list[Value], x: Value, prefix: str = "lv") -> Binding:
        """An elementwise op whose result has the struct info of ``x``."""
        t = x.type
        if not self.c.boolean(50):
            op = self.c.pick(UNARY_FLOAT if t.dtype in FLOATS else UNARY_INT)
            return self.binding(f"R.{op}({x.name})", t, [x.name], prefix)
        op = self.c.pick(BINARY_FLOAT if t.dtype in FLOATS else BINARY_INT)
        if self.c.boolean(50):
            lits = FLOAT_CONSTS if t.dtype in FLOATS else INT_CONSTS
            y_text, uses = f'R.const({self.c.pick(lits)}, "{t.dtype}")', []
        else:
            y = self.pick(scope, lambda v: v.is_tensor and v.type == t)
            y_text, uses = y.name, [y.name]
        return self.binding(f"R.{op}({x.name}, {y_text})", t, [x.name, *uses], prefix)

    def call_tir(self, scope: list[Value]) -> list[Binding]:
        """``R.call_tir`` of a generated PrimFunc: elementwise with one operand (0) or
        two (1), or a sum over the last axis (2)."""
        x = self.pick(scope, lambda v: v.is_tensor and v.type.rank
                      and v.type.dtype in ("float32", "int32"))
        if x is None:
            return []
        t = x.type
        kind = self.c.integer(0, 2)
        if kind == 2 and t.rank < 2:
            kind = 0
        args = [x]
        if kind == 1:
            y = self.new_param(t, scope) if self.c.boolean(30) else None
            args.append(y or self.pick(scope, lambda v: v.is_tensor and v.type == t))
        text = self.prim_func_text(kind, t)
        name = self.prim_funcs.get(text)
        if name is None:
            if len(self.prim_funcs) >= self.opt.max_prim_funcs:
                return []
            name = f"{('ew', 'ew2', 'rowsum')[kind]}{len(self.prim_funcs)}"
            self.prim_funcs[text] = name
        self.uses_cls = True
        out = TensorType(t.shape[:-1], t.dtype) if kind == 2 else t
        argnames = ", ".join(a.name for a in args) + ("," if len(args) == 1 else "")
        return [self.binding(f"R.call_tir(cls.{name}, ({argnames}), out_sinfo={out.text()})",
                             out, [a.name for a in args])]

    def prim_func_text(self, kind: int, t: TensorType) -> str:
        """The PrimFunc's text after its name: parameters (its own symbolic variables
        for the non-static dims of ``t``) and a loop nest with one block."""
        mapping = self.local_dims(t, "s")
        dims = [mapping[d] if d in mapping else f"T.int64({static_value(d)})" for d in t.shape]
        if t.dtype == "float32":
            def lit(v: int) -> str:
                return f"T.float32({v}.0)"
        else:
            def lit(v: int) -> str:
                return f"T.int32({v})"

        def buffer(ds: list[str]) -> str:
            return "T.Buffer((" + ", ".join(ds) + ("," if len(ds) == 1 else "") + \
                f'), "{t.dtype}")'

        r = t.rank
        loops = ", ".join(f"i{j}" for j in range(r))
        iters = [f"v{j}" for j in range(r)]
        at = ", ".join(iters)
        out_at = ", ".join(iters[:-1]) if kind == 2 else at
        params = [f"A: {buffer(dims)}"] + ([f"B: {buffer(dims)}"] if kind == 1 else []) + \
            [f"Out: {buffer(dims[:-1] if kind == 2 else dims)}"]
        pad = " " * 16
        if r == 1:
            remap = f"{pad}{iters[0]} = T.axis.spatial({dims[0]}, i0)"
        else:
            kinds = "S" * (r - 1) + ("R" if kind == 2 else "S")
            remap = f'{pad}{at} = T.axis.remap("{kinds}", [{loops}])'
        reads = f"A[{at}], B[{at}]" if kind == 1 else f"A[{at}]"
        if kind == 0:
            update = [f"Out[{at}] = " + self.c.pick((
                f"A[{at}] * {lit(2)}", f"A[{at}] + {lit(1)}", f"T.max(A[{at}], {lit(0)})",
                f"A[{at}] * A[{at}]"))]
        elif kind == 1:
            update = [f"Out[{at}] = " + self.c.pick((
                f"A[{at}] + B[{at}]", f"A[{at}] * B[{at}]", f"A[{at}] - B[{at}]",
                f"T.max(A[{at}], B[{at}])"))]
        else:
            update = ["with T.init():", f"    Out[{out_at}] = {lit(0)}",
                      f"Out[{out_at}] = Out[{out_at}] + A[{at}]"]
        lines = ["(" + ", ".join(params) + "):",
                 '        # with T.sblock("root"):',
                 f"        for {loops} in T.grid({', '.join(dims)}):",
                 '            with T.sblock("compute"):',
                 remap,
                 f"{pad}T.reads({reads})",
                 f"{pad}T.writes(Out[{out_at}])",
                 *(pad + u for u in update)]
        return "\n".join(lines)

    # -- if / else -----------------------------------------------------------------------------
    def if_stmt(self, scope: list[Value], before: Block) -> IfStmt:
        if self.cond is None:
            self.cond = f"x{len(self.params)}"
            prim = self.c.boolean(20)
            self.params.append(Value(self.cond, "prim_bool" if prim else TensorType((), "bool")))
        anchor = self.pick(scope, lambda v: v.is_tensor and v.type.dtype in NUMERIC and
                           not v.name.startswith("x"))
        if anchor is None:
            anchor = self.pick(scope, lambda v: v.is_tensor and v.type.dtype in NUMERIC)
        if anchor is None:  # only bool tensors: compute a number first
            b = self.astype(scope, force="float32")[0]
            before.bindings.append(b)
            scope.append(Value(b.var, b.type))
            anchor = scope[-1]
        result = self.fresh("r")
        branches = []
        for _ in range(2):
            inner = list(scope)
            bindings: list[Binding] = []
            if not self.c.boolean(15):
                def one() -> None:
                    x = inner[-1] if bindings else anchor
                    if self.c.boolean(20) and len(self.helpers) < self.opt.max_helpers:
                        bs = self.call_helper([x])
                    elif self.c.boolean(20) and x.type.dtype in ("float32", "int32") \
                            and x.type.rank:
                        bs = self.call_tir([x])
                    else:
                        bs = []
                    b = bs[0] if bs and bs[0].type == x.type else self.same_type_op(inner, x)
                    bindings.append(b)
                    inner.append(Value(b.var, b.type))

                self.repeat(1, self.opt.max_branch_bindings, 40, one)
            last = bindings[-1].var if bindings else anchor.name
            bindings.append(Binding(result, anchor.type, last, (last,)))
            branches.append(bindings)
        scope.append(Value(result, anchor.type))
        return IfStmt(self.cond, result, (branches[0], branches[1]), anchor.type)

    # -- text ------------------------------------------------------------------------------------
    def binding_line(self, b: Binding, indent: int) -> str:
        pad = "    " * indent
        if self.annotate:
            return f"{pad}{b.var}: {b.type.text()} = {b.rhs}"
        return f"{pad}{b.var} = {b.rhs}"

    def block_lines(self, block: Block, needed_after: set[str], indent: int) -> list[str]:
        if not block.dataflow:
            return [self.binding_line(b, indent) for b in block.bindings]
        outputs = [b.var for b in block.bindings if b.var in needed_after]
        if not outputs:  # a dataflow block must give something out; the last binding
            outputs = [block.bindings[-1].var]
        lines = ["    " * indent + "with R.dataflow():"]
        lines += [self.binding_line(b, indent + 1) for b in block.bindings]
        lines.append("    " * (indent + 1) + f"R.output({', '.join(outputs)})")
        return lines

    def render(self, stmts: list, results: list[Value]) -> str:
        ret = results[0].name if len(results) == 1 else \
            "(" + ", ".join(r.name for r in results) + ")"
        # What each statement needs from before it: used later or returned.
        needed: set[str] = {r.name for r in results}
        needed_after: list[set[str]] = []
        for s in reversed(stmts):
            needed_after.append(set(needed))
            if isinstance(s, Block):
                for b in s.bindings:
                    needed.update(b.uses)
            else:
                needed.add(s.cond)
                for branch in s.branches:
                    for b in branch:
                        needed.update(b.uses)
        needed_after.reverse()
        body: list[str] = []
        if self.uses_cls:
            body.append("        cls = Module")
        for s, after in zip(stmts, needed_after):
            if isinstance(s, Block):
                body += self.block_lines(s, after, 2)
            else:
                body.append(f"        if {s.cond}:")
                body += [self.binding_line(b, 3) for b in s.branches[0]]
                body.append("        else:")
                body += [self.binding_line(b, 3) for b in s.branches[1]]
        body.append(f"        return {ret}")

        def param_text(p: Value) -> str:
            if p.type == "prim_bool":
                return f'{p.name}: R.Prim("bool")'
            return f"{p.name}: {p.type.text()}"

        ret_types = [r.type for r in results]
        ret_type = ret_types[0] if len(ret_types) == 1 else TupleType(tuple(ret_types))
        ret_ann = f" -> {ret_type.text()}" if ret_type.symbols() <= {"n", "m"} else ""
        main = ["    @R.function",
                f"    def main({', '.join(param_text(p) for p in self.params)}){ret_ann}:",
                *body]
        used = set()
        for p in self.params:
            if isinstance(p.type, TensorType):
                used |= p.type.symbols()
        names = sorted(used | self.typevars)
        out = [f'{n} = TypeVar("{n}")' for n in names]
        out += ["@I.ir_module", "class Module:"]
        for text, name in self.prim_funcs.items():
            out += ["    @T.prim_func(private=True, s_tir=True)", f"    def {name}{text}", ""]
        for h in self.helpers:
            out += [h, ""]
        out += main
        return "\n".join(out) + "\n"


# -- entry points ---------------------------------------------------------------------------

def generate_text(choices: Choices, options: GenOptions | None = None) -> str:
    """TVMScript text of a random well-formed module, from ``choices``."""
    return _Generator(choices, options or GenOptions()).module()


def build_module(text: str) -> rx.IRModule:
    """Parse and normalize generated text (what ``modules()`` yields)."""
    from relax_ref.parser.builder import parse
    from relax_ref.semantics.normalize import normalize

    return normalize(parse(text, "<generated>"))


def random_module(rng: np.random.Generator, options: GenOptions | None = None
                  ) -> tuple[str, list[int]]:
    """Text of a random module drawn with ``rng``, and the record of its choices."""
    choices = RandomChoices(rng)
    return generate_text(choices, options), choices.record


def modules(options: GenOptions | None = None):
    """Hypothesis strategy: random well-formed, normalized IRModules (see the module
    docstring); shrinks towards small modules."""
    from hypothesis import strategies as st

    @st.composite
    def _modules(draw):
        return build_module(generate_text(DrawChoices(draw), options))

    return _modules()


def generated_texts(options: GenOptions | None = None):
    """Hypothesis strategy: the generator's own text, not parsed (cheap; for tests of
    the generator and its shrinking)."""
    from hypothesis import strategies as st

    @st.composite
    def _texts(draw):
        return generate_text(DrawChoices(draw), options)

    return _texts()


def module_texts(options: GenOptions | None = None):
    """Hypothesis strategy: TVMScript text of ``modules()``, as ``print_module`` prints it."""
    from relax_ref.parser.printer import print_module

    return modules(options).map(print_module)


def module_arguments(mod: rx.IRModule, entry: str = "main"):
    """Hypothesis strategy: (symbol values, arguments) for ``mod[entry]``, symbolic
    variables in 0..8, tensors drawn from a seeded NumPy generator."""
    from hypothesis import strategies as st

    from relax_ref.semantics.inputs import random_value, symbols_needed

    func = mod[entry]
    symbols = symbols_needed(func)

    @st.composite
    def _args(draw):
        env = {v: draw(st.integers(0, 8)) for v in symbols}
        rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
        args = [random_value(p.struct_info, env, rng, what=p.name_hint) for p in func.params]
        return {v.name: x for v, x in env.items()}, args

    return _args()
