"""make_closure, invoke_closure, invoke_pure_closure (spec/ops/structural.md
SI-struct-closure-1..2, EXEC-closure-1..2): deduction, the interpreter's closure calls,
and errors naming their rule."""
from __future__ import annotations

import numpy as np
import pytest

from relax_ref.errors import RuntimeCheckError, StructInfoError
from relax_ref.ir import struct_info as si
from relax_ref.parser.builder import parse
from relax_ref.semantics.interpreter import Interpreter
from relax_ref.semantics.normalize import normalize
from relax_ref.semantics.well_formed import check_well_formed

T23 = 'R.Tensor((2, 3), dtype="float32")'


def _module(body: str, ret: str = T23, main_params: str = f"x: {T23}, y: {T23}",
            pure: bool = True) -> str:
    deco = "@R.function" if pure else "@R.function(pure=False)"
    return f'''
@I.ir_module
class Module:
    @R.function(private=True)
    def sub(a: {T23}, c: {T23}) -> {T23}:
        s = R.subtract(a, c)
        return s

    {deco}
    def main({main_params}) -> {ret}:
        cls = Module
{body}
'''


def _load(text: str):
    return normalize(parse(text))


def _main_binding(mod, name):
    for block in mod["main"].body.blocks:
        for b in block.bindings:
            if b.var.name_hint == name:
                return b.var
    raise KeyError(name)


def test_make_closure_is_an_object_and_invoke_has_its_ty_args():
    mod = _load(_module(f'''        f = R.make_closure(cls.sub, (y,))
        r = R.invoke_pure_closure(f, (x,), ty_args=({T23},))
        p = R.invoke_pure_closure(f, (x,), ty_args=({T23}, {T23}))
        q = R.invoke_pure_closure(f, (x,))
        return r'''))
    assert isinstance(_main_binding(mod, "f").struct_info, si.ObjectStructInfo)
    assert _main_binding(mod, "r").struct_info.ndim == 2
    assert isinstance(_main_binding(mod, "p").struct_info, si.TupleStructInfo)
    assert isinstance(_main_binding(mod, "q").struct_info, si.ObjectStructInfo)


@pytest.mark.parametrize("invoke,pure", [("invoke_closure", False),
                                         ("invoke_pure_closure", True)])
def test_captured_values_come_after_the_arguments(invoke, pure):
    mod = _load(_module(f'''        f = R.make_closure(cls.sub, (y,))
        r = R.{invoke}(f, (x,), ty_args=({T23},))
        return r''', pure=pure))
    x, y = np.full((2, 3), 5, "float32"), np.ones((2, 3), "float32")
    np.testing.assert_array_equal(Interpreter(mod).run("main", [x, y]), x - y)


def test_a_closure_called_as_a_function_value():
    """EXEC-closure-2: a plain call of a variable holding a closure passes the captured
    values too (the form LambdaLift gives a local function used as a value)."""
    fn = f"R.Callable(({T23},), {T23}, True)"
    mod = _load(_module(f'''        c = R.make_closure(cls.sub, (y,))
        f = R.match_cast(c, {fn})
        r = f(x)
        return r'''))
    x, y = np.full((2, 3), 3, "float32"), np.ones((2, 3), "float32")
    np.testing.assert_array_equal(Interpreter(mod).run("main", [x, y]), x - y)


def test_make_closure_needs_a_module_function():
    with pytest.raises(StructInfoError, match="SI-struct-closure-1|module"):
        _load(_module('''        f = R.make_closure(x, (y,))
        return x'''))
    with pytest.raises(StructInfoError, match="tuple"):
        _load(_module('''        f = R.make_closure(cls.sub, y)
        return x'''))


def test_invoke_arguments_must_be_a_tuple():
    with pytest.raises(StructInfoError, match="tuple"):
        _load(_module(f'''        f = R.make_closure(cls.sub, (y,))
        r = R.invoke_pure_closure(f, x, ty_args=({T23},))
        return r'''))


def test_invoke_with_the_wrong_arity_or_result_traps():
    x = np.ones((2, 3), "float32")
    mod = _load(_module(f'''        f = R.make_closure(cls.sub, (y,))
        r = R.invoke_pure_closure(f, (x, y), ty_args=({T23},))
        return r'''))
    with pytest.raises(RuntimeCheckError) as err:
        Interpreter(mod).run("main", [x, x])
    assert err.value.check == "signature"
    t32 = 'R.Tensor((3, 2), dtype="float32")'
    mod = _load(_module(f'''        f = R.make_closure(cls.sub, (y,))
        r = R.invoke_pure_closure(f, (x,), ty_args=({t32},))
        return r''', ret=t32))
    with pytest.raises(RuntimeCheckError) as err:
        Interpreter(mod).run("main", [x, x])
    assert err.value.rule == "EXEC-closure-2"


def test_invoke_closure_is_impure():
    mod = _load(_module(f'''        f = R.make_closure(cls.sub, (y,))
        r = R.invoke_closure(f, (x,), ty_args=({T23},))
        return r'''))
    assert any(e.rule == "WF-pure-2" for e in check_well_formed(mod))
