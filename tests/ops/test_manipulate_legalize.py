"""Lowering of the manipulation ops (spec/ops/manipulate.md TE-leg-manip-*): each op,
drawn with its attributes and shapes, symbolic dimensions included (check_pass tries
them at 1, 0, 2, 3), keeps its results and traps through LegalizeOps; a call whose
run-time check cannot be decided at compile time stays."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import relax_ref
from relax_ref.passes.legalize_ops import legalize_ops

from .legalize_helpers import check_lowered, module

_SETTINGS = settings(max_examples=15, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow])
_DIMS = st.sampled_from(['"n"', "1", "2", "3"])
_DTYPES = st.sampled_from(["float32", "int32", "float16", "bool"])


def _shape(dims) -> str:
    return f"({', '.join(dims)}{',' if len(dims) == 1 else ''})"


def _tensor(dims, dtype="float32") -> str:
    return f'R.Tensor({_shape(dims)}, "{dtype}")'


def _declare(text: str) -> str:
    """``n = T.int64()`` before a body that names ``n`` outside a signature."""
    return f"n = T.int64()\n{text}"


@st.composite
def _reshape_case(draw):
    """An input shape and a target of the same element count: the input's dimensions
    shuffled and merged into products, with at most one written as -1."""
    dims = draw(st.lists(_DIMS, min_size=0, max_size=3))
    parts = draw(st.permutations(dims))
    target: list[str] = []
    for d in parts:
        if target and draw(st.booleans()):
            target[-1] = f"{target[-1]} * {d}"
        else:
            target.append(d)
    target = [t.replace('"', "") for t in target]
    if target and all("n" not in t for t in target) and draw(st.booleans()):
        target[draw(st.integers(0, len(target) - 1))] = "-1"
    return dims, target


@_SETTINGS
@given(_reshape_case(), _DTYPES)
def test_reshape_lowers_to_the_same_row_major_order(case, dtype):
    dims, target = case
    text = module(f"x: {_tensor(dims, dtype)}",
                  _declare(f"y = R.reshape(x, R.shape([{', '.join(target)}]))"))
    check_lowered(text, "relax.reshape")


@_SETTINGS
@given(st.lists(_DIMS, min_size=0, max_size=4))
def test_flatten(dims):
    check_lowered(module(f"x: {_tensor(dims)}", "y = R.flatten(x)"), "relax.flatten")


def test_reshape_with_an_unprovable_count_is_checked_at_run_time():
    # m * 2 against n: equal only when the run-time check says so (EXEC-manip-reshape-1),
    # which the PrimFunc makes first (TE-leg-7).
    text = module('x: R.Tensor(("n",), "float32"), s: R.Shape(["m", 2])',
                  "y = R.reshape(x, s)")
    script = check_lowered(text, "relax.reshape").script()
    assert 'assert n == m * T.int64(2), "shape_mismatch: relax.reshape' in script, script


@st.composite
def _permute_case(draw):
    dims = draw(st.lists(_DIMS, min_size=1, max_size=4))
    if draw(st.booleans()):
        return dims, None
    axes = draw(st.permutations(range(len(dims))))
    return dims, [a - len(dims) if draw(st.booleans()) else a for a in axes]


@_SETTINGS
@given(_permute_case())
def test_permute_dims(case):
    dims, axes = case
    attr = "" if axes is None else f", {axes}"
    check_lowered(module(f"x: {_tensor(dims)}", f"y = R.permute_dims(x{attr})"),
                  "relax.permute_dims")


@_SETTINGS
@given(st.lists(_DIMS, min_size=0, max_size=3), st.data())
def test_expand_dims(dims, data):
    count = data.draw(st.integers(1, 2))
    out_ndim = len(dims) + count
    axes = data.draw(st.lists(st.integers(-out_ndim, out_ndim - 1), min_size=count,
                              max_size=count, unique_by=lambda a: a % out_ndim))
    check_lowered(module(f"x: {_tensor(dims)}", f"y = R.expand_dims(x, {axes})"),
                  "relax.expand_dims")


@_SETTINGS
@given(st.lists(st.sampled_from(['"n"', "1", "3"]), min_size=1, max_size=4), st.data())
def test_squeeze(dims, data):
    ones = [i for i, d in enumerate(dims) if d == "1"]
    if ones and data.draw(st.booleans()):
        axis = f", {data.draw(st.lists(st.sampled_from(ones), min_size=1, unique=True))}"
    elif all(d != '"n"' for d in dims):
        axis = ""  # axis=None: every dimension must be a constant
    else:
        return
    check_lowered(module(f"x: {_tensor(dims)}", f"y = R.squeeze(x{axis})"), "relax.squeeze")


def test_squeeze_of_a_symbolic_length_is_checked_at_run_time():
    # n is removed by deduction and checked to be 1 at run time (EXEC-manip-squeeze-1).
    text = module('x: R.Tensor(("n", 3), "float32")', "y = R.squeeze(x, [0])")
    script = check_lowered(text, "relax.squeeze").script()
    assert 'assert n == T.int64(1), "shape_mismatch: relax.squeeze' in script, script


@_SETTINGS
@given(st.lists(_DIMS, min_size=1, max_size=3), st.data())
def test_flip(dims, data):
    axis = data.draw(st.integers(-len(dims), len(dims) - 1))
    check_lowered(module(f"x: {_tensor(dims)}", f"y = R.flip(x, {axis})"), "relax.flip")


@_SETTINGS
@given(st.lists(st.sampled_from(['"n"', '"m"', "0", "2"]), min_size=1, max_size=3),
       st.sampled_from([0, 1, -1]))
def test_concat_reads_each_part_at_its_offset(lengths, axis):
    def dims(length):
        return [length, "3"] if axis == 0 else ["3", length]
    params = ", ".join(f"x{k}: {_tensor(dims(d))}" for k, d in enumerate(lengths))
    parts = ", ".join(f"x{k}" for k in range(len(lengths)))
    comma = "," if len(lengths) == 1 else ""
    check_lowered(module(params, f"y = R.concat(({parts}{comma}), axis={axis})"),
                  "relax.concat")


def test_concat_of_1d_tensors_with_axis_none():
    text = module('a: R.Tensor(("n",), "int32"), b: R.Tensor((2,), "int32")',
                  "y = R.concat((a, b, a), axis=None)")
    check_lowered(text, "relax.concat")


@_SETTINGS
@given(st.sampled_from(['"n"', "0", "5", "7"]),
       st.one_of(st.integers(1, 4), st.lists(st.integers(-2, 9), min_size=0, max_size=3)),
       st.booleans())
def test_split_one_prim_func_with_one_output_per_piece(length, ios, second_axis):
    if isinstance(ios, int) and length.isdigit() and \
            (ios - 1) * -(-int(length) // ios) > int(length):
        return  # rejected by deduction (SI-manip-split-2)
    dims = ["2", length] if second_axis else [length, "2"]
    ios_text = str(ios) if isinstance(ios, int) else str(list(ios))
    check_lowered(module(f"x: {_tensor(dims)}",
                         f"y = R.split(x, {ios_text}, axis={int(second_axis)})"),
                  "relax.split")


def test_split_that_may_trap_traps_where_its_last_piece_is_allocated():
    # n = 1 in 3 sections gives a last length of -1: the op traps (shape_mismatch), and
    # so does the lowered call, allocating a piece of negative length (TE-leg-7).
    text = module('x: R.Tensor(("n",), "float32")', "y = R.split(x, 3)")
    check_lowered(text, "relax.split")


@_SETTINGS
@given(st.lists(st.sampled_from(["same", "1"]), min_size=0, max_size=3),
       st.lists(st.sampled_from(["n", "2"]), min_size=0, max_size=2), st.data())
def test_broadcast_to(kinds, lead, data):
    target = lead + [data.draw(st.sampled_from(["n", "3"])) for _ in kinds]
    dims = ["1" if k == "1" else (f'"{t}"' if t == "n" else t)
            for k, t in zip(kinds, target[len(lead):])]
    text = module(f'x: {_tensor(dims)}, z: R.Tensor(("n",), "float32")',
                  _declare(f"y = R.broadcast_to(x, R.shape([{', '.join(target)}]))"))
    check_lowered(text, "relax.broadcast_to")


def test_broadcast_of_an_undecided_dimension_is_checked_at_run_time():
    # m is 1 (broadcast) or n (copied) only at run time: the PrimFunc asserts one of the
    # two (the op's shape_mismatch otherwise) and reads at T.Select(m == 1, 0, i).
    text = module('x: R.Tensor(("m",), "float32"), z: R.Tensor(("n",), "float32")',
                  _declare("y = R.broadcast_to(x, R.shape([n]))"))
    script = check_lowered(text, "relax.broadcast_to").script()
    assert 'assert m == T.int64(1) or m == n, "shape_mismatch: ' in script, script
    assert "T.Select(m == T.int64(1), T.int64(0), v_ax0)" in script, script


@_SETTINGS
@given(st.lists(_DIMS, min_size=1, max_size=3), st.integers(0, 3), st.data())
def test_repeat(dims, repeats, data):
    axis = data.draw(st.one_of(st.none(), st.integers(-len(dims), len(dims) - 1)))
    check_lowered(module(f"x: {_tensor(dims)}", f"y = R.repeat(x, {repeats}, axis={axis})"),
                  "relax.repeat")


@_SETTINGS
@given(st.lists(_DIMS, min_size=0, max_size=3),
       st.lists(st.integers(0, 3), min_size=0, max_size=3))
def test_tile(dims, repeats):
    if not dims and not repeats:
        return
    check_lowered(module(f"x: {_tensor(dims)}", f"y = R.tile(x, {repeats})"), "relax.tile")


@_SETTINGS
@given(st.lists(st.sampled_from(["n", "n * 2 + 1", "0", "7"]), min_size=0, max_size=4))
def test_shape_to_tensor(dims):
    # n is a size (x's dimension), so it is never negative (TE-leg-manip-8, TE-leg-4).
    text = module('x: R.Tensor(("n",), "float32")',
                  _declare(f"y = R.shape_to_tensor(R.shape([{', '.join(dims)}]))"))
    check_lowered(text, "relax.shape_to_tensor")


def test_shape_to_tensor_of_a_value_that_may_be_negative_is_checked_at_run_time():
    # k comes from an R.Prim: R.shape([k]) traps for a negative k, and the lowered call
    # does not evaluate that shape, so the PrimFunc checks k >= 0 (TE-leg-manip-8).
    text = module('p: R.Prim(value="k")', _declare("y = R.shape_to_tensor(R.shape([k]))")
                  .replace("n = T.int64()", "k = T.int64()"))
    script = check_lowered(text, "relax.shape_to_tensor").script()
    assert 'assert k >= T.int64(0), "shape_mismatch: relax.shape_to_tensor' in script, script
    lowered = legalize_ops(relax_ref.check(relax_ref.from_source(text)))
    with pytest.raises(relax_ref.RuntimeCheckError) as err:
        relax_ref.run(lowered, -1)
    assert err.value.check == "shape_mismatch"


def test_shape_to_tensor_of_unknown_values_is_a_packed_call():
    # TVM 0.27's form: relax.run.shape_to_tensor computes the op (TE-leg-5).
    text = module("s: R.Shape(ndim=2)", "y = R.shape_to_tensor(s)")
    script = check_lowered(text, "relax.shape_to_tensor").script()
    assert 'R.call_pure_packed("relax.run.shape_to_tensor", s' in script, script


def test_lowered_names_follow_topi():
    text = module('x: R.Tensor(("n", 4), "float32")',
                  _declare("a = R.reshape(x, R.shape([4, n]))\nb = R.permute_dims(x)\n"
                           "c = R.concat((x, x))\nd = R.split(x, 2, axis=1)\ny = (a, b, c, d)"))
    script = check_lowered(text, "relax.reshape").script()
    for name in ("def reshape(", 'T.sblock("T_reshape")', "def transpose(",
                 'T.sblock("T_transpose")', "def concatenate(", 'T.sblock("T_concat")',
                 "def split(", 'T.sblock("T_split_sections_1")'):
        assert name in script, name


def test_concat_of_a_tuple_variable_and_split_pieces_used_later():
    text = module('x: R.Tensor(("n", 4), "float32"), z: R.Tensor((2, 4), "float32")',
                  '''t = (x, z)
c = R.concat(t, axis=0)
s = R.split(c, [1, 3], axis=0)
y = R.add(s[0], R.sum(s[2], axis=0, keepdims=True))''')
    check_lowered(text, "relax.concat")
    check_lowered(text, "relax.split")
