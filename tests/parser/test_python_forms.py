"""Python spellings that TVM's test files use inside modules and that read without
evaluating anything: spreading a known tuple (SYN-call-1), buffer fields and tuple
indexing (SYN-tir-7, SYN-expr-1), one name for T.grid's loop variables (SYN-tir-10),
T.attr as a statement (SYN-tir-15), augmented stores (SYN-tir-6), a variable's
struct info (SYN-expr-4), and TVM's Python op builders (SYN-import-1)."""
from __future__ import annotations

import pytest

from relax_ref.errors import ParseError
from relax_ref.ir.equal import assert_structural_equal
from relax_ref.parser.builder import parse

COPY = '''
@T.prim_func
def f(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4, 8), "float32")):
    for {loop}:
        with T.sblock("copy"):
            vi, vj = T.axis.remap("SS", {vars})
            B[vi, vj] = A[vi, vj]
'''


def copy(loop: str, vars_: str):
    return parse(COPY.format(loop=loop, vars=vars_))


def test_a_spread_buffer_shape_and_one_name_for_the_grid():
    plain = copy("i, j in T.grid(4, 8)", "[i, j]")
    assert_structural_equal(copy("ivs in T.grid(*A.shape)", "ivs"), plain)
    assert_structural_equal(copy("i, j in T.grid(A.shape[0], B.shape[-1])", "[i, j]"), plain)


def test_buffer_fields():
    text = COPY.format(loop="i, j in T.grid(4, 8)", vars="[i, j]").replace(
        "B[vi, vj] = A[vi, vj]", "B[vi, vj] = T.Cast(A.dtype, A.elem_offset)")
    store = parse(text).functions["f"].body.block.body.body.body.block.body
    assert str(store.value.dtype) == "float32"


def test_an_index_outside_a_tuple_is_an_error():
    with pytest.raises(ParseError, match="index 2 of a tuple of 2"):
        copy("i, j in T.grid(A.shape[2], 8)", "[i, j]")


def test_spreading_something_else_is_an_error():
    with pytest.raises(ParseError, match="spreads a tuple") as err:
        copy("i, j in T.grid(*A, 8)", "[i, j]")
    assert err.value.rule == "SYN-call-1"


STORES = '''
@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    for i in range(4):
        {stmt}
'''


def test_augmented_stores_read_as_stores():
    assert_structural_equal(parse(STORES.format(stmt="A[i] += T.float32(2)")),
                            parse(STORES.format(stmt="A[i] = A[i] + T.float32(2)")))
    with pytest.raises(ParseError, match="TIR variables are immutable"):
        parse(STORES.format(stmt="i += 1"))


def test_t_attr_as_a_statement_scopes_over_the_rest():
    stmt = 'T.attr(0, "pragma_scope", "seq")\n        A[i] = T.float32(1)'
    with_form = 'with T.attr(0, "pragma_scope", "seq"):\n            A[i] = T.float32(1)'
    assert_structural_equal(parse(STORES.format(stmt=stmt)), parse(STORES.format(stmt=with_form)))


RELAX = '''
from tvm import relax

@R.function
def f(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
    y = {call}
    return y
'''


@pytest.mark.parametrize("call, plain", [
    ("relax.op.add(x, x)", "R.add(x, x)"),
    ("relax.op.nn.relu(x)", "R.nn.relu(x)"),
    ('R.call_dps_packed("f", (x,), out_ty=x.struct_info)',
     'R.call_dps_packed("f", (x,), out_ty=R.Tensor((4,), "float32"))'),
    ('relax.call_dps_packed("f", (x,), x.ty)',
     'R.call_dps_packed("f", (x,), R.Tensor((4,), "float32"))'),
])
def test_tvm_python_op_builders_and_struct_info_of_a_variable(call, plain):
    assert_structural_equal(parse(RELAX.format(call=call)), parse(RELAX.format(call=plain)))


def test_augmented_assignment_in_relax_is_an_error_naming_the_fix():
    with pytest.raises(ParseError, match="bindings are immutable") as err:
        parse(RELAX.format(call="x").replace("    y = x\n", "    y = x\n    y += x\n"))
    assert err.value.rule == "SYN-relax-1"


