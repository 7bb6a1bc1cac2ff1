# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((8,), dtype="int32"), i: R.Tensor((5, 1), dtype="int64"), u: R.Tensor((5,), dtype="int32")):
        y = R.scatter_nd(x, i, u, reduction="update")
        return y
