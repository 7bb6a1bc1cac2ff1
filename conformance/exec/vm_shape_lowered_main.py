# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

m = TypeVar("m")
n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n, 2), dtype="float32"), s: R.Shape([m])) -> R.Shape([n, m]):
        R.func_attr({"relax.force_pure": True})
        shape_heap: R.Tensor(dtype="int64", ndim=1) = R.call_builtin_with_ctx("vm.builtin.alloc_shape_heap", (2,), ty_args=(R.Tensor(dtype="int64", ndim=1),))
        R.call_packed("vm.builtin.check_tensor_info", x, 2, R.dtype("float32"), R.str("ErrorContext(fn=main, loc=param[0], param=x, annotation=R.Tensor((n, 2), dtype=\"float32\")) "), ty_args=(R.Tuple,))
        R.call_packed("vm.builtin.check_shape_info", s, 1, R.str("ErrorContext(fn=main, loc=param[1], param=s, annotation=R.Shape([m])) "), ty_args=(R.Tuple,))
        R.call_packed("vm.builtin.match_shape", x, shape_heap, 2, 1, 0, 0, 2, R.str("ErrorContext(fn=main, loc=param[0], param=x, annotation=R.Tensor((n, 2), dtype=\"float32\")) "), ty_args=(R.Tuple,))
        R.call_packed("vm.builtin.match_shape", s, shape_heap, 1, 1, 1, R.str("ErrorContext(fn=main, loc=param[1], param=s, annotation=R.Shape([m])) "), ty_args=(R.Tuple,))
        y: R.Tensor((n, 2), dtype="float32") = R.match_cast(x, R.Tensor((n, 2), dtype="float32"))
        gv: R.Shape(ndim=2) = R.call_packed("vm.builtin.make_shape", shape_heap, 2, 1, 0, 1, 1, ty_args=(R.Shape(ndim=2),))
        R.call_packed("vm.builtin.match_shape", gv, shape_heap, 2, 3, 0, 3, 1, R.str("ErrorContext(fn=main, loc=return, annotation=R.Shape([n, m])) "), ty_args=(R.Tuple,))
        return gv
