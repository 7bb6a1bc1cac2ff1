# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((n, 3), dtype="int32"), b: R.Tensor((n, 3), dtype="int32")):
        y: R.Tensor((n,), dtype="int32") = R.einsum((a, b), subscripts="ij,ij->i")
        return y
