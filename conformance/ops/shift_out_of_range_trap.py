# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), dtype="int32"), z: R.Tensor((3,), dtype="int32")):
        y = R.left_shift(x, z)
        w = R.right_shift(x, z)
        return (y, w)
