"""FuseOps (spec/passes.md PASS-fuse-*): call_tir bindings grouped by their PrimFuncs'
op_pattern and lifted into private Primitive functions; every case through check_pass.
Where TVM 0.27 is installed, the groups equal TVM's on the samples and examples."""
from __future__ import annotations

import importlib.util

import pytest

from relax_ref import transform
from relax_ref.ir import relax as rx
from relax_ref.parser.builder import parse
from relax_ref.passes.annotate_tir_op_pattern import annotate_tir_op_pattern
from relax_ref.passes.fuse_ops import fuse_ops
from relax_ref.passes.legalize_ops import legalize_ops
from relax_ref.verify import check_pass
from tests.conftest import sample_files
from tests.passes.fusion_kernels import DOUBLE, EXP, HEADER, SHIFT, lowered_models

needs_tvm = pytest.mark.skipif(importlib.util.find_spec("tvm") is None,
                               reason="the cross-check needs Apache TVM 0.27")

# The elementwise PrimFuncs (fusion_kernels), one that adds a symbolic value passed in
# tir_vars, and a reshape-like flatten (op_pattern 8).
ADD_N = """
    @T.prim_func(private=True, s_tir=True)
    def add_n(a: T.handle, b: T.handle, n: T.int64):
        T.func_attr({"op_pattern": 0, "tirx.noalias": True})
        k = T.int64()
        A = T.match_buffer(a, (k,))
        B = T.match_buffer(b, (k,))
        for i in range(k):
            with T.sblock("B"):
                vi = T.axis.spatial(k, i)
                B[vi] = A[vi] + T.Cast("float32", n)
"""

FLATTEN = """
    @T.prim_func(private=True, s_tir=True)
    def flatten(a: T.handle, b: T.handle):
        T.func_attr({"op_pattern": 8, "tirx.noalias": True})
        k = T.int64()
        A = T.match_buffer(a, (k, T.int64(2)))
        B = T.match_buffer(b, (k * T.int64(2),))
        for i in range(k * T.int64(2)):
            with T.sblock("B"):
                vi = T.axis.spatial(k * T.int64(2), i)
                B[vi] = A[vi // T.int64(2), vi % T.int64(2)]
"""

PRIMS = EXP + DOUBLE + ADD_N + SHIFT + FLATTEN


def _module(main: str) -> rx.IRModule:
    return parse(HEADER + PRIMS + main)


def _fused(mod: rx.IRModule) -> dict[str, rx.Function]:
    return {k: f for k, f in mod.functions.items()
            if isinstance(f, rx.Function) and f.attrs.get("Primitive")}


def _callees(func: rx.Function) -> list[str]:
    return [b.value.args[0].name_hint for blk in func.body.blocks for b in blk.bindings
            if isinstance(b.value, rx.Call) and isinstance(b.value.op, rx.Op)
            and b.value.op.name == "relax.call_tir"]


def _check(mod: rx.IRModule) -> rx.IRModule:
    check_pass(transform.FuseOps(), mod)
    return transform.FuseOps()(mod)


def test_mlp_sample_matches_tvms_groups():
    """TVM's FuseOps output (mlp.fuse_ops.py): matmul, bias add and gelu in one group;
    matmul1 and softmax (both OutEWiseFusable) alone."""
    path = next(p for p in sample_files() if p.name == "mlp.legalized.py")
    mod = annotate_tir_op_pattern(parse(path.read_text()))
    out = _check(mod)
    fused = _fused(out)
    assert [(k, _callees(f)) for k, f in fused.items()] == \
        [("fused_matmul_add_gelu", ["matmul", "add", "gelu"])]
    main = out.functions["main"].body.blocks[0].bindings
    assert [b.value.op.name_hint if isinstance(b.value.op, rx.GlobalVar) else
            b.value.args[0].name_hint for b in main] == \
        ["fused_matmul_add_gelu", "matmul1", "softmax"]


def test_a_member_read_outside_the_group_is_a_second_result():
    """A match_cast is no edge of the graph (as in TVM), so ``a`` joins ``b``; the
    match_cast still reads ``a``, which the group returns beside ``b`` (PASS-fuse-4). The
    match_cast only checks ``m`` (the parameter defines it), so ``b`` does not need it
    and the group goes first (PASS-fuse-6)."""
    mod = _module("""
    @R.function
    def main(x: R.Tensor(("m",), "float32")):
        m = T.int64()
        cls = Module
        with R.dataflow():
            a = R.call_tir(cls.exp, (x,), out_ty=R.Tensor((m,), "float32"))
            c = R.match_cast(a, R.Tensor((m,), "float32"))
            b = R.call_tir(cls.double, (a,), out_ty=R.Tensor((m,), "float32"))
            R.output(b, c)
        return (b, c)
""")
    out = _check(mod)
    (name, f), = _fused(out).items()
    assert name == "fused_exp_double" and _callees(f) == ["exp", "double"]
    assert len(f.body.body.fields) == 2  # both results leave the group


