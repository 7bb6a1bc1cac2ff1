"""LegalizeOps (TVM's name): every op call with a legalization becomes the tensor program
it lowers to (spec/passes.md, PASS-legalize-*).

- PASS-legalize-1. Each call of a registered op whose ``OpDef.legalize`` (or the user's
  ``customize_legalize_map`` entry, which takes precedence) applies is replaced by what
  the legalization returns: a ``R.call_tir`` of a PrimFunc written with ``te/``, or an
  expression of other ops, which is legalized in turn. Ops in ``skip_ops`` stay.
- PASS-legalize-2. A call is left as it is when an operand or its result has an unknown
  shape or dtype (TVM skips these too), or when the legalization declines
  (``te.legalize.Decline``: an operand's value is not known at compile time).
- PASS-legalize-3. Each distinct PrimFunc is added once: structurally equal PrimFuncs
  (same op, attributes and shapes) share one function, named after the op with the
  smallest free numeric suffix (``matmul``, ``matmul1``).
- PASS-legalize-4. Symbolic variables that a PrimFunc needs but no buffer shape binds are
  passed as ``R.prim_value`` arguments after the tensors, to int64 scalar parameters
  (``te.create_prim_func``; TVM 0.27's ``call_tir`` has no ``tir_vars``).
- PASS-legalize-6. A call whose op, attributes, operand forms and struct info equal an
  earlier call's up to a renaming of symbolic variables reuses that call's lowering
  (the same PrimFunc, its operands and symbolic variables renamed), without running the
  legalization again: legalizations are functions of exactly these facts.
- PASS-legalize-7. The ops TVM lowers to runtime functions (its ``FCallPacked`` ops:
  unique, nonzero, print, assert_op) become calls of those functions (``OpDef.
  legalize_any_shape``: whatever their shapes), which run the ops' own semantics.
- PASS-legalize-5. A variable binding whose value changed is re-typed from the new value
  (``RetypingRewriter``); the result is normalized, so nested expressions a legalization
  returns become bindings.
"""
from __future__ import annotations

from typing import Callable, Mapping, Sequence

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ops.registry import lookup
from relax_ref.semantics.normalize import constant_sinfo, normalize
from relax_ref.te.legalize import Decline, LegalizeContext

from .added_functions import AddedFunctions
from .registry import Pass, register_pass
from .rewrite import RetypingRewriter, finish
from .symbols import substitute_sinfo

# How many times a call may be legalized into calls that need legalizing again.
_MAX_DEPTH = 16


# Not exact: TIR math intrinsics compute in float64 and round once, NumPy's float32 loops
# may differ in the last place (EXEC-tir-intrin-1).
@register_pass("LegalizeOps", exact=False)
def legalize_ops(mod: rx.IRModule) -> rx.IRModule:
    """PASS-legalize-1..5: lower every op with a legalization to call_tir of a PrimFunc."""
    return _run(mod, {}, ())


def legalize_ops_with(customize_legalize_map: Mapping[str, Callable] | None = None,
                      skip_ops: Sequence[str] = (), enable_warning: bool = False) -> Pass:
    """LegalizeOps with TVM's options: ``customize_legalize_map`` (op name -> function
    ``ctx -> expr``) overrides ours; ``skip_ops`` names ops to leave alone.
    ``enable_warning`` is accepted for TVM's signature and changes nothing."""
    custom = dict(customize_legalize_map or {})
    skip = tuple(skip_ops)
    if not custom and not skip:
        return legalize_ops
    return Pass("LegalizeOps", lambda m: _run(m, custom, skip), exact=False,
                doc=legalize_ops.doc, options={"customize_legalize_map": custom,
                                                "skip_ops": list(skip)})


def _run(mod: rx.IRModule, custom: Mapping[str, Callable], skip: Sequence[str]) -> rx.IRModule:
    mod = normalize(mod)
    lowering = Legalizer(mod, custom, skip)
    out = lowering.module(mod)
    out = out.with_functions({**out.functions, **lowering.added})
    return finish(out)


