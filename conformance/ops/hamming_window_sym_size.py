# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n,), dtype="float32")):
        y = R.hamming_window(R.prim_value(n), 0, T.float64(0.5), T.float64(0.5), dtype="float16")
        return y
