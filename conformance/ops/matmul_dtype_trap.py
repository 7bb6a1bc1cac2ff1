# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(ndim=2), w: R.Tensor((2, 2), dtype="float32")):
        y = R.matmul(x, w)
        return y
