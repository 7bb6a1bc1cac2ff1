# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 4), dtype="int32"), i: R.Tensor((1, 2, 2), dtype="int64"), u: R.Tensor((1, 2, 2), dtype="int32")):
        y = R.scatter_elements(x, i, u, axis=0, reduction="add")
        return y
