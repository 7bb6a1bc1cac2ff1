# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(dtype="float32", ndim=1)) -> R.Shape(ndim=1):
        R.func_attr({"relax.force_pure": True})
        shape_heap: R.Tensor(dtype="int64", ndim=1) = R.call_builtin_with_ctx("vm.builtin.alloc_shape_heap", (1,), ty_args=(R.Tensor(dtype="int64", ndim=1),))
        R.call_packed("vm.builtin.match_shape", x, shape_heap, 1, 1, 0, R.str("ErrorContext(fn=main, loc=param[0], param=x, annotation=R.Tensor(dtype=\"float32\", ndim=1)) "), ty_args=(R.Tuple,))
        gv: R.Shape(ndim=1) = R.call_packed("vm.builtin.make_shape", shape_heap, 1, 1, 0, ty_args=(R.Shape(ndim=1),))
        R.call_packed("vm.builtin.match_shape", gv, shape_heap, 1, 0, 7, R.str("ErrorContext(fn=main, loc=return, annotation=R.Shape([7])) "), ty_args=(R.Tuple,))
        return gv
