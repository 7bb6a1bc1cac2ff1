"""NORM-incremental-1: normalization keeps the bindings an earlier normalization produced
where nothing they read changed, and deduces again everything downstream of a change,
giving the module a full deduction gives."""
from __future__ import annotations

import relax_ref
from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.passes.rewrite import RetypingRewriter
from relax_ref.semantics.normalize import normalize

CHAIN = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor(ndim=2, dtype="float32"):
        with R.dataflow():
            y = R.add(x, x)
            z = R.exp(y)
            w = R.multiply(z, z)
            u = R.negative(x)
            R.output(w, u)
        return w
'''


def _bindings(mod):
    return {b.var.name_hint: b for b in mod.functions["main"].body.blocks[0].bindings}


def _rewrite_y_as_a_reshape(mod):
    """y = R.reshape(x, (3, 2)) instead: what reads y changes shape."""
    class Reshape(RetypingRewriter):
        def binding(self, b):
            if b.var.name_hint != "y":
                return super().binding(b)
            x = mod.functions["main"].params[0]
            y = rx.DataflowVar("y")  # no struct info: deduced from the new value
            self.var_map[id(b.var)] = y
            shape = rx.ShapeExpr((P.IntImm(3), P.IntImm(2)))
            return [rx.VarBinding(y, rx.Call(rx.Op("relax.reshape"), (x, shape)))]
    return Reshape().module(mod)


def test_untouched_bindings_are_kept_and_readers_of_a_change_are_deduced_again():
    mod = relax_ref.check(relax_ref.from_source(CHAIN))
    before = _bindings(mod)
    out = normalize(_rewrite_y_as_a_reshape(mod))
    after = _bindings(out)
    assert after["u"] is before["u"]  # reads only x: kept as it was
    for name in ("y", "z", "w"):  # the change and everything that reads it
        assert after[name] is not before[name]
        assert [d.value for d in after[name].var.struct_info.shape] == [3, 2]
    # the same module as a full deduction from the printed text
    assert out.script() == normalize(relax_ref.from_source(out.script())).script()


def test_a_variable_bound_twice_is_copied_the_second_time():
    mod = relax_ref.check(relax_ref.from_source(CHAIN))
    main = mod.functions["main"]
    twin = rx.Function(main.params, main.body, main.ret_struct_info, main.is_pure,
                       main.attrs, main.is_private)
    out = normalize(mod.with_functions({"main": main, "twin": twin}))
    first = {id(b.var) for b in out.functions["main"].body.blocks[0].bindings}
    second = {id(b.var) for b in out.functions["twin"].body.blocks[0].bindings}
    assert not first & second


def test_other_bounds_deduce_again():
    """The analyzer's facts are part of what a deduction read."""
    text = CHAIN.replace("(2, 3)", '("n", 3)')
    mod = relax_ref.check(relax_ref.from_source(text))
    main = mod.functions["main"]
    bounded = rx.Function(main.params, main.body, main.ret_struct_info, main.is_pure,
                          rx.Attrs.of({"tir_var_upper_bound": rx.Attrs.of({"n": 64})}),
                          main.is_private)
    out = normalize(mod.with_functions({"main": bounded}))
    kept = _bindings(out)
    assert all(kept[k] is not b for k, b in _bindings(mod).items())
    assert isinstance(kept["w"].var.struct_info, si.TensorStructInfo)
