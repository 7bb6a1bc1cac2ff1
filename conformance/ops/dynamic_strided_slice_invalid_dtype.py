# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 5), dtype="float32"), b: R.Tensor((2,), dtype="float32"), e: R.Tensor((2,), dtype="int64"), s: R.Tensor((2,), dtype="int64")):
        y = R.dynamic_strided_slice(x, b, e, s)
        return y
