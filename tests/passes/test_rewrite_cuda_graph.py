"""RewriteCUDAGraph: static storages cached, a run of launches captured; the builtins
record on the first call and replay on the second (checked against the module before
the pass); where it declines; TVM's pass on the same input."""
from __future__ import annotations

import numpy as np
import pytest

from relax_ref.errors import RuntimeCheckError
from relax_ref.ir import relax as rx
from relax_ref.ir.equal import assert_structural_equal
from relax_ref.parser.builder import parse
from relax_ref.passes.registry import get_pass
from relax_ref.semantics.interpreter import Interpreter
from relax_ref.verify import check_pass
from tests.passes.lowering_helpers import at_stage, needs_tvm

CUDA_GRAPH = get_pass("RewriteCUDAGraph")

CHAIN = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 4), "float32")) -> R.Tensor((2, 4), "float32"):
        with R.dataflow():
            a = R.exp(x)
            b = R.exp(a)
            c = R.exp(b)
            d = R.add(c, a)
            e = R.exp(d)
            R.output(e)
        return e
'''


def _builtin_calls(mod, name: str) -> list[rx.Call]:
    return [b.value for blk in mod.functions["main"].body.blocks for b in blk.bindings
            if isinstance(b.value, rx.Call) and isinstance(b.value.op, rx.Op)
            and b.value.op.name == "relax.call_builtin_with_ctx"
            and b.value.args[0].global_symbol == name]


def test_static_launches_are_captured_and_storages_cached():
    mod = at_stage("RewriteCUDAGraph", CHAIN)
    out = CUDA_GRAPH(mod)
    assert len(_builtin_calls(out, "vm.builtin.cuda_graph.get_cached_alloc")) == 1
    assert len(_builtin_calls(out, "vm.builtin.cuda_graph.run_or_capture")) == 1
    # exp(x, .) reads the argument and exp(., e) writes the result, which is not in a
    # planned storage: both stay outside; the three launches between are captured.
    capture = out.functions["main_cuda_graph_capture"]
    launches = [b for blk in capture.body.blocks for b in blk.bindings
                if isinstance(b.value, rx.Call) and isinstance(b.value.op, rx.GlobalVar)]
    assert [b.value.op.name_hint for b in launches] == ["exp", "exp", "add"]
    assert capture.attrs.get("relax.force_pure") is True
    check_pass(CUDA_GRAPH, mod)


def test_second_call_replays_the_capture():
    mod = at_stage("RewriteCUDAGraph", CHAIN)
    out = CUDA_GRAPH(mod)
    before, after = Interpreter(mod), Interpreter(out)
    rng = np.random.default_rng(0)
    for _ in range(3):  # capture, then two replays on new inputs
        x = rng.standard_normal((2, 4)).astype("float32")
        np.testing.assert_array_equal(after.run("main", [x]), before.run("main", [x]))
    state = after.vm_state["cuda_graph"]
    assert (state["captured"], state["replayed"]) == (1, 2)


def test_a_replay_on_other_memory_traps():
    # A hand-broken rewrite: the captured tensor is allocated fresh on every call, so
    # the replay would act on the first call's memory (EXEC-vm-cudagraph-2).
    text = '''
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def fill(a: T.Buffer((T.int64(4),), "float32")):
        for i in range(T.int64(4)):
            with T.sblock("a"):
                vi = T.axis.spatial(T.int64(4), i)
                a[vi] = T.float32(1)

    @R.function(private=True)
    def capture(a: R.Tensor((4,), "float32")) -> R.Tuple:
        R.func_attr({"relax.force_pure": True})
        cls = Module
        _ = cls.fill(a)
        return R.tuple()

    @R.function
    def main() -> R.Tensor((4,), "float32"):
        R.func_attr({"relax.force_pure": True})
        cls = Module
        a = R.builtin.alloc_tensor(R.shape([4]), R.dtype("float32"), 0, R.str("global"))
        _ = R.call_builtin_with_ctx(R.ExternFunc("vm.builtin.cuda_graph.run_or_capture"), (cls.capture, (a,), R.prim_value(0)), sinfo_args=(R.Tuple,))
        return a
