"""The facts behind ``relax-ref ops`` (spec/api.md CLI-ops-1): for every TVM 0.27 op
(ops/tvm_catalog.py) and every op we register, what relax_ref has of it.

Read from the registry and from the files of the source tree (the conformance suite and
the spec pages); where those directories are absent (an installed wheel), the counts are
None, shown as ``?``.
"""
from __future__ import annotations

import re
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

from relax_ref.ops.registry import all_ops
from relax_ref.ops.tvm_catalog import TVM_OPS

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_SUITE = ROOT / "conformance"
DEFAULT_SPEC = ROOT / "spec" / "ops"


@dataclass
class OpRow:
    name: str
    registered: bool
    deduction: bool
    # "numpy" (the OpDef's compute), "interpreter" (a structural op the interpreter
    # evaluates itself, spec/semantics.md), or "" (none)
    semantics: str
    legalization: bool        # ours: a legalize= on the OpDef
    tvm_lowering: str | None  # tvm_catalog's word ("legalize", ...), None: not a TVM op
    cases: int | None         # conformance cases that cover or call it
    spec: str | None          # the spec/ops page naming it ("" none; None: no spec dir)

    def missing(self) -> list[str]:
        """The facts this op lacks, by column name (an op we do not register lacks
        only that)."""
        if not self.registered:
            return ["registered"]
        out = []
        if not self.deduction:
            out.append("deduction")
        if not self.semantics:
            out.append("semantics")
        if self.tvm_lowering == "legalize" and not self.legalization:
            out.append("legalization")
        if self.cases == 0:
            out.append("cases")
        if self.spec == "":
            out.append("spec")
        return out

    def as_dict(self) -> dict:
        return {**asdict(self), "missing": self.missing()}


def _mention(short: str) -> re.Pattern:
    """``R.add`` or ``relax.add`` as a whole name (not ``R.add_x``, not ``R.nn.add``)."""
    tail = re.escape(short)
    return re.compile(rf"(?<![\w.])(?:R|relax)\.{tail}(?![\w.])")


def _call(short: str) -> re.Pattern:
    return re.compile(rf"(?<![\w.])R\.{re.escape(short)}\s*\(")


def case_counts(names: list[str], suite: Path) -> dict[str, int] | None:
    """For each op, the cases whose toml ``covers`` it or whose module calls it."""
    if not suite.is_dir():
        return None
    counts = {n: 0 for n in names}
    calls = {n: _call(n[len("relax."):]) for n in names}
    for toml_path in sorted(suite.rglob("*.toml")):
        try:
            covers = set(tomllib.loads(toml_path.read_text()).get("covers", []))
        except (tomllib.TOMLDecodeError, OSError):
            covers = set()
        module = toml_path.with_suffix(".py")
        text = module.read_text() if module.is_file() else ""
        for n in names:
            if n in covers or ("R." in text and calls[n].search(text)):
                counts[n] += 1
    return counts


def spec_pages(names: list[str], spec_dir: Path,
               families: dict[str, str]) -> dict[str, str] | None:
    """For each op, the spec/ops page that names it, or "": its family's page
    (``families``: op -> family) when that names it, else the first other page by file
    name, common.md (shared rules citing many ops) last."""
    if not spec_dir.is_dir():
        return None
    pages = sorted((p.name == "common.md", p.name, p.read_text())
                   for p in spec_dir.glob("*.md"))
    out = {}
    for n in names:
        pattern = _mention(n[len("relax."):])
        naming = [page for _, page, text in pages if pattern.search(text)]
        own = f"{families.get(n)}.md"
        page = own if own in naming else (naming[0] if naming else "")
        out[n] = f"spec/ops/{page}" if page else ""
    return out


def op_rows(interpreted: frozenset[str] = frozenset(), suite: Path = DEFAULT_SUITE,
            spec_dir: Path = DEFAULT_SPEC) -> list[OpRow]:
    """One row per op TVM 0.27 has or we register, sorted by name. ``interpreted``: the
    ops the interpreter evaluates itself (it sits above this layer, so the caller says)."""
    ours = all_ops()
    names = sorted(set(TVM_OPS) | set(ours))
    counts = case_counts(names, suite)
    specs = spec_pages(names, spec_dir, {n: op.family for n, op in ours.items()})
    rows = []
    for n in names:
        op = ours.get(n)
        semantics = "" if op is None else ("numpy" if op.compute is not None else
                                           "interpreter" if n in interpreted else "")
        rows.append(OpRow(
            name=n, registered=op is not None,
            deduction=op is not None and op.deduce is not None, semantics=semantics,
            legalization=op is not None and op.legalize is not None,
            tvm_lowering=TVM_OPS.get(n),
            cases=None if counts is None else counts[n],
            spec=None if specs is None else specs[n]))
    return rows
