# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
m = TypeVar("m")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n, m), dtype="float32")):
        s: R.Tuple(R.Tensor((n, (m + 1) // 2), dtype="float32"), R.Tensor((n, m - (m + 1) // 2), dtype="float32")) = R.split(x, indices_or_sections=2, axis=1)
        return s
