# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), dtype="int8"), s: R.Tensor((), dtype="float32"), z: R.Tensor((), dtype="float32")):
        y = R.dequantize(x, s, z)
        return y
