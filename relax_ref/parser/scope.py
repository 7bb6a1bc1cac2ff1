"""What the builders share: the source context for spans and errors, the module-level
environment (TypeVar names, GlobalVars, metadata), and ``Reader``, the base of the Relax
and TIR readers, which turns parse-tree expressions into values without evaluating any
of the input as Python."""
from __future__ import annotations

from dataclasses import dataclass

from lark import Token, Tree

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir.span import Span
from relax_ref.ir.text import DTYPE_FIRST_INTRINSICS
from relax_ref.ir.dtype import FLOAT64, INT64
from relax_ref.errors import ParseError

from . import prim_builder as pb
from .syntax import decode_float, decode_int, decode_string, parse_tree, span_of


class Context:
    """The text being read, for spans and error messages."""

    def __init__(self, text: str, source: str):
        self.text = text
        self.source = source

    def span(self, node) -> Span | None:
        return span_of(node, self.source)

    def error(self, message: str, node, *, rule: str | None = None) -> ParseError:
        span = self.span(node)
        if span is None:
            span = Span(self.source, 1, 1, 1, 1)
        return ParseError(message, span, rule=rule, source_text=self.text)

    def string(self, node: Tree) -> str:
        """The value of a ``strings`` node (adjacent literals concatenated)."""
        parts = []
        for tok in node.children:
            try:
                parts.append(decode_string(str(tok)))
            except (IndexError, ValueError):
                raise self.error("malformed string literal", tok, rule="SYN-lex-1") from None
        return "".join(parts)


@dataclass(frozen=True)
class Namespace:
    """A dotted name such as ``R``, ``R.nn`` or ``T.axis``: resolved only when called."""

    path: tuple[str, ...]

    @property
    def dotted(self) -> str:
        return ".".join(self.path)


@dataclass(frozen=True)
class ModuleRef:
    """``cls`` or the module class name: attribute access gives a GlobalVar."""


ROOT_NAMESPACES = ("R", "T", "I", "tvm")

# Where TVM's Python packages keep the TVMScript namespaces (SYN-import-1): a dotted
# path that begins with one of these reads as the short namespace, so
# ``tvm.script.ir_module`` is ``I.ir_module`` and ``from tvm.script import relax as rx``
# makes ``rx.add`` mean ``R.add``.
SCRIPT_PACKAGES = {
    ("tvm", "script", "ir"): ("I",),
    ("tvm", "script", "parser", "ir"): ("I",),
    ("tvm", "script", "ir_module"): ("I", "ir_module"),
    ("tvm", "script", "parser", "ir_module"): ("I", "ir_module"),
    ("tvm", "script", "relax"): ("R",),
    ("tvm", "script", "parser", "relax"): ("R",),
    ("tvm", "script", "tir"): ("T",),
    ("tvm", "script", "tirx"): ("T",),
    ("tvm", "script", "parser", "tir"): ("T",),
    ("tvm", "script", "parser", "tirx"): ("T",),
    # TVM's Python op builders, which a hand-written module may call (``relax.op.add``
    # builds what ``R.add`` builds): the op package and what tvm.relax re-exports of it.
    ("tvm", "relax", "op"): ("R",),
    ("tvm", "relax", "const"): ("R", "const"),
    ("tvm", "relax", "call_tir"): ("R", "call_tir"),
    ("tvm", "relax", "call_tir_inplace"): ("R", "call_tir_inplace"),
    ("tvm", "relax", "call_pure_packed"): ("R", "call_pure_packed"),
    ("tvm", "relax", "call_dps_packed"): ("R", "call_dps_packed"),
    ("tvm", "relax", "call_tir_with_grad"): ("R", "call_tir_with_grad"),
    # tvm.tir (tvm.tirx in TVM 0.27) builds the scalar expressions T's functions build.
    ("tvm", "tir"): ("T",),
    ("tvm", "tirx"): ("T",),
}

# Modules whose imports are accepted and otherwise ignored (SYN-import-1): TVM itself
# (its script namespaces bind aliases, the rest binds nothing we read) and the modules
# TVM's test files import beside their IRModules.
IGNORED_IMPORT_ROOTS = ("tvm", "numpy", "pytest", "typing", "__future__")


def canonical_path(path: tuple[str, ...]) -> tuple[str, ...]:
    """``path`` with a TVM package prefix (``tvm.script.relax``) replaced by the short
    namespace it names (``R``)."""
    for n in (4, 3, 2):
        short = SCRIPT_PACKAGES.get(path[:n])
        if short is not None:
            return short + path[n:]
    return path


