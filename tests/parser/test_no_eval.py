"""The parser never evaluates its input: no eval, exec, compile or dynamic import
anywhere in the package (issue: foundation, "Done when")."""
from __future__ import annotations

import ast
from pathlib import Path

import relax_ref

FORBIDDEN_CALLS = {"eval", "exec", "compile", "__import__"}


def _calls(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name):
                yield func.id, node
            elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
                    and func.value.id in ("builtins", "importlib"):
                yield func.attr, node


def test_no_dynamic_evaluation_in_the_package():
    root = Path(relax_ref.__file__).parent
    offenders = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for name, node in _calls(tree):
            if name in FORBIDDEN_CALLS:
                offenders.append(f"{path.relative_to(root)}:{node.lineno}: {name}()")
            if name == "import_module":
                # Only our own op families and passes are imported by name, each from
                # a fixed package of ours.
                text = ast.unparse(node)
                if "relax_ref.ops." not in text and "relax_ref.passes." not in text:
                    offenders.append(f"{path.relative_to(root)}:{node.lineno}: import_module")
    assert not offenders, "\n".join(offenders)

