"""attention_var_len (spec/ops/nn.md "attention_var_len"): deduction, the binding of
its defaults, NumPy semantics (each sequence attended on its own, against
R.nn.attention), run-time checks of the sequence starts, and our printed calls read
back by us and by TVM 0.27."""
from __future__ import annotations

import numpy as np

import relax_ref

from .helpers import compute, deduce, dims, fails, sym, tensor, traps
from .legalize_helpers import module
from .tvm_bridge import TvmBridge

T = sym("t")
RNG = np.random.default_rng(13)


def _qkv(tq=10, tk=12, h=4, hk=2, d=8, dv=6):
    return (RNG.standard_normal((1, tq, h, d)).astype("float32"),
            RNG.standard_normal((1, tk, hk, d)).astype("float32"),
            RNG.standard_normal((1, tk, hk, dv)).astype("float32"))


def test_deduction():
    q, k, v = tensor((1, T, 4, 8)), tensor((1, 12, 2, 8)), tensor((1, 12, 2, 6))
    s, m = tensor((4,), "int32"), tensor((), "int32")
    assert dims(deduce("nn.attention_var_len", [q, k, v, s, m, s, m])) == (1, T, 4, 6)
    fails("SI-nn-attention_var_len-1", "nn.attention_var_len",
          [tensor((2, 3, 4, 8)), tensor((2, 3, 4, 8)), tensor((2, 3, 4, 8)), s, m, s, m])
    fails("SI-nn-attention_var_len-2", "nn.attention_var_len", [q, k, v, tensor((4,)), m, s, m])
    fails("SI-nn-attention_var_len-2", "nn.attention_var_len", [q, k, v, s, s, s, m])
    fails("SI-nn-attention_var_len-2", "nn.attention_var_len",
          [q, k, v, s, m, tensor((3,), "int32"), m])
    fails("SI-nn-attention-2", "nn.attention_var_len",
          [q, tensor((1, 12, 3, 8)), v, s, m, s, m])


def test_each_sequence_is_attended_on_its_own():
    q, k, v = _qkv()
    sq, sk = np.array([0, 2, 7, 10], "int32"), np.array([0, 5, 6, 12], "int32")
    for mask in (None, "TopLeft", "BottomRight"):
        got = compute("nn.attention_var_len", q, k, v, sq, np.array(5, "int32"), sk,
                      np.array(6, "int32"), causal_mask=mask)
        for b in range(3):
            want = compute("nn.attention", q[:, sq[b]:sq[b + 1]], k[:, sk[b]:sk[b + 1]],
                           v[:, sk[b]:sk[b + 1]], causal_mask=mask)
            np.testing.assert_allclose(got[:, sq[b]:sq[b + 1]], want, rtol=1e-6)


def test_sequence_starts_are_checked():
    q, k, v = _qkv(tq=4, tk=4)
    m = np.array(4, "int32")
    for bad in ([1, 4], [0, 3], [0, 3, 2, 4]):
        starts = np.array(bad, "int32")
        with traps("invalid_value", "EXEC-nn-attention_var_len-1"):
            compute("nn.attention_var_len", q, k, v, starts, m, starts, m)
    with traps("invalid_value", "EXEC-nn-attention_var_len-1"):
        s = np.array([0, 4], "int32")
        compute("nn.attention_var_len", q, k, v, s, np.array(3, "int32"), s, m)


TEXT = module('q: R.Tensor((1, 5, 2, 4), "float32"), k: R.Tensor((1, 5, 2, 4), "float32"), '
              'v: R.Tensor((1, 5, 2, 4), "float32"), sq: R.Tensor((3,), "int32"), '
              'mq: R.Tensor((), "int32")',
              'y = R.nn.attention_var_len(q, k, v, sq, mq, causal_mask="BottomRight")')


def test_defaults_and_printing_round_trip():
    mod = relax_ref.check(relax_ref.from_source(TEXT))
    text = mod.script()
    assert "R.nn.attention_var_len(q, k, v, sq, mq, sq, mq, scale=None" in text
    again = relax_ref.check(relax_ref.from_source(text))
    assert again.script() == text
    q, k, v = _qkv(5, 5, 2, 2, 4, 4)
    args = [q, k, v, np.array([0, 2, 5], "int32"), np.array(3, "int32")]
    np.testing.assert_allclose(np.asarray(relax_ref.run(mod, *args)),
                               np.asarray(relax_ref.run(again, *args)))


def test_tvm_reads_our_printed_call():
    b = TvmBridge()
    text = relax_ref.check(relax_ref.from_source(TEXT)).script()
    theirs = b.tvm.script.from_source(text)
    call = theirs["main"].body.blocks[0].bindings[0].value if hasattr(
        theirs["main"].body, "blocks") else None
    assert call is not None and len(call.args) == 7