def test_t_attr_of_a_dict_nests_attributes_on_node_zero():
    sugar = 'T.attr({"pragma_scope": "seq", "unroll": 4})\n        A[i] = T.float32(1)'
    nested = ('with T.attr(0, "pragma_scope", "seq"):\n            with T.attr(0, "unroll", 4):'
              '\n                A[i] = T.float32(1)')
    assert_structural_equal(parse(STORES.format(stmt=sugar)), parse(STORES.format(stmt=nested)))


def test_a_tensor_annotation_over_a_shape_variable_keeps_its_ndim():
    text = '''
@R.function
def f(x: R.Tensor((2, 3), "float32"), s: R.Shape(ndim=2)):
    y: R.Tensor(s, dtype="float32") = R.zeros(s, dtype="float32")
    return y
'''
    y = parse(text).functions["f"].body.blocks[0].bindings[0].var
    assert y.struct_info.shape is None and y.struct_info.ndim == 2


def test_meta_var_names_a_value_read_in_place():
    """SYN-sym-3: ``C = I.meta_var(T.int64(16))`` makes C the constant 16."""
    text = '''
@R.function
def f(x: R.Tensor(("n", 16), "float32")):
    n, c = T.int64(), I.meta_var(T.int64(16))
    scale = I.meta_var(T.FloatImm("float32", 0.5))
    y = R.match_cast(x, R.Tensor((n, c), "float32"))
    z = R.multiply(y, R.const(0.5, "float32"))
    return z
'''
    plain = text.replace("n, c = T.int64(), I.meta_var(T.int64(16))", "n = T.int64()").replace(
        "(n, c)", "(n, 16)").replace('    scale = I.meta_var(T.FloatImm("float32", 0.5))\n', "")
    assert_structural_equal(parse(text), parse(plain))


def test_typed_constant_nodes():
    assert_structural_equal(parse(STORES.format(stmt='A[i] = T.FloatImm("float32", 0.5)')),
                            parse(STORES.format(stmt="A[i] = T.float32(0.5)")))
    with pytest.raises(ParseError, match="T.IntImm takes an integer"):
        parse(STORES.format(stmt='A[i] = T.IntImm("float32", 1)'))


def test_an_extern_func_with_its_annotation_is_called_directly():
    text = '''
@R.function(pure=False)
def f(A: R.Tensor((4,), "float32")):
    B = R.ExternFunc("runtime.view", R.Callable(derive_func="infer_view"))(A, R.shape([2, 2]))
    return B
'''
    from relax_ref.parser.printer import print_module
    mod = parse(text)
    callee = mod.functions["f"].body.blocks[0].bindings[0].value.op
    assert callee.struct_info.derive_func == "infer_view"
    assert_structural_equal(parse(print_module(mod)), mod)


def test_tvm_devices_read_as_r_device():
    text = RELAX.format(call='R.hint_on_device(x, {dev}, "global")')
    assert_structural_equal(parse(text.format(dev="tvm.cuda(1)")),
                            parse(text.format(dev="R.device(device_type=2, index=1)")))
    assert_structural_equal(parse(text.format(dev="tvm.cpu()")),
                            parse(text.format(dev="R.device(device_type=1, index=0)")))


def test_one_dps_argument_that_is_not_a_tuple_is_wrapped():
    assert_structural_equal(
        parse(RELAX.format(call='R.call_dps_packed("f", x, R.Tensor((4,), "float32"))')),
        parse(RELAX.format(call='R.call_dps_packed("f", (x,), R.Tensor((4,), "float32"))')))


def test_tvm_tir_constructors_and_t_const():
    assert_structural_equal(parse("from tvm import tir\n" + STORES.format(
        stmt='A[i] = tvm.tir.const(0.5, "float32") + tir.const(1.5)')),
        parse(STORES.format(stmt="A[i] = T.float32(0.5) + T.float32(1.5)")))


def test_lowercase_t_buffer_and_thread_invariant():
    text = STORES.replace('T.Buffer((4,), "float32")', 'T.buffer((4,), "float32")').format(
        stmt="A[i] = T.tvm_thread_invariant(A[i])")
    assert parse(text).functions["f"].params


def test_a_return_annotation_of_none_is_left_to_deduction():
    text = RELAX.format(call="x").replace(' -> R.Tensor((4,), "float32"):', " -> None:")
    assert parse(text).functions["f"].ret_struct_info is None


