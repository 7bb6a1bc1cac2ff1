# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

c = TypeVar("c")
@I.ir_module
class Module:
    @R.function
    def main(p: R.Tensor((c,), dtype="float32"), t: R.Tensor((), dtype="int32")):
        y = R.nn.nll_loss(p, t, ignore_index=2)
        return y
