# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(d: R.Tensor((1, 4, 6), dtype="float32"), v: R.Tensor((1,), dtype="int32"), i: R.Tensor((1, 4), dtype="int64")):
        y = R.vision.non_max_suppression(d, v, i)
        return y
