# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 4), dtype="float32")):
        y: R.Tensor((2, 1, 4), dtype="float32") = R.sum(x, axis=[1], keepdims=True)
        return y
