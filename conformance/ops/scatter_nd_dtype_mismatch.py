# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), dtype="float32"), i: R.Tensor((1, 1), dtype="int64"), u: R.Tensor((1,), dtype="float16")):
        y = R.scatter_nd(x, i, u)
        return y
