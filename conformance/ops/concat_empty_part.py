# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 2), dtype="bool"), z: R.Tensor((0, 2), dtype="bool")):
        y = R.concat((x, z), axis=0)
        return y
