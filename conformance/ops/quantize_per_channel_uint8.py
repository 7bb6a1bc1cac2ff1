# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float16"), s: R.Tensor((3,), dtype="float16"), z: R.Tensor((3,), dtype="uint8")):
        y = R.quantize(x, s, z, axis=1, out_dtype="uint8")
        return y
