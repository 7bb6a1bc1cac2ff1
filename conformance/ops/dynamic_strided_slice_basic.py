# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 5), dtype="float32"), b: R.Tensor(dtype="int64", ndim=1), e: R.Tensor(dtype="int64", ndim=1), s: R.Tensor(dtype="int64", ndim=1)):
        y = R.dynamic_strided_slice(x, b, e, s)
        return y
