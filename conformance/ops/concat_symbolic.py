# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
m = TypeVar("m")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n, 4), dtype="float32"), z: R.Tensor((2, 4), dtype="float32"), w: R.Tensor((m, 4), dtype="float32")):
        y: R.Tensor((n + 2 + m, 4), dtype="float32") = R.concat((x, z, w), axis=0)
        return y
