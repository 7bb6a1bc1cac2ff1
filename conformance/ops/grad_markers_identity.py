# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n, 3), dtype="float32")):
        a = R.grad.start_checkpoint(x)
        b = R.grad.no_grad(a)
        y = R.grad.end_checkpoint(b)
        return y
