# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n, 3), dtype="int8"), s: R.Tensor((3,), dtype="float32"), z: R.Tensor((3,), dtype="int8")):
        y = R.dequantize(x, s, z, axis=1)
        return y
