# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 3), dtype="float32"), a: R.Tensor((3,), dtype="int64"), b: R.Tensor((3,), dtype="int64"), v: R.Tensor((3,), dtype="float32")):
        y = R.index_put(x, (a, b), v, accumulate=True)
        return y
