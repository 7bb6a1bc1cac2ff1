# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="int32"), z: R.Tensor((4,), dtype="int32")):
        y = R.power(x, z)
        return y
