# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 3, 1), dtype="float32")):
        y: R.Tensor((3, 1), dtype="float32") = R.squeeze(x, axis=[0])
        return y
