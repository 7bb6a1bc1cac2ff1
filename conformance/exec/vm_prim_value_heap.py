# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(k: R.Prim("int64")) -> R.Prim("int64"):
        R.func_attr({"relax.force_pure": True})
        shape_heap: R.Tensor(dtype="int64", ndim=1) = R.call_builtin_with_ctx("vm.builtin.alloc_shape_heap", (1,), ty_args=(R.Tensor(dtype="int64", ndim=1),))
        R.call_packed("vm.builtin.check_prim_value_info", k, R.dtype("int64"), R.str("ErrorContext(fn=main, loc=param[0], param=k, annotation=R.Prim(\"int64\")) "), ty_args=(R.Tuple,))
        R.call_packed("vm.builtin.match_prim_value", k, shape_heap, 1, 0, R.str("ErrorContext(fn=main, loc=param[0], param=k, annotation=R.Prim(\"int64\")) "), ty_args=(R.Tuple,))
        gv: R.Prim("int64") = R.call_packed("vm.builtin.make_prim_value", shape_heap, 1, 0, ty_args=(R.Prim("int64"),))
        return gv