def _short(name: str) -> str:
    return name.rsplit(".", 1)[-1]


class Legalizer(RetypingRewriter):
    """The lowering traversal: each call of an op with a legalization in ``custom`` (op
    name -> function) or on its OpDef is replaced (PASS-legalize-1..6). DispatchSortScan
    reuses it with its own table."""

    def __init__(self, mod: rx.IRModule, custom: Mapping[str, Callable],
                 skip: Sequence[str]) -> None:
        super().__init__()
        self.mod = mod
        self.custom = {(k if k.startswith("relax.") else f"relax.{k}"): v
                       for k, v in custom.items()}
        self.skip = {(k if k.startswith("relax.") else f"relax.{k}") for k in skip}
        self.added = AddedFunctions(mod)
        # The struct info of variables the re-typing rebinds without one (their new
        # value computes the same thing, so the old facts still describe it).
        self.known_sinfo: dict[int, si.StructInfo] = {}
        self.templates: dict[tuple, tuple] = {}  # PASS-legalize-6
        self.sizes: frozenset[P.Var] = frozenset()
        self.in_dataflow = False
        self.prelude: list[rx.Binding] = []  # bindings emitted for the current one (TE-leg-6)

    def global_function(self, name: str, func: rx.Function) -> rx.Function | None:
        self.sizes = frozenset(_size_vars(func))
        return super().global_function(name, func)

    def block(self, block: rx.BindingBlock) -> rx.BindingBlock | None:
        saved, self.in_dataflow = self.in_dataflow, isinstance(block, rx.DataflowBlock)
        try:
            return super().block(block)
        finally:
            self.in_dataflow = saved

    def new_var(self, name: str) -> rx.Var:
        return rx.DataflowVar(name) if self.in_dataflow else rx.Var(name)

    def binding(self, b: rx.Binding) -> list[rx.Binding]:
        outer, self.prelude = self.prelude, []
        try:
            out = self._binding(b)
            return self.prelude + out if self.prelude else out
        finally:
            self.prelude = outer

    def _binding(self, b: rx.Binding) -> list[rx.Binding]:
        out = super().binding(b)
        for nb in out:
            if nb.var.struct_info is None:
                # What normalization will deduce for the re-typed variable: the new
                # value's struct info (a call_tir's out_ty may be finer than a coarse
                # annotation), else the old facts, which still describe the value.
                s = self._sinfo(nb.value) if isinstance(nb, rx.VarBinding) else None
                s = s if s is not None else b.var.struct_info
                if s is not None:
                    self.known_sinfo[id(nb.var)] = s
        return out

    def _sinfo(self, e: rx.Expr) -> si.StructInfo | None:
        if isinstance(e, rx.Var) and e.struct_info is None:
            return self.known_sinfo.get(id(e))
        if isinstance(e, rx.Tuple):
            fields = [self._sinfo(f) for f in e.fields]
            return None if any(f is None for f in fields) else si.TupleStructInfo(tuple(fields))
        if isinstance(e, rx.TupleGetItem):
            t = self._sinfo(e.tuple_value)
            return t.fields[e.index] if isinstance(t, si.TupleStructInfo) else None
        return _sinfo(e)

    # -- PrimFuncs (PASS-legalize-3) ------------------------------------------------------
    def add_prim_func(self, name_hint: str, func) -> rx.GlobalVar:
        return self.added.add(_short(name_hint), func)

    # -- calls -----------------------------------------------------------------------------
    def call(self, e: rx.Call) -> rx.Expr:
        e = super().call(e)
        return self._legalize(e, 0)

    def _legalize(self, e: rx.Expr, depth: int) -> rx.Expr:
        if not isinstance(e, rx.Call) or not isinstance(e.op, rx.Op):
            return e
        name = e.op.name
        if name in self.skip:
            return e
        fn = self.custom.get(name)
        opdef = lookup(name)
        if fn is None:
            fn = opdef.legalize if opdef is not None else None
        if fn is None or depth > _MAX_DEPTH:
            return e
        if e.struct_info is None:
            deduced = self._deduced(e)
            if deduced is None:
                return e
            e = deduced
        if opdef is not None and opdef.legalize_any_shape and fn is opdef.legalize:
            # A lowering to a packed call needs no shapes (PASS-legalize-7).
            ctx = LegalizeContext(e, [self._sinfo(a) for a in e.args], self.add_prim_func,
                                  self.sizes, self.new_var)
            try:
                out = fn(ctx)
            except Decline:
                return e
            if out is None:
                return e
            self.prelude.extend(ctx.emitted)
            return out
        if not _known(e.struct_info):
            return e
        arg_sinfo = [self._sinfo(a) for a in e.args]
        if any(s is None for s in arg_sinfo):
            return e
        key = _call_key(name, fn, e, arg_sinfo, self.sizes)
        hit = self.templates.get(key[0]) if key is not None else None
        if hit is not None:
            return _instantiate(hit, e, key[1])
        ctx = LegalizeContext(e, arg_sinfo, self.add_prim_func, self.sizes, self.new_var)
        try:
            out = fn(ctx)
        except Decline:
            return e
        if out is None or out is e:
            return e
        if ctx.emitted:  # a lowering in several bindings is not reused (PASS-legalize-6)
            self.prelude.extend(ctx.emitted)
            return self._legalize_nested(out, depth + 1)
        if key is not None:
            template = _template(out, e, key[1])
            if template is not None:
                self.templates[key[0]] = template
        return self._legalize_nested(out, depth + 1)

    def _legalize_nested(self, e: rx.Expr, depth: int) -> rx.Expr:
        """Legalize the op calls a legalization returned (they carry no struct info
        yet: each is deduced first)."""
        if isinstance(e, rx.Call):
            args = tuple(self._legalize_nested(a, depth) for a in e.args)
            if any(a is not b for a, b in zip(args, e.args)):
                e = rx.Call(e.op, args, e.attrs, e.sinfo_args, span=e.span)
            if isinstance(e.op, rx.Op) and e.op.name != "relax.call_tir":
                return self._legalize(e, depth)
            return e
        if isinstance(e, rx.Tuple):
            fields = tuple(self._legalize_nested(f, depth) for f in e.fields)
            return rx.Tuple(fields, span=e.span)
        if isinstance(e, rx.TupleGetItem):
            return rx.TupleGetItem(self._legalize_nested(e.tuple_value, depth), e.index,
                                   span=e.span)
        return e

    def _deduced(self, e: rx.Call) -> rx.Call | None:
        """``e`` with its struct info deduced (a call a legalization built)."""
        from relax_ref.ops.registry import canonicalize_call, deduce_call_sinfo

        try:
            c = canonicalize_call(e)
            arg_sinfo = [self._sinfo(a) for a in c.args]
            if any(s is None for s in arg_sinfo):
                return None
            s = deduce_call_sinfo(c, arg_sinfo)
        except Exception:  # noqa: BLE001 -- an undeducible call stays for normalize to report
            return None
        return rx.Call(c.op, c.args, c.attrs, c.sinfo_args, s, span=c.span)


