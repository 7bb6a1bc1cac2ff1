"""FuseTIR (spec/passes.md PASS-fusetir-*): each Primitive function FuseOps made becomes
one PrimFunc and one call_tir; every case through check_pass. Where TVM 0.27 is
installed, it fuses the same functions and reads our result."""
from __future__ import annotations

import importlib.util

import pytest

from relax_ref import transform
from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import tir
from relax_ref.parser.builder import parse
from relax_ref.passes.fuse_ops import fuse_ops
from relax_ref.passes.fuse_tir import declined, fuse_tir
from relax_ref.passes.tir_merge import free_vars
from relax_ref.semantics.well_formed import check_well_formed
from relax_ref.verify import check_pass
from tests.conftest import sample_files
from tests.passes.fusion_kernels import DOUBLE, EXP, SHIFT, lowered_models
from tests.passes.fusion_kernels import HEADER as MODULE_HEADER

needs_tvm = pytest.mark.skipif(importlib.util.find_spec("tvm") is None,
                               reason="the cross-check needs Apache TVM 0.27")

# The elementwise PrimFuncs (fusion_kernels), and two on 3-d buffers whose shapes are
# only provably equal: (n, m, n * m) and (p, q, r).
DOUBLE3 = """
    @T.prim_func(private=True, s_tir=True)
    def double3(a: T.handle, b: T.handle):
        T.func_attr({"op_pattern": 0, "tirx.noalias": True})
        n = T.int64()
        m = T.int64()
        A = T.match_buffer(a, (n, m, n * m))
        B = T.match_buffer(b, (n, m, n * m))
        for i, j, k in T.grid(n, m, n * m):
            with T.sblock("B"):
                vi, vj, vk = T.axis.remap("SSS", [i, j, k])
                B[vi, vj, vk] = A[vi, vj, vk] * T.float32(2)
"""

EXP3 = """
    @T.prim_func(private=True, s_tir=True)
    def exp3(a: T.handle, b: T.handle):
        T.func_attr({"op_pattern": 0, "tirx.noalias": True})
        p = T.int64()
        q = T.int64()
        r = T.int64()
        A = T.match_buffer(a, (p, q, r))
        B = T.match_buffer(b, (p, q, r))
        for i, j, k in T.grid(p, q, r):
            with T.sblock("B"):
                vi, vj, vk = T.axis.remap("SSS", [i, j, k])
                B[vi, vj, vk] = T.exp(A[vi, vj, vk])
"""

HEADER = MODULE_HEADER + EXP + DOUBLE + SHIFT + DOUBLE3 + EXP3


def _module(text: str) -> rx.IRModule:
    return parse(HEADER + text)


def _check(mod: rx.IRModule) -> rx.IRModule:
    check_pass(transform.FuseTIR(), mod)
    return fuse_tir(mod)


def _main_callees(mod: rx.IRModule) -> list[str]:
    return [b.value.args[0].name_hint if isinstance(b.value.op, rx.Op) else
            b.value.op.name_hint for blk in mod.functions["main"].body.blocks
            for b in blk.bindings if isinstance(b.value, rx.Call)]


def _unbound(f: tir.PrimFunc) -> list[str]:
    """PASS-fusetir-3: variables of ``f`` that neither a parameter nor a parameter
    buffer's dimension defines."""
    known = {id(p) for p in f.params} | {id(d) for _, b in f.buffer_map for d in b.shape
                                          if isinstance(d, P.Var)}
    return [v.name for v in free_vars(f.body, [b for _, b in f.buffer_map])
            if id(v) not in known]


