# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

b = TypeVar("b")
n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(p: R.Tensor((b, 4), dtype="float32"), u: R.Tensor((n, 1), dtype="float32"), i: R.Tensor((n, 1), dtype="int64")):
        y = R.multinomial_from_uniform(p, u, i, dtype="int64")
        return y
