# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), dtype="float32"), i: R.Tensor((2, 1), dtype="int32")):
        y = R.gather_nd(x, i)
        return y
