# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n, 4), dtype="float32"), s: R.Tensor((), dtype="float32"), z: R.Tensor((), dtype="int8")):
        y = R.quantize(x, s, z, axis=-1, out_dtype="int8")
        return y