class ModuleEnv:
    """Facts of the module as a whole, shared by every function's reader."""

    def __init__(self, ctx: Context):
        self.ctx = ctx
        self.type_vars: set[str] = set()
        self.global_vars: dict[str, rx.GlobalVar] = {}
        self.module_name = "Module"
        self.metadata: dict[str, list] = {}
        self.metadata_loaded = False
        self.module_attrs = rx.EMPTY_ATTRS
        self.global_infos = rx.EMPTY_ATTRS
        # Names bound by import lines: an alias of a script namespace (``rx`` -> ("R",)),
        # or the text of an ignored import (``np`` -> "import numpy as np").
        self.aliases: dict[str, tuple[str, ...]] = {}
        self.ignored_imports: dict[str, str] = {}

    def resolve(self, path: tuple[str, ...]) -> tuple[str, ...]:
        """A dotted name as written, with import aliases and TVM package paths replaced
        by the short namespaces (``rx.add`` -> ``R.add``)."""
        if path and path[0] in self.aliases:
            path = self.aliases[path[0]] + path[1:]
        return canonical_path(path)

    def load_metadata(self, text: str, node) -> None:
        from .metadata import MetadataError, decode_metadata

        if self.metadata_loaded:
            raise self.ctx.error("a module has at most one metadata section", node,
                                 rule="SYN-meta-1")
        self.metadata_loaded = True
        try:
            self.metadata = decode_metadata(text)
        except MetadataError as err:
            raise self.ctx.error(f"bad metadata section: {err}", node, rule="SYN-meta-1") from None

    def add_module_attrs(self, call: Tree) -> None:
        reader = Reader(self)
        name = reader.dotted_name(call.children[0])
        args = [] if call.children[1] is None else list(call.children[1].children)
        if len(args) != 1:
            raise self.ctx.error(f"{name} takes one dict", call, rule="SYN-module-2")
        value = reader.attr_value(args[0])
        if not isinstance(value, rx.Attrs):
            raise self.ctx.error(f"{name} takes a dict", call, rule="SYN-module-2")
        if name.endswith("module_attrs"):
            self.module_attrs = value
        else:
            self.global_infos = value


