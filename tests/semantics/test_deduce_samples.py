"""Dropping every binding annotation of a sample and re-deducing gives exactly the
annotations TVM printed (issue: static semantics, "Done when")."""
from __future__ import annotations

import pytest

from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.parser.builder import parse
from relax_ref.semantics.normalize import normalize, print_sinfo
from relax_ref.semantics.sinfo_relations import Check, base_check
from relax_ref.solver.analyzer import Analyzer
from tests.conftest import SAMPLES, sample_files


def _strip(mod: rx.IRModule) -> rx.IRModule:
    """The module with every VarBinding's annotation removed (params, returns and
    match_cast targets stay: they are part of the program, not of deduction)."""
    def strip_function(f: rx.Function) -> rx.Function:
        mapping: dict[int, rx.Var] = {}

        def use(e):
            if isinstance(e, rx.Var):
                return mapping.get(id(e), e)
            if isinstance(e, rx.Tuple):
                return rx.Tuple(tuple(use(x) for x in e.fields), span=e.span)
            if isinstance(e, rx.TupleGetItem):
                return rx.TupleGetItem(use(e.tuple_value), e.index, span=e.span)
            if isinstance(e, rx.Call):
                return rx.Call(use(e.op), tuple(use(a) for a in e.args), e.attrs, e.sinfo_args,
                               span=e.span)
            if isinstance(e, rx.If):
                return rx.If(use(e.cond), seq(e.true_branch), seq(e.false_branch), span=e.span)
            if isinstance(e, rx.Function):
                return rx.Function(e.params, seq(e.body), e.ret_struct_info, e.is_pure, e.attrs,
                                   e.is_private, span=e.span)
            return e

        def seq(s: rx.SeqExpr) -> rx.SeqExpr:
            blocks = []
            for block in s.blocks:
                bindings = []
                for b in block.bindings:
                    value = use(b.value)
                    if isinstance(b, rx.VarBinding):
                        var = type(b.var)(b.var.name_hint, None, span=b.var.span)
                        mapping[id(b.var)] = var
                        bindings.append(rx.VarBinding(var, value, span=b.span))
                    else:
                        bindings.append(rx.MatchCast(b.var, value, b.struct_info, span=b.span))
                blocks.append(type(block)(tuple(bindings), span=block.span))
            return rx.SeqExpr(tuple(blocks), use(s.body), span=s.span)

        return rx.Function(f.params, seq(f.body), f.ret_struct_info, f.is_pure, f.attrs,
                           f.is_private, span=f.span)

    return mod.with_functions({name: strip_function(f) if isinstance(f, rx.Function) else f
                               for name, f in mod.functions.items()})


def _annotated_bindings(mod: rx.IRModule):
    """(function, var name, annotation) for every binding whose var TVM annotated."""
    out = []

    def seq(fname, s):
        for block in s.blocks:
            for b in block.bindings:
                if b.var.struct_info is not None and isinstance(b, rx.VarBinding):
                    out.append((fname, b.var.name_hint, b.var.struct_info))
                if isinstance(b.value, rx.If):
                    seq(fname, b.value.true_branch)
                    seq(fname, b.value.false_branch)

    for name, f in mod.functions.items():
        if isinstance(f, rx.Function):
            seq(name, f.body)
    return out


def _deduced(mod: rx.IRModule) -> dict:
    out = {}

    def seq(fname, s):
        for block in s.blocks:
            for b in block.bindings:
                out[(fname, b.var.name_hint)] = b.var.struct_info
                if isinstance(b.value, rx.If):
                    seq(fname, b.value.true_branch)
                    seq(fname, b.value.false_branch)

    for name, f in mod.functions.items():
        if isinstance(f, rx.Function):
            seq(name, f.body)
    return out


def _same(a: si.StructInfo, b: si.StructInfo, analyzer: Analyzer) -> bool:
    """Equal struct info, with symbolic dimensions compared by the analyzer. The two
    sides come from different parses, so variables are matched by name first."""
    from relax_ref.ir.prim_expr import free_vars
    from relax_ref.semantics.sinfo_relations import free_symbols, substitute

    names = {v.name: v for v in free_symbols(a)}
    mapping = {v: names[v.name] for v in free_symbols(b) if v.name in names}
    b = substitute(b, mapping)
    return base_check(a, b, analyzer) is Check.PASS and base_check(b, a, analyzer) is Check.PASS


# Printed samples (TVM's own annotations) only: the .src.py texts have none to compare.
PRINTED = [p for p in sample_files() if not p.name.endswith(".src.py")]


@pytest.mark.parametrize("path", PRINTED, ids=lambda p: p.name)
def test_rededuced_annotations_match_tvm(path):
    original = parse(path.read_text(), str(path))
    expected = _annotated_bindings(original)
    deduced = _deduced(normalize(_strip(original)))
    analyzer = Analyzer()
    mismatches = []
    for fname, var, want in expected:
        got = deduced.get((fname, var))
        if got is None or not _same(want, got, analyzer):
            mismatches.append(f"{fname}.{var}: TVM {print_sinfo(want)}, we "
                              f"{print_sinfo(got) if got is not None else 'nothing'}")
    assert not mismatches, "\n".join(mismatches)


@pytest.mark.parametrize("path", sample_files(), ids=lambda p: p.name)
def test_every_sample_normalizes(path):
    mod = normalize(parse(path.read_text(), str(path)))
    for f in mod.functions.values():
        if isinstance(f, rx.Function):
            assert isinstance(f.struct_info, si.FuncStructInfo)