def test_mlp_sample_becomes_tvms_fused_function():
    """TVM's FuseOps output (mlp.fuse_ops.py) gives TVM's FuseTIR output (mlp.fused.py):
    one PrimFunc fused_matmul_add_gelu with the same blocks; the Primitive function and
    the PrimFuncs only it called are gone."""
    path = next(p for p in sample_files() if p.name == "mlp.fuse_ops.py")
    mod = parse(path.read_text())
    out = _check(mod)
    theirs = parse(next(p for p in sample_files() if p.name == "mlp.fused.py").read_text())
    assert sorted(out.functions) == sorted(theirs.functions)
    assert _main_callees(out) == ["fused_matmul_add_gelu", "matmul1", "softmax"]

    def blocks(f):
        return [n.name for n in _nodes(f.body) if isinstance(n, tir.SBlock)]
    assert blocks(out.functions["fused_matmul_add_gelu"]) == \
        blocks(theirs.functions["fused_matmul_add_gelu"])
    f = out.functions["fused_matmul_add_gelu"]
    assert [b.name for _, b in f.buffer_map] == ["x", "w1", "b1", "T_multiply_intermediate"]
    assert len(f.body.block.alloc_buffers) == 6


def _nodes(s):
    from relax_ref.ir.uses import tir_nodes
    return list(tir_nodes(s))


PROVABLY_EQUAL = """
    @R.function(private=True)
    def fused_double3_exp3(x: R.Tensor(({a}), "float32")):
        R.func_attr({{"Primitive": True}})
        cls = Module
        with R.dataflow():
            y = R.call_tir(cls.double3, (x,), out_ty=R.Tensor(({a}), "float32"))
            z = R.call_tir(cls.exp3, (y,), out_ty=R.Tensor(({a}), "float32"))
            R.output(z)
        return z

    @R.function
    def main(x: R.Tensor(({a}), "float32")):
        {decl}
        cls = Module
        with R.dataflow():
            w = cls.fused_double3_exp3(x)
            R.output(w)
        return w
"""


@pytest.mark.parametrize("shape, decl", [
    ("2, 3, 6", ""),
    ('"u", "v", "u * v"', "u = T.int64()\n        v = T.int64()"),
    ('"u", "v", "v * u"', "u = T.int64()\n        v = T.int64()"),
], ids=["static", "symbolic", "commuted"])
def test_provably_equal_shapes_fuse(shape, decl):
    """TVM's trap: a buffer ``(n, m, n*m)`` passed a ``(2, 3, 6)`` tensor. ``n`` and ``m``
    are bound by the values passed and ``n*m`` is then proved equal to 6 (or to ``u*v``,
    ``v*u``), not compared structurally (PASS-fusetir-2)."""
    mod = _module(PROVABLY_EQUAL.format(a=shape, decl=decl))
    assert declined(mod) == {}
    out = _check(mod)
    f = out.functions["fused_double3_exp3"]
    assert isinstance(f, tir.PrimFunc) and not _unbound(f)
    assert _main_callees(out) == ["fused_double3_exp3"]


def test_an_unproved_dimension_declines_the_fusion():
    """``(u, v, w)`` with ``w`` unrelated: ``n*m == w`` cannot be proved, so the Primitive
    function and its call stay (PASS-fusetir-2, never an unproved equality)."""
    mod = _module(PROVABLY_EQUAL.format(
        a='"u", "v", "w"', decl="u = T.int64()\n        v = T.int64()\n        w = T.int64()"))
    why = declined(mod)["fused_double3_exp3"]
    assert "cannot prove" in why and "PASS-fusetir-2" in why
    out = _check(mod)
    assert isinstance(out.functions["fused_double3_exp3"], rx.Function)