class Reader:
    """Reads expressions of the parse tree into values.

    A value is a Python literal (int, float, bool, str, None), a tuple or list of
    values, an ``rx.Attrs`` for a dict, a PrimExpr, a Relax Expr, a StructInfo, a
    Namespace, a ModuleRef or a GlobalVar. Subclasses resolve names and calls."""

    default_int = pb.INT64  # dtype of a bare integer literal in a scalar expression

    def __init__(self, env: ModuleEnv):
        self.env = env
        self.ctx = env.ctx
        self.lambda_params: dict[str, P.Var] = {}   # the parameters of the index map read
        self.index_dtype = pb.INT64                  # their dtype (T.index_map's index_dtype)
        self.meta_values: dict[str, object] = {}     # names bound by I.meta_var(value)

    # -- errors ------------------------------------------------------------------------
    def error(self, message: str, node, rule: str | None = None) -> ParseError:
        return self.ctx.error(message, node, rule=rule)

    # -- names -------------------------------------------------------------------------
    def dotted_name(self, node) -> str:
        """``a.b.c`` as written, import aliases resolved (``rx.add`` -> "R.add")."""
        return ".".join(self.env.resolve(self._written_path(node)))

    def _written_path(self, node) -> tuple[str, ...]:
        if isinstance(node, Tree) and node.data == "name":
            return (str(node.children[0]),)
        if isinstance(node, Tree) and node.data == "getattr":
            return self._written_path(node.children[0]) + (str(node.children[1]),)
        raise self.error("expected a dotted name", node)

    def lookup(self, name: str, node):
        if name in self.env.aliases:
            return Namespace(self.env.aliases[name])
        if name in ROOT_NAMESPACES:
            return Namespace((name,))
        if name == self.env.module_name or name == "cls":
            return ModuleRef()
        if name == "metadata" and self.env.metadata:
            return self.env.metadata
        if name == "float":
            return Namespace(("float",))
        if name in self.env.ignored_imports:
            raise self.error(f"{name!r} is bound by `{self.env.ignored_imports[name]}`, which "
                             f"is accepted but not read: TVMScript names come from R, T and I",
                             node, rule="SYN-import-1")
        raise self.error(f"undefined name {name!r}", node, rule="SYN-name-1")

    # -- declarations of symbolic variables (SYN-sym-2) ---------------------------------
    def declarations(self, target, value_node) -> list[tuple[str, object, Tree]] | None:
        """The (name, dtype, node) of each variable that ``target = value`` declares:
        ``n = T.int64()``, ``n, m = T.int64(), T.int64()``; None when it declares none. A
        ``I.meta_var(value)`` item gives (name, None, value node): bind it with
        ``bind_meta``."""
        if isinstance(target, Tree) and target.data == "name":
            meta = self.meta_value_node(value_node)
            if meta is not None:
                return [(str(target.children[0]), None, meta)]
            dtype = self.declaration_dtype(value_node, str(target.children[0]))
            return None if dtype is None else [(str(target.children[0]), dtype, target)]
        if not (isinstance(target, Tree) and target.data == "tuple_bare"
                and isinstance(value_node, Tree)
                and value_node.data in ("tuple_bare", "tuple_inner")):
            return None
        names = [c for c in target.children if c is not None]
        values = [c for c in value_node.children if c is not None]
        if len(names) != len(values) or not all(
                isinstance(n, Tree) and n.data == "name" for n in names):
            return None
        out = []
        for n, v in zip(names, values):
            meta = self.meta_value_node(v)
            if meta is not None:
                out.append((str(n.children[0]), None, meta))  # C = I.meta_var(16) in the tuple
                continue
            dtype = self.declaration_dtype(v, str(n.children[0]))
            if dtype is None:
                return None
            out.append((str(n.children[0]), dtype, n))
        return out

    def meta_value_node(self, node):
        """The argument of ``I.meta_var(value)`` / ``T.meta_var(value)``, a value bound to a
        name while reading (SYN-sym-3); None for anything else."""
        if not (isinstance(node, Tree) and node.data == "call"):
            return None
        head = node.children[0]
        if not (isinstance(head, Tree) and head.data == "getattr"):
            return None
        path = self.env.resolve(self._written_path(head))
        if path not in (("I", "meta_var"), ("T", "meta_var")):
            return None
        args, kwargs = self.split_args(node.children[1])
        if len(args) != 1 or kwargs:
            raise self.error(f"{'.'.join(path)} takes one value", node, rule="SYN-sym-3")
        return args[0]

    def declaration_dtype(self, node, name: str):
        """The dtype of the declaration ``name = node``: ``T.int64()``, ``T.int32()``,
        ``T.int64(is_size_var=True)`` (read as an ordinary variable: shape variables are
        non-negative anyway) or ``TypeVar("name")`` (an int64); None for other values."""
        from relax_ref.ir.dtype import parse_dtype

        if not (isinstance(node, Tree) and node.data == "call"):
            return None
        head = node.children[0]
        if not (isinstance(head, Tree) and head.data in ("name", "getattr")):
            return None
        path = self.env.resolve(self._written_path(head))
        args, kwargs = self.split_args(node.children[1])
        if path == ("TypeVar",):
            if len(args) != 1 or kwargs or not (isinstance(args[0], Tree)
                                                and args[0].data == "strings"):
                raise self.error('TypeVar takes one string: NAME = TypeVar("NAME")', node,
                                 rule="SYN-typevar-1")
            if self.ctx.string(args[0]) != name:
                raise self.error(f"TypeVar name {self.ctx.string(args[0])!r} differs from the "
                                 f"variable {name!r} it is assigned to", node,
                                 rule="SYN-typevar-1")
            return pb.INT64
        if len(path) != 2 or path[0] != "T" or not is_scalar_dtype_name(path[1]) or args:
            return None
        for key, vnode in kwargs:
            if key != "is_size_var" or not (isinstance(vnode, Tree)
                                            and vnode.data in ("true", "false")):
                raise self.error(f"a declaration T.{path[1]}() takes only is_size_var=True/False",
                                 vnode, rule="SYN-sym-2")
        return parse_dtype(path[1])

    # -- expressions -------------------------------------------------------------------
    def value(self, node):
        """The value of an expression node."""
        kind = node.data if isinstance(node, Tree) else None
        handler = getattr(self, f"v_{kind}", None)
        if handler is None:
            raise self.error("this expression is not part of TVMScript", node, rule="SYN-expr-1")
        return handler(node)

    def v_known_value(self, node):
        """An argument spread from ``*tuple``: its value, already read."""
        return node.children[0]

    def bind_meta(self, name: str, value_node) -> None:
        """SYN-sym-3: ``name = I.meta_var(value)`` makes ``name`` stand for the value
        read here (a constant, never a binding of the IR)."""
        self.meta_values[name] = self.value(value_node)

    def v_name(self, node):
        name = str(node.children[0])
        if name in self.lambda_params:
            return self.lambda_params[name]
        if name in self.meta_values:
            return self.meta_values[name]
        return self.lookup(name, node)

    def v_lambdef(self, node):
        """SYN-index-map-1: ``lambda i, j: (i // 4, j)`` is an IndexMap: its parameters are
        new variables of the index dtype, its results scalar expressions over them."""
        from relax_ref.ir.attr_values import IndexMap

        params_node, body = node.children
        names = [str(t) for t in params_node.children if t is not None] if params_node else []
        if len(set(names)) != len(names):
            raise self.error("an index map names each parameter once", node,
                             rule="SYN-index-map-1")
        if self.lambda_params:
            raise self.error("index maps do not nest", node, rule="SYN-index-map-1")
        params = tuple(P.Var(n, self.index_dtype, span=self.ctx.span(node)) for n in names)
        self.lambda_params = dict(zip(names, params))
        try:
            value = self.value(body)
            items = value if isinstance(value, (tuple, list)) else (value,)
            results = []
            for item in items:
                if isinstance(item, bool) or not isinstance(item, (int, P.PrimExpr)):
                    raise self.error(f"an index map gives integer index expressions, not "
                                     f"{pb.describe(item)}", body, rule="SYN-index-map-1")
                results.append(pb.literal(item, self.index_dtype) if isinstance(item, int)
                               else item)
        except pb.PrimBuildError as err:
            raise self.error(str(err), body, rule="SYN-index-map-1") from None
        finally:
            self.lambda_params = {}
        return IndexMap(params, tuple(results), span=self.ctx.span(node))

    def index_map_call(self, args: list, kwargs: list, node):
        """``T.index_map(lambda ..., index_dtype="int64")`` (SYN-index-map-1); an
        ``inverse_index_map`` is not kept (it is implied by the map)."""
        from relax_ref.ir.attr_values import IndexMap

        kw = dict(kwargs)
        unknown = [k for k in kw if k not in ("index_dtype", "inverse_index_map")]
        if len(args) != 1 or unknown:
            raise self.error("T.index_map takes (lambda ..., index_dtype=...)", node,
                             rule="SYN-index-map-1")
        saved = self.index_dtype
        if "index_dtype" in kw:
            self.index_dtype = self.dtype_arg(kw["index_dtype"])
            if not self.index_dtype.is_integer:
                raise self.error(f"an index dtype is an integer type, not {self.index_dtype}",
                                 kw["index_dtype"], rule="SYN-index-map-1")
        try:
            mapping = self.value(args[0])
        finally:
            self.index_dtype = saved
        if not isinstance(mapping, IndexMap):
            raise self.error("T.index_map takes a lambda", args[0], rule="SYN-index-map-1")
        return mapping

    def target_call(self, args: list, kwargs: list, node):
        """``T.target("llvm")`` or ``T.target({...}, host=...)`` (SYN-vdevice-1)."""
        from relax_ref.ir.attr_values import Target

        kw = dict(kwargs)
        if len(args) != 1 or set(kw) - {"host"}:
            raise self.error("T.target takes the target (a name or a dict) and host=",
                             node, rule="SYN-vdevice-1")
        config = self.attr_value(args[0])
        host = self.attr_value(kw["host"]) if "host" in kw else None
        if not isinstance(config, (str, rx.Attrs)):
            raise self.error("a target is a name (\"llvm\") or a dict of its attributes",
                             args[0], rule="SYN-vdevice-1")
        return Target(config, host)

    def vdevice_call(self, args: list, kwargs: list, node):
        """``I.vdevice(target, vdevice_id=0, memory_scope="global")`` (SYN-vdevice-1)."""
        from relax_ref.ir.attr_values import VDevice

        names = ("target", "vdevice_id", "memory_scope")
        if len(args) > 3:
            raise self.error("I.vdevice takes (target, vdevice_id, memory_scope)", node,
                             rule="SYN-vdevice-1")
        given = dict(zip(names, args))
        for key, vnode in kwargs:
            if key not in names or key in given:
                raise self.error(f"I.vdevice has no option {key!r} here (it takes target, "
                                 f"vdevice_id, memory_scope)", vnode, rule="SYN-vdevice-1")
            given[key] = vnode
        target = self.attr_value(given["target"]) if "target" in given else None
        vid = self.value(given["vdevice_id"]) if "vdevice_id" in given else 0
        scope = self.value(given["memory_scope"]) if "memory_scope" in given else "global"
        if not isinstance(target, (str, rx.Attrs)):
            raise self.error("the target of I.vdevice is a name (\"llvm\") or a dict of its "
                             "attributes", node, rule="SYN-vdevice-1")
        if isinstance(vid, bool) or not isinstance(vid, int) or vid < 0:
            raise self.error("vdevice_id is a non-negative integer", node, rule="SYN-vdevice-1")
        if not isinstance(scope, str):
            raise self.error("memory_scope is a string", node, rule="SYN-vdevice-1")
        return VDevice(target, vid, scope)

    def v_int_(self, node):
        try:
            return decode_int(str(node.children[0]))
        except ValueError:
            raise self.error("integer literal too long", node, rule="SYN-lex-1") from None

    v_hex_ = v_int_

    def v_float_(self, node):
        return decode_float(str(node.children[0]))

    def v_strings(self, node):
        return self.ctx.string(node)

    def v_true(self, node):
        return True

    def v_false(self, node):
        return False

    def v_none(self, node):
        return None

    def v_empty_tuple(self, node):
        return ()

    def v_tuple_inner(self, node):
        return tuple(self.value(c) for c in node.children if c is not None)

    v_tuple_bare = v_tuple_inner

    def v_list_(self, node):
        inner = node.children[0]
        if inner is None:
            return []
        return [self.value(c) for c in inner.children if c is not None]

    def v_dict_(self, node):
        inner = node.children[0]
        items = []
        if inner is not None:
            for item in inner.children:
                if item is None:
                    continue
                key = self.value(item.children[0])
                if not isinstance(key, str):
                    raise self.error("dictionary keys must be strings", item.children[0],
                                     rule="SYN-attr-1")
                items.append((key, self.attr_value(item.children[1])))
        return rx.Attrs(tuple(items))

    def v_getattr(self, node):
        base = self.value(node.children[0])
        name = str(node.children[1])
        if isinstance(base, Namespace):
            return Namespace(canonical_path(base.path + (name,)))
        if isinstance(base, ModuleRef):
            gv = self.env.global_vars.get(name)
            if gv is None:
                raise self.error(f"the module has no function {name!r}", node, rule="SYN-name-2")
            return gv
        return self.attribute(base, name, node)

    def attribute(self, base, name: str, node):
        raise self.error(f"no attribute {name!r} here", node, rule="SYN-expr-1")

    def v_getitem(self, node):
        base = self.value(node.children[0])
        subs = [c for c in node.children[1].children if c is not None]
        if isinstance(base, dict):  # metadata["key"][i]
            key = self.value(subs[0]) if len(subs) == 1 else None
            if not isinstance(key, str) or key not in base:
                raise self.error(f"the metadata section has no entry {key!r}", node,
                                 rule="SYN-meta-11")
            return _MetadataList(key, base[key])
        if isinstance(base, _MetadataList):
            index = self.value(subs[0]) if len(subs) == 1 else None
            if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(base.items):
                raise self.error(f"metadata[{base.key!r}] has no entry {index!r} "
                                 f"({len(base.items)} entries)", node, rule="SYN-meta-11")
            item = base.items[index]
            if isinstance(item, rx.Constant):
                # Read as the R.const it prints as: its struct info follows from the data
                # and is deduced by check (SYN-meta-6), and it is located at the reference.
                return rx.Constant(item.data, span=self.ctx.span(node))
            return item
        return self.subscript(base, subs, node)

    def subscript(self, base, subs: list, node):
        if isinstance(base, (tuple, list)) and len(subs) == 1:
            index = self.value(subs[0])
            if isinstance(index, int) and not isinstance(index, bool) \
                    and -len(base) <= index < len(base):
                return base[index]  # A.shape[1]
            raise self.error(f"index {index!r} of a tuple of {len(base)}", node,
                             rule="SYN-expr-1")
        raise self.error("this value cannot be indexed", node, rule="SYN-expr-1")

    def v_call(self, node):
        callee = self.value(node.children[0])
        args, kwargs = self.split_args(node.children[1])
        if isinstance(callee, Namespace) and is_distributed(callee.path):
            raise self.error(f"{callee.dotted} is distributed Relax (device meshes, DTensor "
                             f"annotations, R.dist.*), which relax_ref does not model; "
                             f"lower it to single-device Relax first", node, rule="SYN-dist-1")
        if callee == Namespace(("T", "index_map")):
            return self.index_map_call(args, kwargs, node)
        if callee == Namespace(("T", "target")):
            return self.target_call(args, kwargs, node)
        if callee == Namespace(("I", "vdevice")):
            return self.vdevice_call(args, kwargs, node)
        if callee == Namespace(("float",)):
            text = self.value(args[0]) if len(args) == 1 and not kwargs else None
            if not isinstance(text, str):
                raise self.error('float() takes "nan", "inf" or "-inf"', node, rule="SYN-prim-1")
            return special_float(text, node, self)
        return self.call(callee, args, kwargs, node)

    def split_args(self, arglist) -> tuple[list, list[tuple[str, Tree]]]:
        """Positional argument nodes and (name, node) keyword pairs, unevaluated."""
        args: list = []
        kwargs: list[tuple[str, Tree]] = []
        if arglist is None:
            return args, kwargs
        for a in arglist.children:
            if a is None:
                continue
            if isinstance(a, Tree) and a.data == "kwarg":
                name = str(a.children[0])
                if any(k == name for k, _ in kwargs):
                    raise self.error(f"keyword argument {name!r} given twice", a, rule="SYN-call-1")
                kwargs.append((name, a.children[1]))
            elif isinstance(a, Tree) and a.data == "star_arg":
                # f(*A.shape): a tuple known while reading is spread (SYN-call-1).
                if kwargs:
                    raise self.error("*args after a keyword argument", a, rule="SYN-call-1")
                spread = self.value(a.children[0])
                if not isinstance(spread, (tuple, list)):
                    raise self.error(f"*args spreads a tuple, not {pb.describe(spread)}", a,
                                     rule="SYN-call-1")
                args.extend(Tree("known_value", [v], meta=a.meta) for v in spread)
            else:
                if kwargs:
                    raise self.error("positional argument after a keyword argument", a,
                                     rule="SYN-call-1")
                args.append(a)
        return args, kwargs

    def call(self, callee, args: list, kwargs: list, node):
        raise self.error("this value cannot be called", node, rule="SYN-call-2")

    # -- operators ---------------------------------------------------------------------
    def v_binop(self, node):
        children = node.children
        ops = [str(children[i]) for i in range(1, len(children), 2)]
        return self._fold_chain(ops, [self.value(c) for c in children[0::2]], node)

    def _fold_chain(self, ops: list[str], values: list, node):
        """``a op b op c ...`` folded left to right. A chain whose links print as nested
        calls (``R.add(R.add(x, y), z)``, ``T.shift_left(...)``) is limited to what the
        reader reads back nested (SYN-limit-1)."""
        acc = values[0]
        nested = 0
        for op, rhs in zip(ops, values[1:]):
            acc = self.binary(op, acc, rhs, node)
            if isinstance(acc, (P.Call, rx.Expr)):
                nested += 1
                if nested > MAX_NESTED_CHAIN:
                    raise self.error(f"a chain of more than {MAX_NESTED_CHAIN} {op!r} "
                                     f"operations, which nest as calls; bind parts of it "
                                     f"to variables", node, rule="SYN-limit-1")
        return acc

    def v_compare(self, node):
        children = node.children
        if len(children) != 3:
            raise self.error("chained comparisons are not part of TVMScript", node,
                             rule="SYN-expr-2")
        op = " ".join(str(children[1]).split())
        if op not in pb.BINARY_NODES:
            raise self.error(f"operator {op!r} is not part of TVMScript", children[1],
                             rule="SYN-expr-2")
        return self.binary(op, self.value(children[0]), self.value(children[2]), node)

    def v_pow_(self, node):
        return self.binary("**", self.value(node.children[0]), self.value(node.children[2]), node)

    def v_unary(self, node):
        op = str(node.children[0])
        operand = self.value(node.children[1])
        return self.unary(op, operand, node)

    def v_and_(self, node):
        values = [self.value(c) for c in node.children]
        return self._fold_chain(["and"] * (len(values) - 1), values, node)

    def v_or_(self, node):
        values = [self.value(c) for c in node.children]
        return self._fold_chain(["or"] * (len(values) - 1), values, node)

    def v_not_(self, node):
        return self.unary("not", self.value(node.children[0]), node)

    def v_ternary(self, node):
        raise self.error("conditional expressions (a if c else b) are not part of TVMScript; "
                         "use T.Select or T.if_then_else", node, rule="SYN-expr-2")

    def v_bitor(self, node):
        return self._fold_bitwise("|", node)

    def v_bitxor(self, node):
        return self._fold_bitwise("^", node)

    def v_bitand(self, node):
        return self._fold_bitwise("&", node)

    def _fold_bitwise(self, op: str, node):
        values = [self.value(c) for c in node.children]
        return self._fold_chain([op] * (len(values) - 1), values, node)

    def binary(self, op: str, a, b, node):
        """Arithmetic on literals folds like Python; on scalars it builds PrimExprs."""
        if _is_number(a) and _is_number(b):
            return _fold_numbers(op, a, b, node, self)
        a = self.to_prim_operand(a, node)
        b = self.to_prim_operand(b, node)
        try:
            if op in pb.BINARY_NODES:
                return pb.binary(pb.BINARY_NODES[op], a, b, self.default_int)
            if op in ("and", "or"):
                return pb.binary(P.And if op == "and" else P.Or, a, b, self.default_int)
            if op in ("&", "|", "^", "<<", ">>"):
                name = {"&": "bitwise_and", "|": "bitwise_or", "^": "bitwise_xor",
                        "<<": "shift_left", ">>": "shift_right"}[op]
                return pb.intrinsic(name, [a, b], None, self.default_int)
            if op == "**":
                return pb.intrinsic("pow", [a, b], None, self.default_int)
        except pb.PrimBuildError as err:
            raise self.error(str(err), node, rule="SYN-prim-1") from None
        raise self.error(f"operator {op!r} is not supported here", node, rule="SYN-expr-2")

    def unary(self, op: str, a, node):
        if _is_number(a):
            if op == "-":
                return -a
            if op == "+":
                return a
            if op == "not":
                return not a
            if op == "~" and isinstance(a, int):
                return ~a
        a = self.to_prim_operand(a, node)
        try:
            if op == "-":
                return pb.negate(a, self.default_int)
            if op == "+":
                return a
            if op == "not":
                return pb.logical_not(a)
            if op == "~":
                return pb.intrinsic("bitwise_not", [a], None, self.default_int)
        except pb.PrimBuildError as err:
            raise self.error(str(err), node, rule="SYN-prim-1") from None
        raise self.error(f"operator {op!r} is not supported here", node, rule="SYN-expr-2")

    def to_prim_operand(self, value, node):
        """A scalar operand of an operator: a PrimExpr or a Python number."""
        if isinstance(value, (P.PrimExpr, bool, int, float)):
            return value
        raise self.error(f"expected a scalar expression, found {pb.describe(value)}", node,
                         rule="SYN-prim-1")

    # -- T.* scalar functions, shared by Relax and TIR (SYN-prim-1) -------------------------
    def scalar(self, value, node, dtype=None) -> P.PrimExpr:
        """A scalar operand as a PrimExpr; subclasses also accept their own variables."""
        value = self.to_prim_operand(value, node)
        if isinstance(value, P.PrimExpr):
            return value
        try:
            if dtype is not None:
                return pb.literal(value, dtype)
            return pb.as_expr(value, self.default_int)
        except pb.PrimBuildError as err:
            raise self.error(str(err), node, rule="SYN-prim-1") from None

    def dtype_arg(self, node):
        """A dtype argument: a string, ``T.float32`` or None (unknown)."""
        from relax_ref.ir.dtype import VOID, DataType, DTypeError, parse_dtype

        value = self.value(node)
        if isinstance(value, DataType):
            return value
        if isinstance(value, Namespace) and len(value.path) == 2 and value.path[0] == "T":
            value = value.path[1]
        if value is None:
            return VOID
        if not isinstance(value, str):
            raise self.error(f"expected a dtype such as \"float32\", found {pb.describe(value)}",
                             node, rule="SYN-dtype-1")
        try:
            return parse_dtype(value)
        except DTypeError:
            raise self.error(f"unknown dtype {value!r}", node, rule="SYN-dtype-1") from None

    def prim_function(self, path: tuple, args: list, kwargs: list, node) -> P.PrimExpr:
        """``T.<name>(...)`` building a scalar expression: typed constants and casts
        (``T.int64(16)``, ``T.float32("nan")``), the binary functions, ``T.Select``,
        ``T.Cast``/``T.cast``, ``T.Not``, ``T.max_value`` and friends, ``T.Ramp``,
        ``T.Broadcast``, extern calls, and the math intrinsics."""
        name = ".".join(path)
        kw = dict(kwargs)
        try:
            if len(path) == 1 and is_scalar_dtype_name(name):
                if len(args) != 1 or kwargs:
                    raise self.error(f"T.{name}(value) takes one value", node, rule="SYN-prim-1")
                value = self.value(args[0])
                dtype = pb.dtype_from_name(name)
                if isinstance(value, str):
                    value = special_float(value, node, self)
                if isinstance(value, (bool, int, float)):
                    return pb.typed_const(dtype, value)
                return pb.cast(dtype, self.scalar(value, args[0]))
            if name in ("max_value", "min_value", "infinity", "neg_infinity"):
                if len(args) != 1:
                    raise self.error(f"T.{name} takes a dtype", node, rule="SYN-prim-1")
                return pb.extreme_value(name, self.dtype_arg(args[0]))
            if name in ("Cast", "cast"):
                if len(args) != 2:
                    raise self.error(f"T.{name} takes a dtype and a value", node, rule="SYN-prim-1")
                dtype_node, value_node = (args[0], args[1]) if name == "Cast" else (args[1], args[0])
                return pb.cast(self.dtype_arg(dtype_node), self.scalar(self.value(value_node),
                                                                        value_node))
            if name in DTYPE_FIRST_INTRINSICS:
                if not args:
                    raise self.error(f"T.{name} takes a result dtype first", node, rule="SYN-prim-1")
                dtype = self.dtype_arg(args[0])
                rest = tuple(self.scalar(self.value(a), a) for a in args[1:])
                return P.Call(f"tir.{name}", rest, dtype, span=self.ctx.span(node))
            if name == "Let":
                return self.let_expr(args, kw, node)
            if name == "const":
                # T.const(value, dtype): int32 or float32 by default, as tvm.tir.const
                if not 1 <= len(args) <= 2 or kwargs and set(kw) != {"dtype"}:
                    raise self.error("T.const takes (value, dtype)", node, rule="SYN-prim-1")
                value = self.value(args[0])
                dnode = args[1] if len(args) == 2 else kw.get("dtype")
                if isinstance(value, bool) or not isinstance(value, (int, float)):
                    if not (isinstance(value, bool) and dnode is not None):
                        raise self.error("T.const takes a number", node, rule="SYN-prim-1")
                dtype = self.dtype_arg(dnode) if dnode is not None else (
                    pb.INT32 if isinstance(value, int) else pb.FLOAT32)
                return pb.typed_const(dtype, value)
            if name in ("IntImm", "FloatImm"):
                # T.IntImm("int32", 5), T.FloatImm("float32", 0.5): TVM's constant nodes
                if len(args) != 2 or kwargs:
                    raise self.error(f"T.{name} takes (dtype, value)", node, rule="SYN-prim-1")
                dtype = self.dtype_arg(args[0])
                value = self.value(args[1])
                if isinstance(value, bool) or not isinstance(value, (int, float)) or \
                        dtype.is_float != (name == "FloatImm"):
                    kind = "a float" if name == "FloatImm" else "an integer"
                    raise self.error(f"T.{name} takes {kind} dtype and a number", node,
                                     rule="SYN-prim-1")
                return pb.typed_const(dtype, value)
            values = [self.value(a) for a in args]
            if name in pb.BINARY_FUNCS:
                if len(values) != 2:
                    raise self.error(f"T.{name} takes two operands", node, rule="SYN-prim-1")
                return pb.binary(pb.BINARY_FUNCS[name], self.scalar(values[0], args[0]),
                                 self.scalar(values[1], args[1]), self.default_int)
            if name == "Select":
                if len(values) != 3:
                    raise self.error("T.Select takes (cond, then, else)", node, rule="SYN-prim-1")
                return pb.select(*[self.scalar(v, a) for v, a in zip(values, args)],
                                 default=self.default_int)
            if name == "Not":
                if len(values) != 1:
                    raise self.error("T.Not takes one operand", node, rule="SYN-prim-1")
                return pb.logical_not(self.scalar(values[0], args[0]))
            if name == "Ramp":
                if len(values) != 3 or not isinstance(values[2], int):
                    raise self.error("T.Ramp takes (base, stride, lanes)", node, rule="SYN-prim-1")
                base = self.scalar(values[0], args[0])
                stride = self.scalar(values[1], args[1], base.dtype)
                return P.Ramp(base, stride, values[2], base.dtype.with_lanes(values[2]))
            if name == "Broadcast":
                if len(values) != 2 or not isinstance(values[1], int):
                    raise self.error("T.Broadcast takes (value, lanes)", node, rule="SYN-prim-1")
                v = self.scalar(values[0], args[0])
                return P.Broadcast(v, values[1], v.dtype.with_lanes(values[1]))
            dtype = self.dtype_arg(kw.pop("dtype")) if "dtype" in kw else None
            if kw:
                raise self.error(f"T.{name} takes no keyword {next(iter(kw))!r}", node,
                                 rule="SYN-call-1")
            if len(path) == 1:
                if name in pb.DTYPE_LAST_INTRINSICS and dtype is None and values and \
                        isinstance(values[-1], str):
                    # T.tvm_struct_get(arr, index, field, "uint8"): the dtype comes last.
                    dtype = self.dtype_arg(args[-1])
                    values, args = values[:-1], args[:-1]
                operands = [v if isinstance(v, str) else self.scalar(v, a)
                            for v, a in zip(values, args)]
                return pb.intrinsic(name, operands, dtype, self.default_int)
        except pb.PrimBuildError as err:
            raise self.error(str(err), node, rule="SYN-prim-1") from None
        raise self.error(f"unknown TIR function T.{name}", node, rule="SYN-call-3")

    def let_expr(self, args: list, kw: dict, node) -> P.PrimExpr:
        """SYN-prim-2: ``T.Let(body, where={x: value})``, ``x`` a declared scalar
        variable (``x = T.float32()``), is ``P.Let(x, value, body)``."""
        where = kw.pop("where", None)
        if len(args) != 1 or kw or not (isinstance(where, Tree) and where.data == "dict_"
                                         and where.children[0] is not None):
            raise self.error("T.Let takes (body, where={var: value})", node, rule="SYN-prim-2")
        items = [i for i in where.children[0].children if i is not None]
        if len(items) != 1:
            raise self.error("T.Let binds exactly one variable", where, rule="SYN-prim-2")
        key_node, value_node = items[0].children
        var = self.value(key_node)
        if not isinstance(var, P.Var):
            raise self.error("the key of T.Let's where= must be a declared variable", key_node,
                             rule="SYN-prim-2")
        value = self.scalar(self.value(value_node), value_node)
        if value.dtype != var.dtype:
            raise self.error(f"T.Let binds {var.name}: {var.dtype} to a {value.dtype} value",
                             value_node, rule="SYN-prim-2")
        body = self.scalar(self.value(args[0]), args[0])
        return P.Let(var, value, body, body.dtype, span=self.ctx.span(node))

    # -- attribute values ----------------------------------------------------------------
    def attr_value(self, node):
        """A value after ``key=`` or in a dict: literals stay Python values (lists become
        tuples); anything else is read as an ordinary value, and must be one the IR can
        hold (SYN-attr-1): ``T.float32`` is the dtype, other namespaces are errors."""
        return self._attr_leaves(_freeze(self.value(node)), node)

    def _attr_leaves(self, value, node):
        if isinstance(value, tuple):
            return tuple(self._attr_leaves(v, node) for v in value)
        if isinstance(value, Namespace):
            if len(value.path) == 2 and value.path[0] == "T" and is_scalar_dtype_name(value.path[1]):
                from relax_ref.ir.dtype import parse_dtype

                return parse_dtype(value.path[1])
            return self.namespace_attr(value, node)
        if isinstance(value, (ModuleRef, _MetadataList, dict)):
            raise self.error("the module or the metadata table is not an attribute value",
                             node, rule="SYN-attr-1")
        if isinstance(value, rx.PrimValue) and isinstance(value.value, (P.IntImm, P.FloatImm)):
            # ``R.prim_value(0)`` reads as the bare ``0`` it prints as (SYN-attr-1).
            return _bare_literal(value.value)
        return value

    def namespace_attr(self, value: Namespace, node):
        """A name such as ``R.Tensor`` given as an attribute value; subclasses accept
        their own."""
        raise self.error(f"{value.dotted} is not a value", node, rule="SYN-attr-1")

    # -- scalar expression text in strings ------------------------------------------------
    def parse_expr_string(self, text: str, node) -> Tree:
        """The parse tree of an expression written inside a string (``"n * 4"``)."""
        try:
            return parse_tree(text, self.ctx.source, start="test")
        except ParseError as err:
            raise self.error(f"bad expression in string {text!r}: {err.message}", node,
                             rule="SYN-dim-1") from None


