# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), i: R.Tensor((4,), dtype="int64"), u: R.Tensor((4,), dtype="float32")):
        y = R.scatter_elements(x, i, u, reduction="mul")
        return y
