# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((10,), dtype="float32")):
        y: R.Tensor((0,), dtype="float32") = R.strided_slice(x, (0,), (5,), (2,))
        return y
