# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, n), dtype="int32"), l: R.Tensor((n,), dtype="int32")):
        y = R.reverse_sequence(x, l, seq_axis=0, batch_axis=1)
        return y