# The longest operator chain whose links nest as calls: the reader reads calls nested
# about 150 deep, and the printed chain must read back.
MAX_NESTED_CHAIN = 64


def _bare_literal(imm):
    """An immediate as the attribute a bare literal reads as: an int64 is a Python int, a
    float64 a Python float; other dtypes stay typed (``T.int32(4)``)."""
    if isinstance(imm, P.IntImm) and imm.dtype == INT64:
        return int(imm.value)
    if isinstance(imm, P.FloatImm) and imm.dtype == FLOAT64:
        return float(imm.value)
    return imm


def is_distributed(path: tuple[str, ...]) -> bool:
    """Names of TVM's distributed Relax dialect (SYN-dist-1)."""
    return (path[:2] in (("R", "device_mesh"), ("R", "DTensor"), ("R", "dist"))
            or path == ("I", "Range"))


def is_scalar_dtype_name(name: str) -> bool:
    """A dtype that names scalar values (not void or handle): ``int64``, ``float32``."""
    from relax_ref.ir.dtype import is_dtype_name

    return name not in ("void", "handle", "") and is_dtype_name(name)


_SPECIAL_FLOATS = {"nan": float("nan"), "inf": float("inf"), "+inf": float("inf"),
                   "-inf": float("-inf"), "-nan": float("nan")}


