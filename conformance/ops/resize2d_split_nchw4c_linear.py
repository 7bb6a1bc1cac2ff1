# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 2, 3, 4, 4), dtype="float32")):
        y = R.image.resize2d(x, R.shape([5, 7]), layout="NCHW4c")
        return y
