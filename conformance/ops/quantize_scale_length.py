# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32"), s: R.Tensor((2,), dtype="float32"), z: R.Tensor((), dtype="int8")):
        y = R.quantize(x, s, z, axis=1)
        return y