def test_fig8_a_shape_not_recoverable_from_the_parameters():
    """Paper Fig. 8: the group reads a value of shape ``2*n``, which does not define ``n``;
    ``n`` comes in an extra R.Shape parameter (PASS-fuse-5)."""
    mod = _module("""
    @R.function
    def main(x: R.Tensor(("n", 2), "float32")):
        n = T.int64()
        cls = Module
        with R.dataflow():
            f = R.call_tir(cls.flatten, (x,), out_ty=R.Tensor((n * 2,), "float32"))
            a = R.call_tir(cls.exp, (f,), out_ty=R.Tensor((n * 2,), "float32"))
            b = R.call_tir(cls.double, (a,), out_ty=R.Tensor((n * 2,), "float32"))
            R.output(b)
        return b
""")
    out = _check(mod)
    (f,) = _fused(out).values()
    assert [p.name_hint for p in f.params] == ["f", "tir_vars"]
    assert "R.Shape([n])" in out.script()
    call = out.functions["main"].body.blocks[0].bindings[1].value
    assert isinstance(call.args[-1], rx.ShapeExpr)


MATCH_CAST_TRAP = """
    @R.function
    def main(x: R.Tensor(("m",), "float32"), y: R.Tensor(dtype="float32", ndim=1)):
        m = T.int64()
        n = T.int64()
        cls = Module
        with R.dataflow():
            a = R.call_tir(cls.exp, (x,), out_ty=R.Tensor((m,), "float32"))
            y1 = R.match_cast(y, R.Tensor((n,), "float32"))
            b = R.call_tir(cls.add_n, (a,), out_ty=R.Tensor((m,), "float32"), tir_vars=R.shape([n]))
            R.output(b, y1)
        return (b, y1)
"""


# The same trap where only the output annotation needs ``n`` (``y`` has ``x``'s length).
MATCH_CAST_TRAP_OUT_TY = """
    @R.function
    def main(x: R.Tensor(("m",), "float32"), y: R.Tensor(("m",), "float32")):
        m = T.int64()
        n = T.int64()
        cls = Module
        with R.dataflow():
            a = R.call_tir(cls.exp, (x,), out_ty=R.Tensor((m,), "float32"))
            y1 = R.match_cast(y, R.Tensor((n,), "float32"))
            b = R.call_tir(cls.add_n, (a,), out_ty=R.Tensor((n,), "float32"), tir_vars=R.shape([m]))
            R.output(b, y1)
        return (b, y1)
"""


@pytest.mark.parametrize("main", [MATCH_CAST_TRAP, MATCH_CAST_TRAP_OUT_TY])
def test_match_cast_stays_before_the_group_that_needs_its_variable(main):
    """The TVM trap: ``b`` needs ``n``, which the match_cast defines after ``a``. The
    group of ``a`` and ``b`` goes after the match_cast, never above it (PASS-fuse-6)."""
    out = _check(_module(main))
    (f,) = _fused(out).values()
    assert _callees(f) == ["exp", "add_n"]
    main = out.functions["main"].body.blocks[0].bindings
    assert isinstance(main[0], rx.MatchCast)
    assert isinstance(main[1].value.op, rx.GlobalVar)


def test_a_group_that_would_wrap_around_a_match_cast_is_not_lifted():
    """The match_cast reads ``a`` and defines the ``n`` that ``b`` needs: lifting ``a``
    and ``b`` together would need it both before and after the group (PASS-fuse-6)."""
    mod = _module("""
    @R.function
    def main(x: R.Tensor(("m",), "float32")):
        m = T.int64()
        n = T.int64()
        cls = Module
        with R.dataflow():
            a = R.call_tir(cls.exp, (x,), out_ty=R.Tensor((m,), "float32"))
            a1 = R.match_cast(a, R.Tensor((n,), "float32"))
            b = R.call_tir(cls.add_n, (a,), out_ty=R.Tensor((m,), "float32"), tir_vars=R.shape([n]))
            R.output(b, a1)
        return (b, a1)
""")
    out = _check(mod)
    assert not _fused(out)


