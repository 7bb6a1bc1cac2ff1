# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 3), dtype="float16"), w: R.Tensor((3, 2), dtype="float16")):
        y = R.matmul(x, w)
        return y
