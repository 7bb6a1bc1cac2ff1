# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n, 4), dtype="float32"), i: R.Tensor((n, 2), dtype="int64")):
        y = R.gather_elements(x, i, axis=1)
        return y