def test_opaque_calls_do_not_fuse_and_level_zero_fuses_nothing():
    mod = _module("""
    @R.function
    def main(x: R.Tensor(("n", 2), "float32")):
        n = T.int64()
        cls = Module
        with R.dataflow():
            f = R.call_tir(cls.flatten, (x,), out_ty=R.Tensor((n * 2,), "float32"))
            g = R.call_tir(cls.flatten, (x,), out_ty=R.Tensor((n * 2,), "float32"))
            R.output(f, g)
        return (f, g)
""")
    assert not _fused(_check(mod))
    chain = _module(MATCH_CAST_TRAP)
    check_pass(transform.FuseOps(0), chain)
    assert not _fused(transform.FuseOps(0)(chain))


def test_max_fuse_depth_splits_a_long_chain():
    body = "\n".join(f"            a{i + 1} = R.call_tir(cls.double, (a{i},), "
                     f"out_ty=R.Tensor((m,), \"float32\"))" for i in range(5))
    mod = _module(f"""
    @R.function
    def main(a0: R.Tensor(("m",), "float32")):
        m = T.int64()
        cls = Module
        with R.dataflow():
{body}
            R.output(a5)
        return a5
""")
    check_pass(fuse_ops(max_fuse_depth=2), mod)
    sizes = sorted(len(_callees(f)) for f in _fused(fuse_ops(max_fuse_depth=2)(mod)).values())
    assert sizes == [2]  # one lifted pair, reused for the next pair; the fifth alone
    assert [len(_callees(f)) for f in _fused(_check(mod)).values()] == [5]


# -- every sample and example, and TVM's groups on the same input ------------------------------

LOWERED = lowered_models()


def _groups(mod: rx.IRModule) -> set[tuple[str, ...]]:
    return {tuple(_callees(f)) for f in _fused(mod).values()}


@pytest.mark.parametrize("name, mod", LOWERED, ids=[n for n, _ in LOWERED])
def test_samples_and_examples(name, mod):
    check_pass(transform.FuseOps(), mod, trials=2)


def _tvm_groups(text: str, ours: str | None = None):
    """TVM's groups on ``text``; TVM also reads ``ours`` (our result), checking its
    well-formedness as it parses."""
    from relax_ref.conformance import _in_tvm_child

    def work(tvm, from_source):
        if ours is not None:
            from_source(ours)
        mod = from_source(text)
        out = tvm.relax.transform.FuseOps()(mod)
        found = set()
        for f in out.functions.values():
            if isinstance(f, tvm.relax.Function) and f.attrs is not None \
                    and "Primitive" in f.attrs:
                found.add(tuple(b.value.args[0].name_hint for blk in f.body.blocks
                                for b in blk.bindings
                                if isinstance(b.value, tvm.relax.Call)
                                and isinstance(b.value.op, tvm.ir.Op)
                                and b.value.op.name == "relax.call_tir"))
        return True, found

    ok, found = _in_tvm_child(work, 120, "fuse the module")
    return found if ok else None


@needs_tvm
@pytest.mark.parametrize("name, mod", LOWERED, ids=[n for n, _ in LOWERED])
def test_tvm_forms_the_same_groups(name, mod):
    ours = transform.FuseOps()(mod)
    theirs = _tvm_groups(mod.script(), ours.script())
    if theirs is None:
        assert _tvm_groups(mod.script()) is None, "TVM does not read our result"
        pytest.skip("TVM does not fuse the module")
    assert _groups(ours) == theirs


def test_lowered_ops_injective_into_a_reduction_and_an_epilogue_after_matmul():
    """PASS-fuse-2: exp and a constant add (ElemWise) fuse into the sum (CommReduce); the
    matmul (OutEWiseFusable) takes its bias add and relu. The constant becomes a
    parameter, as TVM lifts it (PASS-fuse-4)."""
    mod = parse("""
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor(("n", 4), "float32"), w: R.Tensor((4, 3), "float32"), b: R.Tensor((3,), "float32")):
    with R.dataflow():
        e = R.exp(R.add(x, R.const(1.0, "float32")))
        s = R.sum(e, axis=[1])
        h = R.nn.relu(R.add(R.matmul(x, w), b))
        R.output(s, h)
    return (s, h)
""")
    lowered = annotate_tir_op_pattern(legalize_ops(mod))
    out = _check(lowered)
    assert sorted(_groups(out)) == [("add", "exp", "sum"), ("matmul", "add1", "relu")]
    f = out.functions["fused_add_exp_sum"]
    assert [p.name_hint for p in f.params] == ["x", "param_0"]