def test_fig8_a_variable_no_buffer_binds_is_a_scalar_parameter():
    """Paper Fig. 8 after FuseOps: the group's input has shape ``2*n`` and ``n`` comes in
    tir_vars. The fused PrimFunc takes ``n`` as an int64 scalar after the tensors, the
    call passes ``R.prim_value(n)``, and no variable of the PrimFunc is unbound."""
    mod = _module("""
    @R.function(private=True)
    def fused_exp_double(f: R.Tensor(("n * 2",), "float32"), tir_vars: R.Shape(["n"])):
        n = T.int64()
        R.func_attr({"Primitive": True})
        cls = Module
        with R.dataflow():
            a = R.call_tir(cls.exp, (f,), out_ty=R.Tensor((n * 2,), "float32"))
            b = R.call_tir(cls.double, (a,), out_ty=R.Tensor((n * 2,), "float32"))
            R.output(b)
        return b

    @R.function
    def main(x: R.Tensor(("n * 2",), "float32"), s: R.Shape(["n"]),
             z: R.Tensor(("k * 2",), "float32"), t: R.Shape(["k"])):
        n = T.int64()
        k = T.int64()
        cls = Module
        with R.dataflow():
            y = cls.fused_exp_double(x, R.shape([n]))
            w = cls.fused_exp_double(z, R.shape([k]))
            R.output(y, w)
        return (y, w)
""")
    out = _check(mod)
    f = out.functions["fused_exp_double"]
    assert [p.dtype.code for p in f.params] == ["handle", "int", "handle"]
    assert not _unbound(f)
    calls = [b.value for b in out.functions["main"].body.blocks[0].bindings]
    assert [c.args[1].fields[-1].value.name for c in calls] == ["n", "k"]
    assert "R.prim_value(n)" in out.script()


def test_one_call_site_that_cannot_pass_a_scalar_keeps_every_call():
    """A Primitive function with one call site whose ``n`` is unknown (a shape of
    unknown values) is left as it is, at every call site, the one that could be rewritten
    included (PASS-fusetir-1: a function is replaced everywhere or nowhere)."""
    mod = _module("""
    @R.function(private=True)
    def fused_exp_double(f: R.Tensor(("n * 2",), "float32"), tir_vars: R.Shape(["n"])):
        n = T.int64()
        R.func_attr({"Primitive": True})
        cls = Module
        with R.dataflow():
            a = R.call_tir(cls.exp, (f,), out_ty=R.Tensor((n * 2,), "float32"))
            b = R.call_tir(cls.double, (a,), out_ty=R.Tensor((n * 2,), "float32"))
            R.output(b)
        return b

    @R.function
    def main(x: R.Tensor(("n * 2",), "float32"), s: R.Shape(["n"]),
             z: R.Tensor(ndim=1, dtype="float32"), t: R.Shape(ndim=1)):
        n = T.int64()
        cls = Module
        with R.dataflow():
            y = cls.fused_exp_double(x, R.shape([n]))
            w = cls.fused_exp_double(z, t)
            R.output(y, w)
        return (y, w)
""")
    assert "is not known" in declined(mod)["fused_exp_double"]
    out = _check(mod)
    assert _main_callees(out) == ["fused_exp_double", "fused_exp_double"]
    assert isinstance(out.functions["fused_exp_double"], rx.Function)


def test_a_scalar_argument_from_a_prim_parameter():
    """An inner call's scalar argument may be a parameter ``R.Prim(value="n")``: ``n``
    becomes a scalar parameter of the fused PrimFunc, passed the caller's value."""
    mod = _module("""
    @R.function(private=True)
    def fused_shift_double(x: R.Tensor(("k",), "float32"), s: R.Prim(value="n")):
        k = T.int64()
        n = T.int64()
        R.func_attr({"Primitive": True})
        cls = Module
        with R.dataflow():
            a = R.call_tir(cls.shift, (x, s), out_ty=R.Tensor((k,), "float32"))
            b = R.call_tir(cls.double, (a,), out_ty=R.Tensor((k,), "float32"))
            R.output(b)
        return b

    @R.function
    def main(x: R.Tensor(("k",), "float32"), s: R.Prim(value="m")):
        m = T.int64()
        cls = Module
        with R.dataflow():
            y = cls.fused_shift_double(x, s)
            R.output(y)
        return y
""")
    out = _check(mod)
    f = out.functions["fused_shift_double"]
    assert [p.dtype.code for p in f.params] == ["handle", "int", "handle"]
    assert not _unbound(f) and "R.prim_value(m)" in out.script()


