"""The random module generator (relax_ref/testing/strategies.py) and the fuzzer
(relax_ref/testing/fuzz.py): generated modules are well-formed, print and read back, and
run; shrinking gives small modules; a broken pass is caught and its counterexample saved.
"""
from __future__ import annotations

import math
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, find, given, settings
from hypothesis import strategies as st

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir.equal import structural_equal
from relax_ref.parser.builder import parse
from relax_ref.parser.printer import print_module
from relax_ref.passes.registry import Pass
from relax_ref.passes.rewrite import Rewriter, finish
from relax_ref.verify import PassVerificationError, check_pass
from relax_ref.errors import RuntimeCheckError
from relax_ref.semantics.inputs import arguments_from_arrays
from relax_ref.semantics.interpreter import Interpreter
from relax_ref.semantics.normalize import normalize
from relax_ref.semantics.well_formed import check_well_formed
from relax_ref.testing.fuzz import _Problem, _signature, run_campaign, shrink_record
from relax_ref.testing.strategies import (
    RandomChoices, ReplayChoices, build_module, generate_text, generated_texts,
    module_arguments, module_texts, modules, random_module,
)

FAST = settings(max_examples=30, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# -- properties of generated modules ------------------------------------------------------------

@FAST
@given(modules())
def test_generated_modules_are_well_formed(mod):
    assert check_well_formed(mod) == []


@FAST
@given(modules())
def test_generated_modules_print_and_read_back(mod):
    text = print_module(mod)
    again = normalize(parse(text, "<printed>"))
    assert structural_equal(mod, again)
    assert print_module(again) == text


@FAST
@given(st.data())
def test_generated_modules_run_in_the_interpreter(data):
    mod = data.draw(modules())
    symbols, args = data.draw(module_arguments(mod))
    try:
        Interpreter(mod, normalized=True).run("main", args)
    except RuntimeCheckError as err:
        # The one trap the generator allows: max/min over a zero-sized dimension.
        assert "reduction over zero elements" in err.message, (symbols, err)


@FAST
@given(module_texts())
def test_module_texts_parse(text):
    assert check_well_formed(normalize(parse(text))) == []


@settings(max_examples=40, deadline=None, database=None)
@given(st.lists(st.integers(0, 300), max_size=400))
def test_any_choice_stream_gives_a_well_formed_module(record):
    # What the fuzzer's shrinker relies on: an edited record still builds.
    mod = build_module(generate_text(ReplayChoices(record)))
    assert check_well_formed(mod) == []


def test_identity_pass_verifies_on_seeded_modules():
    identity = Pass("Identity", lambda m: m)
    for i in range(20):
        text, _ = random_module(np.random.default_rng([7, i]))
        report = check_pass(identity, build_module(text), trials=2, seed=i)
        assert report.trials == 2


# -- determinism and coverage ---------------------------------------------------------------------

def test_seeded_generation_is_deterministic_and_replays():
    a = RandomChoices(np.random.default_rng([3, 1]))
    text = generate_text(a)
    assert generate_text(RandomChoices(np.random.default_rng([3, 1]))) == text
    replay = ReplayChoices(a.record)
    assert generate_text(replay) == text
    assert replay.used == a.record


def test_seeded_modules_cover_the_features():
    texts = [random_module(np.random.default_rng([0, i]))[0] for i in range(300)]
    wanted = ["R.add(", "R.matmul(", "R.reshape(", "R.permute_dims(", "R.sum(", "R.mean(",
              "keepdims=True", "R.nn.softmax(", "R.concat(", "R.split(", "R.astype(",
              "R.where(", "R.match_cast(", "R.call_tir(cls.", "cls.helper", "if x",
              "R.const(", "T.init()", "with R.dataflow():", 'R.Tensor((), dtype="bool")',
              "k0", "m = TypeVar", "n = TypeVar", "[0]"]
    for w in wanted:
        assert any(w in t for t in texts), w
    assert any(re.search(r"R\.shape\(\[[a-z]\w* \* ", t) for t in texts)  # (n * 4,)
    assert any(re.search(r" = \((lv|x)\d+, ", t) for t in texts)  # a tuple built


def _reshape_round_trips(mod) -> list[tuple]:
    """(source, middle) shapes of every ``reshape(reshape(x))`` that returns to x's shape
    through a middle shape with a symbolic product, like (n, 4) -> (n * 4,) -> (n, 4)."""
    bound = {}
    out = []
    for block in mod["main"].body.blocks:
        for b in block.bindings:
            bound[id(b.var)] = b
            v = b.value
            if not (isinstance(v, rx.Call) and getattr(v.op, "name", "") == "relax.reshape"):
                continue
            inner = bound.get(id(v.args[0]))
            if inner is None or getattr(getattr(inner.value, "op", None), "name", "") \
                    != "relax.reshape":
                continue
            src = inner.value.args[0].struct_info.shape
            mid = inner.var.struct_info.shape
            if structural_equal(b.var.struct_info.shape, src, map_free_vars=True) and \
                    any(isinstance(d, P.Mul) for d in mid):
                out.append((src, mid))
    return out


def test_reshape_keeps_symbolic_relations():
    found = []
    for i in range(2000):
        text = random_module(np.random.default_rng([0, i]))[0]
        if text.count("R.reshape(") >= 2:
            found += _reshape_round_trips(build_module(text))
            if len(found) >= 3:
                break
    assert len(found) >= 3


def test_hypothesis_shrinks_to_a_small_module():
    text = find(generated_texts(), lambda t: "R.matmul(" in t,
                settings=settings(database=None, derandomize=True, max_examples=2000,
                                  suppress_health_check=list(HealthCheck)))
    main = text.split("def main", 1)[1]
    assert main.count(" = R.") == 1, text


# -- the fuzzer ------------------------------------------------------------------------------------

def test_shrink_record_finds_the_least_failing_record():
    def fails(cand):  # "fails" while some choice is at least 5
        return (list(cand), [(i, i + 1) for i in range(len(cand))]) \
            if any(v >= 5 for v in cand) else None

    spans = [(i, i + 1) for i in range(5)]
    assert shrink_record([1, 7, 3, 9, 2], spans, fails, math.inf) == [5]


def test_shrink_record_survives_a_lower_choice_that_shortens_the_record():
    def fails(cand):  # choice 1 first ends the program after one choice
        if cand[:1] == [1]:
            return [1], []
        return (list(cand), []) if cand[:2] == [2, 9] else None

    assert shrink_record([2, 9], [], fails, math.inf) == [1]


def test_failures_differing_only_in_numbers_and_shapes_have_one_signature():
    def problem(text):
        return _Problem("trap mismatch", text, AssertionError(text), None)

    a = problem("P changed the result of main (n=0): one side trapped and the other did not\n"
                "  before: trap invalid_value: R.max: reduction over zero elements "
                "(shape (0, 4), axes [0]) has no value")
    b = problem("P changed the result of main (m=0, n=2): one side trapped and the other "
                "did not\n  before: trap invalid_value: R.max: reduction over zero "
                "elements (shape (2, 0, 4), axes [0, 1]) has no value")
    c = problem(a.message.replace("R.max", "R.min"))
    assert _signature(a) == _signature(b) != _signature(c)


# -- the fuzzer finds a broken pass -----------------------------------------------------------------

class _AddBecomesSubtract(Rewriter):
    def call(self, e):
        e = super().call(e)
        if isinstance(e.op, rx.Op) and e.op.name == "relax.add":
            return rx.Call(rx.Op("relax.subtract"), e.args, e.attrs, e.sinfo_args, span=e.span)
        return e


BROKEN = Pass("AddBecomesSubtract", lambda m: finish(_AddBecomesSubtract().module(m)))


def test_fuzz_campaign_finds_a_broken_pass(tmp_path):
    result = run_campaign(BROKEN, programs=30, seed=0, out_dir=tmp_path, progress=False,
                          shrink_seconds=60)
    assert result.programs > 0 and result.programs_per_second > 0
    assert result.failing_programs >= 1 and result.failures
    f = result.failures[0]
    assert f.kind == "wrong result"
    for path in (f.module_path, f.inputs_path, f.report_path):
        assert path.exists() and path.parent == tmp_path
    assert f.module_path.name == "AddBecomesSubtract-1.py"
    # shrunk: one R.add survives, and the module is small
    text = f.module_path.read_text()
    assert text.count("R.add(") >= 1 and text.count(" = R.") <= 4, text
    mod = parse(text, str(f.module_path))
    assert check_well_formed(normalize(mod)) == []
    with pytest.raises(PassVerificationError):
        check_pass(BROKEN, mod, trials=4)
    # the saved inputs are the failing ones: the results differ on them
    data = np.load(f.inputs_path)
    arrays = [data[k] for k in sorted(data.files, key=lambda k: int(k[3:]))]
    args = arguments_from_arrays(normalize(mod)["main"], arrays)
    before = Interpreter(mod).run("main", args)
    after = Interpreter(BROKEN(mod)).run("main", args)
    assert not np.array_equal(before, after)
    assert "wrong result" in f.report_path.read_text()
    assert "AddBecomesSubtract" in result.summary()


def test_fuzz_campaign_of_a_correct_pass_finds_nothing(tmp_path):
    identity = Pass("Identity", lambda m: m)
    result = run_campaign(identity, programs=20, seed=1, out_dir=tmp_path / "out",
                          progress=False)
    assert result.programs > 0 and result.ok and not result.failures
    assert result.invalid == 0
    assert not (tmp_path / "out").exists()
