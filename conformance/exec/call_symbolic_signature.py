# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

n = TypeVar("n")
a = TypeVar("a")
b = TypeVar("b")
@I.ir_module
class Module:
    @R.function(private=True)
    def helper(x: R.Tensor((n, 4), "float32"), y: R.Tensor((n * 2,), "float32")):
        s = R.sum(x, axis=[1])
        return (R.prim_value(n), R.add(y, y), s)

    @R.function(private=True)
    def helper_reversed(y: R.Tensor((n * 2,), "float32"), x: R.Tensor((n, 4), "float32")):
        return R.prim_value(n * 10)

    @R.function
    def main(x: R.Tensor((a, 4), "float32"), y: R.Tensor((b,), "float32")):
        cls = Module
        r = cls.helper(x, y)
        q = cls.helper_reversed(y, x)
        return (r, q)
