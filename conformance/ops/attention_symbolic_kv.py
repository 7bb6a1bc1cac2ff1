# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

s = TypeVar("s")
@I.ir_module
class Module:
    @R.function
    def main(q: R.Tensor((1, 2, 1, 4), dtype="float32"), k: R.Tensor((1, s, 1, 4), dtype="float32"), v: R.Tensor((1, s, 1, 2), dtype="float32")):
        y: R.Tensor((1, 2, 1, 2), dtype="float32") = R.nn.attention(q, k, v)
        return y