def special_float(text: str, node, reader: "Reader") -> float:
    """``T.float32("nan")`` and ``float("inf")``: the only strings that are numbers."""
    value = _SPECIAL_FLOATS.get(text.strip().lower())
    if value is None:
        raise reader.error(f"{text!r} is not a number (only \"nan\", \"inf\" and \"-inf\" "
                           f"are spelled as strings)", node, rule="SYN-prim-1")
    return value


class _MetadataList:
    def __init__(self, key: str, items: list):
        self.key = key
        self.items = items


def _is_number(x) -> bool:
    return isinstance(x, (bool, int, float))


def _fold_numbers(op: str, a, b, node, reader: Reader):
    try:
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        if op == "/":
            return a / b
        if op == "//":
            return a // b
        if op == "%":
            return a % b
        if op == "**":
            if isinstance(b, int) and abs(b) > 4096:
                raise reader.error("exponent too large", node, rule="SYN-limit-1")
            return a ** b
        if op in ("<", "<=", ">", ">=", "==", "!="):
            return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "==": a == b,
                    "!=": a != b}[op]
        if op == "and":
            return a and b
        if op == "or":
            return a or b
        if isinstance(a, int) and isinstance(b, int) and op in ("&", "|", "^", "<<", ">>"):
            if op in ("<<", ">>") and (b < 0 or b > 4096):
                raise reader.error("shift amount out of range", node, rule="SYN-limit-1")
            return {"&": a & b, "|": a | b, "^": a ^ b, "<<": a << b if op == "<<" else 0,
                    ">>": a >> b if op == ">>" else 0}[op]
    except ZeroDivisionError:
        raise reader.error("division by zero in a constant expression", node,
                           rule="SYN-prim-1") from None
    except OverflowError:
        raise reader.error("constant expression overflows", node, rule="SYN-prim-1") from None
    raise reader.error(f"operator {op!r} is not supported on these constants", node,
                       rule="SYN-expr-2")


def _freeze(value):
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, tuple):
        return tuple(_freeze(v) for v in value)
    return value


__all__ = ["Context", "ModuleEnv", "Reader", "Namespace", "ModuleRef"]