def test_two_results_and_a_function_called_twice():
    """A group returning two values gets two output buffers (the call's result is a
    tuple); the same PrimFunc inlined twice defines distinct loop variables and unique
    block names (PASS-fusetir-3)."""
    mod = _module("""
    @R.function(private=True)
    def fused_exp_exp(x: R.Tensor(("k",), "float32")):
        k = T.int64()
        R.func_attr({"Primitive": True})
        cls = Module
        with R.dataflow():
            a = R.call_tir(cls.exp, (x,), out_ty=R.Tensor((k,), "float32"))
            b = R.call_tir(cls.exp, (a,), out_ty=R.Tensor((k,), "float32"))
            R.output(a, b)
        return (a, b)

    @R.function
    def main(x: R.Tensor(("k",), "float32")):
        k = T.int64()
        cls = Module
        with R.dataflow():
            t = cls.fused_exp_exp(x)
            a = t[0]
            b = t[1]
            R.output(a, b)
        return (a, b)
""")
    out = _check(mod)
    f = out.functions["fused_exp_exp"]
    assert len(f.params) == 3 and not f.body.block.alloc_buffers
    names = [n.name for n in _nodes(f.body) if isinstance(n, tir.SBlock)]
    assert names == ["root", "B", "B1"]
    loops = [n.loop_var for n in _nodes(f.body) if isinstance(n, tir.For)]
    assert loops[0] is not loops[1]


def test_other_bindings_decline():
    """A Primitive function holding something else than call_tir (here a match_cast) is
    left as it is (PASS-fusetir-4)."""
    mod = _module("""
    @R.function(private=True)
    def fused_exp_double(x: R.Tensor(("k",), "float32")):
        k = T.int64()
        R.func_attr({"Primitive": True})
        cls = Module
        with R.dataflow():
            a = R.call_tir(cls.exp, (x,), out_ty=R.Tensor((k,), "float32"))
            c = R.match_cast(a, R.Tensor((k,), "float32"))
            b = R.call_tir(cls.double, (c,), out_ty=R.Tensor((k,), "float32"))
            R.output(b)
        return b

    @R.function
    def main(x: R.Tensor(("k",), "float32")):
        cls = Module
        with R.dataflow():
            y = cls.fused_exp_double(x)
            R.output(y)
        return y
""")
    assert "match_cast" in declined(mod)["fused_exp_double"]
    out = _check(mod)
    assert isinstance(out.functions["fused_exp_double"], rx.Function)


# -- every sample and example, and TVM's FuseTIR on the same input ----------------------------

FUSED = [(name, fuse_ops()(mod)) for name, mod in lowered_models()]


@pytest.mark.parametrize("name, mod", FUSED, ids=[n for n, _ in FUSED])
def test_samples_and_examples(name, mod):
    check_pass(transform.FuseTIR(), mod, trials=2)
    assert declined(mod) == {}
    assert not check_well_formed(parse(fuse_tir(mod).script()))  # we read it back


def _tvm_fused(text: str, ours: str):
    """The Primitive functions TVM's FuseTIR turns into PrimFuncs; TVM also reads
    ``ours`` (our result)."""
    from relax_ref.conformance import _in_tvm_child

    def work(tvm, from_source):
        from_source(ours)
        mod = from_source(text)
        primitive = {gv.name_hint for gv, f in mod.functions.items()
                     if isinstance(f, tvm.relax.Function) and f.attrs is not None
                     and "Primitive" in f.attrs}
        out = tvm.relax.transform.FuseTIR()(mod)
        return True, {gv.name_hint for gv, f in out.functions.items()
                      if gv.name_hint in primitive and isinstance(f, tvm.tirx.PrimFunc)}

    ok, found = _in_tvm_child(work, 120, "fuse the module's TIR")
    return found if ok else None


@needs_tvm
@pytest.mark.parametrize("name, mod", FUSED, ids=[n for n, _ in FUSED])
def test_tvm_fuses_the_same_functions(name, mod):
    ours = fuse_tir(mod)
    theirs = _tvm_fused(mod.script(), ours.script())
    assert theirs is not None, "TVM does not read our result or fails on the input"
    assert {n for n, f in ours.functions.items() if isinstance(f, tir.PrimFunc)
            and isinstance(mod.functions.get(n), rx.Function)} == theirs
