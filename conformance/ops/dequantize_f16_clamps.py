# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), dtype="int32"), s: R.Tensor((), dtype="float16"), z: R.Tensor((), dtype="int32")):
        y = R.dequantize(x, s, z, out_dtype="float16")
        return y