def _size_vars(func: rx.Function) -> set[P.Var]:
    """The symbolic variables ``func`` (and the functions inside it) binds as a whole
    dimension of a tensor or shape: in parameter annotations and match_casts. They are
    never negative (TE-leg-4)."""
    walk = _SizeVars()
    walk.walk(func)
    return walk.found


class _SizeVars:
    """The walk of ``_size_vars`` (methods, not recursive closures: no reference cycle)."""

    def __init__(self) -> None:
        self.found: set[P.Var] = set()

    def note(self, s) -> None:
        if isinstance(s, si.TensorStructInfo) and s.shape is not None:
            self.found.update(d for d in s.shape if isinstance(d, P.Var))
        elif isinstance(s, si.ShapeStructInfo) and s.values is not None:
            self.found.update(d for d in s.values if isinstance(d, P.Var))
        elif isinstance(s, si.TupleStructInfo):
            for f in s.fields:
                self.note(f)

    def walk(self, e) -> None:
        if isinstance(e, rx.Function):
            for p in e.params:
                self.note(p.struct_info)
            self.walk(e.body)
        elif isinstance(e, rx.SeqExpr):
            for blk in e.blocks:
                for b in blk.bindings:
                    if isinstance(b, rx.MatchCast):
                        self.note(b.struct_info)
                    self.walk(b.value)
            self.walk(e.body)
        elif isinstance(e, rx.If):
            self.walk(e.true_branch), self.walk(e.false_branch)


