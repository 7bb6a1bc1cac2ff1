"""AttachGlobalSymbol: every function public with its name as global symbol, a
system_lib_prefix renaming PrimFuncs with their references, and the samples."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from relax_ref.ir import relax as rx
from relax_ref.parser.builder import parse
from relax_ref.passes.registry import get_pass
from relax_ref.semantics.interpreter import run
from relax_ref.semantics.well_formed import check_well_formed
from relax_ref.verify import check_pass
from tests.conftest import sample_files, sample_path
from tests.passes.lowering_helpers import at_stage, needs_tvm, tvm_pass

ATTACH = get_pass("AttachGlobalSymbol")


def test_every_function_is_public_under_its_name():
    mod = at_stage("AttachGlobalSymbol", sample_path("mlp.py").read_text())
    out = ATTACH(mod)
    for name, f in out.functions.items():
        assert f.attrs.get("global_symbol") == name and not f.is_private
    check_pass(ATTACH, mod)


def test_a_system_lib_prefix_renames_prim_funcs():
    mod = at_stage("AttachGlobalSymbol", sample_path("mlp.py").read_text())
    mod = dataclasses.replace(mod, attrs=rx.Attrs.of({"system_lib_prefix": "lib_"}))
    out = ATTACH(mod)
    prims = sorted(n for n in mod.functions if n != "main")
    assert sorted(out.functions) == sorted(["main"] + ["lib_" + n for n in prims])
    assert "lib_matmul" in out.functions
    assert check_well_formed(out) == []
    x, w1 = np.ones((2, 16), "float32"), np.ones((16, 32), "float32")
    args = [x, w1, np.ones(32, "float32"), np.ones((32, 8), "float32")]
    np.testing.assert_array_equal(run(out, "main", args), run(mod, "main", args))


# every stage on every sample: slow (test_default_pipeline covers them end to end)
@pytest.mark.slow
@pytest.mark.parametrize("path", sample_files(), ids=lambda p: p.stem)
def test_samples_at_its_stage(path):
    check_pass(ATTACH, at_stage("AttachGlobalSymbol", path.read_text()), trials=2)


@needs_tvm
def test_same_symbols_as_tvms_pass():
    mod = at_stage("AttachGlobalSymbol", sample_path("mlp.py").read_text())
    theirs = tvm_pass("AttachGlobalSymbol", mod)
    assert sorted(theirs.functions) == sorted(ATTACH(mod).functions)
    assert all(not f.is_private for f in theirs.functions.values())
