# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="bool"), z: R.Tensor((3,), dtype="bool")):
        y = R.logical_or(x, z)
        return y
