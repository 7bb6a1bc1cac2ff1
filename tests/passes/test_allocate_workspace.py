"""AllocateWorkspace: a kernel's global scratch buffer becomes a graph-level allocation
(both forms run in the TIR interpreter), StaticPlanBlockMemory then reuses its storage,
where the pass declines; external codegen's WorkspaceSize as TVM's pass of the name
lifts it, and TVM's pass on the same inputs."""
from __future__ import annotations

from relax_ref.ir import relax as rx
from relax_ref.ir import tir
from relax_ref.parser.builder import parse
from relax_ref.passes.registry import get_pass
from relax_ref.verify import check_pass
from tests.passes.lowering_helpers import at_stage, needs_tvm, tvm_pass

WORKSPACE = get_pass("AllocateWorkspace")
PLAN = get_pass("StaticPlanBlockMemory")

# A kernel whose root block allocates a global scratch buffer: y = 2 * (x + 1), through t.
KERNEL = '''
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def twice_inc(a: T.handle, b: T.handle):
        n = T.int64()
        x = T.match_buffer(a, (n, T.int64(4)), "float32")
        y = T.match_buffer(b, (n, T.int64(4)), "float32")
        t = T.sblock_alloc_buffer((n, T.int64(4)), "float32")
        for i, j in T.grid(n, T.int64(4)):
            with T.sblock("inc"):
                vi, vj = T.axis.remap("SS", [i, j])
                t[vi, vj] = x[vi, vj] + T.float32(1)
        for i, j in T.grid(n, T.int64(4)):
            with T.sblock("double"):
                vi, vj = T.axis.remap("SS", [i, j])
                y[vi, vj] = t[vi, vj] * T.float32(2)

    @R.function
    def main(x: R.Tensor(("m", 4), "float32")) -> R.Tensor(("m", 4), "float32"):
        m = T.int64()
        cls = Module
        with R.dataflow():
            y = R.call_tir(cls.twice_inc, (x,), out_sinfo=R.Tensor((m, 4), "float32"))
            z = R.call_tir(cls.twice_inc, (y,), out_sinfo=R.Tensor((m, 4), "float32"))
            R.output(z)
        return z
'''


def _calls(mod, name: str) -> list[rx.Call]:
    return [b.value for blk in mod.functions["main"].body.blocks for b in blk.bindings
            if isinstance(b.value, rx.Call) and isinstance(b.value.op, rx.GlobalVar)
            and b.value.op.name_hint == name]


def _ops(mod, op: str) -> int:
    return sum(1 for blk in mod.functions["main"].body.blocks for b in blk.bindings
               if isinstance(b.value, rx.Call) and isinstance(b.value.op, rx.Op)
               and b.value.op.name == op)


def test_workspace_becomes_a_parameter_and_each_call_allocates_it():
    mod = at_stage("StaticPlanBlockMemory", KERNEL)
    out = WORKSPACE(mod)
    kernel = out.functions["twice_inc"]
    assert kernel.body.block.alloc_buffers == ()
    assert [kernel.buffer_of(p).name for p in kernel.params] == ["x", "y", "t"]
    calls = _calls(out, "twice_inc")
    assert [len(c.args) for c in calls] == [3, 3]
    assert _ops(out, "relax.builtin.alloc_tensor") == 4  # two outputs, two workspaces
    # Random inputs, several m, poison on: the kernel with its own buffer and the kernel
    # given the graph's allocation compute the same.
    check_pass(WORKSPACE, mod)


def test_planning_after_it_reuses_the_workspace_storage():
    lifted = WORKSPACE(at_stage("StaticPlanBlockMemory", KERNEL))
    planned = PLAN(lifted)
    check_pass(PLAN, lifted)
    # The first call's workspace is dead once it returns: the second call's workspace
    # takes its storage (three tensors planned, the output z not: two storages).
    assert _ops(planned, "relax.memory.alloc_storage") == 2
    assert _ops(planned, "relax.memory.alloc_tensor") == 3


def test_a_legalized_softmax_keeps_its_results():
    text = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 8), "float32")) -> R.Tensor(("n", 8), "float32"):
        with R.dataflow():
            y = R.nn.softmax(x, axis=-1)
            z = R.nn.log_softmax(y, axis=0)
            R.output(z)
        return z
