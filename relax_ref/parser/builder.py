"""TVMScript text -> IRModule (spec/syntax.md).

The module level is read here: import lines (aliases of the script namespaces),
``NAME = TypeVar("NAME")`` declarations, the metadata section, ``@I.ir_module class``,
and each decorated function, which ``relax_builder``
(``@R.function``) or ``tir_builder`` (``@T.prim_func``) builds. Names such as ``R.add``
resolve through our own tables, never through Python: the input is never evaluated.
"""
from __future__ import annotations

from lark import Token, Tree

from relax_ref.ir import relax as rx
from relax_ref.errors import ParseError

from .scope import IGNORED_IMPORT_ROOTS, Context, ModuleEnv, canonical_path
from .syntax import parse_tree


def parse(text: str, source: str = "<string>") -> rx.IRModule:
    """Parse TVMScript ``text`` into an IRModule; ParseError on malformed input.

    ``source`` names the file in error messages and spans."""
    if not isinstance(text, str):
        raise TypeError("parse() takes the text of a module as a str")
    tree = parse_tree(text, source)
    ctx = Context(text, source)
    try:
        return _build_module(tree, ctx)
    except ParseError:
        raise
    except RecursionError:
        raise ctx.error("program nested too deeply to read", None, rule="SYN-limit-1") from None


def _build_module(tree: Tree, ctx: Context) -> rx.IRModule:
    env = ModuleEnv(ctx)
    module_class = None
    loose_functions: list[Tree] = []
    for stmt in tree.children:
        if stmt is None or isinstance(stmt, Token):
            continue
        if stmt.data == "simple_stmt":
            for small in stmt.children:
                if small is not None:
                    _module_statement(small, env, ctx)
        elif stmt.data == "decorated":
            decorators, target = _split_decorated(stmt)
            if target.data == "classdef":
                if module_class is not None:
                    raise ctx.error("a file holds one @I.ir_module class; found a second one",
                                    target, rule="SYN-module-1")
                _expect_module_decorator(decorators, target, env)
                module_class = (target, decorators)
            else:
                loose_functions.append(stmt)
        elif stmt.data in ("funcdef", "classdef"):
            what = "function" if stmt.data == "funcdef" else "class"
            keyword = "class" if what == "class" else "def"
            raise ctx.error(f"`{keyword} {stmt.children[0]}` has no decorator (@I.ir_module, "
                            f"@R.function or @T.prim_func): a plain Python {what} is not read; "
                            f"keep only the module and its imports", stmt, rule="SYN-module-1")
        elif stmt.data == "if_stmt" and _is_main_guard(stmt):
            continue  # ``if __name__ == "__main__":`` ends a pasted test file; never run
        else:
            raise ctx.error(f"a top-level {_statement_word(stmt)} is not read: only imports, "
                            f"declarations, the metadata section and an @I.ir_module class "
                            f"may appear at the top level of a module", stmt,
                            rule="SYN-module-1")
    if module_class is not None and loose_functions:
        raise ctx.error("functions outside the @I.ir_module class", loose_functions[0],
                        rule="SYN-module-1")
    if module_class is not None:
        classdef, _ = module_class
        name = str(classdef.children[0])
        env.module_name = name
        members = _suite_statements(classdef.children[-1])
    elif loose_functions:
        name = "Module"
        members = loose_functions
    else:
        raise ctx.error("no @I.ir_module class and no function in the text", None,
                        rule="SYN-module-1")
    return _build_class_body(members, env, ctx, name, classdef if module_class else None)


def _build_class_body(members: list[Tree], env: ModuleEnv, ctx: Context, name: str,
                      classdef: Tree | None) -> rx.IRModule:
    from .relax_builder import build_relax_function
    from .tir_builder import build_prim_func

    functions: list[tuple[str, Tree, Tree, list[Tree]]] = []
    for stmt in members:
        if stmt.data == "simple_stmt":
            for small in stmt.children:
                if small is None:
                    continue
                if _is_docstring(small):
                    continue
                if small.data == "expr_stmt" and _call_name(small.children[0]) in (
                        ("I", "module_attrs"), ("I", "module_global_infos")):
                    env.add_module_attrs(small.children[0])
                    continue
                if small.data == "pass_stmt":
                    continue
                raise ctx.error("expected a decorated function in the module class", small,
                                rule="SYN-module-2")
            continue
        if stmt.data != "decorated":
            raise ctx.error("expected a function decorated with @R.function or @T.prim_func",
                            stmt, rule="SYN-module-2")
        decorators, target = _split_decorated(stmt)
        if target.data != "funcdef":
            raise ctx.error("a class inside the module class", target, rule="SYN-module-2")
        fname = str(target.children[0])
        if any(fname == f[0] for f in functions):
            raise ctx.error(f"function {fname!r} is defined twice", target, rule="SYN-module-3")
        kind = _function_kind(decorators, env, target)
        functions.append((fname, kind, target, decorators))
        env.global_vars[fname] = rx.GlobalVar(fname, span=ctx.span(target.children[0]))
    built: dict[str, object] = {}
    for fname, kind, target, decorators in functions:
        if kind == "relax":
            built[fname] = build_relax_function(target, decorators, env)
        else:
            built[fname] = build_prim_func(target, decorators, env)
    span = ctx.span(classdef) if classdef is not None else None
    return rx.IRModule(built, attrs=env.module_attrs, global_infos=env.global_infos,
                       name=name, span=span)