'''
    interp = Interpreter(parse(text))
    np.testing.assert_array_equal(interp.run("main", []), np.ones(4, "float32"))
    with pytest.raises(RuntimeCheckError, match="other memory") as err:
        interp.run("main", [])
    assert err.value.rule == "EXEC-vm-cudagraph-2"


RECURSIVE = '''
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def inc(a: T.Buffer((T.int64(4),), "float32"), b: T.Buffer((T.int64(4),), "float32")):
        for i in range(T.int64(4)):
            with T.sblock("b"):
                vi = T.axis.spatial(T.int64(4), i)
                b[vi] = a[vi] + T.float32(1)

    @R.function
    def main(x: R.Tensor((4,), "float32"), k: R.Prim("int64")) -> R.Tensor((4,), "float32"):
        R.func_attr({"relax.force_pure": True})
        cls = Module
        storage = R.memory.alloc_storage(R.shape([16]), 0, R.str("global"), R.dtype("float32"))
        t = R.memory.alloc_tensor(storage, 0, R.shape([4]), R.dtype("float32"))
        _ = cls.inc(x, t)
        out = R.builtin.alloc_tensor(R.shape([4]), R.dtype("float32"), 0, R.str("global"))
        if R.prim_value(k > 0):
            r = cls.main(t, R.prim_value(k - 1))
            _2 = cls.inc(r, out)
            res = out
        else:
            _3 = cls.inc(t, out)
            res = out
        return res
'''


def test_declines_a_recursive_function():
    # Each activation needs its own storage while the recursive call runs: caching it
    # across calls would let the inner call overwrite the outer one's t.
    mod = parse(RECURSIVE)
    assert "cuda_graph_alloc" not in CUDA_GRAPH(mod).functions
    check_pass(CUDA_GRAPH, mod)


def test_declines_a_storage_whose_tensor_escapes():
    # t is returned: a cached storage would be overwritten by the next call while the
    # caller still holds the previous result.
    text = RECURSIVE[:RECURSIVE.index("    @R.function")] + '''
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        R.func_attr({"relax.force_pure": True})
        cls = Module
        storage = R.memory.alloc_storage(R.shape([16]), 0, R.str("global"), R.dtype("float32"))
        t = R.memory.alloc_tensor(storage, 0, R.shape([4]), R.dtype("float32"))
        _ = cls.inc(x, t)
        u = R.memory.alloc_tensor(storage, 0, R.shape([4]), R.dtype("float32"))
        _1 = cls.inc(t, u)
        return u
