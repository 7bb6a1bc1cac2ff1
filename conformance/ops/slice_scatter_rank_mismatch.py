# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 8), dtype="float32"), s: R.Tensor((2,), dtype="float32")):
        y = R.slice_scatter(x, s, 1, 7, 3, axis=1)
        return y
