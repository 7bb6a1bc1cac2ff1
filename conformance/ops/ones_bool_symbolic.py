# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n, 2), dtype="float32")):
        y: R.Tensor((n,), dtype="bool") = R.ones(R.shape([n]), dtype="bool")
        return y
