"""PASS-adapt-1 and PASS-fuzz-2: check_pass compares signature-changing passes through
their own Adapters, and the fuzzer checks the passes registered as the identity
(BindParams, BindSymbolicVars) as random instances. Both can fail."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from relax_ref.parser.builder import parse
from relax_ref.passes.bind_params import bind_params
from relax_ref.passes.bind_symbolic_vars import bind_symbolic_vars
from relax_ref.passes.registry import Pass, get_pass
from relax_ref.verify import PassVerificationError, check_pass
from relax_ref.testing.fuzz import run_campaign
from tests.passes.test_bind_params import MLP, SYMBOLIC

W = np.linspace(-1, 1, 4 * 3, dtype=np.float32).reshape(4, 3)


def test_check_pass_uses_bind_params_adapter():
    """The bound function has one parameter fewer: check_pass draws its inputs from the
    bound signature and inserts the bound value for the original."""
    report = check_pass(bind_params("main", {"w": W}), parse(MLP), trials=3)
    assert report.functions == ["main"] and report.compared == 3


def test_without_the_adapter_the_changed_signature_is_caught():
    p = bind_params("main", {"w": W})
    blind = dataclasses.replace(p, adapters=None)
    with pytest.raises(PassVerificationError, match="trapped"):
        check_pass(blind, parse(MLP), trials=2)


def test_an_adapter_that_inserts_another_value_is_caught():
    """The adapter states the pass's contract (PASS-bind-params-5): a pass that binds a
    different value from the one it declares changes results."""
    declared = bind_params("main", {"w": W})
    lying = dataclasses.replace(bind_params("main", {"w": W + 1}),
                                adapters=declared.adapters)
    with pytest.raises(PassVerificationError, match="changed the result"):
        check_pass(lying, parse(MLP), trials=2)


def test_check_pass_uses_bind_symbolic_vars_adapter():
    report = check_pass(bind_symbolic_vars({"n": 3}, "main"), parse(SYMBOLIC), trials=3)
    assert report.compared == 3


@pytest.mark.parametrize("name", ["BindParams", "BindSymbolicVars"])
def test_fuzz_checks_random_instances(name, tmp_path):
    result = run_campaign(name, programs=40, seed=4, out_dir=tmp_path, progress=False)
    assert result.ok, result.summary()
    assert result.instances > result.programs // 3, result.summary()


def test_fuzz_catches_a_broken_instance(tmp_path):
    """An instance that binds a parameter to a value other than the one its adapter
    inserts (a BindParams that 'rounds' the constant) is found and saved."""
    real = get_pass("BindParams")

    def broken(mod, rng):
        good = real.instantiate(mod, rng)
        if good is None:
            return None
        (key, value), = good.options["params"].items()
        wrong = bind_params(good.options["func_name"], {key: value * 0.5})
        return dataclasses.replace(wrong, adapters=good.adapters)

    p = Pass("BrokenBind", real.run, instantiate=broken)
    result = run_campaign(p, programs=40, seed=4, out_dir=tmp_path, progress=False,
                          shrink_seconds=30)
    assert not result.ok and result.failures, result.summary()
    assert "Bind" in result.failures[0].report_path.read_text()
