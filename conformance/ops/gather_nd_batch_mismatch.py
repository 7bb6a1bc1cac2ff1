# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 2), dtype="float32"), i: R.Tensor((4, 1), dtype="int64")):
        y = R.gather_nd(x, i, batch_dims=1)
        return y