def test_targets_in_function_attributes_print_back():
    from relax_ref.parser.printer import print_module
    attrs = ('    T.func_attr({"target": T.target({"kind": "llvm", "keys": ["cpu"]}), '
             '"t2": T.target("cuda", host="llvm")})\n')
    text = STORES.format(stmt="A[i] = T.float32(0)").replace("    for i", attrs + "    for i")
    mod = parse(text)
    assert_structural_equal(parse(print_module(mod)), mod)


def test_emit_te_is_a_located_error_naming_the_fix():
    text = "from tvm import topi\n" + RELAX.format(call='R.emit_te(topi.add, x, x)')
    with pytest.raises(ParseError, match="write the PrimFunc with @T.prim_func") as err:
        parse(text)
    assert err.value.rule == "SYN-relax-9"


def test_r_shape_expr_is_r_shape():
    assert_structural_equal(parse(RELAX.format(call="R.ShapeExpr([4])")),
                            parse(RELAX.format(call="R.shape([4])")))


# TVM 0.27's lowering of bucketize, as it prints it (a binary search per element).
SEARCH = '''
n = TypeVar("n")
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def search(b: T.Buffer((T.int64(4),), "float32"), x: T.Buffer((n,), "float32"), out: T.Buffer((n,), "int64")):
        T.func_attr({"tirx.noalias": True})
        with T.sblock("search"):
            T.reads()
            T.writes()
            for v in T.parallel(n):
                lo = T.alloc_local((T.int64(1),), "int64")
                hi = T.alloc_local((T.int64(1),), "int64")
                lo[T.int64(0)] = T.int64(0)
                hi[T.int64(0)] = T.int64(4)
                while lo[T.int64(0)] < hi[T.int64(0)]:
                    if b[lo[T.int64(0)] + (hi[T.int64(0)] - lo[T.int64(0)] >> T.int64(1))] < x[v]:
                        lo[T.int64(0)] = lo[T.int64(0)] + (hi[T.int64(0)] - lo[T.int64(0)] >> T.int64(1)) + T.int64(1)
                    else:
                        hi[T.int64(0)] = lo[T.int64(0)] + (hi[T.int64(0)] - lo[T.int64(0)] >> T.int64(1))
                out[v] = lo[T.int64(0)]

    @R.function
    def main(x: R.Tensor((n,), dtype="float32"), b: R.Tensor((4,), dtype="float32")) -> R.Tensor((n,), dtype="int64"):
        cls = Module
        y = R.call_tir(cls.search, (b, x), out_ty=R.Tensor((n,), dtype="int64"))
        return y
'''


def test_alloc_local_is_a_local_allocation_for_the_rest_of_the_body():
    import numpy as np

    import relax_ref
    from relax_ref.ir import tir
    from relax_ref.parser.printer import print_module

    mod = relax_ref.check(parse(SEARCH))
    decls = [s for s in _stmts(mod.functions["search"].body) if isinstance(s, tir.DeclBuffer)]
    assert [(d.buffer.scope, d.buffer.data) for d in decls] == [("local", None)] * 2
    x = np.array([-1.0, 0.0, 0.5, 2.5, 9.0], "float32")
    b = np.array([0.0, 1.0, 2.0, 3.0], "float32")
    np.testing.assert_array_equal(relax_ref.run(mod, x, b), np.searchsorted(b, x))
    assert_structural_equal(relax_ref.check(parse(print_module(mod))), mod)


def _stmts(s):
    from relax_ref.ir.uses import tir_nodes
    return list(tir_nodes(s))


LOOP_ALLOC = '''
@I.ir_module
class Module:
    @T.prim_func
    def f(a: T.Buffer((4,), "int64")):
        for i in range(4):
            t = T.alloc_buffer((2,), "int64")
            if i == 0:
                t[0] = T.int64(7)
            a[i] = t[0]
'''


def test_alloc_buffer_inside_a_loop_is_allocated_each_iteration():
    """SYN-tir-alloc-1: TVM 0.27 allocates a statement-level T.alloc_buffer where it
    stands, so iteration 1 reads fresh (poisoned) memory, not iteration 0's 7."""
    import numpy as np

    from relax_ref.ir import tir
    from relax_ref.semantics.tir_interp import run_prim_func

    f = parse(LOOP_ALLOC).functions["f"]
    assert isinstance(f.body, tir.For) and isinstance(f.body.body, tir.DeclBuffer)
    a = np.zeros(4, "int64")
    run_prim_func(f, [a])
    assert a[0] == 7 and not (a[1:] == 7).any()
