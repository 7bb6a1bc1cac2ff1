"""Annotations in ``@R.function`` definitions (spec/syntax.md, "Annotations (struct
info)"): ``R.Tensor``, ``R.Shape``, ``R.Prim``, ``R.Tuple``, ``R.Callable`` and the rest,
shapes and the symbolic expressions in them, and scalar parameters that define symbolic
variables. ``Annotations`` is a part of ``relax_builder.RelaxReader``, which supplies the
names and the Relax expressions.
"""
from __future__ import annotations

from lark import Tree

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import BOOL, INT64, VOID, DataType, parse_dtype

from . import prim_builder as pb
from .scope import ModuleRef, Namespace, Reader, is_distributed, is_scalar_dtype_name


class Annotations(Reader):
    """Struct info and shapes, read by the Relax reader."""

    # -- struct info ---------------------------------------------------------------------
    def struct_info(self, node, param_name: str | None = None) -> si.StructInfo:
        value = self.value(node)
        sinfo = self.to_struct_info(value, node, param_name)
        if param_name is not None and isinstance(sinfo, si.PrimStructInfo) and sinfo.value is None:
            sinfo = self.prim_param(sinfo.dtype, param_name, node)
        return sinfo

    def to_struct_info(self, value, node, param_name: str | None = None) -> si.StructInfo:
        if isinstance(value, si.StructInfo):
            return value
        if isinstance(value, Namespace):
            path = value.path
            if is_distributed(path):
                raise self.error(f"{value.dotted} is a distributed Relax annotation, which "
                                 f"relax_ref does not model", node, rule="SYN-dist-1")
            if path in (("R", "Object"), ("R", "Any")):
                return si.ObjectStructInfo(span=self.ctx.span(node))
            if path == ("R", "Tensor"):
                return si.TensorStructInfo(span=self.ctx.span(node))
            if path == ("R", "Shape"):
                return si.ShapeStructInfo(span=self.ctx.span(node))
            if path == ("R", "Tuple"):
                return si.TupleStructInfo((), span=self.ctx.span(node))
            if path == ("R", "Callable"):  # R.Callable(): what the printer writes bare
                return si.FuncStructInfo(None, si.ObjectStructInfo(), False,
                                         span=self.ctx.span(node))
            if len(path) == 2 and path[0] == "T" and is_scalar_dtype_name(path[1]):
                dtype = parse_dtype(path[1])
                return self.prim_param(dtype, param_name, node)
        if isinstance(value, tuple):
            return si.TupleStructInfo(tuple(self.to_struct_info(v, node) for v in value),
                                      span=self.ctx.span(node))
        raise self.error(f"expected an annotation such as R.Tensor(...), found "
                         f"{_describe(value)}", node, rule="SYN-sinfo-1")

    def prim_param(self, dtype: DataType, param_name: str | None, node) -> si.PrimStructInfo:
        """``k: T.int64`` on a parameter defines the symbolic variable ``k`` holding the
        argument's value (spec/syntax.md, SYN-sinfo-4); elsewhere it is ``R.Prim``."""
        if param_name is None:
            return si.PrimStructInfo(dtype, span=self.ctx.span(node))
        existing = self.sym_vars.get(param_name)
        if existing is not None and existing.dtype == dtype:
            var = existing
        else:
            var = P.Var(param_name, dtype, span=self.ctx.span(node))
            self.sym_vars[param_name] = var
        return si.PrimStructInfo(dtype, var, span=self.ctx.span(node))

    def sinfo_call(self, name: str, args: list, kwargs: list, node) -> si.StructInfo:
        span = self.ctx.span(node)
        kw = dict(kwargs)
        if name in ("Object", "Any"):
            if args or kwargs:
                raise self.error(f"R.{name} takes no arguments", node, rule="SYN-sinfo-1")
            return si.ObjectStructInfo(span=span)
        if name == "Tensor":
            self._check_keywords(kw, ("shape", "dtype", "ndim", "vdevice"), "R.Tensor", node)
            if len(args) > 3:
                raise self.error("R.Tensor takes (shape, dtype, vdevice)", node, rule="SYN-sinfo-2")
            shape_node = args[0] if args else kw.get("shape")
            dtype_node = args[1] if len(args) > 1 else kw.get("dtype")
            vdev_node = args[2] if len(args) > 2 else kw.get("vdevice")
            if len(args) == 1 and isinstance(args[0], Tree) and args[0].data == "strings":
                # R.Tensor("float32"): a dtype alone
                shape_node, dtype_node = None, args[0]
            ndim = si.UNKNOWN_NDIM
            shape_var = self.value(shape_node) if isinstance(shape_node, Tree) and \
                shape_node.data == "name" else None
            if isinstance(shape_var, rx.Var) and (
                    shape_var.struct_info is None
                    or isinstance(shape_var.struct_info, si.ShapeStructInfo)
                    and shape_var.struct_info.values is None):
                # R.Tensor(s) for a shape variable of unknown values: the dimensions are
                # s's, not known here; only its ndim is kept, when known (SYN-sinfo-2).
                if shape_var.struct_info is not None:
                    ndim = shape_var.struct_info.ndim
                shape_node = None
            shape = self.shape_dims(shape_node) if shape_node is not None else None
            dtype = self.dtype_arg(dtype_node) if dtype_node is not None else VOID
            if "ndim" in kw:
                ndim = self.value(kw["ndim"])
                if not isinstance(ndim, int) or isinstance(ndim, bool) or ndim < -1:
                    raise self.error("ndim must be a non-negative integer (or -1)", kw["ndim"],
                                     rule="SYN-sinfo-2")
                if shape is not None and ndim not in (-1, len(shape)):
                    raise self.error(f"ndim={ndim} contradicts the shape's {len(shape)} "
                                     f"dimensions", kw["ndim"], rule="SYN-sinfo-2")
            vdevice = None
            if vdev_node is not None:
                vdevice = self.value(vdev_node)
                if not isinstance(vdevice, str):
                    raise self.error("vdevice must be a string", vdev_node, rule="SYN-sinfo-2")
            return si.TensorStructInfo(shape, dtype, ndim if shape is None else len(shape),
                                       vdevice, span=span)
        if name == "Shape":
            self._check_keywords(kw, ("values", "ndim"), "R.Shape", node)
            values_node = args[0] if args else kw.get("values")
            values = self.shape_dims(values_node) if values_node is not None else None
            ndim = si.UNKNOWN_NDIM
            if "ndim" in kw:
                ndim = self.value(kw["ndim"])
                if not isinstance(ndim, int) or isinstance(ndim, bool) or ndim < -1:
                    raise self.error("ndim must be a non-negative integer", kw["ndim"],
                                     rule="SYN-sinfo-3")
            return si.ShapeStructInfo(values, ndim if values is None else len(values), span=span)
        if name == "Prim":
            self._check_keywords(kw, ("dtype", "value"), "R.Prim", node)
            dtype_node = args[0] if args else kw.get("dtype")
            value_node = kw.get("value")
            prim_value = None
            if value_node is not None:
                prim_value = self.prim_from_node(value_node, define=True)
            if dtype_node is None:
                if prim_value is None:
                    raise self.error("R.Prim needs a dtype or a value", node, rule="SYN-sinfo-4")
                dtype = prim_value.dtype
            else:
                dtype = self.dtype_arg(dtype_node)
            return si.PrimStructInfo(dtype, prim_value, span=span)
        if name == "Tuple":
            if kwargs:
                raise self.error("R.Tuple takes only struct info arguments", node,
                                 rule="SYN-sinfo-5")
            if len(args) == 1 and isinstance(args[0], Tree) and args[0].data in ("list_",
                                                                                 "tuple_inner"):
                # R.Tuple([a, b]) is R.Tuple(a, b), as TVM's R.Tuple spreads one list.
                inner = args[0].children if args[0].data == "tuple_inner" else (
                    args[0].children[0].children if args[0].children[0] is not None else [])
                args = [c for c in inner if c is not None]
            fields = []
            for a in args:
                fields.append(self.struct_info(a))
            return si.TupleStructInfo(tuple(fields), span=span)
        if name == "Callable":
            self._check_keywords(kw, ("params", "ret", "purity", "derive_func"), "R.Callable", node)
            params_node = args[0] if args else kw.get("params")
            ret_node = args[1] if len(args) > 1 else kw.get("ret")
            purity_node = args[2] if len(args) > 2 else kw.get("purity")
            params = None
            if params_node is not None:
                pv = self.value(params_node)
                if pv is not None:
                    if not isinstance(pv, (tuple, list)):
                        pv = (pv,)
                    params = tuple(self.to_struct_info(p, params_node) for p in pv)
            ret = self.struct_info(ret_node) if ret_node is not None else si.ObjectStructInfo()
            purity = params is not None  # TVM's default: an opaque callable is impure
            if purity_node is not None:
                purity = self.value(purity_node)
                if not isinstance(purity, bool):
                    raise self.error("purity must be True or False", purity_node, rule="SYN-sinfo-6")
            derive = None
            if "derive_func" in kw:
                derive = self.value(kw["derive_func"])
            return si.FuncStructInfo(params, ret, purity, derive, span=span)
        raise self.error(f"unknown annotation R.{name}", node, rule="SYN-sinfo-1")

    def _check_keywords(self, kw: dict, allowed: tuple, what: str, node) -> None:
        for key in kw:
            if key not in allowed:
                raise self.error(f"{what} has no option {key!r} (options: {', '.join(allowed)})",
                                 kw[key], rule="SYN-sinfo-1")

    def shape_dims(self, node) -> tuple[P.PrimExpr, ...] | None:
        """The dimensions of a shape annotation: a tuple or list of ints, symbolic names,
        expressions, or strings holding either (``("n", 4)``, ``("n * 4",)``)."""
        if isinstance(node, Tree) and node.data == "none":
            return None
        if isinstance(node, Tree) and node.data in ("tuple_inner", "list_"):
            items = node.children if node.data == "tuple_inner" else \
                (node.children[0].children if node.children[0] is not None else [])
            return tuple(self.prim_from_node(c, define=True) for c in items if c is not None)
        if isinstance(node, Tree) and node.data == "empty_tuple":
            return ()
        value = self.value(node)
        if isinstance(value, rx.Var) and isinstance(value.struct_info, si.ShapeStructInfo) \
                and value.struct_info.values is not None:
            return value.struct_info.values
        raise self.error("a shape is a tuple or list of dimensions", node, rule="SYN-sinfo-2")

    def prim_from_node(self, node, define: bool) -> P.PrimExpr:
        """A symbolic expression: names are symbolic variables (declared by TypeVar or
        ``T.int64()``; a name inside a string is declared by that use when ``define``)."""
        if isinstance(node, Tree) and node.data == "strings":
            text = self.ctx.string(node)
            tree = self.parse_expr_string(text, node)
            self._declare_string_names(tree, node)
            node = _relocate(tree, node)
        saved = self.shape_mode
        self.shape_mode = True
        try:
            value = self.value(node)
        finally:
            self.shape_mode = saved
        return self.to_prim(value, node)

    def _declare_string_names(self, tree: Tree, node) -> None:
        for sub in tree.iter_subtrees():
            if sub.data == "name":
                name = str(sub.children[0])
                if name not in self.sym_vars and name not in ("T", "R"):
                    self.sym(name, node, create=True)

    def to_prim(self, value, node) -> P.PrimExpr:
        if isinstance(value, P.PrimExpr):
            return value
        if isinstance(value, bool):
            return P.IntImm(int(value), BOOL)
        if isinstance(value, int):
            # A dimension or scalar value is an int64: one beyond it is an error (SYN-prim-1).
            try:
                return pb.literal(value, INT64)
            except pb.PrimBuildError as err:
                raise self.error(str(err), node, rule="SYN-prim-1") from None
        if isinstance(value, float):
            return P.FloatImm(value, parse_dtype("float64"))
        if isinstance(value, rx.Var) and isinstance(value.struct_info, si.PrimStructInfo) \
                and value.struct_info.value is not None:
            return value.struct_info.value
        if isinstance(value, rx.PrimValue):
            return value.value
        raise self.error(f"expected a symbolic expression, found {_describe(value)}", node,
                         rule="SYN-prim-1")

    def to_prim_operand(self, value, node):
        if isinstance(value, rx.Var) and isinstance(value.struct_info, si.PrimStructInfo) \
                and value.struct_info.value is not None:
            return value.struct_info.value
        if isinstance(value, rx.PrimValue):
            return value.value
        return super().to_prim_operand(value, node)