def test_blocks_of_local_functions_are_grouped_too():
    """PASS-fuse-7: each dataflow block on its own, a local function's included; the
    group reads the enclosing function's ``x`` as an argument."""
    mod = _module("""
    @R.function
    def main(x: R.Tensor(("m",), "float32")):
        m = T.int64()
        cls = Module

        @R.function
        def inner(z: R.Tensor(("k",), "float32")):
            k = T.int64()
            with R.dataflow():
                a = R.call_tir(cls.exp, (z,), out_ty=R.Tensor((k,), "float32"))
                b = R.call_tir(cls.double, (a,), out_ty=R.Tensor((k,), "float32"))
                c = R.call_tir(cls.double, (x,), out_ty=R.Tensor((m,), "float32"))
                d = R.call_tir(cls.exp, (c,), out_ty=R.Tensor((m,), "float32"))
                R.output(b, d)
            return (b, d)

        r = inner(x)
        return r
""")
    assert _groups(_check(mod)) == {("exp", "double"), ("double", "exp")}


def test_a_tuple_read_only_through_items_is_passed_as_its_items():
    """PASS-fuse-4, as TVM: the group reads ``t`` only as ``t[1]``, so it takes ``t_1``
    and the call site passes ``t[1]``; the split's tuple, made inside, stays inside."""
    mod = parse("""
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor(("n", 4), "float32"), t: R.Tuple(R.Tensor((2,), "float32"), R.Tensor((3,), "float32"))):
    with R.dataflow():
        s = R.split(x, 2, axis=1)
        c = R.add(R.exp(s[0]), s[1])
        v = R.add(R.exp(t[1]), R.const(1.0, "float32"))
        R.output(c, v)
    return (c, v)
""")
    out = _check(annotate_tir_op_pattern(legalize_ops(mod)))
    assert _groups(out) == {("split", "exp", "add"), ("exp1", "add1")}
    assert [p.name_hint for p in out.functions["fused_exp1_add1"].params] == ["t_1", "param_0"]


def test_a_group_read_through_a_match_cast_by_its_own_input_is_not_lifted():
    """``b`` reads ``a`` and ``d``; ``d`` reads ``a`` through a match_cast, which is no
    edge of the graph, so the partition puts ``a``, ``d`` and ``b`` together while the
    match_cast outside needs ``a`` first and ``d`` needs it (a cycle: TVM stops with an
    error). The group is not lifted (PASS-fuse-6)."""
    mod = parse("""
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor(("m",), "float32")):
    m = T.int64()
    with R.dataflow():
        a = R.exp(x)
        c = R.match_cast(a, R.Tensor((m,), "float32"))
        d = R.multiply(c, c)
        b = R.add(a, d)
        R.output(b)
    return b
""")
    out = _check(annotate_tir_op_pattern(legalize_ops(mod)))
    assert not _fused(out)


def test_prim_value_arguments_as_tvm_passes_them():
    """PASS-fuse-4, as TVM 0.27: prim values written in the call stay in it (a symbolic
    one's variable then comes in tir_vars, PASS-fuse-5); a variable bound to a prim
    value without symbolic variables is inlined; one bound to ``R.prim_value(m)`` is a
    parameter."""
    mod = _module("""
    @R.function
    def main(x: R.Tensor(("m",), "float32")):
        m = T.int64()
        cls = Module
        with R.dataflow():
            three = R.prim_value(T.int64(3))
            pm = R.prim_value(m)
            a = R.call_tir(cls.shift, (x, three), out_ty=R.Tensor((m,), "float32"))
            b = R.call_tir(cls.shift, (a, R.prim_value(T.int64(2))), out_ty=R.Tensor((m,), "float32"))
            c = R.call_tir(cls.shift, (b, pm), out_ty=R.Tensor((m,), "float32"))
            d = R.call_tir(cls.shift, (c, R.prim_value(m + 1)), out_ty=R.Tensor((m,), "float32"))
            R.output(d)
        return d
""")
    out = _check(mod)
    (f,) = _fused(out).values()
    assert [p.name_hint for p in f.params] == ["x", "pm"]
    scalars = [b.value.args[1].fields[1] for b in f.body.blocks[0].bindings]
    assert [type(s).__name__ for s in scalars] == ["PrimValue", "PrimValue", "Var", "PrimValue"]
