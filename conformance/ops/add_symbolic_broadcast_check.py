# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
m = TypeVar("m")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n,), dtype="float32"), z: R.Tensor((m,), dtype="float32")):
        y = R.add(x, z)
        return y