'''
    mod = at_stage("StaticPlanBlockMemory", text)
    out = WORKSPACE(mod)
    assert all(not workspaces_of(f) for f in out.functions.values()
               if isinstance(f, tir.PrimFunc))
    check_pass(WORKSPACE, mod)


def workspaces_of(f: tir.PrimFunc):
    from relax_ref.passes.allocate_workspace import workspaces

    return workspaces(f)


SCALED = '''
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def scaled(a: T.handle, b: T.handle, k: T.int64):
        x = T.match_buffer(a, (T.int64(4),), "float32")
        y = T.match_buffer(b, (T.int64(4),), "float32")
        t = T.sblock_alloc_buffer((k,), "float32")
        for i in range(k):
            with T.sblock("t"):
                vi = T.axis.spatial(k, i)
                t[vi] = T.float32(2)
        for i in range(T.int64(4)):
            with T.sblock("y"):
                vi = T.axis.spatial(T.int64(4), i)
                y[vi] = x[vi] * t[T.int64(0)]

    @R.function(pure=False)
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        y = R.builtin.alloc_tensor(R.shape([4]), R.dtype("float32"), 0, R.str("global"))
        _ = cls.scaled(x, y, R.prim_value(T.int64(3)))
        return y
'''


def test_declines_a_kernel_used_otherwise_and_a_size_the_call_does_not_give():
    # Before CallTIRRewrite the kernel is call_tir's callee, not called directly: kept.
    mod = parse(KERNEL)
    assert WORKSPACE(mod).functions["twice_inc"].body.block.alloc_buffers
    # The scratch of `scaled` is sized by a scalar parameter, which the call passes as a
    # prim value, not a tensor: kept as well (PASS-workspace-3).
    mod = parse(SCALED)
    assert WORKSPACE(mod).functions["scaled"].body.block.alloc_buffers
    check_pass(WORKSPACE, mod)


def test_local_scratch_stays_in_the_kernel():
    text = KERNEL.replace('t = T.sblock_alloc_buffer((n, T.int64(4)), "float32")',
                          't = T.sblock_alloc_buffer((n, T.int64(4)), "float32", '
                          'scope="local")')
    mod = at_stage("StaticPlanBlockMemory", text)
    out = WORKSPACE(mod)
    assert len(out.functions["twice_inc"].params) == 2
    check_pass(WORKSPACE, mod)


# An external codegen function declaring the scratch memory its library call needs.
CODEGEN = '''
@I.ir_module
class Module:
    @R.function
    def ext_scale(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        R.func_attr({"Codegen": "mylib", "WorkspaceSize": 256})

        @R.function
        def body(y: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
            R.func_attr({"Composite": "mylib.scale", "Primitive": True, "WorkspaceSize": 256})
            with R.dataflow():
                z = R.multiply(y, R.const(3.0, "float32"))
                R.output(z)
            return z

        out = body(x)
        return out

    @R.function
    def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        cls = Module
        with R.dataflow():
            a = cls.ext_scale(x)
            b = R.add(a, x)
            R.output(b)
        return b
'''


def test_codegen_workspace_size_becomes_one_allocation_passed_down():
    # PASS-workspace-7 (TVM's contract): main allocates 256 bytes at the start of its
    # dataflow block and passes them to the codegen function (renamed ext_scale1, as
    # TVM re-adds it), which passes them on to its composite.
    mod = parse(CODEGEN)
    out = WORKSPACE(mod)
    assert "ext_scale" not in out.functions
    ext = out.functions["ext_scale1"]
    assert [p.name_hint for p in ext.params] == ["x", "workspace"]
    assert "WorkspaceSize" not in ext.attrs
    first = out.functions["main"].body.blocks[0].bindings[0]
    assert first.var.name_hint == "workspace_main"
    assert first.value.op.name == "relax.builtin.alloc_tensor"
    check_pass(WORKSPACE, mod)


def test_codegen_call_outside_dataflow_declines():
    # The workspace lives in main's first dataflow block: a call outside it cannot see
    # it (TVM's pass stops on such a module).
    text = CODEGEN.replace("""        with R.dataflow():
            a = cls.ext_scale(x)
            b = R.add(a, x)
            R.output(b)
        return b""", """        a = cls.ext_scale(x)
        with R.dataflow():
            b = R.add(a, x)
            R.output(b)
        return b""")
    mod = parse(text)
    assert "ext_scale" in WORKSPACE(mod).functions


@needs_tvm
def test_codegen_workspace_as_tvm_makes_it():
    from relax_ref.ir.equal import assert_structural_equal
    from relax_ref.semantics.normalize import normalize

    mod = parse(CODEGEN)
    assert_structural_equal(normalize(WORKSPACE(mod)), tvm_pass("AllocateWorkspace", mod))


@needs_tvm
def test_tvm_lifts_only_codegen_workspaces():
    # TVM 0.27's AllocateWorkspace reads the WorkspaceSize of external codegen functions;
    # a TIR kernel's own buffer stays where it is (our pass lifts it: PASS-workspace-6).
    mod = at_stage("StaticPlanBlockMemory", KERNEL)
    theirs = tvm_pass("AllocateWorkspace", mod)
    assert theirs.functions["twice_inc"].body.block.alloc_buffers
    assert not WORKSPACE(mod).functions["twice_inc"].body.block.alloc_buffers
