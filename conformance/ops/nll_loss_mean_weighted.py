# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(p: R.Tensor((3, 4, 2), dtype="float32"), t: R.Tensor((3, 2), dtype="int64"), w: R.Tensor((4,), dtype="float32")):
        y = R.nn.nll_loss(p, t, w, reduction="mean")
        return y
