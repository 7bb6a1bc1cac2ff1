# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 4), dtype="float32")):
        y: R.Tensor((4, 6), dtype="float32") = R.reshape(x, R.shape([4, -1]))
        return y