def alloc_tensor_struct_info(args: tuple, attrs: rx.Attrs) -> si.TensorStructInfo | None:
    """The struct info ``R.builtin.alloc_tensor(shape, dtype, ...)`` implies: a written
    shape and a dtype given by position (``R.dtype("float32")``, ``"float32"``) or by keyword
    (``dtype="float32"``); None when they do not determine it (PRINT-alloc-1)."""
    if not args or not isinstance(args[0], rx.ShapeExpr):
        return None
    dtype = args[1] if len(args) >= 2 else attrs.get("dtype")
    if isinstance(dtype, (rx.DataTypeImm, rx.StringImm)):
        dtype = dtype.value
    if isinstance(dtype, str):
        try:
            dtype = parse_dtype(dtype)
        except ValueError:
            return None
    if not isinstance(dtype, DataType):
        return None
    return si.TensorStructInfo(args[0].values, dtype)


def _describe(value) -> str:
    if isinstance(value, Namespace):
        return value.dotted
    if isinstance(value, rx.Var):
        return f"the variable {value.name_hint!r}"
    if isinstance(value, P.Var):
        return f"the symbolic variable {value.name!r}"
    if isinstance(value, ModuleRef):
        return "the module"
    return pb.describe(value)


def _relocate(tree: Tree, anchor: Tree) -> Tree:
    """Give every node of ``tree`` (parsed from inside a string) the span of the string
    itself, so errors point at the string in the file."""
    for sub in tree.iter_subtrees():
        sub._meta = anchor.meta
    return tree