def _module_statement(small: Tree, env: ModuleEnv, ctx: Context) -> None:
    """``n = TypeVar("n")``, ``metadata = tvm.ir.load_json(...)``, imports, docstrings."""
    if _is_docstring(small):
        return
    if small.data in ("import_name", "import_from"):
        _import(small, env, ctx)
        return
    if small.data == "assign":
        target, value = small.children
        if isinstance(target, Tree) and target.data == "name":
            name = str(target.children[0])
            callee = _call_name(value)
            if callee == ("TypeVar",):
                args = _call_args(value)
                if len(args) != 1 or not _is_string(args[0]):
                    raise ctx.error('TypeVar takes one string: NAME = TypeVar("NAME")', value,
                                    rule="SYN-typevar-1")
                declared = ctx.string(args[0])
                if declared != name:
                    raise ctx.error(f"TypeVar name {declared!r} differs from the variable "
                                    f"{name!r} it is assigned to", value, rule="SYN-typevar-1")
                env.type_vars.add(name)
                return
            if name == "metadata" and callee in (("tvm", "ir", "load_json"),
                                                 ("tvm", "ir", "save_json")):
                args = _call_args(value)
                if len(args) != 1 or not _is_string(args[0]):
                    raise ctx.error("the metadata section is metadata = tvm.ir.load_json(\"\"\"...\"\"\")",
                                    value, rule="SYN-meta-1")
                env.load_metadata(ctx.string(args[0]), args[0])
                return
            if callee is not None and callee[:1] == ("T",) and len(callee) == 2:
                # ``n = T.int64()`` at module level declares a name like TypeVar does.
                if not _call_args(value):
                    env.type_vars.add(name)
                    return
    raise ctx.error("only NAME = TypeVar(\"NAME\") declarations and the metadata section may "
                    "appear at the top level", small, rule="SYN-module-1")


def _import(small: Tree, env: ModuleEnv, ctx: Context) -> None:
    """SYN-import-1: an import binds the alias of a script namespace (``from tvm.script
    import relax as R``), is accepted and ignored (``import tvm.testing``, ``import numpy
    as np``), or is an error; nothing is ever imported."""
    if small.data == "import_name":
        for item in small.children:
            path = _path(item.children[0])
            alias = item.children[1]
            _bind_import(path, str(alias) if alias is not None else None, path, small, env, ctx)
        return
    module = _path(small.children[0])
    targets = small.children[1]
    if targets.data == "import_star":
        raise ctx.error(f"`from {'.'.join(module)} import *` binds names that cannot be known "
                        f"without running Python; import the names you use (from tvm.script "
                        f"import relax as R)", small, rule="SYN-import-1")
    for item in targets.children:
        if item is None:
            continue
        name, alias = str(item.children[0]), item.children[1]
        _bind_import(module + (name,), str(alias) if alias is not None else name, module,
                     small, env, ctx)


def _bind_import(path: tuple[str, ...], alias: str | None, module: tuple[str, ...],
                 node: Tree, env: ModuleEnv, ctx: Context) -> None:
    """Record what ``import path as alias`` binds; ``module`` is the module imported from."""
    text = ctx.text[node.meta.start_pos:node.meta.end_pos] if not node.meta.empty else ""
    if module[0] not in IGNORED_IMPORT_ROOTS:
        raise ctx.error(f"`{text}` imports {'.'.join(module)}: only the imports of TVMScript "
                        f"(tvm, tvm.script) and of test modules (numpy, pytest) are read; "
                        f"delete the line", node, rule="SYN-import-1")
    short = canonical_path(path)
    if alias is None:
        # ``import tvm.testing`` binds ``tvm`` (a root namespace already).
        if path[0] != "tvm":
            env.ignored_imports[path[0]] = text
        return
    if short != path or path in (("tvm",), ("tvm", "relax")):
        # A script namespace, or tvm / tvm.relax, whose op builders read as R's.
        env.aliases[alias] = short
    else:
        env.ignored_imports[alias] = text
        env.aliases.pop(alias, None)


