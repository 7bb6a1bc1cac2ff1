# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n, 4), dtype="float32"), z: R.Tensor((4,), dtype="float32")):
        y: R.Tensor((n, 4), dtype="float32") = R.add(x, z)
        return y
