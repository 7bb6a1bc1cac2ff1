# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((6,), dtype="float32"), s: R.Tensor((2,), dtype="float32")):
        y = R.slice_scatter(x, s, 4, 8, 2)
        return y
