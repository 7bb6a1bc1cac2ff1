# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="int8"), s: R.Tensor(dtype="float32", ndim=1), z: R.Tensor((), dtype="int8")):
        y = R.dequantize(x, s, z, axis=1)
        return y
