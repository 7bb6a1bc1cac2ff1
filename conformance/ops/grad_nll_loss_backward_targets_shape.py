# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(g: R.Tensor((), dtype="float32"), p: R.Tensor((2, 3), dtype="float32"), t: R.Tensor((3,), dtype="int64")):
        y = R.grad.nll_loss_backward(g, p, t)
        return y