def _sinfo(e: rx.Expr) -> si.StructInfo | None:
    if isinstance(e, rx.Constant):
        return constant_sinfo(e)
    s = getattr(e, "struct_info", None)
    if s is not None:
        return s
    if isinstance(e, rx.Call) and isinstance(e.op, rx.Op) and e.op.name == "relax.call_tir":
        out = e.sinfo_args  # several outputs: a tuple (SI-struct-dps-1)
        return out[0] if len(out) == 1 else si.TupleStructInfo(tuple(out))
    if isinstance(e, rx.ShapeExpr):
        return si.ShapeStructInfo(tuple(e.values), len(e.values))
    if isinstance(e, rx.PrimValue):
        return si.PrimStructInfo(e.value.dtype, e.value)
    return None


def _known(s: si.StructInfo) -> bool:
    """PASS-legalize-2: every tensor in ``s`` has a known shape and dtype."""
    if isinstance(s, si.TensorStructInfo):
        return s.shape is not None and not s.dtype.is_void
    if isinstance(s, si.TupleStructInfo):
        return all(_known(f) for f in s.fields)
    return True


# -- reusing a lowering (PASS-legalize-6) ------------------------------------------------------


class _NoKey(Exception):
    pass


def _alpha(e: P.PrimExpr, names: dict[int, tuple[int, P.Var]]) -> tuple:
    """``e`` as a hashable key in which variables are numbered in first-seen order."""
    t = type(e)
    if t is P.Var:
        k = names.setdefault(id(e), (len(names), e))[0]
        return ("v", k, e.dtype)
    if t is P.IntImm:
        return ("i", e.value, e.dtype)
    if t is P.FloatImm:
        return ("f", float(e.value).hex(), e.dtype)
    return (t.__name__, e.dtype, getattr(e, "op", None),
            tuple(_alpha(c, names) for c in P.children(e)))


def _value_key(v, names) -> object:
    if isinstance(v, P.PrimExpr):
        return _alpha(v, names)
    if isinstance(v, (tuple, list)):
        return tuple(_value_key(x, names) for x in v)
    if isinstance(v, float):
        return ("float", v.hex())
    if v is None or isinstance(v, (bool, int, str)):
        return v
    try:
        hash(v)
    except TypeError:
        raise _NoKey from None
    if type(v).__eq__ is object.__eq__:  # compared by identity: no use as a key
        raise _NoKey
    return (type(v).__name__, v)


def _sinfo_key(s, names) -> object:
    if s is None:
        raise _NoKey
    if isinstance(s, si.TensorStructInfo):
        return ("T", None if s.shape is None else tuple(_alpha(d, names) for d in s.shape),
                s.dtype, s.ndim, s.vdevice)
    if isinstance(s, si.TupleStructInfo):
        return ("U", tuple(_sinfo_key(f, names) for f in s.fields))
    if isinstance(s, si.ShapeStructInfo):
        return ("S", None if s.values is None else tuple(_alpha(d, names) for d in s.values),
                s.ndim)
    if isinstance(s, si.PrimStructInfo):
        return ("P", s.dtype, None if s.value is None else _alpha(s.value, names))
    raise _NoKey


