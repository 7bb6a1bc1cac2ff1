# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 2), dtype="int8"), w: R.Tensor((2, 2), dtype="int8")):
        y = R.matmul(x, w)
        return y
