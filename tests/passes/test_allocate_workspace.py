"""AllocateWorkspace: a kernel's global scratch buffer becomes a graph-level allocation
(both forms run in the TIR interpreter), StaticPlanBlockMemory then reuses its storage,
where the pass declines, and TVM's pass of the name (which lifts only external codegen's
workspaces) on the same input."""
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


@needs_tvm
def test_tvm_lifts_only_codegen_workspaces():
    # TVM 0.27's AllocateWorkspace reads the WorkspaceSize of external codegen functions;
    # a TIR kernel's own buffer stays where it is (our pass lifts it: PASS-workspace-6).
    mod = at_stage("StaticPlanBlockMemory", KERNEL)
    theirs = tvm_pass("AllocateWorkspace", mod)
    assert theirs.functions["twice_inc"].body.block.alloc_buffers
    assert not WORKSPACE(mod).functions["twice_inc"].body.block.alloc_buffers
