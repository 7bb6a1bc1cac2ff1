"""Every rule ID the code cites in an error or a table is defined in spec/.

A rule is defined where spec/ writes its ID in bold (``- **SYN-indent-1.** ...``, ``**SYN-meta-10 (limits).**``, ``**SYN-name-1 /
SYN-name-2.**``, ranges such as ``**SYN-call-1..3.**``). The code cites an ID as a string
literal that is exactly an ID (``rule="SYN-indent-1"``, ``spec_rule=...``, the keys of a
table of rules) or inside brackets in a message (``"... [SI-anf-1]"``). Docstrings and
comments only refer to rules, so they are not scanned. Both sides are read at test time,
so the test stays right as rules are added.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ID = r"[A-Z]{2,}(?:-[A-Za-z0-9_]+)*-[0-9]+"
# a bold span that opens with an ID, on one line (``x**2`` elsewhere is Python's power)
_BOLD = re.compile(rf"\*\*({ID}[^*\n]*?)\*\*")
_RANGE = re.compile(rf"({ID})\s*\.\.\s*([0-9]+)")
_EXACT = re.compile(rf"{ID}")
_BRACKETED = re.compile(rf"\[({ID})\]")


def defined_ids(spec: Path = ROOT / "spec") -> set[str]:
    out: set[str] = set()
    for page in sorted(spec.rglob("*.md")):
        for bold in _BOLD.findall(page.read_text()):
            out.update(re.findall(ID, bold))
            for first, last in _RANGE.findall(bold):
                stem, start = first.rsplit("-", 1)
                out.update(f"{stem}-{k}" for k in range(int(start), int(last) + 1))
    return out


def _docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                out.add(id(body[0].value))
    return out


def cited_ids(source: str) -> set[str]:
    """The rule IDs a module's string literals cite (f-strings' literal parts included)."""
    tree = ast.parse(source)
    skip = _docstrings(tree)
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            if _EXACT.fullmatch(node.value):
                out.add(node.value)
            out.update(_BRACKETED.findall(node.value))
    return out


def test_every_rule_the_code_cites_is_defined_in_the_spec():
    defined = defined_ids()
    missing = sorted(f"{rule} ({path.relative_to(ROOT)})"
                     for path in sorted((ROOT / "relax_ref").rglob("*.py"))
                     for rule in cited_ids(path.read_text()) if rule not in defined)
    assert missing == []


def test_the_scanners_read_the_forms_in_use():
    assert defined_ids_of("- **SYN-call-1..3.** Keyword arguments") == \
        {"SYN-call-1", "SYN-call-2", "SYN-call-3"}
    assert defined_ids_of("**SYN-name-1 / SYN-name-2.** Names") == {"SYN-name-1", "SYN-name-2"}
    assert defined_ids_of("**SYN-meta-10 (limits).** see SYN-meta-9") == {"SYN-meta-10"}
    source = ('def f():\n    """Cites SI-doc-1 only in words."""\n'
              '    raise E(f"bad {x} [SI-anf-1]", rule="WF-var-2")\n')
    assert cited_ids(source) == {"SI-anf-1", "WF-var-2"}


def defined_ids_of(text: str) -> set[str]:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "page.md").write_text(text)
        return defined_ids(Path(tmp))