def _is_main_guard(stmt: Tree) -> bool:
    """``if __name__ == "__main__":`` with no elif or else."""
    cond = stmt.children[0]
    return (isinstance(cond, Tree) and cond.data == "compare" and len(cond.children) == 3
            and _dotted(cond.children[0]) == ("__name__",) and str(cond.children[1]) == "=="
            and _is_string(cond.children[2]) and not stmt.children[2].children
            and stmt.children[3] is None)


def _statement_word(stmt: Tree) -> str:
    words = {"if_stmt": "`if` statement", "for_stmt": "`for` loop", "while_stmt": "`while` loop",
             "with_stmt": "`with` statement"}
    return words.get(stmt.data, "statement")


def _function_kind(decorators: list[Tree], env: ModuleEnv, target: Tree) -> str:
    ctx = env.ctx
    if len(decorators) != 1:
        raise ctx.error("a function takes exactly one decorator: @R.function or @T.prim_func",
                        decorators[-1] if decorators else target, rule="SYN-func-1")
    dec = decorators[0]
    name = _call_name(dec) or _dotted(dec)
    name = env.resolve(name) if name else name
    if name == ("R", "function"):
        return "relax"
    if name == ("T", "prim_func"):
        return "tir"
    raise ctx.error(f"unknown decorator @{'.'.join(name) if name else '...'}; expected "
                    f"@R.function or @T.prim_func", dec, rule="SYN-func-1")


# The options of ``@I.ir_module(...)`` (TVM's ir_module signature); none changes what
# the module is (SYN-module-4).
_IR_MODULE_OPTIONS = ("check_well_formed", "s_tir")


def _expect_module_decorator(decorators: list[Tree], target: Tree, env: ModuleEnv) -> None:
    """SYN-module-4: ``@I.ir_module``, ``@tvm.script.ir_module``, ``@ir_module`` (after
    ``from tvm.script import ir_module``), with or without ``(option=True/False)``."""
    ctx = env.ctx
    dec = decorators[0] if len(decorators) == 1 else None
    call = dec if isinstance(dec, Tree) and dec.data == "call" else None
    name = _dotted(call.children[0] if call is not None else dec)
    if name is None or env.resolve(name) != ("I", "ir_module"):
        raise ctx.error("the module class needs the decorator @I.ir_module",
                        decorators[0] if decorators else target, rule="SYN-module-1")
    for arg in ([] if call is None or call.children[1] is None else call.children[1].children):
        if arg is None:
            continue
        if not (isinstance(arg, Tree) and arg.data == "kwarg"
                and str(arg.children[0]) in _IR_MODULE_OPTIONS
                and isinstance(arg.children[1], Tree) and arg.children[1].data in ("true", "false")):
            raise ctx.error(f"@I.ir_module takes only {', '.join(o + '=True/False' for o in _IR_MODULE_OPTIONS)}",
                            arg, rule="SYN-module-4")


def _split_decorated(stmt: Tree) -> tuple[list[Tree], Tree]:
    decorators = [d.children[0] for d in stmt.children[:-1]]
    return decorators, stmt.children[-1]


def _suite_statements(suite: Tree) -> list[Tree]:
    return [c for c in suite.children if isinstance(c, Tree)]


def _is_docstring(small: Tree) -> bool:
    return (small.data == "expr_stmt" and isinstance(small.children[0], Tree)
            and small.children[0].data == "strings")


def _is_string(node) -> bool:
    return isinstance(node, Tree) and node.data == "strings"


def _path(dotted_name: Tree) -> tuple[str, ...]:
    """The names of a ``dotted_name`` node of an import line."""
    return tuple(str(t) for t in dotted_name.children)


def _dotted(node) -> tuple[str, ...] | None:
    """``a.b.c`` as ("a", "b", "c"); None for anything else."""
    if isinstance(node, Tree):
        if node.data == "name":
            return (str(node.children[0]),)
        if node.data == "getattr":
            base = _dotted(node.children[0])
            return None if base is None else base + (str(node.children[1]),)
    return None


def _call_name(node) -> tuple[str, ...] | None:
    if isinstance(node, Tree) and node.data == "call":
        return _dotted(node.children[0])
    return None


def _call_args(node: Tree) -> list:
    arglist = node.children[1]
    return [] if arglist is None else list(arglist.children)