def _form(e: rx.Expr) -> object:
    """What a legalization may see of an operand besides its struct info."""
    if isinstance(e, rx.Tuple):
        return ("tuple", tuple(_form(f) for f in e.fields))
    if isinstance(e, (rx.Var, rx.TupleGetItem, rx.Constant, rx.ShapeExpr, rx.PrimValue)):
        return "value"  # all a legalization reads of these is in their struct info
    if isinstance(e, rx.StringImm):
        return ("str", e.value)
    if isinstance(e, rx.DataTypeImm):
        return ("dtype", str(e.value))
    raise _NoKey


def _call_key(name: str, fn, call: rx.Call, arg_sinfo, sizes) -> tuple | None:
    """(the key, the symbolic variables in numbering order) or None. Which variables
    are known sizes is part of the key (TE-leg-4 lets a legalization depend on it)."""
    names: dict[int, tuple[int, P.Var]] = {}
    try:
        key = (name, id(fn), tuple(_value_key(call.attrs.get(k), names) for k in call.attrs),
               tuple(call.attrs), tuple(_form(a) for a in call.args),
               tuple(_sinfo_key(s, names) for s in arg_sinfo),
               _sinfo_key(call.struct_info, names))
    except _NoKey:
        return None
    vars_ = [v for _, v in sorted(names.values(), key=lambda x: x[0])]
    return key + (tuple(v in sizes for v in vars_),), vars_


def _path(src: rx.Expr, call: rx.Call) -> tuple | None:
    if isinstance(src, rx.PrimValue) and not any(src is a for a in call.args):
        return ("prim", src.value)  # a symbolic variable passed to the PrimFunc
    """Where ``src`` sits among the call's operands; None when nowhere, or in several
    places (``R.matmul(x, x)``: which operand a placeholder came from is then unknown,
    and a template would feed ``x`` twice to a later ``R.matmul(x, w)``)."""
    found = []
    for i, a in enumerate(call.args):
        if src is a:
            found.append(("arg", i))
        if isinstance(a, rx.Tuple):
            for k, f in enumerate(a.fields):
                if src is f:
                    found.append(("field", i, k))
        if isinstance(src, rx.TupleGetItem) and src.tuple_value is a:
            found.append(("item", i, src.index))
    return found[0] if len(found) == 1 else None


def _resolve(path: tuple, call: rx.Call, mapping: dict) -> rx.Expr:
    if path[0] == "prim":
        from relax_ref.solver.expr_utils import substitute

        return rx.PrimValue(substitute(path[1], mapping))
    a = call.args[path[1]]
    if path[0] == "arg":
        return a
    if path[0] == "field":
        return a.fields[path[2]]
    return rx.TupleGetItem(a, path[2])


def _template(out: rx.Expr, call: rx.Call, vars_: list) -> tuple | None:
    """How to rebuild ``out`` for another call with the same key, or None when ``out``
    is not a lone call_tir of the call's operands."""
    if not (isinstance(out, rx.Call) and isinstance(out.op, rx.Op)
            and out.op.name == "relax.call_tir" and isinstance(out.args[1], rx.Tuple)):
        return None
    paths = [_path(s, call) for s in out.args[1].fields]
    if any(p is None for p in paths):
        return None
    return out, paths, vars_


def _instantiate(template: tuple, call: rx.Call, vars_: list) -> rx.Call:
    out, paths, old = template
    mapping = {o: n for o, n in zip(old, vars_) if o is not n}
    args = [out.args[0], rx.Tuple(tuple(_resolve(p, call, mapping) for p in paths))]
    if len(out.args) > 2:
        from relax_ref.solver.expr_utils import substitute

        args.append(rx.ShapeExpr(tuple(substitute(v, mapping) for v in out.args[2].values)))
    sinfo = tuple(substitute_sinfo(s, mapping) for s in out.sinfo_args) if mapping \
        else out.sinfo_args
    return rx.Call(out.op, tuple(args), out.attrs, sinfo, span=call.span)
