# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(g: R.Tensor((2, 2), dtype="float32"), x: R.Tensor((2, 4), dtype="float32"), i: R.Tensor((3,), dtype="int64")):
        y = R.grad.take_backward(g, x, i, axis=1)
        return y
