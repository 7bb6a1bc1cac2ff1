# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 1, 3, 4), dtype="float32"), w: R.Tensor((5, 4, 2), dtype="float32")):
        y: R.Tensor((2, 5, 3, 2), dtype="float32") = R.matmul(x, w)
        return y
