"""The walls (DESIGN.md section 2): imports point one way through the layers, the parser
stands on `ir` and `errors` alone, and no relax_ref modules import each other in a cycle.

Read from the source with `ast`, so imports inside functions count as much as those at
the top, and `importlib.import_module("relax_ref.<pkg>." ...)` counts as an import of
`<pkg>`. Imports under `if TYPE_CHECKING:` (annotations only) must follow the layers too,
but do not make a cycle: they never run. A new top-level module must be placed in LAYERS
before this test passes.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from relax_ref.passes.references import strongly_connected_components

PACKAGE = Path(__file__).resolve().parents[1] / "relax_ref"

# The order of DESIGN.md: a module may import its own layer and the layers below it.
LAYERS: dict[str, int] = {
    "errors": 0, "values": 0, "numerics": 0, "ir": 0,
    "solver": 1,
    "te": 2,
    "ops": 3,
    "semantics": 4,
    "passes": 5,
    "backends": 6,
    "verify": 7, "transform": 7, "testing": 7, "conformance": 7, "graph": 7, "memplan": 7,
    "cli": 8, "cli_io": 8, "__init__": 8,
}
# The parser sits beside the stack: it reads text into `ir` and reports with `errors`,
# and only the layers that take text from people use it.
PARSER = "parser"
PARSER_MAY_IMPORT = {"parser", "ir", "errors"}
MAY_IMPORT_PARSER = 7


def _modules(root: Path = PACKAGE) -> dict[str, tuple[Path, bool]]:
    """Dotted module name -> (file, is a package's __init__)."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts.pop()
        out[".".join(parts)] = (path, is_package)
    return out


def _known(name: str, modules) -> str:
    """The longest prefix of ``name`` that is a module (``relax_ref.ir.relax.Var`` is
    ``relax_ref.ir.relax``)."""
    while name not in modules and "." in name:
        name = name.rsplit(".", 1)[0]
    return name


def _dynamic_target(call: ast.Call) -> str | None:
    """The constant start of ``importlib.import_module("relax_ref...")`` (a string or
    the literal head of an f-string)."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr == "import_module") or not call.args:
        return None
    arg = call.args[0]
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return arg.value
    if isinstance(arg, ast.JoinedStr) and arg.values and isinstance(arg.values[0], ast.Constant):
        return str(arg.values[0].value).rstrip(".")
    return None


def _type_checking_only(tree: ast.AST) -> set[int]:
    """The ids of the nodes inside ``if TYPE_CHECKING:`` blocks."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            out.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    return out


def imports_of(module: str, is_package: bool, source: str, modules,
               *, runtime_only: bool = False) -> list[tuple[str, int]]:
    """The relax_ref modules ``module`` imports, with the line of each import (those that
    run, with ``runtime_only``)."""
    out = []
    tree = ast.parse(source)
    skip = _type_checking_only(tree) if runtime_only else set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".") if is_package else module.split(".")[:-1]
                base = base[:len(base) - (node.level - 1)]
                where = ".".join(base + ([node.module] if node.module else []))
            else:
                where = node.module or ""
            targets = [f"{where}.{a.name}" if f"{where}.{a.name}" in modules else where
                       for a in node.names]
        elif isinstance(node, ast.Call):
            target = _dynamic_target(node)
            targets = [target] if target else []
        out += [(_known(t, modules), node.lineno) for t in targets
                if t.split(".")[0] == "relax_ref"]
    return out


def layer_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def violation(importer: str, imported: str) -> str | None:
    """Why ``importer`` may not import ``imported``, or None."""
    a, b = layer_of(importer), layer_of(imported)
    if a == b:
        return None
    if a == PARSER:
        return None if b in PARSER_MAY_IMPORT else "the parser depends on ir and errors only"
    if b == PARSER:
        return None if LAYERS[a] >= MAY_IMPORT_PARSER else \
            "only verify/transform/testing/conformance/cli and the API read text"
    if LAYERS[b] > LAYERS[a]:
        return f"{a} is below {b}"
    return None


def _graph(runtime_only: bool = False):
    modules = _modules()
    return {m: imports_of(m, is_package, path.read_text(), modules, runtime_only=runtime_only)
            for m, (path, is_package) in modules.items()}


def test_every_module_has_a_layer():
    layers = set(LAYERS) | {PARSER}
    assert sorted({layer_of(m) for m in _modules()} - layers) == []


def test_imports_follow_the_layers():
    graph = _graph()
    bad = [f"{m} -> {t} (line {line}): {why}" for m, edges in sorted(graph.items())
           for t, line in edges if (why := violation(m, t)) is not None]
    assert bad == []


def test_no_import_cycles():
    """No strongly connected component of more than one module over every import (lazy
    ones too: an import moved into a function to dodge a cycle is still a cycle of the
    design)."""
    graph: dict[str, set[str]] = {}
    for m, edges in _graph(runtime_only=True).items():
        graph.setdefault(m, set()).update(t for t, _ in edges if t != m)
        for t, _ in edges:
            graph.setdefault(t, set())
    cycles = [c for c in strongly_connected_components(graph) if len(c) > 1]
    assert cycles == []


def test_the_cycle_finder_finds_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert [c for c in strongly_connected_components(graph) if len(c) > 1] == [["a", "b", "c"]]


# -- the checker itself sees what it must ---------------------------------------------

_MODULES = {name: None for name in (
    "relax_ref", "relax_ref.ops", "relax_ref.ops.common", "relax_ref.semantics",
    "relax_ref.semantics.tir_exprs", "relax_ref.parser", "relax_ref.parser.printer")}


@pytest.mark.parametrize("source", [
    "from relax_ref.semantics.tir_exprs import float_to_int",
    "def f():\n    from ..semantics import tir_exprs\n",
    "import importlib\nimportlib.import_module(f'relax_ref.semantics.{name}')",
])
def test_the_checker_sees_an_upward_import_in_any_form(source):
    edges = imports_of("relax_ref.ops.common", False, source, _MODULES)
    assert [violation("relax_ref.ops.common", t) for t, _ in edges] == ["ops is below semantics"]


def test_type_checking_imports_count_for_the_layers_but_not_for_cycles():
    source = ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
              "    from relax_ref.semantics.tir_exprs import X\n")
    assert imports_of("relax_ref.ops.common", False, source, _MODULES)
    assert imports_of("relax_ref.ops.common", False, source, _MODULES, runtime_only=True) == []


def test_the_checker_keeps_the_parser_apart():
    assert violation("relax_ref.semantics.interpreter", "relax_ref.parser.printer")
    assert violation("relax_ref.parser.scope", "relax_ref.ops.registry")
    assert violation("relax_ref.verify", "relax_ref.parser") is None
    assert violation("relax_ref.parser.scope", "relax_ref.ir.relax") is None
