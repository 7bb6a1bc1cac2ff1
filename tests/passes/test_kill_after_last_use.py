"""KillAfterLastUse: TVM's placement on the mlp stage, aliases through tuples, results
never killed, storage kills waiting for their tensors, the dataflow-block trap, pure
functions, and every sample and example at its stage."""
from __future__ import annotations


import pytest

from relax_ref.ir.equal import assert_structural_equal
from relax_ref.parser.builder import parse
from relax_ref.parser.printer import print_module
from relax_ref.passes.registry import get_pass
from relax_ref.semantics.normalize import normalize
from relax_ref.semantics.well_formed import check_well_formed
from relax_ref.verify import check_pass
from tests.conftest import model_files, sample_path
from tests.passes.lowering_helpers import assert_same_as_tvm, at_stage, needs_tvm

KILL = get_pass("KillAfterLastUse")

KERNEL = '''
    @T.prim_func(private=True, s_tir=True)
    def neg(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("b"):
                vi = T.axis.spatial(4, i)
                B[vi] = A[vi] * T.float32(-1)
'''
ALLOC = 'R.builtin.alloc_tensor(R.shape([4]), R.dtype("float32"), 0, R.str("global"))'
STORAGE = 'R.memory.alloc_storage(R.shape([32]), 0, R.str("global"), R.dtype("uint8"))'


def module(body: str, attrs: str = '        R.func_attr({"relax.force_pure": True})\n') -> str:
    return f'''
@I.ir_module
class Module:
{KERNEL}
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")):
{attrs}        cls = Module
{body}
'''


def lines(mod) -> list[str]:
    text = print_module(mod)
    main = text[text.index("def main"):]
    return [ln.strip() for ln in main.splitlines()[3:] if ln.strip()]


def test_a_tensor_is_killed_after_its_last_use_and_the_result_never():
    mod = parse(module(f'''        a = {ALLOC}
        cls.neg(x, a)
        b = {ALLOC}
        cls.neg(a, b)
        return b'''))
    out = lines(KILL(mod))
    assert out.index("R.memory.kill_tensor(a)") == out.index("cls.neg(a, b)") + 1
    assert not any("kill_tensor(b)" in ln for ln in out)
    check_pass(KILL, mod)


def test_a_tuple_holding_a_tensor_keeps_it_alive():
    # vm.builtin.copy returns a tuple as it is: ``u[0]`` is ``a``.
    mod = parse(module(f'''        a = {ALLOC}
        cls.neg(x, a)
        t = (a, x)
        u = R.call_pure_packed("vm.builtin.copy", t, sinfo_args=R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32")))
        b = {ALLOC}
        c = u[0]
        cls.neg(c, b)
        return b'''))
    out = lines(KILL(mod))
    assert out.index("R.memory.kill_tensor(a)") == out.index("cls.neg(c, b)") + 1
    check_pass(KILL, mod)


def test_a_tensor_inside_the_result_is_not_killed():
    mod = parse(module(f'''        a = {ALLOC}
        cls.neg(x, a)
        t = (a, x)
        return t'''))
    assert "kill" not in print_module(KILL(mod))
    check_pass(KILL, mod)


def test_a_storage_waits_for_a_tensor_made_from_it_earlier():
    # Two tensors at different offsets of one storage: the storage is last used by the
    # second allocation, but the first is read after it (PASS-kill-3).
    mod = parse(module(f'''        s = {STORAGE}
        a = R.memory.alloc_tensor(s, 0, R.shape([4]), R.dtype("float32"), 0)
        cls.neg(x, a)
        b = R.memory.alloc_tensor(s, 16, R.shape([4]), R.dtype("float32"), 0)
        cls.neg(a, b)
        c = {ALLOC}
        cls.neg(b, c)
        return c'''))
    out = lines(KILL(mod))
    assert out.index("R.memory.kill_storage(s)") == out.index("cls.neg(b, c)") + 2
    check_pass(KILL, mod)


def test_no_kill_of_a_tensor_whose_storage_is_reused_before_its_last_read():
    # b reuses a's bytes while a dead tuple still names a: killing a after the tuple
    # would poison b (PASS-kill-6; found by fuzzing).
    mod = parse(module(f'''        s = {STORAGE}
        a = R.memory.alloc_tensor(s, 0, R.shape([4]), R.dtype("float32"), 0)
        cls.neg(x, a)
        b = R.memory.alloc_tensor(s, 0, R.shape([4]), R.dtype("float32"), 0)
        cls.neg(x, b)
        t = (a,)
        c = {ALLOC}
        cls.neg(b, c)
        return c'''))
    assert "kill_tensor(a)" not in print_module(KILL(mod))
    check_pass(KILL, mod)


DATAFLOW = module(f'''        with R.dataflow():
            s = {STORAGE}
            a = R.memory.alloc_tensor(s, 0, R.shape([4]), R.dtype("float32"), 0)
            R.output(a)
        cls.neg(x, a)
        return a''')


def test_no_kill_inside_a_dataflow_block():
    # ``s`` is last used inside the block, and as a DataflowVar it cannot be named after
    # it: no kill (PASS-kill-5).
    mod = parse(DATAFLOW)
    out = KILL(mod)
    assert check_well_formed(out) == []
    assert "kill" not in print_module(out)
    check_pass(KILL, mod)


@needs_tvm
def test_tvm_kills_inside_the_dataflow_block():
    # The trap of DESIGN.md section 7: TVM's result has an impure call in a dataflow
    # block, which well-formedness rejects.
    from tests.passes.lowering_helpers import tvm_pass

    theirs = tvm_pass("KillAfterLastUse", parse(DATAFLOW))
    assert any("WF-pure-1" in str(e.render()) for e in check_well_formed(theirs))


def test_a_pure_function_gets_no_kills():
    mod = normalize(parse(module(f'''        a = {ALLOC}
        b = R.add(a, x)
        return b''', attrs="")))
    assert_structural_equal(KILL(mod), mod)


# every stage on every sample: slow (test_default_pipeline covers them end to end)
@pytest.mark.slow
@pytest.mark.parametrize("path", model_files(), ids=lambda p: p.stem)
def test_samples_and_examples_at_its_stage(path):
    check_pass(KILL, at_stage("KillAfterLastUse", path.read_text()), trials=2)


@needs_tvm
def test_same_kills_as_tvm_on_the_mlp_stage():
    assert_same_as_tvm("KillAfterLastUse",
                       at_stage("KillAfterLastUse", sample_path("mlp.py").read_text()))


def test_a_tensor_read_in_a_branch_is_killed_after_the_if():
    # uses inside a branch count at the binding of the if; the branch's own allocation
    # is killed inside the branch, and the if's result (which may be it) is not
    mod = parse(module(f'''        a = {ALLOC}
        cls.neg(x, a)
        c = R.prim_value(T.bool(True))
        if c:
            b = {ALLOC}
            cls.neg(a, b)
            d = {ALLOC}
            cls.neg(b, d)
            r = d
        else:
            r = x
        e = {ALLOC}
        cls.neg(r, e)
        return e'''))
    out = lines(KILL(mod))
    assert out.index("R.memory.kill_tensor(b)") == out.index("cls.neg(b, d)") + 1
    assert out.index("R.memory.kill_tensor(a)") > out.index("else:")
    assert not any("kill_tensor(d)" in ln for ln in out)
    check_pass(KILL, mod)