'''
    mod = parse(text)
    assert "cuda_graph_alloc" not in CUDA_GRAPH(mod).functions
    # the same without the escape (u in a storage of its own) is rewritten
    kept = text.replace("u = R.memory.alloc_tensor(storage, 0, R.shape([4]), "
                        "R.dtype(\"float32\"))",
                        "u = R.builtin.alloc_tensor(R.shape([4]), R.dtype(\"float32\"), 0, "
                        "R.str(\"global\"))")
    assert "cuda_graph_alloc" in CUDA_GRAPH(parse(kept)).functions


def test_symbolic_shapes_stay_outside_graphs():
    # Without an upper bound on n, every planned storage has a symbolic size: nothing
    # is cached, nothing captured.
    text = CHAIN.replace('R.Tensor((2, 4), "float32")', 'R.Tensor(("n", 4), "float32")')
    mod = at_stage("RewriteCUDAGraph", text)
    assert CUDA_GRAPH(mod) is mod


@needs_tvm
def test_capture_function_as_tvm_makes_it():
    import tvm

    from relax_ref.parser.printer import print_module
    from relax_ref.semantics.normalize import normalize

    mod = at_stage("RewriteCUDAGraph", CHAIN)
    with tvm.transform.PassContext(config={"relax.backend.use_cuda_graph": True}):
        theirs = tvm.relax.transform.RewriteCUDAGraph()(
            tvm.script.from_source(print_module(mod)))
    theirs = normalize(parse(theirs.script()))
    ours = CUDA_GRAPH(mod)
    for name in ("cuda_graph_alloc", "main_cuda_graph_capture"):
        # TVM's printer adds the deduced return annotation; ours leaves it to deduction
        f, g = ours.functions[name], theirs.functions[name]
        assert_structural_equal(
            rx.Function(f.params, f.body, g.ret_struct_info, f.is_pure, f.attrs,
                        f.is_private),
            rx.Function(g.params, g.body, g.ret_struct_info, g.is_pure, g.attrs,
                        g.is_private))


def _same(a, b) -> None:
    if isinstance(a, tuple):
        assert isinstance(b, tuple) and len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
    elif isinstance(a, np.ndarray):
        np.testing.assert_array_equal(a, b)
    else:
        assert a == b


def test_replays_on_random_programs_compute_what_the_input_computes():
    # check_pass compares first calls; here each rewritten program runs three times in
    # one interpreter (a capture, then replays on new inputs), against the input.
    from relax_ref.errors import RelaxError
    from relax_ref.semantics.inputs import random_value, symbols_needed
    from relax_ref.testing.fuzz import GenOptions
    from relax_ref.testing.strategies import RandomChoices, build_module, generate_text

    replayed = 0
    for seed in range(12):
        text = generate_text(RandomChoices(np.random.default_rng([1, seed])), GenOptions())
        mod = CUDA_GRAPH.fuzz_inputs(build_module(text))
        out = CUDA_GRAPH(mod)
        if out is mod:
            continue
        before, after = Interpreter(mod), Interpreter(out)
        rng = np.random.default_rng(seed)
        for name, f in mod.functions.items():
            if not isinstance(f, rx.Function) or f.is_private or f.attrs.get("global_symbol") \
                    and f.attrs.get("global_symbol") != name:
                continue
            env = {v: 3 for v in symbols_needed(f)}
            for _ in range(3):
                args = [random_value(p.struct_info, env, rng) for p in f.params]
                try:
                    want = before.run(name, args)
                except RelaxError:
                    with pytest.raises(RelaxError):
                        after.run(name, args)
                    continue
                _same(want, after.run(name, args))
        replayed += after.vm_state.get("cuda_graph", {}).get("replayed", 0)
    assert replayed > 0


def test_bounded_symbolic_shapes_cache_storages_but_capture_nothing():
    # With n <= 16 the planned storages have static sizes and are cached; the tensors
    # in them still have symbolic shapes, so no launch is captured (TVM 0.27 alike).
    text = CHAIN.replace('R.Tensor((2, 4), "float32")', 'R.Tensor(("n", 4), "float32")') \
        .replace("        with R.dataflow():",
                 '        R.func_attr({"tir_var_upper_bound": {"n": 16}})\n'
                 "        with R.dataflow():", 1)
    mod = at_stage("RewriteCUDAGraph", text)
    out = CUDA_GRAPH(mod)
    assert len(_builtin_calls(out, "vm.builtin.cuda_graph.get_cached_alloc")) == 1
    assert not _builtin_calls(out, "vm.builtin.cuda_graph.run_or_capture")
    check_pass(CUDA_GRAPH, mod)


def test_a_match_cast_alias_is_not_static():
    # b's type names k, defined by the match_cast in main: a capture function taking b
    # would define k a second time (WF-sym-4). Only plain aliases are static.
    text = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((), "float32"):
        with R.dataflow():
            a = R.negative(x)
            b = R.match_cast(a, R.Tensor(("k",), "float32"))
            c = R.matmul(b, b)
            d = R.exp(c)
            e = R.exp(d)
            R.output(e)
        return e
'''
    mod = at_stage("RewriteCUDAGraph", text)
    check_pass(CUDA_GRAPH, mod)
