"""DispatchSampling (spec/passes.md PASS-dispatch-sample-1..2): multinomial_from_uniform
becomes a cumsum and a call_tir of get_sample_index, checked by check_pass at symbolic
batch sizes (random rows out of range and empty vocabularies trap on both sides)."""
from __future__ import annotations

import pytest

import relax_ref
from relax_ref.passes.dispatch_sampling import dispatch_sampling
from relax_ref.passes.dispatch_sort_scan import dispatch_sort_scan
from relax_ref.passes.legalize_ops import legalize_ops
from relax_ref.verify import check_pass

from ..ops.legalize_helpers import calls_of, module

OP = "relax.multinomial_from_uniform"


def _mod(vocab, prob_dtype="float32", index_dtype="int64", out="int64"):
    text = module(f'p: R.Tensor(("b", {vocab}), "{prob_dtype}"), '
                  f'u: R.Tensor(("n", 1), "{prob_dtype}"), '
                  f'i: R.Tensor(("n", 1), "{index_dtype}")',
                  f'y = R.multinomial_from_uniform(p, u, i, dtype="{out}")')
    return relax_ref.check(relax_ref.from_source(text))


@pytest.mark.parametrize("vocab,types", [(4, ("float32", "int64", "int64")),
                                         ('"v"', ("float16", "int32", "int32"))])
def test_dispatch_keeps_the_samples(vocab, types):
    mod = _mod(vocab, *types)
    check_pass(dispatch_sampling, mod, trials=4)
    out = dispatch_sampling(mod)
    assert calls_of(out, OP) == 0 and calls_of(out, "relax.cumsum") == 1
    assert "get_sample_index" in {gv for gv in out.functions}


def test_the_whole_lowering_after_dispatch_sort_scan_and_legalize_ops():
    mod = dispatch_sampling(_mod(5))
    check_pass(dispatch_sort_scan, mod, trials=3)
    lowered = legalize_ops(dispatch_sort_scan(mod))
    assert calls_of(lowered, "relax.cumsum") == 0


def test_legalize_ops_alone_leaves_the_op():
    assert calls_of(legalize_ops(_mod(4)), OP) == 1


@pytest.mark.tvm
def test_tvm_reads_the_dispatched_module():
    pytest.importorskip("tvm")
    from relax_ref.conformance import tvm_reads_text

    ok, why = tvm_reads_text(dispatch_sampling(_mod(5)).script())
    assert ok, why
