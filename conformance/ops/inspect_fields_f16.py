# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n, 4), dtype="float16")):
        a = R.inspect.tensor_dtype_code(x)
        b = R.inspect.tensor_dtype_bits(x)
        c = R.inspect.tensor_dtype_lanes(x)
        d = R.inspect.tensor_ndim(x)
        e = R.inspect.tensor_shape_i(x, 0)
        f = R.inspect.tensor_stride_i(x, 0)
        y = (a, b, c, d, e, f)
        return y
