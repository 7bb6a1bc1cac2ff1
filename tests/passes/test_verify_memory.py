"""The plan checker: it proves plans that are safe for every n within its bounds and
rejects hand-broken ones (overlap, a storage too small, reuse across an if, a kill too
early), naming the rule and the tensors."""
from __future__ import annotations

import numpy as np

from relax_ref.passes.verify_memory import check_plan
from relax_ref.semantics.interpreter import Interpreter

from .test_static_plan_block_memory import BOUND_8, alloc, module

STORAGE = ('{name}: R.Object = R.memory.alloc_storage(R.shape([{size}]), R.prim_value(0), '
           'R.str("global"), R.dtype("float32"))')


def view(name: str, storage: str, offset: int = 0) -> str:
    return (f'{name}: R.Tensor((n, 4), dtype="float32") = R.memory.alloc_tensor({storage}, '
            f'R.prim_value({offset}), R.shape([n, 4]), R.dtype("float32"), R.prim_value(0))')


def rules(body: str, attrs: str = BOUND_8, params: str = "") -> list[tuple[str, tuple]]:
    return [(p.rule, p.tensors) for p in check_plan(module(body, attrs, params))]


def test_a_sound_plan_with_offsets_is_proved():
    body = f"""
{STORAGE.format(name="s", size=256)}
{view("a", "s")}
cls.exp(x, a)
{view("b", "s", 128)}
cls.add(a, a, b)
{view("c", "s")}
cls.exp(b, c)
{alloc("d")}
cls.add(c, b, d)
return d
"""
    assert rules(body) == []


def test_two_live_tensors_at_one_offset_overlap():
    body = f"""
{STORAGE.format(name="s", size=256)}
{view("a", "s")}
cls.exp(x, a)
{view("b", "s")}
cls.add(a, a, b)
return b
"""
    assert ("PASS-plan-check-2", ("a", "b")) in rules(body)


def test_a_storage_too_small_at_the_upper_bound():
    body = f"""
{STORAGE.format(name="s", size=64)}
{view("a", "s")}
cls.exp(x, a)
{alloc("b")}
cls.add(a, a, b)
return b
"""
    # n may be 8: 128 bytes do not fit in 64
    assert rules(body) == [("PASS-plan-check-1", ("a",))]
    # without the bound no constant size can hold (n, 4) float32
    assert rules(body, attrs="")[0][0] == "PASS-plan-check-1"


def test_a_symbolic_storage_is_proved_against_symbolic_tensors():
    body = f"""
{STORAGE.format(name="s", size="n * 16")}
{view("a", "s")}
cls.exp(x, a)
{alloc("b")}
cls.add(a, a, b)
return b
"""
    assert rules(body, attrs="") == []


def test_reuse_across_an_if_while_the_outer_tensor_lives():
    body = f"""
{STORAGE.format(name="s", size=128)}
{view("a", "s")}
cls.exp(x, a)
if c:
    {view("t", "s")}
    cls.exp(x, t)
    r = t
else:
    r = x
{alloc("z")}
cls.add(r, a, z)
return z
"""
    found = rules(body, params=', c: R.Tensor((), dtype="bool")')
    assert ("PASS-plan-check-2", ("a", "t")) in found


def test_tensors_in_different_branches_may_share():
    body = f"""
{STORAGE.format(name="s", size=128)}
if c:
    {view("t", "s")}
    cls.exp(x, t)
    {alloc("u")}
    cls.exp(t, u)
    r = u
else:
    {view("e", "s")}
    cls.add(x, x, e)
    {alloc("f")}
    cls.exp(e, f)
    r = f
return r
"""
    assert rules(body, params=', c: R.Tensor((), dtype="bool")') == []


def test_a_kill_before_the_last_use():
    body = f"""
{STORAGE.format(name="s", size=128)}
{view("a", "s")}
cls.exp(x, a)
k = R.memory.kill_tensor(a)
{alloc("b")}
cls.add(a, a, b)
k2 = R.memory.kill_storage(s)
return b
"""
    assert ("PASS-plan-check-3", ("a",)) in rules(body)
    storage_killed_early = body.replace("k = R.memory.kill_tensor(a)\n", "").replace(
        "k2 = R.memory.kill_storage(s)\n", "").replace(
        f'{alloc("b")}', f'k2 = R.memory.kill_storage(s)\n{alloc("b")}')
    assert [r for r, _ in rules(storage_killed_early)] == ["PASS-plan-check-3"]


def test_kills_after_the_last_use_are_proved():
    body = f"""
{STORAGE.format(name="s", size=128)}
{view("a", "s")}
cls.exp(x, a)
{alloc("b")}
cls.add(a, a, b)
k = R.memory.kill_tensor(a)
k2 = R.memory.kill_storage(s)
return b
"""
    assert rules(body) == []


def test_a_returned_tensor_outlives_its_storage_kill():
    body = f"""
{STORAGE.format(name="s", size=128)}
{view("a", "s")}
cls.exp(x, a)
k2 = R.memory.kill_storage(s)
return a
"""
    assert rules(body) == [("PASS-plan-check-3", ("a",))]


def test_the_overlap_the_checker_rejects_is_wrong_output_at_run_time():
    # a broken plan, run: d's kernel overwrites a while a is still to be read
    body = f"""
{STORAGE.format(name="s", size=128)}
{view("a", "s")}
cls.exp(x, a)
{view("b", "s")}
cls.exp(x, b)
{alloc("c")}
cls.add(a, b, c)
{view("d", "s")}
cls.add(x, x, d)
{alloc("e")}
cls.add(a, c, e)
return e
"""
    x = np.ones((2, 4), "float32")
    got = Interpreter(module(body, BOUND_8)).run("main", [x])
    assert not np.allclose(got, 3 * np.exp(x))
    assert rules(body)


def test_a_storage_killed_after_its_last_placement_is_proved():
    # KillAfterLastUse's form (TVM's): the storage is killed once nothing more is placed
    # in it, before the kernel writes the tensor; the tensor's bytes are written after it
    body = f"""
{STORAGE.format(name="s", size=128)}
{view("a", "s")}
k = R.memory.kill_storage(s)
cls.exp(x, a)
{alloc("b")}
cls.add(a, a, b)
k2 = R.memory.kill_tensor(a)
return b
"""
    assert rules(body) == []
    x = np.ones((2, 4), "float32")
    assert np.allclose(Interpreter(module(body, BOUND_8)).run("main", [x]), 2 * np.exp(x))
